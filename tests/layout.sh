#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# layout.sh — every #include in src/ obeys the table in src/README.md: a
# file in src/F/ includes "G/..." only when F's row allows G, a quoted
# include without a folder names a file beside it, and the system
# libraries' headers stay in the folders that own them.
# Usage: layout.sh [SRCDIR] (default: $top_srcdir/src).
set -u
src=${1:-${top_srcdir:?}/src}
rules=$src/README.md
[ -r "$rules" ] || { echo "layout: cannot read $rules" >&2; exit 1; }

awk -v src="$src" '
function trim(s) { gsub(/^[ \t`]+|[ \t`]+$/, "", s); return s }
FILENAME == ARGV[1] {
	# | folder | holds | may include |, then | library | headers | only in |
	if ($0 !~ /^\|/ || split($0, c, "|") < 5 || trim(c[2]) ~ /^-+$/) next
	f = trim(c[2])
	if (f == "folder" || f == "library") { table = f; next }
	if (table == "folder") {
		known[f] = 1; split(trim(c[4]), ds, " ")
		for (d in ds) may[f, ds[d]] = 1
	} else if (table == "library") {
		nh = split(trim(c[3]), hs, /`?, `?/)
		for (i = 1; i <= nh; i++) lib[trim(hs[i])] = trim(c[4])
	}
	next
}
FNR == 1 {
	rel = substr(FILENAME, length(src) + 2)
	dir = rel; sub(/\/.*/, "", dir)
	if (!(dir in known)) { printf "%s: folder src/%s/ is not in src/README.md\n", rel, dir; bad++ }
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	if (inc !~ /\//) {
		if (system("test -e \"" src "/" dir "/" inc "\"") != 0) {
			printf "%s:%d: \"%s\" is not a file of src/%s/\n", rel, FNR, inc, dir; bad++
		}
	} else {
		to = inc; sub(/\/.*/, "", to)
		if (!((dir, to) in may)) {
			printf "%s:%d: src/%s/ may not include \"%s\" (see src/README.md)\n", rel, FNR, dir, inc; bad++
		}
	}
}
/^[ \t]*#[ \t]*include[ \t]*</ {
	inc = $0; sub(/^[^<]*</, "", inc); sub(/>.*/, "", inc)
	for (h in lib) {
		pat = h; gsub(/\./, "\\.", pat); gsub(/\*/, ".*", pat)
		if (inc ~ ("^" pat "$") && (" " lib[h] " ") !~ (" " dir " ")) {
			printf "%s:%d: <%s> belongs to src/%s only (see src/README.md)\n", rel, FNR, inc, lib[h]; bad++
		}
	}
}
END {
	if (length(known) < 5) { print "layout: no folder table read from " ARGV[1]; exit 1 }
	if (bad) { printf "layout: %d forbidden include(s)\n", bad; exit 1 }
	printf "layout: %d folders, every include allowed\n", length(known)
}' "$rules" $(find "$src" -mindepth 2 -name '*.[ch]' | sort)
