#!/bin/sh
# kmemtrace top: usage errors; where BPF cannot be used, one line that
# says why; batch text and JSON with every view; -p counts only that
# process; `-- CMD` passes the command's status on; the live view in a
# terminal (tmux): a key per view and per sort column, q quits and gives
# the terminal back.
# test: alone
. "$(dirname "$0")/lib.sh"

test_expect_success 'usage errors: 129 and one line pointing to -h' '
	"$KMEMTRACE" top -b -d x 2>err; test $? = 129 &&
	grep "^kmemtrace top: error: option .-d. needs a duration such as 500ms, 2s or 1m, at least 50ms, not .x..*top -h" err &&
	test $(wc -l <err) = 1 &&
	"$KMEMTRACE" top -b --view nope 2>err; test $? = 129 &&
	grep "^kmemtrace top: error: unknown view .nope." err &&
	"$KMEMTRACE" top -b -s nope 2>err; test $? = 129 &&
	grep "^kmemtrace top: error: unknown sort column .nope." err &&
	"$KMEMTRACE" top -b --sample 6 2>err; test $? = 129 &&
	"$KMEMTRACE" top -b --follow 2>err; test $? = 129 &&
	grep "^kmemtrace top: error: --follow needs a command" err
'

test_expect_success 'the live view wants a terminal, and says so' '
	"$KMEMTRACE" top </dev/null >out 2>err; test $? = 129 &&
	grep "^kmemtrace top: error: the live view needs a terminal; -b" err
'

if [ "$(id -u)" != 0 ]; then
	test_skip 'top' 'needs root'
	test_done
	exit 0
fi

test_expect_success 'not root: one line says why and suggests record (exit 2)' '
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$KMEMTRACE" top -b -n 1 2>err; test $? = 2 &&
	test $(wc -l <err) = 1 &&
	grep "^kmemtrace top: error: cannot use BPF: .*needs root.*kmemtrace record" err
'

# only BPF's own refusal is a reason to skip: any other failure is a
# failure of the tests that follow
if ! "$KMEMTRACE" top -b -n 1 -d 0.1 >/dev/null 2>bpf.err &&
   grep -q "cannot use BPF" bpf.err; then
	test_skip 'top' "BPF cannot be used here: $(tail -n 1 bpf.err)"
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

WORK='i=0; while [ $i -lt 30 ]; do ls /usr/share/doc >/dev/null; i=$((i + 1)); done'

test_expect_success 'batch text: -n refreshes, header, drops, columns' '
	"$KMEMTRACE" top -b -n 2 -d 0.3 -l 5 >out 2>err &&
	test $(grep -c "^kmemtrace top - " out) = 2 &&
	grep "^events .*/s, allocs .*/s, frees .*/s, alloc bytes" out &&
	grep "^drops: " out &&
	grep "ALLOC/s *FREE/s *BYTES/s *LIVE *LIVE_B *GROW/s *WASTE/s *PG0/s *PG1/s *PG2/s *PG3+/s *CALLSITE" out &&
	grep "the maps pin [0-9.]* MiB of kernel memory" err
'

# one live object for sure: the helper keeps its eventfds, and a live
# map of one holds the first (the machine's own objects come and go)
test_expect_success 'batch text: each count agrees with its noun, "1 object", "2 rows"' '
	"$HELPERS/kmt-fdleak" -w -n 10 -k 10 >helper.out &
	wait_for "^[0-9]" helper.out || exit 1
	hp=$(head -n 1 helper.out)
	"$KMEMTRACE" top -b -n 1 -d 2 -l 1 --sample 1 --live-max 1 -p $hp \
		>out 2>err &
	t=$!
	wait_for "^kmemtrace top: process" err &&
	kill -USR1 $hp && wait_for "^done" helper.out
	wait $t; rc=$?
	kill $hp
	test $rc = 0 &&
	grep "^since start: [0-9.KMG]* events\{0,1\}, live 1 object, " out &&
	counts_agree out
'

