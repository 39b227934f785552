#!/usr/bin/python3
"""rope_causes_forms.t: the likely causes of caches computed another way
from the right inputs (families/rope/rank_forms.c, rank_rows.c's blocks,
rank.c's one-part storage, fit.c's exponent note, table.c's transposed
shape), each on caches of its own (models, lengths and dims other than
tests/audit_blind's), and the controls where none may be said.

Each bug must fail (exit 1) with the cause's words on the first "likely
cause:" line of the accuracy check; each control must pass, or fail
without the cause."""
import json
import os
import shutil
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "lib"))
try:
    import numpy as np
    import torch
except Exception as e:  # the reason, one line
    print("1..0 # SKIP numpy or torch not available: %s" % str(e).splitlines()[0])
    sys.exit(0)
from pctest import ok, run, done  # noqa: E402

tmp = tempfile.mkdtemp(prefix="pecheck-causes-forms.")
GEMMA = {"model_type": "gemma", "head_dim": 256, "hidden_size": 3072, "num_attention_heads": 16,
         "rope_theta": 10000.0, "max_position_embeddings": 8192}
LLAMA3 = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
          "rope_theta": 500000.0, "max_position_embeddings": 8192}
PHI3 = {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32,
        "rope_theta": 10000.0, "max_position_embeddings": 4096}


def dims(cfg):
    return cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def inv_freq(cfg, exponent=None):
    d = dims(cfg)
    e = torch.arange(0, d, 2, dtype=torch.int64).float() / d if exponent is None else exponent
    return 1.0 / (cfg["rope_theta"] ** e)


def half(freqs):
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def hf_cache(cfg, positions, inv=None):
    inv = inv_freq(cfg) if inv is None else inv
    return half(torch.outer(positions.float(), inv))


def first_cause(out):
    for line in out.splitlines():
        s = line.strip()
        if s.startswith("likely cause:"):
            return s
    return ""


def check(name, cfg, cos, sin, args=()):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f)
    np.save(os.path.join(d, "cos.npy"), np.asarray(cos, dtype=np.float32))
    np.save(os.path.join(d, "sin.npy"), np.asarray(sin, dtype=np.float32))
    rc, out, err, _ = run(["check", "--table", os.path.join(d, "cos.npy"), "--table-sin",
                           os.path.join(d, "sin.npy"), "--hf-config", os.path.join(d, "config.json"),
                           "--property", "accuracy", "--threads", "2", "--regressions", "off"]
                          + list(args), timeout=600)
    shutil.rmtree(d, ignore_errors=True)
    return rc, out + err


def bug(name, cfg, cos, sin, words, args=()):
    rc, out = check(name, cfg, cos, sin, args)
    cause = first_cause(out)
    ok(rc == 1 and all(w in cause for w in words), "%s: fails, first cause names %s" % (name, words),
       "rc %d; %s\n%s" % (rc, cause, out[-2500:]))


def control(name, cfg, cos, sin, words, args=()):
    rc, out = check(name, cfg, cos, sin, args)
    ok(rc in (0, 1) and not any(w in first_cause(out) for w in words),
       "%s (control): %s not said" % (name, words), "rc %d\n%s" % (rc, out[-2500:]))


# the angle as a float32 running sum (numpy cumsum along positions): Gemma, d 256, 6000 rows
w = inv_freq(GEMMA).numpy().astype(np.float32)
theta = np.cumsum(np.tile(w, (6000, 1)), axis=0, dtype=np.float32)
theta = np.vstack([np.zeros((1, w.size), np.float32), theta[:-1]])
c, s = half(torch.from_numpy(theta))
bug("gemma_cumsum", GEMMA, c, s, ["angles are accumulated", "running sum"])

# the rotation carried as complex64 products (Meta's polar, then cumprod): Llama 3, 4096 rows
step = torch.polar(torch.ones(64), inv_freq(LLAMA3))
rot = torch.cumprod(torch.cat([torch.ones(1, 64, dtype=torch.complex64),
                               step.repeat(4095, 1)]), dim=0)
c, s = torch.cat((rot.real, rot.real), -1), torch.cat((rot.imag, rot.imag), -1)
bug("llama3_cumprod", LLAMA3, c, s, ["carried from row to row"])

# sin as sqrt(1 - cos^2), with and without its sign: Phi-3 (d 96), 4096 rows
c, s = hf_cache(PHI3, torch.arange(4096))
mag = torch.sqrt(torch.clamp(1 - c * c, min=0))
bug("phi3_sqrt_signed", PHI3, c, torch.where(s < 0, -mag, mag), ["sqrt(1 - cos^2)"])
bug("phi3_sqrt_unsigned", PHI3, c, mag, ["sqrt(1 - cos^2)", "no sign"])

# sin alone through bfloat16; cos alone through float16 (Llama 3, 2048 rows)
c, s = hf_cache(LLAMA3, torch.arange(2048))
bug("llama3_sin_bf16", LLAMA3, c, s.bfloat16().float(), ["sin is held in bfloat16 and cos is not"])
bug("llama3_cos_f16", LLAMA3, c.half().float(), s, ["cos is held in float16 and sin is not"])
# both in bfloat16 (no --dtype): the whole cache's storage, not one part's (a bfloat16 cos is
# a float16 one too where sin's small values are not)
control("llama3_both_bf16", LLAMA3, c.bfloat16().float(), s.bfloat16().float(),
        ["is held in bfloat16 and", "is held in float16 and"])

