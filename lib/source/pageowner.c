// SPDX-License-Identifier: GPL-2.0
/*
 * page_owner text, parsed by hand: one pass over each line, numbers read
 * digit by digit, no regular expressions and no copy of a record unless
 * its frames are not contiguous.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/pageowner.h"
#include "util/array.h"
#include "util/strbuf.h"

#define ALLOC_PREFIX "Page allocated via order "
#define ALLOC_PREFIX_LEN (sizeof(ALLOC_PREFIX) - 1)
#define READ_CHUNK (1024 * 1024)

int kmt_po_reader_init(struct kmt_po_reader *r, kmt_po_record_fn on_record,
		       kmt_po_malformed_fn on_malformed, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->on_record = on_record;
	r->on_malformed = on_malformed;
	r->ctx = ctx;
	r->line = 1;
	return 0;
}

void kmt_po_reader_free(struct kmt_po_reader *r)
{
	free(r->buf);
	kmt_sb_release(&r->stack_copy);
	kmt_sb_release(&r->tail_copy);
	r->buf = NULL;
	r->alloc = r->len = r->pos = 0;
}

/* --- small scanners over [p, end) --- */

static int eat(const char **p, const char *end, const char *lit, size_t n)
{
	if ((size_t)(end - *p) < n || memcmp(*p, lit, n))
		return 0;
	*p += n;
	return 1;
}

#define EAT(p, end, lit) eat(p, end, lit, sizeof(lit) - 1)

static int eat_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || *s < '0' || *s > '9')
		return 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return 0;
		x = x * 10 + d;
	}
	*v = x;
	*p = s;
	return 1;
}

/* "0x1a2b" or "0" (the kernel's %#x of zero may lack the prefix) */
static int eat_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end && kmt_hexval(*s) >= 0; s++, n++) {
		if (x >> 60)
			return 0;
		x = (x << 4) | (uint64_t)kmt_hexval(*s);
	}
	if (!n)
		return 0;
	*v = x;
	*p = s;
	return 1;
}

static int eat_s32(const char **p, const char *end, int32_t *v)
{
	const char *s = *p;
	uint64_t x;
	int neg = 0;

	if (s < end && *s == '-') {
		neg = 1;
		s++;
	}
	if (!eat_u64(&s, end, &x) || x > 0x7fffffffULL)
		return 0;
	*v = neg ? -(int32_t)x : (int32_t)x;
	*p = s;
	return 1;
}

/* a word up to the next blank */
static int eat_word(const char **p, const char *end, struct kmt_po_str *w)
{
	const char *s = *p;

	while (s < end && *s != ' ')
		s++;
	if (s == *p)
		return 0;
	w->s = *p;
	w->len = (size_t)(s - *p);
	*p = s;
	return 1;
}

/* the last occurrence of lit in [p, end), or NULL */
static const char *find_last(const char *p, const char *end, const char *lit,
			     size_t n)
{
	const char *s;

	if ((size_t)(end - p) < n)
		return NULL;
	for (s = end - n; s >= p; s--) {
		if (*s == *lit && !memcmp(s, lit, n))
			return s;
	}
	return NULL;
}

/*
 * Page allocated via order %u, mask %#x(%pGg)[, pid %d][, tgid %d][ (%s)]
 *	[, ts %llu ns][, free_ts %llu ns]
 * Every optional part came and went with kernel versions; they are read
 * in any order, and text after them is tolerated for kernels to come.
 */
static const char *parse_alloc(const char *line, size_t len,
			       struct kmt_po_record *rec)
{
	const char *p = line + ALLOC_PREFIX_LEN, *end = line + len;
	uint64_t v;

