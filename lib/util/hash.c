// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/hash.h"

#define KMT_HASH_MIN_SLOTS 16

static inline uint64_t *slot_key(const struct kmt_hash *h, size_t i)
{
	return (uint64_t *)(h->slots + i * h->slot_size);
}

static inline void *slot_value(const struct kmt_hash *h, size_t i)
{
	return h->slots + i * h->slot_size + sizeof(uint64_t);
}

static inline size_t home_slot(const struct kmt_hash *h, uint64_t key)
{
	return kmt_hash_mix(key) & (h->nr_slots - 1);
}

void kmt__hash_init(struct kmt_hash *h, size_t value_size)
{
	memset(h, 0, sizeof(*h));
	/* keep every key 8-byte aligned */
	h->slot_size = sizeof(uint64_t) + ((value_size + 7) & ~(size_t)7);
}

void kmt__hash_free(struct kmt_hash *h)
{
	free(h->slots);
	free(h->zero_slot);
	h->slots = NULL;
	h->zero_slot = NULL;
	h->has_zero = 0;
	h->nr_slots = 0;
	h->nr_used = 0;
}

void kmt__hash_clear(struct kmt_hash *h)
{
	/* a compacted table's array was its entries: it goes */
	if (h->slots && !h->nr_slots) {
		free(h->slots);
		h->slots = NULL;
	}
	if (h->slots)
		memset(h->slots, 0, h->nr_slots * h->slot_size);
	h->has_zero = 0;
	h->nr_used = 0;
}

