// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace pageowner: page_owner_sort's job, streaming.  The options and
 * the text of page_owner_sort are kept so that its users' scripts go on
 * working; the summary and JSON are new.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/pageowner.h"
#include "builtin.h"
#include "options.h"
#include "source/pageowner.h"
#include "source/source.h"
#include "util/array.h"
#include "util/handoff.h"
#include "util/json.h"
#include "util/strbuf.h"

#define PAGE_OWNER_PATH "/sys/kernel/debug/page_owner"
#define SHOW_STACKS_PATH "/sys/kernel/debug/page_owner_stacks/show_stacks"
#define WARN_MALFORMED 5

static const char *const pageowner_usage[] = {
	"kmemtrace pageowner [<options>] [-i <input>] [-o <output>]",
	"kmemtrace pageowner [<options>] [<input> [<output>]]",
	NULL
};

struct po_cmd {
	const char *input, *display, *output;
	int json, summary, debug, limit, threads;
	unsigned int cull;
	int filter_pid, filter_tgid, filter_name;
	struct kmt_po_sortkey keys[KMT_PO_MAX_SORTKEYS];
	int nr_keys;
	struct kmt_po_analysis a;
	FILE *out;
};

static void on_malformed(void *ctx, uint64_t line, const char *why)
{
	struct po_cmd *c = ctx;

	if (c->debug)
		kmt_warning("'%s' line %llu: %s; record skipped", c->display,
			    (unsigned long long)line, why);
	kmt_po_add_malformed(&c->a, line, why);
}

static int on_record(void *ctx, const struct kmt_po_record *r)
{
	struct po_cmd *c = ctx;

	return kmt_po_add(&c->a, r);
}

/* --- text --- */

