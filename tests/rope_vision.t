#!/bin/sh
# rope_vision.t: the vision encoders' RoPE from the model's config.json,
# `--hf-config config.json --tower vision --position-ids pos.npy`.
#
# Caches built as each model's code builds them (tests/lib/vision_caches.py,
# typed from transformers 4.57: Qwen2-VL's VisionRotaryEmbedding and
# rot_pos_emb, Qwen2.5-VL's with get_window_index's order, Qwen3-VL's
# rot_pos_emb, Llama4VisionRotaryEmbedding's freqs_ci, PixtralRotaryEmbedding
# with position_ids_in_meshgrid), over a 16 x 16 and a 12 x 20 grid of
# patches (Llama 4: its config's 24 x 24 grid and the class token, the only
# grid its code builds):
#   - every correct cache passes from the config alone, and the verdict's
#     "checked against" says it is the vision tower's and which keys gave
#     the head dim and the base; the worst err/bound is printed;
#   - the mistakes fail with the cause first: the axes exchanged (h and w
#     swapped, the grid transposed), the text model's rope_theta, each
#     axis' exponents over the whole head; a cache of the text model's
#     head dim is exit 2 saying so; Pixtral's axes as two schedules of
#     their own (no parity) is named;
#   - exit 2 naming the file and key: a text-only config, Gemma 3's SigLIP
#     tower (no RoPE), no --position-ids, ids of one axis, an option the
#     config replaces; --tower with an unknown value suggests the nearest;
#   - a replay line carries --tower vision and reproduces the failure;
#   - the Python package: check_rope_cache(..., hf_config=, tower="vision",
#     position_ids=) passes the correct cache and fails the swapped one.
# Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp vision
C=$root/tests/data/configs

cfg_of() { # the config of a kind
    case $1 in
        qwen2) echo "$C/Qwen--Qwen2-VL-7B-Instruct.json";;
        qwen25) echo "$C/Qwen--Qwen2.5-VL-7B-Instruct.json";;
        qwen3) echo "$C/Qwen--Qwen3-VL-8B-Instruct.json";;
        llama4) echo "$C/meta-llama--Llama-4-Scout-17B-16E-Instruct.json";;
        pixtral) echo "$C/mistralai--Mistral-Small-3.1-24B-Instruct-2503.json";;
    esac
}
# KIND VARIANT GRID: the correct caches on two grids, the mistakes on the non-square one
CASES="
qwen2 ok 16x16
qwen2 ok 12x20
qwen25 ok 16x16
qwen25 ok 12x20
qwen3 ok 16x16
qwen3 ok 12x20
llama4 ok 24x24
pixtral ok 16x16
pixtral ok 12x20
qwen2 swap 12x20
qwen2 texttheta 12x20
qwen2 wholehead 12x20
qwen2 texthead 12x20
qwen25 swap 12x20
qwen25 texttheta 12x20
qwen25 interleaved 12x20
qwen3 swap 12x20
qwen3 texttheta 12x20
qwen3 wholehead 12x20
llama4 swap 24x24
llama4 texttheta 24x24
llama4 wholehead 24x24
llama4 texthead 24x24
pixtral swap 12x20
pixtral texttheta 12x20
pixtral wholehead 12x20
pixtral texthead 12x20
"
echo "$CASES" | while read -r k v g; do
    [ -n "$k" ] || continue
    "$PY" "$root/tests/lib/vision_caches.py" "$k" "$v" "$g" "$(cfg_of "$k")" "$tmp/$k-$v-$g" \
        >>"$tmp/gen.log" 2>&1 || echo "$k $v $g" >>"$tmp/gen.fail"
done
[ ! -f "$tmp/gen.fail" ]
ok $? "build $(echo "$CASES" | grep -c .) vision caches with the models' own code (PyTorch)" "$tmp/gen.log"

gate() { # gate KIND VARIANT GRID [OPTIONS...]: pecheck check --tower vision
    d=$tmp/$1-$2-$3; c=$(cfg_of "$1"); shift 3
    "$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
        --hf-config "$c" --tower vision --cases 20 --regressions off "$@" >"$d/out" 2>&1
}

