// SPDX-License-Identifier: GPL-2.0
/*
 * The allocation profile (report/profile.h) as a pprof profile: the
 * gzipped protocol buffer that `go tool pprof`, speedscope, Perfetto,
 * Pyroscope and Parca read.  Written here, field by field, from the
 * message definitions of pprof's profile.proto (perftools.profiles); the
 * encoding is protobuf's wire format, varints and length-delimited
 * fields, which needs no library.
 *
 * Each profile row is one sample: its values alloc_objects,
 * alloc_space, inuse_objects and inuse_space; its frames, innermost
 * first, as locations (one per kernel address, each a line of the
 * function named by its symbol); labels kind, comm, pid, cache, order
 * and gfp, all text.  The input, its format and kernel go in the comments.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "report/profile.h"
#include "util/gzip.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/strtab.h"

/* field numbers of profile.proto */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_DURATION_NANOS = 10, PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void put_varint(struct kmt_sb *b, uint64_t v)
{
	char buf[10];
	size_t n = 0;

	do {
		buf[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	kmt_sb_add(b, buf, n);
}

static void put_uint(struct kmt_sb *b, unsigned int field, uint64_t v)
{
	put_varint(b, (uint64_t)field << 3 | WIRE_VARINT);
	put_varint(b, v);
}

static void put_bytes(struct kmt_sb *b, unsigned int field, const void *p,
		      size_t len)
{
	put_varint(b, (uint64_t)field << 3 | WIRE_LEN);
	put_varint(b, len);
	kmt_sb_add(b, p, len);
}

/* a message made in m, as field of b; m is emptied */
static void put_msg(struct kmt_sb *b, unsigned int field, struct kmt_sb *m)
{
	put_bytes(b, field, m->buf ? m->buf : "", m->len);
	m->len = 0;
}

struct pprof {
	struct kmt_strtab strs;		/* id i is string_table[i] */
	/*
	 * address -> location id, per side of a diff (--pprof of diff):
	 * two kernels may place different functions at one address
	 */
	struct kmt_hash_u32 locs[2];
	int side;			/* of the sample being written */
	struct kmt_hash_u32 unaddressed; /* function (name id) -> location
					  * id, for frames without address */
	struct kmt_hash_u32 funcs;	/* name id -> 1, once written */
	struct kmt_sb samples, locations, functions, m, sub;
	uint32_t nr_locs;
	uint64_t lo, hi;		/* the addresses seen */
	int oom;
};

static uint32_t str_id(struct pprof *p, const char *s)
{
	uint32_t id = kmt_strtab_intern(&p->strs, s, strlen(s));

	if (!id)
		p->oom = 1;
	return id;
}

/* the location of frame name at addr (0: not known), made once */
static uint32_t location(struct pprof *p, const char *name, size_t len,
			 uint64_t addr)
{
	uint32_t fn, *slot;
	int is_new;

	/* most frames are of addresses met before: no name to intern */
	if (addr && (slot = kmt_hash_u32_get(&p->locs[p->side], addr)))
		return *slot;
	fn = kmt_strtab_intern(&p->strs, name, len);
	if (!fn) {
		p->oom = 1;
		return 0;
	}
	slot = addr ? kmt_hash_u32_put(&p->locs[p->side], addr, &is_new) :
		      kmt_hash_u32_put(&p->unaddressed, fn, &is_new);
	if (!slot) {
		p->oom = 1;
		return 0;
	}
	if (!is_new)
		return *slot;
	*slot = ++p->nr_locs;
	if (!kmt_hash_u32_get(&p->funcs, fn)) {
		uint32_t *f = kmt_hash_u32_put(&p->funcs, fn, &is_new);

		if (!f) {
			p->oom = 1;
			return 0;
		}
		*f = 1;
		/* the function's id is its name's: both are unique */
		put_uint(&p->m, FUNCTION_ID, fn);
		put_uint(&p->m, FUNCTION_NAME, fn);
		put_uint(&p->m, FUNCTION_SYSTEM_NAME, fn);
		put_msg(&p->functions, PROFILE_FUNCTION, &p->m);
	}
	put_uint(&p->m, LOCATION_ID, *slot);
	put_uint(&p->m, LOCATION_MAPPING_ID, 1);
	if (addr) {
		put_uint(&p->m, LOCATION_ADDRESS, addr);
		if (!p->lo || addr < p->lo)
			p->lo = addr;
		if (addr >= p->hi)
			p->hi = addr + 1;
	}
	put_uint(&p->sub, LINE_FUNCTION_ID, fn);
	put_msg(&p->m, LOCATION_LINE, &p->sub);
	put_msg(&p->locations, PROFILE_LOCATION, &p->m);
	return *slot;
}

static void label_str(struct pprof *p, const char *key, const char *val)
{
	if (!val || !*val)
		return;
	put_uint(&p->sub, LABEL_KEY, str_id(p, key));
	put_uint(&p->sub, LABEL_STR, str_id(p, val));
	put_msg(&p->m, SAMPLE_LABEL, &p->sub);
}

static void label_int(struct pprof *p, const char *key, int64_t val)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, val);
	label_str(p, key, buf);
}

