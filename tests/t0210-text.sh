#!/bin/sh
# ftrace text reader: the tracefs `trace` file and `trace-cmd report`
# output of the capture in capture.dat give what capture.dat gives; the
# irq-info-off, tgid, trace_pipe and perf script forms; lost-event
# lines; bad lines; garbage.
. "$(dirname "$0")/lib.sh"

DUMP=$HELPERS/kmt-dump-events

# a dump reduced to what every form of a capture knows alike: time in
# microseconds (rounded, as ftrace and trace-cmd print them; $1 = 0 cuts),
# cpu, pid, type, call site symbol, the pfn of page events (slab pointers
# are hashed in tracefs text), sizes, order, migratetype, node, cache,
# and whether a stack came with the event
norm () {
	awk -v round="$1" '!/^#/ {
		us = round ? int(($1 + 500) / 1000) : int($1 / 1000)
		ptr = $4 ~ /^mm_/ ? $6 : "-"
		print us, $2, $3, $4, $5, ptr, $7, $8, $10, $11, $12, $13, ($14 != "-")
	}'
}

counts () {
	awk '$1 == "#" && $2 == "events" { print $3, $4 }'
}

test_expect_success 'trace text: same events as capture.dat, field by field' '
	"$DUMP" -s "$DATA/capture.dat" >dat &&
	"$DUMP" -s "$DATA/capture.trace.txt" >txt &&
	norm 1 <dat >dat.n && norm 1 <txt >txt.n &&
	test $(wc -l <dat.n) -gt 300 &&
	test_cmp dat.n txt.n &&
	grep -q "^# format ftrace text$" txt &&
	grep -q "^# cpus 2$" txt
'

test_expect_success 'report text: same events as capture.dat, field by field' '
	"$DUMP" -s "$DATA/capture.report.txt" >rep &&
	norm 1 <dat >dat.r && norm 1 <rep >rep.n &&
	test_cmp dat.r rep.n &&
	grep -q "^# format trace-cmd report text$" rep
'

test_expect_success 'all three: per-type counts, byte sums, distinct pointers' '
	for f in dat txt rep; do
		counts <$f >$f.c &&
		awk "!/^#/ { req += \$7; al += \$8 } END { print req, al }" $f >$f.sum &&
		awk "!/^#/ && \$4 !~ /^mm_/ { print \$6 }" $f | sort -u | wc -l >$f.ptrs &&
		awk "!/^#/ && \$4 ~ /^mm_/ { print \$6 }" $f | sort -u | wc -l >$f.pfns || return 1
	done &&
	test_cmp dat.c txt.c && test_cmp dat.c rep.c &&
	test_cmp dat.sum txt.sum && test_cmp dat.sum rep.sum &&
	test_cmp dat.ptrs txt.ptrs && test_cmp dat.ptrs rep.ptrs &&
	test_cmp dat.pfns txt.pfns && test_cmp dat.pfns rep.pfns &&
	test $(cat dat.ptrs) -gt 100
'

test_expect_success 'text stacks: the frames of the trace.dat stacks, by name' '
	"$DUMP" "$DATA/capture.trace.txt" >txt.raw &&
	grep -q "^# stacks 1$" txt.raw &&
	awk "\$4 == \"mm_page_alloc\" && \$14 == \"-\"" txt.raw >nostack &&
	! test -s nostack &&
	grep -c "<stack trace>" "$DATA/capture.trace.txt" >expect &&
	awk "!/^#/ && \$14 != \"-\"" txt.raw | wc -l >actual &&
	test_cmp expect actual &&
	awk "!/^#/ && \$14 != \"-\" { n = split(\$14, f, \",\"); print n }" txt.raw >depth.txt &&
	"$DUMP" "$DATA/capture.dat" |
		awk "!/^#/ && \$14 != \"-\" { n = split(\$14, f, \",\"); print n }" >depth.dat &&
	test_cmp depth.dat depth.txt
'

test_expect_success 'timestamps never go back' '
	for f in txt rep; do
		grep -v "^#" $f | awk "\$1 < p { bad = 1 } { p = \$1 } END { exit bad }" || return 1
	done
'

