## src/symbols/ — DWARF CFI unwinding (unwind.h); adds to libkpsymbols.a.
