#!/bin/sh
# The first thing to try (make demo): records this machine for a few
# seconds while a kernel-heavy workload runs (bench/workload.sh), then
# reports on the recording.  Where it cannot trace (not root, no tracefs)
# it says why and reports on the recording shipped in tests/data instead.
#
#   scripts/demo.sh [SECONDS]        (default 3)
#
# KMEMTRACE= picks the binary (default build/kmemtrace); the recording
# is left in ${TMPDIR:-/tmp}/kmemtrace-demo.dat for more reports.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
KMEMTRACE=${KMEMTRACE:-$TOP/build/kmemtrace}
SECONDS_=${1:-3}
OUT=${TMPDIR:-/tmp}/kmemtrace-demo.dat
SHIPPED=$TOP/tests/data/capture.dat

if ! [ -x "$KMEMTRACE" ]; then
	echo "demo: no $KMEMTRACE: run 'make' first" >&2
	exit 1
fi

why=
if [ "$(id -u)" != 0 ]; then
	why="recording kernel events needs root (run make demo as root)"
elif ! [ -d /sys/kernel/tracing/events/kmem ] &&
     ! mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	why="tracefs is not mounted at /sys/kernel/tracing and cannot be"
elif ! [ -d /sys/kernel/tracing/events/kmem ]; then
	why="this kernel has no kmem tracepoints"
fi

input=$OUT
if [ -z "$why" ]; then
	echo "\$ kmemtrace record -o $OUT -- bench/workload.sh $SECONDS_"
	if ! "$KMEMTRACE" record -o "$OUT" -- "$TOP/bench/workload.sh" "$SECONDS_"; then
		why="kmemtrace record failed (above)"
	fi
	echo
fi
if [ -n "$why" ]; then
	echo "demo: cannot record this machine: $why"
	echo "demo: reporting on the shipped recording instead"
	echo
	input=$SHIPPED
fi

echo "\$ kmemtrace report -i $input --caller -l 10"
"$KMEMTRACE" report -i "$input" --caller -l 10
rc=$?
if [ "$input" = "$OUT" ] && [ $rc = 0 ]; then
	echo
	echo "demo: the recording is $OUT; more views:"
	echo "  kmemtrace report -i $OUT --leaks"
	echo "  kmemtrace report -i $OUT --procs"
	echo "  kmemtrace check $OUT"
fi
exit $rc
