// SPDX-License-Identifier: GPL-2.0
/*
 * fmtcheck: the kernel's own formats pass; what libtraceevent 1.7.1
 * would crash on or leak over is refused.
 */
#include <fcntl.h>
#include <glob.h>
#include <unistd.h>

#include "check.h"
#include "event/fmtcheck.h"

static const char *const kernel_formats[] = {
	"kmalloc", "kmem_cache_alloc", "kfree", "kmem_cache_free",
	"mm_page_alloc", "mm_page_alloc_extfrag", "mm_page_alloc_zone_locked",
	"mm_page_free", "mm_page_free_batched", "mm_page_pcpu_drain",
	"sched_switch",
	/* divides by sizeof(u64) and sizeof(unsigned int) (6.12 on) */
	"dma_map_sg",
};

#define HEAD "name: x\nID: 1\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned long a;\toffset:8;\tsize:8;\tsigned:0;\n" \
	"\tfield:char name[16];\toffset:16;\tsize:16;\tsigned:0;\n\n"

static int check(const char *text)
{
	const char *why = NULL;

	return kmt_format_check(text, strlen(text), &why);
}

static void test_kernel_formats_pass(void)
{
	size_t i, len;
	const char *why;
	char rel[128], *text;

	for (i = 0; i < sizeof(kernel_formats) / sizeof(kernel_formats[0]); i++) {
		snprintf(rel, sizeof(rel), "formats/%s.format", kernel_formats[i]);
		text = kmt_test_read_data(rel, &len);
		CHECK(text != NULL);
		if (!text)
			continue;
		why = NULL;
		if (kmt_format_check(text, len, &why))
			fprintf(stderr, "%s: %s\n", kernel_formats[i], why);
		CHECK(kmt_format_check(text, len, &why) == 0);
		free(text);
	}
}

/*
 * Every format of the running kernel, where tracefs is readable: a
 * trace.dat of trace-cmd extract or record holds them all, and one
 * refused refuses the file (sizeof divisors did, on 6.18).
 */
static void test_running_kernel_formats_pass(void)
{
	glob_t g;
	size_t i, n = 0, bad = 0;

	if (glob("/sys/kernel/tracing/events/*/*/format", 0, NULL, &g)) {
		printf("# no tracefs here: the running kernel's formats not checked\n");
		return;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		static char buf[1 << 20];
		const char *why = NULL;
		size_t len = 0;
		ssize_t r;
		int fd = open(g.gl_pathv[i], O_RDONLY);

		if (fd < 0)
			continue;
		/* tracefs files read in pieces; the whole of each */
		while (len < sizeof(buf) &&
		       (r = read(fd, buf + len, sizeof(buf) - len)) > 0)
			len += (size_t)r;
		close(fd);
		if (!len || len == sizeof(buf))
			continue;
		n++;
		if (kmt_format_check(buf, len, &why)) {
			fprintf(stderr, "%s: %s\n", g.gl_pathv[i], why);
			bad++;
		}
	}
	globfree(&g);
	if (!n) {
		printf("# tracefs formats not readable here: not checked\n");
		return;
	}
	CHECK(bad == 0);
}

