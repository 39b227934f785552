#!/bin/sh
# rope_formulation_ggml.t: the ggml strict class of RoPE (--formulation
# ggml: llama.cpp's CPU rope, families/rope/formulation_ggml.c;
# docs/precision-model.md "The ggml class").
#
# - llama.cpp's caches (tests/lib/ggml_rope_cache.py, numpy float32 as
#   ggml_rope_cache_init and rope_yarn compute them) of Llama-2, linear x8,
#   Llama-3.1 (llama3 as the converter's rope_freqs), Qwen2.5 YaRN x4,
#   Phi-3.5 (longrope as rope_freqs) at 520192..524287 and DeepSeek-V3
#   (YaRN x40) at 159744..163839 pass it, the JSON naming the class with
#   kappa_i and k_i and no binary32 frequencies; Llama-3.1's passes it
#   against --rope-freqs of the converter's factors too; the built-in
#   rope-ggml passes it; llama.cpp's M-RoPE cache of Qwen2-VL passes it;
# - 150 random configs (default, linear, yarn, longrope, llama3) pass it;
# - the mistakes: a theta_scale one binary32 step beyond powf's two
#   neighbours passes the default class and fails ggml; a base of 10100
#   fails ggml; llama3's factors from 2 * 3.14159 (the converter's) are
#   printed as a comment (they move the band's frequencies by less than
#   the product's own drift there: docs/precision-model.md);
# - HuggingFace's own float32 caches (tests/lib/rope_caches.py, with torch)
#   of the same schedules pass ggml (ggml's product drifts further than
#   HF's pow form at every pair past the first few, and HF's first pairs
#   stay within ggml's there), their err/bound printed;
# - refused (exit 2, naming the schedule): dynamic NTK, YaRN with an
#   untruncated range (gpt-oss), axial positions; the sinusoidal family;
# - identify proposes ggml for llama.cpp's caches (Llama-2, DeepSeek-V3)
#   and hf for HF's (Llama-2, Qwen2.5 YaRN), in the text, the JSON
#   (formulation) and the check line, which passes;
# - check --shard of a llama.cpp cache under ggml: the merged JSON is the
#   unsharded one's; merge refuses a ggml shard with frequencies, or with
#   another kappa_i than the other shards'.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
if ! "$PY" -c 'import numpy' >/dev/null 2>&1; then
    echo "1..0 # SKIP numpy not available to $PY"
    exit 0
fi
tap_tmp fggml
cfgs=$root/tests/data/configs
cat >"$tmp/linear8.json" <<'JSON'
{"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0,
 "max_position_embeddings": 32768, "rope_scaling": {"type": "linear", "factor": 8.0}}
JSON