test_expect_success 'irq-info off and tgid columns: the same first events' '
	"$DUMP" "$DATA/capture.noirq.txt" >noirq &&
	"$DUMP" "$DATA/capture.tgid.txt" >tgid &&
	grep -v "^#" noirq | cut -d" " -f1-13 >noirq.ev &&
	grep -v "^#" tgid | cut -d" " -f1-13 >tgid.ev &&
	n=$(wc -l <noirq.ev) && test "$n" -gt 50 &&
	"$DUMP" "$DATA/capture.trace.txt" | grep -v "^#" | head -n $n |
		cut -d" " -f1-13 >full.ev &&
	test_cmp full.ev noirq.ev &&
	test_cmp full.ev tgid.ev &&
	grep -q "^# anomaly bad_record 0$" noirq &&
	grep -q "^# anomaly bad_record 0$" tgid
'

test_expect_success 'trace_pipe with lost events: LOST lines counted' '
	"$DUMP" -c "$DATA/capture-lost.pipe.txt" >out &&
	sed -n "s/^CPU:[0-9]* \\[LOST \\([0-9]*\\) EVENTS\\]\$/\\1/p" \
		"$DATA/capture-lost.pipe.txt" >lost &&
	test -s lost &&
	awk "{ n += \$1 } END { print \"# lost\", n }" lost >expect &&
	echo "# lost_records $(wc -l <lost)" >>expect &&
	grep "^# lost" out >actual &&
	test_cmp expect actual
'

test_expect_success 'report with dropped events: DROPPED lines counted' '
	"$DUMP" -c "$DATA/capture-lost.report.txt" >out &&
	"$DUMP" -c "$DATA/capture-lost.dat" | grep "^# lost " >expect &&
	grep "^# lost " out >actual &&
	test_cmp expect actual &&
	grep -q "^# lost_records 1$" out
'

test_expect_success 'hand-written lost lines, every form' '
	cat >lost.txt <<-\EOF &&
	# tracer: nop
	CPU:1 [LOST 120 EVENTS]
	              sh-1   [001] .....   10.000001: kfree: call_site=a+0x1/0x2 ptr=0000000000001000
	CPU:0 [LOST EVENTS]
	kmt-td: CPU:0 [7 EVENTS DROPPED]
	CPU:1 [EVENTS DROPPED]
	EOF
	"$DUMP" -c lost.txt >out &&
	grep -q "^# lost 127$" out &&
	grep -q "^# lost_records 4$" out &&
	grep -q "^# events kfree 1$" out
'

test_expect_success 'perf script text: counts, stacks, format' '
	"$DUMP" "$DATA/capture.perf.txt" >perf &&
	grep -q "^# format perf script text$" perf &&
	grep -o "kmem:[a-z_]*:" "$DATA/capture.perf.txt" | sed "s/kmem:\\(.*\\):/\\1/" |
		sort | uniq -c | awk "{ print \$2, \$1 }" >expect &&
	counts <perf | awk "\$2 > 0 && \$1 != \"total\"" | sort >actual &&
	test_cmp expect actual &&
	grep -q "^# stacks 1$" perf &&
	awk "!/^#/ && \$14 == \"-\"" perf >nostack &&
	! test -s nostack
'

test_expect_success 'perf stacks keep the kernel frames only' '
	"$DUMP" -c "$DATA/capture.perf.txt" >/dev/null &&
	awk "/^\\t/ && /kernel.kallsyms/" "$DATA/capture.perf.txt" | head -n 1 >first &&
	test -s first &&
	"$DUMP" "$DATA/capture.perf.txt" | grep -v "^#" | head -n 1 >ev &&
	n=$(awk "{ print split(\$14, f, \",\") }" ev) &&
	k=$(awk "/^[^\\t]/ { if (seen++) exit } /^\\t/ && /\\(\\[kernel/ { n++ } END { print n }" \
		"$DATA/capture.perf.txt") &&
	test "$n" = "$k"
'

test_expect_success 'from stdin and a pipe, the same' '
	"$DUMP" "$DATA/capture.trace.txt" >file &&
	cat "$DATA/capture.trace.txt" | "$DUMP" - >pipe &&
	test_cmp file pipe
'

