// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "report/report.h"
#include "util/strbuf.h"

#define RULE_WIDTH 105

/* 3 significant figures in the largest unit that keeps a leading digit */
static void format_duration(char *buf, size_t size, uint64_t ns)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} units[] = {
		{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns >= units[i].div) {
			snprintf(buf, size, "%.2f%s",
				 (double)ns / (double)units[i].div, units[i].unit);
			return;
		}
	}
	snprintf(buf, size, "%" PRIu64 "ns", ns);
}

/* as "%#" PRIx64: "0" for zero, else 0x and lowercase digits */
static size_t fmt_hex(char *buf, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[24];
	size_t n = 0, i;

	if (!v) {
		buf[0] = '0';
		buf[1] = '\0';
		return 1;
	}
	while (v) {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	}
	buf[0] = '0';
	buf[1] = 'x';
	for (i = 0; i < n; i++)
		buf[2 + i] = tmp[n - 1 - i];
	buf[2 + n] = '\0';
	return n + 2;
}

/*
 * "%.3f%%" without printf for the usual percentages: a frag column of a
 * million rows is drawn twice.  Values a rounding step could print
 * differently from printf (a third decimal of exactly 5 after the
 * multiplication, or out of range) go to printf.
 */
static size_t fmt_pct(char *buf, size_t size, double d)
{
	double scaled = d * 1000.0, frac;
	uint64_t milli;
	size_t n;

	if (!(d >= 0.0 && d < 1e12))
		return (size_t)snprintf(buf, size, "%.3f%%", d);
	milli = (uint64_t)scaled;
	frac = scaled - (double)milli;
	if (frac > 0.4999 && frac < 0.5001)
		return (size_t)snprintf(buf, size, "%.3f%%", d);
	if (frac > 0.5)
		milli++;
	n = kmt_fmt_u64(buf, milli / 1000);
	buf[n++] = '.';
	buf[n++] = (char)('0' + milli / 100 % 10);
	buf[n++] = (char)('0' + milli / 10 % 10);
	buf[n++] = (char)('0' + milli % 10);
	buf[n++] = '%';
	buf[n] = '\0';
	return n;
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
		if (v->s >= 0) {
			*len = kmt_fmt_u64(buf, (uint64_t)v->s);
			return buf;
		}
		snprintf(buf, size, "%" PRId64, v->s);
		break;
	case KMT_V_DOUBLE:
		snprintf(buf, size, "%.3f", v->d);
		break;
	case KMT_V_PCT:
		*len = fmt_pct(buf, size, v->d);
		return buf;
	case KMT_V_STR:
		*len = v->str ? strlen(v->str) : 0;
		return v->str ? v->str : "";
	case KMT_V_HEX:
		*len = fmt_hex(buf, v->u);
		return buf;
	}
	*len = strlen(buf);
	return buf;
}

static void format_val(char *buf, size_t size, enum kmt_val_type type,
		       const union kmt_val *v, unsigned int flags)
{
	size_t n;
	const char *s = cell_text(buf, size, type, v, flags, &n);

	if (s != buf)
		snprintf(buf, size, "%.*s", (int)n, s);
}

/* a text line of a table, built without printf */
struct line {
	char buf[4096];
	size_t len;
};

