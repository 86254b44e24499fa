/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_HANDOFF_H
#define KMT_UTIL_HANDOFF_H

#include <pthread.h>
#include <stddef.h>

/*
 * One thread hands work to a second, in order, through a ring of
 * nr_slots slots: the producer fills slot kmt_handoff_slot() and hands
 * it over with kmt_handoff_put, which returns once the next slot is free
 * (consumed, or never used): with the ring full the producer waits.  The
 * second thread calls consume on each slot handed over, in order.  What
 * a slot holds (a batch of events, a block of text) is the caller's,
 * indexed by slot number; it is the consumer's from its put until
 * consume returns, and the mutex between them makes what either wrote
 * visible to the other.  (render/parallel.c's drawing is not this: both
 * of its threads take pieces of one list, in order, and one writes them.)
 */
typedef int (*kmt_handoff_fn)(void *arg, size_t slot);

struct kmt_handoff {
	kmt_handoff_fn consume;
	void *arg;
	size_t nr_slots;
	size_t head;		/* slots handed over: the producer's */
	size_t tail;		/* slots consumed */
	int closing;
	int err;		/* consume's first non-zero return */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
};

/*
 * Starts the second thread; 0, or -errno when it cannot (nothing to
 * free then).  consume is called on every slot handed over, after a
 * failure too: a caller that stops at its first error says so itself.
 */
int kmt_handoff_start(struct kmt_handoff *h, size_t nr_slots,
		      kmt_handoff_fn consume, void *arg);

/* the slot the producer fills next */
static inline size_t kmt_handoff_slot(const struct kmt_handoff *h)
{
	return h->head % h->nr_slots;
}

/*
 * Hands the slot filled over and waits until the next one is free;
 * consume's first error so far, or 0.
 */
int kmt_handoff_put(struct kmt_handoff *h);

/*
 * Waits until every slot handed over is consumed, stops the thread and
 * frees what start made; consume's first error, or 0.
 */
int kmt_handoff_finish(struct kmt_handoff *h);

#endif
