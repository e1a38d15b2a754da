#!/bin/sh
# setup-debian.sh — make a fresh Debian 12 machine ready to build, run and
# test kptop: installs (apt-get) only the packages that are missing, then
# regenerates and configures the build in build/ and compiles it.
#   scripts/setup-debian.sh          set up and build
#   scripts/setup-debian.sh live     ... then start kptop (as root)
#   scripts/setup-debian.sh check    ... then run `make check` (as root)
# Safe to run any number of times. Uses sudo where root is needed and it
# is not root already.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Build tools and libraries; test tools (tmux, golang-go for `go tool
# pprof`, bpftrace-free) are needed by `make check`.
PKGS="build-essential autoconf automake autoconf-archive libtool pkg-config
clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev
libncurses-dev libcmocka-dev tmux golang-go elfutils binutils xz-utils
procps util-linux linux-perf man-db liblzma-dev libiberty-dev"

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
mkdir -p build
cd build
if [ ! -f Makefile ] || [ ../configure -nt config.status ]; then
	../configure --enable-werror
fi
make -j"$(nproc)"

case "${1:-}" in
live)	shift; exec env sh -c 'if [ "$(id -u)" = 0 ]; then exec "$@"; else exec sudo "$@"; fi' sh "$top/build/kptop" "$@" ;;
check)	if [ "$(id -u)" = 0 ]; then exec make check; else exec sudo -E make check; fi ;;
"")	;;
*)	echo "setup-debian: unknown action '$1' (use: live, check, or nothing)" >&2; exit 2 ;;
esac
