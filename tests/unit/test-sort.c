// SPDX-License-Identifier: GPL-2.0
/*
 * kmt_sort_index: the encoded sort must give exactly the order the
 * compare functions give, ties and all.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/sort.h"

struct row {
	uint64_t id;
	uint64_t u;
	int32_t s;
	double d;
};

static int cmp_u(const void *a, const void *b)
{
	return KMT_CMP_DESC(((const struct row *)a)->u,
			    ((const struct row *)b)->u);
}

static int cmp_s(const void *a, const void *b)
{
	return KMT_CMP_DESC(((const struct row *)a)->s,
			    ((const struct row *)b)->s);
}

static int cmp_d(const void *a, const void *b)
{
	return KMT_CMP_DESC(((const struct row *)a)->d,
			    ((const struct row *)b)->d);
}

/* ids repeat too, so some rows tie on everything */
static int cmp_id(const void *a, const void *b)
{
	return KMT_CMP_ASC(((const struct row *)a)->id / 4,
			   ((const struct row *)b)->id / 4);
}

static uint64_t enc_u(const void *a)
{
	return kmt_enc_desc_u64(((const struct row *)a)->u);
}

static uint64_t enc_s(const void *a)
{
	return kmt_enc_desc_s64(((const struct row *)a)->s);
}

static uint64_t enc_d(const void *a)
{
	return kmt_enc_desc_double(((const struct row *)a)->d);
}

/* coarser than cmp_id: equal numbers leave the order to cmp_id */
static uint64_t enc_id_prefix(const void *a)
{
	return ((const struct row *)a)->id / 64;
}

static const struct kmt_sort_key encoded[] = {
	{ "u", cmp_u, enc_u }, { "s", cmp_s, enc_s }, { "d", cmp_d, enc_d },
};

static const struct kmt_sort_key plain[] = {
	{ "u", cmp_u, NULL }, { "s", cmp_s, NULL }, { "d", cmp_d, NULL },
};

static const double doubles[] = {
	0.0, -0.0, 37.5, -2.25, 100.0, 1e-300, -1e300, 0.001, 3.125,
};

/* exactly cmp_id's order: the tiebreak only sees equal ids */
static uint64_t enc_id_full(const void *a)
{
	return ((const struct row *)a)->id / 4;
}

/* how the chain breaks ties on its keys */
enum tie {
	TIE_NONE,	/* row number only */
	TIE_CMP,	/* cmp_id */
	TIE_PREFIX,	/* cmp_id, with enc_id_prefix numbers before it */
	TIE_FULL,	/* cmp_id, with numbers that order as it does */
};

static const char *const tie_names[] = {
	"no tiebreak", "tiebreak", "tiebreak prefix number",
	"tiebreak number",
};

/*
 * An order checked without any sort: every row once, and each row
 * before the next by the compare functions, then by row number.
 */
static int in_order(const struct row *rows, size_t nr, const uint32_t *x,
		    const struct kmt_sort_chain *chain)
{
	unsigned char *seen = calloc(nr ? nr : 1, 1);
	size_t i, k;
	int ok = seen != NULL;

	for (i = 0; ok && i < nr; i++) {
		if (x[i] >= nr || seen[x[i]]++)
			ok = 0;
	}
	for (i = 1; ok && i < nr; i++) {
		const struct row *a = &rows[x[i - 1]], *b = &rows[x[i]];
		int c = 0;

		for (k = 0; !c && k < chain->nr; k++)
			c = chain->keys[k]->cmp(a, b);
		if (!c && chain->tiebreak)
			c = chain->tiebreak(a, b);
		if (c > 0 || (!c && x[i - 1] > x[i])) {
			fprintf(stderr, "rows %u and %u out of order at %zu\n",
				x[i - 1], x[i], i);
			ok = 0;
		}
	}
	free(seen);
	return ok;
}

static void check_spec(const struct row *rows, size_t nr, const char *spec,
		       enum tie tie)
{
	struct kmt_sort_chain a, b;
	uint32_t *x, *y;
	char bad[16];

	CHECK(!kmt_sort_parse(&a, spec, encoded, 3, 0, bad, sizeof(bad)));
	CHECK(!kmt_sort_parse(&b, spec, plain, 3, 0, bad, sizeof(bad)));
	a.tiebreak = b.tiebreak = tie == TIE_NONE ? NULL : cmp_id;
	a.tiebreak_enc = tie == TIE_PREFIX ? enc_id_prefix :
			 tie == TIE_FULL ? enc_id_full : NULL;
	b.tiebreak_enc = NULL;
	x = kmt_sort_index(rows, nr, sizeof(*rows), &a);
	y = kmt_sort_index(rows, nr, sizeof(*rows), &b);
	CHECK(x && y);
	if (x && y && memcmp(x, y, nr * sizeof(*x))) {
		size_t i = 0;

		while (x[i] == y[i])
			i++;
		fprintf(stderr, "'%s' (%s), %zu rows: orders differ at %zu: "
			"row %u vs %u\n", spec, tie_names[tie], nr, i, x[i],
			y[i]);
		CHECK(0);
	}
	if (x && !in_order(rows, nr, x, &b)) {
		fprintf(stderr, "'%s' (%s), %zu rows: encoded sort out of "
			"order\n", spec, tie_names[tie], nr);
		CHECK(0);
	}
	free(x);
	free(y);
}

