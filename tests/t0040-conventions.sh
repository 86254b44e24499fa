#!/bin/sh
# One set of command-line conventions, checked for every command from the
# tables below: the input as -i FILE, as FILE and as '-' (stdin); -o FILE;
# a single-valued option given twice; unknown options; numbers out of
# their bounds; -h; unknown sort keys; the exit codes: 0 done, 1 bad
# input, 2 cannot write, 129 a mistake in the command line.
# test: alone
. "$(dirname "$0")/lib.sh"

# command   sample input (under tests/data; - none)   --json   sort option
COMMANDS='
report      capture.dat                 json    -s
check       capture.dat                 json    -
pageowner   pageowner/current.txt       json    --sort
allocinfo   allocinfo/v1.txt            json    -s
stat        -                           json    -
record      -                           -       -
'

# command   option       min  max: every number option, its bounds
NUMBERS='
report      -l           0    2147483647
report      --limit      0    2147483647
report      --line       0    2147483647
report      --threads    0    2
report      --top        1    2147483647
pageowner   -l           0    2147483647
pageowner   --line       0    2147483647
pageowner   --threads    0    64
record      -b           0    67108864
stat        -I           10   2147483647
allocinfo   -l           0    2147483647
allocinfo   -I           1    86400
allocinfo   -n           1    2147483647
diff        -l           0    2147483647
diff        --limit      0    2147483647
top         -l           0    2147483647
watch       -l           0    2147483647
serve       --top        1    10000
'

# commands the tables above check only in part, and why: diff takes two
# inputs; top, watch and serve read the kernel, not an input
PARTLY='diff top watch serve'

# the rows of a table, one a line, without blank lines
rows () {
	printf '%s\n' "$1" | grep .
}

# what stays the same whichever way the input came: the name goes
normalize () {
	sed -e '/^file: /d' -e '/^# input: /d' "$1"
}

# expect CODE LINE CMD...: CMD exits CODE with LINE, alone, on stderr
expect () {
	code=$1 line=$2
	shift 2
	"$@" >out 2>err </dev/null
	rc=$?
	echo "$line" >err.expect
	if [ $rc != "$code" ] || ! test_cmp err.expect err; then
		echo "exit $rc, want $code: $*" >&2
		return 1
	fi
}

test_expect_success '-h: the usage on stdout, exit 0' '
	rows "$COMMANDS" | while read cmd input json sort; do
		"$KMEMTRACE" $cmd -h >out 2>err &&
		head -1 out | grep -q "^usage: kmemtrace $cmd " &&
		! test -s err || { echo "in $cmd"; return 1; }
	done
'

test_expect_success 'an unknown option: one line pointing to -h, exit 129' '
	rows "$COMMANDS" | while read cmd input json sort; do
		for opt in --no-such-option -Z; do
			expect 129 "kmemtrace $cmd: error: unknown option '\''$opt'\'' (see '\''kmemtrace $cmd -h'\'')" \
				"$KMEMTRACE" $cmd $opt && ! test -s out || return 1
		done
	done
'

test_expect_success 'an option without its value: one line, exit 129' '
	rows "$COMMANDS" | while read cmd input json sort; do
		expect 129 "kmemtrace $cmd: error: option '\''-o'\'' needs a value (see '\''kmemtrace $cmd -h'\'')" \
			"$KMEMTRACE" $cmd -o || return 1
	done
'

test_expect_success 'a single-valued option given twice: one line naming it, exit 129' '
	rows "$COMMANDS" | while read cmd input json sort; do
		expect 129 "kmemtrace $cmd: error: option '\''-o'\'' given twice ('\''a'\'', then '\''b'\'') (see '\''kmemtrace $cmd -h'\'')" \
			"$KMEMTRACE" $cmd -o a -o b || return 1
		test "$input" = - && continue
		expect 129 "kmemtrace $cmd: error: option '\''--input'\'' given twice ('\''a'\'', then '\''b'\'') (see '\''kmemtrace $cmd -h'\'')" \
			"$KMEMTRACE" $cmd -i a --input b || return 1
	done &&
	rows "$NUMBERS" | while read cmd opt min max; do
		expect 129 "kmemtrace $cmd: error: option '\''$opt'\'' given twice ('\''$max'\'', then '\''$min'\'') (see '\''kmemtrace $cmd -h'\'')" \
			"$KMEMTRACE" $cmd $opt $max $opt $min || return 1
	done &&
	expect 129 "kmemtrace report: error: option '\''--line'\'' given twice ('\''1'\'', then '\''2'\'') (see '\''kmemtrace report -h'\'')" \
		"$KMEMTRACE" report -l 1 --line 2
