// SPDX-License-Identifier: GPL-2.0
/*
 * The report as one HTML file to open, mail or attach to a bug: every
 * script and style inside it, nothing fetched (its Content-Security-Policy
 * forbids it), drawn by lib/render/html-report.js from two JSON documents
 * the page carries: the report as --json writes it (without the profile's
 * rows), and the flame graph's tree.
 *
 * The tree is the allocation profile's stacks merged frame by frame
 * under "slab" and "page", each node with the four values of its
 * subtree.  Nodes below a ten-thousandth of every total are left out
 * (their share stays in their parent), so a recording of millions of
 * events makes a page of a few megabytes: the page gets aggregates,
 * never events.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "report/profile.h"
#include "util/array.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/strtab.h"

#include "html-assets.h"

struct fnode {
	uint32_t parent, name;
	uint64_t v[KMT_PROFILE_NR_VALUES];
};

struct ftree {
	struct kmt_strtab names;
	struct kmt_hash_u32 index;	/* parent << 32 | name -> node */
	struct fnode *nodes;
	size_t nr, alloc;
};

static int child(struct ftree *t, uint32_t parent, const char *name,
		 size_t len, uint32_t *out)
{
	uint32_t id = kmt_strtab_intern(&t->names, name, len), *slot;
	int is_new;

	if (!id)
		return -ENOMEM;
	slot = kmt_hash_u32_put(&t->index, (uint64_t)parent << 32 | id,
				&is_new);
	if (!slot)
		return -ENOMEM;
	if (is_new) {
		if (KMT_ARRAY_GROW(t->nodes, t->nr + 1, t->alloc))
			return -ENOMEM;
		memset(&t->nodes[t->nr], 0, sizeof(t->nodes[0]));
		t->nodes[t->nr].parent = parent;
		t->nodes[t->nr].name = id;
		*slot = (uint32_t)t->nr++;
	}
	*out = *slot;
	return 0;
}

static int build(struct ftree *t, const struct kmt_table *tab)
{
	int kind = kmt_table_col(tab, "kind"), stack = kmt_table_col(tab, "stack");
	int val[KMT_PROFILE_NR_VALUES];
	size_t r, k;
	uint32_t root;

	for (k = 0; k < KMT_PROFILE_NR_VALUES; k++) {
		val[k] = kmt_table_col(tab, kmt_profile_values[k][0]);
		if (val[k] < 0)
			return -EINVAL;
	}
	if (kind < 0 || stack < 0)
		return -EINVAL;
	if (child(t, 0, "all", 3, &root))
		return -ENOMEM;
	for (r = 0; r < tab->nrows; r++) {
		union kmt_val buf[32];
		const union kmt_val *v = kmt_table_row(tab, r, buf);
		const char *p = v[stack].str;
		uint32_t at;

		for (k = 0; k < KMT_PROFILE_NR_VALUES; k++)
			t->nodes[root].v[k] += v[val[k]].u;
		if (child(t, root, v[kind].str, strlen(v[kind].str), &at))
			return -ENOMEM;
		for (;;) {
			const char *end = strchr(p, ';');
			size_t len = end ? (size_t)(end - p) : strlen(p);

			for (k = 0; k < KMT_PROFILE_NR_VALUES; k++)
				t->nodes[at].v[k] += v[val[k]].u;
			if (!*p)
				break;
			if (child(t, at, p, len, &at))
				return -ENOMEM;
			if (!end) {
				for (k = 0; k < KMT_PROFILE_NR_VALUES; k++)
					t->nodes[at].v[k] += v[val[k]].u;
				break;
			}
			p = end + 1;
		}
	}
	return 0;
}

/* a node worth drawing: at least a ten-thousandth of some total */
static int kept(const struct ftree *t, size_t i)
{
	size_t k;

	for (k = 0; k < KMT_PROFILE_NR_VALUES; k++) {
		if (t->nodes[i].v[k] * 10000 >= t->nodes[0].v[k] &&
		    t->nodes[i].v[k])
			return 1;
	}
	return i == 0;
}

/* JSON text inside a <script>: no "</" can end it early */
static void put_script_safe(const char *s, size_t len, FILE *out)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '<')
			fputs("\\u003c", out);
		else
			fputc(s[i], out);
	}
}