struct cols {
	int kind, comm, pid, cache, order, stack, ips, gfp, base;
	int val[KMT_PROFILE_NR_VALUES];
};

static int find_cols(const struct kmt_table *t, struct cols *c)
{
	int i, ok;

	c->kind = kmt_table_col(t, "kind");
	c->comm = kmt_table_col(t, "comm");
	c->pid = kmt_table_col(t, "pid");
	c->cache = kmt_table_col(t, "cache");
	c->order = kmt_table_col(t, "order");
	c->stack = kmt_table_col(t, "stack");
	c->ips = kmt_table_col(t, "stack_ips");
	c->gfp = kmt_table_col(t, "gfp");	/* optional */
	c->base = kmt_table_col(t, "base");	/* optional: diff --pprof */
	ok = c->kind >= 0 && c->comm >= 0 && c->pid >= 0 && c->cache >= 0 &&
	     c->order >= 0 && c->stack >= 0 && c->ips >= 0;
	for (i = 0; i < KMT_PROFILE_NR_VALUES; i++) {
		c->val[i] = kmt_table_col(t, kmt_profile_values[i][0]);
		ok &= c->val[i] >= 0;
	}
	return ok ? 0 : -1;
}

/* one sample: frames outermost first in names and ips, innermost first out */
static void sample(struct pprof *p, const struct cols *c,
		   const union kmt_val *v)
{
	uint32_t ids[256];
	size_t n = 0, i;
	const char *name = v[c->stack].str, *ip = v[c->ips].str;

	p->side = c->base >= 0 && *v[c->base].str;
	while (*name && n < sizeof(ids) / sizeof(ids[0])) {
		const char *end = strchr(name, ';');
		size_t len = end ? (size_t)(end - name) : strlen(name);
		uint64_t addr = strtoull(ip, NULL, 16);

		ids[n++] = location(p, name, len, addr);
		name += len + !!end;
		ip = strchr(ip, ';');
		ip = ip ? ip + 1 : "";
	}
	for (i = n; i-- > 0;)
		put_varint(&p->sub, ids[i]);
	put_msg(&p->m, SAMPLE_LOCATION_ID, &p->sub);
	for (i = 0; i < KMT_PROFILE_NR_VALUES; i++)
		put_varint(&p->sub, v[c->val[i]].u);
	put_msg(&p->m, SAMPLE_VALUE, &p->sub);
	label_str(p, "kind", v[c->kind].str);
	label_str(p, "comm", v[c->comm].str);
	/*
	 * pid and order as text: pprof drops a numeric label of 0, which
	 * is swapper's pid and the commonest order
	 */
	if (v[c->pid].s >= 0)
		label_int(p, "pid", v[c->pid].s);
	label_str(p, "cache", v[c->cache].str);
	if (v[c->order].s >= 0)
		label_int(p, "order", v[c->order].s);
	if (c->gfp >= 0)
		label_str(p, "gfp", v[c->gfp].str);
	/* the label go tool pprof -diff_base puts on the base's samples */
	if (c->base >= 0 && *v[c->base].str)
		label_str(p, "pprof::base", "true");
	put_msg(&p->samples, PROFILE_SAMPLE, &p->m);
}

/* what the profile says about its input, in its comments */
static void comments(struct pprof *p, const struct kmt_report *r,
		     struct kmt_sb *out)
{
	const struct kmt_report_meta *m = &r->meta;
	struct kmt_sb s = KMT_SB_INIT;

	kmt_sb_addf(&s, "kmemtrace report of %s (%s)", m->input, m->format);
	put_uint(out, PROFILE_COMMENT, str_id(p, kmt_sb_str(&s)));
	kmt_sb_reset(&s);
	kmt_sb_addf(&s, "kernel %s, %d CPU%s", *m->kernel ? m->kernel :
		    "unknown", m->nr_cpus, m->nr_cpus == 1 ? "" : "s");
	put_uint(out, PROFILE_COMMENT, str_id(p, kmt_sb_str(&s)));
	kmt_sb_reset(&s);
	if (m->lost_events) {
		kmt_sb_addf(&s, "the recording lost %" PRIu64 " events",
			    m->lost_events);
		put_uint(out, PROFILE_COMMENT, str_id(p, kmt_sb_str(&s)));
		kmt_sb_reset(&s);
	}
	if (m->unreadable) {
		kmt_sb_addf(&s, "%" PRIu64 " records of the input could not "
			    "be read and are not in this profile",
			    m->unreadable);
		put_uint(out, PROFILE_COMMENT, str_id(p, kmt_sb_str(&s)));
	}
	if (s.oom)
		p->oom = 1;
	kmt_sb_release(&s);
}

