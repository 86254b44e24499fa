#!/bin/sh
# make-capture.sh: makes the committed test recordings tests/data/capture.*
# from short real captures of the kmem tracepoints on this machine.
#
#   scripts/make-capture.sh [OUTDIR]        (default: tests/data)
#
# Needs root, tracefs, trace-cmd (3.1) and perf.  Everything happens in a
# tracefs instance of its own, kmt-td, which is removed at the end; the
# top-level tracing state is never touched.  trace-cmd extract runs with
# -k, because without it trace-cmd stops tracing everywhere, resets the
# top-level events and removes the instance when it is done.
#
# One capture (a few short programs, on both CPUs, with a stacktrace
# trigger on mm_page_alloc), several forms:
#
#   capture.dat          trace-cmd extract -B kmt-td: trace.dat v7, zstd
#   capture.v6.dat       the same, trace-cmd convert --file-version 6
#   capture.v7.dat       the same, v7 uncompressed (--compression none)
#   capture.trace.txt    the instance's `trace` file (irq-info on)
#   capture.noirq.txt    its first events again, options/irq-info off
#   capture.tgid.txt     its first events again, options/record-tgid on
#   capture.report.txt   trace-cmd report -i capture.dat
#
# and two more:
#
#   capture-lost.dat       a capture into a two-page buffer that overflowed
#                          (missed-events pages, overrun stats)
#   capture-lost.report.txt  trace-cmd report of it, with its
#                          "CPU:N [M EVENTS DROPPED]" line (cut)
#   capture-lost.pipe.txt  the same workload again, read from trace_pipe,
#                          with its "CPU:N [LOST M EVENTS]" lines (cut)
#   capture.perf.txt       perf script --max-stack=8 of a perf kmem record
#                          (cut)
#
# trace-cmd stores all of /proc/kallsyms (5 MB here) and every event
# format of the system in a trace.dat.  To keep the files small, extract
# runs in a private mount namespace where /proc/kallsyms is the kallsyms
# lines of the symbols the capture names, saved_cmdlines has the lines of
# the pids it names, and the events directory holds only the kmem and
# ftrace formats.  The ring-buffer pages are untouched.
set -eu

OUT=${1:-tests/data}
TRACING=/sys/kernel/tracing
NAME=kmt-td
INST=$TRACING/instances/$NAME
EVENTS="kmalloc kmem_cache_alloc kfree kmem_cache_free mm_page_alloc
mm_page_free mm_page_free_batched mm_page_alloc_zone_locked
mm_page_pcpu_drain mm_page_alloc_extfrag"
# how many event lines the cut text forms keep
CUT=100

