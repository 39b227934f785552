"""check_rotation: the user's own RoPE rotation, called by pecheck's served
kernel (pecheck check --serve) in the five library forms.

Every correct rotation below is its library's formulation
(tests/python/rotation_forms.py) and passes in float32, bfloat16 and
float16; each planted bug fails, and the test prints which check and which
likely cause pecheck gives first (pytest -s shows them)."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

import pecheck  # noqa: E402
from pecheck import rotation as rot  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rotation_forms as lib  # noqa: E402

N = 512          # positions 0..N-1: a few blocks of the gate, fast
D = 64           # head dim
# the extrapolation property asks for positions up to 64 times the checked
# range (pecheck explain extrapolation): tables of functions of positions reach it
EXTRA = 64
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def _k_not_rotated(q, k, cos, sin):
    q_embed, _ = lib.apply_rotary_pos_emb(q, k, cos, sin)
    return q_embed, k


def correct(form, dtype):
    """(fn, keywords) of a correct rotation of FORM in DTYPE, as its library writes it."""
    if form == "x,pos":
        return lib.RotaryPositionalEmbeddings(D, max_seq_len=EXTRA * N, base=10_000), {}
    if form == "q,k,pos":
        return lib.RotaryEmbedding(D, D, EXTRA * N, 10_000, True, DTYPES[dtype]).forward_native, {}
    if form == "q,k,cos,sin":
        return lib.apply_rotary_pos_emb, {}
    if form == "x,freqs_cis":
        return lib.apply_rotary_emb, {}
    return lib.apply_rotary_emb_torch, {}


def report(name, result):
    """The first failing check and likely cause of a planted bug (pytest -s)."""
    first = next((v for v in result.failures if v.likely_cause), None) or result.failures[0]
    print("\nBUG %s: %s; first %s; likely cause: %s" % (
        name, ", ".join(v.name for v in result.failures), first.name, first.likely_cause))


@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("form", list(rot.FORMS))
def test_library_forms_pass(form, dtype):
    fn, kw = correct(form, dtype)
    r = pecheck.check_rotation(fn, form=form, positions=N, head_dim=D, dtype=dtype, **kw)
    assert r.passed, r.report(verbose=True)
    checks = {v.check for v in r.verdicts if v.status == "pass"}
    assert {"accuracy", "passthrough", "rope-relative", "rope-norm"} <= checks
    # q and k (xq and xk) are gated separately
    targets = {v.layout.split(",")[0] for v in r.verdicts if v.check == "accuracy"}
    assert targets == ({"x"} if form in ("x,pos", "x,cos,sin") else
                       {"xq", "xk"} if form == "x,freqs_cis" else {"q", "k"})
    assert all(dtype in v.layout for v in r.verdicts if v.check == "accuracy")


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_gptj_rotate_every_two_passes_interleaved(dtype):
    r = pecheck.check_rotation(lib.gptj_apply, form="q,k,cos,sin", layout="interleaved",
                               positions=N, head_dim=D, dtype=dtype)
    assert r.passed, r.report(verbose=True)


def test_llama3_scaling():
    scaling = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
               "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    rope = lib.Llama3ScaledRoPE(D, max_seq_len=EXTRA * 1024)
    cfg = {"rope_theta": 500000.0, "head_dim": D, "rope_scaling": scaling}
    r = pecheck.check_rotation(rope, form="x,pos", positions=1024, hf_config=cfg)
    assert r.passed, r.report(verbose=True)
    # the scaling is what is checked: the same rotation against the unscaled base fails
    r = pecheck.check_rotation(rope, form="x,pos", positions=1024, head_dim=D, base=500000.0)
    assert not r.passed


def test_yarn_scaling_long_case():
    """YaRN x4 over 4096 positions (the one long case), vLLM's form with the
    attention factor in its cos/sin cache."""
    scaling = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024}
    inv_freq, mscale = lib.yarn_parameters(D, 10000.0, 4.0, 1024)
    rope = lib.RotaryEmbedding(D, D, EXTRA * 4096, 10000.0, True, torch.float32,
                               inv_freq=inv_freq, mscale=mscale)
    r = pecheck.check_rotation(rope.forward_native, form="q,k,pos", positions=4096, head_dim=D,
                               base=10000.0, rope_scaling=scaling)
    assert r.passed, r.report(verbose=True)
    # without the attention factor it fails
    plain = lib.RotaryEmbedding(D, D, EXTRA * 1024, 10000.0, True, torch.float32,
                                inv_freq=inv_freq)
    r = pecheck.check_rotation(plain.forward_native, form="q,k,pos", positions=1024, head_dim=D,
                               base=10000.0, rope_scaling=scaling)
    assert not r.passed


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_partial_rotary_neox(dtype):
    """GPT-NeoX rotary_pct 0.25: 16 of 64 dims rotated, the rest passed through."""
    r = pecheck.check_rotation(lib.neox_apply(16), form="q,k,cos,sin", positions=N, head_dim=D,
                               rotary_dim=16, dtype=dtype)
    assert r.passed, r.report(verbose=True)
    r = pecheck.check_rotation(lib.apply_rotary_emb_torch, form="x,cos,sin", positions=N,
                               head_dim=D, rotary_dim=16, dtype=dtype)
    assert r.passed, r.report(verbose=True)


def mrope_ids():
    """Qwen2-VL position ids (n, 3): 100 text tokens, an 8 x 16 image grid,
    72 text tokens after it."""
    rows = [(t, t, t) for t in range(100)]
    rows += [(100, 100 + h, 100 + w) for h in range(8) for w in range(16)]
    rows += [(116 + t, 116 + t, 116 + t) for t in range(72)]
    return np.array(rows, dtype=np.int64)


def test_mrope_sections():
    rope = lib.MRotaryEmbedding(128, 128, 512, 10000.0, True, torch.float32, [16, 24, 24])
    r = pecheck.check_rotation(rope.forward_native, form="q,k,pos", position_ids=mrope_ids(),
                               head_dim=128, rope_sections="16,24,24")
    assert r.passed, r.report(verbose=True)


# ---- bugs: each fails ----------------------------------------------------------

def test_bug_pairing_half_vs_interleaved():
    """torchtune's rotation (interleaved pairs) in a model trained with rotate_half."""
    rope = lib.RotaryPositionalEmbeddings(D, max_seq_len=EXTRA * N)
    r = pecheck.check_rotation(rope, form="x,pos", layout="half", positions=N, head_dim=D)
    assert not r.passed
    assert r.witness.text.startswith("x[0, ")
    assert "layouts are swapped" in r.failures[0].likely_cause
    report("pairing", r)


