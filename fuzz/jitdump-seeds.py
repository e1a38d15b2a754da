#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""jitdump-seeds.py — writes the seed corpus of fuzz/fuzz-jitdump.c into
fuzz/corpus/jitdump/ (run from the source tree's top): valid dumps with
code load, move, debug info, unwinding info and close records, and
damaged ones (bad magic, foreign byte order, truncated records, sizes
past the file, names without their NUL, debug entries that do not fit)."""
import os
import struct

OUT = "fuzz/corpus/jitdump"


def header(version=1, size=40, magic=0x4A695444):
    return struct.pack("<IIIIIIQQ", magic, version, size, 62, 0, 1234, 1, 0)


def prefix(rid, size):
    return struct.pack("<IIQ", rid, size, 2)


def load(addr, code, name, index):
    body = struct.pack("<IIQQQQ", 1234, 1234, addr, addr, len(code), index)
    body += name + b"\0" + code
    return prefix(0, 16 + len(body)) + body


def move(old, new, size, index):
    body = struct.pack("<IIQQQQQ", 1234, 1234, new, old, new, size, index)
    return prefix(1, 16 + len(body)) + body


def debug(addr, entries):
    body = struct.pack("<QQ", addr, len(entries))
    for a, line, name in entries:
        body += struct.pack("<Qii", a, line, 0) + name + b"\0"
    return prefix(2, 16 + len(body)) + body


def unwind(data, hdr=b"", total=None, hdr_size=None):
    """An unwinding info record: .eh_frame data, then its .eh_frame_hdr."""
    size = len(data) + len(hdr) if total is None else total
    hsize = len(hdr) if hdr_size is None else hdr_size
    body = struct.pack("<QQQ", size, hsize, len(data) + len(hdr)) + data + hdr
    return prefix(4, 16 + len(body)) + body


# A CIE (CFA rsp + 8, the return address at CFA - 8) and an FDE for 16
# bytes of code at 0x5000, laid out at 0x5010 (after the code): CFA rsp +
# 32 from offset 4 on ("sub $24,%rsp").
EH = bytes([0x14, 0, 0, 0, 0, 0, 0, 0, 1, ord("z"), ord("R"), 0, 1, 0x78, 0x10, 1, 0x1b,
            0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0,
            0x14, 0, 0, 0, 0x1c, 0, 0, 0, 0xd0, 0xff, 0xff, 0xff, 16, 0, 0, 0,
            0, 0x44, 0x0e, 0x20, 0, 0, 0, 0])
EH_HDR = bytes([1, 0x1b, 0x03, 0x3b]) + struct.pack("<iIii", -52, 1, -64, -24)
FRAMELESS = bytes([0x48, 0x83, 0xec, 0x18] + [0x90] * 8 + [0x48, 0x83, 0xc4, 0x18])


def close():
    return prefix(3, 16)


CODE = bytes([0x55, 0x48, 0x89, 0xe5, 0xff, 0xd0, 0x5d, 0xc3])
GOOD = (header() +
        debug(0x1000, [(0x1000, 10, b"app.js"), (0x1004, 11, b"\xff")]) +
        load(0x1000, CODE, b"JS:*hot /srv/app.js:3:1", 1) +
        load(0x2000, CODE, b"jit_tramp", 2) +
        move(0x2000, 0x3000, len(CODE), 2) +
        unwind(b"\0" * 24) +
        load(0x1000, CODE, b"newer", 3) +
        close())

SEEDS = {
    "good": GOOD,
    "header-only": header(),
    "header-long": header(size=64) + b"\0" * 24 + load(0x1000, CODE, b"f", 1),
    "bad-magic": header(magic=0x12345678) + load(0x1000, CODE, b"f", 1),
    "swapped": header(magic=0x4454694A),
    "bad-version": header(version=2),
    "truncated": GOOD[:-40],
    "size-too-small": header() + prefix(0, 8) + GOOD[40:],
    "size-past-end": header() + prefix(0, 0x7fffffff) + b"\0" * 32,
    "name-no-nul": header() + prefix(0, 16 + 40 + 4) +
                   struct.pack("<IIQQQQ", 1, 1, 0x1000, 0x1000, 8, 1) + b"abcd",
    "code-past-record": header() + load(0x1000, CODE, b"f", 1)[:-4],
    "debug-too-many": header() + prefix(2, 16 + 16) + struct.pack("<QQ", 0x1000, 1 << 40),
    "debug-same-first": header() + debug(0x1000, [(0x1000, 1, b"\xff")]) +
                        load(0x1000, CODE, b"f", 1),
    "move-unknown": header() + move(0x1000, 0x2000, 8, 99),
    "zero-size-code": header() + load(0x1000, b"", b"f", 1),
    "wrap": header() + load(0xfffffffffffffffc, CODE, b"w", 1),
    "unknown-type": header() + prefix(77, 24) + b"\0" * 8 + load(0x1000, CODE, b"f", 1),
    "unwind-eh-frame": header() + unwind(EH, EH_HDR) + load(0x5000, FRAMELESS, b"frameless", 1),
    "unwind-too-big": header() + unwind(EH, total=1 << 20) + load(0x5000, FRAMELESS, b"f", 1),
    "unwind-all-hdr": header() + unwind(b"", EH_HDR) + load(0x5000, FRAMELESS, b"f", 1),
    "unwind-hdr-past": header() + unwind(EH, hdr_size=len(EH) + 1) + load(0x5000, FRAMELESS, b"f", 1),
    "unwind-short": header() + prefix(4, 16 + 8) + b"\0" * 8 + load(0x5000, FRAMELESS, b"f", 1),
    "unwind-moved": header() + load(0x5000, FRAMELESS, b"f", 1) + unwind(EH) +
                    move(0x5000, 0x6000, 16, 1) + load(0x7000, FRAMELESS, b"g", 2),
}

os.makedirs(OUT, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
