#!/bin/sh
# rope_causes_more.t: causes pecheck names from a cache's rows, each
# checked before it is said (docs/diagnosis.md), on caches built here
# (tests/lib/causes_more_caches.py: HF's formulas, one mistake each):
#   - rows that repeat with a period (positions restart, or taken modulo
#     P): P named, for Llama-2 (1000) and Qwen2.5 YaRN (3072); an offset
#     cache (p + 1) is named as such, not as a period;
#   - sin's rows those of p + 1 under cos's of p (the caches indexed apart);
#   - cos and sin of different amplitudes (the attention factor on sin
#     only; cos alone scaled by 0.96);
#   - a linear factor inverted (frequencies times 8, not divided): 1/8
#     named, not the aliased ratio the fit sees;
#   - LongRoPE's short factors on the first rows and the long ones after:
#     the switch row named;
#   - dynamic NTK's cache built for a longer sequence: the length named,
#     and the rerun with that --seq-len passes (the claim's check);
#   - an interleaved cache cut with [..., :d/2]: fails (exit 1) with the
#     slice named and [..., ::2] given; the [..., ::2] form passes;
#   - Llama 3's low_freq_factor and high_freq_factor swapped (Llama-3.2-1B):
#     named, the gate passing with them swapped;
#   - the correct caches pass; checked with a --pos-start past their first
#     position, the start is named with --pos-start.
# Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp causesmore

GEN=$root/tests/lib/causes_more_caches.py
run() { # run VARIANT [ARGS...]: the cache built and checked; rc in $tmp/VARIANT/rc
    v=$1; shift
    "$PY" "$GEN" "$v" "$tmp/$v" >"$tmp/$v.gen" 2>&1 || { echo 99 >"$tmp/$v.rc"; return; }
    (cd "$tmp/$v" && PECHECK_REGRESSIONS=off "$PECHECK" check --table cos.npy --table-sin sin.npy \
        --hf-config config.json --threads 2 "$@" >out.txt 2>err.txt; echo $? >rc)
    grep -m1 '^    likely cause' "$tmp/$v/out.txt" >"$tmp/$v/first" 2>/dev/null || : >"$tmp/$v/first"
}
rc_is() { [ "$(cat "$tmp/$1/rc" 2>/dev/null)" = "$2" ]; }
# first_has VARIANT WORDS...: the first likely cause holds every word (fixed strings)
first_has() {
    v=$1; shift
    for w in "$@"; do grep -qF -- "$w" "$tmp/$v/first" || return 1; done
}

for v in ok_llama2 ok_linear8 ok_phi35 slice_cohere_ok ok_llama32; do
    run $v
    rc_is $v 0; ok $? "$v: the correct cache passes" "$tmp/$v/out.txt"
done

run period_llama2
rc_is period_llama2 1 && first_has period_llama2 "repeat with period 1000" "p mod 1000" "restart"
ok $? "period_llama2: the period 1000 named first" "$tmp/period_llama2/out.txt"
grep -q "256 of 256 rows sampled" "$tmp/period_llama2/out.txt"
ok $? "period_llama2: every row sampled across the range holds p mod 1000" "$tmp/period_llama2/out.txt"
run period_qwen
rc_is period_qwen 1 && first_has period_qwen "repeat with period 3072" "p mod 3072"
ok $? "period_qwen: the period 3072 named first (a YaRN cache with its attention factor)" "$tmp/period_qwen/out.txt"
run next_llama2
rc_is next_llama2 1 && first_has next_llama2 "positions p+1" && ! grep -q "repeat with period" "$tmp/next_llama2/out.txt"
ok $? "next_llama2: an offset is named as one, no period" "$tmp/next_llama2/out.txt"
# rows of positions 1..n: the suggestion holds (the rerun with it passes)
# and names 1-based positions beside a slice
first_has next_llama2 "starts at position 1 (1-based positions, or sliced from a longer one?)" \
    "pass --pos-start 1" && run next_llama2 --pos-start 1 && rc_is next_llama2 0
ok $? "next_llama2: 1-based positions named; --pos-start 1, as suggested, passes" "$tmp/next_llama2/out.txt"

# the correct cache checked with a --pos-start past its first position:
# the start named and --pos-start with it
run ok_llama2 --pos-start 100
rc_is ok_llama2 1 && first_has ok_llama2 "positions p-100" "starts at position 0, not 100" "pass --pos-start 0"
ok $? "ok_llama2 --pos-start 100: the cache's start named, --pos-start 0 given" "$tmp/ok_llama2/out.txt"

run sinrow_llama2
rc_is sinrow_llama2 1 && first_has sinrow_llama2 "cos and sin caches hold different positions" \
    "cos row p is position p, sin row p position p+1"
ok $? "sinrow_llama2: sin's rows of p + 1 under cos's of p named (not an attention factor)" "$tmp/sinrow_llama2/out.txt"

run sinamp_qwen
rc_is sinamp_qwen 1 && first_has sinamp_qwen "different amplitudes" "cos x 1," "sin x 1.13863" "sin only"
ok $? "sinamp_qwen: the attention factor on sin only named" "$tmp/sinamp_qwen/out.txt"
run cosamp_llama2
rc_is cosamp_llama2 1 && first_has cosamp_llama2 "different amplitudes" "cos x 0.96" "sin x 1 "
ok $? "cosamp_llama2: cos scaled alone named with its amplitude" "$tmp/cosamp_llama2/out.txt"

run recip_linear8
rc_is recip_linear8 1 && first_has recip_linear8 "inverted" "64 times" "factor 1/8"
ok $? "recip_linear8: the inverted factor 1/8 named" "$tmp/recip_linear8/out.txt"

run switch_phi35
rc_is switch_phi35 1 && first_has switch_phi35 "rows 0..2999 match the short factors" "rows 3000..8999 the long"
ok $? "switch_phi35: the switch from short to long factors at row 3000 named" "$tmp/switch_phi35/out.txt"

run dynseq_dynamic2
rc_is dynseq_dynamic2 1 && first_has dynseq_dynamic2 "built for sequence length 16384" "--seq-len 16384"
ok $? "dynseq_dynamic2: the sequence length 16384 named first" "$tmp/dynseq_dynamic2/out.txt"
(cd "$tmp/dynseq_dynamic2" && PECHECK_REGRESSIONS=off "$PECHECK" check --table cos.npy --table-sin sin.npy \
    --hf-config config.json --seq-len 16384 --threads 2 >rerun.txt 2>&1)
ok $? "dynseq_dynamic2: the rerun with --seq-len 16384 passes" "$tmp/dynseq_dynamic2/rerun.txt"

run slice_cohere
rc_is slice_cohere 1 && first_has slice_cohere "cut with [..., :64]" "cache[..., ::2]" && [ ! -s "$tmp/slice_cohere/err.txt" ]
ok $? "slice_cohere: fails naming the [..., :64] slice and [..., ::2]" "$tmp/slice_cohere/out.txt"

run swap_llama32
rc_is swap_llama32 1 && first_has swap_llama32 "low_freq_factor and high_freq_factor are swapped" \
    "low_freq_factor 4 and high_freq_factor 1"
ok $? "swap_llama32: the swapped band factors named" "$tmp/swap_llama32/out.txt"

echo "1..$n"
[ "$fails" -eq 0 ]
