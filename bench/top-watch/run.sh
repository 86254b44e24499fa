#!/bin/sh
# The cost of watching: the kernel-heavy workload (bench/workload.sh,
# more than a million kmem events a second on 2 cores) run untraced and
# under each way of watching it, system wide:
#
#   floor        a program on each of top's tracepoints that returns at
#                once (floor.bpf.c): what attaching costs before any
#                counting, the least any in-kernel counting can cost
#   top          kmemtrace top -b (counters by callsite, cache, process;
#                live objects of 1 address in 64, with stacks)
#   top-s256     the same with --sample 256 (only when WAYS names it)
#   watch        kmemtrace watch at its default settings (1 address in 16,
#                each with its stack)
#   watch-s1     kmemtrace watch --sample 1 (every object, every stack)
#   bpftrace-top the same counting as a bpftrace script (top.bt)
#   bpftrace-watch the same live map as a bpftrace script (watch.bt)
#   record       kmemtrace record (every event to a trace.dat)
#   perf-kmem    perf kmem --slab --page record -a
#
# Each way runs REPEAT times, interleaved so that drift hits all alike;
# the table gives the medians of the workload's own wall time, its
# slowdown against the untraced runs, the events each tool lost or could
# not follow (its own counters; "-" where the tool keeps none; for top
# and watch, drops are what map sizes decide and "skipped" the events the
# kernel did not run the program for, as it was already running on that
# CPU), and the tracer's peak resident memory in user space (VmHWM).
#
#   bench/top-watch/run.sh [ROUNDS [REPEAT]]   defaults: 1 round, 3 repeats
#
# Needs root, BPF, tracefs, perf and bpftrace (installed from Debian when
# missing).  KMEMTRACE= picks the binary (default build/kmemtrace);
# SKIP="perf-kmem ..." leaves ways out; WAYS="untraced top top-s256"
# runs those alone.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$TOP/bench/top-watch
KMEMTRACE=${KMEMTRACE:-$TOP/build/kmemtrace}
WORKLOAD=$TOP/bench/workload.sh
ROUNDS=${1:-1}
REPEAT=${2:-3}
SKIP=${SKIP:-}

