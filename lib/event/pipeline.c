// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event/pipeline.h"

static struct kmt_event *slot(struct kmt_pipeline *p, size_t batch)
{
	return p->ring + (batch % KMT_PIPE_SLOTS) * KMT_PIPE_BATCH;
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
	p->ring = malloc(KMT_PIPE_SLOTS * KMT_PIPE_BATCH * sizeof(*p->ring));
	if (!p->ring)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	ret = pthread_create(&p->thread, NULL, worker, p);
	if (ret) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		free(p->ring);
		p->ring = NULL;
		return -ret;
	}
	p->running = 1;
	return 0;
}

/* hands the batch being filled to the consumer; its error, or 0 */
static int publish(struct kmt_pipeline *p)
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

int kmt_pipeline_commit(struct kmt_pipeline *p)
{
	return ++p->nr == KMT_PIPE_BATCH ? publish(p) : 0;
}

int kmt_pipeline_finish(struct kmt_pipeline *p)
{
	int err;

	if (!p->running)
		return 0;
	if (p->nr)
		publish(p);
	pthread_mutex_lock(&p->lock);
	p->closing = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	err = p->err;
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->ring);
	p->ring = NULL;
	p->running = 0;
	return err;
}
