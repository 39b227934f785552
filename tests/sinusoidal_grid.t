#!/usr/bin/python3
"""sinusoidal_grid.t: 2-D sinusoidal patch positions (--grid H,W,
--cls-rows N), as MAE's util/pos_embed.py get_2d_sincos_pos_embed builds
them (DiT's models.py has the same code): written below from that code,
NumPy float64, saved as float32 (the models store the table as a float32
parameter).

- MAE's table at embed_dim 768 (ViT-B), grid 14x14, with and without the
  cls row: passes with --grid 14,14 (--cls-rows 1); the worst err/bound is
  printed.  A 12x16 grid (diffusers' grid_size (H, W)) passes too.
- meshgrid(grid_h, grid_w) in place of meshgrid(grid_w, grid_h): on a
  square grid the same table (passes); on 12x16 it fails, the likely cause
  naming the transposed grid.
- [emb_w | emb_h] (halves swapped) fails naming the swapped halves.
- a cls row given grid position 0 (not zeros) fails naming it.
- each half stored [cos | sin]: fails as [sin | cos] naming --order
  cos-sin, and passes with it; each half's pairs interleaved pass with
  --layout interleaved; MAE's table checked with --base 20000 fails
  naming --base 10000.
- a 16x16 table checked as 14x14 is exit 2 naming --grid and a grid that
  fits; --cls-rows without --grid, --grid with --timesteps: exit 2.
- identify --grid finds the layout, order and denominator under which
  check passes ([cos | sin] halves: --order cos-sin, and check with its
  check_args passes); the halves swapped, which no option expresses, are
  UNKNOWN (before: exit 2, identify refused --grid).
Without NumPy: a visible skip."""
import json
import os
import shutil
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "lib"))
try:
    import numpy as np
except Exception as e:  # the reason, one line
    print("1..0 # SKIP NumPy not available: %s" % str(e).splitlines()[0])
    sys.exit(0)
from pctest import ok, run, done  # noqa: E402

tmp = tempfile.mkdtemp(prefix="pecheck-grid.")


# ---- MAE util/pos_embed.py, as written there (the variants as flags) ----

def get_1d_sincos_pos_embed_from_grid(embed_dim, pos, cos_first=False):
    assert embed_dim % 2 == 0
    omega = np.arange(embed_dim // 2, dtype=np.float64)
    omega /= embed_dim / 2.
    omega = 1. / 10000**omega  # (D/2,)
    pos = pos.reshape(-1)  # (M,)
    out = np.einsum('m,d->md', pos, omega)  # (M, D/2), outer product
    emb_sin = np.sin(out)  # (M, D/2)
    emb_cos = np.cos(out)  # (M, D/2)
    halves = [emb_cos, emb_sin] if cos_first else [emb_sin, emb_cos]
    return np.concatenate(halves, axis=1)  # (M, D)


def get_2d_sincos_pos_embed_from_grid(embed_dim, grid, swap=False, cos_first=False):
    assert embed_dim % 2 == 0
    # use half of dimensions to encode grid_h
    emb_h = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[0], cos_first)  # (H*W, D/2)
    emb_w = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[1], cos_first)  # (H*W, D/2)
    emb = np.concatenate([emb_w, emb_h] if swap else [emb_h, emb_w], axis=1)  # (H*W, D)
    return emb


def get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False, transposed=False,
                            swap=False, cls_pos0=False, cos_first=False):
    """grid_size: an int (MAE) or (H, W) (diffusers)."""
    gh, gw = grid_size if isinstance(grid_size, tuple) else (grid_size, grid_size)
    grid_h = np.arange(gh, dtype=np.float32)
    grid_w = np.arange(gw, dtype=np.float32)
    if transposed:
        grid = np.meshgrid(grid_h, grid_w)
    else:
        grid = np.meshgrid(grid_w, grid_h)  # here w goes first
    grid = np.stack(grid, axis=0)
    grid = grid.reshape([2, 1, grid.shape[1], grid.shape[2]])
    pos_embed = get_2d_sincos_pos_embed_from_grid(embed_dim, grid, swap, cos_first)
    if cls_token:
        pos_embed = np.concatenate([np.zeros([1, embed_dim]), pos_embed], axis=0)
    if cls_pos0:  # the cls row given grid position (0, 0)
        row = get_2d_sincos_pos_embed_from_grid(embed_dim, np.zeros([2, 1, 1, 1]))
        pos_embed = np.concatenate([row, pos_embed], axis=0)
    return pos_embed


def save(name, t):
    p = os.path.join(tmp, name + ".npy")
    np.save(p, t.astype(np.float32))
    return p


def accuracy(args):
    """Exit code and the accuracy verdict of `pecheck check ARGS`."""
    rc, out, err, _ = run(["check", "--family", "sinusoidal", "--format", "json"] + args)
    try:
        doc = json.loads(out)
    except ValueError:
        return rc, None, out + err
    for v in doc.get("verdicts", doc.get("results", [])):
        if v.get("check") == "accuracy":
            return rc, v, out + err
    return rc, None, out + err


def summary(v):
    return (v or {}).get("summary", "")


