#!/bin/sh
# Runs every unit test binary and every end-to-end test once per build
# directory given (the plain build, then the sanitizer build) and ends
# with one line "N passed, N failed[, N skipped]".
#
#   tests/run.sh [-j JOBS] [-t AREA] BUILD...
#
# -t AREA runs only the end-to-end tests whose file name starts with AREA
# (t0100) and the unit tests named AREA or test-AREA (test-text, text).
# Files run JOBS at a time (KMT_TEST_JOBS, 3 by default: the tests that
# record wait on the kernel more than they compute).  A file's output is
# printed whole, after a line naming it with its time, in the order of
# the files; the failures again at the end.
#
# Lines of a test file:
#   # test: once    it tests the tree, not a build: first build only
#   # test: alone   it records with tracefs or BPF: never beside another
#                   such file (they share the one tracefs and the
#                   kernel's BPF programs); they run one after another
#                   in a lane of their own while the others share the rest
TOP=$(cd "$(dirname "$0")/.." && pwd)
TESTS_DIR=$TOP/tests
jobs=${KMT_TEST_JOBS:-3}
area=
while getopts j:t: opt; do
	case $opt in
	j) jobs=$OPTARG ;;
	t) area=$OPTARG ;;
	*) echo "usage: tests/run.sh [-j JOBS] [-t AREA] BUILD..." >&2; exit 129 ;;
	esac
done
shift $((OPTIND - 1))
case $jobs in ''|*[!0-9]*|0) echo "tests/run.sh: -j needs a number, not '$jobs'" >&2; exit 129 ;; esac
# leaks inside the system libraries, for the sanitizer build (lsan.supp)
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP/tests/lsan.supp:print_suppressions=0}
export LSAN_OPTIONS
export KMT_TEST_DATA="$TOP/tests/data"
pass=0 fail=0 skip=0
W=$(mktemp -d "${TMPDIR:-/tmp}/kmt-run.XXXXXX")
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
# every failure again at the end, with its diagnostics, so that the last
# lines of a long run (all a CI log may keep) say what failed
failed=$W/failed

# what every test file would compute alike, computed once and shared
. "$TESTS_DIR/buildid.sh"
make_buildid_dir "$W/buildid" || exit 1
chmod -R a-w "$W/buildid"
KMT_TEST_BUILDID_DIR=$W/buildid
export KMT_TEST_BUILDID_DIR

in_area () {
	# $1: file or binary name
	[ -z "$area" ] && return 0
	case $1 in
	"$area"*|"test-$area"*) return 0 ;;
	esac
	return 1
}

# the queue: "index kind build file" a line, in the order printed;
# files marked alone go to a queue of their own
n=0
first=1
: >"$W/queue"
: >"$W/alone"
for build in "$@"; do
	case "$build" in /*) ;; *) build="$TOP/$build" ;; esac
	for t in "$build"/tests/test-*; do
		[ -x "$t" ] && [ -f "$t" ] || continue
		case $t in *.o|*.d) continue ;; esac
		in_area "$(basename "$t")" || continue
		n=$((n + 1))
		echo "$n unit $build $t" >>"$W/queue"
	done
	for t in "$TOP"/tests/t[0-9]*.sh; do
		[ -f "$t" ] || continue
		in_area "$(basename "$t")" || continue
		[ $first = 1 ] || ! grep -qx '# test: once' "$t" || continue
		n=$((n + 1))
		if grep -qx '# test: alone' "$t"; then
			echo "$n e2e $build $t" >>"$W/alone"
		else
			echo "$n e2e $build $t" >>"$W/queue"
		fi
	done
	first=0
done

# run_one INDEX KIND BUILD FILE: its output in $W/INDEX.log, the lines
# to count in $W/INDEX.t, then $W/INDEX.done holding its time
run_one () {
	log=$W/$1.log
	start=$(date +%s%N)
	if [ "$2" = unit ]; then
		if ! "$4" >"$log" 2>&1; then
			grep -q '^not ok' "$log" ||
				echo "not ok 0 - $(basename "$4") exited abnormally" >>"$log"
		fi
		{
			grep '^\(ok\|not ok\|skip\) ' "$log"
			grep -q '^not ok' "$log" &&
				grep -v '^\(ok\|not ok\|skip\) ' "$log" |
				sed 's/^/#   /' | head -n 40
		} >"$W/$1.t"
	else
		if ! BUILD="$3" sh "$4" >"$log" 2>&1; then
			grep -q '^not ok' "$log" ||
				echo "not ok 0 - $(basename "$4") exited abnormally" >>"$log"
		fi
		mv "$log" "$W/$1.t"
	fi
	end=$(date +%s%N)
	ms=$(((end - start) / 1000000))
	echo "$((ms / 1000)).$((ms / 100 % 10))" >"$W/$1.done.tmp"
	mv "$W/$1.done.tmp" "$W/$1.done"
}

# a lane: takes the next unclaimed file of each queue given, in turn
lane () {
	for q in "$@"; do
		while read -r i kind build t; do
			mkdir "$W/claim.$i" 2>/dev/null || continue
			run_one "$i" "$kind" "$build" "$t"
		done <"$W/$q"
	done
}

pids=
if [ -s "$W/alone" ]; then
	lane alone queue &
	pids="$pids $!"
	rest=$((jobs - 1))
	[ $rest -ge 1 ] || rest=0
else
	rest=$jobs
fi
i=0
while [ $i -lt $rest ]; do
	lane queue &
	pids="$pids $!"
	i=$((i + 1))
done
trap 'kill $pids 2>/dev/null; exit 130' INT TERM

lanes_alive () {
	for p in $pids; do
		kill -0 "$p" 2>/dev/null && return 0
	done
	# the last lane may have finished this file as it ended
	[ -f "$W/$i.done" ]
}

tally () {
	# $1: label; reads a test's output on stdin
	in_fail=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*) pass=$((pass + 1)); echo "  $line"; in_fail=0 ;;
		"not ok "*) fail=$((fail + 1)); echo "$1: $line"
			echo "$bname $1: $line" >>"$failed"
			echo "$bname $1: $line" >>"$failed.list"; in_fail=1 ;;
		"skip "*) skip=$((skip + 1)); echo "$1: $line"; in_fail=0 ;;
		"#"*) echo "$line"
			[ $in_fail = 0 ] || echo "$line" >>"$failed" ;;
		esac
	done
}

# prints each file in queue order as soon as it and those before it are done
shown=
sort -n "$W/queue" "$W/alone" >"$W/all"
while read -r i kind build t; do
	if [ "$build" != "$shown" ]; then
		echo "== $build"
		shown=$build
	fi
	while [ ! -f "$W/$i.done" ]; do
		if ! lanes_alive; then
			# a lane killed from outside: say so, do not wait forever
			echo "not ok 0 - $(basename "$t") never finished" >>"$W/$i.t"
			echo "?" >"$W/$i.done"
			break
		fi
		sleep 0.2
	done
	bname=${build#"$TOP"/}
	name=$(basename "$t")
	echo "-- $name ($(cat "$W/$i.done") s)"
	tally "$name" <"$W/$i.t"
done <"$W/all"
wait
if [ "$fail" -gt 0 ]; then
	echo "== what failed, with what the tests printed"
	head -n 150 "$failed"
	echo "== what failed"
	head -n 20 "$failed.list"
fi
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
