#!/usr/bin/env python3
"""identify_cases.py: the tables tests/identify_more.t hands to `pecheck identify`.

    identify_cases.py OUTDIR

writes into OUTDIR:
  ids/cos.npy, ids/sin.npy, ids/ids.npy
      a RoPE cache (d 64, base 10000, half layout: cat(freqs, freqs), angles
      in float64, cos and sin rounded to float32) whose row r is position
      ids[r], ids = [5, 9, 100, 7, 3000, 12, 13, 14] * 8 (int64): rows that
      are not positions 0..63;
  ids/ids_frac.npy   the same ids plus 0.5 (float64): fractional timesteps;
  ids/ids_whole.npy  the same ids as float64 (whole numbers);
  ids/ids_far.npy    positions 0, 10, 20, ... (no two within 3 of each
      other: a pair's step between rows cannot be unwrapped);
  ids/ids_shift.npy  the ids less 2 (the rows are those of ids_shift + 2);
  kimi/cos.npy, kimi/sin.npy
      Kimi-K2's cache (YaRN, beta_fast = beta_slow = 1, factor 32, original
      4096, base 50000, d 64) as HF's _compute_yarn_parameters computes it
      (float32 inv_freq, positions 0..8191; attention factor 1: Kimi's
      mscale = mscale_all_dim = 1 make HF's get_mscale ratio 1);
  lrhead/cos.npy, lrhead/sin.npy
      a LongRoPE cache (d 64, base 50000, positions 0..8191) as HF's
      _compute_longrope_parameters computes it (float32 inv_freq =
      1 / (ext * base^(2i/d)), attention factor sqrt(1 + ln 32 / ln 4096)):
      ext 1 for pairs 0..19, 32 for 20..30, 40 for pair 31 (no YaRN ramp:
      the tail's last two pairs differ), whose fitted head factors fall a
      rounding below 1;
  flux/cos.npy, flux/sin.npy, flux/pos.npy
      FLUX's axial RoPE (EmbedND, axes_dim [16, 56, 56], theta 10000: per
      axis omega = 1 / theta^(arange(0, dim, 2) / dim) and the angles in
      float64, cos and sin rounded to float32, interleaved pairs): 16 text
      rows of ids (0, 0, 0), then a 16 x 16 image of ids (0, h, w);
  alibi.npy  (8,) float32 slopes 2^(-8 h / 8), h = 1..8 (the paper's);
  t5.npy     (32, 32) int64 bidirectional T5 buckets, num_buckets 32,
      max_distance 128 (HF's _relative_position_bucket, in numpy)."""
import math
import os
import sys

import numpy as np


