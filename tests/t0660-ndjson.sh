#!/bin/sh
# --format ndjson: a row per table row, each saying its host, kernel,
# input, span, boot and start (null where the recording does not keep
# them) and table, loaded as it is into a SQL engine (Debian's sqlite3):
# the README's queries (doc/examples/fleet.sql) over three recordings
# labelled as three hosts give kmemtrace's own figures.
. "$(dirname "$0")/lib.sh"

RECS="capture.dat capture-lost.dat perf-both-g.data"
OPTS="--slab --page --caller --caches"

test_expect_success 'every line one JSON object, every table row a line' '
	for r in $RECS; do
		"$KMEMTRACE" report --format ndjson $OPTS "$DATA/$r" >rows &&
		"$KMEMTRACE" report --json $OPTS "$DATA/$r" >report.json &&
		python3 - rows report.json <<-\EOF || exit 1
		import json, sys
		rows = [json.loads(l) for l in open(sys.argv[1])]
		rep = json.load(open(sys.argv[2]))
		want = {}
		for g, v in rep.items():
		    if isinstance(v, dict):
		        for k, t in v.items():
		            if isinstance(t, list) and t and isinstance(t[0], dict):
		                want["%s.%s" % (g, k)] = t
		got = {}
		for r in rows:
		    assert r["kernel"] == rep["kernel"] and r["input"] == rep["input"]
		    assert r["span_ns"] == rep["span_ns"]
		    got.setdefault(r["table"], []).append(
		        {k: v for k, v in r.items() if k not in
		         ("host", "kernel", "input", "first_ts_ns", "span_ns",
		          "boot_id", "start_time", "start_unix_ns", "table")})
		assert got == want, (sorted(got), sorted(want))
		EOF
	done
'

test_expect_success 'recordings that keep no boot or wall time: null, not zeros' '
	# record/small.dat: kmemtrace record before it kept them
	for r in $RECS capture.v6.dat record/small.dat; do
		"$KMEMTRACE" report --format ndjson --caches "$DATA/$r" >rows &&
		"$KMEMTRACE" report --json --caches "$DATA/$r" >report.json &&
		"$KMEMTRACE" report --caches "$DATA/$r" >report.txt &&
		! grep -E "^# (start|boot):" report.txt &&
		python3 - rows report.json <<-\EOF || exit 1
		import json, sys
		rows = [json.loads(l) for l in open(sys.argv[1])]
		rep = json.load(open(sys.argv[2]))
		assert rows
		for o in rows + [rep]:
		    for k in ("boot_id", "start_time", "start_unix_ns"):
		        assert k in o and o[k] is None, (k, o.get(k))
		EOF
	done
'

test_expect_success 'the host: the recording says it, --host sets it' '
	"$KMEMTRACE" report --format ndjson --caches "$DATA/perf-both-g.data" |
		head -n 1 | grep -q "^{\"host\":\"vm\"," &&
	"$KMEMTRACE" report --format ndjson --caches --host db-7 "$DATA/capture.dat" |
		head -n 1 | grep -q "^{\"host\":\"db-7\","
'

if ! command -v sqlite3 >/dev/null 2>&1; then
	test_skip 'the README queries in sqlite' 'no sqlite3 here (Debian: sqlite3)'
	test_done
	exit 0
fi

test_expect_success 'three hosts into sqlite: the queries give the reports figures' '
	i=0 &&
	for r in $RECS; do
		i=$((i + 1)) &&
		"$KMEMTRACE" report --format ndjson $OPTS --host h$i "$DATA/$r" >>rows.ndjson &&
		"$KMEMTRACE" report --json $OPTS "$DATA/$r" >h$i.json || exit 1
	done &&
	sqlite3 fleet.db ".read $TOP/doc/examples/fleet.sql" >got &&
	python3 - h1.json h2.json h3.json >want <<-\EOF &&
	import json, sys
	rate = {}
	per_kernel = {}
	for f in sys.argv[1:]:
	    d = json.load(open(f))
	    for r in d["slab"]["callsites"]:
	        rate.setdefault(r["callsite"], []).append(r["total_alloc"] * 1e9 / d["span_ns"])
	        if r["callsite"].startswith("copy_process+"):
	            k = per_kernel.setdefault(d["kernel"], [0, 0])
	            k[0] += r["hit"]
	            k[1] += r["total_alloc"]
	top = sorted(rate, key=lambda c: (-(max(rate[c]) - min(rate[c])), c))[:10]
	for c in top:
	    print(c, "%.1f" % round(max(rate[c])), "%.1f" % round(min(rate[c])))
	for k in sorted(per_kernel):
	    print(k, *per_kernel[k])
	EOF
	test_cmp want got &&
	test $(wc -l <got) = 11
'

test_done
