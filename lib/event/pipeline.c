// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event/pipeline.h"

/*
 * Room for the next batch to fill (consumed, or never used): its slot,
 * grown to the batch's size.  0, or -ENOMEM.
 */
static int make_room(struct kmt_pipeline *p)
{
	size_t batch = p->h.head, i = batch % KMT_PIPE_SLOTS;
	size_t want = KMT_PIPE_BATCH;
	struct kmt_event *b;

	if (batch < 2)
		want = (size_t)KMT_PIPE_FIRST << (2 * batch);
	if (p->cap[i] < want) {
		b = malloc(want * sizeof(*b));
		if (!b)
			return -ENOMEM;
		free(p->ring[i]);
		p->ring[i] = b;
		p->cap[i] = want;
	}
	p->cur = p->ring[i];
	p->limit = want;
	return 0;
}

static void free_ring(struct kmt_pipeline *p)
{
	size_t i;

	for (i = 0; i < KMT_PIPE_SLOTS; i++) {
		free(p->ring[i]);
		p->ring[i] = NULL;
	}
}

static int consume_batch(void *arg, size_t slot)
{
	struct kmt_pipeline *p = arg;

	/* after an error, batches still queued are only drained */
	if (!p->err)
		p->err = p->consume(p->arg, p->ring[slot], p->fill[slot]);
	return p->err;
}

int kmt_pipeline_start(struct kmt_pipeline *p, kmt_pipe_fn consume, void *arg)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->consume = consume;
	p->arg = arg;
	if (make_room(p))
		return -ENOMEM;
	ret = kmt_handoff_start(&p->h, KMT_PIPE_SLOTS, consume_batch, p);
	if (ret) {
		free_ring(p);
		return ret;
	}
	p->running = 1;
	return 0;
}

/* hands the batch being filled to the consumer; its error, or 0 */
static int hand_over(struct kmt_pipeline *p)
{
	p->fill[kmt_handoff_slot(&p->h)] = p->nr;
	p->nr = 0;
	return kmt_handoff_put(&p->h);
}

/* hands it over and makes room for the next */
static int publish(struct kmt_pipeline *p)
{
	int err;

	if (p->failed) {
		p->nr = 0;
		return p->failed;
	}
	err = hand_over(p);
	if (!err && make_room(p))
		err = -ENOMEM;
	if (err) {
		p->failed = err;
		p->cur = &p->sink;
		p->limit = 1;
	}
	return err;
}

int kmt_pipeline_commit(struct kmt_pipeline *p)
{
	return ++p->nr == p->limit ? publish(p) : 0;
}

int kmt_pipeline_finish(struct kmt_pipeline *p)
{
	int err;

	if (!p->running)
		return 0;
	if (p->nr && !p->failed)
		hand_over(p);
	err = kmt_handoff_finish(&p->h);
	/* the consumer's error, or the reader's events dropped */
	if (!err)
		err = p->failed;
	free_ring(p);
	p->running = 0;
	return err;
}
