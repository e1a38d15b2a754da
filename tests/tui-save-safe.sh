#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui-save-safe.sh — the live view's w key refuses, with a message naming
# the reason, every path where another user planted a link, a FIFO or a
# file (fs.protected_* sysctls at 0), keeps the view running, and then
# saves to a normal path. Root + BPF + tmux.
. "$top_srcdir/tests/lib.sh"
require_bpf
. "$top_srcdir/tests/tui-lib.sh"
. "$top_srcdir/tests/safewrite-lib.sh"
plant t

tui_start 200 50
keys "$KPTOP -d 0.5 -F 99; echo kptop-rc=\$?" Enter
tui_wait 'sampling' 10

# save_to PATH: w, the path, Enter.
save_to() {
	type_text 'w'
	tui_wait 'Save to: ' 3
	keys C-u
	type_text "$1"
	keys Enter
}
for c in "link:is a symbolic link; refusing" "dangling:is a symbolic link; refusing" \
	 "theirs:belongs to another user" "fifo:is a FIFO; refusing" \
	 "dir/t.out:symbolic link in a shared directory" "dev:is a character device"; do
	save_to "$S/t.${c%%:*}"
	tui_wait "save: $S/t.${c%%:*}: .*${c#*:}" 5
	sleep 0.3
done
screen | grep -q 'Saving' && fail "w: saving after a refusal"

save_to "$S/t.kps"
tui_wait 'Saving' 3
sleep 1
type_text 'w'
tui_wait "saved $S/t.kps" 10
[ "$(stat -c '%u %a' "$S/t.kps")" = "0 600" ] ||
	fail "w: $S/t.kps is $(stat -c '%u %a' "$S/t.kps"), want root's, 0600"
type_text 'q'
tui_wait 'kptop-rc=0' 5
untouched t
"$KPTOP" -i "$S/t.kps" --batch >/dev/null 2>"$SAFE_T/err" ||
	fail "w: the saved stream does not read back: $(cat "$SAFE_T/err")"
exit 0
