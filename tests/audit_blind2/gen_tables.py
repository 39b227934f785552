#!/usr/bin/env python3
"""Blind audit 2: tables written from the libraries' own code (as recalled), correct and buggy.
Writes OUT/*.npy and OUT/cases.tsv (id, expected, pecheck args). Usage: gen_tables.py OUT"""
import math, sys, os, json
import numpy as np, torch
OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)
cases = []
def save(name, arr):
    np.save(os.path.join(OUT, name), arr)
    return os.path.join(OUT, name)
def case(cid, expected, args, note):
    cases.append((cid, expected, args, note))

# ---------------- sinusoidal ----------------
# PyTorch tutorial PositionalEncoding (word_language_model / transformer tutorial)
def tutorial_pe(d_model=512, max_len=5000, base=10000.0, pos_dtype=torch.float, swap=False, cat=False, start=0):
    pe = torch.zeros(max_len, d_model)
    position = torch.arange(start, start + max_len, dtype=pos_dtype).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(base) / d_model))
    s = torch.sin(position * div_term).float(); c = torch.cos(position * div_term).float()
    if cat:
        pe = torch.cat([s, c], dim=1)
    elif swap:
        pe[:, 0::2] = c; pe[:, 1::2] = s
    else:
        pe[:, 0::2] = s; pe[:, 1::2] = c
    pe = pe.unsqueeze(0).transpose(0, 1)       # (max_len, 1, d_model) buffer
    return pe.squeeze(1).contiguous().numpy()

p = save("C01_tutorial.npy", tutorial_pe())
case("C01", "pass", f"--table {p} --family sinusoidal", "PyTorch tutorial PositionalEncoding buffer (5000,1,512) squeezed")
p = save("B01_tutorial_base1000.npy", tutorial_pe(base=1000.0))
case("B01", "fail", f"--table {p} --family sinusoidal", "tutorial with math.log(1000.0): wrong base")
p = save("B02_tutorial_cos_even.npy", tutorial_pe(swap=True))
case("B02", "fail", f"--table {p} --family sinusoidal", "tutorial with cos in even columns, sin in odd (sin/cos swapped)")
p = save("B03_tutorial_cat.npy", tutorial_pe(cat=True))
case("B03", "fail", f"--table {p} --family sinusoidal --preset vaswani", "tutorial with torch.cat([sin,cos]) instead of interleaving (claimed vaswani)")
p = save("B05_tutorial_f16pos.npy", tutorial_pe(pos_dtype=torch.float16))
case("B05", "fail", f"--table {p} --family sinusoidal", "tutorial with position = arange(..., dtype=float16)")
pe = tutorial_pe()
bf = torch.from_numpy(pe).to(torch.bfloat16).float().numpy()
p = save("B10_tutorial_bf16_widened.npy", bf)
case("B10", "fail", f"--table {p} --family sinusoidal", "tutorial buffer after model.to(bfloat16), widened back to float32, no --dtype")
p = save("B21_tutorial_start1.npy", tutorial_pe(max_len=2048, start=1))
case("B21", "fail", f"--table {p} --family sinusoidal", "tutorial with position = arange(1, max_len+1): rows of p+1")

# fairseq SinusoidalPositionalEmbedding.get_embedding
def fairseq_get_embedding(num_embeddings, embedding_dim, padding_idx=None):
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
    emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
    if embedding_dim % 2 == 1:
        emb = torch.cat([emb, torch.zeros(num_embeddings, 1)], dim=1)
    if padding_idx is not None:
        emb[padding_idx, :] = 0
    return emb
W = fairseq_get_embedding(1024 + 1 + 1, 512, padding_idx=1)
# forward: make_positions -> padding_idx + 1 + t  => rows 2..
p = save("C02_fairseq.npy", W[2:2 + 1024].numpy())
case("C02", "pass", f"--table {p} --family sinusoidal --preset fairseq --pos-start 2", "fairseq get_embedding(1026,512,padding_idx=1), rows the forward reads (positions 2..1025)")
p = save("B04_fairseq_offby1.npy", W[1:1 + 1024].numpy())
case("B04", "fail", f"--table {p} --family sinusoidal --preset fairseq --pos-start 2", "fairseq positions starting at padding_idx (off by one): first row is the zeroed padding row")

