// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/sort.h"

int kmt_sort_has_key(const struct kmt_sort_key *table, size_t nr_table,
		     const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < nr_table; i++) {
		if (strlen(table[i].name) == len &&
		    !strncmp(table[i].name, name, len))
			return 1;
	}
	return 0;
}

int kmt_sort_parse(struct kmt_sort_chain *chain, const char *spec,
		   const struct kmt_sort_key *table, size_t nr_table,
		   int skip_unknown, char *bad, size_t badlen)
{
	const char *p = spec;

	chain->nr = 0;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		size_t i;

		for (i = 0; i < nr_table; i++) {
			if (strlen(table[i].name) == len &&
			    !strncmp(table[i].name, p, len))
				break;
		}
		if (i == nr_table && !skip_unknown) {
			snprintf(bad, badlen, "%.*s", (int)len, p);
			return -1;
		}
		if (i < nr_table && chain->nr < KMT_SORT_MAX_KEYS)
			chain->keys[chain->nr++] = &table[i];
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static int chain_cmp(const void *a, const void *b, void *arg)
{
	const struct kmt_sort_chain *chain = arg;
	size_t i;

	for (i = 0; i < chain->nr; i++) {
		int c = chain->keys[i]->cmp(a, b);

		if (c)
			return c;
	}
	return chain->tiebreak ? chain->tiebreak(a, b) : 0;
}

void kmt_sort_rows(void *rows, size_t nr, size_t size,
		   const struct kmt_sort_chain *chain)
{
	/* an empty table may have no array at all */
	if (nr < 2)
		return;
	qsort_r(rows, nr, size, chain_cmp, (void *)chain);
}

struct index_sort {
	const struct kmt_sort_chain *chain;
	const unsigned char *rows;
	size_t size;
};

static int index_cmp(const void *a, const void *b, void *arg)
{
	const struct index_sort *is = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = chain_cmp(is->rows + x * is->size, is->rows + y * is->size,
			  (void *)is->chain);

	/* equal rows keep their order, so the result is the same everywhere */
	return c ? c : (x < y ? -1 : x > y);
}

/*
 * A record of the encoded sort: the keys' numbers, the tiebreak's number
 * when it has one, then the row number.
 */
static int record_cmp(const void *a, const void *b, void *arg)
{
	const struct index_sort *is = arg;
	const uint64_t *x = a, *y = b;
	size_t i, nk = is->chain->nr + !!is->chain->tiebreak_enc;
	int c;

	for (i = 0; i < nk; i++) {
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	}
	if (is->chain->tiebreak) {
		c = is->chain->tiebreak(is->rows + x[nk] * is->size,
					is->rows + y[nk] * is->size);
		if (c)
			return c;
	}
	return x[nk] < y[nk] ? -1 : x[nk] > y[nk];
}

static int chain_encodes(const struct kmt_sort_chain *chain)
{
	size_t i;

	for (i = 0; i < chain->nr; i++) {
		if (!chain->keys[i]->enc)
			return 0;
	}
	return 1;
}

/*
 * Sorts records of the encoded keys and the row number, in place of
 * row numbers compared through the rows: the same order (ties fall to the
 * tiebreak, then the row number), at a fraction of the cache misses.
 */
static int sort_encoded(uint32_t *idx, const void *rows, size_t nr,
			size_t size, const struct kmt_sort_chain *chain)
{
	struct index_sort is = { chain, rows, size };
	size_t nk = chain->nr + !!chain->tiebreak_enc, w = nk + 1, i, k;
	uint64_t *rec = malloc(nr * w * sizeof(*rec));

	if (!rec)
		return -1;
	for (i = 0; i < nr; i++) {
		const void *row = (const unsigned char *)rows + i * size;

		for (k = 0; k < chain->nr; k++)
			rec[i * w + k] = chain->keys[k]->enc(row);
		if (chain->tiebreak_enc)
			rec[i * w + k] = chain->tiebreak_enc(row);
		rec[i * w + nk] = i;
	}
	qsort_r(rec, nr, w * sizeof(*rec), record_cmp, &is);
	for (i = 0; i < nr; i++)
		idx[i] = (uint32_t)rec[i * w + nk];
	free(rec);
	return 0;
}

uint32_t *kmt_sort_index(const void *rows, size_t nr, size_t size,
			 const struct kmt_sort_chain *chain)
{
	struct index_sort is = { chain, rows, size };
	uint32_t *idx;
	size_t i;

	if (nr > UINT32_MAX)
		return NULL;
	idx = malloc((nr ? nr : 1) * sizeof(*idx));
	if (!idx)
		return NULL;
	for (i = 0; i < nr; i++)
		idx[i] = (uint32_t)i;
	if (nr < 2)
		return idx;
	/* short of memory for the records, the slower way still sorts */
	if (!chain_encodes(chain) || sort_encoded(idx, rows, nr, size, chain))
		qsort_r(idx, nr, sizeof(*idx), index_cmp, &is);
	return idx;
}