'

test_expect_success 'list options join when repeated' '
	"$KMEMTRACE" report -i "$DATA/capture.dat" --procs --pid 1 --pid 2 --json >a &&
	"$KMEMTRACE" report -i "$DATA/capture.dat" --procs --pid 1,2 --json >b &&
	test_cmp a b
'

test_expect_success 'numbers: one message with the bounds, exit 129' '
	rows "$NUMBERS" | while read cmd opt min max; do
		for v in abc 99999999999 $((min - 1)) 1x ""; do
			[ "$v" = 2147483648 ] && continue
			expect 129 "kmemtrace $cmd: error: option '\''$opt'\'' needs a number from $min to $max, not '\''$v'\'' (see '\''kmemtrace $cmd -h'\'')" \
				"$KMEMTRACE" $cmd $opt "$v" || return 1
		done
		[ "$max" = 2147483647 ] && continue
		expect 129 "kmemtrace $cmd: error: option '\''$opt'\'' needs a number from $min to $max, not '\''$((max + 1))'\'' (see '\''kmemtrace $cmd -h'\'')" \
			"$KMEMTRACE" $cmd $opt $((max + 1)) || return 1
	done
'

test_expect_success 'the input as -i FILE, as FILE, as - and as a pipe: the same output' '
	rows "$COMMANDS" | while read cmd input json sort; do
		test "$input" = - && continue
		f=$DATA/$input
		"$KMEMTRACE" $cmd -i "$f" >by-i &&
		"$KMEMTRACE" $cmd --input="$f" >by-input &&
		"$KMEMTRACE" $cmd "$f" >by-arg &&
		"$KMEMTRACE" $cmd - <"$f" >by-dash &&
		"$KMEMTRACE" $cmd -i - <"$f" >by-i-dash &&
		cat "$f" | "$KMEMTRACE" $cmd >by-pipe &&
		test -s by-i || return 1
		normalize by-i >expect
		for how in input arg dash i-dash pipe; do
			normalize by-$how >actual &&
			test_cmp expect actual || { echo "$cmd by $how"; return 1; }
		done
	done
'

test_expect_success 'the input given both ways, or two inputs: one line, exit 129' '
	rows "$COMMANDS" | while read cmd input json sort; do
		test "$input" = - && continue
		expect 129 "kmemtrace $cmd: error: the input given twice, as -i '\''a'\'' and as '\''b'\'' (see '\''kmemtrace $cmd -h'\'')" \
			"$KMEMTRACE" $cmd -i a b || return 1
	done &&
	expect 129 "kmemtrace report: error: one input at a time, not '\''a'\'' and '\''b'\'' (see '\''kmemtrace report -h'\'')" \
		"$KMEMTRACE" report a b &&
	expect 129 "kmemtrace check: error: one recording at a time, not '\''a'\'' and '\''b'\'' (see '\''kmemtrace check -h'\'')" \
		"$KMEMTRACE" check a b
'

test_expect_success 'no input: kmemtrace.dat here, else one line, exit 1' '
	mkdir empty && cd empty &&
	for cmd in report check; do
		expect 1 "kmemtrace $cmd: error: no input: kmemtrace.dat does not exist (give -i FILE)" \
			"$KMEMTRACE" $cmd && ! test -s out || return 1
		cp "$DATA/capture.dat" kmemtrace.dat &&
		"$KMEMTRACE" $cmd </dev/null >default &&
		"$KMEMTRACE" $cmd -i kmemtrace.dat >given &&
		test_cmp given default &&
		rm kmemtrace.dat || return 1
	done &&
	if ! test -e /sys/kernel/debug/page_owner; then
		expect 1 "kmemtrace pageowner: error: no input: /sys/kernel/debug/page_owner does not exist (mount debugfs and boot with page_owner=on, or give -i FILE)" \
			"$KMEMTRACE" pageowner
	fi
