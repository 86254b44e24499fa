/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_HASH_H
#define KMT_UTIL_HASH_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The one hash table of the project: u64 keys, fixed-size values stored
 * inline, open addressing with linear probing and backward-shift deletion
 * (no tombstones, so a table of live objects stays as small as its
 * population however many objects came and went).
 *
 * Tables are typed: KMT_HASH_TYPE(name, T), below, declares struct name
 * and the functions that use it, all taking and giving T.  The value
 * size is sizeof(T) wherever a value is made, handed out or copied, so
 * a caller cannot pass a value of one table to another (the compiler
 * refuses the pointer) nor have a size that disagrees with the table's.
 * struct kmt_hash_set is a table of keys alone.
 *
 * Value pointers returned by put and get stay valid only until the next
 * put or delete.
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
	size_t slot_size;
};

/*
 * The untyped table under KMT_HASH_TYPE, for its functions alone: use
 * those.  When callers gave the value size at run time and values as
 * void *, nothing tied the size to the object: gcc found a path copying
 * a 12-byte value into an 8-byte one (page.c's take_live), and only a
 * compiler looking across files could have.
 */
void kmt__hash_init(struct kmt_hash *h, size_t value_size);
void kmt__hash_free(struct kmt_hash *h);
void kmt__hash_clear(struct kmt_hash *h);
void *kmt__hash_get(const struct kmt_hash *h, uint64_t key);
void *kmt__hash_put(struct kmt_hash *h, uint64_t key, int *is_new);
/* out_size is sizeof the table's value type, the caller's out too */
int kmt__hash_del(struct kmt_hash *h, uint64_t key, void *out,
		  size_t out_size);
int kmt__hash_next(const struct kmt_hash *h, size_t *iter, uint64_t *key,
		   void **value);
void *kmt__hash_compact(struct kmt_hash *h, size_t *nr);

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

static inline void kmt__hash_prefetch(const struct kmt_hash *h, uint64_t key)
{
	if (h->nr_slots)
		__builtin_prefetch(h->slots + (kmt_hash_mix(key) &
					       (h->nr_slots - 1)) * h->slot_size);
}

/*
 * KMT_HASH_TYPE(name, T) declares, for a table of u64 keys to values of
 * type T:
 *
 * struct name, and struct name_entry { uint64_t key; T value; }.
 *
 * void name_init(struct name *h), name_free(h), name_clear(h): a table
 *	is initialised before use; free gives its memory back (and leaves
 *	it empty and usable); clear empties it and keeps the memory.
 * size_t name_count(const struct name *h): the keys present.
 * T *name_get(const struct name *h, uint64_t key): the value, or NULL.
 * T *name_put(struct name *h, uint64_t key, int *is_new): the value of
 *	key, inserting a zeroed one (and setting *is_new when is_new is
 *	not NULL) if absent; NULL when out of memory.
 * int name_del(struct name *h, uint64_t key, T *out): removes key,
 *	copying its value to out when out is not NULL; 1 if found.
 * int name_next(const struct name *h, size_t *it, uint64_t *key,
 *	T **value): iteration, for (size_t it = 0; name_next(h, &it, &k,
 *	&v); ); key and value may be NULL.  The table must not change
 *	during the walk.  Key 0, if present, comes last.
 * void name_prefetch(const struct name *h, uint64_t key): starts
 *	loading the slot where key would live, for a lookup a little
 *	later: with tables far larger than the caches, most of a lookup is
 *	waiting for memory, and a batch of lookups can wait in parallel
 *	(the pageowner groups do; report's events did not gain, see
 *	cmd-report.c).
 * struct name_entry *name_compact(struct name *h, size_t *nr): moves
 *	every entry to the front of the slot array, gives back the slots
 *	past them, and returns it as *nr entries, ready to sort in place
 *	without a copy.  Afterwards the table is empty and can only be
 *	cleared (to be used again) or freed, either of which frees the
 *	array.
 *
 * The functions are static inline around the untyped ones: a table of
 * live objects costs no call more than before.  Values are at most
 * 8-byte aligned, so that an entry is a slot byte for byte.
 */
#define KMT_HASH_TYPE(name, T)						\
struct name {								\
	struct kmt_hash raw;						\
};									\
struct name##_entry {							\
	uint64_t key;							\
	T value;							\
};									\
_Static_assert(offsetof(struct name##_entry, value) ==			\
	       sizeof(uint64_t) &&					\
	       sizeof(struct name##_entry) ==				\
	       sizeof(uint64_t) + ((sizeof(T) + 7) & ~(size_t)7),	\
	       "a " #name " entry must be laid out as its slot");	\
static inline void name##_init(struct name *h)				\
{									\
	kmt__hash_init(&h->raw, sizeof(T));				\
}									\
static inline void name##_free(struct name *h)				\
{									\
	kmt__hash_free(&h->raw);					\
}									\
static inline void name##_clear(struct name *h)				\
{									\
	kmt__hash_clear(&h->raw);					\
}									\
static inline size_t name##_count(const struct name *h)			\
{									\
	return h->raw.nr_used;						\
}									\
static inline T *name##_get(const struct name *h, uint64_t key)		\
{									\
	return kmt__hash_get(&h->raw, key);				\
}									\
static inline T *name##_put(struct name *h, uint64_t key, int *is_new)	\
{									\
	return kmt__hash_put(&h->raw, key, is_new);			\
}									\
static inline int name##_del(struct name *h, uint64_t key, T *out)	\
{									\
	return kmt__hash_del(&h->raw, key, out, sizeof(T));		\
}									\
static inline int name##_next(const struct name *h, size_t *it,		\
			      uint64_t *key, T **value)			\
{									\
	void *v;							\
									\
	if (!kmt__hash_next(&h->raw, it, key, &v))			\
		return 0;						\
	if (value)							\
		*value = v;						\
	return 1;							\
}									\
static inline void name##_prefetch(const struct name *h, uint64_t key)	\
{									\
	kmt__hash_prefetch(&h->raw, key);				\
}									\
static inline struct name##_entry *name##_compact(struct name *h,	\
						  size_t *nr)		\
{									\
	return kmt__hash_compact(&h->raw, nr);				\
}

/* the tables of plain numbers, shared by every module that keeps one */
KMT_HASH_TYPE(kmt_hash_u32, uint32_t)
KMT_HASH_TYPE(kmt_hash_i32, int32_t)
KMT_HASH_TYPE(kmt_hash_u64, uint64_t)

/*
 * A set of u64 keys: a table with no value.  add gives 0, or -ENOMEM;
 * has 1 when key is in the set.
 */
struct kmt_hash_set {
	struct kmt_hash raw;
};

static inline void kmt_hash_set_init(struct kmt_hash_set *s)
{
	kmt__hash_init(&s->raw, 0);
}

static inline void kmt_hash_set_free(struct kmt_hash_set *s)
{
	kmt__hash_free(&s->raw);
}

static inline size_t kmt_hash_set_count(const struct kmt_hash_set *s)
{
	return s->raw.nr_used;
}

static inline int kmt_hash_set_add(struct kmt_hash_set *s, uint64_t key)
{
	return kmt__hash_put(&s->raw, key, NULL) ? 0 : -ENOMEM;
}

static inline int kmt_hash_set_has(const struct kmt_hash_set *s,
				   uint64_t key)
{
	return kmt__hash_get(&s->raw, key) != NULL;
}

static inline int kmt_hash_set_next(const struct kmt_hash_set *s,
				    size_t *it, uint64_t *key)
{
	return kmt__hash_next(&s->raw, it, key, NULL);
}

uint64_t kmt_hash_bytes(const void *data, size_t len);

#endif
