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
 * The encoded records are sorted by an LSD radix sort of 8-bit digits:
 * a table of a quarter million rows sorts in a few passes over memory
 * instead of millions of calls to record_cmp.
 */
#define RADIX_BITS 8
#define RADIX (1U << RADIX_BITS)
#define WORD_DIGITS (64 / RADIX_BITS)
/* the keys, the tiebreak number and the row number */
#define MAX_REC_WORDS (KMT_SORT_MAX_KEYS + 2)
#define MAX_DIGITS ((KMT_SORT_MAX_KEYS + 1) * WORD_DIGITS)

/*
 * Only the digits that differ between records order them: most high
 * bytes of counts and sizes are the same in every row.  The records are
 * packed to those digits, most significant first, then the row number's
 * digits, big-endian in words: fewer bytes to move on every pass, and
 * a digit's place is a word and a shift.
 */
struct radix_plan {
	uint16_t digit[MAX_DIGITS];	/* varying digits: word * 8 + digit */
	size_t nr_digits;
	size_t row_digits;		/* of the row number: enough for nr - 1 */
	size_t w;			/* words of a packed record */
};

/* diff[k]: the bits of number k that differ in some record from the first */
static void plan_digits(struct radix_plan *plan, const uint64_t *diff,
			size_t nr, size_t nk)
{
	size_t k, d, n = 0;

	for (k = 0; k < nk; k++) {
		for (d = WORD_DIGITS; d--; ) {
			size_t pos = k * WORD_DIGITS + d;

			if ((diff[k] >> (d * RADIX_BITS)) & (RADIX - 1))
				plan->digit[n++] = (uint16_t)pos;
		}
	}
	plan->nr_digits = n;
	plan->row_digits = 1;
	while (plan->row_digits < 4 &&
	       (nr - 1) >> (plan->row_digits * RADIX_BITS))
		plan->row_digits++;
	n += plan->row_digits;
	plan->w = (n + WORD_DIGITS - 1) / WORD_DIGITS;
}

/*
 * A packed record is never longer than its record: packed in place.
 * count[j] gets how many records have each value of packed digit j,
 * for the pass that sorts by it.
 */
static void pack_records(uint64_t *rec, size_t nr, size_t w, size_t nk,
			 const struct radix_plan *plan,
			 uint32_t (*count)[RADIX])
{
	size_t i, j;

	for (i = 0; i < nr; i++) {
		uint64_t in[MAX_REC_WORDS], out[MAX_REC_WORDS], acc = 0;
		size_t n = 0, o = 0;

		memcpy(in, rec + i * w, w * sizeof(*in));
		for (j = 0; j < plan->nr_digits + plan->row_digits; j++) {
			unsigned int pos, v;

			if (j < plan->nr_digits) {
				pos = plan->digit[j];
				v = (in[pos / WORD_DIGITS] >>
				     (pos % WORD_DIGITS * RADIX_BITS)) &
				    (RADIX - 1);
				count[j][v]++;
			} else {
				pos = plan->nr_digits + plan->row_digits - 1 - j;
				v = (in[nk] >> (pos * RADIX_BITS)) & (RADIX - 1);
			}
			acc = acc << RADIX_BITS | v;
			if (++n == WORD_DIGITS) {
				out[o++] = acc;
				acc = 0;
				n = 0;
			}
		}
		if (n)
			out[o++] = acc << ((WORD_DIGITS - n) * RADIX_BITS);
		memcpy(rec + i * plan->w, out, plan->w * sizeof(*out));
	}
}

static inline unsigned int packed_shift(size_t j)
{
	return (WORD_DIGITS - 1 - j % WORD_DIGITS) * RADIX_BITS;
}

static uint32_t packed_row(const uint64_t *r, const struct radix_plan *plan)
{
	size_t j, end = plan->nr_digits + plan->row_digits;
	uint32_t row = 0;

	for (j = plan->nr_digits; j < end; j++)
		row = row << RADIX_BITS |
		      ((r[j / WORD_DIGITS] >> packed_shift(j)) & (RADIX - 1));
	return row;
}

/*
 * One stable pass: the records of src into dst by the digit at shift of
 * word k.  w is a constant where this is inlined, so the copy of a record
 * is a few moves, not a call to memcpy.
 */
static inline __attribute__((always_inline)) void
radix_pass(const uint64_t *src, uint64_t *dst, size_t nr, size_t w,
	   size_t k, unsigned int shift, const uint32_t *count)
{
	size_t off[RADIX], sum = 0, i, j;
	unsigned int v;

	for (v = 0; v < RADIX; v++) {
		off[v] = sum;
		sum += count[v];
	}
	for (i = 0; i < nr; i++, src += w) {
		uint64_t *t = dst + off[(src[k] >> shift) & (RADIX - 1)]++ * w;

		for (j = 0; j < w; j++)
			t[j] = src[j];
	}
}

