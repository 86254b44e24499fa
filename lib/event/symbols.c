// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
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
	free(t->names);
	t->names = NULL;
	t->names_len = t->names_alloc = 0;
	free(t->syms);
	t->syms = NULL;
	t->nr = t->alloc = 0;
}

/* room must have been made for the entry */
static void push(struct kmt_symtab *t, uint64_t addr, uint32_t name,
		 uint32_t module)
{
	struct kmt_sym *s = &t->syms[t->nr];

	s->addr = addr;
	s->name = name;
	s->module = module;
	if (t->nr && t->syms[t->nr - 1].addr > addr)
		t->sorted = 0;
	t->nr++;
}

static uint32_t append_name(struct kmt_symtab *t, const char *name, size_t len)
{
	uint32_t off = (uint32_t)t->names_len;

	memcpy(t->names + off, name, len);
	t->names[off + len] = '\0';
	t->names_len += len + 1;
	return off;
}

/* makes room for exactly this many more symbols and name bytes */
static int reserve(struct kmt_symtab *t, size_t syms, size_t bytes)
{
	void *p;

	/* offsets are 32 bits: the names of all symbols stay under 4 GiB */
	if (bytes > UINT32_MAX - t->names_len)
		return -EOVERFLOW;
	if (syms > t->alloc - t->nr) {
		if (syms > SIZE_MAX / sizeof(*t->syms) - t->nr)
			return -ENOMEM;
		p = realloc(t->syms, (t->nr + syms) * sizeof(*t->syms));
		if (!p)
			return -ENOMEM;
		t->syms = p;
		t->alloc = t->nr + syms;
	}
	if (bytes > t->names_alloc - t->names_len) {
		p = realloc(t->names, t->names_len + bytes);
		if (!p)
			return -ENOMEM;
		t->names = p;
		t->names_alloc = t->names_len + bytes;
	}
	return 0;
}

/* gives back the room reserve() made that the table did not use */
static void fit(struct kmt_symtab *t)
{
	void *p;

	if (t->nr < t->alloc && t->nr) {
		p = realloc(t->syms, t->nr * sizeof(*t->syms));
		if (p) {
			t->syms = p;
			t->alloc = t->nr;
		}
	}
	if (t->names_len < t->names_alloc && t->names_len) {
		p = realloc(t->names, t->names_len);
		if (p) {
			t->names = p;
			t->names_alloc = t->names_len;
		}
	}
}

int kmt_symtab_add(struct kmt_symtab *t, uint64_t addr, const char *name,
		   size_t len, const char *module, size_t mod_len)
{
	uint32_t mod_id = module && mod_len ?
			  kmt_strtab_intern(t->strs, module, mod_len) : 0;

	if (module && mod_len && !mod_id)
		return -ENOMEM;
	if (len + 1 > UINT32_MAX - t->names_len)
		return -EOVERFLOW;
	if (KMT_ARRAY_GROW(t->names, t->names_len + len + 1, t->names_alloc) ||
	    KMT_ARRAY_GROW(t->syms, t->nr + 1, t->alloc))
		return -ENOMEM;
	push(t, addr, append_name(t, name, len), mod_id);
	return 0;
}

int kmt_symtab_insert(struct kmt_symtab *t, uint64_t addr, const char *name,
		      size_t len)
{
	int was_sorted = t->sorted, ret;
	size_t lo = 0, hi;
	struct kmt_sym sym;

	ret = kmt_symtab_add(t, addr, name, len, NULL, 0);
	if (ret || !was_sorted || t->sorted)
		return ret;
	/* after the symbols at its address: the first added names it */
	sym = t->syms[t->nr - 1];
	hi = t->nr - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(t->syms + lo + 1, t->syms + lo,
		(t->nr - 1 - lo) * sizeof(*t->syms));
	t->syms[lo] = sym;
	t->sorted = 1;
	return 0;
}

