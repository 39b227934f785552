"""gate_rotary: call the user's own rotary embedding and gate what it returns.

Two shapes of rotary code are called, chunk by chunk over the positions:
  HF-style:   a module (or callable) forward(x, position_ids) -> (cos, sin),
              as transformers' LlamaRotaryEmbedding: x carries only the dtype
              (HF returns cos and sin in x.dtype), position_ids is (1, n);
  Meta-style: a function f(dim, end, theta=...) -> complex freqs_cis (end,
              dim/2), as Meta's precompute_freqs_cis (torch.polar).  It
              computes every position from 0 to END; in a chunk's call,
              torch.arange(end) returns torch.arange(lo, hi) instead (a
              torch function mode), the chunk's slice of the same values, so
              the function computes only the chunk's rows.
Each chunk is one `pecheck check` run of its rows at --pos-start (in
memory, pecheck._transport): the accuracy gate is element by element, so the
chunks' verdicts together are the whole range's; a check that looks at its
rows together (layout, fitted model, properties) speaks of its chunk.  A
chunk's rows are computed while pecheck checks the chunk before (one
pecheck run under way at a time).  At most one chunk's tensors are alive
at a time, so memory does not grow with the positions (the benchmark:
scripts/bench_python.py).
"""
import inspect
import json
import os
from dataclasses import replace

from . import _arrays, settings
from .checks import start_rope_cache
from .result import Result

# positions of one call: 6144 rows are 3 MiB per float32 table at head dim
# 128 (cos and sin, and the module's own intermediates, a few times that).
# The benchmark (scripts/bench_python.py) measures both sides of the choice,
# under a loaded machine: at 4096 the gate of 131072 positions took
# 1.56-1.90x the module's own run plus one CLI check of its whole cache (a
# pecheck run a chunk), at 6144 1.40x, at 8192 1.01-1.32x; the peak RSS of
# the Python process (226-228 MiB of it torch's import) at 2^17 to 2^20
# positions: 6144 247-248 MiB, 8192 249-257 MiB, 16384 261 MiB, against the
# 256 MiB goal (tests/python/test_rotary.py)
DEFAULT_CHUNK = 6144


def _load_config(config):
    """CONFIG as a dict: a dict, a config.json path or its folder, or an
    object with to_dict() (a transformers PretrainedConfig); None stays None."""
    __tracebackhide__ = True
    if config is None or isinstance(config, dict):
        return config
    if hasattr(config, "to_dict"):
        return config.to_dict()
    path = os.fspath(config)
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _head_dim(config):
    if not config:
        return None
    if config.get("head_dim"):
        return int(config["head_dim"])
    if config.get("hidden_size") and config.get("num_attention_heads"):
        return int(config["hidden_size"]) // int(config["num_attention_heads"])
    return None


def _positions(positions, config):
    """A range of consecutive positions: an int N (0..N-1), a range of step
    1, or (None) the config's max_position_embeddings."""
    __tracebackhide__ = True
    if positions is None:
        n = (config or {}).get("max_position_embeddings")
        if not n:
            raise ValueError("positions=: give the positions to check (an int N for 0..N-1, or a "
                             "range); the config has no max_position_embeddings")
        positions = int(n)
    if isinstance(positions, int) and not isinstance(positions, bool):
        positions = range(positions)
    if not isinstance(positions, range) or positions.step != 1 or len(positions) == 0:
        raise ValueError("positions=%r: expected an int N (positions 0..N-1) or a non-empty "
                         "range of step 1" % (positions,))
    if positions.start < 0:
        raise ValueError("positions=%r: positions are >= 0" % (positions,))
    return positions


def _style(rotary, style):
    __tracebackhide__ = True
    if style is not None:
        if style not in ("hf", "meta"):
            raise ValueError("style=%r: expected 'hf' (forward(x, position_ids) -> (cos, sin)) or "
                             "'meta' (f(dim, end, theta) -> complex freqs_cis)" % (style,))
        return style
    if hasattr(rotary, "forward"):
        return "hf"
    try:
        params = inspect.signature(rotary).parameters
    except (TypeError, ValueError):
        params = {}
    if "position_ids" in params:
        return "hf"
    if "end" in params or len(params) >= 2:
        return "meta"
    raise ValueError("cannot tell how to call %r: pass style='hf' or style='meta'" % (rotary,))


def _torch_dtype(dtype):
    import torch
    return {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dtype or "f32"]


