// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding binary tracepoint records with this kernel's real formats
 * (tests/data/formats, copied from /sys/kernel/tracing/events/.../format
 * on 6.18).  Records are built in memory at the offsets the formats give.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <event-parse.h>

#include "check.h"
#include "event/session.h"
#include "event/tpdecode.h"

static const char *const kmem_events[] = {
	"kmalloc", "kmem_cache_alloc", "kfree", "kmem_cache_free",
	"mm_page_alloc", "mm_page_free", "mm_page_alloc_extfrag",
	"mm_page_alloc_zone_locked", "mm_page_pcpu_drain",
	"mm_page_free_batched",
};

#define GFP_KERNEL_V	0xcc0ULL	/* as this kernel's format says */
#define GFP_ACCOUNT_V	(1ULL << 22)
#define GFP_COMP_V	(1ULL << 18)

static int parse_format(struct tep_handle *tep, const char *sys,
			const char *name)
{
	char rel[256];
	size_t len;
	char *text;
	int err;

	snprintf(rel, sizeof(rel), "formats/%s.format", name);
	text = kmt_test_read_data(rel, &len);
	if (!text)
		return -1;
	err = tep_parse_event(tep, text, len, sys);
	if (err)
		fprintf(stderr, "tep_parse_event %s: %d\n", name, err);
	free(text);
	return err ? -1 : 0;
}

struct fixture {
	struct kmt_session s;
	struct kmt_tp_decoder d;
	int ok;
};

static void setup(struct fixture *fx)
{
	struct tep_handle *tep;
	size_t i;
	int bad = 0;

	fx->ok = 0;
	CHECK_EQ_U64(kmt_session_init(&fx->s), 0);
	tep = tep_alloc();
	CHECK(tep != NULL);
	if (!tep)
		return;
	tep_set_long_size(tep, 8);
	fx->s.tep = tep;	/* the session frees it */
	for (i = 0; i < sizeof(kmem_events) / sizeof(kmem_events[0]); i++)
		bad += parse_format(tep, "kmem", kmem_events[i]) != 0;
	bad += parse_format(tep, "sched", "sched_switch") != 0;
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(kmt_tp_decoder_init(&fx->d, tep, &fx->s), 0);
	fx->ok = !bad;
}

static void teardown(struct fixture *fx)
{
	kmt_tp_decoder_free(&fx->d);
	kmt_session_free(&fx->s);
}

static struct tep_event *event(struct fixture *fx, const char *sys,
			       const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(fx->s.tep, sys, name);

	CHECK(ev != NULL);
	return ev;
}

/* a record being built; size is the format's, as the kernel writes it */
struct rec {
	unsigned char b[256];
	size_t size;
	struct tep_event *ev;
};

/* writes v at the place and in the width the format gives field */
static void put(struct rec *r, const char *field, uint64_t v)
{
	struct tep_format_field *f = tep_find_any_field(r->ev, field);
	int i;

	CHECK(f != NULL);
	if (!f || f->offset + f->size > (int)sizeof(r->b))
		return;
	for (i = 0; i < f->size; i++)
		r->b[f->offset + i] = (unsigned char)(v >> (8 * i));
}

static void rec_init(struct rec *r, struct tep_event *ev, int32_t pid)
{
	struct tep_format_field *f;

	memset(r, 0, sizeof(*r));
	r->ev = ev;
	if (!ev)
		return;
	for (f = ev->format.fields; f; f = f->next) {
		if ((size_t)(f->offset + f->size) > r->size)
			r->size = (size_t)(f->offset + f->size);
	}
	put(r, "common_type", (uint64_t)ev->id);
	put(r, "common_pid", (uint64_t)(uint32_t)pid);
	put(r, "common_preempt_count", 1);
}

/* appends a __data_loc string (with its NUL) and points field at it */
static void put_str(struct rec *r, const char *field, const char *s)
{
	size_t len = strlen(s) + 1, off = (r->size + 7) & ~(size_t)7;

	if (off + len > sizeof(r->b))
		return;
	memcpy(r->b + off, s, len);
	put(r, field, (uint64_t)(len << 16 | off));
	r->size = off + len;
}

static int decode(struct fixture *fx, const struct rec *r,
		  struct kmt_event *ev)
{
	return kmt_tp_decode(&fx->d, &fx->s, r->b, r->size, ev);
}

