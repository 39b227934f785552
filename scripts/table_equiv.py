#!/usr/bin/env python3
"""table_equiv.py: are two pecheck binaries' results on .npy tables the same?

    scripts/table_equiv.py OLD NEW [TEST.t ...]

Runs the tests that hand pecheck tables (the default list below, or the
files given) with PECHECK pointing to a wrapper.  Each `check`, `accuracy`
or `identify` the tests run on a table (a regular file given to --table)
is run by OLD, then by NEW, with the same arguments; their exit codes,
standard output, standard error and the files they write (--output) are
compared after the run times are taken out: JSON members whose name ends
in "seconds", "(1.23 s)" in text, time="..." in JUnit.  The test itself
goes on with NEW's results, so the tests still check NEW.  Any other
command runs NEW alone.  Commands that would change a regression file
(--regressions FILE, or PECHECK_REGRESSIONS other than "off") run NEW
alone: OLD's run would change what NEW reads.

Prints one line per difference and a summary:
    N table commands compared, M differ; tests: T passed, F failed
Exit 0 when every compared command gave the same results and every test
passed, 1 otherwise, 2 on bad arguments.
"""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TESTS = ["table.t", "fitted_model.t", "identify.t", "input_defects.t", "output_input.t",
         "precision_torch.t", "quoting.t", "rope_options.t", "rope_schedules.t",
         "torch_integration.t", "python.t", "rope_zoo.t"]
COMPARED = ("check", "accuracy", "identify")
TIME_JSON = re.compile(r'("[A-Za-z_]*seconds"\s*:\s*)-?[0-9.eE+-]+')
TIME_TEXT = re.compile(r'\(\d+(?:\.\d+)? s\)')
TIME_XML = re.compile(r'time="[0-9.eE+-]+"')


def untimed(data):
    """DATA (bytes) with its run times taken out."""
    text = data.decode("utf-8", "replace")
    text = TIME_JSON.sub(r'\g<1>0', text)
    text = TIME_TEXT.sub('(T s)', text)
    return TIME_XML.sub('time="T"', text)


def option(args, name):
    """The value of --NAME in ARGS (--NAME V or --NAME=V), or None."""
    for k, a in enumerate(args):
        if a == name and k + 1 < len(args):
            return args[k + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return None


def comparable(args):
    """Whether ARGS is a table command both binaries can run in turn."""
    if not args or args[0] not in COMPARED:
        return False
    tables = [option(args, "--table"), option(args, "--table-sin")]
    if not tables[0]:
        return False
    for t in tables:
        if t is not None and not (os.path.exists(t) and stat.S_ISREG(os.stat(t).st_mode)):
            return False
    regress = option(args, "--regressions")
    if regress is not None and regress != "off":
        return False
    if regress is None and os.environ.get("PECHECK_REGRESSIONS", "off") != "off":
        return False
    return True


def run(binary, args, stdin):
    p = subprocess.run([binary] + args, stdin=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    return p.returncode, p.stdout, p.stderr


def read_file(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def wrap(args):
    old, new, log = os.environ["EQUIV_OLD"], os.environ["EQUIV_NEW"], os.environ["EQUIV_LOG"]
    if not comparable(args):
        os.execv(new, [new] + args)
    out = option(args, "--output")
    link = os.readlink(out) if out and os.path.islink(out) else None
    before = read_file(out) if out and link is None else None  # put back for NEW's run
    rc_o, so_o, se_o = run(old, args, subprocess.DEVNULL)
    file_o = read_file(out) if out else None
    if out and os.path.lexists(out) and not (link and os.path.islink(out)):
        os.remove(out)
    if link is not None and not os.path.lexists(out):
        os.symlink(link, out)
    if before is not None:
        with open(out, "wb") as f:
            f.write(before)
    rc_n, so_n, se_n = run(new, args, None)
    file_n = read_file(out) if out else None
    diffs = []
    if rc_o != rc_n:
        diffs.append("exit %d, was %d" % (rc_n, rc_o))
    for what, a, b in (("stdout", so_o, so_n), ("stderr", se_o, se_n), ("--output", file_o, file_n)):
        if (a is None) != (b is None) or (a is not None and untimed(a) != untimed(b)):
            diffs.append(what)
    with open(log, "a") as f:
        f.write(json.dumps({"args": args, "diff": diffs,
                            "old": untimed(so_o)[:4000] if diffs else "",
                            "new": untimed(so_n)[:4000] if diffs else "",
                            "old_err": untimed(se_o)[:2000] if diffs else "",
                            "new_err": untimed(se_n)[:2000] if diffs else ""}) + "\n")
    sys.stdout.buffer.write(so_n)
    sys.stderr.buffer.write(se_n)
    sys.exit(rc_n)


def main(argv):
    if len(argv) >= 2 and argv[1] == "wrap":
        wrap(argv[2:])
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    old, new = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    for b in (old, new):
        if not os.access(b, os.X_OK):
            sys.stderr.write("table_equiv.py: %s is not an executable\n" % b)
            return 2
    tests = argv[3:] or [os.path.join(ROOT, "tests", t) for t in TESTS]
    work = tempfile.mkdtemp(prefix="pecheck-equiv-")
    try:
        shim = os.path.join(work, "pecheck")
        with open(shim, "w") as f:
            f.write('#!/bin/sh\nexec "%s" "%s" wrap "$@"\n' % (sys.executable, os.path.abspath(__file__)))
        os.chmod(shim, 0o755)
        log = os.path.join(work, "log")
        open(log, "w").close()
        env = dict(os.environ, PECHECK=shim, EQUIV_OLD=old, EQUIV_NEW=new, EQUIV_LOG=log,
                   PECHECK_REGRESSIONS="off", BUILD=os.path.dirname(new))
        passed = failed = 0
        for t in tests:
            p = subprocess.run([t], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               check=False)
            text = p.stdout.decode("utf-8", "replace")
            bad = [l for l in text.splitlines() if l.startswith("not ok")]
            ok = p.returncode == 0 and not bad
            passed += ok
            failed += not ok
            if not ok:
                print("test %s: exit %d, %s" % (os.path.basename(t), p.returncode,
                                               bad[0] if bad else text.strip()[-300:]))
        compared = differ = 0
        with open(log) as f:
            for line in f:
                rec = json.loads(line)
                compared += 1
                if rec["diff"]:
                    differ += 1
                    print("DIFFERS (%s): pecheck %s" % (", ".join(rec["diff"]), " ".join(rec["args"])))
                    print("  old: %s\n  new: %s" % (rec["old"][:600] or rec["old_err"][:600],
                                                    rec["new"][:600] or rec["new_err"][:600]))
        print("%d table commands compared, %d differ; tests: %d passed, %d failed"
              % (compared, differ, passed, failed))
        return 0 if differ == 0 and failed == 0 and compared > 0 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
