#!/bin/sh
# Runs every unit test binary and every end-to-end test once per build
# directory given (the plain build, then the sanitizer build) and ends
# with one line "N passed, N failed[, N skipped]".  An end-to-end test
# with the line "# test: once" tests the tree, not a build: it runs with
# the first build directory only.
TOP=$(cd "$(dirname "$0")/.." && pwd)
# leaks inside the system libraries, for the sanitizer build (lsan.supp)
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TOP/tests/lsan.supp:print_suppressions=0}
export LSAN_OPTIONS
export KMT_TEST_DATA="$TOP/tests/data"
pass=0 fail=0 skip=0
log=$(mktemp)
# every failure again at the end, with its diagnostics, so that the last
# lines of a long run (all a CI log may keep) say what failed
failed=$(mktemp)

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

first=1
for build in "$@"; do
	case "$build" in /*) ;; *) build="$TOP/$build" ;; esac
	echo "== $build"
	bname=${build#"$TOP"/}
	for t in "$build"/tests/test-*; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		if ! "$t" >"$log" 2>&1; then
			grep -q '^not ok' "$log" ||
				echo "not ok 0 - $name exited abnormally" >>"$log"
		fi
		{
			grep '^\(ok\|not ok\|skip\) ' "$log"
			grep -q '^not ok' "$log" &&
				grep -v '^\(ok\|not ok\|skip\) ' "$log" |
				sed 's/^/#   /' | head -n 40
		} >"$log.t"
		tally "$name" <"$log.t"
	done
	for t in "$TOP"/tests/t[0-9]*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t")
		[ $first = 1 ] || ! grep -qx '# test: once' "$t" || continue
		if ! BUILD="$build" sh "$t" >"$log" 2>&1; then
			grep -q '^not ok' "$log" ||
				echo "not ok 0 - $name exited abnormally" >>"$log"
		fi
		tally "$name" <"$log"
	done
	first=0
done
if [ "$fail" -gt 0 ]; then
	echo "== what failed, with what the tests printed"
	head -n 150 "$failed"
	echo "== what failed"
	head -n 20 "$failed.list"
fi
rm -f "$log" "$log.t" "$failed" "$failed.list"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
