#!/bin/sh
# make-percpu-capture.sh: makes the committed percpu and vmalloc samples
# from real captures on this machine, around tests/helpers/plant-maps.sh
# (N percpu objects at bpf_map_alloc_percpu, M vmalloc areas at
# __bpf_map_area_alloc, some freed before the end):
#
#   scripts/make-percpu-capture.sh [OUTDIR]     (default: tests/data)
#
#   percpu-vmalloc.data               perf record -e 'percpu:*' -e 'vmalloc:*' -g
#   text/percpu-vmalloc.script.txt    perf script of it (perf 6.1)
#   text/percpu-vmalloc-6.18.txt      a tracefs instance's trace file: the
#                                     same work again, with
#                                     options/stacktrace, set_event_pid the
#                                     shell that runs it, options/event-fork
#
# Both hold the work's own tasks only (the whole system's percpu and
# vmalloc events make megabytes on a busy machine): the kernel frees a
# map's memory after an RCU grace period in a kworker, so the frees of
# the maps unpinned are not in them.
#
# Needs root, tracefs with the percpu and vmalloc events, bpftool and perf.
# The top-level tracing state is not touched: the text comes from an
# instance of its own, removed at the end.  perf 6.1 stores no kallsyms;
# the tests name the perf.data's addresses from the script's frames
# (tests/buildid.sh), so a new capture needs its build id there.
set -eu

OUT=${1:-tests/data}
HERE=$(cd "$(dirname "$0")/.." && pwd)
PLANT=$HERE/tests/helpers/plant-maps.sh
TRACING=/sys/kernel/tracing
INST=$TRACING/instances/kmt-pv
die () { echo "make-percpu-capture: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root"
[ -d "$TRACING/events/percpu" ] && [ -d "$TRACING/events/vmalloc" ] ||
	die "the kernel has no percpu or vmalloc events in $TRACING"
command -v perf >/dev/null || die "needs perf"
mkdir -p "$OUT/text"

# the workload: 6 percpu objects and 3 vmalloc areas, the percpu map and
# one array freed, a pause for the deferred frees; the rest stays pinned
# to the end and is freed after it
work="$PLANT plant kmt-pv 6 3 && $PLANT free kmt-pv vm0 pcpu && sleep 1"

trap '"$PLANT" free kmt-pv 2>/dev/null || :' EXIT
perf record -q -e 'percpu:*' -e 'vmalloc:*' -g -o "$OUT/percpu-vmalloc.data" \
	-- sh -c "$work"
perf script -i "$OUT/percpu-vmalloc.data" >"$OUT/text/percpu-vmalloc.script.txt"
"$PLANT" free kmt-pv

trap 'echo 0 > "$INST/tracing_on" 2>/dev/null; rmdir "$INST" 2>/dev/null
	"$PLANT" free kmt-pv 2>/dev/null || :' EXIT
rmdir "$INST" 2>/dev/null || :
mkdir "$INST"
echo 1 > "$INST/events/percpu/enable"
echo 1 > "$INST/events/vmalloc/enable"
echo 1 > "$INST/options/stacktrace"
echo 1 > "$INST/options/event-fork"
echo 1 > "$INST/tracing_on"
sh -c "echo \$\$ > $INST/set_event_pid && $work"
echo 0 > "$INST/tracing_on"
echo 0 > "$INST/options/stacktrace"
cat "$INST/trace" >"$OUT/text/percpu-vmalloc-6.18.txt"
echo 0 > "$INST/events/percpu/enable"
echo 0 > "$INST/events/vmalloc/enable"
perf buildid-list -i "$OUT/percpu-vmalloc.data" 2>/dev/null | grep kallsyms
