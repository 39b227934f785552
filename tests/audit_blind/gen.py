#!/usr/bin/python3
"""Blind audit generator: RoPE cos/sin caches built the way the libraries build them
(written from transformers' modeling_rope_utils.py, vLLM's rotary_embedding.py, llama.cpp
ggml-cpu rope, and, in the sixth round, Meta llama-models, torchtune, openai/gpt-oss and
DeepSeek-V3's inference code; in the ninth, Megatron-LM, NeMo, TensorRT-LLM, GPT-NeoX, ChatGLM,
flash-attn and Transformer Engine), plus the config.json each one should be checked against.

Each case goes to cases/<name>/{cos.npy,sin.npy,config.json,case.json}; case.json holds
the expectation (pass, or fail + cause words written before pecheck ran) and the extra
CLI args a user would add per README (--pos-start, --dtype, --layer-type)."""
import json, math, os, sys
import numpy as np
import torch

OUT = os.environ.get("AUDIT_OUT", "/tmp/audit/cases")  # ~600 MB of .npy: keep out of the repo
# Phi-3.5-mini-instruct rope_scaling factor lists (published config.json)
PHI35_FAC = {"long_factor": [1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601, 1.5899999141693115, 1.600000023841858, 1.6200000047683716, 2.620000123977661, 3.2300000190734863, 3.2300000190734863, 4.789999961853027, 7.400000095367432, 7.700000286102295, 9.09000015258789, 12.199999809265137, 17.670000076293945, 24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523, 32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992, 50.340003967285156, 50.45000457763672, 57.55000305175781, 57.93000411987305, 58.21000289916992, 60.1400032043457, 62.61000442504883, 62.62000274658203, 62.71000289916992, 63.1400032043457, 63.1400032043457, 63.77000427246094, 63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688, 64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938, 64.4800033569336, 64.51000213623047, 64.52999877929688, 64.83999633789062], "short_factor": [1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0699999332427979, 1.0999999046325684, 1.1099998950958252, 1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378, 1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083, 1.8499997854232788, 1.8799997568130493, 1.9099997282028198, 1.9399996995925903, 1.9899996519088745, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0799996852874756, 2.0899996757507324, 2.189999580383301, 2.2199995517730713, 2.5899994373321533, 2.729999542236328, 2.749999523162842, 2.839999437332153]}

# ----------------------------------------------------------------------------- configs
LLAMA2 = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
          "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
          "num_key_value_heads": 32, "max_position_embeddings": 4096, "rms_norm_eps": 1e-05,
          "rope_scaling": None, "rope_theta": 10000.0, "vocab_size": 32000, "torch_dtype": "float16"}
LLAMA31 = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
           "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
           "num_key_value_heads": 8, "max_position_embeddings": 131072, "rms_norm_eps": 1e-05,
           "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                            "original_max_position_embeddings": 8192, "rope_type": "llama3"},
           "rope_theta": 500000.0, "vocab_size": 128256, "torch_dtype": "bfloat16"}
QWEN25_YARN = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
               "intermediate_size": 18944, "num_attention_heads": 28, "num_hidden_layers": 28,
               "num_key_value_heads": 4, "max_position_embeddings": 32768, "rms_norm_eps": 1e-06,
               "rope_theta": 1000000.0, "sliding_window": 131072, "use_sliding_window": False,
               "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"},
               "vocab_size": 152064, "torch_dtype": "bfloat16"}
DSV3 = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
        "num_attention_heads": 128, "num_key_value_heads": 128, "num_hidden_layers": 61,
        "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
        "v_head_dim": 128, "max_position_embeddings": 163840, "rope_theta": 10000,
        "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0,
                         "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096, "type": "yarn"},
        "vocab_size": 129280, "torch_dtype": "bfloat16"}
GPTOSS = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 2880,
          "head_dim": 64, "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 24,
          "max_position_embeddings": 131072, "rope_theta": 150000,
          "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                           "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": False},
          "sliding_window": 128, "initial_context_length": 4096, "vocab_size": 201088,
          "layer_types": ["sliding_attention", "full_attention"] * 12}
PHI35 = {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 3072,
         "intermediate_size": 8192, "num_attention_heads": 32, "num_hidden_layers": 32,
         "num_key_value_heads": 32, "max_position_embeddings": 131072,
         "original_max_position_embeddings": 4096, "rope_theta": 10000.0, "sliding_window": 262144,
         "vocab_size": 32064, "torch_dtype": "bfloat16"}  # rope_scaling added from phi35_factors.json
GEMMA3_4B = {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
             "text_config": {"model_type": "gemma3_text", "hidden_size": 2560, "head_dim": 256,
                             "num_attention_heads": 8, "num_key_value_heads": 4, "num_hidden_layers": 34,
                             "intermediate_size": 10240, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                             "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0, "sliding_window": 1024,
                             "max_position_embeddings": 131072},
             "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152}}
HUNYUAN = {"architectures": ["HunYuanMoEV1ForCausalLM"], "model_type": "hunyuan_v1_moe",
           "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
           "num_hidden_layers": 32, "max_position_embeddings": 32768, "rope_theta": 10000.0,
           "rope_scaling": {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0,
                            "mscale": 1.0, "mscale_all_dim": 1.0, "type": "dynamic"},
           "vocab_size": 128167}
COHERE2 = {"architectures": ["Cohere2ForCausalLM"], "model_type": "cohere2", "hidden_size": 4096,
           "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
           "intermediate_size": 14336, "max_position_embeddings": 132096, "rope_theta": 50000.0,
           "rope_scaling": None, "position_embedding_type": "rope_gptj", "sliding_window": 4096,
           "sliding_window_pattern": 4, "logit_scale": 0.25, "vocab_size": 256000,
           "torch_dtype": "bfloat16"}
PHI2 = {"architectures": ["PhiForCausalLM"], "model_type": "phi", "hidden_size": 2560,
        "num_attention_heads": 32, "num_hidden_layers": 32, "intermediate_size": 10240,
        "max_position_embeddings": 2048, "partial_rotary_factor": 0.4, "rope_theta": 10000.0,
        "rope_scaling": None, "vocab_size": 51200, "torch_dtype": "float16"}


# sixth round: configs published on the Hub (values as in each model's config.json)
LLAMA32_3B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 3072, "head_dim": 128,
              "intermediate_size": 8192, "num_attention_heads": 24, "num_hidden_layers": 28,
              "num_key_value_heads": 8, "max_position_embeddings": 131072, "rms_norm_eps": 1e-05,
              "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                               "original_max_position_embeddings": 8192, "rope_type": "llama3"},
              "rope_theta": 500000.0, "tie_word_embeddings": True, "vocab_size": 128256, "torch_dtype": "bfloat16"}
QWEN3_YARN = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096, "head_dim": 128,
              "intermediate_size": 12288, "num_attention_heads": 32, "num_key_value_heads": 8,
              "num_hidden_layers": 36, "max_position_embeddings": 40960, "rms_norm_eps": 1e-06,
              "rope_theta": 1000000, "sliding_window": None, "use_sliding_window": False,
              # Qwen3-8B's model card: add this rope_scaling for YaRN x4 (original 32768)
              "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
              "vocab_size": 151936, "torch_dtype": "bfloat16"}
# togethercomputer/LLaMA-2-7B-32K: Llama-2 with linear (position interpolation) x8
LLAMA2_32K = dict(LLAMA2, max_position_embeddings=32768, rope_scaling={"factor": 8.0, "type": "linear"})
# Llama-2 with HF dynamic NTK x2 (rope_scaling as transformers documents it for LlamaConfig)
LLAMA2_DYN = dict(LLAMA2, rope_scaling={"factor": 2.0, "type": "dynamic"})


# ----------------------------------------------------------------------------- HF transformers
def hf_default_inv_freq(base, dim):
    # _compute_default_rope_parameters
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(dtype=torch.float) / dim))


def hf_llama3_inv_freq(base, dim, factor, lff, hff, old_ctx, pi=math.pi, swap=False):
    # _compute_llama3_parameters
    inv_freq = hf_default_inv_freq(base, dim)
    if swap:
        lff, hff = hff, lff
    low_freq_wavelen = old_ctx / lff
    high_freq_wavelen = old_ctx / hff
    wavelen = 2 * pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_ctx / wavelen - lff) / (hff - lff)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


def get_mscale(scale, mscale=1):
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def hf_yarn(base, dim, factor, orig, beta_fast=32, beta_slow=1, mscale=None, mscale_all_dim=None,
            attention_factor=None, truncate=True):
    # _compute_yarn_parameters
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = float(get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim))
        else:
            attention_factor = get_mscale(factor)

    def find_correction_dim(num_rotations, dim, base, max_position_embeddings):
        return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    def find_correction_range(low_rot, high_rot, dim, base, mpe, truncate):
        low = find_correction_dim(low_rot, dim, base, mpe)
        high = find_correction_dim(high_rot, dim, base, mpe)
        if truncate:
            low = math.floor(low)
            high = math.ceil(high)
        return max(low, 0), min(high, dim - 1)

    def linear_ramp_factor(min, max, dim):
        if min == max:
            max += 0.001
        linear_func = (torch.arange(dim, dtype=torch.float32) - min) / (max - min)
        return torch.clamp(linear_func, 0, 1)

    pos_freqs = base ** (torch.arange(0, dim, 2).to(dtype=torch.float) / dim)
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (factor * pos_freqs)
    low, high = find_correction_range(beta_fast, beta_slow, dim, base, orig, truncate)
    inv_freq_extrapolation_factor = 1 - linear_ramp_factor(low, high, dim // 2).to(dtype=torch.float)
    inv_freq = (inv_freq_interpolation * (1 - inv_freq_extrapolation_factor)
                + inv_freq_extrapolation * inv_freq_extrapolation_factor)
    return inv_freq, attention_factor


def hf_longrope(base, dim, factors, orig, max_pos):
    # _compute_longrope_parameters (config has original_max_position_embeddings at top level)
    factor = max_pos / orig
    attention_factor = math.sqrt(1 + math.log(factor) / math.log(orig)) if factor > 1 else 1.0
    ext_factors = torch.tensor(factors, dtype=torch.float32)
    inv_freq_shape = torch.arange(0, dim, 2, dtype=torch.int64).float() / dim
    inv_freq = 1.0 / (ext_factors * base ** inv_freq_shape)
    return inv_freq, attention_factor


def hf_forward(inv_freq, positions, attention_scaling=1.0, layout="half", pos_dtype=torch.float32):
    """LlamaRotaryEmbedding.forward: freqs = inv_freq @ position_ids (float32, autocast off),
    emb = cat(freqs, freqs) (half) or repeat_interleave(freqs, 2) (Cohere: interleaved),
    or freqs alone (gpt-oss: (n, d/2))."""
    inv = inv_freq[None, :, None].float()
    pos = torch.as_tensor(positions).to(pos_dtype)[None, None, :]
    freqs = (inv @ pos.float()).transpose(1, 2)[0]
    if layout == "half":
        emb = torch.cat((freqs, freqs), dim=-1)
    elif layout == "interleaved":
        emb = torch.repeat_interleave(freqs, 2, dim=-1)
    else:
        emb = freqs
    return emb.cos() * attention_scaling, emb.sin() * attention_scaling


# ----------------------------------------------------------------------------- vLLM
def vllm_inv_freq(base, rotary_dim):
    # RotaryEmbedding._compute_inv_freq
    return 1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float) / rotary_dim))


def vllm_cache(inv_freq, n, mscale=1.0):
    # RotaryEmbedding._compute_cos_sin_cache: t = arange(n, float); einsum; cos, sin (n, rotary_dim/2)
    t = torch.arange(n, dtype=torch.float)
    freqs = torch.einsum("i,j -> ij", t, inv_freq)
    return freqs.cos() * mscale, freqs.sin() * mscale


