# SPDX-License-Identifier: GPL-2.0-only
# py-ctypes.py SECONDS: Python calling into libc through ctypes (strlen
# of a 16 MiB string from call_c) and running Python code (py_side), in
# turn, for SECONDS (tests/python-ctypes.sh).
import ctypes
import sys
import time

libc = ctypes.CDLL("libc.so.6")
buf = ctypes.create_string_buffer(b"x" * (16 << 20))


def call_c():
    return libc.strlen(buf)


def py_side():
    x = 0
    for i in range(20000):
        x += i & 7
    return x


deadline = time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline:
    call_c()
    py_side()
