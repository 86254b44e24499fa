#!/bin/sh
# The recording benchmark: one kernel-heavy workload (bench/workload.sh,
# more than a million kmem events a second on 2 cores) run untraced,
# under `kmemtrace record`, under `perf kmem --slab --page record -a`,
# and under `kmemtrace record -g` (perf kmem's --page records call
# chains, so this is the like-for-like row), and `kmemtrace record
# --no-percpu --no-vmalloc` (slab and page only: what the percpu and
# vmalloc events of the default cost).  Each way runs REPEAT times,
# interleaved so that drift hits all alike; the table gives the medians
# of the workload's own wall time and CPU time (user + system of all its
# processes), the slowdown against the untraced run, and the events each
# recorder kept and lost (both counted by `kmemtrace check`, which reads
# trace.dat and perf.data alike).
#
#   bench/record/run.sh [ROUNDS [REPEAT]]   defaults: 3 rounds, 3 repeats
#
# Needs root, tracefs and perf.  KMEMTRACE= picks the binary (default
# build/kmemtrace); KMT_BENCH_DIR= where the recordings go (default a
# temporary directory, removed at the end).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
KMEMTRACE=${KMEMTRACE:-$TOP/build/kmemtrace}
WORKLOAD=$TOP/bench/workload.sh
ROUNDS=${1:-3}
REPEAT=${2:-3}

die () {
	echo "bench/record: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (it records kernel events)"
[ -x "$KMEMTRACE" ] || die "no $KMEMTRACE: run 'make' first"
command -v perf >/dev/null 2>&1 || die "needs perf (Debian: linux-perf)"
[ -d /sys/kernel/tracing/events/kmem ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
	die "tracefs is not mounted"

dir=${KMT_BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/kmt-bench.XXXXXX")}
[ -n "${KMT_BENCH_DIR:-}" ] || trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir"

# the workload, timing itself: the recorders' start and end do not count.
# Writes "wall_ms cpu_ms"; the CPU time is that of the waited-for
# children, from /proc (fields cutime and cstime, in clock ticks).
cat >"$dir/timed.sh" <<EOF
#!/bin/sh
t0=\$(date +%s%N)
"$WORKLOAD" -n "$ROUNDS"
t1=\$(date +%s%N)
ticks=\$(awk '{ print \$16 + \$17 }' /proc/\$\$/stat)
echo \$(( (t1 - t0) / 1000000 )) \$(( ticks * 1000 / $(getconf CLK_TCK) )) >"\$1"
EOF
chmod +x "$dir/timed.sh"

# "events lost" of a recording, as kmemtrace check counts them
check_counts () {
	"$KMEMTRACE" check "$1" 2>/dev/null |
		awk -F': ' '$1 == "events" { e = $2 } $1 == "lost" { l = $2 }
			    END { print (e == "" ? "?" : e), (l == "" ? "?" : l) }'
}

echo "warming the caches..." >&2
"$WORKLOAD" -n 1

: >"$dir/results"
i=1
while [ "$i" -le "$REPEAT" ]; do
	echo "round $i of $REPEAT..." >&2
	"$dir/timed.sh" "$dir/ms"
	echo "untraced $(cat "$dir/ms") - -" >>"$dir/results"

	"$KMEMTRACE" record -q -o "$dir/k.dat" -- "$dir/timed.sh" "$dir/ms" ||
		die "kmemtrace record failed"
	echo "kmemtrace $(cat "$dir/ms") $(check_counts "$dir/k.dat")" >>"$dir/results"
	rm -f "$dir/k.dat" "$dir/k.dat.old"

	perf kmem --slab --page record -a -o "$dir/p.data" -- \
		"$dir/timed.sh" "$dir/ms" >/dev/null 2>&1 ||
		die "perf kmem record failed"
	echo "perf-kmem $(cat "$dir/ms") $(check_counts "$dir/p.data")" >>"$dir/results"
	rm -f "$dir/p.data" "$dir/p.data.old"

	"$KMEMTRACE" record -q --no-percpu --no-vmalloc -o "$dir/k.dat" -- \
		"$dir/timed.sh" "$dir/ms" ||
		die "kmemtrace record --no-percpu --no-vmalloc failed"
	echo "slab+page $(cat "$dir/ms") $(check_counts "$dir/k.dat")" >>"$dir/results"
	rm -f "$dir/k.dat" "$dir/k.dat.old"

	"$KMEMTRACE" record -q -g -o "$dir/k.dat" -- "$dir/timed.sh" "$dir/ms" ||
		die "kmemtrace record -g failed"
	echo "kmemtrace-g $(cat "$dir/ms") $(check_counts "$dir/k.dat")" >>"$dir/results"
	rm -f "$dir/k.dat" "$dir/k.dat.old"
	i=$((i + 1))
done

echo
echo "workload: bench/workload.sh -n $ROUNDS ($(nproc) CPUs, $(uname -r)), median of $REPEAT runs"
awk '
function median(list, n,    i, j, t, a) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ ms[$1] = ms[$1] " " $2; cpu[$1] = cpu[$1] " " $3; ev[$1] = ev[$1] " " $4; lost[$1] = lost[$1] " " $5; seen[$1] = 1 }
END {
	base = median(ms["untraced"]); cbase = median(cpu["untraced"])
	printf "%-12s %9s %9s %8s %9s %11s %10s %7s\n", "run", "wall (s)", "slowdown", "cpu (s)", "cpu x", "events", "lost", "lost %"
	split("untraced slab+page kmemtrace perf-kmem kmemtrace-g", order, " ")
	for (k = 1; k <= 5; k++) {
		r = order[k]
		if (!seen[r]) continue
		m = median(ms[r]); c = median(cpu[r])
		if (r == "untraced") {
			printf "%-12s %9.2f %9s %8.2f %9s %11s %10s %7s\n", r, m / 1000, "1.00x", c / 1000, "1.00x", "-", "-", "-"
			continue
		}
		e = median(ev[r]); l = median(lost[r])
		printf "%-12s %9.2f %8.2fx %8.2f %8.2fx %11d %10d %6.2f%%\n", r, m / 1000, m / base, c / 1000, c / cbase, e, l, (e + l) ? 100 * l / (e + l) : 0
	}
}' "$dir/results"
echo
echo "command: bench/record/run.sh $ROUNDS $REPEAT"
