"""relative_tables.py: ALiBi and T5 tables as the libraries compute them, for
tests/relative_tables.t.

Each function follows a library's published formula, operation by operation
in PyTorch (binary32 where the library computes in binary32):

  bloom_slopes, bloom_alibi_tensor
      HF transformers 4.x, models/bloom/modeling_bloom.py, build_alibi_tensor:
      a float32 base 2^(-8/C) (from a Python float)
      raised to int32 powers with torch.pow, the extra heads from the base
      of 2C at odd powers; the bias slope * (cumsum(mask) - 1) * mask as
      (H, 1, n).
  mpt_slopes, mpt_alibi_bias
      MosaicML llm-foundry, llmfoundry/models/layers/attention.py,
      gen_slopes and build_alibi_bias (as in MPT-7B's attention.py): m = arange(1, N+1)
      * (alibi_bias_max / N) in float32, N the next power of two, slopes
      1 / torch.pow(2, m), reordered as slopes[1::2] then slopes[::2];
      the bias arange(1 - n, 1) (int32) times the slopes, (H, 1, n), or
      -|j - i| times the slopes with full=True, (H, n, n).
  t5_buckets
      HF transformers, models/t5/modeling_t5.py,
      T5Attention._relative_position_bucket and compute_bias (v4.x): the
      float32 log of the relative position over max_exact, over the Python
      float log(max_distance / max_exact), truncated by .to(long).

Usage: relative_tables.py OUTDIR writes every table the test uses.
"""
import math
import os
import sys

import numpy as np
import torch


def bloom_slopes(num_heads):
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3))),
                        dtype=torch.float32)
    powers = torch.arange(1, 1 + closest_power_of_2, dtype=torch.int32)
    slopes = torch.pow(base, powers)
    if closest_power_of_2 != num_heads:
        extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3))),
                                  dtype=torch.float32)
        num_remaining_heads = min(closest_power_of_2, num_heads - closest_power_of_2)
        extra_powers = torch.arange(1, 1 + 2 * num_remaining_heads, 2, dtype=torch.int32)
        slopes = torch.cat([slopes, torch.pow(extra_base, extra_powers)], dim=0)
    return slopes


def bloom_alibi_tensor(num_heads, n, dtype=torch.float32, minus_one=True):
    """MINUS_ONE=False: cumsum(mask) without its - 1 (keys numbered from 1)."""
    mask = torch.ones(1, n, dtype=torch.long)
    arange_tensor = ((mask.cumsum(dim=-1) - (1 if minus_one else 0)) * mask)[:, None, :]
    alibi = bloom_slopes(num_heads)[..., None] * arange_tensor
    return alibi.reshape(num_heads, 1, n).to(dtype)


def baichuan_alibi_mask(n_head, max_pos):
    """Baichuan-13B's modeling_baichuan.py, _get_interleave and
    _gen_alibi_mask: the slopes times the key positions 0..max_pos-1, plus
    torch.triu of a -inf matrix above the diagonal: (H, n, n)."""
    def interleave(n):
        def power_of_2(n):
            start = 2 ** (-(2 ** -(math.log2(n) - 3)))
            return [start * start ** i for i in range(n)]
        if math.log2(n).is_integer():
            return power_of_2(n)
        c = 2 ** math.floor(math.log2(n))
        return power_of_2(c) + interleave(2 * c)[0::2][:n - c]
    slopes = torch.Tensor(interleave(n_head))
    alibi = slopes.unsqueeze(1).unsqueeze(1) * torch.arange(max_pos).unsqueeze(0).unsqueeze(0) \
        .expand(n_head, -1, -1)
    alibi = alibi.view(n_head, 1, max_pos)
    mask = torch.triu(torch.zeros([max_pos, max_pos]).float().fill_(float("-inf")), 1)
    return mask.unsqueeze(0) + alibi


def mpt_slopes(n_heads, alibi_bias_max=8):
    padded = 2 ** math.ceil(math.log2(n_heads))
    m = torch.arange(1, padded + 1, dtype=torch.float32)
    m = m.mul(alibi_bias_max / padded)
    slopes = 1.0 / torch.pow(2, m)
    if padded != n_heads:
        slopes = torch.concat([slopes[1::2], slopes[::2]])[:n_heads]
    return slopes


def mpt_alibi_bias(n_heads, seq_len, full=False, alibi_bias_max=8):
    bias = torch.arange(1 - seq_len, 1, dtype=torch.int32).view(1, 1, 1, seq_len)
    if full:
        bias = bias - torch.arange(1 - seq_len, 1, dtype=torch.int32).view(1, 1, seq_len, 1)
        bias = bias.abs().mul(-1)
    return (bias * mpt_slopes(n_heads, alibi_bias_max).view(1, n_heads, 1, 1))[0]


