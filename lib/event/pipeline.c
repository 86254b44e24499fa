// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event/pipeline.h"

static struct kmt_event *slot(struct kmt_pipeline *p, size_t batch)
{
	return p->ring[batch % KMT_PIPE_SLOTS];
}

/*
 * Room for batch head, the next to fill (consumed, or never used): its
 * slot, grown to the batch's size.  0, or -ENOMEM.
 */
static int make_room(struct kmt_pipeline *p)
{
	size_t i = p->head % KMT_PIPE_SLOTS, want = KMT_PIPE_BATCH;
	struct kmt_event *b;

	if (p->head < 2)
		want = (size_t)KMT_PIPE_FIRST << (2 * p->head);
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

static void *worker(void *arg)
{
	struct kmt_pipeline *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		size_t batch, n;
		int err;

		while (p->tail == p->head && !p->closing)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->tail == p->head)
			break;
		batch = p->tail;
		n = p->fill[batch % KMT_PIPE_SLOTS];
		err = p->err;
		pthread_mutex_unlock(&p->lock);
		/* after an error, batches still queued are only drained */
		if (!err)
			err = p->consume(p->arg, slot(p, batch), n);
		pthread_mutex_lock(&p->lock);
		if (err && !p->err)
			p->err = err;
		p->tail++;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int kmt_pipeline_start(struct kmt_pipeline *p, kmt_pipe_fn consume, void *arg)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->consume = consume;
	p->arg = arg;
	if (make_room(p))
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	ret = pthread_create(&p->thread, NULL, worker, p);
	if (ret) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		free_ring(p);
		return -ret;
	}
	p->running = 1;
	return 0;
}

/* hands the batch being filled to the consumer; its error, or 0 */
static int hand_over(struct kmt_pipeline *p)
{
	int err;

	pthread_mutex_lock(&p->lock);
	p->fill[p->head % KMT_PIPE_SLOTS] = p->nr;
	p->head++;
	pthread_cond_broadcast(&p->cond);
	/* the next batch to fill must have been consumed */
	while (p->head - p->tail == KMT_PIPE_SLOTS)
		pthread_cond_wait(&p->cond, &p->lock);
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	p->nr = 0;
	return err;
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
	pthread_mutex_lock(&p->lock);
	p->closing = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	/* the consumer's error, or the reader's events dropped */
	err = p->err ? p->err : p->failed;
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free_ring(p);
	p->running = 0;
	return err;
}
