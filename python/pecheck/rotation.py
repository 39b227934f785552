"""check_rotation: call the user's own RoPE rotation and gate every element.

pecheck runs `check --family rope --serve W,R` (docs/python.md "check_rotation";
the protocol: the request and reply messages below): its accuracy gate and
the RoPE properties ask this process to rotate a [n, heads, head_dim]
tensor of test vectors at given positions; the tensor is handed to the
user's function in the shapes of its library (FORMS), what the function
returns goes back, and the binary compares every rotated element with the
certified rotation.  One pecheck process per check, fed every request over
two pipes; its stdout and stderr go to temporary files (never a pipe that
is not read, which could fill and stall it).

Requests with other dims or another pairing than the check's (a property's
shrinking tries a smaller d) are answered "not supported": the user's
function is built for one head_dim and rotary_dim, and pecheck reports such
a configuration as skipped, never as passed.
"""
import fcntl
import inspect
import json
import os
import signal
import struct
import subprocess
import tempfile
from dataclasses import dataclass, replace

from . import _arrays, _binary, _cleanup, _transport, settings
from .checks import cli_args
from .result import Result, verdicts_from_json

# ---- the wire protocol (version 1) -----------------------------------------
# native byte order, no padding: "=" (struct's native order, standard sizes)
REQ_MAGIC, REP_MAGIC, VERSION = 0x50435251, 0x50435250, 1
# magic, version, target, heads, head_dim, rotary_dim, layout, dtype, n_axes,
# flags, n_tokens, stride_token, stride_head, tensor_bytes: 72 bytes
REQUEST = struct.Struct("=IIIiiiiiiIQqqQ")
# magic, rc, len: 16 bytes
REPLY = struct.Struct("=IiQ")
FLAG_COS_SIN = 1
LAYOUTS = {0: "interleaved", 1: "half"}
DTYPES = {0: "f32", 1: "f16", 2: "bf16"}
ESIZE = {"f32": 4, "f16": 2, "bf16": 2}


@dataclass(frozen=True)
class Request:
    target: int
    heads: int
    head_dim: int
    rotary_dim: int
    layout: str
    dtype: str
    positions: object      # int64 numpy array (n, n_axes)
    cos: object            # float32 (n, R/2) or None
    sin: object
    stride_token: int
    stride_head: int
    tensor: bytes          # tensor_bytes bytes

    @property
    def n(self):
        return self.positions.shape[0]


def _read_exact(fd, n):
    """N bytes from FD; b'' on EOF before the first byte; EOFError when the
    stream ends inside them."""
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = os.readv(fd, [view[got:]])
        if k == 0:
            if got == 0:
                return b""
            raise EOFError("pecheck's request ended after %d of %d bytes" % (got, n))
        got += k
    return bytes(buf)


def read_request(fd):
    """The next Request on FD, or None at EOF (pecheck closed its end)."""
    np = _arrays.numpy()
    head = _read_exact(fd, REQUEST.size)
    if not head:
        return None
    (magic, version, target, heads, head_dim, rotary, layout, dtype, n_axes, flags, n,
     st_tok, st_head, nbytes) = REQUEST.unpack(head)
    if magic != REQ_MAGIC or version != VERSION:
        raise ValueError("not a pecheck serve request (magic 0x%08x, version %d)"
                         % (magic, version))
    pos = np.frombuffer(_read_exact(fd, 8 * n * n_axes), dtype="=i8").reshape(n, n_axes)
    cos = sin = None
    if flags & FLAG_COS_SIN:
        half = rotary // 2
        cos = np.frombuffer(_read_exact(fd, 4 * n * half), dtype="=f4").reshape(n, half)
        sin = np.frombuffer(_read_exact(fd, 4 * n * half), dtype="=f4").reshape(n, half)
    tensor = _read_exact(fd, nbytes) if nbytes else b""
    return Request(target, heads, head_dim, rotary, LAYOUTS.get(layout, str(layout)),
                   DTYPES.get(dtype, str(dtype)), pos, cos, sin, st_tok, st_head, tensor)


def pack_request(req):
    """The bytes of REQ as pecheck writes them (the tests' fake server)."""
    np = _arrays.numpy()
    code = {v: k for k, v in LAYOUTS.items()}[req.layout]
    dt = {v: k for k, v in DTYPES.items()}[req.dtype]
    pos = np.ascontiguousarray(req.positions, dtype="=i8")
    flags = FLAG_COS_SIN if req.cos is not None else 0
    out = [REQUEST.pack(REQ_MAGIC, VERSION, req.target, req.heads, req.head_dim, req.rotary_dim,
                        code, dt, pos.shape[1], flags, pos.shape[0], req.stride_token,
                        req.stride_head, len(req.tensor)), pos.tobytes()]
    if flags:
        out += [np.ascontiguousarray(req.cos, "=f4").tobytes(),
                np.ascontiguousarray(req.sin, "=f4").tobytes()]
    return b"".join(out) + req.tensor


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        k = os.write(fd, view)
        view = view[k:]