/* a hex digit's value plus one; 0 for any other character */
static const unsigned char hexdigit[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* the shortest line that holds a symbol: "0 t x\n" */
#define KSYM_LINE_MIN 6

/* one line of kallsyms: "addr type name[\t[module]]" */
struct ksym_line {
	uint64_t addr;
	const char *name;
	const char *mod;
	size_t name_len;
	size_t mod_len;
};

/*
 * Reads the line at p; returns where the next one starts, with l filled
 * in when the line is a text symbol and l->name NULL when not.  A
 * kallsyms is a few hundred thousand lines read before the first event,
 * hence the table for hex digits and memchr for the end of the name.
 */
static const char *parse_line(const char *p, const char *end,
			      struct ksym_line *l)
{
	const char *eol = memchr(p, '\n', end - p);
	const char *q = p, *next, *tab, *blank;
	uint64_t addr = 0;
	unsigned int d;
	char type;

	if (!eol)
		eol = end;
	next = eol < end ? eol + 1 : end;
	l->name = NULL;
	while (q < eol && (d = hexdigit[(unsigned char)*q])) {
		addr = addr << 4 | (d - 1);
		q++;
	}
	if (q == p || q + 3 > eol || *q != ' ' || q[2] != ' ')
		return next;
	type = q[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return next;
	q += 3;
	/* the name ends at a tab (a module follows) or a blank */
	tab = memchr(q, '\t', eol - q);
	if (!tab)
		tab = eol;
	blank = memchr(q, ' ', tab - q);
	if (blank)
		tab = blank;
	if (tab == q)
		return next;
	l->addr = addr;
	l->name = q;
	l->name_len = tab - q;
	l->mod = NULL;
	l->mod_len = 0;
	for (q = tab; q < eol && (*q == '\t' || *q == ' '); q++)
		;
	if (q < eol && *q == '[') {
		l->mod = ++q;
		while (q < eol && *q != ']')
			q++;
		l->mod_len = q - l->mod;
	}
	return next;
}

/*
 * Most functions follow their padding symbol, "__pfx_name", whose name
 * ends with theirs: such a name is not stored again but pointed into
 * the one before.  Its offset still grows with the order of adding.
 */
static int shares_tail(const char *prev, size_t prev_len,
		       const struct ksym_line *l)
{
	return prev && prev_len >= l->name_len &&
	       !memcmp(prev + prev_len - l->name_len, l->name, l->name_len);
}

int kmt_symtab_load_kallsyms(struct kmt_symtab *t, const char *buf, size_t len)
{
	const char *p, *end = buf + len, *prev = NULL, *last_mod = NULL;
	size_t nr = 0, prev_len = 0, last_mod_len = 0;
	uint32_t prev_off = 0, mod_id = 0;
	struct ksym_line l;
	int ret;

	/*
	 * Room for as many symbols as the text could hold lines and for all
	 * the text as names, made at once, and what stays unused given back
	 * after: grown by doubling, the table would stay up to twice its
	 * size for the run, and the lines counted first cost a pass over
	 * 8 MB before the first event.  The room a big table does not use
	 * is pages of a mapping never touched.
	 */
	ret = reserve(t, len / KSYM_LINE_MIN + 1, len + 1);
	if (ret)
		return ret;
	for (p = buf; p < end;) {
		uint32_t off;

		p = parse_line(p, end, &l);
		if (!l.name)
			continue;
		if (!l.mod_len) {
			mod_id = 0;
		} else if (!last_mod || l.mod_len != last_mod_len ||
			   memcmp(l.mod, last_mod, l.mod_len)) {
			/* a module's symbols come together: intern once */
			mod_id = kmt_strtab_intern(t->strs, l.mod, l.mod_len);
			if (!mod_id)
				return -ENOMEM;
		}
		last_mod = l.mod;
		last_mod_len = l.mod_len;
		if (shares_tail(prev, prev_len, &l)) {
			off = prev_off + (uint32_t)(prev_len - l.name_len);
		} else {
			off = append_name(t, l.name, l.name_len);
			prev = l.name;
			prev_len = l.name_len;
			prev_off = off;
		}
		push(t, l.addr, off, mod_id);
		nr++;
	}
	fit(t);
	return nr > INT32_MAX ? -EOVERFLOW : (int)nr;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct kmt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* among aliases prefer the first added */
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

void kmt_symtab_prepare(struct kmt_symtab *t)
{
	if (!t->sorted) {
		if (t->nr)
			qsort(t->syms, t->nr, sizeof(*t->syms), cmp_sym);
		t->sorted = 1;
	}
	if (t->tep)
		tep_find_function(t->tep, 0);
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
	if (!t->sorted)
		kmt_symtab_prepare(t);
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
	if (t->end_at_last && lo == t->nr - 1 && addr != t->syms[lo].addr)
		return lookup_tep(t, addr, offset);
	/* among aliases the first (see cmp_sym) names the address */
	while (lo > 0 && t->syms[lo - 1].addr == t->syms[lo].addr)
		lo--;
	if (offset)
		*offset = addr - t->syms[lo].addr;
	return kmt_symtab_name(t, &t->syms[lo]);
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
