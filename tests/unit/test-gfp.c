// SPDX-License-Identifier: GPL-2.0
/*
 * GFP flag names: formatting from a table, and the table read from the
 * real print formats of this kernel (tests/data/formats, copied from
 * /sys/kernel/tracing/events/kmem/<event>/format on 6.18).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <event-parse.h>

#include "check.h"
#include "event/gfp.h"

#define B(n) (1ULL << (n))
/* the values this kernel's formats give */
#define GFP_IO		B(6)
#define GFP_FS		B(7)
#define GFP_ZERO	B(8)
#define GFP_DRECLAIM	B(10)
#define GFP_KRECLAIM	B(11)
#define GFP_NOWARN	B(13)
#define GFP_COMP	B(18)
#define GFP_ACCOUNT	B(22)
#define GFP_KERNEL_V	(GFP_DRECLAIM | GFP_KRECLAIM | GFP_IO | GFP_FS)

static struct tep_event *parse_format(struct tep_handle *tep, const char *name)
{
	char rel[256];
	size_t len;
	char *text;
	enum tep_errno err;
	struct tep_event *ev = NULL;

	snprintf(rel, sizeof(rel), "formats/%s.format", name);
	text = kmt_test_read_data(rel, &len);
	if (!text)
		return NULL;
	err = tep_parse_event(tep, text, len, "kmem");
	if (err)
		fprintf(stderr, "tep_parse_event %s: %d\n", name, (int)err);
	else
		ev = tep_find_event_by_name(tep, "kmem", name);
	free(text);
	return ev;
}

static const char *fmt(const struct kmt_gfp *g, uint64_t v, struct kmt_sb *sb)
{
	kmt_sb_reset(sb);
	kmt_gfp_format(g, v, sb);
	return kmt_sb_str(sb);
}

/* a hand-made table in the kernel's order: combined masks first */
static void build_table(struct kmt_gfp *g)
{
	kmt_gfp_init(g);
	kmt_gfp_add(g, GFP_KERNEL_V | GFP_ACCOUNT, "GFP_KERNEL_ACCOUNT");
	kmt_gfp_add(g, GFP_KERNEL_V, "GFP_KERNEL");
	kmt_gfp_add(g, GFP_DRECLAIM | GFP_KRECLAIM | GFP_IO, "GFP_NOFS");
	kmt_gfp_add(g, B(5) | GFP_KRECLAIM, "GFP_ATOMIC");
	kmt_gfp_add(g, GFP_KRECLAIM | GFP_NOWARN, "GFP_NOWAIT");
	kmt_gfp_add(g, GFP_DRECLAIM | GFP_KRECLAIM, "__GFP_RECLAIM");
	kmt_gfp_add(g, B(5), "__GFP_HIGH");
	kmt_gfp_add(g, GFP_IO, "__GFP_IO");
	kmt_gfp_add(g, GFP_FS, "__GFP_FS");
	kmt_gfp_add(g, GFP_ZERO, "__GFP_ZERO");
	kmt_gfp_add(g, GFP_DRECLAIM, "__GFP_DIRECT_RECLAIM");
	kmt_gfp_add(g, GFP_KRECLAIM, "__GFP_KSWAPD_RECLAIM");
	kmt_gfp_add(g, GFP_NOWARN, "__GFP_NOWARN");
	kmt_gfp_add(g, GFP_COMP, "__GFP_COMP");
	kmt_gfp_add(g, GFP_ACCOUNT, "__GFP_ACCOUNT");
}

