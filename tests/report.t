#!/usr/bin/python3
"""report.t: `pecheck report` (issue 5).

One report of every built-in (--impl all) is checked file by file: every
plot image is a valid, non-blank PNG (tests/lib/pngcheck.py); every data
file has the header and the row count summary.json records, with the same
number of fields on every row; the numbers say what the plots claim (the
reference dot product depends on k only while sin-only's does not, the
histogram fractions sum to 1, PE(0) = (0, 1, 0, 1, ...), attention is
equivariant without PE and not with it, ...) and agree with summary.json;
index.html references only files of the folder (no network).  The scripts
copied into the folder redraw every plot on their own.  Then: without
gnuplot (PECHECK_GNUPLOT=/nonexistent, and PATH without gnuplot) the data,
scripts and HTML are written and the missing plots are named with the
install command; bad input is exit 2 with one line and leaves nothing.
The page's images in a browser: tests/report_browser.t.
"""
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import pctest  # noqa: E402
from pctest import ok, run, done  # noqa: E402
from pngcheck import check_png  # noqa: E402

tmp = tempfile.mkdtemp(prefix="pecheck-report-")
PLOTS = ["error_vs_position", "error_heatmap", "ulp_histogram", "rope_decay", "dot_product",
         "rope_shift", "pe_matrix", "attention_equivariance", "t5_buckets", "alibi_bias"]
NP = len(PLOTS)
GNUPLOT = shutil.which("gnuplot")


def skip(name, why):
    pctest._n += 1
    print("ok %d - %s # SKIP %s" % (pctest._n, name, why))


def read_table(path):
    """Header names and rows (lists of strings) of a data file."""
    with open(path) as f:
        lines = [ln.split() for ln in f.read().splitlines() if ln.strip()]
    return lines[0], lines[1:]


def col(path, name):
    head, rows = read_table(path)
    k = head.index(name)
    return [float(r[k]) for r in rows]


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.links, self.captions, self.sections = [], [], 0, []
        self._in_caption = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if tag == "section":
            self.sections.append(a.get("id"))
        if tag == "p" and a.get("class") == "caption":
            self.captions += 1
        for k in ("src", "href"):
            if k in a and tag in ("script", "link", "iframe"):
                self.links.append(a[k])


def parse_page(path):
    p = Page()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return p


def check_data_files(d, s, label):
    """Every data file named in summary.json: header + the recorded rows."""
    bad = []
    for p in s["plots"]:
        for df in p["data"]:
            path = os.path.join(d, df["file"])
            if not os.path.exists(path):
                bad.append("%s missing" % df["file"])
                continue
            head, rows = read_table(path)
            if len(rows) != df["rows"]:
                bad.append("%s: %d rows, summary.json says %d" % (df["file"], len(rows), df["rows"]))
            widths = {len(r) for r in rows}
            if widths != {len(head)}:
                bad.append("%s: rows of %s fields, header has %d" % (df["file"], widths, len(head)))
            if any(h[0].isdigit() for h in head[:1]):
                bad.append("%s: the first line is not a header: %s" % (df["file"], head))
    ok(not bad, "%s: every data file has its header and the rows summary.json records" % label,
       "\n".join(bad))


# ---------------------------------------------------------------- full report
out = os.path.join(tmp, "report")
rc, so, se, secs = run(["report", "--impl", "all", "--out", out, "--quiet"], timeout=300)
ok(rc == 0 and "report written to %s/index.html" % out in so,
   "report --impl all: exit 0 and prints the path (%.1f s)" % secs, "rc=%d\n%s\n%s" % (rc, so, se))
s = json.load(open(os.path.join(out, "summary.json")))
ok([p["id"] for p in s["plots"]] == PLOTS and all(p["data"] for p in s["plots"]),
   "summary.json lists the %d plots, each with data files" % NP, [p["id"] for p in s["plots"]])
ok(not glob.glob(out + ".tmp.*") and not glob.glob(out + ".old.*"), "no temporary folder is left")

