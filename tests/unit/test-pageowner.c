// SPDX-License-Identifier: GPL-2.0
/*
 * page_owner: the record parser, the stream splitter, classes, grouping,
 * the report
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/pageowner.h"
#include "check.h"
#include "drawn.h"
#include "render/render.h"
#include "report/report.h"
#include "source/pageowner.h"

static int streq(struct kmt_po_str s, const char *lit)
{
	return s.len == strlen(lit) && !memcmp(s.s, lit, s.len);
}

static const char *parse(struct kmt_po_reader *r, const char *text,
			 struct kmt_po_record *rec)
{
	const char *why = NULL;

	kmt_po_parse_record(r, text, strlen(text), 1, rec, &why);
	return why;
}

static void test_alloc_line_variants(void)
{
	struct kmt_po_reader r;
	struct kmt_po_record rec;

	kmt_po_reader_init(&r, NULL, NULL, NULL);

	/* 6.8 on: pid, tgid (comm), ts */
	CHECK(!parse(&r, "Page allocated via order 3, mask 0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), pid 1234, tgid 1200 (Web Content), ts 5120334568 ns\n", &rec));
	CHECK_EQ_U64(rec.kind, KMT_PO_PAGE);
	CHECK_EQ_U64(rec.order, 3);
	CHECK_EQ_U64(rec.gfp_mask, 0x140cca);
	CHECK(streq(rec.gfp_names, "GFP_HIGHUSER_MOVABLE|__GFP_COMP"));
	CHECK_EQ_U64(rec.pid, 1234);
	CHECK_EQ_U64(rec.tgid, 1200);
	CHECK(streq(rec.comm, "Web Content"));
	CHECK_EQ_U64(rec.ts, 5120334568ULL);
	CHECK(rec.has_ts && !rec.has_free_ts);
	CHECK_EQ_U64(rec.ts_len, 10);
	CHECK(!memcmp(rec.alloc.s + rec.ts_off, "5120334568", 10));

	/* 5.19 to 6.7: free_ts */
	CHECK(!parse(&r, "Page allocated via order 0, mask 0x12cc0(GFP_KERNEL|__GFP_NOWARN), pid 412, tgid 412 (systemd-udevd), ts 2081377351 ns, free_ts 2075810230 ns\n", &rec));
	CHECK(rec.has_free_ts);
	CHECK_EQ_U64(rec.free_ts, 2075810230ULL);
	CHECK(!memcmp(rec.alloc.s + rec.free_ts_off, "2075810230", 10));

	/* 5.18: pid (comm) without tgid */
	CHECK(!parse(&r, "Page allocated via order 0, mask 0x100cca(GFP_HIGHUSER_MOVABLE), pid 2310 (cc1 (x)), ts 41 ns, free_ts 0 ns\n", &rec));
	CHECK_EQ_U64(rec.pid, 2310);
	CHECK(!rec.has_tgid);
	CHECK_EQ_U64((uint64_t)(int64_t)rec.tgid, (uint64_t)-1);
	CHECK(streq(rec.comm, "cc1 (x)"));

	/* 5.12: pid only; 5.11: no free_ts */
	CHECK(!parse(&r, "Page allocated via order 1, mask 0x0(), pid 0, ts 0 ns, free_ts 0 ns\n", &rec));
	CHECK(rec.has_pid && !rec.has_comm && rec.gfp_mask == 0);
	CHECK(!parse(&r, "Page allocated via order 0, mask 0x100cca(GFP_HIGHUSER_MOVABLE), pid 900, ts 66000000 ns\n", &rec));
	CHECK_EQ_U64(rec.ts, 66000000);

	/* a task name holding "), ts " ends at the last one */
	CHECK(!parse(&r, "Page allocated via order 0, mask 0xcc0(GFP_KERNEL), pid 77, tgid 77 (x), ts 1 (y), ts 8 ns\n", &rec));
	CHECK(streq(rec.comm, "x), ts 1 (y"));
	CHECK_EQ_U64(rec.ts, 8);

	/* what makes a record unusable */
	CHECK(parse(&r, "Page allocated via order x, mask 0xcc0(GFP_KERNEL), pid 1, ts 1 ns\n", &rec) != NULL);
	CHECK(parse(&r, "Page allocated via order 64, mask 0xcc0(GFP_KERNEL), pid 1, ts 1 ns\n", &rec) != NULL);
	CHECK(parse(&r, "Page allocated via order 0, pid 13, ts 100 ns\n", &rec) != NULL);
	CHECK(parse(&r, "Page allocated via order 0, mask 0xcc0(GFP_KERNEL, pid 1\n", &rec) != NULL);
	CHECK(parse(&r, "Page allocated via order 0, mask 0xcc0(GFP_KERNEL), pid 1, ts x ns\n", &rec) != NULL);
	CHECK(parse(&r, "hello\n", &rec) != NULL);
	kmt_po_reader_free(&r);
}

