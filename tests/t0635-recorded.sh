#!/bin/sh
# What a recording did not record is not reported as zeros: a view none
# of whose events the recording holds says "not recorded" (text, JSON,
# CSV) and how to record them; columns of such events say so in place
# of 0; an event type the recording lists but that never happened is a
# true 0.  Text inputs cannot tell: "none seen".  And the CSV loads in
# one call; the page tables' GFP flags are abbreviated with a legend.
# test: alone
. "$(dirname "$0")/lib.sh"

SLAB=$DATA/perf-slab-pipe.data	# perf kmem --slab record: slab events only
PAGE=$DATA/page-only.dat	# kmemtrace record --page: page events only
BOTH=$DATA/capture.dat		# every kmem format, no pcpu or extfrag event

test_expect_success 'slab-only perf.data: the page views say not recorded, how to record them' '
	"$KMEMTRACE" report -i "$SLAB" --page --pcpu --extfrag --caches >out 2>err &&
	! test -s err &&
	cat >want <<-\EOF &&
	--page: not recorded: the recording has no kmem:mm_page_alloc, kmem:mm_page_free or kmem:mm_page_free_batched events (record them with: kmemtrace record --page)
	--pcpu: not recorded: the recording has no kmem:mm_page_alloc_zone_locked or kmem:mm_page_pcpu_drain events (record them with: kmemtrace record --pcpu)
	--extfrag: not recorded: the recording has no kmem:mm_page_alloc_extfrag events (record them with: kmemtrace record --extfrag)
	EOF
	grep "^--.*not recorded" out >got &&
	test_cmp want got &&
	grep -q "^ not recorded: Slabinfo chg, Difference: the recording has no snapshots of /proc/slabinfo" out &&
	grep -q "^The kernel.s counters: not recorded" out &&
	grep -q "^SLAB CACHES" out &&
	! grep -q "^PER-CPU\|^EXTERNAL\|SUMMARY (page" out
'

test_expect_success 'slab-only perf.data: JSON not_recorded members, recorded_events' '
	"$KMEMTRACE" report -i "$SLAB" --pcpu --extfrag --caches --json >out.json &&
	python3 -c "
