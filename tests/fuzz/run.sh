#!/bin/sh
# Runs one fuzz target for a time: run.sh DIR TARGET SECONDS FLAGS SEED...
# The seeds are copied into DIR/corpus/TARGET (the corpus grows there,
# never in the tree), crashes go to DIR/crashes/TARGET, the log to
# DIR/TARGET.log.  Exits 1 when the target found a crash or a leak.
dir=$1 target=$2 time=$3 flags=$4
shift 4
mkdir -p "$dir/corpus/$target" "$dir/crashes/$target" || exit 1
for seed in "$@"; do
	[ -e "$dir/corpus/$target/$(basename "$seed")" ] ||
		cp "$seed" "$dir/corpus/$target/" || exit 1
done
top=$(cd "$(dirname "$0")/../.." && pwd)
# the leaks inside system libraries that tests/lsan.supp and
# tests/fuzz/lsan.supp explain
cat "$top/tests/lsan.supp" "$top/tests/fuzz/lsan.supp" >"$dir/lsan.supp" || exit 1
LSAN_OPTIONS=suppressions=$dir/lsan.supp:print_suppressions=0
export LSAN_OPTIONS
# A trace.dat input leaks a few bytes inside libtracecmd (suppressed), so
# libFuzzer runs a whole leak check after each: that check walks every
# chunk of the heap, and ASan's default 256 MB quarantine of freed chunks
# made it cost more than the input.  16 MB still catches a use after a
# recent free; a short malloc stack still names the suppressed frames.
: "${ASAN_OPTIONS=quarantine_size_mb=16:malloc_context_size=8}"
export ASAN_OPTIONS
echo "  FUZZ   $target for ${time}s (log: $dir/$target.log)"
# shellcheck disable=SC2086
if ! "$dir/fuzz-$target" $flags -max_total_time="$time" \
	-artifact_prefix="$dir/crashes/$target/" "$dir/corpus/$target" \
	>"$dir/$target.log" 2>&1; then
	echo "  FAILED $target: see $dir/$target.log and $dir/crashes/$target" >&2
	grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$dir/$target.log" |
		head -n 5 >&2
	exit 1
fi
grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$dir/$target.log" |
	sed 's/^/         /'
