// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's counters: parsers of /proc/slabinfo, /proc/meminfo and
 * /proc/vmallocinfo, and of the counters option that keeps them in a
 * recording (counters.h has its layout).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/kcounters.h"
#include "util/array.h"

static const char *const meminfo_names[KMT_MEM_NR] = {
	[KMT_MEM_SLAB] = "Slab",
	[KMT_MEM_SRECLAIMABLE] = "SReclaimable",
	[KMT_MEM_SUNRECLAIM] = "SUnreclaim",
	[KMT_MEM_PERCPU] = "Percpu",
	[KMT_MEM_VMALLOC_USED] = "VmallocUsed",
};

const char *kmt_meminfo_name(enum kmt_meminfo_line i)
{
	return i < KMT_MEM_NR ? meminfo_names[i] : NULL;
}

void kmt_kcounters_init(struct kmt_kcounters *c)
{
	memset(c, 0, sizeof(*c));
	kmt_arena_init(&c->arena);
}

void kmt_kcounters_free(struct kmt_kcounters *c)
{
	int i;

	for (i = 0; i < KMT_CNT_NR; i++) {
		free(c->at[i].slabs);
		free(c->at[i].vm);
	}
	kmt_arena_free(&c->arena);
	memset(c, 0, sizeof(*c));
}

static int bad(char *err, size_t errlen, unsigned long line, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));

static int bad(char *err, size_t errlen, unsigned long line, const char *fmt,
	       ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, "line %lu: ", line);
	if (n < 0 || (size_t)n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* the line at *p (up to end), its length; *p moves past its newline */
static size_t next_line(const char **p, const char *end, const char **line)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);

	*line = *p;
	*p = nl ? nl + 1 : end;
	return n;
}

/* where the text ends: at len or its first NUL */
static const char *text_end(const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len);

	return nul ? nul : text + len;
}

/* a decimal at *p (after blanks), up to the next blank or the end */
static int take_u64(const char **p, const char *end, uint64_t *v)
{
	const char *q = *p;
	uint64_t n = 0;

	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q == end || *q < '0' || *q > '9')
		return -1;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		if (n > (UINT64_MAX - (uint64_t)(*q - '0')) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*q - '0');
	}
	if (q < end && *q != ' ' && *q != '\t')
		return -1;
	*p = q;
	*v = n;
	return 0;
}

/* a word at *p (after blanks): its start in *w, its length */
static size_t take_word(const char **p, const char *end, const char **w)
{
	const char *q = *p;

	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	*w = q;
	while (q < end && *q != ' ' && *q != '\t')
		q++;
	*p = q;
	return (size_t)(q - *w);
}

static int take_colon(const char **p, const char *end, const char *word)
{
	const char *w;
	size_t n = take_word(p, end, &w);

	if (n != 1 || *w != ':')
		return -1;
	n = take_word(p, end, &w);
	return n == strlen(word) && !memcmp(w, word, n) ? 0 : -1;
}

/*
 * One cache line of slabinfo 2.1:
 * name active_objs num_objs objsize objperslab pagesperslab
 *	: tunables limit batchcount sharedfactor
 *	: slabdata active_slabs num_slabs sharedavail
 */
static int slab_line(struct kmt_kcounters *c, struct kmt_slab_count *sc,
		     const char *p, const char *end)
{
	uint64_t tun[3], shared;
	const char *name;
	size_t n = take_word(&p, end, &name);

	if (!n)
		return -1;
	memset(sc, 0, sizeof(*sc));
	sc->cpu_partial = -1;
	if (take_u64(&p, end, &sc->active_objs) ||
	    take_u64(&p, end, &sc->num_objs) ||
	    take_u64(&p, end, &sc->objsize) ||
	    take_u64(&p, end, &sc->objperslab) ||
	    take_u64(&p, end, &sc->pagesperslab) ||
	    take_colon(&p, end, "tunables") ||
	    take_u64(&p, end, &tun[0]) || take_u64(&p, end, &tun[1]) ||
	    take_u64(&p, end, &tun[2]) || take_colon(&p, end, "slabdata") ||
	    take_u64(&p, end, &sc->active_slabs) ||
	    take_u64(&p, end, &sc->num_slabs) || take_u64(&p, end, &shared))
		return -1;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p != end || sc->active_objs > sc->num_objs)
		return -1;
	sc->name = kmt_arena_strndup(&c->arena, name, n);
	return sc->name ? 0 : -ENOMEM;
}