def vllm_yarn_inv_freq(base, rotary_dim, scaling_factor, orig, beta_fast=32, beta_slow=1, extrapolation_factor=1):
    # YaRNScalingRotaryEmbedding._compute_inv_freq
    def _yarn_find_correction_dim(num_rotations, dim, base=10000, max_position_embeddings=2048):
        return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    def _yarn_find_correction_range(low_rot, high_rot, dim, base, mpe):
        low = math.floor(_yarn_find_correction_dim(low_rot, dim, base, mpe))
        high = math.ceil(_yarn_find_correction_dim(high_rot, dim, base, mpe))
        return max(low, 0), min(high, dim - 1)

    def _yarn_linear_ramp_mask(low, high, dim, dtype):
        if low == high:
            high += 0.001
        linear_func = (torch.arange(dim, dtype=dtype) - low) / (high - low)
        return torch.clamp(linear_func, 0, 1)

    pos_freqs = base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float) / rotary_dim)
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (scaling_factor * pos_freqs)
    low, high = _yarn_find_correction_range(beta_fast, beta_slow, rotary_dim, base, orig)
    inv_freq_mask = (1 - _yarn_linear_ramp_mask(low, high, rotary_dim // 2, dtype=torch.float)) * extrapolation_factor
    return inv_freq_interpolation * (1 - inv_freq_mask) + inv_freq_extrapolation * inv_freq_mask


def vllm_llama3_inv_freq(base, rotary_dim, scaling_factor, lff, hff, orig):
    # Llama3RotaryEmbedding._compute_inv_freq
    inv_freqs = vllm_inv_freq(base, rotary_dim)
    low_freq_wavelen = orig / lff
    high_freq_wavelen = orig / hff
    wave_len = 2 * math.pi / inv_freqs
    smooth = (orig / wave_len - lff) / (hff - lff) if lff != hff else 0
    return torch.where(wave_len < high_freq_wavelen, inv_freqs,
                       torch.where(wave_len > low_freq_wavelen, inv_freqs / scaling_factor,
                                   (1 - smooth) * inv_freqs / scaling_factor + smooth * inv_freqs))


# ----------------------------------------------------------------------------- llama.cpp (ggml-cpu)
f32 = np.float32


def ggml_rope_yarn_corr_dim(n_dims, n_ctx_orig, n_rot, base):
    return f32(f32(n_dims) * f32(np.log(f32(f32(n_ctx_orig) / f32(f32(n_rot) * f32(2) * f32(math.pi)))))
               / f32(f32(2) * f32(np.log(f32(base)))))


def ggml_rope_yarn_corr_dims(n_dims, n_ctx_orig, base, beta_fast, beta_slow):
    start = np.floor(ggml_rope_yarn_corr_dim(n_dims, n_ctx_orig, beta_fast, base))
    end = np.ceil(ggml_rope_yarn_corr_dim(n_dims, n_ctx_orig, beta_slow, base))
    return f32(max(0, start)), f32(min(n_dims - 1, end))


def cosf(x):  # glibc cosf is correctly rounded in practice: binary64 cos rounded to binary32
    return np.cos(x.astype(np.float64)).astype(np.float32)


def sinf(x):
    return np.sin(x.astype(np.float64)).astype(np.float32)


def ggml_cache(positions, n_dims, base, freq_scale, ext_factor, attn_factor, corr_dims):
    """ggml_rope_cache_init + rope_yarn, row by row vectorised over positions, binary32."""
    theta_scale = f32(np.power(np.float64(base), np.float64(f32(-2.0) / f32(n_dims))))  # powf
    theta = np.asarray(positions, dtype=np.float32).copy()
    n = len(theta)
    cos = np.empty((n, n_dims // 2), np.float32)
    sin = np.empty((n, n_dims // 2), np.float32)
    freq_scale = f32(freq_scale)
    for i0 in range(0, n_dims, 2):
        theta_extrap = theta  # ff = 1
        theta_interp = (freq_scale * theta_extrap).astype(np.float32)
        th = theta_interp
        mscale = f32(attn_factor)
        if ext_factor != 0.0:
            y = f32(f32(i0 // 2) - corr_dims[0]) / f32(max(f32(0.001), f32(corr_dims[1] - corr_dims[0])))
            ramp = f32(1) - f32(min(f32(1), max(f32(0), f32(y))))
            ramp_mix = f32(ramp * f32(ext_factor))
            th = (theta_interp * f32(f32(1) - ramp_mix)).astype(np.float32) + (theta_extrap * ramp_mix).astype(np.float32)
            th = th.astype(np.float32)
            mscale = f32(mscale * f32(f32(1) + f32(f32(0.1) * f32(np.log(f32(f32(1) / freq_scale))))))
        cos[:, i0 // 2] = (cosf(th) * mscale).astype(np.float32)
        sin[:, i0 // 2] = (sinf(th) * mscale).astype(np.float32)
        theta = (theta * theta_scale).astype(np.float32)
    return cos, sin


# ----------------------------------------------------------------------------- sixth round: more libraries
def meta_llama3_freqs_cis(dim, end, theta, scale_factor=8, high_freq_factor=4):
    """Meta llama-models models/llama3/reference_impl/model.py: precompute_freqs_cis(dim, end, theta,
    use_scaled=True) with apply_scaling (low_freq_factor 1, old_context_len 8192; the first release
    hard-codes scale_factor 8 and high_freq_factor 4), torch.polar -> complex64 (end, dim/2)."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device, dtype=torch.float32)
    low_freq_factor, old_context_len = 1, 8192
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * torch.pi / freqs
    new_freqs = torch.where(wavelen > low_freq_wavelen, freqs / scale_factor, freqs)
    smooth = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    freqs = torch.where((wavelen >= high_freq_wavelen) & (wavelen <= low_freq_wavelen),
                        (1 - smooth) * new_freqs / scale_factor + smooth * new_freqs, new_freqs)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


def torchtune_llama3_1_cache(dim, max_seq_len, base):
    """torchtune torchtune/models/llama3_1/_position_embeddings.py: Llama3_1RotaryPositionalEmbeddings
    (_rope_init, apply_scaling's Python loop over 0-d float32 tensors with scale_factor = 8 hard-coded,
    build_rope_cache): cache (max_seq_len, dim/2, 2) = stack([cos, sin], -1)."""
    theta = 1.0 / (base ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    scale_factor, low_freq_factor, high_freq_factor, old_context_len = 8, 1, 4, 8192
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    new_freqs = []
    for freq in theta:
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            new_freqs.append(freq)
        elif wavelen > low_freq_wavelen:
            new_freqs.append(freq / scale_factor)
        else:
            smooth = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            new_freqs.append((1 - smooth) * freq / scale_factor + smooth * freq)
    theta = torch.tensor(new_freqs, dtype=theta.dtype)
    seq_idx = torch.arange(max_seq_len, dtype=theta.dtype)
    idx_theta = torch.einsum("i, j -> ij", seq_idx, theta).float()
    return torch.stack([torch.cos(idx_theta), torch.sin(idx_theta)], dim=-1)


def openai_gptoss_cos_sin(num_tokens, head_dim=64, base=150000.0, initial_context_length=4096,
                          scaling_factor=32.0, ntk_alpha=1.0, ntk_beta=32.0):
    """openai/gpt-oss gpt_oss/torch/model.py: RotaryEmbedding._compute_concentration_and_inv_freq
    (NTK by parts, no floor/ceil, concentration 0.1 ln s + 1) and _compute_cos_sin (n, head_dim/2)."""
    freq = base ** (torch.arange(0, head_dim, 2, dtype=torch.float) / head_dim)
    concentration = 0.1 * math.log(scaling_factor) + 1.0
    d_half = head_dim / 2
    low = d_half * math.log(initial_context_length / (ntk_beta * 2 * math.pi)) / math.log(base)
    high = d_half * math.log(initial_context_length / (ntk_alpha * 2 * math.pi)) / math.log(base)
    assert 0 < low < high < d_half - 1
    interpolation = 1.0 / (scaling_factor * freq)
    extrapolation = 1.0 / freq
    ramp = (torch.arange(d_half, dtype=torch.float32) - low) / (high - low)
    mask = 1 - ramp.clamp(0, 1)
    inv_freq = interpolation * (1 - mask) + extrapolation * mask
    t = torch.arange(num_tokens, dtype=torch.float32)
    freqs = torch.einsum("i,j->ij", t, inv_freq)
    return freqs.cos() * concentration, freqs.sin() * concentration


def vllm_dynamic_ntk_cache(base, rotary_dim, max_position_embeddings, scaling_factor):
    """vLLM DynamicNTKScalingRotaryEmbedding._compute_cos_sin_cache: ONE cache of
    max_position_embeddings * scaling_factor rows, its base computed for that length (static, not
    per sequence as HF's dynamic_rope_update)."""
    max_len = max_position_embeddings * scaling_factor
    base = base * ((scaling_factor * max_len / max_position_embeddings) - (scaling_factor - 1)) ** (
        rotary_dim / (rotary_dim - 2))
    return vllm_cache(vllm_inv_freq(base, rotary_dim), int(max_len))


def dsv3_precompute_freqs_cis(max_seq_len, dim=64, base=10000.0, factor=40, original_seq_len=4096,
                              beta_fast=32, beta_slow=1):
    """deepseek-ai/DeepSeek-V3 inference/model.py: precompute_freqs_cis (YaRN only when
    max_seq_len > original_seq_len; torch.polar complex64 (max_seq_len, dim/2))."""
    def find_correction_dim(num_rotations, dim, base, max_seq_len):
        return dim * math.log(max_seq_len / (num_rotations * 2 * math.pi)) / (2 * math.log(base))

    def find_correction_range(low_rot, high_rot, dim, base, max_seq_len):
        low = math.floor(find_correction_dim(low_rot, dim, base, max_seq_len))
        high = math.ceil(find_correction_dim(high_rot, dim, base, max_seq_len))
        return max(low, 0), min(high, dim - 1)

    def linear_ramp_factor(min, max, dim):
        if min == max:
            max += 0.001
        return torch.clamp((torch.arange(dim, dtype=torch.float32) - min) / (max - min), 0, 1)

    freqs = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    if max_seq_len > original_seq_len:
        low, high = find_correction_range(beta_fast, beta_slow, dim, base, original_seq_len)
        smooth = 1 - linear_ramp_factor(low, high, dim // 2)
        freqs = freqs / factor * (1 - smooth) + freqs * smooth
    t = torch.arange(max_seq_len)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


# ----------------------------------------------------------------------------- helpers
def to_bf16_f32(t):
    return torch.as_tensor(t).to(torch.bfloat16).to(torch.float32).numpy()


def to_bf16_bits(t):
    return torch.as_tensor(t).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)


def save(name, cos, sin, config, expect, cause_words=None, args=None, how=""):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    cos = cos.numpy() if isinstance(cos, torch.Tensor) else cos
    sin = sin.numpy() if isinstance(sin, torch.Tensor) else sin
    np.save(os.path.join(d, "cos.npy"), np.ascontiguousarray(cos))
    np.save(os.path.join(d, "sin.npy"), np.ascontiguousarray(sin))
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump({"expect": expect, "cause_words": cause_words or [], "args": args or [], "how": how,
                   "shape": list(cos.shape), "dtype": str(cos.dtype)}, f, indent=2)
    print(name, cos.shape, cos.dtype, expect, cause_words or "")


def main(only=None):
    def want(n):
        return only is None or n in only

    # ====================================================================== CORRECT
    if want("ok_llama2_f32"):
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(4096))
        save("ok_llama2_f32", c, s, LLAMA2, "pass", how="HF LlamaRotaryEmbedding default, 0..4095, (n,128) half, f32")
    if want("ok_llama2_vllm_64k_bf16bits"):
        c, s = vllm_cache(vllm_inv_freq(10000.0, 128), 65536)
        save("ok_llama2_vllm_64k_bf16bits", to_bf16_bits(c), to_bf16_bits(s), LLAMA2, "pass",
             args=["--dtype", "bf16"],
             how="vLLM RotaryEmbedding._compute_cos_sin_cache, 0..65535, (n,64), cast to bf16, saved as <u2 bits")
    if want("ok_llama31_32k_f32"):
        c, s = hf_forward(hf_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192), torch.arange(32768))
        save("ok_llama31_32k_f32", c, s, LLAMA31, "pass", how="HF _compute_llama3_parameters, 0..32767, (n,128) half")
    if want("ok_llama31_vllm_bf16"):
        c, s = vllm_cache(vllm_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192), 16384)
        save("ok_llama31_vllm_bf16", to_bf16_f32(c), to_bf16_f32(s), LLAMA31, "pass", args=["--dtype", "bf16"],
             how="vLLM Llama3RotaryEmbedding, 0..16383, (n,64), bf16 widened to f32")
    if want("ok_qwen25_yarn4_vllm_128k"):
        inv = vllm_yarn_inv_freq(1000000.0, 128, 4.0, 32768)
        c, s = vllm_cache(inv, 131072, mscale=get_mscale(4.0) * 1.0)
        save("ok_qwen25_yarn4_vllm_128k", c, s, QWEN25_YARN, "pass",
             how="vLLM YaRNScalingRotaryEmbedding (max_pos*factor = 131072 rows), (n,64), f32")
    if want("ok_qwen25_yarn4_hf_f32"):
        inv, af = hf_yarn(1000000.0, 128, 4.0, 32768)
        c, s = hf_forward(inv, torch.arange(8192), af)
        save("ok_qwen25_yarn4_hf_f32", c, s, QWEN25_YARN, "pass", how="HF _compute_yarn_parameters, 0..8191, (n,128)")
    if want("ok_dsv3_ggml_159744"):
        corr = ggml_rope_yarn_corr_dims(64, 4096, 10000.0, 32.0, 1.0)
        freq_scale = f32(1.0) / f32(40.0)
        attn = f32(f32(1.0) / f32(f32(1.0) + f32(f32(0.1) * f32(np.log(f32(f32(1.0) / freq_scale))))))
        c, s = ggml_cache(np.arange(159744, 163840), 64, 10000.0, freq_scale, 1.0, attn, corr)
        save("ok_dsv3_ggml_159744", c, s, DSV3, "pass", args=["--pos-start", "159744"],
             how="llama.cpp ggml_rope_cache_init/rope_yarn (cumulative theta*=theta_scale), deepseek2 attn_factor, rows 159744..163839, (n,32)")
    if want("ok_gptoss_hf"):
        inv, af = hf_yarn(150000.0, 64, 32.0, 4096, 32.0, 1.0, truncate=False)
        c, s = hf_forward(inv, torch.arange(16384), af, layout="none")
        save("ok_gptoss_hf", c, s, GPTOSS, "pass", how="HF yarn truncate=False, GptOssRotaryEmbedding (n,32), 0..16383")
    if want("ok_phi35_longrope"):
        fac = PHI35_FAC
        cfg = dict(PHI35, rope_scaling={"long_factor": fac["long_factor"], "short_factor": fac["short_factor"], "type": "longrope"})
        inv, af = hf_longrope(10000.0, 96, fac["long_factor"], 4096, 131072)
        c, s = hf_forward(inv, torch.arange(8192), af)
        save("ok_phi35_longrope", c, s, cfg, "pass", how="HF _compute_longrope_parameters, long factors (seq 8192 > 4096), (n,96)")
    if want("ok_gemma3_local_32k"):
        c, s = hf_forward(hf_default_inv_freq(10000.0, 256), torch.arange(32768))
        save("ok_gemma3_local_32k", c, s, GEMMA3_4B, "pass", args=["--layer-type", "sliding_attention"],
             how="Gemma3 rotary_emb_local: default, base rope_local_base_freq 10000, head_dim 256, 0..32767")
    if want("ok_gemma3_global_bf16"):
        c, s = hf_forward(hf_default_inv_freq(1000000.0, 256) / 8.0, torch.arange(8192))
        save("ok_gemma3_global_bf16", to_bf16_f32(c), to_bf16_f32(s), GEMMA3_4B, "pass", args=["--dtype", "bf16"],
             how="Gemma3 global rotary_emb: linear x8 base 1e6, bf16 widened")
    if want("ok_hunyuan_alpha_vllm"):
        base = 10000.0 * 1000.0 ** (128 / (128 - 2))
        c, s = vllm_cache(vllm_inv_freq(base, 128), 32768)
        save("ok_hunyuan_alpha_vllm", c, s, HUNYUAN, "pass",
             how="vLLM DynamicNTKAlphaRotaryEmbedding: base*alpha^(d/(d-2)), 0..32767, (n,64)")
    if want("ok_cohere2_bf16"):
        c, s = hf_forward(hf_default_inv_freq(50000.0, 128), torch.arange(8192), layout="interleaved")
        save("ok_cohere2_bf16", to_bf16_f32(c), to_bf16_f32(s), COHERE2, "pass", args=["--dtype", "bf16"],
             how="Cohere2RotaryEmbedding repeat_interleave (n,128), base 50000, cos.to(bfloat16) widened")
    if want("ok_phi2_partial"):
        c, s = hf_forward(hf_default_inv_freq(10000.0, 32), torch.arange(2048))
        save("ok_phi2_partial", c, s, PHI2, "pass", how="Phi-2 partial_rotary_factor 0.4: rotary dim 32 cache")

    # ====================================================================== BUGGY
    if want("bug_llama31_wrong_base"):
        c, s = hf_forward(hf_llama3_inv_freq(10000.0, 128, 8.0, 1.0, 4.0, 8192), torch.arange(8192))
        save("bug_llama31_wrong_base", c, s, LLAMA31, "fail", ["base"], how="llama3 schedule with base 10000 (rope_theta ignored)")
    if want("bug_llama31_factor_ignored"):
        c, s = hf_forward(hf_default_inv_freq(500000.0, 128), torch.arange(8192))
        save("bug_llama31_factor_ignored", c, s, LLAMA31, "fail", ["factor", "scaling", "default", "llama3"],
             how="rope_scaling ignored: default schedule base 500000")
    if want("bug_llama31_lowhigh_swapped"):
        c, s = hf_forward(hf_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192, swap=True), torch.arange(8192))
        save("bug_llama31_lowhigh_swapped", c, s, LLAMA31, "fail", ["band", "low_freq", "high_freq", "swap", "freq_factor"],
             how="low_freq_factor/high_freq_factor swapped")
    if want("bug_llama31_pi_approx_128k"):
        inv = hf_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192, pi=3.14159)
        c, s = hf_forward(inv, torch.arange(131072), layout="none")
        save("bug_llama31_pi_approx_128k", c, s, LLAMA31, "fail", ["band", "smooth", "ramp", "wavelength", "pi"],
             how="2*3.14159 for 2*pi in wavelen, 0..131071, (n,64)")
    if want("bug_qwen25_yarn_betas_swapped"):
        inv, af = hf_yarn(1000000.0, 128, 4.0, 32768, beta_fast=1, beta_slow=32)
        c, s = hf_forward(inv, torch.arange(8192), af)
        save("bug_qwen25_yarn_betas_swapped", c, s, QWEN25_YARN, "fail", ["ramp", "beta", "band"],
             how="beta_fast/beta_slow swapped")
    if want("bug_qwen25_yarn_no_attn_factor"):
        inv, af = hf_yarn(1000000.0, 128, 4.0, 32768)
        c, s = hf_forward(inv, torch.arange(8192), 1.0)
        save("bug_qwen25_yarn_no_attn_factor", c, s, QWEN25_YARN, "fail", ["attention factor", "mscale", "norm"],
             how="YaRN attention factor (mscale) not applied")
    if want("bug_dsv3_mscale_all_dim_ignored"):
        inv, af = hf_yarn(10000.0, 64, 40.0, 4096)  # mscale / mscale_all_dim not read -> get_mscale(40)
        c, s = hf_forward(inv, torch.arange(8192), af)
        save("bug_dsv3_mscale_all_dim_ignored", c, s, DSV3, "fail", ["attention factor", "mscale", "norm"],
             how="DeepSeek-V3: attention factor get_mscale(40)=1.369 instead of mscale/mscale_all_dim=1")
    if want("bug_llama2_bf16_positions"):
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(4096), pos_dtype=torch.bfloat16)
        save("bug_llama2_bf16_positions", c, s, LLAMA2, "fail", ["position", "bf16", "bfloat16"],
             how="position_ids cast to bfloat16 before the matmul")
    if want("bug_llama2_fp16_angles"):
        inv = hf_default_inv_freq(10000.0, 128)
        t = torch.arange(2048)
        freqs = (inv.half()[None, :] * t.half()[:, None])  # autocast fp16 outer product
        emb = torch.cat((freqs, freqs), -1)
        c, s = emb.float().cos(), emb.float().sin()
        save("bug_llama2_fp16_angles", c, s, LLAMA2, "fail", ["angle", "float16", "f16", "half", "precision"],
             how="inv_freq and positions in fp16 (autocast), angle fp16, cos/sin of it in f32")
    if want("bug_llama2_fp16_cos"):
        inv = hf_default_inv_freq(10000.0, 128)
        freqs = (inv[None, :] * torch.arange(2048).float()[:, None]).half()
        emb = torch.cat((freqs, freqs), -1)
        c, s = emb.float().cos().half().float(), emb.float().sin().half().float()  # CUDA half cos: fp32 math, fp16 result
        save("bug_llama2_fp16_cos", c, s, LLAMA2, "fail", ["angle", "float16", "f16", "half", "precision"],
             how="freqs cast to fp16 then cos/sin computed in fp16 (cos/sin in fp16)")
    if want("bug_phi2_partial_wrong_dim"):
        inv = hf_default_inv_freq(10000.0, 80)[:16]
        c, s = hf_forward(inv, torch.arange(2048))
        save("bug_phi2_partial_wrong_dim", c, s, PHI2, "fail", ["partial", "rotary dim"],
             how="partial rotary: frequencies of the head dim 80 (base^(-2i/80)), first 16 kept for the 32 rotary dims")
    if want("bug_cohere2_half_layout"):
        c, s = hf_forward(hf_default_inv_freq(50000.0, 128), torch.arange(4096), layout="half")
        save("bug_cohere2_half_layout", c, s, COHERE2, "fail", ["layout", "interleave", "half"],
             how="Command R7B (rope_gptj) cache built Llama-style cat(freqs,freqs)")
    if want("bug_llama31_off_by_one"):
        c, s = hf_forward(hf_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192), torch.arange(1, 8193))
        save("bug_llama31_off_by_one", c, s, LLAMA31, "fail", ["offset", "position", "pos-start", "p+1", "off-by-one"],
             how="positions 1..8192 instead of 0..8191")
    if want("bug_hunyuan_alpha_ignored"):
        c, s = vllm_cache(vllm_inv_freq(10000.0, 128), 8192)
        save("bug_hunyuan_alpha_ignored", c, s, HUNYUAN, "fail", ["alpha", "base", "NTK", "dynamic"],
             how="HunYuan alpha ignored: plain base 10000")
    if want("bug_phi35_short_long_swapped"):
        fac = PHI35_FAC
        cfg = dict(PHI35, rope_scaling={"long_factor": fac["long_factor"], "short_factor": fac["short_factor"], "type": "longrope"})
        inv, af = hf_longrope(10000.0, 96, fac["short_factor"], 4096, 131072)
        c, s = hf_forward(inv, torch.arange(8192), af)
        save("bug_phi35_short_long_swapped", c, s, cfg, "fail", ["short", "long", "swapped", "longrope"],
             how="short factors used at 8192 (> original 4096) positions")
    if want("bug_gemma3_local_global_base"):
        c, s = hf_forward(hf_default_inv_freq(1000000.0, 256), torch.arange(8192))
        save("bug_gemma3_local_global_base", c, s, GEMMA3_4B, "fail", ["base", "rope_local_base_freq", "layer"],
             args=["--layer-type", "sliding_attention"], how="local layer built with rope_theta 1e6 instead of rope_local_base_freq 10000")
    if want("bug_gptoss_truncate_ignored"):
        inv, af = hf_yarn(150000.0, 64, 32.0, 4096, 32.0, 1.0, truncate=True)
        c, s = hf_forward(inv, torch.arange(16384), af, layout="none")
        save("bug_gptoss_truncate_ignored", c, s, GPTOSS, "fail", ["ramp", "truncate", "band", "beta"],
             how="gpt-oss: truncate false ignored (ramp edges floored/ceiled)")
    if want("bug_dsv3_ggml_no_yarn_ramp"):
        corr = ggml_rope_yarn_corr_dims(64, 4096, 10000.0, 32.0, 1.0)
        freq_scale = f32(1.0) / f32(40.0)
        attn = f32(f32(1.0) / f32(f32(1.0) + f32(f32(0.1) * f32(np.log(f32(f32(1.0) / freq_scale))))))
        c, s = ggml_cache(np.arange(159744, 163840), 64, 10000.0, freq_scale, 0.0, 1.0, corr)
        save("bug_dsv3_ggml_no_yarn_ramp", c, s, DSV3, "fail", ["ramp", "extrapolat", "yarn", "band", "linear", "factor"],
             args=["--pos-start", "159744"],
             how="llama.cpp DeepSeek cache with ext_factor 0 (YaRN ramp off: plain linear interpolation x40 on every pair, attn_factor 1)")

    # ====================================================================== MORE (second round)
    if want("ok_dsv3_hf_32k"):
        inv, af = hf_yarn(10000.0, 64, 40.0, 4096, 32, 1, mscale=1.0, mscale_all_dim=1.0)
        c, s = hf_forward(inv, torch.arange(32768), af)
        save("ok_dsv3_hf_32k", c, s, DSV3, "pass", how="HF DeepseekV3RotaryEmbedding (yarn, mscale/mscale_all_dim = 1), cat(freqs,freqs) (n,64), 0..32767")
    if want("ok_llama2_ggml_520192"):
        c, s = ggml_cache(np.arange(520192, 524288), 128, 10000.0, 1.0, 0.0, 1.0, (f32(0), f32(0)))
        save("ok_llama2_ggml_520192", c, s, LLAMA2, "pass", args=["--pos-start", "520192"],
             how="llama.cpp ggml_rope_cache_init default (cumulative theta*=theta_scale), rows 520192..524287, (n,64)")
    if want("ok_gptoss_bf16bits"):
        inv, af = hf_yarn(150000.0, 64, 32.0, 4096, 32.0, 1.0, truncate=False)
        c, s = hf_forward(inv, torch.arange(32768), af, layout="none")
        save("ok_gptoss_bf16bits", to_bf16_bits(c), to_bf16_bits(s), GPTOSS, "pass", args=["--dtype", "bf16"],
             how="gpt-oss cache cast to bf16 (as the model's dtype), <u2 bits, 0..32767")
    if want("bug_llama2_interleaved_layout"):
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(4096), layout="interleaved")
        save("bug_llama2_interleaved_layout", c, s, LLAMA2, "fail", ["layout", "interleave", "half", "repeat_interleave"],
             how="Llama (rotate_half) cache built with repeat_interleave (GPT-J layout)")
    if want("bug_phi2_full_head_cache"):
        c, s = hf_forward(hf_default_inv_freq(10000.0, 80), torch.arange(2048))
        save("bug_phi2_full_head_cache", c, s, PHI2, "fail", ["partial", "rotary dim", "80", "32"],
             how="Phi-2: cache over the whole 80-dim head instead of the 32 rotary dims (partial_rotary_factor ignored)")
    if want("bug_dsv3_dim192"):
        inv, af = hf_yarn(10000.0, 192, 40.0, 4096, 32, 1, mscale=1.0, mscale_all_dim=1.0)
        c, s = hf_forward(inv[:32], torch.arange(8192), af)
        save("bug_dsv3_dim192", c, s, DSV3, "fail", ["partial", "rotary dim", "qk_rope_head_dim", "192"],
             how="DeepSeek-V3: yarn frequencies computed with dim = qk_nope+qk_rope = 192, first 32 kept for the 64-dim rope slice")
    if want("bug_qwen25_no_attn_bf16bits"):
        inv, af = hf_yarn(1000000.0, 128, 4.0, 32768)
        c, s = hf_forward(inv, torch.arange(32768), 1.0)
        save("bug_qwen25_no_attn_bf16bits", to_bf16_bits(c), to_bf16_bits(s), QWEN25_YARN, "fail",
             ["attention factor", "mscale", "norm"], args=["--dtype", "bf16"],
             how="YaRN attention factor dropped, cache in bf16 bits, 0..32767")
    if want("bug_dsv3_ggml_off_by_one"):
        corr = ggml_rope_yarn_corr_dims(64, 4096, 10000.0, 32.0, 1.0)
        freq_scale = f32(1.0) / f32(40.0)
        attn = f32(f32(1.0) / f32(f32(1.0) + f32(f32(0.1) * f32(np.log(f32(f32(1.0) / freq_scale))))))
        c, s = ggml_cache(np.arange(159745, 163841), 64, 10000.0, freq_scale, 1.0, attn, corr)
        save("bug_dsv3_ggml_off_by_one", c, s, DSV3, "fail", ["offset", "position", "pos-start", "p+1", "off-by-one"],
             args=["--pos-start", "159744"], how="llama.cpp DeepSeek cache whose rows are positions 159745..163840 (off by one), user says 159744")
    if want("bug_hunyuan_alpha_no_exponent"):
        c, s = vllm_cache(vllm_inv_freq(10000.0 * 1000.0, 128), 32768)
        save("bug_hunyuan_alpha_no_exponent", c, s, HUNYUAN, "fail", ["alpha", "base", "NTK"],
             how="HunYuan: base*alpha (1e7) without the dim/(dim-2) exponent (11158839.9)")
    if want("bug_llama2_sin_sign"):
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(4096))
        save("bug_llama2_sin_sign", c, -s, LLAMA2, "fail", ["sign", "wrong way", "negative", "direction"],
             how="sin negated (ggml sin_sign -1 / backward rotation)")
    if want("bug_gemma3_global_factor_ignored_bf16"):
        c, s = hf_forward(hf_default_inv_freq(1000000.0, 256), torch.arange(8192))
        save("bug_gemma3_global_factor_ignored_bf16", to_bf16_f32(c), to_bf16_f32(s), GEMMA3_4B, "fail",
             ["factor", "linear", "scaling"], args=["--dtype", "bf16"], how="Gemma3 global layer without linear x8, bf16 widened")
    if want("bug_cohere2_default_base"):
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(8192), layout="interleaved")
        save("bug_cohere2_default_base", c, s, COHERE2, "fail", ["base"],
             how="Command R7B cache with default base 10000 instead of rope_theta 50000")
    if want("usage_gemma3_local_no_layer_type"):
        c, s = hf_forward(hf_default_inv_freq(10000.0, 256), torch.arange(4096))
        save("usage_gemma3_local_no_layer_type", c, s, GEMMA3_4B, "fail", ["layer-type", "sliding_attention", "layer type"],
             how="correct local-layer cache, user forgot --layer-type sliding_attention")
    if want("usage_dsv3_ggml_no_pos_start"):
        corr = ggml_rope_yarn_corr_dims(64, 4096, 10000.0, 32.0, 1.0)
        freq_scale = f32(1.0) / f32(40.0)
        attn = f32(f32(1.0) / f32(f32(1.0) + f32(f32(0.1) * f32(np.log(f32(f32(1.0) / freq_scale))))))
        c, s = ggml_cache(np.arange(159744, 163840), 64, 10000.0, freq_scale, 1.0, attn, corr)
        save("usage_dsv3_ggml_no_pos_start", c, s, DSV3, "fail", ["pos-start", "159744", "offset", "position"],
             how="correct llama.cpp DeepSeek cache at 159744.., user forgot --pos-start")

    # ====================================================================== MORE (third round)
    if want("ok_llama2_f16_native"):
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(4096))
        save("ok_llama2_f16_native", c.half().numpy(), s.half().numpy(), LLAMA2, "pass",
             how="HF default cache cast to float16 (model dtype), saved as <f2")
    if want("usage_llama31_bf16_no_dtype"):
        c, s = vllm_cache(vllm_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192), 16384)
        save("usage_llama31_bf16_no_dtype", to_bf16_f32(c), to_bf16_f32(s), LLAMA31, "fail", ["bf16", "bfloat16", "--dtype"],
             how="correct bf16-widened cache (as ok_llama31_vllm_bf16), user forgot --dtype bf16")
    if want("bug_dsv3_ggml_wrong_orig_ctx"):
        corr = ggml_rope_yarn_corr_dims(64, 163840, 10000.0, 32.0, 1.0)
        freq_scale = f32(1.0) / f32(40.0)
        attn = f32(f32(1.0) / f32(f32(1.0) + f32(f32(0.1) * f32(np.log(f32(f32(1.0) / freq_scale))))))
        c, s = ggml_cache(np.arange(159744, 163840), 64, 10000.0, freq_scale, 1.0, attn, corr)
        save("bug_dsv3_ggml_wrong_orig_ctx", c, s, DSV3, "fail", ["original length", "ramp", "band", "n_ctx_orig"],
             args=["--pos-start", "159744"], how="llama.cpp DeepSeek cache with n_ctx_orig = 163840 (context length) instead of 4096 in ggml_rope_yarn_corr_dims")
    if want("bug_qwen25_yarn_factor_from_lengths"):
        # transformers 4.45..4.55: factor replaced by max_position_embeddings / original = 1 -> no-op YaRN
        inv, af = hf_yarn(1000000.0, 128, 32768 / 32768, 32768)
        c, s = hf_forward(inv, torch.arange(8192), af)
        save("bug_qwen25_yarn_factor_from_lengths", c, s, QWEN25_YARN, "fail", ["factor", "scaling", "attention factor"],
             how="YaRN factor taken as max_position_embeddings/original = 1 (some transformers releases): default base 1e6, A = 1")

    # ====================================================================== MORE (fourth round)
    if want("ok_llama31_1M"):
        c, s = hf_forward(hf_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192), torch.arange(1048576 - 8192, 1048576))
        save("ok_llama31_1M", c, s, LLAMA31, "pass", args=["--pos-start", str(1048576 - 8192)],
             how="HF llama3 cache (float32 positions and matmul), rows 1040384..1048575")
    if want("ok_llama31_f64"):
        inv = hf_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192).double()
        base = torch.tensor(500000.0, dtype=torch.float64)
        g = 1.0 / base ** (torch.arange(0, 128, 2, dtype=torch.float64) / 128)
        wl = 2 * math.pi / g
        sm = ((8192 / wl - 1.0) / 3.0).clamp(0, 1)
        inv = g * ((1 - sm) / 8.0 + sm)
        pos = torch.arange(32768, dtype=torch.float64)
        fr = pos[:, None] * inv[None, :]
        emb = torch.cat((fr, fr), -1)
        save("ok_llama31_f64", emb.cos().float(), emb.sin().float(), LLAMA31, "pass",
             how="llama3 schedule computed entirely in float64, cos/sin rounded once to float32 (more accurate than HF)")
    if want("bug_llama2_invfreq_bf16"):
        inv = hf_default_inv_freq(10000.0, 128).to(torch.bfloat16).float()
        c, s = hf_forward(inv, torch.arange(4096))
        save("bug_llama2_invfreq_bf16", c, s, LLAMA2, "fail", ["frequenc", "inv_freq", "bf16", "bfloat16"],
             how="inv_freq buffer cast to bfloat16 by model.to(bfloat16), angle then in float32")

    # ====================================================================== MORE (fifth round)
    if want("bug_llama31_tf32_matmul"):
        # torch.set_float32_matmul_precision("high") on Ampere+: HF's inv_freq @ position_ids runs in TF32:
        # both inputs rounded to 11 significant bits (cvt.rna.tf32.f32: nearest, ties away), product exact in fp32
        def rna_tf32(x):
            b = x.numpy().astype(np.float32).view(np.uint32).astype(np.uint64)
            b = ((b + 0x1000) & 0xFFFFE000).astype(np.uint32)
            return torch.from_numpy(b.view(np.float32))
        inv = rna_tf32(hf_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192))
        pos = rna_tf32(torch.arange(32768, dtype=torch.float32))
        freqs = pos[:, None] * inv[None, :]
        emb = torch.cat((freqs, freqs), -1)
        save("bug_llama31_tf32_matmul", emb.cos(), emb.sin(), LLAMA31, "fail", ["tf32", "precision", "position", "frequenc"],
             how="HF llama3 cache with the inv_freq @ position_ids matmul in TF32 (set_float32_matmul_precision('high')), 0..32767")


    # ====================================================================== MORE (sixth round)
    # each from the library's own code (the functions above name the file); cause words fixed here,
    # before pecheck ran on the case
    if want("ok_llama31_meta_polar"):
        # llama-models Transformer: precompute_freqs_cis(dim // n_heads, max_seq_len * 2, rope_theta,
        # use_scaled_rope); freqs_cis.real / .imag are the (n, d/2) cos and sin
        fc = meta_llama3_freqs_cis(128, 16384, 500000.0)
        save("ok_llama31_meta_polar", fc.real.contiguous(), fc.imag.contiguous(), LLAMA31, "pass",
             how="Meta llama-models precompute_freqs_cis(use_scaled=True) + apply_scaling, torch.polar complex64 .real/.imag, 0..16383, (n,64)")
    if want("ok_gptoss_openai_ref"):
        c, s = openai_gptoss_cos_sin(8192)
        save("ok_gptoss_openai_ref", c, s, GPTOSS, "pass",
             how="openai/gpt-oss torch/model.py RotaryEmbedding (NTK by parts, concentration), 0..8191, (n,32)")
    if want("ok_llama2_dynamic_vllm_8k"):
        c, s = vllm_dynamic_ntk_cache(10000.0, 128, 4096, 2.0)
        save("ok_llama2_dynamic_vllm_8k", c, s, LLAMA2_DYN, "pass",
             how="vLLM DynamicNTKScalingRotaryEmbedding: its whole cache of 4096*2 rows, base for length 8192 (= HF dynamic at seq 8192)")
    if want("ok_qwen3_ggml_yarn"):
        # llama.cpp with --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768 (Qwen3's model card):
        # freq_scale 1/4, ext_factor 1 (yarn), attn_factor 1, rope_yarn's mscale 1 + 0.1 ln 4
        corr = ggml_rope_yarn_corr_dims(128, 32768, 1000000.0, 32.0, 1.0)
        c, s = ggml_cache(np.arange(16384), 128, 1000000.0, f32(1.0) / f32(4.0), 1.0, 1.0, corr)
        save("ok_qwen3_ggml_yarn", c, s, QWEN3_YARN, "pass",
             how="llama.cpp ggml rope_yarn, Qwen3 YaRN x4 with n_ctx_orig 32768 (--yarn-orig-ctx), 0..16383, (n,64)")

    if want("bug_llama32_hardcoded_factor8"):
        # torchtune's Llama3_1RotaryPositionalEmbeddings (and llama-models' first apply_scaling) hard-code
        # scale_factor = 8: reused for Llama 3.2 1B/3B, whose config says factor 32
        cache = torchtune_llama3_1_cache(128, 16384, 500000.0)
        save("bug_llama32_hardcoded_factor8", cache[..., 0].contiguous(), cache[..., 1].contiguous(), LLAMA32_3B, "fail",
             ["factor", "scaling", "32"],
             how="Llama-3.2-3B (factor 32) cache built by torchtune's Llama 3.1 RoPE, scale_factor 8 hard-coded, 0..16383, (n,64)")
    if want("bug_gemma3_linear_twice"):
        # transformers' legacy *LinearScalingRotaryEmbedding.forward divides position_ids by the factor; combined
        # with rope_init_fn linear (inv_freq / factor) in a port: the factor applied twice (x64)
        inv = hf_default_inv_freq(1000000.0, 256) / 8.0
        c, s = hf_forward(inv, torch.arange(8192).float() / 8.0)
        save("bug_gemma3_linear_twice", c, s, GEMMA3_4B, "fail", ["twice", "64", "factor", "linear", "scaling"],
             how="Gemma3 global layer: linear x8 applied to inv_freq AND to position_ids (legacy LinearScaling forward): x64")
    if want("bug_gemma3_local_scaled"):
        # vLLM gemma3.py / llama.cpp guard this (sliding layers: rope_local_base_freq, no scaling);
        # a port that passes config.rope_scaling to both rotary embeddings scales the local layers too
        c, s = hf_forward(hf_default_inv_freq(10000.0, 256) / 8.0, torch.arange(8192))
        save("bug_gemma3_local_scaled", c, s, GEMMA3_4B, "fail", ["factor", "linear", "scaling", "layer"],
             args=["--layer-type", "sliding_attention"],
             how="Gemma3 local (sliding) layer given the global layers' linear x8 (base 10000 / 8)")
    if want("bug_llama2_32k_ggml_freq_scale_inverted"):
        # llama.cpp: --rope-freq-scale N expands the context by 1/N, --rope-scale N by N; the user passes
        # --rope-freq-scale 8 for a linear x8 model: ggml freq_scale 8 instead of 1/8
        c, s = ggml_cache(np.arange(8192), 128, 10000.0, 8.0, 0.0, 1.0, (f32(0), f32(0)))
        save("bug_llama2_32k_ggml_freq_scale_inverted", c, s, LLAMA2_32K, "fail",
             ["inverse", "reciprocal", "1/", "freq_scale", "factor"],
             how="llama.cpp linear x8 model (LLaMA-2-7B-32K) run with --rope-freq-scale 8 (freq_scale 8, not 1/8), 0..8191, (n,64)")
    if want("bug_llama31_chunk_positions_restart"):
        # chunked prefill with position_ids = arange(chunk_len) for every chunk (cache_position not used)
        c, s = hf_forward(hf_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192), torch.arange(8192) % 2048)
        save("bug_llama31_chunk_positions_restart", c, s, LLAMA31, "fail",
             ["repeat", "restart", "chunk", "period", "modulo", "wrap", "2048"],
             how="HF llama3 cache over 4 prefill chunks of 2048 whose position_ids restart at 0 (rows = p mod 2048)")
    if want("bug_qwen3_ggml_yarn_orig_ctx"):
        # llama.cpp: n_ctx_orig_yarn defaults to n_ctx_train (40960 for Qwen3) unless the GGUF has
        # rope.scaling.original_context_length or the user passes --yarn-orig-ctx 32768
        corr = ggml_rope_yarn_corr_dims(128, 40960, 1000000.0, 32.0, 1.0)
        c, s = ggml_cache(np.arange(16384), 128, 1000000.0, f32(1.0) / f32(4.0), 1.0, 1.0, corr)
        save("bug_qwen3_ggml_yarn_orig_ctx", c, s, QWEN3_YARN, "fail", ["original", "ramp", "band", "n_ctx_orig"],
             how="llama.cpp Qwen3 YaRN x4 without --yarn-orig-ctx: n_ctx_orig = n_ctx_train 40960, not 32768")
    if want("bug_llama2_dynamic_vllm_static"):
        # vLLM's dynamic NTK cache is built once for max_len = 8192; its first 4096 rows serve a 4096-token
        # sequence, where HF's dynamic NTK (seq_len <= max_position_embeddings) keeps base 10000
        c, s = vllm_dynamic_ntk_cache(10000.0, 128, 4096, 2.0)
        save("bug_llama2_dynamic_vllm_static", c[:4096], s[:4096], LLAMA2_DYN, "fail",
             ["seq-len", "seq_len", "sequence length", "dynamic", "length"],
             how="vLLM DynamicNTKScalingRotaryEmbedding cache (base for length 8192) used for a 4096-token sequence (HF: base 10000)")
    if want("bug_phi35_factors_switch_mid_cache"):
        # HF Phi3LongRoPEScaledRotaryEmbedding picks the factors from max(position_ids) + 1 per forward:
        # the prompt (0..4095) is rotated with short factors, the decode steps past 4096 with long ones
        fac = PHI35_FAC
        cfg = dict(PHI35, rope_scaling={"long_factor": fac["long_factor"], "short_factor": fac["short_factor"], "type": "longrope"})
        inv_s, af = hf_longrope(10000.0, 96, fac["short_factor"], 4096, 131072)
        inv_l, af = hf_longrope(10000.0, 96, fac["long_factor"], 4096, 131072)
        c0, s0 = hf_forward(inv_s, torch.arange(4096), af)
        c1, s1 = hf_forward(inv_l, torch.arange(4096, 8192), af)
        save("bug_phi35_factors_switch_mid_cache", torch.cat((c0, c1)), torch.cat((s0, s1)), cfg, "fail",
             ["short", "long", "longrope", "mixed", "switch"],
             how="Phi-3.5 keys of a generation: prompt rows 0..4095 with short factors, decode rows 4096..8191 with long")
    if want("bug_qwen25_yarn_mscale_cos_only"):
        # a port of LlamaRotaryEmbedding.forward / vLLM YaRN's _compute_cos_sin_cache multiplying only one of the two
        inv, af = hf_yarn(1000000.0, 128, 4.0, 32768)
        c, s = hf_forward(inv, torch.arange(8192), 1.0)
        save("bug_qwen25_yarn_mscale_cos_only", c * af, s, QWEN25_YARN, "fail",
             ["attention factor", "mscale", "only", "amplitude", "norm"],
             how="Qwen2.5 YaRN x4: attention factor 1.1386 multiplied into cos but not sin")
    if want("bug_llama31_vllm_cos_sin_swapped"):
        # vLLM's cos_sin_cache is cat((cos, sin), -1); a custom kernel unpacks it as sin, cos = cache.chunk(2, -1)
        c, s = vllm_cache(vllm_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192), 8192)
        save("bug_llama31_vllm_cos_sin_swapped", s, c, LLAMA31, "fail", ["swap", "sin and cos", "cos and sin"],
             how="vLLM Llama3RotaryEmbedding cos_sin_cache unpacked in the wrong order (sin, cos = chunk(2))")
    if want("bug_cohere2_interleaved_sliced_half"):
        # Cohere2RotaryEmbedding's (n, 128) repeat_interleave cache cut to the (n, d/2) one-value-per-pair form
        # (vLLM / flash-attn) with [..., :64] (right for cat(freqs, freqs), wrong here: [..., ::2])
        c, s = hf_forward(hf_default_inv_freq(50000.0, 128), torch.arange(4096), layout="interleaved")
        save("bug_cohere2_interleaved_sliced_half", c[:, :64].contiguous(), s[:, :64].contiguous(), COHERE2, "fail",
             ["layout", "interleave", "repeat", "duplicate", "slice", "::2"],
             how="Command R7B repeat_interleave cache reduced to (n,64) with [..., :64]: pairs 0,0,1,1,..,31,31")
    if want("bug_dsv3_inference_short_max_seq_len"):
        # DeepSeek-V3 inference precompute_freqs_cis applies YaRN only when max_seq_len > original_seq_len:
        # run with max_seq_len 4096, the model gets plain base-10000 frequencies
        fc = dsv3_precompute_freqs_cis(4096)
        save("bug_dsv3_inference_short_max_seq_len", fc.real.contiguous(), fc.imag.contiguous(), DSV3, "fail",
             ["factor", "scaling", "yarn", "default"],
             how="DeepSeek-V3 inference precompute_freqs_cis with max_seq_len 4096 (<= original_seq_len): YaRN skipped, (n,32)")

    # ====================================================================== MORE (seventh round)
    # each from the library's own code (the function named in each comment); the cause words were fixed
    # here, and committed, before pecheck ran on the case
    phi35 = dict(PHI35, rope_scaling={"long_factor": PHI35_FAC["long_factor"],
                                      "short_factor": PHI35_FAC["short_factor"], "type": "longrope"})
    llama31_inv = hf_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192)
    # --- correct
    if want("ok_llama31_torchtune_32k"):
        cache = torchtune_llama3_1_cache(128, 32768, 500000.0)
        save("ok_llama31_torchtune_32k", cache[..., 0].contiguous(), cache[..., 1].contiguous(), LLAMA31, "pass",
             how="torchtune Llama3_1RotaryPositionalEmbeddings (apply_scaling loop, scale_factor 8), 0..32767, (n,64)")
    if want("ok_qwen25_flash_attn_f16"):
        c, s = flash_attn_cos_sin(128, 1000000.0, 32768, torch.float16)
        save("ok_qwen25_flash_attn_f16", c, s, QWEN25, "pass",
             how="flash-attn RotaryEmbedding._update_cos_sin_cache(32768, dtype=float16), base 1e6: cos(freqs).to(f16), <f2, (n,64)")
    if want("ok_phi35_vllm_long_16k"):
        cache = vllm_phi3_long_short_cache(96, PHI35_FAC, 4096, 131072)
        rows = cache[torch.arange(16384) + 4096]  # forward with use_long_rope: idx = positions + original
        save("ok_phi35_vllm_long_16k", rows[:, :48].contiguous(), rows[:, 48:].contiguous(), phi35, "pass",
             how="vLLM Phi3LongRoPEScaledRotaryEmbedding (use_long_rope: idx = positions + 4096 into long_short cache), 0..16383, (n,48)")
    if want("ok_llama31_ggml_rope_freqs_65536"):
        ff = gguf_llama3_rope_freqs(500000.0, 128)
        c, s = ggml_cache_ff(np.arange(65536, 65536 + 8192), 128, 500000.0, ff)
        save("ok_llama31_ggml_rope_freqs_65536", c, s, LLAMA31, "pass", args=["--pos-start", "65536"],
             how="llama.cpp: convert_hf_to_gguf rope_freqs (llama3) + ggml_rope_cache_init theta/ff, rows 65536..73727, (n,64)")
    if want("ok_dsv3_inference_16k"):
        fc = dsv3_precompute_freqs_cis(16384)
        save("ok_dsv3_inference_16k", fc.real.contiguous(), fc.imag.contiguous(), DSV3, "pass",
             how="DeepSeek-V3 inference precompute_freqs_cis(max_seq_len 16384 > 4096: YaRN ramp, no mscale in the cache), (n,32)")
    if want("ok_llama31_mlx_periods"):
        c, s = mlx_fast_rope_cos_sin(mlx_llama3_periods(500000.0, 128), np.arange(32768))
        save("ok_llama31_mlx_periods", c, s, LLAMA31, "pass",
             how="mlx-lm Llama3RoPE periods (freqs = base^(2i/d), x factor) through mx.fast.rope emulated (theta = p / period), 0..32767, (n,64)")

    # --- bugs
    if want("bug_qwen25_yarn_mscale_twice"):
        # a port loading vLLM's YaRN cos_sin_cache (already x mscale) into an HF-style forward that
        # multiplies by attention_scaling again
        c, s = vllm_cache(vllm_yarn_inv_freq(1000000.0, 128, 4.0, 32768), 32768, mscale=get_mscale(4.0))
        af = get_mscale(4.0)
        save("bug_qwen25_yarn_mscale_twice", c * af, s * af, QWEN25_YARN, "fail",
             ["attention factor", "mscale", "twice", "squared", "norm"],
             how="Qwen2.5 YaRN x4: vLLM cache (x mscale 1.1386) multiplied again by HF's attention_scaling: norm 1.2964")
    if want("bug_llama31_band_edge_high_wavelen"):
        inv = hf_llama3_variant(500000.0, 128, 8.0, 1.0, 4.0, 8192, first_edge_high=True)
        c, s = hf_forward(inv, torch.arange(32768))
        save("bug_llama31_band_edge_high_wavelen", c, s, LLAMA31, "fail",
             ["band", "wavelength", "smooth", "high_freq", "low_freq", "ramp"],
             how="_compute_llama3_parameters with where(wavelen > high_freq_wavelen, inv/factor, inv): the band divided twice")
    if want("bug_phi35_vllm_longrope_boundary"):
        # vLLM <= 0.9 Phi3LongRoPEScaledRotaryEmbedding.forward: long_prompt_offset = any(positions > 4096) * 4096;
        # a prefill of 4097 tokens (0..4096) stays on the short cache, and row 4096 indexes the long cache's row 0.
        # HF (max(position_ids) + 1 = 4097 > 4096) uses the long factors for all of them
        cache = vllm_phi3_long_short_cache(96, PHI35_FAC, 4096, 131072)
        pos = torch.arange(4097)
        off = (torch.any(pos > 4096).float() * torch.full_like(pos, 4096)).long()
        rows = torch.index_select(cache, 0, pos + off)
        save("bug_phi35_vllm_longrope_boundary", rows[:, :48].contiguous(), rows[:, 48:].contiguous(), phi35, "fail",
             ["short", "long", "longrope", "4096", "4097", "boundary", "seq-len"],
             how="vLLM (old) LongRoPE: any(positions > 4096) for a 4097-token prompt: short factors, row 4096 = long row 0 (HF: long)")
    if want("bug_llama2_dynamic_chunk_seq_len"):
        # dynamic NTK whose seq_len is the forward's token count (x.shape[-2]): the last prefill chunk of 4096
        # tokens (positions 12288..16383) keeps base 10000; HF's is that of max(position_ids) + 1 = 16384
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(12288, 16384))
        save("bug_llama2_dynamic_chunk_seq_len", c, s, LLAMA2_DYN, "fail",
             ["seq-len", "seq_len", "sequence length", "dynamic", "length"], args=["--pos-start", "12288"],
             how="Llama-2 dynamic x2: chunk 12288..16383 with seq_len = chunk size 4096 (no NTK), HF: base for 16384")
    if want("bug_qwen25_yarn_ramp_reversed"):
        inv, af = hf_yarn_variant(1000000.0, 128, 4.0, 32768, ramp_reversed=True)
        c, s = hf_forward(inv, torch.arange(32768), af)
        save("bug_qwen25_yarn_ramp_reversed", c, s, QWEN25_YARN, "fail",
             ["ramp", "reversed", "inverted", "band", "extrapolat", "interpolat"],
             how="Qwen2.5 YaRN x4 with inv_freq_extrapolation_factor = ramp (not 1 - ramp): high pairs interpolated, low extrapolated")
    if want("bug_qwen25_cache_tiled"):
        # a cache built for max_position_embeddings 32768, extended to 65536 rows with torch.cat((cache, cache))
        c, s = vllm_cache(vllm_inv_freq(1000000.0, 128), 32768)
        save("bug_qwen25_cache_tiled", torch.cat((c, c)), torch.cat((s, s)), QWEN25, "fail",
             ["repeat", "period", "tile", "wrap", "modulo", "32768", "restart"],
             how="Qwen2.5 (base 1e6) vLLM cache of 32768 rows extended to 65536 by cat((cache, cache))")
    if want("bug_llama31_jax_gather_clamp"):
        # a JAX port indexing a 16384-row table with positions past its end: jnp indexing clamps the index
        c, s = hf_forward(llama31_inv, torch.arange(16384))
        idx = torch.clamp(torch.arange(24576), max=16383)
        save("bug_llama31_jax_gather_clamp", c[idx], s[idx], LLAMA31, "fail",
             ["clamp", "last row", "past the end", "beyond", "out of range", "constant", "same row", "16383"],
             how="Llama-3.1 cache of 16384 rows read at positions 0..24575 with a clamped gather: rows 16384.. = row 16383")
    if want("bug_llama31_invfreq_f16_subnormal"):
        # model.half() on a module whose inv_freq buffer is persistent: inv_freq in float16 (base 500000: the
        # low pairs are float16 subnormals), the matmul in float32 again
        c, s = hf_forward(llama31_inv.half().float(), torch.arange(32768))
        save("bug_llama31_invfreq_f16_subnormal", c, s, LLAMA31, "fail", ["inv_freq", "float16", "f16"],
             how="Llama-3.1 inv_freq held in float16 (subnormal for the low-frequency pairs), 0..32767")
    if want("bug_llama2_arange_no_step"):
        # inv_freq = 1/base**(arange(0, dim)/dim): dim frequencies, and emb = freqs (no cat): the shape fits
        inv = 1.0 / (10000.0 ** (torch.arange(0, 128).float() / 128))
        freqs = torch.outer(torch.arange(16384).float(), inv)
        save("bug_llama2_arange_no_step", freqs.cos(), freqs.sin(), LLAMA2, "fail",
             ["arange", "256", "2i", "exponent", "step"],
             how="Llama-2: inv_freq from arange(0, 128) (not arange(0, 128, 2)), (n,128) cos/sin without cat, 0..16383")
    if want("bug_llama31_decode_left_pad_offset"):
        # batched decode with 37 left-pad tokens: position_ids from cache_position (pads counted) instead of
        # attention_mask.cumsum(-1) - 1: every row 37 positions ahead
        c, s = hf_forward(llama31_inv, torch.arange(65536 + 37, 65536 + 37 + 8192))
        save("bug_llama31_decode_left_pad_offset", c, s, LLAMA31, "fail", ["offset", "position", "pos-start", "37", "pad"],
             args=["--pos-start", "65536"],
             how="Llama-3.1 decode rows 65536..73727 rotated at p+37 (left padding counted in cache_position)")
    if want("bug_phi35_attn_factor_sin_only"):
        inv, af = hf_longrope(10000.0, 96, PHI35_FAC["long_factor"], 4096, 131072)
        c, s = hf_forward(inv, torch.arange(16384), 1.0)
        save("bug_phi35_attn_factor_sin_only", c, s * af, phi35, "fail",
             ["attention factor", "mscale", "only", "amplitude", "norm"],
             how="Phi-3.5 LongRoPE long factors: attention factor 1.19 multiplied into sin only, 0..16383")
    if want("bug_llama2_cos_half_sin_interleaved"):
        # a conversion to Meta's interleaved pairs that permuted sin but not cos
        ch, _ = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(8192), layout="half")
        _, si = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(8192), layout="interleaved")
        save("bug_llama2_cos_half_sin_interleaved", ch, si, LLAMA2, "fail", ["layout", "interleave", "mixed", "half"],
             how="Llama-2: cos in cat(freqs,freqs) layout, sin in repeat_interleave layout, (n,128)")
    if want("bug_qwen25_yarn_no_2pi_correction_dim"):
        inv, af = hf_yarn_variant(1000000.0, 128, 4.0, 32768, no_2pi=True)
        c, s = hf_forward(inv, torch.arange(32768), af)
        save("bug_qwen25_yarn_no_2pi_correction_dim", c, s, QWEN25_YARN, "fail",
             ["ramp", "band", "correction", "beta", "2pi", "2 pi"],
             how="Qwen2.5 YaRN x4: find_correction_dim without 2*pi (ramp edges moved 9 pairs)")
    if want("bug_llama31_wavelen_no_2pi"):
        inv = hf_llama3_variant(500000.0, 128, 8.0, 1.0, 4.0, 8192, no_2pi=True)
        c, s = hf_forward(inv, torch.arange(32768))
        save("bug_llama31_wavelen_no_2pi", c, s, LLAMA31, "fail", ["band", "wavelength", "2pi", "2 pi", "ramp", "smooth"],
             how="Llama-3.1 llama3 with wavelen = 1/inv_freq (2*pi left out): the band moved")
    if want("bug_qwen25_flash_attn_offset_twice"):
        # flash-attn decode: cos_cached[offset:offset+n] sliced AND seqlen_offsets=offset passed to apply_rotary:
        # the kernel reads row offset+i of the slice, position 2*offset+i
        c, s = flash_attn_cos_sin(128, 1000000.0, 32768 + 4096)
        save("bug_qwen25_flash_attn_offset_twice", c[32768:], s[32768:], QWEN25, "fail",
             ["offset", "position", "pos-start", "twice", "32768"], args=["--pos-start", "16384"],
             how="Qwen2.5 flash-attn cache rows for decode at 16384..20479 hold 32768..36863 (seqlen_offsets added to a sliced cache)")
    if want("bug_qwen25_cos_via_sin_shift"):
        # cos computed as sin(theta + pi/2) in float32 (one transcendental kernel): the sum rounds theta
        freqs = torch.outer(torch.arange(32768).float(), vllm_inv_freq(1000000.0, 128))
        c = torch.sin(freqs + math.pi / 2)
        save("bug_qwen25_cos_via_sin_shift", c, freqs.sin(), QWEN25, "fail", ["inexact", "evaluat", "pi/2", "shift"],
             how="Qwen2.5: cos = sin(freqs + pi/2) in float32 (the addition rounds the angle), 0..32767, (n,64)")
    if want("bug_llama31_rope_theta_bf16"):
        # rope_theta held as a bfloat16 tensor (torch.tensor(config.rope_theta, dtype=model dtype)): 499712
        base = float(torch.tensor(500000.0).to(torch.bfloat16))
        c, s = hf_forward(hf_llama3_inv_freq(base, 128, 8.0, 1.0, 4.0, 8192), torch.arange(32768))
        save("bug_llama31_rope_theta_bf16", c, s, LLAMA31, "fail", ["base", "bf16", "bfloat16", "499712", "rope_theta"],
             how="Llama-3.1 llama3 schedule with rope_theta rounded to bfloat16 (499712), 0..32767")
    if want("bug_phi35_longrope_yarn_mscale"):
        # LongRoPE with YaRN's attention factor 0.1 ln s + 1 (1.3466) instead of sqrt(1 + ln s / ln L0) (1.1902)
        inv, af = hf_longrope(10000.0, 96, PHI35_FAC["long_factor"], 4096, 131072)
        c, s = hf_forward(inv, torch.arange(16384), get_mscale(131072 / 4096))
        save("bug_phi35_longrope_yarn_mscale", c, s, phi35, "fail", ["attention factor", "mscale", "norm"],
             how="Phi-3.5 LongRoPE long factors with YaRN's mscale 1.3466 as attention factor (HF: 1.1902)")
    if want("bug_qwen25_yarn_attn_after_bf16"):
        # cos.to(bfloat16) * attention_scaling in bfloat16 (HF scales in float32 first): two bf16 roundings
        inv, af = hf_yarn(1000000.0, 128, 4.0, 32768)
        c, s = hf_forward(inv, torch.arange(32768), 1.0)
        cb = c.to(torch.bfloat16) * af
        sb = s.to(torch.bfloat16) * af
        save("bug_qwen25_yarn_attn_after_bf16", cb.view(torch.int16).numpy().view(np.uint16),
             sb.view(torch.int16).numpy().view(np.uint16), QWEN25_YARN, "fail",
             ["twice", "double", "round", "bf16", "bfloat16", "precision"], args=["--dtype", "bf16"],
             how="Qwen2.5 YaRN x4: cos/sin cast to bf16, then x attention factor in bf16 (two roundings), <u2 bits")
    if want("bug_llama2_32k_linear_int_div"):
        # linear interpolation in an integer kernel: pos = token_idx / scale with C integer division
        t = torch.div(torch.arange(32768), 8, rounding_mode="floor").float()
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), t)
        save("bug_llama2_32k_linear_int_div", c, s, LLAMA2_32K, "fail",
             ["integer", "floor", "staircase", "//", "quantiz", "groups of 8"],
             how="LLaMA-2-7B-32K linear x8 as integer position division p // 8 (staircase), 0..32767")
    if want("bug_llama31_decode_cos_first_rows"):
        # old HF-style decode: cos, sin = rotary_emb(v, seq_len=q_len) then cos[:q_len]: row 0 at every step
        c, s = hf_forward(llama31_inv, torch.zeros(4096, dtype=torch.int64))
        save("bug_llama31_decode_cos_first_rows", c, s, LLAMA31, "fail",
             ["position 0", "row 0", "constant", "same", "every row", "identical"], args=["--pos-start", "32768"],
             how="Llama-3.1 decode steps 32768..36863 each given cos[:1] (position 0): every row (1, 0)")
    if want("bug_qwen25_yarn_blend_periods"):
        inv, af = hf_yarn_variant(1000000.0, 128, 4.0, 32768, blend_periods=True)
        c, s = hf_forward(inv, torch.arange(32768), af)
        save("bug_qwen25_yarn_blend_periods", c, s, QWEN25_YARN, "fail", ["ramp", "band", "blend", "interpolat"],
             how="Qwen2.5 YaRN x4: ramp blends the periods (1/(f*p*(1-m) + p*m)) instead of the inverse frequencies")
    if want("bug_phi35_factors_multiplied"):
        # 1/(ext * base^x) written as inv_freq * ext: the LongRoPE factors inverted
        g = hf_default_inv_freq(10000.0, 96)
        inv = g * torch.tensor(PHI35_FAC["long_factor"], dtype=torch.float32)
        af = math.sqrt(1 + math.log(32) / math.log(4096))
        c, s = hf_forward(inv, torch.arange(16384), af)
        save("bug_phi35_factors_multiplied", c, s, phi35, "fail", ["inverse", "reciprocal", "multipl", "inverted"],
             how="Phi-3.5 LongRoPE: inv_freq multiplied by the long factors instead of divided, 0..16383")
    if want("bug_llama31_mlx_inv_freq_as_periods"):
        # mx.fast.rope(freqs=...) takes periods; a port passes HF's inv_freq
        c, s = mlx_fast_rope_cos_sin(llama31_inv.numpy(), np.arange(8192))
        save("bug_llama31_mlx_inv_freq_as_periods", c, s, LLAMA31, "fail", ["inverse", "reciprocal", "period", "inv_freq", "inverted"],
             how="Llama-3.1 through mx.fast.rope with HF's inv_freq as freqs (periods expected): theta = p / inv_freq")
    if want("bug_qwen25_yarn_factor_from_max_model_len"):
        # a serving port deriving the YaRN factor from its runtime length: 65536 / 32768 = 2 (config: 4)
        inv, af = hf_yarn(1000000.0, 128, 2.0, 32768)
        c, s = hf_forward(inv, torch.arange(32768), af)
        save("bug_qwen25_yarn_factor_from_max_model_len", c, s, QWEN25_YARN, "fail", ["factor 2", "factor", "scaling"],
             how="Qwen2.5 YaRN with factor = max_model_len 65536 / original 32768 = 2 instead of the config's 4")

    # ====================================================================== MORE (eighth round)
    # each from the library's own code (the function named in each comment, re-typed in torch/numpy with the
    # library's dtypes); the cause words were fixed here, and committed, before pecheck ran on any case
    # --- correct
    if want("ok_falcon7b_bf16"):
        # transformers 4.33 models/falcon/modeling_falcon.py FalconRotaryEmbedding: inv_freq in float32,
        # t = arange(seq_len).type_as(inv_freq), einsum("i,j->ij"), cat(freqs, freqs), emb.cos().to(dtype)
        c, s = falcon_rotary_cos_sin(64, 8192, torch.bfloat16)
        save("ok_falcon7b_bf16", c.float(), s.float(), FALCON7B, "pass", args=["--dtype", "bf16"],
             how="Falcon-7B FalconRotaryEmbedding (head_dim 4544/71 = 64, base 10000), cos().to(bfloat16) widened, 0..8191, (n,64)")
    if want("ok_mistral_nemo_vllm_98304"):
        # vLLM get_rope(head_size=config.head_dim 128, rotary_dim 128, max_position 128000, base 1e6):
        # RotaryEmbedding._compute_cos_sin_cache rows 98304..106495 (each value t * inv_freq in float32, as the einsum)
        c, s = vllm_rows(vllm_inv_freq(1000000.0, 128), np.arange(98304, 98304 + 8192))
        save("ok_mistral_nemo_vllm_98304", c, s, MISTRAL_NEMO, "pass", args=["--pos-start", "98304"],
             how="Mistral-Nemo vLLM RotaryEmbedding (config head_dim 128, not hidden/heads 160; base 1e6), rows 98304..106495, (n,64)")
    if want("ok_internlm25_dynamic_40k"):
        # transformers _compute_dynamic_ntk_parameters at seq_len = max(position_ids) + 1 = 40960 > 32768
        inv = hf_dynamic_ntk_inv_freq(1000000.0, 128, 32768, 2.0, 40960)
        c, s = hf_forward(inv, torch.arange(36864, 40960))
        save("ok_internlm25_dynamic_40k", c, s, INTERNLM25, "pass", args=["--pos-start", "36864"],
             how="InternLM2.5-7B dynamic x2: HF _compute_dynamic_ntk_parameters at seq_len 40960, rows 36864..40959, (n,128)")
    if want("ok_dsv2lite_remote_yarn"):
        # deepseek-ai/DeepSeek-V2-Lite modeling_deepseek.py DeepseekV2YarnRotaryEmbedding (mscale 0.707 / 0.707 = 1)
        c, s = dsv2_remote_yarn_cos_sin(64, 16384)
        save("ok_dsv2lite_remote_yarn", c, s, DSV2_LITE, "pass",
             how="DeepSeek-V2-Lite remote DeepseekV2YarnRotaryEmbedding (yarn x40, _mscale 0.707/0.707 = 1), 0..16383, (n,64)")
    if want("ok_dsv3_vllm_scaling_131072"):
        # vLLM DeepseekScalingRotaryEmbedding: yarn inv_freq (floor/ceil), cache of 4096*40 rows x mscale ratio 1
        c, s = vllm_rows(vllm_yarn_inv_freq(10000.0, 64, 40.0, 4096), np.arange(131072, 131072 + 8192))
        save("ok_dsv3_vllm_scaling_131072", c, s, DSV3, "pass", args=["--pos-start", "131072"],
             how="DeepSeek-V3 vLLM DeepseekScalingRotaryEmbedding (mscale 1/1), rows 131072..139263, (n,32)")

    # --- bugs
    if want("bug_llama2_angle_accumulated_f32"):
        # incremental decode keeping the angle as float32 state: theta += inv_freq per token (no position product)
        c, s = accumulated_angle_cos_sin(hf_default_inv_freq(10000.0, 128).numpy(), 16384)
        save("bug_llama2_angle_accumulated_f32", c, s, LLAMA2, "fail",
             ["accumul", "cumsum", "incremental", "running sum", "summed step"],
             how="Llama-2: angle kept as float32 state, theta_p = theta_(p-1) + inv_freq (sequential sum), 0..16383, (n,64)")
    if want("bug_qwen25_rotation_recurrence_f32"):
        # decode advancing (cos, sin) by one rotation per token (complex multiply by e^{i omega}) in float32
        c, s = recurrence_cos_sin(vllm_inv_freq(1000000.0, 128).numpy(), 16384)
        save("bug_qwen25_rotation_recurrence_f32", c, s, QWEN25, "fail",
             ["recurrence", "cumprod", "accumul", "incremental", "repeated multiplication"],
             how="Qwen2.5: (cos, sin) advanced by the rotation recurrence c' = c cos w - s sin w in float32, 0..16383, (n,64)")
    if want("bug_llama31_llama3_no_smooth"):
        # _compute_llama3_parameters with the first torch.where only: the medium band keeps inv_freq (no smoothing)
        inv = llama3_hard_cut_inv_freq(500000.0, 128, 8.0, 1.0, 8192)
        c, s = hf_forward(inv, torch.arange(16384))
        save("bug_llama31_llama3_no_smooth", c, s, LLAMA31, "fail",
             ["band", "smooth", "ramp", "medium", "interpolat", "low_freq", "high_freq"],
             how="Llama-3.1 llama3 with a hard cut at low_freq_wavelen: the smoothed medium band left unscaled, 0..16383")
    if want("bug_gptoss_concentration_in_angle"):
        # GptOssRotaryEmbedding.forward with the parenthesis misplaced: (emb * attention_scaling).cos()
        inv, af = hf_yarn(150000.0, 64, 32.0, 4096, 32.0, 1.0, truncate=False)
        freqs = torch.outer(torch.arange(16384).float(), inv)
        save("bug_gptoss_concentration_in_angle", (freqs * af).cos(), (freqs * af).sin(), GPTOSS, "fail",
             ["attention factor", "concentration", "mscale", "inside", "into the angle"],
             how="gpt-oss: concentration 1.3466 multiplied into the angle, cos(freqs * A), not cos(freqs) * A, 0..16383, (n,32)")
    if want("bug_llama2_sin_signed_cache"):
        # rotate_half's minus folded into the table (q * cos + swap_halves(q) * sin_signed): sin = cat(-sin, sin)
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(100000, 108192))
        s = torch.cat((-s[:, :64], s[:, 64:]), -1)
        save("bug_llama2_sin_signed_cache", c, s, LLAMA2, "fail", ["sign", "negat", "first half", "wrong way", "direction"],
             args=["--pos-start", "100000"],
             how="Llama-2: the exported sin table is rotate_half's signed one, cat(-sin, sin), rows 100000..108191, (n,128)")
    if want("bug_internlm25_dynamic_no_clamp"):
        # _compute_dynamic_ntk_parameters without seq_len = max(seq_len, max_position_embeddings): the formula
        # applied to a 20480-token sequence (below 32768) shrinks the base: 1e6 * 0.25^(128/126)
        inv = hf_dynamic_ntk_inv_freq(1000000.0, 128, 32768, 2.0, 20480, clamp=False)
        c, s = hf_forward(inv, torch.arange(20480))
        save("bug_internlm25_dynamic_no_clamp", c, s, INTERNLM25, "fail",
             ["dynamic", "seq-len", "seq_len", "sequence length", "max_position", "below", "clamp"],
             how="InternLM2.5 dynamic x2: NTK formula applied at seq_len 20480 < 32768 (no max with max_position_embeddings): base 2.45e5")
    if want("bug_llama2_dynamic_per_row_base"):
        # HF dynamic NTK decode: each step recomputes inv_freq for seq_len = p + 1, and the keys cached at earlier
        # steps keep their rotation: the key rows 4096..8191 each carry the base of their own step
        c, s = dynamic_per_row_cos_sin(10000.0, 128, 4096, 2.0, np.arange(4096, 8192))
        save("bug_llama2_dynamic_per_row_base", c, s, LLAMA2_DYN, "fail",
             ["per row", "each row", "row by row", "varies", "recomput", "different bases", "mixed", "decode"],
             args=["--pos-start", "4096"],
             how="Llama-2 dynamic x2: KV-cache key rows 4096..8191 each rotated with the base of its decode step (seq_len p+1)")
    if want("bug_mistral_nemo_head_dim_hidden"):
        # transformers < 4.43 MistralAttention: head_dim = hidden_size // num_heads (160), config.head_dim (128) ignored
        c, s = hf_forward(hf_default_inv_freq(1000000.0, 160), torch.arange(8192))
        save("bug_mistral_nemo_head_dim_hidden", c, s, MISTRAL_NEMO, "fail", ["head_dim", "hidden_size", "160", "head dim"],
             how="Mistral-Nemo rotary built with head_dim = hidden_size/num_heads = 160 (config head_dim 128), (n,160)")
    if want("bug_phi2_partial_twice"):
        # rope init given dim = head_dim * partial_rotary_factor (32) and multiplying by the factor again: int(12.8)
        c, s = hf_forward(hf_default_inv_freq(10000.0, 12), torch.arange(2048))
        save("bug_phi2_partial_twice", c, s, PHI2, "fail", ["partial", "rotary dim", "twice", "12"],
             how="Phi-2: partial_rotary_factor 0.4 applied twice: rotary dim int(80*0.4*0.4) = 12, (n,12)")
    if want("bug_qwen25_yarn_betas_as_dims"):
        # _compute_yarn_parameters with low, high = beta_slow, beta_fast (find_correction_range skipped)
        inv, af = yarn_ramp_edges_variant(1000000.0, 128, 4.0, 32768, betas_as_dims=True)
        c, s = hf_forward(inv, torch.arange(16384), af)
        save("bug_qwen25_yarn_betas_as_dims", c, s, QWEN25_YARN, "fail", ["ramp", "band", "beta", "correction"],
             how="Qwen2.5 YaRN x4 with the ramp from pair 1 to 32 (beta_slow, beta_fast taken as dims), 0..16383")
    if want("bug_llama2_static_ntk_aware"):
        # the 'NTK-aware scaled RoPE' of the original post (base * alpha^(d/(d-2)), alpha = factor) used for
        # rope_type dynamic: HF's dynamic base at seq_len 8192 is 10000 * 3^(128/126)
        c, s = hf_forward(hf_default_inv_freq(10000.0 * 2.0 ** (128 / 126), 128), torch.arange(8192))
        save("bug_llama2_static_ntk_aware", c, s, LLAMA2_DYN, "fail", ["base", "ntk", "alpha", "static"],
             how="Llama-2 dynamic x2 as static NTK-aware: base 10000 * 2^(128/126) instead of HF's 10000 * 3^(128/126) at 8192")
    if want("bug_llama31_ggml_rope_scale_on_rope_freqs"):
        # llama.cpp: a Llama-3.1 GGUF (rope_freqs) run with --rope-scaling linear --rope-scale 8: freq_scale 1/8
        # stacked on the llama3 factors in rope_yarn(theta / ff, freq_scale, ext_factor 0)
        ff = gguf_llama3_rope_freqs(500000.0, 128)
        c, s = ggml_cache_ff_scaled(np.arange(65536, 65536 + 8192), 128, 500000.0, ff, f32(1.0) / f32(8.0))
        save("bug_llama31_ggml_rope_scale_on_rope_freqs", c, s, LLAMA31, "fail",
             ["scaling factor", "twice", "linear", "0.125", "freq_scale", "rope-scale", "factor 8", "factor 64"],
             args=["--pos-start", "65536"],
             how="llama.cpp Llama-3.1 with rope_freqs and --rope-scale 8 (freq_scale 1/8 on top of llama3), rows 65536..73727, (n,64)")
    if want("bug_llama2_int_div_exponent"):
        # PyTorch < 1.5 (or an int tensor kept): arange(0, dim, 2) / dim is integer division: exponent 0, inv_freq 1
        inv = 1.0 / (10000.0 ** torch.div(torch.arange(0, 128, 2), 128, rounding_mode="floor").float())
        c, s = hf_forward(inv, torch.arange(4096))
        save("bug_llama2_int_div_exponent", c, s, LLAMA2, "fail",
             ["integer", "exponent", "floor", "same frequency", "every pair", "division"],
             how="Llama-2: exponent arange(0,128,2) // 128 (integer division, old torch): every pair inv_freq 1, 0..4095")
    if want("bug_qwen25_linspace_exponent"):
        # inv_freq = base ** -linspace(0, 1, d/2): the exponent i/(d/2 - 1) = 2i/126, not 2i/128
        inv = 1.0 / (1000000.0 ** torch.linspace(0, 1, 64, dtype=torch.float32))
        c, s = vllm_rows(inv, np.arange(16384))
        save("bug_qwen25_linspace_exponent", c, s, QWEN25, "fail", ["linspace", "d-2", "d - 2", "exponent", "126"],
             how="Qwen2.5: inv_freq = 1e6 ** -linspace(0, 1, 64) (exponent 2i/126), 0..16383, (n,64)")
    if want("bug_qwen25_invfreq_pow_f16_overflow"):
        # inv_freq built in float16 (a port's .half() exponent): torch casts the scalar base 1e6 to float16, where it
        # overflows (max 65504) to inf: inf ** x = inf for x > 0, 1/inf = 0: pairs 1..63 do not rotate, pair 0 (x = 0) does
        inv = (1.0 / (1000000.0 ** (torch.arange(0, 128, 2).half() / 128))).float()
        c, s = hf_forward(inv, torch.arange(16384), layout="none")
        save("bug_qwen25_invfreq_pow_f16_overflow", c, s, QWEN25, "fail",
             ["overflow", "inf", "65504", "not rotate", "zero frequenc", "float16", "f16"],
             how="Qwen2.5: inv_freq computed in float16: base 1e6 overflows to inf (pairs 1..63 inv_freq 0), 0..16383, (n,64)")
    if want("bug_llama31_bf16_bits_truncated"):
        # numpy export of bfloat16 bits by truncation (x.view(uint32) >> 16), not round-to-nearest as .to(bfloat16)
        c, s = vllm_cache(vllm_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192), 16384)
        save("bug_llama31_bf16_bits_truncated", bf16_bits_truncated(c), bf16_bits_truncated(s), LLAMA31, "fail",
             ["truncat", "toward zero", "chop", "rounding mode", "round-to-nearest", "nearest"], args=["--dtype", "bf16"],
             how="Llama-3.1 vLLM cache saved as bf16 bits by truncation (>> 16), not rounded, 0..16383, (n,64)")
    if want("bug_qwen3_sin_bf16_cos_f32"):
        # one of the two tensors cast to the model dtype: sin.to(bfloat16), cos left in float32
        c, s = vllm_cache(vllm_inv_freq(1000000.0, 128), 16384)
        save("bug_qwen3_sin_bf16_cos_f32", c, to_bf16_f32(s), QWEN3, "fail",
             ["bf16", "bfloat16", "mixed", "sin only", "only sin"],
             how="Qwen3-8B: sin cast to bfloat16 (widened), cos kept float32, 0..16383, (n,64)")
    if want("bug_mistral_rolling_buffer_order"):
        # mistral-inference RotatingBufferCache (cache_positions = positions % sliding_window): after 6144 tokens
        # slot s holds position s + 4096 (s < 2048) or s; the buffer's rows exported in slot order
        pos = np.arange(4096)
        pos = np.where(pos < 2048, pos + 4096, pos)
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), torch.from_numpy(pos))
        save("bug_mistral_rolling_buffer_order", c, s, MISTRAL7B, "fail",
             ["ring", "rolling", "circular", "order", "permut", "wrap", "modulo"], args=["--pos-start", "2048"],
             how="Mistral-7B-v0.1 rolling KV buffer (window 4096) after 6144 tokens in slot order: rows 0..2047 hold 4096..6143")
    if want("bug_qwen25_sin_via_sqrt"):
        # sin taken from cos as sqrt(1 - cos^2) in float32 (sign from the angle): cancellation near cos = +-1
        c, s = sin_from_cos_sqrt(vllm_inv_freq(1000000.0, 128), 16384)
        save("bug_qwen25_sin_via_sqrt", c, s, QWEN25, "fail",
             ["sqrt", "1 - cos", "cancel", "from cos", "pythagor", "inexact", "evaluat"],
             how="Qwen2.5: sin = copysign(sqrt(1 - cos^2), theta) in float32, 0..16383, (n,64)")
    if want("bug_qwen25_cache_transposed"):
        # a (rotary_dim/2, n) cache (einsum "i,j->ji", a kernel's layout) saved without .T
        c, s = vllm_cache(vllm_inv_freq(1000000.0, 128), 8192)
        save("bug_qwen25_cache_transposed", c.T.contiguous(), s.T.contiguous(), QWEN25, "fail",
             ["transpos", "axes", "swapped axes", "rows and columns"],
             how="Qwen2.5 vLLM cache saved transposed: (64, 8192)")
    if want("bug_dsv2lite_mscale_as_attention_factor"):
        # a port reading rope_scaling['mscale'] (0.707) as the attention factor (HF: mscale/mscale_all_dim = 1)
        c, s = dsv2_remote_yarn_cos_sin(64, 8192, attention=0.707)
        save("bug_dsv2lite_mscale_as_attention_factor", c, s, DSV2_LITE, "fail", ["attention factor", "mscale", "norm", "0.707"],
             how="DeepSeek-V2-Lite yarn cache times rope_scaling.mscale 0.707 (attention factor 1), 0..8191, (n,64)")
    if want("bug_qwen25_yarn_correction_dim_half"):
        # find_correction_dim given dim // 2 (gpt-oss's d_half mixed into HF's dim * log(...) / (2 log base))
        inv, af = yarn_ramp_edges_variant(1000000.0, 128, 4.0, 32768, correction_dim=64)
        c, s = hf_forward(inv, torch.arange(65536, 65536 + 16384), af, layout="none")
        save("bug_qwen25_yarn_correction_dim_half", c, s, QWEN25_YARN, "fail", ["ramp", "band", "correction", "beta"],
             args=["--pos-start", "65536"],
             how="Qwen2.5 YaRN x4: find_correction_dim with dim 64 (half): ramp edges halved, rows 65536..81919, (n,64)")
    if want("bug_llama2_exponent_from_1"):
        # exponent from arange(1, dim + 1, 2): omega_i = base^(-(2i+1)/d), every pair scaled by base^(-1/d)
        inv = 1.0 / (10000.0 ** (torch.arange(1, 129, 2, dtype=torch.int64).float() / 128))
        c, s = hf_forward(inv, torch.arange(4096))
        save("bug_llama2_exponent_from_1", c, s, LLAMA2, "fail", ["arange", "exponent", "2i+1", "index", "off by one", "shifted"],
             how="Llama-2: exponent arange(1, 129, 2)/128 ((2i+1)/d, not 2i/d), 0..4095, (n,128)")

    # ====================================================================== MORE (ninth round)
    # each from the library's own code (the function named in each comment, re-typed in torch/numpy with the
    # library's dtypes); the cause words were fixed here, and committed, before pecheck ran on any case
    # --- correct
    if want("ok_llama4_scout_10m"):
        # transformers 4.51 models/llama4/modeling_llama4.py Llama4TextRotaryEmbedding: _compute_llama3_parameters
        # (factor 16, low_freq_factor = high_freq_factor = 1: the smooth band is empty, its 0-division discarded by
        # torch.where), float32 inv_freq @ position_ids, torch.polar -> complex64 (n, 64); rows near its 10M context
        inv = hf_llama3_inv_freq(500000.0, 128, 16.0, 1.0, 1.0, 8192)
        fc = hf_polar_rows(inv, torch.arange(10477568, 10485760))
        save("ok_llama4_scout_10m", fc.real.contiguous(), fc.imag.contiguous(), LLAMA4_SCOUT, "pass",
             args=["--pos-start", "10477568"],
             how="Llama-4-Scout Llama4TextRotaryEmbedding (llama3 x16, lff = hff = 1), polar .real/.imag, rows 10477568..10485759, (n,64)")
    if want("ok_glm4_9b_bf16bits"):
        # THUDM/glm-4-9b-chat modeling_chatglm.py (2024 remote code) RotaryEmbedding.forward_impl (dim = kv_channels // 2 = 64, base
        # 10000 * rope_ratio 500), cache (seq_length, 32, 2) in bfloat16 (the model's dtype), rows = position_ids
        cache = chatglm_rope_cache(131072, 64, 500, torch.bfloat16)[65536:65536 + 16384]
        save("ok_glm4_9b_bf16bits", to_bf16_bits(cache[..., 0].float()), to_bf16_bits(cache[..., 1].float()), GLM4_9B,
             "pass", args=["--pos-start", "65536", "--dtype", "bf16"],
             how="GLM-4-9B-chat ChatGLM RotaryEmbedding.forward_impl (base 5e6, n_elem 64), bf16 cache, <u2 bits, rows 65536..81919, (n,32)")
    if want("ok_pythia69b_neox_f16"):
        # EleutherAI gpt-neox v2 megatron/model/positional_embeddings.py RotaryEmbedding._prepare_cache(2048, torch.half):
        # rotary_ndims = 128 * rotary_pct 0.25 = 32, cat(freqs, freqs), .to(precision) float16
        c, s = neox_rotary_cache(32, 2048, 10000, torch.float16)
        save("ok_pythia69b_neox_f16", c.numpy(), s.numpy(), PYTHIA69B, "pass",
             how="Pythia-6.9B GPT-NeoX RotaryEmbedding._prepare_cache (rotary_ndims 32, precision half), <f2, 0..2047, (n,32)")
    if want("ok_qwen25_trtllm_yarn_32k"):
        # TensorRT-LLM (main as stored, 2026) tensorrt_llm/functional.py RopeEmbeddingUtils.create_sinusoidal_positions_yarn (mscale_all_dim
        # 0 as its note asks for a non-DeepSeek model, duplicate_data False): float2 (cos, sin) per pair, (1, n*64*2)
        flat = trtllm_yarn_float2(32768, 128, 1000000.0, 4.0, 32768)
        t = flat.reshape(32768, 64, 2)
        save("ok_qwen25_trtllm_yarn_32k", np.ascontiguousarray(t[..., 0]), np.ascontiguousarray(t[..., 1]), QWEN25_YARN,
             "pass", how="TensorRT-LLM create_sinusoidal_positions_yarn (Qwen2.5 YaRN x4, mscale 1.1386), float2 read as [..., 0]/[..., 1], 0..32767, (n,64)")
    if want("ok_llama31_megatron_65536_bf16"):
        # Megatron-LM core_r0.9+ megatron/core/models/common/embeddings/rotary_pos_embedding.py RotaryEmbedding(rope_scaling=True,
        # factor 8).forward(16384, offset=65536), then _apply_rotary_pos_emb_bshd's cos_ = (cos(freqs) * 1).to(bf16)
        emb = megatron_rope_emb(128, 500000.0, 16384, offset=65536, rope_scaling_factor=8.0)
        save("ok_llama31_megatron_65536_bf16", to_bf16_f32(torch.cos(emb)), to_bf16_f32(torch.sin(emb)), LLAMA31, "pass",
             args=["--pos-start", "65536", "--dtype", "bf16"],
             how="Megatron-LM RotaryEmbedding (llama3 _apply_scaling) forward(16384, offset 65536), cos(freqs).to(bf16) widened, (n,128)")
    if want("ok_gptj6b_hf_embed_positions"):
        # transformers 4.4x models/gptj/modeling_gptj.py create_sinusoidal_positions(n_positions, rotary_dim 64):
        # cat(sin, cos) along dim 1; GPTJAttention splits embed_positions[position_ids] into sin, cos (n, 32) each
        table = gptj_create_sinusoidal_positions(2048, 64)
        save("ok_gptj6b_hf_embed_positions", table[:, 32:].contiguous(), table[:, :32].contiguous(), GPTJ6B, "pass",
             how="GPT-J-6B create_sinusoidal_positions (rotary_dim 64): cat(sin, cos) split into sin, cos, 0..2047, (n,32)")
    if want("ok_llama2_32k_nemo_linear"):
        # NeMo 1.x nlp/modules/common/megatron/position_embedding/rotary_position_embedding.py RotaryEmbedding
        # (seq_len_interpolation_factor 8, pretrained_max_position_embeddings 4096).forward(32768): 32768 is not above
        # 4096 * 8, so the fixed linear branch seq *= 1/8; einsum, cat(freqs, freqs); cos/sin in apply_rotary_pos_emb
        emb = nemo_rope_emb(128, 32768, 8.0, 4096)[16384:]
        save("ok_llama2_32k_nemo_linear", torch.cos(emb), torch.sin(emb), LLAMA2_32K, "pass", args=["--pos-start", "16384"],
             how="NeMo RotaryEmbedding (seq_len_interpolation_factor 8, positions x 1/8), rows 16384..32767, (n,128)")

    # --- bugs
    if want("bug_llama4_scout_nan_mask_blend"):
        # a port of _compute_llama3_parameters blending with arithmetic masks (m * smoothed + (1 - m) * inv_freq_llama)
        # instead of torch.where: with Scout's low_freq_factor == high_freq_factor the smooth factor is x / 0 = +-inf,
        # smoothed = -inf + inf = nan, and 0 * nan = nan reaches every pair
        inv = llama3_mask_blend_inv_freq(500000.0, 128, 16.0, 1.0, 1.0, 8192)
        fc = hf_polar_rows(inv, torch.arange(8192))
        save("bug_llama4_scout_nan_mask_blend", fc.real.contiguous(), fc.imag.contiguous(), LLAMA4_SCOUT, "fail",
             ["nan", "not a number", "non-finite", "not finite", "division by zero", "0/0", "infinit"],
             how="Llama-4-Scout llama3 (lff = hff = 1) blended with arithmetic masks: smooth = x/0, 0 * nan: every value NaN, 0..8191, (n,64)")
    if want("bug_llama31_megatron_cp_zigzag"):
        # Megatron-LM core (rope_utils.py / rotary_pos_embedding.py, 2024) get_pos_emb_on_this_cp_rank (context parallel 4, rank 1): the 32768-row rotary_pos_emb cut in
        # 2 * cp = 8 chunks, the rank keeps chunks 1 and 6 (load balancing); that rank's cache checked as one run
        emb = megatron_rope_emb(128, 500000.0, 32768, rope_scaling_factor=8.0)
        emb = megatron_cp_rank_rows(emb, cp_size=4, cp_rank=1)
        save("bug_llama31_megatron_cp_zigzag", torch.cos(emb), torch.sin(emb), LLAMA31, "fail",
             ["context parallel", "zigzag", "zig-zag", "load-balanc", "load balanc", "two chunks", "two segments",
              "discontinu", "non-contiguous", "not contiguous", "jump", "shard"], args=["--pos-start", "4096"],
             how="Megatron-LM Llama-3.1 context-parallel rank 1 of 4: rows = chunks 1 and 6 (4096..8191, 24576..28671), --pos-start 4096")
    if want("bug_yi6b_trtllm_float2_as_halves"):
        # TensorRT-LLM (main as stored, 2026) functional.py create_sinusoidal_positions_for_attention_plugin: (cos, sin) per pair (float2);
        # the exported table read back as reshape(n, 2, 64): 'cos' = c0 s0 c1 s1 .. of pairs 0..31, 'sin' = pairs 32..63
        _, flat = trtllm_attention_plugin_float2(4096, 128, 5000000.0)
        t = flat.reshape(4096, 2, 64)
        save("bug_yi6b_trtllm_float2_as_halves", np.ascontiguousarray(t[:, 0]), np.ascontiguousarray(t[:, 1]), YI6B, "fail",
             ["float2", "fused", "alternat", "(cos, sin) pairs", "cos, sin pairs", "interleaved cos and sin", "reshape"],
             how="Yi-6B TensorRT-LLM float2 (cos, sin) cache read as [cos | sin] halves (reshape(n, 2, 64)), 0..4095, (n,64)")
    if want("bug_mistral7b_cos_offset_sin_not"):
        # a decode path slicing cos_cached[offset:offset + n] but sin_cached[:n] (the offset left out of one slice)
        c, s = hf_forward(hf_default_inv_freq(10000.0, 128), torch.arange(12288))
        save("bug_mistral7b_cos_offset_sin_not", c[8192:12288], s[:4096], MISTRAL7B, "fail",
             ["different positions", "only cos", "only sin", "sin is not", "sin not", "sin rows", "sin holds",
              "sin starts", "not offset"], args=["--pos-start", "8192"],
             how="Mistral-7B-v0.1 decode rows 8192..12287: cos[offset:offset+n] but sin[:n] (sin rows 0..4095), (n,128)")
    if want("bug_gemma2_cos_copy_of_sin"):
        # copy-paste in a port's forward: cos = emb.sin(); sin = emb.sin()
        _, s = hf_forward(hf_default_inv_freq(10000.0, 256), torch.arange(8192))
        save("bug_gemma2_cos_copy_of_sin", s.clone(), s, GEMMA2_9B, "fail",
             ["copy", "cos equals sin", "cos is sin", "cos = sin", "identical", "duplicate", "sin twice", "both tables"],
             how="Gemma-2-9B: cos = emb.sin() (copy-paste), both tables sin, 0..8191, (n,256)")
    if want("bug_internlm25_dynamic_stale_sin"):
        # dynamic NTK port caching cos and sin separately and refreshing only cos_cached when seq_len grows past
        # max_position_embeddings: cos has the base for 40960, sin keeps rope_theta's
        inv_new = hf_dynamic_ntk_inv_freq(1000000.0, 128, 32768, 2.0, 40960)
        c, _ = hf_forward(inv_new, torch.arange(36864, 40960))
        _, s = hf_forward(hf_default_inv_freq(1000000.0, 128), torch.arange(36864, 40960))
        save("bug_internlm25_dynamic_stale_sin", c, s, INTERNLM25, "fail",
             ["stale", "not updated", "not recomputed", "different base", "different frequencies", "old base",
              "sin has", "sin's frequencies", "mismatch"], args=["--pos-start", "36864"],
             how="InternLM2.5 dynamic x2 at 40960: cos with the NTK base for 40960, sin with base 1e6 (stale), rows 36864..40959")
    if want("usage_glm4_half_as_bf16"):
        # ChatGLM's README habit model.half(): forward_impl casts the cache to float16 (dtype = inv_freq's); the user
        # widens it to float32 and passes the config's torch_dtype, --dtype bf16
        cache = chatglm_rope_cache(8192, 64, 500, torch.float16)
        save("usage_glm4_half_as_bf16", cache[..., 0].float(), cache[..., 1].float(), GLM4_9B, "fail",
             ["float16", "f16", "half", "--dtype f16"], args=["--dtype", "bf16"],
             how="GLM-4-9B run with .half(): float16 cache widened to f32, checked with --dtype bf16 (config torch_dtype), 0..8191, (n,32)")
    if want("bug_qwen25_flash_attn_xpos_scale_base"):
        # flash-attn 2.x flash_attn/layers/rotary.py RotaryEmbedding(dim 128, base 1e6, scale_base=512) copied from an xPos
        # example: _update_cos_sin_cache multiplies cos/sin by scale ** ((t - seqlen // 2) / scale_base) (queries' cache)
        c, s = flash_attn_xpos_cos_sin(128, 1000000.0, 4096, 512)
        save("bug_qwen25_flash_attn_xpos_scale_base", c, s, QWEN25, "fail",
             ["xpos", "scale_base", "amplitude", "norm", "decay", "grows", "position-dependent", "varies with position"],
             how="Qwen2.5 flash-attn RotaryEmbedding with scale_base=512 (xPos on): cos/sin x scale^((t-2048)/512), 0..4095, (n,64)")
    if want("bug_llama32_te_fused_cos_as_freqs"):
        # Transformer Engine 1.x / Megatron-LM core fused_apply_rotary_pos_emb(t, freqs) takes the ANGLES and computes cos/sin
        # itself; a port hands it HF's cos table: the rotation it applies is cos(cos theta), sin(cos theta)
        inv = hf_llama3_inv_freq(500000.0, 128, 32.0, 1.0, 4.0, 8192)
        c, _ = hf_forward(inv, torch.arange(8192))
        save("bug_llama32_te_fused_cos_as_freqs", torch.cos(c), torch.sin(c), LLAMA32_3B, "fail",
             ["cos of cos", "cos(cos", "as the angle", "as angles", "as freqs", "cos table as", "cache as the angle",
              "already cos", "cos passed"],
             how="Llama-3.2-3B: HF cos table passed to TE's fused rope as freqs: cos(cos theta), sin(cos theta), 0..8191, (n,128)")
    if want("bug_qwen25_ggml_yarn_ext_factor_half"):
        # llama.cpp (ggml-cpu ops.cpp rope_yarn, b4000+) run with --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768 --yarn-ext-factor 0.5: rope_yarn's
        # ramp_mix = ramp * 0.5, the extrapolated pairs only half extrapolated (mscale unchanged: ext_factor != 0)
        corr = ggml_rope_yarn_corr_dims(128, 32768, 1000000.0, 32.0, 1.0)
        c, s = ggml_cache(np.arange(16384), 128, 1000000.0, f32(1.0) / f32(4.0), 0.5, 1.0, corr)
        save("bug_qwen25_ggml_yarn_ext_factor_half", c, s, QWEN25_YARN, "fail",
             ["ext_factor", "ext-factor", "extrapolation mix", "mix factor", "ramp_mix", "partly extrapolat",
              "half extrapolat"],
             how="llama.cpp Qwen2.5 YaRN x4 with --yarn-ext-factor 0.5: ramp_mix halved (high pairs half interpolated), 0..16383, (n,64)")
    if want("bug_olmo2_rope_applied_twice"):
        # RoPE applied twice on the query path (apply_rotary_pos_emb and a fused flash-attn rotary both): the rotation
        # probed from the module, (c^2 - s^2, 2 s c) in float32, is that of the angle 2 theta
        c, s = hf_forward(hf_default_inv_freq(500000.0, 128), torch.arange(4096))
        save("bug_olmo2_rope_applied_twice", c * c - s * s, 2 * s * c, OLMO2_7B, "fail",
             ["twice", "double", "2 times", "two times", "2x", "squared"],
             how="OLMo-2-7B: RoPE applied twice, the probed rotation (c^2 - s^2, 2sc) = angle 2 theta, 0..4095, (n,128)")
    if want("bug_qwen3_decode_seam_repeat"):
        # prefill rows 0..4095, then the decode loop starting at cache_position = prompt_len - 1: rows 4096.. hold
        # positions 4095..8190 (position 4095 twice at the seam)
        pos = torch.cat((torch.arange(4096), torch.arange(4095, 8191)))
        c, s = vllm_rows(vllm_inv_freq(1000000.0, 128), pos.numpy())
        save("bug_qwen3_decode_seam_repeat", c, s, QWEN3, "fail",
             ["seam", "duplicate", "row 4096", "4095", "from row", "p-1", "behind", "off by one"],
             how="Qwen3-8B: prefill 0..4095 then decode from prompt_len - 1: rows 4096..8191 hold 4095..8190, (n,64)")
    if want("bug_mistral03_exp_log_div_term"):
        # inv_freq from the sinusoidal-encoding idiom div_term = exp(arange(0, d, 2) * (-log(base) / d)) in float32
        # (PyTorch's PositionalEncoding tutorial, fairseq) instead of 1 / base ** (arange / d)
        inv = torch.exp(torch.arange(0, 128, 2).float() * (-math.log(1000000.0) / 128))
        c, s = hf_forward(inv, torch.arange(32768))
        save("bug_mistral03_exp_log_div_term", c, s, MISTRAL03, "fail",
             ["exp(", "div_term", "exp-log", "exp and log", "log(base)", "inv_freq", "frequencies are held",
              "frequencies in low precision", "inexact frequenc"],
             how="Mistral-7B-v0.3: inv_freq = exp(arange(0,128,2) * -log(1e6)/128) in float32 (div_term idiom), 0..32767, (n,128)")
    if want("bug_glm4_identity_padded_passthrough"):
        # a full-head fused kernel fed GLM's cache padded with identity pairs (cos 1, sin 0) for the 64 pass-through dims
        cache = chatglm_rope_cache(8192, 64, 500, torch.float32)
        c = torch.cat((cache[..., 0], torch.ones(8192, 32)), -1)
        s = torch.cat((cache[..., 1], torch.zeros(8192, 32)), -1)
        save("bug_glm4_identity_padded_passthrough", c, s, GLM4_9B, "fail",
             ["identity", "padded", "pass-through", "passthrough", "cos 1", "not rotate", "partial", "rotary dim"],
             how="GLM-4-9B cache padded to the head's 64 pairs with identity (cos 1, sin 0) for the pass-through dims, (n,64)")
    if want("bug_mistral_nemo_bf16_bits_viewed_f16"):
        # numpy has no bfloat16: the bf16 cache exported as cos.view(torch.float16).numpy() (bits reinterpreted as <f2),
        # checked with --dtype bf16 as README says for bfloat16 caches
        c, s = vllm_rows(vllm_inv_freq(1000000.0, 128), np.arange(16384))
        save("bug_mistral_nemo_bf16_bits_viewed_f16", c.to(torch.bfloat16).view(torch.float16).numpy(),
             s.to(torch.bfloat16).view(torch.float16).numpy(), MISTRAL_NEMO, "fail",
             ["bit pattern", "reinterpret", "view", "bfloat16 bits", "bf16 bits", "<u2", "uint16", "int16"],
             args=["--dtype", "bf16"],
             how="Mistral-Nemo vLLM cache in bf16 saved via .view(torch.float16) (<f2 holding bf16 bits), --dtype bf16, 0..16383, (n,64)")
    if want("bug_llama31_input_ids_as_positions"):
        # self.rotary_emb(hidden_states, input_ids): both LongTensors of shape (1, n), the token ids taken as positions
        ids = np.random.default_rng(9).integers(0, 128256, 4096)
        c, s = hf_forward(hf_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192), torch.from_numpy(ids))
        save("bug_llama31_input_ids_as_positions", c, s, LLAMA31, "fail",
             ["input_ids", "token id", "random", "not positions", "unordered", "scrambled", "permut", "position-ids",
              "position ids"],
             how="Llama-3.1: rotary_emb(x, input_ids): rows at 4096 token ids in [0, 128256) instead of 0..4095, (n,128)")
    if want("usage_qwen25_eagle_tree_positions"):
        # EAGLE-style tree verification: 256 steps of a 16-node draft tree, node position = prefix + depth (prefix
        # grows 3 a step); the rows checked as consecutive positions from 16384 (--position-ids was needed)
        depth = np.array([0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5])
        pos = (16384 + 3 * np.arange(256)[:, None] + depth[None, :]).reshape(-1)
        c, s = vllm_rows(vllm_inv_freq(1000000.0, 128), pos)
        save("usage_qwen25_eagle_tree_positions", c, s, QWEN25, "fail",
             ["tree", "position-ids", "position ids", "same position", "repeated position", "not consecutive", "depth"], args=["--pos-start", "16384"],
             how="Qwen2.5 EAGLE tree rows (16384 + 3 step + depth, 256 steps x 16 nodes) checked as consecutive from 16384, (n,64)")
    if want("bug_pythia69b_linspace_positions"):
        # positions from np.linspace(0, n, n) (endpoint included: p * n / (n - 1)) instead of np.arange(n)
        pos = np.linspace(0, 2048, 2048).astype(np.float32)
        inv = (1.0 / (10000.0 ** (np.arange(0, 32, 2) / 32))).astype(np.float32)
        ang = (pos[:, None] * inv[None, :]).astype(np.float32)
        ang = np.concatenate((ang, ang), -1)
        save("bug_pythia69b_linspace_positions", cosf(ang), sinf(ang), PYTHIA69B, "fail",
             ["linspace", "endpoint", "stretch", "fraction", "non-integer", "not integer", "2048/2047", "0.9995"],
             how="Pythia-6.9B: positions np.linspace(0, 2048, 2048) (p * 2048/2047), numpy float32, (n,32)")
    if want("bug_qwen25_yarn_mscale_interp_pairs_only"):
        # a YaRN port weighting the attention factor with the ramp like the frequencies: a_i = A (1 - m_i) + m_i, so
        # only the interpolated pairs carry mscale 1.1386 and the extrapolated (high-frequency) ones keep 1
        inv, amp = yarn_inv_freq_and_pair_amplitude(1000000.0, 128, 4.0, 32768)
        c, s = hf_forward(inv, torch.arange(16384))
        a = torch.cat((amp, amp))
        save("bug_qwen25_yarn_mscale_interp_pairs_only", c * a, s * a, QWEN25_YARN, "fail",
             ["per pair", "some pairs", "interpolated pairs", "not uniform", "varies across pairs", "attention factor",
              "mscale"],
             how="Qwen2.5 YaRN x4: mscale 1.1386 blended by the ramp (A on interpolated pairs, 1 on extrapolated), 0..16383, (n,128)")
    if want("bug_llama31_prefill_f32_decode_bf16_rows"):
        # vLLM 0.6+ RotaryEmbedding: rows gathered from two paths: prefill (cos/sin in float32) and a decode path whose cos_sin_cache was cast to
        # the model dtype (vLLM's cache .to(bfloat16) for the CUDA-graph decode): rows 4096.. are bfloat16 values
        c, s = vllm_cache(vllm_llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192), 8192)
        c = torch.cat((c[:4096], torch.from_numpy(to_bf16_f32(c[4096:]))))
        s = torch.cat((s[:4096], torch.from_numpy(to_bf16_f32(s[4096:]))))
        save("bug_llama31_prefill_f32_decode_bf16_rows", c, s, LLAMA31, "fail",
             ["rows 4096", "from row", "mixed", "part of", "some rows", "half the rows", "switch", "decode rows"],
             how="Llama-3.1 vLLM cache: rows 0..4095 float32 (prefill), rows 4096..8191 bfloat16-rounded (decode), (n,64)")
    if want("bug_llama31_yarn_instead_of_llama3"):
        # vLLM 0.6+ get_rope: a serving override copied from Qwen's docs (--rope-scaling '{"rope_type": "yarn", "factor": 8,
        # "original_max_position_embeddings": 8192}') on a llama3 model: vLLM YaRNScalingRotaryEmbedding's cache
        inv = vllm_yarn_inv_freq(500000.0, 128, 8.0, 8192)
        c, s = vllm_cache(inv, 16384, mscale=get_mscale(8.0))
        save("bug_llama31_yarn_instead_of_llama3", c, s, LLAMA31, "fail", ["yarn", "rope_type", "rope type", "wrong schedule"],
             how="Llama-3.1 served with a YaRN x8 override (orig 8192): vLLM YaRN cache x mscale 1.2079 instead of llama3, 0..16383, (n,64)")


