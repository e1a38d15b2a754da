#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# batch-annotate.sh — --batch --annotate on a workload with known answers
# (tests/workload/annospin.c): divloop's hottest source line is the line
# of its division (DIV_LINE) and its hottest instruction is within two
# instructions of the div; splitloop's two loops (LOOP_A, LOOP_B) share
# its samples 75/25 within 5 points; go tool pprof -list agrees on the
# hot line, and go tool pprof -disasm on the hot instruction (link-time
# addresses: the PIE here, and kp_spin of a shared library dlopened by
# tests/workload/dlopen-host); and a saved stream (-w) read with -i after
# the binary was deleted gives the same text, and pprof -list the same
# line (from the stream's CODE records). Root + BPF.
. "$top_srcdir/tests/lib.sh"
require_bpf
spin="$top_builddir/tests/workload/annospin"
src="$top_srcdir/tests/workload/annospin.c"
[ -x "$spin" ] || fail "workload not built: $spin"
T=$(mktemp -d /tmp/kp-annotate.XXXXXX) || fail "mktemp"
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$T"' EXIT
cp "$spin" "$T/annospin" || fail "cp"
"$T/annospin" 5 >"$T/spin.out" 2>&1 &
pid=$!
sleep 0.3
kill -0 "$pid" 2>/dev/null || fail "workload did not start: $(cat "$T/spin.out")"
"$KPTOP" --batch -d 3 -F 999 -p "$pid" -w "$T/run.kps" --annotate loop \
	>"$T/live.txt" 2>"$T/live.err" || fail "kptop --annotate: $(cat "$T/live.err")"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
cat "$T/live.txt"

div_line=$(grep -n '/\* DIV_LINE' "$src" | head -1 | cut -d: -f1)
decl_line=$(grep -n '^NOINL uint64_t divloop(' "$src" | head -1 | cut -d: -f1)
a_line=$(grep -n '/\* LOOP_A' "$src" | head -1 | cut -d: -f1)
b_line=$(grep -n '/\* LOOP_B' "$src" | head -1 | cut -d: -f1)

# section NAME: the lines of the function's annotation
section() {
	awk -v f="$1" '/^== / { on = ($2 == f) } on' "$T/live.txt"
}
section divloop >"$T/div.txt"
section splitloop >"$T/split.txt"
grep -q '^== divloop (annospin): [0-9]* samples' "$T/div.txt" || fail "no divloop section"
cat "$T/div.txt" "$T/split.txt" | grep 'no disassembly' && fail "the code was not read"

# the hottest source line of divloop is DIV_LINE
hot=$(awk '$2 ~ /^annospin\.c:[0-9]+$/ { split($2, a, ":"); if ($1 + 0 > best) { best = $1 + 0; l = a[2] } }
	END { print l }' "$T/div.txt")
[ "$hot" = "$div_line" ] || fail "divloop's hottest line is $hot, not the division's ($div_line)"

# its hottest instruction is within two instructions of the div
awk '$2 ~ /^[0-9a-f]+:$/ { n++; if ($1 + 0 > best) { best = $1 + 0; h = n }
	if ($3 == "div" || $3 == "idiv") d = n }
	END { if (!d) { print "no div instruction"; exit 1 }
	      diff = h > d ? h - d : d - h; printf "hottest instruction %d, div %d\n", h, d;
	      exit diff > 2 }' "$T/div.txt" || fail "divloop's hottest instruction is not at its div"

# splitloop's loops: 75/25 within 5 points
awk -v a="$a_line" -v b="$b_line" '$2 ~ /^annospin\.c:[0-9]+$/ { split($2, x, ":");
		if (x[2] == a) pa = $1; if (x[2] == b) pb = $1 }
	END { if (pa + pb <= 0) { print "no LOOP_A/LOOP_B lines"; exit 1 }
	      s = 100 * pa / (pa + pb); printf "LOOP_A %.1f%% of the two loops (want 75)\n", s;
	      exit (s < 70 || s > 80) }' "$T/split.txt" || fail "splitloop's two loops are not 75/25"

