#!/bin/sh
# The text forms beyond tracefs' default (tests/data/text, README.md there
# says how each was made): lines with a field missing that their event
# cannot be read without.  Each sample has its expected figures in
# tests/expected/text, and each figure is checked against the sample's
# own lines too.
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
	"$KMEMTRACE" report --sizes -i "$f" >sizes &&
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

test_done
