#!/bin/sh
# kmemtrace pageowner: page_owner dumps of each kernel's format, every
# option, pipes, malformed input, JSON, and page_owner_sort's groupings.
. "$(dirname "$0")/lib.sh"

PO=$DATA/pageowner
TOPDIR=$TOP

test_expect_success 'default output: groups of identical records, most first' '
	"$KMEMTRACE" pageowner "$PO/current.txt" >out &&
	test_cmp "$PO/current.expect" out
'

test_expect_success 'timestamps are left out of a record, as page_owner_sort does' '
	grep -c "ts  ns$" out >n && echo 9 >expect && test_cmp expect n &&
	! grep -q "ts [0-9][0-9]* ns" out
'

test_expect_success 'from a pipe, from stdin, and into an output file' '
	cat "$PO/current.txt" | "$KMEMTRACE" pageowner - >pipe &&
	test_cmp "$PO/current.expect" pipe &&
	"$KMEMTRACE" pageowner - <"$PO/current.txt" >stdin &&
	test_cmp "$PO/current.expect" stdin &&
	"$KMEMTRACE" pageowner "$PO/current.txt" sorted.txt >stdout &&
	test_cmp "$PO/current.expect" sorted.txt && ! test -s stdout
'

test_expect_success '-t is the default order; -m puts the most pages first' '
	"$KMEMTRACE" pageowner -t "$PO/current.txt" >t &&
	test_cmp "$PO/current.expect" t &&
	"$KMEMTRACE" pageowner -m "$PO/current.txt" | grep times >m &&
	cat >expect <<-\EOF &&
	2 times, 8 pages, allocated by SLAB :
	1 times, 4 pages, allocated by VMALLOC :
	2 times, 2 pages, allocated by ANON :
	1 times, 1 pages, allocated by ANON :
	1 times, 1 pages, allocated by PAGECACHE :
	1 times, 1 pages, allocated by OTHERS :
	1 times, 1 pages, allocated by CMA :
	1 times, 1 pages, allocated by ANON :
	1 times, 1 pages, allocated by OTHERS :
	EOF
	test_cmp expect m
'

test_expect_success '-a sorts by allocation time and keeps the timestamps' '
	"$KMEMTRACE" pageowner -a "$PO/current.txt" | grep "^Page allocated" >a &&
	test_line_count=$(wc -l <a) && test "$test_line_count" = 11 &&
	head -1 a | grep -q "(kthreadd), ts 200000 ns$" &&
	sed -n 2p a | grep -q "(systemd), ts 812345678 ns$" &&
	tail -1 a | grep -q "(tmux: server), ts 9000000000 ns$"
'

test_expect_success '-n, -p, -P, -s sort by name, pid, tgid, stack' '
	"$KMEMTRACE" pageowner -n "$PO/current.txt" | grep "^Page" | head -1 | grep -q "((sd-pam))" &&
	"$KMEMTRACE" pageowner -n "$PO/current.txt" | grep "^Page" | tail -1 | grep -q "(x), ts 1 (y)" &&
	"$KMEMTRACE" pageowner -p "$PO/current.txt" | grep "^Page" | head -1 | grep -q "pid 1, tgid 1 (systemd)" &&
	"$KMEMTRACE" pageowner -p "$PO/current.txt" | grep "^Page" | tail -1 | grep -q "pid 1240," &&
	"$KMEMTRACE" pageowner -P "$PO/current.txt" | grep "^Page" | tail -1 | grep -q "tgid 1234 (Web Content)" &&
	"$KMEMTRACE" pageowner -s "$PO/current.txt" | grep times | head -1 | grep -q "allocated by VMALLOC" &&
	"$KMEMTRACE" pageowner -s "$PO/current.txt" | grep times | tail -1 | grep -q "allocated by CMA"
'

test_expect_success '--sort takes +/- keys in a chain' '
	"$KMEMTRACE" pageowner --sort=-pid "$PO/current.txt" | grep "^Page" | head -1 | grep -q "pid 1240," &&
	"$KMEMTRACE" pageowner --sort=-tgid,-pid "$PO/current.txt" | grep "^Page" | head -1 | grep -q "pid 1240," &&
	"$KMEMTRACE" pageowner --sort=ator,-pages "$PO/current.txt" | grep times | head -1 | grep -q "8 pages, allocated by SLAB" &&
	"$KMEMTRACE" pageowner --sort=at "$PO/current.txt" | grep "^Page" | head -1 | grep -q "ts 200000 ns"
'