static int encode(struct pprof *p, const struct kmt_report *r,
		  const struct kmt_table *t, const struct cols *c,
		  struct kmt_sb *out)
{
	const struct kmt_section *sum = kmt_report_section(r, "profile",
							   "summary");
	const char *weight = NULL;
	size_t i;

	for (i = 0; i < KMT_PROFILE_NR_VALUES; i++) {
		put_uint(&p->m, VALUE_TYPE_TYPE,
			 str_id(p, kmt_profile_values[i][0]));
		put_uint(&p->m, VALUE_TYPE_UNIT,
			 str_id(p, kmt_profile_values[i][1]));
		put_msg(out, PROFILE_SAMPLE_TYPE, &p->m);
	}
	for (i = 0; i < t->nrows && !p->oom; i++) {
		union kmt_val buf[32];
		const union kmt_val *v = kmt_table_row(t, i, buf);

		sample(p, c, v);
	}
	kmt_sb_add(out, p->samples.buf ? p->samples.buf : "", p->samples.len);
	put_uint(&p->m, MAPPING_ID, 1);
	put_uint(&p->m, MAPPING_MEMORY_START, p->lo);
	put_uint(&p->m, MAPPING_MEMORY_LIMIT, p->hi);
	put_uint(&p->m, MAPPING_FILENAME, str_id(p, "[kernel.kallsyms]"));
	put_uint(&p->m, MAPPING_HAS_FUNCTIONS, 1);
	put_msg(out, PROFILE_MAPPING, &p->m);
	kmt_sb_add(out, p->locations.buf ? p->locations.buf : "",
		   p->locations.len);
	kmt_sb_add(out, p->functions.buf ? p->functions.buf : "",
		   p->functions.len);
	if (r->meta.last_ts > r->meta.first_ts)
		put_uint(out, PROFILE_DURATION_NANOS,
			 r->meta.last_ts - r->meta.first_ts);
	comments(p, r, out);
	/* the value --weight chose is the one pprof shows first */
	for (i = 0; sum && sum->kind == KMT_SEC_SUMMARY &&
		    i < sum->summary.nr; i++) {
		if (!strcmp(sum->summary.items[i].key, "weight"))
			weight = sum->summary.items[i].v.str;
	}
	if (weight)
		put_uint(out, PROFILE_DEFAULT_SAMPLE_TYPE, str_id(p, weight));
	/* the string table last: every string above is in it by now */
	put_bytes(out, PROFILE_STRING_TABLE, "", 0);
	for (i = 1; i < p->strs.nr; i++)
		put_bytes(out, PROFILE_STRING_TABLE, p->strs.strs[i],
			  p->strs.lens[i]);
	return p->oom || out->oom || p->samples.oom || p->locations.oom ||
	       p->functions.oom || p->m.oom || p->sub.oom ? -ENOMEM : 0;
}

int kmt_render_pprof(const struct kmt_report *r, FILE *out)
{
	const struct kmt_table *t = kmt_profile_table(r);
	struct kmt_sb pb = KMT_SB_INIT;
	struct pprof p;
	struct cols c;
	int ret;

	if (!t || find_cols(t, &c)) {
		errno = EINVAL;
		return -1;
	}
	if (t->nrows && (uint64_t)t->nrows > UINT32_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	memset(&p, 0, sizeof(p));
	if (kmt_strtab_init(&p.strs)) {
		errno = ENOMEM;
		return -1;
	}
	kmt_hash_u32_init(&p.locs[0]);
	kmt_hash_u32_init(&p.locs[1]);
	kmt_hash_u32_init(&p.unaddressed);
	kmt_hash_u32_init(&p.funcs);
	ret = encode(&p, r, t, &c, &pb);
	if (ret)
		errno = ENOMEM;
	else
		ret = kmt_gzip_to(pb.buf, pb.len, out);
	kmt_sb_release(&pb);
	kmt_sb_release(&p.samples);
	kmt_sb_release(&p.locations);
	kmt_sb_release(&p.functions);
	kmt_sb_release(&p.m);
	kmt_sb_release(&p.sub);
	kmt_hash_u32_free(&p.locs[0]);
	kmt_hash_u32_free(&p.locs[1]);
	kmt_hash_u32_free(&p.unaddressed);
	kmt_hash_u32_free(&p.funcs);
	kmt_strtab_free(&p.strs);
	return ret ? -1 : 0;
}