static const char *const specs[] = {
	"u,s,d", "d,s", "s", "u", "d", "d,u", "s,d,u",
};

#define ALL_SPECS (sizeof(specs) / sizeof(specs[0]))

/* the first nr_specs of specs, each with every kind of tiebreak */
static void check_specs(const struct row *rows, size_t nr, size_t nr_specs)
{
	size_t k;
	int tie;

	for (k = 0; k < nr_specs; k++) {
		for (tie = TIE_NONE; tie <= TIE_FULL; tie++)
			check_spec(rows, nr, specs[k], tie);
	}
}

static uint64_t next(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return *seed;
}

static void test_encoded_as_compared(void)
{
	size_t nr = 5000, i;
	struct row *rows = calloc(nr, sizeof(*rows));
	uint64_t seed = 12345;

	CHECK(rows != NULL);
	if (!rows)
		return;
	for (i = 0; i < nr; i++) {
		next(&seed);
		rows[i].id = (seed >> 20) % 3000;
		rows[i].u = i % 7 ? (seed >> 33) % 5 : UINT64_MAX - i % 3;
		rows[i].s = (int32_t)((seed >> 40) % 7) - 3;
		rows[i].d = doubles[(seed >> 50) % (sizeof(doubles) /
						    sizeof(doubles[0]))];
	}
	check_specs(rows, nr, ALL_SPECS);
	free(rows);
}

/*
 * Enough rows for three bytes of row number, and keys whose every byte
 * varies next to keys where only a few bytes do (the sort skips the
 * bytes that are the same in every row: it must skip no other).
 */
static void test_many_rows(void)
{
	size_t nr = 100000, i;
	struct row *rows = calloc(nr, sizeof(*rows));
	uint64_t seed = 777;
	int pass;

	CHECK(rows != NULL);
	if (!rows)
		return;
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < nr; i++) {
			uint64_t r = next(&seed) >> 11;

			rows[i].id = next(&seed) >> 40;
			if (pass == 0) {
				/* every byte of every key varies */
				rows[i].u = next(&seed) ^ r << 20;
				rows[i].s = (int32_t)(next(&seed) >> 32);
				rows[i].d = (double)(int64_t)next(&seed) /
					    (double)(r | 1);
			} else if (pass == 1) {
				/* bytes 1 and 5 of u, byte 2 of s vary */
				rows[i].u = 0xa5a5000000000000ULL |
					    (r & 0x3) << 8 |
					    (r >> 2 & 0xff) << 40;
				rows[i].s = (int32_t)((r >> 10 & 0x7) << 16) - 9;
				rows[i].d = doubles[r % (sizeof(doubles) /
							 sizeof(doubles[0]))];
				rows[i].id %= 20000;
			} else {
				/* few values: long runs for the tiebreak */
				rows[i].u = r % 3;
				rows[i].s = (int32_t)(r >> 8 & 1);
				rows[i].d = r >> 9 & 1 ? -0.0 : 0.0;
				rows[i].id %= 600;
			}
		}
		/* a few chains: the compared sort of 100,000 rows is slow */
		check_specs(rows, nr, 3);
	}
	free(rows);
}

/* every row ties on everything: the row number decides */
static void test_all_equal(void)
{
	size_t nr = 70000, i;
	struct row *rows = calloc(nr, sizeof(*rows));
	struct kmt_sort_chain chain;
	uint32_t *x;
	char bad[16];
	int tie;

	CHECK(rows != NULL);
	if (!rows)
		return;
	for (i = 0; i < nr; i++) {
		rows[i].id = 42;
		rows[i].u = 7;
		rows[i].s = -1;
		rows[i].d = i % 2 ? -0.0 : 0.0;
	}
	check_specs(rows, nr, 3);
	for (tie = TIE_NONE; tie <= TIE_FULL; tie++) {
		CHECK(!kmt_sort_parse(&chain, "d,u,s", encoded, 3, 0, bad,
				      sizeof(bad)));
		chain.tiebreak = tie == TIE_NONE ? NULL : cmp_id;
		chain.tiebreak_enc = tie == TIE_PREFIX ? enc_id_prefix :
				     tie == TIE_FULL ? enc_id_full : NULL;
		x = kmt_sort_index(rows, nr, sizeof(*rows), &chain);
		CHECK(x != NULL);
		for (i = 0; x && i < nr; i++) {
			if (x[i] != i) {
				CHECK_EQ_U64(x[i], i);
				break;
			}
		}
		free(x);
	}
	free(rows);
}

