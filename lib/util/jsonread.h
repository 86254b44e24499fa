/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_JSONREAD_H
#define KMT_UTIL_JSONREAD_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

/*
 * A JSON document read into a tree, for the JSON kmemtrace writes itself
 * (a saved report read back as a baseline).  Numbers keep their double
 * value and, when they are whole and fit, their exact uint64/int64; the
 * tree lives in the caller's arena.
 */
enum kmt_jtype { KMT_J_NULL, KMT_J_BOOL, KMT_J_NUM, KMT_J_STR, KMT_J_ARR,
		 KMT_J_OBJ };

struct kmt_jv {
	enum kmt_jtype type;
	int is_int;		/* a whole number: i is exact */
	int64_t i;
	double num;		/* numbers and bools (1, 0) */
	const char *str;	/* strings, NUL-terminated */
	size_t n;		/* items of an array or members of an object */
	struct kmt_jv **items;
	const char **keys;	/* objects: the members' names */
};

/*
 * Parses text[0, len) into *out (allocated in arena).  0, -ENOMEM, or
 * -EINVAL with the byte offset of the mistake in *err_off and what it is
 * in *err_what.
 */
int kmt_json_parse(struct kmt_arena *arena, const char *text, size_t len,
		   struct kmt_jv **out, size_t *err_off, const char **err_what);

/* member key of object o, or NULL */
const struct kmt_jv *kmt_jv_get(const struct kmt_jv *o, const char *key);

#endif
