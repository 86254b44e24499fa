// SPDX-License-Identifier: GPL-2.0
/* The JSON writer: exact bytes in compact and pretty modes, escaping. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "util/json.h"

/* a JSON writer on a memory stream; take() ends it and returns the text */
struct mem {
	FILE *f;
	char *buf;
	size_t len;
	struct kmt_json j;
};

static void mem_open(struct mem *m, int pretty)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	kmt_json_init(&m->j, m->f, pretty);
}

static char *take(struct mem *m)
{
	fclose(m->f);
	return m->buf;
}

static void check_take(struct mem *m, const char *want)
{
	char *got = take(m);

	CHECK_STR(got, want);
	free(got);
}

/* one document with every kind of value, nested objects and arrays */
static void write_sample(struct kmt_json *j)
{
	kmt_json_obj_open(j, NULL);
	kmt_json_str(j, "name", "kmalloc-64");
	kmt_json_u64(j, "count", 18446744073709551615ULL);
	kmt_json_s64(j, "delta", -42);
	kmt_json_arr_open(j, "orders");
	kmt_json_u64(j, NULL, 0);
	kmt_json_u64(j, NULL, 3);
	kmt_json_obj_open(j, NULL);
	kmt_json_bool(j, "ok", 1);
	kmt_json_null(j, "none");
	kmt_json_obj_close(j);
	kmt_json_arr_open(j, NULL);
	kmt_json_arr_close(j);
	kmt_json_arr_close(j);
	kmt_json_obj_open(j, "empty");
	kmt_json_obj_close(j);
	kmt_json_double(j, "ratio", 0.25);
	kmt_json_bool(j, "bad", 0);
	kmt_json_obj_close(j);
	kmt_json_finish(j);
}

static void test_compact(void)
{
	struct mem m;

	mem_open(&m, 0);
	write_sample(&m.j);
	check_take(&m,
		"{\"name\":\"kmalloc-64\",\"count\":18446744073709551615,"
		"\"delta\":-42,\"orders\":[0,3,{\"ok\":true,\"none\":null},[]],"
		"\"empty\":{},\"ratio\":0.25,\"bad\":false}\n");
}

static void test_pretty(void)
{
	struct mem m;

	mem_open(&m, 1);
	write_sample(&m.j);
	check_take(&m,
		"{\n"
		"  \"name\": \"kmalloc-64\",\n"
		"  \"count\": 18446744073709551615,\n"
		"  \"delta\": -42,\n"
		"  \"orders\": [\n"
		"    0,\n"
		"    3,\n"
		"    {\n"
		"      \"ok\": true,\n"
		"      \"none\": null\n"
		"    },\n"
		"    []\n"
		"  ],\n"
		"  \"empty\": {},\n"
		"  \"ratio\": 0.25,\n"
		"  \"bad\": false\n"
		"}\n");
}

static void test_escaping(void)
{
	struct mem m;

	mem_open(&m, 0);
	kmt_json_obj_open(&m.j, NULL);
	kmt_json_str(&m.j, "q\"k", "say \"hi\"");
	kmt_json_str(&m.j, "path", "C:\\dir\\");
	kmt_json_str(&m.j, "ws", "a\nb\tc\rd");
	kmt_json_str(&m.j, "ctl", "\x01\x08\x0c\x1f\x7f");
	kmt_json_str(&m.j, "slash", "a/b");
	kmt_json_str(&m.j, "utf8", "caf\xc3\xa9");
	kmt_json_strn(&m.j, "nul", "a\0b", 3);
	kmt_json_strn(&m.j, "cut", "abcdef", 2);
	kmt_json_str(&m.j, "null", NULL);
	kmt_json_str(&m.j, "", "");
	kmt_json_obj_close(&m.j);
	check_take(&m,
		"{\"q\\\"k\":\"say \\\"hi\\\"\","
		"\"path\":\"C:\\\\dir\\\\\","
		"\"ws\":\"a\\nb\\tc\\rd\","
		"\"ctl\":\"\\u0001\\u0008\\u000c\\u001f\\u007f\","
		"\"slash\":\"a/b\","
		"\"utf8\":\"caf\xc3\xa9\","
		"\"nul\":\"a\\u0000b\","
		"\"cut\":\"ab\","
		"\"null\":null,"
		"\"\":\"\"}");
}