static void radix_pass_w(const uint64_t *src, uint64_t *dst, size_t nr,
			 size_t w, size_t k, unsigned int shift,
			 const uint32_t *count)
{
	switch (w) {
	case 1:
		radix_pass(src, dst, nr, 1, k, shift, count);
		break;
	case 2:
		radix_pass(src, dst, nr, 2, k, shift, count);
		break;
	case 3:
		radix_pass(src, dst, nr, 3, k, shift, count);
		break;
	case 4:
		radix_pass(src, dst, nr, 4, k, shift, count);
		break;
	default:
		radix_pass(src, dst, nr, w, k, shift, count);
		break;
	}
}

/*
 * Sorts nr packed records by their varying digits, the least significant
 * first.  The records start in row order and every pass is stable, so
 * records equal on every number stay in row order: the row number needs
 * no pass of its own.  Returns the buffer the sorted records ended in
 * (rec or tmp).
 */
static uint64_t *radix_sort(uint64_t *rec, uint64_t *tmp, size_t nr,
			    const struct radix_plan *plan,
			    uint32_t (*count)[RADIX])
{
	size_t j = plan->nr_digits;

	while (j--) {
		uint64_t *t;

		radix_pass_w(rec, tmp, nr, plan->w, j / WORD_DIGITS,
			     packed_shift(j), count[j]);
		t = rec;
		rec = tmp;
		tmp = t;
	}
	return rec;
}

/* records whose keys and tiebreak number are all equal: only tiebreak tells */
static int tie_cmp(const void *a, const void *b, void *arg)
{
	const struct index_sort *is = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = is->chain->tiebreak(is->rows + x * is->size,
				    is->rows + y * is->size);

	return c ? c : (x < y ? -1 : x > y);
}

/* runs this short are sorted in place; longer ones go to qsort_r */
#define SHORT_RUN 16

static void sort_run(uint32_t *idx, size_t n, const struct index_sort *is)
{
	size_t i, j;

	if (n > SHORT_RUN) {
		qsort_r(idx, n, sizeof(*idx), tie_cmp, (void *)is);
		return;
	}
	for (i = 1; i < n; i++) {
		uint32_t x = idx[i];

		for (j = i; j && tie_cmp(&idx[j - 1], &x, (void *)is) > 0; j--)
			idx[j] = idx[j - 1];
		idx[j] = x;
	}
}

/* equal on every number: the packed records but for the row number */
static int same_numbers(const uint64_t *a, const uint64_t *b,
			const struct radix_plan *plan)
{
	size_t k, full = plan->nr_digits / WORD_DIGITS;
	size_t part = plan->nr_digits % WORD_DIGITS;

	for (k = 0; k < full; k++) {
		if (a[k] != b[k])
			return 0;
	}
	return !part || !((a[k] ^ b[k]) >> packed_shift(part - 1));
}

/*
 * The radix sort orders rows equal on every number by row number; where
 * the chain has a tiebreak, those runs (short: the tiebreak number tells
 * most rows apart) are sorted again by it.
 */
static void sort_ties(uint32_t *idx, const uint64_t *rec, size_t nr,
		      const struct radix_plan *plan,
		      const struct index_sort *is)
{
	size_t i = 0, j, w = plan->w;

	while (i < nr) {
		for (j = i + 1; j < nr && same_numbers(rec + i * w,
						       rec + j * w, plan); j++)
			;
		if (j - i > 1)
			sort_run(idx + i, j - i, is);
		i = j;
	}
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
	uint64_t diff[MAX_REC_WORDS] = { 0 };
	uint32_t (*count)[RADIX] = NULL;
	struct radix_plan plan;
	uint64_t *tmp, *sorted, *shrunk;

	if (!rec)
		return -1;
	/* short of memory for the radix sort, qsort_r needs no more */
	tmp = malloc(nr * w * sizeof(*tmp));
	if (tmp)
		count = calloc(nk * WORD_DIGITS, sizeof(*count));
	for (i = 0; i < nr; i++) {
		const void *row = (const unsigned char *)rows + i * size;
		uint64_t *r = rec + i * w;

		for (k = 0; k < chain->nr; k++)
			r[k] = chain->keys[k]->enc(row);
		if (chain->tiebreak_enc)
			r[k] = chain->tiebreak_enc(row);
		r[nk] = i;
		for (k = 0; k < nk; k++)
			diff[k] |= r[k] ^ rec[k];
	}
	if (!count) {
		qsort_r(rec, nr, w * sizeof(*rec), record_cmp, &is);
		for (i = 0; i < nr; i++)
			idx[i] = (uint32_t)rec[i * w + nk];
		free(tmp);
		free(rec);
		return 0;
	}
	plan_digits(&plan, diff, nr, nk);
	pack_records(rec, nr, w, nk, &plan, count);
	/* the packed records need less: give the rest back (mremap) */
	shrunk = realloc(rec, nr * plan.w * sizeof(*rec));
	if (shrunk)
		rec = shrunk;
	sorted = radix_sort(rec, tmp, nr, &plan, count);
	for (i = 0; i < nr; i++)
		idx[i] = packed_row(sorted + i * plan.w, &plan);
	if (chain->tiebreak)
		sort_ties(idx, sorted, nr, &plan, &is);
	free(count);
	free(tmp);
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
