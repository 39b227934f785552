#!/usr/bin/env python3
"""axes2d_caches.py: the 2-D RoPE caches of ChatGLM-6B and SAM-2, built as
the models' own code builds them, with their position ids, for
tests/rope_axes_2d.t.

    axes2d_caches.py KIND VARIANT OUTDIR

writes OUTDIR/cos.npy, OUTDIR/sin.npy (float32, or float16 where the model
stores its cache so) and OUTDIR/pos.npy (int64, one row of ids a cache row).

chatglm: THUDM/chatglm-6b modeling_chatglm.py (its HF repository, the
  revision of transformers 4.27.1's config), typed from its code:
    RotaryEmbedding(hidden_size // (num_attention_heads * 2), base=10000,
                    precision=torch.half): inv_freq = 1. / (base **
        (torch.arange(0, dim, 2).float() / dim)); inv_freq = inv_freq.half()
      forward: t = torch.arange(seq_len, dtype=self.inv_freq.dtype);
        freqs = torch.einsum('i,j->ij', t, self.inv_freq);
        emb = torch.cat((freqs, freqs), dim=-1); cos_cached = emb.cos() ...
    SelfAttention (position_encoding_2d): q1, q2 = q.chunk(2, dim=-1);
      cos, sin = self.rotary_emb(q1, seq_len=position_ids.max() + 1);
      q1 by position_ids, q2 by block_position_ids (apply_rotary_pos_emb_index:
      F.embedding(position_id, cos) then q * cos + rotate_half(q) * sin).
    get_position_ids (mask_positions, gmask=False): position_ids = arange(n),
      position_ids[context_length:] = mask_position; block_position_ids =
      cat(zeros(context_length), arange(n - context_length) + 1).
  The cache is the head's: row r = [cos(pos[r]) | cos(block[r])], each half
  cat(freqs, freqs) (128 columns), over n = 2048 tokens (max_sequence_length)
  with context_length 1536 and the [MASK] at 1535.  inv_freq is float16 (the
  .half() above); the model run in float32 (.float(), its README's CPU
  recipe) widens the buffer, so the angles are float32 products of the
  float16 frequencies, cos and sin float32: VARIANT ok.  half: the model
  run in float16 (.half().cuda(), its README's GPU recipe): t, the einsum
  and cos, sin all float16 (the angle rounded to float16: error up to 0.5
  at positions near 2047).
  Mistakes: swap, the halves' ids exchanged (q1 by block_position_ids);
  mrope, the two axes' frequencies in the half layout of the whole head
  ([cos_p cos_b | cos_p cos_b], M-RoPE's) instead of each half's own;
  f32freq, inv_freq left in float32 (no .half()).

sam2: facebookresearch/sam2 sam2/modeling/position_encoding.py (2024,
  sam2.1), init_t_xy, compute_axial_cis, apply_rotary_enc; RoPEAttention
  (sam2/modeling/sam/transformer.py) with embedding_dim 256, num_heads 1,
  downsample_rate 1 (head dim internal_dim // num_heads = 256), rope_theta
  10000, feat_sizes (64, 64) (the memory attention of sam2.1_hiera_*.yaml):
    freqs = 1 / theta ** (arange(0, dim, 4)[: dim // 4].float() / dim)
    t = arange(end_x * end_y); t_x = t % end_x; t_y = t // end_x (floor)
    freqs_cis = cat([polar(1, outer(t_x, freqs)), polar(1, outer(t_y,
      freqs))], -1): (n, dim / 2) complex, q viewed as complex pairs
      (2i, 2i + 1): the interleaved layout, .real and .imag the cos, sin.
  ids (t_x, t_y) of each row.  GRID is end_x x end_y (64x64; the mistakes
  on a non-square grid too).  Mistakes: swap, x and y exchanged (t_x = t //
  end_x, t_y = t % end_x, the ids left as the code's); transposed, end_x
  and end_y exchanged in compute_axial_cis (the grid transposed) while the
  ids are the true grid's; theta, rope_theta 100 (the codellama default some
  ports keep, compute_axial_cis(..., theta=100.0))."""
import os
import sys

import numpy as np
import torch

CHATGLM_N = 2048        # max_sequence_length of chatglm-6b's config.json
CHATGLM_CONTEXT = 1536  # the prompt's tokens (context_length)
CHATGLM_MASK = 1535     # the [MASK] token's position (mask_position)
CHATGLM_DIM = 64        # hidden_size 4096 // (num_attention_heads 32 * 2)
SAM2_DIM = 256          # embedding_dim 256 // num_heads 1


