// SPDX-License-Identifier: GPL-2.0
/* Interned strings: dedupe, stable ids, lengths, collisions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "util/strtab.h"

static uint32_t intern_s(struct kmt_strtab *t, const char *s)
{
	return kmt_strtab_intern(t, s, strlen(s));
}

static void test_dedupe_and_find(void)
{
	struct kmt_strtab t;
	uint32_t a, b, a2;

	CHECK_EQ_U64(kmt_strtab_init(&t), 0);
	CHECK(kmt_strtab_get(&t, 0) == NULL);
	CHECK_EQ_U64(kmt_strtab_find(&t, "kmalloc-64", 10), 0);
	a = intern_s(&t, "kmalloc-64");
	b = intern_s(&t, "dentry");
	a2 = intern_s(&t, "kmalloc-64");
	CHECK_EQ_U64(a, 1);
	CHECK_EQ_U64(b, 2);
	CHECK_EQ_U64(a2, a);
	CHECK_EQ_U64(t.nr, 3);
	CHECK_STR(kmt_strtab_get(&t, a), "kmalloc-64");
	CHECK_STR(kmt_strtab_get(&t, b), "dentry");
	CHECK_EQ_U64(kmt_strtab_find(&t, "dentry", 6), b);
	CHECK_EQ_U64(kmt_strtab_find(&t, "dentri", 6), 0);
	/* find never adds */
	CHECK_EQ_U64(t.nr, 3);
	/* ids past the end have no text */
	CHECK(kmt_strtab_get(&t, 3) == NULL);
	CHECK(kmt_strtab_get(&t, UINT32_MAX) == NULL);
	kmt_strtab_free(&t);
}

/* the length given counts, not the NUL: "ab" and "abc" are different */
static void test_lengths(void)
{
	struct kmt_strtab t;
	uint32_t ab, abc, ab2, empty, nul;

	kmt_strtab_init(&t);
	abc = kmt_strtab_intern(&t, "abc", 3);
	ab = kmt_strtab_intern(&t, "abc", 2);
	ab2 = kmt_strtab_intern(&t, "ab", 2);
	CHECK(ab != abc);
	CHECK_EQ_U64(ab, ab2);
	CHECK_STR(kmt_strtab_get(&t, ab), "ab");
	CHECK_STR(kmt_strtab_get(&t, abc), "abc");
	CHECK_EQ_U64(kmt_strtab_find(&t, "abcd", 3), abc);
	CHECK_EQ_U64(kmt_strtab_find(&t, "a", 1), 0);
	/* the empty string is a string with an id of its own */
	empty = kmt_strtab_intern(&t, "", 0);
	CHECK(empty != 0 && empty != ab && empty != abc);
	CHECK_STR(kmt_strtab_get(&t, empty), "");
	CHECK_EQ_U64(kmt_strtab_intern(&t, "xyz", 0), empty);
	/* an embedded NUL is part of the string */
	nul = kmt_strtab_intern(&t, "ab\0c", 4);
	CHECK(nul != ab && nul != abc && nul != 0);
	CHECK_EQ_U64(kmt_strtab_find(&t, "ab\0c", 4), nul);
	CHECK_EQ_U64(t.lens[nul], 4);
	kmt_strtab_free(&t);
}

/* 100k strings: ids stay, and texts stay where they were */
static void test_many_stable(void)
{
	enum { NR = 100000 };
	struct kmt_strtab t;
	const char **ptrs = malloc(NR * sizeof(*ptrs));
	uint32_t *ids = malloc(NR * sizeof(*ids));
	char name[64];
	size_t i, bad = 0;

	CHECK(ptrs && ids);
	if (!ptrs || !ids)
		return;
	kmt_strtab_init(&t);
	for (i = 0; i < NR; i++) {
		int n = snprintf(name, sizeof(name), "sym_%zu_%zx", i, i * 7);

		ids[i] = kmt_strtab_intern(&t, name, (size_t)n);
		bad += ids[i] != i + 1;
		ptrs[i] = kmt_strtab_get(&t, ids[i]);
	}
	CHECK_EQ_U64(bad, 0);
	for (i = 0; i < NR; i++) {
		int n = snprintf(name, sizeof(name), "sym_%zu_%zx", i, i * 7);

		bad += kmt_strtab_find(&t, name, (size_t)n) != ids[i];
		bad += kmt_strtab_intern(&t, name, (size_t)n) != ids[i];
		/* the text did not move when the tables grew */
		bad += kmt_strtab_get(&t, ids[i]) != ptrs[i];
		bad += strcmp(ptrs[i], name) != 0;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(t.nr, NR + 1);
	kmt_strtab_free(&t);
	free(ptrs);
	free(ids);
}

/*
 * Two strings whose 64-bit hashes collide are rare enough that none is
 * known; make one by planting "b"'s hash in the index as if "a" owned it.
 */
static void test_hash_collision(void)
{
	struct kmt_strtab t;
	uint32_t a, b, *slot;

	kmt_strtab_init(&t);
	a = intern_s(&t, "a");
	slot = kmt_hash_u32_put(&t.index, kmt_hash_bytes("b", 1), NULL);
	CHECK(slot != NULL);
	if (!slot)
		return;
	*slot = a;
	CHECK_EQ_U64(kmt_strtab_find(&t, "b", 1), 0);
	b = intern_s(&t, "b");
	CHECK(b != 0 && b != a);
	CHECK_STR(kmt_strtab_get(&t, b), "b");
	CHECK_EQ_U64(kmt_strtab_find(&t, "b", 1), b);
	CHECK_EQ_U64(intern_s(&t, "b"), b);
	CHECK_EQ_U64(kmt_strtab_find(&t, "a", 1), a);
	kmt_strtab_free(&t);
}

/* two tables are independent */
static void test_two_tables(void)
{
	struct kmt_strtab t1, t2;

	kmt_strtab_init(&t1);
	kmt_strtab_init(&t2);
	intern_s(&t1, "x");
	CHECK_EQ_U64(intern_s(&t1, "y"), 2);
	CHECK_EQ_U64(intern_s(&t2, "y"), 1);
	CHECK_EQ_U64(kmt_strtab_find(&t2, "x", 1), 0);
	kmt_strtab_free(&t1);
	kmt_strtab_free(&t2);
}

KMT_TESTS(
	KMT_TEST(test_dedupe_and_find),
	KMT_TEST(test_lengths),
	KMT_TEST(test_many_stable),
	KMT_TEST(test_hash_collision),
	KMT_TEST(test_two_tables)
)
