#!/bin/sh
# rope_options.t: the RoPE schedule inputs (--hf-config, --rope-scaling,
# --seq-len, --base) and what a table says about its base.
#   - an unknown rope type, a missing field, a --base that contradicts
#     rope_theta, a longrope config without factors: exit 2 naming it;
#   - `pecheck reference --hf-config` exports the scaled table: A cos, A sin
#     of the schedule's frequencies (compared with the binary64 formula);
#   - a geometric table with no base given is checked against the base it
#     fits (reported); a given --base it contradicts is reported and the
#     failure names a wrong base (and what `pecheck identify` finds); a scaled cache gated without its config
#     says so.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_tmp ropeopt
exit2() { # exit2 PATTERN NAME ARGS...: exit 2 with PATTERN on stderr
    pat=$1; name=$2; shift 2
    "$PECHECK" "$@" >"$tmp/o" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -q "$pat" "$tmp/o"
    ok $? "$name (exit $rc)" "$tmp/o"
}

printf '{"rope_theta": 10000, "head_dim": 64, "rope_scaling": {"rope_type": "nosuch", "factor": 2}}' >"$tmp/c1.json"
exit2 "unknown rope type 'nosuch'" "an unknown rope type is exit 2 naming it" check --impl rope-half --hf-config "$tmp/c1.json"
printf '{"rope_theta": 10000, "head_dim": 64, "rope_scaling": {"type": "llama3", "factor": 8}}' >"$tmp/c2.json"
exit2 "low_freq_factor is missing" "a missing field is exit 2 naming it" check --impl rope-half --hf-config "$tmp/c2.json"
printf '{"rope_theta": 500000, "head_dim": 64}' >"$tmp/c3.json"
exit2 "disagrees with the config.s base 500000 (rope_theta of" "--base contradicting rope_theta is exit 2" check --impl rope-half --hf-config "$tmp/c3.json" --base 10000
printf '{"rope_theta": null, "head_dim": 64}' >"$tmp/c5.json"
exit2 "c5.json: rope_theta is null: write the model's base there" "rope_theta null is exit 2 naming it (not the default base)" \
    check --impl rope-half --hf-config "$tmp/c5.json"
printf '{"rope_theta": 10000, "hidden_size": 64}' >"$tmp/c4.json"
exit2 "head_dim is missing" "no head_dim and no num_attention_heads is exit 2" check --impl rope-half --hf-config "$tmp/c4.json"
exit2 "short_factor is missing" "--rope-scaling longrope without factors is exit 2" check --impl rope-half --d 64 \
    --rope-scaling '{"rope_type": "longrope", "original_max_position_embeddings": 4096, "factor": 2}'
exit2 "factor must be a finite number >= 1" "a factor below 1 is exit 2" check --impl rope-half --d 64 \
    --rope-scaling '{"rope_type": "linear", "factor": 0.5}'
exit2 "rope-scaling: invalid JSON" "--rope-scaling that is not JSON is exit 2" check --impl rope-half --d 64 --rope-scaling '{"rope_type": '
"$PECHECK" help check >"$tmp/o" 2>&1
grep -q -- "--hf-config" "$tmp/o" && grep -q -- "--rope-scaling" "$tmp/o" && grep -q -- "--seq-len" "$tmp/o"
ok $? "pecheck help check lists the schedule options" "$tmp/o"

if ! "$PY" -c 'import torch, numpy' >/dev/null 2>&1; then
    echo "ok $((n + 1)) # SKIP PyTorch not available: no caches or configs to build"
    n=$((n + 1))
    echo "1..$n"
    [ "$fails" -eq 0 ]
    exit
fi

# the configs of tests/lib/rope_caches.py, and two caches
"$PY" "$root/tests/lib/rope_caches.py" - >"$tmp/gen.log" 2>&1 <<END
llama31 ok float32 8192 $tmp/llama31
qwen25yarn ok float32 16 $tmp/qwen25yarn
phi35 ok float32 16 $tmp/phi35
linear8 ok float32 16 $tmp/linear8
dynamic2 ok float32 16 $tmp/dynamic2
neox20b base float32 8192 $tmp/geo500k
END
ok $? "build the caches" "$tmp/gen.log"

