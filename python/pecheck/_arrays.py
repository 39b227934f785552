"""Arrays and tensors as the .npy data pecheck reads, with their storage type.

One rule for every input (numpy array, torch tensor, anything numpy.asarray
takes): floating point is gated, anything else is a TypeError naming the
input and its dtype.

  float32, float64        saved as they are (<f4, <f8: pecheck rounds <f8
                          to binary32, the type it gates);
  float16                 <f2: pecheck judges it as float16 storage;
  bfloat16 (torch, or a   saved as its bit patterns (<u2) with --dtype bf16,
  numpy 'bfloat16' dtype) the CLI's own bfloat16 form; exact, half the bytes;
  uint16                  bfloat16 bit patterns, only with dtype='bf16';
  complex64/128           Meta's freqs_cis (torch.polar): its real part is
                          cos, its imaginary part sin.

A torch tensor is any instance of torch.Tensor (a subclass included; torch
is looked up in sys.modules, never imported for the test): it is read
through torch's own conversion, as a plain torch.Tensor, with its
__torch_function__ off, never through a subclass's own __array__, numpy()
or detach(), which could hand over other values than the tensor's.  A bool
where a number is meant (position ids, timesteps, a numeric option) is a
ValueError naming the argument: True is not position 1.
"""
import sys

# the storage types of the CLI's --dtype, and the names accepted for them
_DTYPE_NAMES = {
    "f32": "f32", "float32": "f32", "float": "f32",
    "bf16": "bf16", "bfloat16": "bf16",
    "f16": "f16", "float16": "f16", "half": "f16",
}

_ACCEPTED = ("float32, float64, float16, bfloat16, or bfloat16 bit patterns as uint16 with "
             "dtype='bf16'")


def numpy():
    """numpy, imported when first needed (`import pecheck` works without it)."""
    __tracebackhide__ = True
    try:
        import numpy as np
    except ImportError:
        raise ImportError("pecheck's checks of arrays need numpy (Debian: apt-get install "
                          "python3-numpy, in a virtualenv made with --system-site-packages; "
                          "elsewhere: pip install numpy)") from None
    return np


def dtype_name(dtype):
    """The CLI's --dtype name (f32, bf16, f16) of DTYPE: one of those names,
    their long names, a torch dtype or a numpy dtype; None stays None."""
    __tracebackhide__ = True
    if dtype is None:
        return None
    name = str(dtype).replace("torch.", "").lower()
    if name not in _DTYPE_NAMES:
        raise ValueError("dtype=%r: expected 'f32', 'bf16' or 'f16' (or float32, bfloat16, "
                         "float16 as torch or numpy dtypes)" % (dtype,))
    return _DTYPE_NAMES[name]


class BoolError(ValueError, TypeError):
    """A bool where pecheck reads a number (True is not 1 here): a
    ValueError, and a TypeError as other input that is not a number is."""


def _reject(what, dtype, kind):
    __tracebackhide__ = True
    error = BoolError if str(dtype).replace("torch.", "") in ("bool", "bool_") else TypeError
    raise error("%s: pecheck gates floating-point values (%s), not %s%s"
                % (what, _ACCEPTED, dtype, kind))


def torch_of(x):
    """The torch module when X is a torch.Tensor (or of a subclass of it),
    else None.  torch is only looked up among the imported modules: a
    tensor exists only once torch is imported."""
    torch = sys.modules.get("torch")
    tensor = getattr(torch, "Tensor", None) if torch is not None else None
    return torch if isinstance(tensor, type) and issubclass(type(x), tensor) else None


def is_tensor(x):
    return torch_of(x) is not None


def plain_tensor(torch, x):
    """The torch.Tensor X (a subclass included) as a detached plain
    torch.Tensor, by torch's own conversion with __torch_function__ off:
    a subclass's overrides (detach, numpy, __array__) are not called."""
    off = getattr(torch._C, "DisableTorchFunctionSubclass", None) or torch._C.DisableTorchFunction
    with off():
        t = torch.Tensor.detach(x)
        if type(t) is not torch.Tensor:
            t = torch.Tensor.as_subclass(t, torch.Tensor)
    return t


def _from_torch(x, what):
    """A torch tensor as a numpy array (bfloat16 as uint16 bit patterns) and
    whether it held bfloat16."""
    torch = torch_of(x)
    t = plain_tensor(torch, x)
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view("<u2"), True
    if t.dtype == getattr(torch, "complex32", None):
        t = t.to(torch.complex64)  # exact: complex32 holds float16 parts
    if not (t.is_floating_point() or t.is_complex()):
        _reject(what, str(t.dtype), " (a torch tensor)")
    if t.is_complex() and t.is_conj():
        t = t.resolve_conj()
    return t.numpy(), False