static void test_pfn_stack_tail(void)
{
	struct kmt_po_reader r;
	struct kmt_po_record rec;

	kmt_po_reader_init(&r, NULL, NULL, NULL);
	CHECK(!parse(&r,
		"Page allocated via order 2, mask 0xd2cc0(GFP_KERNEL|__GFP_COMP), pid 1, tgid 1 (systemd), ts 8 ns\n"
		"PFN 0x4a200 type Unmovable Block 593 type CMA Flags 0xfffffc0000840(slab|head|node=0|zone=1)\n"
		" post_alloc_hook+0x1c1/0x200\n"
		" allocate_slab+0x2a7/0x3c0\n"
		" xfs_buf_alloc+0x74/0x1a0 [xfs]\n"
		"Page has been migrated, last migrate reason: compaction\n"
		"Slab cache page\n"
		"Charged (via objcg) to offline memcg init.scope\n", &rec));
	CHECK(rec.has_pfn && rec.pfn_hex);
	CHECK_EQ_U64(rec.pfn, 0x4a200);
	CHECK(streq(rec.page_mt, "Unmovable"));
	CHECK(streq(rec.block_mt, "CMA"));
	CHECK(rec.flag_slab);
	CHECK_EQ_U64(rec.nr_frames, 3);
	CHECK(streq(rec.stack, " post_alloc_hook+0x1c1/0x200\n allocate_slab+0x2a7/0x3c0\n xfs_buf_alloc+0x74/0x1a0 [xfs]\n"));
	CHECK(streq(rec.migrate_reason, "compaction"));
	CHECK(rec.slab_cache && rec.memcg_kmem && rec.memcg_offline);
	CHECK(streq(rec.memcg, "init.scope"));
	CHECK(streq(rec.tail, "Page has been migrated, last migrate reason: compaction\nSlab cache page\nCharged (via objcg) to offline memcg init.scope\n"));

	/* decimal PFN, "slab" only as a whole flag name */
	CHECK(!parse(&r,
		"Page allocated via order 0, mask 0xcc0(GFP_KERNEL), pid 1, ts 8 ns, free_ts 0 ns\n"
		"PFN 1140736 type Unmovable Block 2228 type Unmovable Flags 0x200(slab_x|node=0)\n"
		" a+0x1/0x2\n", &rec));
	CHECK(rec.has_pfn && !rec.pfn_hex && !rec.flag_slab);
	CHECK_EQ_U64(rec.pfn, 1140736);
	CHECK(parse(&r, "Page allocated via order 0, mask 0xcc0(GFP_KERNEL), pid 1, ts 8 ns\nPFN zzz type X Block 1 type X Flags 0x0()\n", &rec) != NULL);

	/*
	 * 3.19 to 4.5: no names in the mask, the pageblock's type as a
	 * number, "Fallback" or eight blanks, one letter a flag (S the
	 * eighth), frames with their address
	 */
	CHECK(!parse(&r,
		"Page allocated via order 3, mask 0x26052c0\n"
		"PFN 16384 Block 32 type 0          Flags        S C  \n"
		" [<ffffffff811cd5ea>] new_slab+0x32a/0x4a0\n", &rec));
	CHECK(rec.has_pfn && !rec.pfn_hex && rec.mt_number && rec.flag_slab);
	CHECK_EQ_U64(rec.pfn, 16384);
	CHECK_EQ_U64(rec.gfp_mask, 0x26052c0);
	CHECK(!rec.gfp_names.s);
	CHECK(streq(rec.block_mt, "0") && streq(rec.page_mt, "0"));
	CHECK_EQ_U64(rec.nr_frames, 1);
	CHECK(!rec.tail.len);
	CHECK(!parse(&r,
		"Page allocated via order 0, mask 0x24200ca\n"
		"PFN 30000 Block 58 type 0 Fallback Flags    UDLA     \n"
		" [<ffffffff811c1e96>] alloc_pages_vma+0xb6/0x290\n", &rec));
	CHECK(streq(rec.block_mt, "0") && streq(rec.page_mt, "Fallback"));
	CHECK(!rec.flag_slab);
	CHECK(parse(&r, "Page allocated via order 0, mask 0x24200ca\nPFN 30000 Block x type 0          Flags             \n", &rec) != NULL);

	/* frames interrupted by another line are gathered */
	CHECK(!parse(&r,
		"Page allocated via order 0, mask 0xcc0(GFP_KERNEL), pid 1, ts 8 ns\n"
		" a+0x1/0x2\nodd line\n b+0x1/0x2\n", &rec));
	CHECK(streq(rec.stack, " a+0x1/0x2\n b+0x1/0x2\n"));
	CHECK(streq(rec.tail, "odd line\n"));
	kmt_po_reader_free(&r);
}

static void test_stacks_records(void)
{
	struct kmt_po_reader r;
	struct kmt_po_record rec;

	kmt_po_reader_init(&r, NULL, NULL, NULL);
	CHECK(!parse(&r, " a+0x1/0x2\n b+0x3/0x4\nnr_base_pages: 120\n", &rec));
	CHECK_EQ_U64(rec.kind, KMT_PO_STACKS);
	CHECK_EQ_U64(rec.nr_base_pages, 120);
	CHECK_EQ_U64(rec.nr_frames, 2);
	CHECK(!parse(&r, " a+0x1/0x2\nstack_count: 7\n", &rec));
	CHECK_EQ_U64(rec.nr_base_pages, 7);
	CHECK(!parse(&r, " a+0x1/0x2\nhandle: 123456\nnr_base_pages: 3\n", &rec));
	CHECK(rec.has_handle && rec.handle == 123456);
	CHECK(parse(&r, " a+0x1/0x2\nnr_base_pages: many\n", &rec) != NULL);
	CHECK(parse(&r, " a+0x1/0x2\nPFN 0x1 type A Block 1 type A\n", &rec) != NULL);
	kmt_po_reader_free(&r);
}

/* collects what the reader hands on */
struct sink {
	int records;
	uint64_t lines[16];
	uint64_t pages;
	int malformed;
	uint64_t bad_lines[16];
};

static int sink_record(void *ctx, const struct kmt_po_record *r)
{
	struct sink *s = ctx;

	if (s->records < 16)
		s->lines[s->records] = r->line;
	s->records++;
	s->pages += r->kind == KMT_PO_PAGE ? 1ULL << r->order :
		    r->nr_base_pages;
	return 0;
}

