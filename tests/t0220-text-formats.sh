#!/bin/sh
# The text forms beyond tracefs' default (tests/data/text, README.md there
# says how each was made): kernels before 5.x with their padded "(null)"
# pointers, 32 and 64 bits; lines with a required field missing; tracefs
# with options/fields and with options/latency-format; trace-cmd report
# -l; function_graph output with events as comments; perf script call
# chains, with tabs and with blanks, against the perf.data they were
# printed from, and damaged or unusual chains.  Each sample has its expected
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

# the page table's rows: callsite, bytes, hits, sorted (in text with
# frames by name alone, ties between rows break on other addresses)
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

# perf-both-g.script.txt is perf script of perf-both-g.data: perf prints
# each kernel frame's address and name+offset, so the text's stacks are
# the perf.data's, address for address.  What text cannot have: times in
# microseconds (perf script's default), gfp flags as perf's names, and
# the header's kernel and CPUs.
PG_DATA=$DATA/perf-both-g.data
PG_TEXT=$TEXT/perf-both-g.script.txt

# a dump without what text cannot have: times to the microsecond, no gfp
dump_cmp () {
	"$DUMP" -s "$1" | awk "!/^#/ { \$1 = sprintf(\"%d\", (\$1 + 500) / 1000); \$9 = \"-\"; print }"
}

# a report without its input line and with every age or time masked
no_input () {
	grep -v "^# input:" | sed -E "s/[0-9][0-9.,]*(ns|us|ms|s)( |\$)/T\\2/g"
}

test_expect_success 'perf script -g: the events and stacks of the perf.data, field by field' '
	dump_cmp "$PG_DATA" >data &&
	dump_cmp "$PG_TEXT" >text &&
	test $(awk "\$14 != \"-\"" text | wc -l) = 185 &&
	test_cmp data text
'

test_expect_success 'perf script -g: --profile, folded, --leaks and --errors as from the perf.data' '
	for v in "--profile" "--profile --raw-ip" "--leaks" "--leaks --raw-ip" \
		 "--errors" "--profile --format folded" \
		 "--profile --format folded --weight inuse_space" \
		 "--profile --format folded --weight alloc_objects"; do
		"$KMEMTRACE" report $v "$PG_DATA" | no_input >data &&
		"$KMEMTRACE" report $v "$PG_TEXT" | no_input >text &&
		test $(wc -l <data) -gt 10 &&
		test_cmp data text || return 1
	done &&
	"$KMEMTRACE" report --format folded "$PG_DATA" >data &&
	"$KMEMTRACE" report --format folded "$PG_TEXT" >text &&
	test_cmp data text
'