def rope_rows(pos, d, base):
    inv = 1.0 / (base ** (np.arange(0, d, 2, dtype=np.float64) / d))
    ang = np.asarray(pos, dtype=np.float64)[:, None] * inv[None, :]
    ang = np.concatenate([ang, ang], axis=1)
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def yarn_cache(d, base, factor, orig, beta_fast, beta_slow, n, att):
    """HF's _compute_yarn_parameters (truncate), then the rotary embedding's
    float32 matmul and cat(freqs, freqs), times the attention factor ATT."""
    def corr_dim(rot):
        return (d * math.log(orig / (rot * 2 * math.pi))) / (2 * math.log(base))
    low = max(math.floor(corr_dim(beta_fast)), 0)
    high = min(math.ceil(corr_dim(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    pos_freqs = np.float32(base) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d))
    inv_extra = np.float32(1.0) / pos_freqs
    inv_inter = np.float32(1.0) / (np.float32(factor) * pos_freqs)
    ramp = np.clip((np.arange(d // 2, dtype=np.float32) - np.float32(low)) / np.float32(high - low), 0, 1)
    extra = np.float32(1) - ramp
    inv = (inv_inter * (np.float32(1) - extra) + inv_extra * extra).astype(np.float32)
    att = np.float32(att)
    freqs = (np.arange(n, dtype=np.float32)[:, None] * inv[None, :]).astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=1)
    return (np.cos(emb) * att).astype(np.float32), (np.sin(emb) * att).astype(np.float32)


def longrope_cache(d, base, ext, att, n):
    """HF's _compute_longrope_parameters, then cat(freqs, freqs) times att."""
    ext = np.asarray(ext, dtype=np.float32)
    inv = (np.float32(1.0) / (ext * np.float32(base) ** (np.arange(0, d, 2, dtype=np.float32) /
                                                         np.float32(d)))).astype(np.float32)
    freqs = (np.arange(n, dtype=np.float32)[:, None] * inv[None, :]).astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=1)
    att = np.float32(att)
    return (np.cos(emb) * att).astype(np.float32), (np.sin(emb) * att).astype(np.float32)


def flux_cache(axes_dim, theta):
    ids = np.array([(0, 0, 0)] * 16 + [(0, h, w) for h in range(16) for w in range(16)],
                   dtype=np.int64)
    cos, sin = [], []
    for a, dim in enumerate(axes_dim):
        omega = 1.0 / (theta ** (np.arange(0, dim, 2, dtype=np.float64) / dim))
        ang = ids[:, a].astype(np.float64)[:, None] * omega[None, :]
        cos.append(np.repeat(np.cos(ang), 2, axis=1).astype(np.float32))
        sin.append(np.repeat(np.sin(ang), 2, axis=1).astype(np.float32))
    return np.concatenate(cos, axis=1), np.concatenate(sin, axis=1), ids


def t5_buckets(nq, nk, num_buckets=32, max_distance=128):
    rel = np.arange(nk)[None, :] - np.arange(nq)[:, None]
    nb = num_buckets // 2
    out = (rel > 0).astype(np.int64) * nb
    rp = np.abs(rel)
    max_exact = nb // 2
    small = rp < max_exact
    with np.errstate(divide="ignore", invalid="ignore"):
        large = max_exact + (np.log(rp.astype(np.float32) / max_exact) /
                             math.log(max_distance / max_exact) * (nb - max_exact)).astype(np.int64)
    large = np.minimum(large, nb - 1)
    return out + np.where(small, rp, large)


def main(out):
    d = os.path.join(out, "ids")
    os.makedirs(d, exist_ok=True)
    ids = np.array([5, 9, 100, 7, 3000, 12, 13, 14] * 8, dtype=np.int64)
    c, s = rope_rows(ids, 64, 10000.0)
    np.save(os.path.join(d, "cos.npy"), c)
    np.save(os.path.join(d, "sin.npy"), s)
    np.save(os.path.join(d, "ids.npy"), ids)
    np.save(os.path.join(d, "ids_frac.npy"), ids.astype(np.float64) + 0.5)
    np.save(os.path.join(d, "ids_whole.npy"), ids.astype(np.float64))
    np.save(os.path.join(d, "ids_far.npy"), np.arange(64, dtype=np.int64) * 10)
    np.save(os.path.join(d, "ids_shift.npy"), ids - 2)
    k = os.path.join(out, "kimi")
    os.makedirs(k, exist_ok=True)
    c, s = yarn_cache(64, 50000.0, 32.0, 4096, 1.0, 1.0, 8192, 1.0)
    np.save(os.path.join(k, "cos.npy"), c)
    np.save(os.path.join(k, "sin.npy"), s)
    k = os.path.join(out, "lrhead")
    os.makedirs(k, exist_ok=True)
    c, s = longrope_cache(64, 50000.0, [1.0] * 20 + [32.0] * 11 + [40.0],
                          math.sqrt(1 + math.log(32) / math.log(4096)), 8192)
    np.save(os.path.join(k, "cos.npy"), c)
    np.save(os.path.join(k, "sin.npy"), s)
    k = os.path.join(out, "flux")
    os.makedirs(k, exist_ok=True)
    c, s, ids = flux_cache([16, 56, 56], 10000.0)
    np.save(os.path.join(k, "cos.npy"), c)
    np.save(os.path.join(k, "sin.npy"), s)
    np.save(os.path.join(k, "pos.npy"), ids)
    np.save(os.path.join(out, "alibi.npy"),
            (2.0 ** (-8.0 * np.arange(1, 9) / 8)).astype(np.float32))
    np.save(os.path.join(out, "t5.npy"), t5_buckets(32, 32))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
