#!/usr/bin/python3
"""table.t: .npy tables as implementations under test (pecheck check --table).

Writes tables with a tiny .npy writer (stdlib only: the header and
little-endian floats, numpy's format 1.0), so the test does not need numpy:
  - sinusoidal tables, interleaved and half, float32 and float64, at a
    --pos-start; the layout is detected; a table whose --pos-start is wrong,
    or with a NaN, fails with the witness; --d contradicting the shape is an
    input error;
  - RoPE cos/sin caches (n, d/2), (n, d) half (cat(freqs, freqs)) and (n, d)
    interleaved (repeat_interleave): pass, with the layout reported; a
    corrupted repeated column fails cache-layout with the witness;
  - learned tables (--family learned): pass the lookup contract and unique;
    a duplicated row fails unique, an Inf table-values; --pos-start,
    --table-sin and a contradicting --d are input errors;
  - a (1, n, d) table (a batch of one) is read as its (n, d) rows by check
    and identify alike; (2, n, d) is exit 2 naming t[0];
  - hostile files: bad magic, truncated data, Fortran order, big-endian,
    rank 1 and 3, an integer dtype, an empty file, a directory, 0 rows,
    d = 0, odd d, a header length past the end: exit 2, one line naming the
    file and the defect, and no --output file.
"""
import json
import math
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from pctest import ok, run, done  # noqa: E402

tmp = tempfile.mkdtemp(prefix="pecheck-table-")
Q = ["--cases", "10", "--regressions", "off"]


