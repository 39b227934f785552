#!/usr/bin/env python3
"""report_agree.py: whether the plots of a `pecheck report` folder say what
its verdicts (summary.json) say, for tests/report_kinds.t.

    report_agree.py DIR EXPECT [SCHED]

DIR holds the report of one table; EXPECT is pass or fail, the accuracy
verdict `pecheck check` gives that table; SCHED, when given, the words
plots 4 and 6 must name (their `sched` variable: the schedule the verdicts
were checked against).  Prints one line per plot (what its data shows) and
exits 1 at the first disagreement:

  summary     the table's accuracy verdict (the gate's, or for rows the
              family's own gate judges, its "accuracy" check) is EXPECT;
  every plot  drawn exactly when it has data; one not drawn says why (its
              note), never silently;
  plot 1      error_ratio.dat: the largest error/bound of the sampled
              elements is <= 1 for a pass, > 1 for a fail, and it is the
              scan's max_err_over_bound of summary.json; the lower panel's
              |error| stays under its bound line for a pass, crosses it
              for a fail;
  plot 2      a heatmap cell is NaN (no data) exactly when its bin starts
              past the table's last row; log10_err is log10 of its error
              (at the 1e-10 floor);
  plot 3      each column sums to 1;
  plot 4      with an implementation's curve: its deviation from the exact
              bound within the decay property's bound for a pass of that
              property, over it for a fail; without one, the note says why;
  plot 6      the largest relative score error under 2^-16 for a pass,
              over 2^-8 for a fail (binary32 roundoff is 2^-24, bfloat16's
              2^-8).
"""
import json
import math
import os
import sys


def rows(d, name):
    lines = open(os.path.join(d, name)).read().splitlines()
    return lines[0].split(), [ln.split() for ln in lines[1:]]


def num(x):
    return float("nan") if x == "NaN" else float(x)


def verdict_of(impl):
    acc = impl.get("accuracy")
    if acc:
        return acc["status"]
    got = [p["status"] for p in impl["properties"] if p["check"] == "accuracy"]
    return got[0] if got else None


def prop(impl, name):
    got = [p["status"] for p in impl["properties"] if p["check"] == name]
    return got[0] if got else None


def gp_var(d, plot, var):
    for ln in open(os.path.join(d, plot + ".gp")):
        if ln.startswith(var + " = "):
            return ln.split(" = ", 1)[1].strip().strip('"')
    return None


class Fail(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise Fail(msg)
    print("  " + msg)


def plot1(d, impl, expect):
    _, ratio = rows(d, "error_ratio.dat")
    worst = max((num(r[2]) for r in ratio if r[2] != "NaN"), default=float("nan"))
    need((worst <= 1) == (expect == "pass"),
         "plot 1: largest error/bound %.3g (%s the bound, as the verdict %s)"
         % (worst, "within" if worst <= 1 else "over", expect))
    scan = impl["scan"]["max_err_over_bound"]
    need(abs(worst - scan) <= 1e-6 * scan, "plot 1: that is the scan's max_err_over_bound %.9g" % scan)
    _, ab = rows(d, "error_vs_position.dat")
    over = max((num(r[3]) / num(r[2]) for r in ab if r[3] != "NaN"), default=float("nan"))
    need((over <= 1) == (expect == "pass"),
         "plot 1 lower panel: largest |error| / bound line %.3g" % over)


def plot2(d, last_row):
    for name in ("heatmap_worst.dat", "heatmap_good.dat"):
        if not os.path.exists(os.path.join(d, name)):
            continue
        _, cells = rows(d, name)
        for c in cells:
            lo, err, lg = int(c[1]), c[3], c[4]
            if (err == "NaN") != (lo > last_row):
                raise Fail("plot 2: %s cell %s is %s, its bin starts at %d, the last row is %d"
                           % (name, c, err, lo, last_row))
            if err != "NaN" and abs(num(lg) - math.log10(max(num(err), 1e-10))) > 1e-6:
                raise Fail("plot 2: %s cell %s: log10_err is not log10 of its error" % (name, c))
        nan = sum(c[3] == "NaN" for c in cells)
        need(True, "plot 2: %s: %d cells, %d without data (bins past row %d)"
             % (name, len(cells), nan, last_row))


def plot3(d):
    head, h = rows(d, "ulp_histogram.dat")
    for c in range(2, len(head)):
        s = sum(num(r[c]) for r in h if r[c] != "NaN")
        if abs(s - 1) > 1e-6:
            raise Fail("plot 3: column %s sums to %.9g" % (head[c], s))
    need(True, "plot 3: every column sums to 1")


def plot4(d, impl, note):
    head, dec = rows(d, "rope_decay_impl.dat")
    if len(head) < 4:
        need(bool(note), "plot 4: no implementation curve, the note says why: %s" % note)
        return
    ratio = max(abs(num(r[3]) - num(r[1])) / num(r[2]) for r in dec if r[3] != "NaN")
    p = prop(impl, "decay")
    need((ratio <= 1) == (p == "pass"),
         "plot 4: deviation / decay bound %.3g, the decay property %s" % (ratio, p))


def plot6(d, expect, note):
    _, sh = rows(d, "rope_shift.dat")
    worst = max((num(r[1]) for r in sh if r[1] != "NaN"), default=float("nan"))
    ok = worst < 2 ** -16 if expect == "pass" else worst > 2 ** -8
    need(ok, "plot 6: largest relative score error %.3g (verdict %s)" % (worst, expect))


def check(d, expect, sched):
    s = json.load(open(os.path.join(d, "summary.json")))
    impl = s["implementations"][0]
    v = verdict_of(impl)
    need(v == expect, "summary: accuracy %s (expected %s), overall %s" % (v, expect, impl["verdict"]))
    last_row = s["parameters"]["scan_max"]
    plots = {p["id"]: p for p in s["plots"]}
    for pid, p in plots.items():
        has = p["script"] is not None
        if p["drawn"] != has or (not p["drawn"] and not p["note"]):
            raise Fail("%s: drawn %s, data %s, note %r" % (pid, p["drawn"], has, p["note"]))
        print("%s: %s%s" % (pid, "drawn" if p["drawn"] else "not drawn",
                            "; note: " + p["note"] if p["note"] else ""))
        if not p["drawn"]:
            continue
        if pid == "error_vs_position":
            plot1(d, impl, expect)
        elif pid == "error_heatmap":
            plot2(d, last_row)
        elif pid == "ulp_histogram":
            plot3(d)
        elif pid == "rope_decay":
            plot4(d, impl, p["note"])
        elif pid == "rope_shift":
            plot6(d, expect, p["note"])
        if sched and pid in ("rope_decay", "rope_shift"):
            got = gp_var(d, pid, "sched")
            need(got == sched, "%s: drawn against %r" % (pid, got))
    return plots


def main(argv):
    if len(argv) not in (3, 4):
        raise SystemExit(__doc__)
    try:
        plots = check(argv[1], argv[2], argv[3] if len(argv) == 4 else None)
    except Fail as e:
        print("DISAGREES: %s" % e)
        return 1
    print("plots: %s" % " ".join("%s%s" % (k, "" if v["drawn"] else "(left out)")
                                 for k, v in plots.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
