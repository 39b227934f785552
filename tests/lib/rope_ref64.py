#!/usr/bin/env python3
"""rope_ref64.py MODEL N SEQ REF.npy: compare `pecheck reference --dtype f64`
output REF.npy ((n, d/2, 2): A cos, A sin) with the schedule of MODEL
(tests/lib/rope_caches.py's configs) evaluated in binary64 with Python's
math module (HF's formulas, modeling_rope_utils.py).  Prints the largest
absolute difference; exit 1 when it exceeds 1e-9 (binary64 evaluation of
angles up to 10^4 rad is good to about 1e-12)."""
import math
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import rope_caches as rc  # noqa: E402


def inv_freqs(cfg, seq):
    hd, dim = rc.dims(cfg)
    base = rc.base_of(cfg)
    t = rc.rope_type(cfg)
    rs = cfg.get("rope_scaling") or {}
    g = [base ** (-2.0 * i / dim) for i in range(dim // 2)]
    att = 1.0
    if t == "linear":
        g = [x / rs["factor"] for x in g]
    elif t == "dynamic":
        L = cfg["max_position_embeddings"]
        s = max(seq, L)
        b = base * ((rs["factor"] * s / L) - (rs["factor"] - 1)) ** (dim / (dim - 2))
        g = [b ** (-2.0 * i / dim) for i in range(dim // 2)]
    elif t == "llama3":
        f, lf, hf, old = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"], rs["original_max_position_embeddings"]
        out = []
        for x in g:
            s = min(max((old * x / (2 * math.pi) - lf) / (hf - lf), 0.0), 1.0)
            out.append(x * ((1 - s) / f + s))
        g = out
    elif t == "yarn":
        f = rs["factor"]
        L0 = rs.get("original_max_position_embeddings") or cfg["max_position_embeddings"]
        corr = lambda r: dim * math.log(L0 / (r * 2 * math.pi)) / (2 * math.log(base))
        lo, hi = max(math.floor(corr(32)), 0), min(math.ceil(corr(1)), dim - 1)
        g = [x * (1 - min(max((i - lo) / (hi - lo), 0), 1) * (1 - 1 / f)) for i, x in enumerate(g)]
        att = 0.1 * math.log(f) + 1
    elif t == "longrope":
        L0 = cfg["original_max_position_embeddings"]
        f = cfg["max_position_embeddings"] / L0
        ext = rs["long_factor"] if seq > L0 else rs["short_factor"]
        g = [x / e for x, e in zip(g, ext)]
        att = math.sqrt(1 + math.log(f) / math.log(L0))
    return g, att


def main(argv):
    model, n, seq, path = argv[1], int(argv[2]), int(argv[3]), argv[4]
    g, att = inv_freqs(rc.MODELS[model], seq)
    ref = np.load(path)
    worst = 0.0
    for p in range(n):
        for i, w in enumerate(g):
            worst = max(worst, abs(ref[p, i, 0] - att * math.cos(p * w)), abs(ref[p, i, 1] - att * math.sin(p * w)))
    print("%s: largest |pecheck reference - binary64 formula| = %.3g" % (model, worst))
    return 0 if worst <= 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
