"""extreme_tables.py OUT: the tables of tests/checked_against.t, into OUT.

RoPE (cos, sin) caches of shape (n, d/2), one column a pair, d = 64, base
10000: at the positions of ids_far.npy (2^50 + k 2^20, one axis), correct
(cos and sin of each angle by Python's math, glibc's binary64 sin and cos,
rounded once to binary32) and all zero; an axial cache over ids2.npy (two
axes, axes_dim 32,32: each axis its own geometric schedule) and the same
ids' first axis alone (ids1.npy).  Timestep tables of diffusers'
get_timestep_embedding (d = 64, max period 10000, downscale_freq_shift 1,
sin first): correct and all zero at timesteps near 1e12 (ts_far.npy), and
all zero at timesteps 1..16 (ts_small.npy, for --angle-scale 1e308).  A
sinusoidal table (interleaved: sin, cos) of positions 2^50 .. 2^50 + 15,
correct (sin_far.npy); ts_zero.npy serves as its all-zero twin."""
import math
import os
import sys

import numpy as np

out = sys.argv[1]
d, h, base = 64, 32, 10000.0


def save(name, a):
    np.save(os.path.join(out, name), a)


def cache(angles):
    """cos, sin arrays (rows, h) of binary64 ANGLES, rounded once."""
    c = np.array([[math.cos(t) for t in row] for row in angles], dtype=np.float32)
    s = np.array([[math.sin(t) for t in row] for row in angles], dtype=np.float32)
    return c, s


far = [2 ** 50 + k * 2 ** 20 for k in range(16)]
save("ids_far.npy", np.array(far, dtype=np.int64))
omega = [base ** (-2.0 * i / d) for i in range(h)]
c, s = cache([[p * w for w in omega] for p in far])
save("far_cos.npy", c)
save("far_sin.npy", s)
save("zero_cos.npy", np.zeros((16, h), np.float32))
save("zero_sin.npy", np.zeros((16, h), np.float32))

ids2 = np.array([[r, k] for r in range(4) for k in range(4)], dtype=np.int64)
save("ids2.npy", ids2)
save("ids1.npy", ids2[:, 0].copy())
w_ax = [base ** (-2.0 * l / 32) for l in range(16)]
c, s = cache([[float(p[a]) * w_ax[l] for a in range(2) for l in range(16)] for p in ids2])
save("axial_cos.npy", c)
save("axial_sin.npy", s)

ts = np.array([1e12 + 1e6 * k for k in range(16)], dtype=np.float64)
save("ts_far.npy", ts)
w_ts = [math.exp(-math.log(base) * i / (h - 1)) for i in range(h)]
emb = np.array([[math.sin(t * w) for w in w_ts] + [math.cos(t * w) for w in w_ts] for t in ts],
               dtype=np.float32)
save("ts_good.npy", emb)
save("ts_zero.npy", np.zeros((16, d), np.float32))
save("ts_small.npy", np.arange(1, 17, dtype=np.float64))

rows = []
for p in range(2 ** 50, 2 ** 50 + 16):
    row = []
    for w in omega:
        row += [math.sin(p * w), math.cos(p * w)]
    rows.append(row)
save("sin_far.npy", np.array(rows, dtype=np.float32))
