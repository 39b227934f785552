#!/usr/bin/python3
"""plugin_pool.t: a plugin's calls spread over a pool of plugin host
processes (--plugin-hosts, harness/sandbox/host.h) without changing pecheck's
output.

Block b's calls go to host b % H, each host's in (block, layout) order, and
which calls are made depends only on what earlier calls returned
(harness/engine/accuracy.c, take_turn); the unique sweep, run without the gate,
gives host k the k-th of H parts of the range (families/sinusoidal/unique.c;
after the gate it reads the hashes of the gate's rows, harness/engine/rowdigest.h).  tests/plugins/counter.c counts its calls
in each process, writes each count to stdout, shifts its values by it and
fails at a given call of a process: its `check` JSON (the seconds removed,
the captured output included) is the same at --threads 1, 2 and 3, and the
failure is the one the documented order predicts.  A crash at position
1000 and a hang are reported the same at --threads 1 and 2.  A failed call
of the unique sweep (tests/plugins/sweepfail.c: a crash, a hang, an error)
or of the linear-shift fit fails the property, naming the fault.  The pool has
H processes (a plugin appending its pid); --plugin-hosts outside 1..64 is
exit 2.  A host cannot open the /proc/PID/mem of another host of the pool
for writing (tests/plugins/sibling.c; hosts are not dumpable).
"""
import errno
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from pctest import PECHECK, build_plugin, ok, done, no_seconds  # noqa: E402

# 3000 positions (12 blocks of 256) at d = 32, 10 cases a property
SMALL = ["--family", "sinusoidal", "--d", "32", "--max-pos", "2999", "--cases", "10",
         "--regressions", "off"]
tmp = tempfile.mkdtemp(prefix="pecheck-pool-")


def build(name):
    return build_plugin(name, tmp)


def small_but(extra):
    """SMALL (pairs of an option and its value) less the options EXTRA gives:
    an option holding one value is given once (a second value is exit 2)."""
    return [a for k in range(0, len(SMALL), 2) if SMALL[k] not in extra for a in SMALL[k:k + 2]]


def check(plugin, threads, env=None, extra=()):
    """check's JSON without its seconds, and its exit code."""
    p = subprocess.run([PECHECK, "check", "--plugin", plugin, "--format", "json", "--quiet",
                        "--threads", str(threads)] + small_but(extra) + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                       env=dict(os.environ, **(env or {})))
    try:
        doc = no_seconds(json.loads(p.stdout.decode()))
    except ValueError:
        doc = {"_raw": p.stdout.decode() + p.stderr.decode()}
    return p.returncode, doc


def find(doc, chk, layout):
    for r in doc.get("results", []):
        if r.get("check") == chk and r.get("layout") == layout:
            return r
    return {}


def same_for_threads(plugin, what, env=None, threads=(1, 2, 3), extra=()):
    """The run at each thread count; ok when all equal.  Returns the first."""
    runs = [check(plugin, t, env, extra) for t in threads]
    same = all(json.dumps(r, sort_keys=True) == json.dumps(runs[0], sort_keys=True) for r in runs)
    ok(same and "results" in runs[0][1], "%s: the same JSON at --threads %s" %
       (what, ", ".join(map(str, threads))),
       "\n".join(json.dumps(r, sort_keys=True)[:600] for r in runs))
    return runs[0]


