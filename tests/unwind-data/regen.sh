#!/bin/sh
# Re-records the unwinder's test snapshots (tests/unwind-data/*.snap) and
# the fixture binaries they were taken from. Run as root from a build dir
# where tests/capture-regs is built (`make tests/capture-regs`):
#   sh $top_srcdir/tests/unwind-data/regen.sh $top_srcdir
# The fixtures are checked in because a rebuild changes their addresses.
# FIXTURES="name ..." re-records only those.
set -e
src=${1:?usage: regen.sh TOP_SRCDIR}
out=$src/tests/unwind-data
W="-O2 -g -fno-ipa-icf -fno-inline-small-functions"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc $W -fomit-frame-pointer -o "$tmp/split-nofp" "$src/tests/workload/split.c"
gcc $W -fomit-frame-pointer -o "$tmp/unwind-qsort" "$src/tests/workload/unwind-qsort.c"
gcc $W -fomit-frame-pointer -o "$tmp/unwind-deep" "$src/tests/workload/unwind-deep.c"
gcc $W -fomit-frame-pointer -o "$tmp/unwind-noret" "$src/tests/workload/unwind-noret.c"
gcc $W -fno-omit-frame-pointer -momit-leaf-frame-pointer \
	-o "$tmp/unwind-leaf" "$src/tests/workload/unwind-leaf.c"
for f in ${FIXTURES:-split-nofp unwind-qsort unwind-deep unwind-leaf unwind-noret}; do
	strip --strip-debug "$tmp/$f"
	cp "$tmp/$f" "$out/$f"
	./tests/capture-regs "$out/$f.snap" 12 8192 -- "$out/$f" 2
done
