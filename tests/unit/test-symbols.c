// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols: kallsyms parsing, address lookup, the synthetic
 * addresses text input gets, and the libtraceevent fallback.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "check.h"
#include "event/symbols.h"

/* a kallsyms excerpt with every kind of line the parser meets */
static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 t early_idt_handler\n"
	"ffffffff81002000 W weak_func\n"
	"ffffffff81003000 w weak_lower\n"
	"ffffffff81004000 r rodata_thing\n"
	"ffffffff82000000 D some_data\n"
	"ffffffff82001000 d local_data\n"
	"ffffffff83000000 B bss_thing\n"
	"ffffffff83001000 b bss_local\n"
	"0000000000000000 A fixed_percpu_data\n"
	"\n"
	"not a line at all\n"
	"ffffffff84000000 T\n"
	"ffffffff84000000 TT two_letter_type\n"
	"ffffffffc0a01000 t ext4_fill_super\t[ext4]\n"
	"ffffffffc0a02000 T ext4_iget\t[ext4]\n"
	"ffffffffc0b00000 t xfs_fs_fill_super\t[xfs]"; /* no final newline */

struct ctx {
	struct kmt_strtab strs;
	struct kmt_symtab syms;
};

static int load(struct ctx *c, const char *text, size_t len)
{
	kmt_strtab_init(&c->strs);
	kmt_symtab_init(&c->syms, &c->strs);
	return kmt_symtab_load_kallsyms(&c->syms, text, len);
}

static void unload(struct ctx *c)
{
	kmt_symtab_free(&c->syms);
	kmt_strtab_free(&c->strs);
}

static const struct kmt_sym *find_sym(const struct ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->syms.nr; i++) {
		const struct kmt_sym *s = &c->syms.syms[i];

		if (!strcmp(kmt_symtab_name(&c->syms, s), name))
			return s;
	}
	return NULL;
}

/* resolves addr and checks name and offset */
static void check_lookup(struct ctx *c, uint64_t addr, const char *name,
			 uint64_t off)
{
	uint64_t got = 0xdead;
	const char *s = kmt_symtab_lookup(&c->syms, addr, &got);

	if (!name) {
		if (s)
			fprintf(stderr, "0x%llx: want no symbol, got %s\n",
				(unsigned long long)addr, s);
		CHECK(s == NULL);
		return;
	}
	if (!s || strcmp(s, name) || got != off)
		fprintf(stderr, "0x%llx: want %s+0x%llx, got %s+0x%llx\n",
			(unsigned long long)addr, name,
			(unsigned long long)off, s ? s : "(null)",
			(unsigned long long)got);
	CHECK_STR(s, name);
	CHECK_EQ_U64(got, off);
}

static void test_parse_types_and_modules(void)
{
	struct ctx c;
	const struct kmt_sym *s;
	int n = load(&c, kallsyms, sizeof(kallsyms) - 1);

	/* _stext, startup_64, early_idt_handler, weak_*, ext4 x2, xfs */
	CHECK_EQ_U64(n, 8);
	CHECK_EQ_U64(c.syms.nr, 8);
	CHECK(find_sym(&c, "early_idt_handler") != NULL);
	CHECK(find_sym(&c, "weak_func") != NULL);
	CHECK(find_sym(&c, "weak_lower") != NULL);
	CHECK(find_sym(&c, "rodata_thing") == NULL);
	CHECK(find_sym(&c, "some_data") == NULL);
	CHECK(find_sym(&c, "local_data") == NULL);
	CHECK(find_sym(&c, "bss_thing") == NULL);
	CHECK(find_sym(&c, "bss_local") == NULL);
	CHECK(find_sym(&c, "fixed_percpu_data") == NULL);
	CHECK(find_sym(&c, "two_letter_type") == NULL);
	s = find_sym(&c, "early_idt_handler");
	CHECK(s && s->addr == 0xffffffff81001000ULL &&
	      kmt_symtab_module(&c.syms, s) == NULL);
	s = find_sym(&c, "ext4_fill_super");
	CHECK(s && s->addr == 0xffffffffc0a01000ULL);
	if (s)
		CHECK_STR(kmt_symtab_module(&c.syms, s), "ext4");
	/* the last line has no newline and is still read, module and all */
	s = find_sym(&c, "xfs_fs_fill_super");
	CHECK(s != NULL);
	if (s)
		CHECK_STR(kmt_symtab_module(&c.syms, s), "xfs");
	CHECK(!kmt_symtab_empty(&c.syms));
	unload(&c);

	/* nothing at all, and nothing usable */
	CHECK_EQ_U64(load(&c, "", 0), 0);
	CHECK(kmt_symtab_empty(&c.syms));
	unload(&c);
	CHECK_EQ_U64(load(&c, "ffffffff82000000 D x\n", 21), 0);
	unload(&c);
}