static void test_format_table(void)
{
	struct kmt_sb sb = KMT_SB_INIT;
	struct kmt_gfp g;

	build_table(&g);
	CHECK_EQ_U64(g.nr, 15);
	CHECK_STR(fmt(&g, 0, &sb), "none");
	CHECK_STR(fmt(&g, GFP_KERNEL_V, &sb), "GFP_KERNEL");
	CHECK_STR(fmt(&g, GFP_KERNEL_V | GFP_ZERO, &sb),
		  "GFP_KERNEL|__GFP_ZERO");
	CHECK_STR(fmt(&g, GFP_KERNEL_V | GFP_ACCOUNT, &sb),
		  "GFP_KERNEL_ACCOUNT");
	CHECK_STR(fmt(&g, GFP_KERNEL_V | GFP_ACCOUNT | GFP_ZERO | GFP_NOWARN,
		      &sb), "GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_NOWARN");
	CHECK_STR(fmt(&g, B(5) | GFP_KRECLAIM | GFP_NOWARN, &sb),
		  "GFP_ATOMIC|__GFP_NOWARN");
	CHECK_STR(fmt(&g, GFP_KRECLAIM | GFP_NOWARN, &sb), "GFP_NOWAIT");
	/* single bits only, in table order */
	CHECK_STR(fmt(&g, GFP_ZERO | GFP_IO, &sb), "__GFP_IO|__GFP_ZERO");
	CHECK_STR(fmt(&g, GFP_DRECLAIM | GFP_KRECLAIM, &sb), "__GFP_RECLAIM");
	CHECK_STR(fmt(&g, GFP_DRECLAIM, &sb), "__GFP_DIRECT_RECLAIM");
	/* bits no entry names are left over in hex, last */
	CHECK_STR(fmt(&g, GFP_KERNEL_V | B(30), &sb), "GFP_KERNEL|0x40000000");
	CHECK_STR(fmt(&g, B(30) | B(31), &sb), "0xc0000000");
	CHECK_STR(fmt(&g, B(63) | GFP_COMP, &sb),
		  "__GFP_COMP|0x8000000000000000");
	/* the formatter appends */
	kmt_sb_reset(&sb);
	kmt_sb_adds(&sb, "gfp=");
	kmt_gfp_format(&g, GFP_KERNEL_V, &sb);
	CHECK_STR(kmt_sb_str(&sb), "gfp=GFP_KERNEL");
	kmt_gfp_free(&g);
	CHECK_EQ_U64(g.nr, 0);
	kmt_sb_release(&sb);
}

static void test_format_empty_table(void)
{
	struct kmt_sb sb = KMT_SB_INIT;
	struct kmt_gfp g;

	kmt_gfp_init(&g);
	CHECK_STR(fmt(&g, GFP_KERNEL_V, &sb), "0xcc0");
	CHECK_STR(fmt(&g, 0, &sb), "none");
	CHECK_STR(fmt(&g, UINT64_MAX, &sb), "0xffffffffffffffff");
	/* a zero entry is never "matched" */
	kmt_gfp_add(&g, 0, "GFP_NOWHERE");
	CHECK_STR(fmt(&g, GFP_IO, &sb), "0x40");
	kmt_gfp_free(&g);
	kmt_sb_release(&sb);
}

/* the names this kernel prints, read from its own kmalloc format */
static void check_real_table(const struct kmt_gfp *g)
{
	struct kmt_sb sb = KMT_SB_INIT;

	CHECK_EQ_U64(g->nr, 38);
	if (g->nr != 38) {
		kmt_sb_release(&sb);
		return;
	}
	CHECK_STR(g->flags[0].name, "GFP_TRANSHUGE");
	CHECK_STR(g->flags[37].name, "__GFP_NO_OBJ_EXT");
	CHECK_EQ_U64(g->flags[37].value, B(24));
	CHECK_STR(fmt(g, GFP_KERNEL_V, &sb), "GFP_KERNEL");
	CHECK_STR(fmt(g, GFP_KERNEL_V | GFP_ZERO, &sb),
		  "GFP_KERNEL|__GFP_ZERO");
	CHECK_STR(fmt(g, GFP_KERNEL_V | GFP_ACCOUNT, &sb),
		  "GFP_KERNEL_ACCOUNT");
	CHECK_STR(fmt(g, GFP_KERNEL_V | GFP_NOWARN | GFP_COMP, &sb),
		  "GFP_KERNEL|__GFP_NOWARN|__GFP_COMP");
	CHECK_STR(fmt(g, B(5) | GFP_KRECLAIM, &sb), "GFP_ATOMIC");
	/* GFP_HIGHUSER_MOVABLE = GFP_USER | __GFP_HIGHMEM | __GFP_MOVABLE */
	CHECK_STR(fmt(g, GFP_KERNEL_V | B(20) | B(1) | B(3), &sb),
		  "GFP_HIGHUSER_MOVABLE");
	CHECK_STR(fmt(g, GFP_KERNEL_V | B(30), &sb), "GFP_KERNEL|0x40000000");
	kmt_sb_release(&sb);
}

static void test_from_tep_kmalloc(void)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev;
	struct kmt_gfp g;
	int n;

	CHECK(tep != NULL);
	if (!tep)
		return;
	ev = parse_format(tep, "kmalloc");
	CHECK(ev != NULL);
	kmt_gfp_init(&g);
	n = kmt_gfp_from_tep(&g, ev, "gfp_flags");
	CHECK_EQ_U64(n, 38);
	check_real_table(&g);
	kmt_gfp_free(&g);

	/* a field the format has no flags for, and no event at all */
	kmt_gfp_init(&g);
	CHECK_EQ_U64(kmt_gfp_from_tep(&g, ev, "node"), 0);
	CHECK_EQ_U64(kmt_gfp_from_tep(&g, NULL, "gfp_flags"), 0);
	CHECK_EQ_U64(g.nr, 0);
	kmt_gfp_free(&g);
	tep_free(tep);
}

