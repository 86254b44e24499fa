#!/bin/sh
# kmemtrace diff: two recordings, or a saved baseline and a recording,
# compared per callsite, cache, command and stack, matched by name.
# test: alone
. "$(dirname "$0")/lib.sh"

test_expect_success 'a recording against itself: every row equal' '
	"$KMEMTRACE" diff --json "$DATA/capture.dat" "$DATA/capture.dat" >d.json &&
	python3 - d.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert not d["rates"]
	n = 0
	for dim in ("callsites", "caches", "comms", "stacks"):
	    for r in d[dim]:
	        assert r["in"] == "both", r
	        for m in ("allocs", "bytes", "wasted", "live", "live_bytes"):
	            assert r[m]["a"] == r[m]["b"], r
	        n += 1
	assert n > 40, n
	EOF
'

test_expect_success 'a saved baseline compares as its recording does' '
	"$KMEMTRACE" diff --save base.json "$DATA/capture.dat" &&
	"$KMEMTRACE" diff "$DATA/capture.dat" "$DATA/perf-both-g.data" |
		sed 1d >rec.txt &&
	"$KMEMTRACE" diff base.json "$DATA/perf-both-g.data" | sed 1d >base.txt &&
	test_cmp rec.txt base.txt &&
	grep -q "^# the spans differ: allocations, bytes and waste compared per second" rec.txt
'

test_expect_success 'names match across formats: addresses and text agree' '
	"$KMEMTRACE" diff --json "$DATA/capture.dat" "$DATA/capture.trace.txt" >d.json &&
	python3 - d.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	rows = d["callsites"]
	assert rows and all(r["in"] == "both" for r in rows), \
	    [r["name"] for r in rows if r["in"] != "both"]
	assert all(r["bytes"]["a"] == r["bytes"]["b"] for r in rows)
	EOF
'

# another build of the same kernel puts every function at another
# offset: a baseline whose offsets were all changed still matches
test_expect_success 'names match without their offsets: another build compares' '
	"$KMEMTRACE" diff --save same.json "$DATA/capture.dat" &&
	sed "s/\(\"[A-Za-z_][A-Za-z0-9_.]*\)+[0-9a-f][0-9a-f]*/\1+7/g" same.json >moved.json &&
	! cmp -s same.json moved.json &&
	"$KMEMTRACE" diff --json moved.json "$DATA/capture.dat" >d.json &&
	python3 - d.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	for dim in ("callsites", "stacks"):
	    rows = d[dim]
	    assert rows and all(r["in"] == "both" for r in rows), \
	        [r["name"] for r in rows if r["in"] != "both"]
	    assert all(r["live_bytes"]["a"] == r["live_bytes"]["b"] for r in rows)
	EOF
'

test_expect_success 'rows only in one side are marked; the table sorts by growth' '
	"$KMEMTRACE" diff -s allocs "$DATA/capture.dat" "$DATA/perf-both-g.data" >d.txt &&
	grep -q "^DIFF by callsites: allocations per second, sorted by growth" d.txt &&
	grep -q " only in B$" d.txt && grep -q " only in A$" d.txt &&
	"$KMEMTRACE" diff --json -s allocs "$DATA/capture.dat" \
		"$DATA/perf-both-g.data" >d.json &&
	python3 - d.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	g = [r["allocs"]["b"] - r["allocs"]["a"] for r in d["callsites"]]
	assert g == sorted(g, reverse=True), g
	EOF
'

