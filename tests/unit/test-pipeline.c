// SPDX-License-Identifier: GPL-2.0
/* The event pipeline: every event once, in order; a consumer's error stops it. */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "event/pipeline.h"

struct sink {
	uint64_t next_ts;	/* the ts expected next */
	uint64_t seen;
	uint64_t fail_at;	/* return -ENOMEM at this ts, 0 never */
	int out_of_order;
};

static int consume(void *arg, const struct kmt_event *ev, size_t n)
{
	struct sink *k = arg;
	size_t i;

	for (i = 0; i < n; i++) {
		if (ev[i].ts != k->next_ts)
			k->out_of_order = 1;
		k->next_ts = ev[i].ts + 1;
		k->seen++;
		if (k->fail_at && ev[i].ts == k->fail_at)
			return -ENOMEM;
	}
	return 0;
}

/* total events through the pipeline: each once, in order */
static void check_in_order(uint64_t total)
{
	struct kmt_pipeline p;
	struct sink k = { .next_ts = 1 };
	struct kmt_event ev;
	uint64_t t;

	CHECK(!kmt_pipeline_start(&p, consume, &k));
	kmt_event_init(&ev);
	for (t = 1; t <= total; t++) {
		ev.ts = t;
		*kmt_pipeline_slot(&p) = ev;
		CHECK(!kmt_pipeline_commit(&p));
	}
	CHECK(!kmt_pipeline_finish(&p));
	CHECK_EQ_U64(k.seen, total);
	CHECK(!k.out_of_order);
}

static void test_in_order(void)
{
	/* not a whole number of batches, and more than the ring holds */
	check_in_order(KMT_PIPE_BATCH * KMT_PIPE_SLOTS * 5 + 77);
}

static void test_consumer_error_stops(void)
{
	struct kmt_pipeline p;
	struct sink k = { .next_ts = 1, .fail_at = KMT_PIPE_BATCH * 3 + 5 };
	struct kmt_event ev;
	uint64_t t;
	int err = 0;

	CHECK(!kmt_pipeline_start(&p, consume, &k));
	kmt_event_init(&ev);
	/* the reader learns of the error within a ring's worth of batches */
	for (t = 1; t <= KMT_PIPE_BATCH * (KMT_PIPE_SLOTS + 10) && !err; t++) {
		ev.ts = t;
		*kmt_pipeline_slot(&p) = ev;
		err = kmt_pipeline_commit(&p);
	}
	CHECK(err == -ENOMEM);
	CHECK(kmt_pipeline_finish(&p) == -ENOMEM);
	/* nothing after the failing event was consumed */
	CHECK_EQ_U64(k.seen, KMT_PIPE_BATCH * 3 + 5);
}

/*
 * A reader that goes on after the error: its events land in the sink and
 * are dropped, every commit says the error, nothing more is consumed.
 */
static void test_reader_goes_on(void)
{
	struct kmt_pipeline p;
	struct sink k = { .next_ts = 1, .fail_at = 3 };
	struct kmt_event ev;
	uint64_t t;
	int err = 0, errs = 0;

	CHECK(!kmt_pipeline_start(&p, consume, &k));
	kmt_event_init(&ev);
	for (t = 1; t <= KMT_PIPE_BATCH * (KMT_PIPE_SLOTS + 3); t++) {
		ev.ts = t;
		*kmt_pipeline_slot(&p) = ev;
		err = kmt_pipeline_commit(&p);
		errs += err == -ENOMEM;
	}
	CHECK(err == -ENOMEM && errs > KMT_PIPE_BATCH);
	CHECK(kmt_pipeline_finish(&p) == -ENOMEM);
	CHECK_EQ_U64(k.seen, 3);
}

/* a few events, fewer than the first batch holds, and just past it */
static void test_small(void)
{
	static const uint64_t counts[] = {
		1, KMT_PIPE_FIRST - 1, KMT_PIPE_FIRST, KMT_PIPE_FIRST + 1,
		KMT_PIPE_FIRST * 5, KMT_PIPE_FIRST * 5 + 1,
	};
	size_t i;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		check_in_order(counts[i]);
}

static void test_empty(void)
{
	struct kmt_pipeline p;
	struct sink k = { .next_ts = 1 };

	CHECK(!kmt_pipeline_start(&p, consume, &k));
	CHECK(!kmt_pipeline_finish(&p));
	CHECK_EQ_U64(k.seen, 0);
	/* finishing twice is harmless */
	CHECK(!kmt_pipeline_finish(&p));
}

KMT_TESTS(KMT_TEST(test_in_order), KMT_TEST(test_consumer_error_stops),
	  KMT_TEST(test_reader_goes_on), KMT_TEST(test_small),
	  KMT_TEST(test_empty))
