/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_JSON_H
#define KMT_UTIL_JSON_H

#include <stdint.h>
#include <stdio.h>

#define KMT_JSON_MAX_DEPTH 32

/*
 * The one JSON writer: streaming, it places commas and escapes strings.
 * Every call takes the member's key; pass NULL inside arrays.
 */
struct kmt_json {
	FILE *out;
	int depth;
	int pretty;
	unsigned char need_comma[KMT_JSON_MAX_DEPTH];
	unsigned char is_array[KMT_JSON_MAX_DEPTH];
};

void kmt_json_init(struct kmt_json *j, FILE *out, int pretty);
void kmt_json_obj_open(struct kmt_json *j, const char *key);
void kmt_json_obj_close(struct kmt_json *j);
void kmt_json_arr_open(struct kmt_json *j, const char *key);
void kmt_json_arr_close(struct kmt_json *j);
void kmt_json_str(struct kmt_json *j, const char *key, const char *val);
void kmt_json_strn(struct kmt_json *j, const char *key, const char *val,
		   size_t len);
void kmt_json_u64(struct kmt_json *j, const char *key, uint64_t val);
void kmt_json_s64(struct kmt_json *j, const char *key, int64_t val);
/* non-finite values are written as null, as JSON has no NaN */
void kmt_json_double(struct kmt_json *j, const char *key, double val);
void kmt_json_bool(struct kmt_json *j, const char *key, int val);
void kmt_json_null(struct kmt_json *j, const char *key);
/* ends the document with a newline */
void kmt_json_finish(struct kmt_json *j);

/* {"error": msg} to out: what a command in JSON mode prints for a failure */
void kmt_json_error(FILE *out, const char *msg);

#endif