test_expect_success 'bad lines are counted, not fatal' '
	awk "
		/kmalloc:/ && !a { sub(/ptr=[0-9a-f]*/, \"ptr=zz\"); a = 1 }
		/kmem_cache_alloc:/ && !b { sub(/bytes_req=[0-9]*/, \"bytes_req=12x\"); b = 1 }
		/mm_page_alloc:/ && !c { sub(/pfn=0x[0-9a-f]*/, \"pfn=0xq\"); c = 1 }
		/kfree:/ && !d { sub(/[0-9]+\\.[0-9]+:/, \"1x.2:\"); d = 1 }
		{ print }
	" "$DATA/capture.trace.txt" >bad.txt &&
	"$DUMP" -c bad.txt >out &&
	grep -q "^# anomaly bad_record 4$" out &&
	"$DUMP" -c "$DATA/capture.trace.txt" | grep "^# events total" |
		awk "{ print \$1, \$2, \$3, \$4 - 4 }" >expect &&
	grep "^# events total" out >actual &&
	test_cmp expect actual
'

test_expect_success 'text that is no trace: one-line error' '
	printf "hello\\nworld\\n" >hello.txt &&
	test_must_fail "$DUMP" -c hello.txt 2>err &&
	test $(wc -l <err) = 1 &&
	grep -q "is not a perf.data, trace.dat or ftrace text recording" err
'

test_expect_success 'a tracer header over no event lines: named' '
	printf "# tracer: nop\\nsome words\\nmore words\\n" >words.txt &&
	test_must_fail "$DUMP" -c words.txt 2>err &&
	test $(wc -l <err) = 1 &&
	grep -q "has no ftrace event lines (first line: # tracer: nop)" err
'

test_expect_success 'an empty trace (headers only) reads as no events' '
	printf "# tracer: nop\\n#\\n# entries-in-buffer/entries-written: 0/0   #P:4\\n" >empty.txt &&
	"$DUMP" -c empty.txt >out &&
	grep -q "^# events total 0$" out &&
	grep -q "^# cpus 4$" out
'

test_expect_success 'binary data after a good start: error with the line' '
	head -n 100 "$DATA/capture.trace.txt" >bin.txt &&
	test $(wc -c <bin.txt) -gt 4096 &&
	printf "garbage\\000\\001\\002\\n" >>bin.txt &&
	tail -n 5 "$DATA/capture.trace.txt" >>bin.txt &&
	test_must_fail "$DUMP" -c bin.txt 2>err &&
	test $(wc -l <err) = 1 &&
	grep -q "has binary data at line 101" err
'

test_expect_success 'a line longer than any event is skipped and counted' '
	head -n 20 "$DATA/capture.trace.txt" >long.txt &&
	awk "BEGIN { for (i = 0; i < 1100000; i++) printf \"x\"; print \"\" }" >>long.txt &&
	tail -n +21 "$DATA/capture.trace.txt" >>long.txt &&
	"$DUMP" -c long.txt >out &&
	grep -q "^# anomaly bad_record 1$" out &&
	"$DUMP" -c "$DATA/capture.trace.txt" | grep "^# events total" >expect &&
	grep "^# events total" out >actual &&
	test_cmp expect actual
'

test_expect_success 'a stack that cannot be kept fails the read: ftrace and perf script text' '
	for f in capture.trace.txt capture.perf.txt; do
		test_must_fail "$DUMP" -n "$DATA/$f" >out 2>err &&
		grep -q "^error: out of memory$" err || return 1
	done
'

# ftrace events that print no "name:" (issue 30: a tracefs capture of
# syscall events with stacks was "damaged", 42 bad records of 63): the
# syscall events' "sys_clone(...)" and "sys_clone -> 0x..", the function
# tracer's "func <-parent"; a kmem event's name without its colon is
# still a damaged line
test_expect_success 'events that print no name: are other events, not bad lines' '
	cat >sys.txt <<-\EOF &&
	# tracer: nop
	#
	#           TASK-PID     CPU#  ||||   TIMESTAMP  FUNCTION
	#              | |         |   ||||      |         |
	            bash-84700   [000] .... 24913.120041: sys_clone(clone_flags: 1200011, newsp: 0, parent_tidptr: 0, child_tidptr: 7fe6196caa10, tls: 0)
	            bash-84700   [000] .... 24913.120051: <stack trace>
	 => syscall_enter_from_user_mode
	 => do_syscall_64
	            bash-84700   [000] .... 24913.120080: kmalloc: call_site=ffffffff8110a1b2 ptr=ffff888100000000 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL
	            bash-84700   [000] .... 24913.120152: sys_clone -> 0x16841
	            bash-84700   [000] .... 24913.120160: do_sys_open <-do_syscall_64
	EOF
	"$KMEMTRACE" check sys.txt >out &&
	grep -x "other-events: 3" out &&
	grep -x "bad-records: 0" out &&
	grep -x "kmalloc: 1" out &&
	grep -x "status: ok" out &&
	sed "s/kmalloc: call_site/kmalloc call_site/" sys.txt >bad.txt &&
	test_must_fail "$KMEMTRACE" check bad.txt >out &&
	grep -x "bad-records: 1" out &&
	grep -x "other-events: 3" out
'

test_done
