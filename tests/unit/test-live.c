// SPDX-License-Identifier: GPL-2.0
/* The live-object tracker and the --pid/--comm/--cpu filter. */
#include <errno.h>

#include "analysis/live.h"
#include "views-fixture.h"

static const struct kmt_live_step *feed(struct kmt_live *l, unsigned int type,
					uint64_t ts, int cpu, int pid,
					uint64_t ptr, int order)
{
	struct kmt_event ev;

	kmt_event_init(&ev);
	ev.type = (uint16_t)type;
	ev.ts = ts;
	ev.cpu = cpu;
	ev.pid = pid;
	ev.call_site = 0x10;
	ev.ptr = ptr;
	ev.order = order;
	ev.bytes_req = 24;
	ev.bytes_alloc = 32;
	CHECK(!kmt_live_feed(l, &ev));
	return &l->step;
}

static void test_outcomes(void)
{
	const struct kmt_live_step *st;
	struct kmt_session s;
	struct kmt_live l;

	CHECK(!kmt_session_init(&s));
	kmt_live_init(&l, &s);
	st = feed(&l, KMT_EV_KMALLOC, 100, 0, 1, 0xa0, 0);
	CHECK_EQ_U64(st->what, KMT_LIVE_ALLOC);
	CHECK_EQ_U64(st->bytes, 32);
	CHECK(st->pass);
	st = feed(&l, KMT_EV_KMALLOC, 110, 0, 1, 0xa0, 0);
	CHECK_EQ_U64(st->what, KMT_LIVE_ALLOC_OVER);
	CHECK_EQ_U64(st->prev.ts, 100);
	st = feed(&l, KMT_EV_KMALLOC, 120, 0, 1, 0, 0);
	CHECK_EQ_U64(st->what, KMT_LIVE_ALLOC_FAILED);
	st = feed(&l, KMT_EV_KFREE, 130, 1, 2, 0xa0, 0);
	CHECK_EQ_U64(st->what, KMT_LIVE_FREE);
	CHECK_EQ_U64(st->prev.ts, 110);
	CHECK_EQ_U64(st->prev.pid, 1);
	CHECK_EQ_U64(st->bytes, 32);
	st = feed(&l, KMT_EV_KFREE, 140, 1, 2, 0xa0, 0);
	CHECK_EQ_U64(st->what, KMT_LIVE_FREE_UNKNOWN);
	st = feed(&l, KMT_EV_KFREE, 150, 1, 2, 0, 0);
	CHECK_EQ_U64(st->what, KMT_LIVE_FREE_NULL);
	st = feed(&l, KMT_EV_PAGE_ALLOC, 160, 0, 1, KMT_PFN_NONE, 3);
	CHECK_EQ_U64(st->what, KMT_LIVE_ALLOC_FAILED);
	st = feed(&l, KMT_EV_PCPU_DRAIN, 170, 0, 1, 0x5, 0);
	CHECK_EQ_U64(st->what, KMT_LIVE_OTHER);
	CHECK_EQ_U64(kmt_live_objs_count(&l.slab), 0);
	CHECK_EQ_U64(l.first_ts, 100);
	CHECK_EQ_U64(l.last_ts, 170);
	kmt_live_free(&l);
	kmt_session_free(&s);
}

/* an order-2 block freed page by page: each free releases one page */
static void test_split_free(void)
{
	const struct kmt_live_step *st;
	struct kmt_session s;
	struct kmt_live l;
	int i;

	CHECK(!kmt_session_init(&s));
	kmt_live_init(&l, &s);
	st = feed(&l, KMT_EV_PAGE_ALLOC, 100, 0, 1, 0x40, 2);
	CHECK_EQ_U64(st->bytes, 16384);
	st = feed(&l, KMT_EV_PAGE_FREE, 200, 0, 1, 0x40, 0);
	CHECK_EQ_U64(st->what, KMT_LIVE_FREE);
	CHECK_EQ_U64(st->bytes, 4096);
	CHECK_EQ_U64(st->prev.order, 2);
	CHECK_EQ_U64(kmt_live_objs_count(&l.page), 3);
	for (i = 1; i < 4; i++) {
		st = feed(&l, KMT_EV_PAGE_FREE, 300 + i, 0, 1, 0x40 + i, 0);
		CHECK_EQ_U64(st->what, KMT_LIVE_FREE);
		CHECK_EQ_U64(st->bytes, 4096);
		CHECK(st->prev.flags & KMT_LIVE_SPLIT);
		CHECK_EQ_U64(st->prev.ts, 100);
	}
	CHECK_EQ_U64(kmt_live_objs_count(&l.page), 0);
	kmt_live_free(&l);
	kmt_session_free(&s);
}

/*
 * A damaged recording's split (an order-40 block freed at order 0) is a
 * free like any other, not 2^40 parts to track: it used to hang.
 */
static void test_split_of_damaged_order(void)
{
	const struct kmt_live_step *st;
	struct kmt_session s;
	struct kmt_live l;

	CHECK(!kmt_session_init(&s));
	kmt_live_init(&l, &s);
	feed(&l, KMT_EV_PAGE_ALLOC, 100, 0, 1, 0x500, 40);
	st = feed(&l, KMT_EV_PAGE_FREE, 200, 0, 1, 0x500, 0);
	CHECK_EQ_U64(st->what, KMT_LIVE_FREE);
	CHECK_EQ_U64(st->bytes, 4096);
	CHECK_EQ_U64(kmt_live_objs_count(&l.page), 0);
	/* the largest split still tracked */
	feed(&l, KMT_EV_PAGE_ALLOC, 300, 0, 1, 0x10000,
	     KMT_SPLIT_MAX_ORDERS);
	feed(&l, KMT_EV_PAGE_FREE, 400, 0, 1, 0x10000, 0);
	CHECK_EQ_U64(kmt_live_objs_count(&l.page),
		     (1ULL << KMT_SPLIT_MAX_ORDERS) - 1);
	kmt_live_free(&l);
	kmt_session_free(&s);
}