# bfloat16 by dropping the low 16 bits (--dtype bf16): Gemma, 2048 rows; rounding to nearest passes
c, s = hf_cache(GEMMA, torch.arange(2048))
trunc = [torch.from_numpy((x.numpy().view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32))
         for x in (c, s)]
bug("gemma_bf16_truncated", GEMMA, trunc[0], trunc[1], ["truncated", "toward zero"],
    ["--dtype", "bf16"])
control("gemma_bf16_nearest", GEMMA, c.bfloat16().float(), s.bfloat16().float(), ["truncated"],
        ["--dtype", "bf16"])

# a ring buffer of 3072 slots after 5000 tokens, exported in slot order: slot s holds the last
# position written to it (s + 3072 for s < 1928, else s), checked as positions 1928..4999
slots = np.arange(3072)
c, s = hf_cache(LLAMA3, torch.from_numpy(np.where(slots < 5000 - 3072, slots + 3072, slots)))
bug("llama3_ring_slot_order", LLAMA3, c, s, ["two blocks out of order", "ring buffer"],
    ["--pos-start", "1928"])
# one row repeated (position 1999 twice, the rows after it one position behind): shifted, not
# two blocks out of order
held = torch.cat([torch.arange(2000), torch.arange(1999, 4095)])
c, s = hf_cache(LLAMA3, held)
control("llama3_one_row_repeated", LLAMA3, c, s, ["out of order"])
# a plain slice: the offset, not blocks
c, s = hf_cache(LLAMA3, torch.arange(7000, 9048))
bug("llama3_slice_offset", LLAMA3, c, s, ["--pos-start 7000"])

# the exponent miscomputed: (2i + 2)/d (Gemma), 2i/(d - 2) (Phi-3), integer division (Llama 3)
d = dims(GEMMA)
c, s = hf_cache(GEMMA, torch.arange(1024), inv_freq(GEMMA, torch.arange(2, d + 2, 2).float() / d))
bug("gemma_exponent_from_2", GEMMA, c, s, ["the exponent off by 2"])
c, s = hf_cache(PHI3, torch.arange(1024), inv_freq(PHI3, torch.linspace(0, 1, 48)))
bug("phi3_linspace_exponent", PHI3, c, s, ["the exponent runs over d - 2"])
c, s = hf_cache(LLAMA3, torch.arange(1024),
                inv_freq(LLAMA3, (torch.arange(0, 128, 2) // 128).float()))
bug("llama3_int_div_exponent", LLAMA3, c, s, ["the exponent 2i/d is 0"])
# a real linear factor is not an exponent (Llama 3 x 2: 2 is not 500000^(k/128))
c, s = hf_cache(LLAMA3, torch.arange(1024), inv_freq(LLAMA3) / 2)
control("llama3_linear_2", LLAMA3, c, s, ["the exponent"])

# dynamic NTK decoded step by step: row p rotated with the base of length p + 1 (HF's dynamic
# rotary embedding recomputing inv_freq each step); an OpenLLaMA-like head (d 64, 2048 positions,
# factor 4), rows 2048..5119; the control: one cache for length 5120 (--seq-len 5120) passes
DYN = {"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32, "rope_theta": 10000.0,
       "max_position_embeddings": 2048, "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}


def dynamic_inv(seq_len):
    t = 4.0 * max(seq_len, 2048) / 2048 - 3.0
    return inv_freq(dict(DYN, rope_theta=10000.0 * t ** (64 / 62)))


rows = [hf_cache(DYN, torch.tensor([p]), dynamic_inv(p + 1)) for p in range(2048, 5120)]
c, s = torch.cat([r[0] for r in rows]), torch.cat([r[1] for r in rows])
bug("dynamic_per_step", DYN, c, s, ["its own length", "p + 1"], ["--pos-start", "2048"])
c, s = hf_cache(DYN, torch.arange(2048, 5120), dynamic_inv(5120))
rc, out = check("dynamic_one_length", DYN, c, s, ["--pos-start", "2048", "--seq-len", "5120"])
ok(rc == 0, "dynamic_one_length (control): one base for length 5120 passes", out[-1500:])

# a transposed cache: exit 2 naming the transpose
c, s = hf_cache(PHI3, torch.arange(9000))
rc, out = check("phi3_transposed", PHI3, c.T.contiguous(), s.T.contiguous())
ok(rc == 2 and "cache transposed" in out and "cos.T" in out,
   "phi3_transposed: exit 2 naming the transposed shape", "rc %d\n%s" % (rc, out[-1500:]))

# a correct cache: passes
c, s = hf_cache(GEMMA, torch.arange(4096))
rc, out = check("gemma_ok", GEMMA, c, s)
ok(rc == 0, "gemma_ok: HF's cache passes", out[-1500:])

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())
