#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# churn-load.sh — start short processes without end, as a busy machine
# does: a shell running /bin/true 200 times, a small compiled program
# (cc given as $1, else /bin/true), a python3 one-liner; stop it with a
# signal to its process group (its pid, written to $CHURN_PIDFILE when
# set: run it under setsid). Used by churn-soak.sh.
prog=${1:-/bin/true}
# the caller kills the process group: say which (setsid may have forked)
[ -n "${CHURN_PIDFILE:-}" ] && echo $$ > "$CHURN_PIDFILE"
while :; do
	sh -c 'for i in $(seq 200); do /bin/true; done'
	for i in 1 2 3 4 5 6 7 8 9 10; do "$prog"; done
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import sys; sum(range(1000))'
	fi
done