if GNUPLOT:
    bad = []
    for p in s["plots"]:
        png = os.path.join(out, p["id"] + ".png")
        good, why, _ = check_png(png)
        if not (p["drawn"] and p["image"] == p["id"] + ".png" and good):
            bad.append("%s: drawn=%s %s" % (p["id"], p["drawn"], why))
    ok(not bad, "every plot is drawn: a valid, non-blank PNG (signature, IHDR, CRCs, IDAT size)",
       "\n".join(bad) + "\n" + open(os.path.join(out, "gnuplot.log")).read()[-2000:])
    ok(s["gnuplot"]["found"] and s["gnuplot"]["version"].startswith("gnuplot"),
       "summary.json records the gnuplot that drew them", s["gnuplot"])
else:
    skip("every plot is drawn: a valid, non-blank PNG", "gnuplot not installed")
    skip("summary.json records the gnuplot that drew them", "gnuplot not installed")

check_data_files(out, s, "--impl all")
missing = [p["id"] + ".gp" for p in s["plots"] if not os.path.exists(os.path.join(out, p["id"] + ".gp"))]
ok(not missing, "the gnuplot script of every plot is in the folder", missing)

# the numbers behind the plots
impls = {i["name"]: i for i in s["implementations"]}
scanned = [i["name"] for i in s["implementations"] if "scan" in i]
head, rows = read_table(os.path.join(out, "error_vs_position.dat"))
ok(head == ["pos_lo", "pos_hi", "bound"] + scanned,
   "error_vs_position.dat: one column per sinusoidal/RoPE implementation", head)
lo = [int(r[0]) for r in rows]
hi = [int(r[1]) for r in rows]
ok(lo[0] == 1 and hi[-1] == s["parameters"]["scan_max"] and
   all(hi[k] + 1 == lo[k + 1] for k in range(len(lo) - 1)) and all(a <= b for a, b in zip(lo, hi)),
   "position bins tile 1..scan_max (%d bins)" % len(rows))
bad = []
for name in scanned:
    m = max(v for v in col(os.path.join(out, "error_vs_position.dat"), name) if not math.isnan(v))
    r = max(v for v in col(os.path.join(out, "error_ratio.dat"), name) if not math.isnan(v))
    sc = impls[name]["scan"]
    if abs(m - sc["max_abs"]) > 1e-6 * sc["max_abs"] or abs(r - sc["max_err_over_bound"]) > 1e-6 * r:
        bad.append("%s: data max %g / %g, summary %s" % (name, m, r, sc))
    if (r > 1) != (sc["first_over"] is not None):
        bad.append("%s: ratio %g but first_over %s" % (name, r, sc["first_over"]))
ok(not bad, "plot 1's data agrees with summary.json (max error, max error/bound, first over)", "\n".join(bad))
bad = [n for n in ("bf16-positions", "sin-only", "cos-shifted", "plus-1e-4", "rope-bf16-cache")
       if impls[n]["scan"]["first_over"] is None]
bad += [n for n in ("double-angle", "torch-exp", "rope-polar") if impls[n]["scan"]["first_over"] is not None]
ok(not bad, "plot 1: the known-bad built-ins leave the bound, the correct ones stay under it", bad)

head, rows = read_table(os.path.join(out, "ulp_histogram.dat"))
sums = {h: sum(float(r[k]) for r in rows) for k, h in enumerate(head) if k >= 2}
ok(head[2:] == scanned and all(abs(v - 1) < 1e-9 for v in sums.values()) and len(rows) == 43,
   "ulp_histogram.dat: 43 buckets, each implementation's fractions sum to 1", sums)
cr = {h: float(rows[0][k]) for k, h in enumerate(head) if k >= 2}
ok(cr["double-angle"] > 0.99 and cr["sin-only"] < 0.5,
   "plot 3: double-angle is correctly rounded (CR bucket %.4f), sin-only is not (%.4f)"
   % (cr["double-angle"], cr["sin-only"]))

