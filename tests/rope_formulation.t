#!/bin/sh
# rope_formulation.t: the strict classes of RoPE (--formulation hf|cr,
# --strict), docs/precision-model.md "The hf class".
#
# HuggingFace's own float32 caches (tests/lib/rope_caches.py follows
# modeling_rope_utils.py) of every schedule, at positions 522240..524287
# (2^19 - 2048 .. 2^19 - 1, where a frequency's error of k u turns the angle
# by k u |theta| ~ k * 3e-5 rad): each passes --formulation hf and --strict
# (hf when no formulation is named), the JSON names the class, and the
# frequency torch computed is, bit for bit, one of those the emulation
# follows for every pair (the emulation's claim), there and on 120 random
# configs.  Then the mistakes the class exists for: llama3's wavelengths
# from 2 * 3.14159 and llama.cpp's cumulative product pass the default
# class and fail hf.  M-RoPE caches pass hf; an axial one takes cr, named.
# The worst err/bound and the largest k_i / kappa_i of each schedule are
# printed as TAP comments (docs/precision-model.md quotes them).  Without
# torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp form

N=2048
P0=$((524288 - N))
# MODEL or MODEL-grown (dynamic grown at run time: base' from float32 tensors)
MODELS="llama2 llama31 qwen25yarn phi35 linear8 dynamic2 dynamic2-grown neox20b"
{
    for m in $MODELS; do
        v=ok
        case $m in *-grown) v=grown;; esac
        echo "${m%-grown} $v float32 $N $tmp/$m $P0"
    done
    echo "llama31 pi5 float32 $N $tmp/pi5 $P0"
} >"$tmp/list"
"$PY" "$root/tests/lib/rope_caches.py" - <"$tmp/list" >"$tmp/gen.log" 2>&1
ok $? "build $(wc -l <"$tmp/list") float32 caches with PyTorch at positions $P0..$((P0 + N - 1))" "$tmp/gen.log"

