#!/bin/sh
# The perf.data reader: recordings made on this machine with perf 6.1,
# read by kmt-dump-events and compared with what perf itself reads from
# them; then the errors: truncated, corrupt, garbage; then stdin.
#
#   perf-both-g.data    perf record -e kmem:kmalloc,kmem:kfree,
#                       kmem:kmem_cache_alloc,kmem:kmem_cache_free,
#                       kmem:mm_page_alloc,kmem:mm_page_free -c 1 -g -- true
#                       (per command, call chains)
#   perf-slab-pipe.data perf kmem --slab record -o - -a -- true  (system
#                       wide, the pipe form)
#   perf-lost.data      perf record -e kmem:kmalloc,kmem:kfree,
#                       kmem:kmem_cache_alloc,kmem:kmem_cache_free -c 1
#                       -m 1 -- true   (per command, a one-page buffer:
#                       samples lost)
#   perf-z.data         perf record -z --mmap-flush=4M -m 2048
#                       -e kmem:kmalloc,kmem:kfree -c 1 -- find
#                       /usr/share/zoneinfo /usr/share/locale/de
#                       (compressed: 2 COMPRESSED records of one zstd
#                       stream, a sample running from the first into the
#                       second; 3269 events)
#   perf-clock.data     perf record -k mono -e kmem:kmalloc -- sleep 0.2
#                       (sample times on CLOCK_MONOTONIC, HEADER_CLOCK_DATA
#                       mapping them to the wall clock; made between
#                       1795842337445729133 and 1795842338830649578 ns of
#                       the wall clock)
#
# Each perf recording carries about 100 KB of event formats, so there are
# few of them, made short.
. "$(dirname "$0")/lib.sh"

DUMP=$HELPERS/kmt-dump-events
RECS="perf-both-g perf-slab-pipe perf-lost perf-z"

if command -v perf >/dev/null 2>&1 &&
   perf script -f -i "$DATA/perf-lost.data" >/dev/null 2>&1; then
	have_perf=1
else
	have_perf=
fi

# perf script -F tid,cpu,time,event,trace --ns -> the dump's columns
# ts cpu pid type call_site ptr bytes_req bytes_alloc order migratetype cache
cat >perf2cols.awk <<'EOF'
{
	tid = $1; cpu = $2; gsub(/[\[\]]/, "", cpu); cpu += 0
	ts = $3; sub(/:$/, "", ts); sub(/\./, "", ts); sub(/^0+/, "", ts)
	ev = $4; sub(/^kmem:/, "", ev); sub(/:$/, "", ev)
	split("", f)
	for (i = 5; i <= NF; i++) {
		n = index($i, "=")
		if (n)
			f[substr($i, 1, n - 1)] = substr($i, n + 1)
	}
	cs = ("call_site" in f) ? f["call_site"] : "0x0"
	ptr = ("ptr" in f) ? f["ptr"] : (("pfn" in f) ? f["pfn"] : "0x0")
	if (ptr == "(nil)")
		ptr = "0x0"
	printf "%s %d %s %s %s %s %s %s %s %s %s\n", ts, cpu, tid, ev, cs, ptr,
		("bytes_req" in f) ? f["bytes_req"] : 0,
		("bytes_alloc" in f) ? f["bytes_alloc"] : 0,
		("order" in f) ? f["order"] : 0,
		("migratetype" in f) ? f["migratetype"] : -1,
		("name" in f) ? f["name"] : "-"
}
EOF
cat >dump2cols.awk <<'EOF'
/^#/ { next }
{ print $1, $2, $3, $4, $5, $6, $7, $8, $10, $11, $13 }
EOF
# perf script -F time,ip --ns: "ts ip,ip,..." of the kernel frames, those
# before the first user address (a user stack walk can turn up garbage
# that looks like a kernel address)
cat >perfstack.awk <<'EOF'
function out() { if (ts != "") print ts, (st == "" ? "-" : st) }
/^ *[0-9]+\.[0-9]+:/ {
	out(); ts = $1; sub(/:$/, "", ts); sub(/\./, "", ts); st = ""; user = 0
	next
}
/^[ \t]+[0-9a-f]+$/ {
	ip = $1
	if (length(ip) == 16 && substr(ip, 1, 4) == "ffff" && !user)
		st = st (st == "" ? "" : ",") "0x" ip
	else
		user = 1
}
END { out() }
EOF
# two column files, perf's then ours: equal in every field
cat >samecols.awk <<'EOF'
{
	getline other < OTHER
	if ($0 != other) { print "line " NR ": " $0 " | " other; bad++ }
}
END { exit bad > 0 }
EOF
# perf names a kernel address from /proc/kallsyms when the running kernel
# has the recording's build id (or the file has none), else from the
# build-id cache under $HOME (it reads no $PERF_BUILDID_DIR): from this
# machine.  Told --kallsyms=FILE it reads that file alone: /dev/null for
# the raw addresses, $REC_KALLSYMS for the names kmemtrace gives from the
# same file (the files with a build id; one without has kmemtrace name
# its addresses from this machine when its kernel release is the same).
NAMED="perf-both-g perf-lost"

