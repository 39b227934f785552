#!/usr/bin/env python3
"""bench_rope_cache.py: the RoPE cos/sin cache of `make bench`'s table goals,
and the PyTorch comparison they are measured against.

  bench_rope_cache.py write N D BASE COS.npy SIN.npy
      The float32 cache HF transformers' rotary embedding builds
      (LlamaRotaryEmbedding, transformers 4.4x: inv_freq = 1 / base **
      (arange(0, d, 2).float() / d), freqs = outer(positions.float(),
      inv_freq), emb = cat(freqs, freqs), emb.cos(), emb.sin(), all
      float32), written in pieces of 65536 positions (each value is
      computed from its own position, so the pieces change nothing), so
      that memory stays small whatever N.

  bench_rope_cache.py peer COS.npy SIN.npy BASE
      What a PyTorch user writes instead of pecheck (uncertified): the
      same reference built in float64 (inv_freq, positions and their
      product in float64, then cos and sin), then
      torch.testing.assert_close of the cache (widened to float64) against
      it, cos and sin, on one thread.  The tolerance is rtol 0, atol 1e-2:
      assert_close's defaults fail a correct float32 cache at these
      positions (its float32 angles are off by up to about 1e-2 rad at
      position 131071 of base 500000, 9.3e-3 measured), and a failing
      assert_close spends about twice as long writing its message, so
      the passing comparison is the peer's fastest form.  Prints the
      seconds from loading the files to the verdict (interpreter start
      and imports excluded) and whether it passed.
"""
import sys
import time

PIECE = 65536


def write(n, d, base, cos_path, sin_path):
    import numpy as np
    import torch
    torch.set_num_threads(1)
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2).float() / d))
    cos = np.lib.format.open_memmap(cos_path, mode="w+", dtype=np.float32, shape=(n, d))
    sin = np.lib.format.open_memmap(sin_path, mode="w+", dtype=np.float32, shape=(n, d))
    for p0 in range(0, n, PIECE):
        p1 = min(n, p0 + PIECE)
        t = torch.arange(p0, p1, dtype=torch.float)
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos[p0:p1] = emb.cos().numpy()
        sin[p0:p1] = emb.sin().numpy()
    cos.flush()
    sin.flush()
    del cos, sin


def peer(cos_path, sin_path, base):
    import numpy as np
    import torch
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    cos = torch.from_numpy(np.load(cos_path))
    sin = torch.from_numpy(np.load(sin_path))
    n, d = cos.shape
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    t = torch.arange(0, n, dtype=torch.float64)
    freqs = torch.outer(t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    ok = True
    for got, ref in ((cos, emb.cos()), (sin, emb.sin())):
        try:
            torch.testing.assert_close(got.double(), ref, rtol=0.0, atol=1e-2)
        except AssertionError:
            ok = False
    print("%.6f %s" % (time.perf_counter() - t0, "pass" if ok else "fail"))


def main(argv):
    if len(argv) == 7 and argv[1] == "write":
        write(int(argv[2]), int(argv[3]), float(argv[4]), argv[5], argv[6])
        return 0
    if len(argv) == 5 and argv[1] == "peer":
        peer(argv[2], argv[3], float(argv[4]))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