def test_bug_partial_rotary_wrong_slice():
    r = pecheck.check_rotation(lib.neox_apply(16, wrong_slice=True), form="q,k,cos,sin",
                               positions=N, head_dim=D, rotary_dim=16)
    assert not r.passed
    assert "does not rotate these dims" in r.failures[0].likely_cause
    assert any(v.check == "passthrough" for v in r.failures)  # the other dims were rotated
    report("partial slice", r)


def test_bug_k_not_rotated():
    r = pecheck.check_rotation(_k_not_rotated, form="q,k,cos,sin", positions=N, head_dim=D)
    assert not r.passed
    failing = {v.layout.split(",")[0] for v in r.failures if v.check == "accuracy"}
    assert failing == {"k"}  # q passes, k fails
    assert r.witness.text.startswith("k[0, ")
    assert " at k[0, " in r.headline()
    assert "k left unrotated" in r.failures[0].likely_cause
    report("k not rotated", r)


@pytest.mark.parametrize("fn_name,layout", [("every_two_on_cat", "half"),
                                            ("rotate_half_on_interleaved", "interleaved")])
def test_bug_pairing_and_cos_sin_layout_differ(fn_name, layout):
    """rotate_every_two with HF's cat(freqs, freqs) cos/sin, and rotate_half with
    GPT-J's repeat_interleave'd cos/sin: neither is a rotation of any pairing."""
    def every_two_on_cat(q, k, cos, sin):
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        return (q * cos + lib.rotate_every_two(q) * sin, k * cos + lib.rotate_every_two(k) * sin)

    fn = {"every_two_on_cat": every_two_on_cat,
          "rotate_half_on_interleaved": lib.apply_rotary_pos_emb}[fn_name]
    r = pecheck.check_rotation(fn, form="q,k,cos,sin", positions=N, head_dim=D, layout=layout)
    assert not r.passed
    assert "pairs the dims one way and its cos/sin are laid out the other" in r.likely_cause
    report("pairing vs cos/sin layout (%s)" % fn_name, r)


def test_k_mirrors_q_in_one_run():
    """q and k through the same formula: k's values, rolled back, are q's bit
    for bit on every call of q's run, so k's verdicts are q's, saying why."""
    r = pecheck.check_rotation(lib.apply_rotary_pos_emb, form="q,k,cos,sin", positions=N,
                               head_dim=D)
    assert r.passed, r.report()
    ks = [v for v in r.verdicts if v.layout.startswith("k")]
    qs = [v for v in r.verdicts if v.layout.startswith("q")]
    assert ks and len(ks) == len(qs)
    assert all(v.summary.endswith(rot.MIRROR_NOTE) for v in ks)