	rec->alloc.s = line;
	rec->alloc.len = len;
	if (!eat_u64(&p, end, &v) || v > 63)
		return "no page order in the allocation line";
	rec->order = (unsigned int)v;
	if (!EAT(&p, end, ", mask ") || !eat_hex(&p, end, &v) ||
	    v > 0xffffffffULL)
		return "no gfp mask in the allocation line";
	rec->gfp_mask = (uint32_t)v;
	if (p < end && *p == '(') {
		const char *close = memchr(p, ')', (size_t)(end - p));

		if (!close)
			return "unterminated gfp flag names";
		rec->gfp_names.s = p + 1;
		rec->gfp_names.len = (size_t)(close - p - 1);
		p = close + 1;
	}
	rec->pid = rec->tgid = -1;
	while (p < end) {
		const char *start;

		if (EAT(&p, end, ", pid ")) {
			if (!eat_s32(&p, end, &rec->pid))
				return "bad pid in the allocation line";
			rec->has_pid = 1;
		} else if (EAT(&p, end, ", tgid ")) {
			if (!eat_s32(&p, end, &rec->tgid))
				return "bad tgid in the allocation line";
			rec->has_tgid = 1;
		} else if (EAT(&p, end, " (")) {
			/*
			 * A task name may hold blanks and parentheses: it
			 * ends at the last "), ts " (or the last ')').
			 */
			const char *close = find_last(p, end, "), ts ", 6);

			if (!close)
				close = find_last(p, end, ")", 1);
			if (!close)
				return "unterminated task name";
			rec->comm.s = p;
			rec->comm.len = (size_t)(close - p);
			rec->has_comm = 1;
			p = close + 1;
		} else if (EAT(&p, end, ", ts ")) {
			start = p;
			if (!eat_u64(&p, end, &rec->ts) || !EAT(&p, end, " ns"))
				return "bad timestamp in the allocation line";
			rec->ts_off = (uint32_t)(start - line);
			rec->ts_len = (uint32_t)(p - 3 - start);
			rec->has_ts = 1;
		} else if (EAT(&p, end, ", free_ts ")) {
			start = p;
			if (!eat_u64(&p, end, &rec->free_ts) ||
			    !EAT(&p, end, " ns"))
				return "bad free timestamp in the allocation line";
			rec->free_ts_off = (uint32_t)(start - line);
			rec->free_ts_len = (uint32_t)(p - 3 - start);
			rec->has_free_ts = 1;
		} else {
			break;
		}
	}
	return NULL;
}

/*
 * 3.19 to 4.5: PFN %lu Block %lu type %d %s Flags %s x 12, where the
 * number is the pageblock's migratetype (numbered as that kernel numbers
 * them: the order changed in 4.4), %s is "Fallback" when the page's own
 * type differs from it (eight blanks otherwise), and the flags are one
 * letter or blank each: K E R U D L A S W C B M.
 */
static const char *parse_pfn_old(const char *p, const char *end,
				 struct kmt_po_record *rec)
{
	uint64_t block;

	if (!eat_u64(&p, end, &block) || !EAT(&p, end, " type ") ||
	    !eat_word(&p, end, &rec->block_mt))
		return "bad PFN line";
	rec->has_pfn = 1;
	rec->mt_number = 1;
	rec->page_mt = rec->block_mt;
	while (p < end && *p == ' ')
		p++;
	if (EAT(&p, end, "Fallback")) {
		rec->page_mt.s = p - 8;
		rec->page_mt.len = 8;
		while (p < end && *p == ' ')
			p++;
	}
	/* the flags may begin with blanks: their places count */
	if (EAT(&p, end, "Flags ") && end - p >= 8 && p[7] == 'S')
		rec->flag_slab = 1;
	return NULL;
}

/* PFN %lu|0x%lx type %s Block %lu type %s Flags [%#lx](%pGp) */
static const char *parse_pfn(const char *line, size_t len,
			     struct kmt_po_record *rec)
{
	const char *p = line + 4, *end = line + len, *open, *close;
	uint64_t block;

	if (end - p >= 2 && p[0] == '0' && p[1] == 'x') {
		if (!eat_hex(&p, end, &rec->pfn))
			return "bad PFN";
		rec->pfn_hex = 1;
	} else if (!eat_u64(&p, end, &rec->pfn)) {
		return "bad PFN";
	}
	if (EAT(&p, end, " Block "))
		return parse_pfn_old(p, end, rec);
	if (!EAT(&p, end, " type ") || !eat_word(&p, end, &rec->page_mt) ||
	    !EAT(&p, end, " Block ") || !eat_u64(&p, end, &block) ||
	    !EAT(&p, end, " type ") || !eat_word(&p, end, &rec->block_mt))
		return "bad PFN line";
	rec->has_pfn = 1;
	if (!EAT(&p, end, " Flags "))
		return NULL;
	open = memchr(p, '(', (size_t)(end - p));
	close = open ? memchr(open, ')', (size_t)(end - open)) : NULL;
	if (!close)
		return NULL;
	/* only whole names count: "slab", not "slab_pfmemalloc" */
	for (p = open + 1; p < close;) {
		const char *bar = memchr(p, '|', (size_t)(close - p));

		if (!bar)
			bar = close;
		if (bar - p == 4 && !memcmp(p, "slab", 4))
			rec->flag_slab = 1;
		p = bar + 1;
	}
	return NULL;
}

