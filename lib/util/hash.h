/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_HASH_H
#define KMT_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * The one hash table of the project: u64 keys, fixed-size values stored
 * inline, open addressing with linear probing and backward-shift deletion
 * (no tombstones, so a table of live objects stays as small as its
 * population however many objects came and went).
 *
 * Value pointers returned by kmt_hash_put/kmt_hash_get stay valid only
 * until the next put or delete.
 */
struct kmt_hash {
	/*
	 * nr_slots * slot_size bytes: each slot is a key then its value.
	 * Key 0 marks a free slot, so a probe reads one cache line, not a
	 * key and a separate "used" map; key 0 itself lives in zero_slot.
	 */
	unsigned char *slots;
	unsigned char *zero_slot;	/* slot_size bytes, for key 0 */
	int has_zero;
	size_t nr_slots;	/* a power of two, or 0 */
	size_t nr_used;		/* keys present, key 0 included */
	size_t value_size;
	size_t slot_size;
};

void kmt_hash_init(struct kmt_hash *h, size_t value_size);
void kmt_hash_free(struct kmt_hash *h);
void kmt_hash_clear(struct kmt_hash *h);

/* Returns the value of key, or NULL. */
void *kmt_hash_get(const struct kmt_hash *h, uint64_t key);

/*
 * Returns the value slot for key, inserting a zeroed one (and setting
 * *is_new when is_new is not NULL) if absent; NULL when out of memory.
 */
void *kmt_hash_put(struct kmt_hash *h, uint64_t key, int *is_new);

/* Removes key; copies its value to out when out is not NULL. 1 if found. */
int kmt_hash_del(struct kmt_hash *h, uint64_t key, void *out);

static inline size_t kmt_hash_count(const struct kmt_hash *h)
{
	return h->nr_used;
}

/*
 * Iteration: for (size_t it = 0; kmt_hash_next(h, &it, &key, &val); )
 * The table must not change during the walk.
 */
int kmt_hash_next(const struct kmt_hash *h, size_t *iter, uint64_t *key,
		  void **value);

/* Mixes a 64-bit key; also used for string hashing seeds. */
static inline uint64_t kmt_hash_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/*
 * Starts loading the slot where key would live, for a lookup a little
 * later: with tables far larger than the caches, most of a lookup is
 * waiting for memory, and a batch of lookups can wait in parallel (the
 * pageowner groups do; report's events did not gain, see cmd-report.c).
 */
static inline void kmt_hash_prefetch(const struct kmt_hash *h, uint64_t key)
{
	if (h->nr_slots)
		__builtin_prefetch(h->slots + (kmt_hash_mix(key) &
					       (h->nr_slots - 1)) * h->slot_size);
}

/* Whether slot i of the table array holds a key (for tests) */
static inline int kmt_hash_slot_used(const struct kmt_hash *h, size_t i)
{
	return *(const uint64_t *)(h->slots + i * h->slot_size) != 0;
}

/*
 * Moves every entry to the front of the slot array, gives back the
 * slots past them, and returns it: *nr entries of slot_size bytes, each a
 * uint64_t key then the value, ready to sort in place without a copy.
 * Afterwards the table is empty and can only be cleared (to be used
 * again) or freed, either of which frees the array.
 */
void *kmt_hash_compact(struct kmt_hash *h, size_t *nr);

uint64_t kmt_hash_bytes(const void *data, size_t len);

#endif