def write_reply(fd, rc, payload):
    """Reply RC with PAYLOAD (the rotated tensor's bytes, or a UTF-8 reason)."""
    _write_all(fd, REPLY.pack(REP_MAGIC, rc, len(payload)))
    if payload:
        _write_all(fd, payload)


def read_reply(fd):
    """(rc, payload) of a reply (the tests' fake pecheck)."""
    magic, rc, n = REPLY.unpack(_read_exact(fd, REPLY.size))
    if magic != REP_MAGIC:
        raise ValueError("not a pecheck serve reply (magic 0x%08x)" % magic)
    return rc, _read_exact(fd, n) if n else b""


# ---- the tensor of a request as numpy / torch --------------------------------

def _np_storage(dtype):
    np = _arrays.numpy()
    return np.dtype({"f32": "=f4", "f16": "=f2"}.get(dtype, "=u2"))  # bf16: its bits


def _view(flat, req):
    """The [n, heads, head_dim] view of the flat element array FLAT."""
    np = _arrays.numpy()
    es = flat.itemsize
    span = (req.n - 1) * req.stride_token + (req.heads - 1) * req.stride_head + req.head_dim
    if req.n and (flat.size < span or min(req.stride_token, req.stride_head) < 0):
        raise ValueError("pecheck's request: %d elements do not hold %d tokens at strides %d, %d"
                         % (flat.size, req.n, req.stride_token, req.stride_head))
    return np.lib.stride_tricks.as_strided(
        flat, shape=(req.n, req.heads, req.head_dim),
        strides=(req.stride_token * es, req.stride_head * es, es), writeable=flat.flags.writeable)


def _torch_dtype(torch, dtype):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dtype]


def request_tensor(req, device=None):
    """The request's [n, heads, head_dim] tensor as a contiguous torch tensor."""
    import torch
    np = _arrays.numpy()
    flat = np.frombuffer(req.tensor, dtype=_np_storage(req.dtype))
    a = np.array(_view(flat, req), order="C", copy=True)  # writable: torch shares its memory
    if req.dtype == "bf16":
        t = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    else:
        t = torch.from_numpy(a)
    return t.to(device) if device is not None else t


def reply_bytes(req, rotated):
    """The request's tensor bytes with ROTATED ([n, heads, head_dim] torch
    tensor of the request's dtype) in its view; the padding as it came."""
    import torch
    np = _arrays.numpy()
    t = rotated.detach().to("cpu").contiguous()
    if req.dtype == "bf16":
        a = t.view(torch.int16).numpy().view(np.uint16)
    else:
        a = t.numpy()
    flat = np.frombuffer(bytearray(req.tensor), dtype=_np_storage(req.dtype))
    _view(flat, req)[...] = a
    return flat.tobytes()


# ---- the forms ---------------------------------------------------------------

@dataclass(frozen=True)
class Form:
    name: str
    pair: bool            # q and k: two targets
    cos_sin: bool         # the request carries the certified cos and sin
    layout: str           # the default pairing (its library's)
    library: str
    call: str             # how fn is called
    returns: str          # what fn returns
    element: str          # the index order of the tensor: 'x[0, t, h, j]'


FORMS = {
    "x,pos": Form("x,pos", False, False, "interleaved", "torchtune RotaryPositionalEmbeddings",
                  "fn(x, positions)", "x' of x's shape (1, n, H, D) and dtype",
                  "x[0, {t}, {h}, {j}]"),
    "q,k,pos": Form("q,k,pos", True, False, "half", "vLLM RotaryEmbedding.forward_native",
                    "fn(positions, q, k)", "(q', k'), q' of q's shape (n, H*D) and dtype",
                    "{name}[{t}, {hj}]"),
    "q,k,cos,sin": Form("q,k,cos,sin", True, True, "half", "transformers apply_rotary_pos_emb",
                        "fn(q, k, cos, sin)", "(q', k'), q' of q's shape (1, H, n, D) and dtype",
                        "{name}[0, {h}, {t}, {j}]"),
    "x,freqs_cis": Form("x,freqs_cis", True, True, "interleaved", "Meta's apply_rotary_emb",
                        "fn(xq, xk, freqs_cis)",
                        "(xq', xk'), xq' of xq's shape (1, n, H, D) and dtype",
                        "{name}[0, {t}, {h}, {j}]"),
    "x,cos,sin": Form("x,cos,sin", False, True, "half", "flash-attn apply_rotary_emb_torch",
                      "fn(x, cos, sin)", "x' of x's shape (1, n, H, D) and dtype",
                      "x[0, {t}, {h}, {j}]"),
}
TARGETS = {True: ("q", "k"), False: ("x",)}
PAIR_NAMES = {"q,k,pos": ("q", "k"), "q,k,cos,sin": ("q", "k"), "x,freqs_cis": ("xq", "xk")}