try:
    counter, crash, hang, pids = build("counter"), build("crash"), build("hang"), build("pids")

    rc, doc = same_for_threads(counter, "a plugin counting its calls (values and output depend "
                               "on the count)")
    acc = find(doc, "accuracy", "interleaved")
    rep = find(doc, "repeat", "interleaved")
    out = "".join(r.get("details") or "" for r in doc.get("results", []))
    ok(rc == 1 and acc.get("status") == "pass" and rep.get("status") == "fail",
       "counter: accuracy passes, the repeat check sees the state", [rc, acc, rep.get("summary")])
    # host 1 gets blocks 1, 3, ..., 11 of the gate, two layouts each, each
    # in two calls (the block but its last position, then that one alone:
    # accuracy.c call_block), calls 1..24, and nothing more: the unique
    # sweep reads the hashes of the rows the gate got
    # (harness/engine/rowdigest.h) instead of calling again; its output
    # comes after host 0's
    def h1_pos(k):
        b = 1 + 2 * (k // 4)
        return 256 * b + (min(256 * b + 255, 2999) - 256 * b if k % 2 else 0)
    h1 = "".join("call %d at pos=%d\n" % (k + 1, h1_pos(k)) for k in range(24))
    at = out.find(h1)
    tail = out[at + len(h1):] if at >= 0 else ""
    ok("plugin output" in out and at > 0 and "call " in out[:at].split("plugin output")[-1]
       and "call 25 at" not in tail,
       "the captured output: host 0's last lines, then host 1's whole: the gate's odd blocks, "
       "no call of the unique sweep", out[-1500:])

    # host 0 gets blocks 0, 2, 4 ..., each layout's in two calls: its 5th
    # call is block 2's interleaved first one
    rc, doc = same_for_threads(counter, "a plugin failing at its 5th call in a process",
                               {"PECHECK_TEST_NTH": "5"})
    r = find(doc, "accuracy", "interleaved")
    ok(rc == 1 and "returned error 7 at positions 512..767" in r.get("summary", ""),
       "the 5th call of host 0 (block 2, interleaved) is the failure reported", r.get("summary"))
    rc, doc = same_for_threads(counter, "a plugin crashing at its 5th call in a process",
                               {"PECHECK_TEST_NTH": "5", "PECHECK_TEST_CRASH": "1"})
    r = find(doc, "accuracy", "interleaved")
    ok(rc == 1 and "SIGSEGV in pecheck_sinusoidal_f32 at pos=512..766" in r.get("summary", ""),
       "its crash is reported at block 2's first call", r.get("summary"))
    rc, doc = same_for_threads(counter, "--plugin-hosts 1, failing at the 5th call",
                               {"PECHECK_TEST_NTH": "5"}, (1, 2), ["--plugin-hosts", "1"])
    r = find(doc, "accuracy", "interleaved")
    ok(rc == 1 and "returned error 7 at positions 256..511" in r.get("summary", ""),
       "one host: its 5th call is block 1's interleaved", r.get("summary"))

    rc, doc = same_for_threads(crash, "a crash at position 1000", threads=(1, 2))
    r = find(doc, "accuracy", "half")
    ok(rc == 1 and "SIGSEGV in pecheck_sinusoidal_f32 at pos=768..1022" in r.get("summary", ""),
       "the crash at 1000 is reported at pos=768..1022 (block 3 but its last position)",
       r.get("summary"))
    # the unique sweep of 0..1499 alone: host 1's part is blocks 3..5
    # (768..1535); a failed sweep call fails the property, naming the fault
    # and the call's positions, the same for one host and two
    one = ["--property", "unique", "--max-pos", "1499"]
    rc, doc = same_for_threads(crash, "a crash in host 1's part of the unique sweep",
                               threads=(1, 2), extra=one)
    rc1, doc1 = check(crash, 2, extra=one + ["--plugin-hosts", "1"])
    u, u1 = find(doc, "unique", "interleaved"), find(doc1, "unique", "interleaved")
    ok(rc == rc1 == 1 and u.get("status") == "fail" and "SIGSEGV in pecheck_sinusoidal_f32 at "
       "pos=768..1023" in u.get("summary", "") and u.get("summary") == u1.get("summary"),
       "the sweep's crash fails unique at pos=768..1023, as with one host",
       [rc, rc1, u.get("summary"), u1.get("summary")])

    # tests/plugins/sweepfail.c: only the sweep's calls (more than two rows)
    # fail; every failure fails unique, the same at --threads 1 and 2 and for
    # one host and two: a crash in block 6 (host 1's part of two), a hang in
    # block 1 (host 0's), an error in the last, short block, and an error
    # when the rows the hashes found equal are compared
    sweepfail = build("sweepfail")
    # only the hang needs a short --timeout-ms: the other faults run under
    # the default, so that no verdict here depends on how busy the machine
    # is (a 300 ms limit and a budget of 300 ms for the faults' time)
    for how, at, want in (("crash", "1600", "crashed (SIGSEGV in pecheck_sinusoidal_f32 at "
                           "pos=1536..1791"),
                          ("hang", "300", "crashed (timed out after 300 ms in "
                           "pecheck_sinusoidal_f32 at pos=256..511"),
                          ("error", "2999", "returned 5 for positions [2816, 2817"),
                          ("collide", "0", "returned 5 for positions [2000, 2001]")):
        env = {"PECHECK_TEST_DO": how, "PECHECK_TEST_AT": at}
        full = ["--property", "unique"] + (["--timeout-ms", "300"] if how == "hang" else [])
        runs = [same_for_threads(sweepfail, "the sweep's call: %s, %d host(s)" % (how, h),
                                 env, (1, 2), full + ["--plugin-hosts", str(h)]) for h in (1, 2)]
        us = [find(d, "unique", "interleaved") for _, d in runs]
        ok(all(r == 1 for r, _ in runs) and all(u.get("status") == "fail" for u in us)
           and all(("implementation error: pecheck_sinusoidal_f32 " + want) in u.get("summary", "")
                   for u in us) and us[0].get("summary") == us[1].get("summary"),
           "the sweep's call %s: unique fails naming it, as with one host" % how,
           [(r, u.get("summary")) for (r, _), u in zip(runs, us)])
    # a collision only the sweep finds (rows of 2001 are those of 2000):
    # after the gate, the sweep reads the hashes of the rows the gate got
    # (harness/engine/rowdigest.h) and makes no call of a block of its own, yet
    # its verdict is the one of the sweep that calls (--property unique)
    def block_calls(log):
        try:
            calls = [ln.split() for ln in open(log).read().splitlines()]
        except OSError:
            calls = []
        open(log, "w").close()  # empty for the next run (the plugin creates no file)
        return sorted((int(c[0]), int(c[1]), int(c[2])) for c in calls
                      if int(c[1]) % 256 == 0 and int(c[2]) in (255, 256, 183, 184))
    log = os.path.join(tmp, "twin.log")
    WRITABLE = ["--plugin-writable", tmp]  # the plugin writes LOG (tests/plugins/common.h)
    # whole blocks of 256 (the last 184) for the sweep; the gate calls each
    # block but its last position (255, the last 183), then that one alone
    blocks = [(lay, 256 * b, 184 if b == 11 else 256) for lay in (0, 1) for b in range(12)]
    gate = [(lay, 256 * b, 183 if b == 11 else 255) for lay in (0, 1) for b in range(12)]
    gate_calls = sorted(gate + [(0, 0, 256)] * 2)  # the gate's blocks, the repeat check's two
    for h in (1, 2):
        twin = {"PECHECK_TEST_DO": "twin", "PECHECK_TEST_LOG": log}
        runs = []
        open(log, "w").close()
        for t in (1, 2):
            runs.append(check(sweepfail, t, twin, ["--plugin-hosts", str(h)] + WRITABLE)
                        + (block_calls(log),))
        alone = check(sweepfail, 2, twin, ["--plugin-hosts", str(h), "--property", "unique"]
                      + WRITABLE)
        sweep_calls = block_calls(log)
        us = [find(d, "unique", "interleaved") for _, d, _ in runs] + \
            [find(alone[1], "unique", "interleaved")]
        ok(all(r == 1 for r, _, _ in runs) and us[0] == us[1] == us[2]
           and "positions 2000 and 2001: bit-identical rows" in us[0].get("summary", "")
           and all(c == gate_calls for _, _, c in runs) and sweep_calls == blocks[:12],
           "%d host(s): a collision only the sweep finds fails unique after the gate as alone; "
           "the gate's block calls are the only ones (the sweep's own, alone)" % h,
           [us[0].get("summary"), us[2].get("summary"), [c[:3] for _, _, c in runs],
            sweep_calls[:3]])

    # a host whose start (pecheck's exec, no code of the plugin yet) takes
    # 600 ms, longer than --timeout-ms 300: the limit is the plugin's, from
    # the worker's 's' byte on (harness/sandbox/host_proto.h, HOST_START_MS);
    # it timed out in "dlopen + the ABI version entry point" before
    slow = build("slow_start")
    senv = dict(os.environ, LD_PRELOAD=slow,
                ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
    p = subprocess.run([PECHECK, "check", "--plugin", sweepfail, "--property", "unique",
                        "--timeout-ms", "300", "--plugin-hosts", "2"] + SMALL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=senv, timeout=300)
    ok(p.returncode == 0 and b"PASS" in p.stdout,
       "a host's slow start (600 ms, before the plugin) is not the plugin's time (--timeout-ms 300)",
       (p.stdout + p.stderr).decode()[-600:])

    # the linear-shift fit's call (2 m rows) fails: a run whose cases pass fails
    rc, doc = check(sweepfail, 2, {"PECHECK_TEST_DO": "error"}, ["--property", "linear-shift"])
    ls = find(doc, "linear-shift", "interleaved")
    ok(rc == 1 and ls.get("status") == "fail" and "implementation error: pecheck_sinusoidal_f32 "
       "returned 5 for positions [" in ls.get("summary", "") and "least-squares fit of M(1): the "
       "implementation failed" in (ls.get("details") or ""),
       "the linear-shift fit's failed call fails the property", [rc, ls.get("summary")])

    rc, doc = same_for_threads(hang, "a hang (--timeout-ms 300)", threads=(1, 2),
                               extra=["--timeout-ms", "300"])
    r1, r2 = find(doc, "accuracy", "interleaved"), find(doc, "accuracy", "half")
    ok(rc == 1 and "timed out after 300 ms in pecheck_sinusoidal_f32 at pos=0..254"
       in r1.get("summary", "") and "timed out earlier at pos=0..254" in r2.get("summary", ""),
       "the hang is reported at pos=0..254 (block 0's first call), the other layout's call not "
       "made",
       [r1.get("summary"), r2.get("summary")])
    u = find(doc, "unique", "interleaved").get("summary", "")
    ok("pecheck_sinusoidal_f32 not run for positions [" in u and ", because "
       "pecheck_sinusoidal_f32 timed out earlier at pos=0..254" in u and "crashed" not in u,
       "a property's call refused after the time-out says not run, because it timed out", u)

    # hosts are not dumpable: a plugin finds its sibling host but cannot
    # open its /proc/PID/mem for writing (EACCES, or EPERM), while its own
    # stays open to it (the seal keeps /proc/self working)
    sib, siblog = build("sibling"), os.path.join(tmp, "sibling.log")
    open(siblog, "w").close()
    p = subprocess.run([PECHECK, "check", "--plugin", sib, "--plugin-hosts", "2"] + SMALL
                       + WRITABLE,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, PECHECK_TEST_LOG=siblog))
    try:
        lines = [ln.split() for ln in open(siblog).read().splitlines()]
    except OSError:
        lines = []
    sibs = [int(ln[3]) for ln in lines if ln[0] == "sibling"]
    selfs = [int(ln[3]) for ln in lines if ln[0] == "self"]
    ok(p.returncode == 0 and sibs and all(e in (errno.EACCES, errno.EPERM) for e in sibs)
       and selfs and all(e == 0 for e in selfs),
       "a host cannot open its sibling's /proc/PID/mem for writing, its own it can",
       [p.returncode, lines])

    for hosts in (1, 2, 3):
        pidfile = os.path.join(tmp, "pids-%d" % hosts)
        open(pidfile, "w").close()
        p = subprocess.run([PECHECK, "check", "--plugin", pids, "--plugin-hosts", str(hosts)]
                           + SMALL + WRITABLE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=dict(os.environ, PECHECK_TEST_PIDFILE=pidfile))
        try:
            got = open(pidfile).read().split()
        except OSError:
            got = []
        ok(p.returncode == 0 and len(set(got)) == hosts,
           "--plugin-hosts %d: %d processes serve the calls" % (hosts, hosts),
           [p.returncode, len(got), len(set(got))])

    for bad in ("0", "65", "two"):
        p = subprocess.run([PECHECK, "check", "--plugin", pids, "--plugin-hosts", bad] + SMALL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = p.stderr.decode()
        ok(p.returncode == 2 and "--plugin-hosts" in err and p.stdout == b"",
           "--plugin-hosts %s: exit 2 naming the option, no output" % bad, err)
finally:
    subprocess.run(["rm", "-rf", tmp])

sys.exit(done())
