"""pytest tests of pecheck's messages: the report's lines are wrapped,
never cut (a cause, a witness, a shrunk case whole); what the checks were
checked against said once; the first line (pytest's summary line) names
the failing check and its cause; every replay line, the -v report's too,
names kept files by absolute path, so it runs from any folder; a short
repr of Result and Verdict; shape errors say what to pass instead."""
import os
import re
import shlex
import subprocess

import numpy as np
import pytest

import pecheck  # noqa: E402  (python/ of the checkout, or the installed package: conftest.py)
from pecheck import _binary, result

WIDTH = getattr(result, "WIDTH", 100)  # the report's width

from test_plugin import run

torch = pytest.importorskip("torch")

N, D = 1024, 128


def rope(n=N, d=D, base=10000.0):
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    e = torch.outer(torch.arange(n).float(), inv).repeat(1, 2)
    return e.cos(), e.sin()


def flat(text):
    return " ".join(text.split())


@pytest.fixture
def wrong_base(tmp_path):
    """Llama's cache checked against Llama 3's base: accuracy, fitted-model
    and decay fail, with long lines (the cause, the fitted model's pairs,
    the decay's smallest case)."""
    return pecheck.check_rope_cache(*rope(), base=500000.0, keep=tmp_path / "kept")


@pytest.mark.parametrize("verbose", [False, True], ids=["short", "verbose"])
def test_lines_are_wrapped_never_cut(wrong_base, verbose):
    r = wrong_base
    text = r.report(verbose)
    assert len(r.failures) >= 3
    for v in r.failures:
        # each failing check's line, the cause and the witness whole (words across lines)
        assert flat(v.line()) in flat(text), v.name
        assert flat(v.likely_cause or "") in flat(text)
        if v.witness and v.witness.rotated:
            assert flat(v.witness.rotated) in flat(text)
    assert "..." not in flat(text).replace("0..1023", "")  # nothing cut ("positions 0..1023" is a range)
    for line in text.splitlines()[1:]:
        if "replay" in line or line.startswith("      "):  # command lines; the CLI's own text (-v)
            continue
        assert len(line) <= WIDTH or " " not in line.strip(), line


def test_what_was_checked_against_is_said_once(wrong_base):
    text = wrong_base.report()
    against = {v.against for v in wrong_base.failures}
    assert len(against) == 1
    assert text.count("checked against ") == 1
    assert flat("checked against " + result.in_python(against.pop())) in flat(text)


def test_the_first_line_names_the_failing_check_and_its_cause(wrong_base):
    head = wrong_base.report().splitlines()[0]
    first = next(v for v in wrong_base.failures if v.likely_cause)
    assert head.startswith("pecheck: the RoPE cache fails %s and %d more of %d checks; likely cause: "
                           % (first.name, len(wrong_base.failures) - 1, len(wrong_base.verdicts)))
    assert first.likely_cause in head
    # no cause: the witness
    w = torch.randn(64, 16)
    w[7, 9] = float("nan")
    head = pecheck.check_learned_table(w, keep=False).report().splitlines()[0]
    assert head.startswith("pecheck: the learned table fails table-values and 1 more of 6 checks: "
                           "table.npy row 7 (position 7), column 9 = nan")


def test_the_command_of_a_note_is_a_line_of_its_own():
    w = torch.zeros(64, 16)
    r = pecheck.check_learned_table(w, keep=False)
    lines = r.report().splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.startswith("  note: the inputs were not kept"))
    cmd = next(ln for ln in lines[k:] if "pecheck check" in ln)
    assert cmd.startswith("      pecheck check --family learned ") and cmd.endswith("--regressions off")


def test_pytests_summary_line_names_the_check_and_the_cause(pytester):
    pytester._monkeypatch.setenv("CI", "true")  # pytest prints the summary's message untrimmed on CI
    res = run(pytester, '''
def test_wrong_base(pecheck_gate):
    pecheck_gate.rope_cache(*rope(), base=500000.0)
''', "-rf")
    line = next(ln for ln in res.stdout.lines if ln.startswith("FAILED "))
    assert "AssertionError: pecheck: the RoPE cache fails accuracy [half]" in line
    assert "likely cause: " in line and "a wrong base" in line


def _replays(text):
    return [shlex.split(line.split("replay", 1)[1].split(": ", 1)[1])
            for line in text.splitlines() if line.strip().startswith("replay")]


def test_every_replay_line_names_kept_files_and_runs_from_any_folder(wrong_base, tmp_path):
    text = wrong_base.report(verbose=True)
    replays = _replays(text)
    assert len(replays) >= 2  # the run's, and the CLI's own (-v) for the decay case
    # a folder with files of the same names as the inputs, that are not them
    decoy = tmp_path / "elsewhere"
    decoy.mkdir()
    for name in ("cos.npy", "sin.npy"):
        np.save(str(decoy / name), np.zeros((4, 4), np.float32))
    for argv in replays:
        files = [a for a in argv if a.endswith(".npy")]
        assert files and all(os.path.isabs(f) and os.path.isfile(f) for f in files), argv
        assert all(os.path.dirname(f) == wrong_base.kept for f in files)
        p = subprocess.run([_binary.find_binary()] + argv[1:], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, cwd=str(decoy))
        assert p.returncode == 1, (argv, p.stderr)  # the failure, reproduced
    assert flat("inputs kept in " + wrong_base.kept) in flat(text)


