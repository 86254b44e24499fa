#!/bin/sh
# The HTML report of the benchmark recording: its size, the time to make
# it, and the time headless Chromium takes to draw it (from the start of
# the navigation to the page drawn, as the page measures it).  Targets:
# at most 5 MB and 2 s.
#
#   bench/html/run.sh            (uses bench/report's recording; RUNS=5)
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
KMT=${KMT:-$TOP/build/kmemtrace}
DIR=${KMT_BENCH_DIR:-/var/tmp/kmemtrace-bench}
RUNS=${RUNS:-5}
data=$DIR/bench.perf.data
[ -s "$data" ] || { echo "bench/html: no $data: run bench/report/run.sh first" >&2; exit 1; }
command -v chromium >/dev/null || { echo "bench/html: needs chromium" >&2; exit 1; }
[ -x "$KMT" ] || make -C "$TOP" >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 "$TOP/bench/lib/measure.py" --runs "$RUNS" \
	--label html -- "$KMT" report --html "$out/bench.html" "$data"
size=$(stat -c %s "$out/bench.html")
i=0
: >"$out/ms"
while [ $i -lt "$RUNS" ]; do
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu \
		--user-data-dir="$out/profile" \
		--dump-dom "file://$out/bench.html" 2>/dev/null |
		sed -n 's/.*data-render-ms="\([0-9]*\)".*/\1/p' >>"$out/ms"
	i=$((i + 1))
done
ms=$(sort -n "$out/ms" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "bench.html: $size bytes ($(awk "BEGIN { printf \"%.2f\", $size / 1048576 }") MiB), drawn in $ms ms (median of $RUNS in headless Chromium)"