for r in $RECS; do
	test_expect_success "$r: read to the end" '
		"$DUMP" "$DATA/$r.data" >$r.out &&
		grep -qx "# format perf.data" $r.out &&
		test $(grep -c -v "^#" $r.out) -gt 0 &&
		grep -qx "# anomaly bad_record 0" $r.out &&
		grep -qx "# anomaly unknown_id 0" $r.out
	'
	test_expect_success "$r: times never go back" '
		awk "!/^#/ { if (\$1 < prev) { print NR \": \" \$0; bad = 1 }
			     prev = \$1 } END { exit bad }" $r.out &&
		grep -qx "# anomaly out_of_order 0" $r.out
	'
	if [ -z "$have_perf" ]; then
		test_skip "$r: the same events as perf script" "no perf here"
		continue
	fi
	test_expect_success "$r: as many events of each type as perf script" '
		perf script -f -i "$DATA/$r.data" -F event 2>/dev/null |
		awk "{ sub(/^kmem:/, \"\", \$1); sub(/:\$/, \"\", \$1); n[\$1]++ }
		     END { for (k in n) print k, n[k] }" | sort >want &&
		awk "/^# events / && \$3 != \"total\" && \$4 > 0 { print \$3, \$4 }" \
			$r.out | sort >got &&
		test -s want &&
		test_cmp want got
	'
	test_expect_success "$r: the same events as perf script, field by field" '
		perf script -f -i "$DATA/$r.data" --ns --kallsyms=/dev/null \
			-F tid,cpu,time,event,trace 2>/dev/null |
		awk -f perf2cols.awk >want &&
		"$DUMP" "$DATA/$r.data" | awk -f dump2cols.awk >got &&
		test -s want &&
		test $(wc -l <want) = $(wc -l <got) &&
		awk -v OTHER=got -f samecols.awk want
	'
	case " $NAMED " in *" $r "*) ;; *) continue ;; esac
	test_expect_success "$r: call sites named as perf names them from the same kallsyms" '
		perf script -f -i "$DATA/$r.data" --ns --kallsyms="$REC_KALLSYMS" \
			-F tid,cpu,time,event,trace 2>/dev/null |
		awk -f perf2cols.awk >want &&
		"$DUMP" -s "$DATA/$r.data" | awk -f dump2cols.awk >got &&
		grep -q "^[^ ]* [^ ]* [^ ]* [^ ]* [a-z_]" want &&
		test $(wc -l <want) = $(wc -l <got) &&
		awk -v OTHER=got -f samecols.awk want
	'
done

test_expect_success 'call chains are those perf script shows' '
	grep -qx "# stacks 1" perf-both-g.out &&
	grep -qx "# stacks 0" perf-slab-pipe.out &&
	if [ -n "$have_perf" ]; then
		perf script -f -i "$DATA/perf-both-g.data" --ns -F time,ip \
			2>/dev/null | awk -f perfstack.awk >want &&
		awk "!/^#/ { print \$1, \$14 }" perf-both-g.out >got &&
		test_cmp want got
	fi
'

test_expect_success 'the header: kernel release and CPUs as perf reads them' '
	for r in $RECS; do
		grep -qx "# cpus 2" $r.out &&
		grep -qx "# kernel 6.18.44-fc-v657" $r.out || exit 1
	done &&
	if [ -n "$have_perf" ]; then
		perf report -f --header-only -i "$DATA/perf-both-g.data" \
			2>/dev/null >header &&
		grep -q "os release : 6.18.44-fc-v657" header &&
		grep -q "nrcpus avail : 2" header
	fi
'

