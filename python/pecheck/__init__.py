"""pecheck for pytest: gate a positional-encoding cache in one line.

    import pecheck
    pecheck.assert_rope_cache(cos, sin, base=500000.0)      # raises AssertionError on a wrong cache
    result = pecheck.check_table(pe, family="sinusoidal")   # the parsed JSON result

The arrays are numpy arrays or torch tensors.  The work is done by the
`pecheck` binary (found through $PECHECK, then the build folder beside this
package, then PATH): the arrays are written as float32 .npy files into a
temporary folder, `pecheck check --format json` gates them against the
certified reference, and its JSON is parsed.  Nothing is written anywhere
else (the regression file is off).

Shapes accepted for a RoPE cache (leading dimensions of size 1 are dropped):
  - (n, d) cos and sin: a rotate_half cache (cat(freqs, freqs)) or a
    repeat_interleave one; pecheck detects the layout;
  - (n, d/2) cos and sin: one column per pair;
  - one complex (n, d/2) array as COS and SIN=None: Meta's freqs_cis
    (torch.polar), split into its real (cos) and imaginary (sin) parts.
bfloat16 and float16 tensors are widened to float32 exactly and checked
with --dtype bf16 / f16 unless DTYPE says otherwise.
"""

import json
import os
import shutil
import subprocess
import tempfile

__all__ = ["PecheckError", "find_binary", "check_table", "assert_rope_cache",
           "assert_sinusoidal_table"]

# exit codes of every pecheck command (README "Exit codes")
_EXIT_PASS, _EXIT_FAIL, _EXIT_INPUT, _EXIT_INTERNAL = 0, 1, 2, 3


class PecheckError(RuntimeError):
    """pecheck could not judge the input (exit 2 or 3): the message is its own."""


def find_binary():
    """The pecheck binary: $PECHECK, then ../build/pecheck beside this
    package (a source checkout), then `pecheck` on PATH."""
    env = os.environ.get("PECHECK")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    beside = os.path.join(here, os.pardir, os.pardir, "build", "pecheck")
    if os.access(beside, os.X_OK):
        return os.path.normpath(beside)
    found = shutil.which("pecheck")
    if found:
        return found
    raise PecheckError("pecheck binary not found: set $PECHECK, build it with `make`, "
                       "or put it on PATH (`make install`)")


def _numpy():
    import numpy  # imported late so that `import pecheck` works without numpy
    return numpy


def _dtype_name(x):
    """'bf16', 'f16' or None for what X holds (torch or numpy)."""
    name = str(getattr(x, "dtype", ""))
    if name.endswith("bfloat16"):
        return "bf16"
    if name.endswith("float16"):
        return "f16"
    return None


def _to_array(x):
    """X (numpy array, torch tensor or nested sequence) as a numpy array;
    half-precision tensors are widened to float32 (exact)."""
    np = _numpy()
    if hasattr(x, "detach"):  # a torch tensor
        t = x.detach().cpu()
        if t.is_complex():
            return t.numpy()
        return t.float().numpy()
    a = np.asarray(x)
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    return a


def _squeeze_leading(a, what):
    """Drop leading dimensions of size 1 ((1, 1, n, d) -> (n, d))."""
    while a.ndim > 2 and a.shape[0] == 1:
        a = a[0]
    if a.ndim != 2:
        raise ValueError("%s: expected a 2-D cache (positions, dims) after dropping leading "
                         "dimensions of size 1, got shape %s" % (what, tuple(a.shape)))
    return a


def _as_float32(a, what):
    np = _numpy()
    if not np.issubdtype(a.dtype, np.floating):
        raise ValueError("%s: expected floating-point values, got dtype %s" % (what, a.dtype))
    return np.ascontiguousarray(a, dtype=np.float32)


def _split_cache(cos, sin):
    """(cos, sin) float32 2-D arrays from the accepted shapes."""
    np = _numpy()
    c = _squeeze_leading(_to_array(cos), "cos")
    if sin is None:
        if not np.iscomplexobj(c):
            raise ValueError("sin is None: expected a complex freqs_cis array as cos")
        return _as_float32(c.real, "freqs_cis"), _as_float32(c.imag, "freqs_cis")
    s = _squeeze_leading(_to_array(sin), "sin")
    if c.shape != s.shape:
        raise ValueError("cos and sin differ in shape: %s vs %s" % (tuple(c.shape), tuple(s.shape)))
    return _as_float32(c, "cos"), _as_float32(s, "sin")


def _run(args):
    """Run pecheck ARGS; return (exit code, parsed JSON or None, stderr)."""
    binary = find_binary()
    try:
        proc = subprocess.run([binary] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, check=False)
    except OSError as e:
        raise PecheckError("cannot run pecheck binary %s: %s" % (binary, e))
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode not in (_EXIT_PASS, _EXIT_FAIL):
        raise PecheckError("pecheck exited %d: %s" % (proc.returncode, err or "(no message)"))
    try:
        return proc.returncode, json.loads(proc.stdout.decode("utf-8", "replace")), err
    except ValueError as e:
        raise PecheckError("pecheck printed no JSON (%s); stderr: %s" % (e, err))


