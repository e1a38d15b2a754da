# SPDX-License-Identifier: GPL-2.0-only
# tui-lib.sh — helpers for the tmux tests of the live view (sourced after
# lib.sh). Every test gets a private tmux server (-L kptop-test-PID) with
# one detached session "t" running a plain sh, killed on exit by a trap.
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (Debian package tmux)"

unset TMUX	# our own server, even when make check runs inside tmux
TUI_SOCK="kptop-test-$$"
TUI_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kptop-tui.XXXXXX") || fail "mktemp"
TUI_PIDS=""

tui_cleanup() {
	tmux -L "$TUI_SOCK" kill-server 2>/dev/null
	for p in $TUI_PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$TUI_TMP"
}
trap tui_cleanup EXIT
trap 'exit 1' INT TERM

tmx() { tmux -L "$TUI_SOCK" "$@"; }

# tui_start W H: the session, a shell with a known prompt.
tui_start() {
	tmx -f /dev/null new-session -d -s t -x "$1" -y "$2" \
		"env PS1='tui-test\$ ' TERM=screen-256color LANG=C.UTF-8 sh" ||
		fail "cannot start tmux"
	tmx set-option -t t status off >/dev/null
	tmx set-window-option -t t aggressive-resize on >/dev/null 2>&1
	tui_wait 'tui-test\$' 5
}

screen() { tmx capture-pane -p -t t; }
keys() { tmx send-keys -t t "$@"; }
type_text() { tmx send-keys -t t -l "$1"; }

# tui_wait PATTERN [SECONDS]: until the pane shows an extended regex.
tui_wait() {
	n=$(( ${2:-10} * 5 ))
	while [ "$n" -gt 0 ]; do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.2
		n=$((n - 1))
	done
	echo "---- screen ----" >&2
	screen >&2
	fail "timed out after ${2:-10}s waiting for: $1"
}

# tui_gone PATTERN [SECONDS]: until the pane no longer shows it.
tui_gone() {
	n=$(( ${2:-10} * 5 ))
	while [ "$n" -gt 0 ]; do
		screen | grep -Eq -- "$1" || return 0
		sleep 0.2
		n=$((n - 1))
	done
	screen >&2
	fail "still on screen after ${2:-10}s: $1"
}

# The first N table rows (after the heading line).
table_top() {
	screen | awk -v n="$1" '/Self%/ { h = NR; next } h && NR <= h + n'
}

# Samples of function $1 in the flat view (third column), or empty.
samples_of() {
	screen | awk -v f="$1" '$4 == f { print $3; exit }'
}

# Total% of function $1 in the flat view (second column), or empty.
total_of() {
	screen | awk -v f="$1" '$4 == f { print $2; exit }'
}

# flame_boxes REGEX: the boxes of the first flame row matching REGEX
# (below the header and the heading: from the screen's 6th line), one
# "LABEL FROM TO" line each, in half cells, from the screen captured with
# its attributes (which tmux gives as changes, carried over from line to
# line) and trailing blanks: a half cell is filled when it has a
# background colour or reverse video, or is the filled half of U+258C /
# U+2590; a box is a run of filled half cells, and a '|' (the edge of a
# box without UTF-8) starts a new one. LABEL is the box's text without
# blanks ("-" when too narrow for one).
flame_boxes() {
	n=$(screen | awk -v re="$1" 'NR > 5 && $0 ~ re { print NR; exit }')
	[ -n "$n" ] || return 0
	tmx capture-pane -e -N -p -t t | head -n "$n" |
	sed -e 's/\xe2\x96\x8c/\x01/g' -e 's/\xe2\x96\x90/\x02/g' -e 's/\xe2\x80\xa6/~/g' \
	    -e 's/$/\x03/' -e 's/\x1b\[\([0-9;]*\)m/\n\x1b\1\n/g' |
	awk -v target="$n" '
	BEGIN { esc = sprintf("%c", 27); lh = sprintf("%c", 1); rh = sprintf("%c", 2)
		eol = sprintf("%c", 3); line = 1 }
	function half(f, ch) {
		if (line != target) return
		if (f && !open) { open = 1; from = pos; label = "" }
		if (!f && open) { open = 0; print (label == "" ? "-" : label), from, pos }
		if (f && ch != "" && ch != " ") label = label ch
		pos++
	}
	substr($0, 1, 1) == esc {
		k = split(substr($0, 2), a, ";")
		if (k == 0) { bg = 0; rev = 0 }
		for (i = 1; i <= k; i++) {
			c = a[i] + 0
			if (c == 0) { bg = 0; rev = 0 }
			else if (c == 7) rev = 1
			else if (c == 27) rev = 0
			else if (c == 49) bg = 0
			else if ((c >= 40 && c <= 47) || (c >= 100 && c <= 107)) bg = 1
			else if (c == 48) { bg = 1; i += a[i + 1] == 5 ? 2 : 4 }
			else if (c == 38) i += a[i + 1] == 5 ? 2 : 4
		}
		next
	}
	{
		for (j = 1; j <= length($0); j++) {
			ch = substr($0, j, 1)
			if (ch == eol) { if (line == target) half(0, ""); line++; pos = 0 }
			else if (ch == lh) { half(1, ""); half(0, "") }
			else if (ch == rh) { half(0, ""); half(1, "") }
			else if (ch == "|" && (bg || rev)) { half(0, ""); pos--; half(1, ""); half(1, "") }
			else { half(bg || rev, ch); half(bg || rev, "") }
		}
	}'
}