def to_numpy(x, what, dtype=None):
    """(array, bf16 bits) of X: a numpy array of a floating or complex dtype,
    or of uint16 bfloat16 bit patterns (then BF16 BITS is True).  DTYPE is
    the CLI name the caller asked for (uint16 needs 'bf16').  TypeError for
    anything else, the same for numpy, torch and lists."""
    __tracebackhide__ = True
    np = numpy()
    if is_tensor(x):
        a, bits = _from_torch(x, what)
    else:
        a = np.asarray(x)
        bits = False
        if a.dtype.name == "bfloat16":  # ml_dtypes / JAX bfloat16 arrays
            a, bits = a.view("<u2"), True
        elif a.dtype == np.uint16:
            if dtype != "bf16":
                _reject(what, "uint16", " (bfloat16 bit patterns need dtype='bf16')")
            bits = True
        elif not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.complexfloating)):
            _reject(what, a.dtype, "")
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return a, bits


def _int64(a, what, name):
    """A of any integer type as little-endian int64; TypeError for an
    unsigned value beyond int64 (NAME: what one value is)."""
    __tracebackhide__ = True
    np = numpy()
    if np.issubdtype(a.dtype, np.unsignedinteger) and a.size and a.max() > np.iinfo(np.int64).max:
        raise TypeError("%s: %s %d is beyond int64" % (what, name, int(a.max())))
    return np.ascontiguousarray(a, dtype="<i8")


def _as_numpy(x):
    """(X (numpy, torch or a list) as a numpy array, the name of its dtype):
    torch's 16-bit floats widened to float32 (exact; numpy has no
    bfloat16), the name still theirs."""
    torch = torch_of(x)
    if torch is None:
        a = numpy().asarray(x)
        return a, str(a.dtype)
    t = plain_tensor(torch, x).cpu()
    name = str(t.dtype).replace("torch.", "")
    if t.is_floating_point() and t.element_size() < 4:
        t = t.float()
    return t.numpy(), name


def positions(x, what):
    """The position ids X (numpy, torch or a list) as a numpy array for a
    POS.npy option: integers of any width as little-endian int64, what the
    CLI reads; floating values (a ViT's coordinates, timesteps) as they
    are, for the CLI to judge.  TypeError for anything else."""
    __tracebackhide__ = True
    np = numpy()
    a, name = _as_numpy(x)
    if a.dtype == np.bool_:
        raise BoolError("%s=: bool values (True/False) are not positions or timesteps: give "
                         "integers (torch.long, numpy int64/int32/..., a list of ints)" % what)
    if np.issubdtype(a.dtype, np.integer):
        return _int64(a, what, "position")
    if np.issubdtype(a.dtype, np.floating):
        return np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
    raise TypeError("%s: position ids are integers (or floating coordinates or timesteps), not %s"
                    % (what, name))


def scalar(v, what):
    """V, the value of a numeric option WHAT (an int, a float, a numpy
    scalar, a 0-d array or tensor such as HF's cache_position[0]), as a
    Python number; anything else as it is.  ValueError for a bool (numpy's
    and torch's too): True is not the number 1 here."""
    __tracebackhide__ = True
    torch = torch_of(v)
    if torch is not None:
        t = plain_tensor(torch, v)
        v = t.item() if t.dim() == 0 else v
    elif getattr(v, "ndim", None) == 0 and hasattr(v, "item") and not isinstance(v, (int, float)):
        v = v.item()  # a numpy scalar or 0-d array
    if isinstance(v, bool):
        raise BoolError("%s=%r: a bool where pecheck reads a number; give the number itself"
                         % (what, v))
    return v


def values(x, what, dtype=None):
    """(array, storage) of X, floating values of any shape (ALiBi slopes
    (H,), biases (H, nq, nk) or (H, 1, n)), as table() gives them but
    without the 2-D shape."""
    __tracebackhide__ = True
    np = numpy()
    a, bits = to_numpy(x, what, dtype)
    if np.issubdtype(a.dtype, np.complexfloating):
        _reject(what, a.dtype, "")
    if bits and dtype not in (None, "bf16"):
        return widen_bf16(a), None
    return a, "bf16" if bits else None


def integers(x, what):
    """X (numpy, torch or a list) of integers (T5 buckets) as a
    little-endian int64 array, leading dimensions of size 1 dropped;
    TypeError for floating or other values."""
    __tracebackhide__ = True
    np = numpy()
    a, name = _as_numpy(x)
    if a.dtype == np.bool_:
        raise BoolError("%s: bool values (True/False) are not buckets: expected integers "
                        "(torch.long, numpy int64/int32/...)" % what)
    if not np.issubdtype(a.dtype, np.integer):
        raise TypeError("%s: expected integers (torch.long, numpy int64/int32/...), not %s"
                        % (what, name))
    while a.ndim > 2 and a.shape[0] == 1:  # (1, q, k) as compute_bias's batch of one
        a = a[0]
    return _int64(a, what, "value")