# tensor2tensor get_timing_signal_1d (TF float32 emulated in torch)
def t2t_timing_signal(length, channels, min_timescale=1.0, max_timescale=1.0e4, start_index=0):
    position = (torch.arange(length, dtype=torch.int32) + start_index).float()
    num_timescales = channels // 2
    log_timescale_increment = torch.tensor(math.log(float(max_timescale) / float(min_timescale)), dtype=torch.float32) / \
        torch.maximum(torch.tensor(float(num_timescales), dtype=torch.float32) - 1, torch.tensor(1.0))
    inv_timescales = min_timescale * torch.exp(torch.arange(num_timescales, dtype=torch.float32) * -log_timescale_increment)
    scaled_time = position.unsqueeze(1) * inv_timescales.unsqueeze(0)
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)
p = save("C03_t2t.npy", t2t_timing_signal(1024, 512).numpy())
case("C03", "pass", f"--table {p} --family sinusoidal --preset t2t", "tensor2tensor get_timing_signal_1d(1024, 512)")

# Whisper sinusoids
def whisper_sinusoids(length, channels, max_timescale=10000, den_shift=1):
    assert channels % 2 == 0
    log_timescale_increment = np.log(max_timescale) / (channels // 2 - den_shift)
    inv_timescales = torch.exp(-log_timescale_increment * torch.arange(channels // 2))
    scaled_time = torch.arange(length)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)
w = whisper_sinusoids(1500, 384)
assert w.dtype == torch.float32, w.dtype
p = save("C04_whisper.npy", w.numpy())
case("C04", "pass", f"--table {p} --family sinusoidal --preset whisper", "openai-whisper sinusoids(1500, 384) (encoder positional_embedding)")
p = save("B06_whisper_den_d2.npy", whisper_sinusoids(1500, 384, den_shift=0).numpy())
case("B06", "fail", f"--table {p} --family sinusoidal --preset whisper", "whisper sinusoids with log(max)/(channels//2) (dropped the -1)")

# Marian _init_weight and HF create_sinusoidal_embeddings (DistilBERT)
def position_enc(n_pos, dim):
    return np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
def marian(n_pos, dim):
    out = torch.empty(n_pos, dim)
    pe_ = position_enc(n_pos, dim)
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = torch.FloatTensor(np.sin(pe_[:, 0::2]))
    out[:, sentinel:] = torch.FloatTensor(np.cos(pe_[:, 1::2]))
    return out
def hf_create_sinusoidal(n_pos, dim):
    out = torch.empty(n_pos, dim)
    pe_ = position_enc(n_pos, dim)
    out[:, 0::2] = torch.FloatTensor(np.sin(pe_[:, 0::2]))
    out[:, 1::2] = torch.FloatTensor(np.cos(pe_[:, 1::2]))
    return out
p = save("C05_marian.npy", marian(512, 512).numpy())
case("C05", "pass", f"--table {p} --family sinusoidal --preset marian", "transformers MarianSinusoidalPositionalEmbedding._init_weight(512, 512)")
p = save("C06_hf_create_sinusoidal.npy", hf_create_sinusoidal(512, 768).numpy())
case("C06", "pass", f"--table {p} --family sinusoidal", "transformers create_sinusoidal_embeddings(512, 768) (DistilBERT sinusoidal_pos_embds)")

# diffusers get_timestep_embedding
def get_timestep_embedding(timesteps, embedding_dim, flip_sin_to_cos=False, downscale_freq_shift=1, scale=1, max_period=10000):
    half_dim = embedding_dim // 2
    exponent = -math.log(max_period) * torch.arange(start=0, end=half_dim, dtype=torch.float32)
    exponent = exponent / (half_dim - downscale_freq_shift)
    emb = torch.exp(exponent)
    emb = timesteps[:, None].float() * emb[None, :]
    emb = scale * emb
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)
    if embedding_dim % 2 == 1:
        emb = torch.nn.functional.pad(emb, (0, 1, 0, 0))
    return emb
g = torch.Generator().manual_seed(11)
T = (torch.rand(256, generator=g) * 1000).float()
tp = save("timesteps_f32.npy", T.numpy())
Tunit = T / 1000.0
p = save("C07_diffusers_default.npy", get_timestep_embedding(T, 320).numpy())
case("C07", "pass", f"--table {p} --family sinusoidal --preset diffusers --timesteps {tp}", "diffusers get_timestep_embedding(t, 320) defaults (flip False, shift 1)")
p = save("C08_diffusers_sd.npy", get_timestep_embedding(T, 320, flip_sin_to_cos=True, downscale_freq_shift=0).numpy())
case("C08", "pass", f"--table {p} --family sinusoidal --preset adm --timesteps {tp}", "diffusers Timesteps(320, flip_sin_to_cos=True, downscale_freq_shift=0) as in SD UNet")
p = save("C10_diffusers_flip_shift1.npy", get_timestep_embedding(T, 256, flip_sin_to_cos=True, downscale_freq_shift=1).numpy())
case("C10", "pass", f"--table {p} --family sinusoidal --order cos-sin --freq-shift 1 --layout half --timesteps {tp}", "diffusers flip_sin_to_cos=True, downscale_freq_shift=1, mapped by the documented flags")
p = save("B07_diffusers_flip_checked_default.npy", get_timestep_embedding(T, 320, flip_sin_to_cos=True, downscale_freq_shift=1).numpy())
case("B07", "fail", f"--table {p} --family sinusoidal --preset diffusers --timesteps {tp}", "diffusers with flip_sin_to_cos=True checked as defaults")
p = save("B08_diffusers_unscaled_t.npy", get_timestep_embedding(Tunit, 320).numpy())
case("B08", "fail", f"--table {p} --family sinusoidal --preset diffusers --timesteps {tp}", "timestep not scaled: t in [0,1) fed (t/1000) while the model's timesteps are t")

# guided-diffusion nn.timestep_embedding
def adm_timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half)
    args = timesteps[:, None].float() * freqs[None]
    embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    if dim % 2:
        embedding = torch.cat([embedding, torch.zeros_like(embedding[:, :1])], dim=-1)
    return embedding
