// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "event/symbols.h"
#include "util/array.h"

void kmt_symtab_init(struct kmt_symtab *t, struct kmt_strtab *strs)
{
	memset(t, 0, sizeof(*t));
	t->strs = strs;
	t->sorted = 1;
}

void kmt_symtab_free(struct kmt_symtab *t)
{
	free(t->syms);
	t->syms = NULL;
	t->nr = t->alloc = 0;
}

int kmt_symtab_add(struct kmt_symtab *t, uint64_t addr, const char *name,
		   size_t len, const char *module, size_t mod_len)
{
	struct kmt_sym *s;

	if (KMT_ARRAY_GROW(t->syms, t->nr + 1, t->alloc))
		return -ENOMEM;
	s = &t->syms[t->nr];
	s->addr = addr;
	s->name = kmt_strtab_intern(t->strs, name, len);
	s->module = module && mod_len ?
		    kmt_strtab_intern(t->strs, module, mod_len) : 0;
	if (!s->name)
		return -ENOMEM;
	if (t->nr && t->syms[t->nr - 1].addr > addr)
		t->sorted = 0;
	t->nr++;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int kmt_symtab_load_kallsyms(struct kmt_symtab *t, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int added = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		const char *q, *name, *mod = NULL;
		size_t name_len, mod_len = 0;
		uint64_t addr = 0;
		char type;
		int d;

		if (!eol)
			eol = end;
		q = p;
		while (q < eol && (d = hexval(*q)) >= 0) {
			addr = addr << 4 | d;
			q++;
		}
		if (q == p || q + 3 > eol || *q != ' ')
			goto next;
		type = q[1];
		if (q[2] != ' ')
			goto next;
		name = q + 3;
		q = name;
		while (q < eol && *q != '\t' && *q != ' ')
			q++;
		name_len = q - name;
		while (q < eol && (*q == '\t' || *q == ' '))
			q++;
		if (q < eol && *q == '[') {
			mod = q + 1;
			while (q < eol && *q != ']')
				q++;
			mod_len = q - mod;
		}
		if (!name_len || !strchr("tTwW", type))
			goto next;
		if (kmt_symtab_add(t, addr, name, name_len, mod, mod_len))
			return -ENOMEM;
		added++;
next:
		p = eol + 1;
	}
	return added;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct kmt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* among aliases prefer the first added: stable by name id */
	return x->name < y->name ? -1 : x->name > y->name;
}

static const char *lookup_tep(struct kmt_symtab *t, uint64_t addr,
			      uint64_t *offset)
{
	const char *name;

	if (!t->tep)
		return NULL;
	name = tep_find_function(t->tep, addr);
	if (name && offset)
		*offset = addr - tep_find_function_address(t->tep, addr);
	return name;
}

const char *kmt_symtab_lookup(struct kmt_symtab *t, uint64_t addr,
			      uint64_t *offset)
{
	size_t lo = 0, hi;

	if (addr >= KMT_SYNTH_BASE && addr < 0x8000000000000000ULL) {
		uint64_t rel = addr - KMT_SYNTH_BASE;
		uint32_t id = (uint32_t)(rel >> KMT_SYNTH_SHIFT);
		const char *name = kmt_strtab_get(t->strs, id);

		if (name) {
			if (offset)
				*offset = rel & ((1ULL << KMT_SYNTH_SHIFT) - 1);
			return name;
		}
	}
	if (!t->nr)
		return lookup_tep(t, addr, offset);
	if (!t->sorted) {
		qsort(t->syms, t->nr, sizeof(*t->syms), cmp_sym);
		t->sorted = 1;
	}
	if (addr < t->syms[0].addr)
		return lookup_tep(t, addr, offset);
	/* last symbol with address <= addr */
	hi = t->nr;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/*
	 * No function is 16 MiB long: an address that far past the nearest
	 * symbol (past the last one, or in the gap before the modules) is
	 * not in it.
	 */
	if (addr - t->syms[lo].addr > (1ULL << 24))
		return lookup_tep(t, addr, offset);
	/* among aliases the first (see cmp_sym) names the address */
	while (lo > 0 && t->syms[lo - 1].addr == t->syms[lo].addr)
		lo--;
	if (offset)
		*offset = addr - t->syms[lo].addr;
	return kmt_strtab_get(t->strs, t->syms[lo].name);
}

uint64_t kmt_symtab_from_text(struct kmt_symtab *t, const char *text,
			      size_t len)
{
	const char *end = text + len, *plus, *p;
	uint64_t off = 0, addr = 0;
	uint32_t id;
	int d;

	while (text < end && (*text == ' ' || *text == '\t'))
		text++;
	while (end > text && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	/* "[module] name": keep the name */
	if (text < end && *text == '[') {
		p = memchr(text, ']', end - text);
		if (p) {
			text = p + 1;
			while (text < end && *text == ' ')
				text++;
		}
	}
	if (text == end)
		return 0;
	if (end - text > 2 && text[0] == '0' && text[1] == 'x') {
		for (p = text + 2; p < end && (d = hexval(*p)) >= 0; p++)
			addr = addr << 4 | d;
		if (p == end)
			return addr;
	}
	/* a bare hex word is an address the kernel could not name */
	for (p = text; p < end && hexval(*p) >= 0; p++)
		addr = addr << 4 | hexval(*p);
	if (p == end && end - text >= 8)
		return addr;

	plus = memchr(text, '+', end - text);
	if (plus) {
		p = plus + 1;
		if (end - p > 2 && p[0] == '0' && p[1] == 'x')
			p += 2;
		for (; p < end && (d = hexval(*p)) >= 0; p++)
			off = off << 4 | d;
	} else {
		/* "name (module)" style suffixes stay part of the name */
		plus = end;
	}
	id = kmt_strtab_intern(t->strs, text, plus - text);
	if (!id)
		return 0;
	if (off >= (1ULL << KMT_SYNTH_SHIFT))
		off = (1ULL << KMT_SYNTH_SHIFT) - 1;
	return KMT_SYNTH_BASE + ((uint64_t)id << KMT_SYNTH_SHIFT) + off;
}
