#!/bin/sh
# kmemtrace watch: usage errors; where BPF cannot be used, one line that
# says why; a steady leak stands out at the default settings on a busy
# machine; frees in softirq context are seen (no false leaks); every
# loss is counted and a failed stack id is never a stack; the memory the
# maps pin is stated; ndjson and CSV say what JSON says, with the
# machine and the interval; `-- CMD` passes the command's status on.
# test: alone
. "$(dirname "$0")/lib.sh"

test_expect_success 'usage errors: 129 and one line pointing to -h' '
	"$KMEMTRACE" watch -I soon 2>err; test $? = 129 &&
	grep "^kmemtrace watch: error: option .-I. needs a duration such as 500ms, 2s or 1m, at least 50ms, not .soon..*watch -h" err &&
	test $(wc -l <err) = 1 &&
	"$KMEMTRACE" watch --older-than 5x 2>err; test $? = 129 &&
	grep "^kmemtrace watch: error: option .--older-than. needs a duration such as 500ms, 2s or 1m, not .5x." err &&
	"$KMEMTRACE" watch --sample 3 2>err; test $? = 129 &&
	grep "needs a power of two" err &&
	"$KMEMTRACE" watch -p 1 -- true 2>err; test $? = 129 &&
	grep "^kmemtrace watch: error: -p goes with neither" err
'

test_expect_success '--format: the formats an interval can be drawn in, and no other' '
	"$KMEMTRACE" watch --format folded 2>err; test $? = 129 &&
	grep "^kmemtrace watch: error: unknown format .folded.: the formats are text, json, csv, ndjson" err &&
	"$KMEMTRACE" watch --format csv --json 2>err; test $? = 129 &&
	grep "error: --format and --json exclude each other" err
'

if [ "$(id -u)" != 0 ]; then
	test_skip 'watch' 'needs root'
	test_done
	exit 0
fi

test_expect_success 'not root: one line says why and suggests record (exit 2)' '
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$KMEMTRACE" watch --duration 1 2>err; test $? = 2 &&
	cat err &&
	test $(wc -l <err) = 1 &&
	grep "^kmemtrace watch: error: cannot use BPF: .*needs root.*kmemtrace record" err
'

# only BPF's own refusal is a reason to skip: any other failure is a
# failure of the tests that follow
if ! "$KMEMTRACE" watch --duration 0.1 -I 1 >/dev/null 2>bpf.err &&
   grep -q "cannot use BPF" bpf.err; then
	test_skip 'watch' "BPF cannot be used here: $(tail -n 1 bpf.err)"
	test_done
	exit 0
fi

test_expect_success 'the start line states the sampling and the memory pinned' '
	"$KMEMTRACE" watch --duration 0.3 -I 1 >out 2>err &&
	grep "^kmemtrace watch: system wide, 1 address in 16 followed with its stack, up to 262144 objects and 16384 stacks; the maps pin [0-9.]* MiB of kernel memory$" err
'

test_expect_success 'a count and its noun agree: "1 object", "1 stack", "1 address"' '
	"$KMEMTRACE" watch --duration 0.3 -I 1 --sample 1 --live-max 1 \
		--stacks-max 1 >out 2>err &&
	grep "^kmemtrace watch: system wide, 1 address in 1 followed with its stack, up to 1 object and 1 stack; " err &&
	grep "^kmemtrace watch: end, .* events\{0,1\}, sampling 1 in 1 address$" out &&
	counts_agree out
'

test_expect_success 'a steady leak stands out at the default settings, the machine busy' '
	"$TOP/bench/workload.sh" 6 >/dev/null 2>&1 &
	busy=$!
	: >helper.out
	"$HELPERS/kmt-fdleak" -w -n 0 -k 0 -s 16 -L 40 -t 250 >helper.out &
	wait_for "^[0-9]" helper.out || exit 1
	hp=$(head -n 1 helper.out)
	"$KMEMTRACE" watch -I 0.5 --older-than 0.2 --json -l 0 -o leak.json \
		2>leak.err &
	w=$!
	wait_for "^kmemtrace watch:" leak.err &&
	kill -USR1 $hp &&
	wait_for "^done" helper.out
	sleep 0.6
	kill -INT $w; wait $w; rc=$?
	kill $hp $busy 2>/dev/null; wait $busy
	test $rc = 0 &&
	python3 - leak.json <<-\EOF
	import json, sys
	w = json.loads(open(sys.argv[1]).read().splitlines()[-1])
	assert w["final"] and w["sample"] == 16 and w["estimated"]
	ev = [c for c in w["callsites"] if c["callsite"].startswith("do_eventfd+")]
	print(ev)
	assert len(ev) == 1, "the leak is not reported"
	ev = ev[0]
	# 640 leaked; 1 address in 16 followed: an estimate, but not a wild one
	assert 320 <= ev["count"] <= 1280, ev["count"]
	assert ev["growing"], "the leak is not marked as growing"
	st = [s for s in w["stacks"] if s["callsite"] == ev["callsite"]]
	assert st and st[0]["growing"] and "do_eventfd" in st[0]["stack"], st
	# stacks are kept by their content: none lost at the default sizes
	c = w["counters"]
	assert c["stacks lost: stack map full"] == 0, c
	assert c["stack aggregates lost: map full"] == 0, c
	assert not [s for s in w["stacks"] if s.get("stack_error", 0) < 0], \
		[s for s in w["stacks"] if "stack" not in s][:3]
	EOF
