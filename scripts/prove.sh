#!/bin/bash
# prove.sh: the ACSL contracts of the built-ins (families/, impl/common.h, the families' kernel headers) and of the harness's .npy reader,
# table lookup and canary scan proved with Frama-C (make prove).
#
#   scripts/prove.sh            WP (-wp-rte) on every covered file, then Eva
#                               on ACSL/eva_driver.c; exit 0 only if every WP
#                               goal is proved and Eva leaves no alarm and no
#                               unproved assertion.
#   scripts/prove.sh --broken   the same WP proof on the deliberately broken
#                               variants of ACSL/broken/ (mutants made from the
#                               real sources); it must FAIL: exit 1 when every
#                               mutant has an unproved goal, as it should; exit
#                               0 (and "PROVED") if some mutant slips through.
#   scripts/prove.sh --wp-only / --eva-only   one half only.
#
# Results: $PROVE_OUT (default build/prove): report.txt (the summary printed
# here), report.json (per-file goals, Eva alarms, versions), one log per run.
# Exit codes: 0 all proved, 1 something unproved (or alarms), 2 Frama-C or a
# prover missing, 3 a tool crashed or printed no summary.
# What is proved and how: docs/proofs.md.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${PROVE_OUT:-$ROOT/build/prove}
MODE=full
for a in "$@"; do
    case $a in
        --broken) MODE=broken ;;
        --wp-only) MODE=wp ;;
        --eva-only) MODE=eva ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "prove.sh: unknown option '$a' (try --help)" >&2; exit 2 ;;
    esac
done

for t in frama-c why3 z3 cvc4; do
    command -v $t >/dev/null 2>&1 || {
        echo "prove.sh: $t not found (Debian: apt-get install frama-c-base why3 z3 cvc4)" >&2
        exit 2; }
done
mkdir -p "$OUT"

# Prover limits: a step limit, not a clock, decides every goal, so the
# verdict is the same on an idle and on a busy machine (docs/proofs.md,
# "Limits").  Z3 (rlimit) and CVC4 (--rlimit) count their own work
# deterministically: the same goal, prover version and options take the
# same number of steps whatever the load.  Their steps are not the same
# unit (a Z3 step is about 30 times cheaper), so each has its own limit:
#  Z3_STEPS 20000000:  4.5 times the largest count a proved goal needs
#                      (4,432,872, harness/io/npy.c shape_size_assert_unreachable);
#  CVC4_STEPS 2000000: 5.3 times the largest CVC4 count (380,626,
#                      shape_size_fits_ensures_nbytes).
# prove.sh prints the largest counts of each run, so the margin stays
# visible.
#  CPU_SECONDS 120:    a CPU-time cap (ulimit -t) on every prover process,
#                      which load does not stretch: needed because CVC4 1.8
#                      does not count steps everywhere (on an unprovable goal
#                      it ran 70 s of CPU time without reaching 2,000,000
#                      steps).  35 times the most CPU time a proved goal
#                      takes (about 3.4 s, CVC4, shape_size_too_large_ensures_overflow).
#                      A goal that no prover proves fails once its steps or
#                      this CPU time are spent.
#  TIMEOUT 3600 s:     Why3's limit, in wall-clock time, which a busy machine
#                      stretches (prover processes got 1/8 of a core with both
#                      cores busy and prove.sh under nice); set far above any
#                      run the two limits above allow, so it never decides.
Z3_STEPS=${PROVE_Z3_STEPS:-20000000}
CVC4_STEPS=${PROVE_CVC4_STEPS:-2000000}
CPU_SECONDS=${PROVE_CPU_SECONDS:-120}
WP_TIMEOUT=${PROVE_TIMEOUT:-3600}

# A private Why3 configuration, so nothing depends on ~/.why3.conf: the Z3
# and CVC4 that 'why3 config detect' finds, each with its step limit
# (Why3 passes -wp-steps to CVC4's --rlimit; Z3's rlimit is written into
# its command here), and memlimit 4000 MB (Why3's default 1000 MB made Z3
# stop early on the larger goals).  Made again on every run: it holds the
# limits.
export WHY3CONFIG="$OUT/why3.conf"
why3 config detect -C "$OUT/why3-detected.conf" >"$OUT/why3-detect.log" 2>&1 &&
    WHY3CONFIG="$OUT/why3-detected.conf" why3 config show >"$OUT/why3-show.conf" 2>>"$OUT/why3-detect.log" || {
    echo "prove.sh: 'why3 config detect' failed, see $OUT/why3-detect.log" >&2; exit 2; }