def _table_args(family, base, dtype, pos_start, rope_scaling, properties, extra,
                hf_config=None, seq_len=None):
    args = ["check", "--format", "json", "--regressions", "off"]
    if family:
        args += ["--family", family]
    if base is not None:
        args += ["--base", repr(float(base))]
    if dtype:
        args += ["--dtype", dtype]
    if pos_start:
        args += ["--pos-start", str(int(pos_start))]
    if rope_scaling is not None:
        # an HF rope_scaling dict (rope_type or type, factor, ...)
        args += ["--rope-scaling", json.dumps(rope_scaling)]
    if hf_config is not None:
        # the model's config.json: rope_theta, rope_scaling, head_dim, ...
        args += ["--hf-config", os.fspath(hf_config)]
    if seq_len is not None:
        args += ["--seq-len", str(int(seq_len))]
    for p in properties or ():
        args += ["--property", p]
    return args + list(extra)


def check_table(table, sin=None, *, family=None, base=None, dtype=None, pos_start=0,
                rope_scaling=None, properties=None, extra_args=(), hf_config=None, seq_len=None):
    """Gate TABLE (a sinusoidal PE table, or a RoPE cos cache with SIN) and
    return pecheck's parsed JSON result (keys: status, counts, results).

    FAMILY: "sinusoidal" or "rope" (default: rope when SIN is given or TABLE
    is complex, else sinusoidal).  BASE: the frequency base (pecheck's
    default 10000 when None).  DTYPE: "f32", "bf16" or "f16" (default: the
    tensors' own half dtype, else f32).  POS_START: the position of row 0.
    PROPERTIES: names to run (default every one that applies).  Raises
    PecheckError when pecheck cannot judge the input (its message)."""
    np = _numpy()
    rope = sin is not None or np.iscomplexobj(_to_array(table))
    family = family or ("rope" if rope else "sinusoidal")
    dtype = dtype or _dtype_name(table) or _dtype_name(sin)
    with tempfile.TemporaryDirectory(prefix="pecheck-") as tmp:
        paths = []
        if rope:
            arrays = _split_cache(table, sin)
        else:
            arrays = (_as_float32(_squeeze_leading(_to_array(table), "table"), "table"),)
        for name, a in zip(("cos.npy", "sin.npy"), arrays):
            paths.append(os.path.join(tmp, name))
            np.save(paths[-1], a)
        args = _table_args(family, base, dtype, pos_start, rope_scaling, properties, extra_args,
                           hf_config, seq_len)
        args += ["--table", paths[0]] + (["--table-sin", paths[1]] if len(paths) > 1 else [])
        _, result, _ = _run(args)
    return result


def _likely_cause(details):
    for line in (details or "").splitlines():
        line = line.strip()
        if line.startswith("likely cause:"):
            return line[len("likely cause:"):].strip()
    return None


def _witness_lines(r):
    """The witness of one failed result, one fact a line."""
    data = r.get("data") or {}
    w = data.get("worst") if isinstance(data, dict) else None
    lines = ["%s [%s%s]: %s" % (r.get("check"), r.get("family"),
                                ", layout " + r["layout"] if r.get("layout") else "",
                                r.get("summary"))]
    if w:
        lines.append("  position %d, dimension %d: got %s (%r), exact %s (%r)"
                     % (w["pos"], w["dim"], w["got"]["hex"], w["got"]["dec"],
                        w["ref"]["hex"], w["ref"]["dec"]))
        lines.append("  |err| %.3g > bound %.3g (angle %.9g rad)"
                     % (w["abs_err"], w["bound"], w.get("theta", float("nan"))))
    first = data.get("first_over_bound") if isinstance(data, dict) else None
    if first:
        lines.append("  first over the bound: position %d, dimension %d" % (first["pos"], first["dim"]))
    cause = _likely_cause(r.get("details"))
    if cause:
        lines.append("  likely cause: " + cause)
    return lines


def _assert_pass(result, what):
    if result.get("status") == "pass":
        return result
    failed = [r for r in result.get("results", []) if r.get("status") == "fail"]
    lines = ["pecheck: %s fails %d check(s) (seed %s)"
             % (what, len(failed), failed[0].get("seed") if failed else "?")]
    for r in failed:
        lines += _witness_lines(r)
    raise AssertionError("\n".join(lines))


def assert_rope_cache(cos, sin=None, *, base=None, rope_scaling=None, dtype=None,
                      pos_start=0, properties=None, hf_config=None, seq_len=None):
    """Raise AssertionError, with the witness (position, dimension, got,
    exact, bound, likely cause), unless the RoPE cache passes pecheck's gate.
    Returns the parsed result when it passes.  See check_table."""
    result = check_table(cos, sin, family="rope", base=base, dtype=dtype, pos_start=pos_start,
                         rope_scaling=rope_scaling, properties=properties, hf_config=hf_config,
                         seq_len=seq_len)
    return _assert_pass(result, "the RoPE cache")


def assert_sinusoidal_table(pe, *, base=None, dtype=None, pos_start=0, properties=None):
    """Raise AssertionError with the witness unless the sinusoidal PE table
    (n, d) passes pecheck's gate.  Returns the parsed result."""
    result = check_table(pe, family="sinusoidal", base=base, dtype=dtype, pos_start=pos_start,
                         properties=properties)
    return _assert_pass(result, "the sinusoidal table")