def _positions_argument(fn):
    """How fn(x, positions) takes its positions in form 'x,pos': None (the
    second positional parameter) or a keyword (torchtune's forward(x, *,
    input_pos=None))."""
    # a torch module: its forward's (Module.__call__ takes *args)
    target = fn.forward if callable(getattr(fn, "forward", None)) else fn
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    names = {p.name for p in params}
    for key in ("input_pos", "position_ids", "positions"):
        if key in names:
            return key
    return None


def _cos_sin(torch, req, form, dtype, device):
    """The form's cos and sin (or freqs_cis) of the request's certified values."""
    c = torch.from_numpy(req.cos.copy()).to(device)
    s = torch.from_numpy(req.sin.copy()).to(device)
    if form.name == "x,freqs_cis":
        return (torch.complex(c, s),)
    if form.name == "q,k,cos,sin":  # HF: (1, n, R), column j is pair j mod R/2 (half) or j//2
        if req.layout == "half":
            c, s = torch.cat((c, c), dim=-1), torch.cat((s, s), dim=-1)
        else:
            c, s = c.repeat_interleave(2, dim=-1), s.repeat_interleave(2, dim=-1)
        c, s = c[None], s[None]
    return c.to(dtype), s.to(dtype)


class Caller:
    """Calls the user's FN in FORM on requests; records each call's
    positions (target, first row, positions) to name a witness's element."""

    def __init__(self, fn, form, device, chunk, dims, pos_limit=None):
        self.fn, self.form, self.device, self.chunk, self.dims = fn, form, device, chunk, dims
        # the largest position fn is called at (forms of positions; None: any)
        self.pos_limit = pos_limit
        self.pos_kw = _positions_argument(fn) if form.name == "x,pos" else None
        self.calls = []   # (target, numpy positions (n, A))
        self.names = PAIR_NAMES.get(form.name, ("x",))
        # the names of the current run's targets (--serve-targets), in order
        self.run_targets = self.names
        # a pair form's first run gates q alone and compares k', rolled back,
        # with q' on every call (MIRROR_SAME); when they are equal bit for
        # bit everywhere, q's verdicts are k's (the same values, the same
        # errors) and k needs no run of its own
        self.mirroring = False
        self.mirror_same, self.mirror_calls = True, 0
        self.mirrored = False   # k's verdicts are q's
        # q's output equal to k's, rolled forward, on every call: fn returned
        # (k', q') for (q', k')
        self.swapped = True

    def answer(self, req):
        """(rc, payload) of REQ: 0 and the rotated tensor's bytes, or a
        nonzero rc and the reason the configuration is not served."""
        got = (req.head_dim, req.rotary_dim, req.layout, req.dtype)
        # dims not given are the first request's: the accuracy gate's, the check's own
        self.dims = [g if w is None else w for w, g in zip(self.dims, got)]
        other = [(k, g) for k, w, g in zip(("head_dim", "rotary_dim", "layout", "dtype"),
                                           self.dims, got) if w != g]
        beyond = (self.pos_limit is not None and req.n
                  and int(req.positions.max()) > self.pos_limit)
        if other and not self.form.cos_sin:
            # a property's smaller case: a function of positions holds its
            # frequencies for one head_dim and rotary_dim
            return 1, ("%s is built for head_dim %s, rotary_dim %s, layout %s, dtype %s (the "
                       "check's), not %s" % ((self.form.call,) + tuple(self.dims) + (", ".join(
                           "%s %s" % kv for kv in other),))).encode()
        if self.form.cos_sin and req.cos is None:
            raise ValueError("pecheck's request carries no cos/sin for form %r" % self.form.name)
        try:
            x = request_tensor(req)
            step = self.chunk or max(req.n, 1)
            parts = [self._call(req, x[lo:lo + step], lo, min(lo + step, req.n))
                     for lo in range(0, req.n, step)]
        except (FnError, TypeError, ValueError) as e:
            if not (other or beyond):
                raise
            # a property's case outside the check's configuration (another
            # head_dim; a position beyond the checked ones: extrapolation):
            # what fn could not do is that case's answer, not the check's end
            why = e.error if isinstance(e, FnError) else e
            return 1, ("%s raised %s: %s (%s)" % (
                self.form.call, type(why).__name__, why, "positions up to %d, beyond the checked "
                "0..%d" % (int(req.positions.max()), self.pos_limit) if beyond else
                ", ".join("%s %s" % kv for kv in other))).encode()
        import torch
        return 0, reply_bytes(req, torch.cat(parts) if len(parts) > 1 else parts[0])

    def _call(self, req, x, lo, hi):
        """The rotated [hi - lo, heads, head_dim] tensor of rows LO..HI-1."""
        import torch
        dev = self.device
        pos_np = req.positions[lo:hi]
        target = self.names.index(self.run_targets[req.target]) if self.form.pair else 0
        self.calls.append((target, pos_np.copy()))
        positions = torch.from_numpy(pos_np.copy())
        if positions.shape[1] == 1:
            positions = positions[:, 0]
        if dev is not None:
            positions, x = positions.to(dev), x.to(dev)
        extra = ()
        if self.form.cos_sin:
            sub = replace(req, cos=req.cos[lo:hi], sin=req.sin[lo:hi])
            extra = _cos_sin(torch, sub, self.form, x.dtype, dev if dev is not None else "cpu")
        args, named = _form_tensors(self.form, x, target, positions, extra)
        shapes = "%s (%s; tokens %d..%d of pecheck's request of %d)" % (
            ", ".join("%s %s" % (k, _shape(k, v)) for k, v in named), _dtype(x.dtype), lo, hi - 1,
            req.n)
        with torch.no_grad():
            try:
                if self.form.name == "x,pos" and self.pos_kw:
                    out = self.fn(args[0], **{self.pos_kw: positions})
                else:
                    out = self.fn(*args)
            except Exception as e:
                raise FnError(e, "form %r: %s(%s) raised %s" % (
                    self.form.name, getattr(self.fn, "__name__", type(self.fn).__name__),
                    shapes, type(e).__name__)) from e
        tensors = args[1:3] if self.form.name == "q,k,pos" else args[:2 if self.form.pair else 1]
        got = self._unpack(out, tensors, target, tuple(x.shape), x.dtype)
        if self.mirroring and target == 0:
            self._mirror(self._unpack(out, tensors, 1, tuple(x.shape), x.dtype), got)
        return got

    def _mirror(self, other, got):
        """Whether k' (OTHER: k holds q's values with the heads rolled by
        one), rolled back, equals q' (GOT) bit for bit."""
        import torch
        back = torch.roll(other, shifts=-1, dims=1)
        bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[got.element_size()]
        same = torch.equal(back.contiguous().view(bits), got.contiguous().view(bits))
        self.mirror_same = self.mirror_same and same
        ahead = torch.roll(other, shifts=1, dims=1)
        self.swapped = self.swapped and not same and torch.equal(ahead.contiguous().view(bits),
                                                                 got.contiguous().view(bits))
        self.mirror_calls += 1

    def _unpack(self, out, args, target, shape, dtype):
        """The target's rotated [n, heads, head_dim] tensor of FN's return OUT."""
        import torch
        form = self.form
        n, heads, d = shape
        if out is None:  # rotated in place
            out = args if form.pair else args[0]
        if form.pair:
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise TypeError("form %r: %s returned %s; expected %s (or None after rotating "
                                "in place)" % (form.name, form.call, _what(out), form.returns))
            got = out[target]
        else:
            if isinstance(out, (tuple, list)) and len(out) == 1:
                out = out[0]
            got = out
        want = args[target if form.pair else 0]
        name = self.names[target] if form.pair else "x"
        if not isinstance(got, torch.Tensor):
            raise TypeError("form %r: %s returned %s as %s'; expected %s"
                            % (form.name, form.call, _what(got), name, form.returns))
        if tuple(got.shape) != tuple(want.shape):
            raise ValueError("form %r: %s returned %s' of shape %s; expected %s"
                             % (form.name, form.call, name, tuple(got.shape), form.returns))
        if got.dtype != dtype:
            raise TypeError("form %r: %s returned %s' of dtype %s; expected %s (%s)"
                            % (form.name, form.call, name, _dtype(got.dtype), form.returns,
                               _dtype(dtype)))
        got = got.detach().to("cpu")
        if form.name == "q,k,pos":
            return got.reshape(n, heads, d)
        if form.name == "q,k,cos,sin":
            return got[0].permute(1, 0, 2)
        return got[0]

    def element(self, target, pos_row, head, dim):
        """The form's element name (q[0, 2, 17, 40]) of the witness at the
        positions POS_ROW (a tuple, one per axis), HEAD, DIM; None when no
        call carried them."""
        np = _arrays.numpy()
        row = np.asarray(pos_row, dtype=np.int64)
        look = 0 if self.mirrored and target == 1 else target  # k's values were q's calls'
        for t_target, pos in self.calls:
            if t_target != look or pos.shape[1] != row.size:
                continue
            hit = np.nonzero((pos == row[None]).all(axis=1))[0]
            if hit.size:
                t = int(hit[0])
                if look != target:  # q's head h is k's head h + 1 (k: q's heads rolled)
                    head = (head + 1) % SERVED_HEADS
                name = self.names[target] if self.form.pair else "x"
                d = self.dims[0] if self.dims[0] else None
                hj = head * d + dim if d else "%d*D + %d" % (head, dim)
                return self.form.element.format(name=name, t=t, h=head, j=dim, hj=hj), pos
        return None, None