def passes(name, path, args):
    rc, v, text = accuracy(["--table", path] + args)
    ok(rc == 0 and v and v.get("status") == "pass", name, text)
    if v:
        print("# %s: %s" % (name, summary(v)[:160]))


def fails(name, path, args, cause):
    rc, v, text = accuracy(["--table", path] + args)
    ok(rc == 1 and v and v.get("status") == "fail" and cause in summary(v),
       "%s: fails naming '%s'" % (name, cause), text)


def usage(name, args, words):
    rc, out, err, _ = run(["check", "--family", "sinusoidal"] + args)
    ok(rc == 2 and all(w in err for w in words), name + ": exit 2 naming " + ", ".join(words),
       "rc %d\n%s%s" % (rc, out, err))


mae = save("mae", get_2d_sincos_pos_embed(768, 14))
mae_cls = save("mae_cls", get_2d_sincos_pos_embed(768, 14, cls_token=True))
passes("MAE ViT-B 14x14", mae, ["--grid", "14,14"])
passes("MAE ViT-B 14x14 with the cls row", mae_cls, ["--grid", "14,14", "--cls-rows", "1"])
rect = save("rect", get_2d_sincos_pos_embed(768, (12, 16)))
passes("a 12x16 grid (H, W)", rect, ["--grid", "12,16"])

# without --grid the table is no 1-D table: it fails (what --grid adds)
rc, v, text = accuracy(["--table", mae])
ok(rc == 1, "MAE's table without --grid fails the 1-D check", text)

sq_t = save("sq_t", get_2d_sincos_pos_embed(768, 14, transposed=True))
passes("meshgrid(grid_h, grid_w) on a square grid is the same table", sq_t, ["--grid", "14,14"])
rect_t = save("rect_t", get_2d_sincos_pos_embed(768, (12, 16), transposed=True))
fails("the 12x16 grid transposed", rect_t, ["--grid", "12,16"], "the grid is transposed")
swapped = save("swapped", get_2d_sincos_pos_embed(768, 14, cls_token=True, swap=True))
fails("[emb_w | emb_h]", swapped, ["--grid", "14,14", "--cls-rows", "1"],
      "the halves are swapped")
cls0 = save("cls0", get_2d_sincos_pos_embed(768, 14, cls_pos0=True))
fails("the cls row at grid position 0", cls0, ["--grid", "14,14", "--cls-rows", "1"],
      "the cls rows hold the embedding of grid position (0, 0)")

cosf = save("cosf", get_2d_sincos_pos_embed(768, 14, cos_first=True))
fails("each half [cos | sin] checked as [sin | cos]", cosf, ["--grid", "14,14"],
      "--order cos-sin")
passes("each half [cos | sin] with --order cos-sin", cosf, ["--grid", "14,14", "--order", "cos-sin"])

inter = get_2d_sincos_pos_embed(768, 14)
for o in (0, 384):  # each half's (sin, cos) pairs interleaved
    half = inter[:, o:o + 384].copy()
    inter[:, o:o + 384:2], inter[:, o + 1:o + 384:2] = half[:, :192], half[:, 192:]
inter = save("inter", inter)
passes("each half interleaved with --layout interleaved", inter,
       ["--grid", "14,14", "--layout", "interleaved"])
fails("MAE's table checked with --base 20000", mae, ["--grid", "14,14", "--base", "20000"],
      "--base 10000")

big = save("big", get_2d_sincos_pos_embed(768, 16, cls_token=True))
usage("a 16x16 table checked as 14x14", ["--table", big, "--grid", "14,14", "--cls-rows", "1"],
      ["--grid 14,14", "257 rows", "--grid 16,16 --cls-rows 1"])
usage("--cls-rows without --grid", ["--table", mae, "--cls-rows", "1"], ["--cls-rows", "--grid"])
ts = os.path.join(tmp, "t.npy")
np.save(ts, np.arange(196, dtype=np.float64))
usage("--grid with --timesteps", ["--table", mae, "--grid", "14,14", "--timesteps", ts],
      ["--grid", "--timesteps"])
usage("--grid x,14", ["--table", mae, "--grid", "x,14"], ["--grid"])

# identify --grid: the reading check passes under (layout, order, denominator)
rc, out, err, _ = run(["identify", "--table", cosf, "--grid", "14,14", "--format", "json"])
try:
    r = json.loads(out)["results"][0]
except Exception:  # noqa: BLE001 - shown on failure
    r = {}
args = r.get("check_args", [])
ok(rc == 0 and r.get("found") and r.get("order") == "cos-sin" and r.get("grid") == [14, 14]
   and "--grid" in args, "identify --grid on [cos | sin] halves: FOUND, cos-sin, --grid 14,14",
   "rc %d\n%s%s" % (rc, out, err))
rc2, out2, err2, _ = run(["check"] + args + ["--quiet", "--regressions", "off"])
ok(rc2 == 0, "check with identify's check_args passes", out2 + err2)
rc, out, err, _ = run(["identify", "--table", swapped, "--grid", "14,14", "--cls-rows", "1"])
ok(rc == 1 and out.startswith("UNKNOWN"),
   "identify --grid on [emb_w | emb_h] (no option expresses it): UNKNOWN, exit 1",
   "rc %d\n%s%s" % (rc, out, err))

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())
