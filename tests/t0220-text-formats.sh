#!/bin/sh
# The text forms beyond tracefs' default (tests/data/text, README.md there
# says how each was made): kernels before 5.x with their padded "(null)"
# pointers, 32 and 64 bits; lines with a required field missing; tracefs
# with options/fields and with options/latency-format; trace-cmd report
# -l; function_graph output with events as comments; perf script call
# chains, with tabs and with blanks.  Each sample has its expected
# figures in tests/expected/text, and each figure is checked against the
# sample's own lines too.
. "$(dirname "$0")/lib.sh"

DUMP=$HELPERS/kmt-dump-events
TEXT=$DATA/text

# the reader's counts and notes, then the report's summary figures
figures () {
	"$DUMP" -c "$1" &&
	"$KMEMTRACE" report --slab --page -i "$1" |
		grep -E "^(Total bytes requested|Total bytes allocated|Frees by kfree|Frees by kmem_cache_free|Frees of NULL|Failed allocations \(NULL\)|Total allocation requests|Total allocation failures)"
}

# the lines of kmem events in a sample, by the events' names
event_lines () {
	grep -cE "(: |/\\* )(kmalloc|kmalloc_node|kmem_cache_alloc|kmem_cache_alloc_node|kfree|kmem_cache_free|mm_page_alloc|mm_page_free|mm_page_free_direct|mm_page_free_batched|mm_pagevec_free|mm_page_alloc_zone_locked|mm_page_pcpu_drain|mm_page_alloc_extfrag): " "$1"
}

# lines matching $1 in $2, 0 too
count () {
	grep -cE "$1" "$2" || :
}

summary () {
	sed -n "s/^$1 *:* *\\([0-9]*\\).*/\\1/p"
}

test_expect_success 'a required field missing: the line is unreadable, its number noted' '
	f=$TEXT/ftrace-6.18-damaged.txt &&
	figures "$f" >actual &&
	test_cmp "$EXPECTED/text/ftrace-6.18-damaged.figures" actual &&
	grep "^# note" actual >notes &&
	cat >expect <<-\EOF &&
	# note bad_record line 14: kmem_cache_free without ptr=
	# note bad_record line 16: kmalloc without bytes_req=
	# note bad_record line 29: mm_page_alloc without order=
	# note bad_record line 69: mm_page_alloc without gfp_flags=
	EOF
	test_cmp expect notes &&
	echo "# events total $(($(event_lines "$f") - 4))" >expect &&
	grep "^# events total" actual >got && test_cmp expect got &&
	{ "$KMEMTRACE" report --sizes -i "$f" >sizes; test $? = 3; } &&
	grep -q "^ *9-16 " sizes &&
	! grep -qE "^ +0 +[0-9]" sizes
'

test_expect_success 'the stack after an unreadable line is not the event before it' '
	"$DUMP" "$TEXT/ftrace-6.18-damaged.txt" >dump &&
	grep -c "<stack trace>" "$TEXT/ftrace-6.18-damaged.txt" >n &&
	test "$(cat n)" = 2 &&
	awk "!/^#/ && \$14 != \"-\" { print \$1, \$4 }" dump >actual &&
	echo "1047779871000 mm_page_alloc" >expect &&
	test_cmp expect actual
'

for f in ftrace-3.5-x86_64 ftrace-2.6.32-i686; do
	test_expect_success "$f: padded (null) pointers are NULL frees and failed allocations" '
		figures "$TEXT/$f.txt" >actual &&
		test_cmp "$EXPECTED/text/$f.figures" actual &&
		grep -q "^# anomaly bad_record 0$" actual &&
		echo "# events total $(event_lines "$TEXT/$f.txt")" >expect &&
		grep "^# events total" actual >got && test_cmp expect got &&
		count "kfree: .*ptr= +\\(null\\)$" "$TEXT/$f.txt" >expect &&
		summary "Frees of NULL" <actual >got && test_cmp expect got &&
		test "$(cat got)" -gt 2 &&
		count "mm_page_alloc: page= +\\(null\\) pfn=0 " "$TEXT/$f.txt" >expect &&
		summary "Total allocation failures" <actual >got && test_cmp expect got &&
		count "(kmalloc|kmem_cache_alloc)(_node)?: .*ptr= +\\(null\\) " "$TEXT/$f.txt" >expect &&
		summary "Failed allocations (NULL)" <actual >got && test_cmp expect got &&
		"$KMEMTRACE" report --errors -i "$TEXT/$f.txt" >errors &&
		grep -q "^failed page allocation (pfn -1): 1$" errors
	'
done