def _shape(name, t):
    """'(1, 3, 256, 64)'; with the dtype for the tensors besides q, k and x."""
    text = str(tuple(t.shape))
    return text if name in ("x", "q", "k", "xq", "xk") else "%s %s" % (text, _dtype(t.dtype))


def _dtype(dtype):
    return str(dtype).replace("torch.", "")


def _form_tensors(form, x, target, positions, extra):
    """(FN's positional arguments, [(name, tensor)] as the note names them)
    of FORM from the request's [n, heads, head_dim] tensor X: the target
    holds X, the other of q and k the same values with the heads rolled by
    one (so that returning them swapped shows)."""
    import torch
    n, heads, d = x.shape
    other = torch.roll(x, shifts=1, dims=1)
    a, b = (x, other) if target == 0 else (other, x)
    if form.name == "x,pos":
        args = (x[None], positions)
        names = ("x", "positions")
    elif form.name == "q,k,pos":
        args = (positions, a.reshape(n, heads * d), b.reshape(n, heads * d))
        names = ("positions", "q", "k")
    elif form.name == "q,k,cos,sin":
        args = (a.permute(1, 0, 2).contiguous()[None], b.permute(1, 0, 2).contiguous()[None])
        names = ("q", "k", "cos", "sin")
    elif form.name == "x,freqs_cis":
        args = (a[None].contiguous(), b[None].contiguous())
        names = ("xq", "xk", "freqs_cis")
    else:
        args = (x[None],)
        names = ("x", "cos", "sin")
    args = args + tuple(extra)
    return args, list(zip(names, args))