def save(out, cos, sin, ids):
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "cos.npy"), cos)
    np.save(os.path.join(out, "sin.npy"), sin)
    np.save(os.path.join(out, "pos.npy"), ids.astype(np.int64))


def chatglm_ids():
    """get_position_ids with [MASK] (gmask=False): (n, 2)."""
    pos = torch.arange(CHATGLM_N, dtype=torch.long)
    pos[CHATGLM_CONTEXT:] = CHATGLM_MASK
    block = torch.cat((torch.zeros(CHATGLM_CONTEXT, dtype=torch.long),
                       torch.arange(CHATGLM_N - CHATGLM_CONTEXT, dtype=torch.long) + 1))
    return pos, block


def chatglm_table(variant, seq_len):
    """RotaryEmbedding's cos_cached, sin_cached ((seq_len, 64))."""
    base, dim = 10000, CHATGLM_DIM
    inv_freq = 1. / (base ** (torch.arange(0, dim, 2).float() / dim))
    if variant != "f32freq":
        inv_freq = inv_freq.half()
    if variant != "half":
        inv_freq = inv_freq.float()  # model.float(): the buffer widened
    t = torch.arange(seq_len, dtype=inv_freq.dtype)
    if variant == "half":
        # CUDA's float16 einsum and cos: each computed in float32 and rounded
        # once to float16 (the product of two float16 values is exact in
        # float32); the CPU build has no float16 cos, so it is emulated so
        freqs = torch.einsum('i,j->ij', t.float(), inv_freq.float()).half()
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.float().cos().half(), emb.float().sin().half()
    freqs = torch.einsum('i,j->ij', t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def chatglm(variant, out):
    pos, block = chatglm_ids()
    seq_len = int(torch.stack((pos, block)).max()) + 1
    cos, sin = chatglm_table(variant, seq_len)
    a, b = (block, pos) if variant == "swap" else (pos, block)
    ca, sa, cb, sb = cos[a], sin[a], cos[b], sin[b]  # F.embedding
    if variant == "mrope":  # [cos_p cos_b | cos_p cos_b]: one half layout over the head
        h = CHATGLM_DIM // 2
        c = torch.cat((ca[:, :h], cb[:, :h], ca[:, :h], cb[:, :h]), dim=-1)
        s = torch.cat((sa[:, :h], sb[:, :h], sa[:, :h], sb[:, :h]), dim=-1)
    else:
        c, s = torch.cat((ca, cb), dim=-1), torch.cat((sa, sb), dim=-1)
    ids = torch.stack((pos, block), dim=1)
    save(out, c.numpy(), s.numpy(), ids.numpy())


def init_t_xy(end_x, end_y):
    t = torch.arange(end_x * end_y, dtype=torch.float32)
    t_x = (t % end_x).float()
    t_y = torch.div(t, end_x, rounding_mode="floor").float()
    return t_x, t_y


def compute_axial_cis(dim, end_x, end_y, theta=10000.0, swap=False):
    freqs_x = 1.0 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    freqs_y = 1.0 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    t_x, t_y = init_t_xy(end_x, end_y)
    if swap:  # the mistake: x from t // end_x, y from t % end_x
        t_x, t_y = t_y, t_x
    freqs_x = torch.outer(t_x, freqs_x)
    freqs_y = torch.outer(t_y, freqs_y)
    freqs_cis_x = torch.polar(torch.ones_like(freqs_x), freqs_x)
    freqs_cis_y = torch.polar(torch.ones_like(freqs_y), freqs_y)
    return torch.cat([freqs_cis_x, freqs_cis_y], dim=-1)


def sam2(variant, grid, out):
    end_x, end_y = (int(v) for v in grid.split("x"))
    t_x, t_y = init_t_xy(end_x, end_y)
    ids = torch.stack((t_x, t_y), dim=1).long()
    if variant == "transposed":
        cis = compute_axial_cis(SAM2_DIM, end_y, end_x)
    else:
        cis = compute_axial_cis(SAM2_DIM, end_x, end_y, theta=100.0 if variant == "theta" else 10000.0,
                                swap=variant == "swap")
    save(out, cis.real.contiguous().numpy(), cis.imag.contiguous().numpy(), ids.numpy())


def main():
    kind, variant = sys.argv[1], sys.argv[2]
    if kind == "chatglm":
        chatglm(variant, sys.argv[3])
    elif kind == "sam2":
        sam2(variant, sys.argv[3], sys.argv[4])
    else:
        sys.exit("axes2d_caches.py: unknown kind " + kind)


if __name__ == "__main__":
    main()
