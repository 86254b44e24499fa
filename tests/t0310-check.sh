#!/bin/sh
# kmemtrace check: a real recording (made by kmemtrace record --follow -g
# on this project's machine) is whole; copies damaged on purpose are not:
# cut short, a page out of time order, an unknown event id.  Events the
# kernel says it lost are reported without calling the file damaged.
. "$(dirname "$0")/lib.sh"

cp "$DATA/record/small.dat" small.dat

# damage.py OP IN OUT [N]: swap the first two pages of CPU 0, give its
# first event an unknown id, or mark a page as following N lost events
# the way the kernel does (flags in the commit word, count after the data)
cat >damage.py <<'EOF'
import struct, sys

PAGE = 4096

def cpu_data(d):
    at = d.find(b'flyrecord\0') + 10
    return [struct.unpack_from('<QQ', d, at + 16 * c) for c in range(2)]

def first_event(d, page):
    commit = struct.unpack_from('<Q', d, page + 8)[0] & ((1 << 27) - 1)
    o = page + 16
    while o < page + 16 + commit:
        type_len = struct.unpack_from('<I', d, o)[0] & 31
        if type_len in (30, 31):        # time extend, time stamp
            o += 8
            continue
        return o + (8 if type_len == 0 else 4)
    sys.exit('no event in the first page')

op, src, dst = sys.argv[1:4]
d = bytearray(open(src, 'rb').read())
(off, size), _ = cpu_data(d)
if op == 'swap':
    a, b = d[off:off + PAGE], d[off + PAGE:off + 2 * PAGE]
    d[off:off + PAGE], d[off + PAGE:off + 2 * PAGE] = b, a
elif op == 'badid':
    struct.pack_into('<H', d, first_event(d, off), 0xfff0)