class FnError(Exception):
    """The user's function raised: carries it and the note naming the call."""

    def __init__(self, error, note):
        super().__init__(note)
        self.error, self.note = error, note


def _what(v):
    if v is None:
        return "None"
    if isinstance(v, (tuple, list)):
        return "a %s of %d" % (type(v).__name__, len(v))
    return "a %s" % type(v).__name__


# ---- the check ---------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class RotationResult(Result):
    """A Result whose first line names the form's element of the witness."""
    elements: tuple = ()   # (verdict name, element) of the failures with a witness

    def headline(self):
        head = Result.headline(self)
        if self.passed:
            return head
        first = next((v for v in self.failures if v.likely_cause), None) or self.failures[0] \
            if self.failures else None
        elem = dict(self.elements).get(first.name) if first else None
        if elem:
            head = head.replace(" fails %s" % first.name, " fails %s at %s" % (first.name, elem), 1)
        return head


def _identifier(fn):
    """FN's name when it names it where it is defined (a function of a
    module); else 'fn' (a bound method, a module, a lambda)."""
    name = getattr(fn, "__name__", None)
    plain = (isinstance(name, str) and name.isidentifier()
             and getattr(fn, "__qualname__", None) == name)
    return name if plain and not inspect.ismethod(fn) else "fn"


def _literal(v):
    """V as Python source for the replay line (a config object: its dict)."""
    if hasattr(v, "to_dict") and callable(v.to_dict):
        v = v.to_dict()
    if isinstance(v, os.PathLike):
        v = os.fspath(v)
    if _arrays.is_tensor(v) or hasattr(v, "tolist"):
        v = v.tolist()
    return repr(v)


def _replay_line(fn, form, keywords, rows=None, span=None):
    """check_rotation(FN, form=..., position_ids=ROWS or positions=SPAN,
    KEYWORDS...)."""
    parts = ["%s" % _identifier(fn), "form=%r" % form]
    if rows is not None:
        ids = ([int(r[0]) for r in rows] if rows.shape[1] == 1
               else [[int(x) for x in r] for r in rows])
        parts.append("position_ids=%r" % (ids,))
    elif span is not None:
        parts.append("positions=%d" % span)
    parts += ["%s=%s" % (k, _literal(v)) for k, v in keywords.items() if v is not None]
    return "check_rotation(%s)" % ", ".join(parts)


# a property's replay line names position ids of at most this many rows
# (more: no replay line; the call's own ids are the user's to give)
REPLAY_IDS_MAX = 64


def _property_replay(fn, form, keywords, check, ids, span):
    """The Python call that reruns the failing property CHECK alone, on the
    same positions (the seed names its cases), or None."""
    if ids is not None and ids.shape[0] > REPLAY_IDS_MAX:
        return None
    return _replay_line(fn, form, dict(keywords, properties=[check]), rows=ids,
                        span=span if ids is None else None)


# pecheck check's last position when neither positions= nor position_ids= is
# given (`pecheck help check`: --max-pos, default 4095)
DEFAULT_MAX_POS = 4095

# the options check_rotation sets itself (the served kernel's; d and max-pos
# are head_dim= and positions=)
_SET_HERE = {"serve", "serve-targets", "serve-dtype", "serve-cos-sin", "d", "max-pos"}

# the witness's neighbours the replay line names on each side (a call of a
# few positions reproduces an element's error; the whole range is the run's)
REPLAY_SIDE = 2
# heads of the served tensor (families/rope/gate_v2.c V2_HEADS): the checked
# head of engine row r is r mod 3 when the JSON does not name it
SERVED_HEADS = 3


