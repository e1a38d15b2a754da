#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# symbols-mntns.sh — a workload started under `unshare -fp --mount-proc`
# from a copy of its binary that exists only inside its private mount
# namespace (a tmpfs over a directory whose host version holds a different
# binary at the same path) is named from its own file. Needs root.
. "$top_srcdir/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (unshare, /proc/PID/map_files)"
command -v unshare >/dev/null || skip "unshare (util-linux) not installed"
fx="$top_builddir/tests/fixtures"
probe="$top_builddir/tests/symbols-probe"
d=$(mktemp -d /tmp/kp-mntns.XXXXXX) || fail "mktemp"
mkdir "$d/ns" && cp "$fx/fx-prog-pie" "$d/ref" || fail "setup"
# the host's file at the workload's path: a decoy with another layout
cp "$fx/fx-prog-nopie" "$d/ns/work" || fail "cp"
unshare -m -fp --mount-proc sh -c "mount -t tmpfs kp-mntns '$d/ns' &&
	cp '$fx/fx-prog-pie' '$d/ns/work' && exec '$d/ns/work' wait-mntns" &
upid=$!
wpid=
# the workload is PID 1 of its namespace: only SIGKILL ends it from here
trap 'if [ -n "$wpid" ]; then kill -9 $wpid 2>/dev/null; fi; kill -9 $upid 2>/dev/null; wait $upid 2>/dev/null; umount "$d/ns" 2>/dev/null; rm -rf "$d"' EXIT
i=0
while :; do
	wpid=$(pgrep -P $upid | head -n 1)
	if [ -n "$wpid" ] && grep -q "$d/ns/work" "/proc/$wpid/maps" 2>/dev/null; then
		break
	fi
	i=$((i + 1)); [ $i -lt 100 ] || fail "workload did not start"; sleep 0.05
done
[ -e "/proc/$wpid/root$d/ns/work" ] || fail "no /proc/PID/root view"
vaddr=$(nm "$d/ref" | awk '$3 == "kp_leaf" { print $1 }')
out=$("$probe" "$wpid" "$d/ns/work" "$d/ref" "$vaddr" kp_leaf) || fail "not named kp_leaf: $out"
echo "$out"
exit 0
