#!/bin/bash
# bench_goals.sh PECHECK: `make bench`'s speed goals (d = 128, base 10000,
# 131072 positions unless said), each figure printed with its goal:
#   1. export: `pecheck reference --dtype f32 --out F.npy` (whole process,
#      wall) against numpy computing the float64 table and saving it as
#      float32 (in-process: the time a user's script spends, interpreter
#      start-up excluded); each writes a file that does not exist yet (a
#      file written over frees the old one's blocks first); after one
#      untimed pair, the ratio's median over 3 alternating pairs (goal
#      <= 0.5), in a memory file system (/dev/shm), where neither waits
#      for a disk, and in the bench's temporary folder (usually a disk),
#      where pecheck's fsync before the rename (the table is on the disk,
#      and a write error reported, before the file takes its name: README,
#      outputs) waits for the disk and numpy's save does not; the time of
#      `dd conv=fsync` of the same 64 MiB there is printed beside it (the
#      disk's floor); the other dtypes' times.
#   2. plugin: `check` of scripts/bench_torch_exp.c built as a plugin (the
#      built-in torch-exp's formulation) against `check --impl torch-exp`,
#      median ratio over 3 alternating pairs (goal <= 1.25); then the same
#      for `accuracy` (the gate alone: its calls are most of the plugin's
#      cost), goal <= 1.25, and the plugin run's system time over its user
#      time (the sandbox's own cost: page-protection flips, copies), median
#      of 3, goal <= 0.10.
#   3. gate: `check --impl torch-exp --threads 2` (accuracy on both layouts
#      and every default property), median of 3 (goal <= 0.6 s); then the
#      time per value (positions x d) at 2^14, 2^17, 2^20 and 2^24
#      positions, and the peak RSS at 2^24 (goal <= 64 MiB).
#   4. tables: a RoPE cos/sin cache as a user hands it over (float32, HF
#      layout cat(freqs, freqs), base 500000, written by
#      scripts/bench_rope_cache.py), `check --table COS --table-sin SIN
#      --family rope --base 500000` (whole process, wall), against the
#      PyTorch peer of bench_rope_cache.py (a float64 reference built the
#      same way, torch.testing.assert_close on cos and sin, one thread;
#      in-process: loading the files to the verdict), 3 alternating runs
#      after an untimed one, medians of the ratios:
#      a. the table gate (--property accuracy) <= 0.5 x the peer;
#      b. the full check (every property) <= 1.0 x the peer;
#      c. a 2^22-position cache (2 GiB per table, written to the bench's
#         folder when it has room): the gate's peak RSS <= 64 MiB and its
#         time per value (positions x d) within 1.2 x the 131072-position
#         run's (a's median);
#      d. with BENCH_BASELINE=OLD/pecheck: every verdict and JSON of the
#         tests' table commands the same as OLD's, run times aside
#         (scripts/table_equiv.py).
# Wall-clock seconds on a possibly shared machine: the load average is
# printed before and after.  BENCH_GATE_SIZES overrides the sizes of 3,
# BENCH_TABLE_BIG the positions of 4c.
set -u
PECHECK=${1:?usage: bench_goals.sh PATH/TO/pecheck}
PY=${PYTHON:-/usr/bin/python3}
D=128 N=131072
SIZES=${BENCH_GATE_SIZES:-16384 131072 1048576 16777216}
HERE=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) shm=
trap 'rm -rf "$tmp" ${shm:+"$shm"}' EXIT
export PECHECK_REGRESSIONS=off
TIME=/usr/bin/time
[ -x $TIME ] || { echo "bench_goals.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
load() { uptime | sed 's/.*load/load/'; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { # wall seconds of a command (its output discarded)
    $TIME -f '%e' -o "$tmp/t" "$@" >/dev/null 2>&1 || { echo "bench_goals.sh: failed: $*" >&2; exit 3; }
    tail -1 "$tmp/t"
}
# "met" when figure X is a number <= goal G ("NOT met" too when a run failed)
verdict() {
    awk -v x="$1" -v g="$2" 'BEGIN { ok = x ~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/
        print ok ? (x + 0 <= g ? "met" : "NOT met") : "NOT met (no figure: a run failed)" }'
}

echo "pecheck speed goals: d=$D base=10000, $(nproc) cores, $(load)"

# ---- 1. export --------------------------------------------------------------
cat >"$tmp/np.py" <<'PY'
import sys, time
import numpy as np
n, d, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
t0 = time.perf_counter()
omega = 10000.0 ** (-np.arange(0, d, 2, dtype=np.float64) / d)
th = np.outer(np.arange(n, dtype=np.float64), omega)
pe = np.empty((n, d))
pe[:, 0::2] = np.sin(th)
pe[:, 1::2] = np.cos(th)
np.save(out, pe.astype(np.float32))
print("%.6f" % (time.perf_counter() - t0))
PY
# the export's ratio in folder DIR (label LABEL): one untimed pair, then 3
# alternating pairs, each run writing a new file
export_ratio() {
    local dir=$1 label=$2 k p q
    : >"$tmp/export"
    ratio=
    for k in 0 1 2 3; do
        rm -f "$dir/pe.npy" "$dir/np.npy"
        p=$(wall "$PECHECK" reference --family sinusoidal --d $D --positions 0:$((N - 1)) \
                --out "$dir/pe.npy" --quiet)
        q=$("$PY" "$tmp/np.py" $N $D "$dir/np.npy")
        [ -n "$p" ] && [ -n "$q" ] || { rm -f "$dir/pe.npy" "$dir/np.npy"; return 1; }
        [ $k -gt 0 ] && echo "$p $q" >>"$tmp/export"
    done
    rm -f "$dir/pe.npy" "$dir/np.npy"
    ratio=$(awk '{ print $1 / $2 }' "$tmp/export" | median | awk '{ printf "%.2f", $1 }')
    echo "1. export $N x $D f32, $label: pecheck $(cut -d' ' -f1 "$tmp/export" | tr '\n' ' ')s," \
         "numpy $(cut -d' ' -f2 "$tmp/export" | tr '\n' ' ')s, ratio (median of 3 pairs) $ratio"
}
if ! $PY -c 'import numpy' 2>/dev/null; then
    echo "1. export: SKIP (python3-numpy not installed)"
else
    # /dev/shm holds both tables (pecheck's temporary and numpy's file) with
    # room to spare, or the goal is judged on the disk folder
    mib=$((N * D * 4 / 1048576))
    free_mib=$(df -Pm /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
    [ "${free_mib:-0}" -ge $((3 * mib)) ] && shm=$(mktemp -d -p /dev/shm 2>/dev/null || true)
    if [ -n "$shm" ]; then
        export_ratio "$shm" "in /dev/shm (memory)" || echo "1. export in /dev/shm: a run failed"
        printf '   ratio %s in memory, goal <= 0.5: %s\n' "${ratio:-(none)}" "$(verdict "$ratio" 0.5)"
        rm -rf "$shm"
        shm=
        judged=1
    else
        echo "1. export: /dev/shm missing or under $((3 * mib)) MiB free: judged on the disk folder"
        judged=
    fi
    export_ratio "$tmp" "in $tmp ($(df -PT "$tmp" | awk 'NR == 2 { print $2 }'))" \
        || echo "1. export in $tmp: a run failed"
    [ -n "$judged" ] ||
        printf '   ratio %s, goal <= 0.5: %s\n' "${ratio:-(none)}" "$(verdict "$ratio" 0.5)"
    rm -f "$tmp/dd.bin"
    floor=$(wall dd if=/dev/zero of="$tmp/dd.bin" bs=1M count=$mib conv=fsync)
    rm -f "$tmp/dd.bin"
    printf '   on that file system pecheck waits for the disk (fsync before the rename): dd of the\n'
    printf '   same %d MiB with conv=fsync there: %s\n' $mib "$([ -n "$floor" ] && echo "$floor s" || echo failed)"
    for dt in f64 f16 bf16; do
        rm -f "$tmp/pe-$dt.npy"
        printf '   --dtype %-4s %s s\n' $dt "$(wall "$PECHECK" reference --family sinusoidal --d $D \
            --positions 0:$((N - 1)) --dtype $dt --out "$tmp/pe-$dt.npy" --quiet)"
    done
fi

# ---- 2. plugin --------------------------------------------------------------
CC=${CC:-cc}
if $CC -O2 -ffp-contract=off -fno-math-errno -shared -fPIC -I"$HERE/../include" "$HERE/bench_torch_exp.c" \
       -o "$tmp/torch_exp.so" -lm; then
    for k in 1 2 3; do
        p=$(wall "$PECHECK" check --plugin "$tmp/torch_exp.so" --d $D --max-pos $((N - 1)) --quiet)
        b=$(wall "$PECHECK" check --impl torch-exp --d $D --max-pos $((N - 1)) --quiet)
        echo "$p $b" >>"$tmp/plugin"
    done
    r=$(awk '{ print $1 / $2 }' "$tmp/plugin" | median)
    echo "2. gate of a torch-exp plugin $(cut -d' ' -f1 "$tmp/plugin" | tr '\n' ' ')s," \
         "built-in torch-exp $(cut -d' ' -f2 "$tmp/plugin" | tr '\n' ' ')s"
    printf '   ratio (median of 3 pairs) %.2f, goal <= 1.25: %s\n' "$r" "$(verdict "$r" 1.25)"
    for k in 1 2 3; do
        # wall, user and system seconds of the run and the processes it reaped (its
        # plugin hosts): getrusage's own figures (GNU time rounds system time away)
        read -r p pu ps < <("$PY" - "$PECHECK" accuracy --plugin "$tmp/torch_exp.so" --d $D \
            --max-pos $((N - 1)) --quiet <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f %.3f" % (time.monotonic() - t0, r.ru_utime, r.ru_stime) if rc == 0 else "failed")
PY
)
        [ "$p" != failed ] || { echo "bench_goals.sh: failed: accuracy --plugin" >&2; exit 3; }
        b=$(wall "$PECHECK" accuracy --impl torch-exp --d $D --max-pos $((N - 1)) --quiet)
        echo "$p $b $pu $ps" >>"$tmp/plugin_acc"
    done
    r=$(awk '{ print $1 / $2 }' "$tmp/plugin_acc" | median)
    sy=$(awk '{ print ($3 > 0 ? $4 / $3 : 1) }' "$tmp/plugin_acc" | median)
    echo "   accuracy: plugin $(cut -d' ' -f1 "$tmp/plugin_acc" | tr '\n' ' ')s," \
         "built-in $(cut -d' ' -f2 "$tmp/plugin_acc" | tr '\n' ' ')s"
    printf '   ratio (median of 3 pairs) %.2f, goal <= 1.25: %s\n' "$r" "$(verdict "$r" 1.25)"
    printf '   plugin system/user time (median of 3) %.3f, goal <= 0.10: %s\n' "$sy" \
        "$(verdict "$sy" 0.10)"
else
    echo "2. plugin: SKIP (cannot build scripts/bench_torch_exp.c with $CC)"
fi

# ---- 3. the whole gate ------------------------------------------------------
for k in 1 2 3; do
    wall "$PECHECK" check --impl torch-exp --d $D --max-pos $((N - 1)) --threads 2 --quiet
done >"$tmp/gate"
g=$(median <"$tmp/gate")
echo "3. whole gate, torch-exp $N x $D, 2 threads: $(tr '\n' ' ' <"$tmp/gate")s"
printf '   median %.2f s, goal <= 0.6 s: %s\n' "$g" "$(verdict "$g" 0.6)"
for n in $SIZES; do
    $TIME -f '%e %M' -o "$tmp/t" "$PECHECK" check --impl torch-exp --d $D --max-pos $((n - 1)) \
        --threads 2 --quiet >/dev/null 2>&1 || { echo "bench_goals.sh: gate failed at $n" >&2; exit 3; }
    read -r s rss <"$tmp/t"
    printf '   %9d positions: %8.2f s, %6.2f ns per value, peak RSS %6.1f MiB\n' "$n" "$s" \
        "$(echo "$s * 1000000000 / ($n * $D)" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
done
rss_mib=$(echo "$rss / 1024" | bc -l)
printf '   peak RSS at %d positions %.1f MiB, goal <= 64 MiB: %s\n' "$n" "$rss_mib" \
    "$(verdict "$rss_mib" 64)"

# ---- 4. tables --------------------------------------------------------------
TB=500000 BIG=${BENCH_TABLE_BIG:-4194304}
CACHE="$HERE/bench_rope_cache.py"
# the gate (accuracy) or the full check of the cache COS, SIN
table_cmd() { # COS SIN [options]: the command line
    local c=$1 s=$2
    shift 2
    echo "$PECHECK" check --table "$c" --table-sin "$s" --family rope --base $TB --quiet "$@"
}
ratio_of() { # column K over the peer's (column 3), median of the rows of FILE
    awk -v k="$1" '{ print $k / $3 }' "$2" | median | awk '{ printf "%.2f", $1 }'
}
if ! $PY -c 'import numpy, torch' 2>/dev/null; then
    echo "4. tables: SKIP (python3-torch or python3-numpy not installed)"
elif ! $PY "$CACHE" write $N $D $TB "$tmp/cos.npy" "$tmp/sin.npy"; then
    echo "4. tables: NOT met (no figure): scripts/bench_rope_cache.py could not write the cache"
else
    : >"$tmp/tables"
    for k in 0 1 2 3; do
        g=$(wall $(table_cmd "$tmp/cos.npy" "$tmp/sin.npy" --property accuracy))
        f=$(wall $(table_cmd "$tmp/cos.npy" "$tmp/sin.npy"))
        p=$($PY "$CACHE" peer "$tmp/cos.npy" "$tmp/sin.npy" $TB) || p="nan failed"
        [ $k -gt 0 ] && echo "$g $f ${p%% *} ${p##* }" >>"$tmp/tables"
    done
    echo "4. tables: RoPE cache $N x $D f32, HF layout, base $TB; the PyTorch peer" \
         "$(cut -d' ' -f3 "$tmp/tables" | tr '\n' ' ')s ($(cut -d' ' -f4 "$tmp/tables" | sort -u | tr '\n' ' ' | sed 's/ $//'))"
    ra=$(ratio_of 1 "$tmp/tables") rb=$(ratio_of 2 "$tmp/tables")
    echo "   a. table gate $(cut -d' ' -f1 "$tmp/tables" | tr '\n' ' ')s: ratio (median of 3) $ra," \
         "goal <= 0.5: $(verdict "$ra" 0.5)"
    echo "   b. full check $(cut -d' ' -f2 "$tmp/tables" | tr '\n' ' ')s: ratio (median of 3) $rb," \
         "goal <= 1.0: $(verdict "$rb" 1.0)"
    per_small=$(cut -d' ' -f1 "$tmp/tables" | median | awk -v n=$N -v d=$D '{ printf "%.3f", $1 * 1e9 / (n * d) }')
    rm -f "$tmp/cos.npy" "$tmp/sin.npy"
    need=$((2 * BIG * D * 4 / 1048576 + 1024))
    free_mib=$(df -Pm "$tmp" | awk 'NR == 2 { print $4 }')
    if [ "${free_mib:-0}" -lt $need ]; then
        echo "   c. $BIG positions: NOT met (no figure): $tmp has ${free_mib:-?} MiB free, the cache needs $need"
    elif ! $PY "$CACHE" write $BIG $D $TB "$tmp/cos.npy" "$tmp/sin.npy"; then
        echo "   c. $BIG positions: NOT met (no figure): the cache could not be written in $tmp"
    elif ! $TIME -f '%e %M' -o "$tmp/t" $(table_cmd "$tmp/cos.npy" "$tmp/sin.npy" --property accuracy) \
             >/dev/null 2>&1; then
        echo "   c. $BIG positions: NOT met (no figure): the gate failed (exit $?)"
    else
        read -r s rss <"$tmp/t"
        per_big=$(awk -v s="$s" -v n=$BIG -v d=$D 'BEGIN { printf "%.3f", s * 1e9 / (n * d) }')
        rss_mib=$(awk -v r="$rss" 'BEGIN { printf "%.1f", r / 1024 }')
        rel=$(awk -v b="$per_big" -v s="$per_small" 'BEGIN { printf "%.2f", b / s }')
        echo "   c. $BIG x $D ($((BIG * D * 4 / 1048576)) MiB a table): gate $s s, peak RSS $rss_mib MiB," \
             "goal <= 64 MiB: $(verdict "$rss_mib" 64)"
        echo "      $per_big ns per value, $per_small at $N: ratio $rel, goal <= 1.2: $(verdict "$rel" 1.2)"
    fi
    rm -f "$tmp/cos.npy" "$tmp/sin.npy"
fi
if [ -n "${BENCH_BASELINE:-}" ]; then
    eq=$("$HERE/table_equiv.py" "$BENCH_BASELINE" "$PECHECK" | tail -1)
    echo "   d. against $BENCH_BASELINE: $eq:" \
         "$(echo "$eq" | grep -q ' 0 differ; tests: [0-9]* passed, 0 failed' && echo met || echo NOT met)"
else
    echo "   d. not measured: BENCH_BASELINE=OLD/pecheck compares the tests' table commands with OLD's"
fi
echo "after: $(load)"
