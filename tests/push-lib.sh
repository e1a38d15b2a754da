# SPDX-License-Identifier: GPL-2.0-only
# push-lib.sh — helpers of the push tests (sourced after lib.sh): root +
# BPF and the split workload (batch-lib.sh), python3 for the receiver
# (tests/push-receiver.py, a stand-in for Pyroscope and Parca), go for
# `go tool pprof`.
. "$top_srcdir/tests/batch-lib.sh"

PY=/usr/bin/python3	# Debian's, never a pyenv shim
[ -x "$PY" ] || skip "python3 (/usr/bin/python3) is not installed: no push receiver"
GO=$(command -v go || ls /usr/lib/go/bin/go 2>/dev/null) ||
	skip "go (golang-go) is not installed: cannot run go tool pprof"
export HOME="$T/home" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=
mkdir -p "$HOME"
"$GO" version >/dev/null 2>&1 || skip "go cannot be run here"

RPID=
PORT=
push_cleanup() {
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null
	cleanup
}
trap push_cleanup EXIT

# start_receiver DIR [ARGS...]: the receiver in the background on
# 127.0.0.1 (the port in $PORT, or --port N again), saving into DIR.
start_receiver() {
	d=$1
	shift
	mkdir -p "$d"
	rm -f "$d/port"
	"$PY" "$top_srcdir/tests/push-receiver.py" "$d" "$@" 2>>"$d/stderr" &
	RPID=$!
	i=0
	while [ ! -s "$d/port" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "the receiver did not start: $(cat "$d/stderr")"
		kill -0 "$RPID" 2>/dev/null || fail "the receiver died: $(cat "$d/stderr")"
		sleep 0.05
	done
	PORT=$(cat "$d/port")
}

stop_receiver() {
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null && wait "$RPID" 2>/dev/null
	RPID=
}

# no_invalid DIR: the receiver refused nothing.
no_invalid() {
	[ ! -s "$1/invalid" ] || fail "the receiver refused profiles: $(head -5 "$1/invalid")"
}

# check_profile FILE: go tool pprof reads it (-raw: the labels of the
# workload's samples), and its hot_a/hot_b/hot_c are 50/30/20 within 3.
check_profile() {
	"$GO" tool pprof -raw "$1" >"$T/raw" 2>"$T/raw.err" ||
		fail "go tool pprof -raw $1: $(cat "$T/raw.err")"
	grep -q "pid:\[$SPID\]" "$T/raw" || fail "$1: no sample with pid $SPID"
	grep -q "comm:\[split-fp\]" "$T/raw" || fail "$1: no comm label"
	"$GO" tool pprof -top -nodecount=100000 -nodefraction=0 "$1" >"$T/top" \
		2>"$T/top.err" || fail "go tool pprof -top $1: $(cat "$T/top.err")"
	grep -q '^Type: cpu' "$T/top" || fail "$1: not a cpu profile: $(head -5 "$T/top")"
	awk '$6 ~ /^hot_[abc]$/ { sub(/%/, "", $2); print $6, $2 }' "$T/top" >"$T/shares"
	check_shares "$1" "$T/shares" 3
}

# The kptop command line of a push test: the workload only, every
# interval pushed, the spool in $T.
push_kptop() {
	"$KPTOP" --batch -p "$SPID" --push-spool "$T/spool" "$@"
}
