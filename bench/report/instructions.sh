#!/bin/sh
# Instructions, not seconds: `kmemtrace report --threads 1 --slab --page
# --caller --alloc` on the benchmark perf.data under cachegrind, the
# total and the functions that execute the most.
#
#   bench/report/instructions.sh [BINARY...]
#
# Wall times on a shared machine move by 10-20% from run to run, which
# hides a change of a few percent; an instruction count is the same on
# every run, so two builds can be compared with one run each.  It does
# not see cache misses or the second thread: confirm a gain with
# bench/report/run.sh.  Uses bench/report's recording
# ($KMT_BENCH_DIR/bench.perf.data; run bench/report/run.sh once to make
# it).  With several binaries, prints the total of each.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${KMT_BENCH_DIR:-/var/tmp/kmemtrace-bench}
data=$DIR/bench.perf.data

die () { echo "bench/report/instructions: $*" >&2; exit 1; }
command -v valgrind >/dev/null ||
	die "needs valgrind (Debian package valgrind)"
[ -s "$data" ] || die "no $data: run bench/report/run.sh first"
[ $# -gt 0 ] || set -- "$TOP/build/kmemtrace"
out=$(mktemp "${TMPDIR:-/tmp}/kmt-cg.XXXXXX")
trap 'rm -f "$out"' EXIT
for kmt in "$@"; do
	[ -x "$kmt" ] || die "'$kmt' is not an executable"
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$out" \
		"$kmt" report --threads 1 --slab --page --caller --alloc \
		-i "$data" >/dev/null 2>&1 || die "'$kmt' failed under valgrind"
	echo "$kmt:"
	cg_annotate --sort=Ir "$out" 2>/dev/null |
		awk '/PROGRAM TOTALS/ { print "  total " $1 " instructions" }
		     /file:function/ { top = 1; next }
		     top && NF >= 3 && n < 12 { print "  " $0; n++ }'
done
