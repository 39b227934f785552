#!/usr/bin/python3
"""plugin.t: the plugin ABI, isolation and output formats of `pecheck check`.

Builds each tests/plugins/NAME.c (and examples/plugin_good.c) with
`cc -shared -fPIC` into a temporary folder and checks the verdicts, exit
codes and messages: a correct plugin passes every family; a wrong one fails
with a witness; a plugin wrong only in calls of one position (a decode
step's fast path) fails at a position the gate asks for alone, its likely
cause comparing the same position in a call of 255 (one that returns an error only
then fails too, never "layout not supported"); crashing, aborting, hanging, exiting, NaN-writing and
out-of-bounds-writing plugins fail that check with the cause while pecheck
goes on; a library that does not load, lacks pecheck_abi_version or reports
another version, or exports none of the entry points (a misspelt or a
C++-mangled name) is an input error (exit 2).  The plugin host: a library
whose destructor or atexit handler calls _exit(0), whose constructor sets
the rounding mode, whose destructor segfaults, that writes a fake TAP line
to stdout, that forks a child holding stdout, that keeps state changing its
results, or whose constructor crashes on a second load cannot change
pecheck's verdict or output; the pool's two host processes serve every call and a
crashed one is replaced (a second host of the pool that cannot load fails
its first call).  The host is sealed (harness/sandbox/host_seal.c): a
constructor that signals, stops, ptraces or kills pecheck (kill(-1) only
where the seal is seen to be on), writes /proc/<pecheck>/mem (as root and
as nobody), calls setsid(), F_SETOWN, prlimit or clone(CLONE_PARENT) on it
fails, and the run ends as it would have.  A crash on the first call is a failure with its
cause in check, accuracy and report.  Then the TAP output is read by
`prove` and the JUnit output is checked against the junit-10.xsd shape.
Runs with --max-pos 1023 --d 64 to stay fast (a few seconds in all).
"""
import errno
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from pctest import ROOT, PECHECK as PECHECK_BIN, ok, run, done  # noqa: E402

# small runs: 1024 positions, d = 64, 10 cases a property, no regression file written
ACC = ["--max-pos", "1023", "--d", "64"]
SMALL = ACC + ["--cases", "10", "--regressions", "off"]
tmp = tempfile.mkdtemp(prefix="pecheck-plugin-")


def channel(name, where=None):
    """A file a test plugin writes (PECHECK_TEST_*), made empty here: the plugin
    host creates no file, and writes only in its scratch folder and the folders
    of --plugin-writable (WRITABLE names this test's; harness/sandbox/host_fs.h)."""
    path = os.path.join(where or tmp, name)
    with open(path, "w"):
        pass
    return path


WRITABLE = ["--plugin-writable", tmp]