# HEADER_CLOCK_DATA, read here from the file itself: u32 version,
# u32 clockid, u64 wall-clock ns, u64 clockid ns
cat >clockdata.py <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off, size = struct.unpack_from("<QQ", d, 40)
bits = int.from_bytes(d[72:104], "little")
assert bits >> 29 & 1
i = bin(bits & ((1 << 29) - 1)).count("1")	# HEADER_CLOCK_DATA is bit 29
sec, _ = struct.unpack_from("<QQ", d, off + size + 16 * i)
if len(sys.argv) > 2:
	struct.pack_into("<I", d, sec, 2)	# a version kmemtrace does not know
	open(sys.argv[2], "wb").write(d)
else:
	print(*struct.unpack_from("<IIQQ", d, sec))
EOF

test_expect_success 'clock data (perf record -k): the first event on the wall clock' '
	python3 clockdata.py "$DATA/perf-clock.data" >clock &&
	"$KMEMTRACE" report --format ndjson --caches "$DATA/perf-clock.data" >rows &&
	"$KMEMTRACE" report --caches "$DATA/perf-clock.data" >report.txt &&
	grep -x "# start:  2026-11-28 05:05:37.835910 UTC" report.txt &&
	python3 - rows clock <<-\EOF &&
	import json, sys
	rows = [json.loads(l) for l in open(sys.argv[1])]
	ver, clockid, wall, clk = map(int, open(sys.argv[2]).read().split())
	assert ver == 1 and clockid == 1, (ver, clockid)	# CLOCK_MONOTONIC
	assert rows
	for r in rows:
	    assert r["boot_id"] is None
	    assert r["start_unix_ns"] == r["first_ts_ns"] + wall - clk, r
	    assert 1795842337445729133 <= r["start_unix_ns"] <= 1795842338830649578
	    assert r["start_time"] == "2026-11-28T05:05:37.835910Z", r["start_time"]
	EOF
	if [ -n "$have_perf" ]; then
		# the first event is where perf puts it
		perf script -f -i "$DATA/perf-clock.data" -F time --ns 2>/dev/null |
			head -n 1 | tr -d " .:" >perf.first &&
		head -n 1 rows |
			sed -n "s/.*\"first_ts_ns\":\([0-9]*\),.*/\1/p" >ours.first &&
		test_cmp perf.first ours.first
	fi
'

test_expect_success 'clock data of an unknown version: no start, not a wrong one' '
	python3 clockdata.py "$DATA/perf-clock.data" v2.data &&
	"$KMEMTRACE" report --format ndjson --caches v2.data >rows &&
	test -s rows &&
	! grep -v "\"start_time\":null,\"start_unix_ns\":null," rows
'

