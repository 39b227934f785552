"""The pytest plugin of pecheck (entry point pytest11 'pecheck').

    def test_rope(pecheck_gate):                              # the fixture
        cos, sin = model.rotary_emb(x, position_ids)
        pecheck_gate.rope_cache(cos, sin, hf_config="config.json")

    @pytest.mark.pecheck(hf_config="config.json", dtype="bf16")   # defaults of the test's checks
    def test_rotary(pecheck_gate):
        pecheck_gate.rotary(model.rotary_emb, positions=1_000_000)
        pecheck_gate.rotation(apply_rotary_pos_emb, form="q,k,cos,sin")   # the user's rotation

A failing check fails the test with a short message (the witness, the
likely cause, the replay line); `pytest -v` gives the full report.  Every
verdict is a property of the test (record_property: pytest's JUnit XML
carries them as <property name="pecheck.FAMILY.CHECK[.LAYOUT]" value="...">).
Failing inputs are kept under the session's temporary folder
(pecheck-failed/, or --pecheck-keep DIR) so the replay line runs as printed.
"""
import pytest

from . import _binary, settings
from .checks import (check_alibi_slopes, check_learned_table, check_rope_cache,
                     check_sinusoidal_table, check_t5_buckets)
from .rotary import check_rotary
from .rotation import check_rotation

MARKER = ("pecheck(**options): keyword arguments of the pecheck_gate fixture's checks in this test "
          "(base=, hf_config=, dtype=, pos_start=, ...: `pecheck check`'s options)")


def pytest_addoption(parser):
    group = parser.getgroup("pecheck")
    group.addoption("--pecheck-keep", metavar="DIR", default=None,
                    help="folder for the inputs of failing pecheck checks (default: pecheck-failed/ "
                         "in the session's temporary folder)")


def pytest_configure(config):
    config.addinivalue_line("markers", MARKER)
    settings.set_verbose(config.getoption("verbose") > 0)


def pytest_unconfigure(config):
    settings.set_verbose(None)
    settings.set_keep_root(None)


def pytest_report_header(config):
    try:
        return "pecheck: %s" % _binary.find_binary()
    except _binary.PecheckError as e:
        return "pecheck: %s" % e


@pytest.fixture(scope="session", autouse=True)
def _pecheck_keep_root(request, tmp_path_factory):
    """Failing inputs go under the session's temporary folder (made only
    when a check fails), or where --pecheck-keep says."""
    given = request.config.getoption("pecheck_keep")
    settings.set_keep_root(given or (lambda: str(tmp_path_factory.getbasetemp() / "pecheck-failed")))
    yield
    settings.set_keep_root(None)


def _property_name(v):
    return "pecheck.%s.%s%s" % (v.family, v.check, "." + v.layout if v.layout else "")


class Gate:
    """The `pecheck_gate` fixture: each method checks and records its verdicts in
    the test's properties, and fails the test (AssertionError) unless the
    check passes; it returns the Result.  The test's `pecheck` markers give
    default keywords (the closest marker first)."""

    def __init__(self, request):
        self._node = request.node
        self.results = []
        self._defaults = {}
        for mark in reversed(list(request.node.iter_markers("pecheck"))):
            if mark.args:
                raise TypeError("@pytest.mark.pecheck takes keyword arguments only, got %r"
                                % (mark.args,))
            self._defaults.update(mark.kwargs)

    def _gate(self, check, args, kwargs, msg):
        __tracebackhide__ = True
        result = check(*args, **dict(self._defaults, **kwargs))
        self.results.append(result)
        props = self._node.user_properties
        for v in result.verdicts:
            props.append((_property_name(v), "%s: %s" % (v.status, v.witness or v.summary)))
        if result.replay:
            props.append(("pecheck.replay", result.replay))
        if not result.passed:
            raise AssertionError(result.report(verbose=settings.verbose(), msg=msg))
        return result

    def rope_cache(self, cos, sin=None, *, msg=None, **kwargs):
        """pecheck.assert_rope_cache, with the markers' keywords."""
        __tracebackhide__ = True
        return self._gate(check_rope_cache, (cos, sin), kwargs, msg)

    def sinusoidal_table(self, pe, *, msg=None, **kwargs):
        __tracebackhide__ = True
        return self._gate(check_sinusoidal_table, (pe,), kwargs, msg)

    def learned_table(self, table, *, msg=None, **kwargs):
        __tracebackhide__ = True
        return self._gate(check_learned_table, (table,), kwargs, msg)

    def alibi_slopes(self, slopes, *, msg=None, **kwargs):
        __tracebackhide__ = True
        return self._gate(check_alibi_slopes, (slopes,), kwargs, msg)

    def t5_buckets(self, buckets, *, msg=None, **kwargs):
        __tracebackhide__ = True
        return self._gate(check_t5_buckets, (buckets,), kwargs, msg)

    def rotary(self, rotary, config=None, *, msg=None, **kwargs):
        """pecheck.gate_rotary, with the markers' keywords."""
        __tracebackhide__ = True
        if config is not None:
            kwargs["config"] = config
        if "config" in kwargs or "hf_config" in kwargs:  # the call's config wins the marker's
            kwargs.setdefault("hf_config", None)
            kwargs.setdefault("config", None)
        return self._gate(check_rotary, (rotary,), kwargs, msg)

    def rotation(self, fn, form=None, *, msg=None, **kwargs):
        """pecheck.assert_rotation, with the markers' keywords."""
        __tracebackhide__ = True
        if form is not None:
            kwargs["form"] = form
        return self._gate(check_rotation, (fn,), kwargs, msg)


@pytest.fixture
def pecheck_gate(request):
    """Gate positional encodings in this test: pecheck_gate.rope_cache(cos,
    sin, ...), .sinusoidal_table(pe), .learned_table(weight),
    .alibi_slopes(slopes), .t5_buckets(buckets, num_buckets=32, ...),
    .rotary(module, config, positions=...), .rotation(fn, form=..., ...)."""
    return Gate(request)