int kmt_kcounters_parse_slabinfo(struct kmt_kcounters *c,
				struct kmt_kcounters_snap *snap,
				const char *text, size_t len,
				char *err, size_t errlen)
{
	static const char head[] = "slabinfo - version: ";
	const char *p = text, *end = text_end(text, len), *line;
	unsigned long nr = 0;
	size_t n;

	snap->have &= ~KMT_CNT_SLABINFO;
	snap->nr_slabs = 0;
	while (p < end) {
		struct kmt_slab_count *sc;
		int ret;

		n = next_line(&p, end, &line);
		nr++;
		if (nr == 1) {
			if (n < sizeof(head) - 1 || memcmp(line, head, sizeof(head) - 1))
				return bad(err, errlen, nr, "not /proc/slabinfo (no \"%s\")",
					   "slabinfo - version:");
			if (n != sizeof(head) - 1 + 3 ||
			    memcmp(line + sizeof(head) - 1, "2.1", 3))
				return bad(err, errlen, nr, "slabinfo version %.*s, not 2.1",
					   (int)(n - (sizeof(head) - 1)),
					   line + sizeof(head) - 1);
			continue;
		}
		if (!n || *line == '#')
			continue;
		if (KMT_ARRAY_GROW(snap->slabs, snap->nr_slabs + 1,
				   snap->alloc_slabs))
			return -ENOMEM;
		sc = &snap->slabs[snap->nr_slabs];
		ret = slab_line(c, sc, line, line + n);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			return bad(err, errlen, nr, "not a cache's line of slabinfo 2.1");
		snap->nr_slabs++;
	}
	if (!nr)
		return bad(err, errlen, 1, "empty, not /proc/slabinfo");
	snap->have |= KMT_CNT_SLABINFO;
	return 0;
}

int kmt_kcounters_parse_meminfo(struct kmt_kcounters_snap *snap,
			       const char *text, size_t len,
			       char *err, size_t errlen)
{
	const char *p = text, *end = text_end(text, len), *line;
	unsigned long nr = 0;

	snap->have &= ~KMT_CNT_MEMINFO;
	snap->meminfo_have = 0;
	while (p < end) {
		size_t n = next_line(&p, end, &line);
		const char *colon = memchr(line, ':', n), *q, *w;
		uint64_t v;
		int i;

		nr++;
		if (!n)
			continue;
		if (!colon || colon == line)
			return bad(err, errlen, nr, "not a \"Name: value kB\" line of meminfo");
		for (i = 0; i < KMT_MEM_NR; i++) {
			if ((size_t)(colon - line) == strlen(meminfo_names[i]) &&
			    !memcmp(line, meminfo_names[i], (size_t)(colon - line)))
				break;
		}
		if (i == KMT_MEM_NR)
			continue;	/* a line not kept */
		q = colon + 1;
		if (take_u64(&q, line + n, &v))
			return bad(err, errlen, nr, "%s: not a number", meminfo_names[i]);
		if (take_word(&q, line + n, &w) != 2 || memcmp(w, "kB", 2))
			return bad(err, errlen, nr, "%s: not in kB", meminfo_names[i]);
		snap->meminfo_kb[i] = v;
		snap->meminfo_have |= 1U << i;
	}
	if (!snap->meminfo_have)
		return bad(err, errlen, nr ? nr : 1,
			   "none of meminfo's Slab, SReclaimable, SUnreclaim, Percpu, VmallocUsed");
	snap->have |= KMT_CNT_MEMINFO;
	return 0;
}

static int cmp_caller(const void *a, const void *b)
{
	const struct kmt_vmalloc_caller *x = a, *y = b;

	return strcmp(x->caller, y->caller);
}