static void test_doubles(void)
{
	struct mem m;

	mem_open(&m, 0);
	kmt_json_arr_open(&m.j, NULL);
	kmt_json_double(&m.j, NULL, 1.5);
	kmt_json_double(&m.j, NULL, NAN);
	kmt_json_double(&m.j, NULL, INFINITY);
	kmt_json_double(&m.j, NULL, -INFINITY);
	kmt_json_double(&m.j, NULL, 0.0);
	kmt_json_double(&m.j, NULL, -2.0);
	kmt_json_double(&m.j, NULL, 1e21);
	kmt_json_double(&m.j, NULL, 0.1);
	kmt_json_arr_close(&m.j);
	check_take(&m, "[1.5,null,null,null,0,-2,1e+21,0.1]");
}

/* keys given inside arrays are not written */
static void test_keys_in_arrays(void)
{
	struct mem m;

	mem_open(&m, 0);
	kmt_json_arr_open(&m.j, "ignored at top level");
	kmt_json_u64(&m.j, "k", 1);
	kmt_json_str(&m.j, "k", "v");
	kmt_json_obj_open(&m.j, "k");
	kmt_json_arr_open(&m.j, "inner");
	kmt_json_arr_close(&m.j);
	kmt_json_obj_close(&m.j);
	kmt_json_arr_close(&m.j);
	kmt_json_finish(&m.j);
	check_take(&m, "[1,\"v\",{\"inner\":[]}]\n");
}

/* the deepest nesting the writer supports keeps its commas right */
static void test_deep(void)
{
	struct mem m;
	char want[512];
	size_t o = 0;
	int i, levels = KMT_JSON_MAX_DEPTH - 1;
	char *got;

	mem_open(&m, 0);
	for (i = 0; i < levels; i++)
		kmt_json_arr_open(&m.j, NULL);
	kmt_json_u64(&m.j, NULL, 1);
	kmt_json_u64(&m.j, NULL, 2);
	for (i = 0; i < levels - 1; i++) {
		kmt_json_arr_close(&m.j);
		kmt_json_u64(&m.j, NULL, (uint64_t)i);
	}
	kmt_json_arr_close(&m.j);
	got = take(&m);

	for (i = 0; i < levels; i++)
		want[o++] = '[';
	o += (size_t)snprintf(want + o, sizeof(want) - o, "1,2");
	for (i = 0; i < levels - 1; i++)
		o += (size_t)snprintf(want + o, sizeof(want) - o, "],%d", i);
	snprintf(want + o, sizeof(want) - o, "]");
	CHECK_STR(got, want);
	free(got);
}

/* two documents one after another on one stream */
static void test_two_documents(void)
{
	struct mem m;

	mem_open(&m, 1);
	kmt_json_obj_open(&m.j, NULL);
	kmt_json_u64(&m.j, "a", 1);
	kmt_json_obj_close(&m.j);
	kmt_json_finish(&m.j);
	kmt_json_obj_open(&m.j, NULL);
	kmt_json_obj_close(&m.j);
	kmt_json_finish(&m.j);
	check_take(&m, "{\n  \"a\": 1\n}\n{}\n");
}

/* a command's failure in JSON mode: one object, the message escaped */
static void test_error(void)
{
	struct mem m;

	m.buf = NULL;
	m.len = 0;
	m.f = open_memstream(&m.buf, &m.len);
	kmt_json_error(m.f, "'a \"b\"' is truncated");
	check_take(&m, "{\"error\":\"'a \\\"b\\\"' is truncated\"}\n");
}

KMT_TESTS(
	KMT_TEST(test_compact),
	KMT_TEST(test_error),
	KMT_TEST(test_pretty),
	KMT_TEST(test_escaping),
	KMT_TEST(test_doubles),
	KMT_TEST(test_keys_in_arrays),
	KMT_TEST(test_deep),
	KMT_TEST(test_two_documents)
)