static void check_lookups(struct ctx *c)
{
	/* exact and inside */
	check_lookup(c, 0xffffffff81001000ULL, "early_idt_handler", 0);
	check_lookup(c, 0xffffffff81001010ULL, "early_idt_handler", 0x10);
	check_lookup(c, 0xffffffff81001fffULL, "early_idt_handler", 0xfff);
	check_lookup(c, 0xffffffff81002000ULL, "weak_func", 0);
	check_lookup(c, 0xffffffffc0a01010ULL, "ext4_fill_super", 0x10);
	check_lookup(c, 0xffffffffc0a02004ULL, "ext4_iget", 4);
	/* two names for one address: the first listed is the one shown */
	check_lookup(c, 0xffffffff81000000ULL, "_stext", 0);
	check_lookup(c, 0xffffffff81000abcULL, "_stext", 0xabc);
	/* before the first symbol: nothing */
	check_lookup(c, 0xffffffff80ffffffULL, NULL, 0);
	check_lookup(c, 0, NULL, 0);
	/* after the last: near it is still it, far away is nothing */
	check_lookup(c, 0xffffffffc0b00100ULL, "xfs_fs_fill_super", 0x100);
	check_lookup(c, 0xffffffffc0b00000ULL + (1ULL << 24),
		     "xfs_fs_fill_super", 1ULL << 24);
	check_lookup(c, 0xffffffffc0b00000ULL + (1ULL << 24) + 1, NULL, 0);
	check_lookup(c, UINT64_MAX, NULL, 0);
	/*
	 * In the gap between the kernel and the modules, far from any
	 * symbol: not the last kernel function at an offset of a gigabyte.
	 */
	check_lookup(c, 0xffffffffa0000000ULL, NULL, 0);
	check_lookup(c, 0xffffffff81003000ULL + (1ULL << 24), "weak_lower",
		     1ULL << 24);
}

static void test_lookup_sorted(void)
{
	struct ctx c;

	load(&c, kallsyms, sizeof(kallsyms) - 1);
	check_lookups(&c);
	/* offset may be NULL */
	CHECK_STR(kmt_symtab_lookup(&c.syms, 0xffffffff81001004ULL, NULL),
		  "early_idt_handler");
	unload(&c);
}

/* the same symbols in a scrambled order resolve the same way */
static void test_lookup_unsorted(void)
{
	static const char scrambled[] =
		"ffffffffc0b00000 t xfs_fs_fill_super\t[xfs]\n"
		"ffffffff81003000 w weak_lower\n"
		"ffffffff82000000 D some_data\n"
		"ffffffff81001000 t early_idt_handler\n"
		"ffffffffc0a02000 T ext4_iget\t[ext4]\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81002000 W weak_func\n"
		"ffffffffc0a01000 t ext4_fill_super\t[ext4]\n"
		"ffffffff81000000 T startup_64\n";
	struct ctx c;

	CHECK_EQ_U64(load(&c, scrambled, sizeof(scrambled) - 1), 8);
	CHECK_EQ_U64(c.syms.sorted, 0);
	check_lookups(&c);
	CHECK_EQ_U64(c.syms.sorted, 1);
	/* a symbol added after a lookup is found by the next one */
	CHECK_EQ_U64(kmt_symtab_add(&c.syms, 0xffffffff80000000ULL, "head_64",
				    7, NULL, 0), 0);
	check_lookup(&c, 0xffffffff80000008ULL, "head_64", 8);
	check_lookup(&c, 0xffffffff81001010ULL, "early_idt_handler", 0x10);
	unload(&c);
}

