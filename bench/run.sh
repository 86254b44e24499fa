#!/bin/sh
# Every benchmark, one after the other (`make bench`, as root).
#
#   bench/report/run.sh     kmemtrace report vs perf kmem stat (perf.data),
#                           and events/s on trace.dat and text input
#   bench/report/instructions.sh  the report's instruction count under
#                           cachegrind (not run here: a tool for comparing
#                           two builds without the machine's noise)
#   bench/views/run.sh      every report view vs the plain report
#   bench/html/run.sh       the HTML report: its size, the time to draw it
#   bench/record/run.sh     the workload untraced, under kmemtrace record,
#                           under perf kmem record: slowdown, lost events
#   bench/top-watch/run.sh  the workload under top, watch, bpftrace doing
#                           the same, record, perf kmem: slowdown, drops,
#                           user-space memory
#   bench/pageowner/run.sh  kmemtrace pageowner vs page_owner_sort; needs a
#                           kernel source tree: KERNEL_SRC=/path make bench
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
rc=0
for b in report views html record top-watch; do
	echo "== bench/$b"
	sh "$TOP/bench/$b/run.sh" || rc=1
	echo
done
echo "== bench/pageowner"
if [ -n "${KERNEL_SRC:-}" ]; then
	sh "$TOP/bench/pageowner/run.sh" "$KERNEL_SRC" || rc=1
else
	echo "skipped: set KERNEL_SRC to a kernel source tree (Debian: apt-get install" \
	     "linux-source-6.1, then untar /usr/src/linux-source-6.1.tar.xz)"
fi
exit $rc