void *kmt__hash_get(const struct kmt_hash *h, uint64_t key)
{
	size_t i, mask;

	if (!key)
		return h->has_zero ? h->zero_slot + sizeof(uint64_t) : NULL;
	if (!h->nr_slots)
		return NULL;
	mask = h->nr_slots - 1;
	for (i = home_slot(h, key);; i = (i + 1) & mask) {
		uint64_t k = *slot_key(h, i);

		if (k == key)
			return slot_value(h, i);
		if (!k)
			return NULL;
	}
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

/*
 * A big table comes zeroed from a fresh mapping, its pages not there
 * yet.  A lookup that misses reads a page first, which maps the shared
 * zero page, and the insert that follows faults again to copy it, with
 * a TLB flush on every CPU the process runs on: a second thread makes
 * that an interrupt to the other CPU for each page.  Faulting the pages
 * in for writing at once is one pass, with no flushes.  Older kernels
 * refuse the advice, and the pages come as before.
 */
static void populate(void *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(page - 1);

	if (len >= 64 * 1024 && end > start)
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

static int grow(struct kmt_hash *h)
{
	size_t new_nr = h->nr_slots ? h->nr_slots * 2 : KMT_HASH_MIN_SLOTS;
	unsigned char *old = h->slots;
	size_t old_nr = h->nr_slots, i;

	h->slots = calloc(new_nr, h->slot_size);
	if (!h->slots) {
		h->slots = old;
		return -1;
	}
	populate(h->slots, new_nr * h->slot_size);
	h->nr_slots = new_nr;
	for (i = 0; i < old_nr; i++) {
		const unsigned char *src = old + i * h->slot_size;
		uint64_t key = *(const uint64_t *)src;
		size_t j;

		if (!key)
			continue;
		for (j = home_slot(h, key); *slot_key(h, j);
		     j = (j + 1) & (new_nr - 1))
			;
		memcpy(h->slots + j * h->slot_size, src, h->slot_size);
	}
	free(old);
	return 0;
}

static void *put_zero(struct kmt_hash *h, int *is_new)
{
	if (!h->zero_slot) {
		h->zero_slot = calloc(1, h->slot_size);
		if (!h->zero_slot)
			return NULL;
	}
	if (!h->has_zero) {
		memset(h->zero_slot, 0, h->slot_size);
		h->has_zero = 1;
		h->nr_used++;
		if (is_new)
			*is_new = 1;
	}
	return h->zero_slot + sizeof(uint64_t);
}

void *kmt__hash_put(struct kmt_hash *h, uint64_t key, int *is_new)
{
	size_t i, mask;

	if (is_new)
		*is_new = 0;
	if (!key)
		return put_zero(h, is_new);
	/* load factor at most 3/4 */
	if ((h->nr_used + 1) * 4 > h->nr_slots * 3 && grow(h))
		return NULL;
	mask = h->nr_slots - 1;
	for (i = home_slot(h, key);; i = (i + 1) & mask) {
		uint64_t k = *slot_key(h, i);

		if (k == key)
			return slot_value(h, i);
		if (!k)
			break;
	}
	*slot_key(h, i) = key;
	memset(slot_value(h, i), 0, h->slot_size - sizeof(uint64_t));
	h->nr_used++;
	if (is_new)
		*is_new = 1;
	return slot_value(h, i);
}

/*
 * out_size comes from the typed wrapper, sizeof its value type, and not
 * from the table: a copy the compiler can see the size of, matching out.
 */
int kmt__hash_del(struct kmt_hash *h, uint64_t key, void *out,
		  size_t out_size)
{
	size_t i, j, mask;

	if (!key) {
		if (!h->has_zero)
			return 0;
		if (out)
			memcpy(out, h->zero_slot + sizeof(uint64_t), out_size);
		h->has_zero = 0;
		h->nr_used--;
		return 1;
	}
	if (!h->nr_slots)
		return 0;
	mask = h->nr_slots - 1;
	for (i = home_slot(h, key);; i = (i + 1) & mask) {
		uint64_t k = *slot_key(h, i);

		if (k == key)
			break;
		if (!k)
			return 0;
	}
	if (out)
		memcpy(out, slot_value(h, i), out_size);

	/* shift back later members of the cluster that may move into the hole */
	j = i;
	for (;;) {
		size_t home;
		uint64_t k;

		j = (j + 1) & mask;
		k = *slot_key(h, j);
		if (!k)
			break;
		home = home_slot(h, k);
		/* can the entry at j live at i? only if home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			memcpy(h->slots + i * h->slot_size,
			       h->slots + j * h->slot_size, h->slot_size);
			i = j;
		}
	}
	*slot_key(h, i) = 0;
	h->nr_used--;
	return 1;
}

int kmt__hash_next(const struct kmt_hash *h, size_t *iter, uint64_t *key,
		   void **value)
{
	size_t i;

	for (i = *iter; i < h->nr_slots; i++) {
		if (!*slot_key(h, i))
			continue;
		if (key)
			*key = *slot_key(h, i);
		if (value)
			*value = slot_value(h, i);
		*iter = i + 1;
		return 1;
	}
	/* key 0 comes last, at iter == nr_slots */
	if (i == h->nr_slots && h->has_zero) {
		if (key)
			*key = 0;
		if (value)
			*value = h->zero_slot + sizeof(uint64_t);
		*iter = i + 1;
		return 1;
	}
	*iter = h->nr_slots + 1;
	return 0;
}

void *kmt__hash_compact(struct kmt_hash *h, size_t *nr)
{
	unsigned char *shrunk;
	size_t i, n = 0;

	for (i = 0; i < h->nr_slots; i++) {
		if (!*slot_key(h, i))
			continue;
		if (i != n)
			memcpy(h->slots + n * h->slot_size,
			       h->slots + i * h->slot_size, h->slot_size);
		n++;
	}
	/* the load factor leaves room for key 0 at the end */
	if (h->has_zero && n < h->nr_slots) {
		memcpy(h->slots + n * h->slot_size, h->zero_slot, h->slot_size);
		n++;
	}
	/*
	 * The slots past the entries go back: a table is up to 2.7 times
	 * its entries, and what follows (sorting them) needs the room.
	 */
	shrunk = realloc(h->slots, (n ? n : 1) * h->slot_size);
	if (shrunk)
		h->slots = shrunk;
	h->nr_slots = 0;
	h->nr_used = 0;
	h->has_zero = 0;
	*nr = n;
	return h->slots;
}

uint64_t kmt_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t x = 0x9e3779b97f4a7c15ULL ^ len;
	size_t i;

	/* one multiply per word, one full mix at the end */
	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		x = (x ^ w) * 0xbf58476d1ce4e5b9ULL;
		x ^= x >> 31;
	}
	if (i < len) {
		uint64_t w = 0;

		memcpy(&w, p + i, len - i);
		x = (x ^ w ^ ((uint64_t)(len - i) << 56)) * 0x94d049bb133111ebULL;
	}
	return kmt_hash_mix(x);
}
