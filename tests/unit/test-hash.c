// SPDX-License-Identifier: GPL-2.0
/*
 * The one u64 hash table: every path of insert, lookup, backward-shift
 * deletion (including across the end of the slot array), iteration and
 * growth, checked against a plain reference array.
 */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "util/hash.h"

/* a small deterministic generator, so failures reproduce */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

/* the first key > after whose home slot in a table of nr slots is slot */
static uint64_t key_for_slot(size_t nr, size_t slot, uint64_t after)
{
	uint64_t k;

	for (k = after + 1; ; k++) {
		if ((kmt_hash_mix(k) & (nr - 1)) == slot)
			return k;
	}
}

/*
 * Whether slot i holds a key, and the slot key sits in or -1: these look
 * at the table's insides on purpose.
 */
static int slot_used(const struct kmt_hash_u64 *h, size_t i)
{
	return *(const uint64_t *)(h->raw.slots + i * h->raw.slot_size) != 0;
}

static long slot_of(const struct kmt_hash_u64 *h, uint64_t key)
{
	size_t i;

	for (i = 0; i < h->raw.nr_slots; i++) {
		if (slot_used(h, i) &&
		    *(const uint64_t *)(h->raw.slots + i * h->raw.slot_size) ==
		    key)
			return (long)i;
	}
	return -1;
}

static void test_empty(void)
{
	struct kmt_hash_u64 h;
	size_t it = 0;
	uint64_t key;

	kmt_hash_u64_init(&h);
	CHECK(kmt_hash_u64_get(&h, 0) == NULL);
	CHECK(kmt_hash_u64_get(&h, 42) == NULL);
	CHECK_EQ_U64(kmt_hash_u64_del(&h, 42, NULL), 0);
	CHECK_EQ_U64(kmt_hash_u64_count(&h), 0);
	CHECK_EQ_U64(kmt_hash_u64_next(&h, &it, &key, NULL), 0);
	kmt_hash_u64_free(&h);
	/* free twice, and use after free, are both fine */
	kmt_hash_u64_free(&h);
	CHECK(kmt_hash_u64_get(&h, 42) == NULL);
}

static void test_put_get_del_basic(void)
{
	struct kmt_hash_u64 h;
	uint64_t *v, out = 0;
	int is_new = -1;

	kmt_hash_u64_init(&h);
	v = kmt_hash_u64_put(&h, 7, &is_new);
	CHECK(v != NULL);
	CHECK_EQ_U64(is_new, 1);
	CHECK_EQ_U64(*v, 0);	/* a new value is zeroed */
	*v = 700;
	v = kmt_hash_u64_put(&h, 7, &is_new);
	CHECK_EQ_U64(is_new, 0);
	CHECK_EQ_U64(*v, 700);
	CHECK_EQ_U64(kmt_hash_u64_count(&h), 1);
	v = kmt_hash_u64_put(&h, 8, NULL);	/* is_new may be NULL */
	*v = 800;
	CHECK_EQ_U64(*kmt_hash_u64_get(&h, 7), 700);
	CHECK_EQ_U64(*kmt_hash_u64_get(&h, 8), 800);
	CHECK_EQ_U64(kmt_hash_u64_del(&h, 7, &out), 1);
	CHECK_EQ_U64(out, 700);
	CHECK(kmt_hash_u64_get(&h, 7) == NULL);
	CHECK_EQ_U64(kmt_hash_u64_del(&h, 7, &out), 0);
	CHECK_EQ_U64(kmt_hash_u64_del(&h, 8, NULL), 1);
	CHECK_EQ_U64(kmt_hash_u64_count(&h), 0);
	/* a deleted key comes back zeroed, not with its old value */
	v = kmt_hash_u64_put(&h, 7, &is_new);
	CHECK_EQ_U64(is_new, 1);
	CHECK_EQ_U64(*v, 0);
	kmt_hash_u64_free(&h);
}