# a pprof profile's fields but its duration and its comments' strings
pprof_fields () {
	gzip -dc "$1" | python3 -c "
import sys
b = sys.stdin.buffer.read()
def varint(i):
    x = s = 0
    while True:
        c = b[i]; i += 1; x |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return x, i
i, out, strings, comments = 0, [], [], set()
while i < len(b):
    k, i = varint(i)
    f, w = k >> 3, k & 7
    if w == 0:
        v, i = varint(i)
    else:
        n, i = varint(i); v = b[i:i + n].hex(); i += n
    if f == 6:
        strings.append(v)
    elif f == 13:
        comments.add(v)
    elif f != 10:
        out.append((f, v))
for f, v in out:
    print(f, v)
for n, v in enumerate(strings):
    print(6, v if n not in comments else \"comment\")
"
}

test_expect_success 'perf script -g: the pprof profile of the perf.data but its duration' '
	"$KMEMTRACE" report --format pprof -o data.pb.gz "$PG_DATA" &&
	"$KMEMTRACE" report --format pprof -o text.pb.gz "$PG_TEXT" &&
	pprof_fields data.pb.gz >data &&
	pprof_fields text.pb.gz >text &&
	test $(wc -l <data) -gt 100 &&
	test_cmp data text
'

# perf-both-g.script.txt without its call chains, as perf script -G prints it
test_expect_success 'perf script without call chains: no stacks, callsites alone' '
	grep -v "^	" "$PG_TEXT" | grep -v "^\$" >nochain.txt &&
	"$KMEMTRACE" check nochain.txt >check &&
	grep -q "^stacks: no$" check &&
	grep -q "^events: 185$" check &&
	"$KMEMTRACE" report --format folded nochain.txt >f &&
	! grep -q ";.*;" f &&
	grep -q "^slab;mas_preallocate [0-9]*$" f
'

test_expect_success 'perf script -g: a kernel frame perf could not name is its address' '
	sed "s/ffffffff8160d6b6 commit_merge+0x76/ffffffff8160d6b6 [unknown]/" \
		"$PG_TEXT" >unknown.txt &&
	! grep -q commit_merge unknown.txt &&
	"$KMEMTRACE" report --format folded "$PG_DATA" |
		sed "s/;commit_merge;/;0xffffffff8160d6b6;/" >expect &&
	grep -q ";0xffffffff8160d6b6;" expect &&
	"$KMEMTRACE" report --format folded unknown.txt >actual &&
	test_cmp expect actual
'

# the stacks of a dump, with the first event's time
stacks () {
	"$DUMP" "$1" | awk "!/^#/ { print \$1, \$14 }"
}

test_expect_success 'perf script -g: user frames, with or without dsos, are no part of the stack' '
	stacks "$PG_TEXT" >expect &&
	grep -q "	    7f70182f2ad7 \\[unknown\\] (\\[unknown\\])" "$PG_TEXT" &&
	sed "/^	/s/ ([^()]*)\$//" "$PG_TEXT" >nodso.txt &&
	! grep -q "kallsyms" nodso.txt &&
	stacks nodso.txt >actual &&
	test_cmp expect actual &&
	awk "{ print } /^	 *[0-9a-f]+ .*\\(\\/usr/ { print \"\\tffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])\" }" \
		"$PG_TEXT" >after-user.txt &&
	test $(wc -l <after-user.txt) -gt $(wc -l <"$PG_TEXT") &&
	stacks after-user.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'perf script --inline and -F +srcline: inlined frames and source lines add no frame' '
	stacks "$PG_TEXT" >expect &&
	awk "{ print } /mas_preallocate\\+0x3ef \\(\\[kernel/ { print \"\\tffffffff821ceedf mas_wr_store_type (inlined)\" }" \
		"$PG_TEXT" >inlined.txt &&
	grep -q "(inlined)" inlined.txt &&
	stacks inlined.txt >actual &&
	test_cmp expect actual &&
	awk "{ print } /^	.*\\(\\[kernel/ { print \"  mm/slub.c:4242\" }" "$PG_TEXT" >srcline.txt &&
	grep -q "^  mm/slub.c:4242\$" srcline.txt &&
	stacks srcline.txt >actual &&
	test_cmp expect actual &&
	"$DUMP" -c srcline.txt | grep -q "^# anomaly bad_record 0$"
'

test_expect_success 'perf script -g: a chain of 3000 frames is read whole' '
	{ head -n 1 "$PG_TEXT" | sed "s/call_site=[^ ]*/call_site=f1+0x10/" &&
	  awk "BEGIN { for (i = 0; i < 3000; i++)
		printf \"\\tffffffff%08x f%d+0x10 ([kernel.kallsyms])\\n\", 2164260864 + i * 4096, i }" &&
	  echo; } >long.txt &&
	"$DUMP" long.txt | awk "!/^#/ { print split(\$14, f, \",\") }" >actual &&
	echo 3000 >expect &&
	test_cmp expect actual &&
	"$KMEMTRACE" report --format folded long.txt >f &&
	grep -q "^slab;f2999;f2998;.*;f2;f1 256\$" f
'

test_expect_success 'perf script -g: a chain at the end of the input, with no blank line or newline after it' '
	stacks "$PG_TEXT" >expect &&
	head -c -1 "$PG_TEXT" >noblank.txt &&
	tail -n 1 noblank.txt | grep -q "libc.so.6)\$" &&
	stacks noblank.txt >actual &&
	test_cmp expect actual &&
	head -c -2 "$PG_TEXT" >nonl.txt &&
	stacks nonl.txt >actual &&
	test_cmp expect actual &&
	head -n 13 "$PG_TEXT" | head -c -1 >kernel-last.txt &&
	tail -n 1 kernel-last.txt | grep -q "entry_SYSCALL_64_after_hwframe+0x76 (\\[kernel.kallsyms\\])\$" &&
	stacks kernel-last.txt >actual &&
	head -n 1 expect >expect1 &&
	test_cmp expect1 actual
'

test_expect_success 'perf script -g: a damaged frame leaves its sample out, with its line, tabs or blanks' '
	sed "4s/ffffffff8160d6b6/ffffffff8160d6zz/" "$PG_TEXT" >damaged.txt &&
	grep -q "^	ffffffff8160d6zz commit_merge" damaged.txt &&
	expand damaged.txt >damaged-blanks.txt &&
	stacks "$PG_TEXT" | tail -n +2 >expect &&
	for f in damaged.txt damaged-blanks.txt; do
		"$DUMP" -c $f >out &&
		grep -q "^# anomaly bad_record 1$" out &&
		grep -q "^# events total 184$" out &&
		stacks $f >actual &&
		test_cmp expect actual &&
		{ "$KMEMTRACE" check $f >check; test $? = 1; } &&
		grep -q "^bad-records: 1$" check &&
		{ "$KMEMTRACE" report --slab $f >/dev/null 2>err; test $? = 3; } &&
		grep -q "$f.*the first at line 4: kmem_cache_alloc with an unreadable call chain frame" err ||
		return 1
	done
'

test_done
