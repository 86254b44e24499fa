// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "event/symbols.h"
#include "util/array.h"
#include "util/strbuf.h"

void kmt_symtab_init(struct kmt_symtab *t, struct kmt_strtab *strs)
{
	memset(t, 0, sizeof(*t));
	t->strs = strs;
	t->sorted = 1;
}

void kmt_symtab_free(struct kmt_symtab *t)
{
	size_t i;

	for (i = 0; i < t->nr_texts; i++)
		free(t->texts[i]);
	free(t->texts);
	t->texts = NULL;
	t->nr_texts = t->alloc_texts = 0;
	free(t->syms);
	t->syms = NULL;
	t->nr = t->alloc = 0;
}

static int push(struct kmt_symtab *t, uint64_t addr, const char *name,
		const char *module)
{
	struct kmt_sym *s;

	if (KMT_ARRAY_GROW(t->syms, t->nr + 1, t->alloc))
		return -ENOMEM;
	s = &t->syms[t->nr];
	s->addr = addr;
	s->name = name;
	s->module = module;
	s->seq = (uint32_t)t->nr;
	if (t->nr && t->syms[t->nr - 1].addr > addr)
		t->sorted = 0;
	t->nr++;
	return 0;
}

int kmt_symtab_add(struct kmt_symtab *t, uint64_t addr, const char *name,
		   size_t len, const char *module, size_t mod_len)
{
	uint32_t name_id = kmt_strtab_intern(t->strs, name, len);
	uint32_t mod_id = module && mod_len ?
			  kmt_strtab_intern(t->strs, module, mod_len) : 0;

	if (!name_id || (module && mod_len && !mod_id))
		return -ENOMEM;
	return push(t, addr, kmt_strtab_get(t->strs, name_id),
		    mod_id ? kmt_strtab_get(t->strs, mod_id) : NULL);
}

int kmt_symtab_load_kallsyms(struct kmt_symtab *t, const char *buf, size_t len)
{
	char *text, *p, *end;
	int added = 0;

	if (KMT_ARRAY_GROW(t->texts, t->nr_texts + 1, t->alloc_texts))
		return -ENOMEM;
	text = malloc(len + 1);
	if (!text)
		return -ENOMEM;
	memcpy(text, buf, len);
	text[len] = '\0';
	t->texts[t->nr_texts++] = text;

	for (p = text, end = text + len; p < end;) {
		char *eol = memchr(p, '\n', end - p);
		char *q, *name, *mod = NULL;
		uint64_t addr = 0;
		char type;
		int d;

		if (!eol)
			eol = end;
		q = p;
		while (q < eol && (d = kmt_hexval(*q)) >= 0) {
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
		if (q == name || !strchr("tTwW", type))
			goto next;
		*q++ = '\0';	/* the name ends here; eol ends the line */
		while (q < eol && (*q == '\t' || *q == ' '))
			q++;
		if (q < eol && *q == '[') {
			mod = q + 1;
			while (q < eol && *q != ']')
				q++;
			*q = '\0';
			if (!*mod)
				mod = NULL;
		}
		*eol = '\0';
		if (push(t, addr, name, mod))
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
	/* among aliases prefer the first added */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
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
	return t->syms[lo].name;
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
		for (p = text + 2; p < end && (d = kmt_hexval(*p)) >= 0; p++)
			addr = addr << 4 | d;
		if (p == end)
			return addr;
	}
	/* a bare hex word is an address the kernel could not name */
	for (p = text; p < end && kmt_hexval(*p) >= 0; p++)
		addr = addr << 4 | kmt_hexval(*p);
	if (p == end && end - text >= 8)
		return addr;

	plus = memchr(text, '+', end - text);
	if (plus) {
		p = plus + 1;
		if (end - p > 2 && p[0] == '0' && p[1] == 'x')
			p += 2;
		for (; p < end && (d = kmt_hexval(*p)) >= 0; p++)
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