# ----------------------------------------------------------------------------- seventh round: more libraries
# Qwen2.5-7B-Instruct as published (no rope_scaling: the YaRN block is the model card's opt-in)
QWEN25 = {k: v for k, v in QWEN25_YARN.items() if k != "rope_scaling"}


def hf_yarn_variant(base, dim, factor, orig, beta_fast=32, beta_slow=1, ramp_reversed=False, no_2pi=False,
                    blend_periods=False):
    """transformers _compute_yarn_parameters (as hf_yarn above, truncate true), with one of three
    mistakes injected: the extrapolation factor taken as the ramp itself (not 1 - ramp); 2*pi left out
    of find_correction_dim; the ramp blending the periods pos_freqs (harmonic) instead of inv_freq."""
    attention_factor = get_mscale(factor)
    twopi = 1.0 if no_2pi else 2 * math.pi

    def find_correction_dim(num_rotations):
        return (dim * math.log(orig / (num_rotations * twopi))) / (2 * math.log(base))

    low = max(math.floor(find_correction_dim(beta_fast)), 0)
    high = min(math.ceil(find_correction_dim(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, dim, 2).to(dtype=torch.float) / dim)
    extrap = ramp if ramp_reversed else 1 - ramp
    if blend_periods:
        return 1.0 / ((factor * pos_freqs) * (1 - extrap) + pos_freqs * extrap), attention_factor
    inv_freq = (1.0 / (factor * pos_freqs)) * (1 - extrap) + (1.0 / pos_freqs) * extrap
    return inv_freq, attention_factor


def hf_llama3_variant(base, dim, factor, lff, hff, old_ctx, first_edge_high=False, no_2pi=False):
    """transformers _compute_llama3_parameters with one mistake: the first torch.where compares the
    wavelength with high_freq_wavelen instead of low_freq_wavelen, or wavelen = 1/inv_freq (2*pi
    left out)."""
    inv_freq = hf_default_inv_freq(base, dim)
    low_freq_wavelen = old_ctx / lff
    high_freq_wavelen = old_ctx / hff
    wavelen = (1.0 if no_2pi else 2 * math.pi) / inv_freq
    edge = high_freq_wavelen if first_edge_high else low_freq_wavelen
    inv_freq_llama = torch.where(wavelen > edge, inv_freq / factor, inv_freq)
    smooth_factor = (old_ctx / wavelen - lff) / (hff - lff)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


def vllm_phi3_long_short_cache(rotary_dim, fac, orig, max_pos, base=10000.0):
    """vLLM Phi3LongRoPEScaledRotaryEmbedding.__init__: short cache of `orig` rows (short factors) and
    long cache of `max_pos` rows (long factors), each times its mscale (default sqrt(1 + ln s / ln orig)),
    cat((cos, sin), -1) per row, the two caches concatenated along the rows."""
    scale = max_pos / orig
    scaling_factor = math.sqrt(1 + math.log(scale) / math.log(orig)) if scale > 1 else 1.0

    def cache(n, factors):
        rescale = torch.tensor(factors, dtype=torch.float32)
        inv_freq = 1.0 / (rescale * (base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float) / rotary_dim)))
        t = torch.arange(n, dtype=torch.float)
        freqs = torch.einsum("i,j -> ij", t, inv_freq)
        return torch.cat((freqs.cos() * scaling_factor, freqs.sin() * scaling_factor), dim=-1)

    return torch.cat([cache(orig, fac["short_factor"]), cache(max_pos, fac["long_factor"])], dim=0)


