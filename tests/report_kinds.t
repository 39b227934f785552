#!/bin/sh
# report_kinds.t: the report's plots say what its verdicts say, for three
# kinds of table beside report_schedule.t's Llama 3.1 cache, each built by
# the model's or library's own code, one correct and one realistic mistake:
#   - Gemma 3's local (sliding_attention) layers (rope_local_base_freq
#     10000, no scaling; --layer-type sliding_attention), and the cache of
#     its global layers (base 10^6, linear x8) used for a local layer;
#   - Qwen2-VL's M-RoPE cache over (t, h, w) position ids of 10 text
#     tokens, a 16 x 16 image and 6 text tokens (--position-ids, the
#     config's mrope_section 16,24,24), and one built with 24,16,24;
#   - diffusers' get_timestep_embedding of 1024 fractional timesteps
#     (--timesteps, --preset diffusers), and one with
#     downscale_freq_shift=0 (ADM's exponent) under diffusers' preset;
#   - MAE's get_2d_sincos_pos_embed of a 12 x 16 patch grid (--grid 12,16),
#     and one built with meshgrid(grid_h, grid_w) (the grid transposed).
# tests/lib/report_agree.py reads each report: the summary's accuracy
# verdict is check's; every plot drawn has its data and agrees with it
# (plot 1's error/bound and |error| under the bound for a pass, over it
# for a fail; plot 4's deviation within the decay property's bound as that
# property says; plot 6 near roundoff for a pass, far off for a fail; the
# heatmap's cells without data are the bins past the table's rows); a plot
# left out says why; plots 4 and 6 name the schedule the verdicts used.
# Before: the correct timestep and grid tables were reported FAIL (their
# rows judged as positions 0..n-1) and their plots drew that; the correct M-RoPE cache's
# shift-invariance plot showed a 0.2 relative score error (rows taken as
# offsets); the timestep reports drew the paper's PE over positions.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp repkinds
CFG=$root/tests/data/configs
G=$CFG/google--gemma-3-4b-it.json
Q=$CFG/Qwen--Qwen2-VL-7B-Instruct.json
AGREE=$root/tests/lib/report_agree.py

# ---- the tables ----------------------------------------------------------
printf '%s local float32 2048 %s\n%s ok float32 2048 %s\n' "$G" "$tmp/gemma-ok" "$G" "$tmp/gemma-global" |
    "$PY" "$root/tests/lib/zoo_caches.py" - >"$tmp/gen.log" 2>&1 &&
    "$PY" "$root/tests/lib/axes_caches.py" mrope ok "$tmp/mrope-ok" >>"$tmp/gen.log" 2>&1 &&
    "$PY" "$root/tests/lib/axes_caches.py" mrope swap "$tmp/mrope-swap" >>"$tmp/gen.log" 2>&1 &&
    "$PY" - "$root/tests/lib" "$tmp" >>"$tmp/gen.log" 2>&1 <<'PY'
import os, sys
import numpy as np
import torch
sys.path.insert(0, sys.argv[1])
import sin_tables as S
out = sys.argv[2]
t = torch.rand(1024, generator=torch.Generator().manual_seed(7)) * 1000.0
np.save(os.path.join(out, "ts.npy"), t.numpy())
np.save(os.path.join(out, "ts-ok.npy"), S.diffusers_timestep(t, 256).numpy())
np.save(os.path.join(out, "ts-shift0.npy"), S.diffusers_timestep(t, 256, downscale_freq_shift=0).numpy())