/* Charged [(via objcg) ]to [offline ]memcg NAME */
static void parse_memcg(const char *line, size_t len,
			struct kmt_po_record *rec)
{
	const char *p = line + 8, *end = line + len;

	if (EAT(&p, end, "(via objcg) "))
		rec->memcg_kmem = 1;
	if (!EAT(&p, end, "to "))
		return;
	if (EAT(&p, end, "offline "))
		rec->memcg_offline = 1;
	if (!EAT(&p, end, "memcg "))
		return;
	rec->memcg.s = p;
	rec->memcg.len = (size_t)(end - p);
}

static int is_frame(const char *line, size_t len)
{
	return len > 1 && (line[0] == ' ' || line[0] == '\t');
}

static void add_frame(struct kmt_po_reader *r, struct kmt_po_record *rec,
		      const char *line, size_t len)
{
	/* len counts the newline, when the line has one */
	if (!rec->nr_frames++) {
		rec->stack.s = line;
		rec->stack.len = len;
		return;
	}
	if (rec->stack.s != r->stack_copy.buf &&
	    rec->stack.s + rec->stack.len == line) {
		rec->stack.len += len;
		return;
	}
	/* frames interrupted by another line: gather them */
	if (rec->stack.s != r->stack_copy.buf) {
		kmt_sb_reset(&r->stack_copy);
		kmt_sb_add(&r->stack_copy, rec->stack.s, rec->stack.len);
	}
	kmt_sb_add(&r->stack_copy, line, len);
	rec->stack.s = r->stack_copy.buf;
	rec->stack.len = r->stack_copy.len;
}

static void add_tail(struct kmt_po_reader *r, struct kmt_po_record *rec,
		     const char *line, size_t len)
{
	if (!rec->tail.len) {
		rec->tail.s = line;
		rec->tail.len = len;
		return;
	}
	if (rec->tail.s != r->tail_copy.buf &&
	    rec->tail.s + rec->tail.len == line) {
		rec->tail.len += len;
		return;
	}
	if (rec->tail.s != r->tail_copy.buf) {
		kmt_sb_reset(&r->tail_copy);
		kmt_sb_add(&r->tail_copy, rec->tail.s, rec->tail.len);
	}
	kmt_sb_add(&r->tail_copy, line, len);
	rec->tail.s = r->tail_copy.buf;
	rec->tail.len = r->tail_copy.len;
}

static const char *parse_stacks_line(const char *line, size_t n,
				     struct kmt_po_record *rec)
{
	const char *p = line, *end = line + n;
	uint64_t v;

	if (EAT(&p, end, "nr_base_pages: ") || EAT(&p, end, "stack_count: ")) {
		if (!eat_u64(&p, end, &v))
			return "bad page count";
		rec->nr_base_pages = v;
		rec->has_pages = 1;
		return NULL;
	}
	if (EAT(&p, end, "handle: ")) {
		int32_t h;

		if (!eat_s32(&p, end, &h))
			return "bad stack handle";
		rec->handle = h;
		rec->has_handle = 1;
		return NULL;
	}
	return "unexpected line in a page_owner_stacks record";
}

static void record_start(struct kmt_po_record *rec, uint64_t line)
{
	memset(rec, 0, sizeof(*rec));
	rec->line = line;
	rec->pid = rec->tgid = -1;
}

/* one line of a record: full counts its newline, n does not */
static const char *parse_line(struct kmt_po_reader *r,
			      struct kmt_po_record *rec, const char *p,
			      size_t n, size_t full)
{
	/* a carriage return is not part of any field */
	if (n && p[n - 1] == '\r')
		n--;
	if (!rec->kind) {
		if (n >= ALLOC_PREFIX_LEN && !memcmp(p, ALLOC_PREFIX, ALLOC_PREFIX_LEN)) {
			rec->kind = KMT_PO_PAGE;
			return parse_alloc(p, n, rec);
		}
		rec->kind = KMT_PO_STACKS;
		if (is_frame(p, n)) {
			add_frame(r, rec, p, full);
			return NULL;
		}
		if (!parse_stacks_line(p, n, rec))
			return NULL;
		return "not a page_owner record (it should start with 'Page allocated via order')";
	}
	if (is_frame(p, n)) {
		add_frame(r, rec, p, full);
		return NULL;
	}
	if (rec->kind == KMT_PO_STACKS)
		return parse_stacks_line(p, n, rec);
	if (n >= 4 && !memcmp(p, "PFN ", 4))
		return parse_pfn(p, n, rec);
	if (n > 44 && !memcmp(p, "Page has been migrated, last migrate reason: ", 45)) {
		rec->migrate_reason.s = p + 45;
		rec->migrate_reason.len = n - 45;
	} else if (n == 15 && !memcmp(p, "Slab cache page", 15)) {
		rec->slab_cache = 1;
	} else if (n > 8 && !memcmp(p, "Charged ", 8)) {
		parse_memcg(p, n, rec);
	}
	add_tail(r, rec, p, full);
	return NULL;
}