test_expect_success 'mistakes: one line each, and the right status' '
	"$KMEMTRACE" diff "$DATA/capture.dat" 2>err; test $? = 129 &&
	grep "^kmemtrace diff: error: two inputs to compare" err &&
	"$KMEMTRACE" diff -s nosuch "$DATA/capture.dat" "$DATA/capture.dat" 2>err
	test $? = 129 && grep "the keys are allocs, bytes, wasted, live, live_bytes" err &&
	printf "{\"input\": " >bad.json &&
	"$KMEMTRACE" diff bad.json "$DATA/capture.dat" 2>err; test $? = 1 &&
	grep "^kmemtrace diff: error: .bad.json. is not a kmemtrace report: byte 10: " err &&
	echo "{\"a\": 1}" >other.json &&
	"$KMEMTRACE" diff other.json "$DATA/capture.dat" 2>err; test $? = 1 &&
	grep "is JSON but not a kmemtrace report" err &&
	echo junk >junk.txt &&
	"$KMEMTRACE" diff junk.txt "$DATA/capture.dat" >out 2>err; test $? = 1 &&
	test $(wc -l <err) = 1 && test ! -s out &&
	grep "^kmemtrace diff: error: .junk.txt. is not a perf.data" err &&
	"$KMEMTRACE" diff --time 1,2 base.json "$DATA/capture.dat" 2>err
	test $? = 129 && grep "is a saved report" err
'

test_expect_success 'diff --html: one page, every table, the figures of --json' '
	"$KMEMTRACE" diff --html d.html "$DATA/capture.dat" "$DATA/capture.v6.dat" &&
	"$KMEMTRACE" diff --json "$DATA/capture.dat" "$DATA/capture.v6.dat" >d.json &&
	grep -q "Content-Security-Policy\" content=\"default-src .none." d.html &&
	! grep -qi "<script\|https\{0,1\}://" d.html &&
	python3 - d.html d.json <<-\EOF
	import html.parser, json, sys
	class P(html.parser.HTMLParser):
	    def __init__(self):
	        super().__init__(); self.tables = {}; self.cur = None; self.row = None
	    def handle_starttag(self, tag, attrs):
	        a = dict(attrs)
	        if tag == "table": self.cur = self.tables.setdefault(a.get("id"), [])
	        elif tag == "tr" and self.cur is not None: self.row = []; self.cur.append(self.row)
	        elif tag in ("td", "th") and self.row is not None: self.row.append("")
	    def handle_data(self, data):
	        if self.row is not None and self.row: self.row[-1] += data
	p = P(); p.feed(open(sys.argv[1]).read())
	d = json.load(open(sys.argv[2]))
	for dim in ("callsites", "caches", "comms", "stacks"):
	    rows = p.tables["kmt-" + dim][1:]
	    assert len(rows) == len(d[dim]), (dim, len(rows), len(d[dim]))
	    head = p.tables["kmt-" + dim][0]
	    for hr, jr in zip(rows, d[dim]):
	        assert hr[1] == jr["name"], (hr[1], jr["name"])
	        assert int(hr[head.index("bytes A")]) == jr["bytes"]["a"]
	        assert int(hr[head.index("live_bytes B")]) == jr["live_bytes"]["b"]
	EOF
'

PO=$DATA/pageowner

test_expect_success 'pageowner --diff: a dump against itself, and its saved JSON' '
	"$KMEMTRACE" pageowner --diff --json "$PO/current.txt" "$PO/current.txt" >d.json &&
	python3 - d.json <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	for dim in ("stacks", "allocators", "memcgs"):
	    assert d[dim], dim
	    for r in d[dim]:
	        assert r["in"] == "both" and r["pages"]["a"] == r["pages"]["b"], r
	EOF
	"$KMEMTRACE" pageowner --json --summary --cull stacktrace -o po.json "$PO/current.txt" &&
	"$KMEMTRACE" pageowner --diff "$PO/current.txt" "$PO/freets-6.1.txt" | sed 1d >dump.txt &&
	"$KMEMTRACE" pageowner --diff po.json "$PO/freets-6.1.txt" | sed 1d >saved.txt &&
	test_cmp dump.txt saved.txt
'

