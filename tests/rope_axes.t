#!/bin/sh
# rope_axes.t: RoPE over positions with several axes (--position-ids).
#
# Caches built as the models' code builds them (tests/lib/axes_caches.py):
# Qwen2-VL's M-RoPE over 10 text tokens, a 16 x 16 image grid and 6 text
# tokens (get_rope_index's positions, mrope_section [16, 24, 24]), Qwen3-VL's
# interleaved sections, and a 2-D axial RoPE over a 16 x 16 grid (FLUX's
# EmbedND per axis, axes_dim [64, 64]), and Pixtral's vision RoPE (one
# schedule, the rows on its even frequencies and the columns on its odd
# ones: --rope-axes-dim 32,32 --rope-axes-parity):
#   - each correct cache passes the accuracy gate with its position ids and
#     the model's config (or --rope-axes-dim), and rope-relative holds along
#     each axis (rows a shift apart on one axis), rope-norm and decay too;
#     the worst err/bound is printed;
#   - the cache built with two sections swapped (or HF's order for the
#     interleaved one, or the axes exchanged) fails, the likely cause naming
#     the sections the pairs follow (Pixtral's rows and columns on each
#     other's parity: that); `pecheck identify` recognises them;
#   - `pecheck reference --position-ids` exports each pair rotated by its
#     axis' position (against the binary64 formula);
#   - ABI v2: the example kernel (examples/plugin_rope_half.c) reading
#     pos_axes and pair_axis passes at f16 and bf16; a kernel that reads
#     only POS (the first axis) fails naming the pairs' axes;
#   - a built-in (one position a row) is not given position ids: skipped;
#   - bad input is exit 2 naming it; a replay line under --position-ids
#     carries it and reproduces.
# Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp axes
C=$root/tests/data/configs
Q2=$C/Qwen--Qwen2-VL-7B-Instruct.json
Q3=$C/Qwen--Qwen3-VL-8B-Instruct.json

for k in mrope mrope3 axial pixtral; do
    for v in ok swap; do
        "$PY" "$root/tests/lib/axes_caches.py" $k $v "$tmp/$k-$v" >>"$tmp/gen.log" 2>&1 || echo "$k $v" >>"$tmp/gen.fail"
    done
done
[ ! -f "$tmp/gen.fail" ]
ok $? "build the M-RoPE, interleaved M-RoPE and axial caches with PyTorch" "$tmp/gen.log"

opts_of() { # the encoding options of a kind
    case $1 in mrope) echo "--hf-config $Q2";; mrope3) echo "--hf-config $Q3";; axial) echo "--rope-axes-dim 64,64";;
        pixtral) echo "--rope-axes-dim 32,32 --rope-axes-parity";; esac
}
gate() { # gate KIND VARIANT [OPTIONS...]
    d=$tmp/$1-$2; o=$(opts_of "$1"); shift 2
    # shellcheck disable=SC2086
    "$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" $o \
        --cases 40 --regressions off "$@" >"$d/out" 2>&1
}

for k in mrope mrope3 axial pixtral; do
    d=$tmp/$k-ok
    gate $k ok
    rc=$?
    [ $rc -eq 0 ] && grep -q "PASS .* rope accuracy \[" "$d/out" \
        && grep -q "PASS .* rope rope-relative" "$d/out" && grep -q "PASS .* rope rope-norm" "$d/out" \
        && grep -q "PASS .* rope decay" "$d/out"
    ok $? "$k: the correct cache passes with its position ids (accuracy, rope-relative along each axis, rope-norm, decay)" "$d/out"
    r=$(sed -n 's/.*accuracy \[[a-z]*\]:.*max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$d/out" | sort -g | tail -n 1)
    echo "# $k: worst err/bound $r"
done

swap_cause() {
    case $1 in
        mrope) echo "follow the position axes as sections 24,16,24 (in turn), not as the check's";;
        mrope3) echo "follow the position axes as sections 24,20,20 (in turn), not as the check's";;
        axial) echo "follow the position axes as pairs 0..31 axis 1, pairs 32..63 axis 0";;
        pixtral) echo "the axes are on each other's parity: the rows (axis 0) on freqs\[1::2\] and the columns (axis 1) on freqs\[::2\]";;
    esac
}
for k in mrope mrope3 axial pixtral; do
    d=$tmp/$k-swap
    gate $k swap
    rc=$?
    want=$(swap_cause $k)
    [ $rc -eq 1 ] && grep -q "FAIL .* rope accuracy \[.*likely cause: \([0-9 ]*\(the \)\?pairs \)\?$want" "$d/out"
    ok $? "$k with its sections swapped (or axes exchanged) fails naming the axes its pairs follow" "$d/out"
