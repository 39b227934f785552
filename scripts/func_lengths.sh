#!/bin/bash
# func_lengths.sh: the length in lines of every function definition in the
# production C sources (harness/, reference/, impl/, properties/, families/;
# not tests/, fuzz/, examples/).  A definition starts at a line that begins
# with an identifier and ends with ')' or '{' (K&R/Allman split allowed) and
# whose body opens with '{' at the start of a line or at its end; its length
# runs from that line to the matching '}' in column 0 (the project's style).
#
#   scripts/func_lengths.sh [MIN]   print "LINES FILE:LINE NAME" for every
#                                   function of MIN lines or more (default 0),
#                                   longest first; the last line counts them.
set -u
MIN=${1:-0}
cd "$(dirname "$0")/.." || exit 2
files=$(find harness reference impl properties families -name '*.c' 2>/dev/null | sort)
# shellcheck disable=SC2086
awk -v min="$MIN" '
FNR == 1 { pend = ""; infn = 0 }
# a candidate header: starts in column 0 with a letter, has "(", is not a
# declaration ending in ";", not a preprocessor line
!infn && /^[A-Za-z_][A-Za-z0-9_ \t\*]*\(/ && !/;[ \t]*$/ && !/^(typedef|struct [a-z_]+ *\{|enum|union)/ {
    pend = $0; pline = FNR
    if ($0 ~ /\{[ \t]*$/) { infn = 1; start = pline; hdr = pend; pend = "" }
    next
}
!infn && pend != "" && /^\{/ { infn = 1; start = pline; hdr = pend; pend = ""; next }
!infn && pend != "" && /;[ \t]*$/ { pend = ""; next }
infn && /^\}/ {
    n = FNR - start + 1
    name = hdr; sub(/\(.*/, "", name); sub(/.*[ \t\*]/, "", name)
    if (n >= min) printf "%d %s:%d %s\n", n, FILENAME, start, name
    infn = 0; next
}
' $files | sort -rn | awk '{ print } END { print NR " functions" }'
