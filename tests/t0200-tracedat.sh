#!/bin/sh
# trace.dat reader: v7 (zstd) and v6 files from trace-cmd extract/convert
# of one real capture (scripts/make-capture.sh), checked against what
# trace-cmd report makes of them; lost events; stdin; cut and damaged
# copies.  record/boot.dat (kmemtrace record --slab --no-kallsyms
# --follow -- true) has kmemtrace's boot option: its boot id and start on
# the wall clock, and damaged copies of the option.
. "$(dirname "$0")/lib.sh"

DUMP=$HELPERS/kmt-dump-events

# per event name, the lines trace-cmd report prints ("name count")
report_counts () {
	awk '{
		for (i = 1; i < NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) {
				n = $(i + 1); sub(/:$/, "", n); c[n]++; break
			}
	} END { for (k in c) print k, c[k] }' | sort
}

# the same from a dump: "# events type n" lines with n > 0
dump_counts () {
	awk '$1 == "#" && $2 == "events" && $3 != "total" && $4 > 0 {
		print $3, $4 }' | sort
}

# the report of FILE: trace-cmd at test time when installed, else the
# committed one (made by the same trace-cmd from the same file)
report_of () {
	if command -v trace-cmd >/dev/null 2>&1; then
		trace-cmd report -i "$1" 2>/dev/null
	else
		cat "$DATA/capture.report.txt"
	fi
}

for f in capture.dat capture.v6.dat capture.v7.dat; do
	test_expect_success "$f: reads, per-type counts equal trace-cmd report's" '
		"$DUMP" "$DATA/'$f'" >dump &&
		dump_counts <dump >ours &&
		report_of "$DATA/'$f'" | report_counts | grep -v kernel_stack >theirs &&
		test -s theirs &&
		test_cmp theirs ours
	'

	test_expect_success "$f: format, kernel release, CPUs" '
		grep -q "^# kernel [0-9][0-9.]*[0-9]" dump &&
		grep -q "^# cpus 2$" dump &&
		case '$f' in
		*v6*) grep -q "^# format trace.dat v6$" dump ;;
		*) grep -q "^# format trace.dat v7$" dump ;;
		esac
	'

	test_expect_success "$f: timestamps never go back" '
		grep -v "^#" dump | awk "\$1 < prev { bad = 1 } { prev = \$1 } END { exit bad }"
	'

	test_expect_success "$f: every mm_page_alloc has its stack, one per kernel_stack" '
		grep -q "^# stacks 1$" dump &&
		awk "\$4 == \"mm_page_alloc\" && \$14 == \"-\"" dump >nostack &&
		! test -s nostack &&
		grep -v "^#" dump | awk "\$14 != \"-\"" | wc -l >ours &&
		report_of "$DATA/'$f'" | grep -c "kernel_stack:" >theirs &&
		test_cmp theirs ours
	'

	test_expect_success "$f: call sites and stacks resolve with its kallsyms" '
		"$DUMP" -s "$DATA/'$f'" >sym &&
		awk "\$4 == \"kmalloc\" { print \$5 }" sym >sites &&
		test -s sites && ! grep -q "^0x" sites
	'

	test_expect_success "$f: nothing lost, nothing odd" '
		grep -q "^# lost 0$" dump &&
		grep -q "^# anomaly out_of_order 0$" dump &&
		grep -q "^# anomaly unknown_id 0$" dump &&
		grep -q "^# anomaly bad_record 0$" dump
	'
done

test_expect_success 'v6, v7 and compressed v7 of one capture give the same events' '
	"$DUMP" "$DATA/capture.dat" | grep -v "^# format" >v7z &&
	"$DUMP" "$DATA/capture.v6.dat" | grep -v "^# format" >v6 &&
	"$DUMP" "$DATA/capture.v7.dat" | grep -v "^# format" >v7 &&
	test_cmp v7z v6 && test_cmp v7z v7
'