def flash_attn_cos_sin(dim, base, seqlen, dtype=torch.float32):
    """flash-attn flash_attn/layers/rotary.py RotaryEmbedding: _compute_inv_freq (float32 arange / dim)
    and _update_cos_sin_cache (t float32, torch.outer(t, inv_freq), cos(freqs).to(dtype)): (seqlen, dim/2)."""
    inv_freq = 1.0 / (float(base) ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    t = torch.arange(seqlen, dtype=torch.float32)
    freqs = torch.outer(t, inv_freq)
    return torch.cos(freqs).to(dtype), torch.sin(freqs).to(dtype)


def gguf_llama3_rope_freqs(base, dim, factor=8.0, lff=1.0, hff=4.0, old_ctx=8192):
    """llama.cpp convert_hf_to_gguf.py LlamaModel.generate_extra_tensors: the rope_freqs tensor of a
    llama3 model (Python floats per pair, stored as F32): 1 / 'factor' / 1/((1-smooth)/factor + smooth)."""
    freqs = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    rope_factors = []
    for freq in freqs:
        wavelen = 2 * math.pi / freq
        if wavelen < old_ctx / hff:
            rope_factors.append(1)
        elif wavelen > old_ctx / lff:
            rope_factors.append(factor)
        else:
            smooth = (old_ctx / wavelen - lff) / (hff - lff)
            rope_factors.append(1 / ((1 - smooth) / factor + smooth))
    return np.array([float(x) for x in rope_factors], dtype=np.float32)


def ggml_cache_ff(positions, n_dims, base, freq_factors):
    """ggml_rope_cache_init with freq_factors (rope_yarn(theta/ff, ...)), freq_scale 1, ext_factor 0,
    mscale 1 (llama.cpp's Llama-3.1: rope_freqs, no YaRN), binary32 as ggml_cache above."""
    theta_scale = f32(np.power(np.float64(base), np.float64(f32(-2.0) / f32(n_dims))))
    theta = np.asarray(positions, dtype=np.float32).copy()
    n = len(theta)
    cos = np.empty((n, n_dims // 2), np.float32)
    sin = np.empty((n, n_dims // 2), np.float32)
    for i0 in range(0, n_dims, 2):
        th = (theta / f32(freq_factors[i0 // 2])).astype(np.float32)
        cos[:, i0 // 2] = cosf(th)
        sin[:, i0 // 2] = sinf(th)
        theta = (theta * theta_scale).astype(np.float32)
    return cos, sin


def mlx_llama3_periods(base, dims, factor=8.0, lff=1.0, hff=4.0, old_ctx=8192):
    """mlx-lm models/rope_utils.py Llama3RoPE.__init__: mx.fast.rope's freqs are PERIODS
    base^(2i/d) (scaled up by the factor), not inv_freq; float32 as mx.arange / mx.where compute them."""
    freqs = (np.float32(base) ** (np.arange(0, dims, 2, dtype=np.float32) / np.float32(dims))).astype(np.float32)
    wavelens = (np.float32(2 * math.pi) * freqs).astype(np.float32)
    freqs = np.where(wavelens > old_ctx / lff, freqs * np.float32(factor), freqs).astype(np.float32)
    is_medium = (wavelens > old_ctx / hff) & (wavelens < old_ctx / lff)
    smooth = ((np.float32(old_ctx) / wavelens - np.float32(lff)) / np.float32(hff - lff)).astype(np.float32)
    smooth_freqs = (freqs / ((1 - smooth) / np.float32(factor) + smooth)).astype(np.float32)
    return np.where(is_medium, smooth_freqs, freqs).astype(np.float32)


def mlx_fast_rope_cos_sin(periods, positions):
    """mx.fast.rope(..., base=None, scale=1.0, offset, freqs=periods) emulated on the CPU in binary32:
    inv_freq = 1 / freqs[i], theta = position * inv_freq, cos/sin of theta (the Metal kernel's own
    cos and sin are not reproduced: glibc's, as cosf above)."""
    inv = (np.float32(1.0) / periods.astype(np.float32)).astype(np.float32)
    th = (np.asarray(positions, dtype=np.float32)[:, None] * inv[None, :]).astype(np.float32)
    return cosf(th), sinf(th)



# ----------------------------------------------------------------------------- eighth round: configs and functions
# published config.json values (the keys the RoPE reads, and enough of the rest to name the model)
# tiiuae/falcon-7b (FalconConfig: no rope_theta key, default 10000; max_position_embeddings default 2048)
FALCON7B = {"architectures": ["FalconForCausalLM"], "model_type": "falcon", "hidden_size": 4544,
            "num_attention_heads": 71, "num_hidden_layers": 32, "multi_query": True, "new_decoder_architecture": False,
            "parallel_attn": True, "bias": False, "alibi": False, "layer_norm_epsilon": 1e-05, "vocab_size": 65024,
            "torch_dtype": "bfloat16"}
# mistralai/Mistral-Nemo-Base-2407 (head_dim 128 while hidden_size / num_attention_heads = 160)
MISTRAL_NEMO = {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 5120, "head_dim": 128,
                "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 40,
                "max_position_embeddings": 128000, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "sliding_window": None,
                "vocab_size": 131072, "torch_dtype": "bfloat16"}
# mistralai/Mistral-7B-v0.1
MISTRAL7B = {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096,
             "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
             "max_position_embeddings": 32768, "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096,
             "vocab_size": 32000, "torch_dtype": "bfloat16"}
# internlm/internlm2_5-7b-chat (remote InternLM2 code; rope_scaling dynamic x2)
INTERNLM25 = {"architectures": ["InternLM2ForCausalLM"], "model_type": "internlm2", "hidden_size": 4096,
              "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
              "max_position_embeddings": 32768, "rms_norm_eps": 1e-05, "rope_theta": 1000000,
              "rope_scaling": {"type": "dynamic", "factor": 2.0}, "vocab_size": 92544, "torch_dtype": "bfloat16"}
# deepseek-ai/DeepSeek-V2-Lite
DSV2_LITE = {"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2", "hidden_size": 2048,
             "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 27, "q_lora_rank": None,
             "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
             "max_position_embeddings": 163840, "rope_theta": 10000,
             "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707, "mscale_all_dim": 0.707,
                              "original_max_position_embeddings": 4096, "type": "yarn"},
             "vocab_size": 102400, "torch_dtype": "bfloat16"}
# Qwen/Qwen3-8B as published (no rope_scaling: the YaRN block is the model card's opt-in)
QWEN3 = {k: v for k, v in QWEN3_YARN.items() if k != "rope_scaling"}


def falcon_rotary_cos_sin(head_dim, seq_len, dtype, base=10000.0):
    """transformers 4.33 modeling_falcon.py FalconRotaryEmbedding.cos_sin: inv_freq float32,
    t = arange(seq_len).type_as(inv_freq), einsum("i,j->ij"), cat(freqs, freqs), cos().to(dtype)."""
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
    t = torch.arange(seq_len).type_as(inv_freq)
    freqs = torch.einsum("i,j->ij", t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def vllm_rows(inv_freq, positions, mscale=1.0):
    """Rows `positions` of vLLM's _compute_cos_sin_cache (t float32, einsum: each angle one float32 product)."""
    t = torch.as_tensor(np.asarray(positions), dtype=torch.float)
    freqs = torch.einsum("i,j -> ij", t, inv_freq)
    return freqs.cos() * mscale, freqs.sin() * mscale


def hf_dynamic_ntk_inv_freq(base, dim, max_pos, factor, seq_len, clamp=True):
    """transformers _compute_dynamic_ntk_parameters: seq_len = max(seq_len, max_position_embeddings) (clamp=False
    drops that line), base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))."""
    if clamp:
        seq_len = max(seq_len, max_pos)
    base = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))
    return hf_default_inv_freq(base, dim)


def dsv2_remote_yarn_cos_sin(dim, seq_len, base=10000.0, factor=40.0, orig=4096, beta_fast=32, beta_slow=1,
                             mscale=0.707, mscale_all_dim=0.707, attention=None):
    """deepseek-ai/DeepSeek-V2-Lite modeling_deepseek.py DeepseekV2YarnRotaryEmbedding._set_cos_sin_cache:
    freq_extra / freq_inter, yarn_find_correction_range (floor/ceil), inv_freq_mask = 1 - ramp, t float32,
    torch.outer, _mscale = yarn_get_mscale(factor, mscale) / yarn_get_mscale(factor, mscale_all_dim),
    cat(freqs, freqs), cos * _mscale; `attention` replaces _mscale (the bug)."""
    def corr_dim(num_rot):
        return (dim * math.log(orig / (num_rot * 2 * math.pi))) / (2 * math.log(base))

    low = max(math.floor(corr_dim(beta_fast)), 0)
    high = min(math.ceil(corr_dim(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    freq_extra = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    freq_inter = 1.0 / (factor * base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    inv_freq_mask = 1.0 - ramp
    inv_freq = freq_inter * (1 - inv_freq_mask) + freq_extra * inv_freq_mask
    t = torch.arange(seq_len, dtype=torch.float32)
    freqs = torch.outer(t, inv_freq)
    _mscale = float(get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim))
    if attention is not None:
        _mscale = attention
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos() * _mscale, emb.sin() * _mscale


def accumulated_angle_cos_sin(inv_freq, n):
    """theta_0 = 0, theta_p = fl32(theta_(p-1) + omega): numpy's add.accumulate runs in float32, in order."""
    steps = np.broadcast_to(inv_freq.astype(np.float32), (n - 1, len(inv_freq)))
    th = np.concatenate((np.zeros((1, len(inv_freq)), np.float32), np.cumsum(steps, axis=0, dtype=np.float32)))
    return cosf(th), sinf(th)


def recurrence_cos_sin(inv_freq, n):
    """(c, s)_0 = (1, 0); (c, s)_(p+1) = (c cw - s sw, s cw + c sw), every operation in float32."""
    w = inv_freq.astype(np.float32)
    cw, sw = cosf(w), sinf(w)
    c = np.ones_like(w)
    s = np.zeros_like(w)
    cos = np.empty((n, len(w)), np.float32)
    sin = np.empty((n, len(w)), np.float32)
    for p in range(n):
        cos[p], sin[p] = c, s
        c, s = (c * cw - s * sw).astype(np.float32), (s * cw + c * sw).astype(np.float32)
    return cos, sin


def llama3_hard_cut_inv_freq(base, dim, factor, lff, old_ctx):
    """_compute_llama3_parameters' first torch.where alone: wavelen > low_freq_wavelen divided by the factor."""
    inv_freq = hf_default_inv_freq(base, dim)
    wavelen = 2 * math.pi / inv_freq
    return torch.where(wavelen > old_ctx / lff, inv_freq / factor, inv_freq)


def dynamic_per_row_cos_sin(base, dim, max_pos, factor, positions):
    """Row p rotated by HF's dynamic NTK inv_freq for seq_len p + 1 (its decode step), half layout."""
    rows_c, rows_s = [], []
    for p in positions:
        inv = hf_dynamic_ntk_inv_freq(base, dim, max_pos, factor, int(p) + 1)
        c, s = hf_forward(inv, torch.tensor([int(p)]))
        rows_c.append(c)
        rows_s.append(s)
    return torch.cat(rows_c), torch.cat(rows_s)


def yarn_ramp_edges_variant(base, dim, factor, orig, beta_fast=32, beta_slow=1, betas_as_dims=False,
                            correction_dim=None):
    """_compute_yarn_parameters (truncate true) with the ramp edges computed wrongly: the betas taken as the
    edges themselves, or find_correction_dim given another dim."""
    cd = dim if correction_dim is None else correction_dim

    def find_correction_dim(num_rotations):
        return (cd * math.log(orig / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    if betas_as_dims:
        low, high = beta_slow, beta_fast
    else:
        low = max(math.floor(find_correction_dim(beta_fast)), 0)
        high = min(math.ceil(find_correction_dim(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, dim, 2).to(dtype=torch.float) / dim)
    extrap = 1 - ramp
    inv_freq = (1.0 / (factor * pos_freqs)) * (1 - extrap) + (1.0 / pos_freqs) * extrap
    return inv_freq, get_mscale(factor)


def ggml_cache_ff_scaled(positions, n_dims, base, freq_factors, freq_scale):
    """ggml_rope_cache_init with freq_factors and a freq_scale: rope_yarn(theta / ff, freq_scale, ext_factor 0,
    mscale 1): theta = freq_scale * (theta_base / ff), binary32 (ggml_cache_ff with freq_scale)."""
    theta_scale = f32(np.power(np.float64(base), np.float64(f32(-2.0) / f32(n_dims))))
    theta = np.asarray(positions, dtype=np.float32).copy()
    cos = np.empty((len(theta), n_dims // 2), np.float32)
    sin = np.empty((len(theta), n_dims // 2), np.float32)
    for i0 in range(0, n_dims, 2):
        th = (f32(freq_scale) * (theta / f32(freq_factors[i0 // 2])).astype(np.float32)).astype(np.float32)
        cos[:, i0 // 2] = cosf(th)
        sin[:, i0 // 2] = sinf(th)
        theta = (theta * theta_scale).astype(np.float32)
    return cos, sin


def bf16_bits_truncated(t):
    """bfloat16 bit patterns by dropping the low 16 bits of the float32 (round toward zero)."""
    return (np.ascontiguousarray(torch.as_tensor(t).numpy(), dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def sin_from_cos_sqrt(inv_freq, n):
    """cos of the float32 angle; sin = sqrt(max(0, 1 - cos^2)) in float32 with the sign of sin(theta)."""
    freqs = torch.outer(torch.arange(n, dtype=torch.float32), inv_freq)
    c = freqs.cos()
    s = torch.sqrt(torch.clamp(1 - c * c, min=0.0))
    return c, torch.copysign(s, freqs.sin())



# ----------------------------------------------------------------------------- ninth round: configs and functions
# published config.json values (the keys the RoPE reads, and enough of the rest to name the model)
# meta-llama/Llama-4-Scout-17B-16E-Instruct (text_config)
LLAMA4_SCOUT = {"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
                "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "head_dim": 128,
                                "num_attention_heads": 40, "num_key_value_heads": 8, "num_hidden_layers": 48,
                                "intermediate_size": 8192, "intermediate_size_mlp": 16384, "num_local_experts": 16,
                                "max_position_embeddings": 10485760, "rope_theta": 500000.0,
                                "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                                                 "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                                "attention_chunk_size": 8192, "vocab_size": 202048, "rms_norm_eps": 1e-05},
                "vision_config": {"model_type": "llama4_vision_model", "hidden_size": 1408, "rope_theta": 10000},
                "torch_dtype": "bfloat16"}
# THUDM/glm-4-9b-chat (remote ChatGLM code: kv_channels 128, rope_ratio 500, seq_length 131072)
GLM4_9B = {"architectures": ["ChatGLMModel"], "model_type": "chatglm", "add_bias_linear": False, "add_qkv_bias": True,
           "ffn_hidden_size": 13696, "hidden_size": 4096, "kv_channels": 128, "layernorm_epsilon": 1.5625e-07,
           "multi_query_attention": True, "multi_query_group_num": 2, "num_attention_heads": 32, "num_hidden_layers": 40,
           "num_layers": 40, "original_rope": True, "padded_vocab_size": 151552, "post_layer_norm": True, "rmsnorm": True,
           "rope_ratio": 500, "seq_length": 131072, "torch_dtype": "bfloat16", "vocab_size": 151552}
# EleutherAI/pythia-6.9b
PYTHIA69B = {"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "hidden_size": 4096,
             "intermediate_size": 16384, "num_attention_heads": 32, "num_hidden_layers": 32,
             "max_position_embeddings": 2048, "rotary_pct": 0.25, "rotary_emb_base": 10000, "use_parallel_residual": True,
             "layer_norm_eps": 1e-05, "hidden_act": "gelu", "vocab_size": 50432, "torch_dtype": "float16"}
# 01-ai/Yi-6B
YI6B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
        "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 4, "max_position_embeddings": 4096,
        "rms_norm_eps": 1e-05, "rope_theta": 5000000.0, "rope_scaling": None, "vocab_size": 64000, "torch_dtype": "bfloat16"}
# google/gemma-2-9b
GEMMA2_9B = {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "hidden_size": 3584, "head_dim": 256,
             "num_attention_heads": 16, "num_key_value_heads": 8, "num_hidden_layers": 42, "intermediate_size": 14336,
             "max_position_embeddings": 8192, "rope_theta": 10000.0, "sliding_window": 4096, "query_pre_attn_scalar": 256,
             "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "vocab_size": 256000, "torch_dtype": "float32"}
# allenai/OLMo-2-1124-7B
OLMO2_7B = {"architectures": ["Olmo2ForCausalLM"], "model_type": "olmo2", "hidden_size": 4096, "intermediate_size": 11008,
            "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32, "max_position_embeddings": 4096,
            "rope_theta": 500000, "rope_scaling": None, "rms_norm_eps": 1e-06, "vocab_size": 100352, "torch_dtype": "float32"}
# mistralai/Mistral-7B-v0.3
MISTRAL03 = dict(MISTRAL7B, rope_theta=1000000.0, sliding_window=None, vocab_size=32768)


def hf_polar_rows(inv_freq, positions):
    """Llama4TextRotaryEmbedding.forward: float32 inv_freq @ position_ids, torch.polar(ones, freqs) (complex64)."""
    inv = inv_freq[None, :, None].float()
    pos = torch.as_tensor(positions)[None, None, :].float()
    freqs = (inv @ pos).transpose(1, 2)[0]
    return torch.polar(torch.ones_like(freqs), freqs)


def llama3_mask_blend_inv_freq(base, dim, factor, lff, hff, old_ctx):
    """_compute_llama3_parameters with both torch.where replaced by arithmetic masks (m * a + (1 - m) * b)."""
    inv_freq = hf_default_inv_freq(base, dim)
    wavelen = 2 * math.pi / inv_freq
    low = (wavelen > old_ctx / lff).float()
    inv_freq_llama = low * (inv_freq / factor) + (1 - low) * inv_freq
    smooth_factor = (old_ctx / wavelen - lff) / (hff - lff)
    smoothed = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    medium = (~(wavelen < old_ctx / hff) * ~(wavelen > old_ctx / lff)).float()
    return medium * smoothed + (1 - medium) * inv_freq_llama


def chatglm_rope_cache(seq_len, n_elem, rope_ratio, dtype, base=10000):
    """THUDM modeling_chatglm.py RotaryEmbedding.forward_impl: base * rope_ratio, theta float32, outer, stack
    (cos, sin) -> (seq_len, n_elem/2, 2), cast to bfloat16 or half when the model's dtype is one of them."""
    base = base * rope_ratio
    theta = 1.0 / (base ** (torch.arange(0, n_elem, 2, dtype=torch.float) / n_elem))
    seq_idx = torch.arange(seq_len, dtype=torch.float)
    idx_theta = torch.outer(seq_idx, theta).float()
    cache = torch.stack([torch.cos(idx_theta), torch.sin(idx_theta)], dim=-1)
    if dtype in (torch.float16, torch.bfloat16, torch.int8):
        cache = cache.bfloat16() if dtype == torch.bfloat16 else cache.half()
    return cache


def neox_rotary_cache(dim, seq_len, base, precision):
    """gpt-neox megatron/model/positional_embeddings.py RotaryEmbedding._prepare_cache: inv_freq float32,
    t = arange(seq_len).type_as(inv_freq), einsum, cat(freqs, freqs), cos/sin then .to(precision)."""
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
    t = torch.arange(seq_len).type_as(inv_freq)
    freqs = torch.einsum("i,j->ij", t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(precision), emb.sin().to(precision)


def trtllm_yarn_float2(num_pos, dim, base, scaling_factor, orig, beta_fast=32, beta_slow=1, mscale=1.0,
                       mscale_all_dim=0.0):
    """TensorRT-LLM functional.py RopeEmbeddingUtils.create_sinusoidal_positions_yarn (duplicate_data False,
    dtype float32): DeepSeek-V2's yarn (floor/ceil range, 1 - ramp mask), t float32, einsum, float2 (cos, sin)
    x _mscale = get_mscale(s, mscale) / get_mscale(s, mscale_all_dim), flattened (1, num_pos * dim)."""
    def corr_dim(num_rot):
        return (dim * math.log(orig / (num_rot * 2 * math.pi))) / (2 * math.log(base))

    def get_m(scale, m):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    low, high = math.floor(corr_dim(beta_fast)), math.ceil(corr_dim(beta_slow))
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    freq_extra = 1.0 / pos_freqs
    freq_inter = 1.0 / (scaling_factor * pos_freqs)
    inv_freq_mask = 1 - ramp
    inv_freq = freq_inter * (1 - inv_freq_mask) + freq_extra * inv_freq_mask
    t = torch.arange(num_pos, dtype=torch.float32)
    emb = torch.einsum("i,j -> ij", t, inv_freq).unsqueeze(-1)
    _mscale = float(get_m(scaling_factor, mscale) / get_m(scaling_factor, mscale_all_dim))
    concat = torch.cat((torch.cos(emb) * _mscale, torch.sin(emb) * _mscale), dim=-1)
    return concat.reshape((1, -1)).to(torch.float32).numpy()


def trtllm_attention_plugin_float2(num_pos, dim, theta):
    """TensorRT-LLM RopeEmbeddingUtils.create_sinusoidal_positions_for_attention_plugin (scale_type none, numpy
    float32): inv_freq = 1 / float32(theta ** (arange / dim)), einsum in float32, float2 (cos, sin) per pair."""
    inv_freq = (1.0 / (theta ** (np.arange(0, dim, 2) / dim)).astype(np.float32)).astype(np.float32)
    inp = np.expand_dims(np.einsum("i , j -> i j", np.arange(num_pos, dtype=np.float32), inv_freq,
                                   dtype=np.float32), axis=-1)
    concat = np.concatenate((cosf(inp), sinf(inp)), axis=-1)
    return inv_freq, concat.reshape(1, -1).astype(np.float32)


def megatron_rope_emb(dim, rotary_base, max_seq_len, offset=0, rope_scaling_factor=None):
    """Megatron-LM core RotaryEmbedding: inv_freq float32, _apply_scaling (llama3: low 1, high 4, original 8192)
    when rope_scaling, get_freqs_non_repeated (seq = arange(float32) + offset, outer), cat(freqs, freqs)."""
    inv_freq = 1.0 / (rotary_base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    if rope_scaling_factor is not None:
        factor, lff, hff, old = rope_scaling_factor, 1, 4, 8192
        wavelen = 2 * math.pi / inv_freq
        inv_llama = torch.where(wavelen > old / lff, inv_freq / factor, inv_freq)
        smooth = (old / wavelen - lff) / (hff - lff)
        smoothed = (1 - smooth) * inv_llama / factor + smooth * inv_llama
        medium = ~(wavelen < old / hff) * ~(wavelen > old / lff)
        inv_freq = torch.where(medium, smoothed, inv_llama)
    seq = torch.arange(max_seq_len, dtype=inv_freq.dtype) + offset
    freqs = torch.outer(seq, inv_freq)
    return torch.cat((freqs, freqs), dim=-1)


def megatron_cp_rank_rows(pos_emb, cp_size, cp_rank):
    """Megatron-LM rope_utils.get_pos_emb_on_this_cp_rank on (s, d): 2 * cp_size chunks, keep cp_rank and
    2 * cp_size - cp_rank - 1."""
    cp_idx = torch.tensor([cp_rank, 2 * cp_size - cp_rank - 1])
    v = pos_emb.view(2 * cp_size, -1, pos_emb.shape[-1]).index_select(0, cp_idx)
    return v.reshape(-1, pos_emb.shape[-1])


def flash_attn_xpos_cos_sin(dim, base, seqlen, scale_base):
    """flash-attn layers/rotary.py RotaryEmbedding with scale_base set: scale = (arange(0, dim, 2) + 0.4 dim) /
    (1.4 dim), power = (arange(seqlen) - seqlen // 2) / scale_base, cos_cached = cos(freqs) * scale ** power."""
    inv_freq = 1.0 / (float(base) ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    scale = (torch.arange(0, dim, 2, dtype=torch.float32) + 0.4 * dim) / (1.4 * dim)
    t = torch.arange(seqlen, dtype=torch.float32)
    freqs = torch.outer(t, inv_freq)
    power = (torch.arange(seqlen, dtype=scale.dtype) - seqlen // 2) / scale_base
    sc = scale ** power[:, None]
    return torch.cos(freqs) * sc, torch.sin(freqs) * sc


def yarn_inv_freq_and_pair_amplitude(base, dim, factor, orig, beta_fast=32, beta_slow=1):
    """transformers _compute_yarn_parameters' inv_freq (truncate true), and the per-pair amplitude of the bug:
    the attention factor blended with inv_freq_extrapolation_factor, A (1 - m_i) + m_i."""
    inv, af = hf_yarn(base, dim, factor, orig, beta_fast, beta_slow)

    def corr_dim(num_rot):
        return (dim * math.log(orig / (num_rot * 2 * math.pi))) / (2 * math.log(base))

    low = max(math.floor(corr_dim(beta_fast)), 0)
    high = min(math.ceil(corr_dim(beta_slow)), dim - 1)
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    m = 1 - ramp
    return inv, af * (1 - m) + m


# EleutherAI/gpt-j-6b (rotary_dim 64 of the 256-dim heads)
GPTJ6B = {"architectures": ["GPTJForCausalLM"], "model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_layer": 28,
          "n_positions": 2048, "rotary_dim": 64, "rotary": True, "n_inner": None, "layer_norm_epsilon": 1e-05,
          "activation_function": "gelu_new", "vocab_size": 50400, "tie_word_embeddings": False}


def gptj_create_sinusoidal_positions(num_pos, dim):
    """transformers modeling_gptj.py create_sinusoidal_positions: int64 arange / dim (float32), einsum over
    float positions, cat((sin, cos), dim=1)."""
    inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2, dtype=torch.int64) / dim))
    sinusoid_inp = torch.einsum("i , j -> i j", torch.arange(num_pos, dtype=torch.int64).float(), inv_freq).float()
    return torch.cat((torch.sin(sinusoid_inp), torch.cos(sinusoid_inp)), dim=1)


def nemo_rope_emb(dim, max_seq_len, seq_len_interpolation_factor, pretrained_max_position_embeddings, offset=0):
    """NeMo 1.x RotaryEmbedding.forward: seq = (arange + offset).type_as(inv_freq); above pretrained * factor the
    dynamic linear scaling seq *= 1 / (max_seq_len / pretrained), else seq *= 1 / factor; einsum, cat(freqs, freqs)."""
    inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    seq = (torch.arange(max_seq_len) + offset).type_as(inv_freq)
    if max_seq_len > pretrained_max_position_embeddings * seq_len_interpolation_factor:
        seq *= 1 / (max_seq_len / pretrained_max_position_embeddings)
    else:
        seq *= 1 / seq_len_interpolation_factor
    freqs = torch.einsum("i , j -> i j", seq, inv_freq)
    return torch.cat((freqs, freqs), dim=-1)


if __name__ == "__main__":
    main(set(sys.argv[1:]) or None)