keys_of() { # what the verdict's "checked against" must say of the keys read
    case $1 in
        qwen2) echo "head dim 80 from vision_config.embed_dim 1280 // num_heads 16.*base from theta 10000, a constant of Qwen2-VL's VisionRotaryEmbedding";;
        qwen25) echo "head dim 80 from vision_config.hidden_size 1280 // num_heads 16.*base from theta 10000, a constant of";;
        qwen3) echo "head dim 72 from vision_config.hidden_size 1152 // num_heads 16.*base from theta 10000, a constant of";;
        llama4) echo "head dim 88 from vision_config.hidden_size 1408 // num_attention_heads 16, axial dims 44,44 over position ids (x + 1, y + 1).*base from vision_config.rope_theta of";;
        pixtral) echo "head dim 64 from vision_config.head_dim 64, axial dims 32,32 by parity.*base from vision_config.rope_theta of";;
    esac
}
echo "$CASES" | while read -r k v g; do
    [ "$v" = ok ] || continue
    d=$tmp/$k-$v-$g
    gate "$k" "$v" "$g"
    rc=$?
    [ $rc -eq 0 ] && grep -q "PASS .* rope accuracy \[" "$d/out" && grep -q "PASS .* rope rope-relative" "$d/out" &&
        grep "PASS .* rope accuracy \[" "$d/out" | head -n 1 | grep -q "vision tower); .*the vision tower (vision_config, model_type [a-z0-9_]*): .*$(keys_of "$k")"
    ok $? "$k $g: the correct cache passes from config.json --tower vision, against the vision tower's keys" "$d/out"
    r=$(sed -n 's/.*accuracy \[[a-z]*\]:.*max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$d/out" | sort -g | tail -n 1)
    echo "# $k $g: worst err/bound $r"
done >"$tmp/ok.tap"
cat "$tmp/ok.tap"
n=$((n + $(grep -c '^\(not \)\?ok' "$tmp/ok.tap")))
fails=$((fails + $(grep -c '^not ok' "$tmp/ok.tap")))

cause_of() { # the likely cause a mistake must name first
    case $1-$2 in
        *-swap) echo "not as the check's (.*): the axes exchanged (the rows' positions for the columns', h and w swapped or the grid transposed)";;
        *-interleaved) echo "the cache is in the interleaved layout but is checked as half: it was built for the other layout";;
        qwen2-texttheta|qwen25-texttheta) echo "with the frequencies of base 1e+06, the text model's rope_theta, not the vision tower's 10000";;
        qwen3-texttheta) echo "with the frequencies of base 5e+06, the text model's rope_theta";;
        llama4-texttheta) echo "with the frequencies of base 500000, the text model's rope_theta";;
        pixtral-texttheta) echo "with the frequencies of base 1e+09, the text model's rope_theta";;
        qwen2-wholehead) echo "exponents over twice the axis' dims (base^(-2j/80), the whole head's, not base^(-2j/40)";;
        qwen3-wholehead) echo "exponents over twice the axis' dims (base^(-2j/72), the whole head's, not base^(-2j/36)";;
        llama4-wholehead) echo "exponents over twice the axis' dims (base^(-2j/88), the whole head's, not base^(-2j/44)";;
        pixtral-wholehead) echo "the axes each turn at a schedule of their own (base^(-2j/32), --rope-axes-dim without --rope-axes-parity)";;
    esac
}
echo "$CASES" | while read -r k v g; do
    case $v in ok|texthead|"") continue;; esac
    d=$tmp/$k-$v-$g
    gate "$k" "$v" "$g"
    rc=$?
    want=$(cause_of "$k" "$v")
    [ $rc -eq 1 ] && grep -q "FAIL .* rope accuracy \[.*likely cause: .*$want" "$d/out" &&
        grep "FAIL .* rope accuracy \[" "$d/out" | head -n 1 | grep -q "likely cause: [^;]*$(echo "$want" | cut -c1-20)"
    ok $? "$k $v: fails, the likely cause first: $(echo "$want" | cut -c1-70)" "$d/out"
