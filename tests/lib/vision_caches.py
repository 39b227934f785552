#!/usr/bin/env python3
"""vision_caches.py: the RoPE caches of vision encoders, built as their own
code builds them (typed from transformers 4.57's modeling files), with the
position ids of each row, for tests/rope_vision.t.

    vision_caches.py KIND VARIANT HxW CONFIG OUTDIR

writes OUTDIR/cos.npy, OUTDIR/sin.npy (float32, one row a patch) and
OUTDIR/pos.npy (int64 (n, 2), the two positions of each row as pecheck
takes them).  The numbers (head dim, theta, patch grid) come from CONFIG's
vision_config as each model's code reads it.  KIND:

  qwen2     Qwen2-VL (modeling_qwen2_vl.py): VisionRotaryEmbedding(head_dim
            // 2) with theta 10000, head_dim = embed_dim // num_heads;
            Qwen2VisionTransformerPretrainedModel.rot_pos_emb's (hpos, wpos)
            in spatial_merge_size blocks, freqs = rotary_pos_emb_full[pos_ids]
            .flatten(1), emb = cat(freqs, freqs), (emb.cos(), emb.sin());
  qwen25    Qwen2.5-VL (modeling_qwen2_5_vl.py): the same with head_dim =
            hidden_size // num_heads, the rows reordered by get_window_index
            (window_size 112) as forward() does;
  qwen3     Qwen3-VL (modeling_qwen3_vl.py): Qwen3VLVisionModel.rot_pos_emb
            (block rows and columns of merge_size), head_dim = hidden_size //
            num_heads;
  llama4    Llama 4 (modeling_llama4.py, Llama4VisionRotaryEmbedding): the
            image_size // patch_size square grid and the class token last,
            freqs_ci = polar(1, freqs); cos = .real, sin = .imag (n, d/2),
            position ids (x + 1, y + 1), the class token (0, 0); HxW unused
            (the code's grid is square, fixed by the config);
  pixtral   Pixtral (modeling_pixtral.py, PixtralRotaryEmbedding over
            max_patches_per_side = image_size // patch_size, looked up by
            position_ids_in_meshgrid's h * max_width + w).

VARIANT: ok; swap: the two axes exchanged in the cache (Qwen: stack([wpos,
hpos]); Llama 4: cat(freqs_y, freqs_x); Pixtral: the ids w * max_width + h,
the grid transposed); texttheta: the text model's rope_theta in place of
the vision tower's; texthead: the text model's head dim in place of the
vision tower's; wholehead: each axis' frequencies over the whole head
(theta^(-2j/head_dim), the text model's formula) instead of its own dims
(Pixtral: each axis a schedule of its own over its dims, not the shared
one by parity)."""
import json
import os
import sys

import numpy as np
import torch


def vision(cfg):
    return cfg["vision_config"]


def text_theta(cfg):
    t = cfg.get("text_config", cfg)
    return float(t.get("rope_theta") or (t.get("rope_scaling") or {}).get("rope_theta"))


def text_head(cfg):
    t = cfg.get("text_config", cfg)
    return t.get("head_dim") or t["hidden_size"] // t["num_attention_heads"]


def inv_freq(dim, theta, variant, head_dim):
    """VisionRotaryEmbedding(dim, theta).inv_freq (float32)."""
    over = head_dim if variant == "wholehead" else dim
    return 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float) / over))


