// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace text reader: tracefs `trace` and `trace_pipe` output (with or
 * without the irq-info and tgid columns, with options/fields or
 * options/latency-format, events in function_graph output), `trace-cmd
 * report` output (-l too) and `perf script` output of kmem events, from
 * 2.6.32 to today's kernels.  The input streams through one big buffer,
 * line by line, with no allocation per line.
 *
 * Text is already merged by time.  Stacks follow their event: ftrace
 * writes a "<stack trace>" entry on the same CPU right after the event
 * that triggered it (other CPUs' lines may come between), perf prints the
 * call chain under its sample.  So events wait in a small queue, in input
 * order, until their CPU shows its next line (their stack or not) or they
 * are too old for a stack to come; the queue is passed on in order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/session.h"
#include "source/source.h"
#include "source/text.h"
#include "util/array.h"
#include "util/strbuf.h"

#define TEXT_BUF	(1U << 20)	/* longest line: longer ones are skipped */
#define TEXT_BUF_FIRST	(1U << 16)	/* grown to TEXT_BUF as lines need */
/*
 * A kernel stack of 16 KiB holds fewer than 2048 frames; a chain this
 * long is no kernel's, and keeps its innermost frames
 */
#define TEXT_MAX_STACK	65536
#define TEXT_MAX_QUEUE	65536		/* events waiting for a stack */
/* a stack comes microseconds after its event; after this, none will */
#define TEXT_STACK_WAIT	10000000ULL

/* --- one line --- */

static int is_space(int c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int starts(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) >= n && !memcmp(p, word, n);
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && is_space(*p))
		p++;
	return p;
}

