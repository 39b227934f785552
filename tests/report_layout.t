#!/usr/bin/python3
"""report_layout.t: the report's plots laid out for a reader.

One report of every built-in; then, on what gnuplot drew:
  - every PNG has a background frame: nothing (a title, a legend, a label)
    runs off the image's edge, as the attention plot's title once did;
  - the same scripts redrawn as SVG (the terminal line swapped, nothing
    else) give the geometry: the attention title on two lines above the
    plot; T5's legends and the ALiBi slope panel's legend below their panels'
    x label; no curve or marker crossing any legend entry's text; legend
    text at 9 points or more; and curves that coincide point for point
    drawn so the earlier one stays visible (wider, bigger marker, another
    marker shape, or the later one dashed differently).
Each check is also run on a deliberately broken script (the layout these
plots once had) and must fail there.  Skipped where gnuplot is missing.
"""
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from pctest import ok, run, done  # noqa: E402

if not shutil.which("gnuplot"):
    print("1..0 # SKIP gnuplot not installed: the report has no plots")
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix="pecheck-layout-")
out = os.path.join(tmp, "report")


# ------------------------------------------------------------------ PNG
def read_png(path):
    """(width, height, bytes per pixel, rows) of an 8-bit RGB(A) PNG."""
    data = open(path, "rb").read()
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", data[pos + 8:pos + 8 + n])
        elif kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG kind not read here: depth %d, colour type %d" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride) if f else ():
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                pred = a
            elif f == 2:
                pred = b
            elif f == 3:
                pred = (a + b) // 2
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + pred) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


FRAME = 3  # pixels along each edge that must stay background


def edge_ink(path):
    """Pixels of the FRAME-wide border that differ from the corner's colour."""
    w, h, bpp, rows = read_png(path)
    bg = bytes(rows[0][:bpp])
    bad = 0
    for y in range(h):
        xs = range(w) if y < FRAME or y >= h - FRAME else list(range(FRAME)) + list(range(w - FRAME, w))
        bad += sum(1 for x in xs if bytes(rows[y][x * bpp:(x + 1) * bpp]) != bg)
    return bad