/* symbols inserted one at a time keep the table sorted, aliases in order */
static void test_insert(void)
{
	static const uint64_t addrs[] = {
		0xffffffff81002000ULL, 0xffffffff81000000ULL, 0xffffffff81003000ULL,
		0xffffffff81001000ULL, 0xffffffff81000000ULL,
	};
	static const char *const names[] = { "c", "a", "d", "b", "a_alias" };
	struct kmt_strtab strs;
	struct kmt_symtab t;
	uint64_t off = 1;
	size_t i;

	CHECK_EQ_U64(kmt_strtab_init(&strs), 0);
	kmt_symtab_init(&t, &strs);
	for (i = 0; i < 5; i++) {
		CHECK_EQ_U64(kmt_symtab_insert(&t, addrs[i], names[i],
					       strlen(names[i])), 0);
		CHECK_EQ_U64(t.sorted, 1);
	}
	for (i = 1; i < t.nr; i++)
		CHECK(t.syms[i - 1].addr <= t.syms[i].addr);
	CHECK_STR(kmt_symtab_lookup(&t, 0xffffffff81000010ULL, &off), "a");
	CHECK_EQ_U64(off, 0x10);
	CHECK_STR(kmt_symtab_lookup(&t, 0xffffffff81001004ULL, NULL), "b");
	CHECK_STR(kmt_symtab_lookup(&t, 0xffffffff81002000ULL, NULL), "c");
	CHECK_STR(kmt_symtab_lookup(&t, 0xffffffff81003100ULL, NULL), "d");
	kmt_symtab_free(&t);
	kmt_strtab_free(&strs);
}

/* "name+0xoff/0xsize" and friends come back from lookup as given */
static void test_synthetic(void)
{
	struct ctx c;
	const char *t1 = "kmem_cache_alloc_noprof+0x1a/0x300";
	const char *t2 = "[ext4] ext4_fill_super+0x10/0x200";
	const char *t3 = "0xffffffff81000000";
	uint64_t a1, a2, a3, a4, a5;

	load(&c, "", 0);
	a1 = kmt_symtab_from_text(&c.syms, t1, strlen(t1));
	CHECK(a1 >= KMT_SYNTH_BASE);
	check_lookup(&c, a1, "kmem_cache_alloc_noprof", 0x1a);
	a2 = kmt_symtab_from_text(&c.syms, t2, strlen(t2));
	check_lookup(&c, a2, "ext4_fill_super", 0x10);
	a3 = kmt_symtab_from_text(&c.syms, t3, strlen(t3));
	CHECK_EQ_U64(a3, 0xffffffff81000000ULL);
	/* the kernel's own %pS puts the module last */
	a4 = kmt_symtab_from_text(&c.syms, "ext4_fill_super+0x24/0x200 [ext4]",
				  33);
	check_lookup(&c, a4, "ext4_fill_super", 0x24);
	/* same name: same base, offsets apart */
	CHECK_EQ_U64(a4 - a2, 0x24 - 0x10);
	/* the same text twice is the same address */
	CHECK_EQ_U64(kmt_symtab_from_text(&c.syms, t1, strlen(t1)), a1);
	/* a bare name is offset 0; blanks around are dropped */
	a5 = kmt_symtab_from_text(&c.syms, "  do_sys_open\t", 14);
	check_lookup(&c, a5, "do_sys_open", 0);
	/* a bare hex word long enough to be an address is one */
	CHECK_EQ_U64(kmt_symtab_from_text(&c.syms, "ffffffff8123abcd", 16),
		     0xffffffff8123abcdULL);
	/* nothing, blanks, a module with no name: 0 */
	CHECK_EQ_U64(kmt_symtab_from_text(&c.syms, "", 0), 0);
	CHECK_EQ_U64(kmt_symtab_from_text(&c.syms, "   ", 3), 0);
	CHECK_EQ_U64(kmt_symtab_from_text(&c.syms, "[ext4] ", 7), 0);
	/* an offset beyond the room is clamped, still the same name */
	a5 = kmt_symtab_from_text(&c.syms, "big+0x20000000/0x30000000", 25);
	check_lookup(&c, a5, "big", (1ULL << KMT_SYNTH_SHIFT) - 1);
	/* only as much text as len says */
	a5 = kmt_symtab_from_text(&c.syms, "vfs_read+0x5/0x10 trailing", 17);
	check_lookup(&c, a5, "vfs_read", 5);
	unload(&c);
}

