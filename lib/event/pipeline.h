/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_PIPELINE_H
#define KMT_EVENT_PIPELINE_H

#include <pthread.h>
#include <stddef.h>

#include "event/event.h"

/*
 * Events handed to a second thread in batches, in the order pushed: the
 * reader decodes the next batches while the consumer works through the
 * last.  The consumer must touch nothing the reader changes (the
 * session's stacks, symbols, strings and process tables grow as the input
 * is read): it gets copies of the events and nothing else.
 */
#define KMT_PIPE_BATCH	4096	/* events a batch: few hand-overs */
/*
 * Batches in flight.  The perf.data reader merges a round at a time but
 * passes it on while it reads the next (kmt_perfdata_queue_pump), so a
 * few batches keep both threads busy: 1.5 MB, not a round's 12 MB.
 */
#define KMT_PIPE_SLOTS	4

/* consumes n events; non-zero stops the pipeline with that error */
typedef int (*kmt_pipe_fn)(void *arg, const struct kmt_event *ev, size_t n);

struct kmt_pipeline {
	kmt_pipe_fn consume;
	void *arg;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct kmt_event *ring;	/* KMT_PIPE_SLOTS batches */
	size_t fill[KMT_PIPE_SLOTS];
	size_t head;		/* batches pushed (the reader fills head) */
	size_t tail;		/* batches consumed */
	size_t nr;		/* events in the batch being filled */
	int closing;
	int err;		/* the consumer's error, 0 */
	int running;
};

/* 0, or -errno when the thread cannot start (nothing to free then) */
int kmt_pipeline_start(struct kmt_pipeline *p, kmt_pipe_fn consume,
		       void *arg);

/*
 * Queues a copy of ev; 0, or the consumer's error once it has failed
 * (the reader should stop: later events are dropped).
 */
int kmt_pipeline_push(struct kmt_pipeline *p, const struct kmt_event *ev);

/*
 * Hands over what is queued, waits for the consumer to finish and frees
 * the pipeline; returns the consumer's error or 0.  Once this returns,
 * all the consumer wrote is visible to the caller.
 */
int kmt_pipeline_finish(struct kmt_pipeline *p);

#endif
