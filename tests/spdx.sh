#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# spdx.sh — every source file of the tree carries
# "SPDX-License-Identifier: GPL-2.0-only" (scripts/add-spdx.sh --check),
# and scripts/add-spdx.sh itself works: on a scratch git tree with a file
# of each kind it adds the line in each one's comment syntax (after a
# "#!" line, keeping the file's inode and mode), turns the old "GPL-2.0"
# into "GPL-2.0-only", leaves data, third-party files, links, binaries and
# another license alone, and changes nothing when run again.
. "$top_srcdir/tests/lib.sh"
command -v git >/dev/null 2>&1 || fail "git not found (Debian package git)"
spdx=$top_srcdir/scripts/add-spdx.sh
ID='SPDX-License-Identifier: GPL-2.0-only'
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

t=$tmp/tree
mkdir -p "$t/src" "$t/man" "$t/m4" "$t/debian" "$t/completion" \
	"$t/fuzz/corpus" "$t/.ci" || fail "mkdir"
cd "$t" && git init -q . || fail "git init"
printf 'int main(void)\n{\n\treturn 0;\n}\n' >src/a.c
printf '/* b.h — a contract */\nint b(void);\n' >src/b.h
printf '#!/bin/sh\necho ok\n' >run.sh && chmod 755 run.sh
printf 'lib() { :; }\n' >lib.sh
printf '#!/usr/bin/python3\nprint("ok")\n' >seeds.py
printf 'x = 1\n' >frag.mk
printf 'bin_PROGRAMS =\n' >Makefile.am
printf 'AC_INIT([t], [1])\n' >configure.ac
printf '.TH T 1\n.SH NAME\n' >man/t.1.in
printf "'\\\\\" t\n.TH U 5\n" >man/u.5
printf '_t() { :; }\n' >completion/t
printf '#!/usr/bin/make -f\n%%:\n\tdh $@\n' >debian/rules && chmod 755 debian/rules
printf '#!/bin/sh\nexit 0\n' >.ci/run && chmod 755 .ci/run
printf '// SPDX-License-Identifier: GPL-2.0\nint old;\n' >src/old.c
# Left alone:
printf '// SPDX-License-Identifier: MIT\nint mit;\n' >src/mit.c
printf 'Source: t\n' >debian/control
printf '# serial 1\n' >m4/third.m4
printf '# T\n' >README.md
printf 'seed\n' >fuzz/corpus/seed
printf 'int bin;\0\1\2\n' >src/bin.c
printf 'ignored.c\n' >.gitignore
printf 'int ign;\n' >ignored.c
ln -s a.c src/link.c
# Tracked or not: git ls-files --others sees them both.
git add src/a.c src/b.h run.sh >/dev/null || fail "git add"

want_changed="src/a.c src/b.h run.sh lib.sh seeds.py frag.mk Makefile.am
configure.ac man/t.1.in man/u.5 completion/t debian/rules .ci/run src/old.c"
left="src/mit.c debian/control m4/third.m4 README.md fuzz/corpus/seed
src/bin.c ignored.c .gitignore"

# --check first: lists exactly the files it would change, exits 1.
(cd src && "$spdx" --check) >"$tmp/check" 2>"$tmp/check.err" &&
	fail "--check passed on a tree without SPDX lines"
for f in $want_changed; do
	grep -q "^$f: " "$tmp/check" || fail "--check does not list $f: $(cat "$tmp/check")"
done
[ "$(wc -l <"$tmp/check")" = "$(echo $want_changed | wc -w)" ] ||
	fail "--check lists other files: $(cat "$tmp/check")"

sums() { for f in $want_changed $left; do cksum "$f"; done; }
sums >"$tmp/sums.before"
ino=$(stat -c %i run.sh)
"$spdx" >"$tmp/out" 2>&1 || fail "add-spdx.sh failed: $(cat "$tmp/out")"
grep -q 'src/mit.c has its own license' "$tmp/out" ||
	fail "add-spdx.sh did not name the MIT file: $(cat "$tmp/out")"

# line FILE N TEXT: line N of FILE is TEXT.
line() {
	got=$(sed -n "$2p" "$1")
	[ "$got" = "$3" ] || fail "$1 line $2: '$got', expected '$3'"
}
line src/a.c 1 "// $ID"
line src/a.c 2 "int main(void)"
line src/b.h 1 "/* $ID */"
line src/b.h 2 "/* b.h — a contract */"
line run.sh 1 '#!/bin/sh'
line run.sh 2 "# $ID"
line lib.sh 1 "# $ID"
line seeds.py 1 '#!/usr/bin/python3'
line seeds.py 2 "# $ID"
line frag.mk 1 "# $ID"
line Makefile.am 1 "# $ID"
line configure.ac 1 "dnl $ID"
line man/t.1.in 1 ".\\\" $ID"
line man/t.1.in 2 '.TH T 1'
line man/u.5 1 "'\\\" t"
line man/u.5 2 ".\\\" $ID"
line completion/t 1 "# $ID"
line debian/rules 1 '#!/usr/bin/make -f'
line debian/rules 2 "# $ID"
line .ci/run 2 "# $ID"
line src/old.c 1 "// $ID"
[ "$(wc -l <src/old.c)" = 2 ] || fail "src/old.c: a line added beside its old one"
[ "$(stat -c %i run.sh)" = "$ino" ] || fail "run.sh: a new inode"
[ -x run.sh ] && [ -x debian/rules ] || fail "lost the execute bit"
[ -L src/link.c ] || fail "src/link.c is no longer a link"
sh -n run.sh && sh -n lib.sh || fail "a shell script no longer parses"
for f in $left; do
	grep -qxF "$(cksum "$f")" "$tmp/sums.before" || fail "$f was changed"
done
[ "$(ls "$t/src" | grep -c spdx)" = 0 ] || fail "temporary files left: $(ls "$t/src")"

# Again: nothing changes, and --check passes.
sums >"$tmp/sums.after"
"$spdx" >"$tmp/out" 2>&1 || fail "add-spdx.sh, second run: $(cat "$tmp/out")"
sums | cmp -s - "$tmp/sums.after" || fail "the second run changed files"
"$spdx" --check >"$tmp/check" 2>&1 || fail "--check after the run: $(cat "$tmp/check")"
echo "ok: add-spdx.sh on a scratch tree ($(echo $want_changed | wc -w) files)"

# The tree itself, when it is a git checkout (a release tarball's tree,
# as make distcheck unpacks it, has no git to list its files).
cd "$top_srcdir" || fail "cd $top_srcdir"
git rev-parse --show-toplevel >/dev/null 2>&1 ||
	{ echo "ok: not a git checkout, the tree itself not checked"; exit 0; }
"$spdx" --check >"$tmp/tree.out" 2>&1 || fail "files without '$ID' (run scripts/add-spdx.sh): $(head -n 20 "$tmp/tree.out")"
echo "ok: every source file of the tree has $ID"