done >"$tmp/wrong.tap"
cat "$tmp/wrong.tap"
n=$((n + $(grep -c '^\(not \)\?ok' "$tmp/wrong.tap")))
fails=$((fails + $(grep -c '^not ok' "$tmp/wrong.tap")))

# the text model's head dim: the cache is of another width, exit 2 saying whose it is
for k in qwen2 llama4 pixtral; do
    g=12x20; [ $k = llama4 ] && g=24x24
    gate $k texthead $g
    rc=$?
    [ $rc -eq 2 ] && grep -q "d = 128 .*: d is the text model's head dim, not the vision tower's" "$tmp/$k-texthead-$g/out"
    ok $? "$k with the text model's head dim: exit 2 naming it (exit $rc)" "$tmp/$k-texthead-$g/out"
done

# a replay line carries --tower vision and reproduces the failure
d=$tmp/qwen2-texttheta-12x20
sed -n 's/.*replay: pecheck //p' "$d/out" | head -n 1 >"$d/replay"
line=$(cat "$d/replay")
prop=$(sed 's/.*--property \([a-z-]*\).*/\1/' "$d/replay")
eval "\"$PECHECK\" $line --regressions off" >"$d/replayed" 2>&1
rc=$?
grep -q -- "--tower vision" "$d/replay" && [ $rc -eq 1 ] && grep -q "^FAIL .* rope $prop " "$d/replayed"
ok $? "a replay line carries --tower vision and reproduces the failure ($prop, exit $rc)" "$d/replayed"

# exit 2 naming the file and the key
exit2() { # exit2 PATTERN NAME ARGS...
    pat=$1; name=$2; shift 2
    "$PECHECK" "$@" >"$tmp/o" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -q -- "$pat" "$tmp/o"
    ok $? "$name (exit $rc)" "$tmp/o"
}
Q=$tmp/qwen2-ok-16x16
T="--table $Q/cos.npy --table-sin $Q/sin.npy"
exit2 "Llama-3.1-8B.json: --tower vision reads vision_config, which this config has not (a text-only model)" \
    "--tower vision on a text-only config names the file and vision_config" \
    check $T --position-ids "$Q/pos.npy" --hf-config "$C/meta-llama--Llama-3.1-8B.json" --tower vision
exit2 "gemma-3-4b-it.json: vision_config (model_type siglip_vision_model): the vision tower uses no RoPE" \
    "Gemma 3's SigLIP tower: exit 2, no RoPE" \
    check $T --position-ids "$Q/pos.npy" --hf-config "$C/google--gemma-3-4b-it.json" --tower vision
exit2 "expected text or vision, got 'visoin' (did you mean --tower vision?)" \
    "an unknown --tower value: exit 2 with did-you-mean" \
    check $T --hf-config "$C/Qwen--Qwen2-VL-7B-Instruct.json" --tower visoin
exit2 "the vision tower of .*Qwen2-VL-7B-Instruct.json is 2-D .*give --position-ids POS.npy, int64 of shape (n, 2).*(row, column) of each patch" \
    "--tower vision without --position-ids: exit 2 saying the tower is 2-D" \
    check $T --hf-config "$C/Qwen--Qwen2-VL-7B-Instruct.json" --tower vision
"$PY" -c "import numpy, sys; numpy.save(sys.argv[1], numpy.arange(256, dtype=numpy.int64))" "$tmp/ids1.npy"
exit2 "the vision tower of .* splits the pairs into 2 axes but .*ids1.npy has 1 position axis" \
    "--tower vision with ids of one axis: exit 2" \
    check $T --position-ids "$tmp/ids1.npy" --hf-config "$C/Qwen--Qwen2-VL-7B-Instruct.json" --tower vision
exit2 "--tower vision: the axes and the schedule come from .*vision_config: drop --rope-axes-dim" \
    "--tower vision with --rope-axes-dim: exit 2 (the config gives the axes)" \
    check $T --position-ids "$Q/pos.npy" --hf-config "$C/Qwen--Qwen2-VL-7B-Instruct.json" --tower vision --rope-axes-dim 40,40