def squeeze_leading(a, what):
    """Drop leading dimensions of size 1 ((1, 1, n, d) -> (n, d)); a 2-D
    array or ValueError."""
    __tracebackhide__ = True
    shape = tuple(a.shape)
    while a.ndim > 2 and a.shape[0] == 1:
        a = a[0]
    if a.ndim != 2:
        raise ValueError("%s: expected a 2-D array (positions, dims) after dropping leading "
                         "dimensions of size 1, got shape %s%s"
                         % (what, shape, _shape_hint(shape, what)))
    return a


def _shape_hint(shape, what):
    """What to pass instead of WHAT, an array of SHAPE that is not 2-D once
    its leading 1s are dropped, for the shapes tutorials and libraries
    build: '; pass ...', or '' when there is no likely one."""
    rest = [n for n in shape if n != 1]
    inner = [k for k, n in enumerate(shape) if n == 1 and any(m != 1 for m in shape[:k])]
    if len(rest) == 2 and inner:
        fix = ("%s.squeeze(%d)" % (what, inner[0]) if len(inner) == 1
               else "%s.reshape(%d, %d)" % (what, rest[0], rest[1]))
        where = (" (the PyTorch tutorial's PositionalEncoding registers pe as (max_len, 1, "
                 "d_model))" if len(shape) == 3 and shape[1] == 1 else "")
        return "; %d positions of %d dims with a dimension of size 1 between them%s: pass %s" % (
            rest[0], rest[1], where, fix)
    lead = 0
    while lead < len(shape) - 2 and shape[lead] == 1:
        lead += 1
    sq = shape[lead:]
    index = ", ".join(["0"] * lead)
    if len(sq) == 3:
        hf = (", as HF's rotary returns cos and sin for a batch of position ids"
              if what in ("cos", "sin") else "")
        return "; a batch of %d tables (batch, positions, dims)%s: pass one, %s[%s]" % (
            sq[0], hf, what, index + ", 0" if lead else "0")
    if len(sq) == 4:
        return ("; (batch, heads, positions, dims), as attention's query and key caches: pass one "
                "head's table, %s[%s]" % (what, index + ", 0, 0" if lead else "0, 0"))
    if len(sq) == 1:
        return ("; a 1-D array is not a table (positions, dims): for one position's row, pass "
                "%s[None]" % what)
    return ""


def widen_bf16(bits):
    """bfloat16 bit patterns (uint16) -> their float32 values (exact)."""
    np = numpy()
    return (bits.astype(np.uint32) << 16).view(np.float32)


def table(x, what, dtype=None):
    """(2-D array for a table file, storage) of X; storage is 'bf16' when X
    holds bfloat16 (kept as bit patterns unless DTYPE asks for another
    type, then widened exactly), else None (the file's own dtype says it)."""
    __tracebackhide__ = True
    np = numpy()
    a, bits = to_numpy(x, what, dtype)
    if np.issubdtype(a.dtype, np.complexfloating):
        raise TypeError("%s: complex values are a RoPE freqs_cis (pass it as cos with sin=None)"
                        % what)
    a = squeeze_leading(a, what)
    if bits and dtype not in (None, "bf16"):
        return widen_bf16(a), None
    return a, "bf16" if bits else None


def rope_pair(cos, sin, dtype=None):
    """(cos array, sin array, storage) of a RoPE cache: two arrays of one
    shape, or one complex freqs_cis as COS with SIN None."""
    __tracebackhide__ = True
    np = numpy()
    if sin is None:
        c, bits = to_numpy(cos, "freqs_cis", dtype)
        if bits or not np.issubdtype(c.dtype, np.complexfloating):
            raise ValueError("sin is None: expected a complex freqs_cis array as cos "
                             "(torch.polar), got %s" % c.dtype)
        c = squeeze_leading(c, "freqs_cis")
        return np.ascontiguousarray(c.real), np.ascontiguousarray(c.imag), None
    c, cs = table(cos, "cos", dtype)
    s, ss = table(sin, "sin", dtype)
    if c.shape != s.shape:
        raise ValueError("cos and sin differ in shape: %s vs %s" % (tuple(c.shape), tuple(s.shape)))
    if cs != ss or c.dtype != s.dtype:
        raise TypeError("cos and sin differ in dtype (%s vs %s): a cache has one" % (c.dtype, s.dtype))
    return c, s, cs
