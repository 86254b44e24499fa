#!/bin/sh
# --format ndjson: a row per table row, each saying its host, kernel,
# input, span, boot and start (null where the recording does not keep
# them) and table, loaded as it is into a SQL engine (Debian's sqlite3):
# the README's queries (doc/examples/fleet.sql) over three recordings
# labelled as three hosts give kmemtrace's own figures.
. "$(dirname "$0")/lib.sh"

RECS="capture.dat capture-lost.dat perf-both-g.data"
OPTS="--slab --page --caller --caches"

ALL="--slab --page --caller --alloc --leaks --errors --procs --pcpu --extfrag
--caches --sizes --lifetimes --timeline --profile"

# same.py NAME...: in NAME.ndjson, every member of every group of
# NAME.json is there as rows of the table "group.member": a table's rows,
# a series' steps, and a summary, a view or columns not recorded, a count
# of rows left out, one row each; every row with NAME.json's origin
cat >same.py <<-\EOF
import json, sys

def same(rows, rep):
    origin = ("host", "kernel", "input", "first_ts_ns", "span_ns",
              "boot_id", "start_time", "start_unix_ns", "table")
    series = ("timeline.series", "extfrag.timeline")
    want = {}
    for g, v in rep.items():
        if not isinstance(v, dict) or g in ("events", "window"):
            continue
        for k, t in v.items():
            name = "%s.%s" % (g, k)
            if name in series:
                n = len(next(iter(t.values())))
                t = [{c: t[c][i] for c in t} for i in range(n)]
            elif isinstance(t, dict):
                t = [t]
            elif isinstance(t, int):
                assert k.endswith("_omitted"), name
                t = [{"count": t}]
            if t:
                want[name] = t
    got = {}
    for r in rows:
        for k in origin[1:-1]:
            assert r[k] == rep[k], (k, r[k], rep[k])
        got.setdefault(r["table"], []).append(
            {k: v for k, v in r.items() if k not in origin})
    assert got == want, [(k, got.get(k), want.get(k)) for k in
                         sorted(set(got) | set(want))
                         if got.get(k) != want.get(k)][:3]

for n in sys.argv[1:]:
    same([json.loads(l) for l in open(n + ".ndjson")],
         json.load(open(n + ".json")))
EOF

test_expect_success 'every line one JSON object, every table row a line' '
	n=0 &&
	for r in $RECS; do
		n=$((n + 1)) &&
		"$KMEMTRACE" report --format ndjson $OPTS "$DATA/$r" >$n.ndjson &&
		"$KMEMTRACE" report --json $OPTS "$DATA/$r" >$n.json || exit 1
	done &&
	python3 same.py $(seq $n)
'

test_expect_success 'summaries are rows: --slab alone gives its summary' '
	"$KMEMTRACE" report --slab --format ndjson "$DATA/capture.dat" >rows &&
	test $(wc -l <rows) = 1 &&
	grep -q "\"table\":\"slab.summary\",\"bytes_requested\":54134," rows &&
	grep -q ",\"cross_cpu_frees\":{\"count\":67,\"of\":144}," rows
'

test_expect_success 'every view, whole and cut by -l: all --json has, as rows' '
	n=0 &&
	for r in $RECS page-only.dat record/counters.dat capture.v6.dat text/ftrace-6.18-fields.txt; do
		for l in 0 2; do
			n=$((n + 1)) &&
			"$KMEMTRACE" report --format ndjson $ALL -l $l "$DATA/$r" >$n.ndjson &&
			"$KMEMTRACE" report --json $ALL -l $l "$DATA/$r" >$n.json || exit 1
		done
	done &&
	for v in $ALL; do
		for r in $RECS page-only.dat record/counters.dat; do
			n=$((n + 1)) &&
			"$KMEMTRACE" report --format ndjson $v "$DATA/$r" >$n.ndjson &&
			"$KMEMTRACE" report --json $v "$DATA/$r" >$n.json &&
			test -s $n.ndjson || exit 1
		done
	done &&
	python3 same.py $(seq $n)
'

test_expect_success 'a view not recorded, rows of a kind, rows left out: a row each' '
	"$KMEMTRACE" report --format ndjson --pcpu "$DATA/perf-both-g.data" >rows &&
	test $(wc -l <rows) = 1 &&
	grep -q "\"table\":\"pcpu.not_recorded\",\"view\":\"--pcpu\",\"events\":\[" rows &&
	"$KMEMTRACE" report --format ndjson --leaks "$DATA/page-only.dat" >rows &&
	grep -q "\"table\":\"leaks.callsites_not_recorded\",\"rows\":{\"kind\":\"slab\"}," rows &&
	"$KMEMTRACE" report --format ndjson --timeline "$DATA/capture.dat" >rows &&
	grep -q "\"table\":\"timeline.callsites_omitted\",\"count\":21}$" rows
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

test_expect_success 'no row names a member twice: a column named as a row origin is row_<name>' '
	for r in capture.dat views/errors.txt perf-both-g.data; do
		"$KMEMTRACE" report --format ndjson $ALL "$DATA/$r" 2>/dev/null ||
			test $? = 3 || return 1
	done >all.ndjson &&
	python3 - all.ndjson <<-\EOF
	import collections, json, sys
	seen = set()
	for line in open(sys.argv[1]):
	    pairs = json.loads(line, object_pairs_hook=lambda p: p)
	    keys = [k for k, v in pairs]
	    twice = [k for k, c in collections.Counter(keys).items() if c > 1]
	    assert not twice, (dict(pairs)["table"], twice)
	    if dict(pairs)["table"] == "errors.callsites":
	        assert "row_first_ts_ns" in keys, keys
	        seen.add("errors")
	assert seen == {"errors"}, seen
	EOF
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
	for i, f in enumerate(sys.argv[1:]):
	    s = json.load(open(f))["slab"]["summary"]
	    print("h%d" % (i + 1), s["live_bytes"], s["cross_cpu_frees"]["count"],
	          s["cross_cpu_frees"]["of"])
	EOF
	test_cmp want got &&
	test $(wc -l <got) = 14
'

test_done
