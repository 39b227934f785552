"""The result of a pecheck run as typed values: Result, Verdict, Witness.

Made from the JSON that `pecheck check --format json` writes (docs: the
README's "Output formats"); the document itself stays in Result.json.
"""
import os
import re
import shlex
import textwrap
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple


# the report's lines are wrapped at this width, words whole (pytest's own
# messages are as wide as the terminal; 100 reads in a terminal and in CI
# logs); the first line, the one pytest's summary shows, and command lines
# (replay: copied whole) are not wrapped
WIDTH = 100


def _wrap(text, indent, more=None):
    """TEXT as lines of at most WIDTH characters, the first starting with
    INDENT, the others with MORE (INDENT and 4 spaces); never cut inside a
    word (a word longer than a line stays whole)."""
    more = indent + "    " if more is None else more
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=more,
                         break_long_words=False, break_on_hyphens=False) or [indent.rstrip()]


# `pecheck check` options the CLI's causes name ("pass --pos-start 1"), as
# the Python keywords they are ("pos_start=1"): an option, and its value
# when one follows
_CLI_OPTION = re.compile(r"--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)"
                         r"(?: ([A-Za-z0-9_.:/+-]*[A-Za-z0-9_/]))?")
_NUMBER = re.compile(r"[-+]?(?:0x[0-9a-fA-F.]+(?:p[-+]?\d+)?|\d+\.?\d*(?:e[-+]?\d+)?)")
# the options whose value is a word (the others take numbers or files)
_WORD_VALUES = {"layout", "dtype", "order", "layer-type", "preset", "property"}
# the options the Python functions set themselves: no keyword of theirs
_NOT_KEYWORDS = {"table", "table-sin", "impl", "plugin", "format", "output", "family", "shard",
                 "regressions", "replay", "quiet", "threads"}


def _keyword(opt, arg, value):
    """The Python keyword of option OPT (its help's argument name ARG) with
    VALUE (None: none followed it), and whether VALUE was taken."""
    key = opt.replace("-", "_")
    if arg == "":
        return key + "=True", False
    if value is not None and _NUMBER.fullmatch(value):
        return key + "=" + value, True
    a_file = "." in arg and value is not None and ("." in value or "/" in value)
    if value is not None and (opt in _WORD_VALUES or a_file):
        return "%s=%r" % (key, value), True
    return key + "=", False


def in_python(text):
    """TEXT (a cause, a note of the CLI) with the `pecheck check` options
    it names written as the keywords the Python functions take
    ("pass --pos-start 1" -> "pass pos_start=1"); as it is when the
    binary's options cannot be read."""
    if not text or "--" not in text:
        return text
    try:
        from . import _binary
        known = _binary.check_options()
    except Exception:  # no binary: the CLI's words stay
        return text

    def sub(m):
        opt, value = m.group(1), m.group(2)
        if opt not in known or opt in _NOT_KEYWORDS:
            return m.group(0)
        kw, took = _keyword(opt, known[opt], value)
        return kw if took or value is None else kw + " " + value

    return _CLI_OPTION.sub(sub, text)


def _short(text, n=60):
    """TEXT whole if short, else its words up to N characters and ' ...'
    (a repr's glimpse; never cut inside a word)."""
    text = " ".join(str(text).split())
    return text if len(text) <= n else textwrap.shorten(text, n, placeholder=" ...")


@dataclass(frozen=True)
class Witness:
    """Where a check failed: one element, with the value got and the exact
    one where the check compares values."""
    text: str = field(repr=False)      # one line, as people read it
    position: Optional[int] = None
    dimension: Optional[int] = None    # column of the table, or of the rotated vector
    got: Optional[float] = None        # None for NaN/Inf (see got_hex)
    got_hex: Optional[str] = field(default=None, repr=False)
    exact: Optional[float] = None
    exact_hex: Optional[str] = field(default=None, repr=False)
    abs_err: Optional[float] = None    # None when not finite
    bound: Optional[float] = None
    tensor: Optional[str] = None       # which input holds it: 'cos.npy', 'table.npy', ...
    # a cache's own cos and sin there, got vs exact
    source_values: Optional[str] = field(default=None, repr=False)
    # a cache's witness: the rotated test vector's element there
    rotated: Optional[str] = field(default=None, repr=False)
    asked_alone: bool = False          # the gate asked for this position alone (n = 1)

    def __str__(self):
        return self.text