def test_k_computed_otherwise_is_gated_on_its_own():
    """A k path that differs from q's in its last bits (float64 then rounded)
    is no mirror: k gets a run of its own, and passes on its own values."""
    def k_in_float64(q, k, cos, sin):
        q_embed, _ = lib.apply_rotary_pos_emb(q, k, cos, sin)
        _, k_embed = lib.apply_rotary_pos_emb(q.double(), k.double(), cos.double(), sin.double())
        return q_embed, k_embed.float()

    r = pecheck.check_rotation(k_in_float64, form="q,k,cos,sin", positions=N, head_dim=D)
    assert r.passed, r.report()
    ks = [v for v in r.verdicts if v.layout.startswith("k")]
    assert ks and not any(rot.MIRROR_NOTE in v.summary for v in ks)


def test_bug_direction_reversed():
    def reversed_sin(q, k, cos, sin):
        return lib.apply_rotary_pos_emb(q, k, cos, -sin)

    r = pecheck.check_rotation(reversed_sin, form="q,k,cos,sin", positions=N, head_dim=D)
    assert not r.passed
    assert "turns the wrong way" in r.likely_cause
    report("direction", r)


def test_failing_property_replays_alone():
    """A failing property's replay line reruns it alone, on the same positions and seed."""
    r = pecheck.check_rotation(_k_not_rotated, form="q,k,cos,sin", positions=N, head_dim=D)
    prop = next(v for v in r.failures if v.check == "unique")
    assert "positions=%d" % N in prop.replay and "properties=['unique']" in prop.replay
    again = eval(prop.replay, {"check_rotation": pecheck.check_rotation,
                               "_k_not_rotated": _k_not_rotated})
    assert [v.check for v in again.failures] == ["unique"]


def test_bug_position_off_by_one():
    rope = lib.RotaryEmbedding(D, D, EXTRA * N + 1, 10_000, True, torch.float32,
                                pos_offset=1)
    r = pecheck.check_rotation(rope.forward_native, form="q,k,pos", positions=N, head_dim=D)
    assert not r.passed
    assert r.witness.text.startswith("q[") or r.witness.text.startswith("k[")
    assert "off by +1" in r.likely_cause
    report("off by one", r)


def test_bug_cos_sin_in_bf16_for_a_float32_model():
    """vLLM's cache held in bfloat16 while the model runs in float32."""
    rope = lib.RotaryEmbedding(D, D, EXTRA * N, 10_000, True, torch.bfloat16)
    r = pecheck.check_rotation(rope.forward_native, form="q,k,pos", positions=N, head_dim=D,
                               dtype="f32")
    assert not r.passed
    assert "cos/sin to bfloat16" in r.likely_cause
    report("bf16 cos/sin", r)


def test_bug_wrong_mrope_section():
    rope = lib.MRotaryEmbedding(128, 128, 512, 10000.0, True, torch.float32, [24, 24, 16])
    r = pecheck.check_rotation(rope.forward_native, form="q,k,pos", position_ids=mrope_ids(),
                               head_dim=128, rope_sections="16,24,24")
    assert not r.passed
    assert "sections 24,24,16" in r.likely_cause
    report("M-RoPE section", r)


def test_q_and_k_swapped_fails():
    def swapped(q, k, cos, sin):
        q2, k2 = lib.apply_rotary_pos_emb(q, k, cos, sin)
        return k2, q2

    r = pecheck.check_rotation(swapped, form="q,k,cos,sin", positions=256, head_dim=D)
    assert {v.layout.split(",")[0] for v in r.failures if v.check == "accuracy"} == {"q", "k"}
    assert r.likely_cause.startswith("q and k come back swapped"), r.likely_cause


def test_tables_ending_at_the_checked_positions_pass():
    """A cache of the checked positions only (vLLM's max_position_embeddings):
    the function is called at the positions asked, so it passes; extrapolation
    beyond them is skipped, saying so."""
    rope = lib.RotaryEmbedding(D, D, 256, 10_000, True, torch.float32)
    r = pecheck.check_rotation(rope.forward_native, form="q,k,pos", positions=256, head_dim=D)
    assert r.passed, r.report()
    skips = [v for v in r.verdicts if v.check == "extrapolation"]
    assert skips and all(v.status == "skip" and "serves positions 0..255 only" in v.summary
                         for v in skips)


# ---- the report: element, cause, replay ------------------------------------------

