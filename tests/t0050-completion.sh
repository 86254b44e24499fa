#!/bin/sh
# contrib/completion/kmemtrace.bash: commands, each command's options and
# the sort keys after -s, all asked of the binary (--list-cmds,
# --list-opts, --list-values), which answers from the tables -h is made of.
. "$(dirname "$0")/lib.sh"

COMPLETION=$TOP/contrib/completion/kmemtrace.bash
if ! command -v bash >/dev/null 2>&1; then
	test_skip 'bash completion' 'no bash'
	test_done
	exit 0
fi
# the script runs the kmemtrace it completes: this build's
mkdir bin && ln -s "$KMEMTRACE" bin/kmemtrace
PATH=$TRASH/bin:$PATH
export PATH

# complete WORD... : what completing the last word offers, one a line
complete_words () {
	bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_kmemtrace; printf "%s\n" "${COMPREPLY[@]}"' "$COMPLETION" "$@" |
		grep . | sort
}

test_expect_success 'commands' '
	complete_words kmemtrace "" >out &&
	for c in record report check stat pageowner -h --help --version; do
		grep -qx -- "$c" out || { echo "missing $c"; return 1; }
	done &&
	complete_words kmemtrace re >out &&
	printf "record\nreport\n" >expect &&
	test_cmp expect out
'

test_expect_success 'options of a command' '
	complete_words kmemtrace report --sl >out &&
	echo --slab >expect && test_cmp expect out &&
	complete_words kmemtrace pageowner --l >out &&
	echo --limit >expect && test_cmp expect out &&
	complete_words kmemtrace check -- >out &&
	printf -- "--format\n--help\n--host\n--input\n--json\n--output\n" >expect &&
	test_cmp expect out
'

test_expect_success 'every option -h shows is offered, and no other' '
	for c in $("$KMEMTRACE" --list-cmds); do
		"$KMEMTRACE" $c -h >help &&
		sed -nE "s/^    (-[a-zA-Z]), (--[a-z-]+).*/\1\n\2/p; s/^        (--[a-z-]+).*/\1/p; s/^    (-[a-zA-Z])( .*|)$/\1/p; s/^    (-[a-zA-Z])  .*/\1/p" help |
			sort -u >shown &&
		complete_words kmemtrace $c - | grep -vx -- "-h\|--help" >offered &&
		test_cmp shown offered || { echo "in $c"; return 1; }
	done
'

test_expect_success 'sort keys after -s, word by word after commas' '
	complete_words kmemtrace report -s fr >out &&
	printf "frag\nfragmenting\nfreed_batched\nfreed_direct\n" >expect &&
	test_cmp expect out &&
	complete_words kmemtrace report --sort frag,pin >out &&
	echo frag,pingpong >expect && test_cmp expect out &&
	complete_words kmemtrace report --sort = outst >out &&
	echo outstanding_bytes >expect && test_cmp expect out &&
	complete_words kmemtrace pageowner --sort -al >out &&
	printf -- "-allocator\n-alloc_ts\n" | sort >expect && test_cmp expect out
'

test_expect_success 'allocinfo: its tables after --by, its sort keys after -s' '
	complete_words kmemtrace allocinfo --by m >out &&
	echo module >expect && test_cmp expect out &&
	complete_words kmemtrace allocinfo -s gr >out &&
	echo growth >expect && test_cmp expect out &&
	complete_words kmemtrace allocinfo --di >out &&
	echo --diff >expect && test_cmp expect out
'

test_expect_success 'check and allocinfo: the formats after --format, those they draw' '
	for c in check allocinfo; do
		complete_words kmemtrace $c --format "" >out &&
		printf "csv\njson\nndjson\ntext\n" >expect &&
		test_cmp expect out &&
		complete_words kmemtrace $c --format nd >out &&
		echo ndjson >expect && test_cmp expect out || return 1
	done
'

test_expect_success 'the sort keys offered are those report -h lists' '
	"$KMEMTRACE" report -h | sed -n "/^sort keys/,/^\$/p" | tail -n +2 |
		cut -c15- | tr "\n" " " | sed -E "s/\(default [^)]*\)//g" |
		tr ", " "\n\n" | grep . | sort -u >listed &&
	grep -qx outstanding_bytes listed && grep -qx pingpong listed &&
	complete_words kmemtrace report -s "" >offered &&
	test_cmp listed offered
'

test_expect_success 'top and watch: the formats a refresh can be drawn in, after --format' '
	printf "csv\njson\nndjson\ntext\n" >expect &&
	complete_words kmemtrace top --format "" >out && test_cmp expect out &&
	complete_words kmemtrace watch --format "" >out && test_cmp expect out &&
	complete_words kmemtrace top --ho >out &&
	echo --host >expect && test_cmp expect out
'

test_expect_success 'after --, the command record runs' '
	complete_words kmemtrace record -q -- trueX >out &&
	! test -s out &&
	complete_words kmemtrace record -q -- tru >out &&
	grep -qx true out &&
	complete_words kmemtrace record -o "" >out &&
	! test -s out
'

test_done
