// SPDX-License-Identifier: GPL-2.0
/*
 * A recursive-descent JSON reader (RFC 8259) into a tree in an arena.
 * Arrays and objects are collected in a growing list of pointers first,
 * then copied into the arena at their size.  Nesting is bounded so that
 * a hostile file cannot exhaust the stack.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/jsonread.h"
#include "util/strbuf.h"

#define MAX_DEPTH 256

struct jp {
	struct kmt_arena *arena;
	const char *p, *start, *end;
	const char *what;	/* the mistake, when there is one */
	int nomem;
	struct kmt_sb sb;	/* a string being unescaped */
};

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static struct kmt_jv *fail(struct jp *j, const char *what)
{
	if (!j->what)
		j->what = what;
	return NULL;
}

static struct kmt_jv *node(struct jp *j, enum kmt_jtype type)
{
	struct kmt_jv *v = kmt_arena_zalloc(j->arena, sizeof(*v));

	if (!v) {
		j->nomem = 1;
		return fail(j, "out of memory");
	}
	v->type = type;
	return v;
}

static int hex4(const char *p, unsigned int *out)
{
	unsigned int v = 0;
	int i, d;

	for (i = 0; i < 4; i++) {
		d = kmt_hexval((unsigned char)p[i]);
		if (d < 0)
			return -1;
		v = v << 4 | (unsigned int)d;
	}
	*out = v;
	return 0;
}

static void put_utf8(struct kmt_sb *sb, unsigned int c)
{
	char b[4];
	size_t n;

	if (c < 0x80) {
		b[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | c >> 18);
		b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	kmt_sb_add(sb, b, n);
}

/* a string at j->p (the opening quote), unescaped into the arena */
static const char *string(struct jp *j)
{
	const char *s;

	j->p++;
	kmt_sb_reset(&j->sb);
	for (;;) {
		const char *q = j->p;

		while (q < j->end && *q != '"' && *q != '\\' &&
		       (unsigned char)*q >= 0x20)
			q++;
		kmt_sb_add(&j->sb, j->p, (size_t)(q - j->p));
		j->p = q;
		if (q >= j->end) {
			fail(j, "a string is not closed");
			return NULL;
		}
		if (*q == '"')
			break;
		if (*q != '\\') {
			fail(j, "a control character in a string");
			return NULL;
		}
		if (q + 1 >= j->end) {
			fail(j, "a string is not closed");
			return NULL;
		}
		j->p = q + 2;
		switch (q[1]) {
		case '"': kmt_sb_addc(&j->sb, '"'); break;
		case '\\': kmt_sb_addc(&j->sb, '\\'); break;
		case '/': kmt_sb_addc(&j->sb, '/'); break;
		case 'b': kmt_sb_addc(&j->sb, '\b'); break;
		case 'f': kmt_sb_addc(&j->sb, '\f'); break;
		case 'n': kmt_sb_addc(&j->sb, '\n'); break;
		case 'r': kmt_sb_addc(&j->sb, '\r'); break;
		case 't': kmt_sb_addc(&j->sb, '\t'); break;
		case 'u': {
			unsigned int c, lo;

			if (j->end - j->p < 4 || hex4(j->p, &c)) {
				fail(j, "a bad \\u escape");
				return NULL;
			}
			j->p += 4;
			if (c >= 0xd800 && c < 0xdc00 && j->end - j->p >= 6 &&
			    j->p[0] == '\\' && j->p[1] == 'u' &&
			    !hex4(j->p + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				j->p += 6;
			}
			put_utf8(&j->sb, c);
			break;
		}
		default:
			fail(j, "a bad escape in a string");
			return NULL;
		}
	}
	j->p++;
	if (j->sb.oom) {
		j->nomem = 1;
		fail(j, "out of memory");
		return NULL;
	}
	s = kmt_arena_strndup(j->arena, kmt_sb_str(&j->sb), j->sb.len);
	if (!s) {
		j->nomem = 1;
		fail(j, "out of memory");
	}
	return s;
}

static struct kmt_jv *number(struct jp *j)
{
	const char *q = j->p;
	char buf[64];
	struct kmt_jv *v;
	size_t n;
	char *e;
	int frac = 0;

	if (q < j->end && *q == '-')
		q++;
	if (q >= j->end || *q < '0' || *q > '9')
		return fail(j, "not a JSON value");
	while (q < j->end && ((*q >= '0' && *q <= '9') || *q == '.' ||
			      *q == 'e' || *q == 'E' || *q == '+' || *q == '-')) {
		frac |= *q == '.' || *q == 'e' || *q == 'E';
		q++;
	}
	n = (size_t)(q - j->p);
	if (n >= sizeof(buf))
		return fail(j, "a number too long");
	memcpy(buf, j->p, n);
	buf[n] = '\0';
	v = node(j, KMT_J_NUM);
	if (!v)
		return NULL;
	errno = 0;
	v->num = strtod(buf, &e);
	if (*e || errno == ERANGE)
		return fail(j, "a bad number");
	if (!frac) {
		errno = 0;
		if (buf[0] == '-') {
			v->i = strtoll(buf, &e, 10);
		} else {
			uint64_t u = strtoull(buf, &e, 10);

			v->i = (int64_t)u;
		}
		v->is_int = !errno && !*e;
	}
	j->p = q;
	return v;
}

static int word(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return 0;
	j->p += n;
	return 1;
}

static struct kmt_jv *value(struct jp *j, int depth);

/* an array or object: items (and keys) gathered, then copied */
static struct kmt_jv *container(struct jp *j, int depth, int obj)
{
	struct kmt_jv **items = NULL, *v;
	const char **keys = NULL;
	size_t n = 0, alloc = 0, kalloc = 0;
	char close = obj ? '}' : ']';

	if (depth > MAX_DEPTH)
		return fail(j, "nested too deep");
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return node(j, obj ? KMT_J_OBJ : KMT_J_ARR);
	}
	for (;;) {
		const char *key = NULL;
		struct kmt_jv *item;

		ws(j);
		if (obj) {
			if (j->p >= j->end || *j->p != '"') {
				fail(j, "a member's name should be here");
				goto out;
			}
			key = string(j);
			if (!key)
				goto out;
			ws(j);
			if (j->p >= j->end || *j->p != ':') {
				fail(j, "':' should follow a member's name");
				goto out;
			}
			j->p++;
		}
		item = value(j, depth + 1);
		if (!item)
			goto out;
		if (KMT_ARRAY_GROW(items, n + 1, alloc) ||
		    (obj && KMT_ARRAY_GROW(keys, n + 1, kalloc))) {
			j->nomem = 1;
			fail(j, "out of memory");
			goto out;
		}
		items[n] = item;
		if (obj)
			keys[n] = key;
		n++;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			break;
		}
		fail(j, obj ? "',' or '}' should be here" :
			      "',' or ']' should be here");
		goto out;
	}
	v = node(j, obj ? KMT_J_OBJ : KMT_J_ARR);
	if (v) {
		v->n = n;
		v->items = kmt_arena_alloc(j->arena, n * sizeof(*items));
		v->keys = obj ? kmt_arena_alloc(j->arena, n * sizeof(*keys)) :
				NULL;
		if (!v->items || (obj && !v->keys)) {
			j->nomem = 1;
			fail(j, "out of memory");
			v = NULL;
		} else {
			memcpy(v->items, items, n * sizeof(*items));
			if (obj)
				memcpy(v->keys, keys, n * sizeof(*keys));
		}
	}
	free(items);
	free(keys);
	return v;
out:
	free(items);
	free(keys);
	return NULL;
}