/* the caller's entry in snap (vm sorted by caller after each add) */
static int add_caller(struct kmt_kcounters *c, struct kmt_kcounters_snap *snap,
		      const char *name, size_t n, uint64_t areas,
		      uint64_t bytes)
{
	struct kmt_vmalloc_caller key, *hit;
	char buf[256];

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, name, n);
	buf[n] = '\0';
	key.caller = buf;
	/* bsearch of an empty table still wants a non-NULL base */
	hit = snap->nr_vm ? bsearch(&key, snap->vm, snap->nr_vm,
				    sizeof(*snap->vm), cmp_caller) : NULL;
	if (!hit) {
		size_t i;

		if (KMT_ARRAY_GROW(snap->vm, snap->nr_vm + 1, snap->alloc_vm))
			return -ENOMEM;
		for (i = snap->nr_vm; i > 0 && strcmp(snap->vm[i - 1].caller, buf) > 0; i--)
			snap->vm[i] = snap->vm[i - 1];
		hit = &snap->vm[i];
		memset(hit, 0, sizeof(*hit));
		hit->caller = kmt_arena_strdup(&c->arena, buf);
		if (!hit->caller)
			return -ENOMEM;
		snap->nr_vm++;
	}
	hit->areas += areas;
	hit->bytes += bytes;
	snap->vm_areas += areas;
	snap->vm_bytes += bytes;
	return 0;
}

/*
 * "0xstart-0xend size caller+off/len [pages=N] [vmalloc|ioremap|...]",
 * or without a caller: "unpurged vm_area", "vm_map_ram".  The size
 * includes the guard page, as VmallocUsed does not: the totals are the
 * areas' and say so.
 */
int kmt_kcounters_parse_vmallocinfo(struct kmt_kcounters *c,
				   struct kmt_kcounters_snap *snap,
				   const char *text, size_t len,
				   char *err, size_t errlen)
{
	const char *p = text, *end = text_end(text, len), *line;
	unsigned long nr = 0;

	snap->have &= ~KMT_CNT_VMALLOC;
	snap->nr_vm = 0;
	snap->vm_areas = snap->vm_bytes = 0;
	while (p < end) {
		size_t n = next_line(&p, end, &line), wn;
		const char *q = line, *lend = line + n, *w, *plus;
		uint64_t size;
		int ret;

		nr++;
		if (!n)
			continue;
		wn = take_word(&q, lend, &w);
		if (wn < 3 || memcmp(w, "0x", 2) || !memchr(w, '-', wn) ||
		    take_u64(&q, lend, &size))
			return bad(err, errlen, nr, "not an area of vmallocinfo (\"0x...-0x... size caller\")");
		wn = take_word(&q, lend, &w);
		if (wn == 8 && !memcmp(w, "unpurged", 8)) {
			ret = add_caller(c, snap, "unpurged vm_area", 16, 1, size);
		} else if (wn) {
			plus = memchr(w, '+', wn);
			if (plus)
				wn = (size_t)(plus - w);
			ret = add_caller(c, snap, w, wn, 1, size);
		} else {
			ret = add_caller(c, snap, "(no caller)", 11, 1, size);
		}
		if (ret)
			return ret;
	}
	snap->have |= KMT_CNT_VMALLOC;
	return 0;
}

/* "name cpu_partial [alias ...]" of the slabsys section */
static int slabsys_line(struct kmt_kcounters *c, struct kmt_kcounters_snap *snap,
			const char *p, const char *end)
{
	struct kmt_slab_count *sc = NULL;
	const char *name, *w;
	uint64_t partial;
	size_t n = take_word(&p, end, &name), i;

	if (!n)
		return -1;
	for (i = 0; i < snap->nr_slabs; i++) {
		if (strlen(snap->slabs[i].name) == n &&
		    !memcmp(snap->slabs[i].name, name, n)) {
			sc = &snap->slabs[i];
			break;
		}
	}
	if (!sc)
		return -1;	/* only for caches slabinfo listed */
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '-') {
		p++;
	} else {
		if (take_u64(&p, end, &partial) || partial > INT64_MAX)
			return -1;
		sc->cpu_partial = (int64_t)partial;
	}
	while (p < end && *p == ' ')
		p++;
	if (p == end)
		return 0;
	sc->aliases = kmt_arena_strndup(&c->arena, p, (size_t)(end - p));
	if (!sc->aliases)
		return -ENOMEM;
	sc->nr_aliases = 0;
	while (take_word(&p, end, &w))
		sc->nr_aliases++;
	return 0;
}