static void test_fields_and_divisors(void)
{
	CHECK(check(HEAD "print fmt: \"a=%lu %s\", REC->a, REC->name") == 0);
	CHECK(check(HEAD "print fmt: \"a=%lu\", REC->a / 1000") == 0);
	CHECK(check(HEAD "print fmt: \"a=%lu\", REC -> a % (0x10UL)") == 0);
	CHECK(check(HEAD "print fmt: \"a=%lu\", REC->a / sizeof(u64)") == 0);
	CHECK(check(HEAD "print fmt: \"a=%lu\", __print_array(__get_dynamic_array(a), __get_dynamic_array_len(a) / (sizeof( unsigned int )), sizeof(unsigned int))") == 0);
	/*
	 * libtraceevent 1.7.1 frees a token twice on these outside a call's
	 * arguments (valgrind); 6.12's dma events write them inside one
	 */
	CHECK(check(HEAD "print fmt: \"a=%lu\", REC->a / sizeof(unsigned int)") == -1);
	CHECK(check(HEAD "print fmt: \"a=%lu\", REC->a ? sizeof(int) : 1") == -1);
	CHECK(check(HEAD "print fmt: \"a=%lu\", 3 / sizeof(long long)") == -1);
	CHECK(check(HEAD "print fmt: \"a=%lu\", sizeof(int *)") == -1);
	CHECK(check(HEAD "print fmt: \"a=%lu\", 3 / sizeof(long)") == 0);
	/* and on sizeof of a field, anywhere */
	CHECK(check(HEAD "print fmt: \"a=%lu\", sizeof(REC->a)") == -1);
	CHECK(check(HEAD "print fmt: \"a=%lu\", f(sizeof( REC->a))") == -1);
	/*
	 * sizeof of an expression or an anonymous struct, which it gives up
	 * on at once: 4.x's binder events (ARRAY_SIZE and BUILD_BUG_ON_ZERO)
	 */
	CHECK(check(HEAD "print fmt: \"%s\", REC->a < (sizeof(s) / sizeof((s)[0]) + (sizeof(struct { int:-!!(__builtin_types_compatible_p(typeof((s)), typeof(&(s)[0]))); }))) ? s[REC->a] : \"unknown\"") == 0);
	CHECK(check(HEAD "print fmt: \"a=%lu\", REC->a / sizeof((s)[0]") == -1);
	/* 5.15's min(): its type checks are sizeofs of expressions */
	CHECK(check(HEAD "print fmt: \"a=%lu\", __builtin_choose_expr(((!!(sizeof((typeof(REC->a) *)1 == (typeof(32u) *)1))) && ((sizeof(int) == sizeof(*(8 ? ((void *)((long)(REC->a) * 0l)) : (int *)8))))), ((REC->a) < (32u) ? (REC->a) : (32u)), ({ typeof(REC->a) __x = (REC->a); __x; }))") == 0);
	CHECK(check(HEAD "print fmt: \"a=%lu\", sizeof(int @)") == -1);
	CHECK(check(HEAD "print fmt: \"a=%lu\", REC->a / sizeof(void *)") == 0);
	/* sizeof of an expression, or of nothing: not known not to be 0 */
	CHECK(check(HEAD "print fmt: \"a=%lu\", REC->a / sizeof(REC->a)") == -1);
	CHECK(check(HEAD "print fmt: \"a=%lu\", REC->a / sizeof()") == -1);
	CHECK(check(HEAD "print fmt: \"a=%lu\", REC->a / sizeofa") == -1);
	/* a field the event does not have (NULL in __print_flags) */
	CHECK(check(HEAD "print fmt: \"%s\", __print_flags(REC->b, \"|\", { 1, \"X\" })") == -1);
	/* divisors that are, or may be, 0 (SIGFPE) */
	CHECK(check(HEAD "print fmt: \"%lu\", REC->a / 0") == -1);
	CHECK(check(HEAD "print fmt: \"%lu\", 1 % (1 - 1)") == -1);
	CHECK(check(HEAD "print fmt: \"%lu\", 8 / REC->a") == -1);
	/* what the tokenizer leaks over */
	CHECK(check(HEAD "print fmt: \"%lu\", (REC->a") == -1);
	CHECK(check(HEAD "print fmt: \"%lu, REC->a") == -1);
	CHECK(check("name: x\nformat:\n\tfield:unsi'gned a;\toffset:0;\n") == -1);
	/*
	 * array sizes as older kernels print them: the ftrace branch event
	 * until 6.x, i2c's smbus events
	 */
	CHECK(check("name: x\nformat:\n\tfield:char func[30+1];\toffset:0;\n"
		    "\tfield:__u8 buf[32 + 2];\toffset:31;\n"
		    "\tfield:__u8 a[sizeof(struct in6) * (1 << 1) - 0];\toffset:64;\n\n"
		    "print fmt: \"%s %d\", REC->func, REC->buf[0]") == 0);
	/* and nowhere else */
	CHECK(check("name: x\nformat:\n\tfield:char (func)[31];\toffset:0;\n") == -1);
	CHECK(check("name: x\nformat:\n\tfield:char func+1;\toffset:0;\n") == -1);
	CHECK(check("name: x\nformat:\n\tfield:char func[\"1\"];\toffset:0;\n") == -1);
	CHECK(check("name: x\nformat:\n\tfield:int \x92 a;\toffset:0;\n") == -1);
}