/* synthetic and kallsyms addresses live side by side */
static void test_synthetic_with_kallsyms(void)
{
	struct ctx c;
	uint64_t a;

	load(&c, kallsyms, sizeof(kallsyms) - 1);
	a = kmt_symtab_from_text(&c.syms, "ext4_iget+0x8/0x40", 18);
	check_lookup(&c, a, "ext4_iget", 8);
	check_lookup(&c, 0xffffffffc0a02008ULL, "ext4_iget", 8);
	/* an address in the synthetic range with no name behind it */
	check_lookup(&c, KMT_SYNTH_BASE + (100000ULL << KMT_SYNTH_SHIFT),
		     NULL, 0);
	unload(&c);
}

/* names libtraceevent knows serve when the table has none */
static void test_tep_fallback(void)
{
	struct tep_handle *tep = tep_alloc();
	struct ctx c;
	char name[] = "tep_only_func", end[] = "tep_end";

	CHECK(tep != NULL);
	if (!tep)
		return;
	/* libtraceevent resolves inside a function only up to the next one */
	CHECK_EQ_U64(tep_register_function(tep, name, 0xffffffff90000000ULL,
					   NULL), 0);
	CHECK_EQ_U64(tep_register_function(tep, end, 0xffffffff90001000ULL,
					   NULL), 0);
	load(&c, "", 0);
	check_lookup(&c, 0xffffffff90000010ULL, NULL, 0);
	c.syms.tep = tep;
	check_lookup(&c, 0xffffffff90000010ULL, "tep_only_func", 0x10);
	unload(&c);

	/* and for addresses no symbol of the table covers */
	load(&c, kallsyms, sizeof(kallsyms) - 1);
	c.syms.tep = tep;
	check_lookup(&c, 0xffffffff90000020ULL, "tep_only_func", 0x20);
	check_lookup(&c, 0xffffffff80000000ULL, NULL, 0);
	check_lookup(&c, 0xffffffff81001010ULL, "early_idt_handler", 0x10);
	unload(&c);
	tep_free(tep);
}

/*
 * Aliases: the first added names the address, whatever the order of the
 * lines, of the names, of lookups and of later additions.
 */
static void test_aliases_first_wins(void)
{
	static const char text[] =
		"ffffffff81000100 T second_fn\n"
		"ffffffff81000000 T zeta\n"
		"ffffffff81000000 t eta\n"	/* its name is zeta's tail */
		"ffffffff81000000 T alpha\n"
		"ffffffff81000000 W __pfx_zeta\n";
	static const char more[] =
		"ffffffff81000000 T aaa_loaded_later\n"
		"ffffffff80f00000 T before_all\n";
	const char *text2;
	struct ctx c;

	CHECK_EQ_U64(load(&c, text, sizeof(text) - 1), 5);
	CHECK(find_sym(&c, "eta") != NULL);
	CHECK(find_sym(&c, "alpha") != NULL);
	check_lookup(&c, 0xffffffff81000000ULL, "zeta", 0);
	check_lookup(&c, 0xffffffff810000ffULL, "zeta", 0xff);
	check_lookup(&c, 0xffffffff81000100ULL, "second_fn", 0);
	/* added after the table was sorted for a lookup: still not first */
	CHECK_EQ_U64(kmt_symtab_add(&c.syms, 0xffffffff81000000ULL, "aaa", 3,
				    NULL, 0), 0);
	check_lookup(&c, 0xffffffff81000008ULL, "zeta", 8);
	/* a second kallsyms text adds to the table, not in front of it */
	CHECK_EQ_U64(kmt_symtab_load_kallsyms(&c.syms, more, sizeof(more) - 1),
		     2);
	check_lookup(&c, 0xffffffff81000010ULL, "zeta", 0x10);
	check_lookup(&c, 0xffffffff80f00004ULL, "before_all", 4);
	unload(&c);

	/* aliases only, given in the reverse order */
	text2 = "ffffffff81000000 T b\n"
		"ffffffff81000000 T ab\n"
		"ffffffff81000000 T a\n";
	CHECK_EQ_U64(load(&c, text2, strlen(text2)), 3);
	check_lookup(&c, 0xffffffff81000001ULL, "b", 1);
	unload(&c);
}

/*
 * A name that ends the one before it is stored once: "__pfx_foo" then
 * "foo" (the kernel's padding symbol and its function) cost one name.
 */
