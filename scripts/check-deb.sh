#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# check-deb.sh — build kptop's Debian package as a fresh Debian 12 would,
# check it, install it and run it:
#   1. copies the tree (the files git knows, committed or not, without
#      build outputs) into a temporary directory, so that nothing here is
#      touched, and runs `dpkg-buildpackage -us -uc -b' there (installing
#      missing build dependencies with `apt-get build-dep');
#   2. `lintian' on the .deb: any error fails (warnings are shown);
#   3. the .deb holds the binary, both man pages and the bash completion;
#   4. installs it (apt-get, with its dependencies), then runs the
#      installed `kptop --version' (the package's version), finds both man
#      pages with man -w, has bash-completion load the completion, and
#      takes a one-second batch report (root and BPF: under
#      KPTOP_REQUIRE_BPF=1, as .ci/run sets, their absence fails);
#   5. removes the package again when it was not installed before.
# It takes minutes (a whole build): .ci/run runs it, `make check' does not.
#   scripts/check-deb.sh [--keep DIR]   (--keep: leave the .deb in DIR)
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
keep=
case "${1:-}" in
--keep) [ -n "${2:-}" ] || { echo "check-deb: --keep needs a directory" >&2; exit 2; }
	keep=$2 ;;
"") ;;
*) echo "check-deb: unknown argument '$1' (use: --keep DIR, or nothing)" >&2; exit 2 ;;
esac

say() { echo "check-deb: $*"; }
die() { echo "check-deb: FAIL: $*" >&2; exit 1; }
as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}
apt_install() {
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends -o DPkg::Lock::Timeout=300 "$@"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/kptop-deb.XXXXXX")
installed_by_us=
cleanup() {
	if [ -n "$installed_by_us" ]; then
		as_root env DEBIAN_FRONTEND=noninteractive dpkg -r kptop >/dev/null ||
			echo "check-deb: could not remove the kptop package again" >&2
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The tools to build and check a package.
need=
for p in dpkg-dev debhelper lintian fakeroot; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		need="$need $p"
done
if [ -n "$need" ]; then
	say "installing:$need"
	# shellcheck disable=SC2086
	apt_install $need
fi

# 1. A copy of the tree, without anything a build left in it.
src=$work/kptop
mkdir "$src"
git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf - | tar -xf - -C "$src"
[ -f "$src/debian/control" ] || die "no debian/control in the copied tree"
cd "$src"
if ! dpkg-checkbuilddeps >/dev/null 2>&1; then
	say "installing the build dependencies"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq \
		-o DPkg::Lock::Timeout=300 ./ >/dev/null || die "apt-get build-dep ./ failed"
fi
version=$(dpkg-parsechangelog -S Version)
say "building kptop $version in $src"
if ! dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log" >&2
	die "dpkg-buildpackage -us -uc -b failed"
fi
deb=$work/kptop_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $deb: $(ls "$work")"

# 2. lintian: no errors (lintian refuses to run as root without this).
say "lintian $(basename "$deb")"
lintian --allow-root --fail-on error --display-info "$deb" >"$work/lintian.log" 2>&1 || {
	cat "$work/lintian.log" >&2
	die "lintian found errors in $(basename "$deb")"
}
cat "$work/lintian.log"

# 3. What it holds.
dpkg-deb -c "$deb" | awk '{print $6}' >"$work/files"
for f in ./usr/bin/kptop ./usr/share/man/man1/kptop.1.gz \
	 ./usr/share/man/man5/kptop-stream.5.gz \
	 ./usr/share/bash-completion/completions/kptop \
	 ./lib/systemd/system/kptop-agent.service; do
	grep -qx "$f" "$work/files" || die "$(basename "$deb") has no $f"
done
[ -z "$keep" ] || { mkdir -p "$keep" && cp "$deb" "$keep/"; }

# 4. Install it, with what it depends on, and run it.
dpkg-query -W -f='${Status}' kptop 2>/dev/null | grep -q 'install ok installed' ||
	installed_by_us=1
say "installing $(basename "$deb")"
apt_install "$deb" >/dev/null || die "apt-get install $deb failed"
got=$(/usr/bin/kptop --version) || die "kptop --version failed"
[ "$got" = "kptop $version" ] || die "kptop --version says '$got', expected 'kptop $version'"
say "$got"
man -w kptop >/dev/null 2>&1 || die "man -w kptop: the man page is not found"
man -w 5 kptop-stream >/dev/null 2>&1 || die "man -w 5 kptop-stream: not found"
bash -c '. /usr/share/bash-completion/bash_completion &&
	__load_completion kptop && complete -p kptop' >/dev/null 2>&1 ||
	die "bash-completion does not load the installed completion"

skip_report() {
	if [ "${KPTOP_REQUIRE_BPF:-0}" = 1 ]; then die "$* (KPTOP_REQUIRE_BPF=1)"; fi
	say "SKIP the batch report: $*"
}
if [ "$(id -u)" != 0 ]; then
	skip_report "needs root (BPF programs and system-wide perf events)"
elif [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip_report "kernel has no BTF (/sys/kernel/btf/vmlinux)"
else
	/usr/bin/kptop --batch -d 1 >"$work/report" 2>"$work/report.err" || {
		cat "$work/report.err" >&2
		die "kptop --batch -d 1 failed"
	}
	grep -q '^collector: taken [1-9]' "$work/report" &&
		grep -q '^ *Self% *Total%' "$work/report" ||
		die "the batch report has no samples or no table: $(head -n 8 "$work/report")"
	say "a one-second batch report: $(grep -c . "$work/report") lines"
fi
say "ok: $(basename "$deb") builds, passes lintian, installs and runs"
