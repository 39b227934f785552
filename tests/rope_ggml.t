#!/bin/sh
# rope_ggml.t: llama.cpp's CPU rope (ggml's cumulative product theta *=
# powf(base, -2/n_dims), rope_yarn's ramp mix and mscale, rope_freqs
# factors), built in numpy float32 by tests/lib/ggml_rope_cache.py, gated
# with `pecheck check --hf-config` of the model: every schedule's class
# admits llama.cpp's formulation (docs/schedules.md, "The precision model
# of a schedule").
#
# - DeepSeek-V3 (YaRN factor 40, rope dim 64, original length 4096) at
#   positions 159744..163839 of its 163840: the correct cache passes (it
#   failed at 1.45, pair 26 at position 160284, when the YaRN class had
#   only HF's float32 constants); beta_fast and beta_slow swapped, a factor
#   of 4, a base of 10100 fail;
# - Llama-2 (default), linear x8, Llama-3.1 (llama3 as rope_freqs),
#   Qwen2.5 YaRN x4, Phi-3.5 (longrope as rope_freqs) at positions
#   520192..524287 pass (2.18, 2.02, 0.847, 0.992, 0.817 before);
# - the radial part of YaRN has llama.cpp's binary32 mscale (R = 7 where
#   A = 1, JSON bound.R);
# - the likely cause names a constant added to the angle only when it was
#   checked: not for the correct DeepSeek cache under --strict (a drift that
#   grows with the angle), and for a cache whose angles are all 0.05 rad
#   too large.
# The worst err/bound of each correct cache is printed as a TAP comment.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
if ! "$PY" -c 'import numpy' >/dev/null 2>&1; then
    echo "1..0 # SKIP numpy not available to $PY"
    exit 0
fi
tap_tmp ggml
cfgs=$root/tests/data/configs
# linear x8 of Llama-2 (tests/lib/rope_caches.py's linear8)
cat >"$tmp/linear8.json" <<'JSON'
{"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0,
 "max_position_embeddings": 32768, "rope_scaling": {"type": "linear", "factor": 8.0}}
JSON

# build NAME CONFIG VARIANT P0: the cache of 4096 positions from P0 in $tmp/NAME
build() {
    "$PY" "$root/tests/lib/ggml_rope_cache.py" "$2" "$3" 4096 "$4" "$tmp/$1" >"$tmp/$1.log" 2>&1
}
# gate NAME P0 [OPTIONS]: the accuracy gate on $tmp/NAME with its config
gate() {
    g=$1 p=$2
    shift 2
    "$PECHECK" check --table "$tmp/$g/cos.npy" --table-sin "$tmp/$g/sin.npy" \
        --hf-config "$tmp/$g/config.json" --pos-start "$p" --family rope --layout half \
        --property accuracy --regressions off "$@" >"$tmp/$g.out" 2>&1
}
ratio() { sed -n 's/.*accuracy \[half\]:.*max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$tmp/$1.out"; }

ds=$cfgs/deepseek-ai--DeepSeek-V3.json
for v in ok betaswap factor4 base rad05; do
    build "ds-$v" "$ds" "$v" 159744
    ok $? "build llama.cpp's DeepSeek-V3 YaRN cache ($v) at 159744..163839" "$tmp/ds-$v.log"
done
gate ds-ok 159744
ok $? "DeepSeek-V3: llama.cpp's YaRN cache passes at positions 159744..163839" "$tmp/ds-ok.out"
echo "# DeepSeek-V3 llama.cpp YaRN, positions 159744..163839: worst err/bound $(ratio ds-ok)"
# the radial part: R 5 + 2 for llama.cpp's binary32 mscale (A = 1)
gate ds-ok 159744 --format json --output "$tmp/ds.json" &&
    "$PY" -c 'import json, sys; b = json.load(open(sys.argv[1]))["results"][0]["data"]["bound"]
assert b["R"] == 7 and b["u"] == 2.0 ** -24, b' "$tmp/ds.json" >>"$tmp/ds-ok.out" 2>&1
ok $? "DeepSeek-V3: JSON bound.R 7 (llama.cpp's mscale), u 2^-24" "$tmp/ds-ok.out"
for v in betaswap factor4 base; do
    gate "ds-$v" 159744
    [ $? -eq 1 ] && grep -q "^FAIL .*accuracy" "$tmp/ds-$v.out"
    ok $? "DeepSeek-V3: llama.cpp's cache with $v fails" "$tmp/ds-$v.out"
done

# the same as a C plugin rotating inputs (tests/plugins/rope_yarn_ggml.c,
# glibc's powf and logf), and with beta_fast and beta_slow swapped
for v in "ok" "betaswap -DBETA_FAST=1 -DBETA_SLOW=32"; do
    set -- $v
    name=$1
    shift
    ${CC:-cc} -O1 -shared -fPIC -I"$root/include" -DFACTOR=40 -DN_CTX_ORIG=4096 -DDEEPSEEK "$@" \
        "$root/tests/plugins/rope_yarn_ggml.c" -o "$tmp/ds-$name.so" -lm >"$tmp/cc.log" 2>&1
    "$PECHECK" check --plugin "$tmp/ds-$name.so" --hf-config "$ds" --family rope --property accuracy \
        --positions 159744:163839 --regressions off >"$tmp/plugin-$name.out" 2>&1
    rc=$?
    if [ "$name" = ok ]; then
        [ $rc -eq 0 ]
        ok $? "DeepSeek-V3: llama.cpp's rope_yarn as a plugin passes at 159744..163839" "$tmp/plugin-$name.out"
    else
        [ $rc -eq 1 ]
        ok $? "DeepSeek-V3: the plugin with beta_fast and beta_slow swapped fails" "$tmp/plugin-$name.out"
    fi
done

p0=520192
for m in "llama2 $cfgs/meta-llama--Llama-2-7b-hf.json" "linear8 $tmp/linear8.json" \
         "llama31 $cfgs/meta-llama--Llama-3.1-8B.json" "qwen25yarn $cfgs/Qwen--Qwen2.5-7B-Instruct-yarn.json" \
         "phi35 $cfgs/microsoft--Phi-3.5-mini-instruct.json"; do
    set -- $m
    build "$1" "$2" ok $p0
    gate "$1" $p0
    ok $? "$1: llama.cpp's cache passes at positions $p0..$((p0 + 4095))" "$tmp/$1.out"
    echo "# $1 llama.cpp, positions $p0..$((p0 + 4095)): worst err/bound $(ratio "$1")"
done

# the likely cause: a constant added to the angle only where it holds
gate ds-ok 159744 --strict
[ $? -eq 1 ] && ! grep -q "constant added to the angle" "$tmp/ds-ok.out"
ok $? "--strict: llama.cpp's drift is not called a constant added to the angle" "$tmp/ds-ok.out"
gate ds-rad05 159744
[ $? -eq 1 ] && grep -q "every angle is off by +0.05 rad.*constant added to the angle" "$tmp/ds-rad05.out"
ok $? "angles 0.05 rad too large: a constant added to the angle" "$tmp/ds-rad05.out"

echo "1..$n"
[ "$fails" -eq 0 ]