def qwen2_pos_ids(h, w, merge):
    """Qwen2-VL's rot_pos_emb: (hpos, wpos) in merge x merge blocks (t = 1)."""
    hpos = torch.arange(h).unsqueeze(1).expand(-1, w)
    hpos = hpos.reshape(h // merge, merge, w // merge, merge).permute(0, 2, 1, 3).flatten()
    wpos = torch.arange(w).unsqueeze(0).expand(h, -1)
    wpos = wpos.reshape(h // merge, merge, w // merge, merge).permute(0, 2, 1, 3).flatten()
    return torch.stack([hpos, wpos], dim=-1)


def qwen3_pos_ids(h, w, merge):
    """Qwen3-VL's rot_pos_emb: full-resolution (row, col) by merged blocks."""
    mh, mw = h // merge, w // merge
    row = torch.arange(mh)[:, None, None, None] * merge + torch.arange(merge)[None, None, :, None]
    col = torch.arange(mw)[None, :, None, None] * merge + torch.arange(merge)[None, None, None, :]
    row = row.expand(mh, mw, merge, merge).reshape(-1)
    col = col.expand(mh, mw, merge, merge).reshape(-1)
    return torch.stack((row, col), dim=-1)


def window_index(h, w, merge, window_size, patch):
    """Qwen2.5-VL's get_window_index for one image (t = 1)."""
    win = window_size // merge // patch
    lh, lw = h // merge, w // merge
    index = torch.arange(lh * lw).reshape(1, lh, lw)
    pad_h, pad_w = win - lh % win, win - lw % win
    nh, nw = (lh + pad_h) // win, (lw + pad_w) // win
    padded = torch.nn.functional.pad(index, (0, pad_w, 0, pad_h), "constant", -100)
    padded = padded.reshape(1, nh, win, nw, win).permute(0, 1, 3, 2, 4).reshape(-1)
    return padded[padded != -100]


def qwen(kind, cfg, variant, h, w):
    vc = vision(cfg)
    hidden = vc["embed_dim"] if kind == "qwen2" else vc["hidden_size"]
    head_dim = text_head(cfg) if variant == "texthead" else hidden // vc["num_heads"]
    merge = vc.get("spatial_merge_size", 2)
    theta = text_theta(cfg) if variant == "texttheta" else 10000.0
    ids = qwen3_pos_ids(h, w, merge) if kind == "qwen3" else qwen2_pos_ids(h, w, merge)
    dim = head_dim // 2
    inv = inv_freq(dim, theta, variant, head_dim)
    seq = torch.arange(max(h, w), dtype=inv.dtype)
    full = torch.outer(seq, inv)                            # rotary_pos_emb(max_grid_size)
    cache_ids = ids[:, [1, 0]] if variant == "swap" else ids
    freqs = full[cache_ids].flatten(1)                      # (n, head_dim / 2)
    if kind == "qwen25":                                    # forward's window order
        unit = merge * merge
        widx = window_index(h, w, merge, vc["window_size"], vc["patch_size"])
        if variant != "nowindow":
            freqs = freqs.reshape(-1, unit, dim)[widx].reshape(-1, dim)
        if variant == "window2":
            freqs = freqs.reshape(-1, unit, dim)[widx].reshape(-1, dim)
        ids = ids.reshape(-1, unit, 2)[widx].reshape(-1, 2)
    if variant == "interleaved":                            # a cache for (2i, 2i + 1) pairs
        emb = torch.repeat_interleave(freqs, 2, dim=-1)
    else:
        emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin(), ids


def llama4(cfg, variant):
    vc = vision(cfg)
    idx = vc["image_size"] // vc["patch_size"]
    theta = text_theta(cfg) if variant == "texttheta" else float(vc.get("rope_theta", 10000.0))
    img_idx = torch.arange(idx ** 2, dtype=torch.int32).reshape(idx ** 2, 1)
    img_idx = torch.cat([img_idx, img_idx[:1]], dim=0)
    if variant != "clspos":                                 # clspos: the class token given
        img_idx[-1, -1] = -2                                # patch 0's position; ID_CLS_TOKEN
    fx, fy = img_idx % idx, img_idx // idx
    head_dim = text_head(cfg) if variant == "texthead" else vc["hidden_size"] // vc["num_attention_heads"]
    freq_dim = head_dim // 2
    over = 2 * freq_dim if variant == "wholehead" else freq_dim
    rope_freq = 1.0 / (theta ** (torch.arange(0, freq_dim, 2)[: (freq_dim // 2)].float() / over))
    one = 0 if variant == "noplus1" else 1
    freqs_x = ((fx + one)[..., None] * rope_freq[None, None, :]).repeat_interleave(2, dim=-1)
    freqs_y = ((fy + one)[..., None] * rope_freq[None, None, :]).repeat_interleave(2, dim=-1)
    parts = [freqs_y, freqs_x] if variant == "swap" else [freqs_x, freqs_y]
    freqs = torch.cat(parts, dim=-1).float().contiguous()[..., ::2]
    freqs = freqs.masked_fill(img_idx.reshape(-1, 1, 1) < 0, 0)
    cis = torch.view_as_complex(torch.stack([torch.cos(freqs), torch.sin(freqs)], dim=-1))[:, 0]
    ids = torch.cat([fx + 1, fy + 1], dim=-1).long()
    ids[-1] = 0                                             # the class token: angle 0
    return cis.real.contiguous(), cis.imag.contiguous(), ids


def pixtral(cfg, variant, h, w):
    vc = vision(cfg)
    dim = vc.get("head_dim") or vc["hidden_size"] // vc["num_attention_heads"]
    dim = text_head(cfg) if variant == "texthead" else dim
    side = vc["image_size"] // vc["patch_size"]
    base = text_theta(cfg) if variant == "texttheta" else float(vc.get("rope_theta", 10000.0))
    freqs = inv_freq(dim, base, "ok", dim)
    even, odd = freqs[::2], freqs[1::2]
    if variant == "wholehead":                              # each axis a schedule of its own
        even = odd = inv_freq(dim // 2, base, "ok", dim // 2)
    hh = torch.arange(side)
    freqs_h = torch.outer(hh, even).float()
    freqs_w = torch.outer(hh, odd).float()
    table = torch.cat([freqs_h[:, None, :].repeat(1, side, 1),
                       freqs_w[None, :, :].repeat(side, 1, 1)], dim=-1).reshape(-1, dim // 2)
    table = torch.cat((table, table), dim=-1)               # PixtralRotaryEmbedding.inv_freq
    mesh = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    ids = torch.stack(mesh, dim=-1).reshape(-1, 2)          # position_ids_in_meshgrid
    a, b = (ids[:, 1], ids[:, 0]) if variant == "swap" else (ids[:, 0], ids[:, 1])
    if variant == "xy":                                     # the cache's rows column-major
        xy = torch.stack(torch.meshgrid(torch.arange(h), torch.arange(w), indexing="xy"), dim=-1)
        a, b = xy.reshape(-1, 2)[:, 0], xy.reshape(-1, 2)[:, 1]
    emb = table[a * side + b]
    return emb.cos(), emb.sin(), ids


def main(argv):
    if len(argv) != 6:
        raise SystemExit(__doc__)
    kind, variant, grid, config, out = argv[1:]
    h, w = (int(x) for x in grid.split("x"))
    with open(config) as f:
        cfg = json.load(f)
    if kind in ("qwen2", "qwen25", "qwen3"):
        cos, sin, ids = qwen(kind, cfg, variant, h, w)
    elif kind == "llama4":
        cos, sin, ids = llama4(cfg, variant)
    else:
        cos, sin, ids = pixtral(cfg, variant, h, w)
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "cos.npy"), cos.contiguous().numpy().astype(np.float32))
    np.save(os.path.join(out, "sin.npy"), sin.contiguous().numpy().astype(np.float32))
    np.save(os.path.join(out, "pos.npy"), ids.contiguous().numpy().astype(np.int64))


if __name__ == "__main__":
    main(sys.argv)
