"""RoPE rotations written the way their libraries write them, for
tests/python/test_rotation.py: torchtune's RotaryPositionalEmbeddings (and
Llama3ScaledRoPE), transformers' rotate_half / apply_rotary_pos_emb (and
GPT-NeoX's partial rotary, GPT-J's rotate_every_two, the YaRN parameters),
vLLM's RotaryEmbedding.forward_native / _apply_rotary_emb_torch (and
MRotaryEmbedding's sections), Meta's apply_rotary_emb with view_as_complex,
flash-attn's apply_rotary_emb_torch (einops' repeat written in torch).
Each is the library's formulation; the knobs make the bugs the tests plant."""
import math

import torch


# ---- torchtune: torchtune/modules/position_embeddings.py -----------------------

class RotaryPositionalEmbeddings(torch.nn.Module):
    """torchtune's RoPE (interleaved pairs); forward(x, *, input_pos)."""

    def __init__(self, dim, max_seq_len=4096, base=10_000):
        super().__init__()
        self.dim, self.base, self.max_seq_len = dim, base, max_seq_len
        self.rope_init()

    def rope_init(self):
        theta = 1.0 / (self.base ** (torch.arange(0, self.dim, 2)[: (self.dim // 2)].float()
                                     / self.dim))
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
        x_out = torch.stack([
            xshaped[..., 0] * rope_cache[..., 0] - xshaped[..., 1] * rope_cache[..., 1],
            xshaped[..., 1] * rope_cache[..., 0] + xshaped[..., 0] * rope_cache[..., 1],
        ], -1)
        x_out = x_out.flatten(3)
        return x_out.type_as(x)


class Llama3ScaledRoPE(RotaryPositionalEmbeddings):
    """torchtune's Llama3ScaledRoPE (models/llama3_1/_position_embeddings.py)."""

    def __init__(self, dim, max_seq_len=4096, base=500_000, scale_factor=8, low_freq_factor=1,
                 high_freq_factor=4, old_context_len=8192):
        self.scale_factor, self.low_freq_factor = scale_factor, low_freq_factor
        self.high_freq_factor, self.old_context_len = high_freq_factor, old_context_len
        super().__init__(dim, max_seq_len, base)

    def rope_init(self):
        freqs = 1.0 / (self.base ** (torch.arange(0, self.dim, 2)[: (self.dim // 2)].float()
                                     / self.dim))
        theta = self.apply_scaling(freqs)
        self.register_buffer("theta", theta, persistent=False)
        self.build_rope_cache(self.max_seq_len)

    def apply_scaling(self, freqs):
        low_freq_wavelen = self.old_context_len / self.low_freq_factor
        high_freq_wavelen = self.old_context_len / self.high_freq_factor
        new_freqs = []
        for freq in freqs:
            wavelen = 2 * math.pi / freq
            if wavelen < high_freq_wavelen:
                new_freqs.append(freq)
            elif wavelen > low_freq_wavelen:
                new_freqs.append(freq / self.scale_factor)
            else:
                smooth = (self.old_context_len / wavelen - self.low_freq_factor) / (
                    self.high_freq_factor - self.low_freq_factor)
                new_freqs.append((1 - smooth) * freq / self.scale_factor + smooth * freq)
        return torch.tensor(new_freqs, dtype=freqs.dtype, device=freqs.device)


# ---- transformers: modeling_llama.py, modeling_gpt_neox.py, modeling_gptj.py ---

def rotate_half(x):
    """Rotates half the hidden dims of the input."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    """transformers' apply_rotary_pos_emb (Llama)."""
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def neox_apply(rotary_ndims, wrong_slice=False):
    """GPT-NeoX's attention: the first ROTARY_NDIMS dims of each head rotated
    (rotary_pct), the rest passed; WRONG_SLICE rotates the last ones."""

    def apply(q, k, cos, sin):
        if wrong_slice:
            q_rot, q_pass = q[..., -rotary_ndims:], q[..., :-rotary_ndims]
            k_rot, k_pass = k[..., -rotary_ndims:], k[..., :-rotary_ndims]
            q_rot, k_rot = apply_rotary_pos_emb(q_rot, k_rot, cos, sin)
            return torch.cat((q_pass, q_rot), dim=-1), torch.cat((k_pass, k_rot), dim=-1)
        q_rot, q_pass = q[..., :rotary_ndims], q[..., rotary_ndims:]
        k_rot, k_pass = k[..., :rotary_ndims], k[..., rotary_ndims:]
        q_rot, k_rot = apply_rotary_pos_emb(q_rot, k_rot, cos, sin)
        return torch.cat((q_rot, q_pass), dim=-1), torch.cat((k_rot, k_pass), dim=-1)

    return apply


def rotate_every_two(x):
    """GPT-J's rotate_every_two."""
    x1 = x[:, :, :, ::2]
    x2 = x[:, :, :, 1::2]
    x = torch.stack((-x2, x1), dim=-1)
    return x.flatten(-2)


def gptj_apply(q, k, cos, sin):
    """GPT-J's apply_rotary_pos_emb (tensor * cos) + (rotate_every_two(tensor)
    * sin) on HF's tensors: cos, sin (1, n, R) of repeat_interleave."""
    cos, sin = cos[:, None], sin[:, None]
    return (q * cos) + (rotate_every_two(q) * sin), (k * cos) + (rotate_every_two(k) * sin)


def yarn_parameters(dim, base, factor, original_max_position_embeddings, beta_fast=32,
                    beta_slow=1):
    """transformers' _compute_yarn_parameters (truncate: floor and ceil):
    inv_freq and the attention factor."""

    def get_mscale(scale, mscale=1):
        if scale <= 1:
            return 1.0
        return 0.1 * mscale * math.log(scale) + 1.0

    attention_factor = get_mscale(factor)

    def find_correction_dim(num_rotations, dim, base, max_position_embeddings):
        return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (
            2 * math.log(base))

    def find_correction_range(low_rot, high_rot, dim, base, max_position_embeddings):
        low = math.floor(find_correction_dim(low_rot, dim, base, max_position_embeddings))
        high = math.ceil(find_correction_dim(high_rot, dim, base, max_position_embeddings))
        return max(low, 0), min(high, dim - 1)

    def linear_ramp_factor(min_, max_, dim):
        if min_ == max_:
            max_ += 0.001
        linear_func = (torch.arange(dim, dtype=torch.float32) - min_) / (max_ - min_)
        return torch.clamp(linear_func, 0, 1)

    pos_freqs = base ** (torch.arange(0, dim, 2).float() / dim)
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (factor * pos_freqs)
    low, high = find_correction_range(beta_fast, beta_slow, dim, base,
                                      original_max_position_embeddings)
    inv_freq_extrapolation_factor = 1 - linear_ramp_factor(low, high, dim // 2).float()
    inv_freq = (inv_freq_interpolation * (1 - inv_freq_extrapolation_factor)
                + inv_freq_extrapolation * inv_freq_extrapolation_factor)
    return inv_freq, attention_factor


# ---- vLLM: model_executor/layers/rotary_embedding.py ---------------------------

def _apply_rotary_emb_torch(x, cos, sin, is_neox_style):
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


class RotaryEmbedding(torch.nn.Module):
    """vLLM's RotaryEmbedding; forward_native(positions, query, key).
    INV_FREQ, MSCALE: a scaled schedule's (YaRN); POS_OFFSET: positions
    shifted (a bug); CACHE_DTYPE: the cos/sin cache's dtype (vLLM: the
    model's)."""

    def __init__(self, head_size, rotary_dim, max_position_embeddings, base, is_neox_style,
                 dtype, inv_freq=None, mscale=1.0, pos_offset=0):
        super().__init__()
        self.head_size, self.rotary_dim = head_size, rotary_dim
        self.max_position_embeddings, self.base = max_position_embeddings, base
        self.is_neox_style, self.mscale, self.pos_offset = is_neox_style, mscale, pos_offset
        self._inv_freq = inv_freq
        cache = self._compute_cos_sin_cache().to(dtype)
        self.register_buffer("cos_sin_cache", cache, persistent=False)

    def _compute_inv_freq(self, base):
        if self._inv_freq is not None:
            return self._inv_freq
        return 1.0 / (base ** (torch.arange(0, self.rotary_dim, 2, dtype=torch.float)
                               / self.rotary_dim))

    def _compute_cos_sin_cache(self):
        inv_freq = self._compute_inv_freq(self.base)
        t = torch.arange(self.max_position_embeddings, dtype=torch.float)
        freqs = torch.einsum("i,j -> ij", t, inv_freq)
        cos = freqs.cos() * self.mscale
        sin = freqs.sin() * self.mscale
        return torch.cat((cos, sin), dim=-1)

    def forward_native(self, positions, query, key):
        positions = positions.flatten() + self.pos_offset
        num_tokens = positions.shape[0]
        cos_sin = self.cos_sin_cache.index_select(0, positions)
        cos, sin = cos_sin.chunk(2, dim=-1)
        return self._rotate(num_tokens, cos, sin, query, key)

    def _rotate(self, num_tokens, cos, sin, query, key):
        query_shape = query.shape
        query = query.view(num_tokens, -1, self.head_size)
        query_rot = query[..., :self.rotary_dim]
        query_pass = query[..., self.rotary_dim:]
        query_rot = _apply_rotary_emb_torch(query_rot, cos, sin, self.is_neox_style)
        query = torch.cat((query_rot, query_pass), dim=-1).reshape(query_shape)
        key_shape = key.shape
        key = key.view(num_tokens, -1, self.head_size)
        key_rot = key[..., :self.rotary_dim]
        key_pass = key[..., self.rotary_dim:]
        key_rot = _apply_rotary_emb_torch(key_rot, cos, sin, self.is_neox_style)
        key = torch.cat((key_rot, key_pass), dim=-1).reshape(key_shape)
        return query, key


class MRotaryEmbedding(RotaryEmbedding):
    """vLLM's MRotaryEmbedding (Qwen2-VL's M-RoPE): positions (3, n), the
    pairs of each axis by MROPE_SECTION; check_rotation hands (n, 3)."""

    def __init__(self, head_size, rotary_dim, max_position_embeddings, base, is_neox_style,
                 dtype, mrope_section):
        super().__init__(head_size, rotary_dim, max_position_embeddings, base, is_neox_style,
                         dtype)
        self.mrope_section = mrope_section

    def forward_native(self, positions, query, key):
        positions = positions.T  # check_rotation's (n, 3) as vLLM's (3, n)
        num_tokens = positions.shape[-1]
        cos_sin = self.cos_sin_cache[positions]
        cos, sin = cos_sin.chunk(2, dim=-1)
        cos = torch.cat([m[i] for i, m in enumerate(cos.split(self.mrope_section, dim=-1))],
                        dim=-1)
        sin = torch.cat([m[i] for i, m in enumerate(sin.split(self.mrope_section, dim=-1))],
                        dim=-1)
        return self._rotate(num_tokens, cos, sin, query, key)


# ---- Meta: llama/model.py ------------------------------------------------------

def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    assert 0 <= 1 < ndim
    assert freqs_cis.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    """Meta's apply_rotary_emb (view_as_complex: interleaved pairs)."""
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


# ---- flash-attn: flash_attn/layers/rotary.py -----------------------------------

def fa_rotate_half(x, interleaved=False):
    if not interleaved:
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)
    x1, x2 = x[..., ::2], x[..., 1::2]
    # rearrange(torch.stack((-x2, x1), dim=-1), "... d two -> ... (d two)", two=2)
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def apply_rotary_emb_torch(x, cos, sin, interleaved=False):
    """flash-attn's reference: x (batch, seqlen, nheads, headdim), cos, sin
    (seqlen, rotary_dim / 2)."""
    ro_dim = cos.shape[-1] * 2
    assert ro_dim <= x.shape[-1]
    # repeat(cos, "... d -> ... 1 (2 d)") / "... d -> ... 1 (d 2)"
    if interleaved:
        cos, sin = cos.repeat_interleave(2, dim=-1), sin.repeat_interleave(2, dim=-1)
    else:
        cos, sin = torch.cat((cos, cos), dim=-1), torch.cat((sin, sin), dim=-1)
    cos, sin = cos[..., None, :], sin[..., None, :]
    return torch.cat(
        [x[..., :ro_dim] * cos + fa_rotate_half(x[..., :ro_dim], interleaved) * sin,
         x[..., ro_dim:]], dim=-1)