done
# Pixtral's axes share one schedule by parity: as two schedules of their own
# (--rope-axes-dim without --rope-axes-parity) its correct cache fails
d=$tmp/pixtral-ok
"$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
    --rope-axes-dim 32,32 --cases 40 --regressions off >"$d/noparity" 2>&1
[ $? -eq 1 ] && grep -q "FAIL .* rope accuracy" "$d/noparity"
ok $? "pixtral without --rope-axes-parity (each axis its own schedule): fails" "$d/noparity"
"$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
    --rope-axes-parity --regressions off >"$d/alone" 2>&1
[ $? -eq 2 ] && grep -q -- "--rope-axes-parity shares one schedule among the axes of --rope-axes-dim" "$d/alone"
ok $? "--rope-axes-parity without --rope-axes-dim: exit 2 naming it" "$d/alone"

# identify: the sections
idf() { # idf KIND VARIANT: identify's axes line
    d=$tmp/$1-$2; o=$(opts_of "$1")
    # shellcheck disable=SC2086
    "$PECHECK" identify --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" $o >"$d/id" 2>&1
}
idf mrope ok; grep -q "axes: sections 16,24,24 (in turn)" "$tmp/mrope-ok/id"
ok $? "identify recognises Qwen2-VL's sections 16,24,24" "$tmp/mrope-ok/id"
idf mrope swap; grep -q "axes: sections 24,16,24 (in turn)" "$tmp/mrope-swap/id"
ok $? "identify recognises the swapped sections 24,16,24" "$tmp/mrope-swap/id"
idf mrope3 ok; grep -q "axes: sections 24,20,20 in the interleaved order" "$tmp/mrope3-ok/id"
ok $? "identify recognises Qwen3-VL's interleaved sections" "$tmp/mrope3-ok/id"

# pecheck reference over the position ids, against the binary64 formula
"$PECHECK" reference --family rope --hf-config "$Q2" --position-ids "$tmp/mrope-ok/pos.npy" \
    --dtype f64 --out "$tmp/ref.npy" --quiet >"$tmp/o" 2>&1 &&
"$PY" - "$tmp/ref.npy" "$tmp/mrope-ok/pos.npy" >>"$tmp/o" 2>&1 <<'END'
import sys
import numpy as np
ref, ids = np.load(sys.argv[1]), np.load(sys.argv[2])
axis = np.concatenate([[k] * s for k, s in enumerate((16, 24, 24))])
theta = ids[:, axis] * 1e6 ** (-np.arange(0, 128, 2) / 128.0)
e = max(np.abs(ref[..., 0] - np.cos(theta)).max(), np.abs(ref[..., 1] - np.sin(theta)).max())
print("largest |reference - binary64 formula| = %.3g" % e)
sys.exit(0 if ref.shape == (ids.shape[0], 64, 2) and e < 1e-11 else 1)
END
ok $? "reference --position-ids: every pair rotated by its axis' position (rows from the ids)" "$tmp/o"
grep largest "$tmp/o" | sed 's/^/# /'

# ABI v2: positions with several axes through pos_axes and pair_axis
CC=${CC:-cc}
$CC -O1 -shared -fPIC -I"$root/include" "$root/examples/plugin_rope_half.c" -o "$tmp/half.so" -lm &&
$CC -O1 -shared -fPIC -I"$root/include" "$root/tests/plugins/rope_v2_old.c" -o "$tmp/old.so" -lm
ok $? "build the ABI v2 kernels" 
V="--position-ids $tmp/mrope-ok/pos.npy --hf-config $Q2 --family rope --cases 5 --regressions off"
# shellcheck disable=SC2086
"$PECHECK" check --plugin "$tmp/half.so" $V >"$tmp/o" 2>&1
[ $? -eq 0 ] && [ "$(grep -c 'PASS .* rope accuracy \[.*, \(f16\|bf16\)\]' "$tmp/o")" -eq 4 ]
ok $? "ABI v2: the example kernel reading pos_axes and pair_axis passes at f16 and bf16, both layouts" "$tmp/o"
grep -o 'rope accuracy \[[a-z]*, [a-z0-9]*\]:.*max |err|/bound [0-9.e+-]*' "$tmp/o" | sed 's/:.*bound/: worst err\/bound/; s/^/# v2 /'
# shellcheck disable=SC2086
"$PECHECK" check --plugin "$tmp/old.so" $V >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "FAIL .* rope accuracy \[.*likely cause: .*position ax" "$tmp/o"
ok $? "ABI v2: a kernel reading only POS (the first axis) fails, naming the pairs' axes" "$tmp/o"

