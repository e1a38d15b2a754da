# SPDX-License-Identifier: GPL-2.0-only
# py-deep.py — Python frames deeper than kptop's BPF walk reads (127):
# leaf() runs at the bottom of a 200-deep recursion of down(), for
# SECONDS (argv[1]). Used by tests/python-deep.sh.
import sys
import time

sys.setrecursionlimit(10000)


def leaf():
    s = 0
    for i in range(20000):
        s += i
    return s


def down(n):
    if n == 0:
        return leaf()
    return down(n - 1)


end = time.time() + float(sys.argv[1])
while time.time() < end:
    down(200)
