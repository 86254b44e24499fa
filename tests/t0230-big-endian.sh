#!/bin/sh
# Recorded on one architecture, analysed on another: the committed
# little-endian recordings rewritten as a big-endian machine (s390x,
# ppc64 big-endian) writes them (tests/make-big-endian.py: every number
# turned, texts kept), then read by every reader of binary input.  Every
# figure of report, in JSON, with every view, and of check must be the
# original's; only the format line says the byte order.  trace-cmd
# report and perf script, which read the other byte order themselves,
# first check that the rewrite is a true one.
#
#   capture.v6.dat, capture.v7.dat   trace.dat v6 and v7 (kernel stacks)
#   capture.dat, capture-lost.dat    zstd v7, uncompressed first with
#                                    trace-cmd convert (missed-events
#                                    pages in the second)
#   perf-both-g.data, perf-lost.data perf.data (call chains; LOST and
#                                    LOST_SAMPLES records)
#   perf-slab-pipe.data              the pipe form, also through stdin
#                                    (perf 6.1 itself cannot read a pipe
#                                    form of the other byte order: it
#                                    does not turn HEADER_FEATURE ids)
. "$(dirname "$0")/lib.sh"

BE=$TESTS_DIR/make-big-endian.py
DUMP=$HELPERS/kmt-dump-events
VIEWS="--leaks --errors --procs --pcpu --extfrag --caches --sizes --lifetimes --timeline"

have_trace_cmd=
command -v trace-cmd >/dev/null 2>&1 && have_trace_cmd=1
have_perf=
command -v perf >/dev/null 2>&1 &&
	perf script -f -i "$DATA/perf-lost.data" >/dev/null 2>&1 && have_perf=1

# JSON without the lines naming the input and its format
strip () {
	grep -v '^  "\(input\|file\|format\)": ' "$1"
}

FILES="capture.v6.dat capture.v7.dat perf-both-g.data perf-lost.data perf-slab-pipe.data"
for f in $FILES; do
	cp "$DATA/$f" "le.$f"
done
if [ -n "$have_trace_cmd" ]; then
	for f in capture.dat capture-lost.dat; do
		trace-cmd convert -i "$DATA/$f" -o "le.$f" --file-version 7 \
			--compression none >/dev/null 2>&1 || exit 1
	done
	FILES="$FILES capture.dat capture-lost.dat"
else
	test_skip 'the zstd trace.dat files in big-endian' 'no trace-cmd to uncompress them'
fi

for f in $FILES; do
	test_expect_success "$f: rewritten big-endian" '
		python3 "$BE" le.'$f' be.'$f' &&
		! cmp -s le.'$f' be.'$f' &&
		test $(wc -c <le.'$f') = $(wc -c <be.'$f') &&
		case '$f' in
		*.dat) test "$(od -An -tu1 -j12 -N1 be.'$f' | tr -d " ")" = 1 ;;
		*) test "$(head -c 8 be.'$f')" = 2ELIFREP ;;
		esac
	'

	case $f in
	*.dat) tool=$have_trace_cmd ;;
	*-pipe.data) tool= ;;
	*) tool=$have_perf ;;
	esac
	if [ -n "$tool" ]; then
		test_expect_success "$f: trace-cmd report or perf script reads it as the original" '
			case '$f' in
			*.dat)
				trace-cmd report -i le.'$f' >want 2>&1 &&
				trace-cmd report -i be.'$f' >got 2>&1 &&
				test $(wc -l <want) -gt 50 ;;
			*)
				# both named from the same kallsyms, not
				# the kernel this machine runs; perf says it
				# cannot show the BPF
				# features of the other byte order
				perf script -f -i le.'$f' --ns --kallsyms="$REC_KALLSYMS" -F tid,cpu,time,event,trace,ip >want 2>&1 &&
				perf script -f -i be.'$f' --ns --kallsyms="$REC_KALLSYMS" -F tid,cpu,time,event,trace,ip 2>&1 |
				grep -v "^interpreting .* from systems with endianness is not yet supported$" >got &&
				test $(wc -l <want) -gt 50 &&
				test_cmp want got &&
				# the feature sections as perf shows them
				perf report -f --header-only -I -i le.'$f' 2>&1 |
				grep -v "^# captured on" >want &&
				perf report -f --header-only -I -i be.'$f' 2>&1 |
				grep -v "^# captured on" |
				grep -v "^interpreting .* from systems with endianness is not yet supported$" >got &&
				grep -q "^# sibling sockets" want && grep -q "^# node0 meminfo" want ;;
			esac &&
			test_cmp want got
		'
	fi

	test_expect_success "$f: every event read the same, field by field" '
		"$DUMP" -s le.'$f' | grep -v "^# format" >want &&
		"$DUMP" -s be.'$f' | grep -v "^# format" >got &&
		test $(grep -c -v "^#" want) -gt 50 &&
		test_cmp want got &&
		"$DUMP" -s - <be.'$f' | grep -v "^# format" >stdin &&
		test_cmp want stdin
	'

	test_expect_success "$f: report --slab --page --caller --alloc: every figure the same" '
		"$KMEMTRACE" report --slab --page --caller --alloc --json -i le.'$f' >le.json &&
		"$KMEMTRACE" report --slab --page --caller --alloc --json -i be.'$f' >be.json &&
		grep -q "^  \"format\": \"[^\"]*, big-endian\",$" be.json &&
		! grep -q "endian" le.json &&
		strip le.json >want && strip be.json >got &&
		test_cmp want got
	'

	test_expect_success "$f: every view the same" '
		"$KMEMTRACE" report $VIEWS --json -i le.'$f' >le.json &&
		"$KMEMTRACE" report $VIEWS --json -i be.'$f' >be.json &&
		strip le.json >want && strip be.json >got &&
		test $(wc -l <want) -gt 100 &&
		test_cmp want got
	'

	test_expect_success "$f: check says ok, with the same counts" '
		"$KMEMTRACE" check --json le.'$f' >le.json &&
		"$KMEMTRACE" check --json be.'$f' >be.json &&
		grep -q "\"status\": \"ok\"" be.json &&
		strip le.json >want && strip be.json >got &&
		test_cmp want got
	'
done

test_expect_success 'what the rewrite cannot turn is refused' '
	test_must_fail python3 "$BE" "$DATA/perf-z.data" x 2>err &&
	grep -q "type 81" err &&
	test_must_fail python3 "$BE" "$DATA/capture.dat" x 2>err &&
	grep -q "compressed" err &&
	test_must_fail python3 "$BE" be.capture.v6.dat x 2>err &&
	grep -q "already big-endian" err
'

test_done
