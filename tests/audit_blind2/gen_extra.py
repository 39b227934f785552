#!/usr/bin/env python3
"""Extra cases added after the first run (expectations written first). Usage: gen_extra.py OUT (after gen_tables.py)"""
import math, sys, os
import numpy as np, torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1]
import importlib.util
spec = importlib.util.spec_from_file_location("g", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_tables.py"))
sys.argv = [sys.argv[0], OUT]
g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g)   # regenerates base tables, defines the functions
cases = []
def save(name, arr):
    np.save(os.path.join(OUT, name), arr); return os.path.join(OUT, name)
W = g.fairseq_get_embedding(1026, 512, padding_idx=None)
p = save("B23_fairseq_from1.npy", W[1:1 + 1024].numpy())
cases.append(("B23", "fail", f"--table {p} --family sinusoidal --preset fairseq --pos-start 2", "fairseq table read from position 1 (make_positions off by one, no zero row)"))
T = torch.from_numpy(np.load(os.path.join(OUT, "timesteps_f32.npy")))
p = save("B24_diffusers_f16_timesteps.npy", g.get_timestep_embedding(T.half().float(), 320).numpy())
cases.append(("B24", "fail", f"--table {p} --family sinusoidal --preset diffusers --timesteps {os.path.join(OUT, 'timesteps_f32.npy')}", "diffusers timesteps cast to float16 before get_timestep_embedding"))
m = torch.arange(1, 33, dtype=torch.float32).mul(8 / 32)
p = save("B25_slopes32rule_first24.npy", (1.0 / torch.pow(2, m))[:24].numpy())
cases.append(("B25", "fail", f"--table {p} --family alibi", "first 24 slopes of the 32-head rule (no [1::2]+[::2] reorder)"))
cases.append(("C23", "pass", f"--table {os.path.join(OUT, 'B10_tutorial_bf16_widened.npy')} --family sinusoidal --dtype bf16", "bf16-widened tutorial table with --dtype bf16"))
cases.append(("C24", "pass", f"--table {os.path.join(OUT, 'B03_tutorial_cat.npy')} --family sinusoidal --preset marian", "concatenated tutorial table checked as Marian's formula"))
with open(os.path.join(OUT, "cases.tsv"), "w") as f:
    for c in cases: f.write("\t".join(c) + "\n")
