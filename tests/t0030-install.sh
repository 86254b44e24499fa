#!/bin/sh
# make install and make uninstall, and kmemtrace help.  install puts the
# binary, every manual page and the bash completion (when the tree has
# one) and serve's systemd unit (naming the installed binary) under
# DESTDIR/PREFIX with their modes and rebuilds nothing; every
# installed page renders without a groff warning; uninstall leaves no
# file of its own behind and keeps everyone else's.  help shows a
# command's page: the one built beside the binary, else the one man
# finds, else one line saying where it looked.
#
# install runs once per make check, with the plain build in build/: the
# sanitizer build was made with flags of check's own, and install with
# other flags would rebuild it.  The help part runs for every build, so
# the sanitizers see it too (make check builds the pages in both).
. "$(dirname "$0")/lib.sh"

# make alone, not a part of a make check above it (its flags, jobserver);
# what it says goes to make.out, and is shown when it fails
run_make () {
	(cd "$TOP" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@") \
		>make.out 2>&1 || { cat make.out; return 1; }
}

# man shows what is asked here, and nothing from the machine's pages
unset MANOPT MANSECT
MANPAGER=cat PAGER=cat MANWIDTH=80 LC_ALL=C.UTF-8
export MANPAGER PAGER MANWIDTH LC_ALL
mkdir empty-manpath

# the commands kmemtrace -h lists: each has a page, and so has kmemtrace
"$KMEMTRACE" -h | sed -n '/^commands:/,/^$/s/^   \([a-z]*\)  .*/\1/p' >commands
pages () {
	echo kmemtrace
	sed 's/^/kmemtrace-/' commands
}

if ! command -v man >/dev/null 2>&1; then
	test_skip 'make install, man pages, kmemtrace help' 'no man: scripts/deps.sh installs man-db'
	test_done
	exit
fi

test_expect_success 'kmemtrace -h still lists the commands' '
	test $(wc -l <commands) -ge 5 &&
	grep -x report commands &&
	grep -x pageowner commands
'

if [ "$BUILD" = "$TOP/build" ]; then
root=$TRASH/root
test_expect_success 'make install: binary, every page, modes; nothing rebuilt' '
	before=$(cksum <"$BUILD/kmemtrace") &&
	run_make install DESTDIR="$root" PREFIX=/usr &&
	! grep -E "^ +(CC|AR|LINK) " make.out &&
	test "$(cksum <"$BUILD/kmemtrace")" = "$before" &&
	{
		echo "755 usr/bin/kmemtrace" &&
		pages | sed "s|.*|644 usr/share/man/man1/&.1|" &&
		echo "644 usr/share/bash-completion/completions/kmemtrace" &&
		echo "644 usr/lib/systemd/system/kmemtrace-serve.service"
	} | sort >expect &&
	(cd "$root" && find . ! -type d -printf "%m %P\n") | sort >actual &&
	test_cmp expect actual &&
	cmp "$BUILD/kmemtrace" "$root/usr/bin/kmemtrace"
'

test_expect_success 'every installed page renders without a warning, with its NAME line' '
	pages >names &&
	while read -r name; do
		f="$root/usr/share/man/man1/$name.1" &&
		man --warnings=w -l "$f" >page 2>warn &&
		if test -s warn; then
			echo "$name.1 warns:"; cat warn; exit 1
		fi &&
		sed -n "/^NAME/{n;p;}" page >name-line &&
		grep -q "^ *$name - [a-z]" name-line ||
		{ echo "$name.1: no NAME line"; cat page; exit 1; }
	done <names
'

test_expect_success 'kmemtrace(1) names every command, each with its page' '
	man -l "$root/usr/share/man/man1/kmemtrace.1" >top &&
	while read -r c; do
		grep "^ *kmemtrace-$c(1)\$" top || { echo "no $c"; exit 1; }
	done <commands
'

test_expect_success 'the installed kmemtrace shows the installed page' '
	MANPATH="$root/usr/share/man" "$root/usr/bin/kmemtrace" help check >out &&
	grep "^ *kmemtrace-check - verify a recording" out
'

test_expect_success 'the pages carry their sources'\'' date, and build again to the same bytes' '
	epoch=${SOURCE_DATE_EPOCH:-$(cd "$TOP" && git log -1 --format=%ct -- doc 2>/dev/null)} &&
	if test -n "$epoch"; then
		date -u -d "@$epoch" +%F >want
	else
		echo >want
	fi &&
	sed -n "s/^\.TH \"[^\"]*\" \"1\" \"\([^\"]*\)\".*/\1/p" \
		"$root/usr/share/man/man1/kmemtrace.1" >date &&
	test_cmp want date &&
	run_make O="$TRASH/again" man-pages &&
	for f in "$BUILD"/doc/*.1; do
		cmp "$f" "$TRASH/again/doc/${f##*/}" || exit 1
	done