static void sink_malformed(void *ctx, uint64_t line, const char *why)
{
	struct sink *s = ctx;

	(void)why;
	if (s->malformed < 16)
		s->bad_lines[s->malformed] = line;
	s->malformed++;
}

static const char stream[] =
	"Page allocated via order 0, mask 0xcc0(GFP_KERNEL), pid 1, ts 1 ns\n"
	"PFN 0x1 type Unmovable Block 0 type Unmovable Flags 0x0()\n"
	" a+0x1/0x2\n"
	"\n"
	"\n"
	"Page allocated via order x, mask 0xcc0(GFP_KERNEL), pid 1, ts 1 ns\n"
	" a+0x1/0x2\n"
	"\n"
	"Page allocated via order 1, mask 0xcc0(GFP_KERNEL), pid 2, ts 2 ns\n"
	" b+0x1/0x2\n"
	"Page allocated via order 2, mask 0xcc0(GFP_KERNEL), pid 3, ts 3 ns\n"
	" c+0x1/0x2\r\n"
	"\r\n"
	"Page allocated via order 3, mask 0xcc0(GFP_KERNEL), pid 4, ts 4 ns\n"
	" d+0x1/0x2";

static void check_stream(const struct sink *s)
{
	CHECK_EQ_U64(s->records, 4);
	CHECK_EQ_U64(s->lines[0], 1);
	CHECK_EQ_U64(s->lines[1], 9);
	CHECK_EQ_U64(s->lines[2], 11);
	CHECK_EQ_U64(s->lines[3], 14);
	CHECK_EQ_U64(s->pages, 1 + 2 + 4 + 8);
	CHECK_EQ_U64(s->malformed, 1);
	CHECK_EQ_U64(s->bad_lines[0], 6);
}

static void test_stream_any_chunking(void)
{
	size_t len = sizeof(stream) - 1, chunk;

	/* whole, byte by byte, and in every size between */
	for (chunk = 1; chunk <= len; chunk += chunk < 16 ? 1 : 37) {
		struct kmt_po_reader r;
		struct sink s;
		size_t off;

		memset(&s, 0, sizeof(s));
		kmt_po_reader_init(&r, sink_record, sink_malformed, &s);
		for (off = 0; off < len; off += chunk)
			CHECK(!kmt_po_feed(&r, stream + off,
					   len - off < chunk ? len - off : chunk));
		CHECK(!kmt_po_finish(&r));
		check_stream(&s);
		kmt_po_reader_free(&r);
	}
}

static void test_read_fd(void)
{
	struct kmt_po_reader r;
	struct sink s;
	int fds[2];

	/* a pipe: its size is unknown, which page_owner_sort cannot take */
	memset(&s, 0, sizeof(s));
	CHECK(!pipe(fds));
	CHECK(write(fds[1], stream, sizeof(stream) - 1) ==
	      (ssize_t)(sizeof(stream) - 1));
	close(fds[1]);
	kmt_po_reader_init(&r, sink_record, sink_malformed, &s);
	CHECK(!kmt_po_read_fd(&r, fds[0], "<pipe>"));
	close(fds[0]);
	check_stream(&s);
	CHECK_EQ_U64(r.nr_bytes, sizeof(stream) - 1);
	kmt_po_reader_free(&r);

	/* a read error is returned with the input named */
	kmt_po_reader_init(&r, sink_record, sink_malformed, &s);
	CHECK(kmt_po_read_fd(&r, -1, "dump.txt") == -EBADF);
	CHECK(strstr(r.errmsg, "cannot read 'dump.txt'") != NULL);
	kmt_po_reader_free(&r);
}

static int feed_str(struct kmt_po_reader *r, const char *s)
{
	return kmt_po_feed(r, s, strlen(s));
}

static void test_overlong_record(void)
{
	struct kmt_po_reader r;
	struct sink s;
	size_t big = KMT_PO_MAX_RECORD + 4096, i;
	char *junk = malloc(big);

	memset(&s, 0, sizeof(s));
	CHECK(junk != NULL);
	if (!junk)
		return;
	for (i = 0; i < big; i++)
		junk[i] = i % 80 == 79 ? '\n' : 'x';
	junk[0] = ' ';
	kmt_po_reader_init(&r, sink_record, sink_malformed, &s);
	CHECK(!feed_str(&r, "Page allocated via order 0, mask 0x0(), pid 1, ts 1 ns\n a+0x1/0x2\n\n"));
	for (i = 0; i < big; i += 65536)
		CHECK(!kmt_po_feed(&r, junk + i, big - i < 65536 ? big - i : 65536));
	CHECK(!feed_str(&r, "\n\nPage allocated via order 1, mask 0x0(), pid 1, ts 1 ns\n a+0x1/0x2\n\n"));
	CHECK(!kmt_po_finish(&r));
	CHECK_EQ_U64(s.records, 2);
	CHECK_EQ_U64(s.malformed, 1);
	CHECK_EQ_U64(s.bad_lines[0], 4);
	/* the reader kept about one record, not the junk */
	CHECK(r.alloc < 4 * KMT_PO_MAX_RECORD);
	kmt_po_reader_free(&r);
	free(junk);
}

static enum kmt_po_class class_of(const char *stack, const char *gfp,
				  int flag_slab, int cma)
{
	return kmt_po_classify(kmt_po_stack_hint(stack, strlen(stack)),
			       kmt_po_gfp_user_movable(gfp, strlen(gfp)),
			       flag_slab, cma);
}