static void test_shared_names(void)
{
	static const char text[] =
		"ffffffff81000ff0 T __pfx_foo\n"
		"ffffffff81001000 T foo\n"
		"ffffffff81001100 T foobar\n"	/* starts with foo: not shared */
		"ffffffff81001200 t dup\n"
		"ffffffff81001300 t dup\n"
		"ffffffff81001400 d __pfx_data\n"	/* not kept */
		"ffffffff81001410 t data\n"
		"ffffffffc0001000 t __pfx_m_fn\t[mod_a]\n"
		"ffffffffc0001010 t m_fn\t[mod_b]\n";
	const struct kmt_sym *x, *y;
	struct ctx c;

	CHECK_EQ_U64(load(&c, text, sizeof(text) - 1), 8);
	CHECK_EQ_U64(c.syms.names_len, sizeof("__pfx_foo") + sizeof("foobar") +
		     sizeof("dup") + sizeof("data") + sizeof("__pfx_m_fn"));
	check_lookup(&c, 0xffffffff81000ff0ULL, "__pfx_foo", 0);
	check_lookup(&c, 0xffffffff81000ff8ULL, "__pfx_foo", 8);
	check_lookup(&c, 0xffffffff81001000ULL, "foo", 0);
	check_lookup(&c, 0xffffffff81001004ULL, "foo", 4);
	check_lookup(&c, 0xffffffff81001104ULL, "foobar", 4);
	check_lookup(&c, 0xffffffff81001204ULL, "dup", 4);
	check_lookup(&c, 0xffffffff81001304ULL, "dup", 4);
	check_lookup(&c, 0xffffffff81001414ULL, "data", 4);
	check_lookup(&c, 0xffffffffc0001004ULL, "__pfx_m_fn", 4);
	check_lookup(&c, 0xffffffffc0001014ULL, "m_fn", 4);
	/* the module is the line's own, though the name is shared */
	x = find_sym(&c, "__pfx_m_fn");
	y = find_sym(&c, "m_fn");
	CHECK(x && y);
	if (x && y) {
		CHECK_STR(kmt_symtab_module(&c.syms, x), "mod_a");
		CHECK_STR(kmt_symtab_module(&c.syms, y), "mod_b");
	}
	unload(&c);
}

/*
 * A kallsyms of the kernel's shape (padding symbols, data, modules) in
 * thousands of lines: every kept line comes back as given, in order, the
 * table holds no spare room, and every address resolves.
 */
#define GEN_FNS	6000

static uint64_t gen_addr(int i)
{
	/* the modules far above the kernel, as on x86-64 */
	return (i < GEN_FNS - 600 ? 0xffffffff81000000ULL :
		0xffffffffc0000000ULL) + (uint64_t)i * 0x40;
}

static const char *gen_module(int i, char *buf, size_t size)
{
	if (i < GEN_FNS - 600)
		return NULL;
	snprintf(buf, size, "mod_%d", (i - (GEN_FNS - 600)) / 150);
	return buf;
}

