#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# python-ctypes.sh — a call from Python into libc (ctypes: strlen): the
# native frames sit above the Python frame that called them (issue 24).
# In >= 90% of the samples in libc's strlen, the Python frame nearest to
# it is call_c, below it (nearer the root), and no Python frame is above
# it; and call_c sits on <module>.
. "$top_srcdir/tests/lib.sh"
require_bpf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "$PY (Debian package python3.11) is not installed"
T=$(mktemp -d) || fail mktemp
P=
trap 'kill $P 2>/dev/null; rm -rf "$T"' EXIT

"$PY" "$top_srcdir/tests/workload/py-ctypes.py" 6 & P=$!
sleep 1
"$KPTOP" --batch --format speedscope -o "$T/c.json" -F 999 -d 3 -p "$P" 2>"$T/err" ||
	fail "kptop: $(tail -3 "$T/err")"
/usr/bin/python3 - "$T/c.json" "$P" <<'PYEOF' || fail "native frames of a ctypes call not above call_c"
import json, sys
doc = json.load(open(sys.argv[1]))
frames = doc["shared"]["frames"]
pid = int(sys.argv[2])
c = ok = 0
for prof in doc["profiles"]:
    if "(pid %d)" % pid not in prof["name"] or " thread " in prof["name"]:
        continue
    for stack, w in zip(prof["samples"], prof["weights"]):
        fs = [frames[i] for i in stack]
        ns = [f["name"] for f in fs]
        at = [k for k, n in enumerate(ns) if "strlen" in n]
        if not at:
            continue
        c += w
        py = [k for k, f in enumerate(fs) if f.get("file", "").endswith(".py")]
        below = [k for k in py if k < at[0]]
        if below and ns[below[-1]] == "call_c" and not [k for k in py if k > at[0]] \
                and "<module>" in ns[:below[-1]]:
            ok += w
print("ctypes: call_c below strlen in %.1f%% of its samples" % (100.0 * ok / c if c else 0))
sys.exit(not (c and ok >= 0.9 * c))
PYEOF
exit 0
