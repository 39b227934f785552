#!/usr/bin/env python3
"""Second batch of extra cases (expectations written first). Usage: gen_extra2.py OUT"""
import math, sys, os
import numpy as np, torch
OUT = sys.argv[1]; os.makedirs(OUT, exist_ok=True)
import importlib.util
spec = importlib.util.spec_from_file_location("g", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_tables.py"))
sys.argv = [sys.argv[0], OUT]
g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g)
cases = []
def save(name, arr):
    np.save(os.path.join(OUT, name), arr); return os.path.join(OUT, name)
# B26: div_term in float16
d_model, max_len = 512, 5000
pe = torch.zeros(max_len, d_model)
position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
div_term = torch.exp((torch.arange(0, d_model, 2).half() * (-math.log(10000.0) / d_model)).float()).half().float()  # exponent and div_term in float16 (CPU exp has no Half kernel)
pe[:, 0::2] = torch.sin(position * div_term); pe[:, 1::2] = torch.cos(position * div_term)
p = save("B26_tutorial_f16_divterm.npy", pe.numpy())
cases.append(("B26", "fail", f"--table {p} --family sinusoidal", "tutorial with div_term computed in float16"))
# B27: causal buckets with num_buckets halved
rp = torch.arange(300)[None, :] - torch.arange(300)[:, None]
b = g.t5_bucket(rp, bidirectional=False, num_buckets=16)
p = save("B27_t5_causal_halved.npy", b.numpy())
cases.append(("B27", "fail", f"--table {p} --family t5 --causal", "decoder buckets with num_buckets //= 2 applied (16 causal buckets)"))
# C25: tutorial in float64
pe = torch.zeros(max_len, d_model, dtype=torch.float64)
position = torch.arange(0, max_len, dtype=torch.float64).unsqueeze(1)
div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
pe[:, 0::2] = torch.sin(position * div_term); pe[:, 1::2] = torch.cos(position * div_term)
p = save("C25_tutorial_f64.npy", pe.numpy())
cases.append(("C25", "pass", f"--table {p} --family sinusoidal", "tutorial PositionalEncoding built in float64"))
# C26: decode slice
full = g.compute_bias_buckets(300, 300, bidirectional=False)
p = save("C26_t5_decode_slice.npy", full[-1:, :].numpy())
cases.append(("C26", "pass", f"--table {p} --family t5 --causal --pos-start 299", "HF T5 decoder position_bias[:, :, -1:, :] slice, 300 keys"))
with open(os.path.join(OUT, "cases.tsv"), "w") as f:
    for c in cases: f.write("\t".join(c) + "\n")