sed 's/"num_heads": 16,/"num_heads": 16, "rope_theta": 10000,/' "$C/Qwen--Qwen2-VL-7B-Instruct.json" >"$tmp/qtheta.json"
exit2 "qtheta.json: vision_config.rope_theta is not understood by pecheck: Qwen2-VL's VisionRotaryEmbedding" \
    "a rope key that the tower's code does not read: exit 2 naming it" \
    check $T --position-ids "$Q/pos.npy" --hf-config "$tmp/qtheta.json" --tower vision
# Pixtral's vision_config holds rope_theta 10000; rope_parameters.rope_theta
# beside it is read too: a different value names both keys and values, an
# equal one passes (the reader compares them, it does not take one)
for th in 20000 10000; do
    "$PY" -c "import json, sys; c = json.load(open(sys.argv[1])); \
c['vision_config']['rope_parameters'] = {'rope_type': 'default', 'rope_theta': float(sys.argv[2])}; \
json.dump(c, open(sys.argv[3], 'w'))" "$C/mistralai--Mistral-Small-3.1-24B-Instruct-2503.json" "$th" "$tmp/ptheta$th.json"
done
P=$tmp/pixtral-ok-16x16
exit2 "ptheta20000.json: vision_config.rope_theta (10000) and vision_config.rope_parameters.rope_theta (20000) disagree" \
    "vision_config.rope_theta and rope_parameters.rope_theta disagreeing: exit 2 naming both keys and values" \
    check --table "$P/cos.npy" --table-sin "$P/sin.npy" --position-ids "$P/pos.npy" --hf-config "$tmp/ptheta20000.json" --tower vision
"$PECHECK" check --table "$P/cos.npy" --table-sin "$P/sin.npy" --position-ids "$P/pos.npy" --hf-config "$tmp/ptheta10000.json" \
    --tower vision --cases 5 --regressions off >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "PASS .* rope accuracy .*base 10000" "$tmp/o"
ok $? "the two theta keys equal: the config is read, the cache passes" "$tmp/o"
sed 's/"hidden_size": 1408,/"hidden_size": 1440,/' "$C/meta-llama--Llama-4-Scout-17B-16E-Instruct.json" >"$tmp/l4odd.json"
exit2 "l4odd.json: the vision head dim 90 (vision_config.hidden_size 1440 // num_attention_heads 16) is not a multiple of 4" \
    "Llama 4 with an odd freq_dim (not expressible as axial RoPE): exit 2 naming the keys" \
    check $T --position-ids "$Q/pos.npy" --hf-config "$tmp/l4odd.json" --tower vision
"$PECHECK" check $T --hf-config "$C/Qwen--Qwen2-VL-7B-Instruct.json" --tower text --cases 5 --regressions off --quiet >"$tmp/o" 2>&1
[ $? -eq 2 ] && grep -q "rotary dim is 128 but the cache or --d has d = 80" "$tmp/o"
ok $? "--tower text (the default) reads the text model: the vision cache's width is not its head dim" "$tmp/o"

# the Python package: tower= passes through `pecheck help check`
PYTHONPATH=$root/python PECHECK=$PECHECK "$PY" - "$tmp" "$C" >"$tmp/py" 2>&1 <<'END'
import sys
import numpy as np
import pecheck
tmp, C = sys.argv[1], sys.argv[2]
cfg = C + "/Qwen--Qwen2.5-VL-7B-Instruct.json"
def run(v):
    d = "%s/qwen25-%s-12x20/" % (tmp, v)
    return pecheck.check_rope_cache(np.load(d + "cos.npy"), np.load(d + "sin.npy"), hf_config=cfg,
                                    tower="vision", position_ids=np.load(d + "pos.npy"),
                                    properties=["accuracy"], keep=False)
good, bad = run("ok"), run("swap")
print("ok:", good.passed, "swap:", bad.passed)
sys.exit(0 if good.passed and not bad.passed else 1)
END
ok $? "check_rope_cache(hf_config=, tower='vision', position_ids=) passes the right cache, fails the swapped one" "$tmp/py"

echo "1..$n"
[ "$fails" -eq 0 ]
