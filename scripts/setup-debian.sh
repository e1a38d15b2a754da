#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# setup-debian.sh — make a fresh Debian 12 machine ready to build, run and
# test kptop: installs (apt-get) only the packages that are missing, then
# regenerates and configures the build in build/ and compiles it.
#   scripts/setup-debian.sh          set up and build
#   scripts/setup-debian.sh live     ... then start kptop (as root)
#   scripts/setup-debian.sh check    ... then run `make check` (as root)
#   scripts/setup-debian.sh check-asan  the same in build-asan/, configured
#                                    --enable-sanitizers (ASan + UBSan): any
#                                    report fails it
# Safe to run any number of times. Uses sudo where root is needed and it
# is not root already.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Build tools and libraries; test tools (tmux, golang-go for `go tool
# pprof`, debuginfod: a server for tests/debuginfod.sh, libxml2-utils
# for xmllint and chromium for the SVG flame graph, bash-completion for
# the completion's directory and tests/completion.sh, python3.11 and its
# headers for the Python tests, jq for the JSON Lines test, bpftrace-free) are
# needed by `make check`.
PKGS="build-essential autoconf automake autoconf-archive libtool pkg-config
clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev
libncurses-dev libcmocka-dev tmux golang-go elfutils binutils xz-utils
procps util-linux linux-perf man-db liblzma-dev libiberty-dev
libasan8 libubsan1 libclang-rt-14-dev libdebuginfod-dev debuginfod
libxml2-utils chromium bash-completion libcapstone-dev python3.11 python3.11-dev
libcurl4-openssl-dev openssl jq"

# node and npm for the speedscope test (it installs speedscope's npm
# package into the build directory): Debian's, unless a node with its
# own npm is there already (NodeSource's nodejs has npm and conflicts
# with Debian's npm package).
command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
if [ -n "$missing" ]; then
	echo "setup-debian: installing:$missing"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	# shellcheck disable=SC2086
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	./autogen.sh
fi
# build DIR CONFIGURE-ARGS...: configure (when needed) and compile in DIR.
build() {
	dir=$1
	shift
	mkdir -p "$top/$dir"
	cd "$top/$dir"
	if [ ! -f Makefile ] || [ ../configure -nt config.status ]; then
		../configure "$@"
	fi
	make -j"$(nproc)"
}

# check_asan: `make check` in build-asan/ under ASan + UBSan. ASan and
# LeakSanitizer reports go to build-asan/sanitizer/ (so that one inside a
# tmux pane, or from a run whose exit status a test expects to be
# non-zero, is caught too); gcc's UBSan, linked with ASan, writes to
# stderr only, into the tests' logs. Any such report fails the run.
check_asan() {
	logs=$top/build-asan/sanitizer
	as_root rm -rf "$logs"
	mkdir -p -m 1777 "$logs"	# the tests run some programs as nobody
	rc=0
	sudo_e=
	[ "$(id -u)" = 0 ] || sudo_e="sudo -E"
	$sudo_e env ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:log_path=$logs/asan" \
		UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan" \
		make check || rc=$?
	reports=$(grep -l -E 'runtime error:|ERROR: (Address|Leak)Sanitizer' \
		tests/*.log "$logs"/* 2>/dev/null || true)
	if [ -n "$reports" ]; then
		for f in $reports; do echo "== $f"; cat "$f"; done
		echo "setup-debian: check-asan: sanitizer reports in:" $reports >&2
		[ "$rc" != 0 ] || rc=1
	fi
	exit "$rc"
}

case "${1:-}" in
check-asan)
	build build-asan --enable-werror --enable-sanitizers
	check_asan ;;
*)	build build --enable-werror ;;
esac

case "${1:-}" in
live)	shift; exec env sh -c 'if [ "$(id -u)" = 0 ]; then exec "$@"; else exec sudo "$@"; fi' sh "$top/build/kptop" "$@" ;;
check)	if [ "$(id -u)" = 0 ]; then exec make check; else exec sudo -E make check; fi ;;
"")	;;
*)	echo "setup-debian: unknown action '$1' (use: live, check, check-asan, or nothing)" >&2; exit 2 ;;
esac
