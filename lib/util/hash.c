// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

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

void kmt_hash_init(struct kmt_hash *h, size_t value_size)
{
	memset(h, 0, sizeof(*h));
	h->value_size = value_size;
	/* keep every key 8-byte aligned */
	h->slot_size = sizeof(uint64_t) + ((value_size + 7) & ~(size_t)7);
}

void kmt_hash_free(struct kmt_hash *h)
{
	free(h->slots);
	free(h->used);
	h->slots = NULL;
	h->used = NULL;
	h->nr_slots = 0;
	h->nr_used = 0;
}

void kmt_hash_clear(struct kmt_hash *h)
{
	if (h->used)
		memset(h->used, 0, h->nr_slots);
	h->nr_used = 0;
}

void *kmt_hash_get(const struct kmt_hash *h, uint64_t key)
{
	size_t i, mask;

	if (!h->nr_used)
		return NULL;
	mask = h->nr_slots - 1;
	for (i = home_slot(h, key); h->used[i]; i = (i + 1) & mask) {
		if (*slot_key(h, i) == key)
			return slot_value(h, i);
	}
	return NULL;
}

static int grow(struct kmt_hash *h)
{
	size_t new_nr = h->nr_slots ? h->nr_slots * 2 : KMT_HASH_MIN_SLOTS;
	struct kmt_hash n = *h;
	size_t i;

	n.slots = malloc(new_nr * h->slot_size);
	n.used = calloc(new_nr, 1);
	if (!n.slots || !n.used) {
		free(n.slots);
		free(n.used);
		return -1;
	}
	n.nr_slots = new_nr;
	n.nr_used = 0;
	for (i = 0; i < h->nr_slots; i++) {
		size_t j;

		if (!h->used[i])
			continue;
		j = home_slot(&n, *slot_key(h, i));
		while (n.used[j])
			j = (j + 1) & (new_nr - 1);
		n.used[j] = 1;
		memcpy(n.slots + j * n.slot_size, h->slots + i * h->slot_size,
		       h->slot_size);
		n.nr_used++;
	}
	free(h->slots);
	free(h->used);
	*h = n;
	return 0;
}

void *kmt_hash_put(struct kmt_hash *h, uint64_t key, int *is_new)
{
	size_t i, mask;

	if (is_new)
		*is_new = 0;
	/* load factor at most 3/4 */
	if ((h->nr_used + 1) * 4 > h->nr_slots * 3 && grow(h))
		return NULL;
	mask = h->nr_slots - 1;
	for (i = home_slot(h, key); h->used[i]; i = (i + 1) & mask) {
		if (*slot_key(h, i) == key)
			return slot_value(h, i);
	}
	h->used[i] = 1;
	*slot_key(h, i) = key;
	memset(slot_value(h, i), 0, h->slot_size - sizeof(uint64_t));
	h->nr_used++;
	if (is_new)
		*is_new = 1;
	return slot_value(h, i);
}

int kmt_hash_del(struct kmt_hash *h, uint64_t key, void *out)
{
	size_t i, j, mask;

	if (!h->nr_used)
		return 0;
	mask = h->nr_slots - 1;
	for (i = home_slot(h, key); h->used[i]; i = (i + 1) & mask) {
		if (*slot_key(h, i) == key)
			break;
	}
	if (!h->used[i])
		return 0;
	if (out)
		memcpy(out, slot_value(h, i), h->value_size);

	/* shift back later members of the cluster that may move into the hole */
	j = i;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!h->used[j])
			break;
		home = home_slot(h, *slot_key(h, j));
		/* can the entry at j live at i? only if home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			memcpy(h->slots + i * h->slot_size,
			       h->slots + j * h->slot_size, h->slot_size);
			i = j;
		}
	}
	h->used[i] = 0;
	h->nr_used--;
	return 1;
}

int kmt_hash_next(const struct kmt_hash *h, size_t *iter, uint64_t *key,
		  void **value)
{
	size_t i;

	for (i = *iter; i < h->nr_slots; i++) {
		if (!h->used[i])
			continue;
		if (key)
			*key = *slot_key(h, i);
		if (value)
			*value = slot_value(h, i);
		*iter = i + 1;
		return 1;
	}
	*iter = i;
	return 0;
}

uint64_t kmt_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t x = 0x9e3779b97f4a7c15ULL ^ len;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		x = kmt_hash_mix(x ^ w) + 0x9e3779b97f4a7c15ULL;
	}
	if (i < len) {
		uint64_t w = 0;

		memcpy(&w, p + i, len - i);
		x = kmt_hash_mix(x ^ w ^ ((uint64_t)(len - i) << 56));
	}
	return kmt_hash_mix(x);
}