test_expect_success 'lost samples: each loss counted once' '
	# the one-page buffer lost 35 samples: the kernel wrote a LOST
	# record of 35, and perf the per-event totals as LOST_SAMPLES
	# records (5 + 12 + 16 + 2): the same samples, not 70
	grep -qx "# lost 35" perf-lost.out &&
	grep -qx "# lost_records 5" perf-lost.out &&
	grep -qx "# lost 0" perf-both-g.out &&
	if [ -n "$have_perf" ]; then
		perf report -f --stats -i "$DATA/perf-lost.data" 2>/dev/null |
		awk "/^ +LOST_SAMPLES events: +[0-9]+\$/ { n += \$3 }
		     END { print \"# lost\", n }" >want &&
		grep "^# lost " perf-lost.out >got &&
		test_cmp want got &&
		perf report -f -D -i "$DATA/perf-lost.data" 2>/dev/null |
		awk "/PERF_RECORD_LOST: / { sub(/.*lost:/, \"\"); n += \$1 }
		     END { print \"# lost\", n }" >want &&
		test_cmp want got
	fi
'

test_expect_success 'stdin: the same as the file' '
	cat "$DATA/perf-both-g.data" | "$DUMP" - >stdin.out &&
	test_cmp perf-both-g.out stdin.out
'

test_expect_success 'stdin: the pipe form' '
	cat "$DATA/perf-slab-pipe.data" | "$DUMP" - >stdin-pipe.out &&
	test_cmp perf-slab-pipe.out stdin-pipe.out
'

# a u64 of the file header: 40 the data offset, 48 its size
header_u64 () {
	od -An -t u8 -j $2 -N 8 "$1" | tr -d " "
}

test_expect_success 'a truncated file: refused at its length, nothing passed on' '
	data=$(header_u64 "$DATA/perf-both-g.data" 40) &&
	size=$(header_u64 "$DATA/perf-both-g.data" 48) &&
	cut=$((data + size / 2)) &&
	head -c $cut "$DATA/perf-both-g.data" >cut.data &&
	test_must_fail "$DUMP" cut.data >out 2>err &&
	grep "is truncated at byte $cut: its data section ends at byte $((data + size))" err &&
	test ! -s out
'

test_expect_success 'a file cut in its feature sections is refused too' '
	size=$(wc -c <"$DATA/perf-both-g.data") &&
	head -c $((size - 100)) "$DATA/perf-both-g.data" >cut2.data &&
	test_must_fail "$DUMP" cut2.data >out 2>err &&
	grep "is truncated at byte $((size - 100))" err &&
	test ! -s out
'

test_expect_success 'a truncated pipe form: refused at the cut record' '
	size=$(wc -c <"$DATA/perf-slab-pipe.data") &&
	head -c $((size - 30)) "$DATA/perf-slab-pipe.data" >cut.pipe &&
	test_must_fail "$DUMP" cut.pipe >out 2>err &&
	grep "is truncated at byte $((size - 30)): the record at byte" err
'

test_expect_success 'a corrupt record size: refused with its offset' '
	data=$(header_u64 "$DATA/perf-both-g.data" 40) &&
	cp "$DATA/perf-both-g.data" bad.data &&
	chmod u+w bad.data &&
	printf "\004\000" |
		dd of=bad.data bs=1 seek=$((data + 6)) conv=notrunc 2>/dev/null &&
	test_must_fail "$DUMP" bad.data >out 2>err &&
	grep "is corrupt at byte $data: a record claims 4 bytes" err &&
	test ! -s out
'

# the n-th record of type t in the data section of perf.data f: its offset
record_at () {
	python3 - "$1" "$2" "$3" <<-\EOF
	import struct, sys
	d = open(sys.argv[1], "rb").read()
	off, size = struct.unpack_from("<QQ", d, 40)
	n = int(sys.argv[3])
	at = off
	while at < off + size:
	    t, misc, sz = struct.unpack_from("<IHH", d, at)
	    if t == int(sys.argv[2]):
	        n -= 1
	        if n == 0:
	            print(at)
	            break
	    at += sz
	EOF
}

test_expect_success 'compressed records (perf record -z): a record cut between two of them is read whole' '
	# as many samples as uncompressed perf.data would give: the
	# field-by-field tests above compare each with perf script; a
	# reader that dropped the cut record would miss one and fail them
	grep -qx "# events total 3269" perf-z.out &&
	test "$(grep -c -v "^#" perf-z.out)" = 3269 &&
	cat "$DATA/perf-z.data" | "$DUMP" - >z-stdin.out &&
	test_cmp perf-z.out z-stdin.out
'

test_expect_success 'compressed records: damaged data refused at the record, nothing passed on' '
	# the zstd frame magic, at the start of the first one'"'"'s data
	at=$(record_at "$DATA/perf-z.data" 81 1) &&
	test -n "$at" &&
	cp "$DATA/perf-z.data" badz.data && chmod u+w badz.data &&
	head -c 4 /dev/zero |
		dd of=badz.data bs=1 seek=$((at + 8)) conv=notrunc 2>/dev/null &&
	test_must_fail "$DUMP" badz.data >out 2>err &&
	grep -q "badz.data. is corrupt at byte $at: its compressed data does not uncompress (zstd: " err &&
	test ! -s out
'

test_expect_success 'compressed records of another method: said so' '
	python3 - "$DATA/perf-z.data" method.data <<-\EOF &&
	import struct, sys
	d = bytearray(open(sys.argv[1], "rb").read())
	off, size = struct.unpack_from("<QQ", d, 40)
	bits = int.from_bytes(d[72:104], "little")
	table = off + size
	i = bin(bits & ((1 << 27) - 1)).count("1")	# HEADER_COMPRESSED is bit 27
	assert bits >> 27 & 1
	sec, _ = struct.unpack_from("<QQ", d, table + 16 * i)
	struct.pack_into("<I", d, sec + 4, 7)		# type: not zstd (1)
	open(sys.argv[2], "wb").write(d)
	EOF
	test_must_fail "$DUMP" method.data 2>err &&
	grep -q "is compressed with method 7, which kmemtrace does not know" err
'

test_expect_success 'garbage after the magic: a clear error' '
	{ printf PERFILE2; yes garbage | head -c 300; } >garbage.data &&
	test_must_fail "$DUMP" garbage.data 2>err &&
	grep "garbage.data.*perf.data header of .* bytes" err
'

test_expect_success 'garbage: not taken for a perf.data file' '
	head -c 4096 /dev/zero >zero.data &&
	test_must_fail "$DUMP" zero.data 2>err &&
	grep "zero.data" err
'

test_expect_success 'the other byte order and the first format: said so' '
	{ printf 2ELIFREP; head -c 200 /dev/zero; } >swapped.data &&
	test_must_fail "$DUMP" swapped.data 2>err &&
	grep "other byte order" err &&
	{ printf PERFFILE; head -c 200 /dev/zero; } >v1.data &&
	test_must_fail "$DUMP" v1.data 2>err &&
	grep "first format" err
'

# simpleperf's perf.data (Android): made by tests/make-simpleperf.py from
# perf-lost.data's kmalloc format.  The file form without the tracing
# data feature: the formats are inside a TRACING_DATA record, first in the
# data section; kmem:kmalloc and cycles (PERF_TYPE_HARDWARE) share one
# sample_type, RAW included, the cycles samples' raw part empty (size 0,
# or 4 zero bytes as simpleperf writes them): only the ids tell them
# apart.  4 kmalloc samples, 3 cycles ones.  perf 6.1 refuses such files
# ("broken or missing trace data", "incompatible file format").
SPERF=$TESTS_DIR/make-simpleperf.py

test_expect_success 'simpleperf: the tracing data in a record of a file, cycles samples with RAW' '
	python3 "$SPERF" "$DATA/perf-lost.data" sperf.data &&
	python3 - sperf.data <<-\EOF &&
	import struct, sys
	d = open(sys.argv[1], "rb").read()
	hs, asz, aoff, asize, doff = struct.unpack_from("<QQQQQ", d, 8)
	assert hs == 104 and not d[72] >> 1 & 1	# no HEADER_TRACING_DATA
	t, _, size = struct.unpack_from("<IHH", d, doff)
	n, = struct.unpack_from("<I", d, doff + 8)
	assert t == 66 and 12 + n <= size, (t, n, size)	# the data inside
	assert d[doff + 12:doff + 22] == b"\x17\x08Dtracing"
	attrs = [struct.unpack_from("<I4xQ8xQ", d, aoff + i * asz)
		 for i in range(asize // asz)]
	assert [a[0] for a in attrs] == [2, 0], attrs	# tracepoint, cycles
	assert {a[2] for a in attrs} == {0x547}, attrs	# IP|TID|TIME|ID|PERIOD|RAW
	EOF
	"$KMEMTRACE" check sperf.data >check.out &&
	grep -x "status: ok" check.out &&
	grep -x "kmalloc: 4" check.out &&
	grep -x "other-events: 3" check.out &&
	grep -x "unknown-ids: 0" check.out &&
	grep -x "bad-records: 0" check.out &&
	grep -x "events: 4" check.out
'

test_expect_success 'simpleperf: report --slab has the bytes of its kmalloc samples' '
	python3 "$SPERF" "$DATA/perf-lost.data" sperf.data &&
	"$KMEMTRACE" report --slab --caller --raw-ip sperf.data >slab.txt &&
	awk -F "|" "/^ 0x/ { gsub(/ /, \"\"); print }" slab.txt >got &&
	cat >want <<-\EOF &&
	0xffffffff81300010|256/128|200/100|2|0|21.875%
	0xffffffff81400020|256/256|200/200|1|0|21.875%
	0xffffffff81500030|1024/1024|1000/1000|1|0|2.344%
	EOF
	test_cmp want got &&
	grep -x "Total bytes requested: 1400" slab.txt &&
	grep -x "Total bytes allocated: 1536" slab.txt &&
	grep -x "Allocations by kmalloc: 4" slab.txt &&
	grep -x "# other:  3 events of other subsystems skipped" slab.txt &&
	grep -x "# unreadable: 0 records" slab.txt
'

# numa-slab.data: perf record -e kmem:kmalloc -e kmem:kmem_cache_alloc
# --filter 'bytes_req >= 1024' -- sh -c 'taskset -c 0 sh -c "true; true;
# true"; taskset -c 1 sh -c "true; true"' on this one-node machine (its
# topology: node 0, CPUs 0-1).  286 allocations, 8 of them (perf's
# inherited events, perf_event_alloc) asking for node 0: 4 on each CPU.
# perf-numa-edit.py gives it the topologies a one-node machine cannot.
NUMA=$DATA/numa-slab.data

# "cpu node" of the events asking for a node, the map applied by awk
cross_of () {
	"$DUMP" "$NUMA" | awk -v MAP="$1" '
		BEGIN { n = split(MAP, m, " ")
			for (i = 1; i <= n; i++) { split(m[i], p, "="); node[p[1]] = p[2] } }
		!/^#/ { all++; if ($12 >= 0 && ($2 in node) && node[$2] != $12) x++ }
		END { print x + 0 "/" all }'
}

test_expect_success 'NUMA topology: the CPU-to-node map is the recording'"'"'s' '
	"$DUMP" -N "$NUMA" >map &&
	printf "0 0\n1 0\n" >want &&
	test_cmp want map &&
	python3 "$TESTS_DIR/perf-numa-edit.py" "$NUMA" two.data 0:0 1:1 &&
	"$DUMP" -N two.data >map &&
	printf "0 0\n1 1\n" >want &&
	test_cmp want map &&
	python3 "$TESTS_DIR/perf-numa-edit.py" "$NUMA" sparse.data \
		0:0-3,8,10-11 2:4-7,9 3: &&
	"$DUMP" -N sparse.data >map &&
	printf "%s\n" "0 0" "1 0" "2 0" "3 0" "4 2" "5 2" "6 2" "7 2" "8 0" \
		"9 2" "10 0" "11 0" >want &&
	test_cmp want map
'

test_expect_success 'NUMA topology: Cross CPU allocations counted against it, as perf kmem counts them' '
	"$KMEMTRACE" report --slab -i "$NUMA" >one.txt &&
	grep -x "Cross CPU allocations: 0/286 (NUMA node mismatches, as perf kmem counts them)" one.txt &&
	test "$(cross_of "0=0 1=0")" = 0/286 &&
	python3 "$TESTS_DIR/perf-numa-edit.py" "$NUMA" two.data 0:0 1:1 &&
	"$KMEMTRACE" report --slab -i two.data >two.txt &&
	grep -x "Cross CPU allocations: 4/286 (NUMA node mismatches, as perf kmem counts them)" two.txt &&
	test "$(cross_of "0=0 1=1")" = 4/286 &&
	"$KMEMTRACE" report --slab --json -i two.data >two.json &&
	python3 -c "
import json
s = json.load(open(\"two.json\"))[\"slab\"][\"summary\"]
assert s[\"cross_node_allocations\"] == {\"count\": 4, \"of\": 286}, s
" &&
	python3 "$TESTS_DIR/perf-numa-edit.py" "$NUMA" far.data 1:0 3:1 &&
	"$KMEMTRACE" report --slab -i far.data >far.txt &&
	grep -x "Cross CPU allocations: 8/286 (NUMA node mismatches, as perf kmem counts them)" far.txt &&
	test "$(cross_of "0=1 1=3")" = 8/286
'

test_expect_success 'no NUMA topology, or a damaged one: Cross CPU allocations not recorded' '
	python3 "$TESTS_DIR/perf-numa-edit.py" "$NUMA" none.data &&
	python3 "$TESTS_DIR/perf-numa-edit.py" "$NUMA" bad.data 0:0 1:1-x &&
	python3 "$TESTS_DIR/perf-numa-edit.py" "$NUMA" twice.data 0:0-1 1:1 &&
	for f in none bad twice; do
		"$DUMP" -N $f.data >map &&
		echo none >want &&
		test_cmp want map &&
		"$KMEMTRACE" report --slab -i $f.data >$f.txt &&
		grep -x "Cross CPU allocations: not recorded (the recording has no CPU-to-node map)" $f.txt &&
		"$KMEMTRACE" report --slab --json -i $f.data >$f.json &&
		python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))[\"slab\"][\"summary\"]
assert s[\"cross_node_allocations\"] is None, s
assert s[\"kmalloc\"] + s[\"kmem_cache_alloc\"] == 286, s
" $f.json &&
		"$KMEMTRACE" report --slab --format csv -i $f.data >$f.csv &&
		grep -x "slab.summary,0,cross_node_allocations.count," $f.csv &&
		grep -x "slab.summary,0,cross_node_allocations.of," $f.csv || return 1
	done
'

test_done