test_expect_success 'every view in JSON, one object a refresh, rows sorted' '
	for v in callsite cache process stack; do
		"$KMEMTRACE" top -b --json -n 1 -d 0.5 --view $v -s allocs \
			-- sh -c "$WORK" >$v.json 2>/dev/null || exit 1
	done &&
	python3 - <<-\EOF
	import json
	for v in ("callsite", "cache", "process", "stack"):
	    lines = open(v + ".json").read().splitlines()
	    assert len(lines) == 1, (v, len(lines))
	    d = json.loads(lines[0])
	    assert d["view"] == v and d["sort"] == "allocs", d["view"]
	    rows = d["rows"]
	    assert rows and all(v in r for r in rows), v
	    rates = [r["allocs_per_s"] for r in rows]
	    assert rates == sorted(rates, reverse=True), v
	    assert d["totals"]["events"] > 0 and "counters" in d
	d = json.loads(open("cache.json").read())
	names = [r["cache"] for r in d["rows"]]
	assert any(n.startswith("kmalloc-") for n in names), names
	d = json.loads(open("process.json").read())
	assert any(r["process"].endswith(" ls") or r["process"] == "(exited processes)" for r in d["rows"]), [r["process"] for r in d["rows"]]
	EOF
'

test_expect_success '-p: only that process, and it stops when the process ends' '
	"$HELPERS/kmt-fdleak" -w -n 200 -k 0 >helper.out &
	wait_for "^[0-9]" helper.out || exit 1
	hp=$(head -n 1 helper.out)
	"$KMEMTRACE" top -b --json -p $hp -d 600 -l 0 -o p.json 2>p.err &
	t=$!
	wait_for "^kmemtrace top: process" p.err &&
	kill -USR1 $hp && wait_for "^done" helper.out
	kill $hp; wait $t; rc=$?
	test $rc = 0 &&
	python3 - p.json <<-\EOF
	import json, sys
	d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
	ev = [r for r in d["rows"] if r["callsite"].startswith("do_eventfd+")]
	assert len(ev) == 1 and ev[0]["allocs"] == 200, ev
	EOF
'

test_expect_success '-- CMD: the exit status of the command' '
	{ "$KMEMTRACE" top -b -d 5 -- sh -c "exit 3" >out 2>err; rc=$?; } &&
	test $rc = 3 &&
	grep "^kmemtrace top - " out
'

if ! command -v tmux >/dev/null 2>&1; then
	test_skip 'the live view' 'needs tmux (make deps installs it)'
	test_done
	exit 0
fi

S=kmt-top-$$
screen () {
	tmux capture-pane -p -t $S >"$1" 2>/dev/null
}

test_expect_success 'the live view: keys switch views and columns, q quits' '
	tmux -f /dev/null new-session -d -s $S -x 150 -y 30 \
		"$KMEMTRACE top -d 0.3; echo rc=\$? >$TRASH/tmux.rc; sleep 30" &&
	sleep 1.5 && screen s1 &&
	grep "^kmemtrace top - .*view callsite, sort bytes" s1 &&
	grep "keys: q quit" s1 && grep "CALLSITE$" s1 &&
	tmux send-keys -t $S k && sleep 0.8 && screen s2 &&
	grep "view cache" s2 && grep " CACHE$" s2 &&
	tmux send-keys -t $S P && sleep 0.8 && screen s3 &&
	grep "view process" s3 && grep "PID COMM$" s3 &&
	tmux send-keys -t $S s && sleep 0.8 && screen s4 &&
	grep "view stack" s4 && grep " STACK$" s4 &&
	tmux send-keys -t $S a && sleep 0.8 && screen s5 &&
	grep "sort allocs" s5 &&
	tmux send-keys -t $S w && sleep 0.8 && screen s6 &&
	grep "sort waste" s6 &&
	tmux send-keys -t $S q && wait_for "rc=" tmux.rc &&
	grep "rc=0" tmux.rc &&
	screen s7 && ! grep "kmemtrace top - " s7
'
tmux kill-session -t $S 2>/dev/null

test_expect_success 'no BPF program is left in the kernel after it' '
	bpf_programs_gone
'

test_done