Ti = torch.arange(0, 1000, 5, dtype=torch.int64)
tpi = save("timesteps_i64.npy", Ti.numpy())
p = save("C09_adm.npy", adm_timestep_embedding(Ti, 256).numpy())
case("C09", "pass", f"--table {p} --family sinusoidal --preset adm --timesteps {tpi}", "guided-diffusion timestep_embedding(t, 256), int64 timesteps")
p = save("B09_adm_maxperiod1000.npy", adm_timestep_embedding(Ti, 256, max_period=1000).numpy())
case("B09", "fail", f"--table {p} --family sinusoidal --preset adm --timesteps {tpi}", "ADM timestep_embedding with max_period=1000")

# ---------------- ALiBi ----------------
def bloom_slopes(num_heads, reverse=False):
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3))), dtype=torch.float32)
    powers = torch.arange(1, 1 + closest_power_of_2, dtype=torch.int32)
    slopes = torch.pow(base, powers)
    if closest_power_of_2 != num_heads:
        extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3))), dtype=torch.float32)
        num_remaining_heads = min(closest_power_of_2, num_heads - closest_power_of_2)
        extra_powers = torch.arange(1, 1 + 2 * num_remaining_heads, 2, dtype=torch.int32)
        slopes = torch.cat([slopes, torch.pow(extra_base, extra_powers)], dim=0)
    return slopes
def bloom_build_alibi_tensor(attention_mask, num_heads, dtype, minus_one=True):
    batch_size, seq_length = attention_mask.shape
    slopes = bloom_slopes(num_heads)
    cs = attention_mask.cumsum(dim=-1)
    if minus_one:
        cs = cs - 1
    arange_tensor = (cs * attention_mask)[:, None, :]
    alibi = slopes[..., None] * arange_tensor
    return alibi.reshape(batch_size * num_heads, 1, seq_length).to(dtype)
