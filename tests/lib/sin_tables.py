"""sin_tables.py: sinusoidal position and timestep tables as the libraries
compute them, for tests/sinusoidal_zoo.t.  Each function follows one
library's published code, operation by operation, in PyTorch float32 (or
NumPy float64 where the library computes in float64):

  t2t_timing_signal     tensor2tensor 1.15, layers/common_attention.py,
                        get_timing_signal_1d (TensorFlow float32: the Python
                        float log(max/min) divided by float32(h - 1), times
                        float32 range(h), tf.exp, min_timescale *, position *)
  fairseq_sinusoidal    fairseq 0.12, modules/sinusoidal_positional_embedding.py,
                        SinusoidalPositionalEmbedding.get_embedding and the
                        rows its forward reads (padding_idx + 1 on)
  whisper_sinusoids     openai-whisper 20231117, whisper/model.py, sinusoids
  marian_sinusoidal     transformers 4.x, models/marian/modeling_marian.py,
                        MarianSinusoidalPositionalEmbedding._init_weight
                        (NumPy float64, then FloatTensor)
  diffusers_timestep    diffusers 0.2x, models/embeddings.py,
                        get_timestep_embedding(timesteps, embedding_dim,
                        flip_sin_to_cos, downscale_freq_shift, scale, max_period)
  adm_timestep          guided-diffusion (ADM), guided_diffusion/nn.py,
                        timestep_embedding(timesteps, dim, max_period)
  vaswani_interleaved   the paper's interleaved table in float32 (the
                        PyTorch tutorial's PositionalEncoding: exp form)
"""
import math

import numpy as np
import torch

f32 = torch.float32


def t2t_timing_signal(length, channels, min_timescale=1.0, max_timescale=1.0e4, start_index=0):
    position = (torch.arange(length) + start_index).to(f32)
    num_timescales = channels // 2
    increment = torch.tensor(math.log(float(max_timescale) / float(min_timescale)), dtype=f32) / \
        torch.clamp(torch.tensor(float(num_timescales), dtype=f32) - 1, min=1)
    inv_timescales = torch.tensor(min_timescale, dtype=f32) * torch.exp(
        torch.arange(num_timescales).to(f32) * -increment)
    scaled_time = position[:, None] * inv_timescales[None, :]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)


def fairseq_weights(num_embeddings, embedding_dim, padding_idx=None):
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
    emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
    if padding_idx is not None:
        emb[padding_idx, :] = 0
    return emb


def fairseq_sinusoidal(length, dim, padding_idx=1):
    """The rows the module's forward adds to tokens 0..length-1: weights at
    make_positions = padding_idx + 1 + i."""
    w = fairseq_weights(padding_idx + 1 + length, dim, padding_idx)
    return w[padding_idx + 1:]


def whisper_sinusoids(length, channels, max_timescale=10000):
    log_timescale_increment = np.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = torch.exp(-log_timescale_increment * torch.arange(channels // 2))
    scaled_time = torch.arange(length)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)


def marian_sinusoidal(n_pos, dim):
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                             for pos in range(n_pos)])
    out = torch.empty(n_pos, dim)
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = torch.FloatTensor(np.sin(position_enc[:, 0::2]))
    out[:, sentinel:] = torch.FloatTensor(np.cos(position_enc[:, 1::2]))
    return out


def diffusers_timestep(timesteps, embedding_dim, flip_sin_to_cos=False, downscale_freq_shift=1,
                       scale=1, max_period=10000):
    half_dim = embedding_dim // 2
    exponent = -math.log(max_period) * torch.arange(start=0, end=half_dim, dtype=torch.float32)
    exponent = exponent / (half_dim - downscale_freq_shift)
    emb = torch.exp(exponent)
    emb = timesteps[:, None].float() * emb[None, :]
    emb = scale * emb
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)
    return emb


def adm_timestep(timesteps, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32)
                      / half)
    args = timesteps[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


def vaswani_interleaved(length, d, base=10000.0):
    position = torch.arange(length, dtype=f32).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2, dtype=f32) * (-math.log(base) / d))
    pe = torch.zeros(length, d)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe
