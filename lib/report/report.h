/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_REPORT_REPORT_H
#define KMT_REPORT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/hash.h"

/*
 * The report model: what analyses produce and renderers draw.  Typed
 * tables and summaries grouped by analysis ("slab", "page", ...); no
 * analysis formats text and no renderer knows an analysis.
 */
enum kmt_val_type {
	KMT_V_U64,
	KMT_V_S64,
	KMT_V_DOUBLE,
	KMT_V_PCT,	/* a percentage: text "%6.3f%%" */
	KMT_V_STR,
	KMT_V_HEX,	/* an address: text "0x...", JSON a "0x..." string */
	KMT_V_DURATION,	/* nanoseconds: text "1.25ms", JSON and CSV the number */
	KMT_V_TIME,	/* a timestamp in ns: text "5678.123456" as traces print
			 * it, JSON and CSV the number */
	KMT_V_BOOL,	/* u: text "yes" or "no", JSON true or false, CSV 1 or 0 */
	/*
	 * Lines of text, each ending in a newline (str): text and CSV the
	 * text as it is, JSON an array of the lines
	 */
	KMT_V_LINES,
	/*
	 * A stack as a kernel prints it, a frame a line, each line indented
	 * (str): as KMT_V_LINES, but JSON's frames without the indentation
	 */
	KMT_V_STACK,
	KMT_V_LIST,	/* integers (a trend, counts by order), struct
			 * kmt_list: text and CSV "1 2 3", JSON an array */
};

enum kmt_col_flags {
	KMT_COL_LEFT	  = 1 << 0, /* left-aligned in text */
	KMT_COL_JOIN_NEXT = 1 << 1, /* text: "this/next" under this title */
	KMT_COL_DOT_ZERO  = 1 << 2, /* text: "." for 0, as perf's matrix */
	KMT_COL_NO_TEXT	  = 1 << 3, /* JSON only */
	KMT_COL_GROUPED   = 1 << 4, /* text: thousands separators */
	KMT_COL_TEXT_ONLY = 1 << 5, /* text only: JSON and CSV have the
				     * full form in another column */
	KMT_COL_TENTHS	  = 1 << 6, /* text: a KMT_V_PCT to one decimal,
				     * "40.0%", and "-" for NaN (a share
				     * of nothing) */
	/*
	 * The text of a KMT_V_DOUBLE, in a column or a summary item:
	 * KMT_COL_RATE, a count a second as perf stat writes it, "%8.3f"
	 * then " M/sec", " K/sec" or " /sec"; KMT_COL_NS, seconds to the
	 * nanosecond, "%.9f".  JSON and CSV have the number.
	 */
	KMT_COL_RATE	  = 1 << 7,
	KMT_COL_NS	  = 1 << 8,
	/*
	 * Not a value but a u64 of the columns (bit c) this row has no
	 * value in: left out of the row in JSON, ndjson and CSV, blank in
	 * text (a member only some rows have).  Drawn nowhere itself.
	 */
	KMT_COL_ABSENT	  = 1 << 9,
	/*
	 * Text, with KMT_COL_TEXT_ONLY, a string: not a column but a line
	 * of its own under the row, from where the row's second column
	 * starts (a stack under its callsite); NULL: no line.
	 */
	KMT_COL_BELOW	  = 1 << 10,
};

/*
 * KMT_TABLE_FIXED, in a column's flags: its width in text (up to 255),
 * and the blanks before it (up to 15; the first column's: at the start
 * of the line)
 */
#define KMT_COL_WIDTH(n)	(((unsigned int)(n) & 0xff) << 16)
#define KMT_COL_GAP(n)		(((unsigned int)(n) & 0xf) << 24)
#define kmt_col_width(col)	((col)->flags >> 16 & 0xff)
#define kmt_col_gap(col)	((col)->flags >> 24 & 0xf)

struct kmt_col {
	const char *key;	/* JSON member name */
	const char *title;	/* text heading */
	enum kmt_val_type type;
	unsigned int flags;
};

/* the value of a KMT_V_LIST cell or item */
struct kmt_list {
	size_t n;
	int64_t v[];
};

union kmt_val {
	uint64_t u;
	int64_t s;
	double d;
	const char *str;
	const struct kmt_list *list;	/* NULL: empty */
};

/*
 * Room for every event type (event/event.h's KMT_EV_NR, asserted where
 * the lists are filled): the report's lists of them by type
 */
#define KMT_REPORT_EV_TYPES 32

/*
 * Events a view or a column needs that the recording does not hold:
 * the report says so where the numbers would be, not a 0 that reads as
 * "none happened".  known: the recording lists the event types it
 * holds (perf.data, trace.dat), so these were not recorded; not known
 * (ftrace text), they were only not seen ("none seen").
 */
struct kmt_missing {
	const char *events[KMT_REPORT_EV_TYPES]; /* "kmem:mm_page_pcpu_drain", ... */
	size_t nr_events;
	const char *events_text; /* "kmem:a or kmem:b" */
	const char *record_with; /* "kmemtrace record --pcpu" */
	int known;
	/*
	 * Not events but a fact the recording lacks ("CPU-to-node map"),
	 * or NULL: text says "not recorded (the recording has no ...)"
	 */
	const char *what;
};

enum kmt_table_style {
	KMT_TABLE_PERF,		/* perf kmem's: dotted rules, " | " between columns */
	KMT_TABLE_PLAIN,	/* columns separated by two spaces, a rule under the heading */
	/*
	 * A time series: text as PLAIN, one row per step; JSON column by
	 * column, {"key": [v0, v1, ...], ...}, ready to plot.
	 */
	KMT_TABLE_SERIES,
	/*
	 * Records among "key: value" lines: text draws each row as one
	 * line, each of its text cells after its column's title and a
	 * space, with nothing before the rows (no blank line, title,
	 * heading or rule) and no "(none)"; JSON and CSV as PLAIN.
	 */
	KMT_TABLE_LINES,
	/*
	 * Columns of the widths the table gives (widths), as printf's "%-*s"
	 * and "%*s" draw them: a wider cell pushes the rest of its line
	 * only.  Text: a blank line, the title if any, a heading of the
	 * titles, the rows, a space between columns and no rule; a table
	 * without rows draws nothing.
	 */
	KMT_TABLE_WIDTHS,
	/*
	 * Records of many lines, as page_owner_sort prints its groups.
	 * Text: no heading, no blank line before; a row is the title and
	 * value of each column in turn with nothing between them (a title
	 * is what goes before its value: ", PID "), then a newline.
	 */
	KMT_TABLE_BLOCK,
	/*
	 * Columns of fixed widths, as top and ps draw theirs, so that a
	 * screen drawn again in place does not move: each column's gap of
	 * blanks, then its cell in its width (KMT_COL_GAP, KMT_COL_WIDTH; a
	 * wider cell widens its own line only, as printf's "%8s" does); the
	 * heading with no rule under it, and for no rows nothing more.
	 * Flags LEFT, NO_TEXT, TEXT_ONLY, ABSENT and BELOW apply.
	 */
	KMT_TABLE_FIXED,
	/*
	 * Text: the rows alone, in the columns' col_text, with no title,
	 * heading, rule, blank line or "(none)" around them: lines that
	 * continue a summary's (a tool's own layout, perf stat's).
	 */
	KMT_TABLE_BARE,
};

/*
 * How text lays out a column, where the style's way is not wanted:
 * sep goes before the cell in place of the style's separator (before
 * the first column, in place of its leading blank); NULL: the style's.
 * width, when not 0, is the least width of each cell, cell by cell as
 * printf's "%18s": a wider cell is drawn whole and pushes the rest of
 * its line, the others stay put.  0: the column's widest cell (or
 * heading).
 */
