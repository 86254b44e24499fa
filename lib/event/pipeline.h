/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_PIPELINE_H
#define KMT_EVENT_PIPELINE_H

#include <stddef.h>

#include "event/event.h"
#include "util/handoff.h"

/*
 * Events handed to a second thread in batches, in the order pushed: the
 * reader decodes the next batches while the consumer works through the
 * last.  The consumer must touch nothing the reader changes (the
 * session's stacks, symbols, strings and process tables grow as the input
 * is read): it gets copies of the events and nothing else.
 */
#define KMT_PIPE_BATCH	4096	/* events a batch: few hand-overs */
/*
 * Batches in flight.  Readers emit in bursts: the perf.data reader merges
 * when 16,384 events wait (KMT_PERFDATA_BATCH) and passes on what is safe
 * at once.  The analyses' thread works faster than the reader reads, so
 * a ring that holds a merge or two (3 MB) lets the reader go on decoding
 * while they catch up.  Feeding them a few events per record read instead
 * (a ready list, with 4 batches) cost the reader more than it saved.
 */
#define KMT_PIPE_SLOTS	8
/*
 * The first batches are smaller (this many events, then four times as
 * many each, up to KMT_PIPE_BATCH), and each slot is allocated when
 * first filled: a small input costs one small batch, not the whole 3 MB
 * ring.  A big one reaches full batches by its third.
 */
#define KMT_PIPE_FIRST	256

/* consumes n events; non-zero stops the pipeline with that error */
typedef int (*kmt_pipe_fn)(void *arg, const struct kmt_event *ev, size_t n);

struct kmt_pipeline {
	kmt_pipe_fn consume;
	void *arg;
	struct kmt_handoff h;	/* the batches' hand-over, slot by slot */
	struct kmt_event *ring[KMT_PIPE_SLOTS];	/* batches, or NULL */
	size_t cap[KMT_PIPE_SLOTS];	/* events ring[i] holds */
	size_t fill[KMT_PIPE_SLOTS];
	struct kmt_event *cur;	/* the batch being filled */
	size_t limit;		/* which is full at limit events */
	/*
	 * Once the consumer failed or a batch could not be allocated, the
	 * reader's events go here, one at a time, and are dropped.
	 */
	int failed;
	struct kmt_event sink;
	size_t nr;		/* events in the batch being filled */
	int err;		/* the consumer's error, 0: its thread's own */
	int running;
};

/* 0, or -errno when the thread cannot start (nothing to free then) */
int kmt_pipeline_start(struct kmt_pipeline *p, kmt_pipe_fn consume,
		       void *arg);

/*
 * The place of the next event in the batch being filled: the reader
 * writes its copy there, then kmt_pipeline_commit queues it.
 */
static inline struct kmt_event *kmt_pipeline_slot(struct kmt_pipeline *p)
{
	return p->cur + p->nr;
}

/*
 * Queues the event written at kmt_pipeline_slot; 0, or the consumer's
 * error once it has failed (the reader should stop: later events are
 * dropped).
 */
int kmt_pipeline_commit(struct kmt_pipeline *p);

/*
 * Hands over what is queued, waits for the consumer to finish and frees
 * the pipeline; returns the consumer's error or 0.  Once this returns,
 * all the consumer wrote is visible to the caller.
 */
int kmt_pipeline_finish(struct kmt_pipeline *p);

#endif
