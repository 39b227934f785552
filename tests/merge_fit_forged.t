#!/bin/bash
# `pecheck merge` of check shards takes only what `pecheck check --shard`
# writes in a fitted-model slot: its notes (the setup's, alike in every
# shard, or a fault's at one of the shard's own blocks where its accuracy
# result records it), the fit's constants the merged run sets up, numbers
# exactly as %a writes them and sums as the writer expands them, each
# member once; a missing fitted-model slot and differing options are named.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"

# refused WORD... -- FILES: merge exits 2 with one stderr line holding every WORD, no stdout
refused() {
    local words=()
    while [ "$1" != "--" ]; do words+=("$1"); shift; done; shift
    "$PECHECK" merge "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    local good=1
    for w in "${words[@]}"; do grep -qF -- "$w" "$tmp/err" || good=0; done
    if [ $rc -eq 2 ] && [ $good -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]; then
        ok "refused (exit 2, names ${words[*]}): $(sed "s|$tmp/||g" "$tmp/err")"
    else
        nok "expected exit 2 naming ${words[*]}: rc=$rc stderr: $(sed "s|$tmp/||g" "$tmp/err") stdout: $(head -c 300 "$tmp/out")"
    fi
}

# forge IN OUT PYTHON: OUT is IN's JSON (as d) after the Python statement;
# fit() is the fitted-model slot's "fit", raw(t) edits the text written
forge() {
    /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def slot(check): return [s for s in d["slots"] if s["check"] == check][0]
def fit(): return slot("fitted-model")["fit"]
post = []
def raw(f): post.append(f)
def ca(x): # x as C's %a writes it
    m, e = x.hex().split("p")
    return m.rstrip("0").rstrip(".") + "p" + e
exec(sys.argv[3])
t = json.dumps(d, indent=1)
for f in post: t = f(t)
open(sys.argv[2], 'w').write(t)
PY
}

# forge_all PYTHON: every shard forged alike into $tmp/f1..3.json
forge_all() { for k in 1 2 3; do forge "$tmp/s$k.json" "$tmp/f$k.json" "$1"; done; }
F=("$tmp/f1.json" "$tmp/f2.json" "$tmp/f3.json")

echo "1..27"