static void test_kernel_shaped(void)
{
	size_t size = GEN_FNS * 160, len = 0, names = 0;
	char *text = malloc(size), name[64], mod[32];
	const struct kmt_sym *sym;
	const char *m, *prev_mod = NULL;
	size_t k = 0;
	struct ctx c;
	int i, n;

	CHECK(text != NULL);
	if (!text)
		return;
	for (i = 0; i < GEN_FNS; i++) {
		uint64_t a = gen_addr(i);

		m = gen_module(i, mod, sizeof(mod));
		if (i % 4) {
			len += snprintf(text + len, size - len,
					"%016llx T __pfx_fn_%d%s%s%s\n",
					(unsigned long long)(a - 0x10), i,
					m ? "\t[" : "", m ? m : "", m ? "]" : "");
			names += snprintf(name, sizeof(name), "__pfx_fn_%d",
					  i) + 1;
		} else {
			names += snprintf(name, sizeof(name), "fn_%d", i) + 1;
		}
		len += snprintf(text + len, size - len, "%016llx %c fn_%d%s%s%s\n",
				(unsigned long long)a, "tTwW"[i % 4], i,
				m ? "\t[" : "", m ? m : "", m ? "]" : "");
		if (i % 5 == 0)
			len += snprintf(text + len, size - len,
					"%016llx d var_%d\n",
					(unsigned long long)(a + 0x20), i);
	}
	n = load(&c, text, len);
	CHECK_EQ_U64(n, GEN_FNS + GEN_FNS - (GEN_FNS + 3) / 4);
	CHECK_EQ_U64(c.syms.nr, (size_t)n);
	/* trimmed: no room kept for the data lines or the copies */
	CHECK_EQ_U64(c.syms.alloc, c.syms.nr);
	CHECK_EQ_U64(c.syms.names_len, names);
	CHECK_EQ_U64(c.syms.names_alloc, c.syms.names_len);
	CHECK_EQ_U64(c.syms.sorted, 1);

	/* entries in the order of the lines, names and modules as given */
	for (i = 0; i < GEN_FNS && k < c.syms.nr; i++) {
		m = gen_module(i, mod, sizeof(mod));
		if (i % 4) {
			sym = &c.syms.syms[k++];
			snprintf(name, sizeof(name), "__pfx_fn_%d", i);
			CHECK_EQ_U64(sym->addr, gen_addr(i) - 0x10);
			CHECK_STR(kmt_symtab_name(&c.syms, sym), name);
		}
		sym = &c.syms.syms[k++];
		snprintf(name, sizeof(name), "fn_%d", i);
		CHECK_EQ_U64(sym->addr, gen_addr(i));
		CHECK_STR(kmt_symtab_name(&c.syms, sym), name);
		if (m) {
			CHECK_STR(kmt_symtab_module(&c.syms, sym), m);
			/* one module, one interned name */
			if (i % 150 && prev_mod)
				CHECK(kmt_symtab_module(&c.syms, sym) ==
				      prev_mod);
			prev_mod = kmt_symtab_module(&c.syms, sym);
		} else {
			CHECK(kmt_symtab_module(&c.syms, sym) == NULL);
		}
	}
	CHECK_EQ_U64(k, c.syms.nr);

	for (i = 0; i < GEN_FNS; i++) {
		uint64_t a = gen_addr(i);
		uint64_t end = i + 1 < GEN_FNS && (i + 1) % 4 ?
			       gen_addr(i + 1) - 0x10 : a + 0x40;

		snprintf(name, sizeof(name), "fn_%d", i);
		check_lookup(&c, a, name, 0);
		check_lookup(&c, a + 0x1f, name, 0x1f);
		/* its last byte, just before the next padding or function */
		if (i + 1 < GEN_FNS && gen_addr(i + 1) == a + 0x40)
			check_lookup(&c, end - 1, name, end - 1 - a);
		if (i % 4) {
			snprintf(name, sizeof(name), "__pfx_fn_%d", i);
			check_lookup(&c, a - 0x10, name, 0);
			check_lookup(&c, a - 1, name, 0xf);
		}
	}
	check_lookup(&c, gen_addr(0) - 1, NULL, 0);
	check_lookup(&c, gen_addr(GEN_FNS - 1) + (1ULL << 24) + 1, NULL, 0);
	unload(&c);
	free(text);
}

/*
 * The table's room is made before the parse from the text's length, as
 * many symbols as it could hold lines: the shortest symbol lines there
 * are, the last without its newline, must all fit (ASan sees a write
 * past the room).
 */
static void test_shortest_lines_fit(void)
{
	static const char *const texts[] = {
		"0 t a\n1 t b\n2 t c",		/* no final newline */
		"0 t a",
		"0 t a\n1 T b\n2 W c\n3 w d\n4 t e\n5 t f",
	};
	static const size_t want[] = { 3, 1, 6 };
	char many[50 * 6 + 1];
	struct ctx c;
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		CHECK_EQ_U64(load(&c, texts[i], strlen(texts[i])), want[i]);
		CHECK_EQ_U64(c.syms.nr, want[i]);
		check_lookup(&c, 0, "a", 0);
		unload(&c);
	}
	/* 50 lines of 6 bytes: room for 51, no more */
	for (i = 0; i < 50; i++)
		snprintf(many + 6 * i, 7, "%x t %c\n", (unsigned int)(i % 16),
			 (char)('a' + i % 26));
	CHECK_EQ_U64(load(&c, many, 50 * 6), 50);
	CHECK_EQ_U64(c.syms.nr, 50);
	unload(&c);
}

KMT_TESTS(
	KMT_TEST(test_shortest_lines_fit),
	KMT_TEST(test_parse_types_and_modules),
	KMT_TEST(test_lookup_sorted),
	KMT_TEST(test_lookup_unsorted),
	KMT_TEST(test_insert),
	KMT_TEST(test_aliases_first_wins),
	KMT_TEST(test_shared_names),
	KMT_TEST(test_kernel_shaped),
	KMT_TEST(test_synthetic),
	KMT_TEST(test_synthetic_with_kallsyms),
	KMT_TEST(test_tep_fallback)
)
