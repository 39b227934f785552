#!/bin/sh
# rope_strict_cause.t: a strict class's failure that the frequencies
# account for names them first (families/rope/strict_freq.c,
# docs/diagnosis.md "Strict classes: the frequencies").
#
# Caches built with PyTorch as transformers builds them (tests/lib/
# rope_caches.py) at positions 522240..524287, each with a frequency
# formula of its own: llama3's wavelengths from 2 * 3.14159 for 2 pi, the
# exp form exp(-2i ln(base) / d) for HF's pow form, linear scaling as
# 1 / (pow * factor) for 1 / pow / factor.  Each passes the default class
# and fails --strict (hf); the first likely cause then says the
# frequencies are not transformers' float32 ones, and the pairs and ulps
# it names are checked against the truth: the cache's own binary32
# frequencies (written beside it) against the candidates --formulation hf
# reports in its JSON.  HF's own caches of the same configs pass --strict;
# under --formulation cr HF's llama3 cache is named as transformers'
# frequencies; llama.cpp's cumulative product, whose angles no single
# frequency gives, keeps the causes it had.  Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp strictcause

N=2048
P0=$((524288 - N))
cat >"$tmp/gen.py" <<'PY'
# gen.py LIBDIR OUT KIND P0 N: a cache, its config and its binary32 frequencies (inv.npy)
import json, math, os, sys
sys.path.insert(0, sys.argv[1])
import numpy as np, torch
import rope_caches as rc
out, kind, p0, n = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
model, _, how = kind.partition("-")
cfg = json.loads(json.dumps(rc.MODELS["linear8" if model == "linear37" else model]))
if model == "linear37":     # a factor that is not a power of two: the two orders round apart
    cfg["rope_scaling"]["factor"] = 3.7
hd, dim = rc.dims(cfg)
base = rc.base_of(cfg)
if how == "exp":            # the exp form: exp(arange(0, d, 2) * -(ln(base) / d))
    inv = torch.exp(torch.arange(0, dim, 2, dtype=torch.int64).float() * -(math.log(base) / dim))
elif how == "mulfactor":    # 1.0 / (pow * factor), not 1.0 / pow / factor
    inv = 1.0 / (rc.geometric(base, dim) * cfg["rope_scaling"]["factor"])
else:                       # "ok": HF's; "pi5": llama3 with 2 * 3.14159
    inv = rc.INV[rc.rope_type(cfg)](rc.wrong(cfg, how), dim, base, p0 + n)[0]
inv = inv.float()
pos = torch.arange(p0, p0 + n, dtype=torch.int64).float()
freqs = (inv[None, :, None] @ pos[None, None, :]).transpose(1, 2)[0]  # HF: a float32 matmul
emb = torch.cat((freqs, freqs), dim=-1)
os.makedirs(out, exist_ok=True)
json.dump(cfg, open(os.path.join(out, "config.json"), "w"))
np.save(os.path.join(out, "cos.npy"), emb.cos().numpy())
np.save(os.path.join(out, "sin.npy"), emb.sin().numpy())
np.save(os.path.join(out, "inv.npy"), inv.numpy())
PY

# CLAIM TEXT JSON INV: the first likely cause names the frequencies; its
# pairs are off HF's candidates (the JSON's) and its ulp range is theirs
cat >"$tmp/claim.py" <<'PY'
import json, re, sys
import numpy as np
text = open(sys.argv[1]).read()
first = re.search(r"^    likely cause: (.*)$", text, re.M)
assert first, "no likely cause"
line = first.group(1)
m = re.match(r"the frequencies are not transformers' float32 ones: pairs? ([0-9., ]+?) (?:is|are) "
             r"([0-9]+) (?:to ([0-9]+) )?ulps? from the nearest frequency transformers' code gives"
             r" \(a frequency computed another way.*the default class, which admits other "
             r"formulations, passes", line)
assert m, "the first likely cause does not name the frequencies: " + line[:300]
pairs = []
for part in m.group(1).split(", "):
    a, _, b = part.partition("..")
    pairs += range(int(a), int(b or a) + 1)
kmin = int(m.group(2)); kmax = int(m.group(3) or m.group(2))
res = json.load(open(sys.argv[2]))["results"]
cand = [r for r in res if r["check"] == "accuracy"][0]["data"]["bound"]["formulation"]["omega"]
inv = np.load(sys.argv[3]).astype(np.float32)
bits = lambda x: int(np.array([x], dtype=np.float32).view(np.int32)[0])
dist = [min(abs(bits(w) - bits(c)) for c in cs) for w, cs in zip(inv, cand)]
named = [dist[i] for i in pairs]
assert min(named) >= 1, "a pair named whose frequency is HF's: %s" % [(i, dist[i]) for i in pairs]
assert (min(named), max(named)) == (kmin, kmax), \
    "said %d to %d ulps, the pairs named are %d to %d" % (kmin, kmax, min(named), max(named))
worst = max(range(len(dist)), key=lambda i: dist[i])
assert worst in pairs, "pair %d (%d ulps off) not named" % (worst, dist[worst])
print("pairs %s: %s ulps; the largest of all pairs %d" % (m.group(1), kmin if kmin == kmax else "%d to %d" % (kmin, kmax), max(dist)))
PY

