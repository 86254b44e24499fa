#!/bin/sh
# The percpu and vmalloc events in text (scripts/make-percpu-capture.sh
# made the samples here, around tests/helpers/plant-maps.sh: 6 percpu
# objects at bpf_map_alloc_percpu, 8 bytes a CPU, and 3 vmalloc areas at
# __bpf_map_area_alloc): perf script of a perf.data against the perf.data,
# field by field and view by view; a tracefs trace file with its stacks
# against its own lines; the same lines as kernels before 6.0 print
# them, without call_site, bytes_alloc and gfp_flags.
. "$(dirname "$0")/lib.sh"

DUMP=$HELPERS/kmt-dump-events
PV_DATA=$DATA/percpu-vmalloc.data
PV_SCRIPT=$DATA/text/percpu-vmalloc.script.txt
PV_TRACE=$DATA/text/percpu-vmalloc-6.18.txt

# perf script prints microseconds, cut; gfp flags as its names
dump_us () {
	"$DUMP" -s "$1" | awk "!/^#/ { \$1 = sprintf(\"%d\", \$1 / 1000); \$9 = \"-\"; print }"
}

# field NAME of the row of VIEW.json's ROWS whose KEY is KEY
row () {
	python3 - "$@" <<'PY'
import json, sys
path, rows, key, want, name = sys.argv[1:]
d = json.load(open(path))
view = next(iter(k for k in d if isinstance(d[k], dict) and rows in d[k]))
for r in d[view][rows]:
    if str(r[key]).split("+")[0] == want:
        print(r[name])
        break
else:
    print("none")
PY
}

test_expect_success 'perf script: the percpu and vmalloc events and stacks of the perf.data' '
	dump_us "$PV_DATA" >data &&
	dump_us "$PV_SCRIPT" >text &&
	test $(wc -l <data) = 132 &&
	for e in percpu_alloc_percpu percpu_free_percpu alloc_vmap_area free_vmap_area_noflush; do
		awk -v e=$e "\$4 == e" text | grep -q . || return 1
	done &&
	test $(awk "\$14 == \"-\"" text | wc -l) = 0 &&
	test_cmp data text
'

test_expect_success 'perf script: --percpu, --vmalloc and the folded profile as from the perf.data' '
	for v in "--percpu" "--vmalloc" "--profile --format folded" \
		 "--profile --format folded --weight inuse_space"; do
		"$KMEMTRACE" report $v "$PV_DATA" | grep -v "^# input:" >data &&
		"$KMEMTRACE" report $v "$PV_SCRIPT" | grep -v "^# input:" >text &&
		test $(wc -l <data) -gt 8 &&
		test_cmp data text || return 1
	done
'

test_expect_success 'perf script: the planted objects, areas and bytes' '
	"$KMEMTRACE" report --percpu --vmalloc --format json "$PV_SCRIPT" >pv.json &&
	test "$(row pv.json callsites callsite bpf_map_alloc_percpu allocs)" = 6 &&
	test "$(row pv.json callsites callsite bpf_map_alloc_percpu size)" = 48 &&
	test "$(row pv.json callers caller __bpf_map_area_alloc allocs)" = 3 &&
	test "$(row pv.json callers caller __bpf_map_area_alloc bytes)" = \
		$(grep -A8 "vmalloc:alloc_vmap_area:" "$PV_SCRIPT" |
		  grep -B8 " __bpf_map_area_alloc+" | grep -o "alloc_vmap_area: .* size=[0-9]*" |
		  sed "s/.*size=//" | awk "{ s += \$1 } END { print s }")
'

test_expect_success 'tracefs text: every percpu and vmalloc line is an event' '
	"$DUMP" -c "$PV_TRACE" >counts &&
	grep -q "^# anomaly bad_record 0$" counts &&
	for e in percpu_alloc_percpu percpu_free_percpu alloc_vmap_area free_vmap_area_noflush; do
		echo "# events $e $(grep -c ": $e: " "$PV_TRACE")" >expect &&
		grep "^# events $e " counts >got && test_cmp expect got || return 1
	done
'

test_expect_success 'tracefs text: callsites by call_site, vmalloc callers by stack, with bytes' '
	"$KMEMTRACE" report --percpu --vmalloc --format json "$PV_TRACE" >pv.json &&
	grep -c "percpu_alloc_percpu: call_site=bpf_map_alloc_percpu+" "$PV_TRACE" >expect &&
	row pv.json callsites callsite bpf_map_alloc_percpu allocs >got && test_cmp expect got &&
	test "$(cat got)" = 6 &&
	test "$(row pv.json callsites callsite bpf_map_alloc_percpu size)" = 48 &&
	test "$(row pv.json callers caller __bpf_map_area_alloc allocs)" = 3 &&
	test "$(row pv.json callers caller __bpf_map_area_alloc failed)" = 0 &&
	grep -c "alloc_vmap_area: va_start: .* failed=0" "$PV_TRACE" >expect &&
	python3 -c "import json; print(json.load(open(\"pv.json\"))[\"vmalloc\"][\"summary\"][\"allocs\"])" >got &&
	test_cmp expect got
'

test_expect_success 'tracefs text: leaks of percpu and vmalloc name no cache, stacks start at the callsite' '
	"$KMEMTRACE" report --leaks --format json "$PV_TRACE" >leaks.json &&
	python3 - <<-\PY
	import json
	d = json.load(open("leaks.json"))["leaks"]
	rows = [r for r in d["callsites"] if r["kind"] in ("percpu", "vmalloc")]
	assert rows and all(r["cache"] == "" for r in rows), rows
	st = [r for r in d["stacks"] if r["callsite"].startswith("bpf_map_alloc_percpu")]
	assert st and all(r["stack"].startswith("bpf_map_alloc_percpu <- ") for r in st), st
	PY
'

test_expect_success 'percpu lines of kernels before 6.0: callsites from the stacks, bytes not recorded' '
	sed -E "/percpu_alloc_percpu:/ s/call_site=[^ ]* //
		/percpu_alloc_percpu:/ s/ bytes_alloc=[^ ]* gfp_flags=[^ ]*\$//" "$PV_TRACE" >old.txt &&
	! grep -q "bytes_alloc=" old.txt &&
	"$KMEMTRACE" report --percpu --format json old.txt >old.json &&
	test "$(row old.json callsites callsite bpf_map_alloc_percpu allocs)" = 6 &&
	test "$(row old.json callsites callsite bpf_map_alloc_percpu size)" = 48 &&
	"$KMEMTRACE" report --percpu old.txt >old.out &&
	grep -q "^Bytes allocated (all CPUs. copies): not recorded" old.out
'

test_done