static void test_classes(void)
{
	const char *inner = " post_alloc_hook+0x1/0x2\n get_page_from_freelist+0x1/0x2\n __alloc_pages_noprof+0x1/0x2\n";
	char buf[1024];

#define STACK(s) (snprintf(buf, sizeof(buf), "%s%s", inner, s), buf)
	CHECK_EQ_U64(class_of(STACK(" allocate_slab+0x1/0x2\n do_anonymous_page+0x1/0x2\n"), "GFP_KERNEL", 0, 0), KMT_PO_CLASS_SLAB);
	CHECK_EQ_U64(class_of(STACK(" __kmalloc_large_node_noprof+0x1/0x2\n"), "GFP_KERNEL", 0, 0), KMT_PO_CLASS_SLAB);
	CHECK_EQ_U64(class_of(STACK(" kmem_cache_alloc+0x1/0x2\n"), "GFP_KERNEL", 0, 0), KMT_PO_CLASS_SLAB);
	CHECK_EQ_U64(class_of(STACK(" __vmalloc_node_range_noprof+0x1/0x2\n"), "GFP_KERNEL", 0, 0), KMT_PO_CLASS_VMALLOC);
	CHECK_EQ_U64(class_of(STACK(" vm_area_alloc_pages.constprop.0+0x1/0x2\n"), "GFP_KERNEL", 0, 0), KMT_PO_CLASS_VMALLOC);
	CHECK_EQ_U64(class_of(STACK(" filemap_alloc_folio_noprof+0x1/0x2\n filemap_fault+0x1/0x2\n"), "GFP_HIGHUSER_MOVABLE", 0, 0), KMT_PO_CLASS_PAGECACHE);
	CHECK_EQ_U64(class_of(STACK(" folio_alloc+0x1/0x2\n page_cache_ra_unbounded+0x1/0x2\n"), "GFP_HIGHUSER_MOVABLE", 0, 0), KMT_PO_CLASS_PAGECACHE);
	CHECK_EQ_U64(class_of(STACK(" vma_alloc_folio_noprof+0x1/0x2\n do_anonymous_page+0x1/0x2\n"), "GFP_KERNEL", 0, 0), KMT_PO_CLASS_ANON);
	CHECK_EQ_U64(class_of(STACK(" wp_page_copy+0x1/0x2\n"), "GFP_HIGHUSER_MOVABLE", 0, 0), KMT_PO_CLASS_ANON);
	/* vma_alloc_folio alone: anon only for user movable memory */
	CHECK_EQ_U64(class_of(STACK(" vma_alloc_folio+0x1/0x2\n __handle_mm_fault+0x1/0x2\n"), "GFP_HIGHUSER_MOVABLE|__GFP_COMP", 0, 0), KMT_PO_CLASS_ANON);
	CHECK_EQ_U64(class_of(STACK(" vma_alloc_folio+0x1/0x2\n __handle_mm_fault+0x1/0x2\n"), "GFP_USER|__GFP_MOVABLE", 0, 0), KMT_PO_CLASS_ANON);
	CHECK_EQ_U64(class_of(STACK(" vma_alloc_folio+0x1/0x2\n __handle_mm_fault+0x1/0x2\n"), "GFP_KERNEL", 0, 0), KMT_PO_CLASS_OTHER);
	/* page tables under a fault are not anonymous memory */
	CHECK_EQ_U64(class_of(STACK(" pte_alloc_one+0x1/0x2\n __pte_alloc+0x1/0x2\n do_anonymous_page+0x1/0x2\n"), "GFP_KERNEL", 0, 0), KMT_PO_CLASS_OTHER);
	CHECK_EQ_U64(class_of(STACK(" split_free_pages+0x1/0x2\n alloc_contig_range_noprof+0x1/0x2\n __cma_alloc+0x1/0x2\n"), "GFP_KERNEL", 0, 0), KMT_PO_CLASS_CMA);
	/* flags and pageblocks decide only when the stack does not */
	CHECK_EQ_U64(class_of(STACK(" foo+0x1/0x2\n"), "GFP_KERNEL", 1, 0), KMT_PO_CLASS_SLAB);
	CHECK_EQ_U64(class_of(STACK(" foo+0x1/0x2\n"), "GFP_KERNEL", 0, 1), KMT_PO_CLASS_CMA);
	CHECK_EQ_U64(class_of(STACK(" wp_page_copy+0x1/0x2\n"), "GFP_HIGHUSER_MOVABLE", 0, 1), KMT_PO_CLASS_ANON);
	CHECK_EQ_U64(class_of(STACK(" pipe_write+0x1/0x2\n"), "GFP_KERNEL", 0, 0), KMT_PO_CLASS_OTHER);
	CHECK_EQ_U64(class_of("", "", 0, 0), KMT_PO_CLASS_OTHER);
#undef STACK
	CHECK(streq(kmt_po_frame_function(" xfs_buf_alloc+0x74/0x1a0 [xfs]\n", 31), "xfs_buf_alloc"));
	CHECK(streq(kmt_po_frame_function(" [<ffffffff81234>] foo+0x1/0x2", 30), "foo"));
	CHECK(streq(kmt_po_frame_function(" 0xffffffffc0123456\n", 20), "0xffffffffc0123456"));
	CHECK(!kmt_po_gfp_user_movable("__GFP_MOVABLE", 13));
	CHECK(kmt_po_gfp_user_movable("GFP_TRANSHUGE_LIGHT|__GFP_THISNODE", 34));
	CHECK_STR(kmt_po_class_label(KMT_PO_CLASS_OTHER), "OTHERS");
	CHECK_STR(kmt_po_class_name(KMT_PO_CLASS_PAGECACHE), "pagecache");
}

