#!/bin/sh
# kmemtrace watch: usage errors; where BPF cannot be used, one line that
# says why; a steady leak stands out at the default settings on a busy
# machine; frees in softirq context are seen (no false leaks); every
# loss is counted and a failed stack id is never a stack; the memory the
# maps pin is stated; `-- CMD` passes the command's status on.
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

wait_for () {
	i=0
	while ! grep -q "$1" "$2" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 200 ] || { echo "no '$1' in $2" >&2; return 1; }
		sleep 0.1
	done
}

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
	"$HELPERS/kmt-fdleak" -w -n 50 -k 10 -u 300 >helper.out &
	wait_for "^[0-9]" helper.out || exit 1
	hp=$(head -n 1 helper.out)
	"$KMEMTRACE" watch -p $hp --sample 1 --older-than 0 -I 600 --json \
		-l 0 -o irq.json 2>irq.err &
	w=$!
	wait_for "^kmemtrace watch:" irq.err &&
	kill -USR1 $hp &&
	wait_for "^done" helper.out
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

# The losses come from the helper, not from the machine's activity (a
# workload's live objects and stacks depend on the machine's load): it
# keeps K eventfds open, 2 K live objects (the context and the file) at
# two stacks, more than the maps below hold.
# watch_leak FILE ARGS...: watch ARGS while the helper keeps 600 open
watch_leak () {
	out=$1
	shift
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
