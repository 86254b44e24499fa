/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SOURCE_PAGEOWNER_H
#define KMT_SOURCE_PAGEOWNER_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

/*
 * A streaming reader of page_owner text: /sys/kernel/debug/page_owner
 * dumps of every kernel since page_owner came (3.19), and the aggregated
 * /sys/kernel/debug/page_owner_stacks/show_stacks files (6.10 on).
 *
 * Records are blank-line separated.  The reader keeps only the record
 * being parsed: each one is handed to a callback with pointers into the
 * reader's buffer, valid during the call only, and then forgotten.
 */

enum kmt_po_kind {
	KMT_PO_PAGE = 1,	/* "Page allocated via order ..." record */
	KMT_PO_STACKS,		/* show_stacks record: frames + nr_base_pages */
};

/* a string inside the record; not NUL-terminated */
struct kmt_po_str {
	const char *s;
	size_t len;
};

struct kmt_po_record {
	enum kmt_po_kind kind;
	uint64_t line;			/* line number of its first line */

	/* the allocation line (page records), without its newline */
	struct kmt_po_str alloc;
	unsigned int order;
	uint32_t gfp_mask;
	struct kmt_po_str gfp_names;	/* inside the parentheses */
	int32_t pid, tgid;		/* -1 when the kernel did not print them */
	struct kmt_po_str comm;		/* empty when not printed */
	uint64_t ts, free_ts;
	/* where the digits of ts and free_ts sit in alloc; len 0 if absent */
	uint32_t ts_off, ts_len;
	uint32_t free_ts_off, free_ts_len;
	unsigned has_pid:1, has_tgid:1, has_comm:1, has_ts:1, has_free_ts:1;

	/* the PFN line */
	unsigned has_pfn:1, pfn_hex:1, flag_slab:1;
	/*
	 * 3.19 to 4.5: block_mt is a number, page_mt the same number or
	 * "Fallback" (the page's own type differs and is not printed)
	 */
	unsigned mt_number:1;
	uint64_t pfn;
	struct kmt_po_str page_mt;	/* migratetype of the allocation */
	struct kmt_po_str block_mt;	/* migratetype of its pageblock */

	/* frames, each line with its leading blank and newline */
	struct kmt_po_str stack;
	unsigned int nr_frames;

	/*
	 * Lines after the stack that page_owner_sort keeps in a record's
	 * text (migrate reason, memcg), each with its newline.
	 */
	struct kmt_po_str tail;
	struct kmt_po_str migrate_reason;
	struct kmt_po_str memcg;	/* "Charged ... to memcg NAME" */
	unsigned slab_cache:1;		/* "Slab cache page" */
	unsigned memcg_kmem:1;		/* charged via objcg */
	unsigned memcg_offline:1;

	/* show_stacks records */
	uint64_t nr_base_pages;
	int64_t handle;
	unsigned has_pages:1, has_handle:1;
};

/* returns 0 to go on, non-zero to stop the reader with that value */
typedef int (*kmt_po_record_fn)(void *ctx, const struct kmt_po_record *r);
/* a record that cannot be used, with its first line number and why */
typedef void (*kmt_po_malformed_fn)(void *ctx, uint64_t line,
				    const char *why);

/* a record longer than this is malformed (a page is 4 KiB to 64 KiB) */
#define KMT_PO_MAX_RECORD (1024 * 1024)

struct kmt_po_reader {
	kmt_po_record_fn on_record;
	kmt_po_malformed_fn on_malformed;
	void *ctx;

	char *buf;
	size_t alloc, len;	/* bytes in buf */
	size_t pos;		/* start of the first unparsed line */
	uint64_t line;		/* number of the line at pos */
	int skipping;		/* in an overlong record, up to a blank line */
	int skip_partial;	/* its last line was dropped before its end */
	enum kmt_po_kind kind;	/* of the first record; 0 before it */

	/* frames or tail lines that were not contiguous, copied */
	struct kmt_sb stack_copy;
	struct kmt_sb tail_copy;

	uint64_t nr_records;
	uint64_t nr_malformed;
	uint64_t nr_bytes;
	char errmsg[256];
};

int kmt_po_reader_init(struct kmt_po_reader *r, kmt_po_record_fn on_record,
		       kmt_po_malformed_fn on_malformed, void *ctx);
void kmt_po_reader_free(struct kmt_po_reader *r);

/*
 * Feeds bytes; complete records are parsed and passed on at once.
 * Returns 0, a callback's non-zero value, or -errno (r->errmsg says).
 */
int kmt_po_feed(struct kmt_po_reader *r, const void *data, size_t len);
/* parses what is left at the end of the input (a last record without its blank line) */
int kmt_po_finish(struct kmt_po_reader *r);

/*
 * Reads fd to its end.  Every read() asks for at least a page: a
 * page_owner file returns one whole record per read and fails one
 * larger than the buffer.  display names the input in messages.
 */
int kmt_po_read_fd(struct kmt_po_reader *r, int fd, const char *display);

/*
 * A part of a regular file, cut after a blank line (where every record
 * ends), so that readers can parse the parts at once, each with its own
 * reader, and get the records a single reader gets.  kind is that of the
 * records before the part, which a reader of the whole file would hold
 * its records to; 0 for the first part.
 */
struct kmt_po_part {
	uint64_t start, end;
	enum kmt_po_kind kind;
};

/*
 * Cuts the size bytes of fd into at most max parts of about equal size.
 * Returns how many (1: the file is read whole, when it is small, has no
 * blank lines to cut at, or its first megabyte holds no usable record).
 */
int kmt_po_plan_parts(int fd, uint64_t size, struct kmt_po_part *parts,
		      int max);

/*
 * Reads one part with pread (the descriptor may be shared by readers in
 * other threads).  Line numbers count from the part's start.
 */
int kmt_po_read_part(struct kmt_po_reader *r, int fd,
		     const struct kmt_po_part *part, const char *display);

/*
 * Parses one record's text (lines without the blank line after them).
 * Returns 0 and fills rec, or -EINVAL with why set to the reason.
 * Pointers in rec point into text, or into the reader's copies.
 */
int kmt_po_parse_record(struct kmt_po_reader *r, const char *text,
			size_t len, uint64_t line, struct kmt_po_record *rec,
			const char **why);

/*
 * What the first bytes of an input are, as far as page_owner goes, so
 * that each command can point to the one that reads it.
 */
enum kmt_po_sniff {
	KMT_PO_SNIFF_NONE,
	KMT_PO_SNIFF_DUMP,	/* page_owner or page_owner_stacks records */
	/*
	 * page_owner_sort's output (or kmemtrace pageowner's): groups
	 * headed "N times:" (3.19) or "N times, M pages...", whose records
	 * lost their timestamps and PFN lines and cannot be grouped again
	 */
	KMT_PO_SNIFF_SORTED,
};

enum kmt_po_sniff kmt_po_sniff(const void *head, size_t len);

/* the name of a frame line: " foo+0x1a/0x30 [mod]" -> "foo" */
struct kmt_po_str kmt_po_frame_function(const char *line, size_t len);

#endif
