#!/bin/sh
# kmemtrace allocinfo: /proc/allocinfo snapshots of both published
# versions (1.0 from 6.10, 2.0 with accurate:no) read with exact figures;
# malformed lines counted with their numbers, stated in the report and
# exit 3; the filters; totals per module and file; --diff with tags in
# one snapshot only; -I on a file rewritten between samples; the one-line
# message of a kernel without allocation profiling; usage errors; JSON.
# The files under tests/data/allocinfo are written from the format.
. "$(dirname "$0")/lib.sh"

AI=$DATA/allocinfo

# json FILE EXPR...: python3 asserts over d, the parsed FILE
json () {
	f=$1
	shift
	python3 -c "
import json
d = json.load(open('$f'))
$*
"
}

test_expect_success 'version 1.0: every tag, in bytes order, with the totals; no accurate column, 1.0 cannot say' '
	"$KMEMTRACE" allocinfo "$AI/v1.txt" >out 2>err &&
	! test -s err &&
	cat >expect <<-\EOT &&
	# input:  $AI/v1.txt (allocinfo 1.0)
	# unreadable: 0 records

	Top tags
	   bytes  calls  function                 file:line                      module
	---------------------------------------------------------------------------------------
	 1048576    256  alloc_slab_page          mm/slub.c:2474
	  524288    128  alloc_page_ext           mm/page_ext.c:270
	   65536     16  alloc_inode              fs/inode.c:261
	   40960     10  kmalloc_reserve          net/core/skbuff.c:580
	   12288      3  add_recvbuf_mergeable    drivers/net/virtio_net.c:1842  virtio_net
	    8192      2  ext4_alloc_inode         fs/ext4/super.c:1396           ext4
	    4096      1  ext4_mb_init             fs/ext4/mballoc.c:3584         ext4
	       0      0  alloc_thread_stack_node  kernel/fork.c:310

	Totals
	======
	Tags:                          8
	Bytes:                         1703936
	Calls:                         416
	Tags with inaccurate counters: 0
	EOT
	sed "s|\$AI|$AI|" expect >expect.real &&
	test_cmp expect.real out
'

test_expect_success 'version 2.0: accurate:no marked and counted, other key:value words skipped' '
	"$KMEMTRACE" allocinfo --json "$AI/v2.txt" >out.json &&
	json out.json "
