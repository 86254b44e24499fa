#!/bin/sh
# kmemtrace top: usage errors; where BPF cannot be used, one line that
# says why; batch text and JSON with every view; ndjson and CSV say what
# JSON says, with the machine and the refresh; -p counts only that
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

test_expect_success '--format: the formats a refresh can be drawn in, and no other' '
	"$KMEMTRACE" top -b --format html 2>err; test $? = 129 &&
	grep "^kmemtrace top: error: unknown format .html.: the formats are text, json, csv, ndjson" err &&
	"$KMEMTRACE" top -b --format json --json 2>err; test $? = 129 &&
	grep "error: --format and --json exclude each other" err
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
	: >helper.out
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
	: >helper.out
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

# One process's 200 eventfds seen by three tops at once, each drawing
# the same counts in its format: ndjson and CSV must say what JSON says
test_expect_success '--format ndjson and csv: the rows JSON has, with the machine and the refresh' '
	: >fmt-helper.out
	"$HELPERS/kmt-fdleak" -w -n 200 -k 0 >fmt-helper.out &
	wait_for "^[0-9]" fmt-helper.out || exit 1
	hp=$(head -n 1 fmt-helper.out)
	"$KMEMTRACE" top -b --json -p $hp -d 600 -l 0 -o f.json 2>f1.err &
	t1=$!
	"$KMEMTRACE" top -b --format ndjson --host kmt-test-host -p $hp -d 600 \
		-l 0 -o f.ndjson 2>f2.err &
	t2=$!
	"$KMEMTRACE" top -b --format csv -p $hp -d 600 -l 0 -o f.csv 2>f3.err &
	t3=$!
	wait_for "^kmemtrace top: process" f1.err &&
	wait_for "^kmemtrace top: process" f2.err &&
	wait_for "^kmemtrace top: process" f3.err &&
	kill -USR1 $hp && wait_for "^done" fmt-helper.out
	kill $hp; wait $t1 && wait $t2 && wait $t3 || exit 1
	uname -r >kernel && cat /proc/sys/kernel/random/boot_id >boot &&
	python3 - f.json f.ndjson f.csv kernel boot <<-\EOF
	import csv, json, sys
	j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
	rows = [json.loads(l) for l in open(sys.argv[2])]
	kernel = open(sys.argv[4]).read().strip()
	boot = open(sys.argv[5]).read().strip()
	assert rows, "no ndjson rows"
	for r in rows:
	    assert r["host"] == "kmt-test-host" and r["kernel"] == kernel, r
	    assert r["boot_id"] == boot and r["input"] == "live", r
	    assert r["start_time"].endswith("Z") and r["start_unix_ns"] > 0, r
	    assert r["table"] in ("refresh", "rows", "rows_omitted"), r["table"]
	    assert r["seq"] >= 1 and r["span_ns"] > 0, r
	last = max(r["seq"] for r in rows)
	mine = [r for r in rows if r["seq"] == last]
	head = [r for r in mine if r["table"] == "refresh"]
	assert len(head) == 1 and abs(head[0]["time"] * 1e9 - head[0]["span_ns"]) < 1000, head
	assert set(head[0]["totals"]) == set(j["totals"]), head[0]["totals"]
	assert set(head[0]["counters"]) == set(j["counters"])
	assert [r["rows_omitted"] for r in mine if r["table"] == "rows_omitted"] == [0]
	nd = [r for r in mine if r["table"] == "rows"]
	meta = {"host", "kernel", "input", "first_ts_ns", "span_ns", "boot_id",
	        "start_time", "start_unix_ns", "table", "seq"}
	assert all(set(r) - meta == set(j["rows"][0]) for r in nd), nd[0]
	ev = lambda rs: [r["allocs"] for r in rs if r["callsite"].startswith("do_eventfd+")]
	assert ev(nd) == ev(j["rows"]) == [200], (ev(nd), ev(j["rows"]))
	cells = list(csv.reader(open(sys.argv[3])))
	assert cells[0] == ["seq", "table", "row", "column", "value"], cells[0]
	last = max(int(c[0]) for c in cells[1:])
	got = {(c[1], int(c[2]), c[3]): c[4] for c in cells[1:] if int(c[0]) == last}
	row = [k[1] for k, v in got.items()
	       if k[0] == "rows" and k[2] == "callsite" and v.startswith("do_eventfd+")]
	assert len(row) == 1 and got[("rows", row[0], "allocs")] == "200", row
	assert got[("rows", row[0], "pages_estimated")] in ("0", "1")
	assert len(got[("rows", row[0], "pages")].split()) == 4
	assert int(got[("refresh", 0, "totals.events")]) > 0
	assert got[("refresh", 0, "live_estimated")] == "1"
	assert got[("rows_omitted", 0, "rows_omitted")] == "0"
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