die () {
	echo "make-capture: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root"
[ -d "$TRACING/events/kmem" ] ||
	mount -t tracefs nodev "$TRACING" 2>/dev/null ||
	die "no tracefs at $TRACING"
command -v trace-cmd >/dev/null || die "needs trace-cmd"
command -v perf >/dev/null || die "needs perf"
[ -e "$INST" ] && die "instance $NAME exists; remove it first (rmdir $INST)"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TMP=$(mktemp -d)

cleanup () {
	if [ -d "$INST" ]; then
		echo 0 > "$INST/tracing_on"
		echo '!stacktrace' > "$INST/events/kmem/mm_page_alloc/trigger" \
			2>/dev/null || true
		echo 0 > "$INST/events/enable"
		rmdir "$INST"
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

setup () {
	# $1: buffer_size_kb
	echo 0 > "$INST/tracing_on"
	echo "$1" > "$INST/buffer_size_kb"
	for e in $EVENTS; do
		echo 1 > "$INST/events/kmem/$e/enable"
	done
	echo '!stacktrace' > "$INST/events/kmem/mm_page_alloc/trigger" \
		2>/dev/null || true
	echo stacktrace > "$INST/events/kmem/mm_page_alloc/trigger"
	# only the workload and its children
	echo 1 > "$INST/options/event-fork"
	echo 1 > "$INST/options/record-tgid"
	echo > "$INST/trace"
}

# a shell that traces itself and two forked children (which the scheduler
# puts on both CPUs): about 500 events
run_workload () {
	sh -c '
		echo $$ > "$1/set_event_pid"
		echo 1 > "$1/tracing_on"
		( : ) & ( : ) & wait
		echo 0 > "$1/tracing_on"
	' workload "$INST"
}

# the first $1 events of a trace text (a stack stays with its event)
cut_events () {
	awk -v n="$1" '
		/^#/ || /^ *=>/ || /^$/ { print; next }
		/^CPU:/ || /^[^ ]*: CPU:/ { print; next }
		{ if (++seen > n) exit; print }
	'
}

# the same for perf script: a sample is a line and its indented call chain
cut_samples () {
	awk -v n="$1" '
		/^[ \t]*$/ { if (seen) print; next }
		/^\t/ { if (seen) print; next }
		{ if (++seen > n) exit; print }
	'
}

# extract with small kallsyms and event formats (see the top)
extract () {
	# $1: the trace text naming the symbols; $2: output file
	sed -n 's/.*call_site=\([^+ ]*\)+.*/\1/p; s/^ *=> \([^ +]*\).*/\1/p' \
		"$1" | sort -u > "$TMP/names"
	awk 'NR == FNR { want[$1] = 1; next } ($3 in want)' \
		"$TMP/names" /proc/kallsyms > "$TMP/kallsyms"
	sed -n 's/^.*-\([0-9][0-9]*\) *\(([ 0-9-]*)\)\{0,1\} *\[[0-9]*\].*/\1/p' \
		"$1" | sort -u > "$TMP/pids"
	awk 'NR == FNR { want[$1] = 1; next } ($1 in want)' \
		"$TMP/pids" "$TRACING/saved_cmdlines" > "$TMP/cmdlines"
	rm -rf "$TMP/events"
	mkdir -p "$TMP/events"
	cat "$TRACING/events/header_page" > "$TMP/events/header_page"
	cat "$TRACING/events/header_event" > "$TMP/events/header_event"
	for d in "$TRACING"/events/kmem/*/ "$TRACING"/events/ftrace/*/; do
		sys=$(basename "$(dirname "$d")")
		ev=$(basename "$d")
		mkdir -p "$TMP/events/$sys/$ev"
		cat "$d/format" > "$TMP/events/$sys/$ev/format"
		cat "$d/id" > "$TMP/events/$sys/$ev/id" 2>/dev/null || true
	done
	unshare -m --propagation private sh -c '
		mount --bind "$1/kallsyms" /proc/kallsyms &&
		mount --bind "$1/cmdlines" "$2/saved_cmdlines" &&
		mount --bind "$1/events" "$2/events" &&
		mount --bind "$1/events" "$3/events" &&
		cd "$1" && trace-cmd extract -k -B "$4" -o out.dat > extract.log 2>&1
	' extract "$TMP" "$TRACING" "$INST" "$NAME" ||
		die "trace-cmd extract failed: $(cat "$TMP/extract.log")"
	mv "$TMP/out.dat" "$2"
	rm -f "$TMP"/out.dat.*
}

mkdir "$INST"

# --- the main capture ---
setup 2048
run_workload
echo 0 > "$INST/options/record-tgid"
cat "$INST/trace" > "$OUT/capture.trace.txt"
echo 0 > "$INST/options/irq-info"
cut_events $CUT < "$INST/trace" > "$OUT/capture.noirq.txt"
echo 1 > "$INST/options/irq-info"
echo 1 > "$INST/options/record-tgid"
cut_events $CUT < "$INST/trace" > "$OUT/capture.tgid.txt"
echo 0 > "$INST/options/record-tgid"
extract "$OUT/capture.trace.txt" "$OUT/capture.dat"
trace-cmd convert -i "$OUT/capture.dat" -o "$OUT/capture.v6.dat" \
	--file-version 6 --compression none > "$TMP/convert.log" 2>&1 ||
	die "trace-cmd convert failed: $(cat "$TMP/convert.log")"
trace-cmd convert -i "$OUT/capture.dat" -o "$OUT/capture.v7.dat" \
	--file-version 7 --compression none > "$TMP/convert.log" 2>&1 ||
	die "trace-cmd convert failed: $(cat "$TMP/convert.log")"
trace-cmd report -i "$OUT/capture.dat" > "$OUT/capture.report.txt"

# --- a capture that overflowed its buffer (a page or two per CPU) ---
setup 4
run_workload
cat "$INST/trace" > "$TMP/lost.txt"
extract "$TMP/lost.txt" "$OUT/capture-lost.dat"
trace-cmd report -i "$OUT/capture-lost.dat" | cut_events $CUT \
	> "$OUT/capture-lost.report.txt"
setup 4
run_workload
timeout 2 cat "$INST/trace_pipe" | cut_events $CUT \
	> "$OUT/capture-lost.pipe.txt" || true

# --- perf script of a perf kmem record ---
( cd "$TMP" && perf kmem --slab --page record -o perf.data \
	sh -c '( : ) & ( : ) & wait' > /dev/null 2> perf.log ) ||
	die "perf kmem record failed: $(cat "$TMP/perf.log")"
perf script --max-stack=8 -i "$TMP/perf.data" 2> /dev/null |
	cut_samples 50 > "$OUT/capture.perf.txt"

ls -l "$OUT"/capture*