def paper_get_slopes(n):
    def get_slopes_power_of_2(n):
        start = (2 ** (-2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio ** i for i in range(n)]
    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return get_slopes_power_of_2(closest_power_of_2) + paper_get_slopes(2 * closest_power_of_2)[0::2][:n - closest_power_of_2]
for cid, H in (("C11", 16), ("C12", 40), ("C13", 112)):
    p = save(f"{cid}_bloom_slopes{H}.npy", bloom_slopes(H).numpy())
    case(cid, "pass", f"--table {p} --family alibi", f"BLOOM build_alibi_tensor's slopes, {H} heads")
mask = torch.ones(1, 128, dtype=torch.long)
p = save("C14_bloom_alibi_tensor40.npy", bloom_build_alibi_tensor(mask, 40, torch.float32).numpy())
case("C14", "pass", f"--table {p} --family alibi", "BLOOM build_alibi_tensor(ones(1,128), 40, float32) -> (40,1,128)")
p = save("C21_bloom_alibi_tensor40_f16.npy", bloom_build_alibi_tensor(mask, 40, torch.float16).numpy())
case("C21", "pass", f"--table {p} --family alibi", "BLOOM build_alibi_tensor(..., dtype=float16) saved as <f2")
p = save("C22_paper_slopes40.npy", np.array(paper_get_slopes(40), dtype=np.float32))
case("C22", "pass", f"--table {p} --family alibi", "ofirpress get_slopes(40) in float64, cast to float32")
p = save("B15_bloom_no_minus1.npy", bloom_build_alibi_tensor(mask, 40, torch.float32, minus_one=False).numpy())
case("B15", "fail", f"--table {p} --family alibi", "BLOOM build_alibi_tensor without the '- 1' on cumsum (keys from 1)")
bloom_cfg = save("bloom40_config.json".replace(".json", ".npy"), np.zeros(1))  # placeholder not used
with open(os.path.join(OUT, "bloom40_config.json"), "w") as f:
    json.dump({"model_type": "bloom", "n_head": 40, "hidden_size": 5120, "n_layer": 30}, f)
os.remove(bloom_cfg)
p = save("B11_slopes32_for40.npy", bloom_slopes(32).numpy())
case("B11", "fail", f"--table {p} --family alibi --hf-config {os.path.join(OUT, 'bloom40_config.json')}", "slopes computed for 32 heads, model (config n_head) has 40")
H = 40
p = save("B12_pow2rule40.npy", np.array([2 ** (-8 * (h + 1) / H) for h in range(H)], dtype=np.float32))
case("B12", "fail", f"--table {p} --family alibi", "2^(-8(h+1)/40): power-of-2 geometric rule at 40 heads")
p = save("B13_bloom40_reversed.npy", bloom_slopes(40).flip(0).numpy())
case("B13", "fail", f"--table {p} --family alibi", "BLOOM slopes for 40 heads in reverse order")

def mpt_gen_slopes(n_heads, alibi_bias_max=8):
    _n_heads = 2 ** math.ceil(math.log2(n_heads))
    m = torch.arange(1, _n_heads + 1, dtype=torch.float32)
    m = m.mul(alibi_bias_max / _n_heads)
    slopes = 1.0 / torch.pow(2, m)
    if _n_heads != n_heads:
        slopes = torch.concat([slopes[1::2], slopes[::2]])[:n_heads]
    return slopes.view(1, n_heads, 1, 1)
def mpt_build_alibi_bias(n_heads, seq_len, full=False, alibi_bias_max=8, dtype=None):
    alibi_bias = torch.arange(1 - seq_len, 1, dtype=torch.int32).view(1, 1, 1, seq_len)
    if full:
        alibi_bias = alibi_bias - torch.arange(1 - seq_len, 1, dtype=torch.int32).view(1, 1, seq_len, 1)
        alibi_bias = alibi_bias.abs().mul(-1)
    slopes = mpt_gen_slopes(n_heads, alibi_bias_max)
    alibi_bias = alibi_bias * slopes
    return alibi_bias.to(dtype=dtype)
p = save("C15_mpt_slopes32.npy", mpt_gen_slopes(32).reshape(-1).numpy())
case("C15", "pass", f"--table {p} --family alibi --alibi-bias-max 8", "llm-foundry gen_slopes(32, alibi_bias_max=8)")
p = save("C16_mpt_bias24.npy", mpt_build_alibi_bias(24, 128).squeeze(0).numpy())
case("C16", "pass", f"--table {p} --family alibi", "llm-foundry build_alibi_bias(24, 128) -> (24,1,128)")
p = save("C17_mpt_bias24_full.npy", mpt_build_alibi_bias(24, 64, full=True).squeeze(0).numpy())
case("C17", "pass", f"--table {p} --family alibi", "llm-foundry build_alibi_bias(24, 64, full=True) -> (24,64,64)")
with open(os.path.join(OUT, "mpt_config.json"), "w") as f:
    json.dump({"model_type": "mpt", "n_heads": 32, "d_model": 4096, "attn_config": {"alibi": True, "alibi_bias_max": 8}}, f)
p = save("B14_mpt_slopes32_bmax16.npy", mpt_gen_slopes(32, alibi_bias_max=16).reshape(-1).numpy())
case("B14", "fail", f"--table {p} --family alibi --hf-config {os.path.join(OUT, 'mpt_config.json')}", "gen_slopes(32, alibi_bias_max=16), model config says 8")

# ---------------- T5 ----------------
def t5_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128, clamp=True, halve=True, rnd=False):
    relative_buckets = 0
    if bidirectional:
        if halve:
            num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    x = (torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact))
    relative_position_if_large = max_exact + (torch.round(x) if rnd else x).to(torch.long)
    if clamp:
        relative_position_if_large = torch.min(relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets
def compute_bias_buckets(q, k, sign=1, **kw):
    context_position = torch.arange(q, dtype=torch.long)[:, None]
    memory_position = torch.arange(k, dtype=torch.long)[None, :]
    relative_position = (memory_position - context_position) * sign
    return t5_bucket(relative_position, **kw)
p = save("C18_t5_bidir.npy", compute_bias_buckets(300, 300).numpy())
case("C18", "pass", f"--table {p} --family t5 --num-buckets 32 --max-distance 128", "HF T5Attention compute_bias buckets, encoder (bidirectional 32/128), 300x300")
p = save("C19_t5_causal.npy", compute_bias_buckets(300, 300, bidirectional=False).numpy())
case("C19", "pass", f"--table {p} --family t5 --causal", "HF T5 decoder self-attention buckets (causal 32/128)")
with open(os.path.join(OUT, "t5_64_256.json"), "w") as f:
    json.dump({"model_type": "t5", "relative_attention_num_buckets": 64, "relative_attention_max_distance": 256, "is_decoder": False}, f)
p = save("C20_t5_bidir_64_256.npy", compute_bias_buckets(200, 200, num_buckets=64, max_distance=256).numpy())
case("C20", "pass", f"--table {p} --family t5 --hf-config {os.path.join(OUT, 't5_64_256.json')}", "T5 buckets 64/256 (bidirectional) with the model config")
p = save("B16_t5_noclamp.npy", compute_bias_buckets(300, 300, clamp=False).numpy())
case("B16", "fail", f"--table {p} --family t5", "T5 bucket without the torch.min(..., num_buckets-1) clamp")
p = save("B17_t5_causal_as_bidir.npy", compute_bias_buckets(300, 300, bidirectional=False).numpy())
case("B17", "fail", f"--table {p} --family t5", "decoder (causal) buckets checked as encoder (forgot --causal / is_decoder)")
p = save("B18_t5_full_buckets.npy", compute_bias_buckets(300, 300, halve=False).numpy())
case("B18", "fail", f"--table {p} --family t5", "bidirectional without num_buckets //= 2")
p = save("B19_t5_sign_swapped.npy", compute_bias_buckets(300, 300, sign=-1).numpy())
case("B19", "fail", f"--table {p} --family t5", "relative_position = context - memory (i - j) sign swapped")
p = save("B20_t5_maxdist256.npy", compute_bias_buckets(300, 300, max_distance=256).numpy())
case("B20", "fail", f"--table {p} --family t5 --num-buckets 32 --max-distance 128", "buckets built with max_distance 256, model says 128")
p = save("B22_t5_round.npy", compute_bias_buckets(300, 300, rnd=True).numpy())
case("B22", "fail", f"--table {p} --family t5", "T5 bucket with torch.round before .to(long) instead of floor")

with open(os.path.join(OUT, "cases.tsv"), "w") as f:
    for c in cases:
        f.write("\t".join(c) + "\n")
print(len(cases), "cases")
