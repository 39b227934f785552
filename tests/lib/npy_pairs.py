#!/usr/bin/env python3
"""npy_pairs.py: split a RoPE cache exported by `pecheck reference --family
rope` (shape (n, d/2, 2), [r, i, 0] = cos, [r, i, 1] = sin, '<f4' or '<f8')
into the two (n, d/2) '<f4' tables `--table COS.npy --table-sin SIN.npy`
takes, with the standard library only (no numpy needed).

    npy_pairs.py PAIRS.npy COS.npy SIN.npy [SCALE [bf16]]

SCALE (default 1) multiplies every value (in binary64, then rounded to
binary32): a cache whose (cos, sin) have another norm.  bf16: every value
rounded to bfloat16 (to nearest, ties to even) and stored widened to
float32, as a bfloat16 cache converted back to float32."""
import ast
import struct
import sys
from array import array


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise SystemExit(path + ": not a .npy file")
    major = data[6]
    hl = struct.unpack("<H", data[8:10])[0] if major == 1 else struct.unpack("<I", data[8:12])[0]
    start = (10 if major == 1 else 12) + hl
    hdr = ast.literal_eval(data[(10 if major == 1 else 12):start].decode("latin1"))
    code = {"<f4": "f", "<f8": "d"}.get(hdr["descr"])
    if code is None or hdr["fortran_order"] or len(hdr["shape"]) != 3 or hdr["shape"][2] != 2:
        raise SystemExit(path + ": expected a C-order (n, h, 2) <f4 or <f8 array")
    a = array(code)
    a.frombytes(data[start:])
    return hdr["shape"], a


def write(path, n, h, vals):
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (n, h)
    pad = 64 - (10 + len(hdr) + 1) % 64
    hdr = hdr + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode("latin1"))
        f.write(array("f", vals).tobytes())


def bf16(vals):
    out = array("f", vals)
    u = array("I")
    u.frombytes(out.tobytes())
    for k, b in enumerate(u):
        u[k] = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return array("f", u.tobytes())


def main(argv):
    if len(argv) not in (4, 5, 6):
        raise SystemExit(__doc__)
    (n, h, _), a = read(argv[1])
    scale = float(argv[4]) if len(argv) == 5 else 1.0
    cos, sin = a[0::2], a[1::2]
    if scale != 1.0:
        cos = [v * scale for v in cos]
        sin = [v * scale for v in sin]
    if len(argv) == 6 and argv[5] == "bf16":
        cos, sin = bf16(cos), bf16(sin)
    write(argv[2], n, h, cos)
    write(argv[3], n, h, sin)


if __name__ == "__main__":
    main(sys.argv)
