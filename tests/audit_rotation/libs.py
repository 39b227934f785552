"""Faithful ports of library rotary code (formulation copied; imports stubbed).

Sources read (via the code index), cited per function:
  torchtune  pytorch/torchtune torchtune/modules/position_embeddings.py @01306df8 (RotaryPositionalEmbeddings)
             pytorch/torchtune torchtune/models/llama3_1/_position_embeddings.py @c2cc6947 (Llama3ScaledRoPE)
  HF         huggingface/transformers src/transformers/models/llama/modeling_llama.py @00227283
             (LlamaRotaryEmbedding.forward, rotate_half, apply_rotary_pos_emb)
             .../modeling_rope_utils.py @0044e3b3 (_compute_default_rope_parameters)
             .../models/gpt_neox/modeling_gpt_neox.py @006bd23d (rotary_ndims slice [:R], rotate_half)
             .../models/cohere/modeling_cohere.py (rotate_half interleaved, apply upcasts to float; emb repeat_interleave)
             .../models/qwen2_vl/modeling_qwen2_vl.py @00b676f8 (Qwen2VLRotaryEmbedding, apply_multimodal_rotary_pos_emb)
  vLLM       vllm-project/vllm vllm/model_executor/layers/rotary_embedding/base.py @072d10a0 (RotaryEmbedding.forward_static)
             .../common.py @1593f0c1 (apply_rotary_emb_torch, yarn_* helpers)
             .../llama3_rope.py @045d7575 (Llama3RotaryEmbedding._compute_inv_freq)
             .../yarn_scaling_rope.py @0cd57848 (YaRNScalingRotaryEmbedding)
             .../mrope.py @dba39a55 (MRotaryEmbedding.forward_native)
             .../__init__.py @07b12f1b (get_rope: yarn gets original_max_position as max_position_embeddings)
  Meta       meta-llama/llama llama/model.py @0504cf44 (precompute_freqs_cis, reshape_for_broadcast, apply_rotary_emb)
  flash-attn Dao-AILab/flash-attention flash_attn/layers/rotary.py @09d422b1 (rotate_half, apply_rotary_emb_torch)
"""
import math
import torch

# ----------------------------------------------------------------------------- torchtune

