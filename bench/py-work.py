# SPDX-License-Identifier: GPL-2.0-only
# py-work.py N: a fixed amount of pure Python work (N rounds of three
# functions through distinct chains, as tests/workload/py-split.py but
# counted, not timed), then prints "wall=SECONDS" (bench/python-bench.sh).
import sys
import time


def spin(n):
    x = 0
    for i in range(n):
        x += i & 7
    return x


def hot_a():
    return spin(5000)


def hot_b():
    return spin(3000)


def hot_c():
    return spin(2000)


def path_b():
    return hot_b()


t0 = time.monotonic()
for _ in range(int(sys.argv[1])):
    hot_a()
    path_b()
    hot_c()
print("wall=%.4f" % (time.monotonic() - t0))