# build NAME CONFIG VARIANT P0: llama.cpp's cache of 4096 positions from P0 in $tmp/NAME
build() {
    "$PY" "$root/tests/lib/ggml_rope_cache.py" "$2" "$3" 4096 "$4" "$tmp/$1" >"$tmp/$1.log" 2>&1
}
# gate NAME P0 [OPTIONS]: the accuracy gate on $tmp/NAME with its config
gate() {
    g=$1 p=$2
    shift 2
    "$PECHECK" check --table "$tmp/$g/cos.npy" --table-sin "$tmp/$g/sin.npy" \
        --hf-config "$tmp/$g/config.json" --pos-start "$p" --family rope --layout half \
        --property accuracy --regressions off --quiet "$@" >"$tmp/$g.out" 2>&1
}
ratio() { sed -n 's/.*max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$1" | head -n 1; }

# JSON of the ggml class: class ggml, kappa and k per pair, kappa >= k, no omega
cat >"$tmp/form.py" <<'PY'
import json, sys
b = [r for r in json.load(open(sys.argv[1]))["results"] if r["check"] == "accuracy"][0]["data"]["bound"]
assert b["class"] == "ggml", b["class"]
f = b["formulation"]
assert f["name"] == "ggml" and "omega" not in f, sorted(f)
assert len(f["kappa"]) == len(f["k"]) > 0
assert all(ka >= k for ka, k in zip(f["kappa"], f["k"]))
print("largest kappa_i %.4g, k_i %.4g" % (max(f["kappa"]), max(f["k"])))
PY

p0=520192
for m in "llama2 $cfgs/meta-llama--Llama-2-7b-hf.json $p0" "linear8 $tmp/linear8.json $p0" \
         "llama31 $cfgs/meta-llama--Llama-3.1-8B.json $p0" \
         "qwen25yarn $cfgs/Qwen--Qwen2.5-7B-Instruct-yarn.json $p0" \
         "phi35 $cfgs/microsoft--Phi-3.5-mini-instruct.json $p0" \
         "deepseek3 $cfgs/deepseek-ai--DeepSeek-V3.json 159744"; do
    set -- $m
    build "$1" "$2" ok "$3"
    gate "$1" "$3" --formulation ggml --format json --output "$tmp/$1.json"
    rc=$?
    gate "$1" "$3" --formulation ggml
    ks=$("$PY" "$tmp/form.py" "$tmp/$1.json" 2>>"$tmp/$1.out")
    [ $rc -eq 0 ] && [ -n "$ks" ] && grep -q "strict class ggml: llama.cpp's CPU rope" "$tmp/$1.out"
    ok $? "$1: llama.cpp's cache passes --formulation ggml at $3.. ($(ratio "$tmp/$1.out")), named; $ks" \
        "$tmp/$1.out"
    echo "# $1 llama.cpp: worst err/bound ggml $(ratio "$tmp/$1.out"); $ks"
done

# random configs of every schedule llama.cpp implements (head dims 32..256,
# bases not binary32, factors, yarn ramps, llama3 bands, longrope factors,
# 64 rows at positions 0 to past 2^24): each llama.cpp cache passes ggml
cat >"$tmp/rand.py" <<'PY'
# RAND SEED COUNT LIBDIR PECHECK OUTDIR: random llama.cpp caches against --formulation ggml
import json, os, random, subprocess, sys
sys.path.insert(0, sys.argv[3])
import numpy as np
import ggml_rope_cache as g
rng = random.Random(int(sys.argv[1]))
P, out = sys.argv[4], sys.argv[5]
def cfg_of(kind):
    hd = rng.choice([32, 64, 80, 96, 128, 160, 256])
    base = rng.choice([10000.0, 500000.0, 1e6, 123456.7, 5e4, 2.5e5 + rng.random()])
    c = {"hidden_size": hd * 8, "num_attention_heads": 8, "head_dim": hd, "rope_theta": base,
         "max_position_embeddings": rng.choice([2048, 4096, 8192, 32768])}
    if kind == "linear": c["rope_scaling"] = {"type": "linear", "factor": rng.choice([2.0, 4.0, 1.3, 8.0, 3.7])}
    if kind == "yarn":
        c["rope_scaling"] = {"type": "yarn", "factor": rng.choice([2.0, 4.0, 8.0, 40.0, 3.3]),
                             "original_max_position_embeddings": rng.choice([2048, 4096, 8192]),
                             "beta_fast": rng.choice([32, 16, 24]), "beta_slow": rng.choice([1, 2, 0.5])}
    if kind == "longrope":
        h = hd // 2
        c["original_max_position_embeddings"] = 4096
        c["max_position_embeddings"] = rng.choice([16384, 131072])
        c["rope_scaling"] = {"type": "longrope", "short_factor": [1 + rng.random() for _ in range(h)],
                             "long_factor": [1 + 60 * rng.random() for _ in range(h)]}
    if kind == "llama3":
        lf, hf = rng.choice([(1.0, 4.0), (1.0, 2.0), (2.0, 8.0), (0.5, 3.0)])
        c["rope_scaling"] = {"rope_type": "llama3", "factor": rng.choice([8.0, 32.0, 4.0, 16.0]),
                             "low_freq_factor": lf, "high_freq_factor": hf,
                             "original_max_position_embeddings": rng.choice([8192, 4096, 2048])}
    return c
bad = tot = 0; worst = {}
kinds = ["default", "linear", "yarn", "longrope", "llama3"]
for t in range(int(sys.argv[2])):
    kind = kinds[t % len(kinds)]
    c = cfg_of(kind)
    d = os.path.join(out, str(t)); os.makedirs(d, exist_ok=True)
    json.dump(c, open(d + "/config.json", "w"))
    p0 = rng.choice([0, 5000, 200000, 520000, 1000000, 16777000]); n = 64
    cos, sin = g.cache(c, "ok", n, p0)
    np.save(d + "/cos.npy", cos); np.save(d + "/sin.npy", sin)
    r = subprocess.run([P, "check", "--table", d + "/cos.npy", "--table-sin", d + "/sin.npy", "--hf-config",
                        d + "/config.json", "--pos-start", str(p0), "--family", "rope", "--layout", "half",
                        "--property", "accuracy", "--regressions", "off", "--quiet", "--formulation", "ggml",
                        "--format", "json", "--output", d + "/o.json"], capture_output=True, text=True)
    tot += 1
    try:
        res = [x for x in json.load(open(d + "/o.json"))["results"] if x["check"] == "accuracy"][0]
        ratio = float(res["measured"])
    except Exception:
        ratio = -1
    worst[kind] = max(worst.get(kind, 0), ratio)
    if r.returncode != 0:
        bad += 1
        print("config %d (%s, p0 %d): exit %d %s %s" % (t, kind, p0, r.returncode, r.stderr[:200], json.dumps(c)[:200]))
print("%d configs, %d failed; worst err/bound %s" % (tot, bad, {k: round(v, 3) for k, v in worst.items()}))
sys.exit(1 if bad else 0)
PY
mkdir -p "$tmp/rnd"
"$PY" "$tmp/rand.py" 20261129 150 "$root/tests/lib" "$PECHECK" "$tmp/rnd" >"$tmp/rnd.out" 2>&1
ok $? "150 random llama.cpp caches (30 a schedule) pass ggml: $(tail -n 1 "$tmp/rnd.out")" "$tmp/rnd.out"
rm -rf "$tmp/rnd"

# a theta_scale one binary32 step past powf's neighbours: within the
# default class's 3i + X_i, not within ggml's i (1 + k_T) + ...
build ts1 "$cfgs/meta-llama--Llama-2-7b-hf.json" ts1 $p0
gate ts1 $p0
rd=$?
cp "$tmp/ts1.out" "$tmp/ts1.default"
gate ts1 $p0 --formulation ggml
rg=$?
[ $rd -eq 0 ] && [ $rg -eq 1 ]
ok $? "theta_scale 1 step past powf's: passes default ($(ratio "$tmp/ts1.default")), fails ggml ($(ratio "$tmp/ts1.out"))" \
    "$tmp/ts1.out"
build base "$cfgs/deepseek-ai--DeepSeek-V3.json" base 159744
gate base 159744 --formulation ggml
[ $? -eq 1 ]
ok $? "DeepSeek-V3 with rope_theta 10100: fails ggml ($(ratio "$tmp/base.out"))" "$tmp/base.out"
build pi5 "$cfgs/meta-llama--Llama-3.1-8B.json" pi5 $p0
gate pi5 $p0 --formulation ggml
echo "# llama3 rope_freqs from 2 * 3.14159 (the converter's): ggml exit $?, worst err/bound $(ratio "$tmp/pi5.out")"

# llama.cpp's Llama-3.1 cache checked against its rope_freqs tensor
# (--rope-freqs: the converter's float32 factors, as the GGUF holds them)
"$PY" -c 'import json, sys; sys.path.insert(0, sys.argv[1]); import numpy as np, ggml_rope_cache as g
c = json.load(open(sys.argv[2])); np.save(sys.argv[3], g.llama3_factors(c, c["rope_scaling"], 128))' \
    "$root/tests/lib" "$cfgs/meta-llama--Llama-3.1-8B.json" "$tmp/ff.npy" >"$tmp/ff.out" 2>&1
"$PECHECK" check --table "$tmp/llama31/cos.npy" --table-sin "$tmp/llama31/sin.npy" --pos-start $p0 \
    --rope-freqs "$tmp/ff.npy" --base 500000 --family rope --layout half --property accuracy \
    --regressions off --quiet --formulation ggml >>"$tmp/ff.out" 2>&1
[ $? -eq 0 ] && grep -q "strict class ggml" "$tmp/ff.out"
ok $? "llama31: llama.cpp's cache passes ggml with --rope-freqs of the converter's factors ($(ratio "$tmp/ff.out"))" \
    "$tmp/ff.out"

# the built-in rope-ggml (unscaled)
"$PECHECK" accuracy --impl rope-ggml --positions 1000000:1004095 --formulation ggml --quiet \
    >"$tmp/bi.out" 2>&1
ok $? "rope-ggml passes --formulation ggml at 1000000..1004095 ($(ratio "$tmp/bi.out"))" "$tmp/bi.out"
"$PECHECK" accuracy --impl rope-half --positions 1000000:1004095 --formulation ggml --quiet \
    >"$tmp/bh.out" 2>&1
echo "# rope-half (HF's pow form) under ggml: exit $?, worst err/bound $(ratio "$tmp/bh.out")"

# llama.cpp's M-RoPE (ggml_mrope_cache_init: each axis' theta multiplied by
# theta_scale at every pair) of Qwen2-VL, sections [16, 24, 24], on
# transformers' position ids of a text-image-text sequence
"$PY" "$root/tests/lib/axes_caches.py" mrope ok "$tmp/mr-hf" >"$tmp/mr.log" 2>&1 || true
if [ -f "$tmp/mr-hf/pos.npy" ]; then
    "$PY" - "$tmp/mr-hf/pos.npy" "$tmp/mr" >>"$tmp/mr.log" 2>&1 <<'PY'
import os, sys
import numpy as np
F = np.float32
pos = np.load(sys.argv[1]); out = sys.argv[2]; os.makedirs(out, exist_ok=True)
d, sect = 128, [16, 24, 24]
ts = np.power(F(1e6), F(-2.0) / F(d))
ang = np.empty((len(pos), d // 2), dtype=F)
for r, ids in enumerate(pos):
    th = [F(p) for p in ids]
    for i in range(d // 2):
        ax = 0 if i < sect[0] else 1 if i < sect[0] + sect[1] else 2
        ang[r, i] = th[ax]
        th = [F(t * ts) for t in th]
c = np.cos(ang.astype(np.float64)).astype(F); s = np.sin(ang.astype(np.float64)).astype(F)
np.save(out + "/cos.npy", np.concatenate((c, c), 1)); np.save(out + "/sin.npy", np.concatenate((s, s), 1))
np.save(out + "/pos.npy", pos)
PY
fi
for k in mr mr-hf; do
    "$PECHECK" check --table "$tmp/$k/cos.npy" --table-sin "$tmp/$k/sin.npy" \
        --position-ids "$tmp/$k/pos.npy" --hf-config "$cfgs/Qwen--Qwen2-VL-7B-Instruct.json" \
        --property accuracy --regressions off --quiet --formulation ggml >"$tmp/$k.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] && grep -q "strict class ggml" "$tmp/$k.out"
    ok $? "M-RoPE Qwen2-VL ($k: $([ $k = mr ] && echo "llama.cpp's" || echo "transformers'") cache) passes ggml ($(ratio "$tmp/$k.out"))" \
        "$tmp/$k.out"
done

# HuggingFace's float32 caches (torch) against ggml
if "$PY" -c 'import torch' >/dev/null 2>&1; then
    N=2048 P0=$((524288 - 2048))
    MODELS="llama2 llama31 qwen25yarn phi35 linear8 neox20b"
    for m in $MODELS; do echo "$m ok float32 $N $tmp/hf-$m $P0"; done >"$tmp/list"
    "$PY" "$root/tests/lib/rope_caches.py" - <"$tmp/list" >"$tmp/gen.log" 2>&1
    ok $? "build HF's float32 caches at $P0..$((P0 + N - 1))" "$tmp/gen.log"
    for m in $MODELS; do
        gate "hf-$m" "$P0" --formulation ggml
        ok $? "$m: HF's float32 cache passes ggml ($(ratio "$tmp/hf-$m.out"))" "$tmp/hf-$m.out"
    done
else
    echo "# no torch: HF's float32 caches not built"
fi

# identify proposes the class: a llama.cpp cache ggml (hf fails), HF's own
# hf; the check line carries --formulation and passes on the same rows
# ident NAME P0 WANT: identify's text and JSON name WANT, the check line passes
ident() {
    "$PECHECK" identify --table "$tmp/$1/cos.npy" --table-sin "$tmp/$1/sin.npy" --pos-start "$2" \
        >"$tmp/$1.id" 2>&1
    "$PECHECK" identify --table "$tmp/$1/cos.npy" --table-sin "$tmp/$1/sin.npy" --pos-start "$2" \
        --format json --output "$tmp/$1.idj" >/dev/null 2>&1
    line=$(sed -n 's/^  check: //p' "$tmp/$1.id")
    eval "\"\$PECHECK\" ${line#pecheck } --property accuracy --quiet --regressions off" >>"$tmp/$1.id" 2>&1
    rc=$?
    "$PY" -c 'import json, sys
f = json.load(open(sys.argv[1]))["results"][0]["formulation"]
assert f["proposed"] == sys.argv[2], f
other = "hf" if sys.argv[2] == "ggml" else "ggml"
assert f[sys.argv[2]]["pass"] and f[sys.argv[2]]["err_bound"] <= 1, f
print("%s %.3g, %s %s %.3g" % (sys.argv[2], f[sys.argv[2]]["err_bound"], other,
      "passes" if f[other]["pass"] else "fails", f[other]["err_bound"]))' "$tmp/$1.idj" "$3" \
        >"$tmp/$1.idp" 2>>"$tmp/$1.id"
    [ $? -eq 0 ] && [ $rc -eq 0 ] && grep -q "^  formulation: $3 (" "$tmp/$1.id" \
        && grep -q -- "--formulation $3" "$tmp/$1.id"
}
ident llama2 $p0 ggml
ok $? "identify on llama.cpp's Llama-2 cache: formulation ggml ($(cat "$tmp/llama2.idp")), its check line passes" \
    "$tmp/llama2.id"
ident deepseek3 159744 ggml
ok $? "identify on llama.cpp's DeepSeek-V3 cache: formulation ggml ($(cat "$tmp/deepseek3.idp"))" \
    "$tmp/deepseek3.id"
if [ -d "$tmp/hf-llama2" ]; then
    for m in llama2 qwen25yarn; do
        ident "hf-$m" $((524288 - 2048)) hf
        ok $? "identify on HF's $m cache: formulation hf ($(cat "$tmp/hf-$m.idp")), its check line passes" \
            "$tmp/hf-$m.id"
    done
    # a base that is no round number (HF's code, base 123456.7, d 128, rows
    # 520192..524287, read at the rows' own phases): the fitted base is not
    # rounded past what the hf class tells apart (123457 fails hf at 27), and
    # the class is proposed.  (Over 2048 rows the fit of the turns between
    # rows, base 123455.59, passes the default class at 0.77 and fails both
    # strict classes: no class is proposed, and the output says so.)
    mkdir -p "$tmp/hf-b123456"
    "$PY" -c 'import sys, numpy as np, torch
d, p0, n, base = 128, 520192, 4096, 123456.7
inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
t = torch.arange(p0, p0 + n, dtype=torch.int64).float()
emb = torch.cat([torch.outer(t, inv)] * 2, dim=-1)
np.save(sys.argv[1] + "/cos.npy", emb.cos().numpy()); np.save(sys.argv[1] + "/sin.npy", emb.sin().numpy())' \
        "$tmp/hf-b123456" >"$tmp/hf-b123456.id" 2>&1 && ident hf-b123456 520192 hf \
        && grep -q "^  schedule: default, base 123456.7$" "$tmp/hf-b123456.id" \
        && ! grep -q "given as it is" "$tmp/hf-b123456.id"
    ok $? "identify on HF's cache of base 123456.7: base 123456.7, formulation hf ($(cat "$tmp/hf-b123456.idp"))" \
        "$tmp/hf-b123456.id"
fi

# what llama.cpp does not implement: exit 2 naming it
cat >"$tmp/dyn.json" <<'JSON'
{"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0,
 "max_position_embeddings": 4096, "rope_scaling": {"type": "dynamic", "factor": 2.0}}
JSON
for r in "dyn:$tmp/dyn.json:dynamic NTK scaling" \
         "gptoss:$cfgs/openai--gpt-oss-20b.json:YaRN with an untruncated correction range"; do
    name=${r%%:*} rest=${r#*:}
    cfg=${rest%%:*} want=${rest#*:}
    "$PECHECK" accuracy --impl rope-half --hf-config "$cfg" --max-pos 63 --formulation ggml \
        --quiet >"$tmp/$name.out" 2>&1
    [ $? -eq 2 ] && grep -q "formulation ggml: llama.cpp does not implement $want" "$tmp/$name.out"
    ok $? "--formulation ggml of $name: exit 2, llama.cpp does not implement $want" "$tmp/$name.out"
done
"$PY" -c 'import numpy as np, sys; np.save(sys.argv[1], np.array([[r, c] for r in range(4) for c in range(4)], dtype=np.int64))' \
    "$tmp/ax.npy"
"$PECHECK" accuracy --impl rope-half --rope-axes-dim 64,64 --position-ids "$tmp/ax.npy" --max-pos 15 \
    --formulation ggml --quiet >"$tmp/ax.out" 2>&1
[ $? -eq 2 ] && grep -q "does not implement axial positions" "$tmp/ax.out"
ok $? "--formulation ggml with axial positions: exit 2" "$tmp/ax.out"
"$PECHECK" accuracy --family sinusoidal --impl torch-exp --max-pos 63 --formulation ggml \
    --quiet >"$tmp/sin.out" 2>&1
[ $? -eq 2 ] && grep -q "formulation ggml: .* RoPE's" "$tmp/sin.out"
ok $? "--formulation ggml on the sinusoidal family: exit 2" "$tmp/sin.out"

# shards of check: the merged JSON is the unsharded one's
g=deepseek3
gate $g 159744 --formulation ggml --format json --output "$tmp/full.json"
rc0=$?
for k in 3 1 2; do
    gate $g 159744 --formulation ggml --format json --shard $k/3 --output "$tmp/s$k.json"
done
"$PECHECK" merge --format json --output "$tmp/merged.json" "$tmp/s1.json" "$tmp/s2.json" \
    "$tmp/s3.json" >"$tmp/merge.out" 2>&1
rc1=$?
grep -v '"seconds"' "$tmp/full.json" >"$tmp/a"
grep -v '"seconds"' "$tmp/merged.json" >"$tmp/b"
[ $rc0 -eq $rc1 ] && diff "$tmp/a" "$tmp/b" >"$tmp/diff" 2>&1 && grep -q '"class": *"ggml"' "$tmp/b"
ok $? "check --shard K/3 under ggml: merge exit $rc1 and JSON = the unsharded run's" "$tmp/diff"
# a shard whose ggml class was altered: frequencies given, a kappa_i changed
"$PY" - "$tmp" <<'PY' >"$tmp/forge.out" 2>&1
import copy, json, sys
t = sys.argv[1]
d = json.load(open(t + "/s2.json"))
f = d["slots"][0]["accuracy"]["result"]["bound"]["formulation"]
a = copy.deepcopy(d)
a["slots"][0]["accuracy"]["result"]["bound"]["formulation"]["omega"] = [[1.0]] * len(f["kappa"])
json.dump(a, open(t + "/x_omega.json", "w"))
b = copy.deepcopy(d)
b["slots"][0]["accuracy"]["result"]["bound"]["formulation"]["kappa"][3] += 1
json.dump(b, open(t + "/x_kappa.json", "w"))
PY
"$PECHECK" merge "$tmp/s1.json" "$tmp/x_omega.json" "$tmp/s3.json" >"$tmp/fo.out" 2>&1
[ $? -eq 2 ] && grep -q 'bound.formulation.omega" is given under the ggml class' "$tmp/fo.out"
ok $? "merge refuses a ggml shard holding frequencies (exit 2)" "$tmp/fo.out"
"$PECHECK" merge "$tmp/s1.json" "$tmp/x_kappa.json" "$tmp/s3.json" >"$tmp/fk.out" 2>&1
[ $? -eq 2 ] && grep -q "not shards of one run" "$tmp/fk.out"
ok $? "merge refuses shards whose ggml kappa_i differ (exit 2)" "$tmp/fk.out"

echo "1..$n"
[ "$fails" -eq 0 ]
