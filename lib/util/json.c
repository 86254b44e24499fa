// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util/json.h"

void kmt_json_init(struct kmt_json *j, FILE *out, int pretty)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = pretty;
}

static void indent(struct kmt_json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

static void write_escaped(FILE *out, const char *s, size_t len)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

/* comma, indentation and key before a value */
static void member(struct kmt_json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->need_comma[j->depth])
			fputc(',', j->out);
		j->need_comma[j->depth] = 1;
		indent(j);
		if (key && !j->is_array[j->depth]) {
			write_escaped(j->out, key, strlen(key));
			fputs(j->pretty ? ": " : ":", j->out);
		}
	}
}

static void open(struct kmt_json *j, const char *key, char c, int is_array)
{
	member(j, key);
	fputc(c, j->out);
	if (j->depth + 1 < KMT_JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = 0;
	j->is_array[j->depth] = is_array;
}

static void close_(struct kmt_json *j, char c)
{
	int had = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->out);
}

void kmt_json_obj_open(struct kmt_json *j, const char *key)
{
	open(j, key, '{', 0);
}

void kmt_json_obj_close(struct kmt_json *j)
{
	close_(j, '}');
}

void kmt_json_arr_open(struct kmt_json *j, const char *key)
{
	open(j, key, '[', 1);
}

void kmt_json_arr_close(struct kmt_json *j)
{
	close_(j, ']');
}

void kmt_json_strn(struct kmt_json *j, const char *key, const char *val,
		   size_t len)
{
	member(j, key);
	write_escaped(j->out, val, len);
}

void kmt_json_str(struct kmt_json *j, const char *key, const char *val)
{
	if (!val) {
		kmt_json_null(j, key);
		return;
	}
	kmt_json_strn(j, key, val, strlen(val));
}

void kmt_json_u64(struct kmt_json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->out, "%" PRIu64, val);
}

void kmt_json_s64(struct kmt_json *j, const char *key, int64_t val)
{
	member(j, key);
	fprintf(j->out, "%" PRId64, val);
}

void kmt_json_double(struct kmt_json *j, const char *key, double val)
{
	member(j, key);
	if (isfinite(val))
		fprintf(j->out, "%.10g", val);
	else
		fputs("null", j->out);
}

void kmt_json_bool(struct kmt_json *j, const char *key, int val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->out);
}

void kmt_json_null(struct kmt_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
}

void kmt_json_finish(struct kmt_json *j)
{
	fputc('\n', j->out);
}

void kmt_json_error(FILE *out, const char *msg)
{
	struct kmt_json j;

	kmt_json_init(&j, out, 0);
	kmt_json_obj_open(&j, NULL);
	kmt_json_str(&j, "error", msg);
	kmt_json_obj_close(&j);
	kmt_json_finish(&j);
}
