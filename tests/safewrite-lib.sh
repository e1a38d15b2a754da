# SPDX-License-Identifier: GPL-2.0-only
# safewrite-lib.sh — helpers for the tests of kptop's checked writes
# (sourced after lib.sh, and after tui-lib.sh where a test uses both): as
# root, with fs.protected_symlinks, protected_regular and protected_fifos
# at 0 (restored on exit), a sticky world-writable directory $S like /tmp
# where nobody plants links, files and FIFOs, and root's directory $R.
[ "$(id -u)" = 0 ] || skip "needs root (another user's files, the fs.protected_* sysctls)"
[ -x "${KPTOP:-}" ] || fail "kptop binary not built: ${KPTOP:-unset}"
command -v setpriv >/dev/null 2>&1 || skip "needs setpriv (Debian package util-linux)"
command -v timeout >/dev/null 2>&1 || skip "needs timeout (Debian package coreutils)"
command -v flock >/dev/null 2>&1 || skip "needs flock (Debian package util-linux)"
# One such test at a time on the machine (make -j check, other checkouts):
# each restores the values it found, which must not be another's zeros.
exec 9</proc/sys/fs || skip "no /proc/sys/fs"
flock -w 600 9 || fail "another test held the lock on /proc/sys/fs for 10 minutes"

SAFE_T=$(mktemp -d) || fail "mktemp"
SAFE_OLD=""
safe_cleanup() {
	for kv in $SAFE_OLD; do
		echo "${kv#*=}" >"/proc/sys/fs/${kv%%=*}"
	done
	rm -rf "$SAFE_T"
	if command -v tui_cleanup >/dev/null 2>&1; then tui_cleanup; fi
}
trap safe_cleanup EXIT
for s in protected_symlinks protected_regular protected_fifos; do
	v=$(cat "/proc/sys/fs/$s" 2>/dev/null) || skip "no /proc/sys/fs/$s"
	SAFE_OLD="$SAFE_OLD $s=$v"
	echo 0 >"/proc/sys/fs/$s" 2>/dev/null || skip "cannot set fs.$s to 0"
done

asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
chmod 755 "$SAFE_T"
S="$SAFE_T/shared"
R="$SAFE_T/root"
mkdir -m 1777 "$S" && mkdir -m 755 "$R" || fail "mkdir"
chmod 1777 "$S"
printf 'precious\n' >"$R/precious" && chmod 640 "$R/precious" || fail "precious"

# plant P: nobody's hostile files in $S, one per case: P.link (to root's
# file), P.dangling (to a file root would create), P.theirs (0666),
# P.fifo, P.dir (a link to root's directory, for P.dir/P.out), and a null
# device P.dev (made by root: never point a test at /dev/null itself, a
# rename over it would replace the system's).
plant() {
	asnobody ln -s "$R/precious" "$S/$1.link" &&
	asnobody ln -s "$R/$1.created" "$S/$1.dangling" &&
	asnobody sh -c "umask 0; printf 'theirs\n' >'$S/$1.theirs'" &&
	asnobody mkfifo -m 666 "$S/$1.fifo" &&
	asnobody ln -s "$R" "$S/$1.dir" &&
	mknod -m 666 "$S/$1.dev" c 1 3 || fail "cannot plant the files of nobody"
}

# untouched P: nothing planted was written through, into or over.
untouched() {
	[ "$(cat "$R/precious")" = precious ] ||
		fail "$1: root's file behind the link was written: $(head -c 200 "$R/precious")"
	[ "$(stat -c %a "$R/precious")" = 640 ] ||
		fail "$1: root's file behind the link is now mode $(stat -c %a "$R/precious")"
	[ ! -e "$R/$1.created" ] || fail "$1: the dangling link's target was created"
	[ "$(cat "$S/$1.theirs")" = theirs ] || fail "$1: the other user's file was written"
	[ ! -e "$R/$1.out" ] || fail "$1: written through the directory link"
	[ -L "$S/$1.link" ] && [ -L "$S/$1.dangling" ] && [ -p "$S/$1.fifo" ] &&
		[ -L "$S/$1.dir" ] && [ -c "$S/$1.dev" ] || fail "$1: a planted file was replaced: $(ls -l "$S")"
	! ls -a "$S" "$R" | grep -q '\.tmp' || fail "$1: a temporary file was left: $(ls -a "$S" "$R")"
}

# refused WHAT WORD ARGS...: kptop ARGS exits 1 within 60 s (opening a
# FIFO would hang it) with one line on stderr that says WORD.
refused() {
	what=$1 word=$2; shift 2
	timeout 60 "$KPTOP" "$@" >"$SAFE_T/out" 2>"$SAFE_T/err"
	rc=$?
	[ "$rc" != 124 ] || fail "$what: kptop hung (killed after 60 s)"
	[ "$rc" = 1 ] || fail "$what: exit $rc, want 1: $(cat "$SAFE_T/err")"
	[ "$(wc -l <"$SAFE_T/err")" = 1 ] ||
		fail "$what: want one line on stderr, got: $(cat "$SAFE_T/err")"
	grep -q -- "$word" "$SAFE_T/err" ||
		fail "$what: stderr does not say '$word': $(cat "$SAFE_T/err")"
}

# refuse_all P ARGS...: every planted case of P, as the last argument.
refuse_all() {
	p=$1; shift
	refused "$p: link to root's file" "is a symbolic link; refusing" "$@" "$S/$p.link"
	refused "$p: dangling link" "is a symbolic link; refusing" "$@" "$S/$p.dangling"
	refused "$p: nobody's 0666 file" "belongs to another user" "$@" "$S/$p.theirs"
	refused "$p: FIFO" "is a FIFO; refusing" "$@" "$S/$p.fifo"
	refused "$p: directory link" "symbolic link in a shared directory" "$@" "$S/$p.dir/$p.out"
	refused "$p: device" "is a character device; refusing" "$@" "$S/$p.dev"
	untouched "$p"
}