'

test_expect_success 'frees in softirq context are seen: no false leaks' '
	: >helper.out
	"$HELPERS/kmt-fdleak" -w -n 50 -k 10 -u 300 >helper.out &
	wait_for "^[0-9]" helper.out || exit 1
	hp=$(head -n 1 helper.out)
	"$KMEMTRACE" watch -p $hp --sample 1 --older-than 0 -I 1 --json \
		-l 0 -o irq.json 2>irq.err &
	w=$!
	wait_for "^kmemtrace watch:" irq.err &&
	kill -USR1 $hp &&
	wait_for "^done" helper.out &&
	# the RCU callbacks that free the sockets may wait a grace period or
	# more on a loaded machine: up to 20 reports for the last of them
	# (frees that are never seen keep their row to the end)
	i=0 &&
	while [ $i -lt 20 ]; do
		n=$(wc -l <irq.json) && sleep 1.1 &&
		test "$(wc -l <irq.json)" -gt "$n" &&
		! tail -n 1 irq.json | grep -q "\"sk_prot_alloc+" && break
		i=$((i + 1))
	done
	kill -INT $w; wait $w; rc=$?
	kill $hp
	test $rc = 0 &&
	python3 - irq.json <<-\EOF
	import json, sys
	w = json.loads(open(sys.argv[1]).read().splitlines()[-1])
	c = w["counters"]
	print({k: v for k, v in c.items() if "context" in k})
	# the 300 UDP sockets go in an RCU callback, run as a softirq
	assert c["frees in softirq context"] >= 300, c
	sk = [s for s in w["callsites"] if s["callsite"].startswith("sk_prot_alloc+")]
	assert not sk, sk
	ev = [s["count"] for s in w["callsites"] if s["callsite"].startswith("do_eventfd+")]
	assert ev == [10], ev
	EOF
'

# Ten eventfds a process keeps, seen by three watches at once, each
# drawing the same objects in its format: ndjson and CSV must say what
# JSON says
test_expect_success '--format ndjson and csv: the stacks and callsites JSON has, with the machine and the interval' '
	: >fmt-helper.out
	"$HELPERS/kmt-fdleak" -w -n 50 -k 10 >fmt-helper.out &
	wait_for "^[0-9]" fmt-helper.out || exit 1
	hp=$(head -n 1 fmt-helper.out)
	args="-p $hp --sample 1 --older-than 0 -I 600 -l 0"
	"$KMEMTRACE" watch $args --json -o f.json 2>f1.err &
	w1=$!
	"$KMEMTRACE" watch $args --format ndjson --host kmt-test-host \
		-o f.ndjson 2>f2.err &
	w2=$!
	"$KMEMTRACE" watch $args --format csv -o f.csv 2>f3.err &
	w3=$!
	wait_for "^kmemtrace watch:" f1.err &&
	wait_for "^kmemtrace watch:" f2.err &&
	wait_for "^kmemtrace watch:" f3.err &&
	kill -USR1 $hp &&
	wait_for "^done" fmt-helper.out
	kill -INT $w1 $w2 $w3; wait $w1 && wait $w2 && wait $w3; rc=$?
	kill $hp
	test $rc = 0 &&
	uname -r >kernel && cat /proc/sys/kernel/random/boot_id >boot &&
	python3 - f.json f.ndjson f.csv kernel boot <<-\EOF
	import csv, json, sys
	j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
	rows = [json.loads(l) for l in open(sys.argv[2])]
	kernel = open(sys.argv[4]).read().strip()
	boot = open(sys.argv[5]).read().strip()
	tables = ("interval", "stacks", "stacks_omitted", "callsites")
	for r in rows:
	    assert r["host"] == "kmt-test-host" and r["kernel"] == kernel, r
	    assert r["boot_id"] == boot and r["input"] == "live", r
	    assert r["start_time"].endswith("Z") and r["start_unix_ns"] > 0, r
	    assert r["table"] in tables and r["seq"] >= 1, r
	last = max(r["seq"] for r in rows)
	mine = [r for r in rows if r["seq"] == last]
	head = [r for r in mine if r["table"] == "interval"]
	assert len(head) == 1 and head[0]["final"] and head[0]["sample"] == 1, head
	assert abs(head[0]["time"] * 1e9 - head[0]["span_ns"]) < 1000, head
	assert set(head[0]["counters"]) == set(j["counters"])
	ev = lambda rs: [r["count"] for r in rs if r["callsite"].startswith("do_eventfd+")]
	sites = [r for r in mine if r["table"] == "callsites"]
	assert ev(sites) == ev(j["callsites"]) == [10], (ev(sites), ev(j["callsites"]))
	meta = {"host", "kernel", "input", "first_ts_ns", "span_ns", "boot_id",
	        "start_time", "start_unix_ns", "table", "seq"}
	assert all(set(r) - meta == set(j["callsites"][0]) for r in sites), sites[0]
	stacks = [r for r in mine if r["table"] == "stacks"]
	st = [r for r in stacks if r["callsite"].startswith("do_eventfd+")]
	assert st and all("do_eventfd" in r["stack"] for r in st), st
	assert all(("order" in r) == (r["kind"] == "page") for r in stacks)
	assert all(isinstance(r["trend"], list) and isinstance(r["growing"], bool) for r in stacks)
	cells = list(csv.reader(open(sys.argv[3])))
	assert cells[0] == ["seq", "table", "row", "column", "value"], cells[0]
	last = max(int(c[0]) for c in cells[1:])
	got = {(c[1], int(c[2]), c[3]): c[4] for c in cells[1:] if int(c[0]) == last}
	row = [k[1] for k, v in got.items()
	       if k[0] == "callsites" and k[2] == "callsite" and v.startswith("do_eventfd+")]
	assert len(row) == 1 and got[("callsites", row[0], "count")] == "10", row
	assert got[("interval", 0, "final")] == "1"
	assert got[("interval", 0, "counters.stacks given back")].isdigit()
	EOF