/*
 * The tiebreak number only a prefix of the tiebreak, as for page rows
 * (page + callsite, then order, migratetype, gfp): rows equal on the
 * keys and the number, their ids descending, come out in reverse row
 * order.  Runs short enough to sort in place and longer ones.
 */
static void test_prefix_tiebreak(void)
{
	static const size_t sizes[] = { 2, 8, 40, 1000 };
	struct row rows[1000];
	struct kmt_sort_chain chain;
	size_t i, j, nr;
	uint32_t *x;
	char bad[16];

	for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
		nr = sizes[j];
		memset(rows, 0, sizeof(rows));
		for (i = 0; i < nr; i++)
			rows[i].id = (nr - 1 - i) * 4 % 64 + 64 * 5;
		check_specs(rows, nr, ALL_SPECS);
		CHECK(!kmt_sort_parse(&chain, "u", encoded, 3, 0, bad,
				      sizeof(bad)));
		chain.tiebreak = cmp_id;
		chain.tiebreak_enc = enc_id_prefix;
		x = kmt_sort_index(rows, nr, sizeof(*rows), &chain);
		CHECK(x != NULL);
		/* ids repeat every 16 rows: beyond, in_order checks the rest */
		for (i = 0; x && nr <= 16 && i < nr; i++)
			CHECK_EQ_U64(x[i], nr - 1 - i);
		for (i = 1; x && i < nr; i++)
			CHECK(rows[x[i - 1]].id <= rows[x[i]].id);
		free(x);
	}
}

/* tables of 0, 1 and 2 rows */
static void test_tiny(void)
{
	struct row rows[2];
	struct kmt_sort_chain chain;
	uint32_t *x;
	char bad[16];

	memset(rows, 0, sizeof(rows));
	CHECK(!kmt_sort_parse(&chain, "u,d", encoded, 3, 0, bad,
			      sizeof(bad)));
	chain.tiebreak = cmp_id;
	chain.tiebreak_enc = enc_id_prefix;
	x = kmt_sort_index(rows, 0, sizeof(*rows), &chain);
	CHECK(x != NULL);
	free(x);
	x = kmt_sort_index(NULL, 0, sizeof(*rows), &chain);
	CHECK(x != NULL);
	free(x);
	x = kmt_sort_index(rows, 1, sizeof(*rows), &chain);
	CHECK(x && x[0] == 0);
	free(x);
	/* larger u first */
	rows[1].u = 1;
	x = kmt_sort_index(rows, 2, sizeof(*rows), &chain);
	CHECK(x && x[0] == 1 && x[1] == 0);
	free(x);
	/* equal keys and prefix: cmp_id, smaller id first */
	rows[1].u = 0;
	rows[0].id = 8;
	x = kmt_sort_index(rows, 2, sizeof(*rows), &chain);
	CHECK(x && x[0] == 1 && x[1] == 0);
	free(x);
	/* equal on everything: row order */
	rows[0].id = 0;
	x = kmt_sort_index(rows, 2, sizeof(*rows), &chain);
	CHECK(x && x[0] == 0 && x[1] == 1);
	free(x);
	check_specs(rows, 2, ALL_SPECS);
}

/* the encoders alone: larger values get smaller numbers */
static void test_encoders(void)
{
	CHECK(kmt_enc_desc_u64(5) < kmt_enc_desc_u64(4));
	CHECK(kmt_enc_desc_u64(UINT64_MAX) < kmt_enc_desc_u64(0));
	CHECK(kmt_enc_desc_s64(1) < kmt_enc_desc_s64(-1));
	CHECK(kmt_enc_desc_s64(INT64_MAX) < kmt_enc_desc_s64(INT64_MIN));
	CHECK(kmt_enc_desc_double(0.5) < kmt_enc_desc_double(0.25));
	CHECK(kmt_enc_desc_double(-0.25) < kmt_enc_desc_double(-0.5));
	CHECK(kmt_enc_desc_double(1e-300) < kmt_enc_desc_double(0.0));
	CHECK(kmt_enc_desc_double(0.0) < kmt_enc_desc_double(-1e-300));
	CHECK_EQ_U64(kmt_enc_desc_double(0.0), kmt_enc_desc_double(-0.0));
}

KMT_TESTS(KMT_TEST(test_encoded_as_compared), KMT_TEST(test_many_rows),
	  KMT_TEST(test_all_equal), KMT_TEST(test_prefix_tiebreak),
	  KMT_TEST(test_tiny), KMT_TEST(test_encoders))
