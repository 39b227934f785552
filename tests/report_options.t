#!/bin/sh
# report_options.t: report holds its options to the sources as accuracy
# and check do (pc_sources_options_apply): an option no source takes is
# exit 2 with accuracy's line, before any gate runs or any page is written.
# Before: `report --impl torch-exp --formulation ggml` wrote a page and a
# summary.json whose class was "ggml" while its gates held the sinusoidal
# source to the cr class (C = 2); --pos-start without a table, --rotary-dim
# with no RoPE source and --preset with no sinusoidal one were dropped
# silently.  Each case: accuracy's exit status and first stderr line, then
# report's, which must be the same, and no DIR made.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_tmp repopts

same_as_accuracy() { # NAME ARGS...: report refuses ARGS as accuracy does
    name=$1; shift
    "$PECHECK" accuracy --d 64 --max-pos 63 --quiet "$@" >"$tmp/acc.out" 2>"$tmp/acc.err"
    ra=$?
    rm -rf "$tmp/rep"
    "$PECHECK" report --out "$tmp/rep" --d 64 --max-pos 63 --quiet "$@" >"$tmp/rep.out" 2>"$tmp/rep.err"
    rr=$?
    ok "$([ "$ra" -eq 2 ] && [ "$rr" -eq 2 ] && echo 0 || echo 1)" \
        "$name: accuracy and report exit 2 (accuracy $ra, report $rr)" "$tmp/rep.err"
    ok "$(cmp -s "$tmp/acc.err" "$tmp/rep.err" && echo 0 || echo 1)" \
        "$name: report's line is accuracy's" "$tmp/rep.err"
    ok "$([ ! -e "$tmp/rep" ] && echo 0 || echo 1)" "$name: no report folder written"
}

same_as_accuracy "--formulation ggml, sinusoidal source only" --impl torch-exp --formulation ggml
same_as_accuracy "--formulation hf, sinusoidal source only" --impl torch-exp --formulation hf
same_as_accuracy "--pos-start without a table" --impl rope-polar --pos-start 5
same_as_accuracy "--rotary-dim, no RoPE source" --impl torch-exp --rotary-dim 16
same_as_accuracy "--preset, no sinusoidal source" --impl rope-polar --preset fairseq

echo "1..$n"
[ "$fails" -eq 0 ]
