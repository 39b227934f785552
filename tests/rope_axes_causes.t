#!/bin/sh
# rope_axes_causes.t: the likely causes of caches over position ids of
# several axes that follow no axis at the schedule's frequencies, each
# cache built from a correct formulation with one mistake
# (tests/lib/axes_caches.py, vision_caches.py, coords_caches.py) and each
# cause named only when its angles reproduce the cache's:
#   - DINOv3 with the period base 10000 in place of 100, checked with
#     --rope-angle-scale 2pi over real coordinates: the base named;
#   - sin and cos swapped, and sin negated, in Qwen2-VL's M-RoPE cache and
#     a 2-D axial one;
#   - Qwen2-VL's M-RoPE cache built with 1-D positions (each row its index,
#     the image tokens not given get_rope_index's (t, h, w)): named;
#   - positions scaled or shifted per axis: EVA-02 not interpolated (1.5 x
#     the ids'), DINOv3's coordinates not normalized (7 x + 6.5: the patch
#     indices), Llama 4 without its x + 1 (the ids' - 1); DINOv3's 2 pi
#     cache checked with --rope-angle-scale pi (2 x the ids' on every
#     axis: the angle scale 2pi named too, not without a scale);
#   - the rows in another order: Qwen2.5-VL's window order missing or
#     applied twice, Pixtral's rows from meshgrid(indexing="xy"); the row
#     named and the row its angles belong to agree with an oracle that
#     finds each row's values among the correct cache's rows;
#   - a permuted cache with one row of noise: no order named (the generic
#     cause); the correct caches pass.
# (Pixtral's axes on each other's parity: tests/rope_axes.t.)
# Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp axcauses
C=$root/tests/data/configs
Q2=$C/Qwen--Qwen2-VL-7B-Instruct.json
Q25=$C/Qwen--Qwen2.5-VL-7B-Instruct.json
L4=$C/meta-llama--Llama-4-Scout-17B-16E-Instruct.json
PX=$C/mistralai--Mistral-Small-3.1-24B-Instruct-2503.json

L=$root/tests/lib
{
    for v in ok base10000 indices; do "$PY" "$L/coords_caches.py" dinov3 $v "$tmp/dinov3-$v" || echo "dinov3 $v"; done
    for v in ok noninterp; do "$PY" "$L/coords_caches.py" eva02 $v "$tmp/eva02-$v" || echo "eva02 $v"; done
    for v in ok noplus1 clspos; do "$PY" "$L/vision_caches.py" llama4 $v 24x24 "$L4" "$tmp/llama4-$v" || echo "llama4 $v"; done
    for v in ok nowindow window2; do "$PY" "$L/vision_caches.py" qwen25 $v 12x20 "$Q25" "$tmp/qwen25-$v" || echo "qwen25 $v"; done
    for v in ok xy; do "$PY" "$L/vision_caches.py" pixtral $v 12x20 "$PX" "$tmp/pixtral-$v" || echo "pixtral $v"; done
    for k in mrope axial; do "$PY" "$L/axes_caches.py" $k ok "$tmp/$k-ok" || echo "$k ok"; done
    "$PY" "$L/axes_caches.py" mrope flat "$tmp/mrope-flat" || echo "mrope flat"
} >"$tmp/gen.fail" 2>"$tmp/gen.log"
# the one-mistake variants of a correct cache: swapped (sin, cos), sin negated,
# and the column-major Pixtral cache with row 7's values noise
"$PY" - "$tmp" >>"$tmp/gen.log" 2>&1 <<'END' || echo "post" >>"$tmp/gen.fail"
import os, sys
import numpy as np
tmp = sys.argv[1]
def save(d, c, s, p):
    os.makedirs(d, exist_ok=True)
    for name, a in (("cos", c), ("sin", s), ("pos", p)):
        np.save(os.path.join(d, name + ".npy"), a)
for k in ("mrope", "axial"):
    c, s, p = (np.load("%s/%s-ok/%s.npy" % (tmp, k, n)) for n in ("cos", "sin", "pos"))
    save("%s/%s-sincos" % (tmp, k), s, c, p)
    save("%s/%s-negsin" % (tmp, k), c, -s, p)
c, s, p = (np.load("%s/pixtral-xy/%s.npy" % (tmp, n)) for n in ("cos", "sin", "pos"))
rng = np.random.default_rng(7)
c, s = c.copy(), s.copy()
t = rng.uniform(-np.pi, np.pi, c.shape[1]).astype(np.float32)
c[7], s[7] = np.cos(t), np.sin(t)
save("%s/pixtral-xynoise" % tmp, c, s, p)
END
[ ! -s "$tmp/gen.fail" ]
ok $? "build the correct caches and one mistake each with PyTorch" "$tmp/gen.log"

opts_of() { # the check's options of a cache
    case $1 in
        dinov3-*) echo "--rope-axes-dim 32,32 --base 100 --rope-angle-scale 2pi";;
        dinov3pi-*) echo "--rope-axes-dim 32,32 --base 100 --rope-angle-scale pi";;
        eva02-*) echo "--rope-axes-dim 32,32 --base 10000";;
        llama4-*) echo "--hf-config $L4 --tower vision";;
        qwen25-*) echo "--hf-config $Q25 --tower vision";;
        pixtral-*) echo "--hf-config $PX --tower vision";;
        mrope-*) echo "--hf-config $Q2";;
        axial-*) echo "--rope-axes-dim 64,64";;
    esac
}
gate() { # gate NAME: the check's output in DIR/out, its status returned
    d=$tmp/$1
    # shellcheck disable=SC2046
    "$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
        $(opts_of "$1") --cases 20 --regressions off >"$d/out" 2>&1
}
fails_with() { # fails_with NAME CAUSE TEXT: the first likely cause starts with CAUSE
    gate "$1"
    rc=$?
    [ $rc -eq 1 ] && grep -q "FAIL .* rope accuracy \[.*likely cause: $2" "$tmp/$1/out"
    ok $? "$1: $3" "$tmp/$1/out"
    grep -o "likely cause: [^;]*" "$tmp/$1/out" | head -n 1 | cut -c 1-300 | sed "s/^/# $1: /"
}

