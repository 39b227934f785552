#!/bin/bash
# Per-command help: `pecheck help COMMAND` and `pecheck COMMAND --help` give
# a page with every option the command accepts (one documented line each);
# every listed option is accepted by the command's parser and every other
# option is refused; `pecheck help nosuch` is exit 2.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"
cmds="list accuracy check reference explain merge demo report"
all_opts=$(for c in $cmds; do "$PECHECK" help "$c" | sed -n 's/^  --\([a-z0-9-]*\).*/\1/p'; done | sort -u)
echo "1..$((4 * 8 + 2))"
for c in $cmds; do
    "$PECHECK" help "$c" >"$tmp/h" 2>"$tmp/e"; rc=$?
    [ $rc -eq 0 ] && grep -q "^usage: pecheck $c" "$tmp/h" && ! grep -q undocumented "$tmp/h" \
        && ok "help $c: a page, every option documented" || nok "help $c: rc=$rc $(cat "$tmp/e")"
    "$PECHECK" "$c" --help >"$tmp/h2" 2>&1
    cmp -s "$tmp/h" "$tmp/h2" && ok "$c --help is the same page" || nok "$c --help differs"
    awk 'NR > 1 && length > 100 { bad = 1 } END { exit bad }' "$tmp/h" && ok "help $c: no line over 100 characters but the synopsis" \
        || nok "help $c has long lines"
    # each listed option is accepted by the parser, each other one refused
    listed=$(sed -n 's/^  --\([a-z0-9-]*\).*/\1/p' "$tmp/h")
    bad=""
    for opt in $all_opts; do
        "$PECHECK" "$c" --"$opt" >/dev/null 2>"$tmp/e" </dev/null
        if printf '%s\n' "$listed" | grep -qx -- "$opt"; then
            grep -q "not accepted by this command" "$tmp/e" && bad="$bad +$opt"
        else
            grep -q "not accepted by this command" "$tmp/e" || bad="$bad -$opt"
        fi
    done
    [ -z "$bad" ] && ok "$c: the page lists exactly the options its parser takes" || nok "$c: mismatch:$bad"
done
"$PECHECK" help nosuch >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown command 'nosuch'" "$tmp/e" && [ ! -s "$tmp/o" ] \
    && ok "help nosuch: exit 2 naming it" || nok "help nosuch: rc=$rc"
"$PECHECK" help >"$tmp/o"; rc=$?
[ $rc -eq 0 ] && grep -q "pecheck help COMMAND" "$tmp/o" && ok "help lists the commands" || nok "help: rc=$rc"
