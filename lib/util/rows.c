// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/rows.h"

void kmt_rows_init(struct kmt_rows *r, size_t row_size, size_t key_size)
{
	memset(r, 0, sizeof(*r));
	kmt_hash_u32_init(&r->index);
	r->row_size = row_size;
	r->key_size = key_size;
}

void kmt_rows_free(struct kmt_rows *r)
{
	kmt_hash_u32_free(&r->index);
	free(r->rows);
	r->rows = NULL;
	r->nr = r->alloc = 0;
}

static uint64_t key_hash(const struct kmt_rows *r, const void *key)
{
	if (r->key_size == sizeof(uint64_t)) {
		uint64_t k;

		memcpy(&k, key, sizeof(k));
		return k;	/* the hash table mixes it */
	}
	return kmt_hash_bytes(key, r->key_size);
}

/* keys are small: compare words inline rather than call memcmp */
static inline int key_equal(const void *a, const void *b, size_t size)
{
	const unsigned char *x = a, *y = b;
	size_t i;

	if (size % 8)
		return !memcmp(a, b, size);
	for (i = 0; i < size; i += 8) {
		uint64_t u, v;

		memcpy(&u, x + i, 8);
		memcpy(&v, y + i, 8);
		if (u != v)
			return 0;
	}
	return 1;
}

void *kmt_rows_get(struct kmt_rows *r, const void *key, int create,
		   int *is_new)
{
	uint64_t h = key_hash(r, key);
	uint32_t *slot;
	void *row;

	if (is_new)
		*is_new = 0;
	for (;;) {
		uint32_t *idx = kmt_hash_u32_get(&r->index, h);

		if (!idx)
			break;
		row = kmt_rows_at(r, *idx);
		if (key_equal(row, key, r->key_size))
			return row;
		h++;	/* another key with this hash: probe on */
	}
	if (!create)
		return NULL;
	if (r->nr >= UINT32_MAX ||
	    kmt_array_grow((void **)&r->rows, &r->alloc, r->nr + 1,
			   r->row_size))
		return NULL;
	slot = kmt_hash_u32_put(&r->index, h, NULL);
	if (!slot)
		return NULL;
	*slot = (uint32_t)r->nr;
	row = kmt_rows_at(r, r->nr);
	memset(row, 0, r->row_size);
	memcpy(row, key, r->key_size);
	r->nr++;
	if (is_new)
		*is_new = 1;
	return row;
}
