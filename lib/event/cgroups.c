// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/cgroups.h"

void kmt_cgmap_init(struct kmt_cgmap *m)
{
	memset(m, 0, sizeof(*m));
	kmt_hash_u32_init(&m->first);
}

void kmt_cgmap_free(struct kmt_cgmap *m)
{
	free(m->e);
	m->e = NULL;
	m->nr = m->alloc = 0;
	m->recorded = 0;
	m->hierarchy[0] = '\0';
	kmt_hash_u32_free(&m->first);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct kmt_cg_entry *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

static int add_entry(struct kmt_cgmap *m, int32_t pid, uint64_t from,
		     uint32_t path)
{
	if (m->nr == m->alloc) {
		size_t n = m->alloc ? 2 * m->alloc : 64;
		struct kmt_cg_entry *e = realloc(m->e, n * sizeof(*e));

		if (!e)
			return -ENOMEM;
		m->e = e;
		m->alloc = n;
	}
	m->e[m->nr].pid = pid;
	m->e[m->nr].from = from;
	m->e[m->nr++].path = path;
	return 0;
}

static int bad(struct kmt_cgmap *m, size_t *bad_at, size_t at, char *why,
	       size_t why_len, const char *what)
{
	*bad_at = at;
	snprintf(why, why_len, "%s", what);
	kmt_cgmap_free(m);
	kmt_hash_u32_init(&m->first);
	return -EINVAL;
}

/* one "pid from path" line, p to eol */
static int parse_line(struct kmt_cgmap *m, struct kmt_strtab *strs,
		      const char *p, const char *eol, const char **what)
{
	unsigned long long from;
	uint32_t path;
	char *q;
	long pid;

	pid = strtol(p, &q, 10);
	if (q == p || *q != ' ' || pid <= 0 || pid > INT32_MAX) {
		*what = "not 'pid time path'";
		return -EINVAL;
	}
	p = q + 1;
	if (*p < '0' || *p > '9') {
		*what = "no time after the pid";
		return -EINVAL;
	}
	errno = 0;
	from = strtoull(p, &q, 10);
	if (errno || *q != ' ') {
		*what = "no time after the pid";
		return -EINVAL;
	}
	p = q + 1;
	if (p >= eol || *p != '/') {
		*what = "a cgroup path that does not start with '/'";
		return -EINVAL;
	}
	path = kmt_strtab_intern(strs, p, (size_t)(eol - p));
	if (!path)
		return -ENOMEM;
	return add_entry(m, (int32_t)pid, from, path);
}

int kmt_cgmap_parse(struct kmt_cgmap *m, struct kmt_strtab *strs,
		    const char *text, size_t len, size_t *bad_at, char *why,
		    size_t why_len)
{
	const char *p = text, *end = text + strnlen(text, len), *eol;
	size_t magic = strlen(KMT_CGMAP_MAGIC), hl;
	const char *hier = KMT_CGMAP_HIERARCHY;
	size_t i;
	int ret;

	kmt_cgmap_free(m);
	kmt_hash_u32_init(&m->first);
	*bad_at = 0;
	if ((size_t)(end - p) < magic || memcmp(p, KMT_CGMAP_MAGIC, magic))
		return bad(m, bad_at, 0, why, why_len,
			   "no 'kmemtrace cgroups' line first");
	p += magic;
	eol = memchr(p, '\n', (size_t)(end - p));
	hl = strlen(hier);
	if (!eol || (size_t)(eol - p) <= hl || memcmp(p, hier, hl) ||
	    (size_t)(eol - p - hl) >= sizeof(m->hierarchy))
		return bad(m, bad_at, (size_t)(p - text), why, why_len,
			   "no 'hierarchy' line second");
	memcpy(m->hierarchy, p + hl, (size_t)(eol - p - hl));
	m->hierarchy[eol - p - hl] = '\0';
	for (p = eol + 1; p < end; p = eol + 1) {
		const char *what = NULL;

		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			return bad(m, bad_at, (size_t)(p - text), why, why_len,
				   "a last line without its newline");
		ret = parse_line(m, strs, p, eol, &what);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			return bad(m, bad_at, (size_t)(p - text), why, why_len,
				   what);
	}
	if (m->nr)	/* qsort wants a non-NULL base even for none */
		qsort(m->e, m->nr, sizeof(*m->e), cmp_entry);
	for (i = 0; i < m->nr; i++) {
		uint32_t *slot;
		int is_new = 0;

		if (i && m->e[i].pid == m->e[i - 1].pid)
			continue;
		slot = kmt_hash_u32_put(&m->first, (uint32_t)m->e[i].pid,
					&is_new);
		if (!slot)
			return -ENOMEM;
		*slot = (uint32_t)i;
	}
	m->recorded = 1;
	return 0;
}

long kmt_cgmap_find(const struct kmt_cgmap *m, int32_t pid, uint64_t ts,
		    uint64_t *until)
{
	const uint32_t *first;
	size_t i, k;

	if (until)
		*until = UINT64_MAX;
	if (!m->recorded || !(first = kmt_hash_u32_get(&m->first,
						       (uint32_t)pid)))
		return -1;
	i = *first;
	/* a task has few entries: a walk beats a search */
	for (k = i; k + 1 < m->nr && m->e[k + 1].pid == pid &&
		    m->e[k + 1].from <= ts; k++)
		;
	if (m->e[k].from > ts) {
		/* before its first entry: an earlier task of that pid */
		if (until)
			*until = m->e[k].from;
		return -1;
	}
	if (until && k + 1 < m->nr && m->e[k + 1].pid == pid)
		*until = m->e[k + 1].from;
	return (long)k;
}

const char *kmt_cgmap_path(const struct kmt_cgmap *m,
			   const struct kmt_strtab *strs, int32_t pid,
			   uint64_t ts)
{
	long k = kmt_cgmap_find(m, pid, ts, NULL);

	return k < 0 ? NULL : kmt_strtab_get(strs, m->e[k].path);
}
