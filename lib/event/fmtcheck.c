// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "event/fmtcheck.h"

/* a kernel event has tens of fields; more is not a format */
#define FMT_MAX_FIELDS	512

struct fmt_name {
	const char *s;
	size_t len;
};

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* the field names of "field:TYPE NAME[N];" lines */
static int collect_fields(const char *p, const char *end,
			  struct fmt_name *names, size_t *nr)
{
	static const char tag[] = "field:";

	*nr = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *f, *semi, *q;

		if (!eol)
			eol = end;
		f = memmem(p, (size_t)(eol - p), tag, sizeof(tag) - 1);
		semi = f ? memchr(f, ';', (size_t)(eol - f)) : NULL;
		if (f && !semi)
			return -1;
		if (semi) {
			/*
			 * a C declaration: libtraceevent's tokenizer leaks
			 * what it read when it meets anything else there
			 */
			for (q = f + sizeof(tag) - 1; q < semi; q++) {
				if (!is_ident((unsigned char)*q) &&
				    !strchr(" \t*[]", *q))
					return -1;
			}
			/* the last identifier before ';', ahead of any [N] */
			q = semi;
			if (q > f && q[-1] == ']') {
				while (q > f && *q != '[')
					q--;
			}
			while (q > f && !is_ident((unsigned char)q[-1]))
				q--;
			semi = q;
			while (q > f && is_ident((unsigned char)q[-1]))
				q--;
			if (q < semi) {
				if (*nr == FMT_MAX_FIELDS)
					return -1;
				names[*nr].s = q;
				names[(*nr)++].len = (size_t)(semi - q);
			}
		}
		p = eol + 1;
	}
	return 0;
}

static int known(const struct fmt_name *names, size_t nr, const char *s,
		 size_t len)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (names[i].len == len && !memcmp(names[i].s, s, len))
			return 1;
	}
	return 0;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

/* past a string or character literal starting at p */
static const char *skip_literal(const char *p, const char *end)
{
	char quote = *p++;

	while (p < end && *p != quote) {
		if (*p == '\\' && p + 1 < end)
			p++;
		p++;
	}
	return p < end ? p + 1 : end;
}

/*
 * sizeof(type) at p: where it ends, or NULL.  A type is words and stars
 * ("u64", "unsigned int", "void *"): libtraceevent knows the sizes of
 * the C and kernel integer types and fails to parse others, so such a
 * divisor is never 0.  The dma_map_sg events (6.12 on) print their
 * arrays with __get_dynamic_array_len(x) / sizeof(u64).
 */
static const char *sizeof_type(const char *p, const char *end)
{
	int words = 0;

	if (end - p < 6 || memcmp(p, "sizeof", 6) ||
	    (end - p > 6 && is_ident((unsigned char)p[6])))
		return NULL;
	p = skip_space(p + 6, end);
	if (p >= end || *p != '(')
		return NULL;
	p = skip_space(p + 1, end);
	while (p < end && *p != ')') {
		if (is_ident((unsigned char)*p)) {
			while (p < end && is_ident((unsigned char)*p))
				p++;
			words++;
		} else if (*p != '*') {
			return NULL;
		} else {
			p++;
		}
		p = skip_space(p, end);
	}
	return p < end && words ? p + 1 : NULL;
}

/*
 * A divisor: a number other than 0 or sizeof(type), in as many
 * parentheses as it likes.  Anything else may be 0 when libtraceevent
 * folds or prints it.
 */
