#!/bin/sh
# A report never hides what it could not read or show: unreadable
# records are stated in the report (text and JSON) with where and why,
# said once on stderr, and exit 3; a recording without kmem events, a
# --time window outside the recording and a --cpu it does not have are
# errors; a filter that matches nothing is said in the report; --time
# takes seconds from the recording's start (+S).
. "$(dirname "$0")/lib.sh"

# capture.trace.txt with line 21 made unreadable (its ptr= dropped)
sed '21s/ ptr=[^ ]*//' "$DATA/capture.trace.txt" >damaged.txt

test_expect_success 'unreadable lines: in the header with where and why, once on stderr, exit 3' '
	"$KMEMTRACE" report -i damaged.txt >out 2>err; test $? = 3 &&
	grep "^# unreadable: 1 record, left out of this report (line 21: kmalloc without ptr=)$" out &&
	test $(wc -l <err) = 1 &&
	grep "warning: .damaged.txt.: 1 record could not be read, left out of the report; the first at line 21: kmalloc without ptr=" err
'

test_expect_success 'unreadable lines: in the JSON too' '
	"$KMEMTRACE" report -i damaged.txt --json >out.json 2>err; test $? = 3 &&
	python3 -c "
import json, sys
d = json.load(open(\"out.json\"))
assert d[\"unreadable_records\"] == 1, d[\"unreadable_records\"]
assert d[\"unreadable\"] == [{\"line\": 21, \"why\": \"kmalloc without ptr=\"}], d[\"unreadable\"]
"
'

test_expect_success 'a whole recording: 0 unreadable, exit 0, nothing on stderr' '
	"$KMEMTRACE" report -i "$DATA/capture.trace.txt" >out 2>err &&
	grep "^# unreadable: 0 records$" out &&
	! test -s err
'

test_expect_success 'a recording with no kmem event: an error with a hint' '
	grep -v "kmem\|mm_page\|kmalloc\|kfree\|=>\|<stack trace>" "$DATA/capture.trace.txt" >nokmem.txt &&
	grep sched_switch nokmem.txt >/dev/null || echo "          <idle>-0       [000] d..2.  1047.779809: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=1 next_prio=120" >>nokmem.txt &&
	test_must_fail "$KMEMTRACE" report -i nokmem.txt >out 2>err &&
	test $(wc -l <err) = 1 &&
	grep "has no kmem events (1 event of other kinds): record them with" err &&
	! test -s out
'

test_expect_success '--time outside the recording: an error giving its span' '
	"$KMEMTRACE" report -i "$DATA/capture.dat" --time 1,2 >out 2>err; test $? = 1 &&
	grep "error: --time 1,2 is outside the recording: the recording spans 1047.779809 .. 1047.785963 (+0 .. +0.006154 s from its start)" err &&
	! test -s out
'

test_expect_success '--time +S,+S: seconds from the first event' '
	"$KMEMTRACE" report -i "$DATA/capture.dat" --time +0.001,+0.002 --json >rel.json &&
	first=$(python3 -c "import json; print(json.load(open(\"rel.json\"))[\"first_ts_ns\"])") &&
	abs=$(python3 -c "f=$first; print(\"%d.%09d,%d.%09d\" % ((f + 10**6) // 10**9, (f + 10**6) % 10**9, (f + 2 * 10**6) // 10**9, (f + 2 * 10**6) % 10**9))") &&
	"$KMEMTRACE" report -i "$DATA/capture.dat" --time $abs --json >abs.json &&
	python3 -c "
import json
r = json.load(open(\"rel.json\")); a = json.load(open(\"abs.json\"))
f = r[\"first_ts_ns\"]
assert r[\"window\"] == a[\"window\"] == {\"start_ns\": f + 10**6, \"end_ns\": f + 2 * 10**6}, (r[\"window\"], a[\"window\"])
del r[\"window\"], a[\"window\"]
assert r == a
n = r[\"slab\"][\"summary\"]
assert 0 < n[\"kmalloc\"] + n[\"kmem_cache_alloc\"] < 165, n
" &&
	"$KMEMTRACE" report -i "$DATA/capture.dat" --time +0.004, >/dev/null &&
	"$KMEMTRACE" report -i "$DATA/capture.dat" --time +0.002,+0 2>err
	test $? = 129 &&
	grep "from its start as +S" err
'

test_expect_success '--cpu the recording does not have: an error' '
	test_must_fail "$KMEMTRACE" report -i "$DATA/capture.dat" --cpu 9 >out 2>err &&
	grep "error: --cpu 9: the recording has CPUs 0-1" err &&
	! test -s out
'

test_expect_success 'a filter that matches nothing: said in the report and on stderr' '
	"$KMEMTRACE" report -i "$DATA/capture.dat" --comm nosuch --leaks >out 2>err &&
	grep "^# filter: --comm nosuch matches no event of the recording$" out &&
	grep "warning: --comm nosuch matches no event of the recording" err &&
	"$KMEMTRACE" report -i "$DATA/capture.dat" --comm nosuch --leaks --json >out.json &&
	grep "\"matches_nothing\": \"--comm nosuch matches no event of the recording\"" out.json
'

test_done
