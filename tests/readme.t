#!/bin/bash
# The README's shown output is what pecheck prints: each example block below
# is found in README.md by the sentence that introduces it, its command is
# run, and every line of the block must be a line of the output, in order
# (the accuracy failure: the whole output, line for line).  The quick tour's
# commands that need no file of the reader's run without a usage error.
set -u
PECHECK=${PECHECK:-build/pecheck}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export PECHECK_REGRESSIONS=off
cd "$tmp" || exit 1

python3 - "$root/README.md" "$PECHECK" <<'PY'
import re, subprocess, sys
readme, pecheck = open(sys.argv[1]).read().split("\n"), sys.argv[2]
n = 0
def ok(cond, what):
    global n
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))

def block_after(marker):
    """The indented code block that follows the first line containing MARKER."""
    i = next((k for k, l in enumerate(readme) if marker in l), None)
    if i is None:
        return None
    while i < len(readme) and not readme[i].startswith("    "):
        i += 1
    out = []
    while i < len(readme) and (readme[i].startswith("    ") or readme[i] == ""):
        out.append(readme[i][4:])
        i += 1
    while out and out[-1] == "":
        out.pop()
    return out

def run(cmd):
    args = cmd.split()
    assert args[0] in ("pecheck", "build/pecheck")
    p = subprocess.run([pecheck] + args[1:], capture_output=True, text=True)
    return p.returncode, p.stdout.split("\n")

def in_order(block, lines):
    """The first line of BLOCK that is not a line of LINES after the previous one."""
    k = 0
    for b in block:
        while k < len(lines) and lines[k] != b:
            k += 1
        if k == len(lines):
            return b
        k += 1
    return None

print("1..6")

# "A failure reads like this (`pecheck accuracy ...`):" then the exact output
m = next((re.search(r"A failure reads like this \(`([^`]*)`\)", l) for l in readme
          if "A failure reads like this" in l), None)
block = block_after("A failure reads like this")
if m and block:
    rc, out = run(m.group(1))
    ok(rc == 1 and out[:len(block)] == block and out[len(block):] == [""],
       "README's accuracy failure is the output of `%s`, line for line" % m.group(1))
else:
    ok(False, "README: the accuracy failure example not found")

# "Reading a counterexample": the FAIL line, then the details below it
cmd = "pecheck check --impl sin-only --property linear-shift"
block = block_after("`%s` prints a line" % cmd)
line = next((l for l in readme if l.startswith("`%s` prints a line" % cmd)), "")
first = line and re.search(r"^`(FAIL[^`]*)`", readme[readme.index(line) + 1])
rc, out = run(cmd)
ok(first is not None and out and out[0].startswith(first.group(1).rstrip(".").rstrip()),
   "README's counterexample FAIL line begins the output of `%s`" % cmd)
# the details are indented by 4 under the FAIL line; the README's block by 4 too
missing = in_order(block or ["(no block)"], [l[4:] if l.startswith("    ") else l for l in out])
ok(rc == 1 and missing is None, "README's counterexample block is in the output, in order%s"
   % ("" if missing is None else ": not found: %r" % missing))

# the ALiBi example: its FAIL line is a line of the output
block = block_after("fails alibi-slopes:")
fails = [l for l in (block or []) if l.startswith("FAIL")]
rc, out = run("pecheck check --impl alibi-pow2 --family alibi")
ok(rc == 1 and len(fails) == 1 and fails[0] in out,
   "README's ALiBi example line is a line of the output%s" % ("" if fails and fails[0] in out
   else ": %r" % (fails[:1],)))

# the quick tour: commands that need none of the reader's files
tour = block_after("## Quick tour") or []
cmds = [l.split("#")[0].strip() for l in tour]
cmds = [c for c in cmds if c and "--plugin" not in c and "--out" not in c]
bad = [(c, rc) for c in cmds for rc in [run(c)[0]] if rc not in (0, 1)]
ok(len(cmds) >= 5 and not bad, "the quick tour's %d commands without files run (exit 0 or 1)%s"
   % (len(cmds), "" if not bad else ": %r" % bad))
rc, out = run("pecheck check --impl bf16-positions")
ok(rc == 1, "the quick tour's known-bad variant fails, exit 1")
PY
