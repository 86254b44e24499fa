#!/bin/sh
# The allocation profile: --profile, and the formats that profilers
# read, --format pprof (go tool pprof reads it: its totals are the
# report's, -diff_base works) and --format folded (its weights add up to
# the report's totals), on every kind of committed recording.
. "$(dirname "$0")/lib.sh"

RECS="perf-both-g.data capture.dat capture.trace.txt text/perf-both-g.script.txt"

# "alloc_objects alloc_space inuse_objects inuse_space" as report's other
# views count them: allocations from the slab and page summaries, what
# is live at the end from --leaks
expected () {
	"$KMEMTRACE" report --json --slab --page --leaks "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
objs = space = 0
if "slab" in d:
    s = d["slab"]["summary"]
    objs += s["kmalloc"] + s["kmem_cache_alloc"]
    space += s["bytes_allocated"]
if "page" in d:
    a = d["page"]["summary"]["allocations"]
    objs += a["requests"]
    space += a["bytes"]
l = d["leaks"]["summary"]
print(objs, space, l["slab_objects"] + l["page_blocks"],
      l["slab_bytes"] + l["page_bytes"])'
}

test_expect_success 'the profile adds up to the allocations and what is live' '
	for r in $RECS; do
		expected "$DATA/$r" >want &&
		"$KMEMTRACE" report --profile --json "$DATA/$r" | python3 -c "
