#!/bin/sh
# kmemtrace stat: counts of every kmem event while a command runs, system
# wide, or per interval; the command's exit status; nothing on disk.
# test: alone
. "$(dirname "$0")/lib.sh"

test_expect_success 'a target and -p do not go together' '
	"$KMEMTRACE" stat -p 1 -- true 2>err; test $? = 129 &&
	grep "^kmemtrace stat: error: -p goes with" err &&
	test $(wc -l <err) = 1
'

test_expect_success 'a bad interval is refused' '
	"$KMEMTRACE" stat -I 1 -- true 2>err; test $? = 129 &&
	grep "^kmemtrace stat: error: option .-I. needs a number from 10 to " err &&
	test $(wc -l <err) = 1
'

test_expect_success 'formats: --format and --json exclude each other, an unknown one lists them' '
	"$KMEMTRACE" stat --json --format csv -- true 2>err; test $? = 129 &&
	grep "^kmemtrace stat: error: --format and --json exclude each other" err &&
	"$KMEMTRACE" stat --format html -- true 2>err; test $? = 129 &&
	grep "^kmemtrace stat: error: unknown format .html.: the formats are text, json, csv, ndjson" err &&
	test $(wc -l <err) = 1
'

if ! have_root_tracefs; then
	test_skip 'stat' 'needs root and tracefs'
	test_done
	exit 0
fi

# 50 processes: each fork allocates a task_struct and page tables
FORKS='i=0; while [ $i -lt 50 ]; do /bin/true; i=$((i + 1)); done'

count () {
	sed -nE "s/^ *([0-9,]+) +kmem:$1 +#.*/\1/p" "$2" | tr -d ,
}

test_expect_success 'stat -- CMD counts the command'"'"'s events' '
	"$KMEMTRACE" stat -o out -- sh -c "$FORKS" &&
	grep "^ Kmem event counts for '\''sh -c " out &&
	test "$(count kmem_cache_alloc out)" -ge 50 &&
	test "$(count mm_page_alloc out)" -ge 50 &&
	grep -E "^ +[0-9.]+ seconds time elapsed" out
'

test_expect_success 'every kmem event of the kernel is listed' '
	for e in $(ls /sys/kernel/tracing/events/kmem); do
		test -d /sys/kernel/tracing/events/kmem/$e || continue
		grep -q " kmem:$e " out || { echo "no $e"; exit 1; }
	done
'

test_expect_success 'the counts go to stderr by default, as perf stat' '
	"$KMEMTRACE" stat -- true >stdout 2>stderr &&
	test_cmp /dev/null stdout &&
	grep "kmem:kmalloc" stderr
'

test_expect_success 'stat -- false returns 1' '
	{ "$KMEMTRACE" stat -- false 2>/dev/null; rc=$?; } &&
	test $rc = 1
'

test_expect_success 'the exit status of the command is passed on' '
	{ "$KMEMTRACE" stat -o out -- sh -c "exit 3"; rc=$?; } &&
	test $rc = 3 &&
	grep "^ Kmem event counts for '\''sh -c exit 3'\'':" out
'

test_expect_success 'a command that cannot start: 2 and one line' '
	{ "$KMEMTRACE" stat -- /nonexistent/cmd 2>err; rc=$?; } &&
	test $rc = 2 &&
	test $(wc -l <err) = 1 &&
	grep "cannot run" err
'

test_expect_success '--json: one object, counts and rates' '
	"$KMEMTRACE" stat --json -o out.json -- sh -c "$FORKS" &&
	python3 -c "