static void add_u64(struct kmt_sb *sb, uint64_t v)
{
	char buf[20];
	size_t n = sizeof(buf);

	do {
		buf[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	kmt_sb_add(sb, buf + n, sizeof(buf) - n);
}

/* a table's string by id, written with its known length */
static void put_str(FILE *out, const struct kmt_strtab *t, uint32_t id)
{
	if (id && id < t->nr)
		fwrite(t->strs[id], 1, t->lens[id], out);
}

static void add_str(struct kmt_sb *sb, const struct kmt_strtab *t, uint32_t id)
{
	if (id && id < t->nr)
		kmt_sb_add(sb, t->strs[id], t->lens[id]);
}

/*
 * Without --cull there is one block a record at worst, as much output as
 * input: built by hand, no printf, one copy into a buffer that is
 * written a megabyte at a time.
 */
static void add_group_text(const struct po_cmd *c, const struct kmt_po_group *g,
			   struct kmt_sb *sb)
{
	const struct kmt_po_analysis *a = &c->a;

	add_u64(sb, g->times);
	kmt_sb_add(sb, " times, ", 8);
	add_u64(sb, g->pages);
	kmt_sb_add(sb, " pages, allocated by ", 21);
	kmt_sb_adds(sb, kmt_po_class_label(g->klass));
	kmt_sb_add(sb, " :\n", 3);
	if (g->header) {
		kmt_po_group_header(a, g, sb);
		kmt_sb_addc(sb, '\n');
	}
	add_str(sb, &a->stacks, g->stack);
	add_str(sb, &a->strs, g->tail);
	kmt_sb_addc(sb, '\n');
}

#define OUT_BLOCK (1 << 20)

/*
 * Writing a block costs the kernel about what building it costs us: a
 * thread of its own writes the blocks while the next is built, two
 * blocks in turn.  Without the thread, blocks are written in place.
 */
struct block_writer {
	FILE *out;
	struct kmt_sb blocks[2];
	struct kmt_handoff h;
	int threaded, oom;
	int err;		/* errno of the first write that failed */
};

static void write_block(struct block_writer *w, const struct kmt_sb *sb)
{
	if (sb->len && fwrite(sb->buf, 1, sb->len, w->out) != sb->len &&
	    !w->err)
		w->err = errno ? errno : EIO;
}

/*
 * The writer's thread.  Every block is written whatever the writes
 * before it did; the first error is said at the end, from w->err.
 */
static int write_slot(void *arg, size_t slot)
{
	struct block_writer *w = arg;

	write_block(w, &w->blocks[slot]);
	return 0;
}

static struct kmt_sb *writer_start(struct block_writer *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->threaded = !kmt_handoff_start(&w->h, 2, write_slot, w);
	return &w->blocks[0];
}

/* hands the block built over and returns the next one to build */
static struct kmt_sb *writer_next(struct block_writer *w)
{
	size_t fill = w->threaded ? kmt_handoff_slot(&w->h) : 0;
	struct kmt_sb *sb = &w->blocks[fill];

	/* a block that could not grow is output lost: said at the end */
	if (sb->oom) {
		w->oom = 1;
		kmt_sb_reset(sb);
		return sb;
	}
	if (!w->threaded) {
		write_block(w, sb);
		kmt_sb_reset(sb);
		return sb;
	}
	kmt_handoff_put(&w->h);
	sb = &w->blocks[kmt_handoff_slot(&w->h)];
	kmt_sb_reset(sb);
	return sb;
}

/*
 * Writes what is left; returns -ENOMEM when a block was lost, or -errno
 * when a write failed.
 */
static int writer_finish(struct block_writer *w)
{
	writer_next(w);
	if (w->threaded)
		kmt_handoff_finish(&w->h);
	kmt_sb_release(&w->blocks[0]);
	kmt_sb_release(&w->blocks[1]);
	return w->oom ? -ENOMEM : -w->err;
}

static int write_groups_text(const struct po_cmd *c, const uint32_t *order,
			     size_t nr)
{
	struct block_writer w;
	struct kmt_sb *sb = writer_start(&w, c->out);
	size_t i;

	for (i = 0; i < nr; i++) {
		add_group_text(c, &c->a.groups[order[i]], sb);
		if (sb->len >= OUT_BLOCK)
			sb = writer_next(&w);
	}
	return writer_finish(&w);
}

/* with --cull: few groups, page_owner_sort's fields */
static void print_group_culled(const struct po_cmd *c,
			       const struct kmt_po_group *g)
{
	const struct kmt_po_analysis *a = &c->a;
	FILE *out = c->out;

	fprintf(out, "%llu times, %llu pages", (unsigned long long)g->times,
		(unsigned long long)g->pages);
	if ((c->cull & KMT_PO_CULL_PID) || c->filter_pid)
		fprintf(out, ", PID %d", kmt_po_group_pid(a, g));
	if ((c->cull & KMT_PO_CULL_TGID) || c->filter_tgid)
		fprintf(out, ", TGID %d", kmt_po_group_tgid(a, g));
	if ((c->cull & KMT_PO_CULL_NAME) || c->filter_name)
		fprintf(out, ", task_comm_name: %s",
			kmt_po_text(&a->strs, kmt_po_group_comm(a, g)));
	if (c->cull & KMT_PO_CULL_ALLOCATOR)
		fprintf(out, ", allocated by %s ",
			kmt_po_class_label(g->klass));
	if (c->cull & KMT_PO_CULL_STACK) {
		fputs(":\n", out);
		put_str(out, &a->stacks, g->stack);
		put_str(out, &a->strs, g->tail);
	}
	fputc('\n', out);
}

struct named_count {
	const char *name;
	int offline;
	uint64_t records, pages, kmem_pages;
};

static int cmp_named(const void *p, const void *q)
{
	const struct named_count *x = p, *y = q;

	if (x->pages != y->pages)
		return x->pages > y->pages ? -1 : 1;
	if (strcmp(x->name, y->name))
		return strcmp(x->name, y->name);
	return x->offline - y->offline;
}

/*
 * A table keyed by name id as an array sorted by pages, largest first;
 * NULL, *nr 0, when out of memory.
 */
static struct named_count *named_counts(const struct kmt_po_analysis *a,
					const struct kmt_po_counts *h,
					size_t *nr)
{
	struct named_count *v = calloc(kmt_po_counts_count(h) + 1, sizeof(*v));
	struct kmt_po_count *k;
	size_t it = 0, n = 0;
	uint64_t key;

	*nr = 0;
	if (!v)
		return NULL;
	while (kmt_po_counts_next(h, &it, &key, &k)) {
		v[n].name = kmt_po_text(&a->strs, (uint32_t)key);
		v[n].records = k->records;
		v[n].pages = k->pages;
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_named);
	*nr = n;
	return v;
}

/* the memcgs the same way: their key is not their name id */
static struct named_count *named_memcgs(const struct kmt_po_analysis *a,
					size_t *nr)
{
	const struct kmt_po_memcgs *h = &a->by_memcg;
	struct named_count *v = calloc(kmt_po_memcgs_count(h) + 1, sizeof(*v));
	struct kmt_po_memcg *m;
	size_t it = 0, n = 0;

	*nr = 0;
	if (!v)
		return NULL;
	while (kmt_po_memcgs_next(h, &it, NULL, &m)) {
		v[n].name = kmt_po_text(&a->strs, m->name);
		v[n].offline = m->offline;
		v[n].records = m->records;
		v[n].pages = m->pages;
		v[n].kmem_pages = m->kmem_pages;
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_named);
	*nr = n;
	return v;
}

static void print_share(FILE *out, uint64_t part, uint64_t total)
{
	if (total)
		fprintf(out, " %6.1f%%\n", 100.0 * (double)part / (double)total);
	else
		fprintf(out, " %7s\n", "-");
}

static void print_named(FILE *out, const struct kmt_po_analysis *a,
			const struct kmt_po_counts *h, const char *title)
{
	struct named_count *v;
	char n1[32], n2[32];
	size_t i, n;

	if (!kmt_po_counts_count(h))
		return;
	v = named_counts(a, h, &n);
	if (!v)
		return;
	fprintf(out, "\n%-24s %14s %14s %7s\n", title, "records", "pages",
		"share");
	for (i = 0; i < n; i++) {
		fprintf(out, "%-24s %14s %14s", v[i].name,
			kmt_fmt_thousands(n1, sizeof(n1), v[i].records),
			kmt_fmt_thousands(n2, sizeof(n2), v[i].pages));
		print_share(out, v[i].pages, a->nr_pages);
	}
	free(v);
}

static void print_summary(struct po_cmd *c)
{
	const struct kmt_po_analysis *a = &c->a;
	FILE *out = c->out;
	char n1[32], n2[32], n3[32], n4[32];
	struct named_count *v;
	size_t i, n;

	fprintf(out, "page_owner summary of '%s'\n", c->display);
	fprintf(out, "records %s, pages %s, groups %s, distinct stacks %s\n",
		kmt_fmt_thousands(n1, sizeof(n1), a->nr_records),
		kmt_fmt_thousands(n2, sizeof(n2), a->nr_pages),
		kmt_fmt_thousands(n3, sizeof(n3), a->nr_groups),
		kmt_fmt_thousands(n4, sizeof(n4), a->stacks.nr - 1));
	if (a->nr_filtered)
		fprintf(out, "records not selected: %llu\n",
			(unsigned long long)a->nr_filtered);
	fprintf(out, "malformed records skipped: %llu\n",
		(unsigned long long)a->nr_malformed);

	fprintf(out, "\n%-24s %14s %14s %7s\n", "allocator class", "records",
		"pages", "share");
	for (i = 0; i < KMT_PO_CLASS_NR; i++) {
		fprintf(out, "%-24s %14s %14s", kmt_po_class_name((unsigned)i),
			kmt_fmt_thousands(n1, sizeof(n1), a->by_class[i].records),
			kmt_fmt_thousands(n2, sizeof(n2), a->by_class[i].pages));
		print_share(out, a->by_class[i].pages, a->nr_pages);
	}
	print_named(out, a, &a->by_mt, "migratetype");
	print_named(out, a, &a->by_block_mt, "pageblock migratetype");

	if (a->kind == KMT_PO_PAGE) {
		fprintf(out, "\n%-24s %14s %14s %7s\n", "order", "records",
			"pages", "share");
		for (i = 0; i < KMT_PO_MAX_ORDER; i++) {
			if (!a->by_order[i].records)
				continue;
			fprintf(out, "%-24zu %14s %14s", i,
				kmt_fmt_thousands(n1, sizeof(n1),
						  a->by_order[i].records),
				kmt_fmt_thousands(n2, sizeof(n2),
						  a->by_order[i].pages));
			print_share(out, a->by_order[i].pages, a->nr_pages);
		}
	}
	if (kmt_po_memcgs_count(&a->by_memcg)) {
		v = named_memcgs(a, &n);
		if (v) {
			fprintf(out, "\n%-32s %14s %14s %14s\n", "memcg",
				"records", "pages", "kmem pages");
			for (i = 0; i < n; i++) {
				char name[160];

				snprintf(name, sizeof(name), "%s%s", v[i].name,
					 v[i].offline ? " (offline)" : "");
				fprintf(out, "%-32s %14s %14s %14s\n", name,
					kmt_fmt_thousands(n1, sizeof(n1),
							  v[i].records),
					kmt_fmt_thousands(n2, sizeof(n2),
							  v[i].pages),
					kmt_fmt_thousands(n3, sizeof(n3),
							  v[i].kmem_pages));
			}
			free(v);
		}
		fprintf(out, "charged pages %s, in slab cache pages %s\n",
			kmt_fmt_thousands(n1, sizeof(n1), a->charged.pages),
			kmt_fmt_thousands(n2, sizeof(n2), a->slab_cache.pages));
	}
	print_named(out, a, &a->by_reason, "last migrate reason");
	fputc('\n', out);
}

/* --- JSON --- */

static void json_lines(struct kmt_json *j, const char *key, const char *text,
		       int trim)
{
	const char *p = text;

	kmt_json_arr_open(j, key);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *s = p;
		size_t len = n;

		while (trim && len && (*s == ' ' || *s == '\t')) {
			s++;
			len--;
		}
		kmt_json_strn(j, NULL, s, len);
		p += n + (nl ? 1 : 0);
	}
	kmt_json_arr_close(j);
}

/* v: n rows from named_counts, or with memcg from named_memcgs; freed */
static void json_named(struct kmt_json *j, const char *key, const char *field,
		       struct named_count *v, size_t n, int memcg)
{
	size_t i;

	kmt_json_arr_open(j, key);
	for (i = 0; v && i < n; i++) {
		kmt_json_obj_open(j, NULL);
		kmt_json_str(j, field, v[i].name);
		if (memcg)
			kmt_json_bool(j, "offline", v[i].offline);
		kmt_json_u64(j, "records", v[i].records);
		kmt_json_u64(j, "pages", v[i].pages);
		if (memcg)
			kmt_json_u64(j, "kmem_pages", v[i].kmem_pages);
		kmt_json_obj_close(j);
	}
	kmt_json_arr_close(j);
	free(v);
}

static void json_counts(struct kmt_json *j, const struct kmt_po_analysis *a,
			const struct kmt_po_counts *h, const char *key,
			const char *field)
{
	struct named_count *v;
	size_t n;

	v = named_counts(a, h, &n);
	json_named(j, key, field, v, n, 0);
}

static void json_memcgs(struct kmt_json *j, const struct kmt_po_analysis *a)
{
	struct named_count *v;
	size_t n;

	v = named_memcgs(a, &n);
	json_named(j, "memcgs", "memcg", v, n, 1);
}

static void print_json(struct po_cmd *c, const uint32_t *order, size_t nr)
{
	const struct kmt_po_analysis *a = &c->a;
	struct kmt_sb sb = KMT_SB_INIT;
	struct kmt_json j;
	size_t i;

	kmt_json_init(&j, c->out, 1);
	kmt_json_obj_open(&j, NULL);
	kmt_json_str(&j, "input", c->display);
	kmt_json_str(&j, "kind", a->kind == KMT_PO_STACKS ?
		     "page_owner_stacks" : "page_owner");
	kmt_json_u64(&j, "records", a->nr_records);
	kmt_json_u64(&j, "pages", a->nr_pages);
	kmt_json_u64(&j, "not_selected", a->nr_filtered);
	kmt_json_u64(&j, "nr_groups", a->nr_groups);
	kmt_json_u64(&j, "stacks", a->stacks.nr - 1);

	kmt_json_obj_open(&j, "malformed");
	kmt_json_u64(&j, "count", a->nr_malformed);
	kmt_json_arr_open(&j, "first");
	for (i = 0; i < a->nr_kept_malformed; i++) {
		kmt_json_obj_open(&j, NULL);
		kmt_json_u64(&j, "line", a->malformed[i].line);
		kmt_json_str(&j, "reason", a->malformed[i].why);
		kmt_json_obj_close(&j);
	}
	kmt_json_arr_close(&j);
	kmt_json_obj_close(&j);

	kmt_json_obj_open(&j, "format");
	kmt_json_bool(&j, "tgid", !!(a->formats & KMT_PO_FMT_TGID));
	kmt_json_bool(&j, "task_name", !!(a->formats & KMT_PO_FMT_COMM));
	kmt_json_bool(&j, "free_ts", !!(a->formats & KMT_PO_FMT_FREE_TS));
	kmt_json_bool(&j, "pfn_hex", !!(a->formats & KMT_PO_FMT_PFN_HEX));
	kmt_json_bool(&j, "memcg", !!(a->formats & KMT_PO_FMT_MEMCG));
	kmt_json_bool(&j, "migrate_reason",
		      !!(a->formats & KMT_PO_FMT_MIGRATE));
	kmt_json_bool(&j, "migratetype_numbers",
		      !!(a->formats & KMT_PO_FMT_MT_NUMBER));
	kmt_json_obj_close(&j);

	kmt_json_arr_open(&j, "classes");
	for (i = 0; i < KMT_PO_CLASS_NR; i++) {
		kmt_json_obj_open(&j, NULL);
		kmt_json_str(&j, "class", kmt_po_class_name((unsigned)i));
		kmt_json_u64(&j, "records", a->by_class[i].records);
		kmt_json_u64(&j, "pages", a->by_class[i].pages);
		kmt_json_obj_close(&j);
	}
	kmt_json_arr_close(&j);

	kmt_json_arr_open(&j, "orders");
	for (i = 0; i < KMT_PO_MAX_ORDER; i++) {
		if (!a->by_order[i].records)
			continue;
		kmt_json_obj_open(&j, NULL);
		kmt_json_u64(&j, "order", i);
		kmt_json_u64(&j, "records", a->by_order[i].records);
		kmt_json_u64(&j, "pages", a->by_order[i].pages);
		kmt_json_obj_close(&j);
	}
	kmt_json_arr_close(&j);
	json_counts(&j, a, &a->by_mt, "migratetypes", "migratetype");
	json_counts(&j, a, &a->by_block_mt, "pageblock_migratetypes",
		    "migratetype");
	json_memcgs(&j, a);
	json_counts(&j, a, &a->by_reason, "migrate_reasons", "reason");

	kmt_json_arr_open(&j, "groups");
	for (i = 0; i < nr; i++) {
		const struct kmt_po_group *g = &a->groups[order[i]];
		int whole = !c->cull;

		kmt_json_obj_open(&j, NULL);
		kmt_json_u64(&j, "times", g->times);
		kmt_json_u64(&j, "pages", g->pages);
		kmt_json_str(&j, "allocator", kmt_po_class_name(g->klass));
		if (whole && g->header) {
			kmt_sb_reset(&sb);
			kmt_po_group_header(a, g, &sb);
			kmt_json_str(&j, "record", kmt_sb_str(&sb));
		}
		if ((whole && g->header) || (c->cull & KMT_PO_CULL_PID) ||
		    c->filter_pid)
			kmt_json_s64(&j, "pid", kmt_po_group_pid(a, g));
		if ((whole && g->header) || (c->cull & KMT_PO_CULL_TGID) ||
		    c->filter_tgid)
			kmt_json_s64(&j, "tgid", kmt_po_group_tgid(a, g));
		if ((whole && g->header) || (c->cull & KMT_PO_CULL_NAME) ||
		    c->filter_name)
			kmt_json_str(&j, "name", kmt_po_text(&a->strs,
					kmt_po_group_comm(a, g)));
		if (g->header)
			kmt_json_u64(&j, "first_ts", g->ts);
		if (whole || (c->cull & KMT_PO_CULL_STACK)) {
			json_lines(&j, "stack",
				   kmt_po_text(&a->stacks, g->stack), 1);
			json_lines(&j, "extra", kmt_po_text(&a->strs, g->tail),
				   0);
		}
		kmt_json_obj_close(&j);
	}
	kmt_json_arr_close(&j);
	kmt_json_obj_close(&j);
	kmt_json_finish(&j);
	kmt_sb_release(&sb);
}

/* --- options --- */

static int split_names(const char *spec, char ***names, size_t *nr)
{
	size_t alloc = 0;
	const char *p = spec;

	*names = NULL;
	*nr = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (KMT_ARRAY_GROW(*names, *nr + 1, alloc))
			return -ENOMEM;
		(*names)[*nr] = strndup(p, len);
		if (!(*names)[*nr])
			return -ENOMEM;
		(*nr)++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* --- reading a regular file in parts, a thread a part --- */

/* below this, a file is read in one piece unless --threads says */
#define AUTO_SPLIT_BYTES (16ULL << 20)
#define AUTO_MAX_THREADS 4
#define MAX_THREADS 64

struct po_part {
	struct kmt_po_part range;
	struct kmt_po_reader r;
	struct kmt_po_analysis a;
	const char *display;
	pthread_t thread;
	int fd, ret, started;
};

static void *read_part(void *arg)
{
	struct po_part *p = arg;

	p->ret = kmt_po_read_part(&p->r, p->fd, &p->range, p->display);
	return NULL;
}

/* the CPUs this process may run on */
static int usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

static int plan_threads(const struct po_cmd *c, uint64_t size)
{
	int n;

	/* -d reports malformed records as they come, in file order */
	if (c->debug)
		return 1;
	if (c->threads)
		return c->threads;
	if (size < AUTO_SPLIT_BYTES)
		return 1;
	n = usable_cpus();
	return n < AUTO_MAX_THREADS ? n : AUTO_MAX_THREADS;
}

/*
 * Reads ranges[1..n-1] in threads, each into an analysis of its own, and
 * ranges[0] here into c->a with r; then folds the others into c->a in
 * file order.  r ends with the totals of all parts.
 */
static int read_parts(struct po_cmd *c, int fd,
		      const struct kmt_po_part *ranges, int n,
		      struct kmt_po_reader *r)
{
	struct po_part *parts = calloc((size_t)n, sizeof(*parts));
	uint64_t lines;
	int i, ret;

	if (!parts)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		struct po_part *p = &parts[i];

		p->range = ranges[i];
		p->fd = fd;
		p->display = c->display;
		if (kmt_po_analysis_init(&p->a, &c->a.opt)) {
			p->ret = -ENOMEM;
			continue;
		}
		kmt_po_reader_init(&p->r, kmt_po_add, kmt_po_add_malformed,
				   &p->a);
		/* without a thread the part is read here: slower, not wrong */
		if (pthread_create(&p->thread, NULL, read_part, p))
			read_part(p);
		else
			p->started = 1;
	}
	ret = kmt_po_read_part(r, fd, &ranges[0], c->display);
	for (i = 1; i < n; i++) {
		if (parts[i].started)
			pthread_join(parts[i].thread, NULL);
	}
	/* each part's lines come after those of the parts before it */
	lines = r->line - 1;
	for (i = 1; i < n; i++) {
		struct po_part *p = &parts[i];

		if (!ret && p->ret) {
			ret = p->ret;
			memcpy(r->errmsg, p->r.errmsg, sizeof(r->errmsg));
		}
		if (!ret)
			ret = kmt_po_analysis_merge(&c->a, &p->a, lines);
		else
			kmt_po_analysis_free(&p->a);
		lines += p->r.line - 1;
		r->nr_records += p->r.nr_records;
		r->nr_malformed += p->r.nr_malformed;
		r->nr_bytes += p->r.nr_bytes;
		kmt_po_reader_free(&p->r);
	}
	free(parts);
	return ret;
}

/*
 * The first bytes of the input, to tell other inputs from a dump: read
 * with pread from a regular file, so nothing is consumed; otherwise read
 * (at least a page_owner record from debugfs, which hands out one record
 * a read) and left in *buf for the reader.  0 or -errno.
 */
#define HEAD_BUF (64 * 1024)

static int peek_head(int fd, const struct stat *st, char **buf, size_t *len,
		     int *consumed)
{
	*len = 0;
	*consumed = !(S_ISREG(st->st_mode) && st->st_size > 0);
	*buf = malloc(HEAD_BUF);
	if (!*buf)
		return -ENOMEM;
	while (*len < KMT_INPUT_HEAD) {
		ssize_t n = *consumed ?
			    read(fd, *buf + *len, HEAD_BUF - *len) :
			    pread(fd, *buf + *len, KMT_INPUT_HEAD - *len,
				  (off_t)*len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return *len ? 0 : -errno;
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	return 0;
}

/* one line naming the command that reads what the input is, or 0 */
static int not_a_dump(const struct po_cmd *c, const char *head, size_t len)
{
	const struct kmt_source_ops *ops;

	if (len > KMT_INPUT_HEAD)
		len = KMT_INPUT_HEAD;
	if (kmt_po_sniff(head, len) == KMT_PO_SNIFF_SORTED)
		return kmt_error(KMT_EXIT_INPUT, "'%s' is already sorted by page_owner_sort: give the page_owner dump it was made from",
				 c->display);
	ops = kmt_source_probe((const unsigned char *)head, len);
	if (!ops)
		return 0;
	if (ops == &kmt_source_perfdata)
		return kmt_error(KMT_EXIT_INPUT, "'%s' is a perf.data recording of kmem events: read it with 'kmemtrace report'",
				 c->display);
	if (ops == &kmt_source_tracedat)
		return kmt_error(KMT_EXIT_INPUT, "'%s' is a trace.dat recording: read it with 'kmemtrace report'",
				 c->display);
	return kmt_error(KMT_EXIT_INPUT, "'%s' is ftrace text: read it with 'kmemtrace report'",
			 c->display);
}

static int read_input(struct po_cmd *c)
{
	char *head = NULL;
	size_t head_len = 0;
	int consumed = 0;
	struct kmt_po_part ranges[MAX_THREADS];
	struct kmt_po_reader r;
	int fd, ret, nr_parts;
	struct stat st;

	memset(&st, 0, sizeof(st));

	if (!strcmp(c->input, "-")) {
		fd = STDIN_FILENO;
		c->display = "<stdin>";
	} else {
		c->display = c->input;
		fd = open(c->input, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			int err = errno;

			if (!strcmp(c->input, PAGE_OWNER_PATH) ||
			    !strcmp(c->input, SHOW_STACKS_PATH))
				return kmt_error(KMT_EXIT_INPUT, "cannot open '%s': %s (mount debugfs and boot with page_owner=on, or give -i FILE)",
						 c->input, strerror(err));
			return kmt_error(KMT_EXIT_INPUT, "cannot open '%s': %s",
					 c->input, strerror(err));
		}
		if (fstat(fd, &st))
			memset(&st, 0, sizeof(st));
		if (S_ISDIR(st.st_mode)) {
			close(fd);
			return kmt_error(KMT_EXIT_INPUT, "cannot read '%s': %s",
					 c->input, strerror(EISDIR));
		}
	}
	ret = peek_head(fd, &st, &head, &head_len, &consumed);
	/* a read that fails is tried again by the reader, which says why */
	if (ret == -ENOMEM || (!ret && not_a_dump(c, head, head_len))) {
		int code = ret ? kmt_error(KMT_EXIT_RUNTIME, "out of memory") :
				 KMT_EXIT_INPUT;

		free(head);
		if (fd != STDIN_FILENO)
			close(fd);
		return code;
	}
	kmt_po_reader_init(&r, on_record, on_malformed, c);
	nr_parts = 1;
	/* what was read to look at goes to the reader first */
	ret = !ret && consumed && head_len ? kmt_po_feed(&r, head, head_len) : 0;
	free(head);
	if (ret) {
		if (fd != STDIN_FILENO)
			close(fd);
		kmt_po_reader_free(&r);
		return kmt_error(KMT_EXIT_RUNTIME, "out of memory reading '%s'", c->display);
	}
	if (fd != STDIN_FILENO && S_ISREG(st.st_mode)) {
		int want = plan_threads(c, (uint64_t)st.st_size);

		if (want > 1)
			nr_parts = kmt_po_plan_parts(fd, (uint64_t)st.st_size,
						     ranges, want);
	}
	if (nr_parts > 1)
		ret = read_parts(c, fd, ranges, nr_parts, &r);
	else
		ret = kmt_po_read_fd(&r, fd, c->display);
	if (fd != STDIN_FILENO)
		close(fd);
	if (ret < 0) {
		if (ret == -ENOMEM && !r.errmsg[0])
			snprintf(r.errmsg, sizeof(r.errmsg),
				 "out of memory reading '%s'", c->display);
		kmt_error(kmt_read_exit(ret), "%s",
			  r.errmsg[0] ? r.errmsg : strerror(-ret));
		kmt_po_reader_free(&r);
		return kmt_read_exit(ret);
	}
	if (!r.nr_bytes) {
		kmt_po_reader_free(&r);
		return kmt_error(KMT_EXIT_INPUT, "'%s' is empty", c->display);
	}
	if (!r.nr_records) {
		kmt_po_reader_free(&r);
		if (c->a.nr_kept_malformed)
			return kmt_error(KMT_EXIT_INPUT,
					 "'%s' is not a page_owner dump: line %llu: %s",
					 c->display,
					 (unsigned long long)c->a.malformed[0].line,
					 c->a.malformed[0].why);
		return kmt_error(KMT_EXIT_INPUT, "'%s' holds no page_owner record",
				 c->display);
	}
	kmt_po_reader_free(&r);
	return 0;
}

static void warn_malformed(const struct po_cmd *c)
{
	const struct kmt_po_analysis *a = &c->a;
	size_t i;

	if (!a->nr_malformed || c->debug)
		return;
	for (i = 0; i < a->nr_kept_malformed && i < WARN_MALFORMED; i++)
		kmt_warning("'%s' line %llu: %s; record skipped", c->display,
			    (unsigned long long)a->malformed[i].line,
			    a->malformed[i].why);
	if (a->nr_malformed > WARN_MALFORMED)
		kmt_warning("'%s': %llu malformed records skipped in all (-d lists each)",
			    c->display, (unsigned long long)a->nr_malformed);
}

/* the keys of --sort and --cull, for -h (help) and completion */
static void list_keys(FILE *out, int help, int cull)
{
	const char *name, *abbrev;
	struct kmt_sb line = KMT_SB_INIT;
	size_t i;

	if (help)
		fprintf(out, cull ? "cull keys (--cull):\n" :
			"\nsort keys (--sort), [+|-]key,... ('-': descending):\n");
	for (i = 0; (name = cull ? kmt_po_cull_key_name(i, &abbrev) :
			      kmt_po_sort_key_name(i, &abbrev)); i++) {
		if (!help)
			fprintf(out, "%s\n", name);
		else if (abbrev)
			kmt_sb_addf(&line, "%s%s (%s)", i ? ", " : "", name,
				    abbrev);
		else
			kmt_sb_addf(&line, "%s%s", i ? ", " : "", name);
	}
	if (help)
		kmt_help_wrap(out, "", 4, line.oom ? "" : kmt_sb_str(&line));
	kmt_sb_release(&line);
}

static void list_sort_keys(FILE *out, int help)
{
	list_keys(out, help, 0);
}

static void list_cull_keys(FILE *out, int help)
{
	list_keys(out, help, 1);
}

int cmd_pageowner(int argc, char **argv)
{
	int sort_a = 0, sort_m = 0, sort_n = 0, sort_p = 0, sort_P = 0;
	int sort_s = 0, sort_t = 0, stacks = 0, nr_flags, nargs, ret, werr = 0;
	const char *pid_spec = NULL, *tgid_spec = NULL, *name_spec = NULL;
	const char *cull_spec = NULL, *sort_spec = NULL, *input = NULL;
	struct kmt_po_options opt;
	struct po_cmd c;
	int32_t *pids = NULL, *tgids = NULL;
	char **names = NULL;
	size_t nr_pids = 0, nr_tgids = 0, nr_names = 0, nr_print, i;
	uint32_t *order = NULL;
	char err[512];
	int diff = 0;
	const struct kmt_option options[] = {
		OPT_BOOL(0, "diff", &diff,
			 "compare two dumps A and B (or saved --json outputs): pages "
			 "and records per stack, allocator and memcg; -s pages|records, "
			 "-l, --json and -o go with it"),
		OPT_GROUP("input and output (or page_owner_sort's <input> <output>)"),
		OPT_STRING('i', "input", &input, "file",
			   "the dump, '-' for stdin (default: " PAGE_OWNER_PATH
			   ", or stdin when it is a pipe)"),
		OPT_STRING('o', "output", &c.output, "file",
			   "write to <file> ('-': stdout, the default)"),
		OPT_BOOL(0, "stacks", &stacks,
			 "read " SHOW_STACKS_PATH " when no input is given"),
		OPT_GROUP("sorting (page_owner_sort's switches; one of them)"),
		OPT_BOOL('a', NULL, &sort_a, "by allocation time; timestamps join a record's identity"),
		OPT_BOOL('m', NULL, &sort_m, "by total memory (pages), largest first"),
		OPT_BOOL('n', NULL, &sort_n, "by task name"),
		OPT_BOOL('p', NULL, &sort_p, "by pid"),
		OPT_BOOL('P', NULL, &sort_P, "by tgid"),
		OPT_BOOL('s', NULL, &sort_s, "by stack trace"),
		OPT_BOOL('t', NULL, &sort_t, "by times seen, most first (the default)"),
		OPT_WORDS(0, "sort", &sort_spec, "keys", list_sort_keys,
			  "sort by these keys (listed below)"),
		OPT_GROUP("selecting and culling"),
		OPT_LIST(0, "pid", &pid_spec, "pids", "only records of these pids"),
		OPT_LIST(0, "tgid", &tgid_spec, "tgids", "only records of these tgids"),
		OPT_LIST(0, "name", &name_spec, "names", "only records of these task names"),
		OPT_LIST_WORDS(0, "cull", &cull_spec, "keys", list_cull_keys,
			       "group by these keys (listed below)"),
		OPT_GROUP("output"),
		OPT_INT('l', "limit", &c.limit, "n", 0, INT_MAX,
			"print the first n groups only (0: all, the default)"),
		OPT_ALIAS("line", &c.limit),
		OPT_BOOL(0, "summary", &c.summary,
			 "totals by allocator class, migratetype, order and memcg first"),
		OPT_BOOL(0, "json", &c.json, "write JSON"),
		OPT_BOOL('d', NULL, &c.debug, "report every malformed record as it is read"),
		OPT_INT(0, "threads", &c.threads, "n", 0, MAX_THREADS,
			"threads to use: a regular file is read in n parts at once "
			"(0, the default: one a CPU, up to 4, for files of 16 MiB and more)"),
		OPT_END(),
	};

	memset(&c, 0, sizeof(c));
	/* --diff is a mode of its own, with its own options (cmd-diff.c) */
	for (i = 1; i < (size_t)argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--diff"))
			return cmd_pageowner_diff(argc, argv);
	}
	(void)diff;
#ifdef M_MMAP_THRESHOLD
	/*
	 * The group arrays grow by doubling to tens of megabytes.  Kept in
	 * mappings of their own (not the heap, where glibc puts blocks up
	 * to 32 MiB once a few were freed), realloc moves them without a
	 * copy and free gives them back: less peak memory.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
	nargs = kmt_parse_options(argc, argv, options, pageowner_usage, 0);
	/* page_owner_sort's <input> <output>, or -i and -o: not both */
	if (nargs > 2)
		return kmt_usage_error("too many arguments: one input and one output at most");
	if (nargs == 2 && c.output)
		return kmt_usage_error("the output given twice, as -o '%s' and as '%s'",
				       c.output, argv[1]);
	if (nargs == 2)
		c.output = argv[1];
	ret = kmt_choose_input(input, nargs ? argv[0] : NULL,
			       stacks ? SHOW_STACKS_PATH : PAGE_OWNER_PATH,
			       "mount debugfs and boot with page_owner=on, or give -i FILE",
			       &c.input, err, sizeof(err));
	if (ret == KMT_EXIT_INPUT)
		return kmt_error(ret, "%s", err);
	if (ret)
		return ret;
	c.display = c.input;

	nr_flags = sort_a + sort_m + sort_n + sort_p + sort_P + sort_s + sort_t;
	if (nr_flags > 1)
		return kmt_usage_error("only one of -a, -m, -n, -p, -P, -s and -t can be given");
	if (nr_flags && sort_spec)
		return kmt_usage_error("--sort and the sort switches (-a, -m, -n, -p, -P, -s, -t) exclude each other");
	if (sort_spec) {
		if (kmt_po_parse_sort(sort_spec, c.keys, &c.nr_keys, err,
				      sizeof(err)))
			return kmt_usage_error("%s", err);
	} else {
		c.nr_keys = 1;
		c.keys[0].desc = 0;
		if (sort_a)
			c.keys[0].key = KMT_PO_KEY_ALLOC_TS;
		else if (sort_m)
			c.keys[0] = (struct kmt_po_sortkey){ KMT_PO_KEY_PAGES, 1 };
		else if (sort_n)
			c.keys[0].key = KMT_PO_KEY_NAME;
		else if (sort_p)
			c.keys[0].key = KMT_PO_KEY_PID;
		else if (sort_P)
			c.keys[0].key = KMT_PO_KEY_TGID;
		else if (sort_s)
			c.keys[0].key = KMT_PO_KEY_STACK;
		else
			c.keys[0] = (struct kmt_po_sortkey){ KMT_PO_KEY_TIMES, 1 };
	}
	if (cull_spec && kmt_po_parse_cull(cull_spec, &c.cull, err,
					   sizeof(err)))
		return kmt_usage_error("%s", err);
	if (pid_spec && kmt_po_parse_ids(pid_spec, &pids, &nr_pids))
		return kmt_usage_error("option '--pid' needs a list of numbers, not '%s'",
				       pid_spec);
	if (tgid_spec && kmt_po_parse_ids(tgid_spec, &tgids, &nr_tgids)) {
		free(pids);
		return kmt_usage_error("option '--tgid' needs a list of numbers, not '%s'",
				       tgid_spec);
	}
	if (name_spec && split_names(name_spec, &names, &nr_names)) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}
	c.filter_pid = pid_spec != NULL;
	c.filter_tgid = tgid_spec != NULL;
	c.filter_name = name_spec != NULL;

	memset(&opt, 0, sizeof(opt));
	opt.cull = c.cull;
	opt.ts_in_key = c.keys[0].key == KMT_PO_KEY_ALLOC_TS;
	opt.pids = pids;
	opt.nr_pids = nr_pids;
	opt.tgids = tgids;
	opt.nr_tgids = nr_tgids;
	opt.names = (const char *const *)names;
	opt.nr_names = nr_names;
	if (kmt_po_analysis_init(&c.a, &opt)) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}

	ret = read_input(&c);
	if (ret)
		goto out;
	if (c.a.kind == KMT_PO_STACKS &&
	    ((c.cull & (KMT_PO_CULL_PID | KMT_PO_CULL_TGID | KMT_PO_CULL_NAME)) ||
	     pids || tgids || names)) {
		ret = kmt_error(KMT_EXIT_INPUT, "'%s' holds page_owner_stacks records, which carry no pid, tgid or task name",
				c.display);
		goto out;
	}
	warn_malformed(&c);
	if (kmt_po_analysis_finish(&c.a)) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}

	nr_print = c.a.nr_groups;
	if (c.limit && (size_t)c.limit < nr_print)
		nr_print = (size_t)c.limit;
	if (nr_print) {
		order = kmt_po_sort(&c.a, c.keys, c.nr_keys);
		if (!order) {
			ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
			goto out;
		}
	}

	c.out = kmt_open_output(c.output);
	if (!c.out) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s",
				c.output, strerror(errno));
		goto out;
	}
	/* page_owner_sort's output is as big as its input: write in big blocks */
	setvbuf(c.out, NULL, _IOFBF, 1 << 20);
	if (c.json) {
		print_json(&c, order, nr_print);
	} else {
		if (c.summary)
			print_summary(&c);
		if (c.cull) {
			for (i = 0; i < nr_print; i++)
				print_group_culled(&c, &c.a.groups[order[i]]);
		} else {
			werr = write_groups_text(&c, order, nr_print);
		}
	}
	if (werr == -ENOMEM) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory writing the groups");
		if (c.out != stdout)
			fclose(c.out);
	} else {
		ret = kmt_close_output(c.out, c.output, werr);
	}
out:
	free(order);
	kmt_po_analysis_free(&c.a);
	free(pids);
	free(tgids);
	for (i = 0; i < nr_names; i++)
		free(names[i]);
	free(names);
	return ret;
}