'

test_expect_success 'pageowner: page_owner_sort'\''s <input> <output>, or -i and -o, not both' '
	PO=$DATA/pageowner/current.txt &&
	"$KMEMTRACE" pageowner "$PO" >expect &&
	"$KMEMTRACE" pageowner "$PO" pos.out >out && ! test -s out &&
	test_cmp expect pos.out &&
	"$KMEMTRACE" pageowner -i "$PO" -o opt.out >out && ! test -s out &&
	test_cmp expect opt.out &&
	"$KMEMTRACE" pageowner "$PO" -o mixed.out && test_cmp expect mixed.out &&
	expect 129 "kmemtrace pageowner: error: the output given twice, as -o '\''x'\'' and as '\''y'\'' (see '\''kmemtrace pageowner -h'\'')" \
		"$KMEMTRACE" pageowner "$PO" y -o x &&
	expect 129 "kmemtrace pageowner: error: the input given twice, as -i '\''$PO'\'' and as '\''y'\'' (see '\''kmemtrace pageowner -h'\'')" \
		"$KMEMTRACE" pageowner -i "$PO" y &&
	! test -e x && ! test -e y
'

test_expect_success '-o FILE writes what stdout would have, -o - is stdout' '
	rows "$COMMANDS" | while read cmd input json sort; do
		test "$input" = - && continue
		f=$DATA/$input
		"$KMEMTRACE" $cmd -i "$f" >expect &&
		"$KMEMTRACE" $cmd -i "$f" -o written >out &&
		! test -s out && test_cmp expect written &&
		"$KMEMTRACE" $cmd -i "$f" --output - >dash &&
		test_cmp expect dash || { echo "in $cmd"; return 1; }
	done
'

test_expect_success 'an output named like an option is refused, nothing written' '
	for cmd in report check pageowner allocinfo stat record top watch diff; do
		expect 129 "kmemtrace $cmd: error: option '\''-o'\'' names the file to write, not '\''-i'\'', which looks like an option (write ./-i for a file of that name) (see '\''kmemtrace $cmd -h'\'')" \
			"$KMEMTRACE" $cmd -o -i x || return 1
	done &&
	expect 129 "kmemtrace report: error: option '\''--html'\'' names the file to write, not '\''-i'\'', which looks like an option (write ./-i for a file of that name) (see '\''kmemtrace report -h'\'')" \
		"$KMEMTRACE" report --html -i "$DATA/capture.dat" &&
	! test -e ./-i &&
	"$KMEMTRACE" report -i "$DATA/capture.dat" -o ./-w >out &&
	test -s ./-w
'

test_expect_success 'an output that cannot be written: one line, exit 2' '
	rows "$COMMANDS" | while read cmd input json sort; do
		test "$input" = - && continue
		f=$DATA/$input
		expect 2 "kmemtrace $cmd: error: cannot write '\''nodir/x'\'': No such file or directory" \
			"$KMEMTRACE" $cmd -i "$f" -o nodir/x || return 1
		test -w /dev/full || continue
		expect 2 "kmemtrace $cmd: error: cannot write '\''/dev/full'\'': No space left on device" \
			"$KMEMTRACE" $cmd -i "$f" -o /dev/full || return 1
	done
'

test_expect_success 'a file that is no input, or none at all: one line, exit 1' '
	rows "$COMMANDS" | while read cmd input json sort; do
		test "$input" = - && continue
		"$KMEMTRACE" $cmd /etc/passwd >out 2>err; rc=$?
		test $rc = 1 && test $(wc -l <err) = 1 &&
		grep -q "^kmemtrace $cmd: error: .*/etc/passwd" err &&
		! test -s out || { echo "$cmd /etc/passwd: exit $rc"; cat err; return 1; }
		"$KMEMTRACE" $cmd -i nosuch.file >out 2>err; rc=$?
		test $rc = 1 && test $(wc -l <err) = 1 &&
		grep -q "^kmemtrace $cmd: error: cannot open '\''nosuch.file'\'': No such file or directory" err &&
		! test -s out || { echo "$cmd nosuch.file: exit $rc"; cat err; return 1; }
	done