assert d[\"format\"] == \"allocinfo 2.0\", d[\"format\"]
assert d[\"unreadable_records\"] == 0
t = d[\"allocinfo\"][\"totals\"]
assert t == {\"tags\": 8, \"bytes\": 2277376, \"calls\": 556, \"inaccurate_tags\": 2}, t
rows = d[\"allocinfo\"][\"tags\"]
assert [r[\"func\"] for r in rows if r[\"accurate\"] == \"no\"] == [\"alloc_inode\", \"add_recvbuf_mergeable\"], rows
e = [r for r in rows if r[\"func\"] == \"ext4_alloc_inode\"][0]
assert e == {\"bytes\": 16384, \"calls\": 4, \"func\": \"ext4_alloc_inode\", \"location\": \"fs/ext4/super.c:1396\", \"module\": \"ext4\", \"accurate\": \"yes\"}, e
assert rows[0][\"func\"] == \"alloc_slab_page\" and rows[0][\"bytes\"] == 1572864
"
'

test_expect_success 'the input as a pipe and as -: the same report' '
	"$KMEMTRACE" allocinfo -i "$AI/v2.txt" | sed 1d >by-i &&
	cat "$AI/v2.txt" | "$KMEMTRACE" allocinfo | sed 1d >by-pipe &&
	"$KMEMTRACE" allocinfo - <"$AI/v2.txt" | sed 1d >by-dash &&
	test_cmp by-i by-pipe && test_cmp by-i by-dash
'

test_expect_success 'malformed lines: counted with line numbers in the report, once on stderr, exit 3' '
	"$KMEMTRACE" allocinfo "$AI/malformed.txt" >out 2>err; test $? = 3 &&
	grep "^# unreadable: 4 records, left out of this report (line 4: no func:; line 6: no calls; line 8: no file:line; line 9: a word that is not key:value)$" out &&
	test $(wc -l <err) = 1 &&
	grep "warning: .*malformed.txt.: 4 lines could not be read, left out of the report; the first at line 4: no func:" err &&
	grep "^Tags:  *3$" out && grep "^Bytes:  *7168$" out &&
	"$KMEMTRACE" allocinfo --json "$AI/malformed.txt" >out.json 2>err; test $? = 3 &&
	json out.json "
assert d[\"unreadable_records\"] == 4
assert d[\"unreadable\"][0] == {\"line\": 4, \"why\": \"no func:\"}, d[\"unreadable\"]
assert [u[\"line\"] for u in d[\"unreadable\"]] == [4, 6, 8, 9]
"
'

test_expect_success 'no header, no tag: not allocinfo, exit 1; an empty file too' '
	test_must_fail "$KMEMTRACE" allocinfo /etc/passwd >out 2>err &&
	test $(wc -l <err) = 1 &&
	grep "error: ./etc/passwd. is not /proc/allocinfo text" err &&
	: >empty && "$KMEMTRACE" allocinfo empty 2>err; test $? = 1 &&
	grep "error: .empty. is empty" err &&
	"$KMEMTRACE" allocinfo nosuch 2>err; test $? = 1 &&
	grep "error: cannot open .nosuch.: No such file or directory" err
'

test_expect_success 'a file without its header still reads (a cut copy)' '
	grep -v "^allocinfo\|^#" "$AI/v1.txt" >nohead &&
	"$KMEMTRACE" allocinfo --json nohead >out.json &&
	json out.json "assert d[\"format\"] == \"allocinfo, no header\"; assert d[\"allocinfo\"][\"totals\"][\"bytes\"] == 1703936"
'

test_expect_success 'filters: --module, --file, --func globs, comma lists, together' '
	"$KMEMTRACE" allocinfo --json --module ext4 "$AI/v1.txt" >m.json &&
	json m.json "assert [r[\"func\"] for r in d[\"allocinfo\"][\"tags\"]] == [\"ext4_alloc_inode\", \"ext4_mb_init\"]" &&
	"$KMEMTRACE" allocinfo --json --file "mm/*,kernel/*" "$AI/v1.txt" >f.json &&
	json f.json "assert [r[\"func\"] for r in d[\"allocinfo\"][\"tags\"]] == [\"alloc_slab_page\", \"alloc_page_ext\", \"alloc_thread_stack_node\"]; assert d[\"allocinfo\"][\"totals\"][\"bytes\"] == 1572864" &&
	"$KMEMTRACE" allocinfo --json --func "*alloc*" --module "ext*" "$AI/v1.txt" >ff.json &&
	json ff.json "assert [r[\"func\"] for r in d[\"allocinfo\"][\"tags\"]] == [\"ext4_alloc_inode\"]" &&
	"$KMEMTRACE" allocinfo --json --func nomatch "$AI/v1.txt" >none.json &&
	json none.json "assert d[\"allocinfo\"][\"tags\"] == [] and d[\"allocinfo\"][\"totals\"][\"tags\"] == 0"
'

test_expect_success '--by module and --by file: totals with their tag counts' '
	"$KMEMTRACE" allocinfo --by module "$AI/v1.txt" >out &&
	cat >expect <<-\EOT &&

	Totals per module
	 module      tags    bytes  calls
	------------------------------------
	 (built in)     5  1679360    410
	 ext4           2    12288      3
	 virtio_net     1    12288      3
	EOT
	sed -n "3,9p" out >actual && test_cmp expect actual &&
	"$KMEMTRACE" allocinfo --json --by file --file "fs/*" "$AI/v1.txt" >f.json &&
	json f.json "
rows = d[\"allocinfo\"][\"files\"]
assert rows == [{\"name\": \"fs/inode.c\", \"tags\": 1, \"bytes\": 65536, \"calls\": 16}, {\"name\": \"fs/ext4/super.c\", \"tags\": 1, \"bytes\": 8192, \"calls\": 2}, {\"name\": \"fs/ext4/mballoc.c\", \"tags\": 1, \"bytes\": 4096, \"calls\": 1}], rows
"
'

test_expect_success '-s calls and -l: the order and the rows left out' '
	"$KMEMTRACE" allocinfo -s calls -l 2 "$AI/v2.txt" >out &&
	grep " \.\.\. 6 more rows" out &&
	"$KMEMTRACE" allocinfo -s calls -l 2 --json "$AI/v2.txt" >out.json &&
	json out.json "assert [r[\"calls\"] for r in d[\"allocinfo\"][\"tags\"]] == [384, 128]"
'

test_expect_success '--diff A B: growth per tag, tags in A only and in B only marked' '
	"$KMEMTRACE" allocinfo --diff "$AI/v1.txt" "$AI/v2.txt" --json >d.json &&
	json d.json "
rows = d[\"allocinfo\"][\"diff\"]
assert [r[\"func\"] for r in rows][:3] == [\"alloc_slab_page\", \"alloc_inode\", \"xfs_inode_alloc\"], rows
assert rows[-1][\"func\"] == \"kmalloc_reserve\" and rows[-1][\"growth\"] == -20480
x = [r for r in rows if r[\"func\"] == \"xfs_inode_alloc\"][0]
assert x[\"in\"] == \"B only\" and x[\"bytes_a\"] == 0 and x[\"bytes_b\"] == 32768 and x[\"ratio\"] == 0, x
m = [r for r in rows if r[\"func\"] == \"ext4_mb_init\"][0]
assert m[\"in\"] == \"A only\" and m[\"growth\"] == -4096 and m[\"calls_growth\"] == -1, m
s = [r for r in rows if r[\"func\"] == \"alloc_slab_page\"][0]
assert s == {\"bytes_a\": 1048576, \"bytes_b\": 1572864, \"growth\": 524288, \"calls_a\": 256, \"calls_b\": 384, \"calls_growth\": 128, \"ratio\": 1.5, \"in\": \"both\", \"func\": \"alloc_slab_page\", \"location\": \"mm/slub.c:2474\", \"module\": \"\"}, s
t = d[\"allocinfo\"][\"diff_totals\"]
assert t == {\"rows\": 9, \"bytes_a\": 1703936, \"bytes_b\": 2277376, \"growth\": 573440, \"only_a\": 1, \"only_b\": 1}, t
assert d[\"format\"] == \"allocinfo 1.0, allocinfo 2.0\"
" &&
	"$KMEMTRACE" allocinfo --diff "$AI/v1.txt" "$AI/v2.txt" >out &&
	grep "^       0    32768   32768        0        8        8  0.000  B only  xfs_inode_alloc " out &&
	grep "^    4096        0   -4096        1        0       -1  0.000  A only  ext4_mb_init " out
'

test_expect_success '--diff --by module: the modules that came and went' '
	"$KMEMTRACE" allocinfo --diff --by module "$AI/v1.txt" "$AI/v2.txt" --json >d.json &&
	json d.json "
rows = {r[\"name\"]: r for r in d[\"allocinfo\"][\"diff\"]}
assert rows[\"xfs\"][\"in\"] == \"B only\"
assert rows[\"ext4\"][\"bytes_a\"] == 12288 and rows[\"ext4\"][\"bytes_b\"] == 16384
assert rows[\"(built in)\"][\"growth\"] == 536576
"
'

test_expect_success '-I: the input read again each interval, the tags that changed' '
	cp "$AI/v1.txt" live || return 1
	(sleep 1.5; cp "$AI/v2.txt" live.new; mv live.new live) &
	"$KMEMTRACE" allocinfo -I 1 -n 2 -i live --json >i.json &&
	wait &&
	json i.json "
iv = d[\"intervals\"]
assert list(iv) == [\"1\", \"1_totals\", \"2\", \"2_totals\"], list(iv)
assert iv[\"1\"] == [], iv[\"1\"]
assert iv[\"1_totals\"][\"growth\"] == 0 and iv[\"2_totals\"][\"growth\"] == 573440, iv
assert iv[\"2_totals\"][\"only_a\"] == 1 and iv[\"2_totals\"][\"only_b\"] == 1
# the totals are of every tag, the rows of those that changed
assert iv[\"2_totals\"][\"bytes_a\"] == 1703936 and iv[\"2_totals\"][\"bytes_b\"] == 2277376, iv[\"2_totals\"]
assert iv[\"2_totals\"][\"rows\"] == 6
rows = iv[\"2\"]
assert rows[0][\"func\"] == \"alloc_slab_page\" and rows[0][\"growth\"] == 524288, rows[0]
assert len(rows) == 6, [r[\"func\"] for r in rows]
" &&
	cp "$AI/v1.txt" live || return 1
	(sleep 1.5; cp "$AI/v2.txt" live.new; mv live.new live) &
	"$KMEMTRACE" allocinfo -I 1 -n 2 -l 1 -i live >out &&
	wait &&
	grep "^Interval 1: growth over 1 s$" out &&
	grep "^Interval 2: growth over 1 s$" out &&
	grep " (none)$" out && grep "5 more rows" out &&
	test $(grep -c "^# input:" out) = 1
'

test_expect_success '--recording: a recording of slab allocations beside the tags of their functions' '
	"$KMEMTRACE" report -i "$DATA/capture.dat" --caller -l 0 --json >rep.json &&
	"$KMEMTRACE" allocinfo --recording "$DATA/capture.dat" "$AI/join.txt" --json >j.json &&
	python3 -c "
import json
rep = json.load(open(\"rep.json\"))
d = json.load(open(\"j.json\"))
assert d[\"input\"].endswith(\", recording $DATA/capture.dat\"), d[\"input\"]
# what report says of each function, its callsites (name+off) added
want = {}
for t in rep[\"slab\"].values():
	if not isinstance(t, list): continue
	for r in t:
		if \"callsite\" not in r: continue
		f = r[\"callsite\"].split(\"+\")[0]
		a = want.setdefault(f, [0, 0]); a[0] += r[\"hit\"]; a[1] += r[\"total_alloc\"]
rows = d[\"allocinfo\"][\"tags\"]
got = {r[\"func\"]: [r[\"traced_allocs\"], r[\"traced_bytes\"]] for r in rows}
assert got[\"anon_vma_fork\"] == [48, 4032] == want[\"anon_vma_fork\"], (got, want.get(\"anon_vma_fork\"))
assert got[\"alloc_fdtable\"] == [6, 4416] == want[\"alloc_fdtable\"], got
assert got[\"alloc_slab_page\"] == [0, 0]
t = d[\"allocinfo\"][\"totals\"]
assert t[\"traced_functions_tagged\"] == 2 and t[\"traced_callsites_unnamed\"] == 0, t
" &&
	"$KMEMTRACE" allocinfo --recording "$DATA/capture.dat" --by func "$AI/join.txt" >out &&
	grep "^ alloc_fdtable  *2  *12288  *24  *6  *4416$" out &&
	"$KMEMTRACE" allocinfo --recording "$AI/v1.txt" "$AI/join.txt" 2>err; test $? = 1 &&
	test $(wc -l <err) = 1
'

# agree.py JSON CSV NDJSON [HOST]: csv and ndjson hold what --json holds,
# table by table and value by value; the ndjson rows begin with report's
# origin columns, one member of a name each, HOST their host (else null)
cat >agree.py <<'EOF'
import csv, json, sys

js, cs, nd = sys.argv[1:4]
host = sys.argv[4] if len(sys.argv) > 4 else None
d = json.load(open(js))
def nodup(pairs):
    keys = [k for k, v in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)
rows = [json.loads(l, object_pairs_hook=nodup) for l in open(nd)]
origin = ["host", "kernel", "input", "first_ts_ns", "span_ns", "boot_id",
          "start_time", "start_unix_ns", "table"]
by_table = {}
for r in rows:
    assert list(r)[:9] == origin, list(r)
    assert r["host"] == host, r
    assert r["input"] == d["input"], r
    assert r["first_ts_ns"] == 0 and r["span_ns"] == 0, r
    by_table.setdefault(r["table"], []).append(
        {k: v for k, v in r.items() if k not in origin})
c = list(csv.reader(open(cs)))
assert c[0] == ["table", "row", "column", "value"], c[0]
cells = {(t, int(n), col): v for t, n, col, v in c[1:]}
assert len(cells) == len(c) - 1
# a number as CSV writes it (a double to 6 places), a string as it is
def same(cell, v):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return abs(float(cell) - v) <= 1e-6 * max(1, abs(v))
    return cell == str(v)
assert cells.pop(("meta", 0, "input")) == d["input"]
assert cells.pop(("meta", 0, "format")) == d["format"]
assert cells.pop(("meta", 0, "unreadable_records")) == str(d["unreadable_records"])
for i, u in enumerate(d["unreadable"]):
    for k, v in u.items():
        assert cells.pop(("meta.unreadable", i, k)) == str(v), (i, k)
tables = 0
for g in ("allocinfo", "intervals"):
    for k, v in d.get(g, {}).items():
        name = g + "." + k
        if k.endswith("_omitted"):
            assert by_table.pop(name) == [{"count": v}], name
            continue
        tables += 1
        if isinstance(v, dict):
            assert by_table.pop(name) == [v], (name, v)
            for m, x in v.items():
                assert same(cells.pop((name, 0, m)), x), (name, m)
            continue
        assert by_table.pop(name, []) == v, (name, v)
        for i, r in enumerate(v):
            for m, x in r.items():
                assert same(cells.pop((name, i, m)), x), (name, i, m)
        total = len(v) + d[g].get(k + "_omitted", 0)
        assert cells.pop((name + "_rows", 0, "drawn")) == str(len(v))
        assert cells.pop((name + "_rows", 0, "total")) == str(total)
assert tables >= 2, d
assert not by_table, by_table
assert not cells, cells
EOF

# every drawing of one report, in a.txt a.json a.csv a.ndjson
draw_all () {
	"$KMEMTRACE" allocinfo "$@" >a.txt &&
	"$KMEMTRACE" allocinfo --json "$@" >a.json &&
	"$KMEMTRACE" allocinfo --format json "$@" >a2.json &&
	test_cmp a.json a2.json &&
	"$KMEMTRACE" allocinfo --format text "$@" >a2.txt &&
	test_cmp a.txt a2.txt &&
	"$KMEMTRACE" allocinfo --format csv "$@" >a.csv &&
	"$KMEMTRACE" allocinfo --format ndjson "$@" >a.ndjson
}

test_expect_success '--format json, csv, ndjson: the same tables, row by row; ndjson rows say where they come from' '
	for args in "$AI/v1.txt" "$AI/v2.txt" "--by module $AI/v1.txt" "--by file -l 2 $AI/v2.txt" \
		    "--by func $AI/v2.txt" "-s calls -l 2 $AI/v2.txt" "--module ext4 $AI/v1.txt" \
		    "--diff $AI/v1.txt $AI/v2.txt" "--diff --by module -l 2 $AI/v2.txt $AI/v1.txt" \
		    "--recording $DATA/capture.dat $AI/join.txt"; do
		draw_all $args && python3 agree.py a.json a.csv a.ndjson ||
			{ echo "in $args"; return 1; }
	done &&
	draw_all "$AI/v2.txt" &&
	python3 - a.txt a.ndjson <<-\EOF
	import json, sys
	text = open(sys.argv[1]).read().split("\n")
	rule = [i for i, l in enumerate(text) if l.startswith("-----")][0]
	tags = [l.split() for l in text[rule + 1:text.index("", rule)]]
	rows = [json.loads(l) for l in open(sys.argv[2])]
	got = [[str(r["bytes"]), str(r["calls"]), r["func"], r["location"]] for r in rows if r["table"] == "allocinfo.tags"]
	assert got == [t[:4] for t in tags], (got, tags)
	tot = [r for r in rows if r["table"] == "allocinfo.totals"][0]
	assert "Bytes:                         %d" % tot["bytes"] in text, tot
	assert tot == dict(tot, tags=8, bytes=2277376, calls=556, inaccurate_tags=2), tot
	assert all(r["host"] is None and r["kernel"] is None and r["boot_id"] is None and r["start_time"] is None for r in rows)
	EOF
'

test_expect_success '--host names the host of the ndjson rows; malformed lines: csv and ndjson too, exit 3' '
	"$KMEMTRACE" allocinfo --format ndjson --host fleet-7 "$AI/v1.txt" >h.ndjson &&
	"$KMEMTRACE" allocinfo --json "$AI/v1.txt" >h.json &&
	"$KMEMTRACE" allocinfo --format csv --host fleet-7 "$AI/v1.txt" >h.csv &&
	python3 agree.py h.json h.csv h.ndjson fleet-7 &&
	"$KMEMTRACE" allocinfo --host fleet-7 "$AI/v1.txt" >h.txt &&
	"$KMEMTRACE" allocinfo "$AI/v1.txt" >plain.txt &&
	test_cmp plain.txt h.txt &&
	"$KMEMTRACE" allocinfo --json "$AI/malformed.txt" >m.json 2>/dev/null; test $? = 3 &&
	"$KMEMTRACE" allocinfo --format csv "$AI/malformed.txt" >m.csv 2>err; test $? = 3 &&
	test $(wc -l <err) = 1 &&
	"$KMEMTRACE" allocinfo --format ndjson "$AI/malformed.txt" >m.ndjson 2>/dev/null; test $? = 3 &&
	python3 agree.py m.json m.csv m.ndjson &&
	grep -x "meta.unreadable,3,line,9" m.csv
'

test_expect_success '-I with csv and ndjson: interval by interval, as text' '
	for f in csv ndjson; do
		cp "$AI/v1.txt" live || return 1
		(sleep 1.5; cp "$AI/v2.txt" live.new; mv live.new live) &
		"$KMEMTRACE" allocinfo -I 1 -n 2 -i live --format $f >i.$f &&
		wait || return 1
	done &&
	cp "$AI/v1.txt" live || return 1
	(sleep 1.5; cp "$AI/v2.txt" live.new; mv live.new live) &
	"$KMEMTRACE" allocinfo -I 1 -n 2 -i live --json >i.json &&
	wait &&
	python3 agree.py i.json i.csv i.ndjson &&
	test $(grep -c "^table,row,column,value$" i.csv) = 1 &&
	python3 - i.ndjson <<-\EOF
	import json, sys
	t = [json.loads(l)["table"] for l in open(sys.argv[1])]
	assert t[0] == "intervals.1_totals" and t[1:-1] == ["intervals.2"] * 6 and t[-1] == "intervals.2_totals", t
	EOF
'

if test -e /proc/allocinfo; then
	test_expect_success 'read live, the ndjson rows name this machine' '
		"$KMEMTRACE" allocinfo --format ndjson -l 1 >live.ndjson 2>/dev/null &&
		python3 - live.ndjson "$(uname -n)" "$(uname -r)" "$(cat /proc/sys/kernel/random/boot_id)" <<-\EOF
		import json, sys
		for l in open(sys.argv[1]):
		    r = json.loads(l)
		    assert (r["host"], r["kernel"], r["boot_id"]) == tuple(sys.argv[2:5]), r
		    assert r["input"] == "/proc/allocinfo" and r["start_time"].endswith("Z"), r
		EOF
	'
else
	test_skip 'read live, the ndjson rows name this machine' 'no /proc/allocinfo'
fi

test_expect_success '--format: an unknown name, with --json, json with -I and no -n: one line, exit 129' '
	"$KMEMTRACE" allocinfo --format html "$AI/v1.txt" >out 2>err; test $? = 129 &&
	echo "kmemtrace allocinfo: error: unknown format '\''html'\'': the formats are text, json, csv, ndjson (see '\''kmemtrace allocinfo -h'\'')" >expect &&
	test_cmp expect err && ! test -s out &&
	"$KMEMTRACE" allocinfo --format csv --json "$AI/v1.txt" >out 2>err; test $? = 129 &&
	test $(wc -l <err) = 1 && grep "exclude each other" err &&
	"$KMEMTRACE" allocinfo -I 1 --format json -i "$AI/v1.txt" >out 2>err; test $? = 129 &&
	grep "error: --format json with -I makes one object at the end: give -n COUNT" err &&
	python3 -c "import json; d = json.load(open(\"out\")); assert \"give -n COUNT\" in d[\"error\"], d"
'

if test -e /proc/allocinfo; then
	test_skip 'no allocation profiling: one line saying how to turn it on' 'this kernel has /proc/allocinfo'
else
	test_expect_success 'no allocation profiling: one line saying how to turn it on, exit 1' '
		"$KMEMTRACE" allocinfo </dev/null >out 2>err; test $? = 1 &&
		test $(wc -l <err) = 1 && ! test -s out &&
		grep "^kmemtrace allocinfo: error: no /proc/allocinfo: this kernel has no allocation profiling: build it with CONFIG_MEM_ALLOC_PROFILING=y and turn it on with .sysctl vm.mem_profiling=1. or the boot parameter sysctl.vm.mem_profiling=1" err &&
		"$KMEMTRACE" allocinfo -i /proc/allocinfo 2>err2; test $? = 1 &&
		test_cmp err err2 &&
		"$KMEMTRACE" allocinfo --json </dev/null >out 2>err; test $? = 1 &&
		json out "assert \"CONFIG_MEM_ALLOC_PROFILING=y\" in d[\"error\"]"
	'
fi

test_expect_success 'usage errors: one line, exit 129' '
	for args in "-s nosuch" "-s growth" "--by nosuch" "-n 2" "-I 1 -" \
		    "--diff" "--diff a b" "--diff -I 1 a b" "-I 1 --json" \
		    "-l 1 -l 2" "-I 0" "a b" "--diff - -" \
		    "--diff --recording r a"; do
		"$KMEMTRACE" allocinfo $args "$AI/v1.txt" >out 2>err </dev/null
		rc=$?
		test $rc = 129 && test $(wc -l <err) = 1 || { echo "$args: exit $rc"; cat err; return 1; }
	done &&
	"$KMEMTRACE" allocinfo -s nosuch "$AI/v1.txt" 2>err; test $? = 129 &&
	echo "kmemtrace allocinfo: error: unknown sort key '\''nosuch'\'' (keys: bytes, calls, growth) (see '\''kmemtrace allocinfo -h'\'')" >expect &&
	test_cmp expect err &&
	"$KMEMTRACE" allocinfo --by x "$AI/v1.txt" 2>err; test $? = 129 &&
	grep "unknown table .x. for --by (tables: tag, module, file, func)" err
'

test_expect_success '-h and help allocinfo' '
	"$KMEMTRACE" allocinfo -h >h && head -1 h | grep "^usage: kmemtrace allocinfo " &&
	grep "^    bytes, calls, growth$" h &&
	"$KMEMTRACE" --list-cmds | grep -qx allocinfo &&
	test -f "$(dirname "$KMEMTRACE")/doc/kmemtrace-allocinfo.1"
'

test_done
