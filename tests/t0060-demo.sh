#!/bin/sh
# make demo: records (as root) with kernel stacks, or says why not and
# reports on the shipped recording, and every command it prints works as
# printed, from the directory it ran in.
# test: alone
. "$(dirname "$0")/lib.sh"

test_expect_success 'the demo runs and reports callsites by bytes' '
	(cd "$TOP" && TMPDIR=$TRASH KMEMTRACE=$KMEMTRACE scripts/demo.sh 1) >out 2>err &&
	grep "^\$ .* report -i .* --caller -s bytes -l 10$" out &&
	grep "^ Callsite " out
'

if have_root_tracefs; then
	test_expect_success 'as root it records with kernel stacks' '
		grep "^\$ .* record -g -o $TRASH/kmemtrace-demo.dat -- " out &&
		"$KMEMTRACE" check "$TRASH/kmemtrace-demo.dat" >check.out &&
		grep "^stacks: yes$" check.out
	'
else
	test_skip 'as root it records with kernel stacks' 'needs root and tracefs'
fi

test_expect_success 'every command the demo prints works as printed' '
	sed -n "s/^\$ //p; s/^  \([^ ]*kmemtrace .*\)  *#.*/\1/p" out >cmds &&
	test $(wc -l <cmds) -ge 6 &&
	while read -r cmd; do
		case $cmd in
		*" record "*) continue ;;	# ran above
		esac
		(cd "$TOP" && MANPAGER=cat PAGER=cat eval "$cmd") >/dev/null 2>cmd.err ||
			{ echo "failed: $cmd"; cat cmd.err; exit 1; }
	done <cmds
'

test_done