static const char *record_end(const struct kmt_po_record *rec)
{
	if (!rec->kind)
		return "empty record";
	if (rec->kind == KMT_PO_STACKS && !rec->nr_frames && !rec->has_handle)
		return "page_owner_stacks record without frames";
	return NULL;
}

int kmt_po_parse_record(struct kmt_po_reader *r, const char *text,
			size_t len, uint64_t line, struct kmt_po_record *rec,
			const char **why)
{
	const char *p = text, *end = text + len;

	record_start(rec, line);
	*why = NULL;
	while (p < end && !*why) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t full = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		*why = parse_line(r, rec, p, nl ? full - 1 : full, full);
		p += full;
	}
	if (!*why)
		*why = record_end(rec);
	return *why ? -EINVAL : 0;
}

struct kmt_po_str kmt_po_frame_function(const char *line, size_t len)
{
	const char *p = line, *end = line + len, *s;
	struct kmt_po_str f;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	/* some kernels print "[<ffffffff8123>] name+0x1/0x2" */
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (close) {
			p = close + 1;
			while (p < end && *p == ' ')
				p++;
		}
	}
	for (s = p; s < end && *s != '+' && *s != ' ' && *s != '\n' &&
		    *s != '\r'; s++)
		;
	f.s = p;
	f.len = (size_t)(s - p);
	return f;
}

/* "N times:" or "N times, " at the start of [p, end) */
static int is_sorted_head(const char *p, const char *end)
{
	uint64_t n;

	return eat_u64(&p, end, &n) && EAT(&p, end, " times") && p < end &&
	       (*p == ':' || *p == ',');
}

enum kmt_po_sniff kmt_po_sniff(const void *head, size_t len)
{
	const char *p = head, *end = p + len, *nl;

	while (p < end && (*p == '\n' || *p == '\r'))
		p++;
	if (p == end)
		return KMT_PO_SNIFF_NONE;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		nl = end;
	if (is_sorted_head(p, nl))
		return KMT_PO_SNIFF_SORTED;
	if ((size_t)(nl - p) >= ALLOC_PREFIX_LEN &&
	    !memcmp(p, ALLOC_PREFIX, ALLOC_PREFIX_LEN))
		return KMT_PO_SNIFF_DUMP;
	/* show_stacks: frames, then the count of the first stack */
	if (is_frame(p, (size_t)(nl - p)) &&
	    (memmem(p, (size_t)(end - p), "\nnr_base_pages: ", 16) ||
	     memmem(p, (size_t)(end - p), "\nstack_count: ", 14)))
		return KMT_PO_SNIFF_DUMP;
	return KMT_PO_SNIFF_NONE;
}

/* --- splitting the stream into records --- */

static int is_blank(const char *p, size_t n)
{
	return n == 0 || (n == 1 && p[0] == '\r');
}

static int emit(struct kmt_po_reader *r, const struct kmt_po_record *rec,
		const char *why)
{
	if (!why)
		why = record_end(rec);
	if (!why && r->kind && rec->kind != r->kind)
		why = rec->kind == KMT_PO_PAGE ?
		      "a page_owner record among page_owner_stacks records" :
		      "a page_owner_stacks record among page_owner records";
	if (why) {
		r->nr_malformed++;
		if (r->on_malformed)
			r->on_malformed(r->ctx, rec->line, why);
		return 0;
	}
	r->kind = rec->kind;
	r->nr_records++;
	return r->on_record ? r->on_record(r->ctx, rec) : 0;
}

/*
 * Drops the lines of an overlong record up to the blank line after it.
 * Returns 1 when that line was reached, 0 when more input is needed.
 */
