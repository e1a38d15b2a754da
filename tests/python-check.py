# SPDX-License-Identifier: GPL-2.0-only
# python-check.py WHAT FILE PID [NAMES]: checks a speedscope profile
# (kptop --format speedscope) of tests/workload/py-split.py running as PID:
# hot_a/hot_b/hot_c within 3 points of the split the workload measured
# of itself (the file SPLIT_TRUTH names, written by py-split.py); without
# one, of the nominal 50/30/20, or within 5 standard errors of a sample
# share where n samples make 3 points too tight (a share of n samples is
# binomial; 4.6 points for 50% of 3,000), whole Python chains
# (main thread: the native main, Py_BytesMain or __libc_start_call_main
# below <module>; other threads: the native start_thread below
# Thread._bootstrap) under >= 95% of their samples, no
# interpreter loop frame left, and the hot loop's line (the two lines from
# the one marked "the hot loop" in py-split.py) in >= 90% of spin's samples. NAMES: a file to write the
# frame names of PID into (sorted), to compare a replay with.
import json
import os
import sys

# The hot loop's lines: the one that says so and the next.
_src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workload", "py-split.py")
_at = [i + 1 for i, l in enumerate(open(_src)) if "# the hot loop" in l][0]
HOT_LINES = (_at, _at + 1)

what, path, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
ROOTS = {"main", "Py_BytesMain", "__libc_start_call_main"}
doc = json.load(open(path))
frames = doc["shared"]["frames"]
hot = {"hot_a": 0.0, "hot_b": 0.0, "hot_c": 0.0}
whole = total = spin = spin_ok = 0.0
period = 0.0
names = set()
bad = []
prefix = "(pid %d) thread " % pid
for prof in doc["profiles"]:
    at = prof["name"].find(prefix)
    if at < 0:
        continue
    tid = int(prof["name"][at + len(prefix):].split()[0])
    for stack, w in zip(prof["samples"], prof["weights"]):
        fs = [frames[i] for i in stack]
        ns = [f["name"] for f in fs]
        names.update("%s %s:%s" % (f["name"], f.get("file", ""), f.get("line", ""))
                     for f in fs if f.get("file", "").endswith(".py"))
        hit = [h for h in hot if h in ns]
        if not hit:
            continue
        hot[hit[0]] += w
        total += w
        period = w if not period else min(period, w)
        if "work" in ns and "_PyEval_EvalFrameDefault" not in ns:
            i = ns.index("work")
            if tid == pid:
                # main, or where it is not named (Debian's python3.11 has
                # no symbol for it) the native frames around it
                ok = "<module>" in ns[:i] and bool(
                    ROOTS & set(ns[:ns.index("<module>")]))
            else:
                b = [k for k in range(i) if ns[k].endswith("_bootstrap")]
                ok = bool(b) and "start_thread" in ns[:b[0]]
            whole += w if ok else 0
            if not ok and len(bad) < 3:
                bad.append(";".join(ns))
        for f in fs:
            if f["name"] == "spin":
                spin += w
                if f.get("file", "").endswith("py-split.py") and f.get("line") in HOT_LINES:
                    spin_ok += w
fail = []
if total <= 0:
    print("%s: no samples of hot_a/hot_b/hot_c for pid %d" % (what, pid))
    sys.exit(1)
n = total / period  # a stack's weight is its samples times the period
print("%s: %d samples of hot_a/hot_b/hot_c" % (what, n))
wants = {"hot_a": 50.0, "hot_b": 30.0, "hot_c": 20.0}
truth = os.environ.get("SPLIT_TRUTH")
if truth and os.path.exists(truth):
    ns = dict((l.split()[0], int(l.split()[1])) for l in open(truth) if l.strip())
    if sum(ns.values()) > 0:
        wants = dict((h, 100.0 * ns[h] / sum(ns.values())) for h in wants)
    else:
        truth = None
else:
    truth = None
for h, want in wants.items():
    share = 100 * hot[h] / total
    tol = 3.0 if truth else max(3.0, 5 * 100 * (want / 100 * (1 - want / 100) / n) ** 0.5)
    print("%s: %s %.1f%% (want %.1f%% +- %.1f, %s)" %
          (what, h, share, want, tol, "measured by the workload" if truth else "nominal"))
    if abs(share - want) > tol:
        fail.append(h)
print("%s: whole Python chains in %.1f%% of the samples" % (what, 100 * whole / total))
if whole < 0.95 * total:
    fail.append("chains: " + " | ".join(bad))
print("%s: the hot loop's line in %.1f%% of spin's samples" %
      (what, 100 * spin_ok / spin if spin else 0))
if spin_ok < 0.9 * spin or not spin:
    fail.append("lines")
if len(sys.argv) > 4:
    with open(sys.argv[4], "w") as out:
        out.write("\n".join(sorted(names)) + "\n")
if fail:
    print("%s: FAILED: %s" % (what, "; ".join(fail)))
    sys.exit(1)
