"""Audit cases for pecheck.check_rotation, written BEFORE running it.

Each case: name, kind (correct|bug), form, fn, kw (keywords to check_rotation), expect (pass|fail),
causes (words I accept as a right first cause; any one, case-insensitive), src (library code it is
copied from / what the bug edits), plus my own validator's schedule (sched, layout, D, dtype).
"""
import functools
import math
import numpy as np
import torch

import libs as L

T = torch.as_tensor
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}

# ---------------------------------------------------------------- real model configs (config.json contents)
LLAMA2_7B = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 32,
             "max_position_embeddings": 4096, "rope_theta": 10000.0, "rope_scaling": None}
LLAMA31_8B = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
              "max_position_embeddings": 131072, "rope_theta": 500000.0,
              "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 8192, "rope_type": "llama3"}}
# Qwen2.5-7B-Instruct + the YaRN block its model card says to add; max_position_embeddings set to
# factor * original (131072) so that old and new transformers and vLLM agree on factor 4.
QWEN25_7B_YARN = {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
                  "max_position_embeddings": 131072, "rope_theta": 1000000.0,
                  "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}}
QWEN2VL_7B = {"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
              "max_position_embeddings": 32768, "rope_theta": 1000000.0,
              "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}
COMMAND_R = {"model_type": "cohere", "hidden_size": 8192, "num_attention_heads": 64, "num_key_value_heads": 64,
             "max_position_embeddings": 131072, "rope_theta": 8000000.0}
PHI2 = {"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "num_key_value_heads": 32,
        "partial_rotary_factor": 0.4, "rope_theta": 10000.0, "max_position_embeddings": 2048}

S_L2 = dict(kind="default", base=10000.0, R=128)
S_L31 = dict(kind="llama3", base=500000.0, R=128, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, old=8192)
S_QY = dict(kind="yarn", base=1000000.0, R=128, factor=4.0, orig=32768)
S_QVL = dict(kind="default", base=1000000.0, R=128, mrope_section=[16, 24, 24])


def mrope_ids():
    """Qwen2-VL get_rope_index style (n, 3) ids: text, an image (t=1, 16x16 after merge), text, a video
    (t=3, 8x8), text."""
    rows = []
    p = 0
    for _ in range(12):
        rows.append((p, p, p)); p += 1
    for r in range(16):
        for c in range(16):
            rows.append((p, p + r, p + c))
    p += 16
    for _ in range(40):
        rows.append((p, p, p)); p += 1
    for t in range(3):
        for r in range(8):
            for c in range(8):
                rows.append((p + t, p + r, p + c))
    p += 8
    for _ in range(60):
        rows.append((p, p, p)); p += 1
    return np.array(rows, dtype=np.int64)


MROPE_IDS = mrope_ids()

# ---------------------------------------------------------------- torchtune ("x,pos")


@functools.lru_cache(None)
def _tt(kind, dim, max_seq_len, base, cache_dtype=None, pos_dtype=None):
    cls = L.TTLlama3ScaledRoPE if kind == "llama3" else L.TTRotaryPositionalEmbeddings
    m = cls(dim, max_seq_len, base)
    if pos_dtype is not None:   # BUG variant: positions built in a 16-bit float type
        seq_idx = torch.arange(max_seq_len, dtype=torch.float32).to(pos_dtype).float()
        idx_theta = torch.einsum("i, j -> ij", seq_idx, m.theta).float()
        m.cache = torch.stack([torch.cos(idx_theta), torch.sin(idx_theta)], dim=-1)
    if cache_dtype is not None:  # BUG variant: module.to(bf16) converts the cache buffer
        m.cache = m.cache.to(cache_dtype)
    return m


def tt_fn(kind="default", dim=128, max_seq_len=8192, base=10000, shift=0, cache_dtype=None, pos_dtype=None,
          pairing="interleaved"):
    def fn(x, positions):
        x, positions = T(x), T(positions)
        m = _tt(kind, dim, max_seq_len, base, cache_dtype, pos_dtype)
        if pairing == "interleaved":
            return m(x, input_pos=(positions + shift)[None])
        # BUG variant: torchtune cache applied with HF's rotate_half pairing
        c = m.cache[positions + shift]                       # (n, D/2, 2)
        cos = torch.cat([c[..., 0], c[..., 0]], -1)[None, :, None, :]
        sin = torch.cat([c[..., 1], c[..., 1]], -1)[None, :, None, :]
        xf = x.float()
        return (xf * cos + L.rotate_half(xf) * sin).type_as(x)
    return fn


# ---------------------------------------------------------------- transformers ("q,k,cos,sin" and "x,pos")

def hf_llama_fn(q, k, cos, sin):
    return L.hf_apply_rotary_pos_emb(T(q), T(k), T(cos), T(sin))


def hf_sign_bug(q, k, cos, sin):
    q, k, cos, sin = T(q), T(k), T(cos).unsqueeze(1), T(sin).unsqueeze(1)

    def rot(x):  # rotate_half with the halves' signs exchanged: rotates by -theta
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat((x2, -x1), dim=-1)
    return q * cos + rot(q) * sin, k * cos + rot(k) * sin


def hf_k_not_rotated(q, k, cos, sin):
    qe, _ = L.hf_apply_rotary_pos_emb(T(q), T(k), T(cos), T(sin))
    return qe, T(k)


def hf_swapped(q, k, cos, sin):
    qe, ke = L.hf_apply_rotary_pos_emb(T(q), T(k), T(cos), T(sin))
    return ke, qe


def hf_interleaved_on_half(q, k, cos, sin):
    # Llama model (cat(freqs, freqs) cos) applied with GPT-J/Cohere's rotate_every_two
    q, k, cos, sin = T(q), T(k), T(cos).unsqueeze(1), T(sin).unsqueeze(1)
    return q * cos + L.cohere_rotate_half(q) * sin, k * cos + L.cohere_rotate_half(k) * sin


def hf_cos_bf16_in_f32(q, k, cos, sin):
    cos = T(cos).to(torch.bfloat16).float()
    sin = T(sin).to(torch.bfloat16).float()
    return L.hf_apply_rotary_pos_emb(T(q), T(k), cos, sin)


def cohere_fn(q, k, cos, sin):
    return L.cohere_apply_rotary_pos_emb(T(q), T(k), T(cos), T(sin))


def neox_fn(q, k, cos, sin):
    return L.neox_apply_rotary_pos_emb(T(q), T(k), T(cos), T(sin))


def neox_wrong_slice(q, k, cos, sin):
    q, k, cos, sin = T(q), T(k), T(cos).unsqueeze(1), T(sin).unsqueeze(1)
    R = cos.shape[-1]

    def ap(x):  # rotates the LAST R dims instead of the first R
        xp, xr = x[..., :-R], x[..., -R:]
        return torch.cat([xp, xr * cos + L.rotate_half(xr) * sin], dim=-1)
    return ap(q), ap(k)


def hf_llama_xpos_fn(inv_kind="default", base=10000.0, dim=128, inv_dtype=None, pos_dtype=None):
    """'x,pos' form: LlamaRotaryEmbedding.forward + apply_rotary_pos_emb (x as (b, h, n, d))."""
    def fn(x, positions):
        x, positions = T(x), T(positions)
        inv = L.hf_llama3_inv_freq(base, dim) if inv_kind == "llama3" else L.hf_default_inv_freq(base, dim)
        if inv_dtype is not None:   # BUG: model.to(bf16) rounded the inv_freq buffer
            inv = inv.to(inv_dtype)
        pid = positions[None]
        if pos_dtype is not None:   # BUG: position ids cast to a 16-bit float before the angle
            pid = pid.to(pos_dtype)
        cos, sin = L.hf_rotary_forward(inv, x, pid)
        xt = x.transpose(1, 2)
        qe, _ = L.hf_apply_rotary_pos_emb(xt, xt, cos, sin)
        return qe.transpose(1, 2)
    return fn


def qwen2vl_xpos_fn(section=(16, 24, 24)):
    def fn(x, positions):
        x, positions = T(x), T(positions)
        inv = L.hf_default_inv_freq(1000000.0, 128)
        pid = positions.T[:, None, :]            # (3, bs=1, n)
        cos, sin = L.qwen2vl_rotary_forward(inv, x, pid)
        xt = x.transpose(1, 2)
        qe, _ = L.apply_multimodal_rotary_pos_emb(xt, xt, cos, sin, list(section))
        return qe.transpose(1, 2)
    return fn


# ---------------------------------------------------------------- vLLM ("q,k,pos")

@functools.lru_cache(None)
def _vllm(kind, head, rot, maxpos, base, neox, dtype, extra=()):
    extra = dict(extra)
    dt = DT[dtype]
    if kind == "default":
        return L.VllmRotaryEmbedding(head, rot, maxpos, base, neox, dt)
    if kind == "llama3":
        return L.VllmLlama3RotaryEmbedding(head, rot, maxpos, base, neox, dt, 8.0, 1.0, 4.0, 8192)
    if kind == "yarn":
        e = L.VllmYaRNScalingRotaryEmbedding(head, rot, maxpos, base, neox, 4.0, dt)
        if extra.get("no_mscale"):
            e.mscale = 1.0
            e.cos_sin_cache = e._compute_cos_sin_cache().to(dt)
        return e
    if kind == "mrope":
        return L.VllmMRotaryEmbedding(head, rot, maxpos, base, neox, dt, list(extra["section"]))
    raise ValueError(kind)


def vllm_fn(kind="default", head=128, rot=128, maxpos=8192, base=10000.0, neox=True, dtype="float32", shift=0,
            cache_dtype=None, pos_dtype=None, extra=()):
    def fn(positions, q, k):
        positions, q, k = T(positions), T(q), T(k)
        e = _vllm(kind, head, rot, maxpos, base, neox, dtype, extra)
        if cache_dtype is not None or pos_dtype is not None:
            e = _vllm_bug(kind, head, rot, maxpos, base, neox, dtype, cache_dtype, pos_dtype)
        if positions.ndim == 2:       # pecheck hands (n, A); vLLM takes (3, n)
            positions = positions.T.contiguous()
        return e.forward_native(positions + shift, q, k)
    return fn


@functools.lru_cache(None)
def _vllm_bug(kind, head, rot, maxpos, base, neox, dtype, cache_dtype, pos_dtype):
    e = _vllm(kind, head, rot, maxpos, base, neox, dtype)
    e2 = L.VllmRotaryEmbedding.__new__(type(e))
    e2.__dict__.update(e.__dict__)
    if pos_dtype is not None:
        inv = e._compute_inv_freq(e.base)
        t = torch.arange(e.max_position_embeddings, dtype=torch.float).to(pos_dtype).float()
        fr = torch.einsum("i,j -> ij", t, inv)
        e2.cos_sin_cache = torch.cat((fr.cos(), fr.sin()), -1).to(DT[dtype])
    if cache_dtype is not None:
        e2.cos_sin_cache = e.cos_sin_cache.to(cache_dtype)
    return e2


# ---------------------------------------------------------------- Meta ("x,freqs_cis")

def meta_fn(xq, xk, freqs_cis):
    return L.meta_apply_rotary_emb(T(xq), T(xk), T(freqs_cis))


def meta_conj(xq, xk, freqs_cis):
    return L.meta_apply_rotary_emb(T(xq), T(xk), T(freqs_cis).conj().resolve_conj())


def meta_k_not_rotated(xq, xk, freqs_cis):
    qo, _ = L.meta_apply_rotary_emb(T(xq), T(xk), T(freqs_cis))
    return qo, T(xk)


# ---------------------------------------------------------------- flash-attn ("x,cos,sin")

def fa_fn(interleaved):
    def fn(x, cos, sin):
        return L.fa_apply_rotary_emb_torch(T(x), T(cos), T(sin), interleaved=interleaved)
    return fn


def fa_sign_bug(x, cos, sin):
    x, cos, sin = T(x), T(cos), T(sin)
    ro = cos.shape[-1] * 2
    c = torch.cat((cos, cos), -1).unsqueeze(-2)
    s = torch.cat((sin, sin), -1).unsqueeze(-2)
    xr = x[..., :ro]
    x1, x2 = xr.chunk(2, dim=-1)
    return torch.cat([xr * c + torch.cat((x2, -x1), -1) * s, x[..., ro:]], dim=-1)


# ---------------------------------------------------------------- the table

def C(name, kind, form, fn, kw, expect, causes, src, sched, layout, D=128, dtype="float32", vpos=None):
    kw = dict(kw)
    if dtype != "float32":
        kw.setdefault("dtype", dtype)
    return dict(name=name, kind=kind, form=form, fn=fn, kw=kw, expect=expect, causes=causes, src=src,
                sched=sched, layout=layout, D=D, dtype=dtype, vpos=vpos)


PAIR = ["pairing", "layout", "interleaved", "half", "rotate_half", "neox", "gpt-j", "gptj", "pair"]
DIRN = ["direction", "sign", "conjugat", "inverse", "negat", "-theta", "−θ", "opposite", "reverse", "clockwise"]
KNOT = ["k ", "k:", "k'", "key", "not rotated", "unrotated", "identity", "unchanged"]
OFFS = ["offset", "shift", "pos_start", "off by one", "off-by-one", "position +", "position-", "one position"]
PREC = ["precision", "bfloat16", "bf16", "rounded", "half precision", "16-bit", "storage"]
BASE = ["base", "rope_theta", "schedule"]
L3 = ["llama3", "scaling", "schedule", "factor", "rope_scaling"]
SECT = ["section", "mrope", "m-rope", "axis", "axes"]
POSP = ["position", "bf16", "bfloat16", "float16", "fp16", "precision"]
FREQP = ["inv_freq", "frequenc", "bf16", "bfloat16", "precision"]
SLICE = ["slice", "partial", "rotary_dim", "rotary dim", "last", "pass-through", "passthrough", "first"]
SWAP = ["swap", "q and k", "k and q", "exchanged", "shape"]
ATTN = ["attention factor", "attention_factor", "mscale", "magnitude", "amplitude", "norm", "scale"]

TT_SRC = "pytorch/torchtune torchtune/modules/position_embeddings.py@01306df8 RotaryPositionalEmbeddings"
TT31_SRC = "pytorch/torchtune torchtune/models/llama3_1/_position_embeddings.py@c2cc6947 Llama3ScaledRoPE"
HF_SRC = "huggingface/transformers models/llama/modeling_llama.py@00227283 rotate_half+apply_rotary_pos_emb"
HFR_SRC = "huggingface/transformers modeling_llama.py LlamaRotaryEmbedding.forward + modeling_rope_utils.py@0044e3b3"
CO_SRC = "huggingface/transformers models/cohere/modeling_cohere.py rotate_half(::2,1::2)+apply_rotary_pos_emb (GPT-J rotate_every_two)"
NX_SRC = "huggingface/transformers models/gpt_neox/modeling_gpt_neox.py@006bd23d rotary_ndims slice + apply_rotary_pos_emb"
QVL_SRC = "huggingface/transformers models/qwen2_vl/modeling_qwen2_vl.py@00b676f8 Qwen2VLRotaryEmbedding+apply_multimodal_rotary_pos_emb"
V_SRC = "vllm-project/vllm rotary_embedding/base.py@072d10a0 RotaryEmbedding.forward_static + common.py@1593f0c1 apply_rotary_emb_torch"
VL3_SRC = "vllm-project/vllm rotary_embedding/llama3_rope.py@045d7575 Llama3RotaryEmbedding"
VY_SRC = "vllm-project/vllm rotary_embedding/yarn_scaling_rope.py@0cd57848 YaRNScalingRotaryEmbedding (+get_rope @07b12f1b)"
VM_SRC = "vllm-project/vllm rotary_embedding/mrope.py@dba39a55 MRotaryEmbedding.forward_native"
META_SRC = "meta-llama/llama llama/model.py@0504cf44 apply_rotary_emb (+precompute_freqs_cis)"
FA_SRC = "Dao-AILab/flash-attention flash_attn/layers/rotary.py@09d422b1 apply_rotary_emb_torch"

P4K = dict(positions=4096)
L2KW = dict(hf_config=LLAMA2_7B, positions=4096)

CASES = [
    # ------------------------------------------------------------------ correct
    C("tt_rope_f32", "correct", "x,pos", tt_fn(max_seq_len=4096), dict(base=10000, head_dim=128, **P4K),
      "pass", [], TT_SRC, S_L2, "interleaved"),
    C("tt_rope_bf16", "correct", "x,pos", tt_fn(max_seq_len=4096), dict(base=10000, head_dim=128, **P4K),
      "pass", [], TT_SRC, S_L2, "interleaved", dtype="bfloat16"),
    C("tt_llama31_long_f32", "correct", "x,pos", tt_fn("llama3", max_seq_len=131072, base=500000),
      dict(hf_config=LLAMA31_8B, positions=131072), "pass", [], TT31_SRC + " (positions 0..131071)", S_L31,
      "interleaved"),
    C("tt_llama31_bf16", "correct", "x,pos", tt_fn("llama3", max_seq_len=131072, base=500000),
      dict(hf_config=LLAMA31_8B, positions=8192), "pass", [], TT31_SRC, S_L31, "interleaved", dtype="bfloat16"),
    C("hf_llama2_f32", "correct", "q,k,cos,sin", hf_llama_fn, L2KW, "pass", [], HF_SRC, S_L2, "half"),
    C("hf_llama2_bf16", "correct", "q,k,cos,sin", hf_llama_fn, L2KW, "pass", [], HF_SRC, S_L2, "half",
      dtype="bfloat16"),
    C("hf_llama31_f16_32k", "correct", "q,k,cos,sin", hf_llama_fn, dict(hf_config=LLAMA31_8B, positions=32768),
      "pass", [], HF_SRC, S_L31, "half", dtype="float16"),
    C("hf_llama31_xpos_f32", "correct", "x,pos", hf_llama_xpos_fn("llama3", 500000.0),
      dict(hf_config=LLAMA31_8B, positions=8192, layout="half"), "pass", [], HFR_SRC + " llama3", S_L31, "half"),
    C("cohere_cmdr_bf16", "correct", "q,k,cos,sin", cohere_fn,
      dict(hf_config=COMMAND_R, positions=4096, layout="interleaved"), "pass", [], CO_SRC,
      dict(kind="default", base=8000000.0, R=128), "interleaved", dtype="bfloat16"),
    C("neox_pythia_partial_f32", "correct", "q,k,cos,sin", neox_fn,
      dict(head_dim=128, rotary_dim=32, base=10000, positions=2048), "pass", [], NX_SRC + " (rotary_pct 0.25)",
      dict(kind="default", base=10000.0, R=32), "half"),
    C("phi2_partial_f16", "correct", "q,k,cos,sin", neox_fn, dict(hf_config=PHI2, positions=2048), "pass", [],
      NX_SRC + " (Phi-2 partial_rotary_factor 0.4, same slice)", dict(kind="default", base=10000.0, R=32), "half",
      D=80, dtype="float16"),
    C("vllm_neox_f32", "correct", "q,k,pos", vllm_fn(maxpos=4096), L2KW, "pass", [], V_SRC, S_L2, "half"),
    C("vllm_gptj_bf16", "correct", "q,k,pos", vllm_fn(head=256, rot=64, maxpos=2048, neox=False, dtype="bfloat16"),
      dict(head_dim=256, rotary_dim=64, base=10000, positions=2048, layout="interleaved"), "pass", [],
      V_SRC + " is_neox_style=False (GPT-J-6B: head 256, rotary_dim 64)", dict(kind="default", base=10000.0, R=64),
      "interleaved", D=256, dtype="bfloat16"),
    C("vllm_llama31_long_f32", "correct", "q,k,pos", vllm_fn("llama3", maxpos=131072, base=500000.0),
      dict(hf_config=LLAMA31_8B, positions=131072), "pass", [], VL3_SRC + " (positions 0..131071)", S_L31, "half"),
    C("vllm_llama31_bf16", "correct", "q,k,pos", vllm_fn("llama3", maxpos=131072, base=500000.0, dtype="bfloat16"),
      dict(hf_config=LLAMA31_8B, positions=4096), "pass", [], VL3_SRC, S_L31, "half", dtype="bfloat16"),
    C("vllm_qwen25_yarn_long_f32", "correct", "q,k,pos", vllm_fn("yarn", maxpos=32768, base=1000000.0),
      dict(hf_config=QWEN25_7B_YARN, positions=131072), "pass", [], VY_SRC + " (positions 0..131071)", S_QY,
      "half"),
    C("vllm_qwen25_yarn_bf16", "correct", "q,k,pos", vllm_fn("yarn", maxpos=32768, base=1000000.0,
                                                             dtype="bfloat16"),
      dict(hf_config=QWEN25_7B_YARN, positions=4096), "pass", [], VY_SRC, S_QY, "half", dtype="bfloat16"),
    C("vllm_qwen2vl_mrope_bf16", "correct", "q,k,pos",
      vllm_fn("mrope", maxpos=32768, base=1000000.0, dtype="bfloat16", extra=(("section", (16, 24, 24)),)),
      dict(hf_config=QWEN2VL_7B, position_ids=MROPE_IDS), "pass", [], VM_SRC, S_QVL, "half", dtype="bfloat16",
      vpos=MROPE_IDS),
    C("meta_llama2_f32", "correct", "x,freqs_cis", meta_fn, dict(base=10000, head_dim=128, **P4K), "pass", [],
      META_SRC, S_L2, "interleaved"),
    C("meta_llama3_bf16", "correct", "x,freqs_cis", meta_fn, dict(base=500000, head_dim=128, **P4K), "pass", [],
      META_SRC + " (Llama 3 base 500000)", dict(kind="default", base=500000.0, R=128), "interleaved",
      dtype="bfloat16"),
    C("fa_half_f32", "correct", "x,cos,sin", fa_fn(False), dict(base=10000, head_dim=128, **P4K), "pass", [],
      FA_SRC + " interleaved=False", S_L2, "half"),
    C("fa_interleaved_bf16", "correct", "x,cos,sin", fa_fn(True),
      dict(base=10000, head_dim=128, layout="interleaved", **P4K), "pass", [], FA_SRC + " interleaved=True", S_L2,
      "interleaved", dtype="bfloat16"),
    C("fa_partial_f16", "correct", "x,cos,sin", fa_fn(False),
      dict(base=10000, head_dim=128, rotary_dim=64, positions=2048), "pass", [], FA_SRC + " ro_dim 64 < 128",
      dict(kind="default", base=10000.0, R=64), "half", dtype="float16"),
    C("hf_qwen2vl_mrope_xpos_bf16", "correct", "x,pos", qwen2vl_xpos_fn(),
      dict(hf_config=QWEN2VL_7B, position_ids=MROPE_IDS, layout="half"), "pass", [], QVL_SRC, S_QVL, "half",
      dtype="bfloat16", vpos=MROPE_IDS),

    # ------------------------------------------------------------------ bugs (each a small edit of a correct one)
    C("bug_tt_wrong_base", "bug", "x,pos", tt_fn(max_seq_len=8192, base=10000),
      dict(hf_config=LLAMA31_8B, positions=8192), "fail", BASE + ["llama3"],
      "torchtune RotaryPositionalEmbeddings default base 10000 in a Llama-3.1 model", S_L31, "interleaved"),
    C("bug_tt_llama3_missing", "bug", "x,pos", tt_fn(max_seq_len=8192, base=500000),
      dict(hf_config=LLAMA31_8B, positions=8192), "fail", L3,
      "RotaryPositionalEmbeddings(base=500000) instead of Llama3ScaledRoPE", S_L31, "interleaved"),
    C("bug_tt_off_by_one", "bug", "x,pos", tt_fn(max_seq_len=4097, shift=1),
      dict(base=10000, head_dim=128, **P4K), "fail", OFFS, "input_pos + 1 (decode step)", S_L2, "interleaved"),
    C("bug_tt_half_pairing", "bug", "x,pos", tt_fn(max_seq_len=4096, pairing="half"),
      dict(base=10000, head_dim=128, **P4K), "fail", PAIR, "torchtune cache applied with rotate_half pairing",
      S_L2, "interleaved"),
    C("bug_tt_cache_bf16_in_f32", "bug", "x,pos", tt_fn(max_seq_len=4096, cache_dtype=torch.bfloat16),
      dict(base=10000, head_dim=128, **P4K), "fail", PREC, "module.to(bf16) rounded the cos/sin cache; f32 model",
      S_L2, "interleaved"),
    C("bug_tt_positions_bf16", "bug", "x,pos", tt_fn(max_seq_len=4096, pos_dtype=torch.bfloat16),
      dict(base=10000, head_dim=128, **P4K), "fail", POSP, "seq_idx built in bfloat16 (positions > 256 rounded)",
      S_L2, "interleaved"),
    C("bug_hf_inv_freq_bf16", "bug", "x,pos", hf_llama_xpos_fn(inv_dtype=torch.bfloat16),
      dict(hf_config=LLAMA2_7B, positions=4096, layout="half"), "fail", FREQP,
      "LlamaRotaryEmbedding inv_freq buffer rounded to bf16 by model.to(bf16)", S_L2, "half"),
    C("bug_hf_positions_fp16", "bug", "x,pos", hf_llama_xpos_fn(pos_dtype=torch.float16),
      dict(hf_config=LLAMA2_7B, positions=4096, layout="half"), "fail", POSP,
      "position_ids cast to float16 before the angle (positions > 2048 rounded)", S_L2, "half"),
    C("bug_hf_sign", "bug", "q,k,cos,sin", hf_sign_bug, L2KW, "fail", DIRN,
      "rotate_half returns cat(x2, -x1): rotation by -theta", S_L2, "half"),
    C("bug_hf_k_not_rotated", "bug", "q,k,cos,sin", hf_k_not_rotated, L2KW, "fail", KNOT,
      "apply_rotary_pos_emb returns k unrotated", S_L2, "half"),
    C("bug_hf_qk_swapped", "bug", "q,k,cos,sin", hf_swapped, L2KW, "fail", SWAP,
      "returns (k_embed, q_embed)", S_L2, "half"),
    C("bug_hf_interleaved_on_half", "bug", "q,k,cos,sin", hf_interleaved_on_half, L2KW, "fail", PAIR,
      "Llama cos/sin applied with Cohere/GPT-J rotate_every_two", S_L2, "half"),
    C("bug_hf_cos_bf16_in_f32", "bug", "q,k,cos,sin", hf_cos_bf16_in_f32, L2KW, "fail", PREC,
      "cos/sin rounded to bf16 before use in a float32 model", S_L2, "half"),
    C("bug_neox_wrong_slice", "bug", "q,k,cos,sin", neox_wrong_slice,
      dict(head_dim=128, rotary_dim=32, base=10000, positions=2048), "fail", SLICE,
      "partial rotary on q[..., -R:] instead of q[..., :R]", dict(kind="default", base=10000.0, R=32), "half"),
    C("bug_vllm_gptj_style_on_llama", "bug", "q,k,pos", vllm_fn(maxpos=4096, neox=False), L2KW, "fail", PAIR,
      "is_neox_style=False for a Llama (neox) checkpoint", S_L2, "half"),
    C("bug_vllm_decode_off_by_one", "bug", "q,k,pos", vllm_fn(maxpos=4097, shift=1), L2KW, "fail", OFFS,
      "positions + 1 at decode", S_L2, "half"),
    C("bug_vllm_llama3_missing", "bug", "q,k,pos", vllm_fn(maxpos=8192, base=500000.0),
      dict(hf_config=LLAMA31_8B, positions=8192), "fail", L3,
      "get_rope without rope_scaling: plain RotaryEmbedding base 500000 for Llama-3.1", S_L31, "half"),
    C("bug_vllm_cache_bf16_in_f32", "bug", "q,k,pos", vllm_fn(maxpos=4096, cache_dtype=torch.bfloat16), L2KW,
      "fail", PREC, "cos_sin_cache built/cast in bf16 while q, k are float32", S_L2, "half"),
    C("bug_vllm_positions_fp16", "bug", "q,k,pos", vllm_fn(maxpos=4096, pos_dtype=torch.float16), L2KW, "fail",
      POSP, "cache positions t built in float16", S_L2, "half"),
    C("bug_vllm_yarn_no_mscale", "bug", "q,k,pos", vllm_fn("yarn", maxpos=32768, base=1000000.0,
                                                          extra=(("no_mscale", True),)),
      dict(hf_config=QWEN25_7B_YARN, positions=4096), "fail", ATTN,
      "YaRN cache without the attention factor mscale (0.1 ln 4 + 1)", S_QY, "half"),
    C("bug_vllm_mrope_wrong_section", "bug", "q,k,pos",
      vllm_fn("mrope", maxpos=32768, base=1000000.0, extra=(("section", (24, 24, 16)),)),
      dict(hf_config=QWEN2VL_7B, position_ids=MROPE_IDS), "fail", SECT,
      "mrope_section [24,24,16] instead of [16,24,24]", S_QVL, "half", vpos=MROPE_IDS),
    C("bug_hf_mrope_wrong_section", "bug", "x,pos", qwen2vl_xpos_fn((16, 16, 32)),
      dict(hf_config=QWEN2VL_7B, position_ids=MROPE_IDS, layout="half"), "fail", SECT,
      "apply_multimodal_rotary_pos_emb with mrope_section [16,16,32]", S_QVL, "half", vpos=MROPE_IDS),
    C("bug_meta_conj", "bug", "x,freqs_cis", meta_conj, dict(base=10000, head_dim=128, **P4K), "fail", DIRN,
      "xq_ * freqs_cis.conj(): rotation by -theta", S_L2, "interleaved"),
    C("bug_meta_k_not_rotated", "bug", "x,freqs_cis", meta_k_not_rotated, dict(base=10000, head_dim=128, **P4K),
      "fail", KNOT, "returns xk unrotated", S_L2, "interleaved"),
    C("bug_fa_interleaved_flag", "bug", "x,cos,sin", fa_fn(True), dict(base=10000, head_dim=128, **P4K), "fail",
      PAIR, "apply_rotary_emb_torch(interleaved=True) for a GPT-NeoX-style model", S_L2, "half"),
    C("bug_fa_sign", "bug", "x,cos,sin", fa_sign_bug, dict(base=10000, head_dim=128, **P4K), "fail", DIRN,
      "rotate_half returns cat(x2, -x1)", S_L2, "half"),
]


# ---------------------------------------------------------------- added 2nd batch (before any successful pecheck run):
# in-place functions returning None (as vLLM's forward_cuda / ops.rotary_embedding updates q, k in place)

def vllm_inplace(k_too=True):
    base_fn = vllm_fn(maxpos=4096)

    def fn(positions, q, k):
        qo, ko = base_fn(positions, q, k)
        T(q).copy_(qo)
        if k_too:
            T(k).copy_(ko)
        return None
    return fn


CASES += [
    C("vllm_inplace_none_f32", "correct", "q,k,pos", vllm_inplace(True), L2KW, "pass", [],
      V_SRC + " written in place, returns None (ops.rotary_embedding contract)", S_L2, "half"),
    C("bug_vllm_inplace_k_forgotten", "bug", "q,k,pos", vllm_inplace(False), L2KW, "fail", KNOT,
      "in-place variant that writes q but forgets k", S_L2, "half"),
]
