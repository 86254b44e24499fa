# Shell test library, sourced by tests/tNNNN-*.sh.
#
#   test_expect_success 'title' 'commands'   passes when commands succeed
#   test_skip 'title' 'reason'               reports a skip with its reason
#   test_done                                ends the file
#
# Each file runs in its own scratch directory ($TRASH).  $KMEMTRACE is the
# binary under test, $DATA the committed recordings, $EXPECTED the expected
# outputs, $HELPERS the test helper binaries.

set -u
TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
BUILD=${BUILD:-$TOP/build}
KMEMTRACE=${KMEMTRACE:-$BUILD/kmemtrace}
HELPERS=${HELPERS:-$BUILD/tests}
DATA=$TESTS_DIR/data
EXPECTED=$TESTS_DIR/expected
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/kmt-test.XXXXXX")
export KMEMTRACE HELPERS DATA EXPECTED TRASH
# leaks inside the system libraries, for the sanitizer build (lsan.supp)
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TESTS_DIR/lsan.supp:print_suppressions=0}
export LSAN_OPTIONS
test_count=0
test_failed=0
trap 'rm -rf "$TRASH"' EXIT
cd "$TRASH" || exit 1

. "$TESTS_DIR/buildid.sh"
# run.sh makes it once for all the files it runs ($KMT_TEST_BUILDID_DIR,
# read-only to the tests); a file run by itself makes its own
if [ -n "${KMT_TEST_BUILDID_DIR:-}" ] &&
   [ -f "$KMT_TEST_BUILDID_DIR/[kernel.kallsyms]/$REC_BUILD_ID/kallsyms" ] &&
   [ -f "$KMT_TEST_BUILDID_DIR/[kernel.kallsyms]/$PV_BUILD_ID/kallsyms" ]; then
	PERF_BUILDID_DIR=$KMT_TEST_BUILDID_DIR
else
	PERF_BUILDID_DIR=$TRASH/buildid
	make_buildid_dir "$PERF_BUILDID_DIR" || exit 1
fi
# the same file for perf's --kallsyms: perf reads no $PERF_BUILDID_DIR
# (it only sets it for its scripts) and takes /proc/kallsyms when the
# running kernel has the recording's build id
REC_KALLSYMS=$PERF_BUILDID_DIR/[kernel.kallsyms]/$REC_BUILD_ID/kallsyms
export PERF_BUILDID_DIR REC_KALLSYMS
# nor a user's ~/.perfconfig, which can change what perf prints
PERF_CONFIG=/dev/null
export PERF_CONFIG

test_expect_success () {
	test_count=$((test_count + 1))
	[ -z "${KMT_TEST_TIMES:-}" ] || t0=$(date +%s%N)
	if (eval "$2") >"$TRASH/.out" 2>&1; then
		echo "ok $test_count - $1"
	else
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$TRASH/.out" | tail -n 40
		test_failed=$((test_failed + 1))
	fi
	# KMT_TEST_TIMES=FILE: "milliseconds file number title" a line, to
	# find what makes a file slow
	[ -z "${KMT_TEST_TIMES:-}" ] ||
		echo "$((($(date +%s%N) - t0) / 1000000)) $(basename "$0") $test_count $1" \
			>>"$KMT_TEST_TIMES"
}

test_skip () {
	test_count=$((test_count + 1))
	echo "skip $test_count - $1 ($2)"
}

# fails when a count in FILE disagrees with its noun: "1 event",
# "2 events", "1.2K events" ("1 events" and "2 event" fail)
counts_agree () {
	python3 - "$1" <<-\EOF
	import re, sys
	bad = []
	for line in open(sys.argv[1]):
	    for n, noun in re.findall(r"(?<![\w/.])~?([\d.]+[KMG]?) (events?|objects?|bytes?|process(?:es)?|rows?|stacks?|address(?:es)?|frees?|allocations?)\b", line):
	        one = n == "1"
	        if one != (noun in ("event", "object", "byte", "process", "row", "stack", "address", "free", "allocation")):
	            bad.append((n, noun, line.strip()))
	assert not bad, bad
	EOF
}

# compares expected with actual, showing the difference
test_cmp () {
	diff -u "$1" "$2"
}

# fails unless the command fails (non-zero, not a crash)
test_must_fail () {
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "expected failure, got success: $*" >&2
		return 1
	fi
	if [ $rc -ge 128 ]; then
		echo "crashed with signal $((rc - 128)): $*" >&2
		return 1
	fi
	return 0
}

# fails unless the command is refused as a mistake in its command line:
# exit 129 and one line on stderr (left in err)
test_usage_error () {
	"$@" >usage.out 2>err
	rc=$?
	if [ $rc -ne 129 ] || [ "$(wc -l <err)" -ne 1 ]; then
		echo "expected exit 129 and one line, got $rc: $*" >&2
		cat err >&2
		return 1
	fi
	return 0
}

have_root_tracefs () {
	[ "$(id -u)" = 0 ] || return 1
	[ -d /sys/kernel/tracing/events/kmem ] && return 0
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events/kmem ]
}

test_done () {
	[ "$test_failed" = 0 ]
}

# succeeds when top's BPF programs load here with every tracepoint of
# percpu and vmalloc and bpftool is there (tests/helpers/plant-maps.sh
# plants with it); else prints why not, for test_skip
have_bpf_rare () {
	[ "$(id -u)" = 0 ] || { echo "needs root"; return 1; }
	[ -r /sys/kernel/btf/vmlinux ] || { echo "needs the kernel's BTF"; return 1; }
	command -v bpftool >/dev/null || [ -x /usr/sbin/bpftool ] ||
		{ echo "needs bpftool"; return 1; }
	if ! "$KMEMTRACE" top -b -n 1 -d 0.1 >bpf.out 2>bpf.err &&
	   grep -q "cannot use BPF" bpf.err; then
		head -n 1 bpf.err
		return 1
	fi
	# an older kernel: top says which tracepoints it lacks
	if grep "^not traced: " bpf.out; then
		return 1
	fi
}

# succeeds once no kmemtrace BPF program is in the kernel, waiting up to
# 5 s: the kernel frees a program after a grace period once the last
# descriptor is closed, so one may outlive its process briefly.  While a
# kmemtrace runs (another test's), its programs are its own.
bpf_programs_gone () {
	i=0
	while bpftool prog show 2>/dev/null | grep "name kmt_"; do
		pgrep -x kmemtrace >/dev/null && return 0
		i=$((i + 1))
		[ $i -le 50 ] || return 1
		sleep 0.1
	done
	return 0
}

# wait_for RE FILE: up to 20 s for a line of FILE matching RE; the file
# is shown when none comes.  A background command's output file is
# emptied when that command starts (`cmd >f &` truncates f in the
# child), maybe after wait_for already read an earlier test's f: empty
# it before starting the command
wait_for () {
	_wf_i=0
	while ! grep -q "$1" "$2" 2>/dev/null; do
		_wf_i=$((_wf_i + 1))
		[ $_wf_i -le 200 ] || {
			echo "no '$1' in $2" >&2
			cat "$2" >&2 2>/dev/null
			return 1
		}
		sleep 0.1
	done
}