def _hf_call(rotary, lo, hi, dtype):
    """(cos, sin) of an HF-style module at positions LO..HI-1."""
    import torch
    position_ids = torch.arange(lo, hi, dtype=torch.int64)[None]
    x = torch.empty((1, hi - lo, 1), dtype=_torch_dtype(dtype))  # only its dtype and device are read
    with torch.no_grad():
        out = rotary(x, position_ids)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError("the rotary module returned %s; expected (cos, sin) as HF's "
                        "forward(x, position_ids)" % type(out).__name__)
    _same_rows(out, lo, hi, x.dtype)
    return out[0], out[1]


def _same_rows(out, lo, hi, dtype):
    """COS and SIN of one chunk are tensors of its HI - LO positions (the
    next-to-last dim, as HF's (batch, n, d)) in x's DTYPE, as every chunk's
    are: a chunk of other rows or another dtype would be gated as something
    it is not (rows missing, a half-precision chunk held to its own bound)."""
    __tracebackhide__ = True
    import torch
    cos, sin = out
    ok = (torch.is_tensor(cos) and torch.is_tensor(sin) and cos.dim() >= 2
          and tuple(cos.shape) == tuple(sin.shape) and cos.shape[-2] == hi - lo)
    if not ok:
        raise ValueError("the rotary module's (cos, sin) for positions %d..%d have shapes %s and %s; "
                         "expected (..., %d, d): one row per position, as HF's forward(x, "
                         "position_ids)" % (lo, hi - 1, _shape_of(cos), _shape_of(sin), hi - lo))
    if cos.dtype != dtype or sin.dtype != dtype:
        raise TypeError("the rotary module's (cos, sin) for positions %d..%d are %s and %s; "
                        "expected x's dtype %s (HF returns cos and sin in x.dtype; dtype= says "
                        "which is gated)" % (lo, hi - 1, cos.dtype, sin.dtype, dtype))


def _shape_of(t):
    return tuple(t.shape) if hasattr(t, "shape") else type(t).__name__


def _window_mode(end, lo, hi):
    """A torch function mode under which torch.arange(END) (or (0, END),
    the positions of a Meta-style function) returns its slice [LO, HI)."""
    import torch
    from torch.overrides import TorchFunctionMode

    def is_positions(args, kwargs):
        a = list(args) + [kwargs[k] for k in ("start", "end", "step") if k in kwargs]
        if "end" in kwargs and "start" not in kwargs:
            a = [0, kwargs["end"]] + list(args)
        vals = [int(v) if isinstance(v, int) or (torch.is_tensor(v) and v.numel() == 1) else None
                for v in a]
        return vals in ([end], [0, end], [0, end, 1])

    class Window(TorchFunctionMode):
        hits = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func is torch.arange and is_positions(args, kwargs):
                Window.hits += 1
                # the same values as arange(end)[lo:hi] (dtype, device kept;
                # tests/python/test_rotary.py compares them bit for bit)
                rest = {k: v for k, v in kwargs.items() if k not in ("start", "end", "step")}
                return func(lo, hi, **rest)
            return func(*args, **kwargs)

    return Window


def _meta_call(fn, lo, hi, end, dim, theta, fn_kwargs, whole):
    """Complex freqs_cis rows LO..HI-1 of a Meta-style function built for
    positions 0..END-1."""
    __tracebackhide__ = True
    import torch
    params = inspect.signature(fn).parameters
    kwargs = dict(fn_kwargs or {})
    if theta is not None and "theta" in params and "theta" not in kwargs:
        kwargs["theta"] = theta
    with torch.no_grad():
        if whole:
            out = fn(dim, end, **kwargs)[lo:hi]
            if out.shape[0] != hi - lo:
                raise ValueError("%s(%d, %d) returned %d rows for positions %d..%d; expected "
                                 "one per position" % (getattr(fn, "__name__", fn), dim, end,
                                                       out.shape[0], lo, hi - 1))
            return out
        window = _window_mode(end, lo, hi)
        try:
            with window():
                out = fn(dim, end, **kwargs)
        except Exception as e:  # the function assumed END rows somewhere else
            raise ValueError("cannot call %s in chunks: with positions %d..%d it raised %s: %s; pass "
                             "chunk=%d to call it once for all positions"
                             % (getattr(fn, "__name__", fn), lo, hi - 1, type(e).__name__, e, end)) from e
    if window.hits != 1 or out.shape[0] != hi - lo:
        raise ValueError("cannot call %s in chunks: it did not build its positions with one "
                         "torch.arange(end) (%d such calls; %d rows for a chunk of %d); pass "
                         "chunk=%d to call it once for all positions"
                         % (getattr(fn, "__name__", fn), window.hits, out.shape[0], hi - lo, end))
    return out


