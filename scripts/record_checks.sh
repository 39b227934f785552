#!/bin/sh
# record_checks.sh: a stand-in for the pecheck binary that records the tables
# `pecheck check` passes on, for scripts/identify_audit.py.
#
#   PECHECK_REAL=build/pecheck PECHECK_RECORD=/tmp/rec PECHECK=scripts/record_checks.sh \
#       prove --exec '' tests/*.t
#
# Runs the real binary with the same arguments, stdin, stdout, stderr and exit
# status.  When the command is `check`, it exits 0 and reads a table
# (--table), the files it read (--table, --table-sin, --position-ids,
# --timesteps, --hf-config, --rope-freqs) are copied into PECHECK_RECORD/files
# under their SHA-1 (a table checked by many tests is stored once), and the
# argument list goes to PECHECK_RECORD/r.PID/argv, NUL-separated, with each
# such file's path replaced by @REC@/files/SHA (the driver puts the folder
# back); PECHECK_RECORD/r.PID/test names the calling test (the command line of
# the nearest ancestor that runs a tests/*.t).
real=${PECHECK_REAL:?PECHECK_REAL: the real pecheck binary}
rec=${PECHECK_RECORD:?PECHECK_RECORD: the folder of the records}
"$real" "$@"
rc=$?
[ "$rc" -eq 0 ] && [ "${1:-}" = check ] || exit "$rc"
case " $* " in *" --table "*|*" --table="*) ;; *) exit "$rc" ;; esac

# the options whose value is a file check reads
is_file_opt() {
    case "$1" in
        --table|--table-sin|--position-ids|--timesteps|--hf-config|--rope-freqs) return 0 ;;
    esac
    return 1
}
# stash PATH: its copy under files/, by content; prints the placeholder
stash() {
    [ -f "$1" ] || { printf '%s' "$1"; return; }
    sum=$(sha1sum <"$1" | cut -c1-40)
    [ -f "$rec/files/$sum" ] || { mkdir -p "$rec/files" && cp "$1" "$rec/files/$sum.$$" &&
        mv "$rec/files/$sum.$$" "$rec/files/$sum"; }
    printf '@REC@/files/%s' "$sum"
}
dir="$rec/r.$$.$(date +%s%N)"
mkdir -p "$dir" || exit "$rc"
next_file=0
for a in "$@"; do
    if [ "$next_file" -eq 1 ]; then stash "$a"; next_file=0
    else
        opt=${a%%=*}
        if [ "$opt" != "$a" ] && is_file_opt "$opt"; then
            printf '%s=' "$opt"; stash "${a#*=}"
        else
            printf '%s' "$a"
            is_file_opt "$a" && next_file=1
        fi
    fi
    printf '\0'
done >"$dir/argv"
# the calling test: the nearest ancestor whose command line names a tests/*.t
pid=$PPID
while [ "${pid:-0}" -gt 1 ]; do
    cmd=$(tr '\0' ' ' </proc/$pid/cmdline 2>/dev/null)
    case "$cmd" in *tests/*.t*) break ;; esac
    pid=$(awk '{print $4}' /proc/$pid/stat 2>/dev/null)
done
printf '%s\n' "$cmd" >"$dir/test"
pwd >"$dir/cwd"
exit "$rc"
