/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_SYMBOLS_H
#define KMT_EVENT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "util/strtab.h"

/*
 * Kernel symbols: the kallsyms a recording carries, plus names that text
 * input gives instead of addresses.  Text input has no addresses (%pS
 * prints "name+0xoff/0xsize"), so each such name gets a synthetic base
 * address in a range no kernel uses; one lookup path then serves all
 * formats.
 */
#define KMT_SYNTH_BASE	0x1000000000000000ULL
#define KMT_SYNTH_SHIFT	28	/* room for offsets up to 256 MiB */

/*
 * 16 bytes a symbol: a kernel carries 100k+ text symbols and the table
 * stays for the whole run.
 */
struct kmt_sym {
	uint64_t addr;
	/*
	 * Offset of the name in the symtab's names.  Names are appended in
	 * the order of adding, so among aliases the smaller offset is the
	 * first added, the one that names the address.
	 */
	uint32_t name;
	uint32_t module;	/* strtab id; 0 for the core kernel */
};

struct tep_handle;

struct kmt_symtab {
	struct kmt_strtab *strs;	/* the session's */
	/*
	 * Where a reader's library already parsed the recording's kallsyms
	 * (libtracecmd does for trace.dat), names not in syms are asked of
	 * it rather than parsed twice.  Not owned: the session holds it.
	 */
	struct tep_handle *tep;
	struct kmt_sym *syms;
	size_t nr;
	size_t alloc;
	int sorted;
	/*
	 * The last symbol names its own address only, not what follows it:
	 * libtraceevent's rule, which a trace.dat's names have followed
	 * since they were looked up there (kmt_symtab_lookup)
	 */
	int end_at_last;
	/* the kept symbols' names, each NUL-terminated */
	char *names;
	size_t names_len;
	size_t names_alloc;
};

void kmt_symtab_init(struct kmt_symtab *t, struct kmt_strtab *strs);
void kmt_symtab_free(struct kmt_symtab *t);
int kmt_symtab_add(struct kmt_symtab *t, uint64_t addr, const char *name,
		   size_t len, const char *module, size_t mod_len);
/*
 * kmt_symtab_add that keeps a sorted table sorted, for a reader that
 * learns symbols one at a time between lookups (perf script's frames):
 * after an add, the next lookup sorts the whole table.
 */
int kmt_symtab_insert(struct kmt_symtab *t, uint64_t addr, const char *name,
		      size_t len);
/*
 * Parses /proc/kallsyms text ("addr type name [module]"); only text
 * symbols (t, T, w, W) are kept.  Returns the count added, or -errno.
 */
int kmt_symtab_load_kallsyms(struct kmt_symtab *t, const char *buf,
			     size_t len);
/*
 * Resolves addr to its symbol name and the offset into it; NULL when no
 * symbol covers it.  A kallsyms name stays valid until the next add, load
 * or free.
 */
const char *kmt_symtab_lookup(struct kmt_symtab *t, uint64_t addr,
			      uint64_t *offset);
/*
 * Does what the first lookup would do once (sorts the table, has
 * libtraceevent build its function map): lookups after it only read, and
 * two threads may make them at once until the next add or load.
 */
void kmt_symtab_prepare(struct kmt_symtab *t);
/*
 * For text input: "name+0x1a/0x300", "name", "0xffffffff8123" or
 * "[module] name+0x.." to an address that kmt_symtab_lookup resolves
 * back.  Returns 0 when the text is empty.
 */
uint64_t kmt_symtab_from_text(struct kmt_symtab *t, const char *text,
			      size_t len);

static inline int kmt_symtab_empty(const struct kmt_symtab *t)
{
	return t->nr == 0;
}

static inline const char *kmt_symtab_name(const struct kmt_symtab *t,
					  const struct kmt_sym *sym)
{
	return t->names + sym->name;
}

/* NULL for the core kernel */
static inline const char *kmt_symtab_module(const struct kmt_symtab *t,
					    const struct kmt_sym *sym)
{
	return sym->module ? kmt_strtab_get(t->strs, sym->module) : NULL;
}

#endif
