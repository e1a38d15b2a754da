# SPDX-License-Identifier: GPL-2.0-only
# py-split.py SECONDS [THREADS]: CPU time split 50/30/20 between hot_a,
# hot_b and hot_c (5000, 3000 and 2000 rounds of one loop), reached
# through distinct Python call chains, in the main thread and THREADS - 1
# (default 1) more (tests/python-*.sh).
import sys
import threading
import time


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


def work(deadline):
    while time.monotonic() < deadline:
        path_a()
        path_b1()
        path_c()


deadline = time.monotonic() + float(sys.argv[1])
threads = [threading.Thread(target=work, args=(deadline,))
           for _ in range(int(sys.argv[2]) - 1 if len(sys.argv) > 2 else 1)]
for t in threads:
    t.start()
work(deadline)
for t in threads:
    t.join()