static void test_extreme_keys(void)
{
	static const uint64_t keys[] = {
		0, UINT64_MAX, 1, UINT64_MAX - 1, 0x8000000000000000ULL,
	};
	const size_t nr = sizeof(keys) / sizeof(keys[0]);
	struct kmt_hash_u64 h;
	uint64_t *v;
	size_t i;

	kmt_hash_u64_init(&h);
	for (i = 0; i < nr; i++) {
		v = kmt_hash_u64_put(&h, keys[i], NULL);
		CHECK(v != NULL);
		*v = i + 100;
	}
	CHECK_EQ_U64(kmt_hash_u64_count(&h), nr);
	for (i = 0; i < nr; i++) {
		v = kmt_hash_u64_get(&h, keys[i]);
		CHECK(v != NULL);
		if (v)
			CHECK_EQ_U64(*v, i + 100);
	}
	CHECK_EQ_U64(kmt_hash_u64_del(&h, 0, NULL), 1);
	CHECK(kmt_hash_u64_get(&h, 0) == NULL);
	CHECK(kmt_hash_u64_get(&h, UINT64_MAX) != NULL);
	CHECK_EQ_U64(kmt_hash_u64_del(&h, UINT64_MAX, NULL), 1);
	CHECK(kmt_hash_u64_get(&h, UINT64_MAX) == NULL);
	CHECK_EQ_U64(kmt_hash_u64_count(&h), nr - 2);
	kmt_hash_u64_free(&h);
}