def npy(name, descr, shape, values=None, raw=None, fortran=False, magic=b"\x93NUMPY", hlen=None):
    """Write a .npy file (format 1.0) into the temporary folder; returns its path."""
    shp = "(%s)" % (", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    h = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shp)
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    if raw is None:
        fmt = {"<f4": "<%df", "<f8": "<%dd", ">f4": ">%df", "<i4": "<%di"}[descr]
        raw = struct.pack(fmt % len(values), *values)
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(magic + b"\x01\x00" + struct.pack("<H", hlen if hlen is not None else len(h))
                + h.encode() + raw)
    return path


def omega(i, d, base=10000.0):
    return base ** (-2.0 * i / d)


def sin_table(n, d, start, layout):
    rows = []
    for p in range(start, start + n):
        row = [0.0] * d
        for i in range(d // 2):
            a = p * omega(i, d)
            if layout == "interleaved":
                row[2 * i], row[2 * i + 1] = math.sin(a), math.cos(a)
            else:
                row[i], row[i + d // 2] = math.sin(a), math.cos(a)
        rows += row
    return rows


def rope_cache(n, d, kind):
    cos, sin = [], []
    for p in range(n):
        c = [math.cos(p * omega(i, d)) for i in range(d // 2)]
        s = [math.sin(p * omega(i, d)) for i in range(d // 2)]
        if kind == "half":
            c, s = c + c, s + s
        elif kind == "interleaved":
            c = [v for v in c for _ in (0, 1)]
            s = [v for v in s for _ in (0, 1)]
        cos += c
        sin += s
    return cos, sin


def check(*args):
    rc, out, err, _ = run(["check", "--format", "json"] + list(args) + Q)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, {"results": [], "_raw": out}, err


def find(doc, check_name, layout=None):
    for r in doc.get("results", []):
        if r["check"] == check_name and (layout is None or r["layout"] == layout):
            return r
    return None


try:
    N, D, P = 300, 32, 1000
    # --- sinusoidal tables
    t_int = npy("pe_int.npy", "<f4", (N, D), sin_table(N, D, P, "interleaved"))
    t_half = npy("pe_half.npy", "<f8", (N, D), sin_table(N, D, P, "half"))
    rc, doc, err = check("--table", t_int, "--pos-start", str(P))
    a, b = find(doc, "accuracy", "interleaved"), find(doc, "accuracy", "half")
    ok(rc == 0 and a and a["status"] == "pass" and b is None
       and "layout interleaved detected" in (a.get("details") or ""),
       "interleaved f4 table at --pos-start 1000 passes; layout detected; the other layout is no verdict", doc)
    ok(a and a["data"]["params"]["positions"] == {"start": P, "end": P + N - 1}
       and a["data"]["params"]["d"] == D, "the gate's range is exactly the table's rows, d its width",
       a and a["data"]["params"])
    rc, doc, err = check("--table", t_half, "--pos-start", str(P))
    b = find(doc, "accuracy", "half")
    ok(rc == 0 and b and b["status"] == "pass", "half f8 table passes (rounded to binary32)", doc)
    rc, doc, err = check("--table", t_int, "--pos-start", str(P + 1))
    a = find(doc, "accuracy", "interleaved")
    ok(rc == 1 and a and a["status"] == "fail" and "pos=" in a["summary"],
       "the same table one position off fails with a witness", a)
    vals = sin_table(N, D, P, "interleaved")
    vals[10 * D + 5] = float("nan")
    t_nan = npy("pe_nan.npy", "<f4", (N, D), vals)
    rc, doc, err = check("--table", t_nan, "--pos-start", str(P))
    r = find(doc, "table-values")
    ok(rc == 1 and r and r["status"] == "fail" and "row 10 (pos 1010) column 5" in r["summary"],
       "a NaN in the table fails with its row, position and column", r)
    rc, out, err, _ = run(["check", "--table", t_int, "--d", "64"] + Q)
    ok(rc == 2 and "--d 64 contradicts" in err and "(300, 32)" in err, "--d contradicting the shape: exit 2", err)
    rc, out, err, _ = run(["accuracy", "--table", t_int, "--pos-start", str(P), "--format", "json"])
    rc2, out2, err2, _ = run(["accuracy", "--impl", "double-angle", "--format", "json", "--max-pos", "99",
                              "--d", "32"])
    try:
        k1, k2 = set(json.loads(out)), set(json.loads(out2))
    except ValueError:
        k1, k2 = set(), {"x"}
    ok(rc == 0 and k1 == k2, "accuracy --table: pass, same JSON fields as a built-in", out + err)

    # --- RoPE caches
    for kind, cols in (("compact", D // 2), ("half", D), ("interleaved", D)):
        c, s = rope_cache(N, D, kind)
        tc = npy("cos_%s.npy" % kind, "<f4", (N, cols), c)
        ts = npy("sin_%s.npy" % kind, "<f4", (N, cols), s)
        rc, doc, err = check("--table", tc, "--table-sin", ts, "--family", "rope", "--base", "10000")
        lay = find(doc, "cache-layout")
        acc = [r for r in doc.get("results", []) if r["check"] == "accuracy" and r["status"] == "pass"]
        if kind == "compact":
            good = lay and "(n, d/2) cache" in lay["summary"] and len(acc) == 2
        else:
            good = lay and lay["layout"] == kind and ("layout %s detected" % kind) in lay["summary"] \
                and len(acc) == 1 and acc[0]["layout"] == kind
        ok(rc == 0 and good and all(r["data"]["params"]["d"] == D for r in acc),
           "rope cache %s (%d columns): passes, layout reported, d = %d" % (kind, cols, D), doc)
    c, s = rope_cache(N, D, "half")
    c[3 * D + 20] += 0.25
    tc = npy("cos_bad.npy", "<f4", (N, D), c)
    ts = npy("sin_bad.npy", "<f4", (N, D), s)
    rc, doc, err = check("--table", tc, "--table-sin", ts)
    lay = find(doc, "cache-layout")
    ok(rc == 1 and lay and lay["status"] == "fail" and "row 3" in lay["summary"]
       and "column 4" in lay["summary"] and "column 20" in lay["summary"],
       "a repeated column that differs fails cache-layout with the witness", lay)
    rc, out, err, _ = run(["check", "--table", tc] + Q + ["--family", "rope"])
    ok(rc == 2 and "--table-sin" in err, "rope without --table-sin: exit 2", err)
    rc, out, err, _ = run(["check", "--table", tc] + Q + ["--rope-scaling", '{"rope_type": "linear", "factor": 2}'])
    ok(rc == 2 and "--rope-scaling is an option of the rope family" in err
       and "read as sinusoidal" in err and "--family rope" in err,
       "a cos cache alone with a RoPE option: exit 2 naming the option's family (not a sinusoidal check)", err)

    # --- learned tables (--family learned): row r is position r
    emb = [math.sin(1.7 * k + 0.3) * 0.02 for k in range(N * D)]  # distinct rows, any values
    t_emb = npy("emb.npy", "<f4", (N, D), emb)
    rc, doc, err = check("--table", t_emb, "--family", "learned")
    look, rng, uniq = find(doc, "lookup"), find(doc, "out-of-range"), find(doc, "unique")
    ok(rc == 0 and look and look["status"] == "pass" and "%d of %d rows (d=%d)" % (N, N, D) in look["summary"]
       and rng and rng["status"] == "pass" and "max_len %d" % N in rng["summary"]
       and uniq and uniq["status"] == "pass",
       "learned table (%d, %d): passes lookup, out-of-range (max_len %d) and unique" % (N, D, N), doc)
    dup = list(emb)
    dup[200 * D:201 * D] = dup[7 * D:8 * D]
    rc, doc, err = check("--table", npy("emb_dup.npy", "<f4", (N, D), dup), "--family", "learned")
    uniq = find(doc, "unique")
    ok(rc == 1 and uniq and uniq["status"] == "fail" and "positions 7 and 200" in uniq["summary"],
       "a learned table with a duplicated row fails unique, naming both positions", uniq)
    bad = list(emb)
    bad[40 * D + 9] = float("inf")
    rc, doc, err = check("--table", npy("emb_inf.npy", "<f4", (N, D), bad), "--family", "learned")
    r = find(doc, "table-values")
    ok(rc == 1 and r and r["status"] == "fail" and "row 40 (pos 40) column 9 = inf" in r["summary"],
       "an Inf in a learned table fails table-values with its row and column", r)
    for extra, word in ((["--pos-start", "5"], "--pos-start 5"), (["--table-sin", t_emb], "--table-sin"),
                        (["--d", "64"], "--d 64 contradicts")):
        rc, out, err, _ = run(["check", "--table", t_emb, "--family", "learned"] + extra + Q)
        ok(rc == 2 and err.count("\n") == 1 and word in err, "learned table with %s: exit 2" % word, err)
    rc, out, err, _ = run(["check", "--table", t_emb, "--family", "attention"] + Q)
    ok(rc == 2 and "tables are sinusoidal, rope, learned, t5 or alibi" in err, "a table of another family: exit 2", err)

    # --- a batch of one (1, n, d), as torch returns (HF's rotary modules):
    # its (n, d) rows, in check and identify alike (before: check exit 2
    # "rank 3", identify read it as a one-head ALiBi table); a batch of 2 is
    # exit 2 pointing at t[0]
    b1 = npy("pe_b1.npy", "<f4", (1, N, D), sin_table(N, D, P, "interleaved"))
    rc, doc, err = check("--table", b1, "--pos-start", str(P))
    a = find(doc, "accuracy", "interleaved")
    ok(rc == 0 and a and a["status"] == "pass" and a["data"]["params"]["d"] == D
       and a["data"]["params"]["positions"] == {"start": P, "end": P + N - 1},
       "a (1, n, d) sinusoidal table passes check as its (n, d) rows", err or doc)
    rc, out, err, _ = run(["identify", "--table", b1, "--pos-start", str(P)])
    ok(rc == 0 and out.startswith("FOUND") and "positions %d..%d, d %d" % (P, P + N - 1, D) in out
       and "ALiBi" not in out, "identify reads a (1, n, d) table as check does: sinusoidal "
       "rows, FOUND", out + err)
    bc, bs = rope_cache(64, 16, "half")
    rc, doc, err = check("--table", npy("cos_b1.npy", "<f4", (1, 64, 16), bc), "--table-sin",
                         npy("sin_b1.npy", "<f4", (1, 64, 16), bs), "--base", "10000")
    a = find(doc, "accuracy", "half")
    ok(rc == 0 and a and a["status"] == "pass", "a (1, n, d) RoPE cos/sin pair passes check", err or doc)
    b2 = npy("pe_b2.npy", "<f4", (2, N, D), sin_table(N, D, P, "interleaved") * 2)
    rc, out, err, _ = run(["check", "--table", b2])
    ok(rc == 2 and out == "" and err.count("\n") == 1 and "(1, n, d), got rank 3" in err
       and "t[0]" in err, "check: a (2, n, d) table is exit 2 naming t[0]", out + err)

    # --- hostile files: exit 2, one line naming the file and the defect
    good = struct.pack("<%df" % (4 * 64), *([0.5] * (4 * 64)))
    os.mkdir(os.path.join(tmp, "dir.npy"))
    open(os.path.join(tmp, "empty.npy"), "wb").close()
    hostile = [
        (npy("magic.npy", "<f4", (4, 64), raw=good, magic=b"\x93NUMPX"), "bad magic"),
        (npy("trunc.npy", "<f4", (4, 64), raw=good[:100]), "truncated"),
        (npy("fortran.npy", "<f4", (4, 64), raw=good, fortran=True), "Fortran order"),
        (npy("bigend.npy", ">f4", (4, 64), raw=good), "big-endian"),
        (npy("rank1.npy", "<f4", (256,), raw=good), "rank 1"),
        (npy("rank3.npy", "<f4", (4, 32, 2), raw=good), "rank 3"),
        (npy("int.npy", "<i4", (4, 64), raw=good), "'<i4'"),
        (os.path.join(tmp, "empty.npy"), "empty file"),
        (os.path.join(tmp, "dir.npy"), "directory"),
        (npy("rows0.npy", "<f4", (0, 64), raw=b""), "0 rows"),
        (npy("d0.npy", "<f4", (4, 0), raw=b""), "zero dimension"),
        (npy("odd.npy", "<f4", (4, 3), raw=good[:48]), "even d"),
        (npy("hlen.npy", "<f4", (4, 64), raw=good, hlen=60000), "header length"),
        (os.path.join(tmp, "missing.npy"), "missing.npy"),
    ]
    for path, word in hostile:
        outfile = os.path.join(tmp, "out.json")
        rc, out, err, _ = run(["check", "--table", path, "--output", outfile] + Q)
        ok(rc == 2 and err.count("\n") == 1 and os.path.basename(path) in err and word in err
           and not os.path.exists(outfile),
           "hostile %s: exit 2, one line with '%s'" % (os.path.basename(path), word), err)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(done())