# plus-1e-4 (every value off by 1e-4): the fitted model fails, unsharded and merged
run=(--impl plus-1e-4 --max-pos 3000 --layout interleaved --property accuracy --quiet)
"$PECHECK" check "${run[@]}" --format json --output "$tmp/full.json" 2>/dev/null; rc0=$?
for k in 1 2 3; do "$PECHECK" check "${run[@]}" --shard $k/3 --output "$tmp/s$k.json"; done
S=("$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json")
"$PECHECK" merge --format json --output "$tmp/m.json" "${S[@]}" 2>/dev/null; rc1=$?
fit_status() { /usr/bin/python3 -c 'import json, sys
print([v["status"] for v in json.load(open(sys.argv[1]))["results"] if v["check"] == "fitted-model"])' "$1"; }
if [ $rc0 -eq 1 ] && [ $rc1 -eq 1 ] && [ "$(fit_status "$tmp/m.json")" = "['fail']" ] \
   && [ "$(fit_status "$tmp/full.json")" = "['fail']" ]; then ok "genuine shards: the fitted model fails, exit 1, as unsharded"
else nok "genuine shards: rc $rc1 (unsharded $rc0), merged $(fit_status "$tmp/m.json")"; fi

# 1. notes: only those the writer makes
forge "$tmp/s2.json" "$tmp/x.json" 'fit()["note"] = "anything"'
refused x.json "slot 2" fit.note anything -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
forge "$tmp/s2.json" "$tmp/x.json" 'fit()["note"] = "two\nlines\u00e9"'
refused x.json fit.note "two?lines??" -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
forge_all 'fit()["note"] = "anything"'
refused f1.json "slot 2" fit.note -- "${F[@]}"
forge "$tmp/s2.json" "$tmp/x.json" 'raw(lambda t: t.replace("\"note\": null", "\"note\": null, \"note\": \"x\""))'
refused x.json note twice -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
forge "$tmp/s1.json" "$tmp/x.json" 'raw(lambda t: t.replace("\"kind\": \"check-shard\"", "\"kind\": \"check-shard\", \"kind\": \"check-shard\""))'
refused x.json kind twice -- "$tmp/x.json" "$tmp/s2.json" "$tmp/s3.json"
# a fault's note at a block of shard 1 (0..255), written in shard 2
forge "$tmp/s2.json" "$tmp/x.json" 'fit()["note"] = "the implementation faulted at positions 0..255"'
refused x.json fit.note "faulted at positions 0..255" -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
# shard 2's own block, but its accuracy result records no fault there
b=$(/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["slots"][1]["fit"]["sums"]["start"])' "$tmp/s2.json")
forge "$tmp/s2.json" "$tmp/x.json" "fit()['note'] = 'the implementation faulted at positions $b..$((b + 255))'"
refused x.json fit.note "faulted at positions $b" -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
forge "$tmp/s2.json" "$tmp/x.json" "fit()['note'] = 'the implementation faulted at positions $b..$((b + 255)) and more'"
refused x.json fit.note -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
# the setup's note where the run makes a fit
forge_all 'fit()["note"] = "fewer than 16 consecutive positions"'
refused f1.json fit.note "fewer than 16" -- "${F[@]}"

# 2. the fit's constants changed alike in every shard
forge_all 'fit()["u"] = "0x1p-20"'
refused f1.json fit.u "not the run" -- "${F[@]}"
forge_all 'fit()["u_s"] = "0x1p-10"'
refused f1.json fit.u_s "not the run" -- "${F[@]}"
forge_all 'fit()["attention"] = "0x1.1p+0"'
refused f1.json fit.attention "not the run" -- "${F[@]}"
forge_all 'fit()["omega"][5] = "0x1p-3"'
refused f1.json fit.omega "not the run" -- "${F[@]}"
forge_all 'fit()["kappa"][7] = "0x1p+12"'
refused f1.json fit.kappa "not the run" -- "${F[@]}"
forge_all 'fit()["end"] = 2999'
refused f1.json "fit.start\" or \"end" "not the run" -- "${F[@]}"
forge_all 'f = fit(); f["pairs"] = 63; f["omega"].pop(); f["kappa"].pop(); f["sums"]["pairs"].pop()'
refused f1.json fit.pairs "not the run" -- "${F[@]}"

# 3. numbers exactly as the writer writes them (a sum of 0 is written [],
# so an empty array is a value, not a format, the writer can make)
forge "$tmp/s2.json" "$tmp/x.json" 'p = fit()["sums"]["pairs"][0]; p["first"] = repr(float.fromhex(p["first"]))'
refused x.json fit.first "%a" -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
forge "$tmp/s2.json" "$tmp/x.json" 'fit()["u"] = " " + fit()["u"]'
refused x.json fit.u "%a" -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
forge "$tmp/s2.json" "$tmp/x.json" 'fit()["sums"]["pairs"][1]["zr"] = "NaN"'
refused x.json fit.zr -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
forge "$tmp/s2.json" "$tmp/x.json" 'fit()["sums"]["pairs"][1]["zr"] = "Infinity"'
refused x.json fit.zr -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
forge "$tmp/s2.json" "$tmp/x.json" 'fit()["sums"]["pairs"][1]["zr"].append("0x0p+0")'
refused x.json fit.zr expansion -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
forge "$tmp/s2.json" "$tmp/x.json" 'z = fit()["sums"]["pairs"][1]["zr"]; h = ca(float.fromhex(z[0]) / 2); z[0:1] = [h, h]'
refused x.json fit.zr expansion -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
forge "$tmp/s2.json" "$tmp/x.json" 'slot("accuracy")["accuracy"]["result"]["params"]["base"] = 10000.0; p = fit()["sums"]["pairs"][0]; p["last"] = "0X" + p["last"][2:]'
refused x.json fit.last "%a" -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"

# 4. messages: a missing slot is named, an option of a plugin does not bind a built-in
# (every property: the slots after it then have other owners, which merge
# used to name instead)
for k in 1 2 3; do
    "$PECHECK" check --impl plus-1e-4 --max-pos 3000 --quiet --shard $k/3 --output "$tmp/a$k.json"
    forge "$tmp/a$k.json" "$tmp/f$k.json" 'd["slots"] = [s for s in d["slots"] if s["check"] != "fitted-model"]'
done
refused f1.json "slot 2" fitted-model missing -- "${F[@]}"
for h in 1 2; do
    "$PECHECK" check "${run[@]}" --plugin-hosts $h --shard $h/2 --output "$tmp/h$h.json"
done
"$PECHECK" merge --format json --output "$tmp/hm.json" "$tmp/h1.json" "$tmp/h2.json" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && [ "$(fit_status "$tmp/hm.json")" = "['fail']" ] \
    && ok "built-in shards made with --plugin-hosts 1 and 2 merge (exit 1, the fitted model fails)" \
    || nok "built-in shards with different --plugin-hosts: rc $rc: $(cat "$tmp/err")"
"$PECHECK" check "${run[@]}" --seed 7 --shard 2/3 --output "$tmp/x.json"
refused "options differ: seed" -- "$tmp/s1.json" "$tmp/x.json" "$tmp/s3.json"
