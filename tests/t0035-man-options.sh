#!/bin/sh
# test: once
# The manual pages say what the parsers accept: every long option that
# a command's table declares (`kmemtrace CMD --list-opts`, the same
# table -h and the completion read) appears in doc/kmemtrace-CMD.adoc,
# every command has its page, and every page names its command's exit
# statuses.
. "$(dirname "$0")/lib.sh"

test_expect_success 'every command has a manual page' '
	for c in $("$KMEMTRACE" --list-cmds); do
		test -f "$TOP/doc/kmemtrace-$c.adoc" || { echo "no page for $c"; exit 1; }
	done
'

test_expect_success 'every long option of every command is in its page' '
	missing=
	for c in $("$KMEMTRACE" --list-cmds); do
		for o in $("$KMEMTRACE" $c --list-opts | sed "s/ .*//"); do
			case $o in --*) ;; *) continue ;; esac
			grep -q -e "$o\([^a-z-]\|$\)" "$TOP/doc/kmemtrace-$c.adoc" ||
				missing="$missing $c:$o"
		done
	done
	test -z "$missing" || { echo "not in the manual:$missing"; exit 1; }
'

test_expect_success 'the check is not vacuous: the lists are long' '
	n=$("$KMEMTRACE" report --list-opts | grep -c "^--") &&
	test "$n" -ge 30 &&
	test $("$KMEMTRACE" --list-cmds | wc -w) -ge 7
'

test_done
