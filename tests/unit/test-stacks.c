// SPDX-License-Identifier: GPL-2.0
/* Interned stacks: same content, same id; anything else, another id. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "event/stacks.h"

static void test_same_and_different(void)
{
	const uint64_t a[] = { 0xffffffff81001000ULL, 0xffffffff81002000ULL,
			       0xffffffff81003000ULL };
	uint64_t copy[3], other[3];
	const struct kmt_stack *st;
	struct kmt_stacks s;
	uint32_t ida, idb, idc, idd, ide;

	CHECK_EQ_U64(kmt_stacks_init(&s), 0);
	ida = kmt_stacks_intern(&s, a, 3);
	CHECK_EQ_U64(ida, 1);
	/* same content in another buffer: same id */
	memcpy(copy, a, sizeof(copy));
	CHECK_EQ_U64(kmt_stacks_intern(&s, copy, 3), ida);
	/* a different frame, another order, a prefix, one more frame */
	memcpy(other, a, sizeof(other));
	other[2]++;
	idb = kmt_stacks_intern(&s, other, 3);
	other[0] = a[2];
	other[1] = a[1];
	other[2] = a[0];
	idc = kmt_stacks_intern(&s, other, 3);
	idd = kmt_stacks_intern(&s, a, 2);
	ide = kmt_stacks_intern(&s, a, 1);
	CHECK(idb && idc && idd && ide);
	CHECK(idb != ida && idc != ida && idd != ida && ide != ida);
	CHECK(idb != idc && idc != idd && idd != ide && idb != idd);
	CHECK_EQ_U64(s.nr, 6);
	/* the stored stack is a copy of the frames */
	copy[0] = 0;
	st = kmt_stacks_get(&s, ida);
	CHECK(st != NULL);
	if (st) {
		CHECK_EQ_U64(st->nr, 3);
		CHECK(!memcmp(st->ips, a, sizeof(a)));
	}
	st = kmt_stacks_get(&s, idd);
	CHECK(st && st->nr == 2 && st->ips[1] == a[1]);
	kmt_stacks_free(&s);
}

static void test_empty_and_bad_ids(void)
{
	const uint64_t a[] = { 1 };
	struct kmt_stacks s;

	kmt_stacks_init(&s);
	CHECK_EQ_U64(kmt_stacks_intern(&s, a, 0), 0);
	CHECK_EQ_U64(kmt_stacks_intern(&s, NULL, 0), 0);
	CHECK(kmt_stacks_get(&s, 0) == NULL);
	CHECK(kmt_stacks_get(&s, 1) == NULL);
	CHECK_EQ_U64(kmt_stacks_intern(&s, a, 1), 1);
	CHECK(kmt_stacks_get(&s, 1) != NULL);
	CHECK(kmt_stacks_get(&s, 2) == NULL);
	CHECK(kmt_stacks_get(&s, UINT32_MAX) == NULL);
	kmt_stacks_free(&s);
}

/* many stacks of many depths: ids are dense and each resolves to its own */
static void test_many(void)
{
	enum { NR = 20000, DEPTH = 64 };
	uint64_t ips[DEPTH];
	struct kmt_stacks s;
	size_t i, j, bad = 0;

	kmt_stacks_init(&s);
	for (i = 0; i < NR; i++) {
		size_t depth = i % DEPTH + 1;

		for (j = 0; j < depth; j++)
			ips[j] = 0xffffffff81000000ULL + i * 0x40 + j;
		bad += kmt_stacks_intern(&s, ips, depth) != i + 1;
	}
	CHECK_EQ_U64(bad, 0);
	/* a second pass finds them all again, and adds none */
	for (i = 0; i < NR; i++) {
		size_t depth = i % DEPTH + 1;
		const struct kmt_stack *st;

		for (j = 0; j < depth; j++)
			ips[j] = 0xffffffff81000000ULL + i * 0x40 + j;
		bad += kmt_stacks_intern(&s, ips, depth) != i + 1;
		st = kmt_stacks_get(&s, (uint32_t)(i + 1));
		bad += !st || st->nr != depth ||
		       memcmp(st->ips, ips, depth * sizeof(*ips));
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(s.nr, NR + 1);
	kmt_stacks_free(&s);
}

/* a collision of the content hash still tells the stacks apart */
static void test_hash_collision(void)
{
	const uint64_t a[] = { 10, 20 }, b[] = { 30 };
	struct kmt_stacks s;
	uint32_t ida, idb, *slot;

	kmt_stacks_init(&s);
	ida = kmt_stacks_intern(&s, a, 2);
	/* plant b's hash in the index as if a owned it */
	slot = kmt_hash_u32_put(&s.index, kmt_hash_bytes(b, sizeof(b)), NULL);
	CHECK(slot != NULL);
	if (!slot)
		return;
	*slot = ida;
	idb = kmt_stacks_intern(&s, b, 1);
	CHECK(idb != 0 && idb != ida);
	CHECK_EQ_U64(kmt_stacks_intern(&s, b, 1), idb);
	CHECK_EQ_U64(kmt_stacks_intern(&s, a, 2), ida);
	CHECK(kmt_stacks_get(&s, idb) && kmt_stacks_get(&s, idb)->ips[0] == 30);
	kmt_stacks_free(&s);
}

KMT_TESTS(
	KMT_TEST(test_same_and_different),
	KMT_TEST(test_empty_and_bad_ids),
	KMT_TEST(test_many),
	KMT_TEST(test_hash_collision)
)
