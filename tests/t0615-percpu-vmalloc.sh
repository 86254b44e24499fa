#!/bin/sh
# report --percpu, --vmalloc and --leaks on a recording made here around
# tests/helpers/plant-maps.sh: 12 percpu objects at bpf_map_alloc_percpu
# (8 bytes a CPU) and 3 vmalloc areas at __bpf_map_area_alloc, one of
# them freed before the end.  Only bpftool's allocations are counted
# (--comm), so the machine's other work cannot move the figures.
# test: alone
. "$(dirname "$0")/lib.sh"

PLANT="$TESTS_DIR/helpers/plant-maps.sh"
T=/sys/kernel/tracing
PIN=kmt-t0615-$$

why=
if [ "$(id -u)" != 0 ]; then
	why="needs root"
elif ! command -v bpftool >/dev/null && ! [ -x /usr/sbin/bpftool ]; then
	why="needs bpftool"
else
	[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
	if ! [ -d $T/events/percpu ] || ! [ -d $T/events/vmalloc ]; then
		why="the kernel has no percpu or vmalloc tracepoints"
	fi
fi
if [ -n "$why" ]; then
	test_skip 'percpu and vmalloc views on a live recording' "$why"
	test_done
	exit 0
fi
trap '"$PLANT" free $PIN 2>/dev/null; rm -rf "$TRASH"' EXIT

# a field of the row of view whose key starts with prefix
field () {
	python3 - "$1" "$2" "$3" "$4" "$5" <<'PY'
import json, sys
view, rows, key, prefix, name = sys.argv[1:]
d = json.load(open(view + ".json"))
for r in d[view][rows] if view != "leaks" else d["leaks"]["callsites"]:
    if str(r[key]).startswith(prefix) and (view != "leaks" or r["kind"] == name.split(":")[0]):
        print(r[name.split(":")[-1]])
        break
else:
    print("none")
PY
}

# prints the rows of a view at a callsite, which a failing step shows
rows () {
	python3 - "$1" "$2" <<'PY'
import json, sys
view, prefix = sys.argv[1:]
d = json.load(open(view + ".json"))[view]
for rs in d.values():
    for r in rs if isinstance(rs, list) else []:
        if any(str(v).startswith(prefix) for v in r.values()):
            print(json.dumps(r))
PY
}

test_expect_success 'record -g around planting 12 percpu objects and 3 vmalloc areas, freeing one' '
	"$KMEMTRACE" record -q -g -o pv.dat -- sh -c \
		"\"$PLANT\" plant $PIN 12 3 && \"$PLANT\" free $PIN vm0 && sleep 0.5" &&
	"$KMEMTRACE" check -i pv.dat >check.txt &&
	grep "^percpu_alloc_percpu: [1-9]" check.txt &&
	grep "^alloc_vmap_area: [1-9]" check.txt
'

test_expect_success 'report --percpu: the 12 objects at bpf_map_alloc_percpu, all live' '
	"$KMEMTRACE" report --percpu --comm bpftool --format json -i pv.dat >percpu.json && rows percpu bpf_map_alloc_percpu &&
	test "$(field percpu callsites callsite bpf_map_alloc_percpu allocs)" = 12 &&
	test "$(field percpu callsites callsite bpf_map_alloc_percpu size)" = 96 &&
	test "$(field percpu callsites callsite bpf_map_alloc_percpu frees)" = 0 &&
	test "$(field percpu callsites callsite bpf_map_alloc_percpu live_objects)" = 12
'

test_expect_success 'report --vmalloc: 3 areas at __bpf_map_area_alloc, one freed' '
	"$KMEMTRACE" report --vmalloc --comm bpftool --format json -i pv.dat >vmalloc.json && rows vmalloc __bpf_map_area_alloc &&
	test "$(field vmalloc callers caller __bpf_map_area_alloc allocs)" = 3 &&
	test "$(field vmalloc callers caller __bpf_map_area_alloc frees)" = 1 &&
	test "$(field vmalloc callers caller __bpf_map_area_alloc live_areas)" = 2 &&
	one=$(field vmalloc callers caller __bpf_map_area_alloc freed_bytes) &&
	test "$one" -gt $((37 * 4096)) &&
	test "$(field vmalloc callers caller __bpf_map_area_alloc bytes)" = $((3 * one)) &&
	test "$(field vmalloc callers caller __bpf_map_area_alloc live_bytes)" = $((2 * one))
'

test_expect_success 'report --leaks: kind percpu and kind vmalloc rows for what is still pinned' '
	"$KMEMTRACE" report --leaks --comm bpftool --format json -i pv.dat >leaks.json && rows leaks bpf_map &&
	test "$(field leaks x callsite bpf_map_alloc_percpu percpu:count)" = 12 &&
	test "$(field leaks x callsite __bpf_map_area_alloc vmalloc:count)" = 2
'

test_expect_success 'the text report names both views and their callers' '
	"$KMEMTRACE" report --percpu --vmalloc --comm bpftool -i pv.dat >both.txt &&
	grep "^PERCPU ALLOCATOR" both.txt &&
	grep "^VMALLOC" both.txt &&
	grep "^ bpf_map_alloc_percpu+" both.txt &&
	grep "^ __bpf_map_area_alloc+" both.txt
'

test_expect_success 'without -g the vmalloc callers are not recorded, and say so' '
	"$KMEMTRACE" record -q -o nog.dat -- sh -c \
		"\"$PLANT\" plant $PIN-b 0 1 && \"$PLANT\" free $PIN-b" &&
	"$KMEMTRACE" report --vmalloc -i nog.dat >nog.txt &&
	grep "no stack: record with -g" nog.txt
'

test_done
