#!/bin/sh
# The views of `report` agree with each other and with the slab and page
# summaries on every real recording in tests/data: the bytes --leaks
# finds outstanding are the live bytes of the summaries, the --procs rows
# add up to its totals and those to the summaries, --caches, --sizes,
# --lifetimes, --timeline, --pcpu, --extfrag and --errors count what the
# summaries count; every view alone prints what it prints among all the
# others; --cpu filters split the leaks by allocating CPU; the analyses,
# views and filters give the same report on a second thread as on one.
. "$(dirname "$0")/lib.sh"

VIEWS="--leaks --errors --procs --pcpu --extfrag --caches --sizes --lifetimes --timeline"

cat >agree.py <<'EOF'
import json, sys

d = json.load(open(sys.argv[1]))
bad = []

def eq(what, a, b):
    if a != b:
        bad.append("%s: %r != %r" % (what, a, b))

slab = d.get("slab", {}).get("summary", {})
page = d.get("page", {}).get("summary", {})
# a recording of one kind: the views of both kinds say the other was not
# recorded (null, and why beside each table), and compare the kind there is
rec = d["recorded_events"]
kinds = {k: rec is None or any(e in rec for e in ev) for k, ev in (
    ("slab", ("kmalloc", "kmem_cache_alloc", "kfree", "kmem_cache_free")),
    ("page", ("mm_page_alloc", "mm_page_free", "mm_page_free_batched")))}
raw_leaks = d["leaks"]["summary"]
if not any(kinds.values()):
    # percpu or vmalloc only: the views of slab and page objects say so
    # whole, the leaks have rows of the other kinds and none of these
    for v in ("lifetimes", "timeline", "procs", "errors", "caches",
              "sizes", "pcpu", "extfrag"):
        eq(v + " not recorded", "not_recorded" in d[v], True)
    eq("leaks of slab and page null", {raw_leaks[x] for x in raw_leaks
       if x.startswith("slab_") or x.startswith("page_")}, {None})
    eq("leaks rows of recorded kinds", {r["kind"] for r in
       d["leaks"]["callsites"]} - {"percpu", "vmalloc"}, set())
    eq("leaks rows", bool(d["leaks"]["callsites"]), True)
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    print("ok: neither slab nor page recorded, %d leak rows" %
          len(d["leaks"]["callsites"]))
    sys.exit(0)
life = d["lifetimes"]
tl = d["timeline"]
for k in ("slab", "page"):
    nulls = [raw_leaks[x] for x in raw_leaks if x.startswith(k + "_")] + \
        [life["summary"][x] for x in life["summary"] if x.startswith(k + "_")] + \
        [tl["summary"][x] for x in tl["summary"] if x.startswith(k + "_")] + \
        [v for r in life["histogram"] for x, v in r.items()
         if x.startswith(k + "_")] + \
        [v for x, s in tl["series"].items() if x.startswith(k + "_")
         for v in s]
    if kinds[k]:
        eq(k + " recorded: no null", [v for v in nulls if v is None], [])
        eq(k + " recorded: no note says otherwise", [
            d["leaks"].get("callsites_not_recorded",
                           {}).get("rows") == {"kind": k},
            k + "_frees" in life.get("histogram_not_recorded",
                                     {}).get("columns", []),
            k + "_bytes" in tl.get("series_not_recorded",
                                   {}).get("columns", [])],
           [False, False, False])
    else:
        eq(k + " not recorded: null", set(nulls), {None})
        eq(k + " not recorded: leaks say so",
           d["leaks"]["callsites_not_recorded"]["rows"], {"kind": k})
        eq(k + " not recorded: no rows of it",
           [r for r in d["leaks"]["callsites"] if r["kind"] == k], [])
        eq(k + " not recorded: the histogram says so",
           k + "_frees" in life["histogram_not_recorded"]["columns"], True)
        eq(k + " not recorded: the series say so",
           k + "_bytes" in tl["series_not_recorded"]["columns"], True)
# the nulls checked, a kind not recorded counts nothing in what follows
leaks = {k: 0 if v is None else v for k, v in raw_leaks.items()}
# columns whose events were not recorded are null: no count, taken as 0
raw_tot = d["procs"]["totals"]
tot = {k: 0 if v is None else v for k, v in raw_tot.items()}
rows = [{k: 0 if v is None else v for k, v in r.items()}
        for r in d["procs"]["processes"]]
for k, v in raw_tot.items():
    if v is None:
        eq("procs column " + k + " null in every row",
           [r[k] for r in d["procs"]["processes"] if r[k] is not None], [])
ev = d["events"]

