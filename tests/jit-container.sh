#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# jit-container.sh — the perf map of a process in its own pid and mount
# namespace (unshare, a tmpfs over its /tmp) is read from its root under
# its namespace pid: tests/workload/jitcall runs as PID 1 there and writes
# /tmp/perf-1.map; the host's /tmp/perf-HOSTPID.map is a decoy naming the
# same code otherwise. Its jitdump alone (/tmp/jit-1.dump, mapped) is
# read through /proc/PID/map_files. Then a symlink planted in the
# container's /tmp as its map is refused (counted), never followed.
# jitcall runs from a copy in the container's /tmp, as a container's own
# binary would (and the build tree may itself be under the host's /tmp,
# which the container's tmpfs hides: make distcheck builds there).
. "$top_srcdir/tests/lib.sh"
require_bpf
command -v unshare >/dev/null || skip "unshare (util-linux) not installed"
[ "$(uname -m)" = x86_64 ] || skip "the jitcall workload is x86-64 code"
WL=$top_builddir/tests/workload/jitcall
[ -x "$WL" ] || fail "workload not built: $WL"
CWL=/tmp/kp-jitcall	# its path in the container
T=$(mktemp -d) || fail mktemp
upid= wpid=
cleanup() {
	# PID 1 of its namespace: only SIGKILL ends it from here
	[ -n "$wpid" ] && kill -9 "$wpid" 2>/dev/null
	[ -n "$upid" ] && { kill -9 "$upid" 2>/dev/null; wait "$upid" 2>/dev/null; }
	[ -n "$wpid" ] && rm -f "/tmp/perf-$wpid.map"
	rm -rf "$T"
}
trap cleanup EXIT

# start_ns MODE: jitcall in new namespaces; its host pid in $wpid.
# MODE map, dump: jitcall writes only its perf map, only its jitdump;
# link: its map replaced by a symlink to a file that names the code too.
start_ns() {
	# the binary is copied from fd 3, opened before the tmpfs hides it
	setup="mount -t tmpfs kp-jitns /tmp && cat <&3 >$CWL && chmod 755 $CWL && exec 3<&-"
	if [ "$1" = link ]; then
		cmd="$setup && { $CWL 20 map & p=\$!;
			while [ ! -s /tmp/perf-\$p.map ]; do sleep 0.05; done;
			mv /tmp/perf-\$p.map /tmp/real.map && ln -s real.map /tmp/perf-\$p.map;
			echo linked; wait; }"
	else
		cmd="$setup && exec $CWL 20 $1"
	fi
	unshare -m -fp --mount-proc sh -c "$cmd" >"$T/ns.out" 2>&1 3<"$WL" &
	upid=$!
	i=0
	while :; do
		wpid=$(pgrep -f -n "^$CWL 20" 2>/dev/null)
		if [ -n "$wpid" ] && grep -q '^ready' "$T/ns.out" &&
		   { [ "$1" != link ] || grep -q '^linked' "$T/ns.out"; }; then
			break
		fi
		i=$((i + 1)); [ $i -lt 100 ] || fail "jitcall did not start: $(cat "$T/ns.out")"
		sleep 0.05
	done
	[ "$(readlink /proc/$wpid/ns/pid)" != "$(readlink /proc/self/ns/pid)" ] ||
		fail "jitcall is not in a pid namespace of its own"
}

start_ns map
grep -q '^ready 1$' "$T/ns.out" || fail "not PID 1 of its namespace: $(cat "$T/ns.out")"
ls "/proc/$wpid/root/tmp/perf-1.map" >/dev/null || fail "no map in the container's /tmp"
start=$(awk '{ print $1 }' "/proc/$wpid/root/tmp/perf-1.map")
printf '%s e jit_decoy\n' "$start" >"/tmp/perf-$wpid.map"
"$KPTOP" --batch -d 2 -p "$wpid" --format folded -o "$T/f" 2>"$T/f.err" ||
	fail "kptop: $(cat "$T/f.err")"
grep -q 'jit_tramp_\[j\]' "$T/f" ||
	fail "the container's map does not name the code: $(head -5 "$T/f")"
! grep -q jit_decoy "$T/f" || fail "the host's /tmp/perf-$wpid.map was read"
echo "map: named from /proc/$wpid/root/tmp/perf-1.map"
kill -9 "$wpid" 2>/dev/null
wait "$upid" 2>/dev/null
rm -f "/tmp/perf-$wpid.map"
upid= wpid=

# its jitdump only (/tmp/jit-1.dump in the container, mapped): read
# through /proc/PID/map_files, its source line shown
start_ns dump
"$KPTOP" --batch -d 2 -p "$wpid" --format speedscope -o "$T/s" 2>"$T/s.err" ||
	fail "kptop: $(cat "$T/s.err")"
grep -q '"name": "jit_tramp", "file": "jitcall.js"' "$T/s" ||
	fail "the container's jitdump does not name the code: $(grep -o '"name": "jit[^}]*}' "$T/s" | head -3)"
echo "dump: named from the mapped /tmp/jit-1.dump"
kill -9 "$wpid" 2>/dev/null
wait "$upid" 2>/dev/null
upid= wpid=

start_ns link
"$KPTOP" --batch -d 2 -p "$wpid" --format text -o "$T/t" 2>"$T/t.err" ||
	fail "kptop: $(cat "$T/t.err")"
grep -q '^jit maps: read 0, refused 1, ' "$T/t" ||
	fail "a symlinked map in the container was not refused: $(grep '^jit' "$T/t")"
! grep -q jit_tramp "$T/t" || fail "the symlinked map was followed"
echo "link: refused"
exit 0