static void test_filter_parse(void)
{
	struct kmt_session s;
	struct kmt_filter f;
	char err[256];

	CHECK(!kmt_session_init(&s));
	CHECK(!kmt_filter_init(&f, NULL, NULL, NULL, err, sizeof(err)));
	CHECK(!f.active);
	CHECK(kmt_filter_pass(&f, &s, 5, 0));
	kmt_filter_free(&f);

	CHECK(!kmt_filter_init(&f, "30,10,20", NULL, "0,2-3", err,
			       sizeof(err)));
	CHECK(f.active);
	CHECK(kmt_filter_pass(&f, &s, 10, 0));
	CHECK(kmt_filter_pass(&f, &s, 30, 3));
	CHECK(!kmt_filter_pass(&f, &s, 10, 1));
	CHECK(!kmt_filter_pass(&f, &s, 11, 0));
	CHECK(!kmt_filter_pass(&f, &s, 10, -1));
	kmt_filter_free(&f);

	CHECK(kmt_filter_init(&f, "12x", NULL, NULL, err, sizeof(err)) ==
	      -EINVAL);
	CHECK(strstr(err, "--pid '12x'") != NULL);
	kmt_filter_free(&f);
	CHECK(kmt_filter_init(&f, NULL, NULL, "3-1", err, sizeof(err)) ==
	      -EINVAL);
	CHECK(strstr(err, "--cpu '3-1'") != NULL);
	kmt_filter_free(&f);
	CHECK(kmt_filter_init(&f, NULL, NULL, "4096", err, sizeof(err)) ==
	      -EINVAL);
	kmt_filter_free(&f);
	kmt_session_free(&s);
}

static void test_filter_comm(void)
{
	struct kmt_session s;
	struct kmt_filter f;
	char err[256];

	CHECK(!kmt_session_init(&s));
	CHECK(!kmt_session_set_comm(&s, 1, "bash", 4));
	CHECK(!kmt_session_set_comm(&s, 2, "kworker/0:1", 11));
	CHECK(!kmt_filter_init(&f, NULL, "bash,kworker*", NULL, err,
			       sizeof(err)));
	CHECK(kmt_filter_pass(&f, &s, 1, 0));
	CHECK(kmt_filter_pass(&f, &s, 2, 0));
	CHECK(!kmt_filter_pass(&f, &s, 3, 0));	/* no comm */
	/* exec: the same pid under another name */
	CHECK(!kmt_session_set_comm(&s, 1, "ls", 2));
	CHECK(!kmt_filter_pass(&f, &s, 1, 0));
	kmt_filter_free(&f);
	kmt_session_free(&s);
}

/* a free follows its allocation, whoever frees it */
static void test_filter_follows_allocation(void)
{
	const struct kmt_live_step *st;
	struct kmt_session s;
	struct kmt_filter f;
	struct kmt_live l;
	char err[256];

	CHECK(!kmt_session_init(&s));
	CHECK(!kmt_filter_init(&f, "1", NULL, NULL, err, sizeof(err)));
	kmt_live_init(&l, &s);
	l.filter = &f;
	CHECK(feed(&l, KMT_EV_KMALLOC, 100, 0, 1, 0xa0, 0)->pass);
	CHECK(!feed(&l, KMT_EV_KMALLOC, 110, 0, 2, 0xb0, 0)->pass);
	st = feed(&l, KMT_EV_KFREE, 120, 0, 2, 0xa0, 0);	/* by 2 */
	CHECK(st->pass);
	st = feed(&l, KMT_EV_KFREE, 130, 0, 1, 0xb0, 0);	/* by 1 */
	CHECK(!st->pass);
	st = feed(&l, KMT_EV_KFREE, 140, 0, 1, 0xc0, 0);	/* unknown */
	CHECK_EQ_U64(st->what, KMT_LIVE_FREE_UNKNOWN);
	CHECK(st->pass);
	CHECK(!feed(&l, KMT_EV_KFREE, 150, 0, 2, 0xd0, 0)->pass);
	CHECK(!feed(&l, KMT_EV_PCPU_DRAIN, 160, 0, 2, 0x1, 0)->pass);
	CHECK(feed(&l, KMT_EV_PCPU_DRAIN, 170, 0, 1, 0x1, 0)->pass);
	/* page parts keep the allocation's verdict */
	CHECK(!feed(&l, KMT_EV_PAGE_ALLOC, 180, 0, 2, 0x40, 1)->pass);
	CHECK(!feed(&l, KMT_EV_PAGE_FREE, 190, 0, 1, 0x40, 0)->pass);
	CHECK(!feed(&l, KMT_EV_PAGE_FREE, 200, 0, 1, 0x41, 0)->pass);
	kmt_live_free(&l);
	kmt_filter_free(&f);
	kmt_session_free(&s);
}

KMT_TESTS(KMT_TEST(test_outcomes), KMT_TEST(test_split_free),
	  KMT_TEST(test_split_of_damaged_order),
	  KMT_TEST(test_filter_parse), KMT_TEST(test_filter_comm),
	  KMT_TEST(test_filter_follows_allocation))
