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

static void check_spec(const struct row *rows, size_t nr, const char *spec,
		       int with_prefix)
{
	struct kmt_sort_chain a, b;
	uint32_t *x, *y;
	char bad[16];

	CHECK(!kmt_sort_parse(&a, spec, encoded, 3, 0, bad, sizeof(bad)));
	CHECK(!kmt_sort_parse(&b, spec, plain, 3, 0, bad, sizeof(bad)));
	a.tiebreak = b.tiebreak = cmp_id;
	a.tiebreak_enc = with_prefix ? enc_id_prefix : NULL;
	b.tiebreak_enc = NULL;
	x = kmt_sort_index(rows, nr, sizeof(*rows), &a);
	y = kmt_sort_index(rows, nr, sizeof(*rows), &b);
	CHECK(x && y);
	if (x && y && memcmp(x, y, nr * sizeof(*x))) {
		size_t i = 0;

		while (x[i] == y[i])
			i++;
		fprintf(stderr, "'%s'%s: orders differ at %zu: row %u vs %u\n",
			spec, with_prefix ? " (tiebreak number)" : "", i,
			x[i], y[i]);
		CHECK(0);
	}
	free(x);
	free(y);
}

static void test_encoded_as_compared(void)
{
	static const char *const specs[] = {
		"u", "s", "d", "u,s,d", "d,u", "s,d,u", "d,s",
	};
	size_t nr = 5000, i, k;
	struct row *rows = calloc(nr, sizeof(*rows));
	uint64_t seed = 12345;

	CHECK(rows != NULL);
	if (!rows)
		return;
	for (i = 0; i < nr; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		rows[i].id = (seed >> 20) % 3000;
		rows[i].u = i % 7 ? (seed >> 33) % 5 : UINT64_MAX - i % 3;
		rows[i].s = (int32_t)((seed >> 40) % 7) - 3;
		rows[i].d = doubles[(seed >> 50) % (sizeof(doubles) /
						    sizeof(doubles[0]))];
	}
	for (k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		check_spec(rows, nr, specs[k], 0);
		check_spec(rows, nr, specs[k], 1);
	}
	free(rows);
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

KMT_TESTS(KMT_TEST(test_encoded_as_compared), KMT_TEST(test_encoders))