def t5_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128,
              clamp=True, rnd=False):
    """CLAMP=False, RND=True: the mistakes of dropping torch.min(..., num_buckets - 1)
    and of torch.round before .to(torch.long)."""
    buckets = 0
    if bidirectional:
        num_buckets //= 2
        buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    x = (torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact)
         * (num_buckets - max_exact))
    if_large = max_exact + (torch.round(x) if rnd else x).to(torch.long)
    if clamp:
        if_large = torch.min(if_large, torch.full_like(if_large, num_buckets - 1))
    return buckets + torch.where(is_small, relative_position, if_large)


def t5_buckets(nq, nk, sign=1, **kw):
    """SIGN -1: the mistake of context - memory for memory - context."""
    context = torch.arange(nq, dtype=torch.long)[:, None]
    memory = torch.arange(nk, dtype=torch.long)[None, :]
    return t5_bucket((memory - context) * sign, **kw)


def t5_decode_buckets(nq, nk, **kw):
    """The buckets of HF's compute_bias for the last NQ queries of NK keys
    (a decode step: its query at cache_position nk - 1, keys 0..nk-1; the
    slice position_bias[:, :, -nq:, :])."""
    context = torch.arange(nk - nq, nk, dtype=torch.long)[:, None]
    memory = torch.arange(nk, dtype=torch.long)[None, :]
    return t5_bucket(memory - context, **kw)


def paper_slopes(n):
    """The paper's get_slopes in Python doubles (the exact rule, rounded once)."""
    def pow2(k):
        start = 2 ** (-2 ** -(math.log2(k) - 3))
        return [start * start ** i for i in range(k)]
    if math.log2(n).is_integer():
        return pow2(n)
    c = 2 ** math.floor(math.log2(n))
    return pow2(c) + pow2(2 * c)[0::2][:n - c]


def write_all(out):
    save = lambda name, a: np.save(os.path.join(out, name + ".npy"), a)
    for h in (16, 40, 112):
        save("bloom%d" % h, bloom_slopes(h).numpy())
        save("mpt%d" % h, mpt_slopes(h).numpy())
        wrong = paper_slopes(h)
        save("reversed%d" % h, np.array(wrong[::-1], dtype=np.float32))
        save("pow2rule%d" % h, np.array([2 ** (-8 * (k + 1) / h) for k in range(h)],
                                        dtype=np.float32))
    save("mpt16max16", mpt_slopes(16, alibi_bias_max=16).numpy())
    # the first 24 slopes of a 32-head list (the rule for 32, no interleaving for 24)
    m = torch.arange(1, 33, dtype=torch.float32) * (8 / 32)
    save("first24of32", (1.0 / torch.pow(2, m))[:24].numpy())
    save("bloom_tensor40", bloom_alibi_tensor(40, 128).numpy())
    bf = bloom_alibi_tensor(40, 128, torch.bfloat16)
    save("bloom_tensor40_bf16", bf.view(torch.int16).numpy().view(np.uint16))
    save("bloom_tensor40_from1", bloom_alibi_tensor(40, 128, minus_one=False).numpy())
    save("mpt_bias40", mpt_alibi_bias(40, 128).numpy())
    save("baichuan40", baichuan_alibi_mask(40, 128).numpy())
    leak = baichuan_alibi_mask(40, 128)
    leak[:, 5, 7] = 0.0  # a future key left unmasked
    save("baichuan40_leak", leak.numpy())
    save("mpt_bias40_full", mpt_alibi_bias(40, 64, full=True).numpy())
    save("t5_bidir", t5_buckets(300, 300).numpy())
    save("t5_causal", t5_buckets(300, 300, bidirectional=False).numpy())
    save("t5_b64_d256", t5_buckets(200, 200, num_buckets=64, max_distance=256).numpy())
    save("t5_causal_i32", t5_buckets(160, 220, bidirectional=False).numpy().astype(np.int32))
    save("t5_decode1", t5_decode_buckets(1, 300, bidirectional=False).numpy())
    save("t5_decode4", t5_decode_buckets(4, 300, bidirectional=False).numpy())
    save("t5_decode1_b64", t5_decode_buckets(1, 500, bidirectional=False, num_buckets=64,
                                             max_distance=256).numpy())
    save("t5_enc_last3", t5_decode_buckets(3, 200).numpy())
    save("t5_no_clamp", t5_buckets(300, 300, clamp=False).numpy())
    save("t5_round", t5_buckets(300, 300, rnd=True).numpy())
    save("t5_swapped", t5_buckets(300, 300, sign=-1).numpy())
    save("t5_swapped_causal", t5_buckets(300, 300, sign=-1, bidirectional=False).numpy())


if __name__ == "__main__":
    write_all(sys.argv[1])
