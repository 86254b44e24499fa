// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON reader: what the writer writes reads back the same (numbers
 * exact to 64 bits, escapes, nesting); mistakes give their byte offset;
 * a hostile nesting depth is refused, not followed down the stack.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/json.h"
#include "util/jsonread.h"

static struct kmt_jv *parse(struct kmt_arena *a, const char *text, int *ret,
			    size_t *off, const char **what)
{
	struct kmt_jv *v = NULL;

	*ret = kmt_json_parse(a, text, strlen(text), &v, off, what);
	return v;
}

static void test_round_trip(void)
{
	struct kmt_arena a;
	struct kmt_json j;
	char *buf = NULL;
	size_t len = 0, off;
	const char *what;
	const struct kmt_jv *v, *arr;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	kmt_json_init(&j, f, 1);
	kmt_json_obj_open(&j, NULL);
	kmt_json_u64(&j, "big", 18446744073709551615ULL);
	kmt_json_s64(&j, "neg", -9223372036854775807LL - 1);
	kmt_json_double(&j, "pct", 12.5);
	kmt_json_str(&j, "s", "tab\there \"q\" \\ caf\xc3\xa9");
	kmt_json_null(&j, "none");
	kmt_json_bool(&j, "yes", 1);
	kmt_json_arr_open(&j, "list");
	kmt_json_u64(&j, NULL, 1);
	kmt_json_str(&j, NULL, "two");
	kmt_json_arr_close(&j);
	kmt_json_obj_close(&j);
	kmt_json_finish(&j);
	fclose(f);

	kmt_arena_init(&a);
	v = parse(&a, buf, &ret, &off, &what);
	CHECK(ret == 0 && v && v->type == KMT_J_OBJ);
	CHECK(kmt_jv_get(v, "big")->is_int);
	CHECK_EQ_U64((uint64_t)kmt_jv_get(v, "big")->i, 18446744073709551615ULL);
	CHECK(kmt_jv_get(v, "neg")->i == -9223372036854775807LL - 1);
	CHECK(kmt_jv_get(v, "pct")->num == 12.5 && !kmt_jv_get(v, "pct")->is_int);
	CHECK_STR(kmt_jv_get(v, "s")->str, "tab\there \"q\" \\ caf\xc3\xa9");
	CHECK(kmt_jv_get(v, "none")->type == KMT_J_NULL);
	CHECK(kmt_jv_get(v, "yes")->type == KMT_J_BOOL &&
	      kmt_jv_get(v, "yes")->num == 1);
	arr = kmt_jv_get(v, "list");
	CHECK(arr && arr->type == KMT_J_ARR && arr->n == 2);
	CHECK_STR(arr->items[1]->str, "two");
	CHECK(!kmt_jv_get(v, "missing"));
	kmt_arena_free(&a);
	free(buf);
}

static void test_escapes(void)
{
	struct kmt_arena a;
	size_t off;
	const char *what;
	int ret;
	struct kmt_jv *v;

	kmt_arena_init(&a);
	/* \u escapes, a surrogate pair among them */
	v = parse(&a, "\"\\u0041\\u00e9\\ud83d\\ude00\\/\"", &ret, &off, &what);
	CHECK(!ret && v && v->type == KMT_J_STR);
	CHECK_STR(v->str, "A\xc3\xa9\xf0\x9f\x98\x80/");
	kmt_arena_free(&a);
}

static void test_mistakes(void)
{
	static const struct {
		const char *text;
		size_t off;
		const char *what;
	} bad[] = {
		{ "{\"a\": ", 6, "the document ends where a value should be" },
		{ "{\"a\" 1}", 5, "':' should follow a member's name" },
		{ "[1 2]", 3, "',' or ']' should be here" },
		{ "{\"a\": 1} x", 9, "more after the document" },
		{ "\"abc", 4, "a string is not closed" },
		{ "nul", 0, "not a JSON value" },
		{ "\"\\q\"", 3, "a bad escape in a string" },
		{ "{1: 2}", 1, "a member's name should be here" },
		{ "", 0, "the document ends where a value should be" },
	};
	size_t i, off;
	const char *what;
	int ret;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kmt_arena a;

		kmt_arena_init(&a);
		off = 999;
		what = NULL;
		parse(&a, bad[i].text, &ret, &off, &what);
		CHECK(ret == -EINVAL);
		CHECK_EQ_U64(off, bad[i].off);
		CHECK_STR(what, bad[i].what);
		kmt_arena_free(&a);
	}
}

static void test_deep(void)
{
	struct kmt_arena a;
	size_t n = 100000, off;
	const char *what;
	char *text = malloc(n + 1);
	int ret;

	memset(text, '[', n);
	text[n] = '\0';
	kmt_arena_init(&a);
	parse(&a, text, &ret, &off, &what);
	CHECK(ret == -EINVAL);
	CHECK_STR(what, "nested too deep");
	kmt_arena_free(&a);
	free(text);
}

KMT_TESTS(
	KMT_TEST(test_round_trip),
	KMT_TEST(test_escapes),
	KMT_TEST(test_mistakes),
	KMT_TEST(test_deep)
)
