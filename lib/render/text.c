// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "report/report.h"
#include "util/duration.h"
#include "util/strbuf.h"

#define RULE_WIDTH 105
/* a cell is made in this much room; longer text is cut, as snprintf cuts */
#define CELL_BUF 256
/* ... and the second half of a joined pair in this much */
#define CELL_BUF2 128
/* the bytes a table line holds before its newline; the rest is cut */
#define LINE_TEXT_MAX 4095
/* lines gather here before each fwrite: a table can be a million lines */
#define OUT_BUF (64 * 1024)

static const struct {
	uint64_t div;
	const char *unit;
	size_t unit_len;
} duration_units[] = {
	{ 1000000000, "s", 1 }, { 1000000, "ms", 2 }, { 1000, "us", 2 },
};

#define NR_DURATION_UNITS (sizeof(duration_units) / sizeof(duration_units[0]))

/* 3 significant figures in the largest unit that keeps a leading digit */
static void format_duration(char *buf, size_t size, uint64_t ns)
{
	size_t i;

	for (i = 0; i < NR_DURATION_UNITS; i++) {
		if (ns >= duration_units[i].div) {
			snprintf(buf, size, "%.2f%s",
				 (double)ns / (double)duration_units[i].div,
				 duration_units[i].unit);
			return;
		}
	}
	snprintf(buf, size, "%" PRIu64 "ns", ns);
}

/* "617.283 K/sec": a rate as perf stat writes it (KMT_COL_RATE) */
static void format_rate(char *buf, size_t size, double rate)
{
	if (rate >= 1e6)
		snprintf(buf, size, "%8.3f M/sec", rate / 1e6);
	else if (rate >= 1e3)
		snprintf(buf, size, "%8.3f K/sec", rate / 1e3);
	else
		snprintf(buf, size, "%8.3f /sec", rate);
}

/* "%#" PRIx64's length: "0" for zero, else 0x and a digit per 4 bits */
static size_t hex_width(uint64_t v)
{
	return v ? (size_t)(67 - __builtin_clzll(v)) / 4 + 2 : 1;
}

/* "%#" PRIx64's hex_width(v) bytes at p, not terminated */
static void put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";

	p[0] = '0';
	if (!v)
		return;
	p[1] = 'x';
	/* two digits a step: a column of kernel addresses has 16 each */
	for (p += hex_width(v); v >= 16; v >>= 8) {
		*--p = digits[v & 15];
		*--p = digits[(v >> 4) & 15];
	}
	if (v)
		*--p = digits[v];
}

/*
 * The text of a duration is "%.2f" of ns / div and a unit, so its length
 * is that of the whole part, carried when the hundredths round up
 * (999.995us and beyond print "1000.00us").  Up to 2^44 ns the double
 * lies on the same side of q.995 as the exact quotient unless the
 * quotient is exactly q.995; past that, or there, printf decides.
 */
static size_t duration_width(uint64_t ns)
{
	char buf[CELL_BUF];
	uint64_t q, r, div;
	size_t i;

	for (i = 0; i < NR_DURATION_UNITS; i++) {
		div = duration_units[i].div;
		if (ns < div)
			continue;
		q = ns / div;
		r = ns % div;
		if (ns >= 1ULL << 44 || r * 200 == div * 199) {
			format_duration(buf, sizeof(buf), ns);
			return strlen(buf);
		}
		return kmt_dec_width(q + (r * 200 > div * 199)) + 3 +
		       duration_units[i].unit_len;
	}
	return kmt_dec_width(ns) + 2;
}

/* as "%#" PRIx64, NUL-terminated */
static size_t fmt_hex(char *buf, uint64_t v)
{
	size_t n = hex_width(v);

	put_hex(buf, v);
	buf[n] = '\0';
	return n;
}

/*
 * A percentage in thousandths, rounded as "%.3f" rounds it: the usual
 * percentages need no printf, as a frag column of a million rows is
 * drawn.  Values a rounding step could print differently from printf (a
 * third decimal of exactly 5 after the multiplication, or out of range)
 * return -1: printf's.
 */
static int pct_milli(double d, uint64_t *milli)
{
	double scaled = d * 1000.0, frac;

	if (!(d >= 0.0 && d < 1e12))
		return -1;
	*milli = (uint64_t)scaled;
	frac = scaled - (double)*milli;
	if (frac > 0.4999 && frac < 0.5001)
		return -1;
	if (frac > 0.5)
		(*milli)++;
	return 0;
}

/* "%.3f%%" of a percentage in thousandths: its pct_width() bytes at p */
static size_t put_pct(char *p, uint64_t milli)
{
	size_t n = kmt_dec_width(milli / 1000) + 5;

	p += n;
	*--p = '%';
	*--p = (char)('0' + milli % 10);
	*--p = (char)('0' + milli / 10 % 10);
	*--p = (char)('0' + milli / 100 % 10);
	*--p = '.';
	kmt_put_dec(p, milli / 1000);
	return n;
}

/* "%.3f%%" into buf; the length of what is in buf */
static size_t fmt_pct(char *buf, size_t size, double d)
{
	uint64_t milli;
	size_t n;
	int len;

	if (pct_milli(d, &milli)) {
		len = snprintf(buf, size, "%.3f%%", d);
		/* a huge value is cut: the length of what is there */
		return len < 0 ? 0 : (size_t)len < size ? (size_t)len : size - 1;
	}
	n = put_pct(buf, milli);
	buf[n] = '\0';
	return n;
}

static size_t pct_width(double d)
{
	char buf[CELL_BUF];
	uint64_t milli;

	if (pct_milli(d, &milli))
		return fmt_pct(buf, sizeof(buf), d);
	return kmt_dec_width(milli / 1000) + 5;
}