def _ids_row(ids, pos):
    """The positions (a tuple per axis) of the witness's POS: the row POS of
    the position ids when there are ids, else POS itself."""
    if ids is None:
        return (pos,)
    if 0 <= pos < ids.shape[0]:
        return tuple(int(x) for x in ids[pos])
    return None


def _name_witnesses(verdicts, doc, caller, targets, ids, fn, form, keywords, span):
    """VERDICTS with the target in the layout, and each failure's witness
    naming the form's element and its replay line (the Python call)."""
    out, elements = [], []
    for v, r in zip(verdicts, doc.get("results", [])):
        target = r.get("implementation")
        t_index = targets.index(target) if target in targets else None
        if target:
            v = replace(v, layout="%s, %s" % (target, v.layout) if v.layout else target)
        w = v.witness
        data = v.data if isinstance(v.data, dict) else {}
        worst = data.get("worst") if isinstance(data.get("worst"), dict) else {}
        if v.failed and w is not None and w.position is not None and t_index is not None:
            head = worst.get("head", w.position % SERVED_HEADS)
            row = _ids_row(ids, w.position)
            elem, call_pos = (caller.element(t_index, row, head, w.dimension) if row
                              else (None, None))
            if elem:
                text = w.text.replace("position %d" % w.position,
                                      "position %d, head %d" % (w.position, head), 1)
                w = replace(w, text="%s: %s" % (elem, text))
                t = int(((call_pos == _arrays.numpy().asarray(row)[None]).all(axis=1)).argmax())
                rows = call_pos[max(0, t - REPLAY_SIDE):t + REPLAY_SIDE + 1]
                v = replace(v, witness=w, replay=_replay_line(fn, form, keywords, rows=rows))
                elements.append((v.name, elem))
        elif v.failed:  # a property (or a gate without an element): rerun it alone
            check = "accuracy" if v.check == "passthrough" else v.check  # checked with the gate
            v = replace(v, replay=_property_replay(fn, form, keywords, check, ids, span))
        out.append(v)
    return tuple(out), tuple(elements)


def check_rotation(fn, form=None, *, layout=None, base=None, hf_config=None, rope_scaling=None,
                   layer_type=None, head_dim=None, rotary_dim=None, positions=None,
                   position_ids=None, dtype=None, device=None, chunk=None, seed=None,
                   properties=None, keep=None, **options):
    """Call FN, the user's RoPE rotation, on pecheck's test vectors and gate
    every rotated element against the certified rotation, and the RoPE
    properties.  Returns the Result (RotationResult: its witness names the
    form's element, its replay line the Python call on a few positions).

    FORM: how FN is called (FORMS): 'x,pos' fn(x, positions) (torchtune),
    'q,k,pos' fn(positions, q, k) (vLLM forward_native), 'q,k,cos,sin'
    fn(q, k, cos, sin) (transformers, GPT-J), 'x,freqs_cis' fn(xq, xk,
    freqs_cis) (Meta), 'x,cos,sin' fn(x, cos, sin) (flash-attn's torch
    reference).  LAYOUT: the pairing the model was trained with (default:
    the form's library's).  BASE, HF_CONFIG, ROPE_SCALING, LAYER_TYPE: the
    schedule.  HEAD_DIM, ROTARY_DIM (partial rotary).  POSITIONS=N (0..N-1)
    or POSITION_IDS ((n,) or (n, A) for M-RoPE and axial RoPE).  DTYPE:
    the tensors' (float32, bfloat16, float16), DEVICE: theirs.  CHUNK: at
    most this many tokens a call.  SEED, PROPERTIES (--property names),
    KEEP (where a failing run's staged files go; False: nowhere); other
    keywords are `pecheck check`'s options."""
    __tracebackhide__ = True
    if form not in FORMS:
        raise ValueError("form=%r: expected one of %s" % (form, ", ".join(repr(f) for f in FORMS)))
    spec = FORMS[form]
    if not callable(fn):
        raise TypeError("check_rotation: fn must be callable, got %s" % type(fn).__name__)
    lay = layout if layout is not None else spec.layout
    if lay not in ("half", "interleaved"):
        raise ValueError("layout=%r: expected 'half' or 'interleaved'" % (layout,))
    d = _arrays.dtype_name(dtype) or "f32"
    head_dim, rotary_dim, chunk, positions = (_arrays.scalar(v, k) for v, k in (
        (head_dim, "head_dim"), (rotary_dim, "rotary_dim"), (chunk, "chunk"),
        (positions, "positions")))
    if chunk is not None and int(chunk) < 1:
        raise ValueError("chunk=%r: tokens a call, >= 1" % (chunk,))
    for key in options:
        if key.replace("_", "-") in _SET_HERE:
            raise TypeError("%s= is set by check_rotation() itself" % key)
    if positions is not None and position_ids is not None:
        raise TypeError("check_rotation: give positions=N or position_ids=, not both")
    if positions is not None and (not isinstance(positions, int) or positions < 1):
        raise ValueError("positions=%r: an int N >= 1 (positions 0..N-1)" % (positions,))
    ids = _arrays.positions(position_ids, "position_ids") if position_ids is not None else None
    if ids is not None:
        ids = ids.reshape(ids.shape[0], -1)
    targets = ("q", "k") if form in ("q,k,pos", "q,k,cos,sin") else \
        ("xq", "xk") if form == "x,freqs_cis" else ("x",)
    opts = dict(layout=lay, base=base, hf_config=hf_config, rope_scaling=rope_scaling,
                layer_type=layer_type, d=head_dim, rotary_dim=rotary_dim, seed=seed,
                property=properties, dtype=d if d != "f32" else None,
                max_pos=positions - 1 if positions is not None else None, position_ids=ids)
    opts.update(options)
    # the keywords of the replay line: the call's own, as given
    keywords = dict(layout=lay, dtype=dtype if dtype is None or isinstance(dtype, str) else d,
                    base=base, hf_config=hf_config, rope_scaling=rope_scaling,
                    layer_type=layer_type, head_dim=head_dim, rotary_dim=rotary_dim,
                    device=str(device) if device is not None else None, chunk=chunk,
                    properties=properties)
    keywords.update(options)
    limit = None
    if not spec.cos_sin:
        limit = int(ids.max()) if ids is not None and ids.size else \
            positions - 1 if positions is not None else DEFAULT_MAX_POS
    caller = Caller(fn, spec, device, int(chunk) if chunk else None,
                    [head_dim, rotary_dim, lay, d], limit)
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    what = "the rotation %s (form %r)" % (name, form)
    doc, args, kept = _gates(caller, opts, spec, d, hf_config, keep, keywords, form)
    seed_used = next((r.get("seed") for r in doc.get("results", []) if r.get("seed") is not None),
                     None)
    if seed_used is not None:
        keywords["seed"] = seed_used
    verdicts = verdicts_from_json(doc, ("rope",))
    span = positions if positions is not None else DEFAULT_MAX_POS + 1
    verdicts, elements = _name_witnesses(verdicts, doc, caller, targets, ids, fn, form, keywords,
                                         span)
    if spec.pair and caller.swapped and caller.mirror_calls:
        verdicts = tuple(_swapped_cause(v, caller.names) for v in verdicts)
    replay = next((v.replay for v in verdicts if v.failed and v.replay), None)
    return RotationResult(status=doc.get("status", "fail"), what=what, verdicts=verdicts,
                          seed=seed_used, command=tuple(args), replay=replay, kept=kept,
                          json=doc, elements=elements)