elif op == 'missed':
    for k in range(1, size // PAGE):
        page = off + k * PAGE
        commit = struct.unpack_from('<Q', d, page + 8)[0]
        if commit + 8 <= PAGE - 16:
            struct.pack_into('<Q', d, page + 8, commit | 3 << 30)
            struct.pack_into('<Q', d, page + 16 + commit, int(sys.argv[4]))
            break
    else:
        sys.exit('no page with room for the count')
open(dst, 'wb').write(d)
EOF

value () {
	sed -n "s/^$1: //p" "$2"
}

test_expect_success 'a whole recording: every count, status ok, exit 0' '
	"$KMEMTRACE" check small.dat >out &&
	test_cmp "$EXPECTED/record/check-small.txt" out
'

# record/boot.dat: kmemtrace record's, with its boot option; small.dat,
# from before record kept one; perf-clock.data, perf record -k's: a
# start, no boot
test_expect_success 'the boot id and the start the report shows, or not recorded' '
	for r in record/boot.dat record/small.dat perf-clock.data capture.dat; do
		"$KMEMTRACE" check "$DATA/$r" >boot.out &&
		"$KMEMTRACE" check --json "$DATA/$r" >boot.json &&
		"$KMEMTRACE" report --json --caches "$DATA/$r" >report.json &&
		"$KMEMTRACE" report --caches "$DATA/$r" >report.txt &&
		python3 - boot.out boot.json report.json report.txt <<-\EOF || exit 1
		import json, sys
		text = dict(l.rstrip("\n").split(": ", 1) for l in open(sys.argv[1]))
		check = json.load(open(sys.argv[2]))
		rep = json.load(open(sys.argv[3]))
		head = [l for l in open(sys.argv[4]) if l.startswith("# start:")]
		for k in ("boot_id", "start_time", "start_unix_ns"):
		    assert check[k] == rep[k], (k, check[k], rep[k])
		assert text["boot-id"] == (rep["boot_id"] or "not recorded"), text
		if rep["start_time"]:
		    assert head[0].startswith("# start:  " + text["start-time"]), (head, text)
		else:
		    assert not head and text["start-time"] == "not recorded", (head, text)
		EOF
	done &&
	"$KMEMTRACE" check "$DATA/record/boot.dat" >boot.out &&
	grep -x "boot-id: fe29cf62-bcd5-4bad-b3e4-9bebd41093f2" boot.out &&
	grep -x "start-time: 2026-11-28 05:13:14.288366 UTC" boot.out &&
	"$KMEMTRACE" check "$DATA/perf-clock.data" >boot.out &&
	grep -x "boot-id: not recorded" boot.out &&
	grep -x "start-time: 2026-11-28 05:05:37.835910 UTC" boot.out &&
	"$KMEMTRACE" check --json small.dat >boot.json &&
	grep -x "  \"boot_id\": null," boot.json &&
	grep -x "  \"start_time\": null," boot.json
'

if command -v trace-cmd >/dev/null 2>&1; then
	test_expect_success 'check counts the events trace-cmd shows' '
		trace-cmd report small.dat 2>/dev/null |
			grep -cE "\] +[0-9]+\.[0-9]+: (kmalloc|kmem_cache_alloc|kfree|kmem_cache_free|mm_page_alloc|mm_page_free|mm_page_free_batched): " >tc &&
		value events out >ours &&
		test_cmp tc ours
	'
else
	test_skip 'check counts the events trace-cmd shows' 'no trace-cmd'
fi

test_expect_success '--json says the same' '
	"$KMEMTRACE" check --json small.dat >out.json &&
	python3 -c "
import json, sys
j = json.load(open(\"out.json\"))
assert j[\"status\"] == \"ok\", j
assert j[\"events\"] == 2694, j[\"events\"]
assert j[\"by_type\"][\"mm_page_alloc\"] == 220
assert j[\"lost\"] == 0 and j[\"stacks\"] is True
"
'

test_expect_success 'the recording read from a pipe' '
	"$KMEMTRACE" check - <small.dat >pipe.out &&
	value events pipe.out >n &&
	echo 2694 >want &&
	test_cmp want n
'

test_expect_success 'cut short in the pages: damaged, the file named' '
	size=$(wc -c <small.dat) &&
	head -c $((size - 5000)) small.dat >cut.dat &&
	test_must_fail "$KMEMTRACE" check cut.dat >out 2>err &&
	grep "cut.dat" err &&
	grep "truncated" err &&
	test $(wc -l <err) = 1
'

test_expect_success 'cut short in the header: damaged' '
	head -c 3000 small.dat >head.dat &&
	test_must_fail "$KMEMTRACE" check head.dat 2>err &&
	grep "head.dat" err
'

test_expect_success 'a page out of time order: damaged' '
	python3 damage.py swap small.dat swap.dat &&
	test_must_fail "$KMEMTRACE" check swap.dat >out &&
	test "$(value status out)" = damaged &&
	test "$(value out-of-order out)" -gt 0
'

test_expect_success 'an unknown event id: damaged' '
	python3 damage.py badid small.dat badid.dat &&
	test_must_fail "$KMEMTRACE" check badid.dat >out &&
	test "$(value status out)" = damaged &&
	test "$(value unknown-ids out)" = 1
'

test_expect_success 'events the kernel lost are counted, the file is ok' '
	python3 damage.py missed small.dat missed.dat 5 &&
	"$KMEMTRACE" check missed.dat >out &&
	test "$(value status out)" = ok &&
	test "$(value lost out)" = 5 &&
	test "$(value lost-records out)" = 1 &&
	test "$(value events out)" = 2694
'

# perf record -o nokmem-cycles.data -- true: cycles samples, no tracepoint,
# no tracing data; whole, but nothing for report (was: "damaged")
test_expect_success 'a whole perf.data without tracepoints: no-kmem-events, exit 1' '
	"$KMEMTRACE" check "$DATA/nokmem-cycles.data" >out 2>err; test $? = 1 &&
	test "$(value status out)" = no-kmem-events &&
	test "$(value events out)" = 0 &&
	test "$(value other-events out)" = 2 &&
	test "$(value bad-records out)" = 0 &&
	grep "error: .*nokmem-cycles.data'\'' is whole but has no kmem events (2 events of other kinds): record them with" err &&
	test $(wc -l <err) = 1 &&
	"$KMEMTRACE" check --json "$DATA/nokmem-cycles.data" >out.json; test $? = 1 &&
	grep "\"status\": \"no-kmem-events\"" out.json &&
	test_must_fail "$KMEMTRACE" report "$DATA/nokmem-cycles.data" 2>err &&
	grep "has no kmem events (2 events of other kinds)" err
'

# formats.py TEXT JSON CSV NDJSON [HOST]: the four drawings of one verdict
# say the same; the ndjson rows carry report's origin columns (HOST:
# the host they must name)
cat >formats.py <<'EOF'
import csv, json, sys

text, js, cs, nd = sys.argv[1:5]
lines = [l.rstrip("\n").split(": ", 1) for l in open(text)]
j = json.load(open(js))
# one member of a name in a row: engines refuse the others
def nodup(pairs):
    keys = [k for k, v in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)
rows = [json.loads(l, object_pairs_hook=nodup) for l in open(nd)]
types = list(j["by_type"])

# text: a line per member, in the JSON's order, "-" for "_"
want = []
for k, v in lines:
    if k == "unusable-format":
        want.append(("unusable_formats", v))
    elif k in types:
        want.append(("by_type", k, v))
    else:
        want.append((k.replace("-", "_"), v))
def as_text(v):
    if v is None:
        return "not recorded"
    if v is True or v is False:
        return "yes" if v else "no"
    return str(v)
got = []
for k, v in j.items():
    if k in ("start_unix_ns", "error"):
        continue
    if k == "by_type":
        got += [("by_type", t, as_text(n)) for t, n in v.items()]
    elif k == "unusable_formats":
        got += [(k, "%s: %s (%d record%s)" % (u["event"], u["why"], u["records"],
                "" if u["records"] == 1 else "s")) for u in v]
    elif k == "start_time":
        got.append((k, "not recorded" if v is None else
                    v.replace("T", " ").replace("Z", " UTC")))
    else:
        got.append((k, as_text(v)))
assert got == want, (got, want)

# ndjson: recording, unusable_formats (where there are), verdict
origin = ("host", "kernel", "input", "first_ts_ns", "span_ns", "boot_id",
          "start_time", "start_unix_ns")
tables = [r["table"] for r in rows]
nu = len(j.get("unusable_formats", []))
assert tables == ["recording"] + ["unusable_formats"] * nu + ["verdict"], tables
for r in rows:
    assert list(r)[:9] == list(origin) + ["table"], list(r)
    for k in ("boot_id", "start_time", "start_unix_ns"):
        assert r[k] == j[k], (k, r[k], j[k])
    assert r["kernel"] == j.get("kernel"), r
    assert r["input"] == j["file"], r
    assert r["first_ts_ns"] == j["first_ts"], r
    assert r["span_ns"] == j["last_ts"] - j["first_ts"], r
    if len(sys.argv) > 5:
        assert r["host"] == sys.argv[5], r
flat = {}
for r in rows:
    if r["table"] == "unusable_formats":
        flat.setdefault("unusable_formats", []).append(
            {k: r[k] for k in ("event", "why", "records")})
    else:
        flat.update({k: v for k, v in r.items()
                     if k not in origin + ("table",)})
for k, v in j.items():
    if k not in origin:
        assert flat.pop(k) == v, (k, v)
assert not flat, flat

# csv: table,row,column,value; every member, the counts as by_type.NAME
c = list(csv.reader(open(cs)))
assert c[0] == ["table", "row", "column", "value"], c[0]
cells = {}
for t, row, col, val in c[1:]:
    cells[(t, int(row), col)] = val
in_recording = [r for r in rows if r["table"] == "recording"][0]
for k, v in j.items():
    if k == "by_type":
        for t, n in v.items():
            # a type not recorded is an empty cell (null in JSON)
            assert cells.pop(("recording", 0, "by_type." + t)) == \
                ("" if n is None else str(n)), t
    elif k == "unusable_formats":
        for i, u in enumerate(v):
            for m in ("event", "why", "records"):
                assert cells.pop(("unusable_formats", i, m)) == str(u[m]), (i, m)
        assert cells.pop(("unusable_formats_rows", 0, "drawn")) == str(len(v))
        assert cells.pop(("unusable_formats_rows", 0, "total")) == str(len(v))
    else:
        t = "recording" if k in in_recording or k in origin else "verdict"
        want = "" if v is None else str(int(v)) if v is True or v is False else str(v)
        assert cells.pop((t, 0, k)) == want, (k, v, t)
assert not cells, cells
EOF

# every drawing of check's verdict: a.txt a.json a.csv a.ndjson, the
# exit code of each in rc and the same for all
draw_all () {
	"$KMEMTRACE" check "$@" >a.txt
	rc=$?
	"$KMEMTRACE" check --format json "$@" >a.json; test $? = $rc &&
	"$KMEMTRACE" check --json "$@" >a2.json; test $? = $rc &&
	test_cmp a.json a2.json &&
	"$KMEMTRACE" check --format text "$@" >a2.txt; test $? = $rc &&
	test_cmp a.txt a2.txt &&
	"$KMEMTRACE" check --format csv "$@" >a.csv; test $? = $rc &&
	"$KMEMTRACE" check --format ndjson "$@" >a.ndjson; test $? = $rc
}

test_expect_success '--format json, csv, ndjson: the verdict the text says; ndjson rows say where they come from as report'\''s do' '
	for r in record/boot.dat record/small.dat perf-clock.data capture.dat nokmem-cycles.data; do
		draw_all "$DATA/$r" 2>err &&
		python3 formats.py a.txt a.json a.csv a.ndjson || { echo "in $r"; return 1; }
	done &&
	draw_all "$DATA/record/boot.dat" &&
	"$KMEMTRACE" report --format ndjson --caches "$DATA/record/boot.dat" >report.ndjson &&
	python3 - a.ndjson report.ndjson <<-\EOF
	import json, sys
	check = [json.loads(l) for l in open(sys.argv[1])]
	rep = json.loads(open(sys.argv[2]).readline())
	for r in check:
	    for k in ("host", "kernel", "input", "first_ts_ns", "span_ns", "boot_id", "start_time", "start_unix_ns"):
	        assert r[k] == rep[k], (k, r[k], rep[k])
	assert check[0]["host"] == "vm", check[0]
	assert check[0]["boot_id"] == "fe29cf62-bcd5-4bad-b3e4-9bebd41093f2", check[0]
	assert check[0]["start_time"] == "2026-11-28T05:13:14.288366Z", check[0]
	assert check[0]["by_type"]["kmem_cache_alloc"] == 124 and check[-1]["status"] == "ok"
	EOF
'

test_expect_success '--host names the host of the ndjson rows; every format of a damaged file carries its error' '
	"$KMEMTRACE" check --format ndjson --host fleet-7 "$DATA/record/boot.dat" >a.ndjson &&
	test $(grep -c "^{\"host\":\"fleet-7\"," a.ndjson) = 2 &&
	"$KMEMTRACE" check --host fleet-7 "$DATA/record/boot.dat" >h.txt &&
	"$KMEMTRACE" check "$DATA/record/boot.dat" >plain.txt &&
	test_cmp plain.txt h.txt &&
	draw_all --host fleet-7 "$DATA/record/boot.dat" &&
	python3 formats.py a.txt a.json a.csv a.ndjson fleet-7 &&
	python3 damage.py swap small.dat swap.dat &&
	{ draw_all swap.dat 2>/dev/null; test $rc = 1; } &&
	python3 formats.py a.txt a.json a.csv a.ndjson &&
	size=$(wc -c <"$DATA/perf-clock.data") &&
	head -c $((size - 100)) "$DATA/perf-clock.data" >cut.data &&
	{ draw_all cut.data 2>err; test $rc = 1; } &&
	python3 formats.py a.txt a.json a.csv a.ndjson &&
	test $(grep -c "error: .cut.data. is truncated" err) = 6 &&
	tail -1 a.ndjson | grep "\"status\":\"damaged\",\"error\":\".*truncated" &&
	grep "^verdict,0,error,.*truncated" a.csv
'

test_expect_success 'csv and ndjson: an unusable format is a row of unusable_formats' '
	python3 "$TESTS_DIR/trace-dat-edit.py" breakfmt "$DATA/capture.v6.dat" ks.dat kernel_stack &&
	draw_all ks.dat && test $rc = 0 &&
	grep -x "unusable-format: ftrace/kernel_stack: its print format is not a C expression list (50 records)" a.txt &&
	python3 formats.py a.txt a.json a.csv a.ndjson &&
	grep -x "unusable_formats,0,records,50" a.csv &&
	grep "\"table\":\"unusable_formats\",\"event\":\"ftrace/kernel_stack\",\"why\":\"its print format is not a C expression list\",\"records\":50}$" a.ndjson
'

test_expect_success '--format: an unknown name, or with --json: one line, exit 129' '
	"$KMEMTRACE" check --format html small.dat >out 2>err; test $? = 129 &&
	echo "kmemtrace check: error: unknown format '\''html'\'': the formats are text, json, csv, ndjson (see '\''kmemtrace check -h'\'')" >expect &&
	test_cmp expect err && ! test -s out &&
	"$KMEMTRACE" check --format csv --json small.dat >out 2>err; test $? = 129 &&
	test $(wc -l <err) = 1 && grep "exclude each other" err &&
	"$KMEMTRACE" check --format json nosuch.dat >out 2>err; test $? = 1 &&
	python3 -c "import json; d = json.load(open(\"out\")); assert \"nosuch.dat\" in d[\"error\"], d"
'

test_expect_success 'not a recording: one line, exit 1' '
	test_must_fail "$KMEMTRACE" check /etc/hostname 2>err &&
	test $(wc -l <err) = 1 &&
	test_must_fail "$KMEMTRACE" check nosuch.dat 2>err &&
	grep "cannot open '\''nosuch.dat'\''" err
'

test_expect_success 'no file and no kmemtrace.dat here: one line, exit 1' '
	"$KMEMTRACE" check </dev/null >out 2>err; test $? = 1 &&
	echo "kmemtrace check: error: no input: kmemtrace.dat does not exist (give -i FILE)" >expect &&
	test_cmp expect err && ! test -s out
'

test_done