# a built-in takes one position a row
"$PECHECK" check --impl rope-half --position-ids "$tmp/mrope-ok/pos.npy" --hf-config "$Q2" \
    --positions 0:271 --regressions off >"$tmp/o" 2>&1
[ $? -eq 2 ] && grep -q "takes one position a row" "$tmp/o"
ok $? "a built-in is not given position ids: skipped (nothing checked, exit 2)" "$tmp/o"

# bad input: exit 2 naming it
exit2() { # exit2 PATTERN NAME ARGS...
    pat=$1; name=$2; shift 2
    "$PECHECK" "$@" >"$tmp/o" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -q -- "$pat" "$tmp/o"
    ok $? "$name (exit $rc)" "$tmp/o"
}
T="--table $tmp/mrope-ok/cos.npy --table-sin $tmp/mrope-ok/sin.npy"
# shellcheck disable=SC2086
exit2 "has 3 position axes: say how the pairs follow them" "three axes without sections is exit 2" \
    check $T --position-ids "$tmp/mrope-ok/pos.npy" --base 1000000
# shellcheck disable=SC2086
exit2 "hold 60 pairs but d = 128 has 64" "sections that do not fill the pairs are exit 2" \
    check $T --position-ids "$tmp/mrope-ok/pos.npy" --base 1000000 --rope-sections 20,20,20
"$PY" -c "import numpy as np; np.save('$tmp/short.npy', np.zeros((100, 3), dtype=np.int64))"
# shellcheck disable=SC2086
exit2 "cos.npy has 272 rows but the position ids have 100: give one row of ids per row of the table" \
    "fewer position ids than table rows is exit 2" check $T --position-ids "$tmp/short.npy" --hf-config "$Q2"
"$PY" -c "import numpy as np; np.save('$tmp/long.npy', np.zeros((300, 3), dtype=np.int64)); np.save('$tmp/u64.npy', np.zeros((272, 3), dtype=np.uint64))"
# shellcheck disable=SC2086
exit2 "u64.npy: unsupported dtype '<u8' (position ids: int16, int32 or int64, or float32 or float64 coordinates; save ids.astype(numpy.int64))" \
    "ids of an unsupported dtype: exit 2 listing the ids' dtypes" check $T --position-ids "$tmp/u64.npy" --hf-config "$Q2"
# shellcheck disable=SC2086
exit2 "cos.npy has 272 rows but the position ids have 300: give one row of ids per row of the table" \
    "more position ids than table rows (ids of another image) is exit 2" \
    check $T --position-ids "$tmp/long.npy" --hf-config "$Q2"
"$PY" -c "import numpy as np; p = np.load('$tmp/mrope-ok/pos.npy'); np.save('$tmp/pos32.npy', p.astype(np.int32)); np.save('$tmp/posf.npy', p.astype(np.float64)); np.save('$tmp/hf.npy', p.T.copy())"
# shellcheck disable=SC2086
exit2 "hf.npy: position ids of shape (3, 272) hold one axis a row (HF's layout).*save ids.T, shape (272, 3)" \
    "position ids in HF's (A, n) layout are exit 2 saying to transpose them" \
    check $T --position-ids "$tmp/hf.npy" --hf-config "$Q2"
# shellcheck disable=SC2086
"$PECHECK" check $T --position-ids "$tmp/pos32.npy" --hf-config "$Q2" --cases 10 --regressions off >"$tmp/o" 2>&1
ok $? "int32 position ids are read as the int64 ones (the correct cache passes)" "$tmp/o"
# shellcheck disable=SC2086
"$PECHECK" check $T --position-ids "$tmp/posf.npy" --hf-config "$Q2" --cases 10 --regressions off >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "positions of 3 axes" "$tmp/o"
ok $? "float64 position ids of whole values are read as the int64 ones (the correct cache passes)" "$tmp/o"
exit2 "rope-axes-dim rotates each axis by its own position" "--rope-axes-dim without position ids is exit 2" \
    check --impl rope-half --rope-axes-dim 64,64

# a failing property's replay line carries --position-ids and reproduces
d=$tmp/mrope-swap
grep "replay: pecheck " "$d/out" | head -n 1 | sed 's/.*replay: pecheck //' >"$tmp/replay"
line=$(cat "$tmp/replay")
# shellcheck disable=SC2086
eval "\"$PECHECK\" $line --regressions off" >"$tmp/o" 2>&1
rc=$?
[ -n "$line" ] && [ $rc -eq 1 ] && echo "$line" | grep -q -- "--position-ids $d/pos.npy"
ok $? "the replay line of the swapped cache's failing property carries --position-ids and fails again" "$tmp/o"

echo "1..$n"
[ "$fails" -eq 0 ]