struct kmt_col_text {
	const char *sep;
	unsigned int width;
};

/*
 * Makes row i of a table into vals (ncols values) when a renderer draws
 * it, from the analysis that added the table.
 */
typedef void (*kmt_row_fn)(void *ctx, size_t i, union kmt_val *vals);

struct kmt_table {
	const char *title;	/* text heading line, or NULL */
	const struct kmt_col *cols;
	size_t ncols;
	union kmt_val *vals;	/* nrows * ncols, unless row_fn */
	size_t nrows;
	size_t alloc;
	size_t total_rows;	/* rows there were before a -l limit */
	enum kmt_table_style style;
	/*
	 * A table of a million rows (--alloc) is not copied into vals: the
	 * analysis keeps its sorted rows and makes each one as it is drawn,
	 * so the report costs no memory of its own.  The analysis must
	 * outlive the rendering.
	 */
	kmt_row_fn row_fn;
	void *row_ctx;
	/*
	 * Columns (bit c) whose events were not recorded: text "not
	 * recorded" (or "none seen"), JSON null, CSV an empty value, and
	 * why under the table.
	 */
	uint64_t unrecorded;
	const struct kmt_missing *missing;
	/*
	 * Rows of a kind (column unrecorded_col, "page") whose events were
	 * not recorded: there are none to draw, and none drawn reads as
	 * none happened, so the renderers say why under the table, with
	 * missing.  NULL: every kind was recorded.  A table's missing
	 * explains its columns or its rows, not both.
	 */
	const char *unrecorded_kind;
	size_t unrecorded_col;
	/*
	 * Text: lines under the table, after its rows (a legend of the
	 * abbreviations in its cells), or NULL.
	 */
	const char *const *legend;
	size_t nr_legend;
	/* KMT_TABLE_WIDTHS: the width of each column's cells in text */
	const unsigned int *widths;
	/* text: one per column (ncols), or NULL: the style's layout */
	const struct kmt_col_text *col_text;
};

/* the values of row i: in vals, or made into buf (ncols values) */
static inline const union kmt_val *kmt_table_row(const struct kmt_table *t,
						 size_t i, union kmt_val *buf)
{
	size_t c;

	if (!t->row_fn)
		return t->vals + i * t->ncols;
	for (c = 0; c < t->ncols; c++)
		buf[c].u = 0;
	t->row_fn(t->row_ctx, i, buf);
	return buf;
}

enum kmt_sum_kind {
	KMT_SUM_VALUE,		/* "label value" */
	KMT_SUM_RATIO,		/* "label a/b" */
	KMT_SUM_PAGES,		/* "%-30s: %16 [ %16 KB ]": requests and bytes */
	KMT_SUM_BLANK,		/* an empty line in text */
	KMT_SUM_NOTE,		/* a text-only line */
	/*
	 * The items up to the matching KMT_SUM_END are members of the JSON
	 * object key (CSV: their columns named "key.<their key>"); text
	 * draws no line for either.
	 */
	KMT_SUM_BEGIN,
	KMT_SUM_END,
	/*
	 * A text-only line of a value: the value right-aligned in width,
	 * then the label ("       1.220965111 seconds time elapsed");
	 * JSON and CSV have the value in another item.
	 */
	KMT_SUM_NOTE_VALUE,
};

struct kmt_sum_item {
	enum kmt_sum_kind kind;
	/*
	 * text, exactly as printed before the value; NULL: the value is not
	 * in text (JSON, ndjson and CSV only)
	 */
	const char *label;
	const char *key;	/* JSON member name */
	enum kmt_val_type type;
	union kmt_val v, v2;
	const char *note;	/* text: appended in parentheses */
	/* its events were not recorded: no value (text says so, JSON null) */
	const struct kmt_missing *missing;
	/*
	 * enum kmt_col_flags of the value: KMT_COL_NO_TEXT (JSON and CSV
	 * only), and the text forms KMT_COL_RATE and KMT_COL_NS
	 */
	unsigned int flags;
	unsigned int width;	/* KMT_SUM_NOTE_VALUE: of the value */
};