for which in ("heatmap_worst.dat", "heatmap_good.dat"):
    head, rows = read_table(os.path.join(out, which))
    ok(len(rows) == len(lo) * s["parameters"]["d"] // 2 and
       {int(r[0]) for r in rows} == set(range(s["parameters"]["d"] // 2)),
       "%s: one cell per (bin, pair): %d rows" % (which, len(rows)))

dp = os.path.join(out, "dot_product.dat")
head, rows = read_table(dp)
d = s["parameters"]["d"]


def spread(kind):
    cols = [k for k, h in enumerate(head) if h.startswith(kind + "_p")]
    return max(max(float(r[c]) for c in cols) - min(float(r[c]) for c in cols) for r in rows)


k0 = [r for r in rows if r[0] == "0"][0]
ok(len(rows) == 513 and spread("reference") < 1e-9 * d and abs(float(k0[1]) - d / 2) < 1e-9 * d,
   "plot 5: the reference PE(p).PE(p+k) is the same for every anchor p (spread %.2g) and d/2 at k=0"
   % spread("reference"))
ok(spread("sin_only") > 1 and spread("mismatched") > 1,
   "plot 5: sin-only and mismatched frequencies depend on p (spreads %.3g, %.3g)"
   % (spread("sin_only"), spread("mismatched")))

head, rows = read_table(os.path.join(out, "pe_matrix.dat"))
vals = [(int(r[0]), int(r[1]), float(r[2])) for r in rows]
ok(len(vals) == 51 * 512 and all(-1 <= v <= 1 for _, _, v in vals) and
   all(v == (j >= 256) for p, j, v in vals if p == 0),
   "plot 7: PE matrix 51 x 512 in [-1, 1], half layout: PE(0) = (0, ..., 0, 1, ..., 1)")
wl = col(os.path.join(out, "wavelength.dat"), "wavelength")
base = s["parameters"]["base"]
ok(abs(wl[0] - 2 * math.pi) < 1e-12 and all(wl[k] <= wl[k + 1] for k in range(len(wl) - 1)) and
   abs(wl[-1] / (2 * math.pi * base ** (510 / 512)) - 1) < 1e-12,
   "plot 7: wavelengths rise from 2*pi to 2*pi*base^(510/512) = %.6g" % wl[-1])

head, rows = read_table(os.path.join(out, "rope_decay.dat"))
start = rows[0]
ok(all(0 < float(start[c]) < (dd / 2 + 1) / 2 + 1e-9 for c, dd in zip(range(1, 7), [64, 128, 256] * 2)) and
   all(sum(float(r[c]) for r in rows[-50:]) / 50 < float(start[c]) / 2 for c in range(1, 7)),
   "plot 4: the RoFormer bound starts under (d/2+1)/2 and decays to under half of it")
head, rows = read_table(os.path.join(out, "rope_decay_impl.dat"))
dev = {h: max(abs(float(r[k]) - float(r[1])) for r in rows if int(r[0]) <= 256)
       for k, h in enumerate(head) if k >= 2}
ok(dev["rope-bf16-cache"] > 10 * dev["rope-polar"],
   "plot 4: for r <= 256 the bfloat16 cache deviates from the exact decay more than float32 "
   "(%.3g vs %.3g)"
   % (dev["rope-bf16-cache"], dev["rope-polar"]))
kb = head.index("bound")
over = {h: sum(abs(float(r[k]) - float(r[1])) > float(r[kb]) for r in rows)
        for k, h in enumerate(head) if k > kb}
ok(head[:3] == ["r", "reference", "bound"] and over["rope-bf16-cache"] > 0
   and over["rope-polar"] == 0 and over["rope-half"] == 0,
   "plot 4: the decay property's bound is a column (drawn as a line): float32 RoPE stays under "
   "it at every r, the bfloat16 cache leaves it", over)

head, rows = read_table(os.path.join(out, "rope_shift.dat"))
small = [r for r in rows if int(r[0]) <= 16]
kb, kf = head.index("rope-bf16-cache"), head.index("rope-half")
ok(all(float(r[kb]) > 100 * float(r[kf]) for r in small),
   "plot 6: at offsets <= 16 the bfloat16 cache's score error is 100x float32's")

head, rows = read_table(os.path.join(out, "t5_buckets.dat"))
t5 = [n for n in impls if impls[n]["family"] == "t5"]
bi = {int(r[0]): int(r[1]) for r in rows}
ca = {int(r[0]): int(r[2]) for r in rows}
ok(len(rows) == 401 and head[:3] == ["j-i", "exact_bidirectional", "exact_causal"] and
   len(head) == 3 + 2 * len(t5) and bi[0] == 0 and all(bi[k] == 16 + k and bi[-k] == k
                                                      for k in range(1, 8)) and
   all(ca[k] == 0 for k in range(0, 201)) and bi[200] == bi[128] == 31 and bi[-200] == 15,
   "plot 9: exact T5 buckets (|j-i| < 8 exact, 128 and past saturate, causal future = 0), "
   "two columns per T5 implementation (%d)" % len(t5), head)
head, rows = read_table(os.path.join(out, "alibi_bias.dat"))
ok(len(rows) == 65 and len(head) == 1 + 8 + 12 and float(rows[64][1]) == -32.0 and
   float(rows[64][8]) == -64 / 256 and float(rows[64][9 + 8]) == -64 * 2 ** -0.5,
   "plot 10: ALiBi biases -m|j-i| for H = 8 and 12 (slope 1/2 ... 1/256, then 2^-0.5)",
   head + rows[64])

head, rows = read_table(os.path.join(out, "attention_equivariance.dat"))
ok(all(float(r[1]) < 1e-4 and float(r[2]) > 1e-2 for r in rows),
   "plot 8: attention is equivariant without PE (< 1e-4) and not with PE (> 1e-2)",
   "\n".join(" ".join(r) for r in rows))

# the page
page = parse_page(os.path.join(out, "index.html"))
drawn = [p["id"] + ".png" for p in s["plots"] if p["drawn"]]
ok(sorted(page.imgs) == sorted(drawn) and all(os.path.exists(os.path.join(out, i)) for i in page.imgs),
   "index.html shows every drawn plot, by a relative name of a file in the folder", page.imgs)
ext = [u for u in page.imgs + page.links if "://" in u or u.startswith("//") or u.startswith("/")]
dangling = [u for u in page.links if "://" not in u and not u.startswith("#")
            and not os.path.exists(os.path.join(out, u))]
ok(not ext and not dangling, "index.html is self-contained: no network, no dangling link",
   ext + dangling)
ok(page.sections == PLOTS and page.captions == NP, "index.html: %d plot sections, each with a caption" % NP,
   "%s %d" % (page.sections, page.captions))
html = open(os.path.join(out, "index.html")).read()
ok(all(n in html for n in impls) and "seed" in html and "C = 2&nbsp;ln(base) + 4" in html,
   "index.html: summary table of every implementation, the seed and the precision model")

# the summary: one table per family, an overall verdict per implementation,
# failures first; summary.json records the same verdict
tables = re.findall(r'<table class="summary" data-family="([^"]*)">(.*?)</table>', html, re.S)
fams = [f for f, _ in tables]
ok(len(fams) == len(set(fams)) and set(fams) == set(i["family"] for i in s["implementations"]),
   "index.html: one summary table per family", fams)
bad = []
for fam, body in tables:
    verdicts = re.findall(r'data-verdict="([a-z]+)"', body)
    if verdicts != sorted(verdicts, key=lambda v: 0 if v in ("fail", "error") else 1):
        bad.append("%s: failures not first: %s" % (fam, verdicts))
for i in s["implementations"]:
    st = [i["accuracy"]["status"]] if "accuracy" in i else []
    st += [p["status"] for p in i["properties"]]
    want = "fail" if "fail" in st else "pass" if "pass" in st else "skip"
    if "error" in st or i.get("property_error"): want = "error"
    if i.get("verdict") != want:
        bad.append("%s: verdict %s, its checks say %s" % (i["name"], i.get("verdict"), want))
ok(not bad, "every implementation's overall verdict is FAIL when a check fails, failures first", "\n".join(bad))
ok(not re.findall(r"&amp;[a-z]+;", html), "index.html: no entity shown literally (&amp;times; ...)",
   re.findall(r".{30}&amp;[a-z]+;.{10}", html)[:5])
ok(impls["bf16-positions"]["verdict"] == "fail" and impls["torch-exp"]["verdict"] == "pass",
   "overall verdicts: bf16-positions fails, torch-exp passes")
# the first plot a reader sees shows the verdict: its first panel is
# error/bound (error_ratio.dat), where a failing implementation is above 1
gp = open(os.path.join(out, "error_vs_position.gp")).read()
plots = gp.replace("\\\n", " ").split("\nplot ")[1:]  # plot commands, continuations joined
ok(plots and "error_ratio.dat" in plots[0] and "error = bound" in plots[0],
   "plot 1: the upper panel is error/bound with the line at 1", plots[:1])
head, rows = read_table(os.path.join(out, "error_ratio.dat"))
worst = {h: max(float(r[k]) for r in rows) for k, h in enumerate(head) if k >= 2}
ok(all(worst[n] > 1 for n in ("bf16-positions", "rotate-recurrence", "rope-bf16-cache"))
   and all(worst[n] < 1 for n in ("torch-exp", "torch-pow", "rope-half")),
   "plot 1: every failing built-in rises above 1 in the upper panel, the correct ones stay below",
   worst)
# ALiBi: each selected implementation's slopes are drawn against the exact ones
head, rows = read_table(os.path.join(out, "alibi_slopes.dat"))
cols = {h: [float(r[k]) for r in rows] for k, h in enumerate(head)}
ok(len(rows) == 12 and "alibi-paper" in cols and "alibi-pow2" in cols
   and all(abs(a - e) <= 1e-7 * e for a, e in zip(cols["alibi-paper"], cols["exact"]))
   and any(abs(a - e) > 0.01 * e for a, e in zip(cols["alibi-pow2"], cols["exact"])),
   "plot 10: alibi_slopes.dat draws each ALiBi implementation; alibi-pow2 is off the exact slopes")
nc = impls["attention-nocausal"]
ok(nc["verdict"] == "fail" and any(p["check"] == "accuracy-causal" and p["status"] == "fail"
                                   for p in nc["properties"]),
   "the report runs the attention gate as check does: attention-nocausal fails its causal accuracy",
   nc["properties"])

# the copied scripts redraw the plots on their own
if GNUPLOT:
    redo = os.path.join(tmp, "redraw")
    shutil.copytree(out, redo)
    for f in glob.glob(os.path.join(redo, "*.png")):
        os.unlink(f)
    bad = []
    for p in PLOTS:
        r = subprocess.run(["gnuplot", p + ".gp"], cwd=redo, stderr=subprocess.PIPE, timeout=60)
        good, why, _ = check_png(os.path.join(redo, p + ".png"))
        if r.returncode != 0 or not good:
            bad.append("%s.gp: rc=%d %s %s" % (p, r.returncode, why, r.stderr.decode()[-500:]))
    ok(not bad, "`gnuplot NAME.gp` in the report folder redraws every plot", "\n".join(bad))
else:
    skip("`gnuplot NAME.gp` in the report folder redraws every plot", "gnuplot not installed")

# ---------------------------------------------------------------- no gnuplot
few = ["--impl", "torch-exp", "--impl", "rope-bf16-cache", "--impl", "attention-f32", "--quiet"]
# the plots of these families only (no T5 or ALiBi section in a report without them)
FEW = [x for x in PLOTS if x not in ("t5_buckets", "alibi_bias")]
for label, env in (("PECHECK_GNUPLOT=/nonexistent", {"PECHECK_GNUPLOT": "/nonexistent"}),
                   ("PATH without gnuplot", {"PATH": "/nonexistent-bin"})):
    nog = os.path.join(tmp, "nognuplot-" + label.split("=")[0].split()[0])
    e = dict(os.environ)
    e.pop("PECHECK_GNUPLOT", None)
    e.update(env)
    p = subprocess.run([pctest.PECHECK, "report", "--out", nog] + few, env=e,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    err = p.stderr.decode()
    ok(p.returncode == 0 and "%d plots not drawn" % len(FEW) in err and "apt-get install gnuplot-nox" in err
       and all(x + ".png" in err for x in FEW),
       "%s: exit 0; stderr names the %d plots not drawn and how to install gnuplot" % (label, len(FEW)),
       "rc=%d\n%s" % (p.returncode, err))
    if not os.path.exists(os.path.join(nog, "summary.json")):
        ok(False, "%s: summary.json written" % label)
        continue
    s2 = json.load(open(os.path.join(nog, "summary.json")))
    ok([x["id"] for x in s2["plots"]] == FEW and parse_page(os.path.join(nog, "index.html")).sections == FEW,
       "%s: only the selected families' plots are listed and shown (no T5, no ALiBi)" % label,
       [x["id"] for x in s2["plots"]])
    ok(not glob.glob(os.path.join(nog, "*.png")) and not any(x["drawn"] for x in s2["plots"])
       and s2["gnuplot"]["found"] is False,
       "%s: no image, every plot marked not drawn in summary.json" % label)
    check_data_files(nog, s2, label)
    h2 = open(os.path.join(nog, "index.html")).read()
    ok(h2.count("Plot not drawn") == len(FEW) and "apt-get install gnuplot-nox" in h2
       and not parse_page(os.path.join(nog, "index.html")).imgs
       and all(os.path.exists(os.path.join(nog, x + ".gp")) for x in FEW),
       "%s: index.html says which plots were not drawn and how to install gnuplot; scripts kept" % label)

# ---------------------------------------------------------------- bad input


def expect_usage(word, args, label):
    rc, so, se, _ = run(args)
    lines = se.strip().splitlines()
    return ok(rc == 2 and len(lines) == 1 and word in se and not so,
              "%s: exit 2, one line naming '%s'" % (label, word), "rc=%d\n%s%s" % (rc, so, se))


expect_usage("--out", ["report", "--impl", "torch-exp"], "no --out")
target = os.path.join(tmp, "bad-impl")
expect_usage("unknown implementation", ["report", "--impl", "nope", "--out", target], "unknown --impl")
ok(not os.path.exists(target) and not glob.glob(target + ".tmp.*"), "unknown --impl: nothing written")
mine = os.path.join(tmp, "not-a-report")
os.mkdir(mine)
open(os.path.join(mine, "precious.txt"), "w").write("keep me\n")
expect_usage("refusing", ["report", "--impl", "torch-exp", "--out", mine], "a folder that is not a report")
ok(sorted(os.listdir(mine)) == ["precious.txt"] and not glob.glob(mine + ".tmp.*"),
   "a folder that is not a report is left untouched")
expect_usage("not a folder", ["report", "--impl", "torch-exp", "--out", os.path.join(mine, "precious.txt")],
             "--out naming a file")
expect_usage("cannot create", ["report", "--impl", "torch-exp", "--out", "/nonexistent/dir/r"],
             "--out in a missing folder")
expect_usage("--d", ["report", "--impl", "torch-exp", "--out", target, "--d", "7"], "--d 7")

# a second run replaces a previous report
again = os.path.join(tmp, "nognuplot-PECHECK_GNUPLOT")
rc, so, se, _ = run(["report", "--impl", "torch-exp", "--out", again, "--quiet", "--d", "64"])
s3 = json.load(open(os.path.join(again, "summary.json"))) if rc == 0 else {}
ok(rc == 0 and s3.get("parameters", {}).get("d") == 64 and len(s3["implementations"]) == 1
   and not glob.glob(again + ".old.*"), "a previous report is replaced", se)

# --strict, as check takes it (before: "option --strict is not accepted"):
# each gate in its family's strict class, the verdicts check --strict's, the
# page and summary.json naming the class
strict = os.path.join(tmp, "strict")
rc, so, se, _ = run(["report", "--impl", "rope-half", "--impl", "torch-exp", "--strict", "--out",
                     strict, "--quiet", "--max-pos", "2047"])
s4 = json.load(open(os.path.join(strict, "summary.json"))) if rc == 0 else {}
got = {i["name"]: (i["accuracy"]["bound"]["class"], i["accuracy"]["status"])
       for i in s4.get("implementations", [])}
crc, cso, cse, _ = run(["check", "--impl", "rope-half", "--impl", "torch-exp", "--strict",
                        "--property", "accuracy", "--max-pos", "2047", "--format", "json",
                        "--regressions", "off"])
want = {}
for v in (json.loads(cso)["results"] if cso.strip().startswith("{") else []):
    if v["check"] == "accuracy" and v["family"] in ("rope", "sinusoidal"):
        want.setdefault(v["implementation"], v["status"])
page = open(os.path.join(strict, "index.html")).read() if rc == 0 else ""
ok(rc == 0 and got.get("rope-half", ("", ""))[0] == "hf" and got.get("torch-exp", ("", ""))[0] == "cr"
   and {k: v[1] for k, v in got.items()} == want and s4["model"]["class"] == "strict"
   and "tolerance class</th><td>strict (--strict)" in page and "strict class hf" in page
   and "strict class cr" in page,
   "report --strict: rope-half in hf, torch-exp in cr, verdicts as check --strict's %s, the page "
   "naming the class" % want, "%s\n%s\n%s" % (se, got, cse))

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())
