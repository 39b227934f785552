"""served_server.py: the serving end of `pecheck check --serve W,R`
(docs/python.md "The served kernel's protocol"), for tests/served.t.

    served_server.py PECHECK MODE OUT [pecheck options...]

starts `PECHECK check --family rope --serve W,R OPTIONS`, answers each
request with MODE's rotation (a float64 rotation of the default schedule,
base --base, rounded to the request's dtype) or MODE's misbehaviour, and
writes pecheck's output to OUT and "rc R calls C cos-sin-err E" on stdout.

MODE: ok; pair (the other layout's pairs); dir (the rotation by -theta);
off1 (positions + 1); still (no rotation); refuse (rc 1 for every call); eof (closes its pipes
after the first request); magic (a reply with another magic number);
short (a reply one byte short, then its pipes closed); size (a reply whose
length is not the tensor's); pad (also writes the padding between heads).
With --serve-cos-sin the cos and sin received are compared with float64
cos and sin of the same angles (the largest difference is printed)."""
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

REQ, REP = 0x50435251, 0x50435250
HEADER = struct.Struct("=IIIiiiiiiIQqqQ")  # 72 bytes


def base_of(opts):
    return float(opts[opts.index("--base") + 1]) if "--base" in opts else 10000.0


def rotate(x, pos, layout, rot, base, mode):
    """x (n, H, D) float64 rotated by the default schedule of BASE."""
    i = np.arange(rot // 2)
    inv = base ** (-(2.0 * i) / rot)
    theta = (pos.astype(np.float64) + (1 if mode == "off1" else 0))[:, None] * inv[None, :]
    c, s = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]
    if mode == "dir":
        s = -s
    if mode == "still":
        c, s = np.ones_like(c), np.zeros_like(s)
    y = x.copy()
    if (layout == 1) != (mode == "pair"):
        a, b = x[..., : rot // 2], x[..., rot // 2: rot]
        y[..., : rot // 2], y[..., rot // 2: rot] = a * c - b * s, a * s + b * c
    else:
        a, b = x[..., 0:rot:2], x[..., 1:rot:2]
        y[..., 0:rot:2], y[..., 1:rot:2] = a * c - b * s, a * s + b * c
    return y


def to_f64(view, dtype):
    if dtype == 2:  # bfloat16 bits
        return (view.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return view.astype(np.float64)


def store(view, dtype, y):
    if dtype == 2:  # round to nearest even
        u = y.astype(np.float32).view(np.uint32).astype(np.uint64)
        view[...] = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    else:
        view[...] = y.astype(view.dtype)


class Server:
    def __init__(self, fin, fout, mode, base):
        self.fin, self.fout, self.mode, self.base = fin, fout, mode, base
        self.calls, self.cs_err = 0, 0.0

    def read(self, n):
        b = b""
        while len(b) < n:
            c = self.fin.read(n - len(b))
            if not c:
                return None
            b += c
        return b

    def cos_sin(self, n, rot, pos):
        cs = np.frombuffer(self.read(8 * n * (rot // 2)), dtype=np.float32).reshape(2, n, rot // 2)
        inv = self.base ** (-(2.0 * np.arange(rot // 2)) / rot)
        theta = pos[:, :1].astype(np.float64) * inv[None, :]
        self.cs_err = max(self.cs_err, float(np.abs(cs[0] - np.cos(theta)).max()),
                          float(np.abs(cs[1] - np.sin(theta)).max()))

    def reply(self, rc, payload):
        self.fout.write(struct.pack("=IiQ", REP if self.mode != "magic" else 0x12345678, rc,
                                    len(payload) + (1 if self.mode == "size" else 0)) + payload)

    def serve_one(self):
        h = self.read(HEADER.size)
        if h is None:
            return False
        (magic, _ver, _target, heads, hd, rot, layout, dtype, naxes, flags, n, st_tok, st_head,
         nbytes) = HEADER.unpack(h)
        assert magic == REQ, hex(magic)
        pos = np.frombuffer(self.read(8 * n * naxes), dtype=np.int64).reshape(n, naxes)
        if flags & 1:
            self.cos_sin(n, rot, pos)
        buf = bytearray(self.read(nbytes))
        self.calls += 1
        if self.mode == "eof":
            return False
        if self.mode == "refuse":
            self.reply(1, b"this kernel takes no call")
            return True
        es = 4 if dtype == 0 else 2
        arr = np.frombuffer(buf, dtype=[np.float32, np.float16, np.uint16][dtype])
        view = np.lib.stride_tricks.as_strided(arr, shape=(n, heads, hd),
                                               strides=(es * st_tok, es * st_head, es))
        y = rotate(to_f64(view, dtype), pos[:, 0], layout, rot, self.base, self.mode)
        if self.mode == "pad":
            arr[...] = 0  # the padding between the views too
        store(view, dtype, y)
        if self.mode == "short":
            self.fout.write(struct.pack("=IiQ", REP, 0, nbytes) + bytes(buf[:-1]))
            return False
        self.reply(0, bytes(buf))
        return True


def main():
    pecheck, mode, out_path, opts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    rq_r, rq_w = os.pipe()
    rp_r, rp_w = os.pipe()
    out = tempfile.TemporaryFile()
    p = subprocess.Popen([pecheck, "check", "--family", "rope", "--serve", f"{rq_w},{rp_r}"] + opts,
                         pass_fds=(rq_w, rp_r), stdout=out, stderr=subprocess.STDOUT)
    os.close(rq_w)
    os.close(rp_r)
    fin, fout = os.fdopen(rq_r, "rb", buffering=0), os.fdopen(rp_w, "wb", buffering=0)
    s = Server(fin, fout, mode, base_of(opts))
    try:
        while s.serve_one():
            pass
    except BrokenPipeError:
        pass
    fin.close()
    fout.close()
    rc = p.wait()
    out.seek(0)
    with open(out_path, "wb") as f:
        f.write(out.read())
    print(f"rc {rc} calls {s.calls} cos-sin-err {s.cs_err:.3g}")


main()