for k in dinov3 eva02 llama4 qwen25 pixtral mrope axial; do
    gate $k-ok
    [ $? -eq 0 ] && grep -q "PASS .* rope accuracy \[" "$tmp/$k-ok/out"
    ok $? "$k: the correct cache passes" "$tmp/$k-ok/out"
done

fails_with dinov3-base10000 "the pairs follow their axes with frequencies omega_i^2 of the check's: base 10000 in place of 100" \
    "DINOv3 with the period base 10000 over real coordinates and a 2 pi scale: the base named"
for k in mrope axial; do
    fails_with $k-sincos "sin and cos are swapped: every pair's (cos, sin) is (sin, cos) of its axis' angle" \
        "sin and cos swapped over position ids: named"
    fails_with $k-negsin "the rotation turns the wrong way: every pair's angle is minus its axis' position" \
        "sin negated over position ids: named"
done
fails_with mrope-flat "the rows are rotated by one position each (1-D positions, the row index), not by the ids' (t, h, w): the image tokens were given text positions" \
    "Qwen2-VL's cache of 1-D positions (the row index) over get_rope_index's ids: named"
fails_with eva02-noninterp "the positions along axes 0 and 1 are 1.5 x the ids': a grid not interpolated to the pretraining grid" \
    "EVA-02 not interpolated (positions i where the ids say i * 16 / 24): 1.5 x the ids'"
! grep -q "likely cause: .*angle scale" "$tmp/eva02-noninterp/out"
ok $? "EVA-02 not interpolated, no --rope-angle-scale: the cause names no angle scale" "$tmp/eva02-noninterp/out"
# DINOv3's correct cache (angles 2 pi coords / periods) checked with pi: its
# positions read as 2 x the ids' on both axes, which is also the scale 2pi
mkdir -p "$tmp/dinov3pi-ok" && cp "$tmp/dinov3-ok/"*.npy "$tmp/dinov3pi-ok/"
fails_with dinov3pi-ok "the positions along axes 0 and 1 are 2 x the ids': a grid not interpolated.* or the angle scale is 2 x --rope-angle-scale's (pi): 2pi?" \
    "DINOv3 (built with 2 pi) checked with --rope-angle-scale pi: the cause names the angle scale 2pi as well as the grid"
fails_with dinov3-indices "the positions along axes 0 and 1 are 7 x the ids' + 6.5: the patch indices 0..13 where the ids hold coordinates normalized to \[-1, 1\]" \
    "DINOv3's coordinates not normalized (indices i where the ids say 2 (i + 0.5) / 14 - 1): 7 x + 6.5"
fails_with llama4-noplus1 "the positions along axes 0 and 1 are the ids' - 1: an off-by-one" \
    "Llama 4 without its x + 1: the ids' - 1, an off-by-one"
fails_with llama4-clspos "row 576 has position ids 0 on every axis (a class or register token, which the model leaves unrotated: angle 0) but its pairs turn" \
    "Llama 4's class token given patch 0's position: its row named"

# the rows in another order: the row named, and the row its angles belong
# to, as an oracle finds them (each row's values among the correct cache's
# rows, exactly)
oracle() { # oracle NAME: "row R turns at the ids of row M"
    "$PY" - "$tmp/$1" "$tmp/${1%-*}-ok" <<'END'
import sys
import numpy as np
bad, good = sys.argv[1], sys.argv[2]
cb, sb, ids = np.load(bad + "/cos.npy"), np.load(bad + "/sin.npy"), np.load(bad + "/pos.npy")
cg, sg = np.load(good + "/cos.npy"), np.load(good + "/sin.npy")
rows = {}
for m in range(len(cg)):
    rows.setdefault(cg[m].tobytes() + sg[m].tobytes(), m)
for r in range(len(cb)):
    m = rows[cb[r].tobytes() + sb[r].tobytes()]
    if (ids[m] != ids[r]).any():
        print("row %d turns at the ids of row %d" % (r, m))
        break
END
}
for kv in qwen25-nowindow:"Qwen2.5-VL's window order missing" qwen25-window2:"Qwen2.5-VL's window order applied twice" \
          pixtral-xy:"Pixtral's rows column-major (meshgrid indexing xy)"; do
    k=${kv%%:*}
    want=$(oracle "$k")
    [ -n "$want" ] || want="(the oracle found no row)"
    fails_with "$k" "the rows are the patches in another order: $want (" "$(echo "$kv" | cut -d: -f2): the first row out of place named with the row its angles belong to"
done
gate pixtral-xynoise
[ $? -eq 1 ] && grep -q "likely cause: [0-9]* pairs follow no position axis" "$tmp/pixtral-xynoise/out" \
    && ! grep -q "another order" "$tmp/pixtral-xynoise/out"
ok $? "the column-major cache with one row of noise: no order named (one row turns at no row's ids)" "$tmp/pixtral-xynoise/out"

echo "1..$n"
[ "$fails" -eq 0 ]
