#!/bin/sh
# kmemtrace record on this machine: the file trace-cmd reads, its mode,
# every way out leaving no tracefs instance and the top level untouched,
# the command's exit status, --follow, -p, -g, a full disk.
# test: alone
. "$(dirname "$0")/lib.sh"

T=/sys/kernel/tracing
KMEM='kmalloc|kmem_cache_alloc|kfree|kmem_cache_free|mm_page_alloc|mm_page_free|mm_page_free_batched|mm_page_alloc_zone_locked|mm_page_pcpu_drain|mm_page_alloc_extfrag|percpu_alloc_percpu|percpu_free_percpu|percpu_alloc_percpu_fail|percpu_create_chunk|percpu_destroy_chunk|alloc_vmap_area|free_vmap_area_noflush|purge_vmap_area_lazy'

test_expect_success 'usage errors: 129 and one line, before anything else' '
	"$KMEMTRACE" record -p 1 -- true 2>err; test $? = 129 &&
	grep "^kmemtrace record: error: -p goes with neither" err &&
	"$KMEMTRACE" record --follow 2>err; test $? = 129 &&
	grep "^kmemtrace record: error: --follow needs a command" err &&
	"$KMEMTRACE" record --duration soon 2>err; test $? = 129 &&
	grep "option .--duration. needs a duration such as 500ms, 2s or 1m, above 0, not .soon." err &&
	"$KMEMTRACE" record --bogus 2>err; test $? = 129 &&
	"$KMEMTRACE" record --slab -g 2>err; test $? = 129 &&
	grep "^kmemtrace record: error: -g records page, percpu and vmalloc allocation stacks" err &&
	test $(wc -l <err) = 1
'

if ! have_root_tracefs; then
	test_skip 'record' 'needs root and tracefs'
	test_done
	exit 0
fi
if ! command -v trace-cmd >/dev/null 2>&1; then
	test_skip 'record' 'needs trace-cmd (make deps installs it)'
	test_done
	exit 0
fi

# the top-level state kmemtrace must never change
top_state () {
	for f in tracing_on current_tracer set_event buffer_size_kb \
		 events/kmem/enable trace_options; do
		printf '%s: ' "$f"
		cat "$T/$f"
	done
}
top_state >"$TRASH/top.before"

# kmem events in trace-cmd's view of a recording
tc_count () {
	trace-cmd report "$1" 2>/dev/null |
		grep -cE "\] +[0-9]+\.[0-9]+: ($KMEM): "
}

# pids of the kmem events trace-cmd shows, one per line
tc_pids () {
	trace-cmd report "$1" 2>/dev/null |
		sed -nE "s/.*-([0-9]+) +\[[0-9]+\] +[0-9]+\.[0-9]+: ($KMEM): .*/\1/p" |
		sort -u
}

check_value () {
	"$KMEMTRACE" check "$2" | sed -n "s/^$1: //p"
}