test_expect_success 'the events are those of the committed report, field by field' '
	"$DUMP" -s "$DATA/capture.dat" >dump &&
	awk "!/^#/ { print \$1, \$2, \$3, \$4, \$5, \$7, \$8 }" dump >ours &&
	awk "{
		for (i = 3; i < NF; i++) if (\$i ~ /^[0-9]+\\.[0-9]+:\$/) break
		if (i >= NF) next
		name = \$(i + 1); sub(/:\$/, \"\", name)
		if (name == \"kernel_stack\") next
		split(\$i, t, /[.:]/)
		pid = \$(i - 2); sub(/.*-/, \"\", pid)
		cpu = \$(i - 1); gsub(/[][]/, \"\", cpu)
		cs = \"0x0\"; req = 0; al = 0
		for (j = i + 2; j <= NF; j++) {
			if (\$j ~ /^call_site=/) { cs = substr(\$j, 11) }
			if (\$j ~ /^bytes_req=/) req = substr(\$j, 11)
			if (\$j ~ /^bytes_alloc=/) al = substr(\$j, 13)
		}
		print t[1] t[2], cpu + 0, pid, name, cs, req, al
	}" "$DATA/capture.report.txt" >theirs &&
	awk "{ \$1 = int((\$1 + 500) / 1000); print }" ours >ours.us &&
	test_cmp theirs ours.us
'

test_expect_success 'from stdin, through a pipe: the same events' '
	"$DUMP" "$DATA/capture.dat" >file &&
	cat "$DATA/capture.dat" | "$DUMP" - >pipe &&
	test_cmp file pipe &&
	"$DUMP" - <"$DATA/capture.v6.dat" >stdin &&
	"$DUMP" "$DATA/capture.v6.dat" >file6 &&
	test_cmp file6 stdin
'

test_expect_success 'lost events: missed-events pages and overrun stats counted' '
	"$DUMP" -c "$DATA/capture-lost.dat" >dump &&
	sed -n "s/.*CPU:[0-9]* \\[\\([0-9]*\\) EVENTS DROPPED\\]/\\1/p" \
		"$DATA/capture-lost.report.txt" | awk "{ n += \$1 } END { print \"# lost\", n }" >expect &&
	grep "^# lost " dump >actual &&
	test_cmp expect actual &&
	grep -q "^# lost_records [1-9]" dump &&
	! grep -q "^# lost 0$" dump
'

test_expect_success 'lost events: the events still read equal the report' '
	if command -v trace-cmd >/dev/null 2>&1; then
		"$DUMP" "$DATA/capture-lost.dat" | dump_counts >ours &&
		trace-cmd report -i "$DATA/capture-lost.dat" 2>/dev/null |
			report_counts | grep -v kernel_stack >theirs &&
		test_cmp theirs ours
	fi
'

EDIT=$TESTS_DIR/trace-dat-edit.py

# the peak resident set of a command, in KiB (its output to a file)
peak_kib () {
	out=$1
	shift
	python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    rc = subprocess.call(sys.argv[2:], stdout=out)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$out" "$@"
}

test_expect_success 'an OFFSET option: every time moved by it, as libtracecmd does' '
	python3 "$EDIT" offset "$DATA/capture.v6.dat" off.dat 1000000000 &&
	"$DUMP" "$DATA/capture.v6.dat" | grep -v "^#" >plain &&
	"$DUMP" off.dat | grep -v "^#" >moved &&
	test -s plain &&
	awk "{ \$1 = sprintf(\"%.0f\", \$1 + 1000000000); print }" plain >expect &&
	test_cmp expect moved
'

test_expect_success 'a 32-bit trace-cmd'"'"'s long size in the header: pages read as the kernel wrote them' '
	for f in capture.v6.dat capture.v7.dat capture.dat; do
		python3 "$EDIT" longsize "$DATA/$f" ls.$f 4 &&
		"$DUMP" "$DATA/$f" | grep -v "^# format" >expect &&
		"$DUMP" ls.$f | grep -v "^# format" >actual &&
		test_cmp expect actual || return 1
	done
'

test_expect_success 'CPU data that ends inside a page is refused, with its byte' '
	python3 "$EDIT" shrink "$DATA/capture.v6.dat" short.dat 2000 &&
	test_must_fail "$KMEMTRACE" report -i short.dat >out 2>err &&
	! test -s out &&
	test $(wc -l <err) = 1 &&
	grep -q "short.dat'"'"' is not a valid trace.dat: byte [0-9]* (the ring-buffer pages of CPU 0 of buffer '"'"'kmt-td'"'"') is damaged" err
'

test_expect_success 'a stack that cannot be kept fails the read, v6 and v7 alike' '
	for f in capture.dat capture.v6.dat; do
		test_must_fail "$DUMP" -n "$DATA/$f" >out 2>err &&
		grep -q "^error: out of memory$" err || return 1
	done
'

test_expect_success 'an event with no data is a bad record, not a crash' '
	python3 "$EDIT" emptyrec "$DATA/capture.v6.dat" empty.dat 0 &&
	"$DUMP" empty.dat >dump &&
	grep -q "^# anomaly bad_record 1$" dump
'

# 1000 copies of the capture's pages: 37 MB of them, 465,000 events
# (past any 16-bit count, and twice the 16 MiB bound on memory below)
test_expect_success 'pages repeated 1000 times: 1000 times the events, v6 and zstd v7 alike' '
	python3 "$EDIT" repeat "$DATA/capture.v6.dat" big.v6.dat 1000 &&
	"$DUMP" "$DATA/capture.v6.dat" | dump_counts >one &&
	awk "{ print \$1, \$2 * 1000 }" one >expect &&
	"$DUMP" big.v6.dat | dump_counts >v6 &&
	test_cmp expect v6 &&
	if command -v trace-cmd >/dev/null 2>&1; then
		trace-cmd convert -i big.v6.dat -o big.v7.dat --file-version 7 \
			--compression zstd >/dev/null 2>&1 &&
		"$DUMP" big.v7.dat | dump_counts >v7 &&
		test_cmp expect v7
	fi
'

# libtracecmd 3.1 kept all of it: 78 MB for either form of 2000 copies
case $BUILD in
*asan*)
	test_skip 'those pages read in memory of a few chunks, not of the data' \
		"the sanitizer build's allocator keeps what is freed: checked on the plain build"
	;;
*)
	test_expect_success 'those pages read in memory of a few chunks, not of the data' '
		small=$(peak_kib small.out "$KMEMTRACE" report -i "$DATA/capture.v6.dat") &&
		for f in big.v6.dat big.v7.dat; do
			test -f $f || continue
			peak=$(peak_kib $f.out "$KMEMTRACE" report -i $f) &&
			echo "$f: $peak KiB, the capture itself $small KiB" &&
			test $((peak - small)) -lt 16384 || return 1
		done
	'
	;;
esac

# cut copies: every cut must fail with one line naming the problem
SIZE6=$(wc -c <"$DATA/capture.v6.dat")
SIZE7=$(wc -c <"$DATA/capture.dat")

test_expect_success 'cut v6 copies fail with "is truncated at byte N", no crash' '
	for n in 12 20 100 600 2000 9000 20000 $((SIZE6 / 2)) $((SIZE6 - 4096)) $((SIZE6 - 1)); do
		head -c $n "$DATA/capture.v6.dat" >cut.dat &&
		test_must_fail "$DUMP" -c cut.dat >/dev/null 2>err &&
		test $(wc -l <err) = 1 &&
		grep -q "^error: .cut.dat. is truncated at byte $n" err || {
			echo "cut at $n:"; cat err; return 1; }
	done
'

test_expect_success 'cut v7 copies fail with one line, no crash' '
	for n in 12 20 40 100 1000 $((SIZE7 / 2)) $((SIZE7 - 400)); do
		head -c $n "$DATA/capture.dat" >cut.dat &&
		test_must_fail "$DUMP" -c cut.dat >/dev/null 2>err &&
		test $(wc -l <err) = 1 &&
		grep -q "^error: .cut.dat. is" err || {
			echo "cut at $n:"; cat err; return 1; }
	done
'

test_expect_success 'a cut that spares the data but ends early says truncated' '
	head -c $((SIZE6 - 1)) "$DATA/capture.v6.dat" >cut.dat &&
	test_must_fail "$DUMP" -c cut.dat 2>err &&
	grep "truncated at byte $((SIZE6 - 1)): the ring-buffer pages of CPU 1 of buffer .kmt-td. should end at byte $SIZE6" err
'

# flips one byte at offset $2 of file $1 into $3
flip () {
	cp "$1" "$3" &&
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d " ") &&
	printf "$(printf "\\\\%03o" $(( (b + 0x5a) % 256 )))" |
		dd of="$3" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# record/boot.dat with its boot option changed in place, same length:
# bad magic, no newline, garbage numbers
cat >bootopt.py <<'EOF'
import re, sys
d = bytearray(open(sys.argv[1], "rb").read())
at = d.find(b"kmemtrace boot\n")
assert at > 0
end = d.index(b"\0", at)
text = d[at:end].decode()
if sys.argv[2] == "show":
	print(text, end="")
	sys.exit(0)
if sys.argv[2] == "magic":
	text = text.replace("boot", "BOOT", 1)
elif sys.argv[2] == "newline":
	text = text[:15] + text[15:].replace("\n", " ")
elif sys.argv[2] == "numbers":
	text = re.sub(r"realtime_ns [0-9]{3}", "realtime_ns 1x3", text)
d[at:end] = text.encode()
open(sys.argv[3], "wb").write(d)
EOF

test_expect_success 'kmemtrace record'"'"'s boot option: the boot id and the start' '
	python3 bootopt.py "$DATA/record/boot.dat" show >opt &&
	grep -x "boot_id fe29cf62-bcd5-4bad-b3e4-9bebd41093f2" opt &&
	"$KMEMTRACE" report --format ndjson --caches "$DATA/record/boot.dat" >rows &&
	python3 - rows opt <<-\EOF &&
	import json, sys
	rows = [json.loads(l) for l in open(sys.argv[1])]
	opt = dict(l.split(" ", 1) for l in open(sys.argv[2]).read().splitlines()[1:])
	off = int(opt["realtime_ns"]) - int(opt["trace_ns"])
	assert rows
	for r in rows:
	    assert r["boot_id"] == opt["boot_id"]
	    assert r["start_unix_ns"] == r["first_ts_ns"] + off
	    assert r["start_time"] == "2026-11-28T05:13:14.288366Z", r["start_time"]
	EOF
	"$KMEMTRACE" report --caches "$DATA/record/boot.dat" >report.txt &&
	grep -x "# start:  2026-11-28 05:13:14.288366 UTC (boot fe29cf62-bcd5-4bad-b3e4-9bebd41093f2)" report.txt &&
	if command -v trace-cmd >/dev/null 2>&1; then
		trace-cmd report -i "$DATA/record/boot.dat" >tc.out 2>tc.err &&
		! test -s tc.err &&
		test $(grep -c "kmem_cache_free:" tc.out) = 247
	fi
'

test_expect_success 'a damaged boot option: left out, the events read all the same' '
	"$DUMP" "$DATA/record/boot.dat" >want &&
	for how in magic newline numbers; do
		python3 bootopt.py "$DATA/record/boot.dat" $how $how.dat &&
		"$DUMP" $how.dat >got &&
		test_cmp want got &&
		"$KMEMTRACE" report --format ndjson --caches $how.dat >rows.$how &&
		"$KMEMTRACE" report --caches $how.dat >report.$how || exit 1
	done &&
	! grep -v "\"boot_id\":null,\"start_time\":null,\"start_unix_ns\":null," rows.magic &&
	! grep -v "\"boot_id\":null,\"start_time\":null,\"start_unix_ns\":null," rows.newline &&
	! grep -E "^# (start|boot):" report.magic report.newline &&
	! grep -v "\"boot_id\":\"fe29cf62-bcd5-4bad-b3e4-9bebd41093f2\",\"start_time\":null,\"start_unix_ns\":null," rows.numbers &&
	grep -x "# boot:   fe29cf62-bcd5-4bad-b3e4-9bebd41093f2" report.numbers
'

test_expect_success 'a damaged version or magic is named' '
	flip "$DATA/capture.v6.dat" 10 bad.dat &&
	test_must_fail "$DUMP" -c bad.dat 2>err &&
	test $(wc -l <err) = 1 && grep -q "not a valid trace.dat\|version" err &&
	flip "$DATA/capture.v6.dat" 0 bad.dat &&
	test_must_fail "$DUMP" -c bad.dat 2>err &&
	grep -q "is not a perf.data, trace.dat or ftrace text recording" err
'

# Damaged copies: the reader checks the layout, the CPU tables, the
# compressed chunks and every ring-buffer page before libtracecmd and
# libtraceevent see them, so a flipped byte there gives an error or a
# read with anomalies, never a crash.  (Damage inside the event format
# text can still crash libtraceevent 1.7's format parser, which no
# reader can check without parsing it; those bytes are not flipped.)
# A sample of offsets here; scripts/make-capture.sh's files were also
# flipped at every byte once.  Under ASan a huge malloc returns NULL as
# it does outside it.
damage () {
	# $1: file, $2: first offset, $3: step, $4: end (default: its size)
	off=$2
	end=${4:-$(wc -c <"$1")}
	while [ $off -lt $end ]; do
		flip "$1" $off bad.dat &&
		ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
			"$DUMP" -c bad.dat >out 2>err
		rc=$?
		if [ $rc -ge 128 ]; then
			echo "$1 byte $off: crashed ($rc)"; return 1
		fi
		# ASan warns ("==N==WARNING") of the huge mallocs it refuses
		if [ $rc -ne 0 ] && [ $(grep -vc "^==" err) != 1 ]; then
			echo "$1 byte $off:"; cat err; return 1
		fi
		off=$((off + $3))
	done
}

test_expect_success 'damaged file headers never crash' '
	for f in capture.v6.dat capture.dat; do
		damage "$DATA/$f" 0 1 48 || return 1
	done
'

test_expect_success 'damaged v6 pages and CPU tables never crash' '
	start=$(grep -abo flyrecord "$DATA/capture.v6.dat" | head -n 1 | cut -d: -f1) &&
	test -n "$start" &&
	damage "$DATA/capture.v6.dat" $start 331
'

test_expect_success 'damaged v7 chunks, pages, options and buffer sections never crash' '
	for f in capture.dat capture.v7.dat capture-lost.dat; do
		# the pages start at the first page boundary past the middle
		size=$(wc -c <"$DATA/$f")
		damage "$DATA/$f" $(((size / 2 + 4095) / 4096 * 4096)) 127 || return 1
	done
'

# An event format libtraceevent would crash on costs that event, never
# the file (issue 30: real 4.x files were refused whole for one ftrace
# format); one a report needs (kmem) refuses the file, named.
test_expect_success 'an unusable ftrace format is left out, the file read' '
	python3 "$EDIT" breakfmt "$DATA/capture.v6.dat" print.dat print &&
	"$KMEMTRACE" check print.dat >check.out &&
	grep -x "unusable-format: ftrace/print: its print format is not a C expression list (0 records)" check.out &&
	grep -x "status: ok" check.out &&
	"$KMEMTRACE" report print.dat --slab --page >report.out &&
	grep -x "# formats: 1 event format not usable, its events left out: ftrace/print (its print format is not a C expression list; 0 records)" report.out &&
	"$KMEMTRACE" report "$DATA/capture.v6.dat" --slab --page >orig.out &&
	grep -v "^# \(input\|formats\)" report.out >a &&
	grep -v "^# input" orig.out >b &&
	test_cmp b a &&
	"$KMEMTRACE" check --json print.dat >check.json &&
	python3 -c "import json,sys; d=json.load(open(\"check.json\")); assert d[\"unusable_formats\"] == [{\"event\": \"ftrace/print\", \"why\": \"its print format is not a C expression list\", \"records\": 0}], d"
'

test_expect_success 'the records of an unusable format are counted as its own' '
	python3 "$EDIT" breakfmt "$DATA/capture.v6.dat" ks.dat kernel_stack &&
	"$KMEMTRACE" check ks.dat >check.out &&
	grep -x "unusable-format: ftrace/kernel_stack: its print format is not a C expression list (50 records)" check.out &&
	grep -x "stacks: no" check.out &&
	"$KMEMTRACE" check "$DATA/capture.v6.dat" >orig.out &&
	grep -x "stacks: yes" orig.out &&
	grep "^kmalloc:\|^kfree:\|^mm_page" orig.out >b &&
	grep "^kmalloc:\|^kfree:\|^mm_page" check.out >a &&
	test_cmp b a
'

test_expect_success 'an unusable kmem format refuses the file, naming the event' '
	python3 "$EDIT" breakfmt "$DATA/capture.v6.dat" km.dat kmalloc &&
	test_must_fail "$KMEMTRACE" check km.dat 2>err &&
	grep -F "cannot be read: the format of its event kmem/kmalloc cannot be parsed safely (its print format is not a C expression list), and the report needs it" err &&
	test $(wc -l <err) = 1
'

test_expect_success 'an unusable format in a compressed v7 section is left out too' '
	if ! command -v trace-cmd >/dev/null 2>&1; then
		echo "# no trace-cmd: not checked"; return 0
	fi
	python3 "$EDIT" breakfmt "$DATA/capture.v6.dat" print.dat print &&
	trace-cmd convert --file-version 7 --compression zstd -i print.dat \
		-o print7.dat >/dev/null &&
	! grep -q "REC=>" print7.dat &&
	"$KMEMTRACE" check print7.dat >check.out &&
	grep -x "unusable-format: ftrace/print: its print format is not a C expression list (0 records)" check.out &&
	grep -x "status: ok" check.out &&
	grep -x "events: 465" check.out &&
	python3 "$EDIT" breakfmt "$DATA/capture.v6.dat" km.dat kmalloc &&
	trace-cmd convert --file-version 7 --compression zstd -i km.dat \
		-o km7.dat >/dev/null &&
	test_must_fail "$KMEMTRACE" check km7.dat 2>err &&
	grep -F "the format of its event kmem/kmalloc cannot be parsed safely" err
'

# zlib (what trace-cmd 3.x writes where it has no libzstd) through the
# codec kmemtrace registers with libtracecmd, Debian's having none, and an
# uncompressed v7: copies of capture.dat (zstd) made by
# tracedat-recompress.py, each block recompressed or left bare.  The
# figures are the original's; a damaged zlib block refuses the file.
RECOMPRESS=$TESTS_DIR/tracedat-recompress.py

# check and report of FILE, less the lines that name it, into FILE.check
# and FILE.report
figures_of () {
	"$KMEMTRACE" check "$1" >"$1.c" &&
	"$KMEMTRACE" report --slab --page "$1" >"$1.r" &&
	grep -v "^file: " "$1.c" >"$1.check" &&
	grep -v "^# input: " "$1.r" >"$1.report" &&
	test $(wc -l <"$1.check") -lt $(wc -l <"$1.c") &&
	test $(wc -l <"$1.report") -lt $(wc -l <"$1.r")
}

for mode in zlib none; do
	test_expect_success "capture.dat recompressed $mode: the figures of the original" '
		python3 "$RECOMPRESS" --mode '$mode' "$DATA/capture.dat" '$mode'.dat &&
		head -c 40 '$mode'.dat | tr "\\000" "\\n" | grep -A1 -x '$mode' >codec &&
		case '$mode' in
		zlib) sed -n 2p codec | grep -qx "1\\.[0-9.]*" ;;
		none) sed -n 2p codec | grep -qx "" ;;
		esac &&
		cp "$DATA/capture.dat" orig.dat &&
		figures_of orig.dat &&
		figures_of '$mode'.dat &&
		grep -qx "status: ok" '$mode'.dat.check &&
		grep -qx "events: 465" '$mode'.dat.check &&
		test_cmp orig.dat.check '$mode'.dat.check &&
		test_cmp orig.dat.report '$mode'.dat.report &&
		"$DUMP" -s orig.dat >orig.dump &&
		"$DUMP" -s '$mode'.dat >'$mode'.dump &&
		test_cmp orig.dump '$mode'.dump
	'