'

# The losses come from the helper, not from the machine's activity (a
# workload's live objects and stacks depend on the machine's load): it
# keeps K eventfds open, 2 K live objects (the context and the file) at
# two stacks, more than the maps below hold.
# watch_leak FILE ARGS...: watch ARGS while the helper keeps 600 open
watch_leak () {
	out=$1
	shift
	: >helper.out
	"$HELPERS/kmt-fdleak" -w -n 1000 -k 600 >helper.out &
	hp=$!
	wait_for "^[0-9]" helper.out || return 1
	"$KMEMTRACE" watch --sample 1 -I 600 "$@" >"$out" 2>"$out.err" &
	w=$!
	wait_for "^kmemtrace watch:" "$out.err" &&
	kill -USR1 $hp &&
	wait_for "^done" helper.out
	kill -INT $w; wait $w; rc=$?
	kill $hp; wait $hp
	return $rc
}

test_expect_success 'every loss is counted: live map full, stack map full' '
	watch_leak small.json --live-max 512 --stacks-max 1 --older-than 0 \
		--json -l 0 &&
	python3 - small.json <<-\EOF
	import json, sys
	w = json.loads(open(sys.argv[1]).read().splitlines()[-1])
	c = w["counters"]
	print({k: v for k, v in c.items() if "lost" in k or "full" in k})
	assert c["objects not followed: live map full"] > 0
	assert c["stacks lost: stack map full"] > 0
	# a failed stack id is shown as such, never as a stack
	bad = [s for s in w["stacks"] if "stack_error" in s]
	assert bad and all("stack" not in s and s["stack_error"] < 0 for s in bad), bad
	EOF
'

test_expect_success 'the text report names each loss' '
	watch_leak small.txt --live-max 64 &&
	grep "^lost: .*objects not followed: live map full [0-9]" small.txt &&
	grep "^OUTSTANDING by stack" small.txt &&
	grep "^OUTSTANDING by callsite" small.txt
'

test_expect_success '-- CMD: its exit status, and a report at its end' '
	{ "$KMEMTRACE" watch -I 600 -- sh -c "exit 3" >cmd.out 2>cmd.err; rc=$?; } &&
	test $rc = 3 &&
	grep "^kmemtrace watch: end, " cmd.out
'

test_expect_success 'a command that cannot start: 127, one line' '
	{ "$KMEMTRACE" watch -- /nonexistent/cmd >nc.out 2>nc.err; rc=$?; } &&
	test $rc = 127 &&
	grep "^kmemtrace watch: error: cannot run ./nonexistent/cmd." nc.err
'

test_expect_success 'no BPF program is left in the kernel after it' '
	bpf_programs_gone
'

test_done