static void test_option_parsing(void)
{
	struct kmt_po_sortkey keys[KMT_PO_MAX_SORTKEYS];
	unsigned int mask;
	int32_t *ids;
	size_t nr;
	char err[256];
	int n;

	CHECK(!kmt_po_parse_cull("pid,tg,n,st,ator", &mask, err, sizeof(err)));
	CHECK_EQ_U64(mask, KMT_PO_CULL_PID | KMT_PO_CULL_TGID |
		     KMT_PO_CULL_NAME | KMT_PO_CULL_STACK |
		     KMT_PO_CULL_ALLOCATOR);
	CHECK(kmt_po_parse_cull("pid,bogus", &mask, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "'bogus'") != NULL);
	CHECK(kmt_po_parse_cull("pid,", &mask, err, sizeof(err)) == -EINVAL);
	CHECK(!kmt_po_parse_sort("n,+pid,-tgid,at,T,ator,-times,pages,st", keys, &n, err, sizeof(err)));
	CHECK_EQ_U64(n, 9);
	CHECK(keys[0].key == KMT_PO_KEY_NAME && !keys[0].desc);
	CHECK(keys[1].key == KMT_PO_KEY_PID && !keys[1].desc);
	CHECK(keys[2].key == KMT_PO_KEY_TGID && keys[2].desc);
	CHECK(keys[3].key == KMT_PO_KEY_ALLOC_TS);
	CHECK(keys[4].key == KMT_PO_KEY_TXT);
	CHECK(keys[6].key == KMT_PO_KEY_TIMES && keys[6].desc);
	CHECK(kmt_po_parse_sort("-x", keys, &n, err, sizeof(err)) == -EINVAL);
	CHECK(!kmt_po_parse_ids("1,22,-3", &ids, &nr));
	CHECK_EQ_U64(nr, 3);
	CHECK(ids[1] == 22 && ids[2] == -3);
	free(ids);
	CHECK(kmt_po_parse_ids("1,a", &ids, &nr) == -EINVAL);
	CHECK(kmt_po_parse_ids("", &ids, &nr) == -EINVAL);
}

/* the analysis fed from text, as the command does */
static void analyse(struct kmt_po_analysis *a, const struct kmt_po_options *o,
		    const char *text)
{
	struct kmt_po_reader r;

	CHECK(!kmt_po_analysis_init(a, o));
	kmt_po_reader_init(&r, kmt_po_add, kmt_po_add_malformed, a);
	CHECK(!kmt_po_feed(&r, text, strlen(text)));
	CHECK(!kmt_po_finish(&r));
	CHECK(!kmt_po_analysis_finish(a));
	kmt_po_reader_free(&r);
}

#define REC(order, pid, tgid, comm, ts, stack, tail)			\
	"Page allocated via order " #order ", mask 0xcc0(GFP_KERNEL), pid " \
	#pid ", tgid " #tgid " (" comm "), ts " #ts " ns\n"		\
	"PFN 0x1000 type Unmovable Block 8 type Unmovable Flags 0x0(node=0)\n" \
	stack tail "\n"

static const char dump[] =
	REC(0, 10, 10, "a b", 100, " s1+0x1/0x2\n", "")
	REC(0, 10, 10, "a b", 200, " s1+0x1/0x2\n", "")
	REC(0, 11, 10, "a b", 300, " s1+0x1/0x2\n", "")
	REC(1, 12, 12, "c", 50, " s1+0x1/0x2\n", "")
	REC(0, 10, 10, "a b", 400, " s1+0x1/0x2\n", "Charged to memcg m1\n")
	REC(2, 13, 13, "d", 10, " allocate_slab+0x1/0x2\n", "");