# gate DIR OUT [OPTIONS]: the accuracy property on the cache in DIR
gate() {
    gd=$1 o=$2
    shift 2
    "$PECHECK" check --table "$gd/cos.npy" --table-sin "$gd/sin.npy" --hf-config "$gd/config.json" \
        --pos-start "$P0" --family rope --layout half --property accuracy --regressions off \
        --quiet "$@" >"$o" 2>&1
}
ratio() { sed -n 's/.*accuracy \[half\]:.*max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$1" | head -n 1; }

# CHECK JSON MODEL: the class is hf, and torch's own inv_freq of MODEL is one
# of the two candidates of every pair; prints max k_i, max kappa_i, max k_i/kappa_i
cat >"$tmp/check.py" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
import numpy as np
import torch
import rope_caches as rc
res = json.load(open(sys.argv[1]))["results"]
b = [r for r in res if r["check"] == "accuracy"][0]["data"]["bound"]
assert b["class"] == "hf", b["class"]
f = b["formulation"]
model, _, grown = sys.argv[2].partition("-")
cfg = rc.MODELS[model]
hd, dim = rc.dims(cfg)
p0, n = int(sys.argv[4]), int(sys.argv[5])
seq = torch.tensor(p0 + n, dtype=torch.int64) if grown else p0 + n
inv, att = rc.INV[rc.rope_type(cfg)](cfg, dim, rc.base_of(cfg), seq)
inv = inv.float().numpy()
assert len(f["omega"]) == len(inv) == dim // 2
bad = [i for i, w in enumerate(inv) if float(w) not in f["omega"][i]]
assert not bad, "torch's frequency is not a candidate at pairs %s" % bad[:5]
q = max(k / c for k, c in zip(f["k"], f["kappa"]) if c > 0)
print("max k_i %.3g, max kappa_i %.3g, max k_i/kappa_i %.3g" % (max(f["k"]), max(f["kappa"]), q))
PY

for m in $MODELS; do
    d=$tmp/$m
    gate "$d" "$d.strict" --strict
    rs=$?
    gate "$d" "$d.hf" --formulation hf --format json --output "$d.json"
    rh=$?
    [ $rs -eq 0 ] && grep -q "strict class hf" "$d.strict"
    ok $? "$m: HF's float32 cache passes --strict, named the hf class ($(ratio "$d.strict"))" "$d.strict"
    ok $rh "$m: HF's float32 cache passes --formulation hf" "$d.hf"
    ks=$("$PY" "$tmp/check.py" "$d.json" "$m" "$root/tests/lib" "$P0" "$N" 2>"$d.py")
    ok $? "$m: bound.class hf, and torch's frequency of every pair is one of the emulation's two" "$d.py"
    gate "$d" "$d.default"
    echo "# $m: worst err/bound hf $(ratio "$d.strict"), default $(ratio "$d.default"); $ks"
done

# random configs of every schedule (head dims 32..256, bases, factors, bands,
# ramps with and without truncate, longrope factors that are not binary32,
# positions from 0 to past 2^24 where torch rounds pos.float()): each HF
# float32 cache passes --formulation hf, and torch's frequency of every
# pair is one of the emulation's two
cat >"$tmp/rand_configs.py" <<'PY'
import json, os, random, subprocess, sys
# random configs of every schedule: argv SEED COUNT LIBDIR PECHECK OUTDIR
sys.path.insert(0, sys.argv[3])
import numpy as np, torch
import rope_caches as rc
P = sys.argv[4]
rng = random.Random(int(sys.argv[1]))
def cfg_of(kind):
    hd = rng.choice([32, 64, 80, 96, 128, 160, 256])
    base = rng.choice([10000.0, 500000.0, 1e6, 123456.7, 5e4, 2.5e5 + rng.random()])
    c = {"hidden_size": hd * 8, "num_attention_heads": 8, "head_dim": hd, "rope_theta": base,
         "max_position_embeddings": rng.choice([2048, 4096, 8192, 32768])}
    if kind == "linear": c["rope_scaling"] = {"type": "linear", "factor": rng.choice([2.0, 4.0, 1.3, 8.0, 3.7])}
    if kind == "dynamic": c["rope_scaling"] = {"type": "dynamic", "factor": rng.choice([2.0, 1.5, 4.0, 2.7])}
    if kind == "yarn":
        c["rope_scaling"] = {"type": "yarn", "factor": rng.choice([2.0, 4.0, 8.0, 40.0, 3.3]),
                             "original_max_position_embeddings": rng.choice([2048, 4096, 8192]),
                             "beta_fast": rng.choice([32, 16, 24]), "beta_slow": rng.choice([1, 2, 0.5])}
        if rng.random() < 0.3: c["rope_scaling"]["truncate"] = False
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
bad = 0; tot = 0; pairs = 0; kmax = {}
for t in range(int(sys.argv[2])):
    kind = ["default", "linear", "dynamic", "yarn", "longrope", "llama3"][t % 6]
    c = cfg_of(kind)
    d = os.path.join(sys.argv[5], str(t))
    os.makedirs(d, exist_ok=True)
    json.dump(c, open(d + "/config.json", "w"))
    p0 = rng.choice([0, 5000, 200000, 520000, 1000000, 16777000]); n = 64
    grown = kind == "dynamic" and t % 12 == 2  # half the dynamic caches grown at run time
    cos, sin = rc.cache(c, "grown" if grown else "ok", n, p0)
    np.save(d + "/cos.npy", cos.numpy()); np.save(d + "/sin.npy", sin.numpy())
    r = subprocess.run([P, "check", "--table", d + "/cos.npy", "--table-sin", d + "/sin.npy", "--hf-config",
                        d + "/config.json", "--pos-start", str(p0), "--family", "rope", "--layout", "half",
                        "--property", "accuracy", "--regressions", "off", "--quiet", "--formulation", "hf",
                        "--format", "json", "--output", d + "/o.json"], capture_output=True, text=True)
    try:
        res = json.load(open(d + "/o.json"))["results"]
        b = [x for x in res if x["check"] == "accuracy"][0]["data"]["bound"]
    except Exception as e:
        print("no result", kind, t, r.stderr[:300]); bad += 1; continue
    hd, dim = rc.dims(c)
    seq = torch.tensor(p0 + n, dtype=torch.int64) if grown else p0 + n
    inv, att = rc.INV[rc.rope_type(c)](c, dim, rc.base_of(c), seq)
    inv = inv.float().numpy()
    om = b["formulation"]["omega"]
    miss = [i for i, w in enumerate(inv) if float(w) not in om[i]]
    tot += 1; pairs += len(inv)
    kmax[kind] = max(kmax.get(kind, 0), max(b["formulation"]["kappa"]))
    if miss or r.returncode != 0:
        bad += 1
        print("config %d (%s): exit %d, torch's frequency not a candidate at pairs %s: %s"
              % (t, kind, r.returncode, miss[:5], json.dumps(c)[:300]))
print("%d configs, %d pairs, %d wrong; largest kappa_i %s" % (tot, pairs, bad,
      {k: round(v, 2) for k, v in kmax.items()}))
sys.exit(1 if bad or tot < int(sys.argv[2]) else 0)
PY
mkdir -p "$tmp/rnd"
"$PY" "$tmp/rand_configs.py" 20260422 120 "$root/tests/lib" "$PECHECK" "$tmp/rnd" >"$tmp/rnd.out" 2>&1
ok $? "120 random configs (20 a schedule): each passes hf, torch's frequencies the emulation's: $(tail -n 1 "$tmp/rnd.out")" "$tmp/rnd.out"

# the mistake the default class cannot see: 2 * 3.14159 for 2 pi
gate "$tmp/pi5" "$tmp/pi5.default"
ok $? "llama3 with 2 * 3.14159: passes the default class ($(ratio "$tmp/pi5.default"))" "$tmp/pi5.default"
gate "$tmp/pi5" "$tmp/pi5.hf" --formulation hf
[ $? -eq 1 ] && grep -q "accuracy \[half\]: error: .*strict class hf: transformers' float32" "$tmp/pi5.hf"
ok $? "llama3 with 2 * 3.14159: fails --formulation hf ($(ratio "$tmp/pi5.hf")), the verdict naming the class" "$tmp/pi5.hf"
"$PECHECK" accuracy --table "$tmp/pi5/cos.npy" --table-sin "$tmp/pi5/sin.npy" --family rope \
    --hf-config "$tmp/pi5/config.json" --pos-start "$P0" --layout half --formulation hf --quiet \
    >"$tmp/pi5.acc" 2>&1
[ $? -eq 1 ] && grep -q "strict class: the angle of pair [0-9]* is off by .* the hf class allows" "$tmp/pi5.acc"
ok $? "llama3 with 2 * 3.14159: the accuracy text says by how much the angle is off, and what hf allows" "$tmp/pi5.acc"
gate "$tmp/pi5" "$tmp/pi5.strict" --strict
[ $? -eq 1 ]
ok $? "llama3 with 2 * 3.14159: fails --strict ($(ratio "$tmp/pi5.strict"))" "$tmp/pi5.strict"
echo "# llama3 2*3.14159: worst err/bound hf $(ratio "$tmp/pi5.hf"), default $(ratio "$tmp/pi5.default")"

# cr (a correctly rounded frequency) is not HF's: its own cache fails it
gate "$tmp/llama31" "$tmp/llama31.cr" --formulation cr
[ $? -eq 1 ] && grep -q "strict class cr" "$tmp/llama31.cr"
ok $? "llama31: HF's cache fails --formulation cr ($(ratio "$tmp/llama31.cr")): pow is not correctly rounded" "$tmp/llama31.cr"

# llama.cpp's cumulative product: the default class holds it, hf does not
cat >"$tmp/linear8.json" <<'JSON'
{"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0,
 "max_position_embeddings": 32768, "rope_scaling": {"type": "linear", "factor": 8.0}}
JSON
cat >"$tmp/llama2.json" <<'JSON'
{"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0, "max_position_embeddings": 4096}
JSON
for g in llama2 linear8; do
    "$PY" "$root/tests/lib/ggml_rope_cache.py" "$tmp/$g.json" ok "$N" "$P0" "$tmp/ggml-$g" \
        >"$tmp/ggml-$g.log" 2>&1
    ok $? "build llama.cpp's $g cache (ggml's cumulative product)" "$tmp/ggml-$g.log"
    gate "$tmp/ggml-$g" "$tmp/ggml-$g.default"
    ok $? "llama.cpp $g: passes the default class ($(ratio "$tmp/ggml-$g.default"))" "$tmp/ggml-$g.default"
    gate "$tmp/ggml-$g" "$tmp/ggml-$g.hf" --formulation hf
    [ $? -eq 1 ]
    ok $? "llama.cpp $g: fails --formulation hf ($(ratio "$tmp/ggml-$g.hf"))" "$tmp/ggml-$g.hf"
done

# positions with several axes: M-RoPE's pairs follow the text schedule, so
# transformers' own Qwen2-VL and Qwen3-VL caches pass hf; an axial RoPE
# (FLUX's, no transformers code) takes cr under --strict, named
C=$root/tests/data/configs
for k in mrope:Qwen--Qwen2-VL-7B-Instruct mrope3:Qwen--Qwen3-VL-8B-Instruct axial:; do
    kind=${k%%:*} cfg=${k#*:}
    "$PY" "$root/tests/lib/axes_caches.py" "$kind" ok "$tmp/ax-$kind" >"$tmp/ax-$kind.log" 2>&1
    if [ -n "$cfg" ]; then o="--hf-config $C/$cfg.json" want="strict class hf"
    else o="--rope-axes-dim 64,64" want="strict class cr"; fi
    # shellcheck disable=SC2086
    "$PECHECK" check --table "$tmp/ax-$kind/cos.npy" --table-sin "$tmp/ax-$kind/sin.npy" \
        --position-ids "$tmp/ax-$kind/pos.npy" $o --property accuracy --regressions off --quiet \
        --strict >"$tmp/ax-$kind.out" 2>&1
    [ $? -eq 0 ] && grep -q "$want" "$tmp/ax-$kind.out"
    ok $? "$kind: the model's own cache passes --strict, named $want ($(sed -n 's/.*accuracy \[[a-z]*\]: max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$tmp/ax-$kind.out" | head -n 1))" "$tmp/ax-$kind.out"
done

# what is refused
d=$tmp/llama31
gate "$d" "$tmp/bad" --formulation mlx
[ $? -eq 2 ] && grep -q "formulation: expected hf .*, ggml .* or cr" "$tmp/bad"
ok $? "--formulation mlx: exit 2 listing hf, ggml and cr" "$tmp/bad"
"$PY" -c 'import numpy as np, sys; np.save(sys.argv[1], np.ones(64, dtype=np.float32))' "$tmp/ff.npy"
"$PECHECK" accuracy --impl rope-ggml --d 128 --max-pos 63 --rope-freqs "$tmp/ff.npy" --formulation hf \
    --quiet >"$tmp/bad" 2>&1
[ $? -eq 2 ] && grep -q "no float32 frequency code for llama.cpp's rope_freqs" "$tmp/bad"
ok $? "--formulation hf with --rope-freqs: exit 2, transformers has no code for it" "$tmp/bad"
"$PECHECK" accuracy --impl rope-ggml --d 128 --max-pos 63 --rope-freqs "$tmp/ff.npy" --strict \
    --quiet >"$tmp/o" 2>&1
grep -q "bound: .*: cr class" "$tmp/o"
ok $? "--strict with --rope-freqs: the cr class, named" "$tmp/o"
"$PECHECK" accuracy --family sinusoidal --impl torch-exp --max-pos 63 --formulation hf \
    --quiet >"$tmp/bad" 2>&1
[ $? -eq 2 ] && grep -q "formulation hf: .* RoPE's" "$tmp/bad"
ok $? "--formulation hf on the sinusoidal family: exit 2" "$tmp/bad"

# --tol-abs replaces the precision model whose class --strict and
# --formulation choose: either with it is exit 2, one line naming both
for o in --strict "--formulation cr"; do
    # shellcheck disable=SC2086
    "$PECHECK" accuracy --impl rope-half --max-pos 255 --tol-abs 0.001 $o >"$tmp/tolout" 2>"$tmp/tolerr"
    rc=$?
    [ $rc -eq 2 ] && [ ! -s "$tmp/tolout" ] && [ "$(wc -l <"$tmp/tolerr")" -eq 1 ] \
        && grep -q -- "${o%% *} shapes nothing with --tol-abs" "$tmp/tolerr"
    ok $? "$o with --tol-abs: exit 2 naming both (exit $rc)" "$tmp/tolerr"
done

# a property's replay line carries the formulation the run was checked
# under, and replaying it reproduces the verdict and its class
"$PECHECK" check --impl rope-bf16-cache --family rope --d 64 --max-pos 1023 --formulation ggml \
    --property rope-relative >"$tmp/fr" 2>&1
line=$(sed -n 's/^ *replay: //p' "$tmp/fr" | head -1)
case "$line" in *" --formulation ggml "*) true ;; *) false ;; esac
ok $? "replay line names --formulation ggml: $line" "$tmp/fr"
# shellcheck disable=SC2086
set -- ${line#pecheck }
"$PECHECK" "$@" >"$tmp/fr2" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "^FAIL .*rope-relative.*strict class ggml" "$tmp/fr2"
ok $? "the replay fails again under the ggml class (exit $rc)" "$tmp/fr2"

# report --formulation holds its gates to the class check does: the same
# ratio as `accuracy --formulation`, the class named in the page and JSON
"$PECHECK" report --impl rope-half --d 64 --max-pos 255 --formulation ggml --quiet \
    --out "$tmp/rep" >"$tmp/repout" 2>&1
rc=$?
"$PECHECK" accuracy --impl rope-half --d 64 --max-pos 255 --formulation ggml --format json \
    --output "$tmp/acc.json" >/dev/null 2>&1
"$PY" - "$tmp/rep/summary.json" "$tmp/acc.json" >"$tmp/repcmp" 2>&1 <<'PYEOF'
import json, sys
rep, acc = (json.load(open(p)) for p in sys.argv[1:3])
a = rep["implementations"][0]["accuracy"]
print(rep["model"]["class"], a["bound"]["class"], a["max_err_over_bound"], acc["max_err_over_bound"])
sys.exit(not (rep["model"]["class"] == a["bound"]["class"] == acc["bound"]["class"] == "ggml"
              and a["max_err_over_bound"] == acc["max_err_over_bound"]))
PYEOF
cmp=$?
[ $rc -eq 0 ] && [ $cmp -eq 0 ] && grep -q "tolerance class</th><td>strict class ggml (--formulation ggml)" \
    "$tmp/rep/index.html"
ok $? "report --formulation ggml: its gate is accuracy --formulation ggml's, named ($(cat "$tmp/repcmp"))" \
    "$tmp/repout"

echo "1..$n"
[ "$fails" -eq 0 ]