# ------------------------------------------------------------------ SVG
def redraw_svg(folder, pid, script=None):
    """PID.gp of FOLDER (or SCRIPT's body after its parameters) drawn as SVG."""
    gp = open(os.path.join(folder, pid + ".gp")).read()
    if script is not None:
        head = gp[:gp.index("# ----\n", gp.index("parameters of this run")) + 7]
        gp = head + script
    gp = re.sub(r"(?m)^set terminal pngcairo size (\d+),(\d+).*$",
                r"set terminal svg size \1,\2 font 'DejaVu Sans,10' enhanced", gp)
    gp = gp.replace(pid + ".png'", pid + ".svg'")
    open(os.path.join(folder, pid + "_svg.gp"), "w").write(gp)
    p = subprocess.run(["gnuplot", pid + "_svg.gp"], cwd=folder, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    svg = os.path.join(folder, pid + ".svg")
    return open(svg).read() if p.returncode == 0 and os.path.exists(svg) else ""


TEXT = re.compile(r'<g transform="translate\(([-\d.]+),([-\d.]+)\)( rotate\([-\d.]+\))?"[^>]*?'
                  r'font-size="([\d.]+)"[^>]*?text-anchor="(\w+)">\s*<text[^>]*>(.*?)</text>', re.S)
PATH = re.compile(r"<path stroke='[^']*'\s+(?:stroke-dasharray='([^']*)'\s+)?d='([^']*)'")
USE = re.compile(r"<use xlink:href='#gpPt(\d+)' transform='translate\(([-\d.]+),([-\d.]+)\) scale\(([\d.]+)\)'")
GROUP = re.compile(r'<g id="gnuplot_plot_(\d+)([a-z]?)" ><title>(.*?)</title>')
WIDTH = re.compile(r'stroke-width="([\d.]+)"')


def texts(svg):
    """(x, y, rotated, size, anchor, text) of every text, tags stripped."""
    return [(float(x), float(y), bool(r), float(f), a, re.sub(r"<[^>]*>", "", s))
            for x, y, r, f, a, s in TEXT.findall(svg)]


def subpaths(d):
    out = []
    for part in re.split(r"(?=M)", d):
        pts = [(float(a), float(b)) for a, b in re.findall(r"([-\d.]+),([-\d.]+)", part)]
        if pts:
            out.append(pts)
    return out


def curves(svg):
    """Each plotted curve: panel, title, key text (x, y, size) and its data
    drawing (lines, markers, line width, dash, marker type and scale), the
    key's own sample left out."""
    marks = [(m.start(), m.group(2), m.group(3)) for m in GROUP.finditer(svg)]
    res = []
    for start, panel, title in marks:
        depth, end = 0, len(svg)  # the group ends where its <g> closes
        for t in re.finditer(r"<g\b|</g>", svg[start:]):
            depth += 1 if t.group(0) == "<g" else -1
            if depth == 0:
                end = start + t.end()
                break
        body = svg[start:end]
        key = [(x, y, f) for x, y, _, f, a, s in texts(body) if s == title]
        kx, ky, kf = key[0] if key else (None, None, 10.0)

        def sample(pts):
            return kx is not None and all(kx < px < kx + 80 and abs(py - ky) < kf for px, py in pts)
        lines, dash = [], ""
        for dash_m, d in PATH.findall(body):
            for sp in subpaths(d):
                if not sample(sp):
                    lines.append(sp)
                    dash = dash or dash_m
        markers = [(int(t), float(x), float(y), float(s)) for t, x, y, s in USE.findall(body)
                   if not sample([(float(x), float(y))])]
        widths = [float(w) for w in WIDTH.findall(body)]
        res.append({"panel": panel, "title": title, "key": key[0] if key else None,
                    "lines": lines, "markers": markers, "lw": max(widths) if widths else 1.0,
                    "dash": dash, "pt": markers[0][0] if markers else None,
                    "ps": markers[0][3] if markers else 0.0})
    return res


# DejaVu Sans: no character is wider than 0.7 em on average over a word
EM_WIDTH = 0.7


def text_box(x, y, size, anchor, s):
    w = EM_WIDTH * size * len(s)
    x0 = x - w if anchor == "end" else x - w / 2 if anchor == "middle" else x
    return (x0, y - size, x0 + w, y + 0.3 * size)


def seg_hits_box(p, q, box):
    """Whether segment PQ meets the rectangle BOX (Liang-Barsky)."""
    x0, y0, x1, y1 = box
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for pk, qk in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if pk == 0:
            if qk < 0:
                return False
        else:
            t = qk / pk
            if pk < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return False
    return True


def legend_crossings(svg):
    """(entry, curve) pairs where a curve's data runs through a legend entry's text."""
    cs = curves(svg)
    hits = []
    for c in cs:
        if not c["key"]:
            continue
        kx, ky, kf = c["key"]
        box = text_box(kx, ky, kf, "end", c["title"])
        for o in cs:
            crossed = any(seg_hits_box(sp[i], sp[i + 1], box) for sp in o["lines"] for i in range(len(sp) - 1)) \
                or any(seg_hits_box((x, y), (x, y), (box[0] - s, box[1] - s, box[2] + s, box[3] + s))
                       for _, x, y, s in o["markers"])
            if crossed:
                hits.append((c["title"], o["title"]))
    return hits


def hidden_curves(svg):
    """Curves that coincide point for point with a later one that covers them."""
    cs = [c for c in curves(svg) if c["lines"] or c["markers"]]

    def shape(c):
        return (tuple(tuple((round(x, 1), round(y, 1)) for x, y in sp) for sp in c["lines"]),
                tuple((round(x, 1), round(y, 1)) for _, x, y, _ in c["markers"]))

    def filled(pt):  # gnuplot's pt 5, 7, 9, ...: gpPt4, gpPt6, ...
        return pt is not None and pt >= 4 and pt % 2 == 0

    def visible(a, b):
        """A drawn first stays visible under B."""
        line = a["lines"] and (a["lw"] > b["lw"] or not b["lines"] or (b["dash"] and b["dash"] != a["dash"]))
        mark = a["markers"] and (not b["markers"] or (
            not (filled(b["pt"]) and b["ps"] >= 0.8 * a["ps"])
            and (a["pt"] != b["pt"] or a["ps"] > 1.1 * b["ps"])))
        return bool(line or mark)
    bad = []
    for i, a in enumerate(cs):
        for b in cs[i + 1:]:
            if a["panel"] == b["panel"] and shape(a) == shape(b) and not visible(a, b):
                bad.append((a["panel"], a["title"], b["title"]))
    return bad


def legends_below(svg, xlabel, panel):
    """Legend entries of PANEL not below the x label XLABEL, half a line clear
    of it (baselines 1.5 lines apart; SVG y grows down)."""
    ys = [y for x, y, r, f, a, s in texts(svg) if s == xlabel]
    if not ys:
        return ["no x label %r" % xlabel]
    return [c["title"] for c in curves(svg) if c["panel"] == panel and c["key"]
            and not c["key"][1] >= max(ys) + 1.5 * c["key"][2]]


def small_legend(svg):
    return [(c["title"], c["key"][2]) for c in curves(svg) if c["key"] and c["key"][2] < 9]


def title_lines(svg):
    """Texts above every tic label of the y axis: the title's lines."""
    ts = texts(svg)
    tics = [y for x, y, r, f, a, s in ts if a == "end" and re.match(r"^-?[\d.]+", s)]
    return [s for x, y, r, f, a, s in ts if tics and y < min(tics) - 8 and not r]


# ------------------------------------------------------------------ the report
rc, so, se, secs = run(["report", "--impl", "all", "--out", out, "--quiet"], timeout=300)
ok(rc == 0, "report --impl all written (%.1f s)" % secs, se)
pngs = sorted(f[:-4] for f in os.listdir(out) if f.endswith(".png"))
ok(len(pngs) >= 10, "%d plots drawn" % len(pngs), pngs)

inked = [(p, n) for p in pngs for n in [edge_ink(os.path.join(out, p + ".png"))] if n]
ok(not inked, "no plot runs off its image: a %d-pixel background frame on every PNG" % FRAME, inked)

svgdir = os.path.join(tmp, "svg")
shutil.copytree(out, svgdir)
svg = {p: redraw_svg(svgdir, p) for p in pngs}
ok(all(svg.values()), "the plots redraw as SVG", [p for p, s in svg.items() if not s])

lines = title_lines(svg["attention_equivariance"])
ok(len(lines) == 2 and lines[0].startswith("Attention"),
   "attention plot: its title on two lines above the plot", lines)
bad = legends_below(svg["t5_buckets"], "relative position j - i (key minus query)", "a") + \
    legends_below(svg["t5_buckets"], "relative position j - i (key minus query)", "b")
ok(not bad, "T5: both panels' legends below their x label, clear of it, off the staircases", bad)
bad = legends_below(svg["alibi_bias"], "head h", "b")
ok(not bad, "ALiBi: the slope panel's legend below its x label", bad)
bad = [(p, h) for p, s in svg.items() for h in legend_crossings(s)]
ok(not bad, "no curve or marker runs through a legend entry's text (%s)" % ", ".join(svg), bad)
bad = [(p, h) for p, s in svg.items() for h in small_legend(s)]
ok(not bad, "legend text at 9 points or more", bad)
bad = [(p, h) for p, s in svg.items() for h in hidden_curves(s)]
ok(not bad, "curves that coincide stay visible: the later one narrower, smaller, "
   "of another shape or dash", bad)

# ------------------------------------------------------------------ the checks can fail
broken = os.path.join(tmp, "broken")
shutil.copytree(out, broken)
gp = open(os.path.join(broken, "attention_equivariance.gp")).read()
gp = re.sub(r'set title sprintf\("(\{/:Bold [^}]*\})\\n', r'set title sprintf("\1  ', gp)
gp = gp.replace("1000,600", "560,600")
open(os.path.join(broken, "attention_equivariance.gp"), "w").write(gp)
subprocess.run(["gnuplot", "attention_equivariance.gp"], cwd=broken, stdout=subprocess.PIPE,
               stderr=subprocess.PIPE, timeout=120)
ok(edge_ink(os.path.join(broken, "attention_equivariance.png")) > 0,
   "a one-line attention title on a narrower image runs off it, and the frame check sees it")
ok(len(title_lines(redraw_svg(broken, "attention_equivariance"))) == 1,
   "... and the title check counts one line")

t5 = open(os.path.join(out, "t5_buckets.gp")).read()
t5 = t5.replace("set key below center horizontal noenhanced maxrows 3 height 1.5", "set key top left")
t5 = re.sub(r"lw width\(c\) dt dash\(c\)", "lw 1 dt 2", t5)
open(os.path.join(broken, "t5_buckets.gp"), "w").write(t5)
s = redraw_svg(broken, "t5_buckets")
ok(legends_below(s, "relative position j - i (key minus query)", "a") and legend_crossings(s),
   "T5 with its legend inside the panels: the legend checks fail", legend_crossings(s)[:3])
ok(hidden_curves(s), "T5 with every implementation dashed alike: coinciding staircases are hidden")

dec = open(os.path.join(out, "rope_decay.gp")).read().replace(
    "with linespoints lw width(c - 4) pt (c - 3) pi 12 ps 0.9", "with lines lw 1.3")
open(os.path.join(broken, "rope_decay.gp"), "w").write(dec)
ok(hidden_curves(redraw_svg(broken, "rope_decay")),
   "RoPE decay with every implementation at one width: rope-polar hidden under rope-half")

al = open(os.path.join(out, "alibi_bias.gp")).read()
al = al.replace("set key below center horizontal noenhanced font ',10' maxcols 3",
                "set key top right noenhanced font ',9'")
al = al.replace("font ',9' maxrows 6", "font ',8' maxrows 6")
al = al.replace("($1 + off(c))", "1")
open(os.path.join(broken, "alibi_bias.gp"), "w").write(al)
s = redraw_svg(broken, "alibi_bias")
ok(legends_below(s, "head h", "b") and legend_crossings(s) and small_legend(s),
   "ALiBi with its old legend (inside, top right; 8 points): the legend checks fail",
   legend_crossings(s)[:3])

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())
