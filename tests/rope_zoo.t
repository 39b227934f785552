#!/bin/sh
# rope_zoo.t: the RoPE of the popular model families, gated from their
# published config.json alone (tests/data/configs/, where each comes from:
# tests/data/README.md) against the caches their own code builds
# (tests/lib/zoo_caches.py names the code each follows).
#
#   - every model's correct cache passes `pecheck check --table cos.npy
#     --table-sin sin.npy --hf-config config.json`, in float32 and in the
#     dtype the model ships in (torch_dtype: bfloat16 as '<u2' bits with
#     --dtype bf16, float16 as '<f2'); the worst err/bound of each is
#     printed as a TAP comment;
#   - the mistakes fail with the right likely cause: a wrong base, factor,
#     original length, a dropped attention factor, the local (sliding) layers'
#     base checked as the global one and back (Gemma 3, --layer-type), the
#     frequencies of the whole head on the rotary dims (partial rotary,
#     DeepSeek's rope slice), ChatGLM's rope_ratio left out, gpt-oss's
#     correction range truncated;
#   - what is not RoPE or not understood is exit 2 naming the file and key.
# Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp zoo
C=$root/tests/data/configs

# CONFIG SHIPPED-DTYPE (the dtype of torch_dtype; - : float32 only)
MODELS="
meta-llama--Llama-2-7b-hf float16
meta-llama--Meta-Llama-3-8B bfloat16
meta-llama--Llama-3.1-8B bfloat16
meta-llama--Llama-3.2-1B bfloat16
meta-llama--Llama-4-Scout-17B-16E-Instruct bfloat16
mistralai--Mistral-7B-v0.1 bfloat16
mistralai--Mistral-Nemo-Base-2407 bfloat16
mistralai--Mixtral-8x7B-v0.1 bfloat16
Qwen--Qwen2-7B-Instruct bfloat16
Qwen--Qwen2.5-7B-Instruct-yarn bfloat16
Qwen--Qwen3-8B bfloat16
Qwen--Qwen2-VL-7B-Instruct bfloat16
Qwen--Qwen2.5-VL-7B-Instruct bfloat16
Qwen--Qwen3-VL-8B-Instruct bfloat16
google--gemma-7b bfloat16
google--gemma-2-9b -
google--gemma-3-1b-it bfloat16
google--gemma-3-4b-it bfloat16
google--gemma-3-4b-it-rope_parameters bfloat16
microsoft--phi-2 float16
microsoft--Phi-3-mini-4k-instruct bfloat16
microsoft--Phi-3.5-mini-instruct bfloat16
microsoft--phi-4 bfloat16
deepseek-ai--DeepSeek-V2-Lite bfloat16
deepseek-ai--DeepSeek-V3 bfloat16
EleutherAI--gpt-j-6b float16
EleutherAI--gpt-neox-20b float16
EleutherAI--pythia-1b float16
tiiuae--falcon-7b bfloat16
stabilityai--stablelm-3b-4e1t bfloat16
stabilityai--stablelm-2-1_6b float16
allenai--OLMo-7B-hf -
allenai--OLMo-2-1124-7B -
allenai--OLMo-7B -
CohereForAI--c4ai-command-r-v01 float16
CohereForAI--c4ai-command-r7b-12-2024 bfloat16
THUDM--chatglm3-6b float16
THUDM--glm-4-9b-chat bfloat16
internlm--internlm2_5-7b-chat bfloat16
internlm--internlm-7b float16
openai--gpt-oss-20b bfloat16
"
# under the sanitizers (make check SANITIZE=1, BUILD=.../build-san) the
# shipped dtype's copies are left out: their '<u2' and '<f2' readers and
# half-storage bound are the float32 copies' C paths plus those of
# tests/rope_schedules.t's bfloat16 and float16 caches, and this file took
# 137 s CPU there (measured), the sanitizer pass's largest
SHIPPED=1
case "${BUILD:-}" in *build-san*) SHIPPED=0 ;; esac

