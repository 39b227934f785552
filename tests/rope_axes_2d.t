#!/bin/sh
# rope_axes_2d.t: two 2-D RoPEs people run, each cache built by the model's
# own code re-typed in PyTorch (tests/lib/axes2d_caches.py names the code):
#   - ChatGLM-6B (THUDM/chatglm-6b modeling_chatglm.py, position_encoding_2d:
#     each half of the head rotate_half over its own ids, position_ids and
#     block_position_ids, one RotaryEmbedding(64) with inv_freq.half()), over
#     its 2048 positions with get_position_ids' [MASK] ids: the full-head
#     (n, 128) cache passes from its config.json alone (the model run in
#     float32) and with --rope-angle-dtype f16 (the model run in float16:
#     the float16 cache of float16 angles); the same cache without the
#     float16 frequencies, the halves' ids exchanged, the whole head's half
#     layout (M-RoPE's [a1 a2 | a1 a2]) and inv_freq left in float32 fail with
#     the cause first; the float16 cache checked without --rope-angle-dtype
#     names the float16 angles; config.json without --position-ids is exit 2;
#     identify given the cache and its position ids alone finds the halves,
#     the float16 frequencies and angles, and check passes with its check_args;
#     given the ids with their columns exchanged ((block position, position)),
#     identify says UNKNOWN naming the columns' order (text and JSON), and
#     check, run with its check line, fails naming the axes exchanged;
#   - SAM-2 (facebookresearch/sam2 position_encoding.py: init_t_xy,
#     compute_axial_cis; RoPEAttention, head dim 256, rope_theta 10000) over
#     its 64 x 64 grid and a 48 x 32 one: --rope-axes-dim 128,128 --layout
#     interleaved passes; x and y exchanged, the grid transposed (end_x and
#     end_y exchanged) and theta 100 fail with the cause first.
# Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp axes2d
GLM=$root/tests/data/configs/THUDM--chatglm-6b.json

GEN="
chatglm ok
chatglm half
chatglm swap
chatglm mrope
chatglm f32freq
sam2 ok 64x64
sam2 swap 64x64
sam2 theta 64x64
sam2 ok 48x32
sam2 swap 48x32
sam2 transposed 48x32
"
echo "$GEN" | while read -r k v g; do
    [ -n "$k" ] || continue
    name=$k-$v${g:+-$g}
    # shellcheck disable=SC2086
    "$PY" "$root/tests/lib/axes2d_caches.py" "$k" "$v" $g "$tmp/$name" >>"$tmp/gen.log" 2>&1 \
        || echo "$name" >>"$tmp/gen.fail"
done
[ ! -f "$tmp/gen.fail" ]
ok $? "build ChatGLM-6B's and SAM-2's caches with their own code (PyTorch)" "$tmp/gen.log"

# inv_freq.half() of the code equals each float64 frequency rounded to
# float16 (so --rope-freq-dtype f16, certified by MPFR, is the code's)
"$PY" - >"$tmp/f16.log" 2>&1 <<'END'
import numpy as np, torch
dim = 64
code = (1. / (10000 ** (torch.arange(0, dim, 2).float() / dim))).half().numpy()
exact = np.float16(10000.0 ** (-np.arange(0, dim, 2, dtype=np.float64) / dim))
bad = np.nonzero(code != exact)[0]
print("pairs whose inv_freq.half() is not the float16 rounding:", list(bad))
raise SystemExit(1 if len(bad) else 0)
END
ok $? "ChatGLM-6B's inv_freq.half() is the float16 rounding of every exact frequency" "$tmp/f16.log"

