#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""unwind-seeds.py — make fuzz/corpus/unwind's seeds (format: fuzz/fuzz-unwind.c).

Each snapshot of tests/unwind-data (NAME.snap: the registers and stack of
samples of NAME, taken by tests/capture-regs) gives a seed of its first
sample with the CFI of NAME: .eh_frame_hdr and .eh_frame with a
PT_GNU_EH_FRAME segment and section headers (NAME-0), with the section
headers only (NAME-shdr: .eh_frame read without the search table) and
with the segment only (NAME-phdr). A binary built with its CFI in
.debug_frame only (the split-debugframe workload of a build dir) gives
NAME-debugframe, over split-nofp's first sample. Run by hand:

    python3 fuzz/unwind-seeds.py TOP_SRCDIR [BUILD_DIR]
"""
import os
import struct
import sys

NREGS = 17


def sections(elf):
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        end = elf.index(b"\0", stroff + h[0])
        out[elf[stroff + h[0]:end].decode()] = (h[3], h[4], h[5])  # addr, offset, size
    return out


def text_load(elf):
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        typ, flags, off, vaddr, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", elf, phoff + i * phentsize)
        if typ == 1 and flags & 1:
            return off, vaddr, filesz
    raise SystemExit("no executable PT_LOAD")


STACK_MAX = 4096  # bytes of the stack copy kept in a seed


def first_sample(snap, name):
    """base (start of NAME's code mapping), registers and stack (at most
    STACK_MAX bytes) of the first sample of a .snap text file."""
    lines = snap.decode().split("\n")
    base = regs = None
    for i, line in enumerate(lines):
        w = line.split()
        if w and w[0] == "map" and base is None and w[4].endswith("/" + name) and w[3] == "1000":
            base = int(w[1], 16)
        elif w and w[0] == "regs" and regs is None:
            regs = [int(x, 16) for x in w[1:]]
        elif w and w[0] == "stack":
            n, hexes, j = int(w[1]), "", i + 1
            while len(hexes) < 2 * n:
                hexes += lines[j].strip()
                j += 1
            return base, regs, bytes.fromhex(hexes)[:STACK_MAX]
    raise SystemExit("no sample in the snapshot of " + name)


def seed(base, regs, text, blob_vaddr, blob, hdr, eh, dbg, flags, stack):
    off, vaddr, size = text
    out = struct.pack("<Q%dQ" % NREGS, base, *regs)
    # the snapshot's mapping starts at file offset 0x1000 (its code segment)
    out += struct.pack("<QIQH", 0x1000 - off + vaddr, size, blob_vaddr, len(blob))
    out += struct.pack("<HHHHHB", hdr[0], hdr[1], eh[0], eh[1], len(dbg), flags)
    return out + blob + dbg + stack


def main():
    src = sys.argv[1]
    build = sys.argv[2] if len(sys.argv) > 2 else None
    corpus = os.path.join(src, "fuzz", "corpus", "unwind")
    samples = {}
    for name in ("split-nofp", "unwind-qsort", "unwind-deep", "unwind-leaf", "unwind-noret"):
        elf = open(os.path.join(src, "tests", "unwind-data", name), "rb").read()
        with open(os.path.join(src, "tests", "unwind-data", name + ".snap"), "rb") as f:
            samples[name] = first_sample(f.read(), name)
        base, regs, stack = samples[name]
        s = sections(elf)
        ha, ho, hs = s[".eh_frame_hdr"]
        ea, eo, es = s[".eh_frame"]
        blob = elf[ho:eo + es]
        hdr, eh = (0, hs), (ea - ha, es)
        text = text_load(elf)
        for suffix, flags in (("0", 7), ("shdr", 6), ("phdr", 1)):
            with open(os.path.join(corpus, "%s-%s" % (name, suffix)), "wb") as f:
                f.write(seed(base, regs, text, ha, blob, hdr, eh, b"", flags, stack))
    if build:
        elf = open(os.path.join(build, "tests", "workload", "split-debugframe"), "rb").read()
        da, do, ds = sections(elf)[".debug_frame"]
        base, regs, stack = samples["split-nofp"]
        with open(os.path.join(corpus, "split-debugframe"), "wb") as f:
            f.write(seed(base, regs, text_load(elf), 0, b"", (0, 0), (0, 0),
                         elf[do:do + ds], 0, stack))


if __name__ == "__main__":
    main()
