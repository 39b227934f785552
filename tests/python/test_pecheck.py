"""pytest tests of the Python package python/pecheck: the one-line gate an
ML engineer's test suite calls on a cache (run by tests/python.t, or
directly: PECHECK=build/pecheck python3 -m pytest tests/python)."""
import math

import numpy as np
import pytest

import pecheck  # noqa: E402  (python/ of the checkout, or the installed package: conftest.py)

torch = pytest.importorskip("torch")

N, D, BASE = 2048, 64, 10000.0


def inv_freq(d=D, base=BASE):
    # HF's default RoPE initialiser: 1 / base^(arange(0, d, 2) / d), float32
    return 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))


def hf_cache(n=N, d=D, base=BASE, positions_dtype=None):
    """A rotate_half cos/sin cache as HF's LlamaRotaryEmbedding builds it."""
    t = torch.arange(n).float()
    if positions_dtype is not None:
        t = t.to(positions_dtype).float()
    freqs = torch.outer(t, inv_freq(d, base))
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def test_correct_hf_cache_passes():
    cos, sin = hf_cache()
    result = pecheck.assert_rope_cache(cos[None, None], sin[None, None], base=BASE)  # (1, 1, n, d)
    assert result["status"] == "pass"
    assert any(r["check"] == "accuracy" and r["status"] == "pass" for r in result["results"])


def test_wrong_cache_raises_with_witness():
    cos, sin = hf_cache(positions_dtype=torch.bfloat16)
    with pytest.raises(AssertionError) as e:
        pecheck.assert_rope_cache(cos, sin, base=BASE)
    msg = " ".join(str(e.value).split())  # the report's lines are wrapped
    # bf16 holds every integer up to 256; 257 is the first position it rounds
    assert "first over the bound: position 257," in msg
    # the cache's own cos and sin at the witness lead its line (wrapped); the
    # rotated vector's element follows on the next
    line = msg[msg.index(" accuracy [half]: "):msg.index("the rotated test vector there")]
    assert ", pair " in line and "cos[" in line and "sin[" in line, line
    assert "the rotated test vector there: dimension " in msg
    assert "exact" in msg and "bound" in msg
    assert "likely cause:" in msg


def test_compact_numpy_cache_passes():
    cos, sin = hf_cache()
    pecheck.assert_rope_cache(cos[:, : D // 2].numpy(), sin[:, : D // 2].numpy(), base=BASE)


def test_meta_freqs_cis_passes():
    # Meta's precompute_freqs_cis: torch.polar(ones, outer(t, freqs)), complex64
    freqs = torch.outer(torch.arange(N).float(), inv_freq())
    pecheck.assert_rope_cache(torch.polar(torch.ones_like(freqs), freqs), base=BASE)


def test_other_base_is_passed_through():
    cos, sin = hf_cache(base=500000.0)
    pecheck.assert_rope_cache(cos, sin, base=500000.0)
    with pytest.raises(AssertionError):
        pecheck.assert_rope_cache(cos, sin, base=10000.0)


def test_no_base_fails_unless_the_fitted_one_is_accepted():
    cos, sin = hf_cache(base=500000.0)
    with pytest.raises(AssertionError) as e:  # no base: any cache passes its own, so it fails
        pecheck.assert_rope_cache(cos, sin)
    assert "base:" in str(e.value) and "assume_fitted=True" in str(e.value)
    assert "checked against base 500000 (fitted from the table" in str(e.value)
    result = pecheck.assert_rope_cache(cos, sin, assume_fitted=True)  # accepted, and said
    acc = [v for v in result.verdicts if v.check == "accuracy"]
    assert acc and all("base 500000 (fitted from the table" in v.against for v in acc)


def scaled_cache(factor, n=N, d=D, base=BASE):
    t = torch.arange(n).float()
    freqs = torch.outer(t, inv_freq(d, base) / factor)  # HF linear scaling
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def test_rope_scaling_inline():
    cos, sin = scaled_cache(4.0)
    pecheck.assert_rope_cache(cos, sin, base=BASE, rope_scaling={"rope_type": "linear", "factor": 4.0})
    with pytest.raises(AssertionError):
        pecheck.assert_rope_cache(cos, sin, base=BASE, rope_scaling={"rope_type": "linear", "factor": 2.0})


def test_hf_config(tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text('{"rope_theta": 10000.0, "head_dim": %d, "max_position_embeddings": 4096, '
                   '"rope_scaling": {"type": "linear", "factor": 4.0}}' % D)
    cos, sin = scaled_cache(4.0)
    pecheck.assert_rope_cache(cos, sin, hf_config=str(cfg))
    with pytest.raises(pecheck.PecheckError):  # an unknown rope type is exit 2
        pecheck.assert_rope_cache(cos, sin, rope_scaling={"rope_type": "nosuch", "factor": 4.0})


def test_bf16_tensor_dtype_is_inferred():
    cos, sin = hf_cache()
    result = pecheck.check_table(cos.to(torch.bfloat16), sin.to(torch.bfloat16), properties=["accuracy"])
    params = [r["data"]["params"] for r in result["results"] if r["check"] == "accuracy" and r["data"]]
    assert params and all(p["dtype"] == "bf16" for p in params)


def test_sinusoidal_article_buffer():
    pe = torch.zeros(1024, 128)
    position = torch.arange(0, 1024, dtype=torch.float).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, 128, 2).float() * (-math.log(10000.0) / 128))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    assert pecheck.assert_sinusoidal_table(pe.unsqueeze(0))["status"] == "pass"
    pe[:, 1::2] = torch.sin(position * div_term)  # sin-only: a classic mistake
    with pytest.raises(AssertionError):
        pecheck.assert_sinusoidal_table(pe)


def test_bad_shapes_are_value_errors():
    with pytest.raises(ValueError):
        pecheck.check_table(np.zeros((4, 8, 2, 3), dtype=np.float32), np.zeros((4, 8, 2, 3), dtype=np.float32))
    with pytest.raises(ValueError):
        pecheck.check_table(np.zeros((8, 4), dtype=np.float32), np.zeros((8, 6), dtype=np.float32))


def test_binary_not_found_is_pecheck_error(monkeypatch):
    monkeypatch.setenv("PECHECK", "/nonexistent/pecheck")
    with pytest.raises(pecheck.PecheckError):
        pecheck.check_table(np.zeros((8, 4), dtype=np.float32))


def test_input_error_is_pecheck_error():
    # a table of one column is no sinusoidal table: pecheck exits 2
    with pytest.raises(pecheck.PecheckError):
        pecheck.check_table(np.zeros((8, 1), dtype=np.float32))