static void put(struct line *l, const char *s, size_t n)
{
	if (n > sizeof(l->buf) - 1 - l->len)
		n = sizeof(l->buf) - 1 - l->len;
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

static void pad(struct line *l, size_t n)
{
	while (n-- && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = ' ';
}

/* s (n bytes) in a field of width w, left or right aligned */
static void field(struct line *l, const char *s, size_t n, size_t w, int left)
{
	if (!left && n < w)
		pad(l, w - n);
	put(l, s, n);
	if (left && n < w)
		pad(l, w - n);
}

static void rule(FILE *out, size_t width)
{
	size_t i;

	for (i = 0; i < width; i++)
		fputc('-', out);
	fputc('\n', out);
}

/*
 * Column widths: the widest cell or heading.  A joined pair ("Total/Per")
 * keeps the widths of its halves so the slash lines up as perf's does.
 */
static void render_table(const struct kmt_table *t, FILE *out)
{
	size_t *w = calloc(t->ncols, sizeof(*w));
	union kmt_val *rowbuf = calloc(t->ncols ? t->ncols : 1,
				       sizeof(*rowbuf));
	const char *sep = t->style == KMT_TABLE_PERF ? " | " : "  ";
	size_t seplen = strlen(sep);
	size_t r, c, n, line = 0;
	char buf[256];

	if (!w || !rowbuf) {
		free(w);
		free(rowbuf);
		return;
	}
	for (r = 0; r < t->nrows; r++) {
		const union kmt_val *row = kmt_table_row(t, r, rowbuf);

		for (c = 0; c < t->ncols; c++) {
			const struct kmt_col *col = &t->cols[c];

			if (col->flags & KMT_COL_NO_TEXT)
				continue;
			cell_text(buf, sizeof(buf), col->type, &row[c],
				  col->flags, &n);
			if (n > w[c])
				w[c] = n;
		}
	}
	/* a heading wider than a joined pair widens its first half */
	for (c = 0; c < t->ncols; c++) {
		const struct kmt_col *col = &t->cols[c];
		size_t need = strlen(col->title);

		if (col->flags & KMT_COL_NO_TEXT)
			continue;
		if (col->flags & KMT_COL_JOIN_NEXT) {
			if (w[c] + 1 + w[c + 1] < need)
				w[c] = need - 1 - w[c + 1];
			c++;
		} else if (w[c] < need) {
			w[c] = need;
		}
	}

	/* heading */
	for (c = 0; c < t->ncols; c++) {
		const struct kmt_col *col = &t->cols[c];
		size_t cw = w[c];

		if (col->flags & KMT_COL_NO_TEXT)
			continue;
		if (col->flags & KMT_COL_JOIN_NEXT)
			cw = w[c] + 1 + w[c + 1];
		line += cw + (line ? 3 : 1);
		if (col->flags & KMT_COL_JOIN_NEXT)
			c++;
	}
	if (t->title)
		fprintf(out, "\n%s\n", t->title);
	else
		fputc('\n', out);
	if (t->style == KMT_TABLE_PERF)
		rule(out, line > RULE_WIDTH ? line : RULE_WIDTH);

	for (size_t pass = 0; pass <= t->nrows; pass++) {
		const union kmt_val *row = pass ?
			kmt_table_row(t, pass - 1, rowbuf) : NULL;
		struct line l;
		int first = 1;

		l.len = 0;
		for (c = 0; c < t->ncols; c++) {
			const struct kmt_col *col = &t->cols[c];
			int left = col->flags & KMT_COL_LEFT;
			const char *s;

			if (col->flags & KMT_COL_NO_TEXT)
				continue;
			put(&l, first ? " " : sep, first ? 1 : seplen);
			first = 0;
			if (!row) {
				size_t cw = w[c];

				if (col->flags & KMT_COL_JOIN_NEXT)
					cw = w[c] + 1 + w[c + 1];
				field(&l, col->title, strlen(col->title), cw,
				      left);
			} else if (col->flags & KMT_COL_JOIN_NEXT) {
				char b2[128];
				const char *s2;
				size_t n2;

				s = cell_text(buf, sizeof(buf), col->type,
					      &row[c], col->flags, &n);
				s2 = cell_text(b2, sizeof(b2),
					       t->cols[c + 1].type, &row[c + 1],
					       t->cols[c + 1].flags, &n2);
				field(&l, s, n, w[c], 0);
				put(&l, "/", 1);
				field(&l, s2, n2, w[c + 1], 1);
			} else {
				s = cell_text(buf, sizeof(buf), col->type,
					      &row[c], col->flags, &n);
				field(&l, s, n, w[c], left);
			}
			if (col->flags & KMT_COL_JOIN_NEXT)
				c++;
		}
		/* no trailing blanks */
		while (l.len && l.buf[l.len - 1] == ' ')
			l.len--;
		l.buf[l.len++] = '\n';
		fwrite(l.buf, 1, l.len, out);
		if (!row)
			rule(out, t->style == KMT_TABLE_PERF &&
				  line < RULE_WIDTH ? RULE_WIDTH : line);
	}
	if (t->total_rows > t->nrows)
		fprintf(out, " ... %zu more row%s\n", t->total_rows - t->nrows,
			t->total_rows - t->nrows == 1 ? "" : "s");
	if (!t->nrows)
		fprintf(out, " (none)\n");
	if (t->style == KMT_TABLE_PERF)
		rule(out, line > RULE_WIDTH ? line : RULE_WIDTH);
	free(w);
	free(rowbuf);
}

static void render_summary(const struct kmt_summary *s, FILE *out)
{
	size_t i, n;
	char buf[64];

	fprintf(out, "\n%s\n", s->title);
	for (n = strlen(s->title); n; n--)
		fputc('=', out);
	fputc('\n', out);
	for (i = 0; i < s->nr; i++) {
		const struct kmt_sum_item *it = &s->items[i];

		switch (it->kind) {
		case KMT_SUM_VALUE:
			if (it->type == KMT_V_PCT)
				snprintf(buf, sizeof(buf), "%f%%", it->v.d);
			else
				format_val(buf, sizeof(buf), it->type, &it->v, 0);
			fprintf(out, "%s %s", it->label, buf);
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
		fprintf(out, ", %d CPUs", m->nr_cpus);
	fprintf(out, ")\n");
	if (m->last_ts >= m->first_ts && m->first_ts)
		fprintf(out, "# span:   %.6f s (%" PRIu64 ".%06" PRIu64
			" .. %" PRIu64 ".%06" PRIu64 ")\n",
			(m->last_ts - m->first_ts) / 1e9,
			m->first_ts / 1000000000, m->first_ts / 1000 % 1000000,
			m->last_ts / 1000000000, m->last_ts / 1000 % 1000000);
	else
		fprintf(out, "# span:   no kmem events\n");
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
	fprintf(out, "\n# other:  %" PRIu64 " events of other subsystems skipped\n",
		m->other_events);
	fprintf(out, "# lost:   %" PRIu64 " events", m->lost_events);
	if (m->lost_records)
		fprintf(out, " (%" PRIu64 " loss reports)", m->lost_records);
	fputc('\n', out);
}

int kmt_render_text(const struct kmt_report *r, FILE *out)
{
	size_t i;

	render_meta(&r->meta, out);
	for (i = 0; i < r->nr; i++) {
		const struct kmt_section *sec = r->sections[i];

		if (sec->kind == KMT_SEC_TABLE)
			render_table(&sec->table, out);
		else
			render_summary(&sec->summary, out);
	}
	return ferror(out) ? -1 : 0;
}