for m in llama31:4096 qwen25yarn:4096 linear8:4096 dynamic2:16384; do
    model=${m%:*}; seq=${m#*:}
    "$PECHECK" reference --family rope --d 128 --hf-config "$tmp/$model/config.json" --seq-len "$seq" \
        --positions 0:1023 --dtype f64 --out "$tmp/$model.ref.npy" --quiet >"$tmp/o" 2>&1 &&
        "$PY" "$root/tests/lib/rope_ref64.py" "$model" 1024 "$seq" "$tmp/$model.ref.npy" >>"$tmp/o" 2>&1
    ok $? "reference --hf-config $model (seq $seq): the scaled table is the binary64 formula's" "$tmp/o"
    grep "largest" "$tmp/o" | sed 's/^/# /'
done
"$PECHECK" reference --family rope --d 96 --hf-config "$tmp/phi35/config.json" --seq-len 8192 \
    --positions 0:1023 --dtype f64 --out "$tmp/phi35.ref.npy" --quiet >"$tmp/o" 2>&1 &&
    "$PY" "$root/tests/lib/rope_ref64.py" phi35 1024 8192 "$tmp/phi35.ref.npy" >>"$tmp/o" 2>&1
ok $? "reference --hf-config phi35 (d 96, long factors, attention factor)" "$tmp/o"
grep "largest" "$tmp/o" | sed 's/^/# /'

# a geometric table of base 500000 (d 24)
G="--table $tmp/geo500k/cos.npy --table-sin $tmp/geo500k/sin.npy --family rope --cases 5 --regressions off --quiet"
"$PECHECK" check $G --format json >"$tmp/o" 2>&1
rc=$?
"$PY" - "$tmp/o" <<'PY' && [ $rc -eq 1 ]
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = [x for x in r if x["check"] == "base"]
assert len(base) == 1 and base[0]["status"] == "fail" and "--assume-fitted" in base[0]["summary"], base
acc = [x for x in r if x["check"] == "accuracy"]
assert acc and all(x["status"] == "pass" and "base 500000 (fitted from the table" in x["against"] for x in acc)
assert all(x["against"] for x in r if x["status"] != "skip" and x["check"] not in ("table-values", "cache-layout"))
PY
ok $? "no base given: checked against the base the table fits, every verdict says so, and the check named base fails" "$tmp/o"
"$PECHECK" check $G --assume-fitted >"$tmp/o" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^PASS .* rope base: base 500000 fitted from the table's own rows, accepted (--assume-fitted)" "$tmp/o" &&
    grep -q "^PASS .* rope accuracy .*checked against base 500000 (fitted from the table" "$tmp/o"
ok $? "--assume-fitted accepts the fitted base, and every line says what it was checked against" "$tmp/o"
# a fitted base that is not a number of 3 significant digits: HunYuan's
# 10000 * 1000^(128/126) = 11158839.9 (HF's float32 pow form, d 128)
"$PY" - "$tmp/hy" <<'PY' >"$tmp/o" 2>&1
import os, sys
import numpy as np
out, f32 = sys.argv[1], np.float32
os.makedirs(out, exist_ok=True)
inv = f32(1) / np.power(f32(10000 * 1000 ** (128 / 126)), np.arange(0, 128, 2, dtype=f32) / f32(128))
fr = np.arange(4096, dtype=f32)[:, None] * inv[None, :]
emb = np.concatenate((fr, fr), axis=1).astype(np.float64)
np.save(os.path.join(out, "cos.npy"), np.cos(emb).astype(f32))
np.save(os.path.join(out, "sin.npy"), np.sin(emb).astype(f32))
PY
H="--table $tmp/hy/cos.npy --table-sin $tmp/hy/sin.npy --family rope --layout half --cases 5 --regressions off"
"$PECHECK" check $H --assume-fitted >>"$tmp/o" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^PASS .* rope base: base 1115884[0-9.]* fitted from the table's own rows, accepted (--assume-fitted)" "$tmp/o" &&
    grep -q "^PASS .* rope accuracy .*checked against base 1115884[0-9.]* (fitted from the table" "$tmp/o"
ok $? "--assume-fitted accepts a fitted base of any digits (HunYuan's 11158839.9) and names it" "$tmp/o"
"$PECHECK" check $H >"$tmp/o" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "warning: the table fits base 1115884[0-9.]* (not 3 significant digits): checked against the default base 10000" "$tmp/o" &&
    grep -q "^FAIL .* rope accuracy .*base 10000 (the default)" "$tmp/o"
ok $? "without --assume-fitted: checked against the default base, and the output says which base the table fits" "$tmp/o"
"$PECHECK" check $G --base 10000 >"$tmp/o" 2>&1
rc=$?
"$PECHECK" check $G --base 10000 --format json >"$tmp/j" 2>&1
[ $rc -eq 1 ] && grep -q "likely cause: this cache matches default with base 500000; the check used base 10000; the frequencies are those of base 500000, not 10000" "$tmp/o" &&
    grep -q "warning: --base 10000, but the table's frequencies fit base 500000" "$tmp/j"
ok $? "a --base the table contradicts: reported, and the failure names a wrong base" "$tmp/o"
"$PECHECK" check --table "$tmp/llama31/cos.npy" --table-sin "$tmp/llama31/sin.npy" --family rope --base 500000 \
    --cases 5 --regressions off --quiet >"$tmp/o" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "a scaled schedule (rope_scaling)? pass --hf-config" "$tmp/o"
ok $? "a Llama-3.1 cache gated without its config fails naming the missing scaling" "$tmp/o"
# without any base: its rows fit no one base, so the default 10000 is the one checked,
# as `help check` says
"$PECHECK" check --table "$tmp/llama31/cos.npy" --table-sin "$tmp/llama31/sin.npy" --family rope \
    --cases 5 --regressions off >"$tmp/o" 2>&1
rc=$?
"$PECHECK" help check >"$tmp/h" 2>&1
[ $rc -eq 1 ] && grep -q "FAIL .*rope accuracy .*this cache matches llama3, base 500000.*checked against base 10000 (the default)" "$tmp/o" &&
    ! grep -q "fitted from the table" "$tmp/o" && tr -s ' \n' ' ' <"$tmp/h" | grep -q "rows that fit no one base, a scaled cache such as llama3's, are checked against 10000"
ok $? "a Llama-3.1 cache without a base: checked against base 10000 (the default), the cause naming llama3; help check says so" "$tmp/o"

# HunYuan's rope_scaling.alpha (dynamic NTK alpha): base' = rope_theta
# alpha^(d/(d-2)) at every length, as vLLM's DynamicNTKAlphaRotaryEmbedding
# and transformers' HunYuanDenseV1RotaryEmbedding build it (in PyTorch,
# float32); the same cache without alpha (base 10000) fails; alpha < 1 is
# exit 2.  The config's keys are HunYuan-A13B's rope_scaling.
for v in ok noalpha; do
    mkdir -p "$tmp/hy-$v"
    "$PY" - "$tmp/hy-$v" "$v" >>"$tmp/hy.log" 2>&1 <<'PY'
import json, sys, numpy as np, torch
out, variant = sys.argv[1], sys.argv[2]
cfg = {"model_type": "hunyuan_v1_dense", "head_dim": 128, "hidden_size": 4096,
       "num_attention_heads": 32, "max_position_embeddings": 32768, "rope_theta": 10000.0,
       "rope_scaling": {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0,
                        "mscale": 1.0, "mscale_all_dim": 1.0, "type": "dynamic"}}
json.dump(cfg, open(out + "/config.json", "w"))
dim = 128
alpha = cfg["rope_scaling"]["alpha"] if variant == "ok" else 1.0
base = cfg["rope_theta"] * alpha ** (dim / (dim - 2))
inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
freqs = torch.outer(torch.arange(4096, dtype=torch.float), inv_freq)
emb = torch.cat((freqs, freqs), dim=-1)
np.save(out + "/cos.npy", emb.cos().numpy())
np.save(out + "/sin.npy", emb.sin().numpy())
PY
done
"$PECHECK" check --table "$tmp/hy-ok/cos.npy" --table-sin "$tmp/hy-ok/sin.npy" \
    --hf-config "$tmp/hy-ok/config.json" >"$tmp/o" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "schedule dynamic, base 10000, rotary dim 128, alpha 1000 (base' = base alpha^(dim/(dim-2)) = 11158839.9)" "$tmp/o"
ok $? "HunYuan's rope_scaling.alpha: the cache its rotary code builds passes, checked against base' = 11158839.9 (exit $rc)" "$tmp/o"
"$PECHECK" check --table "$tmp/hy-noalpha/cos.npy" --table-sin "$tmp/hy-noalpha/sin.npy" \
    --hf-config "$tmp/hy-ok/config.json" >"$tmp/o" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "FAIL .*rope accuracy" "$tmp/o" &&
    grep -q "likely cause: alpha is ignored: the cache is rope_theta's own schedule, base 10000, not dynamic NTK alpha 1000's base' = .* = 11158839.9 (HunYuan); the gate passes with alpha left out" "$tmp/o"
ok $? "a HunYuan cache that leaves alpha out (base 10000) fails, its cause measured against base' 11158839.9 (exit $rc)" "$tmp/o"
# "this cache matches X" only after the gate with X passed on the rows: a
# Llama 3.1 cache that ignores its scaling AND carries a 3e-4 relative
# error in its values (a poor sin/cos): its frequencies are default base
# 500000's, but the default gate fails it too, so no "matches" is said
# (it was: "this cache matches default, base 500000")
"$PY" - "$tmp" >>"$tmp/hy.log" 2>&1 <<'PY'
import sys, numpy as np, torch
out = sys.argv[1]
inv = 1.0 / (500000.0 ** (torch.arange(0, 128, 2, dtype=torch.int64).float() / 128))
pos = torch.arange(8192).float()
f = torch.outer(pos, inv)
e = torch.cat((f, f), -1)
noise = 1 + 3e-4 * torch.sin(pos[:, None] * 0.37)
np.save(out + "/poor_cos.npy", (e.cos() * noise).float().numpy())
np.save(out + "/poor_sin.npy", (e.sin() * noise).float().numpy())
PY
printf '{"model_type": "llama", "head_dim": 128, "rope_theta": 500000, "max_position_embeddings": 131072, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4, "original_max_position_embeddings": 8192}}' >"$tmp/l31.json"
"$PECHECK" check --table "$tmp/poor_cos.npy" --table-sin "$tmp/poor_sin.npy" --hf-config "$tmp/l31.json" >"$tmp/o" 2>&1
rc1=$?
"$PECHECK" check --table "$tmp/poor_cos.npy" --table-sin "$tmp/poor_sin.npy" --base 500000 >"$tmp/o2" 2>&1
rc2=$?
[ $rc1 -eq 1 ] && [ $rc2 -eq 1 ] && grep -q "FAIL .*rope accuracy .*likely cause" "$tmp/o" && ! grep -q "this cache matches" "$tmp/o"
ok $? "no 'this cache matches default, base 500000' where the default gate fails too (exit $rc1, with --base 500000 exit $rc2)" "$tmp/o"
exit2 "alpha must be >= 1" "rope_scaling.alpha below 1 is exit 2" check --impl rope-half --d 64 \
    --rope-scaling '{"type": "dynamic", "alpha": 0.5}'

echo "1..$n"
[ "$fails" -eq 0 ]
