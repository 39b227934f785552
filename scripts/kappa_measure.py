#!/usr/bin/python3
"""kappa_measure.py: the phase constants of docs/precision-model.md against
measurement.  For each binary32 formulation (PyTorch's exp and pow forms,
HF's rotary embedding, Meta's polar form: tests/lib/rope_forms.py; ggml's
cumulative product, theta *= powf(base, -2/d) in binary32), each d and base,
the angle a~ of every pair i >= 1 at positions 0..4095, 2^19-2048..2^19+2047
and 2^20-4096..2^20-1 is compared with theta = pos * base^(-2i/d) (binary64,
1e-16 relative: negligible beside u = 2^-24):

    k_i = max |a~ - theta| / (u |theta|)

and printed against the formulation's own kappa_i and the default class's
(harness/engine/model.c: pc_model_kappa_form, pc_model_kappa).  A measured k_i
above a derived kappa_i would refute the derivation.

    scripts/kappa_measure.py [D ...]      (default 64 128 256)"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import rope_forms  # noqa: E402

U = 2.0 ** -24


def kappa_form(form, base, d, i):
    """harness/engine/model.c pc_model_kappa_form (i >= 1)."""
    x = 2.0 * i / d * math.log(base)
    # CUDA's powf 4 ulps, expf 2 (model.h PC_MODEL_POWF_ULPS, PC_MODEL_EXPF_ULPS)
    return {"exp": 2 * x + 6, "pow": x + 11, "hf": x + 11, "meta": x + 11, "ggml": 3 * i + x + 1}[form]


def kappa_default(base, d, i):
    return max(kappa_form(f, base, d, i) for f in ("exp", "pow", "ggml"))


def ggml_angles(d, base, pos):
    ts = torch.pow(torch.tensor(base, dtype=torch.float32), torch.tensor(-2.0 / d, dtype=torch.float32))
    t = torch.tensor(pos, dtype=torch.float32)
    out = []
    for _ in range(d // 2):
        out.append(t)
        t = t * ts
    return torch.stack(out, dim=1)


def measure(form, d, base, pos):
    a = ggml_angles(d, base, pos) if form == "ggml" else rope_forms.angles(form, d, base, pos)
    a = a.double()
    i = torch.arange(d // 2, dtype=torch.float64)
    theta = torch.tensor(pos, dtype=torch.float64)[:, None] * torch.pow(
        torch.tensor(base, dtype=torch.float64), -2.0 * i / d)[None, :]
    k = ((a - theta).abs() / (U * theta.abs().clamp(min=1e-300))).max(dim=0).values
    return k.tolist()


def main():
    ds = [int(x) for x in sys.argv[1:]] or [64, 128, 256]
    pos = []
    for p0, n in ((0, 4096), ((1 << 19) - 2048, 4096), ((1 << 20) - 4096, 4096)):
        pos += list(range(max(p0, 1), p0 + n))
    print("%-5s %4s %8s  %-22s %-22s %s" % ("form", "d", "base", "max k_i/kappa_i(form)",
                                            "max k_i/kappa_i(dflt)", "largest k_i (pair)"))
    for form in ("exp", "pow", "hf", "meta", "ggml"):
        for d in ds:
            for base in (1e4, 5e5, 1e6, 1e7):
                k = measure(form, d, base, pos)
                rf = max(k[i] / kappa_form(form, base, d, i) for i in range(1, d // 2))
                rd = max(k[i] / kappa_default(base, d, i) for i in range(1, d // 2))
                j = max(range(1, d // 2), key=lambda i: k[i])
                print("%-5s %4d %8.0e  %-22.3f %-22.3f %.2f (%d)" % (form, d, base, rf, rd, k[j], j))


if __name__ == "__main__":
    main()
