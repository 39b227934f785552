#!/usr/bin/python3
"""bench_python.py PECHECK: `make bench`'s figures of the Python package.

1. The helper's overhead over the CLI on the same table: a float32 RoPE
   cache of 131072 positions x 128 (HF layout, base 500000, 64 MiB a table):
     CLI     `pecheck check --table cos.npy --table-sin sin.npy --family rope
             --base 500000 --regressions off --format json`, the files
             already written, run from Python (wall seconds of the process);
     HELPER  pecheck.check_rope_cache(cos, sin, base=500000.0) from the
             torch tensors in memory to the Result (the arrays handed over
             in memory: pecheck/_transport.py);
     FILES   the route the helper had before: np.save of both tables into a
             temporary folder, then the same CLI run, then the JSON parsed.
   One untimed round, then ROUNDS rounds of CLI, HELPER, FILES in turn; the
   medians of wall and of CPU seconds (user + system, the children's
   included: less dependent on the machine's load), and the medians of the
   per-round differences HELPER - CLI.
2. Memory of gate_rotary at 2^20 positions (head dim 128: 512 MiB a table
   if held whole) for an HF-style module and a Meta-style function
   (tests/python/rotary_models.py), every check: the peak RSS of the Python
   process (VmHWM of /proc/self/status, in a process of its own; the part
   torch's import takes is printed beside it) and of every pecheck run
   (/usr/bin/time); goal: both under 256 MiB.
3. The gates of the user's own code against the route without them, in the
   same run: GATE the package's call (gate_rotary of an HF-style module;
   check_rotation of transformers' apply_rotary_pos_emb and of torchtune's
   RotaryPositionalEmbeddings, tests/python/rotation_forms.py) at 131072
   positions x head dim 128; PEER the code's own run over the same
   positions (q and k, or x, of the 3 heads check_rotation hands over) plus
   one CLI check of the cache it computes or uses (np.save, then `pecheck
   check --table ...`).
   Medians over ROUNDS rounds after an untimed one; goal GATE <= 1.5 PEER.
Timings are wall-clock on a shared machine: the load average is printed
before and after.  BENCH_ROTARY_POSITIONS overrides 2^20; BENCH_ROUNDS 5.
"""
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
N, D, BASE = 131072, 128, 500000.0
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
POSITIONS = int(os.environ.get("BENCH_ROTARY_POSITIONS", str(1 << 20)))
GOAL_MIB = 256


def load():
    with open("/proc/loadavg") as f:
        return "load average %s" % " ".join(f.read().split()[:3])


def cache():
    import torch
    inv = 1.0 / (BASE ** (torch.arange(0, D, 2, dtype=torch.int64).float() / D))
    f = torch.outer(torch.arange(N).float(), inv)
    e = torch.cat((f, f), dim=-1)
    return e.cos(), e.sin()


def cli_args(cos_path, sin_path):
    return ["check", "--table", cos_path, "--table-sin", sin_path, "--family", "rope", "--base",
            repr(BASE), "--regressions", "off", "--format", "json"]