'

test_expect_success 'the installed completion is the tree'\''s, and completes' '
	f="$root/usr/share/bash-completion/completions/kmemtrace" &&
	cmp "$TOP/contrib/completion/kmemtrace.bash" "$f" &&
	PATH="$root/usr/bin:$PATH" bash -c ". \"$f\" &&
		COMP_WORDS=(kmemtrace report --sla); COMP_CWORD=2; _kmemtrace &&
		printf \"%s\n\" \"\${COMPREPLY[@]}\"" >reply &&
	grep -x -- --slab reply
'

test_expect_success 'the installed unit of serve runs the installed binary' '
	f="$root/usr/lib/systemd/system/kmemtrace-serve.service" &&
	grep -x "ExecStart=/usr/bin/kmemtrace serve" "$f" &&
	! grep "@" "$f" &&
	grep -x "ExecReload=/bin/kill -HUP \$MAINPID" "$f"
'

test_expect_success 'make uninstall removes its files and no one else'\''s' '
	mkdir -p "$root/usr/share/bash-completion/completions" &&
	echo other >"$root/usr/bin/other" &&
	echo other >"$root/usr/share/man/man1/other.1" &&
	echo other >"$root/usr/share/bash-completion/completions/other" &&
	run_make uninstall DESTDIR="$root" PREFIX=/usr &&
	(cd "$root" && find . ! -type d -printf "%P\n") | sort >left &&
	printf "%s\n" usr/bin/other usr/share/bash-completion/completions/other \
		usr/share/man/man1/other.1 >expect &&
	test_cmp expect left
'
else
	test_skip 'make install and uninstall' "checked once, with the plain build in $TOP/build: installing $BUILD would rebuild it without its flags"
fi

test_expect_success 'help <command> from the build tree: the page built beside it' '
	MANPATH="$TRASH/empty-manpath" "$KMEMTRACE" help report >out 2>err &&
	grep "^ *kmemtrace-report - analyse a recording" out &&
	grep "^SYNOPSIS" out &&
	grep "kmemtrace report \[\[-i\] FILE\]" out &&
	! test -s err
'

test_expect_success 'help alone: kmemtrace(1)' '
	MANPATH="$TRASH/empty-manpath" "$KMEMTRACE" help >out &&
	grep "^ *kmemtrace - trace and analyse Linux kernel memory allocation" out
'

test_expect_success 'help <command> elsewhere: the page man finds' '
	mkdir -p bin manpath/man1 &&
	cp "$KMEMTRACE" bin/kmemtrace &&
	cp "$BUILD/doc/kmemtrace-stat.1" manpath/man1/ &&
	MANPATH="$TRASH/manpath" bin/kmemtrace help stat >out &&
	grep "^ *kmemtrace-stat - count kmem events" out
'

test_expect_success 'no page anywhere: one line saying where it looked, exit 2' '
	env MANPATH="$TRASH/empty-manpath" bin/kmemtrace help check >out 2>err
	test $? = 2 &&
	test $(wc -l <err) = 1 &&
	grep "'\''kmemtrace-check'\''" err &&
	grep "$TRASH/bin/doc/kmemtrace-check.1" err &&
	grep "'\''kmemtrace check -h'\''" err &&
	! test -s out
'

test_expect_success 'help of a command that does not exist: one line, exit 129' '
	"$KMEMTRACE" help nosuch >out 2>err; test $? = 129 &&
	test $(wc -l <err) = 1 &&
	grep "'\''nosuch'\'' is not a kmemtrace command" err &&
	! test -s out
'

test_done