import json
j = json.load(open(\"out.json\"))
ev = {e[\"event\"]: e for e in j[\"events\"]}
assert ev[\"kmem:kmem_cache_alloc\"][\"count\"] >= 50, ev
assert ev[\"kmem:kmem_cache_alloc\"][\"rate\"] > 0
assert j[\"seconds\"] > 0
"
'

test_expect_success '--format json is --json' '
	"$KMEMTRACE" stat --format json -o fj.json -- sh -c "$FORKS" &&
	python3 -c "
import json
lines = open(\"fj.json\").read().splitlines()
assert len(lines) == 1
j = json.loads(lines[0])
assert list(j) == [\"target\", \"seconds\", \"events\"], list(j)
assert list(j[\"events\"][0]) == [\"event\", \"count\", \"rate\"]
"
'

# every row says where it comes from, as report's rows do
test_expect_success '--format ndjson: the counts, each row with its host, kernel, boot and start' '
	date +%s%N >before &&
	"$KMEMTRACE" stat --format ndjson -o rows -- sh -c "$FORKS" &&
	date +%s%N >after &&
	"$KMEMTRACE" stat --format ndjson --host elsewhere -o host.rows -- true &&
	"$KMEMTRACE" stat -a -I 100 --duration 0.35 --format ndjson -o irows &&
	python3 - rows host.rows irows before after <<-\EOF
	import datetime, json, os, sys
	rows = [json.loads(l) for l in open(sys.argv[1])]
	lo, hi = (int(open(f).read()) for f in sys.argv[4:6])
	boot = open("/proc/sys/kernel/random/boot_id").read().strip()
	u = os.uname()
	epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
	for r in rows:
	    assert r["host"] == u.nodename and r["kernel"] == u.release, r
	    assert r["boot_id"] == boot, r
	    assert lo <= r["start_unix_ns"] <= hi, (lo, r["start_unix_ns"], hi)
	    t = datetime.datetime.strptime(r["start_time"], "%Y-%m-%dT%H:%M:%S.%fZ")
	    t = t.replace(tzinfo=datetime.timezone.utc) - epoch
	    assert t // datetime.timedelta(microseconds=1) == r["start_unix_ns"] // 1000, r
	summary = [r for r in rows if r["table"] == "summary"]
	events = {r["event"]: r for r in rows if r["table"] == "events"}
	assert len(summary) == 1 and summary[0]["target"].startswith("sh -c "), summary
	assert summary[0]["seconds"] > 0
	assert len(events) + 1 == len(rows), [r["table"] for r in rows]
	assert events["kmem:kmem_cache_alloc"]["count"] >= 50, events
	assert all(r["span_ns"] > 0 for r in rows)
	assert all(r["host"] == "elsewhere" for r in map(json.loads, open(sys.argv[2])))
	# by interval: a summary row each, with its time, the rows of one
	# interval share its span
	rows = [json.loads(l) for l in open(sys.argv[3])]
	times = [r["time"] for r in rows if r["table"] == "summary"]
	assert 3 <= len(times) <= 5 and times == sorted(times), times
	starts = sorted({r["first_ts_ns"] for r in rows})
	assert len(starts) == len(times), (starts, times)
	EOF
'

test_expect_success '--format csv: one row a value, the counts as --json names them' '
	"$KMEMTRACE" stat --format csv -o out.csv -- sh -c "$FORKS" &&
	python3 - out.csv <<-\EOF
	import csv, sys
	rows = list(csv.reader(open(sys.argv[1])))
	assert rows[0] == ["table", "row", "column", "value"], rows[0]
	cells = {(t, int(r), c): v for t, r, c, v in rows[1:]}
	assert cells[("summary", 0, "target")].startswith("sh -c ")
	assert float(cells[("summary", 0, "seconds")]) > 0
	n = int(cells[("events_rows", 0, "drawn")])
	names = {cells[("events", i, "event")]: i for i in range(n)}
	i = names["kmem:kmem_cache_alloc"]
	assert int(cells[("events", i, "count")]) >= 50
	assert float(cells[("events", i, "rate")]) > 0
	assert {t for t, r, c in cells} == {"summary", "events", "events_rows"}, cells
	EOF
'

test_expect_success '-a -I 100 prints every interval' '
	"$KMEMTRACE" stat -a -I 100 --duration 0.55 -o out &&
	grep -c " kmem:kmem_cache_alloc " out >n &&
	test "$(cat n)" -ge 4 &&
	test "$(grep -c " kmem:kmem_cache_alloc " out)" -le 7
'

test_expect_success '-p counts a running process' '
	sh -c "while :; do ls /usr/share >/dev/null; done" &
	loop=$! &&
	"$KMEMTRACE" stat -p $loop --duration 0.5 -o out;
	rc=$?;
	kill $loop; wait $loop;
	test $rc = 0 &&
	test "$(count kmem_cache_alloc out)" -gt 0
'

test_expect_success '--duration takes the grammar of durations: 1500ms' '
	start=$(date +%s%N) &&
	"$KMEMTRACE" stat -a --duration 1500ms -o out &&
	took=$(( ($(date +%s%N) - start) / 1000000 )) &&
	echo "took $took ms" &&
	test $took -ge 1500 && test $took -lt 10000 &&
	secs=$(sed -nE "s/^ +([0-9.]+) seconds time elapsed/\1/p" out) &&
	python3 -c "import sys; assert 1.5 <= float(sys.argv[1]) < 10" "$secs"
'

# a command started in the background of a script ignores SIGINT (the
# shell's doing, and its children inherit it): SIGTERM for the command
test_expect_success 'SIGTERM stops it cleanly: the counts, and the command ended with 128 + 15' '
	sh -c "echo \$\$ >stat.pid; exec \"\$@\"" sh "$KMEMTRACE" stat -o term.out -- sleep 30 &
	pid=$! &&
	sleep 1 &&
	kill -TERM "$(cat stat.pid)" &&
	{ wait $pid; rc=$?; } &&
	test $rc = 143 &&
	test -n "$(count kmem_cache_alloc term.out)" &&
	grep -E "^ +[0-9.]+ seconds time elapsed" term.out
'

test_expect_success 'SIGINT stops -a cleanly: the counts, exit 0' '
	sh -c "echo \$\$ >stat.pid; exec \"\$@\"" sh "$KMEMTRACE" stat -a -o int-a.out &
	pid=$! &&
	sleep 1 &&
	kill -INT "$(cat stat.pid)" &&
	{ wait $pid; rc=$?; } &&
	test $rc = 0 &&
	test "$(count kmem_cache_alloc int-a.out)" -gt 0
'

test_expect_success '-p of a process that is gone: exit 1, one line' '
	dead=$(sh -c "echo \$\$") &&
	! kill -0 $dead 2>/dev/null &&
	{ "$KMEMTRACE" stat -p $dead -o dead.out 2>err; rc=$?; } &&
	test $rc = 1 &&
	grep "^kmemtrace stat: error: no process $dead: " err &&
	test $(wc -l <err) = 1
'

test_expect_success 'nothing is written to disk' '
	mkdir quiet && cd quiet &&
	"$KMEMTRACE" stat -- sh -c "$FORKS" 2>/dev/null &&
	test -z "$(ls -A)"
'

test_done