/* "areas bytes caller" of the vmalloc section */
static int vmalloc_line(struct kmt_kcounters *c, struct kmt_kcounters_snap *snap,
			const char *p, const char *end)
{
	uint64_t areas, bytes;

	if (take_u64(&p, end, &areas) || take_u64(&p, end, &bytes))
		return -1;
	while (p < end && *p == ' ')
		p++;
	if (p == end)
		return -1;
	return add_caller(c, snap, p, (size_t)(end - p), areas, bytes);
}

enum section { SEC_NONE, SEC_SLABINFO, SEC_SLABSYS, SEC_MEMINFO, SEC_VMALLOC };

static const char *const section_names[] = {
	[SEC_SLABINFO] = "slabinfo", [SEC_SLABSYS] = "slabsys",
	[SEC_MEMINFO] = "meminfo", [SEC_VMALLOC] = "vmalloc",
};

/* a section's text, parsed whole by the kernel text's parser */
static int end_section(struct kmt_kcounters *c, struct kmt_kcounters_snap *snap,
		       enum section sec, const char *from, const char *to,
		       unsigned long first, char *err, size_t errlen)
{
	char sub[128];
	int ret;

	if (sec == SEC_SLABINFO)
		ret = kmt_kcounters_parse_slabinfo(c, snap, from,
						  (size_t)(to - from), sub,
						  sizeof(sub));
	else if (sec == SEC_MEMINFO)
		ret = kmt_kcounters_parse_meminfo(snap, from,
						 (size_t)(to - from), sub,
						 sizeof(sub));
	else
		return 0;
	if (ret == -EINVAL) {
		unsigned long l = strtoul(sub + 5, NULL, 10);
		const char *why = strchr(sub, ':');

		return bad(err, errlen, first + l, "%s: %s",
			   section_names[sec], why ? why + 2 : sub);
	}
	return ret;
}

int kmt_kcounters_parse_option(struct kmt_kcounters *c, const char *text,
			      size_t len, char *err, size_t errlen)
{
	const char *p = text, *end = text_end(text, len), *line, *from = NULL;
	size_t magic = strlen(KMT_KCOUNTERS_MAGIC);
	struct kmt_kcounters_snap *snap = NULL;
	enum section sec = SEC_NONE;
	unsigned long nr = 1, first = 0;
	int ret;

	if ((size_t)(end - text) < magic || memcmp(text, KMT_KCOUNTERS_MAGIC, magic))
		return bad(err, errlen, 1, "no \"kmemtrace counters\" line");
	p += magic;
	for (;;) {
		const char *here = p;
		size_t n = p < end ? next_line(&p, end, &line) : 0;
		const char *q, *w;
		size_t wn;
		int when, s;

		if (here < end)
			nr++;
		if (here < end && (!n || *line != '@')) {
			if (sec == SEC_NONE)
				return bad(err, errlen, nr, "a line before any \"@start\" or \"@end\"");
			if (sec == SEC_SLABSYS || sec == SEC_VMALLOC) {
				ret = sec == SEC_SLABSYS ?
				      slabsys_line(c, snap, line, line + n) :
				      vmalloc_line(c, snap, line, line + n);
				if (ret == -ENOMEM)
					return ret;
				if (ret)
					return bad(err, errlen, nr, "not a line of %s",
						   section_names[sec]);
				if (sec == SEC_VMALLOC)
					snap->have |= KMT_CNT_VMALLOC;
			}
			continue;
		}
		/* a section ends: at the next "@" line or the end */
		if (sec != SEC_NONE) {
			ret = end_section(c, snap, sec, from, here, first, err,
					  errlen);
			if (ret)
				return ret;
		}
		if (here >= end)
			return 0;
		q = line + 1;
		wn = take_word(&q, line + n, &w);
		if (wn == 5 && !memcmp(w, "start", 5))
			when = KMT_CNT_START;
		else if (wn == 3 && !memcmp(w, "end", 3))
			when = KMT_CNT_END;
		else
			return bad(err, errlen, nr, "not \"@start\" or \"@end\"");
		snap = &c->at[when];
		wn = take_word(&q, line + n, &w);
		if (wn == 7 && !memcmp(w, "missing", 7)) {
			const char **why;

			wn = take_word(&q, line + n, &w);
			if (wn == 8 && !memcmp(w, "slabinfo", 8))
				why = &snap->why_slabinfo;
			else if (wn == 7 && !memcmp(w, "meminfo", 7))
				why = &snap->why_meminfo;
			else if (wn == 7 && !memcmp(w, "vmalloc", 7))
				why = &snap->why_vmalloc;
			else
				return bad(err, errlen, nr, "missing what?");
			while (q < line + n && *q == ' ')
				q++;
			*why = kmt_arena_strndup(&c->arena, q,
						 (size_t)(line + n - q));
			if (!*why)
				return -ENOMEM;
			sec = SEC_NONE;
			continue;
		}
		for (s = SEC_SLABINFO; s <= SEC_VMALLOC; s++) {
			if (wn == strlen(section_names[s]) &&
			    !memcmp(w, section_names[s], wn))
				break;
		}
		if (s > SEC_VMALLOC)
			return bad(err, errlen, nr, "no section \"%.*s\"",
				   (int)(wn > 32 ? 32 : wn), w);
		if (s == SEC_SLABSYS && !(snap->have & KMT_CNT_SLABINFO))
			return bad(err, errlen, nr, "slabsys before its slabinfo");
		if (s == SEC_VMALLOC) {
			snap->nr_vm = 0;
			snap->vm_areas = snap->vm_bytes = 0;
			snap->have |= KMT_CNT_VMALLOC;
		}
		sec = (enum section)s;
		from = p;
		first = nr;
	}
}