/* decimal digits [p, end) to *v; 0 on success */
static int parse_dec(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;

	if (p == end)
		return -1;
	for (; p < end; p++) {
		if (!is_digit(*p) || x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return 0;
}

/* hex digits, with or without 0x */
static int parse_hex(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	int d;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p == end || end - p > 16)
		return -1;
	for (; p < end; p++) {
		d = kmt_hexval(*p);
		if (d < 0)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

static int parse_int(const char *p, const char *end, int32_t *v)
{
	uint64_t x;
	int neg = p < end && *p == '-';

	/* options/fields prints an int as its 32 bits: "0xffffffff (-1)" */
	if (end - p > 2 && p[0] == '0' && p[1] == 'x') {
		if (parse_hex(p, end, &x) || x > 0xffffffffULL)
			return -1;
		*v = (int32_t)(uint32_t)x;
		return 0;
	}
	if (parse_dec(p + neg, end, &x) || x > 0x7fffffffULL + neg)
		return -1;
	*v = neg ? (int32_t)-(int64_t)x : (int32_t)x;
	return 0;
}

/* "0x1a2b" today, decimal before 4.x */
static int parse_num(const char *p, const char *end, uint64_t *v)
{
	if (end - p > 2 && p[0] == '0' && p[1] == 'x')
		return parse_hex(p, end, v);
	return parse_dec(p, end, v);
}

static int is_null_ptr(const char *p, const char *end)
{
	if (starts(p, end, "(null)") || starts(p, end, "(nil)"))
		return 1;
	if (end - p > 2 && p[0] == '0' && p[1] == 'x')
		p += 2;
	if (p == end)
		return 0;
	for (; p < end; p++) {
		if (*p != '0')
			return 0;
	}
	return 1;
}

static int parse_ptr(const char *p, const char *end, uint64_t *v)
{
	if (is_null_ptr(p, end)) {
		*v = 0;
		return 0;
	}
	return parse_hex(p, end, v);
}

static int parse_bool(const char *p, const char *end, int *v)
{
	int32_t i;
	size_t n;

	/* options/fields prints a one-byte field as "(0)" */
	if (end - p == 3 && p[0] == '(' && p[2] == ')') {
		p++;
		end--;
	}
	n = end - p;
	if (n == 4 && !memcmp(p, "true", 4))
		*v = 1;
	else if (n == 5 && !memcmp(p, "false", 5))
		*v = 0;
	else if (parse_int(p, end, &i))	/* "1", options/fields' "0x1" */
		return -1;
	else
		*v = !!i;
	return 0;
}

/* "5678.123456" (6 or 9 decimals) to ns; clocks without a point as is */
static int parse_ts(const char *p, const char *end, uint64_t *ns)
{
	const char *dot = memchr(p, '.', end - p);
	uint64_t sec, frac = 0;
	int digits = 0;

	if (!dot)
		return parse_dec(p, end, ns);
	if (parse_dec(p, dot, &sec) || sec > UINT64_MAX / 1000000000ULL)
		return -1;
	for (p = dot + 1; p < end; p++) {
		if (!is_digit(*p))
			return -1;
		if (digits < 9) {
			frac = frac * 10 + (uint64_t)(*p - '0');
			digits++;
		}
	}
	if (!digits)
		return -1;
	while (digits++ < 9)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

enum text_field {
	TF_CALL_SITE, TF_PTR, TF_NAME, TF_BYTES_REQ, TF_BYTES_ALLOC, TF_GFP,
	TF_NODE, TF_ACCOUNTED, TF_PFN, TF_PAGE, TF_ORDER, TF_MT, TF_REFILL,
	TF_FALLBACK_ORDER, TF_FALLBACK_MT, TF_FRAGMENTING, TF_CHANGE_OWNER,
	/* percpu and vmalloc */
	TF_SIZE, TF_BASE_ADDR, TF_VA_START, TF_FAILED, TF_START, TF_END,
	TF_NR_PURGED,
};

#define TF(f)	(1U << (f))

/*
 * The fields of every kmem event, by name, in the order the formats print
 * them (a line's fields are looked for from the one after the last
 * found); unknown names are skipped.
 */
#define TEXT_FIELD(key, id)	{ key, sizeof(key) - 1, id, "bad " key "=" }
static const struct {
	const char *key;
	unsigned char len;
	unsigned char id;
	const char *why;	/* when the value does not parse */
} text_fields[] = {
	TEXT_FIELD("call_site", TF_CALL_SITE),
	TEXT_FIELD("ptr", TF_PTR),
	TEXT_FIELD("name", TF_NAME),
	TEXT_FIELD("bytes_req", TF_BYTES_REQ),
	TEXT_FIELD("bytes_alloc", TF_BYTES_ALLOC),
	TEXT_FIELD("gfp_flags", TF_GFP),
	TEXT_FIELD("node", TF_NODE),
	TEXT_FIELD("accounted", TF_ACCOUNTED),
	TEXT_FIELD("page", TF_PAGE),
	TEXT_FIELD("pfn", TF_PFN),
	TEXT_FIELD("order", TF_ORDER),
	TEXT_FIELD("alloc_order", TF_ORDER),
	TEXT_FIELD("fallback_order", TF_FALLBACK_ORDER),
	TEXT_FIELD("migratetype", TF_MT),
	TEXT_FIELD("alloc_migratetype", TF_MT),
	TEXT_FIELD("fallback_migratetype", TF_FALLBACK_MT),
	TEXT_FIELD("percpu_refill", TF_REFILL),
	TEXT_FIELD("fragmenting", TF_FRAGMENTING),
	TEXT_FIELD("change_ownership", TF_CHANGE_OWNER),
	/*
	 * After kmem's, which never print these: a kmem line's search
	 * does not pass them.  alloc_vmap_area prints "va_start: N" in
	 * decimal, options/fields its field "addr"; purge_vmap_area_lazy
	 * prints "num_purged=", options/fields "npurged".
	 */
	TEXT_FIELD("size", TF_SIZE),
	TEXT_FIELD("base_addr", TF_BASE_ADDR),
	TEXT_FIELD("va_start", TF_VA_START),
	TEXT_FIELD("addr", TF_VA_START),
	TEXT_FIELD("failed", TF_FAILED),
	TEXT_FIELD("start", TF_START),
	TEXT_FIELD("end", TF_END),
	TEXT_FIELD("num_purged", TF_NR_PURGED),
	TEXT_FIELD("npurged", TF_NR_PURGED),
};

#define NR_TEXT_FIELDS (sizeof(text_fields) / sizeof(text_fields[0]))

/*
 * The fields an event cannot be read without: every kernel since the kmem
 * events came (2.6.32) prints them (tests/data/formats has today's
 * formats), and the analyses need them: a kmalloc without bytes_req would
 * read as 0 bytes requested and invent its waste.  A page event's pfn may
 * be its struct page pointer on kernels before pfn= (TF_PFN stands for
 * both).  Others are optional: node (3.x kmalloc has none), accounted,
 * a cache's name (recent kernels only), percpu_refill, fragmenting and
 * change_ownership (computed in the print format, so options/fields has
 * no fragmenting); mm_page_free_batched prints no order of its own.
 */
static const unsigned int text_needs[KMT_EV_NR] = {
	[KMT_EV_KMALLOC]	= TF(TF_CALL_SITE) | TF(TF_PTR) | TF(TF_BYTES_REQ) |
				  TF(TF_BYTES_ALLOC) | TF(TF_GFP),
	[KMT_EV_CACHE_ALLOC]	= TF(TF_CALL_SITE) | TF(TF_PTR) | TF(TF_BYTES_REQ) |
				  TF(TF_BYTES_ALLOC) | TF(TF_GFP),
	[KMT_EV_KFREE]		= TF(TF_CALL_SITE) | TF(TF_PTR),
	[KMT_EV_CACHE_FREE]	= TF(TF_CALL_SITE) | TF(TF_PTR),
	[KMT_EV_PAGE_ALLOC]	= TF(TF_PFN) | TF(TF_ORDER) | TF(TF_MT) | TF(TF_GFP),
	[KMT_EV_PAGE_FREE]	= TF(TF_PFN) | TF(TF_ORDER),
	[KMT_EV_PAGE_FREE_BATCHED] = TF(TF_PFN),
	[KMT_EV_PAGE_ZONE_LOCKED] = TF(TF_PFN) | TF(TF_ORDER) | TF(TF_MT),
	[KMT_EV_PCPU_DRAIN]	= TF(TF_PFN) | TF(TF_ORDER) | TF(TF_MT),
	[KMT_EV_EXTFRAG]	= TF(TF_PFN) | TF(TF_ORDER) | TF(TF_FALLBACK_ORDER) |
				  TF(TF_MT) | TF(TF_FALLBACK_MT),
	/*
	 * percpu_alloc_percpu has had ptr and size since 3.18; call_site,
	 * bytes_alloc and gfp_flags came in 5.19 and are optional (the
	 * analysis says "not recorded" for them)
	 */
	[KMT_EV_PERCPU_ALLOC]	= TF(TF_PTR) | TF(TF_SIZE),
	[KMT_EV_PERCPU_FREE]	= TF(TF_PTR),
	[KMT_EV_PERCPU_FAIL]	= TF(TF_SIZE),
	[KMT_EV_PERCPU_CHUNK_NEW] = TF(TF_BASE_ADDR),
	[KMT_EV_PERCPU_CHUNK_DEL] = TF(TF_BASE_ADDR),
	[KMT_EV_VMAP_ALLOC]	= TF(TF_VA_START) | TF(TF_SIZE) | TF(TF_FAILED),
	[KMT_EV_VMAP_FREE]	= TF(TF_VA_START),
	[KMT_EV_VMAP_PURGE]	= TF(TF_START) | TF(TF_END) | TF(TF_NR_PURGED),
};

/* the name a missing field goes by in type's format */
static const char *field_key(unsigned int type, unsigned int id)
{
	size_t i;

	if (type == KMT_EV_EXTFRAG && id == TF_ORDER)
		return "alloc_order";
	if (type == KMT_EV_EXTFRAG && id == TF_MT)
		return "alloc_migratetype";
	for (i = 0; i < NR_TEXT_FIELDS; i++)
		if (text_fields[i].id == id)
			return text_fields[i].key;
	return "?";
}

struct field_state {
	unsigned int have;	/* TF() of the fields read */
	int page_null, pfn_none;
	uint64_t page;
	uint64_t size, base, va_start, start, end;
};

static int set_field(struct kmt_session *s, struct kmt_event *ev,
		     struct field_state *st, unsigned int id,
		     const char *v, const char *end)
{
	int32_t i;
	int b;

	switch (id) {
	case TF_CALL_SITE:
		if (v == end)
			return -1;
		if (s)
			ev->call_site = kmt_symtab_from_text(&s->syms, v, end - v);
		return 0;
	case TF_PTR:
		return parse_ptr(v, end, &ev->ptr);
	case TF_NAME:
		if (s && v < end && !s->no_cache_names)
			ev->cache = kmt_strtab_intern(&s->strs, v, end - v);
		return 0;
	case TF_BYTES_REQ:
		return parse_num(v, end, &ev->bytes_req);
	case TF_BYTES_ALLOC:
		return parse_num(v, end, &ev->bytes_alloc);
	case TF_GFP:
		if (v == end)
			return -1;
		/* old kernels print a number; names are kept as text */
		if (end - v == 4 && !memcmp(v, "none", 4)) {
			ev->gfp = 0;
			ev->flags |= KMT_EVF_HAS_GFP;
		} else if (end - v > 2 && v[0] == '0' && v[1] == 'x') {
			if (parse_hex(v, end, &ev->gfp))
				return -1;
			ev->flags |= KMT_EVF_HAS_GFP;
		} else if (s) {
			ev->gfp_str = kmt_strtab_intern(&s->strs, v, end - v);
		}
		return 0;
	case TF_NODE:
		return parse_int(v, end, &ev->node);
	case TF_ACCOUNTED:
		if (parse_bool(v, end, &b))
			return -1;
		if (b)
			ev->flags |= KMT_EVF_ACCOUNTED;
		return 0;
	case TF_PFN:
		if (parse_num(v, end, &ev->ptr))
			return -1;
		/* options/fields prints the raw field: -1 is no page */
		st->pfn_none = ev->ptr == UINT64_MAX;
		return 0;
	case TF_PAGE:
		st->page_null = is_null_ptr(v, end);
		return st->page_null ? 0 : parse_hex(v, end, &st->page);
	case TF_ORDER:
		return parse_int(v, end, &ev->order);
	case TF_MT:
		return parse_int(v, end, &ev->migratetype);
	case TF_FALLBACK_ORDER:
		return parse_int(v, end, &ev->fallback_order);
	case TF_FALLBACK_MT:
		return parse_int(v, end, &ev->fallback_migratetype);
	case TF_REFILL:
		if (parse_int(v, end, &i))
			return -1;
		ev->flags |= KMT_EVF_HAS_REFILL;
		if (i)
			ev->flags |= KMT_EVF_PERCPU_REFILL;
		return 0;
	case TF_FRAGMENTING:
		if (parse_bool(v, end, &b))
			return -1;
		ev->flags |= KMT_EVF_HAS_FRAGMENTING;
		if (b)
			ev->flags |= KMT_EVF_FRAGMENTING;
		return 0;
	case TF_CHANGE_OWNER:
		if (parse_bool(v, end, &b))
			return -1;
		if (b)
			ev->flags |= KMT_EVF_CHANGE_OWNER;
		return 0;
	case TF_SIZE:
		return parse_num(v, end, &st->size);
	case TF_BASE_ADDR:
		return parse_ptr(v, end, &st->base);
	case TF_VA_START:
		return parse_num(v, end, &st->va_start);
	case TF_FAILED:
		if (parse_int(v, end, &i))
			return -1;
		if (i)
			ev->flags |= KMT_EVF_FAILED;
		return 0;
	case TF_START:
		return parse_num(v, end, &st->start);
	case TF_END:
		return parse_num(v, end, &st->end);
	case TF_NR_PURGED:
		return parse_num(v, end, &ev->bytes_req);
	}
	return 0;
}

/* where percpu's and vmalloc's fields go in an event (event.h) */
static void other_fields_to_event(struct kmt_event *ev,
				  const struct field_state *st)
{
	switch (ev->type) {
	case KMT_EV_PERCPU_ALLOC:
	case KMT_EV_PERCPU_FAIL:
		ev->bytes_req = st->size;
		break;
	case KMT_EV_PERCPU_CHUNK_NEW:
	case KMT_EV_PERCPU_CHUNK_DEL:
		ev->ptr = st->base;
		break;
	case KMT_EV_VMAP_ALLOC:
		ev->bytes_req = ev->bytes_alloc = st->size;
		ev->ptr = st->va_start;
		break;
	case KMT_EV_VMAP_FREE:
		ev->ptr = st->va_start;
		break;
	case KMT_EV_VMAP_PURGE:
		ev->ptr = st->start;
		ev->bytes_alloc = st->end > st->start ? st->end - st->start : 0;
		break;
	}
}

/* the word after [p, end) when it is "(-1)": options/fields' -1 */
static int next_is_minus_one(const char *p, const char *end)
{
	p = skip_space(p, end);
	return end - p >= 4 && !memcmp(p, "(-1)", 4) &&
	       (end - p == 4 || is_space(p[4]));
}

/* the field named [key, key + n), looked for from *next on; -1 none */
static int find_field(const char *key, size_t n, size_t *next)
{
	size_t k, i = *next;

	for (k = 0; k < NR_TEXT_FIELDS; k++) {
		if (text_fields[i].len == n &&
		    !memcmp(text_fields[i].key, key, n)) {
			*next = i + 1 < NR_TEXT_FIELDS ? i + 1 : 0;
			return (int)i;
		}
		if (++i == NR_TEXT_FIELDS)
			i = 0;
	}
	return -1;
}

/* "key=value key=value ...", read by name */
static int parse_fields(struct kmt_session *s, const char *p, const char *end,
			struct kmt_text_line *out)
{
	struct kmt_event *ev = &out->ev;
	struct field_state st = { 0 };
	unsigned int missing, have_pfn;
	size_t next = 0;
	int i;

	if (kmt_ev_is_page(ev->type))
		ev->order = 0;
	while (p < end) {
		const char *tok, *eq, *tend, *v;

		p = skip_space(p, end);
		tok = p;
		while (p < end && !is_space(*p))
			p++;
		tend = p;
		eq = memchr(tok, '=', tend - tok);
		/*
		 * alloc_vmap_area's "va_start: N": the value is the next
		 * word.  trace-cmd's "(func+0x1a)", options/fields' "(4096)"
		 * after its "0x1000", and other words without a value
		 */
		if (!eq && tend - tok > 1 && tend[-1] == ':' &&
		    kmt_ev_is_vmalloc(ev->type)) {
			i = find_field(tok, tend - 1 - tok, &next);
			if (i < 0)
				continue;
			v = skip_space(tend, end);
			for (p = v; p < end && !is_space(*p); p++)
				;
			tend = p;
		} else if (!eq) {
			continue;
		} else {
			i = find_field(tok, eq - tok, &next);
			if (i < 0)
				continue;
			v = eq + 1;
		}
		/*
		 * Kernels before 5.x print a NULL %p as "(null)" padded to a
		 * pointer's width: "ptr=          (null)"
		 */
		if (v == tend) {
			const char *n = skip_space(tend, end);

			if (end - n >= 6 && !memcmp(n, "(null)", 6) &&
			    (end - n == 6 || is_space(n[6]))) {
				v = n;
				p = tend = n + 6;
			}
		}
		if (set_field(s, ev, &st, text_fields[i].id, v, tend)) {
			out->why = text_fields[i].why;
			return -1;
		}
		st.have |= TF(text_fields[i].id);
		/* a 32-bit pfn of -1: "pfn=0xffffffff (-1)" */
		if (text_fields[i].id == TF_PFN && ev->ptr == 0xffffffffULL &&
		    next_is_minus_one(p, end))
			st.pfn_none = 1;
	}
	have_pfn = st.have & TF(TF_PFN);
	if (st.have & TF(TF_PAGE))
		st.have |= TF(TF_PFN);
	missing = text_needs[ev->type] & ~st.have;
	if (missing) {
		out->missing = field_key(ev->type, __builtin_ctz(missing));
		return -1;
	}
	if (__builtin_expect(ev->type >= KMT_EV_PERCPU_ALLOC, 0))
		other_fields_to_event(ev, &st);
	if (kmt_ev_is_page(ev->type)) {
		/* kernels before pfn= print the struct page pointer */
		if (!have_pfn)
			ev->ptr = st.page;
		/*
		 * A failed allocation: a NULL page (and pfn=0) in the print
		 * format, the field's -1 in options/fields
		 */
		if (ev->type == KMT_EV_PAGE_ALLOC &&
		    ((st.have & TF(TF_PAGE) && st.page_null) || st.pfn_none))
			ev->ptr = KMT_PFN_NONE;
	}
	return 0;
}

/* the first "[NNN]" between blanks: the CPU column */
static const char *find_cpu(const char *line, const char *end, int32_t *cpu)
{
	const char *p, *q;

	for (p = line; p < end; p++) {
		if (*p != '[' || (p > line && !is_space(p[-1])))
			continue;
		for (q = p + 1; q < end && is_digit(*q); q++)
			;
		if (q == p + 1 || q >= end || *q != ']' ||
		    (q + 1 < end && !is_space(q[1])))
			continue;
		if (parse_int(p + 1, q, cpu) || *cpu >= KMT_MAX_CPUS)
			continue;
		return p;
	}
	return NULL;
}

/* a word "digits[.digits]:" */
static const char *ts_end(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && (is_digit(*q) || *q == '.'))
		q++;
	if (q == p || q >= end || *q != ':' || !is_digit(*p))
		return NULL;
	return q;
}

/*
 * What comes before the CPU column: "[buffer:] comm-pid [(tgid)]" or perf's
 * "comm pid" / "comm pid/tid".  The comm may hold blanks and dashes, so
 * the pid is found from the right.
 */
static int parse_task(const char *p, const char *end, unsigned int hint,
		      struct kmt_text_line *out)
{
	const char *q, *digits;
	uint64_t v;

	while (end > p && is_space(end[-1]))
		end--;
	if (end > p && end[-1] == ')') {
		const char *open = end - 1;

		while (open > p && *open != '(')
			open--;
		if (*open != '(')
			return -1;
		q = skip_space(open + 1, end - 1);
		if (q < end - 1 && is_digit(*q)) {
			if (parse_dec(q, end - 1, &v) || v > 0x7fffffff)
				return -1;
			out->tgid = (int32_t)v;
		}
		end = open;
		while (end > p && is_space(end[-1]))
			end--;
	}
	digits = end;
	while (digits > p && is_digit(digits[-1]))
		digits--;
	if (digits == end || digits == p)
		return -1;
	if (digits[-1] == '/') {
		/* perf "pid/tid": the thread is what ftrace calls the pid */
		q = digits - 1;
		while (q > p && is_digit(q[-1]))
			q--;
		if (q == digits - 1 || q == p || !is_space(q[-1]))
			return -1;
		if (parse_dec(digits, end, &v) || v > 0x7fffffff)
			return -1;
		out->style = KMT_TEXT_PERF;
		end = q - 1;
	} else {
		if (parse_dec(digits, end, &v) || v > 0x7fffffff)
			return -1;
		if (is_space(digits[-1]))
			out->style = KMT_TEXT_PERF;
		else if (digits[-1] != '-')
			return -1;
		end = digits - 1;
	}
	out->ev.pid = (int32_t)v;
	while (end > p && is_space(end[-1]))
		end--;
	p = skip_space(p, end);
	/* trace-cmd report names the buffer of instance lines: "kmt-td: " */
	q = p;
	while (q < end && !is_space(*q))
		q++;
	if (q > p && q < end && q[-1] == ':' && out->style != KMT_TEXT_PERF &&
	    (hint == KMT_TEXT_REPORT || (end - q > 1 && is_space(q[1])))) {
		out->style = KMT_TEXT_REPORT;
		p = skip_space(q, end);
	}
	if (end - p == 5 && !memcmp(p, "<...>", 5))
		return 0;	/* ftrace lost the comm */
	out->comm = p;
	out->comm_len = end - p;
	return 0;
}

static void line_init(struct kmt_text_line *out)
{
	memset(out, 0, sizeof(*out));
	kmt_event_init(&out->ev);
	out->tgid = -1;
	out->kind = KMT_TEXT_OTHER;
}

/* why of a line whose event prints no "name:" (parse_body) */
static const char no_name[] = "no event name";

static unsigned int bad(struct kmt_text_line *out, const char *why)
{
	out->why = why;
	out->kind = KMT_TEXT_BAD;
	return out->kind;
}

/*
 * What follows the time: "name: fields", perf's "kmem:name: fields",
 * trace-cmd's "kernel_stack:", or a "<stack trace>".
 */
static unsigned int parse_body(struct kmt_session *s, const char *p,
			       const char *end, struct kmt_text_line *out)
{
	const char *name, *colon;
	char tp[64];

	if (starts(p, end, "<stack trace"))
		return out->kind = KMT_TEXT_STACK;
	if (starts(p, end, "<user stack trace"))
		return out->kind = KMT_TEXT_USER_STACK;
	/*
	 * options/fields cannot print the kernel's own entries: a stack
	 * (type 4, TRACE_STACK) comes out as "UNKNOWN TYPE 4", frameless
	 */
	if (starts(p, end, "UNKNOWN TYPE ")) {
		p = skip_space(p + 13, end);
		if (end - p == 1 && *p == '4')
			return out->kind = KMT_TEXT_STACK;
		return out->kind = KMT_TEXT_EVENT;
	}
	/* perf script --show-task-events, --show-mmap-events, ... */
	if (starts(p, end, "PERF_RECORD_"))
		return out->kind = KMT_TEXT_SIDEBAND;
	name = p;
	while (p < end && !is_space(*p))
		p++;
	/* perf script -F +period: the sample's period comes first */
	if (out->style == KMT_TEXT_PERF && p > name && p[-1] != ':' &&
	    is_digit(*name)) {
		name = skip_space(p, end);
		p = name;
		while (p < end && !is_space(*p))
			p++;
	}
	/*
	 * An event that prints no "name:" of its own: ftrace's syscall
	 * events ("sys_clone(clone_flags: 1200011, ...)", "sys_clone ->
	 * 0x16841"), the function tracer's "func <-parent".  Not a kmem
	 * event, unless its word is a kmem event's name: then the line is
	 * damaged.  why says so all the same, for the function graph's
	 * comments, where such text is trace_printk()'s, no event.
	 */
	if (p > name && p[-1] != ':' && (size_t)(p - name) < sizeof(tp)) {
		memcpy(tp, name, (size_t)(p - name));
		tp[p - name] = '\0';
		if (kmt_ev_type_from_tracepoint(tp) == KMT_EV_NONE) {
			out->why = no_name;
			return out->kind = KMT_TEXT_EVENT;
		}
	}
	if (p == name || p[-1] != ':')
		return bad(out, no_name);
	out->name = name;
	out->name_len = p - 1 - name;
	/*
	 * One lookup of the whole name: perf's "system:event" is ours only
	 * under the event's own system ("kmem:kmalloc", "percpu:...")
	 */
	if (out->name_len < sizeof(tp)) {
		memcpy(tp, out->name, out->name_len);
		tp[out->name_len] = '\0';
		out->ev.type = (uint16_t)kmt_ev_type_from_tracepoint(tp);
	}
	colon = memchr(name, ':', out->name_len);
	if (colon) {
		/* perf prints "system:event:"; other systems' are no events of ours */
		out->style = KMT_TEXT_PERF;
		out->kind = KMT_TEXT_EVENT;
		if (out->ev.type == KMT_EV_NONE)
			return out->kind;
		out->name_len -= colon + 1 - name;
		out->name = colon + 1;
	}
	if (out->name_len == 12 && !memcmp(out->name, "kernel_stack", 12)) {
		out->style = KMT_TEXT_REPORT;
		return out->kind = KMT_TEXT_STACK;
	}
	if (out->name_len == 10 && !memcmp(out->name, "user_stack", 10))
		return out->kind = KMT_TEXT_USER_STACK;
	out->kind = KMT_TEXT_EVENT;
	if (out->ev.type != KMT_EV_NONE && parse_fields(s, p, end, out))
		out->kind = KMT_TEXT_BAD;
	return out->kind;
}

/* a latency flag: irqs-off, need-resched, hardirq/softirq, depths */
static int is_lat_flag(int c)
{
	return c == '.' || is_digit(c) || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/*
 * The time after latency columns: trace-cmd report -l's "1047.779809:",
 * options/latency-format's microseconds with a delay mark,
 * "985393553us :" or "985393557us+:".  Returns where the event starts.
 */
static const char *lat_ts(const char *p, const char *end, uint64_t *ns)
{
	const char *q = ts_end(p, end);
	uint64_t us;

	if (q)
		return parse_ts(p, q, ns) ? NULL : q + 1;
	for (q = p; q < end && is_digit(*q); q++)
		;
	if (q == p || !starts(q, end, "us") || parse_dec(p, q, &us) ||
	    us > UINT64_MAX / 1000)
		return NULL;
	q += 2;
	if (q < end && *q != ':')
		q++;		/* the mark: ' ', '+', '!', '#', ... */
	if (q >= end || *q != ':')
		return NULL;
	*ns = us * 1000;
	return q + 1;
}

/*
 * Latency columns: "comm-pid cpu+flags time: event", the CPU and its
 * flags in one word ("1d..1.") before the time, as trace-cmd report -l
 * and tracefs with options/latency-format print them.
 */
static unsigned int parse_latency(struct kmt_session *s, const char *line,
				  const char *end, unsigned int hint,
				  struct kmt_text_line *out)
{
	const char *w = line, *wend, *d, *body = NULL;
	int32_t cpu;

	for (;;) {
		w = skip_space(w, end);
		if (w == end)
			return KMT_TEXT_OTHER;
		for (wend = w; wend < end && !is_space(*wend); wend++)
			;
		for (d = w; d < wend && is_digit(*d); d++)
			;
		/* the first flag is irqs-off: 'd', 'D', 'X' or '.' */
		if (d > w && d - w <= 4 && wend - d >= 3 && !is_digit(*d)) {
			const char *f = d;

			while (f < wend && is_lat_flag(*f))
				f++;
			if (f == wend) {
				body = lat_ts(skip_space(wend, end), end,
					      &out->ev.ts);
				if (body)
					break;
			}
		}
		w = wend;
	}
	if (parse_int(w, d, &cpu) || cpu >= KMT_MAX_CPUS)
		return KMT_TEXT_OTHER;
	out->style = hint == KMT_TEXT_REPORT ? KMT_TEXT_REPORT : KMT_TEXT_FTRACE;
	out->ev.cpu = cpu;
	if (parse_task(line, w, hint, out))
		return KMT_TEXT_OTHER;
	return parse_body(s, skip_space(body, end), end, out);
}

/* "comm-pid" between blanks, as function_graph prints a task */
static int graph_task(const char *p, const char *end, struct kmt_text_line *out)
{
	const char *q;

	while (end > p && is_space(end[-1]))
		end--;
	p = skip_space(p, end);
	q = end;
	while (q > p && is_digit(q[-1]))
		q--;
	if (q == end || q == p || q[-1] != '-')
		return -1;
	return parse_task(p, end, KMT_TEXT_FTRACE, out);
}

/*
 * function_graph output: an event is a C comment after the columns,
 * "[814.229471 |]  0) [bash-1234 |] [d..1.] [|]  COMMENT", those of
 * funcgraph-abstime, the CPU (funcgraph-cpu, on by default),
 * funcgraph-proc, latency-format and the duration; the comment holds
 * "kmalloc: call_site=..." as the trace file would print it, or
 * "<stack trace>" and the frames on the lines after it, the last one
 * closing the comment.  " 1)  sh-12  =>  bash-1234" says a CPU switched
 * tasks.  Without funcgraph-abstime the lines have no time; without
 * funcgraph-proc, no task but the last switch's.
 */
static unsigned int parse_graph(struct kmt_session *s, const char *line,
				const char *end, struct kmt_text_line *out)
{
	const char *p = skip_space(line, end), *q, *open, *seg;
	unsigned int kind;
	int32_t cpu;

	out->no_ts = 1;
	for (q = p; q < end && (is_digit(*q) || *q == '.'); q++)
		;
	if (q > p && memchr(p, '.', q - p)) {
		const char *bar = skip_space(q, end);

		if (bar == end || *bar != '|' || parse_ts(p, q, &out->ev.ts))
			return KMT_TEXT_OTHER;
		out->no_ts = 0;
		p = skip_space(bar + 1, end);
	}
	for (q = p; q < end && is_digit(*q); q++)
		;
	if (q == p || q >= end || *q != ')' || parse_int(p, q, &cpu) ||
	    cpu >= KMT_MAX_CPUS)
		return KMT_TEXT_OTHER;
	out->ev.cpu = cpu;
	out->style = KMT_TEXT_GRAPH;
	p = q + 1;
	open = memmem(p, end - p, "/*", 2);
	if (!open) {
		q = memmem(p, end - p, " => ", 4);
		if (!q || graph_task(q + 4, end, out))
			return KMT_TEXT_OTHER;
		return out->kind = KMT_TEXT_SWITCH;
	}
	/* the columns between the CPU and the comment: a task, flags, '|' */
	for (seg = p; seg < open; seg = q + 1) {
		q = memchr(seg, '|', open - seg);
		if (!q)
			q = open;
		if (graph_task(seg, q, out) == 0)
			break;
	}
	out->style = KMT_TEXT_GRAPH;
	p = skip_space(open + 2, end);
	if (end - p >= 2 && end[-1] == '/' && end[-2] == '*') {
		end -= 2;
		while (end > p && is_space(end[-1]))
			end--;
	}
	kind = parse_body(s, p, end, out);
	/* trace_printk() and other comments that are no event */
	if (out->why == no_name)
		kind = out->kind = KMT_TEXT_OTHER;
	return kind;
}

static unsigned int parse_event(struct kmt_session *s, const char *line,
				const char *end, unsigned int hint,
				struct kmt_text_line *out)
{
	const char *cpu, *p, *q;
	int32_t ncpu;

	cpu = find_cpu(line, end, &ncpu);
	if (!cpu) {
		if (memchr(line, ')', end - line) &&
		    parse_graph(s, line, end, out) != KMT_TEXT_OTHER)
			return out->kind;
		line_init(out);
		return parse_latency(s, line, end, hint, out);
	}
	out->style = hint == KMT_TEXT_REPORT ? KMT_TEXT_REPORT : KMT_TEXT_FTRACE;
	out->ev.cpu = ncpu;
	/* "comm-pid [cpu]" makes an event line; then it must parse */
	if (parse_task(line, cpu, hint, out))
		return KMT_TEXT_OTHER;
	p = skip_space(memchr(cpu, ']', end - cpu) + 1, end);
	q = ts_end(p, end);
	if (!q) {
		/* the irqs-off/need-resched/preempt column: "d..1." */
		while (p < end && !is_space(*p))
			p++;
		p = skip_space(p, end);
		q = ts_end(p, end);
		if (!q)
			return bad(out, "no timestamp");
	}
	if (parse_ts(p, q, &out->ev.ts))
		return bad(out, "bad timestamp");
	return parse_body(s, skip_space(q + 1, end), end, out);
}

/* "CPU:3 [LOST 120 EVENTS]", "[LOST EVENTS]", "[120 EVENTS DROPPED]" */
static unsigned int parse_lost(const char *p, const char *end,
			       struct kmt_text_line *out)
{
	const char *q = p + 4, *r;
	uint64_t n;
	int32_t cpu;

	while (q < end && is_digit(*q))
		q++;
	if (q == p + 4 || parse_int(p + 4, q, &cpu))
		return KMT_TEXT_OTHER;
	q = skip_space(q, end);
	if (q >= end || *q != '[')
		return KMT_TEXT_OTHER;
	q++;
	out->lost = -1;
	if (starts(q, end, "LOST ")) {
		q += 5;
		r = q;
		while (r < end && is_digit(*r))
			r++;
		if (r > q && !parse_dec(q, r, &n))
			out->lost = (int64_t)n;
		r = skip_space(r, end);
		if (!starts(r, end, "EVENTS]"))
			return KMT_TEXT_OTHER;
	} else {
		r = q;
		while (r < end && is_digit(*r))
			r++;
		if (r > q && !parse_dec(q, r, &n))
			out->lost = (int64_t)n;
		r = skip_space(r, end);
		if (!starts(r, end, "EVENTS DROPPED]"))
			return KMT_TEXT_OTHER;
	}
	out->ev.cpu = cpu;
	return out->kind = KMT_TEXT_LOST;
}

static unsigned int parse_frame(struct kmt_text_line *out, const char *p,
				const char *end)
{
	const char *q;

	p = skip_space(p, end);
	/* function_graph ends a stack trace's comment on its last frame */
	if (end - p >= 2 && end[-1] == '/' && end[-2] == '*') {
		end -= 2;
		while (end > p && is_space(end[-1]))
			end--;
	}
	/*
	 * trace-cmd report adds the address, "=> name (ffffffff8123)", and
	 * ftrace with options/sym-addr "=> name <ffffffff8123>"
	 */
	q = end;
	if (q > p && (q[-1] == ')' || q[-1] == '>')) {
		const char *open = q - 1;
		char want = q[-1] == ')' ? '(' : '<';
		uint64_t addr;

		while (open > p && *open != want)
			open--;
		if (*open == want && !parse_hex(open + 1, q - 1, &addr)) {
			out->frame_addr = addr;
			q = open;
		}
	}
	while (q > p && is_space(q[-1]))
		q--;
	out->frame = p;
	out->frame_len = q - p;
	return out->kind = KMT_TEXT_FRAME;
}

/*
 * perf: "\tffffffff815c5828 __kmalloc+0x58 ([kernel.kallsyms])", kernel
 * frames first, then "\t    7f3a12 malloc+0x1a (/usr/lib/libc.so.6)";
 * with --inline, a function inlined at the address before it follows
 * that frame as "\tffffffff815c5828 name (inlined)", with no dso.
 */
static unsigned int parse_perf_frame(struct kmt_text_line *out, const char *p,
				     const char *end)
{
	const char *q, *dso;
	uint64_t addr;

	p = skip_space(p, end);
	q = p;
	while (q < end && kmt_hexval(*q) >= 0)
		q++;
	if (q == p || (q < end && !is_space(*q)) || parse_hex(p, q, &addr))
		return KMT_TEXT_OTHER;
	out->frame_addr = addr;
	p = skip_space(q, end);
	q = p;
	while (q < end && !is_space(*q))
		q++;
	dso = skip_space(q, end);
	if (q - p == 9 && !memcmp(p, "[unknown]", 9))
		q = p;
	out->frame = p;
	out->frame_len = q - p;
	if (end - dso == 9 && !memcmp(dso, "(inlined)", 9))
		out->frame_inlined = 1;
	/*
	 * A file is user space; so are perf's pseudo maps but the kernel's.
	 * Without a dso (perf script -F without dso), the address tells.
	 */
	if (starts(dso, end, "(/") || starts(dso, end, "([vdso]") ||
	    starts(dso, end, "([vsyscall]") || starts(dso, end, "([uprobes]") ||
	    ((starts(dso, end, "([unknown]") || dso == end ||
	      out->frame_inlined) && !(addr >> 63)))
		out->frame_user = 1;
	return out->kind = KMT_TEXT_FRAME;
}

unsigned int kmt_text_parse_line(struct kmt_session *s, const char *line,
				 size_t len, unsigned int style_hint,
				 struct kmt_text_line *out)
{
	const char *end = line + len, *p, *q;

	line_init(out);
	while (end > line && (end[-1] == '\r' || is_space(end[-1])))
		end--;
	if (end == line)
		return out->kind = KMT_TEXT_BLANK;
	if (line[0] == '#' || starts(line, end, "cpus=") ||
	    starts(line, end, "version =") || starts(line, end, "version=") ||
	    (starts(line, end, "CPU ") && end - line > 9 &&
	     !memcmp(end - 9, " is empty", 9)))
		return out->kind = KMT_TEXT_HEADER;
	if (line[0] == '\t' && parse_perf_frame(out, line + 1, end) ==
	    KMT_TEXT_FRAME)
		return out->kind;
	p = skip_space(line, end);
	if (starts(p, end, "=>"))
		return parse_frame(out, p + 2, end);
	/* a report line may carry the buffer name first */
	q = p;
	if (!starts(q, end, "CPU:")) {
		while (q < end && !is_space(*q))
			q++;
		if (q > p && q[-1] == ':')
			q = skip_space(q, end);
		else
			q = p;
	}
	if (starts(q, end, "CPU:") && parse_lost(q, end, out) == KMT_TEXT_LOST)
		return out->kind;
	if (parse_event(s, line, end, style_hint, out) != KMT_TEXT_OTHER ||
	    style_hint != KMT_TEXT_PERF || !is_space(line[0]))
		return out->kind;
	/* a perf call chain whose tabs became blanks (mail, web pages) */
	line_init(out);
	parse_perf_frame(out, line, end);
	return out->kind;
}

/* --- the reader --- */

struct pending {
	struct kmt_event ev;
	int done;
	int drop;		/* its call chain is unreadable: left out */
};

struct text_cpu {
	uint64_t wait;		/* 1 + sequence number of its event that may
				 * still get a stack, 0 none */
	uint64_t last_ts;
	int32_t pid1;		/* 1 + the pid function_graph last said the
				 * CPU runs, 0 unknown */
};

struct text {
	struct kmt_session *s;
	struct kmt_input *in;
	char *buf;
	size_t len, pos, cap;
	int eof, skipping;
	uint64_t lineno;
	unsigned int style;		/* the input's, once known */
	int have_style;

	/* events in input order, waiting for a stack; a ring */
	struct pending *q;
	size_t q_alloc, q_head, q_nr;
	uint64_t q_seq;			/* sequence number of q[q_head] */
	uint64_t now;			/* latest timestamp read */

	struct text_cpu *cpus;
	size_t nr_cpu_slots;
	int max_cpu;			/* 1 + the highest CPU seen */
	int header_cpus;		/* "#P:2" or "cpus=2", 0 none */

	int stack_state;		/* 0 none, 1 collecting, 2 skipping */
	uint64_t stack_for;		/* 1 + sequence number */
	size_t nr_ips, ips_alloc;
	uint64_t *ips;

	/*
	 * What a name's frames and call sites go by, by the name's strtab
	 * id: 0 not decided yet, TEXT_BY_NAME its synthetic address, else
	 * the address it starts at, learnt from a frame that printed its
	 * address (see frame_ip).
	 */
	uint64_t *name_base;
	size_t name_base_nr;
	struct kmt_hash_set sym_added;	/* addresses given a symbol */

	uint64_t nr_event_lines, nr_lost_lines, nr_content_lines;
	uint64_t nr_no_ts;		/* kmem events without a time */
	char first[72];			/* the first non-blank line */

	int32_t comm_pid, tgid_pid;
	size_t comm_len;
	char comm[64];
};

static int grow_cpus(struct text *t, int32_t cpu)
{
	size_t need = (size_t)cpu + 1, n = t->nr_cpu_slots;

	if (cpu + 1 > t->max_cpu)
		t->max_cpu = cpu + 1;
	if (need <= n)
		return 0;
	if (KMT_ARRAY_GROW(t->cpus, need, n))
		return -ENOMEM;
	memset(t->cpus + t->nr_cpu_slots, 0,
	       (n - t->nr_cpu_slots) * sizeof(*t->cpus));
	t->nr_cpu_slots = n;
	return 0;
}

static struct pending *pending_at(struct text *t, uint64_t seq1)
{
	uint64_t seq = seq1 - 1;

	if (!seq1 || seq < t->q_seq || seq - t->q_seq >= t->q_nr)
		return NULL;
	return &t->q[(t->q_head + (size_t)(seq - t->q_seq)) & (t->q_alloc - 1)];
}

/* no kernel symbol starts at 1: the name_base of names kept as names */
#define TEXT_BY_NAME	1
#define SYNTH_OFF_MASK	((1ULL << KMT_SYNTH_SHIFT) - 1)

static int is_synth(uint64_t addr)
{
	return addr >= KMT_SYNTH_BASE && addr < 0x8000000000000000ULL;
}

/* the name_base slot of a synthetic address' name; NULL out of memory */
static uint64_t *name_slot(struct text *t, uint64_t synth)
{
	size_t id = (size_t)((synth - KMT_SYNTH_BASE) >> KMT_SYNTH_SHIFT);
	size_t n = t->name_base_nr;

	if (id >= n) {
		if (KMT_ARRAY_GROW(t->name_base, id + 1, n))
			return NULL;
		memset(t->name_base + t->name_base_nr, 0,
		       (n - t->name_base_nr) * sizeof(*t->name_base));
		t->name_base_nr = n;
	}
	return &t->name_base[id];
}

/* gives the symbol table name at addr, once */
static int learn_symbol(struct text *t, uint64_t addr, const char *name,
			size_t len)
{
	if (kmt_hash_set_has(&t->sym_added, addr))
		return 0;
	if (kmt_hash_set_add(&t->sym_added, addr) ||
	    kmt_symtab_insert(&t->s->syms, addr, name, len))
		return -ENOMEM;
	return 0;
}

/*
 * The address a kernel frame goes by.  perf script prints a frame's
 * address and its "name+0xoff": the frame keeps the address, the one a
 * perf.data of the same recording holds, and the symbol table learns
 * that name starts at address - off, so that names, stacks and the
 * order of ties come out as from the perf.data.  A frame without an
 * address (tracefs' "=> name+0x1a/0x80") or without an offset
 * (trace-cmd report's "=> name (ffffffff8123)", an address that is no
 * start) goes by its name's synthetic address, as call sites in text do;
 * so do all frames of a name that a call site went by already.
 */
static int frame_ip(struct text *t, const struct kmt_text_line *l,
		    uint64_t *ip)
{
	struct kmt_session *s = t->s;
	uint64_t synth, off, base, *b;
	const char *name;
	char hex[24];

	if (!l->frame_len) {
		/*
		 * An address perf could not name: named as itself, lest the
		 * symbol learnt just below it claim it
		 */
		*ip = l->frame_addr;
		if (!l->frame_addr)
			return 0;
		snprintf(hex, sizeof(hex), "%#" PRIx64, l->frame_addr);
		return learn_symbol(t, l->frame_addr, hex, strlen(hex));
	}
	synth = kmt_symtab_from_text(&s->syms, l->frame, l->frame_len);
	*ip = synth;
	if (!l->frame_addr || !is_synth(synth) ||
	    !memchr(l->frame, '+', l->frame_len))
		return 0;
	off = synth & SYNTH_OFF_MASK;
	if (off > l->frame_addr || off == SYNTH_OFF_MASK)
		return 0;
	base = l->frame_addr - off;
	b = name_slot(t, synth);
	if (!b)
		return -ENOMEM;
	if (*b == TEXT_BY_NAME)
		return 0;
	*ip = l->frame_addr;
	if (*b == base)
		return 0;
	/* a name at two places (static functions): the first for call sites */
	if (!*b)
		*b = base;
	name = kmt_strtab_get(&s->strs, (uint32_t)((synth - KMT_SYNTH_BASE) >>
						    KMT_SYNTH_SHIFT));
	return learn_symbol(t, base, name, strlen(name));
}

/*
 * A call site's "name+0xoff" goes by the address a frame gave its name
 * (its own event's chain has been read by now), else by the name, now
 * and after: one call site never goes by two addresses.
 */
static int settle_call_site(struct text *t, struct kmt_event *ev)
{
	size_t id = (size_t)((ev->call_site - KMT_SYNTH_BASE) >> KMT_SYNTH_SHIFT);
	uint64_t *b;

	/* every kmem event of text without frames comes here: looked at first */
	if (id < t->name_base_nr && t->name_base[id] == TEXT_BY_NAME)
		return 0;
	b = name_slot(t, ev->call_site);
	if (!b)
		return -ENOMEM;
	if (!*b)
		*b = TEXT_BY_NAME;
	else if (*b != TEXT_BY_NAME)
		ev->call_site = *b + (ev->call_site & SYNTH_OFF_MASK);
	return 0;
}

/* passes on queued events from the front while they are complete */
static int flush(struct text *t, int all)
{
	while (t->q_nr) {
		struct pending *p = &t->q[t->q_head];
		int ret = 0;

		if (!all && !p->done && t->q_nr < TEXT_MAX_QUEUE &&
		    t->now - p->ev.ts < TEXT_STACK_WAIT)
			break;
		if ((size_t)p->ev.cpu < t->nr_cpu_slots &&
		    t->cpus[p->ev.cpu].wait == t->q_seq + 1)
			t->cpus[p->ev.cpu].wait = 0;
		if (!p->drop) {
			if (is_synth(p->ev.call_site))
				ret = settle_call_site(t, &p->ev);
			if (!ret)
				ret = kmt_session_emit(t->s, &p->ev);
		}
		t->q_head = (t->q_head + 1) & (t->q_alloc - 1);
		t->q_nr--;
		t->q_seq++;
		if (ret)
			return ret;
	}
	return 0;
}

static int push(struct text *t, const struct kmt_event *ev)
{
	struct pending *p;

	if (t->q_nr == t->q_alloc) {
		size_t n = t->q_alloc ? t->q_alloc * 2 : 256, i;
		struct pending *q = malloc(n * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (i = 0; i < t->q_nr; i++)
			q[i] = t->q[(t->q_head + i) & (t->q_alloc - 1)];
		free(t->q);
		t->q = q;
		t->q_alloc = n;
		t->q_head = 0;
	}
	p = &t->q[(t->q_head + t->q_nr) & (t->q_alloc - 1)];
	p->ev = *ev;
	p->done = 0;
	p->drop = 0;
	t->q_nr++;
	t->cpus[ev->cpu].wait = t->q_seq + t->q_nr;
	return 0;
}

/* the CPU showed a line that is not a stack: its waiting event is done */
static void cpu_moved_on(struct text *t, int32_t cpu)
{
	struct pending *p = pending_at(t, t->cpus[cpu].wait);

	if (p)
		p->done = 1;
	t->cpus[cpu].wait = 0;
}

/* 0, or -ENOMEM: a stack that cannot be kept is not taken for none */
static int end_stack(struct text *t)
{
	struct pending *p;

	if (t->stack_state == 1) {
		p = pending_at(t, t->stack_for);
		if (p) {
			if (t->nr_ips) {
				p->ev.stack = kmt_stacks_intern(&t->s->stacks,
								t->ips, t->nr_ips);
				if (!p->ev.stack)
					return -ENOMEM;
				t->s->has_stacks = 1;
			}
			p->done = 1;
			if (t->cpus[p->ev.cpu].wait == t->stack_for)
				t->cpus[p->ev.cpu].wait = 0;
		}
	}
	t->stack_state = 0;
	t->stack_for = 0;
	t->nr_ips = 0;
	return 0;
}

/*
 * A perf call chain's line that is no frame: the sample it belongs to is
 * unreadable, as an event line without its fields is, and left out; the
 * rest of its chain is skipped.
 */
static void bad_frame(struct text *t)
{
	struct pending *p = pending_at(t, t->stack_for);

	if (p) {
		p->drop = 1;
		p->done = 1;
		if (t->cpus[p->ev.cpu].wait == t->stack_for)
			t->cpus[p->ev.cpu].wait = 0;
		kmt_session_anomaly(t->s, KMT_ANOM_BAD_RECORD, KMT_AT_LINE,
				    t->lineno,
				    "%s with an unreadable call chain frame",
				    kmt_ev_type_name(p->ev.type));
	}
	t->stack_state = 2;
	t->stack_for = 0;
	t->nr_ips = 0;
}

/* a line of perf's own under a frame: -F +srcline's "  mm/slub.c:3456" */
static int is_srcline(const char *line, size_t len)
{
	const char *p = skip_space(line, line + len), *end = line + len, *q;

	for (q = p; q < end && !is_space(*q); q++)
		;
	return q > p && memchr(p, ':', q - p);
}

static void set_style(struct text *t, unsigned int style)
{
	static const char *const names[] = {
		[KMT_TEXT_FTRACE] = "ftrace text",
		[KMT_TEXT_REPORT] = "trace-cmd report text",
		[KMT_TEXT_PERF] = "perf script text",
		[KMT_TEXT_GRAPH] = "ftrace function_graph text",
	};

	if (t->have_style && !(style == KMT_TEXT_REPORT &&
			       t->style == KMT_TEXT_FTRACE))
		return;
	t->style = style;
	t->have_style = 1;
	t->s->format = names[style];
}

static int note_task(struct text *t, const struct kmt_text_line *l)
{
	struct kmt_session *s = t->s;
	int32_t pid = l->ev.pid;

	if (l->comm && pid >= 0 &&
	    (pid != t->comm_pid || l->comm_len != t->comm_len ||
	     memcmp(l->comm, t->comm, l->comm_len))) {
		if (kmt_session_set_comm(s, pid, l->comm, l->comm_len))
			return -ENOMEM;
		t->comm_pid = pid;
		t->comm_len = l->comm_len < sizeof(t->comm) ? l->comm_len : 0;
		memcpy(t->comm, l->comm, t->comm_len);
	}
	if (l->tgid >= 0 && pid >= 0 && pid != t->tgid_pid) {
		if (kmt_session_set_tgid(s, pid, l->tgid))
			return -ENOMEM;
		t->tgid_pid = pid;
	}
	return 0;
}

static int on_event(struct text *t, struct kmt_text_line *l)
{
	int32_t cpu = l->ev.cpu;
	int ret;

	if (end_stack(t) || grow_cpus(t, cpu))
		return -ENOMEM;
	t->nr_event_lines++;
	set_style(t, l->style);
	/* function_graph: the task of the last switch, the last time */
	if (l->style == KMT_TEXT_GRAPH) {
		if (l->ev.pid < 0 && t->cpus[cpu].pid1)
			l->ev.pid = t->cpus[cpu].pid1 - 1;
		else if (l->ev.pid >= 0)
			t->cpus[cpu].pid1 = l->ev.pid + 1;
	}
	if (l->no_ts) {
		l->ev.ts = t->now;
		if (l->ev.type != KMT_EV_NONE)
			t->nr_no_ts++;
	}
	if (t->cpus[cpu].last_ts > l->ev.ts)
		t->s->anomalies[KMT_ANOM_OUT_OF_ORDER]++;
	t->cpus[cpu].last_ts = l->ev.ts;
	if (l->ev.ts > t->now)
		t->now = l->ev.ts;
	cpu_moved_on(t, cpu);
	ret = note_task(t, l);
	if (ret)
		return ret;
	if (l->ev.type == KMT_EV_NONE)
		return kmt_session_emit(t->s, &l->ev);
	if (push(t, &l->ev))
		return -ENOMEM;
	/* perf prints the call chain right under its sample */
	if (l->style == KMT_TEXT_PERF) {
		t->stack_state = 1;
		t->stack_for = t->cpus[cpu].wait;
	}
	return flush(t, 0);
}

static int on_line(struct text *t, const char *line, size_t len)
{
	struct kmt_text_line l;
	struct pending *p;
	unsigned int kind;
	int32_t cpu;

	kind = kmt_text_parse_line(t->s, line, len,
				   t->have_style ? t->style : KMT_TEXT_FTRACE, &l);
	if (kind != KMT_TEXT_BLANK && !t->first[0]) {
		size_t i, n = len < sizeof(t->first) - 1 ? len : sizeof(t->first) - 1;

		for (i = 0; i < n; i++)
			t->first[i] = line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '.';
		t->first[n] = '\0';
	}
	if (kind != KMT_TEXT_BLANK && kind != KMT_TEXT_HEADER)
		t->nr_content_lines++;
	/* within a perf call chain, a line that is none of its frames */
	if (kind == KMT_TEXT_OTHER && t->stack_state && t->have_style &&
	    t->style == KMT_TEXT_PERF && is_space(line[0])) {
		if (line[0] == '\t' || !is_srcline(line, len))
			bad_frame(t);
		return 0;
	}
	if (kind != KMT_TEXT_FRAME && kind != KMT_TEXT_EVENT &&
	    end_stack(t))
		return -ENOMEM;
	cpu = l.ev.cpu;
	switch (kind) {
	case KMT_TEXT_HEADER:
		if (starts(line, line + len, "cpus=")) {
			set_style(t, KMT_TEXT_REPORT);
			t->header_cpus = atoi(line + 5);
		} else if (line[0] == '#') {
			const char *np = memmem(line, len, "#P:", 3);

			if (np)
				t->header_cpus = atoi(np + 3);
		}
		return 0;
	case KMT_TEXT_EVENT:
		return on_event(t, &l);
	case KMT_TEXT_STACK:
	case KMT_TEXT_USER_STACK:
		if (grow_cpus(t, cpu))
			return -ENOMEM;
		t->nr_event_lines++;
		if (l.style == KMT_TEXT_GRAPH && l.ev.pid < 0 &&
		    t->cpus[cpu].pid1)
			l.ev.pid = t->cpus[cpu].pid1 - 1;
		p = pending_at(t, t->cpus[cpu].wait);
		/* a trigger fires for events a pid filter drops: check */
		if (kind == KMT_TEXT_STACK && p && p->ev.pid == l.ev.pid) {
			t->stack_state = 1;
			t->stack_for = t->cpus[cpu].wait;
		} else {
			/* a user stack, or a stack of an event not ours */
			cpu_moved_on(t, cpu);
			t->stack_state = 2;
		}
		return 0;
	case KMT_TEXT_FRAME:
		/* the kernel part of a perf chain ends at its first user frame */
		if (l.frame_user) {
			if (t->stack_state == 1) {
				if (end_stack(t))
					return -ENOMEM;
				t->stack_state = 2;
			}
			return 0;
		}
		/* perf.data holds the address once, for its own function */
		if (l.frame_inlined)
			return 0;
		if (t->stack_state == 1 && t->nr_ips < TEXT_MAX_STACK) {
			uint64_t ip;

			if (frame_ip(t, &l, &ip) ||
			    (t->nr_ips == t->ips_alloc &&
			     KMT_ARRAY_GROW(t->ips, t->nr_ips + 1, t->ips_alloc)))
				return -ENOMEM;
			if (ip)
				t->ips[t->nr_ips++] = ip;
		}
		return 0;
	case KMT_TEXT_LOST:
		t->nr_lost_lines++;
		t->s->nr_lost_records++;
		if (l.lost > 0)
			t->s->nr_lost += (uint64_t)l.lost;
		if (grow_cpus(t, cpu))
			return -ENOMEM;
		cpu_moved_on(t, cpu);
		return 0;
	case KMT_TEXT_SIDEBAND:
		t->nr_event_lines++;
		set_style(t, KMT_TEXT_PERF);
		return 0;
	case KMT_TEXT_SWITCH:
		if (grow_cpus(t, cpu))
			return -ENOMEM;
		t->cpus[cpu].pid1 = l.ev.pid + 1;
		return note_task(t, &l);
	case KMT_TEXT_BAD:
		/* the stack that may follow is this line's, not an event's */
		if (cpu >= 0) {
			if (grow_cpus(t, cpu))
				return -ENOMEM;
			cpu_moved_on(t, cpu);
		}
		if (l.missing)
			kmt_session_anomaly(t->s, KMT_ANOM_BAD_RECORD,
					    KMT_AT_LINE, t->lineno,
					    "%.*s without %s=",
					    (int)l.name_len, l.name, l.missing);
		else
			kmt_session_anomaly(t->s, KMT_ANOM_BAD_RECORD,
					    KMT_AT_LINE, t->lineno, "%s",
					    l.why ? l.why : "unreadable");
		return 0;
	}
	return 0;
}

/* the next line of the input, without its newline; 0 at the end */
static int next_line(struct text *t, const char **line, size_t *len)
{
	for (;;) {
		char *start = t->buf + t->pos;
		char *nl = memchr(start, '\n', t->len - t->pos);
		ssize_t n;

		if (nl) {
			t->pos = nl + 1 - t->buf;
			if (t->skipping) {
				t->skipping = 0;
				continue;
			}
			*line = start;
			*len = nl - start;
			return 1;
		}
		if (t->eof) {
			if (t->pos == t->len || t->skipping)
				return 0;
			*line = start;
			*len = t->len - t->pos;
			t->pos = t->len;
			return 1;
		}
		if (t->pos) {
			memmove(t->buf, start, t->len - t->pos);
			t->len -= t->pos;
			t->pos = 0;
		}
		if (t->len == t->cap && t->cap < TEXT_BUF) {
			char *b = realloc(t->buf, 2 * t->cap);

			if (!b)
				return -ENOMEM;
			t->buf = b;
			t->cap *= 2;
		}
		if (t->len == TEXT_BUF) {
			/* no event is this long: count it and skip it */
			t->lineno++;
			kmt_session_anomaly(t->s, KMT_ANOM_BAD_RECORD,
					    KMT_AT_LINE, t->lineno,
					    "a line longer than %u bytes",
					    TEXT_BUF);
			t->nr_content_lines++;
			t->len = 0;
			t->skipping = 1;
		}
		n = kmt_input_read(t->in, t->buf + t->len, t->cap - t->len);
		if (n < 0)
			return (int)n;
		if (!n)
			t->eof = 1;
		t->len += n;
	}
}

static int read_lines(struct text *t)
{
	const char *line = NULL;
	size_t len = 0;
	int ret;

	while ((ret = next_line(t, &line, &len)) > 0) {
		t->lineno++;
		if (memchr(line, '\0', len))
			return kmt_session_error(t->s, EINVAL,
				"'%s' has binary data at line %llu: not ftrace text",
				t->in->display, (unsigned long long)t->lineno);
		ret = on_line(t, line, len);
		if (ret == -ENOMEM)
			return kmt_session_error(t->s, ENOMEM, "out of memory");
		if (ret)
			return ret;
	}
	if (ret < 0)
		return kmt_session_error(t->s, -ret, "cannot read '%s': %s",
					 t->in->display, strerror(-ret));
	if (end_stack(t))
		return kmt_session_error(t->s, ENOMEM, "out of memory");
	ret = flush(t, 1);
	if (ret == -ENOMEM)
		return kmt_session_error(t->s, ENOMEM, "out of memory");
	if (ret)
		return ret;
	/* function_graph prints times with funcgraph-abstime only */
	if (t->nr_no_ts)
		t->s->format = "ftrace function_graph text without times";
	/* the header knows the CPUs that logged nothing too */
	t->s->nr_cpus = t->header_cpus > t->max_cpu &&
			t->header_cpus <= KMT_MAX_CPUS ?
			t->header_cpus : t->max_cpu;
	if (!t->nr_event_lines && !t->nr_lost_lines && t->nr_content_lines)
		return kmt_session_error(t->s, EINVAL,
			"'%s' has no ftrace event lines (first line: %s)",
			t->in->display, t->first);
	return 0;
}

static int read_all(struct kmt_session *s, struct kmt_input *in)
{
	struct text *t;
	int ret;

	t = calloc(1, sizeof(*t));
	if (!t)
		return kmt_session_error(s, ENOMEM, "out of memory");
	t->s = s;
	t->in = in;
	t->comm_pid = -1;
	t->tgid_pid = -1;
	/* a file smaller than the whole buffer needs no more than itself */
	t->cap = TEXT_BUF;
	while (in->size >= 0 && t->cap > TEXT_BUF_FIRST &&
	       (uint64_t)in->size < t->cap / 2)
		t->cap /= 2;
	t->buf = malloc(t->cap);
	if (!t->buf) {
		free(t);
		return kmt_session_error(s, ENOMEM, "out of memory");
	}
	kmt_hash_set_init(&t->sym_added);
	s->format = "ftrace text";
	ret = read_lines(t);
	kmt_hash_set_free(&t->sym_added);
	free(t->name_base);
	free(t->ips);
	free(t->buf);
	free(t->q);
	free(t->cpus);
	free(t);
	return ret;
}

/*
 * Text whose complete lines include one that looks like ftrace output:
 * an event, a stack, a lost-events note, or a tracer or report header.
 */
static int probe(const unsigned char *head, size_t len)
{
	const char *p = (const char *)head, *end = p + len;
	size_t i, ctl = 0;

	for (i = 0; i < len; i++) {
		if (!head[i])
			return 0;
		if (head[i] < 0x20 && head[i] != '\n' && head[i] != '\t' &&
		    head[i] != '\r')
			ctl++;
	}
	if (ctl * 100 > len)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		struct kmt_text_line l;
		unsigned int kind;

		/* a cut last line only counts when it ends the input */
		if (!nl && len == KMT_INPUT_HEAD)
			break;
		if (!nl)
			nl = end;
		if (starts(p, nl, "# tracer:") || starts(p, nl, "cpus="))
			return 1;
		kind = kmt_text_parse_line(NULL, p, nl - p, KMT_TEXT_FTRACE, &l);
		if (kind == KMT_TEXT_EVENT || kind == KMT_TEXT_STACK ||
		    kind == KMT_TEXT_LOST || kind == KMT_TEXT_SIDEBAND)
			return 1;
		p = nl + 1;
	}
	return 0;
}

const struct kmt_source_ops kmt_source_text = {
	.name = "text",
	.probe = probe,
	.read = read_all,
	.needs_seek = 0,
};