# pprof_list WHAT: a pprof report of the saved stream, and go tool pprof
# -list divloop on it: DIV_LINE has the most samples, its share of
# divloop's within a point of annotate's; -raw gives divloop the first
# line of its definition (Function.start_line, "s=").
pprof_list() {
	"$KPTOP" --batch -i "$T/run.kps" --format pprof -o "$T/cpu.pb.gz" 2>"$T/pp.err" ||
		fail "pprof report: $(cat "$T/pp.err")"
	"$go" tool pprof -raw "$T/cpu.pb.gz" >"$T/raw" 2>"$T/raw.err" ||
		fail "go tool pprof -raw ($1): $(cat "$T/raw.err")"
	grep -Eq " divloop [^ ]*annospin\.c:[0-9]+ s=$decl_line\$" "$T/raw" ||
		fail "pprof ($1): divloop's start line is not $decl_line: $(grep -m3 ' divloop ' "$T/raw")"
	"$go" tool pprof -sample_index=samples -list '^divloop$' "$T/cpu.pb.gz" >"$T/list" 2>"$T/list.err" ||
		fail "go tool pprof -list ($1): $(cat "$T/list.err")"
	cat "$T/list"
	want=$(awk -v l="$div_line" '$2 == "annospin.c:" l { print $1; exit }' "$T/div.txt")
	awk -v l="$div_line" -v want="$want" -v what="$1" '
		$3 ~ /^[0-9]+:/ { n = $3; sub(/:.*/, "", n); v = ($1 == ".") ? 0 : $1 + 0;
			tot += v; if (v > best) { best = v; bl = n } if (n == l) got = v }
		END { if (tot <= 0) { print "pprof -list (" what "): no samples"; exit 1 }
		      p = 100 * got / tot; printf "pprof -list (%s): line %s hottest, DIV_LINE %.2f%% (annotate %.2f%%)\n", what, bl, p, want;
		      exit (bl != l || p - want > 1 || want - p > 1) }' "$T/list" ||
		fail "pprof -list ($1) does not agree with annotate on divloop's hot line"
}

# pprof_disasm FILE FUNC INSN N: go tool pprof -disasm FUNC on FILE: the
# routine FUNC has samples at its instructions, all of its flat samples,
# and its hottest instruction is within N of the first INSN.
pprof_disasm() {
	"$go" tool pprof -sample_index=samples -disasm "$2" "$1" >"$T/disasm" 2>"$T/disasm.err" ||
		fail "go tool pprof -disasm $2: $(cat "$T/disasm.err")"
	awk -v f="$2" '/^ROUTINE/ { on = ($3 == f) } on' "$T/disasm" >"$T/routine"
	cat "$T/routine"
	awk -v insn="$3" -v within="$4" '
		NR == 2 { flat = $1 + 0 }
		$3 ~ /^[0-9a-f]+:$/ { n++; v = ($1 == ".") ? 0 : $1 + 0; sum += v
			if (v > best) { best = v; h = n } if ($4 == insn && !d) d = n }
		END { if (!d) { print "no " insn " instruction"; exit 1 }
		      diff = h > d ? h - d : d - h
		      printf "pprof -disasm: %d of %d flat samples at instructions, hottest %d, %s %d\n", sum, flat, h, insn, d
		      exit (flat <= 0 || sum != flat || diff > within) }' "$T/routine" ||
		fail "go tool pprof -disasm $2: no samples at its instructions, or not at $3"
}

go=$(command -v go || ls /usr/lib/go/bin/go 2>/dev/null) || go=
if [ -z "$go" ]; then
	echo "note: go (golang-go) is not installed: pprof -list and -disasm not checked"
else
	pprof_list "the binary here"
	pprof_disasm "$T/cpu.pb.gz" divloop DIVQ 2
	# a shared library: kp_spin's loop, 7 instructions from its multiply
	host="$top_builddir/tests/workload/dlopen-host"
	lib="$top_builddir/tests/workload/.libs/libkpspin.so"
	[ -f "$lib" ] || lib="$top_builddir/tests/workload/libkpspin.so"
	[ -x "$host" ] && [ -f "$lib" ] || fail "not built: $host, $lib"
	cp "$lib" "$T/libkpspin.so" || fail "cp"
	"$host" "$T/libkpspin.so" 0 2.5 >"$T/host.out" 2>&1 &
	pid=$!
	sleep 0.3
	"$KPTOP" --batch -d 1.5 -F 999 -p "$pid" --format pprof -o "$T/lib.pb.gz" \
		>"$T/lib.out" 2>"$T/lib.err" || fail "kptop on dlopen-host: $(cat "$T/lib.err")"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
	pprof_disasm "$T/lib.pb.gz" kp_spin IMULQ 6
fi

# the saved stream, the binary gone: the same text
rm -f "$T/annospin"
"$KPTOP" --batch -i "$T/run.kps" --annotate loop >"$T/replay.txt" 2>"$T/replay.err" ||
	fail "kptop -i --annotate: $(cat "$T/replay.err")"
diff -u "$T/live.txt" "$T/replay.txt" || fail "the replay's annotation differs from the live one"
# ... and pprof's lines come from the stream's CODE records
[ -z "$go" ] || pprof_list "the binary deleted"

echo "ok: annotate's lines, instructions, replay and pprof -list"
