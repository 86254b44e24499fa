// SPDX-License-Identifier: GPL-2.0
/*
 * The hand-off between two threads: slots consumed in order, never one
 * the producer is filling, the first error kept and every slot still
 * consumed after it.
 */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "util/handoff.h"

#define SLOTS	3
#define ROUNDS	10000

struct ring {
	struct kmt_handoff h;
	uint64_t val[SLOTS];	/* what the producer put in each slot */
	uint64_t next;		/* the value the consumer expects */
	uint64_t bad;
	uint64_t fail_at;	/* consume fails on this value, 0 never */
};

static int consume(void *arg, size_t slot)
{
	struct ring *r = arg;
	uint64_t v = r->val[slot];

	if (v != r->next)
		r->bad++;
	/* overwritten by a producer that went past the ring's bound */
	r->val[slot] = 0;
	r->next = v + 1;
	if (r->fail_at && v >= r->fail_at)
		return v == r->fail_at ? -ENOSPC : -EIO;
	return 0;
}

static void test_in_order_and_bounded(void)
{
	struct ring r = { .next = 1 };
	uint64_t v;
	int err = 0;

	CHECK_EQ_U64(kmt_handoff_start(&r.h, SLOTS, consume, &r), 0);
	for (v = 1; v <= ROUNDS; v++) {
		size_t slot = kmt_handoff_slot(&r.h);

		/* the slot to fill was consumed, or never used */
		if (r.val[slot])
			r.bad++;
		r.val[slot] = v;
		err |= kmt_handoff_put(&r.h);
	}
	CHECK_EQ_U64(kmt_handoff_finish(&r.h), 0);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(r.bad, 0);
	CHECK_EQ_U64(r.next, ROUNDS + 1);
}

static void test_first_error_kept(void)
{
	struct ring r = { .next = 1, .fail_at = 100 };
	uint64_t v;
	int err = 0;

	CHECK_EQ_U64(kmt_handoff_start(&r.h, SLOTS, consume, &r), 0);
	for (v = 1; v <= 1000; v++) {
		r.val[kmt_handoff_slot(&r.h)] = v;
		err = kmt_handoff_put(&r.h);
		/* seen by the time the ring has gone round past it */
		if (v >= 100 + SLOTS)
			CHECK(err == -ENOSPC);
	}
	CHECK(kmt_handoff_finish(&r.h) == -ENOSPC);
	/* every slot consumed, the failed ones and those after */
	CHECK_EQ_U64(r.next, 1001);
	CHECK_EQ_U64(r.bad, 0);
}

static void test_nothing_handed(void)
{
	struct ring r = { .next = 1 };

	CHECK_EQ_U64(kmt_handoff_start(&r.h, 1, consume, &r), 0);
	CHECK_EQ_U64(kmt_handoff_finish(&r.h), 0);
	CHECK_EQ_U64(r.next, 1);
}

KMT_TESTS(
	KMT_TEST(test_in_order_and_bounded),
	KMT_TEST(test_first_error_kept),
	KMT_TEST(test_nothing_handed)
)