const struct kmt_slab_count *kmt_kcounters_slab(const struct kmt_kcounters_snap *snap,
					       const char *name)
{
	size_t i;

	if (!(snap->have & KMT_CNT_SLABINFO))
		return NULL;
	for (i = 0; i < snap->nr_slabs; i++) {
		if (!strcmp(snap->slabs[i].name, name))
			return &snap->slabs[i];
	}
	return NULL;
}

/* "kmalloc-rnd-NN-<size>" for the size of "kmalloc-<size>" */
static int random_copy_of(const char *cache, const char *size)
{
	static const char pre[] = "kmalloc-rnd-";
	const char *p;

	if (strncmp(cache, pre, sizeof(pre) - 1))
		return 0;
	p = strchr(cache + sizeof(pre) - 1, '-');
	return p && !strcmp(p + 1, size);
}

static int sum_active(const struct kmt_kcounters_snap *snap, const char *name,
		      uint64_t *active, uint64_t *slack, int nr_cpus)
{
	const char *size = !strncmp(name, "kmalloc-", 8) ? name + 8 : NULL;
	uint64_t cpus = nr_cpus > 0 ? (uint64_t)nr_cpus : 1, all = 0;
	int found = 0;
	size_t i;

	*active = 0;
	for (i = 0; i < snap->nr_slabs; i++) {
		const struct kmt_slab_count *sc = &snap->slabs[i];

		if (strcmp(sc->name, name) && !(size && random_copy_of(sc->name, size)))
			continue;
		found = 1;
		*active += sc->active_objs;
		/*
		 * SLUB counts as active every object of a CPU's slab and of
		 * its partial slabs, free or not (only the nodes' partial
		 * lists are counted free): up to a slab and twice
		 * cpu_partial objects a CPU
		 */
		all += cpus * (sc->objperslab +
			       (sc->cpu_partial > 0 ? 2 * (uint64_t)sc->cpu_partial : 0));
	}
	if (all > *slack)
		*slack = all;
	return found;
}

int kmt_kcounters_slab_change(const struct kmt_kcounters *c, const char *name,
			      int nr_cpus, struct kmt_slab_change *out)
{
	int a, b;

	memset(out, 0, sizeof(*out));
	if (!kmt_kcounters_have(c, KMT_CNT_SLABINFO))
		return 0;
	a = sum_active(&c->at[KMT_CNT_START], name, &out->start, &out->slack,
		       nr_cpus);
	b = sum_active(&c->at[KMT_CNT_END], name, &out->end, &out->slack,
		       nr_cpus);
	return a || b;
}
