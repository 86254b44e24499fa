// SPDX-License-Identifier: GPL-2.0
/* The arena: alignment, chunk boundaries, big blocks, string copies. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "util/arena.h"

static int aligned16(const void *p)
{
	return ((uintptr_t)p & 15) == 0;
}

/* allocations of every small size are 16-byte aligned and do not overlap */
static void test_alignment_and_overlap(void)
{
	enum { NR = 3000 };
	struct kmt_arena a;
	unsigned char *p[NR];
	size_t i, j, bad_align = 0, bad_data = 0;

	kmt_arena_init(&a);
	for (i = 0; i < NR; i++) {
		size_t size = i % 67 + 1;

		p[i] = kmt_arena_alloc(&a, size);
		CHECK(p[i] != NULL);
		if (!p[i])
			return;
		bad_align += !aligned16(p[i]);
		memset(p[i], (int)(i & 0xff), size);
	}
	/* every block still holds its own bytes: nothing was overwritten */
	for (i = 0; i < NR; i++) {
		for (j = 0; j < i % 67 + 1; j++)
			bad_data += p[i][j] != (unsigned char)(i & 0xff);
	}
	CHECK_EQ_U64(bad_align, 0);
	CHECK_EQ_U64(bad_data, 0);
	/* total counts the rounded sizes */
	CHECK(a.total >= NR * 16);
	kmt_arena_free(&a);
	CHECK(a.head == NULL);
	CHECK_EQ_U64(a.total, 0);
}

/* a block larger than a chunk, and the small blocks around it */
static void test_big_blocks(void)
{
	struct kmt_arena a;
	size_t big, i, bad = 0;
	unsigned char *s1, *s2, *b1, *b2, *s3;

	kmt_arena_init(&a);
	big = a.chunk_size * 3 + 5;
	s1 = kmt_arena_alloc(&a, 100);
	b1 = kmt_arena_alloc(&a, big);
	s2 = kmt_arena_alloc(&a, 100);
	b2 = kmt_arena_alloc(&a, big * 2);
	s3 = kmt_arena_alloc(&a, 100);
	CHECK(s1 && b1 && s2 && b2 && s3);
	if (!(s1 && b1 && s2 && b2 && s3))
		return;
	CHECK(aligned16(b1) && aligned16(b2) && aligned16(s2));
	/* a big block does not waste the room left in the current chunk */
	CHECK(s2 == s1 + 112);
	CHECK(s3 == s2 + 112);
	memset(s1, 1, 100);
	memset(b1, 2, big);
	memset(s2, 3, 100);
	memset(b2, 4, big * 2);
	memset(s3, 5, 100);
	for (i = 0; i < 100; i++)
		bad += s1[i] != 1 || s2[i] != 3 || s3[i] != 5;
	for (i = 0; i < big; i++)
		bad += b1[i] != 2 || b2[i] != 4 || b2[big + i] != 4;
	CHECK_EQ_U64(bad, 0);
	kmt_arena_free(&a);

	/* a big block as the very first allocation */
	kmt_arena_init(&a);
	b1 = kmt_arena_alloc(&a, big);
	s1 = kmt_arena_alloc(&a, 16);
	CHECK(b1 && s1);
	if (b1 && s1) {
		memset(b1, 7, big);
		memset(s1, 8, 16);
		CHECK(b1[big - 1] == 7 && s1[0] == 8);
	}
	kmt_arena_free(&a);
}

/* exactly one chunk, and a chunk's worth in pieces */
static void test_chunk_edges(void)
{
	struct kmt_arena a;
	unsigned char *p, *q;
	size_t i, n;

	kmt_arena_init(&a);
	p = kmt_arena_alloc(&a, a.chunk_size);
	CHECK(p != NULL);
	q = kmt_arena_alloc(&a, 1);
	CHECK(q != NULL);
	if (p && q) {
		memset(p, 0x11, a.chunk_size);
		*q = 0x22;
		CHECK(p[a.chunk_size - 1] == 0x11);
		CHECK(q < p || q >= p + a.chunk_size);
	}
	kmt_arena_free(&a);

	kmt_arena_init(&a);
	n = a.chunk_size / 16;
	for (i = 0; i < n + 1; i++) {
		p = kmt_arena_alloc(&a, 16);
		CHECK(p != NULL);
		if (!p)
			break;
		memset(p, 0x33, 16);
	}
	CHECK_EQ_U64(a.total, (n + 1) * 16);
	kmt_arena_free(&a);
}

static void test_zalloc_and_overflow(void)
{
	struct kmt_arena a;
	unsigned char *p;
	size_t i, bad = 0;

	kmt_arena_init(&a);
	/* dirty the arena memory first so zalloc has something to clear */
	p = kmt_arena_alloc(&a, 4000);
	memset(p, 0xff, 4000);
	kmt_arena_free(&a);
	kmt_arena_init(&a);
	p = kmt_arena_zalloc(&a, 4000);
	CHECK(p != NULL);
	for (i = 0; p && i < 4000; i++)
		bad += p[i] != 0;
	CHECK_EQ_U64(bad, 0);
	/* sizes whose rounding wraps around are refused, not undersized */
	CHECK(kmt_arena_alloc(&a, SIZE_MAX) == NULL);
	CHECK(kmt_arena_alloc(&a, SIZE_MAX - 7) == NULL);
	/* and so are those where the chunk header would wrap the size */
	CHECK(kmt_arena_alloc(&a, SIZE_MAX - 40) == NULL);
	CHECK(kmt_arena_alloc(&a, SIZE_MAX - 31) == NULL);
	kmt_arena_free(&a);
}

static void test_strdup(void)
{
	struct kmt_arena a;
	const char *long_name = "kmem_cache_alloc_lru_noprof+0x1a/0x300";
	char *s, *t, *e, *u;

	kmt_arena_init(&a);
	s = kmt_arena_strdup(&a, "kmalloc-64");
	t = kmt_arena_strndup(&a, long_name, 27);
	e = kmt_arena_strdup(&a, "");
	u = kmt_arena_strndup(&a, "ab\0cd", 5);	/* embedded NUL kept */
	CHECK_STR(s, "kmalloc-64");
	CHECK_STR(t, "kmem_cache_alloc_lru_noprof");
	CHECK_STR(e, "");
	CHECK(u && !memcmp(u, "ab\0cd", 6));
	CHECK(s != t && t != e && aligned16(s) && aligned16(t));
	kmt_arena_free(&a);
}

/* an arena is reusable after free */
static void test_reuse(void)
{
	struct kmt_arena a;
	int round;

	kmt_arena_init(&a);
	for (round = 0; round < 3; round++) {
		char *s = kmt_arena_strdup(&a, "again");

		CHECK_STR(s, "again");
		kmt_arena_free(&a);
	}
	kmt_arena_free(&a);
}

KMT_TESTS(
	KMT_TEST(test_alignment_and_overlap),
	KMT_TEST(test_big_blocks),
	KMT_TEST(test_chunk_edges),
	KMT_TEST(test_zalloc_and_overflow),
	KMT_TEST(test_strdup),
	KMT_TEST(test_reuse)
)
