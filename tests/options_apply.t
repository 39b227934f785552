#!/bin/bash
# An option that shapes what is checked applies to a source of the run, or
# the run is exit 2 naming it (harness/sources/sources.c,
# pc_sources_options_apply; table.c for --dtype): the table below is option
# x source kind (a built-in, a plugin, a .npy table) -> applies (exit 0 or 1,
# a verdict) or 2 (refused, the message holding its words).
set -u
PECHECK=${PECHECK:-build/pecheck}
BUILD=${BUILD:-build}
. "$(dirname "$0")/lib/tap.bash"
export PECHECK_REGRESSIONS=off
PY=/usr/bin/python3

# the sources: a sinusoidal built-in, plugin and 64-row table (d = 16), and a
# bfloat16 cache widened to float32; a RoPE built-in and config for --hf-config
"$PECHECK" reference --family sinusoidal --d 16 --positions 0:63 --out "$tmp/pe.npy" --quiet
"$PECHECK" reference --family sinusoidal --d 16 --positions 0:63 --dtype bf16 --out "$tmp/bits.npy" --quiet
$PY - "$tmp" <<'PY'
import sys, numpy as np
d = sys.argv[1]
bits = np.load(d + "/bits.npy").astype(np.uint32) << 16   # bfloat16 bit patterns, widened
np.save(d + "/pe_bf16w.npy", bits.view(np.float32))
PY
echo '{"rope_theta": 10000.0, "head_dim": 16}' >"$tmp/cfg.json"
B="--impl torch-exp"
P="--plugin $BUILD/examples/plugin_rope_half.so"
T="--table $tmp/pe.npy"

CMD=check
# row WANT SOURCE OPTIONS...: WANT is "applies" (exit 0 or 1) or the words of
# the exit-2 message
row() {
    local want=$1 src=$2; shift 2
    # shellcheck disable=SC2086
    local cases="--cases 5"
    [ "$CMD" != check ] && cases=""
    "$PECHECK" $CMD $src "$@" --d 16 $cases --quiet >"$tmp/o" 2>"$tmp/e"; local rc=$?
    local what="$CMD ${src##*/} $*"
    if [ "$want" = applies ]; then
        [ $rc -le 1 ] && ok "applies: $what (exit $rc)" || nok "$what -> rc=$rc: $(cat "$tmp/e")"
    else
        [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -qF -- "$want" "$tmp/e" \
            && ok "exit 2: $what: $want" || nok "$what -> rc=$rc: $(cat "$tmp/e")"
    fi
}

echo "1..30"
# --positions / --max-pos: a built-in and a plugin are called at them; a
# table is checked on all its rows, and only its rows are accepted
row applies "$B" --positions 4000:9999
row applies "$P" --positions 4000:9999
row "--positions 4000:9999 is outside --table $tmp/pe.npy: a table is checked on all its rows, positions 0..63 (64 rows" "$T" --positions 4000:9999
row "--max-pos 100000 is outside --table" "$T" --max-pos 100000
row "--positions 10:20 is not all of --table" "$T" --positions 10:20
row applies "$T" --max-pos 63
# --pos-start: the position of a table's first row; nothing else has one
row "--pos-start is the position of a --table's first row, and no table is given (torch-exp" "$B" --pos-start 3
row "--pos-start is the position of a --table's first row" "$P" --pos-start 3
row applies "$T" --pos-start 3
# --dtype bf16: a built-in's and a plugin's values are judged in it; a
# float32 table must hold bfloat16 numbers to be a widened bfloat16 cache
row applies "$B" --dtype bf16
row applies "$P" --dtype bf16
row "--dtype bf16: $tmp/pe.npy holds <f4 values that are not bfloat16 numbers" "$T" --dtype bf16
row "is no float16 cache widened to float32; drop --dtype f16" "$T" --dtype half
row applies "--table $tmp/pe_bf16w.npy" --dtype bf16
# a family's option: applies where a source is checked as that family
row "--hf-config is an option of the rope, t5 and alibi families, and no source here is checked as rope, t5 or alibi (torch-exp: sinusoidal)" "$B" --hf-config "$tmp/cfg.json"
row applies "--impl rope-half" --hf-config "$tmp/cfg.json"
# the config every family with one reads: a RoPE model's is no T5's or ALiBi's
row "--hf-config $tmp/cfg.json: not a T5 model's config" "--impl t5-hf" --hf-config "$tmp/cfg.json"
row "--hf-config $tmp/cfg.json: no head count (n_head, n_heads or num_attention_heads)" "--impl alibi-paper" --hf-config "$tmp/cfg.json"
row "--causal is an option of the attention and t5 families, and no source here is checked as attention or t5" "$P" --causal
row "--hf-config is an option of the rope, t5 and alibi families, but the table is read as sinusoidal" "$T" --hf-config "$tmp/cfg.json"
# --tap-version: only with --format tap
row "--tap-version 14 applies to --format tap only" "$B" --tap-version 14
# accuracy takes the same decisions
CMD=accuracy
row "--positions 10:20 is not all of --table" "$T" --positions 10:20
row "--dtype bf16: $tmp/pe.npy holds <f4 values that are not bfloat16 numbers" "$T" --dtype bf16
row "--hf-config is an option of the rope, t5 and alibi families, and no source here is checked as rope, t5 or alibi" "$B" --hf-config "$tmp/cfg.json"
# identify: the same
CMD=identify
row "--positions 4000:9999 is outside --table" "$T" --positions 4000:9999
row "--hf-config is an option of the rope, t5 and alibi families, and no source here is checked as rope, t5 or alibi" "$B" --hf-config "$tmp/cfg.json"
row "--pos-start is the position of a --table's first row" "$B" --pos-start 3
# reference exports one family: another family's option is refused, its own applies
CMD=reference
R="--family sinusoidal --positions 0:7 --out $tmp/ref.npy"
row "--rope-xpos is an option of the rope family, not of --family sinusoidal: drop --rope-xpos" "$R" --rope-xpos 512
row "--tower is an option of the rope family, not of --family sinusoidal" "$R" --tower vision
row applies "--family rope --positions 0:7 --out $tmp/ref.npy" --rope-xpos 512
