// SPDX-License-Identifier: GPL-2.0
/* The growable array: growth steps, contents kept, overflow refused. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "util/array.h"

struct row {
	uint64_t a;
	uint32_t b;
};

static void test_grow_keeps_contents(void)
{
	struct row *rows = NULL;
	size_t alloc = 0, nr = 0, i, bad = 0, regrows = 0, last = 0;

	for (i = 0; i < 100000; i++) {
		if (KMT_ARRAY_GROW(rows, nr + 1, alloc)) {
			bad++;
			break;
		}
		if (alloc != last) {
			regrows++;
			last = alloc;
		}
		rows[nr].a = i * 3;
		rows[nr].b = (uint32_t)i;
		nr++;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK(alloc >= nr);
	/* doubling: about log2(100000 / 16) + 1 reallocations, not 100000 */
	CHECK(regrows <= 14);
	for (i = 0; i < nr; i++)
		bad += rows[i].a != i * 3 || rows[i].b != i;
	CHECK_EQ_U64(bad, 0);
	free(rows);
}

static void test_first_and_noop(void)
{
	int *v = NULL, *before;
	size_t alloc = 0;

	CHECK_EQ_U64(KMT_ARRAY_GROW(v, 0, alloc), 0);
	CHECK(v == NULL);
	CHECK_EQ_U64(alloc, 0);
	CHECK_EQ_U64(KMT_ARRAY_GROW(v, 1, alloc), 0);
	CHECK(v != NULL);
	CHECK_EQ_U64(alloc, 16);
	before = v;
	/* within the allocation nothing moves */
	CHECK_EQ_U64(KMT_ARRAY_GROW(v, 16, alloc), 0);
	CHECK(v == before);
	CHECK_EQ_U64(alloc, 16);
	CHECK_EQ_U64(KMT_ARRAY_GROW(v, 17, alloc), 0);
	CHECK_EQ_U64(alloc, 32);
	/* a big jump goes straight to the power of two above it */
	CHECK_EQ_U64(KMT_ARRAY_GROW(v, 1000, alloc), 0);
	CHECK_EQ_U64(alloc, 1024);
	free(v);
}

static void test_overflow(void)
{
	uint64_t *v = NULL, *before;
	size_t alloc = 0;

	CHECK_EQ_U64(KMT_ARRAY_GROW(v, 4, alloc), 0);
	v[3] = 42;
	before = v;
	/* element count times size would wrap: refused, array untouched */
	CHECK(KMT_ARRAY_GROW(v, SIZE_MAX / 8 + 1, alloc) == -ENOMEM);
	CHECK(KMT_ARRAY_GROW(v, SIZE_MAX, alloc) == -ENOMEM);
	CHECK(KMT_ARRAY_GROW(v, SIZE_MAX / 2 + 2, alloc) == -ENOMEM);
	CHECK(v == before);
	CHECK_EQ_U64(alloc, 16);
	CHECK_EQ_U64(v[3], 42);
	free(v);
}

KMT_TESTS(
	KMT_TEST(test_grow_keeps_contents),
	KMT_TEST(test_first_and_noop),
	KMT_TEST(test_overflow)
)
