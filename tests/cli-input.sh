#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cli-input.sh — `kptop -i` on good, damaged and unreadable streams, and
# sampling without rights: clear one-line messages and the documented
# exit statuses (0 ok, 3 no rights, 4 input unreadable or damaged, after
# the report of the records before the damage). Needs no BPF; the parts that need another uid run when
# root can switch to nobody (setpriv).
. "$top_srcdir/tests/lib.sh"
[ -x "$KPTOP" ] || fail "kptop binary not built: $KPTOP"
mk="$top_builddir/tests/mkstream"
[ -x "$mk" ] || fail "tests/mkstream not built"
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
"$mk" "$T/good.kps" || fail "mkstream failed"
size=$(wc -c <"$T/good.kps")

# expect STATUS FILE-OF-STDERR-LINES WORD -- ARGS: run kptop, check the
# status, the number of stderr lines and a word in them.
expect() {
	want=$1 lines=$2 word=$3; shift 4
	"$KPTOP" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = "$want" ] || fail "kptop $*: exit $rc, want $want: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" = "$lines" ] ||
		fail "kptop $*: want $lines line(s) on stderr, got: $(cat "$T/err")"
	[ -z "$word" ] || grep -q -- "$word" "$T/err" ||
		fail "kptop $*: stderr does not say '$word': $(cat "$T/err")"
}

# A good stream: names come from its SYMTAB (the file it names is absent).
expect 0 0 "" -- -i "$T/good.kps" --batch
grep -Eq '^ *50\.00 +50\.00 +50 +hot_a ' "$T/out" || fail "good stream: $(cat "$T/out")"
expect 0 0 "" -- -i "$T/good.kps" --batch --format folded
grep -qx 'synth;main;hot_c 20' "$T/out" || fail "folded: $(cat "$T/out")"

# --annotate of a stream with no CODE record whose binary is absent: the
# reason, then the sampled offsets; a name nothing matches: exit 1.
expect 0 0 "" -- -i "$T/good.kps" --batch --annotate hot_a
grep -q '^== hot_a (' "$T/out" || fail "annotate: no hot_a section: $(cat "$T/out")"
grep -q 'no disassembly: ' "$T/out" || fail "annotate: no reason: $(cat "$T/out")"
grep -Eq '^ *[0-9.]+ +\+0x[0-9a-f]+$' "$T/out" || fail "annotate: no offsets: $(cat "$T/out")"
expect 1 1 "no function with samples" -- -i "$T/good.kps" --batch --annotate no_such_fn

# A file of version 1.1 (no blocks, no END record; written by kptop 0.1.0
# before minor 2) still reads, the same as today's.
expect 0 0 "" -- -i "$top_srcdir/tests/fixtures/stream-v1.1.kps" --batch
grep -Eq '^ *50\.00 +50\.00 +50 +hot_a ' "$T/out" || fail "v1.1 stream: $(cat "$T/out")"

# Cut in the END record's block: every sample is kept, a warning names
# the offset, exit 4 after the report.
head -c $((size - 5)) "$T/good.kps" >"$T/cut.kps"
expect 4 1 "damaged at byte " -- -i "$T/cut.kps" --batch
grep -q 'samples 100' "$T/out" || fail "cut stream lost samples: $(cat "$T/out")"
grep -q "$T/cut.kps" "$T/err" || fail "warning does not name the file"

# Cut in the middle of the samples: the records before it are reported.
head -c $((size / 2)) "$T/good.kps" >"$T/half.kps"
expect 4 1 "damaged at byte " -- -i "$T/half.kps" --batch --format json
grep -q '"samples": [1-9]' "$T/out" || fail "half stream: no samples: $(cat "$T/out")"

# One changed byte in a sample: its block fails its checksum; no record
# of the block is used (here the whole file: nothing could be read).
cp "$T/good.kps" "$T/flip.kps"
printf '\001' | dd of="$T/flip.kps" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect 4 2 "fails its checksum" -- -i "$T/flip.kps" --batch

# Damage in the first record: nothing could be read.
head -c 16 "$T/good.kps" >"$T/bad1.kps"
printf '\377\377\377\377\377\377\377\377' >>"$T/bad1.kps"
tail -c +25 "$T/good.kps" >>"$T/bad1.kps"
"$KPTOP" -i "$T/bad1.kps" --batch >"$T/out" 2>"$T/err"
[ $? = 4 ] || fail "damaged first record: exit $?, want 4: $(cat "$T/err")"
grep -q "byte 16" "$T/err" || fail "damaged first record: $(cat "$T/err")"

# Not a stream, empty, missing, a directory: exit 4, one line naming it.
printf 'this is not a kptop stream at all\n' >"$T/text.kps"
expect 4 1 "not a kptop stream" -- -i "$T/text.kps" --batch
: >"$T/empty.kps"
expect 4 1 "empty.kps" -- -i "$T/empty.kps" --batch
expect 4 1 "cannot open" -- -i "$T/missing.kps" --batch
expect 4 1 "not a regular file" -- -i "$T" --batch

# An unwritable -o: a runtime error (1) before anything is read.
expect 1 1 "cannot create" -- -i "$T/good.kps" --batch -o "$T/no/such/dir/out"

# -o creates the report with mode 0600.
expect 0 0 "" -- -i "$T/good.kps" --batch -o "$T/report.txt"
[ "$(stat -c %a "$T/report.txt")" = 600 ] || fail "-o file mode $(stat -c %a "$T/report.txt")"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
	# Another user's stream is refused without --force.
	chmod 644 "$T/good.kps"
	asnobody "$KPTOP" -i "$T/good.kps" --batch >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = 4 ] || fail "other user's file: exit $rc, want 4: $(cat "$T/err")"
	grep -q -- "--force" "$T/err" || fail "refusal does not mention --force: $(cat "$T/err")"
	asnobody "$KPTOP" -i "$T/good.kps" --batch --force >"$T/out" 2>"$T/err" ||
		fail "--force: exit $?: $(cat "$T/err")"
	# Sampling without rights: exit 3, one line naming what is missing.
	asnobody "$KPTOP" --batch -d 1 >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = 3 ] || fail "no rights: exit $rc, want 3: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "no rights: $(cat "$T/err")"
	grep -q "CAP_BPF" "$T/err" || fail "no rights: $(cat "$T/err")"
elif [ "$(id -u)" != 0 ]; then
	"$KPTOP" --batch -d 1 >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = 3 ] || fail "no rights: exit $rc, want 3: $(cat "$T/err")"
fi
echo ok
