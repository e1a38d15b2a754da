# SPDX-License-Identifier: GPL-2.0-only
# py-split.py SECONDS [THREADS]: CPU time split 50/30/20 between hot_a,
# hot_b and hot_c (5000, 3000 and 2000 rounds of one loop), reached
# through distinct Python call chains, in the main thread and THREADS - 1
# (default 1) more (tests/python-*.sh). With SPLIT_TRUTH set, the CPU time
# each chain really took (every thread's, time.thread_time_ns around its
# calls) is written there as "hot_a NS" lines every half second and at
# the end: the split the profile is checked against (tests/python-check.py).
import os
import sys
import threading
import time

TRUTH = os.environ.get("SPLIT_TRUTH")
took = []  # per thread: [hot_a, hot_b, hot_c] ns


def spin(n):
    x = 0
    for i in range(n):  # the hot loop (this line and the next)
        x += i & 7
    return x


def hot_a():
    return spin(5000)


def hot_b():
    return spin(3000)


def hot_c():
    return spin(2000)


def path_a():
    return hot_a()


def path_b1():
    return path_b2()


def path_b2():
    return hot_b()


def via_c():
    return hot_c()


def path_c():
    return via_c()


def write_truth():
    ns = [sum(t[i] for t in took) for i in range(3)]
    with open(TRUTH + ".tmp", "w") as f:
        f.write("hot_a %d\nhot_b %d\nhot_c %d\n" % tuple(ns))
    os.replace(TRUTH + ".tmp", TRUTH)


def work(deadline, main=False):
    mine = [0, 0, 0]
    took.append(mine)
    clock = time.thread_time_ns
    next_write = time.monotonic() + 0.5
    while True:
        now = time.monotonic()
        if now >= deadline:
            break
        if main and TRUTH and now >= next_write:
            write_truth()
            next_write = now + 0.5
        t0 = clock()
        path_a()
        t1 = clock()
        path_b1()
        t2 = clock()
        path_c()
        t3 = clock()
        mine[0] += t1 - t0
        mine[1] += t2 - t1
        mine[2] += t3 - t2


deadline = time.monotonic() + float(sys.argv[1])
threads = [threading.Thread(target=work, args=(deadline,))
           for _ in range(int(sys.argv[2]) - 1 if len(sys.argv) > 2 else 1)]
for t in threads:
    t.start()
work(deadline, main=True)
for t in threads:
    t.join()
if TRUTH:
    write_truth()
