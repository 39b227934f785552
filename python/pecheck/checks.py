"""check_* and assert_*: gate a table or cache with `pecheck check`.

Every keyword is named as the CLI's option (base=, hf_config=, dtype=,
pos_start=, layout=, rope_scaling=, seq_len=, tol_abs=, strict=, ...: the
option with '-' for '_'), and any option of `pecheck help check` is
accepted the same way, with these values:
  True            a flag (strict=True -> --strict); False or None: left out
  dict or list    JSON (rope_scaling={"rope_type": "linear", "factor": 8});
                  for a file option (hf_config=) the dict is handed over as
                  the file (a transformers config object: its to_dict())
  array/tensor    for a file option of arrays (rope_freqs=): handed over
                  as .npy; position_ids= and timesteps= take integers
                  of any width (written as int64), floats (a ViT's
                  coordinates, timesteps: as they are), or a list
  path or str     for a file option: that file
  number          as written (repr of a float)
properties= is a list of --property names.  check_* return a Result;
assert_* raise AssertionError with the witness unless it passes (msg=
goes first in the message), and return the Result when it does.
"""
import difflib
import inspect
import json
import os
import shlex

from . import _arrays, _binary, _transport, settings
from .result import Result, verdicts_from_json

# options the API sets itself (the inputs, the output, the family)
_RESERVED = {"table", "table-sin", "impl", "plugin", "format", "output", "family", "shard"}
_REPEATABLE = {"property"}
# file options of positions (--position-ids POS.npy) or timesteps (--timesteps T.npy): integers
# of any width are written as int64, floating values as they are
_POSITION_FILES = {"POS.npy", "T.npy"}

# keywords people reach for, and the option pecheck calls it
_ALIASES = {
    "atol": "tol_abs= (an absolute bound in place of the precision model's) or max_abs_err= "
            "(a budget on top of it)",
    "rtol": "tol_abs= or max_abs_err= (pecheck's bounds are absolute, from the precision model)",
    "theta": "base=", "rope_theta": "base=", "offset": "pos_start=", "position_offset": "pos_start=",
    "start": "pos_start=", "config": "hf_config=", "head_dim": "d=", "dim": "d=",
    "rotate_half": "layout='half'", "interleaved": "layout='interleaved'",
}


def _unknown_keyword(key, known):
    __tracebackhide__ = True
    hint = _ALIASES.get(key)
    if not hint:
        near = difflib.get_close_matches(key, [k.replace("-", "_") for k in known], 1)
        hint = near[0] + "=" if near else None
    raise TypeError("unexpected keyword argument %r%s (the keywords are `pecheck check`'s "
                    "options, '-' written '_'; `pecheck help check` lists them)"
                    % (key, "; did you mean " + hint + "?" if hint else ""))


def _is_array(v):
    return _arrays.is_tensor(v) or hasattr(v, "__array__")


def _file_arg(argname):
    """Whether an option's argument (its name in the help) is a file."""
    return "." in argname or argname.startswith("FILE")


def _value(key, v, argname, staging):
    """The command-line text of option KEY's value V (files staged)."""
    __tracebackhide__ = True
    if hasattr(v, "to_dict") and callable(v.to_dict) and not _is_array(v):
        v = v.to_dict()  # a transformers config object
    if _file_arg(argname):
        # the help's own name when it is one (config.json), else the keyword's
        ext = os.path.splitext(argname)[1]
        name = argname if argname[:1].islower() else key + (ext if ext else ".dat")
        if argname in _POSITION_FILES and (_is_array(v) or isinstance(v, (list, tuple))):
            return staging.add_array(name, _arrays.positions(v, key))
        if _is_array(v):
            a, _ = _arrays.to_numpy(v, key)
            return staging.add_array(name, a)
        if isinstance(v, (dict, list)):
            return staging.add_bytes(name, json.dumps(v).encode())
        if isinstance(v, (str, os.PathLike)):
            s = os.fspath(v)
            return s if s == "off" else os.path.abspath(s)
        raise TypeError("%s=: expected a path, a dict or an array, got %s" % (key, type(v).__name__))
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v)
    v = _arrays.scalar(v, key)  # a 0-d tensor or array (HF's cache_position[0]), a numpy scalar
    if isinstance(v, float):
        return repr(v)
    return str(v)


