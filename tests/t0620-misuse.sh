#!/bin/sh
# --errors judges each finding: certain misuse, possible (innocent
# explanations exist: objects older than the recording, events lost,
# paths without tracepoints, what the recorder leaves out) or legal on the
# traced kernel.  A synthetic trace of a 5.10 and of a 6.18 kernel
# (tests/misuse-trace.py) plants misuse among a healthy kernel's noise:
# every planted finding must be certain, and nothing else.  On this
# machine, a 3 s system-wide recording of bench/workload.sh must have no
# certain finding.
# test: alone
. "$(dirname "$0")/lib.sh"

# judge.py REPORT_JSON PLANTED...: the certain rows are the planted ones
# ("kind@callsite-function", or "kind@0xpointer" for a page's free), and
# every planted one is certain
cat >judge.py <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["errors"]
want = set(sys.argv[2:])
got = set()
for r in d["callsites"]:
    if r["class"] != "certain":
        continue
    site = r["callsite"].split("+")[0]
    got.add("%s@%s" % (r["kind"], site if site != "(unknown)" else
                       "0x%x" % int(r["first_ptr"], 16)
                       if isinstance(r["first_ptr"], str) else
                       hex(r["first_ptr"])))
bad = sorted(got - want) + ["missing " + x for x in sorted(want - got)]
if d["summary"]["certain"] != len(want):
    bad.append("certain: %d, planted: %d" % (d["summary"]["certain"],
                                             len(want)))
if bad:
    sys.exit("\n".join(bad))
EOF

# row.py REPORT_JSON KIND CALLSITE-FUNCTION: the class and reason of a row
cat >row.py <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["errors"]["callsites"]:
    if r["kind"] == sys.argv[2] and r["callsite"].split("+")[0] == sys.argv[3]:
        print(r["class"] + ": " + r["reason"])
EOF

planted () {
	sed -n "1s/^# planted: //p" "$1"
}

for k in 5.10 6.18; do
	test_expect_success "$k: every planted finding certain, nothing else" '
		python3 "$TESTS_DIR/misuse-trace.py" $k >t$k.txt &&
		"$KMEMTRACE" report -i t$k.txt --errors --kernel $k.0 -l 0 \
			--json >r$k.json &&
		python3 judge.py r$k.json $(planted t$k.txt) &&
		"$KMEMTRACE" report -i t$k.txt --errors --kernel $k.0 -l 0 \
			--csv >r$k.csv &&
		test $(grep -c "^errors\.callsites,[0-9]*,class,certain$" r$k.csv) = $(planted t$k.txt | wc -w)
	'
done

test_expect_success '5.10 noise: older objects, page cache, allocations that may fail' '
	for row in "unknown_free exit_mmap" "unknown_free do_exit" \
		   "unknown_free put_files_struct.part.0" \
		   "unknown_free rcu_do_batch" "unknown_free old_cleanup" \
		   "page_unknown_free (unknown)" "failed_alloc try_alloc_buf"; do
		python3 row.py r5.10.json $row >class &&
		grep -q "^possible: " class || { echo "$row: $(cat class)"; return 1; }
	done &&
	python3 row.py r5.10.json unknown_free old_cleanup >class &&
	grep -q "freed such objects in the warm-up" class
'

test_expect_success '6.18 noise: kfree of cache objects legal, bulk and sheaf paths' '
	python3 row.py r6.18.json double_free virtio_transport_tx_work >class &&
	grep -q "^possible: sk_buffs are allocated in bulk" class &&
	python3 row.py r6.18.json page_double_free "(unknown)" >class &&
	grep -q "^possible: allocated again by alloc_pages_bulk" class &&
	test -z "$(python3 row.py r6.18.json kfree_of_cache_object __mt_destroy)" &&
	"$KMEMTRACE" report -i t6.18.txt --errors --kernel 6.18.0 --all-findings \
		--json >all.json &&
	python3 row.py all.json kfree_of_cache_object __mt_destroy >class &&
	grep -q "^legal: kfree() frees kmem_cache_alloc() objects since 6.4" class &&
	python3 -c "
import json
s = json.load(open(\"r6.18.json\"))[\"errors\"][\"summary\"]
assert s[\"legal\"] == 10 and s[\"alloc_over_live\"] == 10 and \
       s[\"alloc_over_live_untraced\"] == 10, s
"
'

test_expect_success 'kernel unknown: a kfree of a cache object and a page twice are possible' '
	"$KMEMTRACE" report -i t5.10.txt --errors -l 0 --json >r.json &&
	python3 judge.py r.json double_free@planted_double_kfree \
		cache_mismatch@planted_wrong_cache \
		unknown_free@planted_bogus_free \
		alloc_below_req@planted_short_alloc &&
	python3 row.py r.json kfree_of_cache_object planted_kfree_cache >class &&
	grep -q "^possible: legal since 6.4; the recording does not say its kernel" class
'

test_expect_success 'events lost: what needs every event is possible' '
	{ sed -n "1,5p" t5.10.txt; echo "CPU:0 [LOST 12 EVENTS]"; sed "1,5d" t5.10.txt; } >lost.txt &&
	"$KMEMTRACE" report -i lost.txt --errors --kernel 5.10.0 -l 0 --json >r.json &&
	python3 judge.py r.json kfree_of_cache_object@planted_kfree_cache \
		alloc_below_req@planted_short_alloc &&
	python3 row.py r.json double_free planted_double_kfree >class &&
	grep -q "^possible: events were lost" class
'

test_expect_success 'the text report lists certain findings first, with class and reason' '
	"$KMEMTRACE" report -i t5.10.txt --errors --kernel 5.10.0 >r.txt &&
	sed -n "/^ERRORS/,/^\$/p" r.txt >rows &&
	sed -n 4p rows | grep -q "^ [a-z_]* *certain " &&
	test $(grep -c "^ [a-z_]* *certain " rows) = 6 &&
	! sed -n "/ possible /,\$p" rows | grep -q " certain " &&
	grep -q "^ double_free *certain *1  planted_double_kfree+10 .*freed again with no allocation between" rows
'

# the target: a healthy kernel recorded system-wide under load has no
# certain finding
if ! have_root_tracefs; then
	test_skip 'a real recording has no certain finding' 'needs root and tracefs'
	test_done
	exit
fi
test_expect_success 'a 3 s system-wide recording with -g under the workload: no certain finding' '
	sh "$TOP/bench/workload.sh" 5 >/dev/null 2>&1 &
	wl=$!
	sleep 1 &&
	"$KMEMTRACE" record -g -a --duration 3 -o sys.dat 2>rec.err
	rc=$?
	kill $wl 2>/dev/null
	wait $wl
	test $rc = 0 &&
	"$KMEMTRACE" report -i sys.dat --errors -l 0 --json >sys.json &&
	python3 -c "
import json
d = json.load(open(\"sys.json\"))
s = d[\"errors\"][\"summary\"]
print(\"lost %d; certain %d, possible %d, legal %d\" %
      (d[\"lost_events\"], s[\"certain\"], s[\"possible\"], s[\"legal\"]))
for c in d[\"errors\"][\"classes\"]:
    print(\"  %s: certain %d, possible %d, legal %d\" %
          (c[\"kind\"], c[\"certain\"], c[\"possible\"], c[\"legal\"]))
for r in d[\"errors\"][\"callsites\"]:
    if r[\"class\"] == \"certain\":
        print(\"CERTAIN\", r)
assert s[\"certain\"] == 0
" >counts &&
	cat counts
'
test_done
