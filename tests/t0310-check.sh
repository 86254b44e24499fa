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