@dataclass(frozen=True, repr=False)
class Verdict:
    """One check of one family (and layout): pass, fail or skip."""
    check: str
    family: str
    layout: Optional[str]
    status: str                        # 'pass', 'fail' or 'skip'
    summary: str
    details: Optional[str] = None      # the CLI's full text of it
    seed: Optional[int] = None
    measured: Optional[float] = None
    bound: Optional[float] = None
    measured_what: Optional[str] = None
    positions: Optional[Tuple[int, int]] = None  # the first and last position checked, when known
    witness: Optional[Witness] = None
    likely_cause: Optional[str] = None
    replay: Optional[str] = None       # a command line that reruns this check (failures)
    data: Any = None                   # the verdict's JSON "data", as written
    against: Optional[str] = None      # what it was checked against: the schedule, the base and
                                       # where it came from (given, a config, fitted from the table)

    @property
    def passed(self):
        return self.status == "pass"

    @property
    def failed(self):
        return self.status == "fail"

    @property
    def name(self):
        """'accuracy [half]': the check and its layout."""
        return self.check + (" [%s]" % self.layout if self.layout else "")

    def __repr__(self):
        return "Verdict(%r, %r, %r)" % (self.name, self.status,
                                        _short(self.witness or self.summary))

    def line(self):
        """One line, whole: the check, then the witness (or the summary)."""
        text = str(self.witness) if self.witness else self.summary
        where = ""
        if self.positions and not (self.witness and self.witness.position is not None):
            where = " (positions %d..%d)" % self.positions
        return "%s%s: %s" % (self.name, where, text)


@dataclass(frozen=True, repr=False)
class Result:
    """A run's verdicts.  `bool(result)` is whether it passed; result["key"]
    reads the JSON document as the CLI writes it."""
    status: str                        # 'pass' or 'fail'
    what: str                          # what was checked: 'the RoPE cache'
    verdicts: Tuple[Verdict, ...]
    seed: Optional[int] = None
    command: Tuple[str, ...] = ()      # the pecheck arguments of the run
    replay: Optional[str] = None       # failures: the command line that reruns it
    kept: Optional[str] = None         # failures: the folder holding its input files
    note: Optional[str] = None         # what the run did not cover, when it says so
    json: Any = field(default=None, repr=False, compare=False)

    @property
    def passed(self):
        return self.status == "pass"

    @property
    def failures(self):
        return tuple(v for v in self.verdicts if v.failed)

    def _first(self, field_name):
        """FIELD_NAME of the first failure that has one (None: none has)."""
        return next((getattr(v, field_name) for v in self.failures if getattr(v, field_name)), None)

    @property
    def witness(self):
        """The first failure's witness (None when it passed)."""
        return self._first("witness")

    @property
    def likely_cause(self):
        """The first failure's likely cause (None when none names one)."""
        return self._first("likely_cause")

    def __bool__(self):
        return self.passed

    def __getitem__(self, key):
        return self.json[key]

    def counts(self):
        out = {"pass": 0, "fail": 0, "skip": 0}
        for v in self.verdicts:
            out[v.status] = out.get(v.status, 0) + 1
        return out

    def __repr__(self):
        c = self.counts()
        text = "Result(%r, %r, %d checks" % (self.status, self.what, len(self.verdicts))
        if self.failures:
            text += ", failing %s" % ", ".join(v.name for v in self.failures)
        if c["skip"]:
            text += ", %d skipped" % c["skip"]
        if self.kept:
            text += ", kept in %s" % self.kept
        return text + ")"

    def headline(self):
        """The first line, the one pytest's summary shows: what fails, the
        first failing check (the first with a likely cause) and its cause,
        else its witness; or that it passes."""
        c = self.counts()
        if self.passed:
            head = "pecheck: %s passes %d checks" % (self.what, len(self.verdicts) - c["skip"])
        elif not self.failures:  # failed with no failing verdict (a run that checked nothing)
            done = ["%d %s" % (n, {"pass": "passed", "skip": "skipped"}.get(k, k))
                    for k, n in c.items() if n]
            head = "pecheck: %s fails with no failing check (%s)" % (self.what,
                                                                     ", ".join(done) or "no checks")
        else:
            first = next((v for v in self.failures if v.likely_cause), None) or self.failures[0]
            others = c["fail"] - 1
            head = "pecheck: %s fails %s%s" % (self.what, first.name, " and %d more of %d checks"
                                             % (others, len(self.verdicts)) if others else "")
            head += ("; likely cause: " + in_python(first.likely_cause) if first.likely_cause
                     else ": " + first.line().split(": ", 1)[1])
        return head + (" (seed %d)" % self.seed if self.seed is not None else "")

    def report(self, verbose=False, msg=None):
        """The text of the result: a first line naming the failing check and
        its cause, then each failing check's witness, what the checks were
        checked against (once when they share it), the other likely causes
        and the replay line; VERBOSE adds every check's line and the CLI's
        full text of each failure.  Lines are wrapped at WIDTH, never cut."""
        lines = [msg] if msg else []
        lines.append(self.headline())
        shown = self.verdicts if verbose else self.failures
        first = next((v for v in self.failures if v.likely_cause), None)
        causes = {first.likely_cause} if first else set()
        against = {v.against for v in shown if v.against}
        if len(against) == 1:
            lines += _wrap("checked against " + in_python(against.pop()), "  ")
        for v in shown:
            mark = v.status.upper() + " " if verbose else ""
            lines += _wrap(mark + v.line(), "  ")
            if v.failed and v.witness and v.witness.rotated:
                lines += _wrap("the rotated test vector there: " + v.witness.rotated, "    ")
            if v.against and len({u.against for u in shown if u.against}) > 1:
                lines += _wrap("checked against " + in_python(v.against), "    ")
            if v.failed and v.likely_cause and (verbose or v.likely_cause not in causes):
                causes.add(v.likely_cause)
                lines += _wrap("likely cause: " + in_python(v.likely_cause), "    ")
            if verbose and v.failed and v.details:
                lines += ["      " + d for d in v.details.rstrip("\n").splitlines()]
        if any(v.check == "base" for v in self.failures):
            lines += _wrap("(in Python: give base=, hf_config= or rope_scaling=, or "
                           "assume_fitted=True to accept the fitted base)", "  ")
        if self.note:
            # a command in the note ("..., then run: pecheck check ...") on a line of its own, whole
            text, run, cmd = self.note.partition(", then run: ")
            lines += _wrap("note: " + text + (", then run:" if run else ""), "  ")
            if run:
                lines.append("      " + cmd)
        if self.kept:
            lines.append("  inputs kept in " + self.kept)
        if self.replay:
            lines.append("  replay: " + self.replay)
        return "\n".join(lines)

    def __str__(self):
        return self.report()