# [main], then the default (no alternative) Z3 and CVC4 entries.
awk -v z3steps="$Z3_STEPS" '
    /^\[/ { flush(); sect = $0; buf = ""; }
    { buf = buf $0 "\n" }
    END { flush() }
    function flush() {
        if (sect == "[main]") { sub(/memlimit = [0-9]+/, "memlimit = 4000", buf); printf "%s", buf }
        else if (sect == "[prover]" && buf !~ /alternative =/ &&
                 (buf ~ /shortcut = "z3"/ || buf ~ /shortcut = "cvc4"/)) {
            if (buf ~ /shortcut = "z3"/) sub(/rlimit=%S/, "rlimit=" z3steps, buf)
            printf "%s", buf; found++
        }
        sect = ""; buf = ""
    }' "$OUT/why3-show.conf" >"$WHY3CONFIG"
grep -q "rlimit=$Z3_STEPS " "$WHY3CONFIG" && grep -q -- '--rlimit=%S' "$WHY3CONFIG" || {
    echo "prove.sh: no step-limited Z3 and CVC4 in the Why3 configuration, see $OUT/why3-show.conf" >&2
    exit 2; }

CPP="-I$ROOT -I$ROOT/include"
# WP settings (why each: docs/proofs.md):
#  -wp-rte                 prove the absence of runtime errors: every memory
#                          access valid, no signed overflow, no bad shift,
#                          no division by zero, no float-to-int overflow;
#  -wp-model typed+real    floats as reals: the WP goals are about memory,
#                          indices and return codes, none depends on a float
#                          value; Debian's CVC4 1.8 has no floating-point
#                          literals and Z3 times out on the IEEE encoding;
#  -warn-special-float none  finiteness of float results is Eva's part;
#  -wp-verbose 2           one line per goal (prover, time, steps) in the
#                          logs, for the step and time figures below.
WP_OPTS=(-warn-special-float none -wp -wp-rte -wp-model typed+real
         -wp-prover z3,cvc4 -wp-par "${PROVE_JOBS:-2}"
         -wp-steps "$CVC4_STEPS" -wp-timeout "$WP_TIMEOUT" -wp-verbose 2)

# Functions defined in FILE itself (static or not, at the start of a line).
defined_fns() {
    grep -oE '^(static )?(inline )?[a-z_0-9]+( \*)? \*?[a-z_0-9]+\(' "$1" |
        sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/' | sort -u | paste -sd, -
}

# The WP units: "label|source|functions".
WP_FILES="families/sinusoidal/sin_torch_exp families/sinusoidal/sin_torch_pow
          families/sinusoidal/sin_double_angle families/sinusoidal/sin_bf16_positions
          families/sinusoidal/sin_sin_only families/sinusoidal/sin_cos_shifted
          families/sinusoidal/sin_rotate_recurrence families/sinusoidal/sin_plus_1e4
          families/sinusoidal/sin_ring_slot
          families/rope/rope_polar families/rope/rope_half families/rope/rope_bf16_cache
          families/rope/rope_mixed_layout
          families/learned/learned_table"
# The kernels the built-ins share, static inline in headers, "header:includer":
# each proved once, in the translation unit of one file that includes it
# (every function the header defines); the hooks that call them use their
# contracts.
KERNEL_HEADERS="impl/common.h:families/sinusoidal/sin_torch_exp.c
                families/sinusoidal/sin_kernel.h:families/sinusoidal/sin_torch_exp.c
                families/rope/rope_kernel.h:families/rope/rope_half.c"
# pc_bf16 (impl/common.h) is left to Eva: it reads a float's bits with
# memcpy, type punning that WP's Typed memory model does not represent.
WP_ASSUMED=pc_bf16
# The harness code that handles .npy data and plugin output: only the
# functions with contracts (the rest of these files does I/O, formatting
# and process control that the contracts do not cover; docs/proofs.md).
HARNESS_UNITS="harness/io/npy.c:half_bits,load_le,convert,shape_size
               harness/sources/table.c:row_of,rows_in,serve_rows,sin_serve
               harness/sandbox/canary.c:changed_bytes,pc_canary_check"
# The functions WP proves in SRC (a path relative to ROOT) read from FILE:
# the harness list above, or every function FILE defines.
wp_fns() {
    for h in $HARNESS_UNITS; do
        [ "${h%%:*}" = "$1" ] && { echo "${h#*:}"; return; }
    done
    defined_fns "$2"
}
units=()
if [ $MODE = broken ]; then
    # Mutants of the real sources: each must break the proof.  The sed
    # expressions live in ACSL/broken/*.sed; a mutant that no longer changes
    # its source is an error (the source moved on: update the .sed).
    # (a mutant finds the headers of its source's folder, which it includes
    # by their bare names, through -I of that folder; the rest through -I$ROOT)
    mkdir -p "$OUT/broken"
    for m in "$ROOT"/ACSL/broken/*.sed; do
        name=$(basename "$m" .sed)
        # PROVE_MUTANTS="a b": only these (tests/prove.t keeps to one)
        case " ${PROVE_MUTANTS:-$name} " in *" $name "*) ;; *) continue ;; esac
        src=$(sed -n 's/^# source: //p' "$m")
        dst="$OUT/broken/$(dirname "$src")/$name.c"
        mkdir -p "$(dirname "$dst")"
        case " $CPP " in *" -I$ROOT/$(dirname "$src") "*) ;; *) CPP="$CPP -I$ROOT/$(dirname "$src")" ;; esac
        sed -f "$m" "$ROOT/$src" >"$dst"
        if cmp -s "$ROOT/$src" "$dst"; then
            echo "prove.sh: mutant $name does not change $src: update $m" >&2; exit 3
        fi
        # "# functions: a,b" in the .sed: prove only these (a quick check)
        fns=$(sed -n 's/^# functions: //p' "$m")
        units+=("broken/$name|$dst|${fns:-$(wp_fns "$src" "$dst")}")
    done
elif [ -n "${PROVE_UNITS:-}" ] && [ $MODE != eva ]; then
    # PROVE_UNITS="SRC:FNS ...": only these functions of these files, same
    # settings (tests/prove.t proves the shipped lookup this way).
    for h in $PROVE_UNITS; do
        units+=("${h%%:*}|$ROOT/${h%%:*}|${h#*:}")
    done
elif [ $MODE != eva ]; then
    units+=("ACSL/pecheck.acsl lemmas|$ROOT/families/sinusoidal/sin_torch_exp.c|@lemma")
    for k in $KERNEL_HEADERS; do
        fns=$(defined_fns "$ROOT/${k%%:*}" | tr , '\n' | grep -vxF "$WP_ASSUMED" | paste -sd, -)
        units+=("${k%%:*}|$ROOT/${k#*:}|$fns")
    done
    for f in $WP_FILES; do
        units+=("$f.c|$ROOT/$f.c|$(defined_fns "$ROOT/$f.c")")
    done
    units+=("ACSL/harness.acsl lemmas|$ROOT/harness/io/npy.c|@lemma")
    for h in $HARNESS_UNITS; do
        units+=("${h%%:*}|$ROOT/${h%%:*}|${h#*:}")
    done
fi

status=0
proved_all=0; total_all=0
json_units=""
suffix=""; [ $MODE = full ] || suffix="-$MODE"
report="$OUT/report$suffix.txt"
: >"$report"
say() { echo "$@" | tee -a "$report"; }

say "pecheck prove ($MODE): $(frama-c -version) | $(why3 --version 2>&1 | head -1) | $(z3 --version) | $(cvc4 --version | head -1)"
t0=$(date +%s)
for u in ${units[@]+"${units[@]}"}; do
    label=${u%%|*}; rest=${u#*|}; src=${rest%%|*}; fns=${rest#*|}
    log="$OUT/wp-$(echo "$label" | tr '/. ' '___').log"
    sel=(-wp-fct "$fns")
    [ "$fns" = @lemma ] && sel=(-wp-prop @lemma)
    t1=$(date +%s)
    # ulimit -t: per process (Frama-C and each prover it starts), CPU time
    ( ulimit -t "$CPU_SECONDS" && exec frama-c -c11 -cpp-extra-args="$CPP" "$src" "${WP_OPTS[@]}" "${sel[@]}" ) >"$log" 2>&1
    rc=$?
    line=$(grep -E '^\[wp\] Proved goals: ' "$log" | tail -1)
    if [ -z "$line" ]; then
        if grep -q 'No proof obligations' "$log"; then line="[wp] Proved goals: 0 / 0"
        else
            say "  $label: Frama-C printed no WP summary (exit $rc), see $log"
            status=3; continue
        fi
    fi
    p=$(echo "$line" | awk '{print $4}'); t=$(echo "$line" | awk '{print $6}')
    proved_all=$((proved_all + p)); total_all=$((total_all + t))
    mark=ok; [ "$p" = "$t" ] && [ $rc -eq 0 ] || { mark=UNPROVED; [ $status -eq 0 ] && status=1; }
    say "$(printf '  WP %-32s %5s / %-5s goals  %3ss  %s' "$label" "$p" "$t" $(( $(date +%s) - t1 )) "$mark")"
    if [ $mark != ok ]; then
        grep -E '^\[wp\] \[(Failed|Timeout|Unknown)\]|^\[wp\] \[.*\] Goal .*: (Unknown|Timeout|Failed)' "$log" |
            sed 's/^/      /' | head -20 | tee -a "$report"
    fi
    json_units="$json_units${json_units:+,}{\"file\":\"$label\",\"proved\":$p,\"total\":$t}"
done
[ ${#units[@]} -gt 0 ] && say "  WP total: $proved_all / $total_all goals proved"
# The largest step count and the longest time of any goal a prover proved
# (from the per-goal lines of -wp-verbose 2): the step limit's margin, and
# how close the safety-net timeout came.
steps_max=null; slowest_s=null
if [ ${#units[@]} -gt 0 ]; then
    goals=$(for u in "${units[@]}"; do
                label=${u%%|*}
                sed -nE 's/^\[wp\] \[(Z3|CVC4)[^]]*\] Goal typed_(real_)?([^ ]+) : Valid.*\(([0-9.]+)(m?s)\) \(([0-9]+)\)$/\1 \3 \4 \5 \6/p' \
                    "$OUT/wp-$(echo "$label" | tr '/. ' '___').log" |
                    awk -v f="$label" '{ t = ($4 == "ms") ? $3 / 1000 : $3; print $1, $5, t, f, $2 }'
            done)
    if [ -n "$goals" ]; then
        for pr in Z3 CVC4; do
            top=$(echo "$goals" | awk -v p=$pr '$1 == p' | sort -k2,2n | tail -1)
            lim=$Z3_STEPS; [ $pr = CVC4 ] && lim=$CVC4_STEPS
            [ -n "$top" ] && say "$(echo "$top" | awk -v s="$lim" \
                '{ printf "  most steps, %s: %d of the %d limit (%.1f%%), %s %s\n", $1, $2, s, 100 * $2 / s, $4, $5 }')"
        done
        steps_max=$(echo "$goals" | awk '$1 == "Z3" && $2 > z { z = $2 } $1 == "CVC4" && $2 > c { c = $2 }
                                         END { printf "{\"z3\":%d,\"cvc4\":%d}", z, c }')
        slow=$(echo "$goals" | sort -k3,3g | tail -1)
        slowest_s=$(echo "$slow" | awk '{print $3}')
        say "$(echo "$slow" | awk -v t="$WP_TIMEOUT" \
            '{ printf "  slowest goal: %ss (wall clock), %s %s %s\n", $3, $1, $4, $5 }')"
    fi
fi

eva_alarms=null; eva_unknown=null
if [ $MODE = full ] || [ $MODE = eva ]; then
    log="$OUT/eva.log"
    t1=$(date +%s)
    # -eva-precision 3: enough unrolling to keep the table index exact; the
    # ranges come from interval arithmetic on binary32/binary64 (IEEE exact).
    frama-c -c11 -cpp-extra-args="$CPP" "$ROOT/ACSL/eva_driver.c" \
        $(sed -n 's/^ \* covers: //p' "$ROOT/ACSL/eva_driver.c" | sed "s|[^ ]*|$ROOT/&|g") \
        -main pc_eva_main -eva -eva-precision 3 -eva-no-show-progress \
        -eva-warn-key builtins:missing-spec=error -then -report >"$log" 2>&1
    rc=$?
    eva_alarms=$(sed -n 's/^ *\([0-9]\+\) alarms\? generated by the analysis.*/\1/p' "$log" | tail -1)
    [ -z "$eva_alarms" ] && grep -q 'No alarms raised' "$log" && eva_alarms=0
    # The driver's own assertions (output ranges) must all be Valid; the
    # contracts of impl/ are WP's part (Eva cannot evaluate \separated and
    # the nonlinear index facts), so their Eva status is not counted here.
    eva_unknown=$(grep -E "^\[ *[A-Za-z -]+\] Assertion '[a-z_]+' \(file [^)]*ACSL/eva_driver.c" "$log" |
                  grep -cv '^\[  Valid  \]')
    eva_valid=$(grep -cE "^\[  Valid  \] Assertion '[a-z_]+' \(file [^)]*ACSL/eva_driver.c" "$log")
    if [ $rc -ne 0 ] || [ -z "$eva_alarms" ]; then
        say "  Eva ACSL/eva_driver.c: Frama-C failed (exit $rc) or printed no summary, see $log"
        status=3; eva_alarms=null
    else
        mark=ok; { [ "$eva_alarms" -eq 0 ] && [ "$eva_unknown" -eq 0 ] && [ "$eva_valid" -gt 0 ]; } || { mark=ALARMS; [ $status -eq 0 ] && status=1; }
        say "$(printf '  Eva ACSL/eva_driver.c: %s alarms, driver assertions: %s valid, %s not  %3ss  %s' \
            "$eva_alarms" "$eva_valid" "$eva_unknown" $(( $(date +%s) - t1 )) "$mark")"
        [ $mark = ok ] || grep -E '^\[ *(Unknown|Invalid|Partial)|alarm' "$log" | head -30 | sed 's/^/      /' | tee -a "$report"
    fi
fi

if [ $MODE = broken ] && [ $status -le 1 ]; then
    # Every mutant must fail; one that proves means the proof misses it.
    status=1
    for u in "${units[@]}"; do
        label=${u%%|*}
        grep -qE "^  WP $label +.*UNPROVED" "$report" || {
            say "  mutant $label PROVED: the contracts do not catch this defect"; status=0; }
    done
fi
secs=$(( $(date +%s) - t0 ))
case $status in
    0) verdict=PROVED ;; 1) verdict=UNPROVED ;; *) verdict=ERROR ;;
esac
say "prove ($MODE): $verdict: $proved_all / $total_all WP goals, Eva alarms: $eva_alarms, ${secs}s"
[ $MODE = broken ] && [ $status -eq 1 ] && say "(--broken: every mutant failed its proof, as it must)"
cat >"$OUT/report$suffix.json.tmp" <<EOF
{"mode":"$MODE","verdict":"$verdict","wp_proved":$proved_all,"wp_total":$total_all,
 "wp_units":[$json_units],"eva_alarms":$eva_alarms,"eva_unproved_properties":$eva_unknown,
 "wp_steps_limit":{"z3":$Z3_STEPS,"cvc4":$CVC4_STEPS},"wp_cpu_seconds":$CPU_SECONDS,"wp_timeout_s":$WP_TIMEOUT,
 "wp_steps_max":$steps_max,
 "wp_slowest_goal_s":$slowest_s,"seconds":$secs,"frama_c":"$(frama-c -version)","why3":"$(why3 --version 2>&1 | head -1)",
 "z3":"$(z3 --version)","cvc4":"$(cvc4 --version | head -1)","report":"report$suffix.txt"}
EOF
mv "$OUT/report$suffix.json.tmp" "$OUT/report$suffix.json"
exit $status
