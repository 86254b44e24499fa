#!/bin/sh
# The typed hash tables: a value handed to a table of another value type
# does not compile.  The table was untyped once, its value size a number
# given at run time, and a 12-byte value was copied into an 8-byte one.
# Each snippet is compiled with -Werror, as the build does; a right one
# first, so that the wrong ones are seen to fail for their mistake and
# not for a missing header.
. "$(dirname "$0")/lib.sh"

CC=${CC:-cc}

cat >tables.h <<'EOF'
#include "util/hash.h"

struct eight {
	uint64_t v;
};

struct twelve {
	uint32_t a, b, c;
};

KMT_HASH_TYPE(eights, struct eight)
KMT_HASH_TYPE(twelves, struct twelve)
EOF

# snippet NAME BODY: NAME.c, a function with two tables around BODY
snippet () {
	cat >"$1.c" <<EOF
#include "tables.h"

int use(void);
int use(void)
{
	struct eights e;
	struct twelves t;
	struct eight eight, *ep;
	struct twelve twelve, *tp;
	struct eights_entry *entries;
	size_t it = 0, nr;
	uint64_t key;

	eights_init(&e);
	twelves_init(&t);
	$2
	(void)eight;
	(void)ep;
	(void)twelve;
	(void)tp;
	(void)entries;
	(void)it;
	(void)nr;
	(void)key;
	eights_free(&e);
	twelves_free(&t);
	return 0;
}
EOF
}

compile () {
	$CC -std=gnu11 -Wall -Wextra -Werror -I"$TOP/lib" -c -o "$1.o" "$1.c"
}

# fails unless NAME.c fails to compile, for a pointer of the wrong type
compile_fails () {
	if compile "$1" 2>"$1.err"; then
		echo "$1.c compiled" >&2
		return 1
	fi
	grep -i "incompatible" "$1.err"
}

test_expect_success 'every typed function, used rightly, compiles' '
	snippet right "
	tp = twelves_put(&t, 1, NULL);
	tp = twelves_get(&t, 1);
	twelves_del(&t, 1, &twelve);
	ep = eights_put(&e, 1, NULL);
	eights_del(&e, 1, &eight);
	eights_del(&e, 1, NULL);
	while (twelves_next(&t, &it, &key, &tp))
		;
	twelves_prefetch(&t, 1);
	nr = twelves_count(&t);
	twelves_clear(&t);
	entries = eights_compact(&e, &nr);
	" &&
	compile right
'

test_expect_success 'delete into a value of another type does not compile' '
	snippet del "twelves_del(&t, 1, &eight);" &&
	compile_fails del
'

test_expect_success 'get and put give only their own value type' '
	snippet get "ep = twelves_get(&t, 1);" &&
	compile_fails get &&
	snippet put "ep = twelves_put(&t, 1, NULL);" &&
	compile_fails put
'

test_expect_success 'next gives only its own value type' '
	snippet next "while (twelves_next(&t, &it, &key, &ep)) { }" &&
	compile_fails next
'

test_expect_success 'one table type is not another' '
	snippet table "eights_del(&t, 1, &eight);" &&
	compile_fails table &&
	snippet compact "entries = twelves_compact(&t, &nr);" &&
	compile_fails compact
'

test_expect_success 'only hash.h calls the untyped table' '
	(cd "$TOP" &&
	 grep -rl --include="*.c" --include="*.h" "kmt__hash_" lib src tests) |
		sort >callers &&
	printf "%s\n" lib/util/hash.c lib/util/hash.h >expect &&
	test_cmp expect callers
'

test_done