static void test_grouping(void)
{
	struct kmt_po_analysis a;
	struct kmt_po_options o;
	struct kmt_po_sortkey times = { KMT_PO_KEY_TIMES, 1 };
	struct kmt_sb sb = KMT_SB_INIT;
	uint32_t *order;

	/* text identity: the timestamps do not split groups */
	memset(&o, 0, sizeof(o));
	analyse(&a, &o, dump);
	CHECK_EQ_U64(a.nr_records, 6);
	CHECK_EQ_U64(a.nr_pages, 1 + 1 + 1 + 2 + 1 + 4);
	CHECK_EQ_U64(a.nr_groups, 5);
	CHECK_EQ_U64(a.stacks.nr - 1, 2);
	order = kmt_po_sort(&a, &times, 1);
	CHECK(order != NULL);
	if (order) {
		const struct kmt_po_group *g = &a.groups[order[0]];

		CHECK_EQ_U64(g->times, 2);
		CHECK_EQ_U64(g->ts, 100);
		kmt_po_group_header(&a, g, &sb);
		CHECK_STR(kmt_sb_str(&sb), "Page allocated via order 0, mask 0xcc0(GFP_KERNEL), pid 10, tgid 10 (a b), ts  ns");
		/* ties: by pages, then by first appearance */
		CHECK_EQ_U64(a.groups[order[1]].pages, 4);
		CHECK_EQ_U64(a.groups[order[2]].pages, 2);
		CHECK_EQ_U64(kmt_po_group_pid(&a, &a.groups[order[3]]), 11);
		CHECK_EQ_U64(kmt_po_group_pid(&a, &a.groups[order[4]]), 10);
		CHECK(a.groups[order[4]].tail != 0);
	}
	free(order);
	CHECK_EQ_U64(a.by_class[KMT_PO_CLASS_SLAB].pages, 4);
	CHECK_EQ_U64(a.by_class[KMT_PO_CLASS_OTHER].records, 5);
	CHECK_EQ_U64(a.by_order[1].pages, 2);
	CHECK_EQ_U64(a.charged.records, 1);
	kmt_po_analysis_free(&a);

	/* sorting by allocation time first: timestamps are identity */
	memset(&o, 0, sizeof(o));
	o.ts_in_key = 1;
	analyse(&a, &o, dump);
	CHECK_EQ_U64(a.nr_groups, 6);
	kmt_sb_reset(&sb);
	kmt_po_group_header(&a, &a.groups[1], &sb);
	CHECK_STR(kmt_sb_str(&sb), "Page allocated via order 0, mask 0xcc0(GFP_KERNEL), pid 10, tgid 10 (a b), ts 200 ns");
	kmt_po_analysis_free(&a);

	/* identical records, timestamps included, still fold together */
	memset(&o, 0, sizeof(o));
	o.ts_in_key = 1;
	analyse(&a, &o, REC(0, 10, 10, "a b", 100, " s1+0x1/0x2\n", "")
			REC(0, 12, 12, "c", 50, " s1+0x1/0x2\n", "")
			REC(0, 10, 10, "a b", 100, " s1+0x1/0x2\n", ""));
	CHECK_EQ_U64(a.nr_groups, 2);
	CHECK_EQ_U64(a.groups[0].times, 2);
	CHECK_EQ_U64(kmt_po_group_pid(&a, &a.groups[1]), 12);
	kmt_po_analysis_free(&a);
	/* there may be one group a record: keep them small */
	CHECK_EQ_U64(sizeof(struct kmt_po_group), 48);

	/* cull keys */
	memset(&o, 0, sizeof(o));
	o.cull = KMT_PO_CULL_STACK;
	analyse(&a, &o, dump);
	CHECK_EQ_U64(a.nr_groups, 3);	/* s1, s1 + memcg line, slab */
	kmt_po_analysis_free(&a);
	o.cull = KMT_PO_CULL_TGID | KMT_PO_CULL_NAME;
	analyse(&a, &o, dump);
	CHECK_EQ_U64(a.nr_groups, 3);	/* 10 "a b", 12 "c", 13 "d" */
	CHECK_EQ_U64(a.groups[0].times, 4);
	CHECK_EQ_U64(a.groups[0].ts, 100);
	kmt_po_analysis_free(&a);
	o.cull = KMT_PO_CULL_ALLOCATOR;
	analyse(&a, &o, dump);
	CHECK_EQ_U64(a.nr_groups, 2);
	kmt_po_analysis_free(&a);
	kmt_sb_release(&sb);
}

/*
 * The report: page_owner_sort's text through the text renderer, the
 * totals first when asked, a group's fields as its culls show them.
 */
static void test_report(void)
{
	struct kmt_po_sortkey times = { KMT_PO_KEY_TIMES, 1 };
	struct kmt_po_report_opts ro = {
		.input = "d.txt", .keys = &times, .nr_keys = 1, .limit = 2,
		.totals = 1,
	};
	static const char head[] =
		"page_owner summary of 'd.txt'\n"
		"records 6, pages 10, groups 5, distinct stacks 2\n"
		"malformed records skipped: 0\n"
		"\n"
		"allocator class                 records          pages   share\n"
		"slab                                  1              4   40.0%\n"
		"vmalloc                               0              0    0.0%\n";
	const struct kmt_section *sec;
	struct kmt_po_analysis a;
	struct kmt_po_options o;
	struct kmt_report r;
	char *text, *json;

	memset(&o, 0, sizeof(o));
	analyse(&a, &o, dump);
	kmt_report_init(&r);
	r.meta.bare = 1;
	CHECK(!kmt_po_report(&a, &r, &ro));
	sec = kmt_report_section(&r, "", "groups");
	CHECK(sec && sec->kind == KMT_SEC_TABLE &&
	      sec->table.style == KMT_TABLE_BLOCK);
	CHECK(sec && sec->table.nrows == 2 && sec->table.total_rows == 2);
	text = drawn(&r, kmt_render_text);
	json = drawn(&r, kmt_render_json);
	CHECK(text && json);
	if (text && json) {
		CHECK(!strncmp(text, head, sizeof(head) - 1));
		CHECK(strstr(text, "\norder                           records          pages   share\n"
			     "0                                     4              4   40.0%\n") != NULL);
		CHECK(strstr(text, "\nm1                                            1              1              0\n"
			     "charged pages 1, in slab cache pages 0\n") != NULL);
		/* the totals, a blank line, then the groups */
		CHECK(strstr(text, "\n\n2 times, 2 pages, allocated by OTHERS :\n"
			     "Page allocated via order 0, mask 0xcc0(GFP_KERNEL), pid 10, tgid 10 (a b), ts  ns\n"
			     " s1+0x1/0x2\n\n1 times, 4 pages, allocated by SLAB :\n") != NULL);
		CHECK(strstr(json, "\n  \"input\": \"d.txt\",\n  \"kind\": \"page_owner\",\n") != NULL);
		CHECK(strstr(json, "\"stack\": [\n        \"s1+0x1/0x2\"\n      ],\n"
			     "      \"extra\": []\n") != NULL);
		CHECK(!strstr(json, "share") && !strstr(json, "label"));
	}
	free(text);
	free(json);
	kmt_report_free(&r);
	kmt_po_analysis_free(&a);

	/* culled by allocator: its label and the blank after it close a line */
	o.cull = KMT_PO_CULL_ALLOCATOR;
	analyse(&a, &o, dump);
	kmt_report_init(&r);
	r.meta.bare = 1;
	ro.totals = 0;
	ro.limit = 0;
	CHECK(!kmt_po_report(&a, &r, &ro));
	text = drawn(&r, kmt_render_text);
	CHECK(text != NULL);
	if (text)
		CHECK_STR(text, "5 times, 6 pages, allocated by OTHERS \n"
				"1 times, 4 pages, allocated by SLAB \n");
	free(text);
	kmt_report_free(&r);
	kmt_po_analysis_free(&a);
}