struct kmt_summary {
	/*
	 * "SUMMARY (SLAB allocator)", underlined in text; NULL: text draws
	 * the items' lines alone, without the blank line and heading before
	 * them (a command's "key: value" lines).  A summary whose items are all
	 * text-only (blank lines, notes) is no ndjson row.
	 */
	const char *title;
	struct kmt_sum_item *items;
	size_t nr;
	size_t alloc;
};

/*
 * KMT_SEC_MISSING: a view asked for whose events the recording lacks,
 * in place of its tables: "--pcpu: not recorded: ..."
 */
enum kmt_section_kind { KMT_SEC_TABLE, KMT_SEC_SUMMARY, KMT_SEC_MISSING };

struct kmt_missing_view {
	const char *view;	/* as the user asked for it: "--pcpu", "slab" */
	struct kmt_missing why;
};

/* the formats that draw a section: by default every one */
enum kmt_section_flags {
	/*
	 * Not text: figures the text says in other words, or does not
	 * show (what JSON, CSV and ndjson hold for programs)
	 */
	KMT_SEC_NO_TEXT	  = 1 << 0,
	/*
	 * Text only: figures the other formats hold in another section
	 * (text shows them in another order or shape)
	 */
	KMT_SEC_TEXT_ONLY = 1 << 1,
};

struct kmt_section {
	enum kmt_section_kind kind;
	/*
	 * JSON object the section lives in; "" for the document's top
	 * level (a summary's items, a table's array, as members of it,
	 * where the section was added among the groups),
	 * where CSV's and ndjson's table names are the key alone
	 */
	const char *group;
	/*
	 * JSON member name within the group; a summary of key "" has its
	 * items as members of the group's object itself
	 */
	const char *key;
	unsigned int flags;	/* enum kmt_section_flags */
	union {
		struct kmt_table table;
		struct kmt_summary summary;
		struct kmt_missing_view missing;
	};
};

struct kmt_meta_count {
	const char *name;
	uint64_t count;
};

/* a record of the input that could not be read: where and why */
struct kmt_meta_note {
	const char *unit;	/* "line", "byte", or NULL when not known */
	uint64_t where;
	const char *why;
};

#define KMT_META_NOTES 5

/* what every report says about its input */
#define KMT_META_FORMATS	8

struct kmt_report_meta {
	const char *input;
	const char *format;
	const char *kernel;	/* "" unknown */
	const char *host;	/* the traced machine's name, "" unknown */
	const char *boot_id;	/* the traced machine's boot, "" unknown */
	int nr_cpus;
	uint64_t first_ts, last_ts;
	/* the first event on the wall clock, when the recording says */
	int has_start;
	uint64_t start_unix_ns;
	uint64_t time_start, time_end;	/* --time, 0 open */
	struct kmt_meta_count events[KMT_REPORT_EV_TYPES];
	size_t nr_event_types;
	uint64_t other_events;
	/*
	 * Event formats left out as unusable (the reader's session says
	 * why), the first KMT_META_FORMATS of nr_formats: their records
	 * are among the other events
	 */
	struct kmt_meta_format {
		const char *name;	/* "system/name" */
		const char *why;
		uint64_t records;
	} formats[KMT_META_FORMATS];
	size_t nr_formats;
	uint64_t lost_events;
	uint64_t lost_records;
	/*
	 * Records that could not be read (the report leaves them out),
	 * the first of them with where and why, and events that came
	 * earlier than their CPU's last one.
	 */
	uint64_t unreadable;
	struct kmt_meta_note notes[KMT_META_NOTES];
	size_t nr_notes;
	uint64_t out_of_order;
	/* a filter or --time window that matched no event, or NULL */
	const char *matches_nothing;
	int has_stacks;
	/*
	 * The input is a snapshot of counters (/proc/allocinfo), not a
	 * trace: it has no span, events, losses or order to state, only
	 * what could not be read.
	 */
	int snapshot;
	/*
	 * The event types the recording lists (its formats), or when it
	 * lists none (text), NULL: only the types seen are known.
	 */
	const char *recorded[KMT_REPORT_EV_TYPES];
	size_t nr_recorded;
	int types_known;
	/*
	 * The command's output is its sections alone (check, top, watch,
	 * stat, pageowner): text and CSV draw no header of the input, JSON
	 * no "meta" member.  ndjson's rows still carry the host, kernel,
	 * boot and start columns, which every row carries everywhere.
	 */
	int bare;
	/*
	 * The report is one of a series that a command draws as it runs
	 * (top's refreshes, watch's intervals), the seq-th from 1, and
	 * first_ts..last_ts the time from the series' start to it; 0: a
	 * report alone.  JSON is then one line a report (JSON Lines), CSV's
	 * lines begin with seq, and ndjson's rows carry it, "seq".
	 */
	uint64_t seq;
};