def cpu():
    """CPU seconds (user + system) of this process and its finished children."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(f):
    """(wall seconds, CPU seconds, F's value): CPU time, the children's
    included, depends less on the machine's load than wall time."""
    t, c = time.perf_counter(), cpu()
    out = f()
    return time.perf_counter() - t, cpu() - c, out


def overhead(binary):
    import numpy as np
    import pecheck
    cos, sin = cache()
    tmp = tempfile.mkdtemp(prefix="pecheck-bench-")
    paths = [os.path.join(tmp, n) for n in ("cos.npy", "sin.npy")]
    for p, t in zip(paths, (cos, sin)):
        np.save(p, t.numpy())

    def cli():
        p = subprocess.run([binary] + cli_args(*paths), stdout=subprocess.PIPE, check=False)
        return json.loads(p.stdout)["status"]

    def helper():
        return pecheck.check_rope_cache(cos, sin, base=BASE).status

    def files():
        with tempfile.TemporaryDirectory(prefix="pecheck-") as d:
            fp = [os.path.join(d, n) for n in ("cos.npy", "sin.npy")]
            for p, t in zip(fp, (cos, sin)):
                np.save(p, t.numpy())
            p = subprocess.run([binary] + cli_args(*fp), stdout=subprocess.PIPE, check=False)
            return json.loads(p.stdout)["status"]

    runs = {"cli": [], "helper": [], "files": []}
    cpus = {"cli": [], "helper": [], "files": []}
    statuses = {cli(), helper(), files()}  # untimed round
    for _ in range(ROUNDS):
        for name, f in (("cli", cli), ("helper", helper), ("files", files)):
            s, c, status = timed(f)
            statuses.add(status)
            runs[name].append(s)
            cpus[name].append(c)
    for p in paths:
        os.unlink(p)
    os.rmdir(tmp)
    med = {k: statistics.median(v) for k, v in runs.items()}
    cmed = {k: statistics.median(v) for k, v in cpus.items()}
    diff = statistics.median(h - c for h, c in zip(runs["helper"], runs["cli"]))
    cdiff = statistics.median(h - c for h, c in zip(cpus["helper"], cpus["cli"]))
    print("1. helper overhead over the CLI, RoPE cache %d x %d float32 (64 MiB a table), %d rounds:"
          % (N, D, ROUNDS))
    for k, label in (("cli", "CLI (files on disk already)"), ("helper", "HELPER check_rope_cache"),
                     ("files", "FILES (np.save to a temporary folder + CLI)")):
        print("   %-46s wall median %.3f s (min %.3f, max %.3f), CPU median %.3f s"
              % (label, med[k], min(runs[k]), max(runs[k]), cmed[k]))
    print("   overhead HELPER - CLI: wall median %+.3f s (%+.1f%% of the CLI), CPU median %+.3f s "
          "(%+.1f%%); FILES - CLI: wall %+.3f s, CPU %+.3f s"
          % (diff, 100.0 * diff / med["cli"], cdiff, 100.0 * cdiff / cmed["cli"],
             med["files"] - med["cli"], cmed["files"] - cmed["cli"]))
    print("   verdicts: %s" % ", ".join(sorted(statuses)))


RSS_RUN = r'''
import json, sys, time
sys.path.insert(0, sys.argv[3])
import torch
import pecheck
from rotary_models import HFRotary, precompute_freqs_cis
n, kind = int(sys.argv[1]), sys.argv[2]
def hwm():  # this process's own peak RSS (getrusage's would count the parent's at its start)
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
after_import = hwm()
fn = HFRotary(128) if kind == "hf" else precompute_freqs_cis
t = time.perf_counter()
r = pecheck.check_rotary(fn, config={"rope_theta": 500000.0, "head_dim": 128}, positions=n, keep=False)
print(json.dumps({"status": r.status, "chunks": r.json["chunks"], "seconds": time.perf_counter() - t,
                  "after_import_kib": after_import,
                  "peak_kib": hwm()}))
'''


def rotary_memory(binary):
    print("2. gate_rotary at %d positions, head dim 128, every check (goal: peak RSS < %d MiB):"
          % (POSITIONS, GOAL_MIB))
    for kind, label in (("hf", "HF-style module"), ("meta", "Meta-style function")):
        with tempfile.TemporaryDirectory(prefix="pecheck-bench-") as d:
            log, wrapper, script = (os.path.join(d, n) for n in ("rss.log", "pecheck", "run.py"))
            with open(wrapper, "w") as f:
                f.write('#!/bin/sh\nexec /usr/bin/time -a -o %s -f %%M %s "$@"\n'
                        % (shlex.quote(log), shlex.quote(binary)))
            os.chmod(wrapper, 0o755)
            with open(script, "w") as f:
                f.write(RSS_RUN)
            env = dict(os.environ, PECHECK=wrapper, PYTHONPATH=os.path.join(ROOT, "python"),
                       PYTHONDONTWRITEBYTECODE="1")
            p = subprocess.run([sys.executable, script, str(POSITIONS), kind,
                                os.path.join(ROOT, "tests", "python")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=False)
            if p.returncode != 0:
                print("   %-20s NOT met (no figure: the run failed: %s)"
                      % (label, p.stderr.decode()[-300:].strip()))
                continue
            out = json.loads(p.stdout.decode().splitlines()[-1])
            with open(log) as f:
                runs = [int(x) for x in f.read().split() if x.isdigit()]
        py, runs_peak = out["peak_kib"] / 1024.0, max(runs) / 1024.0
        met = py < GOAL_MIB and runs_peak < GOAL_MIB and out["status"] == "pass"
        print("   %-20s %s: Python peak %.1f MiB (%.1f MiB after importing torch), pecheck runs' "
              "peak %.1f MiB over %d runs; %d chunks in %.1f s; %s"
              % (label, out["status"], py, out["after_import_kib"] / 1024.0, runs_peak, len(runs),
                 out["chunks"], out["seconds"], "met" if met else "NOT met"))


PEER_GOAL = 1.5  # the gate costs at most 1.5x the code's own run + the CLI's check


def module_cache(module, n):
    """The HF-style MODULE's (cos, sin) for positions 0..n-1, float32 (n, D)."""
    import torch
    cos, sin = module(torch.zeros(1), torch.arange(n)[None, :])
    return cos[0], sin[0]


def cli_of_cache(binary, cos, sin):
    """The CLI's check of the cache, from np.save to the parsed verdict."""
    import numpy as np
    with tempfile.TemporaryDirectory(prefix="pecheck-bench-") as d:
        paths = [os.path.join(d, n) for n in ("cos.npy", "sin.npy")]
        for path, t in zip(paths, (cos, sin)):
            np.save(path, t.numpy())
        p = subprocess.run([binary] + cli_args(*paths), stdout=subprocess.PIPE, check=False)
        return json.loads(p.stdout)["status"]


def against_peer(label, gate, peer):
    """Print GATE's and PEER's wall medians and their ratio."""
    statuses = {gate(), peer()}  # untimed round
    g, p = [], []
    for _ in range(ROUNDS):
        for runs, f in ((g, gate), (p, peer)):
            s, _c, status = timed(f)
            statuses.add(status)
            runs.append(s)
    mg, mp = statistics.median(g), statistics.median(p)
    print("   %-44s gate %.2f s, peer %.2f s (medians of %d): %.2fx; goal <= %.1fx: %s; "
          "verdicts %s" % (label, mg, mp, ROUNDS, mg / mp, PEER_GOAL,
                           "met" if mg / mp <= PEER_GOAL else "NOT met", ", ".join(sorted(statuses))))


def gates_against_peers(binary):
    import pecheck
    sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
    from rotary_models import HFRotary
    print("3. the gates of the user's code against its own run + the CLI's check of its cache, "
          "%d positions x head dim %d:" % (N, D))
    module = HFRotary(D, base=BASE)
    config = {"rope_theta": BASE, "head_dim": D}

    def gate():
        return pecheck.check_rotary(module, config, positions=N, keep=False).status

    def peer():
        return cli_of_cache(binary, *module_cache(module, N))
    against_peer("gate_rotary (HF-style module)", gate, peer)
    rotation_against_peers(binary, module)


HEADS = 3  # the heads of the tensor check_rotation hands over (families/rope/gate_v2.c)


def rotation_against_peers(binary, module):
    """check_rotation of transformers' apply_rotary_pos_emb (HF's cos/sin
    handed over) and of torchtune's module (its own cache), each against
    the function's own run on q and k (x) of the same size plus the CLI's
    check of the cache it used."""
    import torch
    import pecheck
    from rotation_forms import RotaryPositionalEmbeddings, apply_rotary_pos_emb

    def hf_gate():
        return pecheck.check_rotation(apply_rotary_pos_emb, form="q,k,cos,sin", positions=N,
                                      head_dim=D, base=BASE, keep=False).status

    q, k = (torch.randn(1, HEADS, N, D) for _ in range(2))  # drawn once, outside the timing

    def hf_peer():
        cos, sin = module_cache(module, N)
        apply_rotary_pos_emb(q, k, cos[None], sin[None])
        return cli_of_cache(binary, cos, sin)
    against_peer("check_rotation (HF apply_rotary_pos_emb)", hf_gate, hf_peer)
    tt = RotaryPositionalEmbeddings(D, max_seq_len=N, base=BASE)

    def tt_gate():
        return pecheck.check_rotation(tt, form="x,pos", positions=N, head_dim=D, base=BASE,
                                      keep=False).status

    x = torch.randn(1, N, HEADS, D)

    def tt_peer():
        tt(x, input_pos=torch.arange(N))
        return cli_of_cache(binary, tt.cache[..., 0], tt.cache[..., 1])
    against_peer("check_rotation (torchtune module)", tt_gate, tt_peer)


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "pecheck"))
    if not os.access(binary, os.X_OK) or not os.access("/usr/bin/time", os.X_OK):
        sys.stderr.write("bench_python.py: needs %s (make) and /usr/bin/time\n" % binary)
        return 2
    os.environ["PECHECK"] = binary
    sys.path.insert(0, os.path.join(ROOT, "python"))
    print("pecheck Python package: %d cores, %s" % (os.cpu_count(), load()))
    overhead(binary)
    rotary_memory(binary)
    gates_against_peers(binary)
    print("   (%s after)" % load())
    return 0


if __name__ == "__main__":
    sys.dont_write_bytecode = True  # nothing written into the checkout
    sys.exit(main())