test_expect_success 'options/fields: hex values with their decimals, (0) flags, pfns' '
	f=$TEXT/ftrace-6.18-fields.txt &&
	figures "$f" >actual &&
	test_cmp "$EXPECTED/text/ftrace-6.18-fields.figures" actual &&
	grep -q "^# anomaly bad_record 0$" actual &&
	echo "# events total $(event_lines "$f")" >expect &&
	grep "^# events total" actual >got && test_cmp expect got &&
	awk "/ (kmalloc|kmem_cache_alloc): / { for (i = 1; i <= NF; i++)
		if (\$i ~ /^bytes_req=/) { v = \$(i + 1); gsub(/[()]/, \"\", v); s += v } }
		END { print s }" "$f" >expect &&
	summary "Total bytes requested" <actual >got && test_cmp expect got &&
	"$DUMP" "$f" | awk "\$4 == \"mm_page_alloc\" { print \$6 }" >pfns &&
	grep -o "mm_page_alloc: pfn=0x[0-9a-f]*" "$f" | sed "s/.*pfn=//" >expect &&
	test_cmp expect pfns &&
	"$DUMP" "$f" | awk "\$4 == \"kmem_cache_alloc\" && \$13 == \"filp\"" | wc -l >n &&
	test "$(cat n)" -gt 0
'

test_expect_success 'trace-cmd report -l: the events trace-cmd report gives' '
	"$DUMP" "$TEXT/report-l.txt" >lat &&
	{ head -n 1 "$DATA/capture.report.txt" &&
	  sed -n 890,1000p "$DATA/capture.report.txt"; } >plain.txt &&
	"$DUMP" plain.txt >plain &&
	test_cmp plain lat &&
	grep -q "^# stacks 1$" lat &&
	figures "$TEXT/report-l.txt" >actual &&
	test_cmp "$EXPECTED/text/report-l.figures" actual
'

if command -v trace-cmd >/dev/null 2>&1; then
	test_expect_success 'trace-cmd report -l of capture.dat: the events capture.dat gives' '
		trace-cmd report -l -i "$DATA/capture.dat" >full-l.txt 2>/dev/null &&
		"$DUMP" -s full-l.txt >lat &&
		"$DUMP" -s "$DATA/capture.dat" >dat &&
		awk "!/^#/ { print int((\$1 + 500) / 1000), \$2, \$3, \$4, \$5, \$7, \$8 }" lat >a &&
		awk "!/^#/ { print int((\$1 + 500) / 1000), \$2, \$3, \$4, \$5, \$7, \$8 }" dat >b &&
		test $(wc -l <a) -gt 300 &&
		test_cmp b a
	'
else
	test_skip 'trace-cmd report -l of capture.dat' 'trace-cmd is not installed'
fi

test_expect_success 'options/latency-format: microsecond times, stacks' '
	f=$TEXT/ftrace-6.18-latency-format.txt &&
	figures "$f" >actual &&
	test_cmp "$EXPECTED/text/ftrace-6.18-latency-format.figures" actual &&
	echo "# events total $(event_lines "$f")" >expect &&
	grep "^# events total" actual >got && test_cmp expect got &&
	grep -q "^# stacks 1$" actual &&
	"$DUMP" "$f" | grep -v "^#" | head -n 1 | cut -d" " -f1-4 >got &&
	echo "2169065781000 1 24368 kmem_cache_free" >expect &&
	test_cmp expect got
'

for f in function-graph-4.19 function-graph-6.x-abstime-proc; do
	test_expect_success "$f: the events in function_graph comments" '
		figures "$TEXT/$f.txt" >actual &&
		test_cmp "$EXPECTED/text/$f.figures" actual &&
		grep -q "^# anomaly bad_record 0$" actual &&
		grep -c "/\\* [a-z_]*: " "$TEXT/$f.txt" >expect &&
		grep "^# events total" actual | sed "s/.* //" >got &&
		test_cmp expect got
	'
done

test_expect_success 'function_graph: tasks from the switch lines, times only with abstime' '
	"$DUMP" "$TEXT/function-graph-4.19.txt" >dump &&
	grep -q "^# format ftrace function_graph text without times$" dump &&
	awk "!/^#/ { print \$2, \$3 }" dump | sort -u >actual &&
	printf "0 2301\\n1 -1\\n1 1786\\n" >expect &&
	test_cmp expect actual &&
	awk "!/^#/ && \$14 != \"-\" { print \$4, split(\$14, f, \",\") }" dump >actual &&
	echo "mm_page_alloc 8" >expect &&
	test_cmp expect actual &&
	"$DUMP" "$TEXT/function-graph-6.x-abstime-proc.txt" >dump &&
	grep -q "^# format ftrace function_graph text$" dump &&
	grep -v "^#" dump | head -n 1 | cut -d" " -f1-3 >actual &&
	echo "5214300109000 0 40211" >expect &&
	test_cmp expect actual
'

# the page table's rows: callsite, bytes, hits (their order may differ
# where two rows tie: text has no addresses to break the tie with)
page_callsites () {
	"$KMEMTRACE" report --page --caller -i "$1" |
		awk -F"|" "NF > 5 && \$1 ~ /[0-9]/ { print \$6, \$1, \$2 }" | sort
}

test_expect_success 'perf script: the page callsites perf.data gives, tabs or blanks' '
	page_callsites "$DATA/perf-both-g.data" >data &&
	test $(wc -l <data) -gt 5 &&
	! grep -q "unknown" data &&
	page_callsites "$TEXT/perf-both-g.script.txt" >text &&
	test_cmp data text &&
	expand "$TEXT/perf-both-g.script.txt" >blanks.txt &&
	! grep -q "	" blanks.txt &&
	page_callsites blanks.txt >blanks &&
	test_cmp data blanks &&
	"$KMEMTRACE" check blanks.txt >check &&
	grep -q "^stacks: yes$" check &&
	"$DUMP" "$TEXT/perf-both-g.script.txt" >tabs.d &&
	"$DUMP" blanks.txt >blanks.d &&
	test_cmp tabs.d blanks.d &&
	figures "$TEXT/perf-both-g.script.txt" >actual &&
	test_cmp "$EXPECTED/text/perf-both-g.script.figures" actual
'

test_expect_success 'perf script: its own records and -F +period are no bad lines' '
	{ echo "swapper     0 [000]     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1209988) @ 0xffffffff81000000]: x [kernel.kallsyms]_text" &&
	  echo "process_api     0 [000]     0.000000: PERF_RECORD_COMM: process_api:1/1" &&
	  sed "s/\\(: *\\)\\(kmem:\\)/\\1          1  \\2/" "$TEXT/perf-both-g.script.txt"; } >side.txt &&
	grep -q "          1  kmem:kfree:" side.txt &&
	"$DUMP" side.txt >side.d &&
	"$DUMP" "$TEXT/perf-both-g.script.txt" >plain.d &&
	test_cmp plain.d side.d
'

test_done