static void test_from_tep_page_alloc(void)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev, *kfree_ev;
	struct kmt_gfp g;

	CHECK(tep != NULL);
	if (!tep)
		return;
	ev = parse_format(tep, "mm_page_alloc");
	kfree_ev = parse_format(tep, "kfree");
	CHECK(ev && kfree_ev);
	kmt_gfp_init(&g);
	CHECK_EQ_U64(kmt_gfp_from_tep(&g, ev, "gfp_flags"), 38);
	check_real_table(&g);
	kmt_gfp_free(&g);
	/* kfree prints no flags */
	kmt_gfp_init(&g);
	CHECK_EQ_U64(kmt_gfp_from_tep(&g, kfree_ev, "gfp_flags"), 0);
	kmt_gfp_free(&g);
	tep_free(tep);
}

/*
 * Cross-check with libtraceevent's own rendering of a kmalloc record:
 * kmt_gfp_format must print what the recording's print format prints.
 */
static void test_matches_libtraceevent(void)
{
	static const uint64_t values[] = {
		B(6) | B(7) | B(10) | B(11),
		B(6) | B(7) | B(8) | B(10) | B(11),
		B(6) | B(7) | B(10) | B(11) | B(22),
		B(5) | B(11) | B(13),
		B(11) | B(13),
		B(0) | B(13) | B(18),
		B(10) | B(11) | B(6) | B(7) | B(20) | B(1) | B(3) | B(18) |
			B(19) | B(13),
		B(4),
		B(30) | B(6),
		0,
	};
	struct tep_handle *tep = tep_alloc();
	struct kmt_sb sb = KMT_SB_INIT, theirs = KMT_SB_INIT;
	struct tep_event *ev;
	struct kmt_gfp g;
	size_t i;

	CHECK(tep != NULL);
	if (!tep)
		return;
	tep_set_long_size(tep, 8);
	ev = parse_format(tep, "kmalloc");
	CHECK(ev != NULL);
	if (!ev) {
		tep_free(tep);
		return;
	}
	kmt_gfp_init(&g);
	kmt_gfp_from_tep(&g, ev, "gfp_flags");
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		unsigned char rec_data[56];
		struct tep_record rec;
		struct trace_seq seq;
		const char *p, *e;
		uint16_t id = (uint16_t)ev->id;

		memset(rec_data, 0, sizeof(rec_data));
		memcpy(rec_data, &id, 2);
		memcpy(rec_data + 40, &values[i], 8);
		memset(&rec, 0, sizeof(rec));
		rec.data = rec_data;
		rec.size = sizeof(rec_data);
		trace_seq_init(&seq);
		tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&seq);
		p = strstr(seq.buffer, "gfp_flags=");
		CHECK(p != NULL);
		if (p) {
			p += 10;
			e = strchr(p, ' ');
			kmt_sb_reset(&theirs);
			kmt_sb_add(&theirs, p, e ? (size_t)(e - p) : strlen(p));
			CHECK_STR(fmt(&g, values[i], &sb), kmt_sb_str(&theirs));
		}
		trace_seq_destroy(&seq);
	}
	kmt_gfp_free(&g);
	kmt_sb_release(&sb);
	kmt_sb_release(&theirs);
	tep_free(tep);
}

/*
 * Short names by rule from the names alone: initials, then more of the
 * last word where an earlier name has them, then a number; unique.
 */
static void test_abbreviate(void)
{
	static const char *const names[] = {
		"GFP_HIGHUSER_MOVABLE", "GFP_HIGHUSER", "GFP_KERNEL_ACCOUNT",
		"GFP_KERNEL", "GFP_NOWAIT", "__GFP_NOWARN", "__GFP_ZERO",
		"__GFP_COMP", "__GFP_NOFAIL", "GFP_DMA", "GFP_DMA32", "X", "X",
	};
	static const char *const want[] = {
		"HM", "H", "KA", "K", "N", "NO", "Z", "C", "NOF", "D", "DM",
		"X", "X2",
	};
	char *got[sizeof(names) / sizeof(names[0])];
	size_t i, k;

	CHECK(!kmt_gfp_abbreviate(names, sizeof(names) / sizeof(names[0]),
				  got));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		CHECK_STR(got[i], want[i]);
		for (k = 0; k < i; k++)
			CHECK(strcmp(got[i], got[k]));
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		free(got[i]);
}

KMT_TESTS(
	KMT_TEST(test_abbreviate),
	KMT_TEST(test_format_table),
	KMT_TEST(test_format_empty_table),
	KMT_TEST(test_from_tep_kmalloc),
	KMT_TEST(test_from_tep_page_alloc),
	KMT_TEST(test_matches_libtraceevent)
)
