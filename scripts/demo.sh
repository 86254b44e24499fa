#!/bin/sh
# The first thing to try (make demo): records this machine for a few
# seconds while a kernel-heavy workload runs (bench/workload.sh), with a
# kernel stack on each page allocation so that page callsites are named,
# then reports the callsites that allocate the most bytes.  Where it
# cannot trace (not root, no tracefs) it says why and reports on the
# recording shipped in tests/data instead.
#
#   scripts/demo.sh [SECONDS]        (default 3)
#
# KMEMTRACE= picks the binary (default build/kmemtrace); the recording
# is left in ${TMPDIR:-/tmp}/kmemtrace-demo.dat for more reports (its
# HTML page would go beside it, kmemtrace-demo.html).  Every
# command it prints is one that works as printed, from where it ran.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
KMEMTRACE=${KMEMTRACE:-$TOP/build/kmemtrace}
SECONDS_=${1:-3}
OUT=${TMPDIR:-/tmp}/kmemtrace-demo.dat
HTML=${TMPDIR:-/tmp}/kmemtrace-demo.html
SHIPPED=$TOP/tests/data/capture.dat

if ! [ -x "$KMEMTRACE" ]; then
	echo "demo: no $KMEMTRACE: run 'make' first" >&2
	exit 1
fi

# the binary as the user would type it here: kmemtrace once installed,
# else its path from the current directory
shown=$KMEMTRACE
case $KMEMTRACE in
/*) ;;
*) KMEMTRACE=$(pwd)/$KMEMTRACE ;;
esac
installed=$(command -v kmemtrace 2>/dev/null)
if [ -n "$installed" ] && [ "$installed" -ef "$KMEMTRACE" ]; then
	shown=kmemtrace
else
	case $KMEMTRACE in
	"$(pwd)"/*) shown=${KMEMTRACE#"$(pwd)"/} ;;
	*) shown=$KMEMTRACE ;;
	esac
fi
workload=$TOP/bench/workload.sh
case $workload in
"$(pwd)"/*) workload=${workload#"$(pwd)"/} ;;
esac

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
	echo "\$ $shown record -g -o $OUT -- $workload $SECONDS_"
	if ! "$KMEMTRACE" record -g -o "$OUT" -- "$TOP/bench/workload.sh" "$SECONDS_"; then
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

echo "\$ $shown report -i $input --caller -s bytes -l 10"
"$KMEMTRACE" report -i "$input" --caller -s bytes -l 10
rc=$?
if [ $rc = 0 ]; then
	echo
	echo "demo: more views of $input:"
	echo "  $shown report -i $input --leaks     # outstanding at the end, by callsite"
	echo "  $shown report -i $input --procs     # who stresses the allocators"
	echo "  $shown report -i $input --errors    # frees that look wrong"
	echo "  $shown report -i $input --html $HTML   # one page: flame graph, time lines, tables"
	echo "  $shown check $input                 # is the recording whole"
	echo "  $shown help report                  # every option"
fi
exit $rc