class _Merged:
    """The chunks' verdicts as one per check (family, check, layout): the
    first failing chunk's verdict, else the one of largest measure, with
    counts; only these and the first failing chunk's Result are kept, so
    memory does not grow with the chunks."""

    def __init__(self):
        self.groups = {}   # key -> [picked verdict, chunks, failed, ran]
        self.first_fail = None
        self.first = None
        self.chunks = 0

    def add(self, result):
        self.chunks += 1
        if self.first is None:
            self.first = result
        if not result.passed and self.first_fail is None:
            self.first_fail = result
        for v in result.verdicts:
            g = self.groups.setdefault((v.family, v.check, v.layout), [v, 0, 0, 0])
            g[1] += 1
            g[2] += v.failed
            g[3] += v.status != "skip"
            pick = g[0]
            if pick.failed:
                continue
            if v.failed or (v.status != "skip" and (pick.status == "skip"
                                                    or (v.measured or 0.0) > (pick.measured or 0.0))):
                g[0] = v

    def verdict(self, group, span):
        pick, chunks, failed, ran = group
        status = "fail" if failed else "pass" if ran else "skip"
        summary = pick.summary
        if chunks > 1:
            summary = "%s in %d of %d chunks; %s: %s" % (
                {"fail": "failed", "pass": "passed", "skip": "skipped"}[status],
                failed or ran or chunks, chunks,
                "the first" if failed else "the largest measure", pick.summary)
        return replace(pick, status=status, summary=summary,
                       positions=pick.positions if failed else span)

    def result(self, what, span, note):
        bad = self.first_fail  # a Result is false when it failed: compared with None
        failed = bad is not None
        last = (span.start, span.stop - 1)
        return Result(status="fail" if failed else "pass", what=what,
                      verdicts=tuple(self.verdict(g, last) for g in self.groups.values()),
                      seed=self.first.seed, command=(bad if failed else self.first).command,
                      replay=bad.replay if failed else None, kept=bad.kept if failed else None,
                      note=note or (bad.note if failed else None),
                      json={"status": "fail" if failed else "pass", "chunks": self.chunks,
                            "first_failing_chunk": bad.json if failed else None})


def _malloc_trim():
    """glibc's malloc_trim, or None (another C library)."""
    try:
        import ctypes
        return ctypes.CDLL(None).malloc_trim
    except (ImportError, OSError, AttributeError):
        return None


_TRIM = []  # [malloc_trim or None], looked up once


def _release_freed_memory():
    """Hand the chunks' freed tensors back to the system (glibc's
    malloc_trim(0)).  glibc serves tensors of a few MiB from its heap once
    its mmap threshold has grown, and a chunk's small allocations made
    after them (the verdicts' JSON) keep the heap from shrinking: without
    this the peak RSS grew by 3 MiB a chunk for the first ten chunks of
    6144 rows at head dim 128 (232 to 263 MiB; 243 MiB with it,
    tests/python/test_rotary.py measures the bound).  Nothing else changes:
    only memory already freed is returned."""
    if not _TRIM:
        _TRIM.append(_malloc_trim())
    if _TRIM[0] is not None:
        _TRIM[0](0)


def _chunks(span, step):
    """(lo, hi) of each chunk of SPAN, STEP positions a chunk."""
    return [(lo, min(lo + step, span.stop)) for lo in range(span.start, span.stop, step)]


def _pipelined(start, chunks, merged, keep, stop_on_failure, span):
    """Check CHUNKS in order, each chunk's rows computed (START(lo, hi): its
    StartedCheck) while pecheck checks the chunk before, and MERGED's the
    verdicts in order; the first failing chunk's inputs are kept (KEEP), no
    other's.  Returns the note of a run stopped at a failing chunk (the
    chunk after it, already under way, is cancelled), else None."""
    __tracebackhide__ = True
    pending = None  # (lo, hi, StartedCheck) of the chunk being checked
    try:
        for lo, hi in chunks:
            _release_freed_memory()  # before each chunk's tensors are made
            try:
                started = (lo, hi, start(lo, hi))
            except Exception:
                # the chunk before is judged first: its failure is the result
                previous, pending = pending, None
                note = previous and _settle(previous, merged, keep, stop_on_failure, span)
                if note:
                    return note
                raise
            previous, pending = pending, started
            if previous is not None:
                note = _settle(previous, merged, keep, stop_on_failure, span)
                if note:
                    return note  # the chunk after it, under way, is cancelled below
        if pending is not None:
            last, pending = pending, None
            _settle(last, merged, keep, False, span)
        return None
    finally:
        if pending is not None:
            pending[2].cancel()


