#!/bin/sh
# kmemtrace record on this machine snapshots the kernel's counters at
# both ends: a workload that makes and removes thousands of files moves
# dentry, and report --caches sets slabinfo's change beside what the
# tracepoints saw; trace-cmd still reads the file.  Other engineers trace
# and allocate at the same time, so only what the planted workload must
# cause is asserted, and the figures' own arithmetic.
# test: alone
. "$(dirname "$0")/lib.sh"

if ! have_root_tracefs; then
	test_skip 'record the kernel counters' 'needs root and tracefs'
	test_done
	exit 0
fi

FILES=3000
# each new name a dentry: those of kept/ live past the end, those of
# gone/ are freed with their directory
cat >work.sh <<EOF
mkdir -p "$TRASH/kept" "$TRASH/gone" || exit 1
i=0
while [ \$i -lt $FILES ]; do
	: >"$TRASH/kept/f\$i"
	: >"$TRASH/gone/f\$i"
	i=\$((i + 1))
done
rm -rf "$TRASH/gone"
EOF

test_expect_success 'record: both snapshots in the file, no warning as root' '
	"$KMEMTRACE" record -o k.dat -- sh work.sh >out 2>err &&
	rm -rf kept &&
	! grep -q "warning" err &&
	"$KMEMTRACE" check k.dat >check.txt &&
	grep -qx "kernel-counters: start slabinfo meminfo vmalloc, end slabinfo meminfo vmalloc" check.txt
'

test_expect_success 'report --caches: dentry set beside slabinfo, numbers that add up' '
	"$KMEMTRACE" report --caches -l 0 k.dat >out.txt &&
	grep -q "^ dentry " out.txt &&
	! grep "^ dentry " out.txt | grep -q "not recorded" &&
	grep -q "^Caches set beside slabinfo: [1-9]" out.txt &&
	grep -q "^Slab change (meminfo, kB): -\?[0-9]" out.txt &&
	"$KMEMTRACE" report --caches -l 0 --json k.dat >out.json &&
	python3 - $FILES <<-\EOF
	import json, sys
	files = int(sys.argv[1])
	d = json.load(open("out.json"))["caches"]
	rows = {r["cache"]: r for r in d["caches"]}
	r = rows["dentry"]
	# the workload alone makes a dentry a file, two files a round;
	# those of kept/ stay live.  Other tasks free older dentries while
	# it runs (free_only), so the change itself is only checked for
	# its arithmetic
	assert r["objects"] >= 2 * files, r
	assert r["live_objects"] >= files * 2 // 3, r
	assert r["traced_change"] == r["objects"] - r["failed"] - \
	    r["frees"] - r["free_only"], r
	assert r["slabinfo_start"] > 0 and r["slabinfo_end"] > 0, r
	assert r["slabinfo_change"] == r["slabinfo_end"] - r["slabinfo_start"], r
	assert r["difference"] == r["slabinfo_change"] - r["traced_change"], r
	assert r["percpu_slack"] > 0, r
	assert r["reconciled"] in ("agrees", "slabinfo_fewer", "slabinfo_more"), r
	# the dentries of kept/: slabinfo sees most of them too, less
	# the older ones others freed
	assert r["slabinfo_change"] + r["free_only"] >= files // 3, r
	c = d["counters"]
	assert c["caches_reconciled"] == c["caches_agree"] + \
	    c["caches_slabinfo_fewer"] + c["caches_slabinfo_more"], c
	assert isinstance(c["slab_kb"], int) and isinstance(c["vmalloc_bytes"], int), c
	EOF
'

if command -v trace-cmd >/dev/null 2>&1; then
	test_expect_success 'trace-cmd reads the recording with its counters option' '
		trace-cmd report k.dat >tc.txt 2>tcerr &&
		n=$(grep -c " kmem_cache_alloc: " tc.txt) &&
		want=$(sed -n "s/^kmem_cache_alloc: //p" check.txt) &&
		test "$n" = "$want"
	'
else
	test_skip 'trace-cmd reads the recording' 'needs trace-cmd (make deps installs it)'
fi

test_done