import json, sys
s = json.load(sys.stdin)[\"profile\"]
rows = s[\"samples\"]
keys = (\"alloc_objects\", \"alloc_space\", \"inuse_objects\", \"inuse_space\")
tot = [sum(r[k] for r in rows) for k in keys]
assert tot == [s[\"summary\"][k] for k in keys], (tot, s[\"summary\"])
assert all(r[\"stack\"] for r in rows)
print(*tot)" >got &&
		cat want got &&
		test_cmp want got || exit 1
	done
'

test_expect_success 'folded: one line a stack, weights add up to --weight total' '
	for r in $RECS; do
		set -- $(expected "$DATA/$r") &&
		"$KMEMTRACE" report --format folded "$DATA/$r" >f &&
		test -s f &&
		! grep -v "^\(slab\|page\);[^ ]* [1-9][0-9]*$" f &&
		test "$(awk "{ s += \$NF } END { print s }" f)" = "$2" &&
		"$KMEMTRACE" report --format folded --weight inuse_objects \
			"$DATA/$r" >f &&
		test "$(awk "{ s += \$NF } END { print s }" f)" = "$3" || exit 1
	done
'

test_expect_success 'with --older-than, what is live is what leaked, as --leaks counts it' '
	for r in $RECS; do
		"$KMEMTRACE" report --json --leaks --older-than 3ms "$DATA/$r" |
			python3 -c "import json, sys; l = json.load(sys.stdin)[\"leaks\"][\"summary\"]; print(l[\"older_slab_objects\"] + l[\"older_page_blocks\"], l[\"older_slab_bytes\"] + l[\"older_page_bytes\"])" >want &&
		"$KMEMTRACE" report --profile --json --older-than 3ms "$DATA/$r" |
			python3 -c "import json, sys; s = json.load(sys.stdin)[\"profile\"][\"summary\"]; print(s[\"inuse_objects\"], s[\"inuse_space\"])" >got &&
		test_cmp want got || exit 1
	done
'

test_expect_success 'folded: stacks outermost first, ending at the callsite' '
	"$KMEMTRACE" report --format folded "$DATA/perf-both-g.data" >f &&
	grep -q "^page;asm_exc_page_fault;exc_page_fault;.*;do_anonymous_page [0-9]*$" f
'

if ! command -v go >/dev/null 2>&1; then
	test_skip 'go tool pprof reads the profiles' 'no go here (Debian: golang-go)'
	test_done
	exit 0
fi
# go keeps its caches and pprof its downloads under $HOME
HOME=$TRASH
export HOME

# "alloc_objects alloc_space inuse_objects inuse_space" summed by pprof
pprof_totals () {
	go tool pprof -raw "$1" | awk '
		/^Samples:/ { on = 1; next }
		/^Locations/ { on = 0 }
		on && /^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+:/ {
			a += $1; b += $2; c += $3; sub(/:.*/, "", $4); d += $4
		}
		END { print a + 0, b + 0, c + 0, d + 0 }'
}

test_expect_success 'pprof: go tool pprof reads it, totals equal the report' '
	for r in $RECS; do
		expected "$DATA/$r" >want &&
		"$KMEMTRACE" report --format pprof -o p.pb.gz "$DATA/$r" &&
		gzip -t p.pb.gz &&
		pprof_totals p.pb.gz >got &&
		test_cmp want got || exit 1
	done
'

test_expect_success 'pprof: sample types, the default, labels, comments' '
	"$KMEMTRACE" report --format pprof --weight inuse_space -o p.pb.gz \
		"$DATA/capture.dat" &&
	go tool pprof -raw p.pb.gz >raw &&
	grep "^alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes\[dflt\]" raw &&
	grep -q "kind:\[slab\]" raw && grep -q "kind:\[page\]" raw &&
	grep -q "cache:\[vm_area_struct\]" raw &&
	grep -q "comm:\[sh\]" raw && grep -q "pid:\[20427\]" raw &&
	grep -q "order:\[0\]" raw &&
	grep -q "gfp:\[GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP\]" raw &&
	grep -q "^Comment: kmemtrace report of .*capture.dat (trace.dat v7)" raw &&
	grep -q "^Comment: kernel 6.18.44-fc-v657, 2 CPUs" raw &&
	go tool pprof -top -sample_index=alloc_space p.pb.gz >top &&
	grep -q "copy_page_range" top
'

test_expect_success 'pprof: -diff_base of two recordings, and of one with itself' '
	"$KMEMTRACE" report --format pprof -o a.pb.gz "$DATA/capture.dat" &&
	"$KMEMTRACE" report --format pprof -o b.pb.gz "$DATA/capture.v6.dat" &&
	go tool pprof -top -sample_index=alloc_space -diff_base a.pb.gz b.pb.gz >diff &&
	grep -q "^Showing nodes accounting for" diff &&
	go tool pprof -top -sample_index=alloc_space -diff_base a.pb.gz a.pb.gz >same &&
	grep -q "^Showing nodes accounting for 0, 0% of" same
'

test_expect_success 'the same input makes the same profile, byte for byte' '
	"$KMEMTRACE" report --format pprof -o 1.pb.gz "$DATA/perf-both-g.data" &&
	"$KMEMTRACE" report --threads 1 --format pprof -o 2.pb.gz "$DATA/perf-both-g.data" &&
	cmp 1.pb.gz 2.pb.gz
'

test_expect_success 'mistakes: one line and 129' '
	"$KMEMTRACE" report --format pprof --leaks -o x "$DATA/capture.dat" 2>err
	test $? = 129 &&
	grep "^kmemtrace report: error: --format pprof draws the allocation profile alone, not --leaks" err &&
	"$KMEMTRACE" report --format folded -l 5 "$DATA/capture.dat" 2>err
	test $? = 129 &&
	grep "one cut short by -l would not add up" err &&
	"$KMEMTRACE" report --weight inuse_space "$DATA/capture.dat" 2>err
	test $? = 129 &&
	grep "weight goes with --profile" err &&
	"$KMEMTRACE" report --profile --weight bytes "$DATA/capture.dat" 2>err
	test $? = 129 &&
	grep "needs alloc_objects, alloc_space, inuse_objects or inuse_space" err &&
	test ! -e x
'

test_expect_success 'damaged input: the same error as the text report, no file' '
	head -c 3000 "$DATA/perf-both-g.data" >cut.data &&
	"$KMEMTRACE" report cut.data >/dev/null 2>text.err; t=$? &&
	"$KMEMTRACE" report --format pprof -o cut.pb.gz cut.data 2>pprof.err; p=$? &&
	test $t = $p && test $t = 1 &&
	test_cmp text.err pprof.err &&
	test ! -e cut.pb.gz
'

test_done