# B is A with its first record (an anonymous page, order 0, in
# session-2.scope) there three more times
test_expect_success 'pageowner --diff: the records added are the difference' '
	{ cat "$PO/current.txt" &&
	  for i in 1 2 3; do
		sed -n "1,/^\$/p" "$PO/current.txt"
	  done; } >more.txt &&
	"$KMEMTRACE" pageowner --diff --json "$PO/current.txt" more.txt >d.json &&
	python3 - d.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	moved = [(dim, r["name"].split(" <- ")[6] if dim == "stacks" else r["name"],
	          r["pages"]["b"] - r["pages"]["a"], r["records"]["b"] - r["records"]["a"])
	         for dim in ("stacks", "allocators", "memcgs") for r in d[dim]
	         if r["pages"]["a"] != r["pages"]["b"] or r["records"]["a"] != r["records"]["b"]]
	print(moved)
	assert sorted(moved) == [("allocators", "anon", 3, 3),
	                         ("memcgs", "session-2.scope", 3, 3),
	                         ("stacks", "do_anonymous_page", 3, 3)], moved
	EOF
'

test_expect_success 'pageowner --diff: mistakes' '
	"$KMEMTRACE" pageowner --diff "$PO/current.txt" 2>err; test $? = 129 &&
	grep "^kmemtrace pageowner: error: --diff compares two dumps" err &&
	"$KMEMTRACE" pageowner --diff -s bytes "$PO/current.txt" "$PO/current.txt" 2>err
	test $? = 129 && grep "the keys are pages, records" err &&
	"$KMEMTRACE" pageowner --diff "$DATA/capture.dat" "$PO/current.txt" 2>err
	test $? = 1 && grep "^kmemtrace pageowner: error: .*capture.dat.* read it with .kmemtrace report." err
'

test_expect_success 'diff --pprof: mistakes' '
	"$KMEMTRACE" diff --pprof d.pb.gz --json "$DATA/capture.dat" "$DATA/capture.v6.dat" 2>err
	test $? = 129 && grep "^kmemtrace diff: error: --pprof names its file" err &&
	"$KMEMTRACE" diff --pprof d.pb.gz base.json "$DATA/capture.v6.dat" 2>err
	test $? = 129 && grep "is a saved report, which keeps no allocation profile" err &&
	! test -e d.pb.gz
'

if command -v go >/dev/null 2>&1; then
	# go keeps its caches under $HOME
	HOME=$TRASH
	export HOME
	# go tool pprof -top from its "Showing nodes" line on: the header
	# names the files, which differ
	pprof_top () {
		t=$1
		shift
		go tool pprof -top -nodecount=200 -sample_index="$t" "$@" \
			2>/dev/null | sed -n "/^Showing nodes/,\$p"
	}
	test_expect_success 'diff --pprof: what go tool pprof -diff_base shows, for every sample type' '
		A="$DATA/capture.dat" B="$DATA/perf-both-g.data" &&
		"$KMEMTRACE" diff --pprof d.pb.gz "$A" "$B" &&
		"$KMEMTRACE" report --format pprof -o a.pb.gz "$A" &&
		"$KMEMTRACE" report --format pprof -o b.pb.gz "$B" &&
		for t in alloc_objects alloc_space inuse_objects inuse_space; do
			pprof_top $t d.pb.gz >got &&
			pprof_top $t -diff_base a.pb.gz b.pb.gz >want &&
			test "$(wc -l <want)" -gt 5 &&
			test_cmp want got || exit 1
		done &&
		go tool pprof -raw d.pb.gz 2>/dev/null | grep -q "pprof::base:\[true\]"
	'
else
	test_skip 'diff --pprof: what go tool pprof -diff_base shows, for every sample type' 'no go here (Debian: golang-go)'
fi