def cli_args(func, options, staging):
    """`pecheck check` arguments of the keyword OPTIONS (None/False left out)."""
    __tracebackhide__ = True
    known = _binary.check_options()
    options = dict(options)
    extra = [str(a) for a in options.pop("_extra", ())]
    args = []
    for key, value in options.items():
        opt = key.replace("_", "-")
        if opt in _RESERVED:
            raise TypeError("%s= is set by %s() itself" % (key, func))
        if opt not in known:
            _unknown_keyword(key, known)
        if value is None or value is False:
            continue
        if known[opt] == "":
            if value is not True:
                raise TypeError("%s= is a flag: True or False, not %r" % (key, value))
            args.append("--" + opt)
            continue
        values = value if opt in _REPEATABLE and isinstance(value, (list, tuple)) else [value]
        for v in values:
            args += ["--" + opt, _value(key, v, known[opt], staging)]
    return args + extra


def run_check(func, what, family, inputs, storage, options, keep=None, rotates=("rope",)):
    """Run `pecheck check --family FAMILY` on INPUTS ([(option, file name,
    array)]) with the keyword OPTIONS; returns the Result.  STORAGE 'bf16':
    the arrays hold bfloat16 bit patterns (--dtype bf16 unless dtype= says
    otherwise).  A failing run's inputs are kept (KEEP, _transport.keep_root)
    and its replay line names them."""
    __tracebackhide__ = True
    return start_check(func, what, family, inputs, storage, options, rotates).finish(keep)


class StartedCheck:
    """A check whose pecheck run is under way (start_check): its inputs are
    written, so the arrays may go; finish(KEEP) waits for the verdicts and
    returns the Result, cancel() stops the run.  Either closes its inputs."""

    def __init__(self, what, rotates, staging, args):
        self.what, self.rotates, self.st, self.args = what, rotates, staging, args
        self.running = None

    def finish(self, keep=None):
        __tracebackhide__ = True
        try:
            rc, out, err = self.running.finish()
            return self._result(out, err, keep)
        finally:
            self.st.close()

    def cancel(self):
        try:
            if self.running is not None:
                self.running.cancel()
        finally:
            self.st.close()

    def _result(self, out, err, keep):
        __tracebackhide__ = True
        st, args = self.st, self.args
        try:
            doc = json.loads(out)
        except ValueError as e:
            raise _binary.PecheckError("pecheck printed no JSON (%s); stderr: %s" % (e, err)) from None
        replay, kept, note, argv = None, None, None, ["pecheck"] + args
        names = st.names()
        if doc.get("status") != "pass":
            root = _transport.keep_root(keep)
            why = "keep=False"
            if root:
                try:
                    kept = st.keep(root)
                except OSError as e:  # a failing check stays a result, kept or not
                    why = "cannot write %s: %s" % (root, e.strerror or e)
            if kept:
                names = set(st.names())
                argv = [os.path.join(kept, a) if a in names else a for a in argv]
                replay = shlex.join(argv)
            else:
                note = ("the inputs were not kept (%s): save them with numpy.save as %s, then run: %s"
                        % (why, ", ".join(st.names()), shlex.join(argv)))
        return Result(status=doc.get("status", "fail"), what=self.what,
                      verdicts=verdicts_from_json(doc, self.rotates, argv if kept else None,
                                                  names=names, kept=kept),
                      seed=_seed(doc), command=tuple(args), replay=replay, kept=kept, note=note,
                      json=doc)


def start_check(func, what, family, inputs, storage, options, rotates=("rope",)):
    """run_check's run started, not waited for: its StartedCheck."""
    __tracebackhide__ = True
    options = dict(options)
    if storage == "bf16" and options.get("dtype") is None:
        options["dtype"] = "bf16"
    st = _transport.Staging()
    try:
        args = ["check", "--family", family]
        for opt, name, array in inputs:
            args += [opt, st.add_array(name, array)]
        args += cli_args(func, options, st)
        if "--regressions" not in args:
            args += ["--regressions", "off"]  # a test run saves no failing seeds in its folder
        started = StartedCheck(what, rotates, st, args)
        started.running = _binary.start(args + ["--format", "json"], cwd=st.dir, pass_fds=st.fds)
        return started
    except BaseException:
        st.close()
        raise


def _seed(doc):
    for r in doc.get("results", []):
        if r.get("seed") is not None:
            return r["seed"]
    return None


def _storage_options(dtype, pos_start, layout, properties, base=None):
    __tracebackhide__ = True
    base = _arrays.scalar(base, "base")
    pos_start = _arrays.scalar(pos_start, "pos_start")
    out = {"dtype": _arrays.dtype_name(dtype), "layout": layout, "property": properties,
           "base": float(base) if base is not None else None}
    if pos_start:
        out["pos_start"] = int(pos_start)
    return out