test_expect_success '--cull=stacktrace groups by stack (and the lines after it)' '
	"$KMEMTRACE" pageowner --cull=stacktrace "$PO/current.txt" >st &&
	grep times st >heads &&
	cat >expect <<-\EOF &&
	3 times, 3 pages:
	2 times, 8 pages:
	1 times, 4 pages:
	1 times, 1 pages:
	1 times, 1 pages:
	1 times, 1 pages:
	1 times, 1 pages:
	1 times, 1 pages:
	EOF
	test_cmp expect heads &&
	sed -n 2p st | grep -q "^ post_alloc_hook+0x1c1/0x200$" &&
	! grep -q "^Page allocated" st &&
	"$KMEMTRACE" pageowner --cull=st "$PO/current.txt" >st2 && test_cmp st st2
'

test_expect_success '--cull=pid,tgid,name prints the keys as page_owner_sort' '
	"$KMEMTRACE" pageowner --cull=tg,n -m "$PO/current.txt" >tn &&
	cat >expect <<-\EOF &&
	2 times, 8 pages, TGID 1, task_comm_name: systemd
	4 times, 4 pages, TGID 1234, task_comm_name: Web Content
	1 times, 4 pages, TGID 2, task_comm_name: kthreadd
	1 times, 1 pages, TGID 900, task_comm_name: (sd-pam)
	1 times, 1 pages, TGID 55, task_comm_name: kworker/u8:2
	1 times, 1 pages, TGID 77, task_comm_name: x), ts 1 (y
	1 times, 1 pages, TGID 800, task_comm_name: tmux: server
	EOF
	test_cmp expect tn &&
	"$KMEMTRACE" pageowner --cull=pid "$PO/current.txt" >p &&
	test "$(wc -l <p)" = 8 &&
	grep -q "^3 times, 3 pages, PID 1234$" p &&
	"$KMEMTRACE" pageowner --cull p --cull n "$PO/current.txt" | grep -q "^3 times, 3 pages, PID 1234, task_comm_name: Web Content$"
'

test_expect_success '--cull=allocator totals the classes' '
	"$KMEMTRACE" pageowner --cull=allocator -m "$PO/current.txt" >ator &&
	cat >expect <<-\EOF &&
	2 times, 8 pages, allocated by SLAB 
	4 times, 4 pages, allocated by ANON 
	1 times, 4 pages, allocated by VMALLOC 
	2 times, 2 pages, allocated by OTHERS 
	1 times, 1 pages, allocated by PAGECACHE 
	1 times, 1 pages, allocated by CMA 
	EOF
	test_cmp expect ator
'

test_expect_success '--pid, --tgid, --name select records' '
	"$KMEMTRACE" pageowner --pid=1234,55 --cull=pid "$PO/current.txt" >sel &&
	printf "3 times, 3 pages, PID 1234\n1 times, 1 pages, PID 55\n" >expect &&
	test_cmp expect sel &&
	"$KMEMTRACE" pageowner --tgid 1234 --cull=st "$PO/current.txt" | grep times >sel &&
	printf "3 times, 3 pages, TGID 1234:\n1 times, 1 pages, TGID 1234:\n" >expect &&
	test_cmp expect sel &&
	"$KMEMTRACE" pageowner --name "tmux: server,(sd-pam)" --cull=tgid "$PO/current.txt" >sel &&
	printf "1 times, 1 pages, TGID 900, task_comm_name: (sd-pam)\n1 times, 1 pages, TGID 800, task_comm_name: tmux: server\n" >expect &&
	test_cmp expect sel &&
	"$KMEMTRACE" pageowner --name=nobody "$PO/current.txt" >none && ! test -s none
'

test_expect_success '-l limits the groups printed' '
	"$KMEMTRACE" pageowner -l 2 "$PO/current.txt" | grep -c times >n &&
	echo 2 >expect && test_cmp expect n &&
	"$KMEMTRACE" pageowner -l 0 "$PO/current.txt" >all &&
	"$KMEMTRACE" pageowner "$PO/current.txt" >expect &&
	test_cmp expect all && grep -q times all
'

test_expect_success '--summary: classes, migratetypes, orders, memcgs' '
	"$KMEMTRACE" pageowner --summary -l 0 "$PO/current.txt" >sum &&
	grep -q "^records 11, pages 20, groups 9, distinct stacks 8$" sum &&
	grep -q "^slab  *2  *8  *40.0%$" sum &&
	grep -q "^vmalloc  *1  *4  *20.0%$" sum &&
	grep -q "^pagecache  *1  *1  *5.0%$" sum &&
	grep -q "^anon  *4  *4  *20.0%$" sum &&
	grep -q "^cma  *1  *1  *5.0%$" sum &&
	grep -q "^other  *2  *2  *10.0%$" sum &&
	grep -q "^CMA  *2  *2  *10.0%$" sum &&
	grep -q "^2  *3  *12  *60.0%$" sum &&
	grep -q "^init.scope  *2  *8  *8$" sum &&
	grep -q "^session-2.scope  *4  *4  *1$" sum &&
	grep -q "^user@1000.service (offline)  *1  *1  *0$" sum &&
	grep -q "^compaction  *1  *1  *5.0%$" sum
'

test_expect_success '--json carries the groups and every total' '
	"$KMEMTRACE" pageowner --json -l 3 "$PO/current.txt" >j.json &&
	python3 - j.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["kind"] == "page_owner" and d["records"] == 11 and d["pages"] == 20
	assert d["nr_groups"] == 9 and len(d["groups"]) == 3
	g = d["groups"][0]
	assert (g["times"], g["pages"], g["allocator"], g["pid"], g["name"]) == (2, 8, "slab", 1, "systemd")
	assert g["stack"][4] == "allocate_slab+0x2a7/0x3c0"
	assert g["extra"] == ["Slab cache page", "Charged (via objcg) to memcg init.scope"]
	c = {x["class"]: (x["records"], x["pages"]) for x in d["classes"]}
	assert c == {"slab": (2, 8), "vmalloc": (1, 4), "pagecache": (1, 1), "anon": (4, 4), "cma": (1, 1), "other": (2, 2)}
	m = {(x["memcg"], x["offline"]): x["pages"] for x in d["memcgs"]}
	assert m == {("init.scope", False): 8, ("session-2.scope", False): 4, ("user@1000.service", True): 1}
	assert {x["order"]: x["pages"] for x in d["orders"]} == {0: 8, 2: 12}
	assert d["format"]["pfn_hex"] and d["format"]["tgid"] and not d["format"]["free_ts"]
	assert d["malformed"]["count"] == 0
	EOF
'

test_expect_success '--format json is --json, and agrees with the text' '
	for opts in "" "--summary -l 3" "--cull=tgid,st -m" "-a" "--cull=ator"; do
		"$KMEMTRACE" pageowner --json $opts "$PO/current.txt" >old.json &&
		"$KMEMTRACE" pageowner --format json $opts "$PO/current.txt" >new.json &&
		test_cmp old.json new.json || return 1
	done &&
	"$KMEMTRACE" pageowner --cull=pid,name "$PO/current.txt" >text &&
	"$KMEMTRACE" pageowner --format=json --cull=pid,name "$PO/current.txt" >j.json &&
	python3 - j.json text <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	rows = ["%d times, %d pages, PID %d, task_comm_name: %s" % (g["times"], g["pages"], g["pid"], g["name"]) for g in d["groups"]]
	assert rows == open(sys.argv[2]).read().splitlines(), rows
	EOF
'

test_expect_success '--format ndjson: a row per group and total, each saying where it comes from' '
	"$KMEMTRACE" pageowner --summary -l 0 "$PO/current.txt" >text &&
	"$KMEMTRACE" pageowner --format ndjson "$PO/current.txt" >rows.ndjson &&
	"$KMEMTRACE" pageowner --format ndjson --host web3 --cull=pid,name "$PO/current.txt" >culled.ndjson &&
	"$KMEMTRACE" pageowner --cull=pid,name "$PO/current.txt" >culled.text &&
	"$KMEMTRACE" pageowner --format ndjson "$PO/malformed.txt" 2>/dev/null >bad.ndjson &&
	python3 - <<-\EOF
	import json, re
	def load(path):
	    rows = []
	    for line in open(path):
	        pairs = json.loads(line, object_pairs_hook=lambda p: p)
	        keys = [k for k, v in pairs]
	        assert len(keys) == len(set(keys)), keys
	        rows.append(dict(pairs))
	    return rows
	rows = load("rows.ndjson")
	for r in rows:
	    for k in ("host", "kernel", "boot_id", "start_time", "start_unix_ns", "input", "table"):
	        assert k in r, (k, r)
	    assert r["host"] is None and r["kernel"] is None and r["boot_id"] is None and r["start_time"] is None, r
	    assert r["input"].endswith("current.txt"), r
	tables = [r["table"] for r in rows]
	assert sorted(set(tables)) == sorted(["summary", "malformed", "format", "classes", "orders", "migratetypes",
	    "pageblock_migratetypes", "memcgs", "migrate_reasons", "groups"]), set(tables)
	by = lambda t: [r for r in rows if r["table"] == t]
	s = by("summary")[0]
	assert (s["kind"], s["records"], s["pages"], s["nr_groups"], s["stacks"]) == ("page_owner", 11, 20, 9, 8), s
	assert by("malformed")[0]["count"] == 0 and by("format")[0]["pfn_hex"] is True
	text = open("text").read()
	# the totals of the text, table by table
	for r in by("classes"):
	    assert re.search(r"^%s +%d +%d +" % (r["class"], r["records"], r["pages"]), text, re.M), r
	for r in by("memcgs"):
	    name = r["memcg"] + (" (offline)" if r["offline"] else "")
	    assert re.search(r"^%s +%d +%d +%d$" % (re.escape(name), r["records"], r["pages"], r["kmem_pages"]), text, re.M), r
	assert [(r["order"], r["pages"]) for r in by("orders")] == [(0, 8), (2, 12)]
	# the groups of the text, in its order, each with its record and stack
	heads = re.findall(r"^(\d+) times, (\d+) pages, allocated by (\w+) :\n(.*)\n", text, re.M)
	groups = by("groups")
	assert len(groups) == len(heads) == 9
	label = {"slab": "SLAB", "vmalloc": "VMALLOC", "pagecache": "PAGECACHE", "anon": "ANON", "cma": "CMA", "other": "OTHERS"}
	for g, h in zip(groups, heads):
	    assert (str(g["times"]), str(g["pages"]), label[g["allocator"]], g["record"]) == h, (g, h)
	    block = " " + "\n ".join(g["stack"]) + "\n" + "".join(x + "\n" for x in g["extra"])
	    assert (h[3] + "\n" + block) in text, g
	culled = load("culled.ndjson")
	assert all(r["host"] == "web3" for r in culled)
	lines = ["%d times, %d pages, PID %d, task_comm_name: %s" % (g["times"], g["pages"], g["pid"], g["name"])
	         for g in culled if g["table"] == "groups"]
	assert lines == open("culled.text").read().splitlines(), lines
	bad = load("bad.ndjson")
	assert [r["line"] for r in bad if r["table"] == "malformed.first"] == [7, 10, 13, 18, 27]
	assert [r["count"] for r in bad if r["table"] == "malformed"] == [5]
	EOF
'

test_expect_success '--format csv: the long table of report, with the values of the text' '
	"$KMEMTRACE" pageowner -l 2 "$PO/current.txt" >text &&
	"$KMEMTRACE" pageowner --format csv -l 2 "$PO/current.txt" >out.csv &&
	head -1 out.csv >head && echo "table,row,column,value" >expect && test_cmp expect head &&
	python3 - <<-\EOF
	import csv, re
	rows = list(csv.reader(open("out.csv", newline="")))
	assert rows[0] == ["table", "row", "column", "value"]
	assert all(len(r) == 4 for r in rows), [r for r in rows if len(r) != 4]
	v = {(t, int(n), c): x for t, n, c, x in rows[1:]}
	assert v[("summary", 0, "records")] == "11" and v[("summary", 0, "nr_groups")] == "9"
	assert v[("summary", 0, "input")].endswith("current.txt")
	assert v[("format", 0, "tgid")] == "1" and v[("format", 0, "free_ts")] == "0"
	assert v[("memcgs", 2, "memcg")] == "user@1000.service" and v[("memcgs", 2, "offline")] == "1"
	assert v[("classes", 0, "class")] == "slab" and v[("classes", 0, "pages")] == "8"
	assert v[("groups_rows", 0, "drawn")] == "2"
	assert ("classes", 0, "share") not in v and ("groups", 0, "label") not in v
	text = open("text").read()
	for i in range(2):
	    block = "%s times, %s pages, allocated by %s :\n%s\n%s%s\n" % (
	        v[("groups", i, "times")], v[("groups", i, "pages")],
	        v[("groups", i, "allocator")].upper().replace("OTHER", "OTHERS"),
	        v[("groups", i, "record")], v[("groups", i, "stack")], v[("groups", i, "extra")])
	    assert block in text, block
	assert ("groups", 2, "times") not in v
	EOF
'

test_expect_success '--format: one of text, json, csv and ndjson, and not with --json' '
	test_usage_error "$KMEMTRACE" pageowner --format html "$PO/current.txt" &&
	grep -q "unknown format .html.: the formats are text, json, csv, ndjson" err &&
	test_usage_error "$KMEMTRACE" pageowner --format json --json "$PO/current.txt" &&
	grep -q "exclude each other" err &&
	"$KMEMTRACE" pageowner --format text "$PO/current.txt" >out &&
	test_cmp "$PO/current.expect" out &&
	test_must_fail "$KMEMTRACE" pageowner --format json nosuchfile >out 2>err &&
	python3 -c "import json; d=json.load(open(\"out\")); assert \"cannot open\" in d[\"error\"]"
'

test_expect_success 'free_ts kernels (5.19-6.7): free_ts does not split groups' '
	"$KMEMTRACE" pageowner "$PO/freets-6.1.txt" >f &&
	grep times f >heads &&
	printf "2 times, 2 pages, allocated by SLAB :\n1 times, 8 pages, allocated by SLAB :\n1 times, 1 pages, allocated by ANON :\n" >expect &&
	test_cmp expect heads &&
	grep -q "(systemd-udevd), ts  ns, free_ts  ns$" f &&
	grep -q "^Page has been migrated, last migrate reason: numa_misplaced$" f &&
	"$KMEMTRACE" pageowner --json "$PO/freets-6.1.txt" | grep -q "\"free_ts\": true"
'

test_expect_success '5.18 (pid and name, no tgid), 5.12 and 5.11 (pid only)' '
	"$KMEMTRACE" pageowner --cull=name "$PO/comm-5.18.txt" >c &&
	printf "2 times, 2 pages, task_comm_name: bash\n1 times, 1 pages, task_comm_name: cc1 (x)\n" >expect &&
	test_cmp expect c &&
	"$KMEMTRACE" pageowner --cull=ator "$PO/comm-5.18.txt" | grep -q "^1 times, 1 pages, allocated by PAGECACHE $" &&
	"$KMEMTRACE" pageowner "$PO/pid-5.12.txt" | grep times >p &&
	printf "2 times, 2 pages, allocated by VMALLOC :\n1 times, 2 pages, allocated by OTHERS :\n" >expect &&
	test_cmp expect p &&
	"$KMEMTRACE" pageowner --cull=pid "$PO/pid-5.11.txt" >p &&
	echo "2 times, 2 pages, PID 900" >expect && test_cmp expect p &&
	"$KMEMTRACE" pageowner --cull=ator "$PO/pid-5.11.txt" | grep -q "allocated by ANON"
'

test_expect_success '3.19 to 4.5: masks without names, numbered pageblock types, one-letter flags' '
	"$KMEMTRACE" pageowner "$PO/old-4.4.txt" >old &&
	test_cmp "$PO/old-4.4.expect" old &&
	grep times old >heads &&
	cat >expect <<-\EOF &&
	3 times, 3 pages, allocated by ANON :
	2 times, 16 pages, allocated by SLAB :
	1 times, 1 pages, allocated by PAGECACHE :
	1 times, 1 pages, allocated by VMALLOC :
	EOF
	test_cmp expect heads &&
	! grep -q "^PFN" old &&
	"$KMEMTRACE" pageowner --summary -l 0 "$PO/old-4.4.txt" >sum &&
	grep -q "^records 7, pages 21, groups 4, distinct stacks 4$" sum &&
	grep -q "^malformed records skipped: 0$" sum &&
	sed -n "/^pageblock migratetype/,/^\$/p" sum >blocks &&
	grep -q "^0  *4  *18  *85.7%$" blocks &&
	grep -q "^1  *3  *3  *14.3%$" blocks &&
	sed -n "/^migratetype/,/^\$/p" sum >types &&
	grep -q "^Fallback  *1  *1  *4.8%$" types &&
	"$KMEMTRACE" pageowner --json "$PO/old-4.4.txt" >j.json &&
	python3 -c "import json; d=json.load(open(\"j.json\")); f=d[\"format\"]; assert f[\"migratetype_numbers\"] and not f[\"pfn_hex\"] and not f[\"tgid\"] and d[\"malformed\"][\"count\"] == 0, d" &&
	"$KMEMTRACE" pageowner --json "$PO/current.txt" >j.json &&
	python3 -c "import json; d=json.load(open(\"j.json\")); assert not d[\"format\"][\"migratetype_numbers\"]"
'

test_expect_success 'page_owner_sort output (3.19 and today'"'"'s) is refused as already sorted' '
	for f in "$PO/sorted-4.4.txt" "$PO/current.expect"; do
		test_must_fail "$KMEMTRACE" pageowner "$f" >out 2>err &&
		! test -s out && test "$(wc -l <err)" = 1 &&
		grep -q "^kmemtrace pageowner: error: .$f. is already sorted by page_owner_sort" err &&
		cat "$f" | test_must_fail "$KMEMTRACE" pageowner - >out 2>err &&
		grep -q "^kmemtrace pageowner: error: .<stdin>. is already sorted by page_owner_sort" err || return 1
	done &&
	test_must_fail "$KMEMTRACE" report -i "$PO/sorted-4.4.txt" >out 2>err &&
	! test -s out && test "$(wc -l <err)" = 1 &&
	grep -q "sorted-4.4.txt. is page_owner_sort output" err
'

test_expect_success 'recordings of kmem events: pageowner points to report, report to pageowner' '
	for f in perf-both-g.data perf-slab-pipe.data capture.dat capture.v6.dat capture.trace.txt; do
		test_must_fail "$KMEMTRACE" pageowner "$DATA/$f" >out 2>err &&
		! test -s out && test "$(wc -l <err)" = 1 &&
		grep -q "^kmemtrace pageowner: error: .$DATA/$f. is .*: read it with .kmemtrace report.$" err &&
		test_must_fail "$KMEMTRACE" pageowner - <"$DATA/$f" >out 2>err &&
		! test -s out && test "$(wc -l <err)" = 1 &&
		grep -q "^kmemtrace pageowner: error: .<stdin>. is .*: read it with .kmemtrace report.$" err || return 1
	done &&
	test_must_fail "$KMEMTRACE" pageowner "$DATA/perf-both-g.data" 2>err &&
	grep -q "is a perf.data recording of kmem events" err &&
	test_must_fail "$KMEMTRACE" pageowner "$DATA/capture.dat" 2>err &&
	grep -q "is a trace.dat recording" err &&
	test_must_fail "$KMEMTRACE" pageowner "$DATA/capture.trace.txt" 2>err &&
	grep -q "is ftrace text" err &&
	for f in current.txt old-4.4.txt show_stacks.txt; do
		test_must_fail "$KMEMTRACE" report -i "$PO/$f" >out 2>err &&
		! test -s out && test "$(wc -l <err)" = 1 &&
		grep -q "$f. is a page_owner dump: read it with .kmemtrace pageowner.$" err &&
		test_must_fail "$KMEMTRACE" report -i - <"$PO/$f" >out 2>err &&
		grep -q "is a page_owner dump: read it with .kmemtrace pageowner.$" err || return 1
	done
'

test_expect_success 'page_owner_stacks/show_stacks, with nr_base_pages or stack_count' '
	"$KMEMTRACE" pageowner "$PO/show_stacks.txt" | grep times >s &&
	cat >expect <<-\EOF &&
	1 times, 4000 pages, allocated by PAGECACHE :
	1 times, 2500 pages, allocated by ANON :
	1 times, 120 pages, allocated by SLAB :
	1 times, 64 pages, allocated by VMALLOC :
	EOF
	test_cmp expect s &&
	"$KMEMTRACE" pageowner --summary -l 0 "$PO/show_stacks.txt" | grep -q "^records 4, pages 6,684," &&
	"$KMEMTRACE" pageowner --json "$PO/show_stacks-6.9.txt" >j.json &&
	python3 -c "import json,sys; d=json.load(open(\"j.json\")); assert d[\"kind\"] == \"page_owner_stacks\" and d[\"pages\"] == 37, d" &&
	test_must_fail "$KMEMTRACE" pageowner --cull=pid "$PO/show_stacks.txt" 2>err &&
	grep -q "carry no pid" err
'

test_expect_success 'malformed records are skipped and reported with their line' '
	"$KMEMTRACE" pageowner "$PO/malformed.txt" >out 2>err &&
	grep times out >heads &&
	printf "2 times, 2 pages, allocated by OTHERS :\n1 times, 2 pages, allocated by OTHERS :\n" >expect &&
	test_cmp expect heads &&
	grep -q "line 7: no page order" err &&
	grep -q "line 10: not a page_owner record" err &&
	grep -q "line 13: bad PFN" err &&
	grep -q "line 18: no gfp mask" err &&
	grep -q "line 27: a page_owner_stacks record among page_owner records" err &&
	test "$(wc -l <err)" = 5 &&
	"$KMEMTRACE" pageowner --json "$PO/malformed.txt" 2>/dev/null >j.json &&
	python3 -c "import json; d=json.load(open(\"j.json\")); m=d[\"malformed\"]; assert m[\"count\"] == 5 and [x[\"line\"] for x in m[\"first\"]] == [7, 10, 13, 18, 27], m"
'

test_expect_success 'many malformed records: a few lines and a total; -d lists each' '
	for i in 1 2 3 4 5 6 7 8; do printf "garbage %s\n\n" $i; done >bad.txt &&
	cat "$PO/current.txt" >>bad.txt &&
	"$KMEMTRACE" pageowner bad.txt >out 2>err &&
	test "$(wc -l <err)" = 6 && grep -q "8 malformed records skipped in all" err &&
	grep -q "line 9:" err && ! grep -q "line 11:" err &&
	"$KMEMTRACE" pageowner -d bad.txt >out 2>err &&
	test "$(wc -l <err)" = 8 && grep -q "line 15:" err
'

test_expect_success 'bad input: one clear error, no report' '
	test_must_fail "$KMEMTRACE" pageowner nosuchfile >out 2>err &&
	grep -q "^kmemtrace pageowner: error: cannot open .nosuchfile.: No such file or directory" err && ! test -s out &&
	: >empty.txt &&
	test_must_fail "$KMEMTRACE" pageowner empty.txt >out 2>err &&
	grep -q "^kmemtrace pageowner: error: .empty.txt. is empty" err && ! test -s out &&
	head -c 3000 "$KMEMTRACE" >elf.bin &&
	test_must_fail "$KMEMTRACE" pageowner elf.bin >out 2>err &&
	grep -q "^kmemtrace pageowner: error: .elf.bin. is not a page_owner dump" err && ! test -s out &&
	test_must_fail "$KMEMTRACE" pageowner --json nosuchfile >out 2>err &&
	python3 -c "import json; d=json.load(open(\"out\")); assert \"cannot open\" in d[\"error\"]" &&
	test_must_fail "$KMEMTRACE" pageowner . 2>err && grep -q "Is a directory" err
'

test_expect_success 'bad options: one clear error' '
	test_usage_error "$KMEMTRACE" pageowner -m -t "$PO/current.txt" &&
	grep -q "only one of" err &&
	test_usage_error "$KMEMTRACE" pageowner -m --sort=pid "$PO/current.txt" &&
	grep -q "exclude each other" err &&
	test_usage_error "$KMEMTRACE" pageowner --cull=pid,bogus "$PO/current.txt" &&
	grep -q "unknown cull key .bogus." err &&
	test_usage_error "$KMEMTRACE" pageowner --sort=+nope "$PO/current.txt" &&
	grep -q "unknown sort key .nope." err &&
	test_usage_error "$KMEMTRACE" pageowner --pid=1,x "$PO/current.txt" &&
	grep -q "list of numbers" err &&
	test_usage_error "$KMEMTRACE" pageowner a b c &&
	grep -q "too many arguments" err &&
	"$KMEMTRACE" pageowner -h | grep -q -- "--cull <keys>"
'

test_expect_success 'a file read in parts (--threads) reads as one: groups span the parts' '
	cat "$PO/current.txt" "$PO/current.txt" "$PO/current.txt" >thrice.txt &&
	"$KMEMTRACE" pageowner --threads 1 thrice.txt >one.out &&
	grep -c "^3 times" one.out >n && echo 7 >expect && test_cmp expect n &&
	for t in 2 3 4 9; do
		for opts in "" -a -m -s --cull=stacktrace --cull=tgid,name "--summary -l 3" --json; do
			"$KMEMTRACE" pageowner --threads 1 $opts thrice.txt >one.out &&
			"$KMEMTRACE" pageowner --threads $t $opts thrice.txt >parts.out &&
			test_cmp one.out parts.out || return 1
		done
	done
'

test_expect_success 'in parts: malformed records keep their line numbers; -d reads in order' '
	for t in 2 3 5; do
		"$KMEMTRACE" pageowner --threads $t "$PO/malformed.txt" >out 2>err &&
		grep -q "line 27: a page_owner_stacks record among page_owner records" err &&
		"$KMEMTRACE" pageowner --threads 1 "$PO/malformed.txt" >out1 2>err1 &&
		test_cmp out1 out && test_cmp err1 err &&
		"$KMEMTRACE" pageowner --threads $t --json "$PO/malformed.txt" 2>/dev/null >j.json &&
		python3 -c "import json; d=json.load(open(\"j.json\")); m=d[\"malformed\"]; assert [x[\"line\"] for x in m[\"first\"]] == [7, 10, 13, 18, 27], m" || return 1
	done &&
	for i in 1 2 3 4 5 6 7 8; do printf "garbage %s\n\n" $i; cat "$PO/current.txt"; done >bad.txt &&
	"$KMEMTRACE" pageowner -d --threads 4 bad.txt >out 2>err &&
	"$KMEMTRACE" pageowner -d --threads 1 bad.txt >out1 2>err1 &&
	test_cmp err1 err && test "$(wc -l <err)" = 8 &&
	test_usage_error "$KMEMTRACE" pageowner --threads 65 "$PO/current.txt" &&
	grep -q "^kmemtrace pageowner: error: option .--threads. needs a number from 0 to 64, not .65." err &&
	test_usage_error "$KMEMTRACE" pageowner --threads -1 "$PO/current.txt" &&
	grep -q "not .-1." err
'

# a generated dump: bench/pageowner/gen.c, built here
if command -v cc >/dev/null 2>&1 && cc -O2 -o gen "$TOPDIR/bench/pageowner/gen.c" 2>/dev/null; then
	test_expect_success 'a generated dump: file and pipe agree, totals add up' '
		./gen -r 20000 -S 7 -o gen.txt &&
		"$KMEMTRACE" pageowner gen.txt >file.out &&
		cat gen.txt | "$KMEMTRACE" pageowner - >pipe.out &&
		test_cmp file.out pipe.out &&
		awk "/ times, / { t += \$1; p += \$3 } END { print t, p }" file.out >sums &&
		"$KMEMTRACE" pageowner --json -l 0 gen.txt >j.json &&
		python3 -c "import json; d=json.load(open(\"j.json\")); print(d[\"records\"], d[\"pages\"])" >expect &&
		test_cmp expect sums && grep -q "^20000 " sums
	'
	test_expect_success 'a generated dump read in parts: the same output' '
		for opts in "" -a "-m --cull=pid,name" --cull=stacktrace "--json -l 50"; do
			"$KMEMTRACE" pageowner --threads 1 $opts gen.txt >one.out &&
			"$KMEMTRACE" pageowner --threads 2 $opts gen.txt >two.out &&
			"$KMEMTRACE" pageowner --threads 3 $opts gen.txt >three.out &&
			test_cmp one.out two.out && test_cmp one.out three.out || return 1
		done
	'
	POS=${PAGE_OWNER_SORT:-$(command -v page_owner_sort || true)}
	if [ -n "$POS" ] && [ -x "$POS" ]; then
		test_expect_success 'the same groupings as page_owner_sort' '
			./gen -r 20000 -S 3 -o g.txt &&
			for opts in --cull=stacktrace --cull=pid,name --cull=tgid,st; do
				"$POS" $opts g.txt pos.out >/dev/null &&
				"$KMEMTRACE" pageowner $opts g.txt kmt.out &&
				python3 "$TOPDIR/bench/pageowner/compare.py" pos.out kmt.out || return 1
			done &&
			"$POS" g.txt pos.out >/dev/null &&
			if grep -q "ts  ns$" pos.out; then same=; else same=-a; fi &&
			"$KMEMTRACE" pageowner $same g.txt kmt.out &&
			python3 "$TOPDIR/bench/pageowner/compare.py" pos.out kmt.out
		'
	else
		test_skip 'the same groupings as page_owner_sort' 'no page_owner_sort: set PAGE_OWNER_SORT to one built from a kernel tree'
	fi
else
	test_skip 'a generated dump' 'no C compiler'
	test_skip 'the same groupings as page_owner_sort' 'no C compiler'
fi

if [ -r /sys/kernel/debug/page_owner ] && head -c 1 /sys/kernel/debug/page_owner >/dev/null 2>&1; then
	test_expect_success 'reads /sys/kernel/debug/page_owner directly' '
		"$KMEMTRACE" pageowner --summary -l 5 </dev/null >live && grep -q "^records " live
	'
else
	test_skip 'reads /sys/kernel/debug/page_owner directly' 'page_owner is not enabled on this kernel (boot with page_owner=on)'
	test_expect_success 'without page_owner: an error that says how to get it' '
		test_must_fail "$KMEMTRACE" pageowner </dev/null >out 2>err &&
		grep -q "/sys/kernel/debug/page_owner.*page_owner=on" err && ! test -s out &&
		test_must_fail "$KMEMTRACE" pageowner --stacks </dev/null 2>err &&
		grep -q "page_owner_stacks/show_stacks" err
	'
fi

test_done