# --leaks: what is outstanding at the end is what the summaries call live
eq("leaks slab bytes", leaks["slab_bytes"], slab.get("live_bytes", 0))
eq("leaks slab objects", leaks["slab_objects"], slab.get("live_objects", 0))
if page.get("larger_order_frees", 0) == 0:
    # page.c takes a free at a larger order for more than the block was
    eq("leaks page bytes", leaks["page_bytes"], page.get("live_bytes", 0))

# --procs: the rows add up to the totals, the totals to the summaries
eq("procs rows", len(rows), tot["processes"])
for k in ("page_allocs", "zone_locked", "freed_direct", "freed_batched",
          "pcpu_drained", "pcpu_drains", "pcpu_refills", "fallbacks",
          "fragmenting", "mt_changed", "severe", "moderate", "slab_allocs",
          "slab_alloc_bytes", "slab_frees", "slab_freed_bytes",
          "slab_outstanding_bytes", "page_outstanding_bytes"):
    eq("procs sum of " + k, sum(r[k] for r in rows), tot[k])
eq("procs outstanding", sum(r["outstanding_bytes"] for r in rows),
   tot["slab_outstanding_bytes"] + tot["page_outstanding_bytes"])
eq("procs severe+moderate", tot["severe"] + tot["moderate"], tot["fragmenting"])
eq("procs slab allocs", tot["slab_allocs"],
   ev.get("kmalloc", 0) + ev.get("kmem_cache_alloc", 0))
eq("procs slab bytes", tot["slab_alloc_bytes"], slab.get("bytes_allocated", 0))
eq("procs slab freed", tot["slab_freed_bytes"], slab.get("bytes_freed", 0))
eq("procs slab frees", tot["slab_frees"], slab.get("frees_matched", 0))
eq("procs slab outstanding", tot["slab_outstanding_bytes"], leaks["slab_bytes"])
eq("procs page outstanding", tot["page_outstanding_bytes"], leaks["page_bytes"])
eq("procs page allocs", tot["page_allocs"],
   page.get("allocations", {}).get("requests", 0))
eq("procs page frees", tot["freed_direct"],
   page.get("frees", {}).get("requests", 0))
eq("procs batched", tot["freed_batched"], page.get("batched_frees", 0))
eq("procs zone locked", tot["zone_locked"], page.get("zone_locked", 0))
eq("procs drained", tot["pcpu_drained"], page.get("pcpu_drains", 0))
eq("procs fallbacks", tot["fallbacks"], page.get("extfrag", {}).get("of", 0))
eq("procs fragmenting", tot["fragmenting"],
   page.get("extfrag", {}).get("count", 0))

# --caches and --sizes count every slab allocation once
if "not_recorded" in d["caches"]:
    eq("caches not recorded", kinds["slab"], False)
    eq("sizes not recorded", "not_recorded" in d["sizes"], True)
else:
    c = d["caches"]["summary"]
    eq("caches objects", c["objects"], tot["slab_allocs"])
    eq("caches bytes", c["bytes"], slab.get("bytes_allocated", 0))
    eq("caches frees", c["frees"], slab.get("frees_matched", 0))
    eq("caches live", c["live_bytes"], leaks["slab_bytes"])
    eq("caches live objects", c["live_objects"], leaks["slab_objects"])
    eq("caches rows", len(d["caches"]["caches"]), c["caches"])
    eq("caches sum of bytes", sum(r["bytes"] for r in d["caches"]["caches"]),
       c["bytes"])
    s = d["sizes"]["summary"]
    h = d["sizes"]["histogram"]
    eq("sizes allocs", s["allocs"], tot["slab_allocs"])
    eq("sizes requested", s["requested"], slab.get("bytes_requested", 0))
    eq("sizes allocated", s["allocated"], slab.get("bytes_allocated", 0))
    for k in ("allocs", "requested", "allocated", "waste"):
        eq("sizes sum of " + k, sum(r[k] for r in h), s[k])

# --lifetimes: one lifetime per matched free
l = d["lifetimes"]["summary"]
hist = d["lifetimes"]["histogram"]
if kinds["slab"]:
    eq("lifetimes slab", l["slab_frees"], slab.get("frees_matched", 0))
    eq("lifetimes histogram", sum(r["slab_frees"] for r in hist),
       l["slab_frees"])
if kinds["page"]:
    eq("lifetimes page", l["page_frees"],
       page.get("alloc_freed", {}).get("requests", 0) +
       page.get("split_part_frees", 0))
    eq("lifetimes page histogram", sum(r["page_frees"] for r in hist),
       l["page_frees"])

# --timeline ends where --leaks does; its steps add up
t = d["timeline"]["summary"]
ser = d["timeline"]["series"]
if kinds["slab"]:
    eq("timeline slab end", t["slab_final_bytes"], leaks["slab_bytes"])
    if ser["slab_bytes"]:
        eq("timeline last step", ser["slab_bytes"][-1], leaks["slab_bytes"])
    eq("timeline slab flow", sum(ser["slab_alloc_bytes"]) -
       sum(ser["slab_freed_bytes"]), t["slab_final_bytes"])
