#!/bin/sh
# top and watch against the recording, on one deterministic workload seen
# by all three at once: kmt-fdleak makes 1000 eventfds and keeps 100
# open.  watch --sample 1 finds the same outstanding objects per callsite
# as `record` + `report --leaks`, and `top -b` counts the same
# allocations per callsite as `report --caller` (to the event, unless BPF
# says it skipped some: then by no more than those).
# test: alone
. "$(dirname "$0")/lib.sh"

# BPF needs root and the kernel's BTF; anything else is said by top itself
have_bpf () {
	[ "$(id -u)" = 0 ] || { echo "needs root"; return 1; }
	[ -r /sys/kernel/btf/vmlinux ] || { echo "needs the kernel's BTF"; return 1; }
	# only BPF's own refusal is a reason to skip
	if ! "$KMEMTRACE" top -b -n 1 -d 0.1 >/dev/null 2>bpf.err &&
	   grep -q "cannot use BPF" bpf.err; then
		head -n 1 bpf.err
		return 1
	fi
}

if ! why=$(have_bpf); then
	test_skip 'top and watch agree with record' "$why"
	test_done
	exit 0
fi
if ! have_root_tracefs; then
	test_skip 'top and watch agree with record' 'needs tracefs'
	test_done
	exit 0
fi

N=1000 K=100

test_expect_success 'the helper runs under record, top and watch at once' '
	: >helper.out
	"$HELPERS/kmt-fdleak" -w -n $N -k $K >helper.out &
	wait_for "^[0-9]" helper.out || exit 1
	hp=$(head -n 1 helper.out) && echo $hp >hp || exit 1
	"$KMEMTRACE" record -a -o r.dat 2>rec.err &
	rec=$!
	"$KMEMTRACE" top -b --json -p $hp -d 600 -l 0 -o top.json 2>top.err &
	top=$!
	"$KMEMTRACE" watch -p $hp --sample 1 --older-than 0 -I 600 --json \
		-l 0 -o watch.json 2>watch.err &
	watch=$!
	wait_for "recording all CPUs" rec.err &&
	wait_for "^kmemtrace top: process" top.err &&
	wait_for "^kmemtrace watch: process" watch.err &&
	kill -USR1 $hp &&
	wait_for "^done" helper.out || { kill $hp $top $watch $rec; exit 1; }
	kill -INT $top $watch $rec
	wait $top && wait $watch && wait $rec || exit 1
	kill $hp
	test -s top.json && test -s watch.json && test -s r.dat
'

hp=$(cat hp 2>/dev/null)

test_expect_success 'watch and report --leaks: the same outstanding slab objects per callsite' '
	"$KMEMTRACE" report -i r.dat --leaks --pid $hp -l 0 --json >leaks.json &&
	python3 - watch.json leaks.json <<-\EOF
	import json, sys
	w = json.loads(open(sys.argv[1]).read().splitlines()[-1])
	r = json.load(open(sys.argv[2]))
	assert w["final"] and w["sample"] == 1 and not w["estimated"], w
	# Slab metadata (the object extension vector of a new slab) is charged to
	# the helper but freed when other processes empty that slab, maybe
	# between the ends of the two tracers: left out.  The objects of the helper
	# cannot go while it waits.
	meta = lambda c: c["callsite"].startswith("alloc_slab_obj_exts+")
	ws = {c["callsite"]: c["count"] for c in w["callsites"] if c["kind"] == "slab" and not meta(c)}
	rs = {c["callsite"]: c["count"] for c in r["leaks"]["callsites"] if c["kind"] == "slab" and not meta(c)}
	print("watch:", sorted(ws.items()))
	print("report:", sorted(rs.items()))
	# BPF skips an event that comes while its program already runs on
	# that CPU (an interrupt in the middle of it), and counts it: any
	# difference must be no more than those
	skipped = w["counters"]["events the kernel skipped"]
	diff = sum(abs(ws.get(k, 0) - rs.get(k, 0)) for k in set(ws) | set(rs))
	print("skipped:", skipped, "difference:", diff)
	assert diff <= skipped, "they differ"
	assert ws.get("do_eventfd+34", ws.get(next((k for k in ws if k.startswith("do_eventfd+")), ""), 0)) == 100, "not the 100 eventfds kept"
	EOF
'

test_expect_success 'top -b and report --caller: the same allocations per callsite' '
	"$KMEMTRACE" report -i r.dat --caller --pid $hp -l 0 --json >caller.json &&
	python3 - top.json caller.json <<-\EOF
	import json, sys
	t = json.loads(open(sys.argv[1]).read().splitlines()[-1])
	r = json.load(open(sys.argv[2]))
	ts = {row["callsite"]: row["allocs"] for row in t["rows"] if row["allocs"]}
	rs = {c["callsite"]: c["hit"] for c in r["slab"]["callsites"]}
	print("top:", sorted(ts.items()))
	print("report:", sorted(rs.items()))
	skipped = t["counters"]["events the kernel skipped"]
	diff = sum(abs(ts.get(k, 0) - rs.get(k, 0)) for k in set(ts) | set(rs))
	print("skipped:", skipped, "difference:", diff)
	assert diff <= skipped, "they differ"
	ev = [v for k, v in ts.items() if k.startswith("do_eventfd+")]
	assert ev == [1000], "not the 1000 eventfds made"
	EOF
'

# top folds the counters of processes that are gone into one row and
# deletes them from the kernel, while a CPU's cache may still hold counts
# of theirs: ten helpers of 200 eventfds each come and go while top
# refreshes five times a second, and each eventfd is counted once
test_expect_success 'processes that exit while top runs: each allocation counted once' '
	"$KMEMTRACE" top -b --json --comm kmt-fdleak -d 0.2 -l 0 -o gone.json \
		2>top2.err &
	top=$!
	wait_for "^kmemtrace top:" top2.err || { kill $top; exit 1; }
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$HELPERS/kmt-fdleak" -n 200 -k 0 >h$i.out &
		h=$!
		wait_for "^done" h$i.out || { kill $h $top; exit 1; }
		kill $h && wait $h
		sleep 0.3
	done
	kill -INT $top
	wait $top &&
	python3 - gone.json <<-\EOF
	import json, sys
	lines = open(sys.argv[1]).read().splitlines()
	t = json.loads(lines[-1])
	n = sum(r["allocs"] for r in t["rows"] if r["callsite"].startswith("do_eventfd+"))
	exited = t["totals"]["exited_processes"]
	skipped = t["counters"]["events the kernel skipped"]
	print("eventfds counted:", n, "refreshes:", len(lines), "processes folded:", exited, "skipped:", skipped)
	assert exited >= 5, "too few processes were folded while top ran"
	assert 2000 - skipped <= n <= 2000, "not the 2000 eventfds made"
	EOF
'

# programs and maps live as long as the process's descriptors: none stay
test_expect_success 'no BPF program is left in the kernel after them' '
	bpf_programs_gone
'

test_done
