#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# add-spdx.sh — give every source file of kptop the line
#   SPDX-License-Identifier: GPL-2.0-only
# in its own comment syntax: "// " in .c and .js, "/* ... */" in .h, "# "
# in shell, Python, make fragments, Makefile.am, debian/rules and the
# completion, "dnl " in configure.ac, ".\" " in man pages (and FILE.in as
# FILE). The first line of a file, or the second after a "#!" line (or a
# man page's '\" preprocessor line).
#   scripts/add-spdx.sh [FILE...]          add it where it is missing
#   scripts/add-spdx.sh --check [FILE...]  change nothing: list the files
#                                          without it, exit 1 if any
# It works on the git checkout around the current directory, from its top
# (FILE names are relative to that top); without FILE on every file git
# knows there (tracked or not, but not ignored). Idempotent: a file with
# the line is left as it is; the old identifier "GPL-2.0" (kptop.bpf.c's)
# becomes "GPL-2.0-only". Left alone: third-party files (m4/), data
# (fuzz/corpus/, tests/fixtures/, tests/unwind-data/), documentation,
# debian/'s data (debian/copyright covers it), links, binary files, and a
# file that names another license in its own SPDX line (it is listed).
# A file is rewritten in place (same inode, mode and owner).
set -eu
ID='SPDX-License-Identifier: GPL-2.0-only'

check=
if [ "${1:-}" = --check ]; then check=1; shift; fi

# style FILE: the comment style of FILE (c, h, sh, dnl, roff), or nothing
# for a file to leave alone.
style() {
	case $1 in
	m4/* | fuzz/corpus/* | tests/fixtures/* | tests/unwind-data/*) return 0 ;;
	debian/rules) echo sh; return 0 ;;
	debian/* | *.md) return 0 ;;
	completion/* | .ci/*) echo sh; return 0 ;;
	esac
	name=${1##*/}
	case $name in *?.in) name=${name%.in} ;; esac
	case $name in
	*.c | *.js | *.cc | *.cpp) echo c ;;
	*.h) echo h ;;
	*.sh | *.bash | *.py | *.pl | *.awk | *.mk | Makefile.am | Makefile) echo sh ;;
	configure.ac | *.m4) echo dnl ;;
	*.[1-9]) echo roff ;;
	*)	# any other script: by its "#!" line
		[ "$(head -c 2 "$1" 2>/dev/null)" != '#!' ] || echo sh ;;
	esac
}

# line STYLE: the line to add.
line() {
	case $1 in
	c) printf '// %s\n' "$ID" ;;
	h) printf '/* %s */\n' "$ID" ;;
	sh) printf '# %s\n' "$ID" ;;
	dnl) printf 'dnl %s\n' "$ID" ;;
	roff) printf '.\\" %s\n' "$ID" ;;
	esac
}

# rewrite FILE CMD...: FILE replaced in place (same inode, mode and
# owner) by what CMD... prints of it.
rewrite() {
	f=$1
	shift
	tmp=$(mktemp "$f.spdx.XXXXXX")
	"$@" <"$f" >"$tmp" && cat "$tmp" >"$f"
	rm -f "$tmp"
}

# add LINE: stdin with LINE as its first line, or its second after a
# "#!" or '\" line.
add() {
	KP_SPDX_LINE=$1 awk 'BEGIN { l = ENVIRON["KP_SPDX_LINE"] }
		NR == 1 && (/^#!/ || /^'"'"'\\"/) { print; print l; next }
		NR == 1 { print l } { print } END { if (NR == 0) print l }'
}

files() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@"
	else
		git ls-files --cached --others --exclude-standard
	fi
}
if top=$(git rev-parse --show-toplevel 2>/dev/null) && [ -n "$top" ]; then
	cd "$top"
elif [ $# = 0 ]; then
	echo "add-spdx: $(pwd) is not in a git checkout: run it in one, or name the files" >&2
	exit 2
fi

missing=0
files "$@" | sort -u | {
	while IFS= read -r f; do
		[ -f "$f" ] && [ ! -L "$f" ] || continue
		s=$(style "$f")
		[ -n "$s" ] || continue
		if [ -s "$f" ] && ! grep -Iq . "$f"; then continue; fi	# binary
		have=$(head -n 5 "$f" | grep -o 'SPDX-License-Identifier: *[^ *]*' | head -n 1 || true)
		case $have in
		"$ID") continue ;;
		'SPDX-License-Identifier: GPL-2.0')
			if [ -n "$check" ]; then
				echo "$f: GPL-2.0, not GPL-2.0-only"
				missing=$((missing + 1))
			else
				rewrite "$f" sed '1,5s/SPDX-License-Identifier: GPL-2\.0\([^-.+]\|$\)/SPDX-License-Identifier: GPL-2.0-only\1/'
			fi
			continue ;;
		?*)	echo "add-spdx: $f has its own license ($have): left alone" >&2
			continue ;;
		esac
		if [ -n "$check" ]; then
			echo "$f: no $ID"
			missing=$((missing + 1))
		else
			rewrite "$f" add "$(line "$s")"
		fi
	done
	[ "$missing" = 0 ] || { echo "add-spdx: $missing file(s) without $ID" >&2; exit 1; }
}