/* a number -> a text made for a report (in its arena, or static) */
KMT_HASH_TYPE(kmt_report_texts, const char *)

struct kmt_report {
	struct kmt_arena arena;	/* strings and tables of this report */
	/*
	 * Names already made for addresses ([1]: with --raw-ip), so a table
	 * of a million objects holds a few thousand callsite strings.
	 */
	struct kmt_report_texts sym_memo[2];
	struct kmt_report_meta meta;
	struct kmt_section **sections;
	size_t nr;
	size_t alloc;
	/*
	 * A name could not be copied (kmt_report_strdup gave "" for it):
	 * the report is short of it and must not be drawn as if whole.
	 */
	int oom;
};

void kmt_report_init(struct kmt_report *r);
/*
 * The meta of a report on this machine as it runs (top, watch, stat):
 * its host name, kernel release and boot id, started now, with input
 * and format as given ("live", "bpf").  Strings are copied into r.
 */
void kmt_report_meta_here(struct kmt_report *r, const char *input,
			  const char *format);
void kmt_report_free(struct kmt_report *r);
/* the section group.key ("slab", "allocs"), or NULL */
/* the index of t's column called key, or -1 */
int kmt_table_col(const struct kmt_table *t, const char *key);
struct kmt_section *kmt_report_section(const struct kmt_report *r,
				       const char *group, const char *key);
/* the section added last (to set its flags), or NULL */
static inline struct kmt_section *kmt_report_last(const struct kmt_report *r)
{
	return r->nr ? r->sections[r->nr - 1] : NULL;
}

/* NULL when out of memory; the table is drawn where it was added */
struct kmt_table *kmt_report_add_table(struct kmt_report *r, const char *group,
				       const char *key, const char *title,
				       const struct kmt_col *cols, size_t ncols,
				       enum kmt_table_style style);
struct kmt_summary *kmt_report_add_summary(struct kmt_report *r,
					   const char *group, const char *key,
					   const char *title);

/*
 * What a report says of the event types in types (KMT_EV_BIT) that a
 * view or column needs and the recording lacks; known as in struct
 * kmt_missing.  NULL (r->oom set) when out of memory.
 */
const struct kmt_missing *kmt_report_missing(struct kmt_report *r,
					     uint32_t types, int known);
/*
 * A view asked for that cannot be drawn, in place of its sections:
 * group its JSON object, view its name for the user ("--pcpu").
 * 0 or -ENOMEM.
 */
int kmt_report_add_missing(struct kmt_report *r, const char *group,
			   const char *view, uint32_t types, int known);
/* "not recorded", or for inputs that do not say, "none seen" */
static inline const char *kmt_missing_word(const struct kmt_missing *m)
{
	return m->known ? "not recorded" : "none seen";
}

