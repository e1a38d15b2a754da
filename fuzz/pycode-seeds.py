# SPDX-License-Identifier: GPL-2.0-only
# pycode-seeds.py DIR: seeds of fuzz/fuzz-pycode.c, run with CPython 3.11:
# the memory of a process holding one code object as 3.11 lays it out
# (src/symbols/pylayout.c), its qualified name, file name (ASCII, and a
# Latin-1 one) and the real line table of a function of this file; then
# the same with its pointers out of bounds, and a cut line table; and one
# with a 3.13 _Py_DebugOffsets at 0x2000 that gives the code object's
# offsets (fuzz-pycode.c reads it again with them).
import struct
import sys


def sample(n):
    total = 0
    for i in range(n):
        if i % 3:
            total += i
        else:
            total -= 1
    return total


def ascii_str(s):
    b = s.encode()
    # ob_refcnt, ob_type, length, hash, state (compact, ascii, kind 1, ready)
    head = struct.pack("<QQqqI4xQ", 1, 0, len(b), -1, 1 << 7 | 1 << 6 | 1 << 5 | 1 << 2, 0)
    return head + b + b"\0"


def latin1_str(s):
    b = s.encode("latin-1")
    head = struct.pack("<QQqqI4xQ", 1, 0, len(b), -1, 1 << 7 | 1 << 5 | 1 << 2, 0)
    return head + struct.pack("<qQq", 0, 0, 0) + b + b"\0"


def bytes_obj(b):
    return struct.pack("<QQqq", 1, 0, len(b), -1) + b + b"\0"


def image(qual, fname, table, first, bad=0):
    code = 0x100
    objs = {"q": qual, "f": fname, "t": bytes_obj(table)}
    at, addr, blob = 0x400, {}, b""
    for k, v in objs.items():
        addr[k] = at + len(blob)
        blob += v + b"\0" * (-len(v) % 16)
    hdr = bytearray(184)
    struct.pack_into("<i", hdr, 72, first)
    struct.pack_into("<Q", hdr, 112, addr["f"] + bad)
    struct.pack_into("<Q", hdr, 128, addr["q"])
    struct.pack_into("<Q", hdr, 136, addr["t"])
    mem = bytearray(0x400) + blob
    mem[code:code + 184] = hdr
    return struct.pack("<I", code) + bytes(mem)


def debug_offsets(img):
    # _Py_DebugOffsets (3.13) as 64-bit words; sizes before each part's
    # fields; the code object's offsets are image()'s (3.11's)
    w = [0] * 73
    w[1] = 0x030D00F0
    for i in (3, 6, 19, 28, 34, 67):
        w[i] = 0x400
    w[5], w[9], w[21], w[23], w[25] = 40, 16, 8, 72, 160
    w[29], w[30], w[31], w[33] = 8, 0, 56, 70
    w[35], w[37], w[38], w[39], w[43] = 112, 128, 136, 72, 184
    w[70] = 48
    mem = bytearray(img[4:])
    mem += b"\0" * (0x2000 - len(mem))
    return img[:4] + bytes(mem[:0x2000]) + b"xdebugpy" + struct.pack("<72Q", *w[1:])


def main():
    out = sys.argv[1]
    c = sample.__code__
    t = c.co_linetable
    seeds = {
        "code-ascii": image(ascii_str(c.co_qualname), ascii_str(c.co_filename), t,
                            c.co_firstlineno),
        "code-latin1": image(ascii_str("Klasse.größe"[:6]), latin1_str("/tmp/größe.py"), t, 10),
        "code-bad-pointer": image(ascii_str("f"), ascii_str("/a.py"), t, 1, bad=1 << 40),
        "code-cut-table": image(ascii_str("g"), ascii_str("/b.py"), t[:len(t) // 2 + 1], 3),
        "table-only": struct.pack("<I", 0xffffff) + t,
    }
    seeds["debug-offsets-313"] = debug_offsets(seeds["code-ascii"])
    for name, data in seeds.items():
        with open("%s/%s" % (out, name), "wb") as f:
            f.write(data)


main()
