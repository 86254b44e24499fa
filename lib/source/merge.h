/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SOURCE_MERGE_H
#define KMT_SOURCE_MERGE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The merge of per-CPU event streams, each already in time order, into
 * one: perf.data's queue between round markers, trace.dat's CPU streams.
 * A heap of each stream's next event, earliest first, keyed by its time
 * and then by a tie the reader gives (file order, stream order) that no
 * two streams share, so that the order is total: whatever the heap's
 * shape, equal times go out the same way every run.  The reader keeps
 * the streams; the heap keeps their keys, compared without touching the
 * events.
 */
struct kmt_merge_head {
	uint64_t ts;
	uint64_t tie;
	size_t stream;		/* the reader's index */
};

struct kmt_merge {
	struct kmt_merge_head *h;	/* h[0] goes next */
	size_t nr, alloc;
};

void kmt_merge_init(struct kmt_merge *m);
void kmt_merge_free(struct kmt_merge *m);

/* room for n streams, so that kmt_merge_add cannot fail: 0 or -ENOMEM */
int kmt_merge_reserve(struct kmt_merge *m, size_t n);

/* a stream and the key of its next event, within the room reserved */
void kmt_merge_add(struct kmt_merge *m, size_t stream, uint64_t ts,
		   uint64_t tie);

/* the stream whose event goes next; NULL when every stream ran out */
static inline const struct kmt_merge_head *
kmt_merge_top(const struct kmt_merge *m)
{
	return m->nr ? &m->h[0] : NULL;
}

static inline int kmt__merge_before(const struct kmt_merge_head *a,
				    const struct kmt_merge_head *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->tie < b->tie);
}

/*
 * h[0] holds a new key: down to where it belongs.  Inline, as it runs
 * once an event: a call would cost about what it does for a few streams.
 * Two streams (a two-CPU machine) take one comparison and no store when
 * the same stream goes on: 45% fewer instructions in the heap on
 * bench/report's recording.
 */
static inline void kmt__merge_down(struct kmt_merge *m)
{
	struct kmt_merge_head e = m->h[0];
	size_t i = 0, c, n = m->nr;

	if (n == 2) {
		if (kmt__merge_before(&m->h[1], &e)) {
			m->h[0] = m->h[1];
			m->h[1] = e;
		}
		return;
	}
	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && kmt__merge_before(&m->h[c + 1], &m->h[c]))
			c++;
		if (!kmt__merge_before(&m->h[c], &e))
			break;
		m->h[i] = m->h[c];
		i = c;
	}
	m->h[i] = e;
}

/* the top stream's event went out: the key of the one after it */
static inline void kmt_merge_advance(struct kmt_merge *m, uint64_t ts,
				     uint64_t tie)
{
	m->h[0].ts = ts;
	m->h[0].tie = tie;
	kmt__merge_down(m);
}

/* the top stream's event went out and it has no more */
static inline void kmt_merge_pop(struct kmt_merge *m)
{
	if (--m->nr) {
		m->h[0] = m->h[m->nr];
		kmt__merge_down(m);
	}
}

/* every stream out, the room kept for the next merge */
static inline void kmt_merge_clear(struct kmt_merge *m)
{
	m->nr = 0;
}

#endif
