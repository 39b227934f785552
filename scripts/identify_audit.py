#!/usr/bin/python3
"""identify_audit.py: `pecheck identify` on every table `pecheck check` passed on.

    scripts/identify_audit.py --pecheck build/pecheck --records DIR [--jobs 2] [--json OUT]

DIR holds the records of scripts/record_checks.sh (a test run with it as
$PECHECK).  For each distinct table (the record's data inputs, below), identify
is given what a user hands it: the table and what the table's values cannot say.
Those are the DATA options, the record's own values:

    --table, --table-sin   the table (cos and sin of RoPE)
    --position-ids         the position of each row (RoPE)
    --timesteps            the timestep of each row (sinusoidal)
    --pos-start            the position of the first row
    --dtype                the type the table is judged in
    --grid, --cls-rows     how the rows lay out a 2-D grid (sinusoidal)

and nothing of the encoding's specification (base, schedule, config, layout,
family, ...): finding that is identify's job.  One exception: a table check
took as --family learned is given --family learned too, as that is what its
values cannot say (any table of rows is a learned one: trained values, no
formula); identify without it is asked as well, and its answer recorded
(`learned_unfamilied`: exit 1, UNKNOWN, naming `--family learned`).  For each,
asserted:

    FOUND       `identify DATA` exits 0 (every value explained)
    JSON        `identify DATA --format json` exits 0 and parses (json module)
    CHECK       `check CHECK_ARGS DATA'` exits 0, CHECK_ARGS identify's check_args
                and DATA' the data options check_args leave out, with the
                --property selection of the check that passed (a table
                recorded by several checks: one that ran every property
                where there is one)

EXCLUDED, and listed with the reason, are the records identify cannot be
asked about or cannot answer, and only those:
  - identify exits 2 naming what the values cannot say (its message holds
    "cannot be identified": fewer rows than a fit needs, position ids with
    no neighbouring positions, timesteps past binary32's resolution);
  - a data file the recorder could not copy (a pipe, a process
    substitution: check read it once).
Prints the figures by family and by failure kind, one line per failure;
exit 1 when any record fails.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys

# the data options (the docstring); value-taking, all of them
DATA_OPTS = ("--table", "--table-sin", "--position-ids", "--timesteps", "--pos-start",
             "--dtype", "--grid", "--cls-rows")
# the DATA options whose value is a file
FILE_OPTS = ("--table", "--table-sin", "--position-ids", "--timesteps")
# the phrase identify's exit 2 uses for what a table's values cannot say
CANNOT = "cannot be identified"
# per command: long enough for the largest test table (65536 x 64 pairs)
TIMEOUT_S = 300


def split_opts(argv):
    """(option, value) pairs of ARGV (value None for a flag), --x=v split."""
    out, k = [], 0
    while k < len(argv):
        a = argv[k]
        if a.startswith("--") and "=" in a:
            name, v = a.split("=", 1)
            out.append((name, v))
        elif a.startswith("--") and k + 1 < len(argv) and not argv[k + 1].startswith("--"):
            out.append((a, argv[k + 1]))
            k += 1
        else:
            out.append((a, None))
        k += 1
    return out


def load(recdir, name):
    """One record: its argv (files put back), the test that made it."""
    d = os.path.join(recdir, name)
    with open(os.path.join(d, "argv"), "rb") as f:
        argv = [a.decode("utf-8", "replace").replace("@REC@", recdir)
                for a in f.read().split(b"\0")[:-1]]
    test = ""
    if os.path.exists(os.path.join(d, "test")):
        with open(os.path.join(d, "test")) as f:
            test = f.read().strip()
    return {"name": name, "argv": argv, "test": test_name(test)}


def test_name(cmdline):
    """tests/NAME.t out of the calling test's command line."""
    for w in cmdline.split():
        if w.startswith("tests/") and w.endswith(".t") or "/tests/" in w and w.endswith(".t"):
            return "tests/" + w.rsplit("/tests/", 1)[-1].replace("tests/", "", 1)
    return cmdline[:60] or "?"


def data_of(argv):
    """The DATA options of a check command line, in order."""
    out = []
    for name, v in split_opts(argv[1:]):
        if name in DATA_OPTS and v is not None:
            out += [name, v]
    return out


def properties_of(argv):
    """The --property selection of a check command line ([] : every property)."""
    out = []
    for name, v in split_opts(argv[1:]):
        if name == "--property" and v is not None:
            out += [name, v]
    return out