done

# Every zlib block the read needs, damaged in turn (4 bytes in its middle,
# so that its stream or its checksum fails): one line naming the file.
# The STRINGS section (its last block) is left alone: libtracecmd only
# names sections with it and reads on without it, as with zstd.
test_expect_success 'a damaged zlib block refuses the file in one line, no crash' '
	python3 "$RECOMPRESS" --mode zlib "$DATA/capture.dat" z.dat &&
	python3 "$RECOMPRESS" --blocks z.dat >blocks &&
	grep -v " section id 15$" blocks >needed &&
	test $(wc -l <needed) = 8 &&
	grep -q " buffer .kmt-td. cpu 1 chunk 0$" needed &&
	while read at zsize usize what; do
		python3 -c "
import sys
d = bytearray(open(sys.argv[1], \"rb\").read())
at = int(sys.argv[3])
d[at:at + 4] = bytes(b ^ 0x5a for b in d[at:at + 4])
open(sys.argv[2], \"wb\").write(d)" z.dat zbad.dat $((at + zsize / 2 - 2)) &&
		for cmd in check report; do
			test_must_fail "$KMEMTRACE" $cmd zbad.dat >out 2>err &&
			! test -s out &&
			test $(wc -l <err) = 1 &&
			grep -q "^kmemtrace $cmd: error: .zbad.dat. is not a valid trace.dat: .*damaged" err ||
			{ echo "$what, at byte $at:"; cat err; return 1; }
		done
	done <needed
'

test_done