static int skip_overlong(struct kmt_po_reader *r, int at_eof)
{
	const char *buf = r->buf;
	size_t q = r->pos;

	for (;;) {
		const char *nl = memchr(buf + q, '\n', r->len - q);

		if (!nl) {
			/* a partial line goes too: its end comes later */
			r->skip_partial = q < r->len;
			r->pos = r->len;
			if (at_eof)
				r->skipping = r->skip_partial = 0;
			return at_eof;
		}
		if (!r->skip_partial && is_blank(buf + q, (size_t)(nl - buf - q))) {
			r->skipping = 0;
			r->pos = q;
			return 1;
		}
		r->skip_partial = 0;
		q = (size_t)(nl - buf) + 1;
		r->line++;
	}
}

/*
 * Parses the complete records in buf[pos, len).  At the end of the input
 * (at_eof) what is left is a record too.
 */
static int process(struct kmt_po_reader *r, int at_eof)
{
	const char *buf = r->buf;

	for (;;) {
		struct kmt_po_record rec;
		const char *why;
		size_t start, q;
		uint64_t lines = 0, first_line;
		int complete = 0, ret;

		if (r->skipping && !skip_overlong(r, at_eof))
			return 0;
		/* blank lines between records */
		for (q = r->pos; q < r->len;) {
			const char *nl = memchr(buf + q, '\n', r->len - q);

			if (!nl || !is_blank(buf + q, (size_t)(nl - buf - q)))
				break;
			q = (size_t)(nl - buf) + 1;
			r->line++;
		}
		r->pos = start = q;
		first_line = r->line;
		if (start >= r->len)
			return 0;
		/* lines are parsed as they are found: one pass over the text */
		record_start(&rec, first_line);
		why = NULL;
		for (;;) {
			const char *nl = memchr(buf + q, '\n', r->len - q);
			size_t n;

			if (!nl) {
				/* the end comes without a newline only at EOF */
				if (at_eof)
					complete = 1;
				break;
			}
			n = (size_t)(nl - buf - q);
			if (is_blank(buf + q, n)) {
				complete = 1;
				break;
			}
			/* a new record without the blank line before it */
			if (q > start && n >= ALLOC_PREFIX_LEN && buf[q] == 'P' &&
			    !memcmp(buf + q, ALLOC_PREFIX, ALLOC_PREFIX_LEN)) {
				complete = 1;
				break;
			}
			if (!why && q - start <= KMT_PO_MAX_RECORD)
				why = parse_line(r, &rec, buf + q, n, n + 1);
			q = (size_t)(nl - buf) + 1;
			lines++;
		}
		if ((complete ? q : r->len) - start > KMT_PO_MAX_RECORD) {
			r->nr_malformed++;
			if (r->on_malformed)
				r->on_malformed(r->ctx, first_line,
						"record longer than 1 MiB");
			r->line += lines;
			r->pos = q;
			if (!complete) {
				r->skipping = 1;
				r->skip_partial = 0;
			}
			continue;
		}
		if (!complete)
			return 0;
		r->pos = q;
		r->line += lines;
		ret = emit(r, &rec, why);
		if (ret)
			return ret;
	}
}