test_expect_success 'diff --format ndjson and csv: the rows and figures of --json' '
	"$KMEMTRACE" diff --json -l 3 "$DATA/capture.dat" "$DATA/perf-both-g.data" >d.json &&
	"$KMEMTRACE" diff --format ndjson -l 3 "$DATA/capture.dat" "$DATA/perf-both-g.data" >d.ndjson &&
	"$KMEMTRACE" diff --format csv -l 3 "$DATA/capture.dat" "$DATA/perf-both-g.data" >d.csv &&
	python3 - d.json d.ndjson d.csv <<-\EOF
	import csv, json, sys
	d = json.load(open(sys.argv[1]))
	rows = [json.loads(l) for l in open(sys.argv[2])]
	origin = ("host", "kernel", "input", "first_ts_ns", "span_ns",
	          "boot_id", "start_time", "start_unix_ns", "table")
	for r in rows:
	    for k in origin:
	        assert k in r, (k, r)
	sides = [r for r in rows if r["table"] == "sides"]
	assert len(sides) == 1 and sides[0]["a"] == d["a"] and sides[0]["b"] == d["b"]
	assert sides[0]["rates"] == d["rates"] and sides[0]["sort"] == d["sort"]
	for dim in ("callsites", "caches", "comms", "stacks"):
	    got = [{k: v for k, v in r.items() if k not in origin}
	           for r in rows if r["table"] == dim]
	    assert got == d[dim], (dim, got, d[dim])
	    assert len(got) <= 3
	cells = {(r["table"], r["row"], r["column"]): r["value"]
	         for r in csv.DictReader(open(sys.argv[3]))}
	assert cells[("sides", "0", "a.input")] == d["a"]["input"]
	for i, r in enumerate(d["callsites"]):
	    assert cells[("callsites", str(i), "name")] == r["name"]
	    b = float(cells[("callsites", str(i), "bytes.b")])
	    assert abs(b - r["bytes"]["b"]) <= 1e-5 * abs(r["bytes"]["b"]), (b, r)
	EOF
'

test_expect_success 'diff --format: an unknown name, or with --json or --html: exit 129' '
	test_usage_error "$KMEMTRACE" diff --format html "$DATA/capture.dat" "$DATA/capture.dat" &&
	test_usage_error "$KMEMTRACE" diff --format json --json "$DATA/capture.dat" "$DATA/capture.dat" &&
	test_usage_error "$KMEMTRACE" diff --format csv --html x.html "$DATA/capture.dat" "$DATA/capture.dat"
'

if [ "$(id -u)" != 0 ] || [ ! -d /sys/kernel/tracing/events/kmem ]; then
	test_skip 'a planted allocation loop is the one difference' 'needs root and tracefs'
	test_done
	exit 0
fi

# kmt-fdleak -n N makes N eventfds: each is a kmalloc in do_eventfd and
# the file and dentry behind it (alloc_empty_file, security_file_alloc,
# __d_alloc); the page allocator and slab bookkeeping grow a little
test_expect_success 'a planted allocation loop is the one difference' '
	"$KMEMTRACE" record -q -o a.dat -- timeout 1 "$HELPERS/kmt-fdleak" -n 1 -k 0 >/dev/null
	test -s a.dat &&
	"$KMEMTRACE" record -q -o b.dat -- timeout 1 "$HELPERS/kmt-fdleak" -n 2001 -k 0 >/dev/null
	test -s b.dat &&
	"$KMEMTRACE" diff --comm kmt-fdleak --json -s allocs a.dat b.dat >d.json &&
	python3 - d.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert not d["rates"], (d["a"], d["b"])
	rows = {(r["kind"], r["name"]): r for r in d["callsites"]}
	ev = rows[("slab", "do_eventfd")]
	print(ev)
	assert ev["allocs"] == {"a": 1, "b": 2001}, ev
	eventfd = {"do_eventfd", "alloc_empty_file", "security_file_alloc",
	           "__d_alloc", "d_alloc_pseudo", "alloc_file_pseudo"}
	moved = {r["name"] for r in d["callsites"]
	         if abs(r["allocs"]["b"] - r["allocs"]["a"]) >= 1000}
	print(moved)
	assert moved <= eventfd, moved - eventfd
	assert d["callsites"][0]["allocs"]["b"] - d["callsites"][0]["allocs"]["a"] == 2000
	EOF
'

test_done
