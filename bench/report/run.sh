#!/bin/sh
# kmemtrace report against perf kmem stat, on the same perf.data.
#
#   bench/report/run.sh            (as root; `make bench` runs every bench)
#
# 1. Records a kernel-heavy workload (bench/workload.sh) with
#    `perf kmem --slab --page record -a` until the file holds at least
#    MIN_EVENTS kmem events (default 3,000,000); the file is kept in
#    $KMT_BENCH_DIR (default /var/tmp/kmemtrace-bench) for later runs.
# 2. Times `perf kmem --slab --page --caller --alloc stat` and
#    `kmemtrace report --slab --page --caller --alloc` on it, alternating,
#    RUNS times each (default 3): median wall time and peak RSS, and the
#    ratios.
# 3. Captures the same workload through a tracefs instance as trace.dat
#    (trace-cmd extract) and as ftrace text, and reports kmemtrace's
#    events per second and peak memory on each.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
KMT=$TOP/build/kmemtrace
DIR=${KMT_BENCH_DIR:-/var/tmp/kmemtrace-bench}
RUNS=${RUNS:-3}
MIN_EVENTS=${MIN_EVENTS:-3000000}
MEASURE=$TOP/bench/lib/measure.py

die () { echo "bench/report: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (perf kmem record -a and tracefs)"
command -v perf >/dev/null || die "needs perf (Debian package linux-perf)"
[ -x "$KMT" ] || make -C "$TOP" >/dev/null
mkdir -p "$DIR"

count_events () {
	"$KMT" report -i "$1" --json | python3 -c \
		'import json,sys; print(sum(json.load(sys.stdin)["events"].values()))'
}

data=$DIR/bench.perf.data
secs=4
while [ ! -s "$data" ] || [ "$(count_events "$data")" -lt "$MIN_EVENTS" ]; do
	echo "recording $secs s of bench/workload.sh with perf kmem record -a ..."
	perf kmem --slab --page record -a -o "$data" -- \
		sh "$TOP/bench/workload.sh" "$secs" >/dev/null 2>&1 ||
		die "perf kmem record failed"
	secs=$((secs * 2))
	[ $secs -le 64 ] || die "could not record $MIN_EVENTS events"
done
events=$(count_events "$data")
size=$(du -m "$data" | cut -f1)
echo "perf.data: $data, $events kmem events, $size MB"
cat "$data" >/dev/null	# into the page cache for both tools

res=$(python3 "$MEASURE" --runs "$RUNS" \
	--label perf -- perf kmem -i "$data" --slab --page --caller --alloc stat \
	--label kmemtrace -- "$KMT" report --slab --page --caller --alloc -i "$data")
echo
echo "tool          wall(s)  rss(MiB)   min(s)    max(s)    cpu(s)  (median of $RUNS, alternating)"
echo "$res"
echo "$res" | awk '
	$1 == "perf" { pw = $2; pr = $3 }
	$1 == "kmemtrace" { kw = $2; kr = $3 }
	END { printf "speed-up: %.1fx   memory: %.1fx less\n", pw / kw, pr / kr }'

# trace.dat and text throughput and memory
T=/sys/kernel/tracing
[ -d $T/events/kmem ] || mount -t tracefs nodev $T 2>/dev/null || true
if [ -d $T/events/kmem ] && command -v trace-cmd >/dev/null; then
	inst=kmt-bench-$$
	dat=$DIR/bench.trace.dat
	txt=$DIR/bench.trace.txt
	trap 'rmdir $T/instances/$inst 2>/dev/null || true' EXIT
	mkdir $T/instances/$inst
	echo 262144 > $T/instances/$inst/buffer_size_kb
	for e in kmalloc kmem_cache_alloc kfree kmem_cache_free mm_page_alloc \
		 mm_page_free mm_page_free_batched; do
		echo 1 > $T/instances/$inst/events/kmem/$e/enable
	done
	sh "$TOP/bench/workload.sh" 2 >/dev/null 2>&1
	echo 0 > $T/instances/$inst/tracing_on
	# the text first: reading `trace` leaves the buffer as it is, while
	# extract consumes it and may remove the instance
	cat $T/instances/$inst/trace > "$txt"
	trace-cmd extract -B $inst -o "$dat" >/dev/null 2>&1
	rmdir $T/instances/$inst 2>/dev/null || true
	trap - EXIT
	for f in "$dat" "$txt"; do
		n=$(count_events "$f")
		m=$(python3 "$MEASURE" --runs "$RUNS" --label k -- \
			"$KMT" report --slab --page --caller --alloc -i "$f")
		w=$(echo "$m" | awk '{ print $2 }')
		echo "$(basename "$f"): $n events, $(du -m "$f" | cut -f1) MB," \
		     "$w s, $(echo "$n $w" | awk '{ printf "%.2f", $1 / $2 / 1e6 }') M events/s," \
		     "$(echo "$m" | awk '{ print $3 }') MiB peak"
	done
fi