def check_rope_cache(cos, sin=None, *, base=None, hf_config=None, rope_scaling=None, dtype=None,
                     pos_start=0, layout=None, properties=None, keep=None, **options):
    """Gate a RoPE cos/sin cache; returns the Result.

    COS, SIN: (n, d) caches (rotate_half's cat(freqs, freqs) or
    repeat_interleave; the layout is detected, LAYOUT says it), (n, d/2)
    caches (one column per pair), or one complex (n, d/2) freqs_cis as COS
    with SIN None (Meta's torch.polar).  Leading dimensions of size 1 are
    dropped ((1, n, d) as HF returns).  Row r is position POS_START + r.
    BASE, HF_CONFIG (config.json path or dict), ROPE_SCALING (dict): the
    schedule checked against.  Without any, pecheck checks the cache against
    the base its own rows fit, which any cache passes, and fails the check
    named base unless ASSUME_FITTED=True accepts the fitted base (each
    verdict's `against` says which base and schedule it used); a cache whose
    rows fit no one base (a scaled schedule such as llama3's) is checked
    against the default base 10000 and its likely cause names the schedule.  DTYPE: 'f32', 'bf16', 'f16' (default: the
    tensors' own).  PROPERTIES: --property names (default: every check).
    KEEP: where a failing run's inputs are kept (default $PECHECK_KEEP, else
    pecheck-failed/ in the temporary folder; False: not kept)."""
    __tracebackhide__ = True
    return start_rope_cache(cos, sin, base=base, hf_config=hf_config, rope_scaling=rope_scaling,
                            dtype=dtype, pos_start=pos_start, layout=layout, properties=properties,
                            **options).finish(keep)


def start_rope_cache(cos, sin=None, *, base=None, hf_config=None, rope_scaling=None, dtype=None,
                     pos_start=0, layout=None, properties=None, **options):
    """check_rope_cache's run started, not waited for: its StartedCheck
    (gate_rotary checks one chunk while the next is computed)."""
    __tracebackhide__ = True
    d = _arrays.dtype_name(dtype)
    c, s, storage = _arrays.rope_pair(cos, sin, d)
    opts = _storage_options(d, pos_start, layout, properties, base)
    opts.update(hf_config=hf_config, rope_scaling=rope_scaling, **options)
    return start_check("check_rope_cache", "the RoPE cache", "rope",
                       [("--table", "cos.npy", c), ("--table-sin", "sin.npy", s)], storage, opts)


def check_sinusoidal_table(pe, *, base=None, dtype=None, pos_start=0, layout=None, properties=None,
                           keep=None, **options):
    """Gate a sinusoidal PE table (n, d) (or (1, n, d)); row r is position
    POS_START + r; the layout (interleaved sin/cos pairs, or [sin | cos]
    halves) is detected unless LAYOUT says it.  Returns the Result; see
    check_rope_cache for the other keywords."""
    __tracebackhide__ = True
    d = _arrays.dtype_name(dtype)
    a, storage = _arrays.table(pe, "pe", d)
    opts = _storage_options(d, pos_start, layout, properties, base)
    opts.update(options)
    return run_check("check_sinusoidal_table", "the sinusoidal table", "sinusoidal",
                     [("--table", "table.npy", a)], storage, opts, keep)


def check_learned_table(table, *, dtype=None, properties=None, keep=None, **options):
    """Gate a learned position table (max_len, d), e.g. an nn.Embedding's
    weight, row r being position r: every value finite, the lookup contract
    (rows outside [0, max_len) refused), no two positions sharing a row
    (unique).  Returns the Result; see check_rope_cache for the keywords."""
    __tracebackhide__ = True
    d = _arrays.dtype_name(dtype)
    a, storage = _arrays.table(table, "table", d)
    opts = _storage_options(d, 0, None, properties)
    opts.update(options)
    return run_check("check_learned_table", "the learned table", "learned",
                     [("--table", "table.npy", a)], storage, opts, keep)


def check_alibi_slopes(slopes, *, heads=None, dtype=None, properties=None, keep=None, **options):
    """Gate ALiBi slopes (H,) (e.g. BLOOM's or MPT's slopes), or ALiBi
    biases: (H, nq, nk) as -m|j - i| (MPT with full=True), or (H, 1, n)
    as m (j - j0) on the key positions (BLOOM's build_alibi_tensor, MPT's
    build_alibi_bias; a batch of such rows is one model's heads repeated:
    pass one).  Each value against the exact slope (MPFR); slopes computed
    in binary32 (BLOOM's torch.pow, MPT's 1 / 2^m) pass the default class,
    strict=True asks for the correctly rounded slope within 1 ulp.  HEADS:
    the head count (default: the table's); alibi_bias_max=, alibi_config=
    (a config.json path or dict) as the CLI's options.  Returns the Result."""
    __tracebackhide__ = True
    d = _arrays.dtype_name(dtype)
    a, storage = _arrays.values(slopes, "slopes", d)
    opts = _storage_options(d, 0, None, properties)
    opts.update(heads=heads, **options)
    return run_check("check_alibi_slopes", "the ALiBi table", "alibi",
                     [("--table", "alibi.npy", a)], storage, opts, keep)