def build(name, src=None):
    src = src or os.path.join(ROOT, "tests", "plugins", name + ".c")
    out = os.path.join(tmp, name + ".so")
    cc = os.environ.get("CC", "cc")
    p = subprocess.run([cc, "-O1", "-shared", "-fPIC", "-I" + os.path.join(ROOT, "include"),
                        src, "-o", out, "-lm"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        print("# cannot build %s:\n# %s" % (src, p.stdout.decode()))
    return out


def check_json(plugin, *extra):
    rc, out, err, secs = run(["check", "--plugin", plugin, "--format", "json"] + SMALL + list(extra))
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {"results": [], "status": None, "_raw": out + err}
    return rc, doc, err, secs


def find(doc, family, check, layout=None):
    for r in doc.get("results", []):
        if r["family"] == family and r["check"] == check and (layout is None or r["layout"] == layout):
            return r
    return None


try:
    names = ["wrong", "crash", "abort", "hang", "nan", "oob", "oob_far", "exit", "error",
             "halfonly", "nosym", "version3", "learned_bad", "attention_bad", "misspelt", "mangled",
             "dtor_exit", "ctor_round", "dtor_segv", "inject", "fork_stdout", "nondet", "pids",
             "reload_crash", "scribble", "fork_setsid", "hog", "spin", "hang_pid", "parent",
             "decode", "decode_error"]
    so = {n: build(n) for n in names}
    so["good"] = build("plugin_good", os.path.join(ROOT, "examples", "plugin_good.c"))

    # --- a correct plugin: every family, every layout, passes
    rc, doc, err, _ = check_json(so["good"])
    want = [("sinusoidal", "accuracy", "interleaved"), ("sinusoidal", "accuracy", "half"),
            ("rope", "accuracy", "interleaved"), ("rope", "accuracy", "half"),
            ("learned", "lookup", None), ("learned", "out-of-range", None),
            ("attention", "accuracy", None), ("attention", "accuracy-causal", None)]
    got = [find(doc, *w) for w in want]
    ok(rc == 0 and all(g and g["status"] == "pass" for g in got),
       "good plugin: 8 checks of 4 families pass, exit 0", json.dumps(doc)[:2000] + err)
    ok(doc.get("tool") == "pecheck" and doc.get("status") == "pass" and
       all(set(["check", "family", "implementation", "layout", "status", "measured", "bound", "seed",
                "data"]) <= set(r) for r in doc.get("results", [])),
       "json: tool, status and the fields of each result")
    ok(all(r["implementation"] == so["good"] for r in doc.get("results", [])),
       "a plugin's implementation name is its path")

    # --- wrong values: a failure with a witness
    rc, doc, err, _ = check_json(so["wrong"])
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    ok(rc == 1 and r and r["status"] == "fail" and r["data"]
       and r["data"]["first_over_bound"]["pos"] == 0 and r["data"]["first_over_bound"]["dim"] == 0
       and r["data"]["worst"]["dim"] in (0, 1),
       "sin/cos swapped: accuracy fails from pos=0 dim=0, worst on pair 0 (exact angle), exit 1", r)
    r = find(doc, "rope", "family")
    ok(r is not None and r["status"] == "skip" and "pecheck_rope_f32" in r["summary"],
       "a family the plugin does not export is skipped, naming the symbol", r)

    # --- wrong only in calls of one position (a decode step's fast path)
    rc, doc, err, _ = check_json(so["decode"])
    r = find(doc, "sinusoidal", "accuracy", "interleaved") or {}
    w = (r.get("data") or {}).get("worst") or {}
    ok(rc == 1 and r.get("status") == "fail" and "(asked for alone, n = 1)" in r.get("summary", "")
       and w.get("asked_alone") is True and w.get("batched_err_over_bound", 2) <= 1
       and w.get("batched_positions") == 255
       and "single-position path differs from its batched one" in r.get("details", ""),
       "wrong only when asked for one position: accuracy fails at a position asked for alone, "
       "the likely cause compares it with a call of 255", r)
    rc, doc, err, _ = check_json(so["decode_error"])
    r = find(doc, "sinusoidal", "accuracy", "half") or {}
    ok(rc == 1 and r.get("status") == "fail" and "returned error 5 (position 255 asked for "
       "alone, n = 1" in r.get("summary", "") and "the call of 0..254 before it returned" in
       r.get("summary", ""),
       "an error only when asked for one position: accuracy fails (not 'layout not supported')",
       r)
    rc, doc, err, _ = check_json(so["decode"])
    r = find(doc, "learned", "lookup") or {}
    ok(r.get("status") == "fail" and "pos=63 dim=0:" in r.get("summary", "")
       and "looked up alone (n = 1" in r.get("summary", ""),
       "a learned table whose lookup of one position gives another row: lookup fails at the "
       "block's last row, looked up alone", r)

    # --- crashes and hangs are failures of that check, with the cause
    rc, doc, err, _ = check_json(so["crash"])
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    ok(rc == 1 and r and r["status"] == "fail" and
       "SIGSEGV in pecheck_sinusoidal_f32 at pos=768..1022" in r["summary"],
       "SIGSEGV at position 1000: 'SIGSEGV in pecheck_sinusoidal_f32 at pos=768..1022' (the call "
       "of block 3 but its last position)", r)
    ok(find(doc, "sinusoidal", "accuracy", "half") is not None and
       find(doc, "attention", "family") is not None,
       "after the crash pecheck goes on with the other checks")

    rc, doc, err, _ = check_json(so["abort"])
    r1 = find(doc, "sinusoidal", "accuracy", "interleaved")
    r2 = find(doc, "rope", "accuracy", "interleaved")
    ok(rc == 1 and r1 and r1["status"] == "pass" and r2 and r2["status"] == "fail"
       and "SIGABRT in pecheck_rope_f32" in r2["summary"],
       "abort in rope: rope fails with SIGABRT, sinusoidal still passes", [r1, r2])

    rc, doc, err, secs = check_json(so["hang"], "--timeout-ms", "300")
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    ok(rc == 1 and r and "timed out after 300 ms in pecheck_sinusoidal_f32 at pos=0..254" in r["summary"],
       "a hang is killed after --timeout-ms and reported", r)
    r = find(doc, "sinusoidal", "accuracy", "half")
    ok(r and r["status"] == "fail" and "timed out earlier" in r["summary"] and secs < 10,
       "a hook that timed out is not called again (%.1f s in all)" % secs, r)

    rc, doc, err, _ = check_json(so["nan"])
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    ok(rc == 1 and r and r["status"] == "fail" and "NaN/Inf" in r["summary"]
       and "pos=7 dim=3" in r["summary"], "NaN at pos 7 dim 3: fails with that witness", r)

    rc, doc, err, _ = check_json(so["oob"])
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    ok(rc == 1 and r and "wrote outside OUT" in r["summary"] and "after its end" in r["summary"],
       "one float past the end of OUT: caught by the canary", r)

    rc, doc, err, _ = check_json(so["oob_far"])
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    ok(rc == 1 and r and "SIGSEGV" in r["summary"] and "bytes after the end of OUT" in r["summary"],
       "a write 16 KiB past OUT: caught by the guard region", r)

    rc, doc, err, _ = check_json(so["exit"])
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    ok(rc == 1 and r and "exited with status 0" in r["summary"], "exit() inside a hook fails", r)

    rc, doc, err, _ = check_json(so["error"])
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    ok(rc == 1 and r and r["status"] == "fail" and "returned error 7" in r["summary"],
       "an error returned after the first block fails", r)

    rc, doc, err, _ = check_json(so["halfonly"])
    r1 = find(doc, "sinusoidal", "accuracy", "interleaved")
    r2 = find(doc, "sinusoidal", "accuracy", "half")
    ok(rc == 0 and r1 is None and r2 and r2["status"] == "pass"
       and "holds the half layout only: it declines interleaved" in r2["summary"],
       "a declined layout is no verdict of its own: the other passes and says so", [r1, r2])

    rc, doc, err, _ = check_json(so["learned_bad"])
    r = find(doc, "learned", "out-of-range")
    ok(rc == 1 and r and r["status"] == "fail" and "[64]" in r["summary"],
       "a learned table that serves position max_len fails out-of-range", r)

    rc, doc, err, _ = check_json(so["attention_bad"])
    r = find(doc, "attention", "accuracy")
    ok(rc == 1 and r and r["status"] == "fail" and "row=" in r["summary"],
       "attention without 1/sqrt(d) fails with a row/col witness", r)

    # --- libraries that are not plugins: exit 2 with the loader's message
    rc, out, err, _ = run(["check", "--plugin", so["nosym"]] + SMALL)
    ok(rc == 2 and "pecheck_abi_version" in err and out == "", "no pecheck_abi_version: exit 2", err)
    rc, out, err, _ = run(["check", "--plugin", so["version3"]] + SMALL)
    ok(rc == 2 and "ABI version 3" in err and "versions 1 to 2" in err, "ABI version 3: exit 2", err)
    rc, out, err, _ = run(["check", "--plugin", os.path.join(tmp, "missing.so")] + SMALL)
    ok(rc == 2 and "cannot load plugin" in err and "No such file" in err,
       "a missing library: exit 2 with dlerror's text", err)
    notelf = os.path.join(tmp, "text.so")
    with open(notelf, "w") as f:
        f.write("not a library\n")
    rc, out, err, _ = run(["check", "--plugin", notelf] + SMALL)
    ok(rc == 2 and "cannot load plugin" in err and err.count("\n") == 1,
       "a file that is not a library: exit 2, one line", err)

    # --- nothing to check: no entry point of the table is exported
    rc, out, err, _ = run(["check", "--plugin", so["misspelt"]] + SMALL)
    ok(rc == 2 and out == "" and "exports no entry point" in err and "pecheck_sinusoidal_f32" in err
       and "pecheck_txl_score" in err and err.count("\n") == 1,
       "a misspelt entry point: nothing to check, exit 2 naming the expected entry points", err)
    rc, out, err, _ = run(["check", "--plugin", so["mangled"]] + SMALL)
    ok(rc == 2 and "_Z22pecheck_sinusoidal_f32" in err and 'extern "C"' in err,
       "only C++-mangled entry points: exit 2 with the extern \"C\" hint", err)

    # --- a crash in the first call of a run is a failure with its cause in
    # every command, never "layout not supported" (crash.so crashes at 1000)
    FIRST = ["--positions", "1000:1500", "--d", "64"]
    rc, out, err, _ = run(["accuracy", "--plugin", so["crash"], "--format", "json"] + FIRST)
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {}
    ok(rc == 1 and doc.get("status") == "fail" and doc.get("params", {}).get("layout") == "interleaved"
       and doc.get("note", "").startswith("SIGSEGV in pecheck_sinusoidal_f32 at pos=1000..1254"),
       "accuracy: a crash on the first block fails with its cause, labelled with the layout run",
       out + err)
    # FIRST's --positions in place of SMALL's --max-pos (both: exit 2)
    rc, out, err, _ = run(["check", "--plugin", so["crash"], "--format", "json"] + FIRST
                          + SMALL[len(ACC):])
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {"results": [], "status": None, "_raw": out + err}
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    skips = [x["summary"] for x in doc.get("results", []) if x["family"] == "sinusoidal"
             and x["status"] == "skip"]
    ok(rc == 1 and r and r["status"] == "fail" and "SIGSEGV" in r["summary"] and not skips,
       "check: a crash on the first call fails every sinusoidal check, none is skipped", [r, skips])
    repdir = os.path.join(tmp, "report-crash")
    rc, out, err, _ = run(["report", "--plugin", so["crash"], "--out", repdir, "--quiet"] + FIRST)
    try:
        html = open(os.path.join(repdir, "index.html")).read()
    except OSError:
        html = ""
    ok(rc in (0, 1) and 'class="fail" title="SIGSEGV in pecheck_sinusoidal_f32 at pos=1000..1254'
       in html and "not supported" not in html and "declines both layouts" not in html,
       "report: a crash on the first call is shown as a failure with its cause", out + err)

    # --- the plugin host: the plugin never runs in pecheck's process
    rc, doc, err, _ = check_json(so["dtor_exit"])
    ok(rc == 1 and doc.get("status") == "fail",
       "a failing plugin whose destructor and atexit handler call _exit(0): still exit 1", err)
    rc, doc, err, _ = check_json(so["dtor_segv"])
    ok(rc == 0 and doc.get("status") == "pass", "a segfaulting destructor: the run passes, exit 0",
       err)
    rc0, doc0, err0, _ = check_json(so["good"], "--impl", "torch-exp", "--family", "sinusoidal")
    rc, doc, err, _ = check_json(so["ctor_round"], "--impl", "torch-exp", "--family", "sinusoidal")
    base = [r for r in doc0.get("results", []) if r["implementation"] == "torch-exp"]
    mine = [r for r in doc.get("results", []) if r["implementation"] == "torch-exp"]
    ok(rc == 0 and base and len(base) == len(mine) and all(r["status"] == "pass" for r in mine)
       and [r["measured"] for r in base] == [r["measured"] for r in mine],
       "a constructor doing fesetround(FE_UPWARD): torch-exp in the same run passes, same errors",
       [(r["check"], r["measured"]) for r in base] + ["--"] + [(r["check"], r["measured"]) for r in mine])
    tapfile = os.path.join(tmp, "inject.tap")
    rc, out, err, _ = run(["check", "--plugin", so["inject"], "--format", "tap"] + SMALL)
    lines = out.splitlines()
    plan = [l for l in lines if l.startswith("1..")]
    n_tests = sum(l.startswith("ok ") or l.startswith("not ok ") for l in lines)
    ok(rc == 0 and "injected" not in out and "inject:" not in err and plan == ["1..%d" % n_tests]
       and not any(l.startswith("not ok") for l in lines),
       "a plugin writing 'not ok 1 - injected' to stdout: pecheck's TAP stays valid", out[:600] + err)
    rc, doc, err, _ = check_json(so["inject"])
    details = " ".join(r.get("details") or "" for r in doc.get("results", []))
    ok(rc == 0 and "not ok 1 - injected" in details and "plugin output" in details,
       "the plugin's stdout and stderr are shown in the verdict details", details[:600])
    pidfile = channel("fork.pid")
    env = dict(os.environ, PECHECK_TEST_PIDFILE=pidfile)
    import time
    t0 = time.monotonic()
    try:
        # `pecheck ... | cat`: stdout is a pipe, read to its end
        p = subprocess.run([PECHECK_BIN, "check", "--plugin", so["fork_stdout"]] + SMALL + WRITABLE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=40)
        prc, pout = p.returncode, p.stdout.decode()
    except subprocess.TimeoutExpired:
        prc, pout = None, "blocked on the pipe"
    secs = time.monotonic() - t0

    def alive(pid):
        try:
            with open("/proc/%d/stat" % pid) as f:
                return f.read().split(") ")[-1][:1] not in ("Z", "X")
        except OSError:
            return False
    def pids_in(path):
        try:
            return [int(x) for x in open(path).read().split()]
        except (OSError, ValueError):
            return []
    # one child a host of the pool; killed and reaped before pecheck exits
    gpids = pids_in(pidfile)
    ok(prc == 0 and "passed" in pout and gpids and not any(alive(g) for g in gpids),
       "a child the plugin forks holding stdout: the pipe ends with pecheck (%.1f s; the child "
       "sleeps 60 s) and the child is gone when pecheck exits" % secs, [prc, gpids, pout[-300:]])
    pidfile = channel("setsid.pid")
    p = subprocess.run([PECHECK_BIN, "check", "--plugin", so["fork_setsid"]] + SMALL + WRITABLE,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, PECHECK_TEST_PIDFILE=pidfile), timeout=40)
    gpids = pids_in(pidfile)
    ok(p.returncode == 0 and gpids and not any(alive(g) for g in gpids),
       "a grandchild that left the host's session with setsid() is gone when pecheck exits",
       [p.returncode, gpids])
    pidfile = channel("hang.pid")
    p = subprocess.Popen([PECHECK_BIN, "check", "--plugin", so["hang_pid"], "--timeout-ms", "600000"]
                         + SMALL + WRITABLE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=dict(os.environ, PECHECK_TEST_PIDFILE=pidfile))
    deadline = time.monotonic() + 60
    while not (os.path.exists(pidfile) and os.path.getsize(pidfile)) and time.monotonic() < deadline:
        time.sleep(0.05)
    wpids = pids_in(pidfile)
    wpid = wpids[0] if wpids else None
    p.kill()  # pecheck dies (SIGKILL) while the plugin's call hangs
    p.wait()
    deadline = time.monotonic() + 10
    while wpid and alive(wpid) and time.monotonic() < deadline:
        time.sleep(0.05)
    ok(wpid and not alive(wpid),
       "pecheck killed during a hanging call: the plugin host sees its lifeline hang up and exits",
       wpid)
    rc, doc, err, _ = check_json(so["nondet"])
    r = find(doc, "sinusoidal", "repeat")
    ok(rc == 1 and r and r["status"] == "fail" and "the same call made twice differs" in r["summary"],
       "state kept between calls changing the bits: the repeat check fails", r)
    r = find(doc0, "sinusoidal", "repeat")
    ok(r and r["status"] == "pass", "the good plugin passes the repeat check", r)
    pidfile = channel("calls.pid")
    p = subprocess.run([PECHECK_BIN, "check", "--plugin", so["pids"]] + SMALL + WRITABLE,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, PECHECK_TEST_PIDFILE=pidfile))
    try:
        pids = open(pidfile).read().split()
    except OSError:
        pids = []
    ok(p.returncode == 0 and len(pids) > 20 and len(set(pids)) == 2,
       "the pool's two plugin host processes (--plugin-hosts' default) serve every call (%d calls, "
       "%d processes)" % (len(pids), len(set(pids))))
    rc, doc, err, _ = check_json(so["crash"])
    r = find(doc, "sinusoidal", "accuracy", "half")
    ok(r and r["status"] == "fail" and (r.get("data") or {}).get("values") == 768 * 64 and
       "SIGSEGV in pecheck_sinusoidal_f32 at pos=768..1022" in r["summary"],
       "after a crash the host is replaced: the next check (layout half) runs 768 positions, "
       "then crashes at 1000 again", r)

    def reload_crash(*extra):
        mark = channel("loaded.mark")
        p = subprocess.run([PECHECK_BIN, "check", "--plugin", so["reload_crash"], "--format",
                            "json"] + SMALL + WRITABLE + list(extra), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=dict(os.environ, PECHECK_TEST_MARK=mark))
        try:
            doc = json.loads(p.stdout.decode())
        except ValueError:
            doc = {}
        return p.returncode, find(doc, "sinusoidal", "accuracy", "half")
    rc, r = reload_crash("--plugin-hosts", "1")
    ok(rc == 1 and r and r["status"] == "fail" and "could not be restarted" in r["summary"]
       and "SIGSEGV in dlopen" in r["summary"],
       "a constructor that crashes on the second load: the replacement's failure is the cause, "
       "pecheck exits 1", [rc, r])
    rc, r = reload_crash()
    ok(rc == 1 and r and r["status"] == "fail" and "not run at pos=256..510: the plugin host "
       "could not be started" in r["summary"] and "SIGSEGV in dlopen" in r["summary"],
       "the same in a pool of two: the second host's first call (block 1) fails with its cause",
       [rc, r])

    rc, doc, err, _ = check_json(so["scribble"])
    ok(rc == 0 and doc.get("status") == "pass",
       "a plugin that overwrites the host's shared header: pecheck keeps its own layout, passes",
       [x["summary"] for x in doc.get("results", []) if x["status"] != "pass"] + [err])

    # --- the sealed host (harness/sandbox/host_seal.c): nothing a plugin does reaches
    # pecheck's own process.  parent.so attacks from its constructor, so the
    # seal must be on before dlopen; the run must end as a run without it.
    def attack(name, argv0=None, where=None):
        rfile = channel("attack-" + name, where)
        os.chmod(rfile, 0o666)  # the plugin host may run as nobody (below)
        env = dict(os.environ, PECHECK_TEST_ATTACK=name, PECHECK_TEST_PIDFILE=rfile)
        try:
            p = subprocess.run(argv0 or [PECHECK_BIN, "check", "--plugin", so["parent"]] + ONE_FAM,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60)
            prc, pout = p.returncode, p.stdout.decode() + p.stderr.decode()
        except subprocess.TimeoutExpired:
            prc, pout = None, "no end in 60 s (stopped?)"
        try:
            res = open(rfile).read()
        except OSError:
            res = ""
        return prc, re.sub(r"\([0-9.]+ s\)", "(T s)", pout), res

    ONE_FAM = ["--family", "sinusoidal"] + SMALL + WRITABLE
    rc_plain, out_plain, _ = attack("none")
    ok(rc_plain == 0 and "passed, 0 failed" in out_plain, "parent.so without an attack passes",
       out_plain)
    arch_sealed = platform.machine() in ("x86_64", "aarch64") and \
        "Seccomp:" in open("/proc/self/status").read()
    _, _, probe = attack("probe")
    sealed = ("Seccomp:\t2" in probe and "NoNewPrivs:\t1" in probe and
              "CapEff:\t0000000000000000" in probe and
              "kill(-1,0) rc=-1 errno=%d" % errno.EPERM in probe)
    if arch_sealed:
        ok(sealed, "the plugin host runs under a seccomp filter, with no_new_privs and no "
           "capability; kill(-1, 0) is refused", probe)
    else:
        ok(True, "# SKIP no seccomp filter on %s (harness/sandbox/host_seal.h)" % platform.machine())
    eperm = "rc=-1 errno=%d" % errno.EPERM
    for name, what in [("stop", "kill(getppid(), SIGSTOP)"), ("kill", "kill(getppid(), SIGKILL)"),
                       ("tgkill", "tgkill(ppid, ppid, SIGKILL)"), ("tkill", "tkill(ppid, SIGKILL)"),
                       ("sigqueue", "rt_sigqueueinfo(ppid, SIGKILL)"),
                       ("all", "kill(-1, SIGKILL)"), ("ptrace", "ptrace(PTRACE_ATTACH, ppid)"),
                       ("setsid", "setsid() in a child"), ("setown", "F_SETOWN to ppid"),
                       ("prlimit", "prlimit(ppid, RLIMIT_CPU, 1 s)"),
                       ("clone", "clone(CLONE_PARENT)")]:
        if not sealed:  # unsealed, "all" would kill every process of the user
            ok(True, "# SKIP %s: the host is not sealed here" % what)
            continue
        prc, pout, res = attack(name)
        ok(prc == 0 and pout == out_plain and res.startswith(name + " " + eperm),
           "a plugin doing %s: refused with EPERM; pecheck runs on, same exit code and output"
           % what, [prc, res, pout[-400:]])
    prc, pout, res = attack("mem")
    ok(prc == 0 and pout == out_plain and res.startswith("mem rc=-1 "),
       "a plugin opening /proc/<pecheck>/mem for writing (as uid %d): the open fails; pecheck "
       "runs on, same exit code and output" % os.geteuid(), [prc, res, pout[-400:]])
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv:
        # as an ordinary user (nobody): pecheck is not dumpable.  Copies in a
        # folder that user can read; the report file is writable by it.
        pub = tempfile.mkdtemp(prefix="pecheck-seal-", dir=tmp)
        os.chmod(tmp, 0o755)
        os.chmod(pub, 0o777)
        for f in (PECHECK_BIN, so["parent"]):
            shutil.copy(f, pub)
        argv = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                os.path.join(pub, "pecheck"), "check", "--plugin",
                os.path.join(pub, "parent.so")] + ONE_FAM[:-1] + [pub]
        prc, pout, res = attack("mem", argv, pub)
        pout = pout.replace(os.path.join(pub, "parent.so"), so["parent"])
        ok(prc == 0 and pout == out_plain and res.startswith("mem rc=-1 "),
           "the same as an ordinary user (nobody): the open fails", [prc, res, pout[-400:]])
    else:
        ok(True, "# SKIP /proc/<pecheck>/mem as another user: needs root and setpriv")

    # --- resource limits of the plugin host
    ONE = ["--family", "sinusoidal", "--layout", "interleaved", "--property", "accuracy"]
    rc, doc, err, _ = check_json(so["hog"], *ONE)
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    ok(rc == 0 and r and r["status"] == "pass", "a plugin allocating 256 MiB per call passes unlimited",
       [r, err])
    if "build-san" in os.environ.get("BUILD", ""):
        # ASan reserves terabytes of address space: RLIMIT_AS does not apply there
        ok(True, "# SKIP --plugin-mem-mb under AddressSanitizer")
    else:
        rc, doc, err, _ = check_json(so["hog"], "--plugin-mem-mb", "64", *ONE)
        r = find(doc, "sinusoidal", "accuracy", "interleaved")
        ok(rc == 1 and r and "returned error 12 at positions 256..511" in r["summary"],
           "--plugin-mem-mb 64: its allocation fails in the plugin host", [r, err])
    rc, doc, err, _ = check_json(so["spin"], "--plugin-cpu-s", "1", "--timeout-ms", "600000", *ONE)
    r = find(doc, "sinusoidal", "accuracy", "interleaved")
    ok(rc == 1 and r and "SIGXCPU" in r["summary"] and "pos=0..254" in r["summary"],
       "--plugin-cpu-s 1: a spinning plugin dies of SIGXCPU, not of the time limit", [r, err])

    # --- accuracy accepts --plugin with the same JSON fields
    rc, out, err, _ = run(["accuracy", "--plugin", so["crash"], "--format", "json"] + ACC)
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {}
    ok(rc == 1 and doc.get("status") == "fail" and "SIGSEGV" in doc.get("note", "")
       and doc.get("implementation") == so["crash"],
       "accuracy --plugin: a crash is a failure with the cause in 'note'", out + err)
    rc, out, err, _ = run(["accuracy", "--plugin", so["good"], "--format", "json"] + ACC)
    rc2, out2, err2, _ = run(["accuracy", "--impl", "double-angle", "--format", "json"] + ACC)
    try:
        keys, keys2 = set(json.loads(out)), set(json.loads(out2))
    except ValueError:
        keys, keys2 = set(), {"x"}
    ok(rc == 0 and keys == keys2, "accuracy --plugin has the same JSON fields as a built-in",
       sorted(keys ^ keys2))

    # --- TAP (version 13: what Debian 12's prove reads), read by prove
    rc, wdoc, err, _ = check_json(so["wrong"])
    n_all = len(wdoc.get("results", []))
    n_fail = sum(r["status"] == "fail" for r in wdoc.get("results", []))
    tapfile = os.path.join(tmp, "wrong.tap")
    rc, out, err, _ = run(["check", "--plugin", so["wrong"], "--format", "tap", "--output", tapfile]
                          + SMALL)
    tap = open(tapfile).read() if os.path.exists(tapfile) else ""
    lines = tap.splitlines()
    ok(rc == 1 and out == "" and n_all >= 5 and lines[1:2] == ["1..%d" % n_all]
       and lines[0] == "TAP version 13",
       "tap: version line and plan (%d tests), written to --output" % n_all, tap[:400])
    ok(sum(l.startswith("not ok ") for l in lines) == n_fail and n_fail >= 1
       and lines[2].startswith("not ok 1 - ") and "accuracy [interleaved]" in lines[2]
       and any("# SKIP" in l for l in lines), "tap: %d not-ok lines and SKIP directives" % n_fail)
    # the YAML block of the first failure
    try:
        i = lines.index("  ---")
        j = lines.index("  ...", i)
        import yaml  # python3-yaml
        y = yaml.safe_load("\n".join(l[2:] for l in lines[i + 1:j]))
    except (ValueError, ImportError) as e:
        y = {"error": str(e)}
    ok(isinstance(y, dict) and "message" in y and "measured" in y and "bound" in y
       and "seed" in y and "the first at pos=0" in y.get("witness", "") and y.get("severity") == "fail",
       "tap: YAML diagnostic with message, measured, bound, seed and witness", y)
    # prove runs a wrapper that runs pecheck (without the TAP_VERSION prove sets)
    wrapper = os.path.join(tmp, "wrapped.t")
    from pctest import PECHECK

    def prove(plugin):
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\nexec '%s' check --plugin '%s' --format tap %s 2>/dev/null\n"
                    % (PECHECK, plugin, " ".join(SMALL)))
        os.chmod(wrapper, 0o755)
        env = dict(os.environ)
        env.pop("TAP_VERSION", None)
        p = subprocess.run(["prove", "--exec", "", wrapper], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=env)
        return p.returncode, p.stdout.decode()
    prc, pout = prove(so["wrong"])
    ok(prc != 0 and "Failed %d/%d" % (n_fail, n_all) in pout and "Parse errors" not in pout,
       "prove reads the TAP: %d of %d failed, no parse error" % (n_fail, n_all), pout)
    prc, pout = prove(so["good"])
    ok(prc == 0 and "Result: PASS" in pout, "prove passes the good plugin's TAP", pout)
    env = dict(os.environ)
    env.pop("TAP_VERSION", None)
    p = subprocess.run([PECHECK, "check", "--plugin", so["good"], "--format", "tap"] + SMALL,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    ok(p.stdout.decode().startswith("TAP version 13\n1.."),
       "outside a harness the version line is TAP version 13", p.stdout.decode()[:100])

    # --- JUnit XML: the Jenkins xunit junit-10.xsd shape
    rc, out, err, _ = run(["check", "--plugin", so["wrong"], "--plugin", so["good"], "--plugin",
                           so["hang"], "--timeout-ms", "200", "--format", "junit"] + SMALL)
    problems = []
    try:
        root = ET.fromstring(out.encode())
    except ET.ParseError as e:
        root = None
        problems.append("not XML: %s" % e)
    if root is not None:
        allowed = {
            "testsuites": ({"name", "time", "tests", "failures", "errors"}, set()),
            "testsuite": ({"name", "tests", "failures", "errors", "group", "time", "skipped",
                           "timestamp", "hostname", "id", "package", "file", "log", "url"},
                          {"name", "tests", "failures", "errors"}),
            "testcase": ({"name", "time", "classname", "group"}, {"name"}),
            "failure": ({"type", "message"}, set()),
            "error": ({"type", "message"}, set()),
            "skipped": ({"type", "message"}, set()),
        }
        children = {"testsuites": {"testsuite"},
                    "testsuite": {"testsuite", "properties", "testcase", "system-out", "system-err"},
                    "testcase": {"skipped", "error", "failure", "system-out", "system-err"},
                    "failure": set(), "error": set(), "skipped": set()}
        if root.tag != "testsuites":
            problems.append("root is %s" % root.tag)
        for el in root.iter():
            if el.tag not in allowed:
                problems.append("element %s" % el.tag)
                continue
            attrs, required = allowed[el.tag]
            if set(el.attrib) - attrs:
                problems.append("%s has %s" % (el.tag, set(el.attrib) - attrs))
            if required - set(el.attrib):
                problems.append("%s lacks %s" % (el.tag, required - set(el.attrib)))
            for ch in el:
                if ch.tag not in children[el.tag]:
                    problems.append("%s inside %s" % (ch.tag, el.tag))
            if "time" in el.attrib:
                import re
                if not re.fullmatch(r"[0-9]*(\.[0-9]*)?", el.attrib["time"]):
                    problems.append("time %r" % el.attrib["time"])
        suites = root.findall("testsuite")
        if len(suites) != 3:
            problems.append("%d testsuites" % len(suites))
        for s in suites:
            cases = s.findall("testcase")
            if int(s.get("tests", -1)) != len(cases):
                problems.append("tests=%s but %d testcases" % (s.get("tests"), len(cases)))
            if int(s.get("failures", -1)) != len(s.findall("testcase/failure")):
                problems.append("failures count")
            if int(s.get("skipped", -1)) != len(s.findall("testcase/skipped")):
                problems.append("skipped count")
        fails = root.findall(".//failure")
        if not fails or not all(f.get("message") for f in fails):
            problems.append("failures without message")
        if not any("timed out" in (f.get("message") or "") for f in fails):
            problems.append("no timeout failure")
        if int(root.get("failures", -1)) != len(fails):
            problems.append("testsuites failures=%s, %d failure elements" % (root.get("failures"), len(fails)))
    ok(rc == 1 and not problems, "junit: junit-10.xsd shape, counts and failure messages",
       "\n".join(problems) + "\n" + out[:1500])

    # --- atomic output: an input error leaves no file
    outfile = os.path.join(tmp, "never.json")
    rc, out, err, _ = run(["check", "--plugin", so["nosym"], "--format", "json", "--output", outfile])
    ok(rc == 2 and not os.path.exists(outfile), "an input error writes no --output file")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(done())
