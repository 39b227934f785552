#!/bin/sh
# rope_schedules.t: RoPE caches of production models, built with PyTorch as
# HuggingFace transformers builds them (tests/lib/rope_caches.py follows the
# published formulas), gated with `pecheck check --hf-config config.json`.
#
# For each model (Llama-3.1-8B llama3, Qwen2.5-7B YaRN x4, Phi-3.5-mini
# longrope, linear x8, dynamic NTK x2 built for 16k, GPT-NeoX-20B partial
# rotary 24 of 96 dims) and storage (float32, float16 '<f2', bfloat16 as '<u2'
# bits and widened to float32, both with --dtype bf16): the correct cache
# passes the accuracy gate, and the mistakes fail with the right likely
# cause: a wrong factor, a wrong original length, a missing attention factor,
# the schedule on other pairs, a wrong base.  The worst err/bound of every
# correct cache is printed as a TAP comment.  Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp sched

# positions per model: 8192 (dynamic: 16384, the length its cache is built for)
len() { [ "$1" = dynamic2 ] && echo 16384 || echo 8192; }
MODELS="llama31 qwen25yarn phi35 linear8 dynamic2 neox20b"
DTYPES="float32 float16 bfloat16 bfloat16w"
# the storages each mistake is built in; under the sanitizers (make check
# SANITIZE=1, BUILD=.../build-san) float32 alone: the bfloat16 mistakes run
# the same C paths as the bfloat16 correct caches above them and float32's
# mistakes, and would double this file's time there (81 s CPU, measured)
WRONG_DTYPES="float32 bfloat16"
case "${BUILD:-}" in *build-san*) WRONG_DTYPES="float32" ;; esac
# the mistakes that apply to each model, with the cause pecheck must name
# at float32 and at bfloat16 (MODEL VARIANT F32-CAUSE;BF16-CAUSE).  In
# bfloat16 the lowest frequencies turn too little over 8192 positions to be
# fitted (the phase of a stored pair is good to 2^-6 rad), so a wrong llama3
# or yarn factor shows only on the pairs of the band or ramp.
WRONG="
llama31 factor lowest-frequency pairs.*times the schedule;other frequencies than the schedule
llama31 origlen other frequencies than the schedule;other frequencies than the schedule
llama31 pairs other frequencies than the schedule;other frequencies than the schedule
llama31 base wrong base;wrong base
qwen25yarn factor attention factor.*lowest-frequency pairs;attention factor.*other frequencies
qwen25yarn origlen other frequencies than the schedule;other frequencies than the schedule
qwen25yarn noatt attention factor is missing;attention factor is missing
qwen25yarn pairs other frequencies than the schedule;other frequencies than the schedule
qwen25yarn base wrong base;wrong base
phi35 factor different attention factor;different attention factor
phi35 origlen attention factor.*other frequencies;attention factor.*other frequencies
phi35 noatt attention factor is missing;attention factor is missing
phi35 pairs other frequencies than the schedule;other frequencies than the schedule
phi35 base wrong base;wrong base
linear8 factor pairs.*2 times the schedule;pairs.*2 times the schedule
linear8 base wrong base;wrong base
dynamic2 factor wrong factor or sequence length;wrong factor or sequence length
dynamic2 origlen wrong factor or sequence length;wrong factor or sequence length
dynamic2 pairs other frequencies than the schedule;other frequencies than the schedule
dynamic2 base wrong base;wrong base
neox20b pairs head dim, not the rotary dim;head dim, not the rotary dim
neox20b base wrong base;wrong base
"

{
    for m in $MODELS; do for dt in $DTYPES; do echo "$m ok $dt $(len $m) $tmp/$m-ok-$dt"; done; done
    echo "$WRONG" | while read -r m v cause; do
        [ -n "$m" ] || continue
        for dt in $WRONG_DTYPES; do echo "$m $v $dt $(len $m) $tmp/$m-$v-$dt"; done
    done
} >"$tmp/list"
"$PY" "$root/tests/lib/rope_caches.py" - <"$tmp/list" >"$tmp/gen.log" 2>&1
ok $? "build $(wc -l <"$tmp/list") caches with PyTorch" "$tmp/gen.log"

# gate DIR DTYPE: pecheck check on the cache in DIR with its config.json
gate() {
    x=""
    case $2 in bfloat16*) x="--dtype bf16";; esac
    "$PECHECK" check --table "$1/cos.npy" --table-sin "$1/sin.npy" --hf-config "$1/config.json" \
        $x --family rope --layout half --cases 20 --regressions off --quiet >"$1/out" 2>&1
}

for m in $MODELS; do
    for dt in $DTYPES; do
        d=$tmp/$m-ok-$dt
        gate "$d" "$dt"
        ok $? "$m $dt: the correct cache passes" "$d/out"
        ratio=$(sed -n 's/.*accuracy \[half\]:.*max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$d/out")
        echo "# $m $dt: worst err/bound $ratio"
    done
done

# the storage is said: <f2 float16 by default, <u2 bfloat16 bits
grep -q "f16 storage: binary32 values rounded once" "$tmp/llama31-ok-float16/out"
ok $? "a <f2 cache is judged as float16 storage, and the output says so" "$tmp/llama31-ok-float16/out"
"$PECHECK" check --table "$tmp/llama31-ok-bfloat16/cos.npy" --table-sin "$tmp/llama31-ok-bfloat16/sin.npy" \
    --hf-config "$tmp/llama31-ok-bfloat16/config.json" --quiet --regressions off >"$tmp/o" 2>&1
[ $? -eq 2 ] && grep -q "pass --dtype bf16" "$tmp/o"
ok $? "a <u2 cache without --dtype bf16 is exit 2 naming the option" "$tmp/o"

echo "$WRONG" | while read -r m v cause; do
    [ -n "$m" ] || continue
    for dt in $WRONG_DTYPES; do
        d=$tmp/$m-$v-$dt
        gate "$d" "$dt"
        rc=$?
        want=${cause%;*}
        [ $dt = bfloat16 ] && want=${cause#*;}
        [ $rc -eq 1 ] && grep -q "accuracy \[half\].*likely cause:.*$want" "$d/out"
        ok $? "$m $dt, wrong $v: fails naming '$want'" "$d/out"
    done
done >"$tmp/wrong.tap"
cat "$tmp/wrong.tap"
n=$((n + $(grep -c '^\(not \)\?ok' "$tmp/wrong.tap")))
fails=$((fails + $(grep -c '^not ok' "$tmp/wrong.tap")))

echo "1..$n"
[ "$fails" -eq 0 ]