die () {
	echo "bench/top-watch: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (it loads BPF programs)"
[ -x "$KMEMTRACE" ] || die "no $KMEMTRACE: run 'make' first"
command -v perf >/dev/null 2>&1 || die "needs perf (Debian: linux-perf)"
if ! command -v bpftrace >/dev/null 2>&1; then
	echo "bench/top-watch: installing bpftrace" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bpftrace \
		>/dev/null || die "cannot install bpftrace"
fi
[ -d /sys/kernel/tracing/events/kmem ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
	die "tracefs is not mounted"

dir=$(mktemp -d "${TMPDIR:-/tmp}/kmt-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# the floor's programs, against the kernel's types as the build made them
build_floor () {
	vmlinux=$TOP/build/bpf/vmlinux.h
	[ -f "$vmlinux" ] || make -C "$TOP" >/dev/null ||
		die "cannot build kmemtrace (for build/bpf/vmlinux.h)"
	arch=$(uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
	mkdir -p "$dir/floor"
	clang -g -O2 -target bpf -D__TARGET_ARCH_$arch -I"$TOP/build/bpf" \
		-c -o "$dir/floor/floor.bpf.o" "$HERE/floor.bpf.c" &&
		cc -O2 -o "$dir/floor/floor" "$HERE/floor.c" -lbpf ||
		die "cannot build the floor's programs"
}

# the workload, timing itself: the tracers' start and end do not count
cat >"$dir/timed.sh" <<EOF
#!/bin/sh
t0=\$(date +%s%N)
"$WORKLOAD" -n "$ROUNDS"
t1=\$(date +%s%N)
echo \$(( (t1 - t0) / 1000000 )) >"\$1"
EOF
chmod +x "$dir/timed.sh"

wait_for () {
	tries=0
	while ! grep -q "$1" "$2" 2>/dev/null; do
		tries=$((tries + 1))
		[ $tries -le 600 ] || return 1
		sleep 0.1
	done
}

# the last JSON object's counters that are losses, added up: the maps'
# and stacks' (what sizes decide), then the events the kernel skipped
# because the program was already running on that CPU (an interrupt
# inside it: no map size helps)
json_drops () {
	tail -n 1 "$1" | python3 -c '
import json, sys
c = json.load(sys.stdin)["counters"]
skip = "events the kernel skipped"
print(sum(v for k, v in c.items() if k != skip and
	  ("lost" in k or "full" in k or "not followed" in k
	   or "not counted" in k)), c.get(skip, 0))'
}

check_lost () {
	"$KMEMTRACE" check "$1" 2>/dev/null | awk -F': ' '$1 == "lost" { l = $2 } END { print (l == "" ? "?" : l) }'
}

# runs one way: start the tracer, wait until it is attached, time the
# workload, read the tracer's peak memory, stop it, count its losses
run_way () {
	way=$1
	case " $SKIP " in *" $way "*) return ;; esac
	rm -f "$dir"/out* "$dir"/err "$dir/k.dat" "$dir/p.data"
	case $way in
	untraced)
		"$dir/timed.sh" "$dir/ms"
		echo "untraced $(cat "$dir/ms") - -" >>"$dir/results"
		return ;;
	floor)
		"$dir/floor/floor" "$dir/floor/floor.bpf.o" 2>"$dir/err" &
		ready="^floor: attached" ;;
	top)
		"$KMEMTRACE" top -b --json -d 1 -l 20 -o "$dir/out" 2>"$dir/err" &
		ready="^kmemtrace top:" ;;
	top-s256)
		"$KMEMTRACE" top -b --json -d 1 -l 20 --sample 256 -o "$dir/out" \
			2>"$dir/err" &
		ready="^kmemtrace top:" ;;
	watch)
		"$KMEMTRACE" watch --json -I 10 -o "$dir/out" 2>"$dir/err" &
		ready="^kmemtrace watch:" ;;
	watch-s1)
		"$KMEMTRACE" watch --sample 1 --json -I 10 -o "$dir/out" 2>"$dir/err" &
		ready="^kmemtrace watch:" ;;
	bpftrace-top)
		bpftrace "$HERE/top.bt" >"$dir/err" 2>&1 &
		ready="^Attaching" ;;
	bpftrace-watch)
		bpftrace "$HERE/watch.bt" >"$dir/err" 2>&1 &
		ready="^Attaching" ;;
	record)
		"$KMEMTRACE" record -a -o "$dir/k.dat" 2>"$dir/err" &
		ready="recording all CPUs" ;;
	perf-kmem)
		perf kmem --slab --page record -a -o "$dir/p.data" \
			>"$dir/err" 2>&1 &
		ready= ;;
	esac
	pid=$!
	if [ -n "$ready" ]; then
		wait_for "$ready" "$dir/err" ||
			die "$way did not start: $(head -n 3 "$dir/err")"
	else
		sleep 2
	fi
	sleep 0.5
	"$dir/timed.sh" "$dir/ms"
	# perf kmem runs perf record as a child: the recorder's memory
	rss_pid=$pid
	if [ "$way" = perf-kmem ]; then
		c=$(pgrep -P "$pid" | head -n 1)
		[ -n "$c" ] && rss_pid=$c
	fi
	kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$rss_pid/status" 2>/dev/null)
	kill -INT "$pid"
	wait "$pid"
	case $way in
	top|top-s256|watch|watch-s1) drops=$(json_drops "$dir/out") ;;
	record) drops="$(check_lost "$dir/k.dat") -" ;;
	perf-kmem) drops="$(check_lost "$dir/p.data") -" ;;
	*) drops="- -" ;;
	esac
	echo "$way $(cat "$dir/ms") ${drops:-? ?} ${kb:-0}" >>"$dir/results"
}

WAYS=${WAYS:-untraced floor top watch watch-s1 bpftrace-top bpftrace-watch record perf-kmem}
case " $WAYS " in *" floor "*) build_floor ;; esac

echo "warming the caches..." >&2
"$WORKLOAD" -n 1

: >"$dir/results"
i=1
while [ "$i" -le "$REPEAT" ]; do
	echo "round $i of $REPEAT..." >&2
	for w in $WAYS; do
		run_way "$w"
	done
	i=$((i + 1))
done

echo
echo "workload: bench/workload.sh -n $ROUNDS ($(nproc) CPUs, $(uname -r)), median of $REPEAT runs"
awk -v ways="$WAYS" '
function median(list, n,    i, j, t, a) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ ms[$1] = ms[$1] " " $2; dr[$1] = dr[$1] " " $3; sk[$1] = sk[$1] " " $4
  kb[$1] = kb[$1] " " $5; seen[$1] = 1 }
END {
	base = median(ms["untraced"])
	printf "%-15s %9s %9s %9s %9s %14s\n", "run", "wall (s)", "slowdown", "drops", "skipped", "peak RSS (MiB)"
	n = split(ways, order, " ")
	for (k = 1; k <= n; k++) {
		r = order[k]
		if (!seen[r]) continue
		m = median(ms[r])
		if (r == "untraced") {
			printf "%-15s %9.2f %9s %9s %9s %14s\n", r, m / 1000, "1.00x", "-", "-", "-"
			continue
		}
		d = dr[r] ~ /[0-9]/ ? median(dr[r]) : "-"
		x = sk[r] ~ /[0-9]/ ? median(sk[r]) : "-"
		printf "%-15s %9.2f %8.2fx %9s %9s %14.1f\n", r, m / 1000, m / base, d, x, median(kb[r]) / 1024
	}
}' "$dir/results"
echo
echo "command: bench/top-watch/run.sh $ROUNDS $REPEAT"
