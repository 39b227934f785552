#!/bin/sh
# rope_causes_reproduce.t: causes pecheck names only once their prediction
# reproduces the rows (families/rope/rank_checked.c, width_cause.c;
# docs/diagnosis.md "Checked causes"), on caches built here
# (tests/lib/causes_checked_caches.py: HF's formulas, one mistake each, at
# other models, shapes and lengths than tests/audit_blind's):
#   - positions floor(p/4) of a linear x4 schedule (the factor as integer
#     division) and 3*floor(p/3) of a default one: the groups named, and
#     not "float16" (whose grid keeps positions below 2048 exact); Llama-2
#     with its positions really in float16 still names float16;
#   - a 5000-row cache read to 7999 with a clamped index: the clamp named
#     at 4999, and no single scaling factor claimed; unique's cause claims
#     neither float16 positions nor a period (families/sinusoidal/unique.c
#     checks them on other rows), which it still names for float16, and
#     rope-relative's claims neither a low-precision angle (one is off by
#     more than 2^-7 of itself) nor a non-rotation (YaRN's norm is A);
#   - a YaRN cache without its attention factor: no property's cause calls
#     it low-precision cos/sin or no rotation;
#   - pair i turning 1/omega_i or 2 pi/omega_i (inv_freq as periods, or the
#     reverse): named with the reciprocal, no single factor claimed;
#   - Phi-3.5's short factors multiplied in: the inverted factors named;
#   - Llama-3.2-1B's llama3 with its first where against high_freq_wavelen:
#     the band edge named with its pairs;
#   - cos = sin(theta + pi/2) in float32: named on the FAIL line;
#   - a bfloat16 cache scaled by the attention factor after its rounding:
#     two roundings named;
#   - (n, d) tables of rotary-dim columns that repeat none (inv_freq from
#     arange(0, d); cos interleaved and sin half): refused (exit 2) with
#     what the values show, not a wrong rotary dim;
#   - the correct caches pass.
# Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp causeschecked

GEN=$root/tests/lib/causes_checked_caches.py
run() { # run VARIANT [ARGS...]: the cache built and checked; rc in $tmp/VARIANT/rc
    v=$1; shift
    "$PY" "$GEN" "$v" "$tmp/$v" >"$tmp/$v.gen" 2>&1 || { mkdir -p "$tmp/$v"; echo 99 >"$tmp/$v/rc"; return; }
    (cd "$tmp/$v" && PECHECK_REGRESSIONS=off "$PECHECK" check --table cos.npy --table-sin sin.npy \
        --hf-config config.json --threads 2 "$@" >out.txt 2>err.txt; echo $? >rc)
    grep -m1 '^    likely cause' "$tmp/$v/out.txt" >"$tmp/$v/first" 2>/dev/null || : >"$tmp/$v/first"
    grep -m1 '^FAIL .* accuracy' "$tmp/$v/out.txt" >"$tmp/$v/failline" 2>/dev/null || : >"$tmp/$v/failline"
}
rc_is() { [ "$(cat "$tmp/$1/rc" 2>/dev/null)" = "$2" ]; }
# first_has VARIANT WORDS...: the first likely cause holds every word (fixed strings)
first_has() {
    v=$1; shift
    for w in "$@"; do grep -qF -- "$w" "$tmp/$v/first" || return 1; done
}
# err_has VARIANT WORDS...: the one-line refusal holds every word
err_has() {
    v=$1; shift
    [ "$(wc -l <"$tmp/$v/err.txt")" -eq 1 ] || return 1
    for w in "$@"; do grep -qF -- "$w" "$tmp/$v/err.txt" || return 1; done
}

for v in ok_qwen ok_llama32_f; do
    run $v
    rc_is $v 0; ok $? "$v: the correct cache passes" "$tmp/$v/out.txt"
done

run floor_linear4
rc_is floor_linear4 1 && first_has floor_linear4 "floor(p/4)" "groups of 4" "integer division" \
    && ! grep -q "float16" "$tmp/floor_linear4/first"
ok $? "floor_linear4: positions p // 4 named (the linear factor as integer division), not float16" "$tmp/floor_linear4/out.txt"
run floor_llama2_3
rc_is floor_llama2_3 1 && first_has floor_llama2_3 "groups of 3" "3*floor(p/3)" \
    && ! grep -q "held in float16" "$tmp/floor_llama2_3/out.txt"