/*
 * The arguments must be C expressions: libtraceevent dereferences NULL
 * on an operator or a character C has not, or an operand missing (the
 * first found by fuzzing: "REC->pfn : 0 => REC->order").
 */
static void test_expressions(void)
{
	static const char *const bad[] = {
		"REC->a => REC->a", "REC->a = 1", "REC->a <<= 1", "@", "#", "$",
		"`", ";", "REC->a ; 1", "\\", "->a", "REC->a[", "REC->a]",
		"{", "}", "REC->a..b", "REC->a =< 1", "REC->a ? 1", "(REC->a",
		"REC->a +", "REC->a,", "REC->a REC->a", "f(1,", "(unsigned long)",
		"\"none\". REC->a", "REC->a.b", "f(1).a", "(REC->a).",
		"(REC->a).1", "((x) { .a == 1 }).a", "((x) { .a = }).a",
		"((x) { .a = 1 ; }).a", "((x) { a = 1 }).a", "sizeof REC->a",
	};
	static const char *const good[] = {
		"REC->a ? \"y\" : \"n\", -1UL, ~REC->a, !REC->a",
		"(unsigned long)REC->a, (struct page *)REC->a, (( gfp_t)1)",
		"(void *)0, (REC->a) - 1, (x)",
		"__print_flags(REC->a, \"|\", { 1, \"A\" }, { (1UL << 2), \"B\" },)",
		"__print_symbolic(REC->a, { 0, \"X\" }), sizeof(struct page)",
		"({ int __x = (REC->a); int __y = (128); __x < __y ? __x : __y; })",
		"REC->name[0], &REC->name[1], f()->c, \"a\" \"b\"",
		"REC->a >= 1 && REC->a <= 2 || REC->a != 3 ^ 4 | 5 & 6",
		/* 4.x's hrtimer events: a compound literal's member */
		"(unsigned long long)(((ktime_t) { .tv64 = REC->a }).tv64)",
		"((struct x) { .a = REC->a, .b = 1, }).a.b, (REC->a).b",
	};
	char text[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), HEAD "print fmt: \"%%lu\", %s", bad[i]);
		if (check(text) != -1)
			fprintf(stderr, "taken: %s\n", bad[i]);
		CHECK(check(text) == -1);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text), HEAD "print fmt: \"%%lu\", %s", good[i]);
		if (check(text) != 0)
			fprintf(stderr, "refused: %s\n", good[i]);
		CHECK(check(text) == 0);
	}
	/* nesting past any kernel's, which libtraceevent parses by recursion */
	memset(text, 0, sizeof(text));
	strcpy(text, HEAD "print fmt: \"%lu\", ");
	for (i = strlen(text); i < sizeof(text) - 2; i++)
		text[i] = '(';
	CHECK(check(text) == -1);
}

static void test_printk(void)
{
	static const char good[] =
		"ffffffff81a2b3c4 : \"rcu_preempt\"\n"
		"ffffffff81a2b3d0 : \"%d\\n\"\n\n";
	unsigned long line;
	const char *why;

	CHECK(kmt_printk_check(good, sizeof(good) - 1, &line, &why) == 0);
	CHECK(kmt_printk_check("ffff\n", 5, &line, &why) == -1);
	CHECK_EQ_U64(line, 1);
	CHECK(kmt_printk_check("1 : \"xyz\"\n2 :", 13, &line, &why) == -1);
	CHECK_EQ_U64(line, 2);
}

KMT_TESTS(
	KMT_TEST(test_kernel_formats_pass),
	KMT_TEST(test_running_kernel_formats_pass),
	KMT_TEST(test_fields_and_divisors),
	KMT_TEST(test_expressions),
	KMT_TEST(test_printk)
)