static void test_layout_is_this_kernels(void)
{
	struct fixture fx;
	struct tep_event *ev;

	setup(&fx);
	if (!fx.ok)
		goto out;
	/* the ids and offsets the committed formats carry */
	ev = event(&fx, "kmem", "kmalloc");
	CHECK(ev && ev->id == 658);
	CHECK(ev && tep_find_field(ev, "node")->offset == 48);
	ev = event(&fx, "kmem", "kmem_cache_alloc");
	CHECK(ev && tep_find_field(ev, "name")->offset == 24);
	CHECK_EQ_U64(fx.d.common_type.offset, 0);
	CHECK_EQ_U64(fx.d.common_type.size, 2);
	CHECK_EQ_U64(fx.d.common_pid.offset, 4);
	CHECK_EQ_U64(fx.d.common_pid.size, 4);
	/* the GFP names came along from the print format */
	CHECK_EQ_U64(fx.s.gfp.nr, 38);
out:
	teardown(&fx);
}

static void test_kmalloc(void)
{
	struct fixture fx;
	struct kmt_event ev;
	struct rec r;

	setup(&fx);
	if (!fx.ok)
		goto out;
	rec_init(&r, event(&fx, "kmem", "kmalloc"), 1234);
	CHECK_EQ_U64(r.size, 52);
	put(&r, "call_site", 0xffffffff81234567ULL);
	put(&r, "ptr", 0xffff888012345678ULL);
	put(&r, "bytes_req", 100);
	put(&r, "bytes_alloc", 128);
	put(&r, "gfp_flags", GFP_KERNEL_V | GFP_ACCOUNT_V);
	put(&r, "node", (uint32_t)-1);
	ev.ts = 77;
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.type, KMT_EV_KMALLOC);
	CHECK_EQ_U64(ev.pid, 1234);
	CHECK_EQ_U64(ev.call_site, 0xffffffff81234567ULL);
	CHECK_EQ_U64(ev.ptr, 0xffff888012345678ULL);
	CHECK_EQ_U64(ev.bytes_req, 100);
	CHECK_EQ_U64(ev.bytes_alloc, 128);
	CHECK_EQ_U64(ev.gfp, GFP_KERNEL_V | GFP_ACCOUNT_V);
	CHECK(ev.flags & KMT_EVF_HAS_GFP);
	/* this kernel's kmalloc has no accounted field: gfp says it */
	CHECK(ev.flags & KMT_EVF_ACCOUNTED);
	/* int node -1 is sign-extended, not 4294967295 */
	CHECK_EQ_U64(ev.node, -1);
	CHECK(ev.node == -1);
	CHECK_EQ_U64(ev.cache, 0);
	/* the reader's fields are left to the reader */
	CHECK_EQ_U64(ev.cpu, -1);
	CHECK_EQ_U64(ev.ts, 0);

	put(&r, "gfp_flags", GFP_KERNEL_V);
	put(&r, "node", 1);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK(!(ev.flags & KMT_EVF_ACCOUNTED));
	CHECK_EQ_U64(ev.node, 1);
	CHECK_EQ_U64(kmt_tp_event_id(&fx.d, r.b, r.size), 658);
out:
	teardown(&fx);
}

static void test_kmem_cache_alloc_name(void)
{
	struct fixture fx;
	struct kmt_event ev;
	struct rec r;
	uint32_t dentry;

	setup(&fx);
	if (!fx.ok)
		goto out;
	rec_init(&r, event(&fx, "kmem", "kmem_cache_alloc"), 99);
	CHECK_EQ_U64(r.size, 61);
	put(&r, "call_site", 0xffffffff81400000ULL);
	put(&r, "ptr", 0xffff888100000040ULL);
	put(&r, "bytes_req", 192);
	put(&r, "bytes_alloc", 192);
	put(&r, "gfp_flags", GFP_KERNEL_V);
	put(&r, "node", 0);
	put(&r, "accounted", 1);
	put_str(&r, "name", "dentry");
	CHECK_EQ_U64(r.size, 71);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.type, KMT_EV_CACHE_ALLOC);
	CHECK_EQ_U64(ev.pid, 99);
	CHECK_EQ_U64(ev.call_site, 0xffffffff81400000ULL);
	CHECK_EQ_U64(ev.ptr, 0xffff888100000040ULL);
	CHECK_EQ_U64(ev.bytes_req, 192);
	CHECK_EQ_U64(ev.bytes_alloc, 192);
	CHECK_EQ_U64(ev.gfp, GFP_KERNEL_V);
	CHECK_EQ_U64(ev.node, 0);
	CHECK(ev.flags & KMT_EVF_ACCOUNTED);
	CHECK(ev.cache != 0);
	CHECK_STR(kmt_strtab_get(&fx.s.strs, ev.cache), "dentry");
	dentry = ev.cache;

	/* the same name again is the same id; not accounted this time */
	put(&r, "accounted", 0);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.cache, dentry);
	CHECK(!(ev.flags & KMT_EVF_ACCOUNTED));

	/* a string reaching past the end of the record is refused */
	put(&r, "name", (uint64_t)(7 << 16 | 70));
	CHECK_EQ_U64(decode(&fx, &r, &ev), -1);
	/* an empty name is "" */
	put(&r, "name", (uint64_t)(1 << 16 | 70));
	r.b[70] = '\0';
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_STR(kmt_strtab_get(&fx.s.strs, ev.cache), "");
out:
	teardown(&fx);
}