def pe_1d(dim, pos):  # MAE's get_1d_sincos_pos_embed_from_grid (float64)
    omega = 1.0 / 10000 ** (np.arange(dim // 2, dtype=np.float64) / (dim / 2.0))
    out = np.einsum("m,d->md", pos.reshape(-1), omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def pe_2d(dim, gh, gw, transposed=False):  # MAE's get_2d_sincos_pos_embed, grid (H, W)
    h, w = np.arange(gh, dtype=np.float32), np.arange(gw, dtype=np.float32)
    grid = np.stack(np.meshgrid(h, w) if transposed else np.meshgrid(w, h), axis=0)
    return np.concatenate([pe_1d(dim // 2, grid[0]), pe_1d(dim // 2, grid[1])], axis=1)


np.save(os.path.join(out, "grid-ok.npy"), pe_2d(256, 12, 16).astype(np.float32))
np.save(os.path.join(out, "grid-transposed.npy"), pe_2d(256, 12, 16, True).astype(np.float32))
PY
ok $? "build Gemma 3 local and global caches, Qwen2-VL M-RoPE caches, diffusers timestep tables and MAE grid tables" "$tmp/gen.log"

# ---- check's verdict and the report of each ------------------------------
args() { # the selector and encoding options of table NAME
    case $1 in
        gemma-*) echo "--table $tmp/$1/cos.npy --table-sin $tmp/$1/sin.npy --hf-config $G --layer-type sliding_attention";;
        mrope-*) echo "--table $tmp/$1/cos.npy --table-sin $tmp/$1/sin.npy --position-ids $tmp/mrope-ok/pos.npy --hf-config $Q";;
        ts-*) echo "--table $tmp/$1.npy --timesteps $tmp/ts.npy --preset diffusers";;
        grid-*) echo "--table $tmp/$1.npy --grid 12,16";;
    esac
}
for t in gemma-ok gemma-global mrope-ok mrope-swap ts-ok ts-shift0 grid-ok grid-transposed; do
    # shellcheck disable=SC2046  # the options are words
    "$PECHECK" check $(args $t) --quiet >"$tmp/$t.check" 2>&1
    echo $? >"$tmp/$t.check.rc"
    # shellcheck disable=SC2046
    "$PECHECK" report $(args $t) --out "$tmp/r-$t" --quiet >"$tmp/$t.log" 2>&1
    echo $? >>"$tmp/$t.log"
done
agree() { # agree NAME EXPECT CHECK-RC [SCHED] DESCRIPTION
    t=$1 e=$2 rc=$3
    shift 3
    s=
    [ $# -gt 1 ] && { s=$1; shift; }
    { [ "$(cat "$tmp/$t.check.rc")" = "$rc" ] || { echo "check exited $(cat "$tmp/$t.check.rc"), not $rc"; false; }; } >"$tmp/$t.agree" &&
        if [ -n "$s" ]; then "$PY" "$AGREE" "$tmp/r-$t" "$e" "$s"; else "$PY" "$AGREE" "$tmp/r-$t" "$e"; fi >>"$tmp/$t.agree" 2>&1
    ok $? "$t: $1" "$tmp/$t.agree"
}
agree gemma-ok pass 0 "schedule default, base 10000" \
    "the local layers' cache passes check; plots 1, 4, 6 within their bounds, drawn against base 10000"
agree gemma-global fail 1 "schedule default, base 10000" \
    "the global layers' cache on a local layer fails; plots 1, 4, 6 cross their bounds, against base 10000"
agree mrope-ok pass 0 "the M-RoPE cache passes; plot 1 within the bound, plots 4 and 6 say why they draw no curve"
agree mrope-swap fail 1 "sections 24,16,24 fail; plot 1 crosses the bound from the image's rows"
agree ts-ok pass 0 "diffusers' timestep table passes in the report as in check; the plots over positions say why they are left out"
agree ts-shift0 fail 1 "downscale_freq_shift=0 under diffusers' preset fails; the plots over positions say why they are left out"
agree grid-ok pass 0 "MAE's 12 x 16 grid table passes in the report as in check; the plots over positions say why they are left out"
agree grid-transposed fail 1 "the transposed grid fails; the plots over positions say why they are left out"

# The M-RoPE caches' plots 1 and 2 over the table's rows: sections 24,16,24
# and 16,24,24 differ on pairs 16..23 only (axis t instead of h), and t and
# h differ from row 26 on (rows 0..9 text, (p, p, p); rows 10..25 the
# image's first patch row, (10, 10, 10 + w); rows 26.. the next ones).  So
# the swapped cache leaves the bound at row 26, not before, and the
# heatmap's cells over 1e-3 are pairs 16..23 of the bins from row 26.  The
# lower panel's bound line C u (1 + pos) is drawn at each row's largest
# position (its ids), not at the row: inverted with summary.json's C and u,
# it sits at positions 25 at most over the image's rows 27..265 (ids
# 10..25), where the row would put it up to 265.
"$PY" - "$tmp/r-mrope-swap" "$tmp/r-mrope-ok" >"$tmp/mrope.chk" 2>&1 <<'PY'
import json, os, sys
swap, good = sys.argv[1], sys.argv[2]
first = json.load(open(os.path.join(swap, "summary.json")))["implementations"][0]["scan"]["first_over"]
ratio = [ln.split() for ln in open(os.path.join(swap, "error_ratio.dat")).read().splitlines()[1:]]
early = max(float(r[2]) for r in ratio if int(r[1]) < 26)
print("first row over the bound:", first, "; largest error/bound before row 26:", early)
cells = [ln.split() for ln in open(os.path.join(swap, "heatmap_worst.dat")).read().splitlines()[1:]]
hot = {(int(c[0]), int(c[1])) for c in cells if c[3] != "NaN" and float(c[3]) > 1e-3}
pairs = sorted({p for p, _ in hot})
rows = min(lo for _, lo in hot) if hot else None
print("heatmap cells over 1e-3: pairs", pairs, "from row", rows)
expect = {(int(c[0]), int(c[1])) for c in cells if 16 <= int(c[0]) <= 23 and int(c[2]) >= 26}
model = json.load(open(os.path.join(good, "summary.json")))["model"]
at = []
for ln in open(os.path.join(good, "error_vs_position.dat")).read().splitlines()[1:]:
    f = ln.split()
    if int(f[0]) >= 27 and int(f[1]) <= 265:
        at.append(float(f[2]) / (model["C"] * model["u"]) - 1)
print("bound line over rows 27..265 drawn at positions %.6g..%.6g" % (min(at), max(at)))
ok = first == 26 and early <= 1 and hot == expect and at and max(at) <= 25 + 1e-6 and min(at) >= 10 - 1e-6
sys.exit(0 if ok else 1)
PY
ok $? "M-RoPE over rows: the swapped sections leave the bound at row 26, the heatmap lights pairs 16..23 from there, the bound line follows the ids" "$tmp/mrope.chk"

# the pages say why: each left-out plot's reason is on index.html
[ "$(grep -c 'Nothing to draw: The rows are timestep embeddings (--timesteps)' "$tmp/r-ts-ok/index.html")" = 5 ] &&
    [ "$(grep -c 'Nothing to draw: The rows are 2-D grid positions (--grid)' "$tmp/r-grid-ok/index.html")" = 5 ] &&
    grep -q 'Nothing to draw: The RoPE source.*s positions come from --position-ids' "$tmp/r-mrope-ok/index.html"
ok $? "index.html shows why each left-out plot is not drawn" "$tmp/r-ts-ok/index.html"

echo "1..$n"
[ "$fails" -eq 0 ]
