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