static int flame_json(const struct ftree *t, FILE *out)
{
	uint32_t *map = calloc(t->nr ? t->nr : 1, sizeof(*map));
	uint32_t *used = calloc(t->names.nr ? t->names.nr : 1, sizeof(*used));
	struct kmt_json j;
	char *buf = NULL;
	size_t len = 0, i, k, n = 0, nn = 0;
	FILE *m;

	if (!map || !used) {
		free(map);
		free(used);
		return -ENOMEM;
	}
	m = open_memstream(&buf, &len);
	if (!m) {
		free(map);
		free(used);
		return -ENOMEM;
	}
	kmt_json_init(&j, m, 0);
	kmt_json_obj_open(&j, NULL);
	kmt_json_arr_open(&j, "values");
	for (k = 0; k < KMT_PROFILE_NR_VALUES; k++)
		kmt_json_str(&j, NULL, kmt_profile_values[k][0]);
	kmt_json_arr_close(&j);
	/* the names the kept nodes use, numbered in order */
	for (i = 0; i < t->nr; i++) {
		if ((i == 0 || map[t->nodes[i].parent] || t->nodes[i].parent == 0) &&
		    kept(t, i)) {
			map[i] = (uint32_t)++n;
			if (!used[t->nodes[i].name])
				used[t->nodes[i].name] = (uint32_t)++nn;
		}
	}
	kmt_json_arr_open(&j, "names");
	for (i = 1; i < t->names.nr; i++) {
		if (used[i])
			kmt_json_str(&j, NULL, t->names.strs[i]);
	}
	kmt_json_arr_close(&j);
	kmt_json_arr_open(&j, "nodes");
	for (i = 0; i < t->nr; i++) {
		if (!map[i])
			continue;
		kmt_json_arr_open(&j, NULL);
		kmt_json_u64(&j, NULL, i ? map[t->nodes[i].parent] - 1 : 0);
		kmt_json_u64(&j, NULL, used[t->nodes[i].name] - 1);
		for (k = 0; k < KMT_PROFILE_NR_VALUES; k++)
			kmt_json_u64(&j, NULL, t->nodes[i].v[k]);
		kmt_json_arr_close(&j);
	}
	kmt_json_arr_close(&j);
	kmt_json_obj_close(&j);
	fclose(m);
	put_script_safe(buf ? buf : "", len, out);
	free(buf);
	free(map);
	free(used);
	return 0;
}

static int report_json(const struct kmt_report *r, FILE *out)
{
	const struct kmt_section *skip = kmt_report_section(r, "profile",
							    "samples");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ret;

	if (!m)
		return -ENOMEM;
	ret = kmt_render_json_except(r, m, skip, 0);
	if (fclose(m) || ret) {
		free(buf);
		return -ENOMEM;
	}
	put_script_safe(buf ? buf : "", len, out);
	free(buf);
	return 0;
}

void kmt_render_html_text(const char *s, FILE *out)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

int kmt_render_html(const struct kmt_report *r, FILE *out)
{
	const struct kmt_table *prof = kmt_profile_table(r);
	struct ftree t;
	int ret = 0;

	memset(&t, 0, sizeof(t));
	if (kmt_strtab_init(&t.names)) {
		errno = ENOMEM;
		return -1;
	}
	kmt_hash_u32_init(&t.index);
	if (prof)
		ret = build(&t, prof);
	else if (child(&t, 0, "all", 3, &(uint32_t){ 0 }))
		ret = -ENOMEM;
	if (ret)
		goto out;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
	      "'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n"
	      "<meta name=\"generator\" content=\"kmemtrace\">\n<title>kmemtrace: ",
	      out);
	kmt_render_html_text(r->meta.input ? r->meta.input : "", out);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", kmt_html_css);
	fputs("<h1>kmemtrace report: ", out);
	kmt_render_html_text(r->meta.input ? r->meta.input : "", out);
	fputs("</h1>\n<p id=\"kmt-warning\"></p>\n<table id=\"kmt-facts\"></table>\n"
	      "<h2>Allocations by stack</h2>\n"
	      "<label>weight <select id=\"kmt-weight\"></select></label>\n"
	      "<label>search <input id=\"kmt-search\" size=\"30\" "
	      "placeholder=\"function name\"></label>\n"
	      "<span id=\"kmt-match\"></span>\n<div id=\"kmt-zoom\"></div>\n"
	      "<p id=\"kmt-flame-note\"></p>\n<div id=\"kmt-flame-graph\"></div>\n"
	      "<h2>Over time</h2>\n<div id=\"kmt-timeline\"></div>\n"
	      "<h2>Page allocations: order by migratetype</h2>\n"
	      "<div id=\"kmt-heatmap\"></div>\n"
	      "<h2>Requested sizes</h2>\n<div id=\"kmt-sizes\"></div>\n"
	      "<h2>Lifetimes (allocation to free)</h2>\n<div id=\"kmt-lifetimes\"></div>\n"
	      "<h2>Tables</h2>\n<div id=\"kmt-tables\"></div>\n"
	      "<script type=\"application/json\" id=\"kmt-report\">", out);
	ret = report_json(r, out);
	if (ret)
		goto out;
	fputs("</script>\n<script type=\"application/json\" id=\"kmt-flame\">", out);
	ret = flame_json(&t, out);
	if (ret)
		goto out;
	fprintf(out, "</script>\n<script>\n%s</script>\n</body>\n</html>\n",
		kmt_html_js);
out:
	free(t.nodes);
	kmt_hash_u32_free(&t.index);
	kmt_strtab_free(&t.names);
	if (ret) {
		errno = -ret;
		return -1;
	}
	return ferror(out) ? -1 : 0;
}
