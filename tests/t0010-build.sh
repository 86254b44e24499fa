#!/bin/sh
# The build as a user and a packager meet it: two copies of this tree in
# different directories, built by users with different $HOME, $TMPDIR,
# umask and locale, give byte-identical binaries (Debian's
# reproducible-builds rules); the binary names no build directory; make
# says one short line a step and V=1 the commands; a second make
# rebuilds nothing.
# test: once
. "$(dirname "$0")/lib.sh"

if ! git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	test_skip 'two copies build the same bytes' 'not a git checkout'
	test_done
	exit
fi

# the tree as it is (committed or not), without anything built
copy_tree () {
	mkdir -p "$1" &&
	(cd "$TOP" && git ls-files -z -co --exclude-standard |
		xargs -0 tar cf - --no-recursion) | tar xf - -C "$1"
}

# build DIR HOME TMPDIR UMASK LANG [make args]: the binary only, with
# the build's default flags (deps.sh ran before the tests)
build () {
	dir=$1 home=$2 tmp=$3 mask=$4 lang=$5
	shift 5
	mkdir -p "$home" "$tmp" &&
	(cd "$dir" && umask "$mask" &&
	 env -u MAKEFLAGS -u MFLAGS HOME="$home" TMPDIR="$tmp" LANG="$lang" \
		LC_ALL="$lang" make "$@" build/kmemtrace)
}

test_expect_success 'two copies of the tree build the same bytes' '
	copy_tree a/kmemtrace &&
	copy_tree elsewhere/deeper/src &&
	# a home with a perf build-id cache and git settings, and an empty one
	mkdir -p home1/.debug/.build-id home1/.config &&
	echo "[user]" >home1/.gitconfig &&
	build a/kmemtrace "$TRASH/home1" "$TRASH/tmp1" 022 C.UTF-8 >out1 2>&1 &&
	build elsewhere/deeper/src "$TRASH/home2" "$TRASH/tmp2" 077 C >out2 2>&1 &&
	cmp a/kmemtrace/build/kmemtrace elsewhere/deeper/src/build/kmemtrace
'

test_expect_success 'the binary names no build directory' '
	! grep -qF "$TRASH" a/kmemtrace/build/kmemtrace &&
	! grep -qF "$TRASH" elsewhere/deeper/src/build/kmemtrace
'

test_expect_success 'make says one short line a step' '
	grep "^  CC     lib/util/hash.c$" out1 &&
	grep "^  LINK   build/kmemtrace$" out1 &&
	! grep -e "-Werror" out1
'

test_expect_success 'make V=1 prints the commands' '
	touch a/kmemtrace/src/main.c &&
	build a/kmemtrace "$TRASH/home1" "$TRASH/tmp1" 022 C V=1 >out3 2>&1 &&
	grep -e "-c -o build/src/main.o src/main.c" out3 &&
	! grep "^  CC " out3
'

test_expect_success 'a second make rebuilds nothing' '
	build a/kmemtrace "$TRASH/home1" "$TRASH/tmp1" 022 C >out4 2>&1 &&
	! grep "^  " out4
'

test_done
