// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "util/handoff.h"

static void *consumer(void *arg)
{
	struct kmt_handoff *h = arg;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		size_t slot;
		int err;

		while (h->tail == h->head && !h->closing)
			pthread_cond_wait(&h->cond, &h->lock);
		if (h->tail == h->head)
			break;
		slot = h->tail % h->nr_slots;
		pthread_mutex_unlock(&h->lock);
		err = h->consume(h->arg, slot);
		pthread_mutex_lock(&h->lock);
		if (err && !h->err)
			h->err = err;
		h->tail++;
		pthread_cond_broadcast(&h->cond);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int kmt_handoff_start(struct kmt_handoff *h, size_t nr_slots,
		      kmt_handoff_fn consume, void *arg)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->consume = consume;
	h->arg = arg;
	h->nr_slots = nr_slots;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	ret = pthread_create(&h->thread, NULL, consumer, h);
	if (ret) {
		pthread_cond_destroy(&h->cond);
		pthread_mutex_destroy(&h->lock);
		return -ret;
	}
	return 0;
}

int kmt_handoff_put(struct kmt_handoff *h)
{
	int err;

	pthread_mutex_lock(&h->lock);
	h->head++;
	pthread_cond_broadcast(&h->cond);
	/* the next slot to fill must have been consumed */
	while (h->head - h->tail == h->nr_slots)
		pthread_cond_wait(&h->cond, &h->lock);
	err = h->err;
	pthread_mutex_unlock(&h->lock);
	return err;
}

int kmt_handoff_finish(struct kmt_handoff *h)
{
	pthread_mutex_lock(&h->lock);
	h->closing = 1;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->thread, NULL);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	return h->err;
}
