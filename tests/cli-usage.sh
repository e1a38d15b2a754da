#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cli-usage.sh — bad options and values: one clear line naming the
# option, exit status 2, before anything is loaded (so no root needed).
. "$top_srcdir/tests/lib.sh"
[ -x "$KPTOP" ] || fail "kptop binary not built: $KPTOP"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

# expect_usage WORD ARGS...: exit 2, exactly one line on stderr that
# names WORD, nothing on stdout.
expect_usage() {
	word=$1; shift
	"$KPTOP" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] || fail "kptop $*: exit $rc, expected 2 ($(cat "$tmp/err"))"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "kptop $*: expected one line, got: $(cat "$tmp/err")"
	grep -q -- "$word" "$tmp/err" || fail "kptop $*: message does not name $word: $(cat "$tmp/err")"
	[ ! -s "$tmp/out" ] || fail "kptop $*: wrote to stdout"
}

expect_usage --bogus --bogus
expect_usage -x -x
expect_usage -F -F 0
expect_usage -F -F abc
expect_usage -F -F 99999999
expect_usage -d --batch -d 0
expect_usage -d --batch -d -1
expect_usage -d --batch -d 2x
expect_usage -n --batch -n x
expect_usage --format --batch --format png
expect_usage --field-separator --batch --field-separator x
expect_usage --field-separator --batch --field-separator .
expect_usage --field-separator --batch --field-separator ',,'
expect_usage --field-separator --batch --format json --field-separator ,
expect_usage --field-separator --field-separator ,
expect_usage --folded-pid --batch --folded-pid
expect_usage --folded-pid --folded-pid --format folded
expect_usage --annotate --annotate main
expect_usage --annotate --batch --annotate main --format folded
expect_usage --annotate --batch --annotate ''
expect_usage --unwind --unwind lbr
expect_usage "'bogus' for -e" -e bogus
expect_usage "'' for -e: .*page-faults" --event ''
expect_usage -c -c 0
expect_usage -c -c 12x
expect_usage "-F and -c" -F 99 -c 1000
expect_usage "-e and -c" -i /nonexistent -e page-faults
expect_usage -p -p 12,,3
expect_usage -p -p abc
expect_usage -p -p 0
expect_usage --cpu-buffer --cpu-buffer 12Q
expect_usage --queue-limit --queue-limit 0
expect_usage --stack-bytes --stack-bytes 1000000
expect_usage --max-nodes --max-nodes -5
expect_usage --spool --spool x
expect_usage --window --window 0
expect_usage --user-only --user-only --kernel-only
expect_usage -d --batch -d
expect_usage extra --batch extra
# Targets that do not exist are usage errors too, found before loading.
expect_usage "no process" --batch -p 2147483647
expect_usage --cgroup --batch --cgroup /nonexistent/kptop-cgroup
expect_usage -o -o /tmp/x
expect_usage -i -i /tmp/x -w /tmp/y
expect_usage "one file per report" --batch -n 2 --format svg

# A frequency over the kernel's limit is a usage error too, with the limit.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 0)
if [ "$max" -gt 0 ] && [ "$max" -lt 1000000 ]; then
	expect_usage perf_event_max_sample_rate --batch -F $((max + 1))
fi

# --help and --version succeed on stdout.
"$KPTOP" --help >"$tmp/out" 2>&1 || fail "--help exit $?"
grep -q -- --batch "$tmp/out" || fail "--help does not list --batch"
"$KPTOP" -V >"$tmp/out" 2>&1 || fail "-V exit $?"
grep -q '^kptop [0-9]' "$tmp/out" || fail "-V printed: $(cat "$tmp/out")"
echo ok