class TTRotaryPositionalEmbeddings(torch.nn.Module):
    """torchtune RotaryPositionalEmbeddings (interleaved pairs (2i, 2i+1))."""

    def __init__(self, dim, max_seq_len=4096, base=10_000):
        super().__init__()
        self.dim, self.base, self.max_seq_len = dim, base, max_seq_len
        self.rope_init()

    def _freqs(self):
        return 1.0 / (self.base ** (torch.arange(0, self.dim, 2)[: (self.dim // 2)].float() / self.dim))

    def rope_init(self):
        theta = self._freqs()
        self.register_buffer("theta", theta, persistent=False)
        self.build_rope_cache(self.max_seq_len)

    def build_rope_cache(self, max_seq_len=4096):
        seq_idx = torch.arange(max_seq_len, dtype=self.theta.dtype, device=self.theta.device)
        idx_theta = torch.einsum("i, j -> ij", seq_idx, self.theta).float()
        cache = torch.stack([torch.cos(idx_theta), torch.sin(idx_theta)], dim=-1)
        self.register_buffer("cache", cache, persistent=False)

    def forward(self, x, *, input_pos=None):
        seq_len = x.size(1)
        rope_cache = self.cache[:seq_len] if input_pos is None else self.cache[input_pos]
        xshaped = x.float().reshape(*x.shape[:-1], -1, 2)
        rope_cache = rope_cache.view(-1, xshaped.size(1), 1, xshaped.size(3), 2)
        x_out = torch.stack(
            [
                xshaped[..., 0] * rope_cache[..., 0] - xshaped[..., 1] * rope_cache[..., 1],
                xshaped[..., 1] * rope_cache[..., 0] + xshaped[..., 0] * rope_cache[..., 1],
            ],
            -1,
        )
        x_out = x_out.flatten(3)
        return x_out.type_as(x)


class TTLlama3ScaledRoPE(TTRotaryPositionalEmbeddings):
    """torchtune Llama3ScaledRoPE: same forward, theta = apply_scaling(freqs)."""

    def _freqs(self):
        freqs = super()._freqs()
        return self.apply_scaling(freqs)

    def apply_scaling(self, freqs):
        scale_factor = 8
        low_freq_factor = 1
        high_freq_factor = 4
        old_context_len = 8192
        low_freq_wavelen = old_context_len / low_freq_factor
        high_freq_wavelen = old_context_len / high_freq_factor
        new_freqs = []
        for freq in freqs:
            wavelen = 2 * math.pi / freq
            if wavelen < high_freq_wavelen:
                new_freqs.append(freq)
            elif wavelen > low_freq_wavelen:
                new_freqs.append(freq / scale_factor)
            else:
                smooth = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
                new_freqs.append((1 - smooth) * freq / scale_factor + smooth * freq)
        return torch.tensor(new_freqs, dtype=freqs.dtype, device=freqs.device)


# ----------------------------------------------------------------------------- transformers

def hf_default_inv_freq(base, dim):
    # _compute_default_rope_parameters
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))


def hf_llama3_inv_freq(base, dim, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, old_context_len=8192):
    # _compute_llama3_parameters (transformers modeling_rope_utils)
    inv_freq = hf_default_inv_freq(base, dim)
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


def hf_rotary_forward(inv_freq, x, position_ids, attention_scaling=1.0):
    """LlamaRotaryEmbedding.forward: (cos, sin) of shape (bs, n, dim) in x.dtype (cat(freqs, freqs))."""
    inv_freq_expanded = inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
    position_ids_expanded = position_ids[:, None, :].float()
    freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos = emb.cos() * attention_scaling
    sin = emb.sin() * attention_scaling
    return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def hf_apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def neox_apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    """GPT-NeoX / Phi partial rotary: rotate q[..., :rotary_dim] (rotary_dim = cos.shape[-1]), pass the rest."""
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    rotary_dim = cos.shape[-1]
    q_rot, q_pass = q[..., :rotary_dim], q[..., rotary_dim:]
    k_rot, k_pass = k[..., :rotary_dim], k[..., rotary_dim:]
    q_embed = (q_rot * cos) + (rotate_half(q_rot) * sin)
    k_embed = (k_rot * cos) + (rotate_half(k_rot) * sin)
    return torch.cat([q_embed, q_pass], dim=-1), torch.cat([k_embed, k_pass], dim=-1)


def cohere_rotate_half(x):
    # Cohere's rotate_half == GPT-J's rotate_every_two
    x1 = x[..., ::2]
    x2 = x[..., 1::2]
    return torch.stack([-x2, x1], dim=-1).flatten(-2)


def cohere_apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    dtype = q.dtype
    q = q.float()
    k = k.float()
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (cohere_rotate_half(q) * sin)
    k_embed = (k * cos) + (cohere_rotate_half(k) * sin)
    return q_embed.to(dtype=dtype), k_embed.to(dtype=dtype)


def qwen2vl_rotary_forward(inv_freq, x, position_ids, attention_scaling=1.0):
    """Qwen2VLRotaryEmbedding.forward: position_ids (3, bs, n) -> cos, sin (3, bs, n, dim)."""
    inv_freq_expanded = inv_freq[None, None, :, None].float().expand(3, position_ids.shape[1], -1, 1)
    position_ids_expanded = position_ids[:, :, None, :].float()
    freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(2, 3)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos = emb.cos() * attention_scaling
    sin = emb.sin() * attention_scaling
    return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def apply_multimodal_rotary_pos_emb(q, k, cos, sin, mrope_section, unsqueeze_dim=1):
    mrope_section = mrope_section * 2
    cos = torch.cat([m[i % 3] for i, m in enumerate(cos.split(mrope_section, dim=-1))], dim=-1).unsqueeze(unsqueeze_dim)
    sin = torch.cat([m[i % 3] for i, m in enumerate(sin.split(mrope_section, dim=-1))], dim=-1).unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


# ----------------------------------------------------------------------------- vLLM

def vllm_apply_rotary_emb_torch(x, cos, sin, is_neox_style):
    cos = cos.unsqueeze(-2).to(x.dtype)
    sin = sin.unsqueeze(-2).to(x.dtype)
    if is_neox_style:
        x1, x2 = torch.chunk(x, 2, dim=-1)
    else:
        x1 = x[..., ::2]
        x2 = x[..., 1::2]
    o1 = x1 * cos - x2 * sin
    o2 = x2 * cos + x1 * sin
    if is_neox_style:
        return torch.cat((o1, o2), dim=-1)
    return torch.stack((o1, o2), dim=-1).flatten(-2)


def yarn_find_correction_dim(num_rotations, dim, base=10000, max_position_embeddings=2048):
    return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_find_correction_range(low_rot, high_rot, dim, base=10000, max_position_embeddings=2048):
    low = math.floor(yarn_find_correction_dim(low_rot, dim, base, max_position_embeddings))
    high = math.ceil(yarn_find_correction_dim(high_rot, dim, base, max_position_embeddings))
    return max(low, 0), min(high, dim - 1)


def yarn_linear_ramp_mask(low, high, dim, dtype):
    if low == high:
        high += 0.001
    linear_func = (torch.arange(dim, dtype=dtype) - low) / (high - low)
    return torch.clamp(linear_func, 0, 1)


def yarn_get_mscale(scale=1, mscale=1):
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


class VllmRotaryEmbedding:
    """RotaryEmbedding (base.py): cos_sin_cache = cat(cos, sin) cast to model dtype; forward_static."""

    def __init__(self, head_size, rotary_dim, max_position_embeddings, base, is_neox_style, dtype):
        self.head_size, self.rotary_dim = head_size, rotary_dim
        self.max_position_embeddings, self.base = max_position_embeddings, base
        self.is_neox_style, self.dtype = is_neox_style, dtype
        self.cos_sin_cache = self._compute_cos_sin_cache().to(dtype)

    def _compute_inv_freq(self, base):
        return 1.0 / (base ** (torch.arange(0, self.rotary_dim, 2, dtype=torch.float) / self.rotary_dim))

    def _compute_cos_sin_cache(self):
        inv_freq = self._compute_inv_freq(self.base)
        t = torch.arange(self.max_position_embeddings, dtype=torch.float)
        freqs = torch.einsum("i,j -> ij", t, inv_freq)
        return torch.cat((freqs.cos(), freqs.sin()), dim=-1)

    def _cos_sin(self, positions):
        cos_sin = self.cos_sin_cache.index_select(0, positions)
        return cos_sin.chunk(2, dim=-1)

    def forward_native(self, positions, query, key):
        head_size, rotary_dim = self.head_size, self.rotary_dim
        positions = positions.flatten()
        num_tokens = positions.shape[0]
        cos, sin = self._cos_sin(positions)
        query_shape = query.shape
        query = query.view(num_tokens, -1, head_size)
        query_rot = query[..., :rotary_dim]
        query_pass = query[..., rotary_dim:]
        query_rot = vllm_apply_rotary_emb_torch(query_rot, cos, sin, self.is_neox_style)
        query = torch.cat((query_rot, query_pass), dim=-1).reshape(query_shape)
        if key is not None:
            key_shape = key.shape
            key = key.view(num_tokens, -1, head_size)
            key_rot = key[..., :rotary_dim]
            key_pass = key[..., rotary_dim:]
            key_rot = vllm_apply_rotary_emb_torch(key_rot, cos, sin, self.is_neox_style)
            key = torch.cat((key_rot, key_pass), dim=-1).reshape(key_shape)
        return query, key


class VllmLlama3RotaryEmbedding(VllmRotaryEmbedding):
    def __init__(self, head_size, rotary_dim, max_position_embeddings, base, is_neox_style, dtype,
                 scaling_factor, low_freq_factor, high_freq_factor, orig_max_position):
        self.scaling_factor = scaling_factor
        self.low_freq_factor = low_freq_factor
        self.high_freq_factor = high_freq_factor
        self.orig_max_position = orig_max_position
        super().__init__(head_size, rotary_dim, max_position_embeddings, base, is_neox_style, dtype)

    def _compute_inv_freq(self, base):
        inv_freqs = super()._compute_inv_freq(base)
        low_freq_wavelen = self.orig_max_position / self.low_freq_factor
        high_freq_wavelen = self.orig_max_position / self.high_freq_factor
        wave_len = 2 * math.pi / inv_freqs
        if self.low_freq_factor != self.high_freq_factor:
            smooth = (self.orig_max_position / wave_len - self.low_freq_factor) / (
                self.high_freq_factor - self.low_freq_factor)
        else:
            smooth = 0
        return torch.where(
            wave_len < high_freq_wavelen,
            inv_freqs,
            torch.where(wave_len > low_freq_wavelen, inv_freqs / self.scaling_factor,
                        (1 - smooth) * inv_freqs / self.scaling_factor + smooth * inv_freqs),
        )


class VllmYaRNScalingRotaryEmbedding(VllmRotaryEmbedding):
    def __init__(self, head_size, rotary_dim, max_position_embeddings, base, is_neox_style,
                 scaling_factor, dtype, *, beta_fast=32, beta_slow=1):
        self.scaling_factor = scaling_factor
        self.beta_fast, self.beta_slow = beta_fast, beta_slow
        self.mscale = float(yarn_get_mscale(self.scaling_factor))
        super().__init__(head_size, rotary_dim, max_position_embeddings, base, is_neox_style, dtype)

    def _compute_inv_freq(self, scaling_factor):
        pos_freqs = self.base ** (torch.arange(0, self.rotary_dim, 2, dtype=torch.float) / self.rotary_dim)
        inv_freq_extrapolation = 1.0 / pos_freqs
        inv_freq_interpolation = 1.0 / (scaling_factor * pos_freqs)
        low, high = yarn_find_correction_range(self.beta_fast, self.beta_slow, self.rotary_dim, self.base,
                                               self.max_position_embeddings)
        inv_freq_mask = 1 - yarn_linear_ramp_mask(low, high, self.rotary_dim // 2, dtype=torch.float)
        return inv_freq_interpolation * (1 - inv_freq_mask) + inv_freq_extrapolation * inv_freq_mask

    def _compute_cos_sin_cache(self):
        inv_freq = self._compute_inv_freq(self.scaling_factor)
        num_positions = math.ceil(self.max_position_embeddings * self.scaling_factor)
        t = torch.arange(num_positions, dtype=torch.float32)
        freqs = torch.einsum("i,j -> ij", t, inv_freq)
        cos = freqs.cos() * self.mscale
        sin = freqs.sin() * self.mscale
        return torch.cat((cos, sin), dim=-1)


class VllmMRotaryEmbedding(VllmRotaryEmbedding):
    """MRotaryEmbedding.forward_native, positions (3, n), non-interleaved sections."""

    def __init__(self, head_size, rotary_dim, max_position_embeddings, base, is_neox_style, dtype, mrope_section):
        self.mrope_section = mrope_section
        super().__init__(head_size, rotary_dim, max_position_embeddings * 4, base, is_neox_style, dtype)
        assert sum(self.mrope_section) == rotary_dim // 2

    def forward_native(self, positions, query, key):
        num_tokens = positions.shape[-1]
        cos_sin = self.cos_sin_cache[positions]
        cos, sin = cos_sin.chunk(2, dim=-1)
        if positions.ndim == 2:
            cos = torch.cat([m[i] for i, m in enumerate(cos.split(self.mrope_section, dim=-1))], dim=-1)
            sin = torch.cat([m[i] for i, m in enumerate(sin.split(self.mrope_section, dim=-1))], dim=-1)
        query_shape = query.shape
        query = query.view(num_tokens, -1, self.head_size)
        query_rot = query[..., : self.rotary_dim]
        query_pass = query[..., self.rotary_dim :]
        query_rot = vllm_apply_rotary_emb_torch(query_rot, cos, sin, self.is_neox_style)
        query = torch.cat((query_rot, query_pass), dim=-1).reshape(query_shape)
        key_shape = key.shape
        key = key.view(num_tokens, -1, self.head_size)
        key_rot = key[..., : self.rotary_dim]
        key_pass = key[..., self.rotary_dim :]
        key_rot = vllm_apply_rotary_emb_torch(key_rot, cos, sin, self.is_neox_style)
        key = torch.cat((key_rot, key_pass), dim=-1).reshape(key_shape)
        return query, key


# ----------------------------------------------------------------------------- Meta llama

def meta_precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)


def meta_reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    assert freqs_cis.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def meta_apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = meta_reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


# ----------------------------------------------------------------------------- flash-attn

def fa_rotate_half(x, interleaved=False):
    if not interleaved:
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)
    x1, x2 = x[..., ::2], x[..., 1::2]
    # rearrange(torch.stack((-x2, x1), dim=-1), "... d two -> ... (d two)", two=2)
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def fa_apply_rotary_emb_torch(x, cos, sin, interleaved=False):
    """x: (b, s, h, d); cos, sin: (s, rotary_dim/2). einops.repeat replaced by its torch equivalent."""
    ro_dim = cos.shape[-1] * 2
    assert ro_dim <= x.shape[-1]
    if not interleaved:   # "... d -> ... 1 (2 d)"
        cos = torch.cat((cos, cos), dim=-1).unsqueeze(-2)
        sin = torch.cat((sin, sin), dim=-1).unsqueeze(-2)
    else:                 # "... d -> ... 1 (d 2)"
        cos = cos.repeat_interleave(2, dim=-1).unsqueeze(-2)
        sin = sin.repeat_interleave(2, dim=-1).unsqueeze(-2)
    return torch.cat(
        [x[..., :ro_dim] * cos + fa_rotate_half(x[..., :ro_dim], interleaved) * sin, x[..., ro_dim:]],
        dim=-1,
    )