static void test_frees(void)
{
	struct fixture fx;
	struct kmt_event ev;
	struct rec r;

	setup(&fx);
	if (!fx.ok)
		goto out;
	rec_init(&r, event(&fx, "kmem", "kfree"), 5);
	CHECK_EQ_U64(r.size, 24);
	put(&r, "call_site", 0xffffffff81500000ULL);
	put(&r, "ptr", 0xffff888012345678ULL);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.type, KMT_EV_KFREE);
	CHECK_EQ_U64(ev.pid, 5);
	CHECK_EQ_U64(ev.call_site, 0xffffffff81500000ULL);
	CHECK_EQ_U64(ev.ptr, 0xffff888012345678ULL);
	CHECK(!(ev.flags & KMT_EVF_HAS_GFP));
	CHECK_EQ_U64(ev.bytes_alloc, 0);
	CHECK_EQ_U64(ev.node, -1);

	rec_init(&r, event(&fx, "kmem", "kmem_cache_free"), 6);
	put(&r, "call_site", 0xffffffff81600000ULL);
	put(&r, "ptr", 0xffff888100000040ULL);
	put_str(&r, "name", "kmalloc-64");
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.type, KMT_EV_CACHE_FREE);
	CHECK_EQ_U64(ev.pid, 6);
	CHECK_EQ_U64(ev.call_site, 0xffffffff81600000ULL);
	CHECK_EQ_U64(ev.ptr, 0xffff888100000040ULL);
	CHECK_STR(kmt_strtab_get(&fx.s.strs, ev.cache), "kmalloc-64");
out:
	teardown(&fx);
}

static void test_page_alloc(void)
{
	struct fixture fx;
	struct kmt_event ev;
	struct rec r;

	setup(&fx);
	if (!fx.ok)
		goto out;
	rec_init(&r, event(&fx, "kmem", "mm_page_alloc"), 300);
	put(&r, "pfn", 0x12345);
	put(&r, "order", 3);
	put(&r, "gfp_flags", GFP_KERNEL_V | GFP_COMP_V);
	put(&r, "migratetype", 1);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.type, KMT_EV_PAGE_ALLOC);
	CHECK_EQ_U64(ev.pid, 300);
	CHECK_EQ_U64(ev.ptr, 0x12345);
	CHECK_EQ_U64(ev.order, 3);
	CHECK_EQ_U64(ev.migratetype, 1);
	CHECK_EQ_U64(ev.gfp, GFP_KERNEL_V | GFP_COMP_V);
	CHECK(ev.flags & KMT_EVF_HAS_GFP);
	CHECK_EQ_U64(ev.call_site, 0);
	CHECK(!(ev.flags & KMT_EVF_HAS_REFILL));

	/* a failed allocation: pfn -1 */
	put(&r, "pfn", UINT64_MAX);
	put(&r, "migratetype", (uint32_t)-1);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK(ev.ptr == KMT_PFN_NONE);
	CHECK(ev.migratetype == -1);
out:
	teardown(&fx);
}

static void test_page_free_and_batched(void)
{
	struct fixture fx;
	struct kmt_event ev;
	struct rec r;

	setup(&fx);
	if (!fx.ok)
		goto out;
	rec_init(&r, event(&fx, "kmem", "mm_page_free"), 7);
	put(&r, "pfn", 0x23456);
	put(&r, "order", 9);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.type, KMT_EV_PAGE_FREE);
	CHECK_EQ_U64(ev.ptr, 0x23456);
	CHECK_EQ_U64(ev.order, 9);
	CHECK_EQ_U64(ev.migratetype, -1);
	CHECK(!(ev.flags & KMT_EVF_HAS_GFP));

	rec_init(&r, event(&fx, "kmem", "mm_page_free_batched"), 8);
	CHECK_EQ_U64(r.size, 16);
	put(&r, "pfn", 0x34567);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.type, KMT_EV_PAGE_FREE_BATCHED);
	CHECK_EQ_U64(ev.ptr, 0x34567);
	CHECK_EQ_U64(ev.order, 0);	/* the format prints order=0 */
	CHECK_EQ_U64(ev.pid, 8);