/*
 * Marks the columns of t, and the items of s (may be NULL) of the same
 * keys, whose events (needs[c] for column c, 0: any) have none in
 * recorded: "not recorded" in place of their values.  Only where the
 * recording lists its event types (known): elsewhere a 0 is what was
 * seen.  0 or -ENOMEM.
 */
int kmt_report_mark_unrecorded(struct kmt_report *r, struct kmt_table *t,
			       const uint32_t *needs, struct kmt_summary *s,
			       uint32_t recorded, int known);

/*
 * What to say in place of the numbers of events needs, when the
 * recording lists its types (known) and none of needs among recorded:
 * else NULL, for a type recorded that never happened counts a true 0,
 * and text cannot tell.  NULL with r->oom set when out of memory.
 */
const struct kmt_missing *kmt_report_unrecorded(struct kmt_report *r,
						uint32_t needs,
						uint32_t recorded, int known);

/*
 * t's rows whose column col would say kind ("page") were not recorded,
 * for m (kmt_report_unrecorded; NULL: nothing to mark).  0, or -EINVAL
 * when t has no column col or its missing explains its columns already.
 */
int kmt_table_mark_kind_unrecorded(struct kmt_table *t, const char *col,
				   const char *kind,
				   const struct kmt_missing *m);

/*
 * The items of s called keys[0..nr) say m ("not recorded") in place of
 * their values; m NULL marks nothing.
 */
void kmt_summary_mark_unrecorded(struct kmt_summary *s,
				 const char *const *keys, size_t nr,
				 const struct kmt_missing *m);

/* the index of t's first column with flag (KMT_COL_ABSENT), or -1 */
int kmt_table_col_flagged(const struct kmt_table *t, unsigned int flag);

/* the columns row has no value in, by its KMT_COL_ABSENT column ac */
static inline uint64_t kmt_row_absent(const union kmt_val *row, int ac)
{
	return ac >= 0 ? row[ac].u : 0;
}

/* whether column c is among them (the first 64 columns can be) */
static inline int kmt_cell_absent(uint64_t absent, size_t c)
{
	return c < 64 && (absent >> c & 1);
}

/*
 * A list of n values (KMT_V_LIST) in r's arena; NULL when out of memory,
 * with r->oom set
 */
const struct kmt_list *kmt_report_list(struct kmt_report *r,
				       const int64_t *v, size_t n);

/* room for n more rows at once; 0 or -ENOMEM */
int kmt_table_reserve(struct kmt_table *t, size_t n);

/*
 * Rows made on demand: nrows rows drawn (of total_rows before a -l
 * limit), row i made by fn(ctx, i, vals) into zeroed values.
 */
void kmt_table_set_row_fn(struct kmt_table *t, size_t nrows,
			  size_t total_rows, kmt_row_fn fn, void *ctx);

/* a new row of ncols values, zeroed; NULL when out of memory */
union kmt_val *kmt_table_add_row(struct kmt_table *t);

int kmt_summary_add(struct kmt_summary *s, const struct kmt_sum_item *item);
int kmt_summary_u64(struct kmt_summary *s, const char *label, const char *key,
		    uint64_t v);
int kmt_summary_pct(struct kmt_summary *s, const char *label, const char *key,
		    double v);
int kmt_summary_ratio(struct kmt_summary *s, const char *label,
		      const char *key, uint64_t n, uint64_t of,
		      const char *note);
int kmt_summary_pages(struct kmt_summary *s, const char *label,
		      const char *key, uint64_t requests, uint64_t bytes);
int kmt_summary_blank(struct kmt_summary *s);

/*
 * A copy of s in the report's arena; "" when out of memory, with r->oom
 * set, so that callers may use the name at once and the report fails
 * once made.
 */
const char *kmt_report_strdup(struct kmt_report *r, const char *s);
const char *kmt_report_printf(struct kmt_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
