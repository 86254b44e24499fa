// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols: kallsyms parsing, address lookup, the synthetic
 * addresses text input gets, and the libtraceevent fallback.
 */
#include <stdint.h>
#include <stdlib.h>

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

		if (!strcmp(s->name, name))
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
	CHECK(s && s->addr == 0xffffffff81001000ULL && s->module == NULL);
	s = find_sym(&c, "ext4_fill_super");
	CHECK(s && s->addr == 0xffffffffc0a01000ULL);
	if (s)
		CHECK_STR(s->module, "ext4");
	/* the last line has no newline and is still read, module and all */
	s = find_sym(&c, "xfs_fs_fill_super");
	CHECK(s != NULL);
	if (s)
		CHECK_STR(s->module, "xfs");
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

KMT_TESTS(
	KMT_TEST(test_parse_types_and_modules),
	KMT_TEST(test_lookup_sorted),
	KMT_TEST(test_lookup_unsorted),
	KMT_TEST(test_synthetic),
	KMT_TEST(test_synthetic_with_kallsyms),
	KMT_TEST(test_tep_fallback)
)