/* drops the parsed bytes and makes room for at least need more */
static int make_room(struct kmt_po_reader *r, size_t need)
{
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	if (r->alloc - r->len < need &&
	    KMT_ARRAY_GROW(r->buf, r->len + need, r->alloc)) {
		snprintf(r->errmsg, sizeof(r->errmsg), "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int kmt_po_feed(struct kmt_po_reader *r, const void *data, size_t len)
{
	int ret = make_room(r, len + 1);

	if (ret)
		return ret;
	memcpy(r->buf + r->len, data, len);
	r->len += len;
	r->nr_bytes += len;
	return process(r, 0);
}

int kmt_po_finish(struct kmt_po_reader *r)
{
	int ret;

	if (r->pos >= r->len)
		return 0;
	/* a last line without its newline reads like any other */
	if (r->buf[r->len - 1] != '\n') {
		ret = make_room(r, 1);
		if (ret)
			return ret;
		r->buf[r->len++] = '\n';
	}
	return process(r, 1);
}

/*
 * Reads fd to its end, or [*off, end) with pread when off is not NULL
 * (so that readers of parts of one file can share its descriptor).
 */
static int read_some(struct kmt_po_reader *r, int fd, uint64_t *off,
		     uint64_t end, int finish, const char *display)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t want = READ_CHUNK;
	int ret;

	if (page > 0 && (size_t)page > want)
		want = (size_t)page;
	for (;;) {
		size_t room;
		ssize_t n;

		ret = make_room(r, want);
		if (ret)
			return ret;
		room = r->alloc - r->len;
		if (off && end - *off < room)
			room = (size_t)(end - *off);
		if (off && !room)
			break;
		do {
			n = off ? pread(fd, r->buf + r->len, room, (off_t)*off) :
			      read(fd, r->buf + r->len, room);
		} while (n < 0 && errno == EINTR);
		if (n < 0) {
			int err = errno;

			if (err == EINVAL && !r->nr_bytes)
				snprintf(r->errmsg, sizeof(r->errmsg),
					 "cannot read '%s': %s (is page_owner enabled? boot with page_owner=on)",
					 display, strerror(err));
			else
				snprintf(r->errmsg, sizeof(r->errmsg),
					 "cannot read '%s': %s", display,
					 strerror(err));
			return -err;
		}
		if (n == 0)
			break;
		if (off)
			*off += (uint64_t)n;
		r->len += (size_t)n;
		r->nr_bytes += (uint64_t)n;
		ret = process(r, 0);
		if (ret)
			return ret;
	}
	return finish ? kmt_po_finish(r) : 0;
}

int kmt_po_read_fd(struct kmt_po_reader *r, int fd, const char *display)
{
	return read_some(r, fd, NULL, 0, 1, display);
}

int kmt_po_read_part(struct kmt_po_reader *r, int fd,
		     const struct kmt_po_part *part, const char *display)
{
	uint64_t off = part->start;

	if (part->kind)
		r->kind = part->kind;
	return read_some(r, fd, &off, part->end, 1, display);
}

/* --- cutting a file into parts --- */

#define SNIFF_BYTES (1024 * 1024)
#define CUT_WINDOW (64 * 1024)
#define CUT_SEARCH (8 * 1024 * 1024)

/*
 * The kind of the first usable record, as a reader from the start of the
 * file would fix it; 0 when the head holds none (or reading fails).
 */
static enum kmt_po_kind sniff_kind(int fd, uint64_t size)
{
	struct kmt_po_reader r;
	struct kmt_po_part head = { 0, size < SNIFF_BYTES ? size : SNIFF_BYTES, 0 };
	enum kmt_po_kind kind;

	kmt_po_reader_init(&r, NULL, NULL, NULL);
	/* a record cut at the end of the head is left unparsed */
	read_some(&r, fd, &head.start, head.end, head.end == size, "");
	kind = r.kind;
	kmt_po_reader_free(&r);
	return kind;
}

/* the offset just after the first blank line at or after from; 0 if none near */
static uint64_t find_cut(int fd, uint64_t from, uint64_t size, char *buf)
{
	uint64_t off = from ? from - 1 : 0, limit = from + CUT_SEARCH;

	while (off < size && off < limit) {
		size_t want = size - off < CUT_WINDOW ? (size_t)(size - off) :
			      CUT_WINDOW;
		ssize_t n, i;

		do {
			n = pread(fd, buf, want, (off_t)off);
		} while (n < 0 && errno == EINTR);
		if (n <= 1)
			return 0;
		for (i = 0; i + 1 < n; i++) {
			if (buf[i] == '\n' && buf[i + 1] == '\n')
				return off + (uint64_t)i + 2;
		}
		/* the last byte may start the next window's pair */
		off += (uint64_t)n - 1;
	}
	return 0;
}

int kmt_po_plan_parts(int fd, uint64_t size, struct kmt_po_part *parts,
		      int max)
{
	enum kmt_po_kind kind;
	char *buf;
	int n = 1, k;

	parts[0].start = 0;
	parts[0].end = size;
	parts[0].kind = 0;
	if (max < 2 || size < 2)
		return 1;
	kind = sniff_kind(fd, size);
	if (!kind)
		return 1;
	buf = malloc(CUT_WINDOW);
	if (!buf)
		return 1;
	for (k = 1; k < max; k++) {
		uint64_t cut = find_cut(fd, size / (uint64_t)max * (uint64_t)k,
					size, buf);

		if (!cut || cut <= parts[n - 1].start || cut >= size)
			continue;
		parts[n - 1].end = cut;
		parts[n].start = cut;
		parts[n].end = size;
		parts[n].kind = kind;
		n++;
	}
	free(buf);
	return n;
}