def run(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return 124, "", "timed out after %d s" % TIMEOUT_S


def check_family(argv):
    """check's --family, else the family its options imply (a cos/sin pair
    or position ids: RoPE; timesteps or a grid: sinusoidal), else None."""
    names = dict(split_opts(argv[1:]))
    if names.get("--family"):
        return names["--family"]
    if "--table-sin" in names or "--position-ids" in names:
        return "rope"
    if "--timesteps" in names or "--grid" in names:
        return "sinusoidal"
    return None


def audit(pecheck, rec):
    """The three properties for one record: a result dict."""
    data = data_of(rec["argv"])
    r = {"record": rec["name"], "test": rec["test"], "data": data,
         "family": check_family(rec["argv"]), "check_argv": rec["argv"]}
    files = [v for name, v in split_opts(data) if name in FILE_OPTS]
    missing = [v for v in files if not os.path.isfile(v)]
    if missing:
        r["excluded"] = "not recorded: %s was read once by check (a pipe or process " \
                        "substitution)" % missing[0]
        return r
    if r["family"] == "learned":
        # without --family: a table of rows is read as sinusoidal, which
        # must not claim it and should name --family learned
        rc, out, err = run([pecheck, "identify"] + data + ["--quiet"])
        r["learned_unfamilied"] = {"rc": rc, "names_learned": "--family learned" in out + err}
        data = data + ["--family", "learned"]
        r["data"] = data
    rc, out, err = run([pecheck, "identify"] + data + ["--quiet"])
    r["found"] = rc == 0
    r["text_rc"] = rc
    if rc == 2 and CANNOT in err:
        r["excluded"] = err.strip().splitlines()[-1][:300]
        return r
    if rc != 0:
        r["why"] = ("exit %d: " % rc) + ((err.strip() or out.strip()).splitlines() or [""])[-1][:300]
        if rc == 1:
            r["why"] = "exit 1: " + (out.strip().splitlines() or [""])[0][:300]
    jrc, jout, jerr = run([pecheck, "identify"] + data + ["--quiet", "--format", "json"])
    try:
        doc = json.loads(jout)
        r["json"] = jrc in (0, 1) and doc.get("command") == "identify"
    except ValueError as e:
        r["json"] = False
        r["json_why"] = "exit %d: %s; %s" % (jrc, e, jerr.strip()[:200])
        doc = None
    if doc is None or not doc.get("results"):
        r["check"] = False
        r["check_why"] = "no check_args"
        return r
    res = doc["results"][0]
    r["family"] = r["family"] or res.get("family")
    args = list(res.get("check_args", []))
    given = {name for name, _ in split_opts(args)}
    extra = []
    for name, v in split_opts(data):
        if name not in given:
            extra += [name, v]
    # the properties the passing check ran (a table checked with
    # --property accuracy alone may fail another: float32 positions past
    # 2^24 repeat rows, which `unique` fails whatever the schedule)
    extra += properties_of(rec["argv"])
    r["check_args"] = args
    r["check_extra"] = extra
    crc, cout, cerr = run([pecheck, "check"] + args + extra + ["--quiet", "--regressions", "off"])
    r["check"] = crc == 0
    if crc != 0:
        lines = [l for l in (cout + cerr).splitlines() if l.strip()]
        r["check_why"] = "exit %d: %s" % (crc, (lines[-1] if lines else "")[:300])
    return r


def kind(r):
    """The failure kind of a result: None when it passes."""
    if "excluded" in r:
        return None
    if not r["found"]:
        return "identify exit %d" % r["text_rc"]
    if not r.get("json"):
        return "invalid JSON"
    if not r.get("check"):
        return "check_args fail"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pecheck", required=True)
    ap.add_argument("--records", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every result here")
    a = ap.parse_args()
    recdir = os.path.abspath(a.records)
    recs = [load(recdir, n) for n in sorted(os.listdir(recdir)) if n.startswith("r.")]
    distinct = collections.OrderedDict()
    for rec in recs:
        key = tuple(data_of(rec["argv"]))
        # the record whose check ran the most: one of every property
        # (no --property) over one of a selection
        if key not in distinct or (properties_of(distinct[key]["argv"])
                                   and not properties_of(rec["argv"])):
            distinct[key] = rec
    print("records: %d check runs that passed on a table; %d distinct tables (data inputs)"
          % (len(recs), len(distinct)))
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda rec: audit(a.pecheck, rec), distinct.values()))
    by_fam = collections.defaultdict(collections.Counter)
    by_kind = collections.Counter()
    for r in results:
        fam = r["family"] or "(not known)"
        c = by_fam[fam]
        c["tables"] += 1
        if "excluded" in r:
            c["excluded"] += 1
            continue
        c["found"] += r["found"]
        c["json"] += bool(r.get("json"))
        c["check"] += bool(r.get("check"))
        k = kind(r)
        c["pass"] += k is None
        if k:
            by_kind[k] += 1
    tot = collections.Counter()
    print("%-20s %7s %8s %6s %6s %6s %6s" % ("family", "tables", "excluded", "FOUND", "JSON",
                                              "check", "all 3"))
    for fam in sorted(by_fam):
        c = by_fam[fam]
        tot.update(c)
        print("%-20s %7d %8d %6d %6d %6d %6d" % (fam, c["tables"], c["excluded"], c["found"],
                                                 c["json"], c["check"], c["pass"]))
    print("%-20s %7d %8d %6d %6d %6d %6d" % ("total", tot["tables"], tot["excluded"], tot["found"],
                                             tot["json"], tot["check"], tot["pass"]))
    print("failures by kind (the first failing property):")
    for k, v in by_kind.most_common():
        print("  %-20s %d" % (k, v))
    for r in results:
        if "learned_unfamilied" in r:
            u = r["learned_unfamilied"]
            print("LEARNED %s (%s): without --family, identify exit %d%s" % (
                r["record"], r["test"], u["rc"], ", naming --family learned"
                if u["names_learned"] else ", not naming --family learned"))
    for r in results:
        if "excluded" in r:
            print("EXCLUDED %s (%s): %s" % (r["record"], r["test"], r["excluded"]))
    for r in results:
        k = kind(r)
        if k:
            why = r.get("why") or r.get("json_why") or r.get("check_why")
            print("FAIL %s [%s] %s (%s): %s\n    identify %s\n    check: %s" % (
                k, r["family"], r["record"], r["test"], why, " ".join(r["data"]),
                " ".join(r.get("check_args", []) + r.get("check_extra", []))))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if by_kind else 0


if __name__ == "__main__":
    sys.exit(main())