def test_replay_lines_of_inputs_not_kept_say_so():
    r = pecheck.check_rope_cache(*rope(), base=500000.0, keep=False)
    for line in r.report(verbose=True).splitlines():
        if line.strip().startswith("replay"):
            assert line.strip().startswith("replay (the inputs were not kept: see the note): ")


def test_short_reprs(wrong_base):
    text = repr(wrong_base)
    assert len(text) < 300 and "\n" not in text
    assert text.startswith("Result('fail', 'the RoPE cache', 9 checks, failing accuracy [half], ")
    assert "kept in " + wrong_base.kept in text
    for v in wrong_base.verdicts:
        assert len(repr(v)) < 150 and repr(v).startswith("Verdict(%r, %r, " % (v.name, v.status))
    assert len(repr(wrong_base.witness)) < 300
    assert repr(pecheck.check_sinusoidal_table(sinusoidal())) \
        .startswith("Result('pass', 'the sinusoidal table', ")


def sinusoidal(n=256, d=64):
    pos = np.arange(n, dtype=np.float64)[:, None]
    div = np.exp(np.arange(0, d, 2) * (-np.log(10000.0) / d))
    pe = np.zeros((n, d), np.float32)
    pe[:, 0::2] = np.sin(pos * div)
    pe[:, 1::2] = np.cos(pos * div)
    return pe


# ---- shapes tutorials build: the error says what to pass ----------------------------------

def test_the_pytorch_tutorials_pe_buffer_gets_the_squeeze_hint():
    pe = torch.from_numpy(sinusoidal(5000, 512)).unsqueeze(0).transpose(0, 1)  # (5000, 1, 512)
    with pytest.raises(ValueError, match=r"got shape \(5000, 1, 512\);.*PyTorch tutorial.*"
                                         r"pass pe\.squeeze\(1\)$"):
        pecheck.check_sinusoidal_table(pe)
    pecheck.assert_sinusoidal_table(pe.squeeze(1))  # the hint works


@pytest.mark.parametrize("shape,fix", [((2, N, D), "cos[0]"), ((2, 8, N, D), "cos[0, 0]"),
                                       ((1, 2, N, D), "cos[0, 0]"), ((1, N, 1, D), "cos.squeeze(2)"),
                                       ((D,), "cos[None]")])
def test_other_common_shapes_get_a_hint(shape, fix):
    x = np.zeros(shape, np.float32)
    with pytest.raises(ValueError, match=r"; .*pass .*%s$" % re.escape(fix)):
        pecheck.check_rope_cache(x, x, base=10000.0)


# ---- the CLI's options in a cause, as the keywords Python takes --------------------------

@pytest.mark.parametrize("cli,py", [
    ("(sliced from a longer one?); pass --pos-start 1", "(sliced from a longer one?); pass pos_start=1"),
    ("base 500000 (--base), frequencies", "base 500000 (base=), frequencies"),
    ("pass --layout half if the model rotates", "pass layout='half' if the model rotates"),
    ("(pass --d with the table's width)", "(pass d= with the table's width)"),
    ("it passes with a given base or with --assume-fitted.", "it passes with a given base or with "
                                                             "assume_fitted=True."),
    ("give --hf-config config.json", "give hf_config='config.json'"),
    ("rerun with --dtype bf16", "rerun with dtype='bf16'"),
    ("--family rope with --table COS.npy", "--family rope with --table COS.npy"),  # set by the API
])
def test_a_causes_options_are_written_as_keywords(cli, py):
    assert result.in_python(cli) == py


def test_the_off_by_one_cause_names_pos_start():
    cos, sin = rope()
    r = pecheck.check_rope_cache(cos[1:], sin[1:], base=10000.0, keep=False)
    head = r.report().splitlines()[0]
    assert "pass pos_start=1" in head and "--pos-start" not in head
    assert "--pos-start 1" in r.likely_cause  # the value itself is the CLI's words
    pecheck.assert_rope_cache(cos[1:], sin[1:], base=10000.0, pos_start=1)  # and it is right


def test_a_failed_result_without_a_failing_verdict_says_so():
    skipped = result.verdicts_from_json({"results": [{"check": "accuracy", "status": "skip",
                                                      "summary": "nothing to check"}]})
    r = pecheck.Result(status="fail", what="the RoPE cache", verdicts=skipped)
    assert r.report().splitlines()[0] == "pecheck: the RoPE cache fails with no failing check (1 skipped)"