if kinds["page"]:
    eq("timeline page end", t["page_final_bytes"], leaks["page_bytes"])
    eq("timeline page flow", sum(ser["page_alloc_bytes"]) -
       sum(ser["page_freed_bytes"]), t["page_final_bytes"])
eq("timeline steps", len(ser["offset_ns"]), t["steps"])

# --pcpu and --extfrag count the page summary's events, or their events
# were not recorded: then neither the view nor the procs columns count
if "not_recorded" in d["pcpu"]:
    eq("pcpu not recorded", raw_tot["pcpu_drains"], None)
else:
    cpus = d["pcpu"]["cpus"]
    eq("pcpu allocs", sum(r["page_allocs"] for r in cpus), tot["page_allocs"])
    eq("pcpu frees", sum(r["page_frees"] for r in cpus), tot["freed_direct"])
    eq("pcpu drains", d["pcpu"]["summary"]["drains"],
       sum(r["drains"] for r in cpus))
if "not_recorded" in d["extfrag"]:
    eq("extfrag not recorded", raw_tot["fallbacks"], None)
else:
    x = d["extfrag"]["summary"]
    eq("extfrag events", x["events"], tot["fallbacks"])
    eq("extfrag fragmenting", x["fragmenting"], tot["fragmenting"])
    eq("extfrag rows", sum(r["events"] for r in d["extfrag"]["fallbacks"]),
       x["events"])
    eq("extfrag over time", sum(d["extfrag"]["timeline"]["events"]),
       x["events"])

# --errors counts what the slab and page summaries count
e = d["errors"]["summary"]
eq("errors failed", e["failed_alloc"], slab.get("failed", 0))
eq("errors page failed", e["page_failed_alloc"],
   page.get("failures", {}).get("requests", 0))
eq("errors kfree of cache objects", e["kfree_of_cache_object"],
   slab.get("cache_object_kfreed", 0))
eq("errors cache_free of kmalloc", e["cache_free_of_kmalloc_object"],
   slab.get("kmalloc_object_cache_freed", 0))
eq("errors free null", e["free_null"], slab.get("free_null", 0))
eq("errors alloc over live", e["alloc_over_live"],
   slab.get("alloc_over_live", 0))
eq("errors page alloc over live", e["page_alloc_over_live"],
   page.get("alloc_over_live", 0))
eq("errors unknown frees", e["unknown_free"] + e["unknown_free_warmup"] +
   e["double_free"], slab.get("free_only", 0))
kinds = ("kfree_of_cache_object", "cache_free_of_kmalloc_object",
         "cache_mismatch", "double_free", "unknown_free", "page_double_free",
         "page_unknown_free", "alloc_below_req", "failed_alloc",
         "page_failed_alloc")
# the findings legal on the traced kernel are counted, not listed
eq("errors rows", sum(r["count"] for r in d["errors"]["callsites"]) +
   e["legal"], sum(e[k] for k in kinds))
eq("errors classes", e["certain"] + e["possible"] + e["legal"],
   sum(e[k] for k in kinds))
for c in d["errors"]["classes"]:
    eq("errors classes of " + c["kind"],
       c["certain"] + c["possible"] + c["legal"], e[c["kind"]])

if bad:
    print("\n".join(bad))
    sys.exit(1)
print("ok: %d slab bytes and %d page bytes outstanding, %d processes" %
      (leaks["slab_bytes"], leaks["page_bytes"], tot["processes"]))
EOF

# samesect.py ALL FILE:SECTION...: each SECTION of FILE as in ALL, or
# their difference; one python for all the sections of a test
cat >samesect.py <<'EOF'
import difflib, json, sys
def sect(path, name):
    d = json.load(open(path))
    return json.dumps(d[name], indent=1, sort_keys=True).splitlines(True)
bad = 0
for arg in sys.argv[2:]:
    path, name = arg.rsplit(":", 1)
    want, got = sect(sys.argv[1], name), sect(path, name)
    if want != got:
        sys.stdout.writelines(difflib.unified_diff(want, got,
                              sys.argv[1] + " " + name, arg))
        bad = 1
sys.exit(bad)
EOF

# leaks by allocating CPU add up to all leaks
cat >cpus.py <<'EOF'
import json, sys
whole = json.load(open(sys.argv[1]))["leaks"]["summary"]
parts = [json.load(open(f))["leaks"]["summary"] for f in sys.argv[2:]]
for k in ("slab_objects", "slab_bytes", "page_blocks", "page_bytes"):
    # a kind not recorded is not recorded on any CPU
    if whole[k] is None:
        if any(p[k] is not None for p in parts):
            sys.exit("%s: null in all, not on every CPU" % k)
        continue
    s = sum(p[k] for p in parts)
    if s != whole[k]:
        sys.exit("%s: the CPUs add up to %d, not %d" % (k, s, whole[k]))