static void test_selection(void)
{
	struct kmt_po_analysis a;
	struct kmt_po_options o;
	const int32_t pids[] = { 11, 12 }, tgids[] = { 10 };
	const char *const names[] = { "a b" };

	memset(&o, 0, sizeof(o));
	o.pids = pids;
	o.nr_pids = 2;
	analyse(&a, &o, dump);
	CHECK_EQ_U64(a.nr_records, 2);
	CHECK_EQ_U64(a.nr_filtered, 4);
	kmt_po_analysis_free(&a);

	memset(&o, 0, sizeof(o));
	o.names = names;
	o.nr_names = 1;
	o.tgids = tgids;
	o.nr_tgids = 1;
	analyse(&a, &o, dump);
	CHECK_EQ_U64(a.nr_records, 4);
	kmt_po_analysis_free(&a);

	memset(&o, 0, sizeof(o));
	o.names = names;
	o.nr_names = 1;
	analyse(&a, &o, dump);
	CHECK_EQ_U64(a.nr_records, 4);
	kmt_po_analysis_free(&a);
}

/* sorting by allocation time: times first, ties as every sort breaks them */
static void test_sort_by_time(void)
{
	struct kmt_po_sortkey at = { KMT_PO_KEY_ALLOC_TS, 0 };
	struct kmt_po_analysis a;
	struct kmt_po_options o;
	uint32_t *order;
	size_t i;

	memset(&o, 0, sizeof(o));
	o.ts_in_key = 1;
	analyse(&a, &o,
		REC(0, 10, 10, "a", 300, " s1+0x1/0x2\n", "")
		REC(0, 11, 11, "b", 100, " s1+0x1/0x2\n", "")
		REC(1, 12, 12, "c", 300, " s1+0x1/0x2\n", "")
		REC(0, 13, 13, "d", 1099511628288, " s1+0x1/0x2\n", "")
		REC(0, 14, 14, "e", 300, " s1+0x1/0x2\n", "")
		REC(0, 14, 14, "e", 300, " s1+0x1/0x2\n", "")
		REC(0, 15, 15, "f", 200, " s1+0x1/0x2\n", ""));
	CHECK_EQ_U64(a.nr_groups, 6);
	order = kmt_po_sort(&a, &at, 1);
	CHECK(order != NULL);
	if (order) {
		/* 100, 200; at 300: 2 times (e), 1 time of 2 pages (c), of 1 (a) */
		const int32_t want[] = { 11, 15, 14, 12, 10, 13 };

		for (i = 0; i < 6; i++)
			CHECK_EQ_U64(kmt_po_group_pid(&a, &a.groups[order[i]]),
				     want[i]);
	}
	free(order);
	at.desc = 1;
	order = kmt_po_sort(&a, &at, 1);
	CHECK(order != NULL);
	if (order) {
		const int32_t want[] = { 13, 14, 12, 10, 15, 11 };

		for (i = 0; i < 6; i++)
			CHECK_EQ_U64(kmt_po_group_pid(&a, &a.groups[order[i]]),
				     want[i]);
	}
	free(order);
	kmt_po_analysis_free(&a);
}

/* --- a file read in parts, each by its own reader, then merged --- */

static const char parts_text[] =
	REC(0, 10, 10, "a b", 100, " s1+0x1/0x2\n", "")
	REC(2, 13, 13, "d", 10, " allocate_slab+0x1/0x2\n", "")
	"garbage\n\n"
	REC(0, 11, 10, "a b", 300, " s1+0x1/0x2\n", "")
	REC(0, 10, 10, "a b", 400, " s1+0x1/0x2\n", "Charged to memcg m1\n")
	REC(0, 10, 10, "a b", 100, " s1+0x1/0x2\n", "")
	REC(1, 12, 12, "c", 50, " s1+0x1/0x2\n", "")
	" post_alloc_hook+0x1/0x2\nnr_base_pages: 5\n\n"
	REC(0, 10, 10, "a b", 200, " s2+0x1/0x2\n", "")
	REC(2, 13, 13, "d", 5, " allocate_slab+0x1/0x2\n", "")
	REC(0, 14, 14, "e", 600, " s1+0x1/0x2\n", "Charged to memcg m2\n")
	REC(0, 10, 10, "a b", 100, " s1+0x1/0x2\n", "");

static int read_in_parts(struct kmt_po_analysis *a,
			 const struct kmt_po_options *o, int fd, uint64_t size,
			 int max)
{
	struct kmt_po_part parts[8];
	uint64_t lines = 0;
	int n, i;

	n = kmt_po_plan_parts(fd, size, parts, max);
	CHECK(!kmt_po_analysis_init(a, o));
	for (i = 0; i < n; i++) {
		struct kmt_po_analysis part, *into = i ? &part : a;
		struct kmt_po_reader r;

		if (i)
			CHECK(!kmt_po_analysis_init(&part, o));
		kmt_po_reader_init(&r, kmt_po_add, kmt_po_add_malformed, into);
		CHECK(!kmt_po_read_part(&r, fd, &parts[i], "parts"));
		if (i)
			CHECK(!kmt_po_analysis_merge(a, &part, lines));
		lines += r.line - 1;
		kmt_po_reader_free(&r);
	}
	CHECK(!kmt_po_analysis_finish(a));
	return n;
}

