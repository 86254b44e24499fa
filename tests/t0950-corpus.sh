#!/bin/sh
# Other people's recordings (../shared/corpus beside the repository, or
# $KMT_CORPUS): every file is read, with the figures
# tests/corpus/expected.txt holds for it, which trace-cmd report and perf
# script give too where they can read the file; or it is refused with the
# reason held there, in one line naming the file.  A file that is not
# listed is held to that much: read, or refused in one line, never a
# crash.  Skipped where there is no corpus.
. "$(dirname "$0")/lib.sh"

CORPUS=${KMT_CORPUS:-$TOP/../shared/corpus}
EXP=$TESTS_DIR/corpus/expected.txt

if [ ! -d "$CORPUS" ]; then
	test_skip 'other people'\''s recordings' "no corpus at $CORPUS"
	test_done
	exit
fi

have_tc= have_perf=
command -v trace-cmd >/dev/null 2>&1 && have_tc=1
command -v perf >/dev/null 2>&1 && have_perf=1

# what the other tool counts in $1: trace-cmd's event records, perf
# script's samples, the event lines of a text capture
tool_count () {
	case "$(head -c 10 "$1" | od -An -c | tr -d ' \n')" in
	*tracing*)
		[ -n "$have_tc" ] || return 2
		trace-cmd report -i "$1" 2>/dev/null |
			grep -cE '^ *\S.*\[[0-9]+\] +[0-9.]+:' ;;
	PERFILE2*|PERFFILE*)
		[ -n "$have_perf" ] || return 2
		HOME=$TRASH perf script -i "$1" -F event 2>/dev/null | wc -l ;;
	*)
		grep -cE '^ *\S.*\[[0-9]+\] +\S* *[0-9.]+:' "$1" ;;
	esac
}

# check $1 against one line of expected.txt
corpus_file () {
	f=$CORPUS/$1 status=$2 kmem=$3 other=$4 tool=$5
	shift 5
	refusal=$*
	"$KMEMTRACE" check --json "$f" >out.json 2>err
	rc=$?
	if [ "$status" = refused ]; then
		test $rc = 1 && test "$(wc -l <err)" = 1 &&
		grep -F "$refusal" err && grep -F "'$f'" err || return 1
	else
		test $rc -le 1 || return 1
		python3 - "$status" "$kmem" "$other" <<-\PY || return 1
		import json, sys
		d = json.load(open("out.json"))
		want = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), 0, 0)
		got = (d["status"], d["events"], d["other_events"],
		       d["unknown_ids"], d["bad_records"])
		assert got == want, (got, want)
		PY
	fi
	[ "$tool" = - ] && return 0
	n=$(tool_count "$f") || return 0
	test "$n" = "$tool" || { echo "the other tool counts $n, not $tool"; return 1; }
}

while read -r name rest; do
	case "$name" in ''|'#'*) continue ;; esac
	test_expect_success "$name" 'corpus_file "$name" $rest'
done <"$EXP"

test_expect_success 'files not listed: read, or refused in one line naming the file' '
	for f in "$CORPUS"/*; do
		b=$(basename "$f")
		case "$b" in *.md) continue ;; esac
		grep -q "^$b " "$EXP" && continue
		echo "# not in expected.txt: $b"
		"$KMEMTRACE" check "$f" >/dev/null 2>err
		rc=$?
		test $rc -le 1 || { echo "$b: exit $rc"; return 1; }
		test $rc = 0 || { test "$(wc -l <err)" = 1 && grep -F "$f" err; } ||
			return 1
	done
'

test_expect_success 'the foreign kmem recording reports: tables, leaks, errors, procs' '
	f=$CORPUS/HIP24-Masterarbeit_documentation_trace-cmd_analysis_test_trace-Salamander4.dat &&
	if [ -f "$f" ]; then
		"$KMEMTRACE" report "$f" --slab --page --caller --alloc >out &&
		grep "^# events: kmalloc 2461, kmem_cache_alloc 45, kfree 2488, kmem_cache_free 53, mm_page_alloc 585, mm_page_free 572" out &&
		# trace-cmd 3.1.6 built with zlib, on the same file: kmalloc
		# 2444 + kmalloc_node 17 (one type here, as in perf kmem),
		# bytes_req 2590128 + 31146 + 569000 (kmem_cache_alloc),
		# bytes_alloc 2600928 + 56320 + 569224
		grep -x "Total bytes requested: 3190274" out &&
		grep -x "Total bytes allocated: 3226472" out &&
		"$KMEMTRACE" report "$f" --leaks --errors --procs --lifetimes >/dev/null &&
		"$KMEMTRACE" report "$f" --format pprof -o p.pb.gz &&
		test -s p.pb.gz
	fi
'

test_done