'

test_expect_success '--json: errors are one JSON object on stdout too' '
	rows "$COMMANDS" | while read cmd input json sort; do
		test "$json" = json || continue
		"$KMEMTRACE" $cmd --json --no-such-option >out 2>err; rc=$?
		test $rc = 129 && test $(wc -l <err) = 1 &&
		python3 -c "import json,sys; d = json.load(open(\"out\")); assert d == {\"error\": \"unknown option '\''--no-such-option'\''\"}, d" ||
			{ echo "in $cmd"; return 1; }
		test "$input" = - && continue
		"$KMEMTRACE" $cmd --json -i nosuch.file >out 2>err; rc=$?
		test $rc = 1 && test $(wc -l <err) = 1 &&
		python3 -c "import json,sys; d = json.load(open(\"out\")); assert \"nosuch.file\" in d[\"error\"], d" ||
			{ echo "in $cmd"; return 1; }
	done
'

test_expect_success '-l N: at most N rows, 0 for all, the same in every command' '
	"$KMEMTRACE" report -i "$DATA/capture.dat" --caller >all &&
	"$KMEMTRACE" report -i "$DATA/capture.dat" --caller -l 0 >zero &&
	test_cmp all zero &&
	"$KMEMTRACE" report -i "$DATA/capture.dat" --caller --limit 2 >two &&
	"$KMEMTRACE" report -i "$DATA/capture.dat" --caller --line 2 >line &&
	test_cmp two line &&
	test $(wc -l <two) -lt $(wc -l <all) &&
	PO=$DATA/pageowner/current.txt &&
	"$KMEMTRACE" pageowner "$PO" >all &&
	"$KMEMTRACE" pageowner -l 0 "$PO" >zero &&
	test_cmp all zero &&
	test $(grep -c " times, " all) = 9 &&
	"$KMEMTRACE" pageowner --limit 2 "$PO" | grep -c " times, " >n &&
	echo 2 >expect && test_cmp expect n &&
	"$KMEMTRACE" pageowner --line 2 "$PO" | grep -c " times, " >n &&
	test_cmp expect n
'

test_expect_success 'an unknown sort key lists the keys of the tables asked for' '
	expect 129 "kmemtrace report: error: unknown sort key '\''nosuchkey'\'': slab keys: ptr, callsite, hit, bytes, frag, pingpong; page keys: page, callsite, hit, bytes, order, migtype, gfp; --percpu keys: bytes, allocs, live, size; --vmalloc keys: bytes, allocs, live, failed (see '\''kmemtrace report -h'\'')" \
		"$KMEMTRACE" report -i "$DATA/capture.dat" -s nosuchkey &&
	expect 129 "kmemtrace report: error: unknown sort key '\''outstanding'\'': --procs keys: pid, page_allocs, zone_locked, freed_direct, freed_batched, pcpu_drained, pcpu_drains, pcpu_refills, fallbacks, fragmenting, mt_changed, severe, moderate, slab_allocs, slab_alloc_bytes, slab_frees, slab_freed_bytes, page_alloc_bytes, outstanding_bytes, slab_outstanding_bytes, page_outstanding_bytes, charged_bytes, uncharged_bytes (see '\''kmemtrace report -h'\'')" \
		"$KMEMTRACE" report -i "$DATA/capture.dat" --procs -s outstanding &&
	expect 129 "kmemtrace pageowner: error: unknown sort key '\''nosuchkey'\'' (keys: pid, tgid, name, stacktrace, txt, alloc_ts, allocator, times, pages) (see '\''kmemtrace pageowner -h'\'')" \
		"$KMEMTRACE" pageowner --sort nosuchkey "$DATA/pageowner/current.txt"
'