def _gate(caller, targets, opts, spec, d, hf_config, keep, keywords, form):
    """One pecheck run gating TARGETS (names of CALLER's form): (its JSON
    document, its arguments, the folder its staged files were kept in)."""
    __tracebackhide__ = True
    caller.run_targets = tuple(targets)
    with _transport.Staging() as st:
        args = ["check", "--family", "rope"] + cli_args("check_rotation", opts, st)
        args += ["--serve-targets", ",".join(targets), "--serve-dtype", d]
        if spec.cos_sin:
            args.append("--serve-cos-sin")
        if "--regressions" not in args:
            args += ["--regressions", "off"]  # a test run saves no failing seeds in its folder
        args += ["--format", "json"]
        code, out, err = _serve(caller, args, st, form)
        try:
            doc = json.loads(out)
        except ValueError as e:
            raise _binary.PecheckError("pecheck printed no JSON (%s); stderr: %s"
                                       % (e, err)) from None
        kept = None
        if doc.get("status") != "pass" and st.names() and hf_config is not None \
                and not isinstance(hf_config, (str, os.PathLike)):
            root = _transport.keep_root(keep)
            if root:
                try:
                    kept = st.keep(root)
                    cfg = [a for a in st.names() if a.endswith(".json")]
                    if cfg:
                        keywords["hf_config"] = os.path.join(kept, cfg[0])
                except OSError:
                    kept = None
    return doc, args, kept


# what a mirrored k's verdicts add to q's
MIRROR_NOTE = ("; k's values were q's bit for bit on every call of q's check (k holds q's "
               "values with the heads rolled by one, rolled back here), so q's verdict is k's")


def _mirrored(doc, names):
    """DOC (a run of q alone) with k's results: q's, named k, saying why."""
    import copy
    extra = []
    for r in doc.get("results", []):
        if r.get("implementation") != names[0]:
            continue
        k = copy.deepcopy(r)
        k["implementation"] = names[1]
        if isinstance(k.get("summary"), str):
            k["summary"] += MIRROR_NOTE
        extra.append(k)
    out = dict(doc)
    out["results"] = list(doc.get("results", [])) + extra
    return out


def _merged(doc_q, doc_k):
    """The runs of q and of k as one document."""
    out = dict(doc_q)
    out["results"] = list(doc_q.get("results", [])) + list(doc_k.get("results", []))
    out["status"] = "pass" if doc_q.get("status") == doc_k.get("status") == "pass" else "fail"
    return out