# ---- from the JSON ---------------------------------------------------------

def _num(x):
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _fmt(dec, hexs):
    if dec is None:
        return hexs or "?"
    return "%.9g (%s)" % (dec, hexs) if hexs else "%.9g" % dec


def _accuracy_witness(r, data, rotated):
    w = data.get("worst")
    if not w:
        return None
    got, ref = w.get("got") or {}, w.get("ref") or {}
    abs_err, bound = _num(w.get("abs_err")), _num(w.get("bound"))
    # asked for alone, and the element differs in a call of several: the
    # single-position path is another (the CLI marks it so, too)
    alone = bool(w.get("asked_alone")) and "batched_err_over_bound" in w and \
        (abs_err is None or not bound or w["batched_err_over_bound"] != abs_err / bound)
    at = "position %d%s" % (w["pos"], " (asked for alone, n = 1)" if alone else "")
    own = data.get("source_values")
    element = "dimension %d%s: got %s, exact %s, |err| %s > bound %.3g" % (
        w["dim"], " of the rotated test vector" if rotated and not own else "",
        _fmt(_num(got.get("dec")), got.get("hex")), _fmt(_num(ref.get("dec")), ref.get("hex")),
        "%.3g" % abs_err if abs_err is not None else "inf/nan",
        bound if bound is not None else float("nan"))
    # a cache's own cos and sin lead; the rotated vector's element follows
    text = "%s, %s" % (at, own if own else element)
    first = data.get("first_over_bound")
    if first and (first.get("pos"), first.get("dim")) != (w["pos"], w["dim"]):
        text += "; first over the bound: position %d, dimension %d" % (first["pos"], first["dim"])
    return Witness(text=text, position=w["pos"], dimension=w["dim"], got=_num(got.get("dec")),
                   got_hex=got.get("hex"), exact=_num(ref.get("dec")), exact_hex=ref.get("hex"),
                   abs_err=abs_err, bound=bound, source_values=own,
                   rotated=element if own else None, asked_alone=alone)


def _nonfinite_witness(data):
    text = "%s row %d (position %d), column %d = %s" % (data.get("file"), data.get("row"),
                                                        data.get("pos"), data.get("col"),
                                                        data.get("value"))
    return Witness(text=text, position=data.get("pos"), dimension=data.get("col"),
                   got_hex=data.get("value"), tensor=data.get("file"))