import json
d = json.load(open(\"out.json\"))
assert d[\"pcpu\"] == {\"not_recorded\": {\"view\": \"--pcpu\",
    \"events\": [\"kmem:mm_page_alloc_zone_locked\", \"kmem:mm_page_pcpu_drain\"],
    \"record_with\": \"kmemtrace record --pcpu\"}}, d[\"pcpu\"]
assert d[\"extfrag\"][\"not_recorded\"][\"record_with\"] == \"kmemtrace record --extfrag\"
assert d[\"recorded_events\"] == [\"kmalloc\", \"kmem_cache_alloc\", \"kfree\", \"kmem_cache_free\"]
assert \"caches\" in d[\"caches\"]
"
'

test_expect_success 'slab-only perf.data: CSV says so in rows of its own' '
	"$KMEMTRACE" report -i "$SLAB" --pcpu --csv >out.csv &&
	grep "^pcpu\.not_recorded," out.csv >got &&
	cat >want <<-\EOF &&
	pcpu.not_recorded,0,view,--pcpu
	pcpu.not_recorded,0,event,kmem:mm_page_alloc_zone_locked
	pcpu.not_recorded,1,event,kmem:mm_page_pcpu_drain
	pcpu.not_recorded,0,record_with,kmemtrace record --pcpu
	EOF
	test_cmp want got
'

test_expect_success '--procs on slab events only: page columns not recorded, not 0' '
	"$KMEMTRACE" report -i "$SLAB" --procs >out &&
	grep -q "^ true-6068  *not recorded  *not recorded" out &&
	grep -q "^ not recorded: Allocd, Allocd locked, .*, Moderate: the recording has no kmem:mm_page_alloc, .* events (record them with: kmemtrace record --page --pcpu --extfrag)$" out &&
	grep -q "^Pages allocated (mm_page_alloc): not recorded$" out &&
	grep -q "^Slab allocations: 192$" out &&
	"$KMEMTRACE" report -i "$SLAB" --procs --json >out.json &&
	python3 -c "
import json
d = json.load(open(\"out.json\"))[\"procs\"]
r = d[\"processes\"][0]
assert r[\"page_allocs\"] is None and r[\"pcpu_drains\"] is None, r
assert r[\"slab_alloc_bytes\"] > 0, r
assert d[\"totals\"][\"fallbacks\"] is None and d[\"totals\"][\"slab_allocs\"] == 192
nr = d[\"processes_not_recorded\"]
assert \"page_allocs\" in nr[\"columns\"] and \"slab_allocs\" not in nr[\"columns\"], nr
assert nr[\"record_with\"] == \"kmemtrace record --page --pcpu --extfrag\", nr
" &&
	"$KMEMTRACE" report -i "$SLAB" --procs --csv >out.csv &&
	grep -q "^procs\.processes,0,page_allocs,$" out.csv &&
	grep -q "^procs\.processes,0,slab_allocs,149$" out.csv &&
	grep -q "^procs\.processes_not_recorded,0,column,page_allocs$" out.csv
'

test_expect_success 'recorded but none happened: a true 0, no not recorded' '
	"$KMEMTRACE" report -i "$BOTH" --pcpu --extfrag --procs >out &&
	! grep -q "not recorded\|none seen" out &&
	grep -q "^PER-CPU PAGE LISTS" out &&
	grep -q "^EXTERNAL FRAGMENTATION" out &&
	grep -q "^Per-CPU drains: 0$" out &&
	grep -q "^Fragmentation fallbacks: 0$" out
'

# the views of slab and page alike on a recording of one kind: $1 the
# recording, $2 the kind it has, $3 the kind it lacks, $4 its record option
one_kind () {
	"$KMEMTRACE" report -i "$1" --leaks --lifetimes --caller --timeline \
		--step 2ms -l 0 >out &&
	Has=$(echo $2 | sed "s/^./\U&/") && Not=$(echo $3 | sed "s/^./\U&/") &&
	why="the recording has no kmem:.* events (record them with: kmemtrace record --$4)" &&
	# leaks: no rows of the kind, and that it was not recorded under them
	grep -q "^ $2 " out &&
	! grep -q "^ $3 " out &&
	test $(grep -c "^ not recorded: $3 rows: $why$" out) = 3 &&
	grep -q "^$Not bytes outstanding: not recorded$" out &&
	grep -q "^$Has bytes outstanding: [0-9]" out &&
	# lifetimes and timeline: its columns and summary lines not recorded
	grep -q "^ not recorded: $Not [a-z]*, $Not bytes, $Not cum%: $why$" out &&
	grep -q "^$Not frees matched: not recorded$" out &&
	grep -q "^$Not longest: not recorded$" out &&
	grep -q "^$Has frees matched: [1-9]" out &&
	grep -q "^ not recorded: $Not[a-z]*, $Not[a-z]*+, $Not[a-z]*-: $why$" out &&
	grep -q "^$Not bytes outstanding at the end: not recorded$" out &&
	! grep -q "^[ 0-9.,a-z]*[0-9] *0 *0 *0\.000% *$" out &&
	"$KMEMTRACE" report -i "$1" --leaks --lifetimes --timeline --json >out.json &&
	python3 - out.json $2 $3 $4 <<-\EOF &&
	import json, sys
	d, has, nothas, opt = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
	why = lambda m: m["record_with"] == "kmemtrace record --" + opt and m["events"]
	l = d["leaks"]
	assert l["callsites_not_recorded"]["rows"] == {"kind": nothas}, l
	assert why(l["callsites_not_recorded"])
	assert l["summary"][nothas + "_bytes"] is None and l["summary"][has + "_bytes"] > 0
	h = d["lifetimes"]["histogram_not_recorded"]
	assert h["columns"] == [nothas + "_frees", nothas + "_bytes", nothas + "_cum_pct"], h
	assert why(h)
	assert all(r[nothas + "_frees"] is None and r[has + "_frees"] is not None
	           for r in d["lifetimes"]["histogram"])
	assert d["lifetimes"]["summary"][nothas + "_frees"] is None
	t = d["timeline"]
	assert set(t["series_not_recorded"]["columns"]) == {nothas + "_bytes",
	    nothas + "_alloc_bytes", nothas + "_freed_bytes", nothas + "_peak_bytes"}
	assert set(t["series"][nothas + "_bytes"]) == {None}
	assert None not in t["series"][has + "_bytes"] + t["series"]["site_1"]
	assert t["summary"][nothas + "_final_bytes"] is None
	EOF
	"$KMEMTRACE" report -i "$1" --leaks --csv >out.csv &&
	grep -q "^leaks\.callsites_not_recorded,0,kind,$3$" out.csv &&
	grep -q "^leaks\.callsites_not_recorded,0,record_with,kmemtrace record --$4$" out.csv &&
	grep -q "^leaks\.summary,0,$3_bytes,$" out.csv
}

test_expect_success 'slab-only: leaks, lifetimes and timeline say the pages were not recorded' '
	one_kind "$SLAB" slab page page
'

test_expect_success 'page-only: leaks, lifetimes and timeline say the slab was not recorded' '
	one_kind "$PAGE" page slab slab
'

test_expect_success 'both kinds recorded: leaks, lifetimes and timeline numbers, true zeros' '
	"$KMEMTRACE" report -i "$BOTH" --leaks --lifetimes --timeline >out &&
	! grep -q "not recorded" out &&
	grep -q "^   8.19us   16.38us  *3  *8,272  *2.083%  *0  *0  *0.000%$" out &&
	grep -q "^Page bytes outstanding: 163840$" out &&
	# recorded, none in the window: a true 0, not "not recorded"
	"$KMEMTRACE" report -i "$BOTH" --time 1047.7811, --leaks --lifetimes \
		--timeline --step 1ms >out &&
	! grep -q "not recorded" out &&
	grep -q "^Page blocks outstanding: 0$" out &&
	grep -q "^Page frees matched: 0$" out &&
	grep -q "^ 16.38us  32.77us  *1  *4,096  *100.000%  *0  *0  *0.000%$" out &&
	grep -q "^Page bytes outstanding at the end: 0$" out &&
	"$KMEMTRACE" report -i "$BOTH" --time 1047.7811, --leaks --lifetimes \
		--timeline --json >out.json &&
	python3 - out.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	# the views, not the header (a recording may keep no boot id: null)
	def nulls(v, path):
	    if v is None or (isinstance(path, str) and path.endswith("not_recorded")):
	        yield path
	    elif isinstance(v, dict):
	        for k, x in v.items():
	            yield from nulls(x, "%s.%s" % (path, k))
	    elif isinstance(v, list):
	        for x in v:
	            yield from nulls(x, path)
	bad = [p for k in ("leaks", "lifetimes", "timeline") for p in nulls(d[k], k)]
	assert not bad, bad[:5]
	EOF
'

test_expect_success 'text input: none seen, since text does not say what was enabled' '
	"$KMEMTRACE" report -i "$DATA/views/leaks.txt" --extfrag --leaks >out &&
	grep -q "^--extfrag: none seen: the input has no kmem:mm_page_alloc_extfrag events, and text does not say which events were enabled (record them with: kmemtrace record --extfrag)$" out &&
	"$KMEMTRACE" report -i "$DATA/views/leaks.txt" --extfrag --json >out.json &&
	python3 -c "
import json
d = json.load(open(\"out.json\"))
assert d[\"recorded_events\"] is None
assert d[\"extfrag\"][\"none_seen\"][\"events\"] == [\"kmem:mm_page_alloc_extfrag\"], d
"
'

test_expect_success 'CSV: one header, four fields a row, loads with csv and sqlite' '
	"$KMEMTRACE" report -i "$DATA/perf-both-g.data" --slab --page --caller --alloc --leaks \
		--procs --timeline --errors --csv >r.csv &&
	python3 -c "
import csv
rows = list(csv.reader(open(\"r.csv\", newline=\"\")))
assert rows[0] == [\"table\", \"row\", \"column\", \"value\"], rows[0]
assert all(len(r) == 4 for r in rows), [r for r in rows if len(r) != 4][:3]
t = {}
for table, row, col, val in rows[1:]:
    t.setdefault(table, {}).setdefault(int(row), {})[col] = val
assert t[\"meta\"][0][\"format\"] == \"perf.data\"
assert t[\"slab.summary\"][0][\"kmalloc\"] == \"16\"
assert len(t[\"page.callsites\"]) == int(t[\"page.callsites_rows\"][0][\"drawn\"])
assert t[\"page.callsites\"][0][\"gfp\"].startswith(\"GFP_\")
assert \"gfp_short\" not in t[\"page.callsites\"][0]
" &&
	if command -v sqlite3 >/dev/null; then
		printf ".import --csv r.csv report\nSELECT value FROM report WHERE \"table\" = '\''meta'\'' AND \"column\" = '\''format'\'';\n" |
			sqlite3 >got &&
		echo perf.data >want &&
		test_cmp want got
	fi
'

test_expect_success 'page tables: GFP flags abbreviated, a legend of the full names' '
	"$KMEMTRACE" report -i "$DATA/perf-both-g.data" --page --caller >out &&
	grep -q "| HM|Z|C  *|" out &&
	grep -q "^ GFP flags: HM = GFP_HIGHUSER_MOVABLE, KA = GFP_KERNEL_ACCOUNT, NOW = GFP_NOWAIT, Z = __GFP_ZERO$" out &&
	grep -q "^            C = __GFP_COMP$" out &&
	! grep -q "| GFP_HIGHUSER_MOVABLE" out &&
	test $(awk "{ if (length > n) n = length } END { print n }" out) -le 130 &&
	"$KMEMTRACE" report -i "$DATA/perf-both-g.data" --page --caller --json >out.json &&
	grep -q "\"gfp\": \"GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP\"" out.json &&
	! grep -q gfp_short out.json
'

test_expect_success 'migratetype 4 is CMA/Isolate under the matrix, with its note' '
	"$KMEMTRACE" report -i "$DATA/perf-both-g.data" --page >out &&
	grep -q " CMA/Isolate  Isolate  Unknown$" out &&
	grep -q "^ CMA/Isolate: migratetype 4, MIGRATE_CMA where the kernel has CONFIG_CMA, else MIGRATE_ISOLATE$" out &&
	grep -q "^ Isolate: migratetype 5, MIGRATE_ISOLATE after MIGRATE_CMA$" out &&
	! grep -q "CMA/Isolated" out
'

test_expect_success 'views: byte columns grouped alike, counts not' '
	"$KMEMTRACE" report -i "$DATA/views/leaks.txt" --procs --timeline --caches --step 500ms >out &&
	grep -q "^ cat-200  .*  12,288   not recorded  not recorded$" out &&
	grep -q "^    1.50s   256  16,384 " out &&
	grep -q "^ kmalloc-large  *1  65,536  65,536 " out
'

if have_root_tracefs && command -v trace-cmd >/dev/null 2>&1; then
	test_expect_success 'kmemtrace record --slab: its file lists only the slab events' '
		"$KMEMTRACE" record --slab -q -o slab.dat -- true &&
		"$KMEMTRACE" report -i slab.dat --pcpu --json >out.json &&
		python3 -c "
import json
d = json.load(open(\"out.json\"))
assert d[\"recorded_events\"] == [\"kmalloc\", \"kmem_cache_alloc\", \"kfree\", \"kmem_cache_free\"], d[\"recorded_events\"]
assert d[\"pcpu\"][\"not_recorded\"][\"record_with\"] == \"kmemtrace record --pcpu\"
"
	'
else
	test_skip 'kmemtrace record --slab: its file lists only the slab events' \
		'needs root, tracefs and trace-cmd'
fi

test_done