test_expect_success '-h lists the sort keys of every table' '
	"$KMEMTRACE" report -h >h &&
	sed -n "/^sort keys (-s)/,\$p" h >keys &&
	for table in slab page --leaks --procs --caches; do
		grep -q "^    $table  *[a-z]" keys || { echo "no $table"; return 1; }
	done &&
	for key in pingpong migtype age outstanding_bytes waste; do
		grep -q "[ ,]$key[,) ]\|[ ,]$key\$" keys || { echo "no $key"; return 1; }
	done &&
	"$KMEMTRACE" pageowner -h >h &&
	sed -n "/^sort keys (--sort)/,\$p" h >keys &&
	grep -q "alloc_ts (at)" keys && grep -q "^cull keys (--cull):" keys
'

test_expect_success 'other mistakes in the command line: one line, exit 129' '
	expect 129 "kmemtrace report: error: option '\''--time'\'' needs start,end in seconds as the recording stamps them, or from its start as +S (+1.5,+3), start <= end, not '\''500,499'\'' (see '\''kmemtrace report -h'\'')" \
		"$KMEMTRACE" report --time 500,499 &&
	expect 129 "kmemtrace report: error: --format, --json, --csv and --html exclude each other (see '\''kmemtrace report -h'\'')" \
		"$KMEMTRACE" report --json --csv &&
	expect 129 "kmemtrace report: error: option '\''--json'\'' takes no value (see '\''kmemtrace report -h'\'')" \
		"$KMEMTRACE" report --json=yes
'

if have_root_tracefs; then
	test_expect_success 'record and stat write to -o FILE' '
		"$KMEMTRACE" stat -o counts -- true 2>err &&
		grep -q "Kmem event counts" counts && ! test -s err &&
		"$KMEMTRACE" record -q -o rec.dat -- true &&
		"$KMEMTRACE" check rec.dat | grep -qx "status: ok"
	'
else
	test_skip 'record and stat write to -o FILE' 'needs root and tracefs'
fi

# folder of lib/   the folders its files may include: its own and those
# upstream of it in the data flow (sources -> events -> analyses ->
# report model -> renderers; record writes what source reads, and
# source/tracedat-format.h is the format both share; analyses and the
# in-kernel counting of bpf make reports), and renderers
# only the report model, which says what they draw; run, the engines,
# composes them all and nothing includes it
LAYERS='
util
event       util
source      util event
record      util event source
report      util event
analysis    util event source record report
render      util report
bpf         util event report
run         util event source analysis report render
'

# back_arrows: "lib/FILE includes HEADER" for each include of lib/ that
# the table above does not allow
back_arrows () {
	rows "$LAYERS" >layers
	(cd "$TOP/lib" && grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' */*.[ch]) >includes
	awk '
		FILENAME == "layers" { may[$1] = " " $0 " "; next }
		{
			file = $0; sub(/:.*/, "", file)
			inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
			# the folder'\''s own headers, or generated (kmt.skel.h)
			if (inc !~ /\//)
				next
			from = file; sub(/\/.*/, "", from)
			to = inc; sub(/\/.*/, "", to)
			if (!(from in may))
				print "lib/" from ": a folder the table does not place"
			else if (!index(may[from], " " to " "))
				print "lib/" file " includes " inc
		}' layers includes
}

test_expect_success 'lib/: no include runs back up the data flow' '
	back_arrows >back &&
	: >none &&
	test_cmp none back
'

test_expect_success 'no two test files share a number' '
	(cd "$TOP/tests" && ls t[0-9]*.sh) | cut -c1-5 | sort | uniq -d >dups &&
	: >none &&
	test_cmp none dups
'

test_expect_success 'no command escapes the tables' '
	for cmd in $("$KMEMTRACE" --list-cmds); do
		rows "$COMMANDS" | grep -q "^$cmd " ||
			case " $PARTLY " in *" $cmd "*) ;; *) echo "$cmd"; exit 1 ;; esac
		rows "$NUMBERS" | grep -q "^$cmd " ||
			{ "$KMEMTRACE" $cmd --list-opts | grep -q "^-l" && { echo "$cmd -l"; exit 1; }; }
	done
'

test_done