def test_failure_names_the_forms_element_and_replays():
    r = pecheck.check_rotation(_k_not_rotated, form="q,k,cos,sin", positions=N, head_dim=D)
    w = r.witness
    # k[0, head, token, dim]: HF's (batch, heads, tokens, head_dim)
    idx = [int(x) for x in w.text.split("]")[0].split("[")[1].split(",")]
    assert idx[0] == 0 and idx[1] == w.position % 3 and idx[3] == w.dimension
    assert r.replay.startswith("check_rotation(_k_not_rotated, form='q,k,cos,sin', position_ids=[")
    assert str(w.position) in r.replay.split("position_ids=")[1].split("]")[0]
    text = r.report()
    assert "replay: check_rotation(" in text and "likely cause" in text.splitlines()[0]
    # the replay line runs as printed, on a few positions, and fails too
    again = eval(r.replay, {"check_rotation": pecheck.check_rotation,
                            "_k_not_rotated": _k_not_rotated})
    assert not again.passed
    assert 0 < len(again.verdicts) and again.witness.text.startswith("k[0, ")


def test_token_index_is_the_calls():
    """With chunk=, a witness's token index is within the call that carried it."""
    calls = []
    off_by_one = lib.RotaryEmbedding(D, D, EXTRA * N + 1, 10_000, True, torch.float32,
                                     pos_offset=1)

    def rope(positions, q, k):
        calls.append(positions.clone())
        return off_by_one.forward_native(positions, q, k)

    r = pecheck.check_rotation(rope, form="q,k,pos", positions=N, head_dim=D, chunk=7)
    assert not r.passed
    assert max(len(c) for c in calls) <= 7
    w = r.witness
    name, rest = w.text.split("[", 1)
    t, hj = (int(x) for x in rest.split("]")[0].split(","))
    assert hj == (w.position % 3) * D + w.dimension
    assert any(len(c) > t and int(c[t]) == w.position for c in calls)


def test_assert_rotation_and_chunks_pass():
    calls = []

    def fn(q, k, cos, sin):
        calls.append(q.shape[2])
        return lib.apply_rotary_pos_emb(q, k, cos, sin)

    r = pecheck.assert_rotation(fn, form="q,k,cos,sin", positions=300, head_dim=D, chunk=50)
    assert r.passed and max(calls) <= 50
    with pytest.raises(AssertionError) as e:
        pecheck.assert_rotation(_k_not_rotated, form="q,k,cos,sin", positions=256, head_dim=D,
                                msg="my rope")
    assert str(e.value).startswith("my rope\npecheck: the rotation _k_not_rotated")
    assert "replay: check_rotation(" in str(e.value)


def test_in_place_rotation_returning_none():
    def in_place(q, k, cos, sin):
        q2, k2 = lib.apply_rotary_pos_emb(q, k, cos, sin)
        q.copy_(q2)
        k.copy_(k2)

    r = pecheck.check_rotation(in_place, form="q,k,cos,sin", positions=256, head_dim=D)
    assert r.passed, r.report()


def test_position_ids_list_and_positional_x_pos():
    """A plain fn(x, positions) (second positional parameter) with ids (n,)."""
    rope = lib.RotaryPositionalEmbeddings(D, max_seq_len=EXTRA * 4096)

    def fn(x, positions):
        return rope(x, input_pos=positions)

    ids = list(range(1000, 1300)) + list(range(4000, 4096))
    r = pecheck.check_rotation(fn, form="x,pos", position_ids=ids, head_dim=D, device="cpu")
    assert r.passed, r.report()


def test_fn_raising_is_reraised_with_a_note():
    class Boom(Exception):
        pass

    def fn(q, k, cos, sin):
        raise Boom("no")

    with pytest.raises(Boom) as e:
        pecheck.check_rotation(fn, form="q,k,cos,sin", positions=256, head_dim=D)
    note = " ".join(getattr(e.value, "__notes__", []))
    assert "form 'q,k,cos,sin'" in note and "q (1, 3, " in note and "cos (1, " in note
    assert _pecheck_children() == []  # pecheck was stopped and reaped


