#!/bin/sh
# The kernel's own counters beside the tracepoints', without a live
# kernel: record/counters.dat is record/small.dat with a counters option
# made by hand (record/counters.txt, added by trace-dat-edit.py), so
# every verdict has a case: caches that agree within SLUB's per-CPU
# caching, fewer and more live objects by slabinfo, a cache only
# slabinfo saw, one gone by the end, kmalloc-N with its random copy; a
# damaged option, and snapshots that could not read slabinfo (not root).
. "$(dirname "$0")/lib.sh"

REC=$DATA/record/counters.dat
EDIT="python3 $TESTS_DIR/trace-dat-edit.py"
X=$EXPECTED/record

test_expect_success 'report --caches: slabinfo beside the tracepoints, the differences in words' '
	"$KMEMTRACE" report --caches -l 0 "$REC" >out 2>err &&
	! test -s err &&
	sed "/^# /d" out >actual &&
	test_cmp "$X/counters-caches.txt" actual
'

test_expect_success 'JSON: the figures of each cache and the totals, the verdicts' '
	"$KMEMTRACE" report --caches -l 0 --json "$REC" >out.json &&
	python3 - <<-\EOF
	import json
	d = json.load(open("out.json"))["caches"]
	rows = {r["cache"]: r for r in d["caches"]}
	m = rows["maple_node"]
	assert (m["traced_change"], m["slabinfo_change"], m["difference"]) == (214, 10, -204), m
	assert (m["slabinfo_start"], m["slabinfo_end"], m["percpu_slack"]) == (5000, 5010, 64), m
	assert m["reconciled"] == "slabinfo_fewer", m
	assert rows["dentry"]["reconciled"] == "slabinfo_more"
	assert rows["vm_area_struct"]["reconciled"] == "agrees"
	# the random copy kmalloc-rnd-01-32 counts in kmalloc-32
	assert rows["kmalloc-32"]["slabinfo_change"] == 13
	assert "kmalloc-rnd-01-32" not in rows
	assert rows["kmalloc-rcl-64"]["from"] == "slabinfo"
	assert rows["bio-312"]["slabinfo_change"] == -12
	# no slabinfo cache: the columns are left out, not 0
	assert "slabinfo_change" not in rows["pid"], rows["pid"]
	c = d["counters"]
	assert c["caches_reconciled"] == 10 and c["caches_agree"] == 7
	assert c["caches_slabinfo_fewer"] == 1 and c["caches_slabinfo_more"] == 2
	assert c["slab_kb"] == 180 and c["percpu_kb"] == 4 and c["vmalloc_used_kb"] == 16
	assert c["vmalloc_areas"] == 3 and c["vmalloc_bytes"] == 12840960
	EOF
'

test_expect_success 'CSV and ndjson carry the same columns' '
	"$KMEMTRACE" report --caches --format csv "$REC" >out.csv &&
	grep -q "^caches.caches,2,slabinfo_change,10$" out.csv &&
	grep -q "^caches.counters,0,caches_slabinfo_fewer,1$" out.csv &&
	"$KMEMTRACE" report --caches --format ndjson "$REC" >out.ndjson &&
	grep "\"cache\":\"maple_node\"" out.ndjson | grep -q "\"difference\":-204"
'

test_expect_success 'leaks: the findings slabinfo doubts are said uncertain, with numbers' '
	"$KMEMTRACE" report --leaks "$REC" >out &&
	grep -q "^Uncertain: maple_node: the tracepoints leave 204 objects outstanding, but slabinfo.s active maple_node objects grew by 10 (SLUB.s per-CPU caching explains up to 64): frees no tracepoint reports" out &&
	test $(grep -c "^Uncertain:" out) = 1 &&
	"$KMEMTRACE" report --leaks --json "$REC" >out.json &&
	python3 -c "
import json
u = json.load(open(\"out.json\"))[\"leaks\"][\"uncertain\"]
assert u == [{\"cache\": \"maple_node\", \"outstanding\": 204, \"in_findings\": 204,
              \"slabinfo_change\": 10, \"percpu_slack\": 64}], u
" &&
	"$KMEMTRACE" report --leaks "$DATA/record/small.dat" >plain &&
	! grep -q "Uncertain" plain
'

test_expect_success 'check says which counters were snapshotted' '
	"$KMEMTRACE" check "$REC" >out &&
	grep -qx "kernel-counters: start slabinfo meminfo vmalloc, end slabinfo meminfo vmalloc" out &&
	"$KMEMTRACE" check "$DATA/record/small.dat" >out &&
	grep -qx "kernel-counters: not recorded" out &&
	"$KMEMTRACE" check --json "$DATA/record/small.dat" | grep -q "\"kernel_counters\": null"
'

if command -v trace-cmd >/dev/null 2>&1; then
	test_expect_success 'trace-cmd reads the file with the option, the same events' '
		trace-cmd report "$REC" >tc 2>tcerr &&
		trace-cmd report "$DATA/record/small.dat" >tc0 &&
		test_cmp tc0 tc
	'
else
	test_skip 'trace-cmd reads the file with the option' 'needs trace-cmd (make deps installs it)'
fi

test_expect_success 'a damaged option: a warning naming the file and the byte, the columns not recorded' '
	sed "s/^dentry\( *\)80000 /dentry\18x000 /" "$DATA/record/counters.txt" >bad.txt &&
	! cmp -s bad.txt "$DATA/record/counters.txt" &&
	$EDIT counters "$DATA/record/small.dat" bad.dat bad.txt &&
	at=$(python3 -c "
import struct, sys
d = open(\"bad.dat\", \"rb\").read()
print(d.index(struct.pack(\"<H\", 0x4b58) + struct.pack(\"<I\", 4090)))") &&
	"$KMEMTRACE" report --caches bad.dat >out 2>err &&
	cat >want <<-EOF &&
	kmemtrace report: warning: '\''bad.dat'\'': the kernel'\''s counters at byte $at are damaged (line 9: slabinfo: not a cache'\''s line of slabinfo 2.1): left out
	EOF
	test_cmp want err &&
	grep -q "^ not recorded: Slabinfo chg, Difference: the recording has no usable snapshot of the kernel.s counters (its counters option is damaged)" out &&
	grep -q "^The kernel.s counters: not recorded (the recording.s counters option is damaged)" out &&
	"$KMEMTRACE" check bad.dat >out 2>err &&
	grep -qx "kernel-counters: not recorded" out &&
	grep -q "bad.dat.: the kernel.s counters at byte $at are damaged" err
'

test_expect_success 'slabinfo not readable at record time: not recorded, and why' '
	sed "/^@start slabinfo/,/^@start meminfo/{/^@start meminfo/!d}" "$DATA/record/counters.txt" |
		sed "s/^@start meminfo/@start missing slabinfo Permission denied\n@start meminfo/" >noroot.txt &&
	$EDIT counters "$DATA/record/small.dat" noroot.dat noroot.txt &&
	"$KMEMTRACE" report --caches noroot.dat >out 2>err &&
	! test -s err &&
	grep -q "^ not recorded: Slabinfo chg, Difference: the recording has no slabinfo at both ends (/proc/slabinfo: Permission denied)" out &&
	grep -q "^Caches set beside slabinfo: not recorded" out &&
	grep -qx "Slab change (meminfo, kB): 180" out &&
	"$KMEMTRACE" check noroot.dat | grep -qx "kernel-counters: start meminfo vmalloc, end slabinfo meminfo vmalloc"
'

test_done
