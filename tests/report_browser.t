#!/usr/bin/python3
"""report_browser.t: index.html of `pecheck report` in headless Chromium.

The page records, once loaded, whether each plot image decoded (a few
lines of JavaScript set data-loaded on every <img class="plot"> and counts
on #pc-images).  Chromium renders the page (--dump-dom after a virtual
time budget) and we read those counts: every image loaded, none broken,
as many as summary.json says were drawn (all of them).  A copy with one PNG replaced by
garbage must show one broken image, so the check can fail.  Skipped, with
the reason on the plan line, where Chromium or gnuplot is missing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from pctest import ok, run, done  # noqa: E402

# $PECHECK_CHROMIUM names the browser (a missing path shows the skip)
CANDIDATES = ([os.environ["PECHECK_CHROMIUM"]] if os.environ.get("PECHECK_CHROMIUM") else
              ["/usr/bin/chromium", shutil.which("chromium") or "", shutil.which("chromium-browser") or ""])
CHROMIUM = next((c for c in CANDIDATES if c and os.access(c, os.X_OK)), None)
if not CHROMIUM:
    print("1..0 # SKIP chromium not installed (apt-get install chromium)")
    sys.exit(0)
if not shutil.which("gnuplot"):
    print("1..0 # SKIP gnuplot not installed: the report has no images to load")
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix="pecheck-browser-")


def render(page, extra=()):
    """The DOM of PAGE after its load handlers ran, and Chromium's exit code."""
    prof = tempfile.mkdtemp(dir=tmp)
    p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", *extra,
                        "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--user-data-dir=" + prof,
                        "--virtual-time-budget=5000", "--dump-dom", "file://" + page],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def counts(dom):
    m = re.search(r'<p id="pc-images"([^>]*)>', dom)
    if not m:
        return None
    return {k: int(v) for k, v in re.findall(r'data-(\w+)="(\d+)"', m.group(1))}


out = os.path.join(tmp, "report")
rc, so, se, secs = run(["report", "--impl", "torch-exp", "--impl", "rope-half", "--impl",
                        "rope-bf16-cache", "--impl", "attention-f32", "--out", out, "--quiet"])
ok(rc == 0, "report written (%.1f s)" % secs, se)
s = json.load(open(os.path.join(out, "summary.json")))
drawn = sum(p["drawn"] for p in s["plots"])
ok(drawn == len(s["plots"]) >= 8, "summary.json: all %d plots drawn" % len(s["plots"]),
   [(p["id"], p["why_not_drawn"]) for p in s["plots"]])

rc, dom = render(os.path.join(out, "index.html"))
c = counts(dom)
ok(rc == 0 and c is not None and "total" in c,
   "Chromium renders index.html and the page's image check ran", "rc=%d %s\n%s" % (rc, c, dom[-1500:]))
c = c or {}
ok(c.get("total") == drawn == c.get("expected") and c.get("loaded") == drawn and c.get("broken") == 0,
   "all %d plot images load, none broken: %s" % (drawn, c))
ok(dom.count('data-loaded="yes"') == drawn and 'data-loaded="no"' not in dom,
   "every <img> is marked loaded")
ok("pecheck accuracy report" in dom and dom.count("<section") == len(s["plots"]) and 'class="summary"' in dom,
   "the page has its title, summary table and a section per plot")

# the check can fail: one image replaced by garbage
bad = os.path.join(tmp, "broken")
shutil.copytree(out, bad)
with open(os.path.join(bad, "rope_shift.png"), "wb") as f:
    f.write(b"this is not a PNG\n")
rc, dom = render(os.path.join(bad, "index.html"))
c = counts(dom) or {}
ok(c.get("broken") == 1 and c.get("loaded") == drawn - 1,
   "a page with one corrupt PNG shows 1 broken image: %s" % c)


# Layout as a reader sees it, in a 1280 px wide window (the width the report
# is laid out for): a script appended to a copy of the page records, once
# the page has loaded, the right edge of every table and the page's width.
# Every table fits the window (no column off-screen) and the page scrolls
# only vertically.
MEASURE = """<script>
window.addEventListener('load', function () {
  var w = window.innerWidth, worst = 0, tabs = document.querySelectorAll('table');
  for (var i = 0; i < tabs.length; i++)
    worst = Math.max(worst, Math.ceil(tabs[i].getBoundingClientRect().right));
  var m = document.createElement('p');
  m.id = 'pc-layout';
  m.setAttribute('data-window', w);
  m.setAttribute('data-tables', tabs.length);
  m.setAttribute('data-table-right', worst);
  m.setAttribute('data-page-width', document.documentElement.scrollWidth);
  document.body.appendChild(m);
});
</script>
"""


def layout(page_dir, css="", width=1280):
    """Measurements of PAGE_DIR/index.html at WIDTH px, with CSS added."""
    src = open(os.path.join(page_dir, "index.html"), encoding="utf-8").read()
    probe = os.path.join(page_dir, "layout.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(src.replace("</body>", (("<style>%s</style>" % css) if css else "") + MEASURE + "</body>"))
    rc, dom = render(probe, ["--window-size=%d,1000" % width])
    m = re.search(r'<p id="pc-layout"([^>]*)>', dom)
    return rc, ({k: int(v) for k, v in re.findall(r'data-([\w-]+)="(\d+)"', m.group(1))} if m else {})


# every built-in: every family's table, at its widest
allrep = os.path.join(tmp, "report-all")
rc, so, se, secs = run(["report", "--impl", "all", "--out", allrep, "--quiet"])
ok(rc == 0, "report of every built-in written (%.1f s)" % secs, se)
rc, lay = layout(allrep)
ok(rc == 0 and lay.get("window") == 1280 and lay.get("tables", 0) >= 1,
   "Chromium lays the page out in a 1280 px window: %s" % lay)
ok(0 < lay.get("table-right", 10 ** 6) <= 1280 and lay.get("page-width", 10 ** 6) <= 1280,
   "every table fits 1280 px and the page needs no horizontal scroll: %s" % lay)
# the check can fail: a table forced wider than the window is seen
rc, wide = layout(allrep, "table { min-width: 1600px; }")
ok(wide.get("table-right", 0) > 1280, "a table forced to 1600 px is measured past the window: %s" % wide)
# a phone, 390 px (headless Chromium lays a page out at 500 px at the
# least, the window it reports): the summary rows become cards of labelled
# cells; nothing wider than the window, the page scrolls only vertically
rc, phone = layout(allrep, width=390)
w = phone.get("window", 0)
ok(rc == 0 and 0 < w <= 500 and 0 < phone.get("table-right", 10 ** 6) <= w
   and phone.get("page-width", 10 ** 6) <= w,
   "at a phone's width every table fits the window and the page needs no horizontal scroll: %s" % phone)

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())