out:
	teardown(&fx);
}

static void test_zone_locked_and_drain(void)
{
	struct fixture fx;
	struct kmt_event ev;
	struct rec r;

	setup(&fx);
	if (!fx.ok)
		goto out;
	rec_init(&r, event(&fx, "kmem", "mm_page_alloc_zone_locked"), 9);
	put(&r, "pfn", 0x45678);
	put(&r, "order", 2);
	put(&r, "migratetype", 0);
	put(&r, "percpu_refill", 1);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.type, KMT_EV_PAGE_ZONE_LOCKED);
	CHECK_EQ_U64(ev.ptr, 0x45678);
	CHECK_EQ_U64(ev.order, 2);
	CHECK_EQ_U64(ev.migratetype, 0);
	CHECK(ev.flags & KMT_EVF_HAS_REFILL);
	CHECK(ev.flags & KMT_EVF_PERCPU_REFILL);
	put(&r, "percpu_refill", 0);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK(ev.flags & KMT_EVF_HAS_REFILL);
	CHECK(!(ev.flags & KMT_EVF_PERCPU_REFILL));

	rec_init(&r, event(&fx, "kmem", "mm_page_pcpu_drain"), 10);
	put(&r, "pfn", 0x56789);
	put(&r, "order", 1);
	put(&r, "migratetype", 2);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.type, KMT_EV_PCPU_DRAIN);
	CHECK_EQ_U64(ev.ptr, 0x56789);
	CHECK_EQ_U64(ev.order, 1);
	CHECK_EQ_U64(ev.migratetype, 2);
	CHECK(!(ev.flags & KMT_EVF_HAS_REFILL));
out:
	teardown(&fx);
}

static void test_extfrag(void)
{
	struct fixture fx;
	struct kmt_event ev;
	struct rec r;

	setup(&fx);
	if (!fx.ok)
		goto out;
	rec_init(&r, event(&fx, "kmem", "mm_page_alloc_extfrag"), 11);
	put(&r, "pfn", 0x67890);
	put(&r, "alloc_order", 0);
	put(&r, "fallback_order", 3);
	put(&r, "alloc_migratetype", 1);
	put(&r, "fallback_migratetype", 0);
	put(&r, "change_ownership", 1);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.type, KMT_EV_EXTFRAG);
	CHECK_EQ_U64(ev.ptr, 0x67890);
	CHECK_EQ_U64(ev.order, 0);
	CHECK_EQ_U64(ev.fallback_order, 3);
	CHECK_EQ_U64(ev.migratetype, 1);
	CHECK_EQ_U64(ev.fallback_migratetype, 0);
	CHECK(ev.flags & KMT_EVF_CHANGE_OWNER);
	CHECK(ev.flags & KMT_EVF_HAS_FRAGMENTING);
	/* 3 < pageblock_order (9 here): a fragmenting fallback */
	CHECK(ev.flags & KMT_EVF_FRAGMENTING);

	/* a whole pageblock taken: not fragmenting */
	put(&r, "fallback_order", 9);
	put(&r, "alloc_order", 2);
	put(&r, "alloc_migratetype", 2);
	put(&r, "fallback_migratetype", (uint32_t)-1);
	put(&r, "change_ownership", 0);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.fallback_order, 9);
	CHECK_EQ_U64(ev.order, 2);
	CHECK_EQ_U64(ev.migratetype, 2);
	CHECK(ev.fallback_migratetype == -1);
	CHECK(!(ev.flags & KMT_EVF_CHANGE_OWNER));
	CHECK(ev.flags & KMT_EVF_HAS_FRAGMENTING);
	CHECK(!(ev.flags & KMT_EVF_FRAGMENTING));
	/* the edges on both sides of pageblock_order */
	put(&r, "fallback_order", 8);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK(ev.flags & KMT_EVF_FRAGMENTING);
	put(&r, "fallback_order", 10);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK(!(ev.flags & KMT_EVF_FRAGMENTING));