# fails if an instance of a kmemtrace that is gone is still there
no_stale_instance () {
	for d in "$T"/instances/kmemtrace-*; do
		[ -d "$d" ] || continue
		pid=${d##*-}
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "instance $d outlived its kmemtrace" >&2
			return 1
		fi
	done
	return 0
}

# runs kmemtrace record with "$@", leaving its pid in rec.pid
record () {
	sh -c 'echo $$ >rec.pid; exec "$@"' sh "$KMEMTRACE" record "$@"
}

instance_gone () {
	! [ -d "$T/instances/kmemtrace-$(cat rec.pid)" ]
}

WORK='ls -R /usr/share/doc >/dev/null'

# the command notes the recorder's threads (its parent's) as it starts
test_expect_success 'record -- CMD: trace-cmd reads the same events as check' '
	record -o a.dat -- sh -c "ls /proc/\$PPID/task >tasks; $WORK" 2>err &&
	n=$(check_value events a.dat) &&
	test "$n" -gt 100 &&
	test "$(tc_count a.dat)" = "$n" &&
	test "$(check_value status a.dat)" = ok
'

test_expect_success 'the summary line counts the same events' '
	n=$(check_value events a.dat) &&
	grep "^kmemtrace record: $n events, 0 lost, wrote a.dat" err
'

test_expect_success 'the recorder leaves its own threads out of the recording' '
	# its readers allocate as they splice pages.  By thread id, not by
	# name: another kmemtrace on the machine is recorded, rightly, and
	# the command is called kmemtrace until its exec
	grep -qx "$(cat rec.pid)" tasks &&
	test $(wc -l <tasks) -ge 2 &&
	tc_pids a.dat >pids &&
	test -s pids &&
	sort tasks >tasks.sorted &&
	comm -12 pids tasks.sorted >self &&
	cat self &&
	! test -s self
'

test_expect_success 'the recording is mode 0600 (it holds kernel addresses)' '
	test "$(stat -c %a a.dat)" = 600
'

test_expect_success 'kallsyms and the command names are in the file' '
	trace-cmd report a.dat 2>/dev/null | grep -E "call_site=[a-z_]+[a-z0-9_.]*\+0x" >syms &&
	test -s syms &&
	trace-cmd report a.dat 2>/dev/null | grep -E "^ +ls-[0-9]+ " >ls &&
	test -s ls
'

# the boot id and the wall clock as tracing started (kmemtrace's option
# 0x4b55): the report puts the first event between the wall clock read
# before the recording and after it; trace-cmd skips the option
test_expect_success 'the boot id and the start on the wall clock; trace-cmd still reads it' '
	date +%s%N >before &&
	record -o boot.dat -- sh -c "$WORK" 2>err &&
	date +%s%N >after &&
	"$KMEMTRACE" report --format ndjson --caches boot.dat >rows &&
	"$KMEMTRACE" report --json --caches boot.dat >report.json &&
	python3 - rows report.json before after /proc/sys/kernel/random/boot_id <<-\EOF &&
	import datetime, json, sys
	rows = [json.loads(l) for l in open(sys.argv[1])]
	rep = json.load(open(sys.argv[2]))
	lo, hi = (int(open(f).read()) for f in sys.argv[3:5])
	boot = open(sys.argv[5]).read().strip()
	assert rows
	for o in rows + [rep]:
	    assert o["boot_id"] == boot, (o["boot_id"], boot)
	    ns = o["start_unix_ns"]
	    assert lo <= ns <= hi, (lo, ns, hi)
	    t = datetime.datetime.strptime(o["start_time"], "%Y-%m-%dT%H:%M:%S.%fZ")
	    t = t.replace(tzinfo=datetime.timezone.utc)
	    us = (t - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // datetime.timedelta(microseconds=1)
	    assert us == ns // 1000, (o["start_time"], ns)
	EOF
	"$KMEMTRACE" report --caches boot.dat >report.txt &&
	grep -x "# start:  [-0-9]* [:.0-9]* UTC (boot $(cat /proc/sys/kernel/random/boot_id))" report.txt &&
	n=$(check_value events boot.dat) &&
	test "$n" -gt 100 &&
	trace-cmd report boot.dat >tc.out 2>tc.err &&
	! test -s tc.err &&
	test "$(tc_count boot.dat)" = "$n"
'

# the CPUs of each NUMA node (kmemtrace's option 0x4b56), read from this
# machine's sysfs as the recording was made: the reader's map is that,
# and the NUMA figure is counted against it
test_expect_success 'the CPU-to-node map of this machine is in the file, and the figure uses it' '
	python3 - >want <<-\EOF &&
	import glob, os, re
	cpus = {}
	for d in glob.glob("/sys/devices/system/node/node*"):
	    m = re.fullmatch(r"node(\d+)", os.path.basename(d))
	    if not m:
	        continue
	    for part in filter(None, open(d + "/cpulist").read().strip().split(",")):
	        a, _, b = part.partition("-")
	        for c in range(int(a), int(b or a) + 1):
	            cpus[c] = int(m.group(1))
	for c in sorted(cpus):
	    print(c, cpus[c])
	if not cpus:
	    print("none")
	EOF
	"$HELPERS/kmt-dump-events" -N a.dat >map &&
	test_cmp want map &&
	"$HELPERS/kmt-dump-events" a.dat | awk -v MAP="$(cat map)" "
		BEGIN { n = split(MAP, m, \"\\n\")
			for (i = 1; i <= n; i++) { split(m[i], p, \" \"); node[p[1]] = p[2] } }
		\$4 ~ /^(kmalloc|kmem_cache_alloc)\$/ {
			all++; if (\$12 >= 0 && (\$2 in node) && node[\$2] != \$12) x++ }
		END { print \"Cross CPU allocations: \" x + 0 \"/\" all \" (NUMA node mismatches, as perf kmem counts them)\" }" >want &&
	"$KMEMTRACE" report --slab a.dat | grep "^Cross CPU allocations:" >got &&
	test_cmp want got
'

test_expect_success 'no map (trace-cmd'"'"'s trace.dat) or a damaged one: Cross CPU allocations not recorded' '
	echo "Cross CPU allocations: not recorded (the recording has no CPU-to-node map)" >want &&
	"$KMEMTRACE" report --slab "$DATA/capture.dat" | grep "^Cross CPU allocations:" >got &&
	test_cmp want got &&
	python3 - a.dat cpu.dat magic.dat <<-\EOF &&
	import sys
	d = bytearray(open(sys.argv[1], "rb").read())
	at = d.index(b"kmemtrace nodes\n") + 16
	cpu = bytearray(d)
	cpu[d.index(b" ", at) + 1] = ord("x")	# the first CPU list: not one
	open(sys.argv[2], "wb").write(cpu)
	d[at - 2] = ord("Z")			# not the nodes option text
	open(sys.argv[3], "wb").write(d)
	EOF
	for f in cpu magic; do
		"$HELPERS/kmt-dump-events" -N $f.dat >map &&
		echo none >none &&
		test_cmp none map &&
		"$KMEMTRACE" report --slab $f.dat | grep "^Cross CPU allocations:" >got &&
		test_cmp want got &&
		test "$(tc_count $f.dat)" = "$(check_value events a.dat)" || return 1
	done
'

test_expect_success 'the instance is gone and the top level is unchanged' '
	instance_gone && no_stale_instance &&
	top_state >top.after &&
	test_cmp "$TRASH/top.before" top.after
'

test_expect_success '--no-kallsyms leaves the symbols out' '
	record -q --no-kallsyms -o nk.dat -- true &&
	test "$(check_value status nk.dat)" = ok &&
	test $(stat -c %s nk.dat) -lt $(( $(stat -c %s a.dat) - 1000000 ))
'

test_expect_success 'an existing output is kept as FILE.old' '
	cp nk.dat keep.dat &&
	record -q -o keep.dat -- true &&
	cmp nk.dat keep.dat.old &&
	test "$(check_value status keep.dat)" = ok
'

test_expect_success '-o - writes the recording to stdout, in order, for report -i -' '
	record -o - -- sh -c "echo from-the-command; $WORK" 2>err |
		"$KMEMTRACE" report -i - >rep.txt &&
	grep -x from-the-command err &&
	n=$(sed -n "s/^kmemtrace record: \([0-9]*\) events, 0 lost, wrote the standard output .*/\1/p" err) &&
	test "$n" -gt 100 &&
	sed -n "s/^# events: //p" rep.txt | tr -c "0-9\n" " " |
		awk "{ for (i = 1; i <= NF; i++) s += \$i } END { print s }" >got &&
	echo "$n" >want &&
	test_cmp want got &&
	instance_gone && no_stale_instance
'

test_expect_success '-o - into a file: whole, trace-cmd reads it, nothing renamed' '
	echo keep >out.dat &&
	record -q -o - -- sh -c "$WORK" >out.dat 2>err &&
	! test -s err &&
	test "$(check_value status out.dat)" = ok &&
	n=$(check_value events out.dat) &&
	test "$n" -gt 100 &&
	test "$(tc_count out.dat)" = "$n" &&
	! test -e out.dat.old && ! test -e -.old && ! test -e -
'

test_expect_success '-o /dev/null records and discards; /dev/null stays' '
	record -o /dev/null -- sh -c "$WORK" 2>err &&
	grep "^kmemtrace record: [1-9][0-9]* events, 0 lost, wrote /dev/null" err &&
	test -c /dev/null && ! test -e /dev/null.old &&
	instance_gone && no_stale_instance
'

test_expect_success '-o - whose reader goes away: exit 2, one error, no instance left' '
	{ record -o - -- sh -c "$WORK" 2>err; echo $? >rc; } | head -c 10 >/dev/null &&
	test "$(cat rc)" = 2 &&
	grep "^kmemtrace record: error: cannot write the standard output: Broken pipe" err &&
	instance_gone && no_stale_instance
'

test_expect_success '-- false returns 1, and the file is still written' '
	rm -f f.dat &&
	{ record -q -o f.dat -- false; rc=$?; } &&
	test $rc = 1 &&
	test "$(check_value status f.dat)" = ok &&
	instance_gone
'

test_expect_success 'the exit status of the command is passed on' '
	{ record -q -o s.dat -- sh -c "exit 3"; rc=$?; } &&
	test $rc = 3
'

test_expect_success 'a command that cannot start fails cleanly, exit 2' '
	{ record -o nocmd.dat -- /nonexistent/cmd 2>err; rc=$?; } &&
	test $rc = 2 &&
	grep "cannot run '\''/nonexistent/cmd'\''" err &&
	test $(wc -l <err) = 1 &&
	! test -e nocmd.dat &&
	instance_gone && no_stale_instance
'

test_expect_success 'a missing output directory fails cleanly' '
	ls -A | grep -v "^files\." >files.before &&
	{ record -o nodir/x.dat -- true 2>err; rc=$?; } &&
	test $rc = 2 &&
	grep "nodir" err &&
	test $(wc -l <err) = 1 &&
	ls -A | grep -v "^files\." >files.after &&
	test_cmp files.before files.after &&
	instance_gone && no_stale_instance
'

# records -a in the background and stops it with signal $1 after a second
stop_with () {
	rm -f "sig-$1.dat"
	record -q -a -o "sig-$1.dat" &
	pid=$!
	sh -c "$WORK" ; sleep 1
	kill -"$1" "$(cat rec.pid)"
	wait $pid
}

test_expect_success 'SIGINT in the middle yields a valid file' '
	stop_with INT &&
	test "$(check_value status sig-INT.dat)" = ok &&
	n=$(check_value events sig-INT.dat) &&
	test "$n" -gt 0 &&
	test "$(tc_count sig-INT.dat)" = "$n" &&
	instance_gone
'

test_expect_success 'SIGTERM and SIGHUP too, and no instance is left' '
	stop_with TERM &&
	test "$(check_value status sig-TERM.dat)" = ok &&
	instance_gone &&
	stop_with HUP &&
	test "$(check_value status sig-HUP.dat)" = ok &&
	instance_gone && no_stale_instance
'

test_expect_success '--follow keeps only the command and its children' '
	record -q --follow -o fol.dat -- \
		sh -c "echo \$\$ >pids; ls -R /usr/share/doc >/dev/null & echo \$! >>pids; wait" &&
	tc_pids fol.dat >seen &&
	test -s seen &&
	sort -u pids >want &&
	comm -23 seen want >others &&
	test_cmp /dev/null others
'

test_expect_success 'without --follow other processes are recorded too' '
	record -q -o nofol.dat -- \
		sh -c "echo \$\$ >pids; ls -R /usr/share/doc >/dev/null & echo \$! >>pids; wait" &&
	tc_pids nofol.dat >seen &&
	sort -u pids >want &&
	comm -23 seen want >others &&
	test -s others
'

# four threads of one process, each making and closing 50 eventfds
cat >threads.py <<\EOF
import os, threading
tids = []
def work():
    tids.append(threading.get_native_id())
    for fd in [os.eventfd(0) for _ in range(50)]:
        os.close(fd)
ts = [threading.Thread(target=work) for _ in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(os.getpid(), *tids)
EOF

test_expect_success 'the tasks of a process: --procs --by tgid makes them one row' '
	record -q --follow -o thr.dat -- python3 threads.py >ids &&
	"$KMEMTRACE" report -i thr.dat --procs -l 0 --json >bypid.json &&
	"$KMEMTRACE" report -i thr.dat --procs --by tgid -l 0 --json >bytgid.json &&
	python3 - ids bypid.json bytgid.json <<-\EOF
	import json, sys
	ids = [int(x) for x in open(sys.argv[1]).read().split()]
	main, threads = ids[0], ids[1:]
	bypid = json.load(open(sys.argv[2]))["procs"]
	bytgid = json.load(open(sys.argv[3]))["procs"]
	assert len(set(threads)) == 4 and main not in threads, ids
	rows = {r["pid"]: r for r in bypid["processes"]}
	# each thread made its 50 eventfds (a kmalloc each) as itself
	for t in threads:
	    assert rows[t]["slab_allocs"] >= 50, rows.get(t)
	mine = [r for r in bytgid["processes"] if r["tgid"] == main]
	assert len(mine) == 1, bytgid["processes"]
	want = sum(rows[p]["slab_allocs"] for p in [main] + threads if p in rows)
	assert mine[0]["slab_allocs"] == want, (mine[0], want)
	assert mine[0]["comm"] == "python3", mine[0]
	assert bytgid["totals"]["tasks"] == len(rows), bytgid["totals"]
	assert len(bytgid["processes"]) <= len(rows) - 4
	EOF
'

test_expect_success '-p records only the given process' '
	sh -c "while :; do ls /usr/share >/dev/null; done" &
	loop=$! &&
	record -q -p $loop --duration 1 -o p.dat;
	rc=$?;
	kill $loop && wait $loop;
	test $rc = 0 &&
	tc_pids p.dat >seen &&
	echo $loop >want &&
	test_cmp want seen
'

test_expect_success '-g records a kernel stack with each page allocation' '
	record -q -g -o g.dat -- sh -c "$WORK" &&
	test "$(check_value stacks g.dat)" = yes &&
	allocs=$(check_value mm_page_alloc g.dat) &&
	test "$allocs" -gt 0 &&
	# percpu and vmalloc allocations carry a stack as well
	allocs=$((allocs + $(check_value percpu_alloc_percpu g.dat) +
		$(check_value alloc_vmap_area g.dat))) &&
	stacks=$(trace-cmd report g.dat 2>/dev/null | grep -c "kernel_stack:") &&
	echo "$allocs allocations, $stacks stacks" &&
	# a stack can outlive its event at the very edge of the recording
	test "$stacks" -le $((allocs + allocs / 100 + 1)) &&
	# a stack cannot be written from inside another event of the same
	# context (the ring buffer refuses the recursion): nearly all, not all
	test $((stacks * 10)) -ge $((allocs * 9))
'

test_expect_success '--slab records the slab events only' '
	record -q --slab -o slab.dat -- sh -c "$WORK" &&
	test "$(check_value mm_page_alloc slab.dat)" = 0 &&
	test "$(check_value kmem_cache_alloc slab.dat)" -gt 0
'

# the bounds say the recording ends by itself, not how fast: draining and
# writing what every CPU made took 14 s under ASan on a loaded machine
test_expect_success '--duration ends an -a recording' '
	start=$(date +%s) &&
	record -q -a --duration 1 -o dur.dat &&
	test $(( $(date +%s) - start )) -lt 120 &&
	test "$(check_value status dur.dat)" = ok
'

test_expect_success '--duration takes the grammar of durations: 1500ms' '
	start=$(date +%s%N) &&
	record -q -a --duration 1500ms -o ms.dat &&
	took=$(( ($(date +%s%N) - start) / 1000000 )) &&
	echo "took $took ms" &&
	test $took -ge 1500 && test $took -lt 120000 &&
	test "$(check_value status ms.dat)" = ok
'

# a command started in the background of a script ignores SIGINT (the
# shell's doing, and its children inherit it): SIGTERM for the command
test_expect_success 'SIGTERM while a command runs: the command ends too, 128 + 15, a valid file' '
	record -q -o term.dat -- sleep 30 &
	pid=$! &&
	sleep 1 &&
	kill -TERM "$(cat rec.pid)" &&
	{ wait $pid; rc=$?; } &&
	test $rc = 143 &&
	test "$(check_value status term.dat)" = ok &&
	instance_gone && no_stale_instance
'

test_expect_success '-p of a process that is gone: exit 1, one line, nothing written' '
	dead=$(sh -c "echo \$\$") &&
	! kill -0 $dead 2>/dev/null &&
	{ record -q -p $dead -o dead.dat 2>err; rc=$?; } &&
	test $rc = 1 &&
	grep "^kmemtrace record: error: no process $dead: " err &&
	test $(wc -l <err) = 1 &&
	! test -e dead.dat &&
	instance_gone && no_stale_instance
'

if command -v setpriv >/dev/null 2>&1 &&
   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$KMEMTRACE"; then
	test_expect_success 'not root: a one-line error' '
		{ setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$KMEMTRACE" record -o /tmp/never.dat -- true 2>err; rc=$?; } &&
		test $rc = 2 &&
		grep "needs root" err &&
		test $(wc -l <err) = 1 &&
		! test -e /tmp/never.dat
	'
else
	test_skip 'not root: a one-line error' 'the binary is not reachable by nobody'
fi

if mkdir small && mount -t tmpfs -o size=16m tmpfs small 2>/dev/null; then
	test_expect_success 'a full disk stops, keeps a valid file and says so' '
		{ record -o small/full.dat -- "$TOP/bench/workload.sh" 2 2>err; rc=$?; } &&
		test $rc = 2 &&
		grep "the disk filled" err &&
		test "$(check_value status small/full.dat)" = ok &&
		n=$(check_value events small/full.dat) &&
		test "$n" -gt 0 &&
		test "$(tc_count small/full.dat)" = "$n" &&
		test "$(ls -A small)" = full.dat &&
		instance_gone
	'
	umount small
else
	test_skip 'a full disk stops, keeps a valid file and says so' 'cannot mount a small tmpfs'
fi

test_expect_success 'at the end: no instance left, the top level unchanged' '
	no_stale_instance &&
	top_state >top.after &&
	test_cmp "$TRASH/top.before" top.after
'

test_done