ok $? "floor_llama2_3: positions 3*(p // 3) named, float16 not claimed anywhere" "$tmp/floor_llama2_3/out.txt"
run pos_f16_llama2
rc_is pos_f16_llama2 1 && first_has pos_f16_llama2 "positions are held in float16"
ok $? "pos_f16_llama2: positions really in float16 still named (the grid check holds)" "$tmp/pos_f16_llama2/out.txt"
grep -q "both round to 2048 in float16" "$tmp/pos_f16_llama2/out.txt"
ok $? "pos_f16_llama2: unique's cause still names float16" "$tmp/pos_f16_llama2/out.txt"
grep -q "the angle pos\*w is computed in low precision" "$tmp/pos_f16_llama2/out.txt"
ok $? "pos_f16_llama2: rope-relative's low-precision cause still said (its angles within 2^-7 of theirs)" "$tmp/pos_f16_llama2/out.txt"
! grep -q "repeats every" "$tmp/floor_linear4/out.txt"
ok $? "floor_linear4: unique's cause claims no period (rows 7 and 8 differ)" "$tmp/floor_linear4/out.txt"

run clamp_qwen
rc_is clamp_qwen 1 && first_has clamp_qwen "clamped to 4999" "from position 5000 to the last, 7999" \
    && ! grep -q "a wrong scaling factor?" "$tmp/clamp_qwen/out.txt"
ok $? "clamp_qwen: the clamp at 4999 named, no single scaling factor claimed" "$tmp/clamp_qwen/out.txt"
! grep -q "held in float16" "$tmp/clamp_qwen/out.txt" && grep -q "positions 4999 and 5000 have bit-identical rows, but neither" "$tmp/clamp_qwen/out.txt"
ok $? "clamp_qwen: unique's cause claims no float16 positions (2048 and 2049 keep distinct rows)" "$tmp/clamp_qwen/out.txt"
! grep -q "the angle pos\*w is computed in low precision\|the map is no rotation" "$tmp/clamp_qwen/out.txt" \
    && grep -q "too far for an angle computed in low precision" "$tmp/clamp_qwen/out.txt"
ok $? "clamp_qwen: rope-relative's cause claims neither a low-precision angle nor a non-rotation (YaRN's attention factor is no norm drift)" "$tmp/clamp_qwen/out.txt"

run noatt_qwen
rc_is noatt_qwen 1 && ! grep -q "held in low precision\|the map is no rotation" "$tmp/noatt_qwen/out.txt" \
    && grep -q "attention factor" "$tmp/noatt_qwen/first"
ok $? "noatt_qwen: no property's cause calls a missing attention factor a low-precision cos/sin or no rotation" "$tmp/noatt_qwen/out.txt"

run recip_llama2
rc_is recip_llama2 1 && first_has recip_llama2 "inverted" "turns 1/omega_i" \
    && ! grep -q "a wrong scaling factor?" "$tmp/recip_llama2/out.txt"
ok $? "recip_llama2: 1/omega_i named, no single factor claimed" "$tmp/recip_llama2/out.txt"
run recip2pi_llama2
rc_is recip2pi_llama2 1 && first_has recip2pi_llama2 "inverted" "turns 2 pi/omega_i"
ok $? "recip2pi_llama2: 2 pi/omega_i named" "$tmp/recip2pi_llama2/out.txt"

run mult_phi35_short
rc_is mult_phi35_short 1 && first_has mult_phi35_short "LongRoPE factors are inverted" "short factors multiply"
ok $? "mult_phi35_short: the short factors multiplied in named" "$tmp/mult_phi35_short/out.txt"

run edge_llama32
rc_is edge_llama32 1 && first_has edge_llama32 "band edges are mixed up" "high_freq_wavelen" "factor 32"
ok $? "edge_llama32: the band edge against high_freq_wavelen named" "$tmp/edge_llama32/out.txt"

run cosshift_llama2
rc_is cosshift_llama2 1 && grep -qF "likely cause: cos is evaluated inexactly: cos = sin(theta + pi/2)" "$tmp/cosshift_llama2/failline"
ok $? "cosshift_llama2: cos from a shifted sin named on the FAIL line" "$tmp/cosshift_llama2/out.txt"

run bf16twice_phi35 --dtype bf16
rc_is bf16twice_phi35 1 && first_has bf16twice_phi35 "rounded to bfloat16 twice" "1.19024"
ok $? "bf16twice_phi35: two bfloat16 roundings named" "$tmp/bf16twice_phi35/out.txt"

run arange_llama32
rc_is arange_llama32 2 && err_has arange_llama32 "one frequency a column" "arange(0, 64)" \
    && ! grep -q "but the cache or --d has" "$tmp/arange_llama32/err.txt"
ok $? "arange_llama32: refused naming one frequency a column (arange without its step)" "$tmp/arange_llama32/err.txt"
run mixed_llama2
rc_is mixed_llama2 2 && err_has mixed_llama2 "laid out differently" "sin's columns j and j+64" "cos's columns 2i and 2i+1"
ok $? "mixed_llama2: refused naming cos and sin in different layouts" "$tmp/mixed_llama2/err.txt"

echo "1..$n"
[ "$fails" -eq 0 ]