# gate DIR OUT [OPTIONS]: the accuracy property on the cache in DIR
gate() {
    gd=$1 o=$2
    shift 2
    "$PECHECK" check --table "$gd/cos.npy" --table-sin "$gd/sin.npy" --hf-config "$gd/config.json" \
        --pos-start "$P0" --family rope --layout half --property accuracy --regressions off "$@" \
        >"$o" 2>&1
}
ratio() { sed -n 's/.*accuracy \[half\]:.*max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$1" | head -n 1; }

for k in llama31-ok llama2-ok linear37-ok llama31-pi5 llama2-exp linear37-mulfactor; do
    "$PY" "$tmp/gen.py" "$root/tests/lib" "$tmp/$k" "$k" "$P0" "$N" >"$tmp/$k.log" 2>&1
    ok $? "build $k at positions $P0..$((P0 + N - 1))" "$tmp/$k.log"
done

for k in llama31 llama2 linear37; do
    gate "$tmp/$k-ok" "$tmp/$k-ok.strict" --strict
    [ $? -eq 0 ] && grep -q "strict class hf" "$tmp/$k-ok.strict"
    ok $? "$k: HF's own cache passes --strict, the hf class ($(ratio "$tmp/$k-ok.strict"))" "$tmp/$k-ok.strict"
done

for k in llama31-pi5 llama2-exp linear37-mulfactor; do
    d=$tmp/$k
    gate "$d" "$d.default"
    ok $? "$k: passes the default class ($(ratio "$d.default"))" "$d.default"
    gate "$d" "$d.strict" --strict
    ok $(($? != 1)) "$k: fails --strict ($(ratio "$d.strict"))" "$d.strict"
    gate "$d" "$d.hf" --formulation hf --format json --output "$d.json"
    said=$("$PY" "$tmp/claim.py" "$d.strict" "$d.json" "$d/inv.npy" 2>"$d.err")
    ok $? "$k: the first likely cause names the frequencies, its pairs and ulps the cache's own ($said)" "$d.err"
    grep -q "the worst element alone suggests: the pair points the wrong way" "$d.strict"
    ok $? "$k: the worst element's angle reading follows, as its own" "$d.strict"
done

# cr: HF's own cache is named as transformers' frequencies
gate "$tmp/llama31-ok" "$tmp/cr" --formulation cr
[ $? -eq 1 ] && grep -q "^    likely cause: the frequencies are not the correctly rounded fl(omega_i): pairs .* ulps\{0,1\} from fl(omega_i) (they are transformers' float32 frequencies: --formulation hf" "$tmp/cr"
ok $? "llama31 under --formulation cr: the first likely cause names transformers' frequencies" "$tmp/cr"

# llama.cpp's cumulative product: the angle of pair i rounded i times, no
# single frequency reproduces it; the causes stay as they were
cat >"$tmp/llama2.json" <<'JSON'
{"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0, "max_position_embeddings": 4096}
JSON
"$PY" "$root/tests/lib/ggml_rope_cache.py" "$tmp/llama2.json" ok "$N" "$P0" "$tmp/ggml" >"$tmp/ggml.log" 2>&1
ok $? "build llama.cpp's llama2 cache (ggml's cumulative product)" "$tmp/ggml.log"
gate "$tmp/ggml" "$tmp/ggml.default"
ok $? "llama.cpp: passes the default class ($(ratio "$tmp/ggml.default"))" "$tmp/ggml.default"
gate "$tmp/ggml" "$tmp/ggml.strict" --strict
[ $? -eq 1 ] && grep -q "likely cause: " "$tmp/ggml.strict" && ! grep -q "the frequencies are not" "$tmp/ggml.strict"
ok $? "llama.cpp: fails --strict, and no frequency claim is made" "$tmp/ggml.strict"

# the default class's pass of a cache --strict fails for its frequencies
# carries that as a note (strict_freq.c pc_rope_strict_pass_note): its
# err/bound the strict run's, its pairs and ulps the strict cause's; HF's
# own caches and llama.cpp's (no single frequency) pass with no note
note_of() { sed -n 's/.*accuracy \[half\]:.*; note: \(--strict .*\); checked against .*/\1/p' "$1" | head -n 1; }
for k in llama31-pi5 llama2-exp linear37-mulfactor; do
    d=$tmp/$k
    nt=$(note_of "$d.default")
    claim=$(sed -n 's/^    likely cause: the frequencies are not transformers. float32 ones: \(pairs\{0,1\} [^(]*\) (.*/\1/p' "$d.strict")
    case "$nt" in
    "--strict (the hf class: transformers' float32 frequency code) fails these rows (its worst err/bound $(ratio "$d.strict")): $claim ("*) r=0 ;;
    *) r=1 ;;
    esac
    [ -n "$claim" ]
    ok $((r || $?)) "$k: the default pass notes that --strict fails, with the strict run's err/bound and pairs ($claim)" "$d.default"
done
for k in llama31-ok llama2-ok linear37-ok; do
    gate "$tmp/$k" "$tmp/$k.default"
    [ $? -eq 0 ] && ! grep -q "note: --strict" "$tmp/$k.default"
    ok $? "$k: HF's own cache passes the default class with no --strict note" "$tmp/$k.default"
done
! grep -q "note: --strict" "$tmp/ggml.default"
ok $? "llama.cpp: its default pass has no --strict note (--strict fails, no frequency accounts for it)" "$tmp/ggml.default"

echo "1..$n"
[ "$fails" -eq 0 ]