/* 200k random keys, against a reference array */
static void test_many_random_keys(void)
{
	const size_t nr = 200000;
	uint64_t *keys = malloc(nr * sizeof(*keys));
	uint64_t state = 0x2545f4914f6cdd1dULL, *v;
	struct kmt_hash_u64 h;
	size_t i, bad = 0;
	int is_new;

	CHECK(keys != NULL);
	if (!keys)
		return;
	kmt_hash_u64_init(&h);
	for (i = 0; i < nr; i++) {
		/* xorshift never repeats a state: 200k distinct keys */
		keys[i] = rng_next(&state);
		v = kmt_hash_u64_put(&h, keys[i], &is_new);
		if (!v || !is_new) {
			bad++;
			continue;
		}
		*v = ~keys[i];
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(kmt_hash_u64_count(&h), nr);
	/* the load factor stays at most 3/4 */
	CHECK(h.raw.nr_used * 4 <= h.raw.nr_slots * 3);
	for (i = 0, bad = 0; i < nr; i++) {
		v = kmt_hash_u64_get(&h, keys[i]);
		if (!v || *v != ~keys[i])
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	/* the generator's next outputs were never inserted */
	for (i = 0, bad = 0; i < nr; i++)
		bad += kmt_hash_u64_get(&h, rng_next(&state)) != NULL;
	CHECK_EQ_U64(bad, 0);
	/* delete every other key, then check both halves */
	for (i = 0, bad = 0; i < nr; i += 2) {
		uint64_t out = 0;

		if (kmt_hash_u64_del(&h, keys[i], &out) != 1 || out != ~keys[i])
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(kmt_hash_u64_count(&h), nr / 2);
	for (i = 0, bad = 0; i < nr; i++) {
		v = kmt_hash_u64_get(&h, keys[i]);
		if (i % 2 ? (!v || *v != ~keys[i]) : v != NULL)
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	/* delete the rest: the table is empty, and still usable */
	for (i = 1, bad = 0; i < nr; i += 2)
		bad += kmt_hash_u64_del(&h, keys[i], NULL) != 1;
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(kmt_hash_u64_count(&h), 0);
	for (i = 0, bad = 0; i < h.raw.nr_slots; i++)
		bad += slot_used(&h, i) != 0;
	CHECK_EQ_U64(bad, 0);
	kmt_hash_u64_free(&h);
	free(keys);
}

/*
 * Random puts and deletes over a small key space whose keys crowd into a
 * few home slots, so that clusters are long and wrap around the end of
 * the table; every key is checked against the reference after each step.
 */
static void test_random_ops_reference(void)
{
	enum { NR_KEYS = 600, NR_OPS = 40000 };
	uint64_t keys[NR_KEYS], ref[NR_KEYS];
	unsigned char present[NR_KEYS];
	uint64_t state = 0x9e3779b97f4a7c15ULL;
	struct kmt_hash_u64 h;
	size_t i, op, bad = 0, live = 0;

	/* half the keys share home slots near the end of a 1024-slot table */
	for (i = 0; i < NR_KEYS; i++) {
		keys[i] = i % 2 ? key_for_slot(1024, 1020 + i % 4,
					       i ? keys[i - 1] : 0) :
			  rng_next(&state);
	}
	memset(present, 0, sizeof(present));
	kmt_hash_u64_init(&h);
	for (op = 0; op < NR_OPS; op++) {
		size_t k = rng_next(&state) % NR_KEYS;
		uint64_t *v;

		if (rng_next(&state) % 3) {
			int is_new;

			v = kmt_hash_u64_put(&h, keys[k], &is_new);
			if (!v || is_new == present[k]) {
				bad++;
				continue;
			}
			if (!is_new && *v != ref[k])
				bad++;
			ref[k] = rng_next(&state);
			*v = ref[k];
			live += !present[k];
			present[k] = 1;
		} else {
			uint64_t out = 0;
			int r = kmt_hash_u64_del(&h, keys[k], &out);

			if (r != present[k] || (r && out != ref[k]))
				bad++;
			live -= present[k];
			present[k] = 0;
		}
		if (op % 97 == 0 || op > NR_OPS - 50) {
			for (i = 0; i < NR_KEYS; i++) {
				v = kmt_hash_u64_get(&h, keys[i]);
				if (present[i] ? !v || *v != ref[i] : !!v)
					bad++;
			}
		}
		if (kmt_hash_u64_count(&h) != live)
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	kmt_hash_u64_free(&h);
}

/*
 * In a 16-slot table: A and C have home 14, B and D home 15, E home 0,
 * F home 1.  Inserted in that order they sit at 14, 15, 0, 1, 2, 3.
 * Deleting A must shift C back across the wrap to 14, D to 0, E to 1,
 * F to 2; B stays at 15 (it is at its home).
 */
static void test_delete_wraparound(void)
{
	struct kmt_hash_u64 h;
	uint64_t a, b, c, d, e, f, keys[6];
	size_t i;

	a = key_for_slot(16, 14, 0);
	b = key_for_slot(16, 15, 0);
	c = key_for_slot(16, 14, a);
	d = key_for_slot(16, 15, b);
	e = key_for_slot(16, 0, 0);
	f = key_for_slot(16, 1, 0);
	keys[0] = a;
	keys[1] = b;
	keys[2] = c;
	keys[3] = d;
	keys[4] = e;
	keys[5] = f;

	kmt_hash_u64_init(&h);
	for (i = 0; i < 6; i++)
		*kmt_hash_u64_put(&h, keys[i], NULL) = keys[i] + 1;
	CHECK_EQ_U64(h.raw.nr_slots, 16);
	CHECK_EQ_U64(slot_of(&h, a), 14);
	CHECK_EQ_U64(slot_of(&h, b), 15);
	CHECK_EQ_U64(slot_of(&h, c), 0);
	CHECK_EQ_U64(slot_of(&h, d), 1);
	CHECK_EQ_U64(slot_of(&h, e), 2);
	CHECK_EQ_U64(slot_of(&h, f), 3);

	CHECK_EQ_U64(kmt_hash_u64_del(&h, a, NULL), 1);
	CHECK_EQ_U64(slot_of(&h, b), 15);
	CHECK_EQ_U64(slot_of(&h, c), 14);
	CHECK_EQ_U64(slot_of(&h, d), 0);
	CHECK_EQ_U64(slot_of(&h, e), 1);
	CHECK_EQ_U64(slot_of(&h, f), 2);
	CHECK_EQ_U64(slot_used(&h, 3), 0);
	for (i = 1; i < 6; i++) {
		uint64_t *v = kmt_hash_u64_get(&h, keys[i]);

		CHECK(v != NULL);
		if (v)
			CHECK_EQ_U64(*v, keys[i] + 1);
	}

	/*
	 * Now B (15) goes: D (home 15, at 0) moves to 15; E (home 0, at 1)
	 * to 0; F (home 1, at 2) to 1; C at 14 stays.
	 */
	CHECK_EQ_U64(kmt_hash_u64_del(&h, b, NULL), 1);
	CHECK_EQ_U64(slot_of(&h, c), 14);
	CHECK_EQ_U64(slot_of(&h, d), 15);
	CHECK_EQ_U64(slot_of(&h, e), 0);
	CHECK_EQ_U64(slot_of(&h, f), 1);
	CHECK_EQ_U64(slot_used(&h, 2), 0);

	/*
	 * Deleting E (at its home 0) must not pull F back past its home 1;
	 * F stays at 1 (already at home).
	 */
	CHECK_EQ_U64(kmt_hash_u64_del(&h, e, NULL), 1);
	CHECK_EQ_U64(slot_of(&h, f), 1);
	CHECK_EQ_U64(slot_used(&h, 0), 0);
	CHECK(kmt_hash_u64_get(&h, c) && kmt_hash_u64_get(&h, d) &&
	      kmt_hash_u64_get(&h, f));
	CHECK(!kmt_hash_u64_get(&h, a) && !kmt_hash_u64_get(&h, b) &&
	      !kmt_hash_u64_get(&h, e));
	CHECK_EQ_U64(kmt_hash_u64_count(&h), 3);
	kmt_hash_u64_free(&h);
}

/*
 * A cluster that runs over the end: entries with homes 13..15 placed
 * after a hole may not move before their home.
 */
static void test_delete_keeps_home_order(void)
{
	struct kmt_hash_u64 h;
	uint64_t x, y, z, w;

	x = key_for_slot(16, 13, 0);	/* at 13 */
	y = key_for_slot(16, 13, x);	/* at 14 */
	z = key_for_slot(16, 15, 0);	/* at 15 */
	w = key_for_slot(16, 15, z);	/* at 0 */
	kmt_hash_u64_init(&h);
	kmt_hash_u64_put(&h, x, NULL);
	kmt_hash_u64_put(&h, y, NULL);
	kmt_hash_u64_put(&h, z, NULL);
	kmt_hash_u64_put(&h, w, NULL);
	CHECK_EQ_U64(slot_of(&h, w), 0);
	/* y leaves 14: z (home 15) must stay; w (home 15) stays at 0 */
	CHECK_EQ_U64(kmt_hash_u64_del(&h, y, NULL), 1);
	CHECK_EQ_U64(slot_of(&h, x), 13);
	CHECK_EQ_U64(slot_of(&h, z), 15);
	CHECK_EQ_U64(slot_of(&h, w), 0);
	CHECK(kmt_hash_u64_get(&h, w) != NULL);
	/* z leaves 15: w moves from 0 back to its home 15 */
	CHECK_EQ_U64(kmt_hash_u64_del(&h, z, NULL), 1);
	CHECK_EQ_U64(slot_of(&h, w), 15);
	CHECK(kmt_hash_u64_get(&h, w) != NULL);
	CHECK(kmt_hash_u64_get(&h, x) != NULL);
	kmt_hash_u64_free(&h);

	/*
	 * Homes past the wrap stay past it: P, Q (home 14) at 14, 15 and
	 * R, S (home 0) at 0, 1.  Deleting Q leaves a hole at 15 that R and
	 * S must not fill, since 15 comes before their home.
	 */
	x = key_for_slot(16, 14, 0);
	y = key_for_slot(16, 14, x);
	z = key_for_slot(16, 0, 0);
	w = key_for_slot(16, 0, z);
	kmt_hash_u64_init(&h);
	kmt_hash_u64_put(&h, x, NULL);
	kmt_hash_u64_put(&h, y, NULL);
	kmt_hash_u64_put(&h, z, NULL);
	kmt_hash_u64_put(&h, w, NULL);
	CHECK_EQ_U64(slot_of(&h, y), 15);
	CHECK_EQ_U64(slot_of(&h, w), 1);
	CHECK_EQ_U64(kmt_hash_u64_del(&h, y, NULL), 1);
	CHECK_EQ_U64(slot_used(&h, 15), 0);
	CHECK_EQ_U64(slot_of(&h, z), 0);
	CHECK_EQ_U64(slot_of(&h, w), 1);
	CHECK(kmt_hash_u64_get(&h, z) != NULL && kmt_hash_u64_get(&h, w) != NULL);
	kmt_hash_u64_free(&h);
}

static void test_iteration(void)
{
	const size_t nr = 5000;
	unsigned char *seen = calloc(nr, 1);
	struct kmt_hash_u32 h;
	size_t i, it, visits = 0, bad = 0;
	uint64_t key;
	uint32_t *val;

	CHECK(seen != NULL);
	if (!seen)
		return;
	kmt_hash_u32_init(&h);
	for (i = 0; i < nr; i++)
		*kmt_hash_u32_put(&h, i * 7919 + 3, NULL) = (uint32_t)i;
	/* delete the multiples of 3: they must not be visited */
	for (i = 0; i < nr; i += 3)
		kmt_hash_u32_del(&h, i * 7919 + 3, NULL);
	for (it = 0; kmt_hash_u32_next(&h, &it, &key, &val); ) {
		uint32_t idx = *val;

		visits++;
		if (idx >= nr || key != idx * 7919ULL + 3 || idx % 3 == 0 ||
		    seen[idx]) {
			bad++;
			continue;
		}
		seen[idx] = 1;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(visits, nr - (nr + 2) / 3);
	CHECK_EQ_U64(visits, kmt_hash_u32_count(&h));
	/* the iterator stays at the end */
	CHECK_EQ_U64(kmt_hash_u32_next(&h, &it, &key, &val), 0);
	/* key and value pointers are optional */
	for (it = 0, visits = 0; kmt_hash_u32_next(&h, &it, NULL, NULL); )
		visits++;
	CHECK_EQ_U64(visits, kmt_hash_u32_count(&h));
	kmt_hash_u32_free(&h);
	free(seen);
}

/* value i's bytes, and how many of them a value of size bytes lacks */
static void fill(unsigned char *v, size_t size, size_t i)
{
	size_t j;

	for (j = 0; j < size; j++)
		v[j] = (unsigned char)(i * 31 + j);
}

static size_t wrong(const unsigned char *v, size_t size, size_t i)
{
	size_t j, bad = 0;

	if (!v)
		return 1;
	for (j = 0; j < size; j++)
		bad += v[j] != (unsigned char)(i * 31 + j);
	return bad;
}

/*
 * Values of odd sizes are stored whole, keys stay aligned: a table of
 * n-byte values, its own type, grown many times, half deleted.
 */
#define CHECK_VALUE_SIZE(n)						\
struct bytes##n {							\
	unsigned char b[n];						\
};									\
KMT_HASH_TYPE(hash##n, struct bytes##n)					\
static void check_value_size_##n(void)					\
{									\
	const size_t nr = 3000;						\
	struct bytes##n out, *v;					\
	struct hash##n h;						\
	size_t i, bad = 0;						\
									\
	hash##n##_init(&h);						\
	CHECK_EQ_U64(h.raw.slot_size % 8, 0);				\
	CHECK(h.raw.slot_size >= 8 + n);				\
	for (i = 0; i < nr; i++) {					\
		v = hash##n##_put(&h, i << 12, NULL);			\
		if (v)							\
			fill(v->b, n, i);				\
		bad += !v;						\
	}								\
	/* the table grew many times; every byte came along */		\
	for (i = 0; i < nr; i++) {					\
		v = hash##n##_get(&h, i << 12);				\
		bad += wrong(v ? v->b : NULL, n, i);			\
	}								\
	for (i = 0; i < nr; i += 5) {					\
		memset(&out, 0xaa, sizeof(out));			\
		bad += hash##n##_del(&h, i << 12, &out) != 1;		\
		bad += wrong(out.b, n, i);				\
	}								\
	for (i = 0; i < nr; i++) {					\
		v = hash##n##_get(&h, i << 12);				\
		if (i % 5 == 0)						\
			bad += v != NULL;				\
		else							\
			bad += wrong(v ? v->b : NULL, n, i);		\
	}								\
	if (bad)							\
		fprintf(stderr, "value size %d: %zu bad\n", n, bad);	\
	CHECK_EQ_U64(bad, 0);						\
	hash##n##_free(&h);						\
}

CHECK_VALUE_SIZE(1)
CHECK_VALUE_SIZE(8)
CHECK_VALUE_SIZE(24)
CHECK_VALUE_SIZE(40)
CHECK_VALUE_SIZE(13)

static void test_value_sizes(void)
{
	check_value_size_1();
	check_value_size_8();
	check_value_size_24();
	check_value_size_40();
	check_value_size_13();
}

/*
 * A 12-byte value and an 8-byte one next to each other, as a caller's
 * locals may be: each delete copies its own table's value, and not a
 * byte more, from a slot (rounded up to 16 bytes for the 12) or from
 * key 0's.  A size taken from the table at run time once copied 12
 * bytes into 8: now the size comes with the type.
 */
struct twelve {
	uint32_t a, b, c;
};

KMT_HASH_TYPE(twelves, struct twelve)

/* del takes a pointer to the table's value type, nothing looser */
_Static_assert(__builtin_types_compatible_p(__typeof__(&twelves_del),
	int (*)(struct twelves *, uint64_t, struct twelve *)),
	"twelves_del must take a struct twelve *");
_Static_assert(__builtin_types_compatible_p(__typeof__(&kmt_hash_u64_del),
	int (*)(struct kmt_hash_u64 *, uint64_t, uint64_t *)),
	"kmt_hash_u64_del must take a uint64_t *");

static void test_del_copies_value_size(void)
{
	static const uint64_t keys[] = { 0, 5, 1ULL << 40, UINT64_MAX };
	struct {
		uint64_t eight;
		uint32_t guard;
		struct twelve twelve;
		uint32_t guard2;
	} out;
	struct kmt_hash_u64 e;
	struct twelves t;
	size_t i, k;

	kmt_hash_u64_init(&e);
	twelves_init(&t);
	/* enough keys that deletes shift others back into the hole */
	for (k = 1; k <= 100; k++) {
		struct twelve *v = twelves_put(&t, k * 7919, NULL);
		uint64_t *u = kmt_hash_u64_put(&e, k * 7919, NULL);

		CHECK(v && u);
		if (!v || !u)
			goto out;
		v->a = (uint32_t)k;
		v->b = (uint32_t)k + 1;
		v->c = (uint32_t)k + 2;
		*u = k | 0xabcd000000000000ULL;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct twelve *v = twelves_put(&t, keys[i], NULL);
		uint64_t *u = kmt_hash_u64_put(&e, keys[i], NULL);

		CHECK(v && u);
		if (!v || !u)
			goto out;
		v->a = 0x11111111;
		v->b = 0x22222222;
		v->c = (uint32_t)i;
		*u = ~keys[i];
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		memset(&out, 0x5a, sizeof(out));
		CHECK_EQ_U64(kmt_hash_u64_del(&e, keys[i], &out.eight), 1);
		CHECK_EQ_U64(out.eight, ~keys[i]);
		CHECK_EQ_U64(out.guard, 0x5a5a5a5a);
		CHECK_EQ_U64(out.twelve.a, 0x5a5a5a5a);
		CHECK_EQ_U64(twelves_del(&t, keys[i], &out.twelve), 1);
		CHECK_EQ_U64(out.twelve.a, 0x11111111);
		CHECK_EQ_U64(out.twelve.b, 0x22222222);
		CHECK_EQ_U64(out.twelve.c, i);
		CHECK_EQ_U64(out.guard, 0x5a5a5a5a);
		CHECK_EQ_U64(out.guard2, 0x5a5a5a5a);
		/* gone: a second delete finds nothing and copies nothing */
		memset(&out, 0x5a, sizeof(out));
		CHECK_EQ_U64(twelves_del(&t, keys[i], &out.twelve), 0);
		CHECK_EQ_U64(out.twelve.a, 0x5a5a5a5a);
	}
	/* the others, moved about by those deletes, come out whole */
	for (k = 1; k <= 100; k++) {
		memset(&out, 0x5a, sizeof(out));
		CHECK_EQ_U64(twelves_del(&t, k * 7919, &out.twelve), 1);
		CHECK_EQ_U64(kmt_hash_u64_del(&e, k * 7919, &out.eight), 1);
		CHECK(out.twelve.a == k && out.twelve.b == k + 1 &&
		      out.twelve.c == k + 2);
		CHECK_EQ_U64(out.eight, k | 0xabcd000000000000ULL);
		CHECK_EQ_U64(out.guard, 0x5a5a5a5a);
		CHECK_EQ_U64(out.guard2, 0x5a5a5a5a);
	}
	CHECK_EQ_U64(twelves_count(&t), 0);
	CHECK_EQ_U64(kmt_hash_u64_count(&e), 0);
out:
	twelves_free(&t);
	kmt_hash_u64_free(&e);
}

static void test_growth_preserves(void)
{
	struct kmt_hash_u64 h;
	size_t i, last = 0, grows = 0, bad = 0;

	kmt_hash_u64_init(&h);
	for (i = 0; i < 100000; i++) {
		*kmt_hash_u64_put(&h, 0xffff888000000000ULL + i * 64,
				  NULL) = i;
		if (h.raw.nr_slots != last) {
			size_t j;

			grows++;
			last = h.raw.nr_slots;
			CHECK_EQ_U64(last & (last - 1), 0);
			/* right after a growth every earlier key is there */
			for (j = 0; j <= i; j++) {
				uint64_t *v = kmt_hash_u64_get(&h,
					0xffff888000000000ULL + j * 64);

				bad += !v || *v != j;
			}
		}
	}
	CHECK(grows >= 10);
	CHECK_EQ_U64(bad, 0);
	kmt_hash_u64_free(&h);
}

static void test_clear(void)
{
	struct kmt_hash_u64 h;
	size_t i, it = 0, slots;
	int is_new;
	uint64_t *v;

	kmt_hash_u64_init(&h);
	kmt_hash_u64_clear(&h);	/* on an empty table */
	for (i = 0; i < 1000; i++)
		*kmt_hash_u64_put(&h, i, NULL) = i + 1;
	slots = h.raw.nr_slots;
	kmt_hash_u64_clear(&h);
	CHECK_EQ_U64(kmt_hash_u64_count(&h), 0);
	CHECK_EQ_U64(h.raw.nr_slots, slots);	/* memory is kept for reuse */
	CHECK(kmt_hash_u64_get(&h, 5) == NULL);
	CHECK_EQ_U64(kmt_hash_u64_next(&h, &it, NULL, NULL), 0);
	CHECK_EQ_U64(kmt_hash_u64_del(&h, 5, NULL), 0);
	v = kmt_hash_u64_put(&h, 5, &is_new);
	CHECK_EQ_U64(is_new, 1);
	CHECK_EQ_U64(*v, 0);
	CHECK_EQ_U64(kmt_hash_u64_count(&h), 1);
	kmt_hash_u64_free(&h);
}

static void test_hash_bytes(void)
{
	const char a[] = "kmalloc-64", b[] = "kmalloc-96";
	uint64_t seen[64];
	size_t i, j, bad = 0;

	CHECK(kmt_hash_bytes(a, 10) == kmt_hash_bytes("kmalloc-64", 10));
	CHECK(kmt_hash_bytes(a, 10) != kmt_hash_bytes(b, 10));
	/* a prefix and zero padding are different inputs */
	CHECK(kmt_hash_bytes("ab", 2) != kmt_hash_bytes("abc", 3));
	CHECK(kmt_hash_bytes("ab", 2) != kmt_hash_bytes("ab\0", 3));
	CHECK(kmt_hash_bytes("", 0) != kmt_hash_bytes("\0", 1));
	/* every length 0..63 of one buffer hashes differently */
	for (i = 0; i < 64; i++) {
		static const char z[64];

		seen[i] = kmt_hash_bytes(z, i);
		for (j = 0; j < i; j++)
			bad += seen[j] == seen[i];
	}
	CHECK_EQ_U64(bad, 0);
}

/* compact: every entry once, key 0 included, values intact */
static void test_compact(void)
{
	struct kmt_hash_u64_entry *e;
	struct kmt_hash_u64 h;
	size_t n, i, sum = 0, seen0 = 0;
	uint64_t k;

	kmt_hash_u64_init(&h);
	for (k = 0; k < 1000; k++)
		*kmt_hash_u64_put(&h, k * 7919, NULL) = k;
	for (k = 0; k < 1000; k += 2)
		CHECK(kmt_hash_u64_del(&h, k * 7919, NULL));
	e = kmt_hash_u64_compact(&h, &n);
	CHECK_EQ_U64(n, 500);
	/* an entry is a slot: the array is the slots, one after another */
	CHECK_EQ_U64(sizeof(*e), h.raw.slot_size);
	for (i = 0; i < n; i++) {
		CHECK_EQ_U64(e[i].key, e[i].value * 7919);
		CHECK(e[i].value % 2 == 1);
		sum += e[i].value;
		seen0 += e[i].key == 0;
	}
	CHECK_EQ_U64(sum, 250000);
	CHECK_EQ_U64(seen0, 0);
	/* the entries are an array now, not a table to look up */
	CHECK_EQ_U64(h.raw.nr_used, 0);
	CHECK(kmt_hash_u64_get(&h, 7919) == NULL);
	kmt_hash_u64_clear(&h);
	*kmt_hash_u64_put(&h, 0, NULL) = 42;
	*kmt_hash_u64_put(&h, 5, NULL) = 5;
	e = kmt_hash_u64_compact(&h, &n);
	CHECK_EQ_U64(n, 2);
	for (i = 0; i < n; i++)
		CHECK_EQ_U64(e[i].value, e[i].key ? 5 : 42);
	kmt_hash_u64_free(&h);
}

KMT_TESTS(
	KMT_TEST(test_compact),
	KMT_TEST(test_empty),
	KMT_TEST(test_put_get_del_basic),
	KMT_TEST(test_extreme_keys),
	KMT_TEST(test_many_random_keys),
	KMT_TEST(test_random_ops_reference),
	KMT_TEST(test_delete_wraparound),
	KMT_TEST(test_delete_keeps_home_order),
	KMT_TEST(test_iteration),
	KMT_TEST(test_value_sizes),
	KMT_TEST(test_del_copies_value_size),
	KMT_TEST(test_growth_preserves),
	KMT_TEST(test_clear),
	KMT_TEST(test_hash_bytes)
)
