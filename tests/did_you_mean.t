#!/bin/bash
# Every word a person types is answered with the nearest name when it is
# mistyped (harness/base/suggest.c): commands, options, formats, layouts,
# dtypes, families, properties and explain's topics; exit 2 and one line.
# The names people use for a dtype in PyTorch and numpy are taken as they
# are (harness/base/dtype.c), and `explain FAMILY` lists what applies to it.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"
export PECHECK_REGRESSIONS=off

# typo WANT ARGS...: exit 2, one stderr line holding WANT, nothing on stdout
typo() {
    local want=$1; shift
    "$PECHECK" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        ok "pecheck $*: $want"
    else
        nok "pecheck $* -> rc=$rc, stderr: $(cat "$tmp/err")"
    fi
}

echo "1..23"
typo "unknown command 'chek' (did you mean pecheck check?)" chek --impl torch-exp
typo "unknown command 'idnetify' (did you mean pecheck identify?)" idnetify --impl torch-exp
typo "help: unknown command 'acuracy' (did you mean pecheck help accuracy?)" help acuracy
typo "unknown command 'versoin' (did you mean pecheck version?)" versoin
typo "unknown option --imp (did you mean --impl?)" check --imp torch-exp
typo "--format: expected text, json, tap or junit, got 'jsn' (did you mean json?)" check --impl torch-exp --format jsn
typo "(did you mean junit?)" accuracy --impl torch-exp --format junti
typo "--layout: expected interleaved or half, got 'halff' (did you mean half?)" check --impl torch-exp --layout halff
typo "got 'bf61' (did you mean bf16?)" check --impl torch-exp --dtype bf61
typo "got 'bfloat61' (did you mean bfloat16?)" check --impl torch-exp --dtype bfloat61
typo "got 'flaot16' (did you mean float16?)" check --impl torch-exp --dtype flaot16
typo "unknown property or family 'rpoe' (did you mean rope?)" explain rpoe
typo "unknown property or family 'linear-shfit' (did you mean linear-shift?)" explain linear-shfit
typo "(did you mean rope?)" check --impl torch-exp --family rpoe
typo "(did you mean torch-exp?)" check --impl torchexp
# a command word typed with an option's dashes
typo "unknown command '--chek' (did you mean pecheck check?)" --chek --impl torch-exp
typo "unknown command '-idenitfy' (did you mean pecheck identify?)" -idenitfy
# --dtype double is f64, which check and accuracy do not take: the line says so
typo "--dtype: check takes f32, bf16 or f16, not f64 (float64, fp64 and double name f64" check --impl torch-exp --dtype double
typo "--dtype: accuracy takes f32, bf16 or f16, not f64 (float64, fp64 and double name f64" accuracy --impl torch-exp --dtype double
# a word far from every name gets no guess
typo "unknown command 'xyzzy' (try \`pecheck help\`)" xyzzy

# --dtype: PyTorch's and numpy's names are the short names' aliases
bad=""
for pair in bf16:bfloat16 f16:float16 f16:fp16 f16:half f32:float32 f32:fp32 f32:float; do
    short=${pair%%:*} alias=${pair#*:}
    "$PECHECK" accuracy --impl torch-exp --d 16 --max-pos 63 --dtype "$short" --format json 2>/dev/null \
        | sed 's/"seconds": [0-9.e+-]*//' >"$tmp/s.json"
    "$PECHECK" accuracy --impl torch-exp --d 16 --max-pos 63 --dtype "$alias" --format json 2>/dev/null \
        | sed 's/"seconds": [0-9.e+-]*//' >"$tmp/a.json"
    [ -s "$tmp/s.json" ] && cmp -s "$tmp/s.json" "$tmp/a.json" || bad="$bad $alias"
done
[ -z "$bad" ] && ok "--dtype bfloat16, float16, fp16, half, float32, fp32, float: the same run as bf16, f16, f32" \
    || nok "aliases that differ:$bad"
"$PECHECK" reference --family sinusoidal --d 8 --positions 0:3 --dtype double --out "$tmp/d.npy" --quiet 2>"$tmp/e" \
    && "$PECHECK" reference --family sinusoidal --d 8 --positions 0:3 --dtype f64 --out "$tmp/f.npy" --quiet 2>>"$tmp/e" \
    && cmp -s "$tmp/d.npy" "$tmp/f.npy" && ok "reference --dtype double writes the f64 table" || nok "double: $(cat "$tmp/e")"

# explain FAMILY: the properties that apply to it, and only those
"$PECHECK" explain rope >"$tmp/rope" 2>&1; rc=$?
"$PECHECK" explain alibi >"$tmp/alibi" 2>&1; rc2=$?
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -q "^rope-relative " "$tmp/rope" && grep -q "^decay " "$tmp/rope" \
    && grep -q "^cache-layout " "$tmp/rope" && ! grep -q "^alibi-" "$tmp/rope" \
    && grep -q "^alibi-slopes " "$tmp/alibi" && ! grep -q "^rope-" "$tmp/alibi" && ! grep -q "^cache-layout " "$tmp/alibi" \
    && grep -q "^table-values " "$tmp/alibi" \
    && ok "explain rope and explain alibi list each family's properties and checks" \
    || nok "explain family: rc $rc $rc2: $(head -5 "$tmp/rope" "$tmp/alibi")"