# CONFIG VARIANT CAUSE (float32, 8192 positions; EXTRA options after '|')
WRONG="
meta-llama--Llama-2-7b-hf base wrong base
meta-llama--Meta-Llama-3-8B base wrong base
meta-llama--Llama-3.1-8B factor lowest-frequency pairs.*2 times the schedule
meta-llama--Llama-3.1-8B origlen original length 32768; the check used original length 8192
meta-llama--Llama-3.2-1B factor lowest-frequency pairs.*2 times the schedule
meta-llama--Llama-4-Scout-17B-16E-Instruct factor 2 times the schedule's: a wrong scaling factor
meta-llama--Llama-4-Scout-17B-16E-Instruct base wrong base
mistralai--Mistral-7B-v0.1 base wrong base
mistralai--Mistral-Nemo-Base-2407 base wrong base
mistralai--Mixtral-8x7B-v0.1 base wrong base
Qwen--Qwen2-7B-Instruct base wrong base
Qwen--Qwen2.5-7B-Instruct-yarn factor yarn with factor 2; the check used factor 4
Qwen--Qwen2.5-7B-Instruct-yarn origlen original length 131072; the check used original length 32768
Qwen--Qwen2.5-7B-Instruct-yarn noatt the attention factor is missing
Qwen--Qwen3-8B base wrong base
Qwen--Qwen2-VL-7B-Instruct base wrong base
Qwen--Qwen3-VL-8B-Instruct base wrong base
google--gemma-7b base wrong base
google--gemma-2-9b base wrong base
google--gemma-3-1b-it local matches layer type sliding_attention.*pass --layer-type sliding_attention
google--gemma-3-1b-it ok matches layer type full_attention.*pass --layer-type full_attention|--layer-type sliding_attention
google--gemma-3-4b-it local matches layer type sliding_attention.*pass --layer-type sliding_attention
google--gemma-3-4b-it ok matches layer type full_attention.*pass --layer-type full_attention|--layer-type sliding_attention
google--gemma-3-4b-it factor linear with factor 4; the check used factor 8
google--gemma-3-4b-it-rope_parameters local matches layer type sliding_attention.*pass --layer-type sliding_attention
microsoft--phi-2 pairs over the whole head (80 dims) on the 32 rotary dims
microsoft--Phi-3-mini-4k-instruct base wrong base
microsoft--Phi-3.5-mini-instruct factor a different attention factor
microsoft--Phi-3.5-mini-instruct noatt the attention factor is missing
microsoft--phi-4 base wrong base
deepseek-ai--DeepSeek-V3 slice over the whole head (192 dims) on the 64 rotary dims.*rope slice
deepseek-ai--DeepSeek-V3 factor yarn with factor 20; the check used factor 40
deepseek-ai--DeepSeek-V3 origlen original length 16384; the check used original length 4096
deepseek-ai--DeepSeek-V2-Lite slice over the whole head (192 dims) on the 64 rotary dims.*rope slice
EleutherAI--gpt-j-6b pairs over the whole head (256 dims) on the 64 rotary dims
EleutherAI--gpt-j-6b base wrong base
EleutherAI--gpt-neox-20b pairs over the whole head (96 dims) on the 24 rotary dims
EleutherAI--pythia-1b pairs over the whole head (256 dims) on the 64 rotary dims
tiiuae--falcon-7b base wrong base
stabilityai--stablelm-3b-4e1t pairs over the whole head (80 dims) on the 20 rotary dims
stabilityai--stablelm-2-1_6b base wrong base
allenai--OLMo-7B-hf base wrong base
allenai--OLMo-2-1124-7B base wrong base
allenai--OLMo-7B base wrong base
CohereForAI--c4ai-command-r-v01 base wrong base
CohereForAI--c4ai-command-r7b-12-2024 base wrong base
THUDM--chatglm3-6b base wrong base
THUDM--glm-4-9b-chat ratio base 10000, not 5e+06: a wrong base
internlm--internlm2_5-7b-chat base wrong base
internlm--internlm-7b base wrong base
openai--gpt-oss-20b noatt the attention factor is missing
openai--gpt-oss-20b truncate other frequencies than the schedule
openai--gpt-oss-20b factor a different attention factor.*2 times the schedule
"

