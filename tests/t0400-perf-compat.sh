#!/bin/sh
# kmemtrace report against perf kmem stat on the committed perf.data files:
# every summary figure perf prints must be the same, and the page callsite
# must be named where perf's rule leaves an address.
. "$(dirname "$0")/lib.sh"

# perf kmem's Total bytes freed adds, for every free of a pointer it has
# seen allocated, that pointer's last allocation, freed before or not
# (it never forgets one), and for a free of NULL the last allocation
# that returned NULL; kmemtrace's bytes_freed counts frees of live
# objects, and --alloc, which keeps every pointer, gives perf's figure
cat >refree.txt <<'EOF'
# tracer: nop
               a-10      [000] .....   100.000000: kmalloc: call_site=f+0x1/0x10 ptr=00000000a0a00001 bytes_req=60 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false
               a-10      [000] .....   100.000100: kfree: call_site=g+0x1/0x10 ptr=00000000a0a00001
               a-10      [000] .....   100.000200: kfree: call_site=g+0x1/0x10 ptr=00000000a0a00001
               a-10      [000] .....   100.000300: kmalloc: call_site=f+0x1/0x10 ptr=0000000000000000 bytes_req=30 bytes_alloc=32 gfp_flags=GFP_KERNEL node=-1 accounted=false
               a-10      [000] .....   100.000400: kfree: call_site=g+0x1/0x10 ptr=0000000000000000
               a-10      [000] .....   100.000500: kfree: call_site=g+0x1/0x10 ptr=00000000b0b00001
               a-10      [000] .....   100.000600: kmem_cache_alloc: call_site=h+0x1/0x10 ptr=00000000c0c00001 name=filp bytes_req=184 bytes_alloc=192 gfp_flags=GFP_KERNEL node=-1 accounted=false
               a-10      [000] .....   100.000700: kmem_cache_free: call_site=i+0x1/0x10 ptr=00000000c0c00001 name=filp
EOF

test_expect_success 'bytes freed as perf kmem counts them: frees of freed pointers again' '
	"$KMEMTRACE" report -i refree.txt --slab --alloc --json >alloc.json &&
	python3 -c "
import json
s = json.load(open(\"alloc.json\"))[\"slab\"][\"summary\"]
assert (s[\"bytes_freed\"], s[\"perf_bytes_freed\"]) == (256, 352), s
" &&
	"$KMEMTRACE" report -i refree.txt --slab >plain.txt &&
	grep -q "^Total bytes freed:     256$" plain.txt &&
	grep -q "^perf kmem.s Total bytes freed also counts frees of pointers freed before (--alloc gives it)$" plain.txt &&
	"$KMEMTRACE" report -i refree.txt --slab --alloc >alloc.txt &&
	grep -q "^Total bytes freed as perf kmem counts them: 352$" alloc.txt
'

if ! command -v perf >/dev/null 2>&1 || ! perf kmem -h 2>&1 | grep -q 'perf kmem'; then
	test_skip 'perf kmem stat figures equal' 'perf is not installed'
	test_done
	exit
fi

# pipe-mode files (perf record -o -): perf kmem stat reads none of their
# events ("No slab allocation events found"); kmemtrace's totals must
# equal what perf script sees in them
pipe_mode () {
	[ "$(od -An -j8 -N8 -tu8 "$1" | tr -d " ")" = 16 ]
}

for f in "$DATA"/perf-*.data; do
	name=$(basename "$f")
	if pipe_mode "$f"; then
		test_expect_success "$name: pipe mode, which perf kmem stat cannot read" '
			! perf kmem -i "$f" --slab stat >perf.txt 2>&1 &&
			"$KMEMTRACE" report --slab --json -i "$f" >kmt.json &&
			perf script -i "$f" -F event,trace 2>/dev/null | awk "
				/kmem:(kmalloc|kmem_cache_alloc):/ {
					for (i = 1; i <= NF; i++) {
						if (\$i ~ /^bytes_req=/) { sub(/.*=/, \"\", \$i); req += \$i }
						if (\$i ~ /^bytes_alloc=/) { sub(/.*=/, \"\", \$i); al += \$i }
					}
					n++
				}
				END { print n, req, al }" >want &&
			python3 -c "
import json
s = json.load(open(\"kmt.json\"))[\"slab\"][\"summary\"]
print(s[\"kmalloc\"] + s[\"kmem_cache_alloc\"], s[\"bytes_requested\"], s[\"bytes_allocated\"])
" >got &&
			cat want &&
			test_cmp want got
		'
		continue
	fi
	test_expect_success "$name: every perf kmem stat summary figure equal" '
		"$KMEMTRACE" report --slab --page --alloc -l 1 --json -i "$f" >kmt.json &&
		grep -q "\"perf_bytes_freed\"" kmt.json &&
		flags= &&
		grep -q "\"kmalloc\"\|\"kmem_cache_alloc\"\|\"kfree\"" kmt.json &&
			flags="$flags --slab"
		grep -q "\"mm_page_alloc\"\|\"mm_page_free\"" kmt.json &&
			flags="$flags --page"
		test -n "$flags" &&
		perf kmem -i "$f" $flags stat >perf.txt 2>perf.err &&
		python3 "$TESTS_DIR/compare-perf-kmem.py" perf.txt kmt.json
	'
done

test_expect_success 'the comparison fails when a figure differs' '
	f="$DATA/perf-both-g.data" &&
	"$KMEMTRACE" report --slab --page --alloc -l 1 --json -i "$f" >kmt.json &&
	perf kmem -i "$f" --slab --page stat >perf.txt 2>/dev/null &&
	sed "s/^Total bytes requested: \([0-9]*\)/Total bytes requested: 1\1/" \
		perf.txt >bad.txt &&
	test_must_fail python3 "$TESTS_DIR/compare-perf-kmem.py" bad.txt kmt.json
'

test_expect_success 'page callsites are named where perf kmem shows an address' '
	f="$DATA/perf-both-g.data" &&
	"$KMEMTRACE" report --page --caller --json -i "$f" >kmt.json &&
	python3 -c "
import json, sys
rows = json.load(open(\"kmt.json\"))[\"page\"][\"callsites\"]
assert rows, \"no page callsite rows\"
bad = [r[\"callsite\"] for r in rows
       if r[\"callsite\"].startswith(\"0x\") or \"alloc_pages\" in r[\"callsite\"]
       or \"folio_alloc\" in r[\"callsite\"] or \"traceiter\" in r[\"callsite\"]]
assert not bad, bad
print(len(rows), \"callsites, all named\")
"
'

test_done