def _relative_witness(data):
    """ALiBi's worst value (head, query, key) or T5's first wrong bucket."""
    w = data.get("worst")
    if isinstance(w, dict) and "head" in w:
        got, ref = w.get("got") or {}, w.get("exact") or {}
        err, bound = _num(w.get("err")), _num(w.get("bound"))
        text = "head %d, query %s, key %s (distance %s): got %s, exact %s, |err| %s > bound %.3g" % (
            w["head"], w.get("query"), w.get("key"), w.get("distance"),
            _fmt(_num(got.get("dec")), got.get("hex")), _fmt(_num(ref.get("dec")), ref.get("hex")),
            "%.3g" % err if err is not None else "inf/nan", bound if bound is not None else float("nan"))
        return Witness(text=text, position=w.get("query"), dimension=w.get("key"),
                       got=_num(got.get("dec")), got_hex=got.get("hex"), exact=_num(ref.get("dec")),
                       exact_hex=ref.get("hex"), abs_err=err, bound=bound)
    f = data.get("first")
    if isinstance(f, dict) and "query" in f:
        text = "query %s, key %s (j - i = %s): got bucket %s, exact %s; %s of %s entries differ" % (
            f["query"], f.get("key"), f.get("relative"), f.get("got"), f.get("exact"),
            data.get("differ"), data.get("entries"))
        return Witness(text=text, position=f["query"], dimension=f.get("key"),
                       got=_num(f.get("got")), exact=_num(f.get("exact")))
    return None


def _witness(r, family_rotates):
    data = r.get("data")
    if r.get("status") != "fail" or not isinstance(data, dict):
        return None
    if r.get("check") == "table-values" and "col" in data:
        return _nonfinite_witness(data)
    if r.get("family") in ("alibi", "t5") and ("worst" in data or "first" in data):
        return _relative_witness(data)
    if "worst" in data:
        return _accuracy_witness(r, data, family_rotates)
    if data.get("where"):
        return Witness(text=r.get("summary") or data["where"])
    return None


def _likely_cause(r):
    data = r.get("data")
    if isinstance(data, dict) and data.get("cause"):
        return data["cause"]
    for line in (r.get("details") or "").splitlines():
        line = line.strip()
        if line.startswith("likely cause:"):
            return line[len("likely cause:"):].strip()
    return None


def _positions(r):
    data = r.get("data")
    params = data.get("params") if isinstance(data, dict) else None
    pos = params.get("positions") if isinstance(params, dict) else None
    if isinstance(pos, dict) and "start" in pos and "end" in pos:
        return (pos["start"], pos["end"])
    return None


def _without_properties(argv):
    """ARGV without its --property NAME pairs (a verdict's replay names its own)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--property":
            skip = True
        else:
            out.append(a)
    return out


def _kept_replays(details, names, kept):
    """DETAILS (the CLI's text) with its replay lines naming the kept files:
    the CLI ran where the input files had the bare NAMES, a folder gone
    since; KEPT the folder they were copied to (None: not kept, and the
    line says so rather than name files that are not there)."""
    if not details or not names:
        return details
    out = []
    for line in details.split("\n"):
        body = line.lstrip()
        if body.startswith("replay: pecheck "):
            try:
                argv = shlex.split(body[len("replay: "):])
            except ValueError:
                argv = None
            if argv is not None and any(a in names for a in argv):
                indent = line[:len(line) - len(body)]
                if kept:
                    line = indent + "replay: " + shlex.join(
                        [os.path.join(kept, a) if a in names else a for a in argv])
                else:
                    line = (indent + "replay (the inputs were not kept: see the note): "
                            + shlex.join(argv))
        out.append(line)
    return "\n".join(out)


def verdicts_from_json(doc, rotates=("rope",), replay=None, positions=None, names=(), kept=None):
    """The Verdicts of a check's JSON DOC.  REPLAY (argv) makes each failing
    verdict's replay line; POSITIONS the range when the JSON has none; NAMES
    the input files the CLI read, copied to the folder KEPT (None: not
    kept): the replay lines of the CLI's text name them there."""
    out = []
    for r in doc.get("results", []):
        data = r.get("data") if isinstance(r.get("data"), dict) else None
        line = None
        if r.get("status") == "fail" and replay:
            argv = _without_properties(replay)
            # a property, or the accuracy gate, runs alone with --property;
            # the other gates (table values, lookups) only in the whole run
            if r.get("check") == "accuracy" or (data and "property" in data):
                argv += ["--property", r["check"]]
                if data and data.get("case_seed"):
                    argv += ["--replay", data["case_seed"]]
            line = shlex.join(argv)
        out.append(Verdict(
            check=r.get("check", "?"), family=r.get("family", "?"), layout=r.get("layout"),
            status=r.get("status", "?"), summary=r.get("summary") or "",
            details=_kept_replays(r.get("details"), set(names), kept),
            seed=r.get("seed"), measured=_num(r.get("measured")), bound=_num(r.get("bound")),
            measured_what=r.get("measured_what"), positions=_positions(r) or positions,
            witness=_witness(r, r.get("family") in rotates), likely_cause=_likely_cause(r),
            replay=line, data=r.get("data"), against=r.get("against")))
    return tuple(out)