def _settle(pending, merged, keep, stop_on_failure, span):
    """Wait for PENDING's verdicts into MERGED; the note when it failed and
    STOP_ON_FAILURE stops the run there (positions after it unchecked)."""
    __tracebackhide__ = True
    lo, hi, started = pending
    result = started.finish(keep if merged.first_fail is None else False)
    merged.add(result)
    if result.passed or not stop_on_failure or hi >= span.stop:
        return None
    return ("positions %d..%d not checked: stopped at the first failing chunk (%d..%d); "
            "stop_on_failure=False checks them all" % (hi, span.stop - 1, lo, hi - 1))


def check_rotary(rotary, config=None, *, positions=None, dtype=None, style=None, chunk=None,
                 base=None, rope_scaling=None, head_dim=None, fn_kwargs=None, properties=None,
                 stop_on_failure=True, keep=None, **options):
    """Call ROTARY over POSITIONS, CHUNK positions a call, and gate its cos
    and sin against CONFIG's schedule (an HF config: dict, config.json or its
    folder, or a transformers config object) or BASE (and ROPE_SCALING).
    Returns the Result: a check's chunks as one verdict; the first failing
    chunk's witness, kept tables and replay line (STOP_ON_FAILURE: the
    chunks after it are not called, as the note says).

    ROTARY: an HF-style module forward(x, position_ids) -> (cos, sin), called
    with x of DTYPE ('f32', 'bf16', 'f16'; HF returns cos and sin in x's
    dtype), or a Meta-style function f(dim, end, theta=...) -> complex
    freqs_cis, called with HEAD_DIM (default: the config's), END (the last
    position + 1), THETA (BASE, else the config's rope_theta) and FN_KWARGS.
    STYLE 'hf' or 'meta' when it cannot be told from ROTARY.  POSITIONS: an
    int N (0..N-1) or a range of step 1; default the config's
    max_position_embeddings.  CHUNK: positions a call (DEFAULT_CHUNK).  The
    other keywords are check_rope_cache's; its hf_config= is CONFIG's other
    name (so one pytest marker serves rope_cache and rotary calls)."""
    __tracebackhide__ = True
    hf_config = options.pop("hf_config", None)
    base, chunk, head_dim = (_arrays.scalar(v, k) for v, k in ((base, "base"), (chunk, "chunk"),
                                                                (head_dim, "head_dim")))
    if config is not None and hf_config is not None:
        raise TypeError("check_rotary: config= and hf_config= name the same config: give one")
    cfg = _load_config(config if config is not None else hf_config)
    span = _positions(positions, cfg)
    kind = _style(rotary, style)
    d = _arrays.dtype_name(dtype)
    if cfg is None and base is None:
        raise ValueError("check_rotary: give the schedule to check against: config= (an HF config) "
                         "or base= (and rope_scaling=)")
    if kind == "meta" and d not in (None, "f32"):
        raise ValueError("dtype=%r: a Meta-style function returns complex64 freqs_cis (float32 "
                         "parts); its dtype is f32" % (dtype,))
    dim = head_dim or _head_dim(cfg)
    if kind == "meta" and not dim:
        raise ValueError("head_dim=: the Meta-style function's dim (the config has no head_dim, "
                         "nor hidden_size and num_attention_heads)")
    theta = base if base is not None else (cfg or {}).get("rope_theta")
    step = int(chunk or DEFAULT_CHUNK)
    if step < 1:
        raise ValueError("chunk=%r: positions a call, >= 1" % (chunk,))
    name = getattr(rotary, "__name__", type(rotary).__name__)
    what = "the rotary %s (%s-style) at positions %d..%d" % (name, "HF" if kind == "hf" else "Meta",
                                                              span.start, span.stop - 1)
    def call(lo, hi):
        if kind == "hf":
            return _hf_call(rotary, lo, hi, d)
        return _meta_call(rotary, lo, hi, span.stop, dim, theta, fn_kwargs,
                          whole=step >= span.stop), None  # complex freqs_cis

    def start(lo, hi):
        cos, sin = call(lo, hi)
        return start_rope_cache(cos, sin, base=base, hf_config=cfg, rope_scaling=rope_scaling,
                                dtype=d, pos_start=lo, properties=properties, **options)

    merged = _Merged()
    note = _pipelined(start, _chunks(span, step), merged, keep, stop_on_failure, span)
    return merged.result(what, span, note)


def gate_rotary(rotary, config=None, *, msg=None, **kwargs):
    """check_rotary, raising AssertionError (MSG first) with the witness,
    the likely cause and the replay line unless it passes; returns the
    Result when it does."""
    __tracebackhide__ = True
    result = check_rotary(rotary, config, **kwargs)
    if not result.passed:
        raise AssertionError(result.report(verbose=settings.verbose(), msg=msg))
    return result