def _swapped_cause(v, names):
    """V with the cause the package checked on every call of q's run: fn
    returned its outputs swapped (q's output was k's rotation bit for bit,
    k holding q's values with the heads rolled by one)."""
    if not v.failed or v.check != "accuracy":
        return v
    cause = ("%s and %s come back swapped: on every call, the first output was the rotation "
             "of %s (its heads rolled by one, bit for bit) and the second that of %s: the "
             "function returns (%s', %s') for (%s', %s')" % (names[0], names[1], names[1],
                                                               names[0], names[1], names[0],
                                                               names[0], names[1]))
    return replace(v, likely_cause=cause + ("; pecheck's reading: %s" % v.likely_cause
                                            if v.likely_cause else ""))


def _gates(caller, opts, spec, d, hf_config, keep, keywords, form):
    """The check's runs: one of every target; for q and k, q's run alone
    when k's values mirror q's on every call (Caller._mirror), else k's
    run too."""
    __tracebackhide__ = True
    names = caller.names
    if not spec.pair:
        return _gate(caller, names, opts, spec, d, hf_config, keep, keywords, form)
    caller.mirroring = True
    try:
        doc, args, kept = _gate(caller, names[:1], opts, spec, d, hf_config, keep, keywords, form)
    finally:
        caller.mirroring = False
    if caller.mirror_same and caller.mirror_calls:
        caller.mirrored = True
        return _mirrored(doc, names), args, kept
    doc_k, _args, kept_k = _gate(caller, names[1:], opts, spec, d, hf_config, keep, keywords,
                                 form)
    return _merged(doc, doc_k), args, kept or kept_k


# F_SETPIPE_SZ (Linux fcntl.h; Python's fcntl module names it from 3.10):
# a pipe holding a whole request or reply (256 tokens of 3 heads of head dim
# 128 in binary32: 400 KiB) lets each side write it in one call instead of
# waking the other every 64 KiB; 1 MiB is Linux's default
# /proc/sys/fs/pipe-max-size
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
PIPE_BYTES = 1 << 20


def _widen_pipe(fd):
    """FD's pipe as large as an unprivileged process may make it (best
    effort: an older kernel or a lower limit keeps the default)."""
    try:
        fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass


def _serve(caller, args, st, form):
    """Run pecheck ARGS, answering its requests with CALLER; returns (exit
    code, stdout, stderr).  The user's exception (or a malformed return)
    stops pecheck and is raised."""
    __tracebackhide__ = True
    binary = _binary.find_binary()
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    for fd in (req_w, rep_w):
        _widen_pipe(fd)
    out_f, err_f = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    proc = None
    try:
        argv = [binary] + args + ["--serve", "%d,%d" % (req_w, rep_r)]
        try:
            proc = _cleanup.popen(argv, stdin=subprocess.DEVNULL, stdout=out_f,  # killed on SIGTERM
                                  stderr=err_f, cwd=st.dir, pass_fds=tuple(st.fds) + (req_w, rep_r))
        except OSError as e:
            raise _binary.PecheckError("cannot run the pecheck binary %s: %s"
                                       % (binary, e)) from None
        os.close(req_w)
        os.close(rep_r)
        req_w = rep_r = -1
        try:
            while True:
                req = read_request(req_r)
                if req is None:
                    break
                rc, payload = caller.answer(req)
                write_reply(rep_w, rc, payload)
        except FnError as e:
            _stop(proc)
            error = e.error
            error.add_note("pecheck.check_rotation: %s" % e.note)
            raise error from None
        except (BrokenPipeError, EOFError):
            pass  # pecheck stopped answering: its exit code and stderr say why
        except BaseException:
            _stop(proc)
            raise
        os.close(rep_w)
        rep_w = -1
        code = proc.wait()
    finally:
        for fd in (req_r, req_w, rep_r, rep_w):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if proc is not None and proc.poll() is None:
            _stop(proc)
        if proc is not None:
            _cleanup.drop_proc(proc)
    out_f.seek(0)
    err_f.seek(0)
    out = out_f.read().decode("utf-8", "replace")
    err = err_f.read().decode("utf-8", "replace").strip()
    out_f.close()
    err_f.close()
    if code not in (_binary.EXIT_PASS, _binary.EXIT_FAIL):
        raise _binary.PecheckError("pecheck exited %d: %s" % (code, err or "(no message)"))
    return code, out, err


def _stop(proc):
    """End pecheck (the process this call started) and reap it."""
    try:
        proc.send_signal(signal.SIGKILL)
    except OSError:
        pass
    proc.wait()


def assert_rotation(fn, form=None, *, msg=None, **kwargs):
    """check_rotation, raising AssertionError (MSG first) with the form's
    element, the likely cause and the replay line unless it passes; returns
    the Result when it does."""
    __tracebackhide__ = True
    result = check_rotation(fn, form, **kwargs)
    if not result.passed:
        raise AssertionError(result.report(verbose=settings.verbose(), msg=msg))
    return result