{
    echo "$MODELS" | while read -r m dt; do
        [ -n "$m" ] || continue
        echo "$C/$m.json ok float32 4096 $tmp/$m-ok-float32"
        [ "$dt" != - ] && [ $SHIPPED = 1 ] && echo "$C/$m.json ok $dt 4096 $tmp/$m-ok-$dt"
    done
    echo "$WRONG" | while read -r m v cause; do
        [ -n "$m" ] && echo "$C/$m.json $v float32 8192 $tmp/$m-$v"
    done
} | sort -u >"$tmp/list"
"$PY" "$root/tests/lib/zoo_caches.py" - <"$tmp/list" >"$tmp/gen.log" 2>&1
ok $? "build $(wc -l <"$tmp/list") caches with the models' own code (PyTorch)" "$tmp/gen.log"

# gate DIR CONFIG DTYPE [OPTIONS...]: pecheck check on the cache in DIR
gate() {
    dir=$1; cfg=$2; x=""
    [ "$3" = bfloat16 ] && x="--dtype bf16"
    shift 3
    "$PECHECK" check --table "$dir/cos.npy" --table-sin "$dir/sin.npy" --hf-config "$cfg" $x \
        --cases 10 --regressions off --quiet "$@" >"$dir/out" 2>&1
}

echo "$MODELS" | while read -r m dt; do
    [ -n "$m" ] || continue
    for t in float32 $dt; do
        [ "$t" = - ] && continue
        [ "$t" != float32 ] && [ $SHIPPED = 0 ] && continue
        d=$tmp/$m-ok-$t
        gate "$d" "$C/$m.json" "$t"
        ok $? "$m $t: the correct cache passes from config.json alone" "$d/out"
        r=$(sed -n 's/.*accuracy \[[a-z]*\]:.*max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$d/out" | sort -g | tail -n 1)
        echo "# $m $t: worst err/bound $r"
    done
done >"$tmp/ok.tap"
cat "$tmp/ok.tap"
n=$((n + $(grep -c '^\(not \)\?ok' "$tmp/ok.tap")))
fails=$((fails + $(grep -c '^not ok' "$tmp/ok.tap")))

# the config's pairs beside the cache's layout: DeepSeek-V3's cache is
# cat(freqs, freqs) (half) while its code rotates (2i, 2i + 1) after
# de-interleaving q and k: it passes, its cache-layout verdict saying so;
# Llama's (half, rotate_half) carries no such note
ds=$tmp/deepseek-ai--DeepSeek-V3-ok-float32/out
grep -q "cache-layout \[half\]:.*note: the model's code rotates the interleaved pairs (model_type deepseek_v3 rotates (2i, 2i + 1)" "$ds" &&
    ! grep -q "note: the model's code rotates" "$tmp/meta-llama--Llama-3.1-8B-ok-float32/out"
ok $? "a cache in the other layout than the model's pairs passes with a note naming the pairs and --layout" "$ds"

echo "$WRONG" | while read -r m v rest; do
    [ -n "$m" ] || continue
    cause=${rest%%|*}
    extra=""
    case $rest in *"|"*) extra=${rest#*|};; esac
    d=$tmp/$m-$v
    [ "$v" = ok ] && d=$tmp/$m-ok-float32
    # shellcheck disable=SC2086
    gate "$d" "$C/$m.json" float32 $extra
    rc=$?
    [ $rc -eq 1 ] && grep -q "accuracy \[.*likely cause:.*$cause" "$d/out"
    ok $? "$m, $v${extra:+ ($extra)}: fails naming '$cause'" "$d/out"
done >"$tmp/wrong.tap"

cat "$tmp/wrong.tap"
n=$((n + $(grep -c '^\(not \)\?ok' "$tmp/wrong.tap")))
fails=$((fails + $(grep -c '^not ok' "$tmp/wrong.tap")))

# every replay line of a failing run under --hf-config reproduces its failure
# (a sample of the mistakes: schedule, layer type, rotary dim, attention factor,
# ChatGLM's rope_ratio, DeepSeek's slice)
for mv in meta-llama--Llama-3.1-8B-factor google--gemma-3-1b-it-local EleutherAI--gpt-j-6b-pairs \
          Qwen--Qwen2.5-7B-Instruct-yarn-noatt THUDM--glm-4-9b-chat-ratio deepseek-ai--DeepSeek-V3-slice; do
    d=$tmp/$mv
    "$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --hf-config "$C/${mv%-*}.json" \
        --cases 10 --regressions off >"$d/full" 2>&1
    sed -n 's/.*replay: pecheck //p' "$d/full" >"$d/replays"
    good=0; all=0
    while read -r line; do
        all=$((all + 1))
        prop=$(echo "$line" | sed 's/.*--property \([a-z-]*\).*/\1/')
        eval "\"$PECHECK\" $line --regressions off" >"$d/replayed" 2>&1
        [ $? -eq 1 ] && grep -q "^FAIL .* rope $prop " "$d/replayed" && good=$((good + 1))
    done <"$d/replays"
    [ "$all" -gt 0 ] && [ "$good" -eq "$all" ] && grep -q -- "--hf-config" "$d/replays"
    ok $? "$mv: its $all replay lines carry --hf-config and reproduce the failure ($good)" "$d/replays"
done

# what is not RoPE, or not understood: exit 2 naming the file and the key
exit2() { # exit2 PATTERN NAME ARGS...
    pat=$1; name=$2; shift 2
    "$PECHECK" "$@" >"$tmp/o" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -q -- "$pat" "$tmp/o"
    ok $? "$name (exit $rc)" "$tmp/o"
}
T="--table $tmp/meta-llama--Llama-3.1-8B-ok-float32/cos.npy --table-sin $tmp/meta-llama--Llama-3.1-8B-ok-float32/sin.npy"
exit2 "falcon-rw-1b.json: alibi is true: this model's positions are ALiBi, not RoPE" \
    "Falcon-RW (ALiBi) is not RoPE" check $T --hf-config "$C/tiiuae--falcon-rw-1b.json"
sed 's/"rope_theta": 500000.0,/"rope_theta": 500000.0, "rope_yarn_magic": 3,/' \
    "$C/meta-llama--Llama-3.1-8B.json" >"$tmp/unknown.json"
exit2 "unknown.json: rope_yarn_magic is not understood by pecheck" \
    "a RoPE key pecheck does not read is exit 2 naming it" check $T --hf-config "$tmp/unknown.json"
sed 's/"rope_type": "llama3"/"rope_type": "llama3", "smoothing": 2/' \
    "$C/meta-llama--Llama-3.1-8B.json" >"$tmp/unknown2.json"
exit2 "unknown2.json: rope_scaling.smoothing is not understood by pecheck" \
    "an unknown key of rope_scaling is exit 2 naming it" check $T --hf-config "$tmp/unknown2.json"
exit2 "layer types full_attention, sliding_attention" "--layer-type that the config has not is exit 2 listing its own" \
    check $T --hf-config "$C/google--gemma-3-1b-it.json" --layer-type chunked_attention
exit2 "has one encoding for all its layers and no layer type sliding_attention" \
    "--layer-type on a config with one encoding and no such layer type is exit 2" \
    check $T --hf-config "$C/meta-llama--Llama-3.1-8B.json" --layer-type sliding_attention
G=$tmp/openai--gpt-oss-20b-ok-float32
"$PECHECK" check --table "$G/cos.npy" --table-sin "$G/sin.npy" --hf-config "$C/openai--gpt-oss-20b.json" \
    --layer-type sliding_attention --cases 5 --quiet --regressions off >"$tmp/o" 2>&1
ok $? "--layer-type of a config whose layer types share one encoding is accepted (gpt-oss)" "$tmp/o"

echo "1..$n"
[ "$fails" -eq 0 ]
