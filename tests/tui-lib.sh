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
