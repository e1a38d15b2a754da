#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# completion.sh — the bash completion (completion/kptop) offers every
# option `kptop --help' prints and no other, the names --format and
# --unwind accept (as kptop's own error messages list them), files,
# directories and process ids, with bash-completion's helpers loaded and
# without them; and configure installs it where bash-completion looks.
. "$top_srcdir/tests/lib.sh"
[ -x "$KPTOP" ] || fail "kptop binary not built: $KPTOP"
comp="$top_srcdir/completion/kptop"
[ -r "$comp" ] || fail "completion script missing: $comp"
bash=$(command -v bash) || fail "bash not found (Debian package bash)"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

# offers WORD...: what bash offers for the last WORD (the one being
# completed) after the others, one per line, sorted. The function is the
# one `complete -p kptop' names once the script is sourced.
offers() {
	"$bash" -c '
		if [ -n "$KP_BASHCOMP" ]; then . "$KP_BASHCOMP" || exit 1; fi
		. "$1" || exit 1
		shift
		f=$(complete -p kptop 2>/dev/null | sed -n "s/^complete -F \([^ ]*\) kptop$/\1/p")
		[ -n "$f" ] || { echo "complete -p kptop: not a -F function" >&2; exit 1; }
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		"$f" kptop "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' sh "$comp" "$@" 2>"$tmp/err" |
		sed '/^$/d' | sort
	[ ! -s "$tmp/err" ] || fail "completing '$*': $(cat "$tmp/err")"
}

# expect "WANT" WORD...: bash offers exactly WANT (words apart by spaces).
expect() {
	want=$(printf '%s\n' $1 | sort)
	shift
	got=$(offers "$@")
	[ "$got" = "$want" ] ||
		fail "completing '$*'${KP_BASHCOMP:+ (with bash-completion)}: got [$(echo $got)], expected [$(echo $want)]"
}

# The lists kptop itself knows: options from --help (as man-options.sh
# reads them), names from the message of a bad --format and --unwind.
opts=$("$KPTOP" --help | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z-]*' |
	sed 's/^[ ,]*//' | sort -u)
[ "$(echo "$opts" | wc -l)" -ge 20 ] || fail "kptop --help printed few options: $opts"
names() {	# names OPTION: the values kptop's error for OPTION lists
	"$KPTOP" --batch "$1" nonesuch 2>&1 >/dev/null |
		sed -n 's/.*expected //p' | sed 's/,/ /g; s/ or / /g'
}
formats=$(names --format)
unwinds=$(names --unwind)
[ "$(echo $formats | wc -w)" -ge 7 ] || fail "no format names from kptop: $formats"
[ "$(echo $unwinds | wc -w)" -ge 3 ] || fail "no unwind modes from kptop: $unwinds"

mkdir "$tmp/files" "$tmp/files/dir" && : >"$tmp/files/run.kps" &&
	: >"$tmp/files/dfile" || fail "cannot make test files"

checks() {
	expect "$opts" kptop -
	expect "$opts" kptop --batch ''
	expect "--folded-pid --force --format" kptop --fo
	expect "$formats" kptop --batch --format ''
	expect "$formats" kptop --batch --format =
	expect "svg speedscope" kptop --batch --format = s
	expect "pprof" kptop -b --format pp
	expect "$unwinds" kptop --unwind ''
	expect "" kptop -d ''
	expect "" kptop -F 9
	expect "" kptop --batch = ''
	(cd "$tmp/files" && expect "run.kps" kptop -i r) || exit 1
	(cd "$tmp/files" && expect "dfile dir run.kps" kptop --batch -o '') || exit 1
	(cd "$tmp/files" && expect "dir" kptop --cgroup d) || exit 1
	offers kptop -p '' | grep -qx 1 || fail "completing -p: no pid 1"
	p=$(offers kptop --pid 1,)
	[ -n "$p" ] && ! echo "$p" | grep -qv '^1,[0-9][0-9]*$' && echo "$p" | grep -qx 1,1 ||
		fail "completing '--pid 1,': got [$(echo $p)], expected 1,PID for each pid"
}
KP_BASHCOMP=
export KP_BASHCOMP
checks
n=1
bc=/usr/share/bash-completion/bash_completion
if [ -r "$bc" ]; then
	KP_BASHCOMP=$bc
	export KP_BASHCOMP
	checks
	n=2
else
	echo "note: $bc absent (Debian package bash-completion): checked without it only"
fi

# configure's directory: bash-completion's own when kptop shares its
# prefix, else DATADIR/bash-completion/completions (which bash-completion
# searches through XDG_DATA_DIRS).
dir=$(sed -n 's/^bashcompletiondir = //p' "$top_builddir/Makefile")
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
want='${datadir}/bash-completion/completions'
if [ "$(pkg-config --variable=prefix bash-completion 2>/dev/null)" = "$prefix" ]; then
	want=$(pkg-config --variable=completionsdir bash-completion)
fi
[ "$dir" = "$want" ] || fail "Makefile installs the completion in '$dir', expected '$want'"
echo "ok: $(echo "$opts" | wc -l) options, $(echo $formats | wc -w) formats; $n runs"
