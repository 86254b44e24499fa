#!/bin/sh
# The cost of kmemtrace serve: the kernel-heavy workload (bench/workload.sh)
# run untraced, under `kmemtrace serve` (--interval 1s) with a scraper
# fetching /metrics every second, as Prometheus would, and under
# `kmemtrace top -b -d 1` for reference, alternating run by run so that
# drift hits all alike.  The table gives the medians of the
# workload's own wall time, the slowdown (target: at most 1.15x, as top),
# the scrapes made and failed, the losses serve counted, and its peak
# resident memory in user space (VmHWM), and the CPU time the agent
# itself took while the workload ran (its user-space share of the cost:
# the rest is the programs in the kernel, on the workload's own time).
#
#   bench/serve/run.sh [ROUNDS [REPEAT]]   defaults: 1 round, 5 repeats
#
# Needs root and BPF.  KMEMTRACE= picks the binary (default build/kmemtrace).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
KMEMTRACE=${KMEMTRACE:-$TOP/build/kmemtrace}
WORKLOAD=$TOP/bench/workload.sh
ROUNDS=${1:-1}
REPEAT=${2:-5}

die () {
	echo "bench/serve: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (it loads BPF programs)"
[ -x "$KMEMTRACE" ] || die "no $KMEMTRACE: run 'make' first"

dir=$(mktemp -d "${TMPDIR:-/tmp}/kmt-bench.XXXXXX")
pid= scraper=
cleanup () {
	[ -z "$scraper" ] || kill "$scraper" 2>/dev/null
	[ -z "$pid" ] || kill "$pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port/metrics
hz=$(getconf CLK_TCK)

# the workload's wall time in ms
timed () {
	t0=$(date +%s%N)
	"$WORKLOAD" -n "$ROUNDS" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 ))
}

# a process's CPU time so far (user + system), in clock ticks
ticks () {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# a scrape a second from one long-lived process, as Prometheus makes
# them; one line per scrape.  A new python3 for each scrape would cost
# the machine ~50 ms of CPU a second (its start and urllib's import),
# which is the scraper's cost, not the agent's.
scrape () {
	exec python3 -u -c 'import sys, time, urllib.request
while True:
    try:
        urllib.request.urlopen(sys.argv[1], timeout=10).read()
        print("ok")
    except Exception:
        print("failed")
    time.sleep(1)' "$url"
}

run_serve () {
	"$KMEMTRACE" serve --listen 127.0.0.1:$port --interval 1 2>"$dir/err" &
	pid=$!
	tries=0
	while ! grep -q "^kmemtrace serve: listening" "$dir/err"; do
		tries=$((tries + 1))
		[ $tries -le 300 ] || die "serve did not start: $(cat "$dir/err")"
		sleep 0.1
	done
	scrape >"$dir/scrapes" &
	scraper=$!
	sleep 1
	t0=$(ticks $pid)
	ms=$(timed)
	cpu=$(( ($(ticks $pid) - t0) * 1000 / hz ))
	kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	lost=$(python3 -c 'import sys, urllib.request
t = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
print(sum(int(l.split()[-1]) for l in t.splitlines()
          if l.startswith("kmemtrace_lost_events_total")))' "$url")
	kill "$scraper"; wait "$scraper" 2>/dev/null; scraper=
	kill -TERM "$pid"; wait "$pid"; pid=
	echo "serve $ms $(grep -c '^ok' "$dir/scrapes") $(grep -c '^failed' "$dir/scrapes") $lost $kb $cpu" >>"$dir/results"
}

# top -b at its defaults, the same counting drawn to a file: the
# reference the target is set by
run_top () {
	"$KMEMTRACE" top -b -d 1 -o "$dir/top.out" 2>"$dir/top.err" &
	pid=$!
	tries=0
	while ! grep -q "^kmemtrace top:" "$dir/top.err"; do
		tries=$((tries + 1))
		[ $tries -le 300 ] || die "top did not start: $(cat "$dir/top.err")"
		sleep 0.1
	done
	sleep 1
	t0=$(ticks $pid)
	ms=$(timed)
	cpu=$(( ($(ticks $pid) - t0) * 1000 / hz ))
	kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	kill -TERM "$pid"; wait "$pid"; pid=
	echo "top $ms - - - $kb $cpu" >>"$dir/results"
}

i=0
while [ $i -lt "$REPEAT" ]; do
	echo "untraced $(timed) - - - - -" >>"$dir/results"
	run_serve
	run_top
	i=$((i + 1))
done

python3 - "$dir/results" <<'PY'
import statistics, sys
rows = {}
for l in open(sys.argv[1]):
    w, ms, ok, failed, lost, kb, cpu = l.split()
    rows.setdefault(w, []).append((int(ms), ok, failed, lost, kb, cpu))
base = statistics.median(r[0] for r in rows["untraced"])
print("%-9s %6s %6s %8s %8s %10s %9s %9s" % ("way", "runs", "ms", "ratio",
      "scrapes", "lost", "VmHWM", "cpu ms"))
for w in ("untraced", "top", "serve"):
    rs = rows[w]
    med = statistics.median(r[0] for r in rs)
    if w == "untraced":
        print("%-9s %6d %6d %8s %8s %10s %9s %9s" % (w, len(rs), med, "1.00x",
              "-", "-", "-", "-"))
        continue
    if w == "top":
        print("%-9s %6d %6d %7.2fx %8s %10s %6d KiB %9d" % (w, len(rs), med,
              med / base, "-", "-", max(int(r[4]) for r in rs),
              statistics.median(int(r[5]) for r in rs)))
        continue
    ok = sum(int(r[1]) for r in rs)
    failed = sum(int(r[2]) for r in rs)
    lost = statistics.median(int(r[3]) for r in rs)
    kb = max(int(r[4]) for r in rs)
    print("%-9s %6d %6d %7.2fx %4d/%-3d %10d %6d KiB %9d" % (w, len(rs), med,
          med / base, ok, failed, lost, kb,
          statistics.median(int(r[5]) for r in rs)))
PY