static struct kmt_jv *value(struct jp *j, int depth)
{
	struct kmt_jv *v;

	ws(j);
	if (j->p >= j->end)
		return fail(j, "the document ends where a value should be");
	switch (*j->p) {
	case '{':
		return container(j, depth, 1);
	case '[':
		return container(j, depth, 0);
	case '"':
		v = node(j, KMT_J_STR);
		if (v && !(v->str = string(j)))
			return NULL;
		return v;
	case 't':
	case 'f':
		if (word(j, "true") || word(j, "false")) {
			v = node(j, KMT_J_BOOL);
			if (v)
				v->num = j->p[-1] == 'e' && j->p[-2] == 'u';
			return v;
		}
		return fail(j, "not a JSON value");
	case 'n':
		if (word(j, "null"))
			return node(j, KMT_J_NULL);
		return fail(j, "not a JSON value");
	default:
		return number(j);
	}
}

int kmt_json_parse(struct kmt_arena *arena, const char *text, size_t len,
		   struct kmt_jv **out, size_t *err_off, const char **err_what)
{
	struct jp j = { arena, text, text, text + len, NULL, 0, KMT_SB_INIT };
	struct kmt_jv *v = value(&j, 0);

	if (v) {
		ws(&j);
		if (j.p < j.end) {
			fail(&j, "more after the document");
			v = NULL;
		}
	}
	kmt_sb_release(&j.sb);
	if (!v) {
		*err_off = (size_t)(j.p - j.start);
		*err_what = j.what ? j.what : "not JSON";
		return j.nomem ? -ENOMEM : -EINVAL;
	}
	*out = v;
	return 0;
}

const struct kmt_jv *kmt_jv_get(const struct kmt_jv *o, const char *key)
{
	size_t i;

	if (!o || o->type != KMT_J_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++) {
		if (!strcmp(o->keys[i], key))
			return o->items[i];
	}
	return NULL;
}