def _pecheck_children():
    """The pecheck processes this process started that are still there."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:]
        if comm == "pecheck" and int(rest.split()[1]) == os.getpid():
            out.append(int(pid))
    return out


@pytest.mark.parametrize("bad, error, words", [
    (lambda q, k, c, s: q.numpy(), TypeError, "expected (q', k')"),
    (lambda q, k, c, s: (q.numpy(), k), TypeError, "as q'"),
    (lambda q, k, c, s: (q[..., :-2], k), ValueError, "of shape"),
    (lambda q, k, c, s: (q.double(), k.double()), TypeError, "dtype float64"),
])
def test_malformed_return(bad, error, words):
    with pytest.raises(error) as e:
        pecheck.check_rotation(bad, form="q,k,cos,sin", positions=64, head_dim=D)
    assert words in str(e.value) and "form 'q,k,cos,sin'" in str(e.value)


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="form="):
        pecheck.check_rotation(lib.apply_rotary_pos_emb, form="qk")
    with pytest.raises(ValueError, match="layout="):
        pecheck.check_rotation(lib.apply_rotary_pos_emb, form="q,k,cos,sin", layout="neox")
    with pytest.raises(TypeError, match="set by check_rotation"):
        pecheck.check_rotation(lib.apply_rotary_pos_emb, form="q,k,cos,sin", serve_dtype="f32")
    with pytest.raises(TypeError, match="not both"):
        pecheck.check_rotation(lib.apply_rotary_pos_emb, form="q,k,cos,sin", positions=4,
                               position_ids=[0, 1])


@pytest.mark.pecheck(head_dim=D, positions=256)
def test_fixture_rotation(pecheck_gate):
    r = pecheck_gate.rotation(lib.apply_rotary_pos_emb, form="q,k,cos,sin", dtype="bf16")
    assert r.passed and "bf16" in r.command
    with pytest.raises(AssertionError, match=r"at k\[0, "):
        pecheck_gate.rotation(_k_not_rotated, form="q,k,cos,sin")


# ---- the protocol, with a fake pecheck ------------------------------------------

def test_messages_round_trip_and_padding_kept():
    """A request packed as pecheck packs it, answered by the Caller: the view
    comes back rotated, the padding between heads and tokens as it went."""
    n, heads, hd, st_head, st_tok = 4, 3, 8, 10, 35
    rng = np.random.default_rng(1)
    flat = rng.standard_normal((n - 1) * st_tok + (heads - 1) * st_head + hd).astype(np.float32)
    pos = np.array([[5], [6], [7], [9]], dtype=np.int64)
    cos = rng.standard_normal((n, hd // 2)).astype(np.float32)
    sin = rng.standard_normal((n, hd // 2)).astype(np.float32)
    req = rot.Request(1, heads, hd, hd, "half", "f32", pos, cos, sin, st_tok, st_head,
                      flat.tobytes())
    r_fd, w_fd = os.pipe()
    try:
        os.write(w_fd, rot.pack_request(req))
        got = rot.read_request(r_fd)
        assert (got.positions == pos).all() and (got.cos == cos).all() and got.target == 1
        seen = {}

        def fn(q, k, c, s):
            seen.update(q=q.clone(), k=k.clone(), c=c.clone())
            return q * 0 + 1, k * 0 + 2

        caller = rot.Caller(fn, rot.FORMS["q,k,cos,sin"], None, None, [None] * 4)
        rc, payload = caller.answer(got)
        assert rc == 0
        rot.write_reply(w_fd, rc, payload)
        rc2, back = rot.read_reply(r_fd)
    finally:
        os.close(r_fd)
        os.close(w_fd)
    assert rc2 == 0 and len(back) == len(flat) * 4
    out = np.frombuffer(back, dtype=np.float32)
    view = rot._view(out, req)
    assert (view == 2).all()  # target 1: k's rotation
    mask = np.ones(out.size, bool)
    rot._view(mask, req)[...] = False
    assert (out[mask] == flat[mask]).all()  # the padding untouched
    # target 1: the request tensor is k; q the same values with heads rolled by one
    x = rot._view(flat, req)
    assert torch.equal(seen["k"][0].permute(1, 0, 2), torch.from_numpy(np.ascontiguousarray(x)))
    assert torch.equal(seen["q"][0].permute(1, 0, 2),
                       torch.roll(torch.from_numpy(np.ascontiguousarray(x)), 1, dims=1))
    assert torch.equal(seen["c"][0], torch.cat((torch.from_numpy(cos),) * 2, dim=-1))
    # a function of positions at another head_dim than the check's: not
    # supported (rc 1 and a reason); fn is not called
    caller = rot.Caller(None, rot.FORMS["q,k,pos"], None, None, [16, None, None, None])
    rc, why = caller.answer(got)
    assert rc == 1 and b"head_dim 16" in why and b"head_dim 8" in why


def test_bf16_tensor_bits_round_trip():
    n, heads, hd = 2, 3, 4
    bits = np.arange(n * heads * hd, dtype=np.uint16) + 0x3f80
    req = rot.Request(0, heads, hd, hd, "interleaved", "bf16", np.zeros((n, 1), np.int64), None,
                      None, heads * hd, hd, bits.tobytes())
    t = rot.request_tensor(req)
    assert t.dtype == torch.bfloat16
    assert rot.reply_bytes(req, t) == bits.tobytes()
