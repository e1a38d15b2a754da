#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# jit-maps.sh — perf maps as kptop meets them: three processes run code in
# anonymous memory (tests/workload/jitspin): one names it in a good map,
# one in a map after 3 junk lines, one through a symlink (refused). Every
# report says "read 2, refused 1, bad-lines 3" (text, a tree comment,
# json, a pprof comment; folded has no comments: standard error says it),
# the good maps name jit_spin_loop (in folded stacks as JIT code,
# jit_spin_loop_[j]), --annotate disassembles jit_spin_loop from the
# process's memory, its hot loop's dec/jne holding the samples, and a save
# (-w) read with -i after the process exited gives the same instructions
# (its CODE record), and the live view's header shows jit-refused and
# jit-bad-lines. A fourth process with a good map, not asked for with -p,
# is not read (its map would make it "read 3").
. "$top_srcdir/tests/lib.sh"
require_bpf
JS="$top_builddir/tests/workload/jitspin"
[ -x "$JS" ] || fail "workload not built: $JS"
[ "$(uname -m)" = x86_64 ] || skip "the jitspin workload is x86-64 code"
T=$(mktemp -d) || fail "mktemp"
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait
	rm -rf "$T"
}
trap cleanup EXIT

for mode in good junk link; do
	"$JS" $mode 90 >"$T/$mode.out" 2>&1 &
	PIDS="$PIDS $!"
done
P=$(echo $PIDS | tr ' ' ,)
"$JS" good 90 >"$T/other.out" 2>&1 &
PIDS="$PIDS $!"
for mode in good junk link other; do
	wait_ready "$T/$mode.out" "jitspin $mode"
done
NOTE='read 2, refused 1, bad-lines 3'

for fmt in text tree folded json pprof; do
	"$KPTOP" --batch -d 2 -p "$P" --format $fmt -o "$T/$fmt" 2>"$T/$fmt.err" ||
		fail "$fmt: exit $?: $(cat "$T/$fmt.err")"
done
grep -q "^jit maps: $NOTE\$" "$T/text" ||
	fail "text: no '$NOTE': $(grep '^jit' "$T/text")"
grep -q ' jit_spin_loop ' "$T/text" ||
	fail "text: the good maps do not name the code: $(head -20 "$T/text")"
grep -q "^# jit maps: $NOTE\$" "$T/tree" || fail "tree: no '# jit maps: $NOTE'"
grep -q '"jit_maps": {"read": 2, "refused": 1, "bad_lines": 3}' "$T/json" ||
	fail "json: $(grep jit_maps "$T/json")"
gzip -dc "$T/pprof" | grep -aq "jit maps: $NOTE" || fail "pprof: no comment '$NOTE'"
grep -q ';jit_spin_loop_\[j\] [0-9]*$' "$T/folded" ||
	fail "folded: jit_spin_loop not named, or not marked _[j]: $(grep jit_spin "$T/folded" | head -3)"
grep -q '1 refused .*3 bad lines' "$T/folded.err" ||
	fail "folded: standard error does not say it: $(cat "$T/folded.err")"

# Annotate: the JIT code read from the memory of a process of its own,
# then from the save once the process is gone.
"$JS" good 30 >"$T/annot.out" 2>&1 &
good=$!
PIDS="$PIDS $good"
wait_ready "$T/annot.out" "jitspin"
"$KPTOP" --batch -d 1.5 -p "$good" -w "$T/jit.kps" --annotate jit_spin_loop \
	>"$T/annot" 2>"$T/annot.err" || fail "--annotate: $(cat "$T/annot.err")"
sed -n 1,8p "$T/annot"
grep 'no disassembly' "$T/annot" && fail "the JIT code was not read"
awk '$2 ~ /^[0-9a-f]+:$/ && ($3 == "dec" || $3 == "jne") { hot += $1 }
	END { printf "dec + jne: %.2f%%\n", hot; exit hot < 90 }' "$T/annot" ||
	fail "the samples are not on the loop's dec and jne"
kill "$good"
wait "$good" 2>/dev/null
"$KPTOP" --batch -i "$T/jit.kps" --annotate jit_spin_loop >"$T/replay" 2>"$T/replay.err" ||
	fail "-i --annotate: $(cat "$T/replay.err")"
grep -E '^ +[0-9.]+ +[0-9a-f]+:  ' "$T/annot" >"$T/annot.insn"
grep -E '^ +[0-9.]+ +[0-9a-f]+:  ' "$T/replay" >"$T/replay.insn"
[ -s "$T/annot.insn" ] && cmp -s "$T/annot.insn" "$T/replay.insn" ||
	fail "the replay's instructions differ: $(diff "$T/annot.insn" "$T/replay.insn" | head -5)"

# The live view's header.
command -v tmux >/dev/null 2>&1 || { echo "ok (tmux missing: live view not checked)"; exit 0; }
. "$top_srcdir/tests/tui-lib.sh"
trap 'tui_cleanup; cleanup' EXIT	# tui-lib.sh set its own: keep ours too
tui_start 200 50
keys "$KPTOP -d 0.5 -p $P; echo kptop-rc=\$?" Enter
tui_wait 'jit-refused 1( |$)' 15
tui_wait 'jit-bad-lines 3( |$)' 5
type_text 'q'
tui_wait 'kptop-rc=0' 5
echo ok
