#!/bin/sh
# top and watch count percpu and vmalloc in the kernel, and top counts by
# memory cgroup: tests/helpers/plant-maps.sh makes N percpu objects (a
# percpu_array map, at bpf_map_alloc_percpu) and N vmalloc areas (array
# maps of 1 MiB, through __bpf_map_area_alloc); top -b and watch, each
# following only that helper, find exactly those at those callsites,
# with their bytes, and top --view cgroup finds the helper under the
# memory cgroup of its own it runs in, its percpu bytes accounted.
# test: alone
. "$(dirname "$0")/lib.sh"

PLANT="$TESTS_DIR/helpers/plant-maps.sh"

if ! why=$(have_bpf_rare); then
	test_skip 'percpu, vmalloc and cgroups in top and watch' "$why"
	test_done
	exit 0
fi

N=5
CG=
PIN=/sys/fs/bpf/kmt-t0730-$$
CPUS=$(python3 -c '
import sys
n = 0
for part in open("/sys/devices/system/cpu/possible").read().strip().split(","):
    a, _, b = part.partition("-")
    n += int(b or a) - int(a) + 1
print(n)')
# the cgroups a failed step left: the top step's and the watch step's
cleanup () {
	rm -rf "$PIN"
	[ -z "$CG" ] || rmdir "$CG" 2>/dev/null
	[ ! -f cg.path ] || rmdir "$(cat cg.path)" \
		"$(dirname "$(cat cg.path)")/kmt-test-w$$" 2>/dev/null
	# and lib.sh's own: this trap replaces it
	rm -rf "$TRASH"
}
trap cleanup EXIT

test_expect_success 'top -b: the planted percpu and vmalloc callsites, counts and bytes' '
	"$KMEMTRACE" top -b --json -n 1 -d 5 -l 0 --follow -- \
		sh -c "\"$PLANT\" plant $PIN $N $N 256 >&2" >top.json 2>top.err &&
	rm -rf "$PIN" &&
	python3 - "$N" "$CPUS" <<-\PY
	import json, sys
	n, cpus = int(sys.argv[1]), int(sys.argv[2])
	d = json.load(open("top.json"))
	assert "not_traced" not in d, d.get("not_traced")
	rows = d["rows"]
	pc = [r for r in rows if r["kind"] == "percpu" and
	      r["callsite"].startswith("bpf_map_alloc_percpu+")]
	vm = [r for r in rows if r["kind"] == "vmalloc" and
	      r["callsite"].startswith("__bpf_map_area_alloc+")]
	assert len(pc) == 1 and len(vm) == 1, (pc, vm)
	# value 8 a CPU, for each unit of the percpu allocator (at least
	# one a possible CPU)
	units = pc[0]["bytes"] // (n * 8)
	assert pc[0]["allocs"] == n and pc[0]["bytes"] == n * 8 * units, pc
	assert units >= cpus, (units, cpus)
	assert pc[0]["live"] == n and pc[0]["failures"] == 0, pc
	# 1 MiB of values and the map header, in pages, and a guard page
	assert vm[0]["allocs"] == n and vm[0]["live"] == n, vm
	each = vm[0]["bytes"] / n
	assert vm[0]["bytes"] % n == 0 and 1 << 20 < each <= (1 << 20) + 4 * 4096, vm
	t = d["totals"]
	assert t["percpu_allocs"] >= n and t["vmalloc_allocs"] >= n, t
	PY
'

test_expect_success 'top text: percpu and vmalloc rows say their kind' '
	"$KMEMTRACE" top -b -n 1 -d 5 -l 0 --follow -- \
		sh -c "\"$PLANT\" plant $PIN 2 2 256 >&2" >top.txt 2>top.err &&
	rm -rf "$PIN" &&
	grep "^percpu: .* alloc.*; vmalloc: .* alloc" top.txt &&
	grep "\[percpu\] bpf_map_alloc_percpu+" top.txt &&
	grep "\[vmalloc\] __bpf_map_area_alloc+" top.txt
'

test_expect_success 'watch: the planted objects outstanding, at their callsites' '
	"$KMEMTRACE" watch --json -I 1 --older-than 0 -l 0 --follow -- \
		sh -c "\"$PLANT\" plant $PIN $N $N 256 >&2; sleep 1.5" >watch.json 2>watch.err &&
	rm -rf "$PIN" &&
	python3 - "$N" "$CPUS" <<-\PY
	import json, sys
	n, cpus = int(sys.argv[1]), int(sys.argv[2])
	last = [json.loads(l) for l in open("watch.json")][-1]
	cs = last["callsites"]
	pc = [c for c in cs if c["kind"] == "percpu" and
	      c["callsite"].startswith("bpf_map_alloc_percpu+")]
	vm = [c for c in cs if c["kind"] == "vmalloc" and
	      c["callsite"].startswith("__bpf_map_area_alloc+")]
	assert len(pc) == 1 and pc[0]["count"] == n, pc
	assert pc[0]["bytes"] % (n * 8) == 0 and pc[0]["bytes"] >= n * 8 * cpus, pc
	assert len(vm) == 1 and vm[0]["count"] == n, vm
	assert vm[0]["bytes"] > n << 20, vm
	PY
'

# the memory controller, or why there is none (top says)
if "$KMEMTRACE" top -b --view cgroup -n 1 -d 0.1 >/dev/null 2>cg.err; then
	HAVE_CG=1
else
	HAVE_CG=
	test_skip 'memory cgroups' "$(tail -n 1 cg.err)"
fi

[ -z "$HAVE_CG" ] || test_expect_success 'top --view cgroup: a workload in its own memory cgroup' '
	if [ -d /sys/fs/cgroup/memory ] && grep -q "^memory.*1$" /proc/cgroups &&
	   ! grep -q "^memory[[:space:]]0" /proc/cgroups; then
		CG=/sys/fs/cgroup/memory/kmt-test-$$
	elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		CG=/sys/fs/cgroup/kmt-test-$$
	else
		CG=/sys/fs/cgroup/unified/kmt-test-$$
	fi &&
	mkdir "$CG" && echo "$CG" >cg.path &&
	"$KMEMTRACE" top -b --json --view cgroup -n 1 -d 5 -l 0 -- \
		sh -c "echo \$\$ >\"$CG/cgroup.procs\" && \"$PLANT\" plant $PIN $N $N 256 >&2" \
		>cg.json 2>cg.err || { cat cg.err; false; } &&
	rm -rf "$PIN" &&
	python3 - "$N" "$CPUS" "/kmt-test-$$" <<-\PY &&
	import json, sys
	n, cpus, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
	d = json.load(open("cg.json"))
	rows = [r for r in d["rows"] if r["cgroup"] == path]
	assert len(rows) == 1, [r["cgroup"] for r in d["rows"]]
	r = rows[0]
	# bpftool s allocations, and the planted maps among them
	assert r["allocs"] >= 2 * n and r["bytes"] >= n << 20, r
	# bpf_map_alloc_percpu charges the map s cgroup: __GFP_ACCOUNT
	assert r["accounted"] >= n * 8 * cpus, r
	assert r["accounted"] <= r["bytes"], r
	PY
	rmdir "$CG" && CG=
'

[ -z "$HAVE_CG" ] || test_expect_success 'watch --by cgroup: the planted objects under their memory cgroup' '
	CG=$(dirname "$(cat cg.path)")/kmt-test-w$$ &&
	mkdir "$CG" &&
	"$KMEMTRACE" watch --json --by cgroup -I 1 --older-than 0 -l 0 -- \
		sh -c "echo \$\$ >\"$CG/cgroup.procs\" && \"$PLANT\" plant $PIN $N $N 256 >&2 && sleep 1.5" \
		>wcg.json 2>wcg.err || { cat wcg.err; false; } &&
	rm -rf "$PIN" &&
	python3 - "$N" "$CPUS" "/kmt-test-w$$" <<-\PY &&
	import json, sys
	n, cpus, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
	last = [json.loads(l) for l in open("wcg.json")][-1]
	rows = {r["kind"]: r for r in last["cgroups"] if r["cgroup"] == path}
	assert "percpu" in rows and "vmalloc" in rows, last["cgroups"]
	pc, vm = rows["percpu"], rows["vmalloc"]
	# followed whole: exact, and charged (bpf_map_alloc_percpu)
	assert pc["live"] >= n and pc["accounted"] >= n * 8 * cpus, pc
	assert vm["live"] >= n and vm["live_bytes"] > n << 20, vm
	PY
	rmdir "$CG" && CG=
'

# the three at once on one planting: each of its tasks is a bpftool, and
# each tool follows the name
if have_root_tracefs; then
	test_expect_success 'record, top and watch at once: the same percpu and vmalloc objects' '
		"$KMEMTRACE" record -a -g -o all.dat 2>rec.err &
		rec=$!
		"$KMEMTRACE" top -b --json --comm bpftool --sample 1 -d 600 -l 0 \
			-o all-top.json 2>all-top.err &
		top=$!
		"$KMEMTRACE" watch --json --comm bpftool --sample 1 --older-than 0 \
			-I 600 -l 0 -o all-watch.json 2>all-watch.err &
		watch=$!
		wait_for "recording all CPUs" rec.err &&
		wait_for "^kmemtrace top: " all-top.err &&
		wait_for "^kmemtrace watch: " all-watch.err &&
		"$PLANT" plant $PIN $N 3 256 &&
		"$PLANT" free $PIN vm0 && sleep 1 ||
			{ kill $top $watch $rec; exit 1; }
		kill -INT $top $watch $rec
		wait $top && wait $watch && wait $rec &&
		rm -rf "$PIN" &&
		"$KMEMTRACE" report -i all.dat --comm bpftool --percpu --vmalloc \
			-l 0 --json >all-report.json &&
		python3 - "$N" <<-\PY
		import json, sys
		n = int(sys.argv[1])
		top = json.loads(open("all-top.json").read().splitlines()[-1])
		watch = json.loads(open("all-watch.json").read().splitlines()[-1])
		rep = json.load(open("all-report.json"))
		def one(rows, kind, fn, key="callsite"):
		    m = [r for r in rows if r.get("kind", kind) == kind and
		         r[key].startswith(fn + "+")]
		    assert len(m) == 1, (kind, fn, rows)
		    return m[0]
		pc_fn, vm_fn = "bpf_map_alloc_percpu", "__bpf_map_area_alloc"
		t_pc = one(top["rows"], "percpu", pc_fn)
		t_vm = one(top["rows"], "vmalloc", vm_fn)
		w_pc = one(watch["callsites"], "percpu", pc_fn)
		w_vm = one(watch["callsites"], "vmalloc", vm_fn)
		r_pc = one(rep["percpu"]["callsites"], "percpu", pc_fn)
		r_vm = one(rep["vmalloc"]["callers"], "vmalloc", vm_fn, "caller")
		print("top", t_pc, t_vm, "watch", w_pc, w_vm, "report", r_pc, r_vm)
		# what each made
		assert t_pc["allocs"] == r_pc["allocs"] == n, (t_pc, r_pc)
		assert t_pc["bytes"] == r_pc["bytes"], (t_pc, r_pc)
		assert t_vm["allocs"] == r_vm["allocs"] == 3, (t_vm, r_vm)
		assert t_vm["bytes"] == r_vm["bytes"], (t_vm, r_vm)
		# what is still there: all the percpu objects, two of the areas
		assert t_pc["live"] == w_pc["count"] == r_pc["live_objects"] == n
		assert w_pc["bytes"] == r_pc["live_bytes"] == r_pc["bytes"]
		assert t_vm["live"] == w_vm["count"] == r_vm["live_areas"] == 2
		assert w_vm["bytes"] == r_vm["live_bytes"]
		PY
	'
else
	test_skip 'record, top and watch at once' 'needs tracefs'
fi

test_expect_success 'no BPF program is left in the kernel after them' '
	bpf_programs_gone
'

test_done
