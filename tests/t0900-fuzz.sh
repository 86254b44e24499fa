#!/bin/sh
# test: once
# Hostile input: every input a fuzz target ever crashed on (kept under
# tests/fuzz/regressions/<target>/) is replayed through its target, and
# through the normal kmemtrace (report and check, or pageowner): no
# signal, exit 0, 1 or 3, and a refusal is one line naming the file.
# Then each target runs briefly on a copy of its seeds (a smoke run).
# The targets need clang's libFuzzer; without it they are skipped.
. "$(dirname "$0")/lib.sh"

REG=$TOP/tests/fuzz/regressions
FUZZ=$TOP/build/fuzz
TARGETS="perfdata perfpipe tracedat6 tracedat7 tracedatz ftrace perfscript pageowner report"

# exit status of the normal build on a file: never a signal; a refusal
# (exit 1) is one line on stderr naming the file
normal_build () {
	for f in "$REG"/*/*; do
		[ -f "$f" ] || continue
		case "$f" in
		*/pageowner/*) set -- pageowner -o /dev/null ;;
		*) set -- report -o /dev/null ;;
		esac
		"$KMEMTRACE" "$@" "$f" >/dev/null 2>err
		rc=$?
		case $rc in
		0|3) ;;
		1)
			if [ "$(wc -l <err)" -ne 1 ] ||
			   ! grep -q "^kmemtrace $1: error: .*$f" err; then
				echo "$1 $f: exit 1 without one error line naming it:" >&2
				cat err >&2
				return 1
			fi ;;
		*)
			echo "$1 $f: exit $rc" >&2
			cat err >&2
			return 1 ;;
		esac
		[ "$1" = report ] || continue
		"$KMEMTRACE" check "$f" >/dev/null 2>err
		rc=$?
		case $rc in
		0|1|3) ;;
		*)
			echo "check $f: exit $rc" >&2
			cat err >&2
			return 1 ;;
		esac
		if [ -s err ] && { [ "$(wc -l <err)" -ne 1 ] ||
				   ! grep -q "^kmemtrace check: error: .*$f" err; }; then
			echo "check $f: not one error line naming it:" >&2
			cat err >&2
			return 1
		fi
	done
	return 0
}

test_expect_success 'regression inputs: the normal build refuses them in one line, never crashes' '
	normal_build
'

cat >probe.c <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }
EOF
if ! command -v clang >/dev/null 2>&1; then
	test_skip 'fuzz targets' 'clang is not installed'
	test_done
	exit
fi
if ! clang -fsanitize=fuzzer,address,undefined -o probe probe.c \
	>/dev/null 2>&1; then
	test_skip 'fuzz targets' "clang's libFuzzer is missing (libclang-rt-dev)"
	test_done
	exit
fi

test_expect_success 'the fuzz targets build' '
	make -C "$TOP" -s fuzz-build >build.log 2>&1 || { tail -n 20 build.log; false; }
'

# libtraceevent's parser leaks (tests/fuzz/lsan.supp says which)
cat "$TOP/tests/lsan.supp" "$TOP/tests/fuzz/lsan.supp" >lsan.supp
LSAN_OPTIONS=suppressions=$TRASH/lsan.supp:print_suppressions=0
export LSAN_OPTIONS

for t in $TARGETS; do
	test_expect_success "$t: every regression input replays without a finding" '
		set -- "$REG/$t"/*
		[ -f "$1" ] || exit 0
		"$FUZZ/fuzz-$t" -rss_limit_mb=1024 -malloc_limit_mb=1024 \
			-timeout=60 "$@" >replay.log 2>&1 ||
			{ grep -E "ERROR|SUMMARY|runtime error|Test unit" replay.log | head -n 10; false; }
	'
done

# seeds as make fuzz takes them: its copy of them, or the recordings
seeds () {
	make -C "$TOP" -s --no-print-directory fuzz-seeds FUZZ_TARGETS="$1"
}

# A fixed seed: the smoke run mutates the same way on every machine and
# every run, so that make check passes or fails alike everywhere (a new
# finding belongs to the long runs of make fuzz, whose seeds vary).
for t in $TARGETS; do
	test_expect_success "$t: a smoke run finds nothing" '
		mkdir -p "corpus-$t" "crash-$t" &&
		for s in $(seeds $t); do cp "$TOP/$s" "corpus-$t/" || exit 1; done &&
		"$FUZZ/fuzz-$t" -rss_limit_mb=1024 -malloc_limit_mb=1024 \
			-max_len=400000 -timeout=30 -runs=2000 -max_total_time=8 -seed=1 \
			-artifact_prefix="$TRASH/crash-$t/" "corpus-$t" \
			>smoke.log 2>&1 ||
			{ grep -E "ERROR|SUMMARY|runtime error|Test unit" smoke.log | head -n 10; false; }
	'
done

test_done
