#!/bin/sh
# The views of `report` on hand-written ftrace text traces whose answers
# are known (tests/data/views/*.txt say what they hold): every figure, in
# text and in JSON, against tests/expected/views; the filters, the
# options and their errors.
. "$(dirname "$0")/lib.sh"

V=$DATA/views
X=$EXPECTED/views
cp "$V"/*.txt . || exit 1

# the view groups of a JSON report, keys sorted, as the expected files
cat >group.py <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(json.dumps({g: d[g] for g in sys.argv[2:]}, indent=1, sort_keys=True))
EOF

# "python3 get.py FILE group.key.item ..." prints each figure, one a line
cat >get.py <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    v = d
    for k in path.split("."):
        v = v[int(k)] if isinstance(v, list) else v[k]
    print(v)
EOF

# check NAME GROUP ARGS...: text and JSON both as expected
check () {
	name=$1 group=$2
	shift 2
	"$KMEMTRACE" report "$@" >out.txt &&
	sed "/^# /d" out.txt >actual.txt &&
	test_cmp "$X/$name.txt" actual.txt &&
	"$KMEMTRACE" report "$@" --json >out.json &&
	python3 group.py out.json $group >actual.json &&
	test_cmp "$X/$name.json" actual.json
}

# figures FILE PATH=VALUE...
figures () {
	f=$1
	shift
	for pv in "$@"; do
		got=$(python3 get.py "$f" "${pv%%=*}") || return 1
		if [ "$got" != "${pv#*=}" ]; then
			echo "${pv%%=*}: $got, want ${pv#*=}" >&2
			return 1
		fi
	done
}

test_expect_success 'leaks: text and JSON' '
	check leaks leaks -i leaks.txt --leaks &&
	figures out.json leaks.summary.slab_objects=3 \
		leaks.summary.slab_bytes=384 leaks.summary.page_blocks=3 \
		leaks.summary.page_bytes=12288 \
		leaks.summary.end_ts_ns=103000000000 \
		leaks.callsites.1.callsite=leaky_alloc+1a \
		leaks.callsites.1.count=3 leaks.callsites.1.bytes=384 \
		leaks.callsites.1.min_age_ns=100000000 \
		leaks.callsites.1.max_age_ns=2999900000 \
		leaks.callsites.1.avg_age_ns=2033233333 \
		leaks.callsites.1.cache=kmalloc-128 \
		leaks.callsites.0.kind=page leaks.callsites.0.count=3 \
		leaks.callsites.0.min_age_ns=1500000000
'

test_expect_success 'leaks: the slab and page summaries say the same' '
	"$KMEMTRACE" report -i leaks.txt --slab --page --leaks --json >all.json &&
	figures all.json slab.summary.live_bytes=384 \
		page.summary.live_bytes=12288 leaks.summary.slab_bytes=384 \
		leaks.summary.page_bytes=12288
'

test_expect_success 'leaks: --older-than keeps the old ones' '
	"$KMEMTRACE" report -i leaks.txt --leaks --older-than 1s --json >old.json &&
	figures old.json leaks.summary.slab_bytes=384 \
		leaks.summary.older_than_ns=1000000000 \
		leaks.summary.older_slab_objects=2 \
		leaks.summary.older_slab_bytes=256 \
		leaks.summary.older_page_blocks=3 \
		leaks.summary.older_page_bytes=12288 \
		leaks.callsites.1.count=2 leaks.callsites.1.min_age_ns=2999800000 &&
	"$KMEMTRACE" report -i leaks.txt --leaks --older-than 2500ms --json >older.json &&
	figures older.json leaks.summary.older_slab_objects=2 \
		leaks.summary.older_page_blocks=0 &&
	"$KMEMTRACE" report -i leaks.txt --leaks --older-than 1m >m.txt &&
	grep -q "^ (none)$" m.txt
'

test_expect_success 'leaks: --pid, --comm: what they allocated, whoever freed it' '
	"$KMEMTRACE" report -i leaks.txt --leaks --pid 100 --json >p100.json &&
	figures p100.json leaks.summary.slab_objects=3 \
		leaks.summary.slab_bytes=384 leaks.summary.page_blocks=0 &&
	"$KMEMTRACE" report -i leaks.txt --leaks --comm "ba*" --json >ba.json &&
	python3 group.py p100.json leaks >a && python3 group.py ba.json leaks >b &&
	test_cmp a b &&
	"$KMEMTRACE" report -i leaks.txt --leaks --pid 200 --json >p200.json &&
	figures p200.json leaks.summary.slab_objects=0 \
		leaks.summary.page_blocks=3 &&
	"$KMEMTRACE" report -i leaks.txt --leaks --pid 100,200 --json >both.json &&
	figures both.json leaks.summary.slab_bytes=384 \
		leaks.summary.page_bytes=12288 &&
	"$KMEMTRACE" report -i leaks.txt --leaks --pid 100 --pid 200 --json >both2.json &&
	python3 group.py both.json leaks >a && python3 group.py both2.json leaks >b &&
	test_cmp a b
'

test_expect_success 'filters apply to every view: the dentry cat freed is bash'"'"'s' '
	"$KMEMTRACE" report -i leaks.txt --procs --caches --lifetimes --pid 100 --json >f.json &&
	figures f.json procs.totals.processes=2 \
		procs.totals.slab_frees=2 procs.totals.slab_freed_bytes=224 \
		procs.totals.page_allocs=0 caches.summary.frees=2 \
		lifetimes.summary.slab_frees=2 lifetimes.summary.page_frees=0 &&
	"$KMEMTRACE" report -i leaks.txt --slab --pid 100 --json >s.json &&
	figures s.json slab.summary.live_bytes=384 slab.summary.frees_matched=2
'

test_expect_success 'filters: --cpu selects by the allocating CPU' '
	"$KMEMTRACE" report -i leaks.txt --leaks --cpu 1 --json >c1.json &&
	figures c1.json leaks.summary.slab_objects=0 leaks.summary.page_blocks=3 &&
	"$KMEMTRACE" report -i leaks.txt --leaks --cpu 0-1 --json >c01.json &&
	figures c01.json leaks.summary.slab_objects=3 leaks.summary.page_blocks=3
'

test_expect_success 'filters: --time ends the leaks where the window ends' '
	"$KMEMTRACE" report -i leaks.txt --leaks --time 100,102.7 --json >w.json &&
	figures w.json leaks.summary.end_ts_ns=102700000000 \
		leaks.summary.slab_objects=2 leaks.summary.slab_bytes=256 \
		leaks.summary.page_blocks=3 leaks.callsites.0.max_age_ns=1200000000
'

test_expect_success 'errors: every kind of misuse, text and JSON' '
	check errors errors -i errors.txt --errors &&
	figures out.json errors.summary.kfree_of_cache_object=1 \
		errors.summary.cache_free_of_kmalloc_object=1 \
		errors.summary.cache_mismatch=1 errors.summary.double_free=1 \
		errors.summary.unknown_free=1 errors.summary.page_double_free=1 \
		errors.summary.page_unknown_free=1 \
		errors.summary.alloc_below_req=1 errors.summary.failed_alloc=2 \
		errors.summary.page_failed_alloc=1 \
		errors.summary.unknown_free_warmup=1 errors.summary.free_null=1 \
		errors.summary.alloc_over_live=1 \
		errors.summary.certain=5 errors.summary.possible=6 \
		errors.summary.legal=0 \
		errors.callsites.0.class=certain \
		errors.callsites.1.detail="allocated from filp, freed to sock_inode_cache" \
		errors.callsites.2.callsite=fput+11 \
		errors.callsites.2.other_callsite=fput+11 \
		errors.callsites.2.class=certain \
		errors.callsites.5.kind=kfree_of_cache_object \
		errors.callsites.5.class=possible \
		errors.classes.3.certain=1 errors.classes.8.possible=2
'

test_expect_success 'errors: --warmup 0 expects no free of an unknown pointer' '
	"$KMEMTRACE" report -i errors.txt --errors --warmup 0 --json >w0.json &&
	figures w0.json errors.summary.unknown_free=2 \
		errors.summary.unknown_free_warmup=0 errors.summary.warmup_ns=0 &&
	"$KMEMTRACE" report -i errors.txt --errors --warmup 2s --json >w2.json &&
	figures w2.json errors.summary.unknown_free=0 \
		errors.summary.unknown_free_warmup=2 \
		errors.summary.page_unknown_free=0 \
		errors.summary.page_unknown_free_warmup=1
'

test_expect_success 'errors: --kernel judges a kmem_cache object freed with kfree' '
	"$KMEMTRACE" report -i errors.txt --errors --kernel 6.18.44 --json >k18.json &&
	figures k18.json kernel=6.18.44 errors.summary.legal=1 \
		errors.summary.kfree_of_cache_object=1 \
		errors.classes.0.legal=1 errors.classes.0.possible=0 &&
	python3 -c "
import json, sys
rows = json.load(open(\"k18.json\"))[\"errors\"][\"callsites\"]
sys.exit(len(rows) != 9 or any(r[\"class\"] == \"legal\" for r in rows))
" &&
	"$KMEMTRACE" report -i errors.txt --errors --kernel 6.18.44 --all-findings \
		--json >all.json &&
	figures all.json errors.callsites.9.kind=kfree_of_cache_object \
		errors.callsites.9.class=legal &&
	"$KMEMTRACE" report -i errors.txt --errors --kernel 6.18.44 >k18.txt &&
	grep -q "^Legal on this kernel (--all-findings lists them): 1$" k18.txt &&
	"$KMEMTRACE" report -i errors.txt --errors --kernel 5.10.0-28-amd64 --json >k510.json &&
	figures k510.json errors.callsites.0.kind=kfree_of_cache_object \
		errors.callsites.0.class=certain errors.summary.certain=7
'

test_expect_success 'pcpu: runs of refills and drains, imbalance' '
	check pcpu pcpu -i pcpu.txt --pcpu &&
	figures out.json pcpu.cpus.0.refills=2 pcpu.cpus.0.refill_pages=5 \
		pcpu.cpus.0.pages_per_refill=2.5 pcpu.cpus.0.drains=1 \
		pcpu.cpus.0.net_pages=4 pcpu.cpus.0.zone_locked=1 \
		pcpu.cpus.1.drains=2 pcpu.cpus.1.drain_pages=5 \
		pcpu.cpus.1.pages_per_drain=2.5 pcpu.cpus.1.net_pages=-5 \
		pcpu.cpus.1.remote_frees=1 pcpu.cpus.1.drained_foreign=4 \
		pcpu.summary.imbalance_pages.count=4 \
		pcpu.summary.drained_unseen=1
'

test_expect_success 'procs: Mel Gorman'"'"'s columns, runs per process' '
	check procs procs -i pcpu.txt --procs &&
	figures out.json procs.processes.0.process=p-1 \
		procs.processes.0.zone_locked=5 \
		procs.processes.0.pcpu_refills=2 \
		procs.processes.0.pcpu_drained=1 procs.processes.0.pcpu_drains=1 \
		procs.processes.1.process=q-2 procs.processes.1.freed_direct=1 \
		procs.processes.1.freed_batched=1 \
		procs.processes.1.pcpu_drained=4 procs.processes.1.pcpu_drains=2 \
		procs.processes.1.outstanding_bytes=4096
'

test_expect_success 'procs: slab bytes, outstanding for the allocator' '
	check procs-slab procs -i leaks.txt --procs &&
	figures out.json procs.processes.1.process=bash-100 \
		procs.processes.1.slab_alloc_bytes=66144 \
		procs.processes.1.slab_freed_bytes=32 \
		procs.processes.1.outstanding_bytes=384 \
		procs.processes.0.slab_freed_bytes=192 \
		procs.processes.0.outstanding_bytes=12288
'

test_expect_success 'procs: --by comm, sorted by any column' '
	"$KMEMTRACE" report -i pcpu.txt --procs --by comm -s pcpu_drained --json >c.json &&
	figures c.json procs.processes.0.process=q procs.processes.1.process=p &&
	"$KMEMTRACE" report -i pcpu.txt --procs -s zone_locked >z.txt &&
	sed -n "/^ p-1/=" z.txt >p && sed -n "/^ q-2/=" z.txt >q &&
	test $(cat p) -lt $(cat q)
'

test_expect_success 'procs: --by tgid adds up the tasks of each process' '
	sed -E "s/^( *)(p-1|q-2) +\[/\1\2 (      1) [/" \
		"$DATA/views/pcpu.txt" >tgid.txt &&
	"$KMEMTRACE" report -i tgid.txt --procs --by tgid --json >t.json &&
	figures t.json procs.processes.0.process=p-1 procs.processes.0.tgid=1 \
		procs.processes.0.page_allocs=2 procs.processes.0.pcpu_drains=3 \
		procs.processes.0.pcpu_drained=5 procs.totals.processes=1 \
		procs.totals.tasks=2 procs.totals.tasks_alone=0 &&
	"$KMEMTRACE" report -i tgid.txt --procs --by tgid >t.txt &&
	grep "^PROCESSES: allocator stress by process (tgid)$" t.txt &&
	grep "^Tasks (pids) in them: 2$" t.txt &&
	sed -E "s/^( *)(a-1|b-2) +\[/\1\2 (      1) [/" \
		"$DATA/views/extfrag.txt" >tgid-ef.txt &&
	"$KMEMTRACE" report -i tgid-ef.txt --extfrag --by tgid --json >e.json &&
	figures e.json extfrag.processes.0.process=a-1 \
		extfrag.processes.0.tgid=1 extfrag.processes.0.events=5 \
		extfrag.processes.0.fragmenting=3
'

test_expect_success '--by tgid on a recording without thread groups: refused' '
	"$KMEMTRACE" report -i "$DATA/views/pcpu.txt" --procs --by tgid \
		>out 2>err; test $? = 1 &&
	grep "^kmemtrace report: error: --by tgid: .* does not say which process each task belongs to" err &&
	test $(wc -l <err) = 1 && test ! -s out
'

test_expect_success 'extfrag: each kind, by process, over time' '
	check extfrag extfrag -i extfrag.txt --extfrag --step 500ms &&
	figures out.json extfrag.summary.events=5 \
		extfrag.summary.fragmenting=3 extfrag.summary.severe=2 \
		extfrag.summary.moderate=1 extfrag.summary.not_fragmenting=2 \
		extfrag.summary.changed_owner=3 \
		extfrag.fallbacks.0.severe=2 extfrag.fallbacks.0.changed_owner=1 \
		extfrag.fallbacks.1.moderate=1 extfrag.processes.0.process=b-2 \
		extfrag.timeline.events.0=5 extfrag.timeline.offset_ns.2=1000000000
'

test_expect_success 'extfrag: --by comm' '
	"$KMEMTRACE" report -i extfrag.txt --extfrag --by comm --json >c.json &&
	figures c.json extfrag.processes.0.process=b extfrag.processes.1.severe=2
'

test_expect_success 'caches, sizes: objects, waste, outstanding' '
	check caches caches -i leaks.txt --caches &&
	figures out.json caches.caches.1.cache=kmalloc-128 \
		caches.caches.1.objects=3 caches.caches.1.waste=84 \
		caches.caches.1.live_bytes=384 caches.caches.2.cache=dentry \
		caches.caches.2.frees=1 caches.summary.kfree_unknown=1 &&
	check sizes sizes -i leaks.txt --sizes &&
	figures out.json sizes.histogram.2.range=65-128 \
		sizes.histogram.2.allocs=3 sizes.histogram.2.waste=84 \
		sizes.summary.waste=86
'

test_expect_success 'lifetimes: histogram and per callsite' '
	check lifetimes lifetimes -i leaks.txt --lifetimes --caller &&
	figures out.json lifetimes.summary.slab_frees=2 \
		lifetimes.summary.slab_min_ns=10000 \
		lifetimes.summary.slab_max_ns=499700000 \
		lifetimes.summary.page_avg_ns=300000000 \
		lifetimes.callsites.0.kind=page lifetimes.callsites.0.frees=2
'

test_expect_success 'timeline: rows in text, series in JSON' '
	check timeline timeline -i leaks.txt --timeline --step 500ms --top 3 &&
	figures out.json timeline.summary.steps=7 \
		timeline.series.slab_bytes.0=448 timeline.series.slab_bytes.6=384 \
		timeline.series.page_bytes.3=16384 \
		timeline.series.site_1.4=12288 timeline.series.site_2.5=384 \
		timeline.callsites.1.callsite=leaky_alloc+1a &&
	"$KMEMTRACE" report -i leaks.txt --timeline --json >auto.json &&
	figures auto.json timeline.summary.step_ns=50000000 \
		timeline.summary.steps=61
'

test_expect_success 'all views at once print what each prints alone' '
	for t in leaks errors pcpu extfrag; do
		"$KMEMTRACE" report -i $t.txt --leaks --errors --procs --pcpu \
			--extfrag --caches --sizes --lifetimes --timeline --json >all.json &&
		for g in leaks errors procs pcpu extfrag caches sizes lifetimes timeline; do
			"$KMEMTRACE" report -i $t.txt --$g --json >one.json &&
			python3 group.py all.json $g >a && python3 group.py one.json $g >b &&
			test_cmp a b || return 1
		done
	done
'

test_expect_success 'views alone print only the views; --slab adds the slab report' '
	"$KMEMTRACE" report -i leaks.txt --leaks >v.txt &&
	! grep -q "SUMMARY (SLAB allocator)" v.txt &&
	! grep -q "SUMMARY (page allocator)" v.txt &&
	"$KMEMTRACE" report -i leaks.txt --leaks --slab >vs.txt &&
	grep -q "SUMMARY (SLAB allocator)" vs.txt &&
	! grep -q "SUMMARY (page allocator)" vs.txt &&
	grep -q "^LEAKS" vs.txt &&
	"$KMEMTRACE" report -i leaks.txt >d.txt &&
	grep -q "SUMMARY (SLAB allocator)" d.txt &&
	! grep -q "^LEAKS" d.txt
'

test_expect_success 'CSV draws the series as rows' '
	"$KMEMTRACE" report -i leaks.txt --timeline --step 500ms --csv >t.csv &&
	test "$(head -1 t.csv)" = "table,row,column,value" &&
	grep "^timeline\.series,5," t.csv | cut -d, -f3,4 | head -7 >row5 &&
	printf "%s\n" offset_ns,2500000000 slab_bytes,384 page_bytes,12288 \
		slab_alloc_bytes,128 slab_freed_bytes,0 page_alloc_bytes,4096 \
		page_freed_bytes,4096 >want &&
	test_cmp want row5
'

test_expect_success 'bad view options: one clear line, no report' '
	for args in "--older-than 5x" "--older-than -1s" "--step 0" "--by tid" \
		    "--pid 12a" "--cpu 9999" "--cpu 2-1" "--top 0" "--top -1" \
		    "--warmup soon" "--kernel soon" "--kernel 6" "--kernel 6.x"; do
		test_usage_error "$KMEMTRACE" report -i leaks.txt --leaks $args &&
		! grep -q LEAKS usage.out || { echo "args: $args"; cat err; return 1; }
	done &&
	"$KMEMTRACE" report -i leaks.txt --leaks --step 0 --json >j; test $? = 129 &&
	grep -q "^{\"error\":\"option .--step. needs a duration" j
'

test_expect_success 'report -h names every view and its options' '
	"$KMEMTRACE" report -h >h &&
	for o in --leaks --older-than --errors --warmup --all-findings --kernel \
		 --procs --by --pcpu \
		 --extfrag --caches --sizes --lifetimes --timeline --step --top \
		 --pid --comm --cpu; do
		grep -q -e "$o" h || { echo "missing $o"; return 1; }
	done
'

test_done