static int constant_divisor(const char *p, const char *end)
{
	unsigned long long v = 0;
	int open = 0, digits = 0, base = 10;
	const char *q;

	p = skip_space(p, end);
	while (p < end && *p == '(') {
		open++;
		p = skip_space(p + 1, end);
	}
	q = sizeof_type(p, end);
	if (q) {
		p = q;
		v = 1;
		digits = 1;
	} else if (p + 1 < end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (; !q && p < end && isxdigit((unsigned char)*p); p++) {
		int d = isdigit((unsigned char)*p) ? *p - '0' :
			tolower((unsigned char)*p) - 'a' + 10;

		if (d >= base)
			return 0;
		v = v * base + d;
		if (v > 0xffffffffULL)
			v = 0xffffffffULL;	/* big enough: not 0 */
		digits++;
	}
	/* 1000UL, 3ULL */
	while (p < end && (*p == 'u' || *p == 'U' || *p == 'l' || *p == 'L'))
		p++;
	if (!digits || !v || (p < end && is_ident((unsigned char)*p)))
		return 0;
	for (; open; open--) {
		p = skip_space(p, end);
		if (p >= end || *p != ')')
			return 0;
		p++;
	}
	return 1;
}

int kmt_format_check(const char *text, size_t len, const char **why)
{
	static const char tag[] = "print fmt:";
	struct fmt_name *names;
	const char *end = text + len, *p;
	size_t nr, depth = 0;

	names = malloc(FMT_MAX_FIELDS * sizeof(*names));
	if (!names) {
		*why = "out of memory";
		return -1;
	}
	for (p = text; p < end; p++) {
		if ((*p < 0x20 || *p > 0x7e) && *p != '\n' && *p != '\t') {
			free(names);
			*why = "it holds bytes that are not text";
			return -1;
		}
	}
	if (collect_fields(text, end, names, &nr)) {
		free(names);
		*why = "a field is not a C declaration, or there are too many";
		return -1;
	}
	p = memmem(text, len, tag, sizeof(tag) - 1);
	p = p ? p + sizeof(tag) - 1 : end;
	while (p < end) {
		const char *w;

		if (*p == '"' || *p == '\'') {
			w = skip_literal(p, end);
			/* one not closed: the tokenizer leaks it */
			if (w == end && (w - p < 2 || w[-1] != *p)) {
				free(names);
				*why = "its print format has a string without its end";
				return -1;
			}
			p = w;
			continue;
		}
		if (*p == '(' || *p == '[')
			depth++;
		if (*p == ')' || *p == ']') {
			if (!depth--) {
				free(names);
				*why = "its print format has unbalanced parentheses";
				return -1;
			}
		}
		if (*p == '/' || *p == '%') {
			if (!constant_divisor(p + 1, end)) {
				free(names);
				*why = "its print format divides by something other than a constant";
				return -1;
			}
			p++;
			continue;
		}
		if (!is_ident((unsigned char)*p)) {
			p++;
			continue;
		}
		/* a whole word: REC -> name is a field reference */
		w = p;
		while (p < end && is_ident((unsigned char)*p))
			p++;
		if (p - w != 3 || memcmp(w, "REC", 3))
			continue;
		w = skip_space(p, end);
		if (end - w < 2 || memcmp(w, "->", 2))
			continue;
		w = skip_space(w + 2, end);
		p = w;
		while (p < end && is_ident((unsigned char)*p))
			p++;
		if (!known(names, nr, w, (size_t)(p - w))) {
			free(names);
			*why = "its print format names a field the event does not have";
			return -1;
		}
	}
	free(names);
	if (depth) {
		*why = "its print format has unbalanced parentheses";
		return -1;
	}
	return 0;
}

int kmt_printk_check(const char *text, size_t len, unsigned long *line,
		     const char **why)
{
	const char *p = text, *end = text + len;

	*line = 0;
	/* a NUL ends the text libtraceevent sees */
	if (memchr(text, '\0', len))
		end = memchr(text, '\0', len);
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *colon, *fmt;

		if (!eol)
			eol = end;
		(*line)++;
		/*
		 * libtraceevent splits at the first ':' after the address and
		 * skips one character; what follows, less a leading quote,
		 * must be longer than 2 for it to look back for "\n"
		 */
		colon = p;
		while (colon < eol && *colon == ':')
			colon++;
		if (colon < eol) {
			colon = memchr(colon, ':', (size_t)(eol - colon));
			if (!colon) {
				*why = "a line without ':'";
				return -1;
			}
			fmt = colon + 2;
			if (fmt < eol && *fmt == '"')
				fmt++;
			if (fmt > eol || eol - fmt < 3) {
				*why = "a format shorter than two characters";
				return -1;
			}
		}
		p = eol + 1;
	}
	*line = 0;
	return 0;
}