static void check_same_analysis(const struct kmt_po_analysis *x,
				const struct kmt_po_analysis *y)
{
	size_t i;

	CHECK_EQ_U64(x->nr_records, y->nr_records);
	CHECK_EQ_U64(x->nr_pages, y->nr_pages);
	CHECK_EQ_U64(x->nr_filtered, y->nr_filtered);
	CHECK_EQ_U64(x->nr_malformed, y->nr_malformed);
	CHECK_EQ_U64(x->nr_kept_malformed, y->nr_kept_malformed);
	for (i = 0; i < x->nr_kept_malformed && i < y->nr_kept_malformed; i++) {
		CHECK_EQ_U64(x->malformed[i].line, y->malformed[i].line);
		CHECK_STR(x->malformed[i].why, y->malformed[i].why);
	}
	CHECK_EQ_U64(x->kind, y->kind);
	CHECK_EQ_U64(x->formats, y->formats);
	CHECK_EQ_U64(x->stacks.nr, y->stacks.nr);
	CHECK_EQ_U64(x->charged.pages, y->charged.pages);
	CHECK_EQ_U64(kmt_po_memcgs_count(&x->by_memcg),
		     kmt_po_memcgs_count(&y->by_memcg));
	CHECK_EQ_U64(kmt_po_counts_count(&x->by_mt),
		     kmt_po_counts_count(&y->by_mt));
	for (i = 0; i < KMT_PO_CLASS_NR; i++)
		CHECK_EQ_U64(x->by_class[i].pages, y->by_class[i].pages);
	for (i = 0; i < 4; i++)
		CHECK_EQ_U64(x->by_order[i].records, y->by_order[i].records);
	/* the same groups, in the same (first met) order */
	CHECK_EQ_U64(x->nr_groups, y->nr_groups);
	for (i = 0; i < x->nr_groups && i < y->nr_groups; i++) {
		const struct kmt_po_group *g = &x->groups[i], *h = &y->groups[i];

		CHECK_EQ_U64(g->times, h->times);
		CHECK_EQ_U64(g->pages, h->pages);
		CHECK_EQ_U64(g->ts, h->ts);
		CHECK_EQ_U64(g->klass, h->klass);
		CHECK_STR(kmt_po_text(&x->headers, g->header),
			  kmt_po_text(&y->headers, h->header));
		CHECK_STR(kmt_po_text(&x->stacks, g->stack),
			  kmt_po_text(&y->stacks, h->stack));
		CHECK_STR(kmt_po_text(&x->strs, g->tail),
			  kmt_po_text(&y->strs, h->tail));
		CHECK_STR(kmt_po_text(&x->strs, kmt_po_group_comm(x, g)),
			  kmt_po_text(&y->strs, kmt_po_group_comm(y, h)));
		CHECK_EQ_U64(kmt_po_group_pid(x, g), kmt_po_group_pid(y, h));
	}
}

static void test_parts_merge(void)
{
	char path[] = "/tmp/kmt-test-po.XXXXXX";
	const unsigned int culls[] = {
		0, 0, KMT_PO_CULL_STACK, KMT_PO_CULL_TGID | KMT_PO_CULL_NAME,
		KMT_PO_CULL_PID | KMT_PO_CULL_ALLOCATOR,
	};
	const uint64_t size = sizeof(parts_text) - 1;
	struct kmt_po_analysis whole, split;
	struct kmt_po_options o;
	struct kmt_po_part parts[8];
	int fd = mkstemp(path), n, i, max;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	unlink(path);
	CHECK(write(fd, parts_text, size) == (ssize_t)size);

	/* cuts fall after blank lines; the later parts know the kind */
	n = kmt_po_plan_parts(fd, size, parts, 4);
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(parts[0].start, 0);
	CHECK_EQ_U64(parts[n - 1].end, size);
	CHECK_EQ_U64(parts[0].kind, 0);
	for (i = 1; i < n; i++) {
		CHECK_EQ_U64(parts[i].start, parts[i - 1].end);
		CHECK(parts_text[parts[i].start - 1] == '\n' &&
		      parts_text[parts[i].start - 2] == '\n');
		CHECK_EQ_U64(parts[i].kind, KMT_PO_PAGE);
	}
	CHECK_EQ_U64(kmt_po_plan_parts(fd, size, parts, 1), 1);

	for (i = 0; i < (int)(sizeof(culls) / sizeof(culls[0])); i++) {
		memset(&o, 0, sizeof(o));
		o.cull = culls[i];
		o.ts_in_key = i == 1;
		analyse(&whole, &o, parts_text);
		CHECK_EQ_U64(whole.nr_malformed, 2);
		for (max = 2; max <= 8; max++) {
			CHECK(read_in_parts(&split, &o, fd, size, max) > 1);
			check_same_analysis(&whole, &split);
			kmt_po_analysis_free(&split);
		}
		kmt_po_analysis_free(&whole);
	}
	close(fd);
}

KMT_TESTS(
	KMT_TEST(test_alloc_line_variants),
	KMT_TEST(test_pfn_stack_tail),
	KMT_TEST(test_stacks_records),
	KMT_TEST(test_stream_any_chunking),
	KMT_TEST(test_read_fd),
	KMT_TEST(test_overlong_record),
	KMT_TEST(test_classes),
	KMT_TEST(test_option_parsing),
	KMT_TEST(test_grouping),
	KMT_TEST(test_report),
	KMT_TEST(test_selection),
	KMT_TEST(test_sort_by_time),
	KMT_TEST(test_parts_merge),
)