EOF

found=0
for f in "$DATA"/*.dat "$DATA"/*.data; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	# no kmem event at all: t0310 and t0630 test what report says
	[ "$name" = nokmem-cycles.data ] && continue
	found=1
	test_expect_success "$name: the views agree with each other and the summaries" '
		"$KMEMTRACE" report -i "$f" --slab --page $VIEWS -l 0 --json >all.json &&
		python3 agree.py all.json
	'
	test_expect_success "$name: each view alone prints what it prints among all" '
		ones= &&
		for v in $VIEWS; do
			g=${v#--} &&
			"$KMEMTRACE" report -i "$f" $v -l 0 --json >one-$g.json &&
			ones="$ones one-$g.json:$g" || return 1
		done &&
		python3 samesect.py all.json $ones
	'
	test_expect_success "$name: the slab and page analyses the same beside the views" '
		"$KMEMTRACE" report -i "$f" --slab --page --caller -l 0 --json >plain.json &&
		"$KMEMTRACE" report -i "$f" --slab --page --caller -l 0 $VIEWS --json >views.json &&
		python3 samesect.py plain.json views.json:slab views.json:page
	'
	test_expect_success "$name: analysed on a second thread or on one, the same report" '
		for o in "" "--caller --alloc" "--caller --alloc --live" \
			 "-s hit,callsite --caller --alloc -l 5" \
			 "$VIEWS --by comm" "$VIEWS --comm k*,s* --cpu 0"; do
			"$KMEMTRACE" report -i "$f" $o --threads 1 --json >t1.json &&
			"$KMEMTRACE" report -i "$f" $o --threads 2 --json >t2.json &&
			test_cmp t1.json t2.json || return 1
		done &&
		"$KMEMTRACE" report -i "$f" --threads 2 --json >plain.json &&
		grep -q "\"slab\"\|\"page\"\|\"percpu\"\|\"vmalloc\"" plain.json
	'
	test_expect_success "$name: text and CSV drawn in two parts read as drawn in one" '
		for o in "" "--caller --alloc" "--caller --alloc -l 3 -s hit" \
			 "--csv" "--csv --caller --alloc" "--slab --page $VIEWS" \
			 "$VIEWS --by comm" "$VIEWS --csv"; do
			"$KMEMTRACE" report -i "$f" $o --threads 1 >one.out &&
			"$KMEMTRACE" report -i "$f" $o --threads 2 >two.out &&
			test_cmp one.out two.out &&
			rm -f file.out &&
			"$KMEMTRACE" report -i "$f" $o --threads 2 -o file.out &&
			test_cmp one.out file.out &&
			echo before >appended.out &&
			"$KMEMTRACE" report -i "$f" $o --threads 2 >>appended.out &&
			{ echo before; cat one.out; } >want.out &&
			test_cmp want.out appended.out &&
			for rows in 1 7; do
				for spool in 0 200 1000000; do
					KMT_TEST_PIECE_ROWS=$rows \
					KMT_TEST_SPOOL_MAX=$spool \
					"$KMEMTRACE" report -i "$f" $o \
						--threads 2 >pieces.out &&
					test_cmp one.out pieces.out || return 1
				done
			done || return 1
		done
	'
	test_expect_success "$name: leaks by CPU add up to all leaks" '
		cpus=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"cpus\"])" all.json) &&
		test "$cpus" -ge 1 &&
		parts= &&
		c=0 &&
		while [ $c -lt $cpus ]; do
			"$KMEMTRACE" report -i "$f" --leaks --cpu $c --json >cpu$c.json &&
			parts="$parts cpu$c.json" &&
			c=$((c + 1)) || return 1
		done &&
		python3 cpus.py all.json $parts
	'
done
if [ $found = 0 ]; then
	test_skip 'views agree on real recordings' 'no recordings in tests/data'
fi
test_expect_success '--threads: 0 is the default, other numbers a one-line error' '
	f=$(ls "$DATA"/perf-*.data | head -1) &&
	"$KMEMTRACE" report -i "$f" --json >default.json &&
	"$KMEMTRACE" report -i "$f" --threads 0 --json >zero.json &&
	test_cmp default.json zero.json &&
	for n in 3 -1; do
		{ "$KMEMTRACE" report -i "$f" --threads $n >out 2>err; rc=$?; } &&
		test $rc = 129 &&
		test ! -s out &&
		test $(wc -l <err) = 1 &&
		grep -q "^kmemtrace report: error: option .--threads. needs a number from 0 to 2, not .$n. (see .kmemtrace report -h.)$" err || return 1
	done
'
test_done