out:
	teardown(&fx);
}

/* every kmem event, cut one byte short of its fixed fields: refused */
static void test_short_records(void)
{
	struct fixture fx;
	struct kmt_event ev;
	struct rec r;
	size_t i;

	setup(&fx);
	if (!fx.ok)
		goto out;
	for (i = 0; i < sizeof(kmem_events) / sizeof(kmem_events[0]); i++) {
		rec_init(&r, event(&fx, "kmem", kmem_events[i]), 1);
		if (!r.ev)
			continue;
		r.size--;
		if (decode(&fx, &r, &ev) != -1)
			fprintf(stderr, "%s: short record accepted\n",
				kmem_events[i]);
		CHECK_EQ_U64(decode(&fx, &r, &ev), -1);
		r.size++;
		if (!strcmp(kmem_events[i], "kmem_cache_alloc") ||
		    !strcmp(kmem_events[i], "kmem_cache_free"))
			put_str(&r, "name", "x");
		CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	}
	/* too short for even the event id */
	CHECK_EQ_U64(kmt_tp_event_id(&fx.d, r.b, 1), -1);
	CHECK_EQ_U64(kmt_tp_decode(&fx.d, &fx.s, r.b, 1, &ev), -1);
	CHECK_EQ_U64(kmt_tp_decode(&fx.d, &fx.s, r.b, 0, &ev), -1);
	CHECK_EQ_U64(ev.type, KMT_EV_NONE);
out:
	teardown(&fx);
}

static void test_other_and_unknown(void)
{
	struct fixture fx;
	struct kmt_event ev;
	struct rec r;

	setup(&fx);
	if (!fx.ok)
		goto out;
	/* another subsystem's event: 0, with the pid, type NONE */
	rec_init(&r, event(&fx, "sched", "sched_switch"), 4321);
	put(&r, "prev_pid", 4321);
	put(&r, "next_pid", 1);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 0);
	CHECK_EQ_U64(ev.type, KMT_EV_NONE);
	CHECK_EQ_U64(ev.pid, 4321);

	/* an id no format has */
	rec_init(&r, event(&fx, "kmem", "kfree"), 1);
	r.b[0] = 0x0f;
	r.b[1] = 0x27;	/* 9999 */
	CHECK_EQ_U64(kmt_tp_event_id(&fx.d, r.b, r.size), 9999);
	CHECK_EQ_U64(decode(&fx, &r, &ev), -1);
	CHECK_EQ_U64(ev.type, KMT_EV_NONE);
	r.b[0] = 0;
	r.b[1] = 0;
	CHECK_EQ_U64(decode(&fx, &r, &ev), -1);
out:
	teardown(&fx);
}

/* negative pids and big unsigned values keep their meaning */
static void test_sign_extension(void)
{
	struct fixture fx;
	struct kmt_event ev;
	struct rec r;

	setup(&fx);
	if (!fx.ok)
		goto out;
	rec_init(&r, event(&fx, "kmem", "kmalloc"), -1);
	put(&r, "node", (uint32_t)-2);
	put(&r, "bytes_req", 0xffffffff80000000ULL);
	put(&r, "gfp_flags", 1ULL << 63);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK(ev.pid == -1);
	CHECK(ev.node == -2);
	CHECK_EQ_U64(ev.bytes_req, 0xffffffff80000000ULL);
	CHECK_EQ_U64(ev.gfp, 1ULL << 63);
	/* the unsigned order of mm_page_free is not sign-extended into < 0 */
	rec_init(&r, event(&fx, "kmem", "mm_page_free"), 1);
	put(&r, "order", 10);
	put(&r, "pfn", 0xffffffffULL);
	CHECK_EQ_U64(decode(&fx, &r, &ev), 1);
	CHECK_EQ_U64(ev.order, 10);
	CHECK_EQ_U64(ev.ptr, 0xffffffffULL);
out:
	teardown(&fx);
}

KMT_TESTS(
	KMT_TEST(test_layout_is_this_kernels),
	KMT_TEST(test_kmalloc),
	KMT_TEST(test_kmem_cache_alloc_name),
	KMT_TEST(test_frees),
	KMT_TEST(test_page_alloc),
	KMT_TEST(test_page_free_and_batched),
	KMT_TEST(test_zone_locked_and_drain),
	KMT_TEST(test_extfrag),
	KMT_TEST(test_short_records),
	KMT_TEST(test_other_and_unknown),
	KMT_TEST(test_sign_extension)
)