/* "1 2 3", cut at size as snprintf cuts */
static void fmt_list(char *buf, size_t size, const struct kmt_list *l)
{
	size_t i, used = 0;
	int n;

	buf[0] = '\0';
	for (i = 0; l && i < l->n && used < size; i++) {
		n = snprintf(buf + used, size - used, "%s%" PRId64, i ? " " : "",
			     l->v[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/*
 * The text of a value: in buf, or the string itself for a string value;
 * its length in *len.
 */
static const char *cell_text(char *buf, size_t size, enum kmt_val_type type,
			     const union kmt_val *v, unsigned int flags,
			     size_t *len)
{
	switch (type) {
	case KMT_V_DURATION:
		format_duration(buf, size, v->u);
		break;
	case KMT_V_TIME:
		snprintf(buf, size, "%" PRIu64 ".%06" PRIu64,
			 v->u / 1000000000, v->u / 1000 % 1000000);
		break;
	case KMT_V_U64:
		if ((flags & KMT_COL_DOT_ZERO) && !v->u) {
			*len = 1;
			return ".";
		}
		if (flags & KMT_COL_GROUPED) {
			kmt_fmt_thousands(buf, size, v->u);
			break;
		}
		*len = kmt_fmt_u64(buf, v->u);
		return buf;
	case KMT_V_S64:
		if (flags & KMT_COL_GROUPED) {
			/* as the u64 columns: "-1,234" */
			if (v->s < 0 && size > 1) {
				buf[0] = '-';
				kmt_fmt_thousands(buf + 1, size - 1,
						  0 - (uint64_t)v->s);
			} else {
				kmt_fmt_thousands(buf, size, (uint64_t)v->s);
			}
			break;
		}
		if (v->s >= 0) {
			*len = kmt_fmt_u64(buf, (uint64_t)v->s);
			return buf;
		}
		snprintf(buf, size, "%" PRId64, v->s);
		break;
	case KMT_V_DOUBLE:
		if (flags & KMT_COL_RATE)
			format_rate(buf, size, v->d);
		else
			snprintf(buf, size, flags & KMT_COL_NS ? "%.9f" : "%.3f",
				 v->d);
		break;
	case KMT_V_PCT:
		if (flags & KMT_COL_TENTHS) {
			if (isnan(v->d)) {
				*len = 1;
				return "-";
			}
			snprintf(buf, size, "%.1f%%", v->d);
			break;
		}
		*len = fmt_pct(buf, size, v->d);
		return buf;
	case KMT_V_STR:
	case KMT_V_LINES:
	case KMT_V_STACK:
		*len = v->str ? strlen(v->str) : 0;
		return v->str ? v->str : "";
	case KMT_V_HEX:
		*len = fmt_hex(buf, v->u);
		return buf;
	case KMT_V_BOOL:
		*len = v->u ? 3 : 2;
		return v->u ? "yes" : "no";
	case KMT_V_LIST:
		fmt_list(buf, size, v->list);
		break;
	}
	*len = strlen(buf);
	return buf;
}

/*
 * The length cell_text() gives a value in CELL_BUF bytes, without making
 * the text where the length follows from the value.
 */
static size_t cell_width(enum kmt_val_type type, const union kmt_val *v,
			 unsigned int flags)
{
	char buf[CELL_BUF];
	size_t n;

	switch (type) {
	case KMT_V_DURATION:
		return duration_width(v->u);
	case KMT_V_TIME:
		return kmt_dec_width(v->u / 1000000000) + 7;
	case KMT_V_U64:
		if ((flags & KMT_COL_DOT_ZERO) && !v->u)
			return 1;
		n = kmt_dec_width(v->u);
		return flags & KMT_COL_GROUPED ? n + (n - 1) / 3 : n;
	case KMT_V_S64:
		n = kmt_dec_width(v->s >= 0 ? (uint64_t)v->s :
					      0 - (uint64_t)v->s);
		if (flags & KMT_COL_GROUPED)
			n += (n - 1) / 3;
		return n + (v->s < 0);
	case KMT_V_PCT:
		if (flags & KMT_COL_TENTHS)
			break;
		return pct_width(v->d);
	case KMT_V_STR:
	case KMT_V_LINES:
	case KMT_V_STACK:
		return v->str ? strlen(v->str) : 0;
	case KMT_V_HEX:
		return hex_width(v->u);
	case KMT_V_BOOL:
		return v->u ? 3 : 2;
	case KMT_V_DOUBLE:
	case KMT_V_LIST:
		break;
	}
	cell_text(buf, sizeof(buf), type, v, flags, &n);
	return n;
}

static void format_val(char *buf, size_t size, enum kmt_val_type type,
		       const union kmt_val *v, unsigned int flags)
{
	size_t n;
	const char *s = cell_text(buf, size, type, v, flags, &n);

	if (s != buf)
		snprintf(buf, size, "%.*s", (int)n, s);
}

/*
 * What the width pass keeps of a column.  Where the width only grows
 * with the value (u64, hex, time) the largest value is the widest cell,
 * and for s64 the largest or the most negative: those are measured once
 * at the end.  Other cells are measured one by one.
 */
struct col_measure {
	size_t w;
	uint64_t umax;
	int64_t smin, smax;
};

static void measure(struct col_measure *m, enum kmt_val_type type,
		    const union kmt_val *v, unsigned int flags)
{
	size_t n;

	switch (type) {
	case KMT_V_U64:
	case KMT_V_HEX:
	case KMT_V_TIME:
		if (v->u > m->umax)
			m->umax = v->u;
		return;
	case KMT_V_S64:
		if (v->s > m->smax)
			m->smax = v->s;
		else if (v->s < m->smin)
			m->smin = v->s;
		return;
	default:
		n = cell_width(type, v, flags);
		if (n > m->w)
			m->w = n;
	}
}

/* the widest cell of a column of one row or more */
static size_t measured_width(const struct col_measure *m,
			     enum kmt_val_type type, unsigned int flags)
{
	union kmt_val v;
	size_t a, b;

	switch (type) {
	case KMT_V_U64:
	case KMT_V_HEX:
	case KMT_V_TIME:
		v.u = m->umax;
		return cell_width(type, &v, flags);
	case KMT_V_S64:
		v.s = m->smax;
		a = cell_width(type, &v, flags);
		v.s = m->smin;
		b = cell_width(type, &v, flags);
		return a > b ? a : b;
	default:
		return m->w;
	}
}

/* the text of a table, gathered for fwrite */
struct out {
	FILE *f;
	char *buf;
	size_t len;
};

static void out_flush(struct out *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
}

/*
 * A text line of a table, made in place in the output, without printf.
 * When the line is known to fit (fits: every cell is at most its
 * column's width, and the widths add up to less than LINE_TEXT_MAX less
 * PAD_SLACK), nothing need be cut, and blanks go in PAD_SLACK bytes at a
 * time past the end of the line, to be written over by what follows.
 */
struct line {
	char *buf;
	size_t len;
	/*
	 * The end of the last text put in the line: what lies past it
	 * is padding, which line_end drops without reading (a last column
	 * of stacks pads each line with hundreds of blanks)
	 */
	size_t text_end;
	int fits;
};

#define PAD_SLACK 32

/* PAD_SLACK blanks, no terminating NUL */
static const char blanks[PAD_SLACK] = "                                ";

static void line_begin(struct out *o, struct line *l, int fits)
{
	if (OUT_BUF - o->len < LINE_TEXT_MAX + 1)
		out_flush(o);
	l->buf = o->buf + o->len;
	l->len = 0;
	l->text_end = 0;
	l->fits = fits;
}

/* no trailing blanks */
static void line_end(struct out *o, struct line *l)
{
	l->len = l->text_end;
	while (l->len && l->buf[l->len - 1] == ' ')
		l->len--;
	l->buf[l->len++] = '\n';
	o->len += l->len;
}

static inline __attribute__((always_inline)) void
put(struct line *l, const char *s, size_t n)
{
	if (!l->fits && n > LINE_TEXT_MAX - l->len)
		n = LINE_TEXT_MAX - l->len;
	memcpy(l->buf + l->len, s, n);
	l->len += n;
	l->text_end = l->len;
}

static inline __attribute__((always_inline)) void
pad(struct line *l, size_t n)
{
	if (l->fits && n <= PAD_SLACK) {
		memcpy(l->buf + l->len, blanks, PAD_SLACK);
		l->len += n;
		return;
	}
	if (n > LINE_TEXT_MAX - l->len)
		n = LINE_TEXT_MAX - l->len;
	memset(l->buf + l->len, ' ', n);
	l->len += n;
}

/*
 * A cell wider than its column (which measuring rules out, but a row
 * function that gave other values when drawn than when measured would
 * not) leaves the line to the checked path.
 */
static inline __attribute__((always_inline)) void
overwide(struct line *l, size_t n, size_t w)
{
	if (n > w)
		l->fits = 0;
}

/* s (n bytes) in a field of width w, left or right aligned */
static inline __attribute__((always_inline)) void
field(struct line *l, const char *s, size_t n, size_t w, int left)
{
	overwide(l, n, w);
	if (!left && n < w)
		pad(l, w - n);
	put(l, s, n);
	if (left && n < w)
		pad(l, w - n);
}

/*
 * Room for text of n bytes in a field of width w, padded: the text is
 * then written straight into the line.  NULL when the line would be cut.
 */
static inline __attribute__((always_inline)) char *
field_room(struct line *l, size_t n, size_t w, int left)
{
	char *p;

	overwide(l, n, w);
	if (!l->fits && l->len + (n > w ? n : w) > LINE_TEXT_MAX)
		return NULL;
	if (!left && n < w)
		pad(l, w - n);
	p = l->buf + l->len;
	l->len += n;
	l->text_end = l->len;
	if (left && n < w)
		pad(l, w - n);
	return p;
}

/* a value as cell_text() makes it, in size bytes at most, in a field */
static __attribute__((noinline)) void
field_text(struct line *l, const struct kmt_col *col, const union kmt_val *v,
	   size_t w, int left, size_t size)
{
	char buf[CELL_BUF];
	const char *s;
	size_t n;

	s = cell_text(buf, size, col->type, v, col->flags, &n);
	field(l, s, n, w, left);
}

/*
 * A value in a field of width w, its text made in size bytes at most.
 * The numbers most cells of a big table hold are written in place, as
 * cell_text() writes them, inline; the rest go through field_text(), out
 * of line with its cell buffer.
 */
static inline __attribute__((always_inline)) void
field_val(struct line *l, const struct kmt_col *col, const union kmt_val *v,
	  size_t w, int left, size_t size)
{
	char *p;
	uint64_t x;
	size_t n;

	switch (col->type) {
	case KMT_V_U64:
		if ((col->flags & KMT_COL_GROUPED) ||
		    (!v->u && (col->flags & KMT_COL_DOT_ZERO)))
			break;
		/* fall through */
	case KMT_V_S64:
		if (col->type == KMT_V_S64 &&
		    (v->s < 0 || (col->flags & KMT_COL_GROUPED)))
			break;
		n = kmt_dec_width(v->u);
		p = field_room(l, n, w, left);
		if (!p)
			break;
		kmt_put_dec(p + n, v->u);
		return;
	case KMT_V_HEX:
		p = field_room(l, hex_width(v->u), w, left);
		if (!p)
			break;
		put_hex(p, v->u);
		return;
	case KMT_V_PCT:
		if ((col->flags & KMT_COL_TENTHS) || pct_milli(v->d, &x))
			break;
		p = field_room(l, kmt_dec_width(x / 1000) + 5, w, left);
		if (!p)
			break;
		put_pct(p, x);
		return;
	default:
		break;
	}
	field_text(l, col, v, w, left, size);
}

static void rule(FILE *out, size_t width)
{
	size_t i;

	for (i = 0; i < width; i++)
		fputc('-', out);
	fputc('\n', out);
}

/* columns that are no column of the text: drawn elsewhere or not at all */
#define NOT_COLUMN (KMT_COL_NO_TEXT | KMT_COL_ABSENT | KMT_COL_BELOW)

/* what the pieces of a table share: its column widths, measured once */
struct text_layout {
	size_t *w;
	size_t line;		/* at least as long as any line of the table */
	int fits;		/* every row line fits (struct line) */
	int absent;		/* the KMT_COL_ABSENT column, or -1 */
	int below;		/* the table has KMT_COL_BELOW columns */
	size_t indent;		/* where their lines start: the second column */
};

/* the heading (row NULL) or a row of a table */
static void table_line(struct line *l, const struct kmt_table *t,
		       const struct text_layout *lay, const union kmt_val *row)
{
	/* 4 bytes each, so that a fitting line copies a constant size */
	const char *sep = t->style == KMT_TABLE_PERF ? " | " : "  \0";
	size_t seplen = t->style == KMT_TABLE_PERF ? 3 : 2;
	uint64_t absent = row ? kmt_row_absent(row, lay->absent) : 0;
	int first = 1, fixed = t->style == KMT_TABLE_FIXED;
	const size_t *w = lay->w;
	size_t c;

	for (c = 0; c < t->ncols; c++) {
		const struct kmt_col *col = &t->cols[c];
		int left = col->flags & KMT_COL_LEFT;

		if (col->flags & NOT_COLUMN)
			continue;
		if (fixed) {
			pad(l, kmt_col_gap(col));
		} else if (t->col_text && t->col_text[c].sep) {
			put(l, t->col_text[c].sep, strlen(t->col_text[c].sep));
		} else if (first) {
			put(l, " ", 1);
		} else if (l->fits) {
			memcpy(l->buf + l->len, sep, 4);
			l->len += seplen;
			l->text_end = l->len;
		} else {
			put(l, sep, seplen);
		}
		first = 0;
		if (kmt_cell_absent(absent, c)) {
			field(l, "", 0, w[c], left);
		} else if (row && (t->unrecorded >> c & 1) && t->missing) {
			const char *word = kmt_missing_word(t->missing);

			field(l, word, strlen(word), w[c], left);
		} else if (!row) {
			size_t cw = w[c];

			if (col->flags & KMT_COL_JOIN_NEXT)
				cw = w[c] + 1 + w[c + 1];
			field(l, col->title, strlen(col->title), cw, left);
		} else if (col->flags & KMT_COL_JOIN_NEXT) {
			field_val(l, col, &row[c], w[c], 0, CELL_BUF);
			put(l, "/", 1);
			field_val(l, &t->cols[c + 1], &row[c + 1], w[c + 1], 1,
				  CELL_BUF2);
		} else {
			field_val(l, col, &row[c], w[c], left, CELL_BUF);
		}
		if (col->flags & KMT_COL_JOIN_NEXT)
			c++;
	}
}

/*
 * KMT_TABLE_FIXED: the widths are the columns' own, nothing is measured;
 * the lines under the rows start where the second column does
 */
static void fixed_widths(const struct kmt_table *t, struct text_layout *lay)
{
	size_t c, line = 0, drawn = 0;

	for (c = 0; c < t->ncols; c++) {
		const struct kmt_col *col = &t->cols[c];

		if (col->flags & NOT_COLUMN)
			continue;
		line += kmt_col_gap(col);
		if (drawn++ < 2)
			lay->indent = line;
		lay->w[c] = kmt_col_width(col);
		line += lay->w[c];
	}
	lay->line = line;
}

/*
 * Column widths: the widest cell or heading.  A joined pair ("Total/Per")
 * keeps the widths of its halves so the slash lines up as perf's does.
 * -ENOMEM, or 0.
 */
static int measure_table(const struct kmt_table *t, struct text_layout *lay)
{
	size_t n = t->ncols ? t->ncols : 1, r, c, line = 0, drawn = 0;
	size_t *w = calloc(n, sizeof(*w));
	struct col_measure *m = calloc(n, sizeof(*m));
	union kmt_val *rowbuf = calloc(n, sizeof(*rowbuf));
	int fixed = t->style == KMT_TABLE_FIXED;

	if (!w || !m || !rowbuf) {
		free(w);
		free(m);
		free(rowbuf);
		return -ENOMEM;
	}
	lay->w = w;
	lay->absent = kmt_table_col_flagged(t, KMT_COL_ABSENT);
	lay->below = kmt_table_col_flagged(t, KMT_COL_BELOW) >= 0;
	if (fixed) {
		fixed_widths(t, lay);
		goto done;
	}
	for (r = 0; r < t->nrows; r++) {
		const union kmt_val *row = kmt_table_row(t, r, rowbuf);
		uint64_t absent = kmt_row_absent(row, lay->absent);

		for (c = 0; c < t->ncols; c++) {
			const struct kmt_col *col = &t->cols[c];

			if (!(col->flags & NOT_COLUMN) &&
			    !kmt_cell_absent(absent, c))
				measure(&m[c], col->type, &row[c], col->flags);
		}
	}
	for (c = 0; c < t->ncols && t->nrows; c++) {
		const struct kmt_col *col = &t->cols[c];

		if (!(col->flags & NOT_COLUMN))
			w[c] = measured_width(&m[c], col->type, col->flags);
	}
	/* a width of its own, cell by cell: a wider cell leaves the line */
	for (c = 0; t->col_text && c < t->ncols; c++) {
		if (t->col_text[c].width)
			w[c] = t->col_text[c].width;
	}
	/* a heading wider than a joined pair widens its first half */
	for (c = 0; t->style != KMT_TABLE_BARE && c < t->ncols; c++) {
		const struct kmt_col *col = &t->cols[c];
		size_t need = strlen(col->title);

		if ((t->unrecorded >> c & 1) && t->missing && t->nrows &&
		    need < strlen(kmt_missing_word(t->missing)))
			need = strlen(kmt_missing_word(t->missing));

		if (col->flags & NOT_COLUMN)
			continue;
		if (col->flags & KMT_COL_JOIN_NEXT) {
			if (w[c] + 1 + w[c + 1] < need)
				w[c] = need - 1 - w[c + 1];
			c++;
		} else if (w[c] < need) {
			w[c] = need;
		}
	}
	for (c = 0; c < t->ncols; c++) {
		const struct kmt_col *col = &t->cols[c];
		size_t cw = w[c];

		if (col->flags & NOT_COLUMN)
			continue;
		if (col->flags & KMT_COL_JOIN_NEXT)
			cw = w[c] + 1 + w[c + 1];
		/* the second column starts after the first and a separator */
		if (drawn++ == 1)
			lay->indent = line +
				      (t->style == KMT_TABLE_PERF ? 3 : 2);
		else if (drawn == 1)
			lay->indent = 1;
		if (t->col_text && t->col_text[c].sep)
			line += cw + strlen(t->col_text[c].sep);
		else
			line += cw + (line ? 3 : 1);
		if (col->flags & KMT_COL_JOIN_NEXT)
			c++;
	}
	lay->line = line;
done:
	free(m);
	free(rowbuf);
	lay->fits = lay->line + PAD_SLACK <= LINE_TEXT_MAX;
	return 0;
}

/* "the recording has no kmem:x events (record them with: ...)" */
static void missing_why(const struct kmt_missing *m, FILE *f)
{
	if (m->what)
		fprintf(f, "the recording has no %s", m->what);
	else if (m->known)
		fprintf(f, "the recording has no %s events", m->events_text);
	else
		fprintf(f, "the input has no %s events, and text does not "
			"say which events were enabled", m->events_text);
	fprintf(f, " (record them with: %s)\n", m->record_with);
}

/*
 * under a table: its columns or rows not recorded, the legend of its
 * cells; each line after margin, the table's own
 */
static void table_notes(const struct kmt_table *t, const char *margin,
			FILE *f)
{
	size_t c, k = 0;

	if (t->unrecorded && t->missing) {
		fprintf(f, "%s%s:", margin, kmt_missing_word(t->missing));
		for (c = 0; c < t->ncols; c++) {
			if (!(t->unrecorded >> c & 1) ||
			    (t->cols[c].flags & NOT_COLUMN))
				continue;
			fprintf(f, "%s %s", k++ ? "," : "", t->cols[c].title);
		}
		fputs(": ", f);
		missing_why(t->missing, f);
	} else if (t->unrecorded_kind && t->missing) {
		fprintf(f, "%s%s: %s rows: ", margin,
			kmt_missing_word(t->missing), t->unrecorded_kind);
		missing_why(t->missing, f);
	}
	for (k = 0; k < t->nr_legend; k++)
		fprintf(f, "%s%s\n", margin, t->legend[k]);
}

/* "... 12 more rows": the rows -l left out, after margin */
static void more_rows(const struct kmt_table *t, const char *margin, FILE *f)
{
	if (t->total_rows > t->nrows)
		fprintf(f, "%s... %zu more row%s\n", margin,
			t->total_rows - t->nrows,
			t->total_rows - t->nrows == 1 ? "" : "s");
}

/* what ends a table after its rows: the rows left out, its notes */
static void table_end(const struct kmt_table *t, const char *margin, FILE *f)
{
	more_rows(t, margin, f);
	table_notes(t, margin, f);
}

/* cell c of a row as text (n bytes), or the word for "not recorded" */
static const char *cell_or_missing(const struct kmt_table *t, size_t c,
				   const union kmt_val *row,
				   char buf[CELL_BUF], size_t *n)
{
	if ((t->unrecorded >> c & 1) && t->missing) {
		*n = strlen(kmt_missing_word(t->missing));
		return kmt_missing_word(t->missing);
	}
	return cell_text(buf, CELL_BUF, t->cols[c].type, &row[c],
			 t->cols[c].flags, n);
}

/*
 * Rows [r0, r1) of a KMT_TABLE_LINES table, a line each: "title cell"
 * for each text column; after the last, what ends any table.
 */
static int lines_piece(const struct kmt_table *t, size_t r0, size_t r1,
		       FILE *f)
{
	union kmt_val *rowbuf = calloc(t->ncols ? t->ncols : 1,
				       sizeof(*rowbuf));
	char buf[CELL_BUF];
	size_t r, c, n;

	if (!rowbuf)
		return -ENOMEM;
	for (r = r0; r < r1; r++) {
		const union kmt_val *row = kmt_table_row(t, r, rowbuf);
		int first = 1;

		for (c = 0; c < t->ncols; c++) {
			const struct kmt_col *col = &t->cols[c];
			const char *text;

			if (col->flags & KMT_COL_NO_TEXT)
				continue;
			text = cell_or_missing(t, c, row, buf, &n);
			fprintf(f, "%s%s %.*s", first ? "" : " ", col->title,
				(int)n, text);
			first = 0;
		}
		fputc('\n', f);
	}
	free(rowbuf);
	if (r1 < t->nrows)
		return 0;
	table_end(t, " ", f);
	return 0;
}

/*
 * A row's KMT_COL_BELOW lines, written as they are: they are not cut
 * (a stack may be longer than a line of the table may)
 */
static void below_lines(struct out *o, const struct kmt_table *t,
			const struct text_layout *lay, const union kmt_val *row)
{
	size_t c;

	for (c = 0; c < t->ncols; c++) {
		if (!(t->cols[c].flags & KMT_COL_BELOW) || !row[c].str)
			continue;
		out_flush(o);
		fprintf(o->f, "%*s%s\n", (int)lay->indent, "", row[c].str);
	}
}

/*
 * Rows [r0, r1) of a table; its title and heading before them when r0
 * is 0, what ends it after them when r1 is its last.  -ENOMEM, or 0.
 */
static int table_piece(const struct kmt_table *t, const struct text_layout *lay,
		       size_t r0, size_t r1, FILE *f)
{
	union kmt_val *rowbuf = calloc(t->ncols ? t->ncols : 1,
				       sizeof(*rowbuf));
	struct out o = { .f = f, .buf = malloc(OUT_BUF) };
	int fixed = t->style == KMT_TABLE_FIXED;
	size_t r, line = lay->line;
	struct line l;

	if (!rowbuf || !o.buf) {
		free(rowbuf);
		free(o.buf);
		return -ENOMEM;
	}
	if (!r0 && t->style != KMT_TABLE_BARE) {
		if (t->title)
			fprintf(f, "\n%s\n", t->title);
		else
			fputc('\n', f);
		if (t->style == KMT_TABLE_PERF)
			rule(f, line > RULE_WIDTH ? line : RULE_WIDTH);
		line_begin(&o, &l, 0);
		table_line(&l, t, lay, NULL);
		line_end(&o, &l);
		out_flush(&o);
		if (!fixed)
			rule(f, t->style == KMT_TABLE_PERF && line < RULE_WIDTH ?
				RULE_WIDTH : line);
	}
	for (r = r0; r < r1; r++) {
		const union kmt_val *row = kmt_table_row(t, r, rowbuf);

		line_begin(&o, &l, lay->fits);
		table_line(&l, t, lay, row);
		line_end(&o, &l);
		if (lay->below)
			below_lines(&o, t, lay, row);
	}
	out_flush(&o);
	free(o.buf);
	free(rowbuf);
	if (r1 < t->nrows)
		return 0;
	more_rows(t, " ", f);
	if (!t->nrows && !fixed && t->style != KMT_TABLE_BARE)
		fprintf(f, " (none)\n");
	if (t->style == KMT_TABLE_PERF)
		rule(f, line > RULE_WIDTH ? line : RULE_WIDTH);
	table_notes(t, " ", f);
	return 0;
}

/* n blanks */
static void put_blanks(FILE *f, size_t n)
{
	while (n >= PAD_SLACK) {
		fwrite(blanks, 1, PAD_SLACK, f);
		n -= PAD_SLACK;
	}
	fwrite(blanks, 1, n, f);
}

/* a line of a fixed table: its heading (row NULL) or a row, as printf */
static void widths_line(const struct kmt_table *t, const union kmt_val *row,
		       FILE *f)
{
	char buf[CELL_BUF];
	int first = 1;
	size_t c;

	for (c = 0; c < t->ncols; c++) {
		const struct kmt_col *col = &t->cols[c];
		size_t w = t->widths ? t->widths[c] : 0, n;
		const char *s;

		if (col->flags & KMT_COL_NO_TEXT)
			continue;
		if (!first)
			fputc(' ', f);
		first = 0;
		if (!row || ((t->unrecorded >> c & 1) && t->missing)) {
			s = row ? kmt_missing_word(t->missing) :
			    col->title ? col->title : "";
			n = strlen(s);
		} else {
			s = cell_text(buf, sizeof(buf), col->type, &row[c],
				      col->flags, &n);
		}
		if (!(col->flags & KMT_COL_LEFT) && n < w)
			put_blanks(f, w - n);
		fwrite(s, 1, n, f);
		if ((col->flags & KMT_COL_LEFT) && n < w)
			put_blanks(f, w - n);
	}
	fputc('\n', f);
}

static int widths_piece(const struct kmt_table *t, size_t r0, size_t r1,
		       FILE *f)
{
	union kmt_val *rowbuf;
	size_t r;

	if (!t->nrows)
		return 0;
	rowbuf = calloc(t->ncols ? t->ncols : 1, sizeof(*rowbuf));
	if (!rowbuf)
		return -ENOMEM;
	if (!r0) {
		fputc('\n', f);
		if (t->title)
			fprintf(f, "%s\n", t->title);
		widths_line(t, NULL, f);
	}
	for (r = r0; r < r1; r++)
		widths_line(t, kmt_table_row(t, r, rowbuf), f);
	free(rowbuf);
	if (r1 == t->nrows)
		table_end(t, "", f);	/* no margin */
	return 0;
}

/* s, n bytes, into o; what does not fit in its buffer is written as it is */
static void out_put(struct out *o, const char *s, size_t n)
{
	if (n > OUT_BUF - o->len)
		out_flush(o);
	if (n >= OUT_BUF) {
		fwrite(s, 1, n, o->f);
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/*
 * Rows [r0, r1) of a block table.  A dump's groups are as big as the
 * dump: gathered in a buffer, as the other tables' lines, and never cut.
 */
static int block_piece(const struct kmt_table *t, size_t r0, size_t r1,
		       FILE *f)
{
	union kmt_val *rowbuf = calloc(t->ncols ? t->ncols : 1,
				       sizeof(*rowbuf));
	struct out o = { .f = f, .buf = malloc(OUT_BUF) };
	size_t *title_len = calloc(t->ncols ? t->ncols : 1,
				   sizeof(*title_len));
	char buf[CELL_BUF];
	size_t r, c, n;

	if (!rowbuf || !o.buf || !title_len) {
		free(rowbuf);
		free(o.buf);
		free(title_len);
		return -ENOMEM;
	}
	for (c = 0; c < t->ncols; c++)
		title_len[c] = t->cols[c].title ? strlen(t->cols[c].title) : 0;
	for (r = r0; r < r1; r++) {
		const union kmt_val *row = kmt_table_row(t, r, rowbuf);

		for (c = 0; c < t->ncols; c++) {
			const struct kmt_col *col = &t->cols[c];
			const char *s;

			if (col->flags & KMT_COL_NO_TEXT)
				continue;
			if (title_len[c])
				out_put(&o, col->title, title_len[c]);
			s = cell_or_missing(t, c, row, buf, &n);
			out_put(&o, s, n);
		}
		out_put(&o, "\n", 1);
	}
	out_flush(&o);
	free(o.buf);
	free(rowbuf);
	free(title_len);
	if (r1 == t->nrows)
		table_end(t, "", f);	/* no margin */
	return 0;
}

static void render_summary(const struct kmt_summary *s, FILE *out)
{
	size_t i, n;
	char buf[64];

	if (s->title) {
		fprintf(out, "\n%s\n", s->title);
		for (n = strlen(s->title); n; n--)
			fputc('=', out);
		fputc('\n', out);
	}
	for (i = 0; i < s->nr; i++) {
		const struct kmt_sum_item *it = &s->items[i];

		/* members of JSON's alone */
		if ((it->flags & KMT_COL_NO_TEXT) ||
		    it->kind == KMT_SUM_BEGIN || it->kind == KMT_SUM_END ||
		    (!it->label && it->kind != KMT_SUM_BLANK))
			continue;
		if (it->missing && it->kind != KMT_SUM_BLANK &&
		    it->kind != KMT_SUM_NOTE) {
			fprintf(out, "%s %s", it->label,
				kmt_missing_word(it->missing));
			if (it->missing->what)
				fprintf(out, " (the recording has no %s)",
					it->missing->what);
			fputc('\n', out);
			continue;
		}
		switch (it->kind) {
		case KMT_SUM_VALUE:
			/* a string whole: a file name can be longer than buf */
			if (it->type == KMT_V_STR) {
				fprintf(out, "%s %s", it->label,
					it->v.str ? it->v.str : "");
				break;
			}
			if (it->type == KMT_V_PCT)
				snprintf(buf, sizeof(buf), "%f%%", it->v.d);
			else
				format_val(buf, sizeof(buf), it->type, &it->v,
					   it->flags);
			fprintf(out, "%s %s", it->label, buf);
			break;
		case KMT_SUM_NOTE_VALUE:
			format_val(buf, sizeof(buf), it->type, &it->v, it->flags);
			fprintf(out, "%*s %s", (int)it->width, buf, it->label);
			break;
		case KMT_SUM_RATIO:
			fprintf(out, "%s %" PRIu64 "/%" PRIu64, it->label,
				it->v.u, it->v2.u);
			break;
		case KMT_SUM_PAGES:
			fprintf(out, "%-30s: %16" PRIu64 "   [ %16" PRIu64 " KB ]",
				it->label, it->v.u, it->v2.u / 1024);
			break;
		case KMT_SUM_BLANK:
			break;
		case KMT_SUM_NOTE:
			fprintf(out, "%s", it->label);
			break;
		case KMT_SUM_BEGIN:
		case KMT_SUM_END:
			break;
		}
		if (it->note)
			fprintf(out, " (%s)", it->note);
		fputc('\n', out);
	}
}

static void render_meta(const struct kmt_report_meta *m, FILE *out)
{
	size_t i;

	fprintf(out, "# input:  %s (%s", m->input, m->format);
	if (m->kernel && *m->kernel)
		fprintf(out, ", kernel %s", m->kernel);
	if (m->nr_cpus)
		fprintf(out, ", %d CPU%s", m->nr_cpus,
			m->nr_cpus == 1 ? "" : "s");
	fprintf(out, ")\n");
	if (m->snapshot)
		goto unreadable;
	if (m->last_ts >= m->first_ts && m->first_ts)
		fprintf(out, "# span:   %.6f s (%" PRIu64 ".%06" PRIu64
			" .. %" PRIu64 ".%06" PRIu64 ")\n",
			(m->last_ts - m->first_ts) / 1e9,
			m->first_ts / 1000000000, m->first_ts / 1000 % 1000000,
			m->last_ts / 1000000000, m->last_ts / 1000 % 1000000);
	else
		fprintf(out, "# span:   no kmem events\n");
	if (m->has_start) {
		char when[64];

		fprintf(out, "# start:  %s",
			kmt_utc_text(m->start_unix_ns, 0, when, sizeof(when)));
		if (m->boot_id && *m->boot_id)
			fprintf(out, " (boot %s)", m->boot_id);
		fputc('\n', out);
	} else if (m->boot_id && *m->boot_id) {
		fprintf(out, "# boot:   %s\n", m->boot_id);
	}
	if (m->time_start || m->time_end)
		fprintf(out, "# window: --time %" PRIu64 ".%06" PRIu64
			",%" PRIu64 ".%06" PRIu64 "\n",
			m->time_start / 1000000000, m->time_start / 1000 % 1000000,
			m->time_end / 1000000000, m->time_end / 1000 % 1000000);
	fprintf(out, "# events:");
	for (i = 0; i < m->nr_event_types; i++)
		fprintf(out, "%s %s %" PRIu64, i ? "," : "", m->events[i].name,
			m->events[i].count);
	if (!m->nr_event_types)
		fprintf(out, " none");
	fprintf(out, "\n# other:  %" PRIu64 " event%s of other subsystems skipped\n",
		m->other_events, m->other_events == 1 ? "" : "s");
	for (i = 0; i < m->nr_formats && i < KMT_META_FORMATS; i++) {
		const struct kmt_meta_format *f = &m->formats[i];

		if (!i)
			fprintf(out, "# formats: %zu event format%s not usable, %s events left out:",
				m->nr_formats, m->nr_formats == 1 ? "" : "s",
				m->nr_formats == 1 ? "its" : "their");
		fprintf(out, "%s %s (%s; %" PRIu64 " record%s)", i ? "," : "",
			f->name, f->why, f->records,
			f->records == 1 ? "" : "s");
	}
	if (m->nr_formats > KMT_META_FORMATS)
		fprintf(out, ", %zu more", m->nr_formats - KMT_META_FORMATS);
	if (m->nr_formats)
		fputc('\n', out);
	fprintf(out, "# lost:   %" PRIu64 " event%s", m->lost_events,
		m->lost_events == 1 ? "" : "s");
	if (m->lost_records)
		fprintf(out, " (%" PRIu64 " loss report%s)", m->lost_records,
			m->lost_records == 1 ? "" : "s");
	fputc('\n', out);
unreadable:
	fprintf(out, "# unreadable: %" PRIu64 " record%s", m->unreadable,
		m->unreadable == 1 ? "" : "s");
	if (m->unreadable) {
		fprintf(out, ", left out of this report");
		for (i = 0; i < m->nr_notes; i++) {
			const struct kmt_meta_note *n = &m->notes[i];

			fprintf(out, "%s", i ? "; " : " (");
			if (n->unit)
				fprintf(out, "%s %" PRIu64 ": ", n->unit,
					n->where);
			fprintf(out, "%s", n->why);
		}
		if (m->unreadable > m->nr_notes)
			fprintf(out, "%s%" PRIu64 " more", m->nr_notes ? "; " : " (",
				m->unreadable - m->nr_notes);
		fputc(')', out);
	}
	fputc('\n', out);
	if (m->matches_nothing)
		fprintf(out, "# filter: %s\n", m->matches_nothing);
	if (m->out_of_order)
		fprintf(out, "# order:  %" PRIu64
			" event%s earlier than their CPU's last: times are not trusted\n",
			m->out_of_order, m->out_of_order == 1 ? "" : "s");
}

void kmt_render_text_layout_free(struct kmt_layout *lay)
{
	size_t i;

	if (!lay)
		return;
	for (i = 0; lay->sec && i < lay->r->nr; i++) {
		struct text_layout *tl = lay->sec[i];

		if (tl)
			free(tl->w);
		free(tl);
	}
	free(lay->sec);
	free(lay);
}

struct kmt_layout *kmt_render_text_layout(const struct kmt_report *r,
					   int more)
{
	struct kmt_layout *lay = calloc(1, sizeof(*lay));
	size_t i;

	if (!lay)
		return NULL;
	lay->r = r;
	lay->more = more;
	lay->sec = calloc(r->nr ? r->nr : 1, sizeof(*lay->sec));
	if (!lay->sec)
		goto oom;
	for (i = 0; i < r->nr; i++) {
		const struct kmt_section *sec = r->sections[i];
		struct text_layout *tl;

		/* tables of given widths have them, blocks none */
		if (sec->kind != KMT_SEC_TABLE ||
		    (sec->flags & KMT_SEC_NO_TEXT) ||
		    sec->table.style == KMT_TABLE_WIDTHS ||
		    sec->table.style == KMT_TABLE_BLOCK)
			continue;
		tl = calloc(1, sizeof(*tl));
		lay->sec[i] = tl;
		if (!tl || measure_table(&r->sections[i]->table, tl))
			goto oom;
	}
	return lay;
oom:
	kmt_render_text_layout_free(lay);
	return NULL;
}

/* each section begins with its own blank line: pieces join as they are */
int kmt_render_text_piece(const struct kmt_layout *lay, size_t i,
			   size_t r0, size_t r1, FILE *out)
{
	const struct kmt_section *sec = lay->r->sections[i];
	int ret;

	if (sec->flags & KMT_SEC_NO_TEXT)
		return 0;
	if (sec->kind == KMT_SEC_TABLE) {
		if (sec->table.style == KMT_TABLE_LINES)
			ret = lines_piece(&sec->table, r0, r1, out);
		else if (sec->table.style == KMT_TABLE_WIDTHS)
			ret = widths_piece(&sec->table, r0, r1, out);
		else if (sec->table.style == KMT_TABLE_BLOCK)
			ret = block_piece(&sec->table, r0, r1, out);
		else
			ret = table_piece(&sec->table, lay->sec[i], r0, r1,
					  out);
		if (ret)
			return -1;
	} else if (sec->kind == KMT_SEC_MISSING) {
		fprintf(out, "\n%s: %s: ", sec->missing.view,
			kmt_missing_word(&sec->missing.why));
		missing_why(&sec->missing.why, out);
	} else {
		render_summary(&sec->summary, out);
	}
	return ferror(out) ? -1 : 0;
}

int kmt_render_text_more(const struct kmt_report *r, FILE *out)
{
	return kmt_render_pieces(kmt_renderer_find("text"), r, 1, out);
}

int kmt_render_text_head(const struct kmt_report *r, FILE *out)
{
	if (!r->meta.bare)
		render_meta(&r->meta, out);
	return ferror(out) ? -1 : 0;
}

int kmt_render_text(const struct kmt_report *r, FILE *out)
{
	if (kmt_render_text_head(r, out))
		return -1;
	return kmt_render_pieces(kmt_renderer_find("text"), r, 0, out);
}