opts_of() { # the check's options of a cache
    case $1 in
        chatglm-half*) echo "--hf-config $GLM --rope-angle-dtype f16";;
        chatglm-plain) echo "--base 10000 --rope-axes-dim 64,64 --rope-axes-halves";;
        chatglm-*) echo "--hf-config $GLM";;
        sam2-*) echo "--base 10000 --rope-axes-dim 128,128 --layout interleaved";;
    esac
}
gate() { # gate NAME: the check's output in DIR/out, its status returned
    d=$tmp/$1
    # shellcheck disable=SC2046
    "$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
        $(opts_of "$1") --cases 20 --regressions off >"$d/out" 2>&1
}
passes() { # passes NAME TEXT
    gate "$1"
    rc=$?
    [ $rc -eq 0 ] && grep -q "PASS .* rope accuracy \[" "$tmp/$1/out"
    ok $? "$1: $2 (exit $rc)" "$tmp/$1/out"
    r=$(sed -n 's/.*accuracy \[[a-z]*\]:.*max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$tmp/$1/out" | head -n 1)
    echo "# $1: worst err/bound $r"
}
fails_with() { # fails_with NAME CAUSE TEXT: exit 1, the first likely cause starts with CAUSE
    gate "$1"
    rc=$?
    [ $rc -eq 1 ] && grep "FAIL .* rope accuracy \[" "$tmp/$1/out" | head -n 1 | grep -q "likely cause: $2"
    ok $? "$1: $3 (exit $rc)" "$tmp/$1/out"
    grep -o "likely cause: [^;]*" "$tmp/$1/out" | head -n 1 | cut -c 1-300 | sed "s/^/# $1: /"
}

# ChatGLM-6B
passes chatglm-ok "the full-head cache of the model run in float32 passes from config.json alone"
grep "PASS .* rope accuracy \[" "$tmp/chatglm-ok/out" | head -n 1 | grep -q \
    "frequencies rounded to float16 .*axial, dims 64,64.*position_encoding_2d (ChatGLM-6B): head dim 128"
ok $? "chatglm: the verdict says the float16 frequencies, the axes and the config key" "$tmp/chatglm-ok/out"
passes chatglm-half "the float16 cache of the model run in float16 passes with --rope-angle-dtype f16"
mkdir -p "$tmp/chatglm-plain" "$tmp/chatglm-f16half"
cp "$tmp/chatglm-ok/"*.npy "$tmp/chatglm-plain/"
cp "$tmp/chatglm-half/"*.npy "$tmp/chatglm-f16half/"
fails_with chatglm-plain "the frequencies are float16 values: every pair follows its axis at omega_i rounded to float16 .*--rope-freq-dtype f16" \
    "the correct cache checked without the float16 frequencies: inv_freq.half() named"
fails_with chatglm-f16half "the angles are float16 values" \
    "the float16 cache checked as the float32 model's: the float16 angles named"
fails_with chatglm-swap "the pairs follow the position axes as pairs 0..31 axis 1, pairs 32..63 axis 0, not as the check's .*the axes exchanged" \
    "the halves' ids exchanged (q1 by block_position_ids): the axes exchanged"
# the failure shows the cache's own cos[r, j]: j is the file's column, not
# the column of the half layout the blocks are read into
"$PY" - "$tmp/chatglm-swap" <<'PYEOF' >"$tmp/own.log" 2>&1
import re, sys, numpy as np
d = sys.argv[1]
m = re.search(r"cos\[(\d+), (\d+)\] = ([-0-9.e+]+)", open(d + "/out").read())
c = np.load(d + "/cos.npy")
r, j, v = int(m.group(1)), int(m.group(2)), float(m.group(3))
print("cos[%d, %d]: printed %r, file %r" % (r, j, v, float(c[r, j])))
sys.exit(0 if abs(float(c[r, j]) - v) < 1e-6 else 1)
PYEOF
ok $? "chatglm-swap: the failure's cos[r, j] is the file's own value at that column" "$tmp/own.log"
# the float32 model's cache checked as the float16 model's: the worst
# element's coordinate is the float16 angle, and is named so
d=$tmp/chatglm-ok
"$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
    --hf-config "$GLM" --rope-angle-dtype f16 --cases 20 --regressions off >"$tmp/angle.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "(the pair's angle [0-9.]*)" "$tmp/angle.out" \
    && ! grep -q "(the pair's position" "$tmp/angle.out"
ok $? "chatglm: under --rope-angle-dtype the worst element's coordinate is called an angle (exit $rc)" "$tmp/angle.out"
fails_with chatglm-mrope "the columns are in the half layout of the whole head, \[a1 a2 | a1 a2\] (M-RoPE's" \
    "M-RoPE's layout over the head instead of each half's own: named"
fails_with chatglm-f32freq "the frequencies are not rounded to float16" \
    "inv_freq left in float32 (no .half()): named"
d=$tmp/chatglm-ok
"$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --hf-config "$GLM" >"$tmp/noids.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "position_encoding_2d rotates each half of the head by its own position: give --position-ids" "$tmp/noids.out"
ok $? "chatglm: config.json without --position-ids is exit 2 naming position_encoding_2d (exit $rc)" "$tmp/noids.out"

# identify given ChatGLM's options: its check_args keep them (halves,
# float16 frequencies), and check passes with them
d=$tmp/chatglm-ok
"$PECHECK" identify --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
    --rope-axes-dim 64,64 --rope-axes-halves --rope-freq-dtype f16 --format json >"$tmp/glmid.json" 2>&1
rc=$?
"$PY" - "$tmp/glmid.json" "$PECHECK" >"$tmp/glmid.log" 2>&1 <<'END'
import json, subprocess, sys
args = json.load(open(sys.argv[1]))["results"][0]["check_args"]
print(" ".join(args))
missing = [a for a in ("--rope-axes-halves", "--rope-freq-dtype") if a not in args]
r = subprocess.run([sys.argv[2], "check", "--quiet", "--regressions", "off"] + args, capture_output=True, text=True)
print("missing", missing, "check exit", r.returncode, r.stderr)
raise SystemExit(1 if missing or r.returncode else 0)
END
prc=$?
[ $rc -eq 0 ] && [ $prc -eq 0 ]
ok $? "chatglm: identify's check_args keep --rope-axes-halves and --rope-freq-dtype f16, and check passes with them (exit $rc)" "$tmp/glmid.log"

# identify given the table and its position ids alone: the columns' halves
# (--rope-axes-halves, read in the blocks of --rope-axes-dim 64,64), the
# float16 frequencies and, for the model run in float16, the float16 angles
# are found (before: exit 2, no split tried explained the pairs, the cache
# read as (n, d/2) with d 256), and check passes with check_args; given the
# ChatGLM options but not --rope-angle-dtype, the float16 cache's angles are
# found (before: UNKNOWN, exit 1)
idcheck() { # idcheck NAME WANT TEXT [IDENTIFY OPTIONS...]: FOUND, WANT in check_args, check passes
    name=$1 want=$2 text=$3
    shift 3
    d=$tmp/$name
    "$PECHECK" identify --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
        "$@" --format json >"$d/id.json" 2>&1
    rc=$?
    "$PY" - "$d/id.json" "$PECHECK" "$want" >"$d/id.log" 2>&1 <<'END2'
import json, subprocess, sys
res = json.load(open(sys.argv[1]))["results"][0]
args = res["check_args"]
print(" ".join(args))
missing = [a for a in sys.argv[3].split() if a not in args]
r = subprocess.run([sys.argv[2], "check", "--quiet", "--regressions", "off"] + args,
                   capture_output=True, text=True)
print("found", res["found"], "missing", missing, "check exit", r.returncode, r.stdout[-600:], r.stderr)
raise SystemExit(1 if missing or r.returncode or not res["found"] else 0)
END2
    prc=$?
    [ $rc -eq 0 ] && [ $prc -eq 0 ]
    ok $? "$name: $text (exit $rc)" "$d/id.log"
    head -n 1 "$d/id.log" | sed "s|$tmp/||g; s/^/# $name: /"
}
idcheck chatglm-ok "--rope-axes-dim 64,64 --rope-axes-halves --rope-freq-dtype f16" \
    "identify with the position ids alone finds the halves and the float16 frequencies; check passes with check_args"
idcheck chatglm-half "--rope-axes-dim 64,64 --rope-axes-halves --rope-freq-dtype f16 --rope-angle-dtype f16" \
    "identify with the position ids alone finds the halves and the float16 angles; check passes with check_args"
idcheck chatglm-half "--rope-axes-halves --rope-angle-dtype f16" \
    "identify given ChatGLM's options without --rope-angle-dtype finds the float16 angles" \
    --rope-axes-dim 64,64 --rope-axes-halves --rope-freq-dtype f16
d=$tmp/chatglm-half
"$PECHECK" identify --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" >"$d/id.txt" 2>&1
grep -q "each axis' dims in a half layout of its own.*found" "$d/id.txt" \
    && grep -q "the angles are float16 values" "$d/id.txt"
ok $? "chatglm-half: identify's text names the halves and the float16 angles it found" "$d/id.txt"
# a cache whose columns are no layout identify knows (the half cache's
# columns reversed): UNKNOWN (before: exit 2), naming the halves among what
# was tried, its check line the closest split tried, which check takes
# (exit 1 with its own cause, never 2)
closest_runs() { # closest_runs NAME TEXT: identify's check line in DIR/id.txt runs in check, exit 1
    d=$tmp/$1
    line=$(sed -n 's/^  check: pecheck check //p' "$d/id.txt")
    # shellcheck disable=SC2086
    "$PECHECK" check $line --regressions off >"$d/closest.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] && printf '%s\n' "$line" | grep -q -- "--rope-\(sections\|axes-dim\) [0-9]" \
        && grep -q "FAIL .* rope accuracy .*likely cause" "$d/closest.out"
    ok $? "$1: $2 (exit $rc)" "$d/closest.out"
    grep -o "likely cause: [^;]*" "$d/closest.out" | head -n 1 | cut -c 1-200 | sed "s/^/# $1: /"
}
mkdir -p "$tmp/chatglm-rev"
"$PY" - "$tmp/chatglm-ok" "$tmp/chatglm-rev" <<'END2'
import sys, numpy as np
for f in ("cos", "sin"):
    np.save("%s/%s.npy" % (sys.argv[2], f), np.ascontiguousarray(np.load("%s/%s.npy" % (sys.argv[1], f))[:, ::-1]))
np.save(sys.argv[2] + "/pos.npy", np.load(sys.argv[1] + "/pos.npy"))
END2
d=$tmp/chatglm-rev
"$PECHECK" identify --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" >"$d/id.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "^UNKNOWN" "$d/id.txt" \
    && grep -q "no split tried explains every pair.*--rope-axes-halves" "$d/id.txt"
ok $? "chatglm, columns reversed: UNKNOWN naming the halves among what was tried (exit $rc)" "$d/id.txt"
closest_runs chatglm-rev "columns reversed: check takes identify's closest line and fails with a cause"

# ChatGLM-6B's ids saved with their columns exchanged, (block position,
# position) for get_position_ids' (position, block position) (before: exit
# 2, no split tried explained the pairs): every pair follows an axis of the
# halves with the columns in the other order, which is named (text; JSON
# axes_columns [1, 0]): UNKNOWN, its check line the halves and float16
# frequencies, with which check fails naming the axes exchanged; the same
# cache with the ids' columns put back is FOUND
for v in ok half; do
    mkdir -p "$tmp/chatglm-idswap-$v"
    "$PY" - "$tmp/chatglm-$v" "$tmp/chatglm-idswap-$v" <<'END2'
import shutil, sys, numpy as np
for f in ("cos", "sin"):
    shutil.copy("%s/%s.npy" % (sys.argv[1], f), "%s/%s.npy" % (sys.argv[2], f))
np.save(sys.argv[2] + "/pos.npy", np.ascontiguousarray(np.load(sys.argv[1] + "/pos.npy")[:, ::-1]))
END2
    d=$tmp/chatglm-idswap-$v
    "$PECHECK" identify --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" >"$d/id.txt" 2>&1
    rc=$?
    [ $rc -eq 1 ] && grep -q "^UNKNOWN" "$d/id.txt" \
        && grep -q "columns of the ids: in another order .*axes 0, 1 those of the ids' columns 1, 0" "$d/id.txt" \
        && grep -q "^  check: .*--rope-axes-dim 64,64 .*--rope-axes-halves .*--rope-freq-dtype f16" "$d/id.txt"
    ok $? "chatglm-idswap-$v: the ids' columns exchanged: UNKNOWN naming them, the halves in its check line (exit $rc)" "$d/id.txt"
    closest_runs chatglm-idswap-$v "check takes identify's line and fails"
    grep -q "likely cause: the pairs follow the position axes as pairs 0..31 axis 1, pairs 32..63 axis 0, not as the check's .*the axes exchanged" "$d/closest.out"
    ok $? "chatglm-idswap-$v: check's cause is the axes exchanged" "$d/closest.out"
    "$PECHECK" identify --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
        --format json >"$d/id.json" 2>&1
    rc=$?
    "$PY" - "$d/id.json" >"$d/json.log" 2>&1 <<'END2'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(r.get("found"), r.get("axes_columns"), r.get("split_closest"), r.get("split"), r.get("check_args"))
sys.exit(0 if r["found"] is False and r.get("axes_columns") == [1, 0]
         and r.get("split_closest") == "--rope-axes-dim" and r.get("split") == "64,64" else 1)
END2
    prc=$?
    [ $rc -eq 1 ] && [ $prc -eq 0 ]
    ok $? "chatglm-idswap-$v: JSON parses: found false, axes_columns [1, 0], split_closest 64,64 (exit $rc)" "$d/json.log"
done
# the split given with the ids' columns exchanged: not FOUND (before: FOUND,
# every pair on an axis but not the given one's, and its check line failed)
d=$tmp/chatglm-idswap-ok
"$PECHECK" identify --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
    --rope-axes-dim 64,64 --rope-axes-halves --rope-freq-dtype f16 >"$d/given.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "^UNKNOWN" "$d/given.txt" && grep -q "columns of the ids: in another order" "$d/given.txt"
ok $? "chatglm-idswap-ok: ChatGLM's split given, ids' columns exchanged: UNKNOWN naming them (exit $rc)" "$d/given.txt"

# SAM-2
passes sam2-ok-64x64 "its 64 x 64 grid (head dim 256) passes as --rope-axes-dim 128,128, interleaved"
passes sam2-ok-48x32 "a 48 x 32 grid passes"
for g in 64x64 48x32; do
    fails_with sam2-swap-$g "the pairs follow the position axes as pairs 0..63 axis 1, pairs 64..127 axis 0, not as the check's .*the axes exchanged" \
        "x and y exchanged (t_x = t // end_x): the axes exchanged"
done
fails_with sam2-transposed-48x32 "the grid is transposed: the ids are a grid 48 wide (axis 0, the fastest) and 32 tall, but the cache's angles are those of a grid 32 wide and 48 tall" \
    "end_x and end_y exchanged on a 48 x 32 grid: the grid transposed"
# SAM-2's float32 frequencies checked as ChatGLM's float16 ones: the
# frequencies named, never the rows' ids (t mod 64, t / 64) read as a period
mkdir -p "$tmp/sam2-f16freq"
cp "$tmp/sam2-ok-64x64/"*.npy "$tmp/sam2-f16freq/"
d=$tmp/sam2-f16freq
"$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
    --base 10000 --rope-axes-dim 128,128 --layout interleaved --rope-freq-dtype f16 \
    --property accuracy --regressions off >"$d/out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep "FAIL .* rope accuracy \[" "$d/out" | head -n 1 \
    | grep -q "likely cause: the frequencies are not rounded to float16" && ! grep -q "repeat with period" "$d/out"
ok $? "sam2 checked with --rope-freq-dtype f16: the float32 frequencies named, no period (exit $rc)" "$d/out"
fails_with sam2-theta-64x64 "the pairs follow their axes with exponents over twice the axis' dims .* base 100 = sqrt(10000)" \
    "theta 100 (compute_axial_cis' default) for rope_theta 10000: base 100 named"

echo "1..$n"
[ "$fails" -eq 0 ]
