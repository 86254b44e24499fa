#!/bin/sh
# Memory cgroups: record keeps which task was in which memory cgroup
# (a trace.dat option of its own), report --procs --by cgroup groups by
# it, and every --procs view has the bytes charged to the memcg apart.
# A committed recording tests the grouping without a live kernel; a
# damaged map and a recording without one say "not recorded"; then a
# live recording of a workload in a cgroup of its own.
# test: alone
. "$(dirname "$0")/lib.sh"

IN=$DATA/record/cgroups.dat

test_expect_success 'by cgroup: the committed recording as expected' '
	"$KMEMTRACE" report -i "$IN" --procs --by cgroup -s pid >out.txt &&
	sed "/^# /d" out.txt >actual.txt &&
	test_cmp "$EXPECTED/record/procs-cgroup.txt" actual.txt
'

test_expect_success 'by cgroup: the workload'"'"'s cgroup, its tasks, charged bytes' '
	"$KMEMTRACE" report -i "$IN" --procs --by cgroup --json >out.json &&
	python3 - <<-\PY
	import json
	d = json.load(open("out.json"))
	rows = {r["cgroup"]: r for r in d["procs"]["cgroups"]}
	w = rows["/kmt-cg-mk"]
	assert w["tasks"] == 2 and w["slab_allocs"] > 100, w
	assert w["charged_bytes"] > 0 and w["uncharged_bytes"] > 0, w
	t = d["procs"]["totals"]
	assert t["hierarchy"] == "v1 memory", t
	assert t["cgroups"] == len(rows), t
	# the cgroups add up to the processes view
	assert sum(r["slab_alloc_bytes"] for r in rows.values()) == t["slab_alloc_bytes"]
	assert sum(r["charged_bytes"] + r["uncharged_bytes"] for r in rows.values()) == \
	       t["charged_bytes"] + t["uncharged_bytes"]
	PY
'

test_expect_success 'by cgroup: csv and ndjson from the same model' '
	"$KMEMTRACE" report -i "$IN" --procs --by cgroup --format csv >out.csv &&
	grep -q "^procs.cgroups,[0-9]*,cgroup,/kmt-cg-mk$" out.csv &&
	"$KMEMTRACE" report -i "$IN" --procs --by cgroup --format ndjson >out.nd &&
	grep -q "\"cgroup\": *\"/kmt-cg-mk\"" out.nd
'

test_expect_success 'by pid: the charged columns beside the rest' '
	"$KMEMTRACE" report -i "$IN" --procs --json >out.json &&
	python3 -c "
import json
d = json.load(open(\"out.json\"))
t = d[\"procs\"][\"totals\"]
assert t[\"charged_bytes\"] > 0 and t[\"uncharged_bytes\"] > 0, t
rows = d[\"procs\"][\"processes\"]
assert sum(r[\"charged_bytes\"] for r in rows) == t[\"charged_bytes\"]
assert t[\"charged_bytes\"] + t[\"uncharged_bytes\"] <= \\
       sum(r[\"slab_alloc_bytes\"] + r[\"page_alloc_bytes\"] for r in rows)
"
'

test_expect_success 'a recording without a map: not recorded, exit 0' '
	"$KMEMTRACE" report -i "$DATA/capture.dat" --procs --by cgroup >out.txt &&
	grep -q "^Memory cgroups: not recorded (the recording has no task-to-cgroup map)$" out.txt &&
	grep -q "record it with kmemtrace record" out.txt &&
	! grep -q "^ /" out.txt &&
	"$KMEMTRACE" report -i "$DATA/capture.dat" --procs --by cgroup --json >out.json &&
	python3 -c "
import json
d = json.load(open(\"out.json\"))
assert d[\"procs\"][\"cgroups\"][\"cgroups\"] is None, d[\"procs\"]
"
'

test_expect_success 'a damaged map: a warning with the file and byte, not recorded' '
	python3 - "$IN" bad.dat <<-\PY &&
	import sys
	d = bytearray(open(sys.argv[1], "rb").read())
	at = d.index(b"kmemtrace cgroups\n")
	# the path of the first task line
	line = d.index(b" /", d.index(b"hierarchy", at))
	d[line + 1] = ord("x")	# a path without its /
	open(sys.argv[2], "wb").write(d)
	print(line + 1)
	PY
	"$KMEMTRACE" report -i bad.dat --procs --by cgroup >out.txt 2>err &&
	grep -q "warning: .bad.dat.: the cgroups option is damaged at byte [0-9]*: a cgroup path that does not start with ./.: the task-to-cgroup map is left out" err &&
	grep -q "^Memory cgroups: not recorded (the recording has no task-to-cgroup map: the cgroups option is damaged at byte" out.txt &&
	"$KMEMTRACE" report -i bad.dat --procs >out.txt 2>err &&
	! test -s err
'

if ! have_root_tracefs; then
	test_skip 'live: a workload in a memory cgroup of its own' 'needs root and tracefs'
	test_done
	exit 0
fi
CGROOT=
if [ -d /sys/fs/cgroup/memory ] && grep -q "^[0-9]*:[^:]*memory[^:]*:" /proc/self/cgroup; then
	CGROOT=/sys/fs/cgroup/memory
elif grep -q "^0::" /proc/self/cgroup && [ -f /sys/fs/cgroup/cgroup.controllers ] &&
     grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
	CGROOT=/sys/fs/cgroup
fi
if [ -z "$CGROOT" ] || [ ! -e /sys/kernel/tracing/events/cgroup/cgroup_attach_task ]; then
	test_skip 'live: a workload in a memory cgroup of its own' \
		'needs a memory cgroup hierarchy and cgroup:cgroup_attach_task'
	test_done
	exit 0
fi

CG=kmt-cg-$$
rm_cg () {
	rmdir "$CGROOT/$CG" 2>/dev/null
}
trap rm_cg EXIT

test_expect_success 'live: a workload in a memory cgroup of its own' '
	mkdir "$CGROOT/$CG" &&
	mkdir files &&
	"$KMEMTRACE" record -q -o live.dat -- sh -c "echo \$\$ >$CGROOT/$CG/cgroup.procs &&
		for i in \$(seq 300); do echo x >files/f\$i; done; rm -f files/f*" &&
	"$KMEMTRACE" report -i live.dat --procs --by cgroup --json >out.json &&
	"$KMEMTRACE" report -i live.dat --procs --by cgroup >out.txt &&
	grep -q "^ /$CG " out.txt &&
	python3 - "/$CG" <<-\PY
	import json, sys
	d = json.load(open("out.json"))
	rows = {r["cgroup"]: r for r in d["procs"]["cgroups"]}
	w = rows[sys.argv[1]]
	# the shell, seq, the echo subshells are builtins, rm: born in it or moved
	assert w["tasks"] >= 2, w
	# 300 files: a dentry and an inode each, charged to the memcg
	assert w["slab_allocs"] >= 600, w
	assert w["charged_bytes"] > 0, w
	PY
'

test_expect_success 'live: the cgroup instance is gone' '
	! ls /sys/kernel/tracing/instances | grep -q "^kmemtrace-cg-"
'

rm_cg
test_done
