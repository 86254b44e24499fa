#!/bin/sh
# The cost of the views of `kmemtrace report`: every view together against
# the plain slab and page report, on the same perf.data.
#
#   bench/views/run.sh        (as root; `make bench` runs every bench)
#
# 1. Uses bench/report's recording ($KMT_BENCH_DIR/bench.perf.data, at
#    least MIN_EVENTS kmem events of bench/workload.sh), recording it the
#    same way when it is missing.
# 2. Times `report --slab --page` and `report --slab --page --leaks
#    --errors --procs --pcpu --extfrag --caches --sizes --lifetimes
#    --timeline`, alternating, RUNS times each (default 3): median wall
#    time and peak RSS.  The target: all views at most twice the time.
# KMT=path/to/kmemtrace overrides the binary (default build/kmemtrace).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
KMT=${KMT:-$TOP/build/kmemtrace}
DIR=${KMT_BENCH_DIR:-/var/tmp/kmemtrace-bench}
RUNS=${RUNS:-3}
MIN_EVENTS=${MIN_EVENTS:-3000000}
MEASURE=$TOP/bench/lib/measure.py
VIEWS="--leaks --errors --procs --pcpu --extfrag --caches --sizes --lifetimes --timeline"

die () { echo "bench/views: $*" >&2; exit 1; }
[ -x "$KMT" ] || make -C "$TOP" >/dev/null
mkdir -p "$DIR"

count_events () {
	"$KMT" report -i "$1" --json | python3 -c \
		'import json,sys; print(sum(json.load(sys.stdin)["events"].values()))'
}

data=$DIR/bench.perf.data
secs=4
while [ ! -s "$data" ] || [ "$(count_events "$data")" -lt "$MIN_EVENTS" ]; do
	[ "$(id -u)" = 0 ] || die "needs root to record (perf kmem record -a)"
	command -v perf >/dev/null || die "needs perf (Debian package linux-perf)"
	echo "recording $secs s of bench/workload.sh with perf kmem record -a ..."
	perf kmem --slab --page record -a -o "$data" -- \
		sh "$TOP/bench/workload.sh" "$secs" >/dev/null 2>&1 ||
		die "perf kmem record failed"
	secs=$((secs * 2))
	[ $secs -le 64 ] || die "could not record $MIN_EVENTS events"
done
events=$(count_events "$data")
echo "perf.data: $data, $events kmem events, $(du -m "$data" | cut -f1) MB"
cat "$data" >/dev/null	# into the page cache for both runs

# shellcheck disable=SC2086
res=$(python3 "$MEASURE" --runs "$RUNS" \
	--label plain -- "$KMT" report --slab --page -i "$data" \
	--label views -- "$KMT" report --slab --page $VIEWS -i "$data")
echo
echo "report        wall(s)  rss(MiB)   min(s)    max(s)    cpu(s)  (median of $RUNS, alternating)"
echo "$res"
echo "$res" | awk '
	$1 == "plain" { pw = $2; pr = $3 }
	$1 == "views" { vw = $2; vr = $3 }
	END {
		printf "all views: %.2fx the time (target: at most 2x), %.2fx the memory\n",
			vw / pw, vr / pr
		exit !(vw <= 2 * pw)
	}'