def check_t5_buckets(buckets, *, num_buckets=None, max_distance=None, causal=None, properties=None,
                     keep=None, **options):
    """Gate a T5 relative-position bucket table: integers (queries, keys),
    entry [i, j] the bucket of j - (pos_start + i) as HF's
    T5Attention._relative_position_bucket computes it (compute_bias's
    relative_position_bucket), every entry against the exact bucket.
    NUM_BUCKETS, MAX_DISTANCE, CAUSAL (is_decoder: the one-directional
    buckets), or t5_config= (a T5 config.json path or dict); pos_start=
    the position of the first query row (a decode step's slice of the last
    queries: keys - queries).  Returns the Result."""
    __tracebackhide__ = True
    a = _arrays.integers(buckets, "buckets")
    opts = {"property": properties, "num_buckets": num_buckets, "max_distance": max_distance,
            "causal": bool(causal) if causal is not None else None}
    opts.update(options)
    return run_check("check_t5_buckets", "the T5 bucket table", "t5",
                     [("--table", "buckets.npy", a)], None, opts, keep)


def check_table(table, sin=None, *, family=None, extra_args=(), **options):
    """Gate TABLE as FAMILY: 'rope' (with SIN, or a complex TABLE),
    'sinusoidal' (the default otherwise), 'learned', 'alibi' or 't5'; the keywords of the
    family's check_* function.  EXTRA_ARGS: more `pecheck check` arguments,
    as strings.  Returns the Result."""
    __tracebackhide__ = True
    np = _arrays.numpy()
    if family is None:
        complex_table = sin is None and np.iscomplexobj(_arrays.to_numpy(table, "table")[0])
        family = "rope" if sin is not None or complex_table else "sinusoidal"
    if extra_args:
        options = dict(options, _extra=list(extra_args))
    funcs = {"rope": check_rope_cache, "sinusoidal": check_sinusoidal_table,
             "learned": check_learned_table, "alibi": check_alibi_slopes, "t5": check_t5_buckets}
    if family not in funcs:
        raise ValueError("family=%r: expected one of %s" % (family, ", ".join(funcs)))
    if family != "rope" and sin is not None:
        raise ValueError("sin is for RoPE caches, not family=%r" % family)
    args = (table, sin) if family == "rope" else (table,)
    return funcs[family](*args, **options)


def _asserting(check, name):
    """assert_* of CHECK: the same keywords plus msg=; raises AssertionError
    with the result's text unless it passes."""

    def assert_fn(*args, msg=None, **kwargs):
        __tracebackhide__ = True
        result = check(*args, **kwargs)
        if not result.passed:
            raise AssertionError(result.report(verbose=settings.verbose(), msg=msg))
        return result

    sig = inspect.signature(check)
    params = list(sig.parameters.values())
    kw_at = next(i for i, p in enumerate(params) if p.kind == p.VAR_KEYWORD)
    params.insert(kw_at, inspect.Parameter("msg", inspect.Parameter.KEYWORD_ONLY, default=None))
    assert_fn.__signature__ = sig.replace(parameters=params)
    assert_fn.__name__ = assert_fn.__qualname__ = name
    assert_fn.__doc__ = ("Raise AssertionError, with the witness, the likely cause and a replay "
                         "line (MSG first when given), unless %s() passes; returns its Result "
                         "when it does.\n\n" % check.__name__) + (check.__doc__ or "")
    assert_fn.__wrapped_check__ = check
    return assert_fn


assert_rope_cache = _asserting(check_rope_cache, "assert_rope_cache")
assert_sinusoidal_table = _asserting(check_sinusoidal_table, "assert_sinusoidal_table")
assert_learned_table = _asserting(check_learned_table, "assert_learned_table")
assert_alibi_slopes = _asserting(check_alibi_slopes, "assert_alibi_slopes")
assert_t5_buckets = _asserting(check_t5_buckets, "assert_t5_buckets")

__all__ = ["check_rope_cache", "check_sinusoidal_table", "check_learned_table", "check_alibi_slopes",
           "check_t5_buckets", "check_table", "assert_rope_cache", "assert_sinusoidal_table",
           "assert_learned_table", "assert_alibi_slopes", "assert_t5_buckets"]
