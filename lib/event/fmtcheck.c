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
			int in_size = 0;

			for (q = f + sizeof(tag) - 1; q < semi; q++) {
				if (*q == '[' || *q == ']')
					in_size = *q == '[';
				/*
				 * an array's size is a constant expression on
				 * older kernels ("char func[30+1]", "__u8
				 * buf[32 + 2]", "[sizeof(struct x)]"): the
				 * tokenizer reads those operators as it reads
				 * them in print formats
				 */
				if (!is_ident((unsigned char)*q) &&
				    !strchr(" \t*[]", *q) &&
				    !(in_size && strchr("+-*/()<>", *q)))
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

/* "struct" or "union" at p, as a word */
static int sizeof_whole(const char *p, const char *end)
{
	size_t n = (size_t)(end - p);

	return (n > 6 && !memcmp(p, "struct", 6) && !is_ident((unsigned char)p[6])) ||
	       (n > 5 && !memcmp(p, "union", 5) && !is_ident((unsigned char)p[5]));
}

/* past the parenthesis at p and what it holds, to its match; or NULL */
static const char *skip_group(const char *p, const char *end)
{
	int level = 0;

	while (p < end) {
		if (*p == '"' || *p == '\'') {
			p = skip_literal(p, end);
			continue;
		}
		if (*p == '(')
			level++;
		else if (*p == ')' && !--level)
			return p + 1;
		p++;
	}
	return NULL;
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
	const char *open;
	int words = 0;

	if (end - p < 6 || memcmp(p, "sizeof", 6) ||
	    (end - p > 6 && is_ident((unsigned char)p[6])))
		return NULL;

	p = skip_space(p + 6, end);
	if (p >= end || *p != '(')
		return NULL;
	open = p;
	p = skip_space(p + 1, end);
	/*
	 * sizeof of an expression or an anonymous struct (binder's
	 * ARRAY_SIZE on 4.x: "sizeof(x) / sizeof((x)[0])"): libtraceevent
	 * cannot parse it, fails the print format and divides by nothing
	 */
	if (p < end && (*p == '(' || sizeof_whole(p, end)))
		return skip_group(open, end);
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

/*
 * The arguments of a print format, checked against the C expressions the
 * kernel writes there, before libtraceevent's parser sees them: it
 * dereferences NULL where an operator is not C's ("=>", a lone "="), a
 * character is none of C's ("@", ";"), or an operand is missing ("->x",
 * an unmatched "[").  Found by fuzzing (tests/fuzz/regressions).
 */
enum { T_END, T_IDENT, T_NUM, T_STR, T_OP, T_BAD };

/* deeper than any kernel format nests; libtraceevent parses by recursion */
#define FMT_MAX_DEPTH	64

struct lex {
	const char *p, *end;
	int tok;
	int op;			/* T_OP: its one or two characters, OP() */
	const char *s;		/* the token's text */
	size_t len;
	int depth;
	int calls;		/* inside how many calls' arguments */
};

#define OP(a, b)	((unsigned char)(a) | (unsigned char)(b) << 8)

static void next(struct lex *l)
{
	const char *p = skip_space(l->p, l->end);

	l->s = p;
	l->len = 1;
	if (p >= l->end) {
		l->tok = T_END;
		l->len = 0;
	} else if (*p == '"' || *p == '\'') {
		l->tok = T_STR;
		l->len = (size_t)(skip_literal(p, l->end) - p);
	} else if (is_ident((unsigned char)*p)) {
		l->tok = isdigit((unsigned char)*p) ? T_NUM : T_IDENT;
		while (p + l->len < l->end && is_ident((unsigned char)p[l->len]))
			l->len++;
	} else {
		l->tok = T_OP;
		switch (OP(p[0], l->end - p >= 2 ? p[1] : 0)) {
		case OP('<', '<'): case OP('>', '>'): case OP('<', '='):
		case OP('>', '='): case OP('=', '='): case OP('!', '='):
		case OP('&', '&'): case OP('|', '|'): case OP('-', '>'):
			l->len = 2;
		}
		if (l->len == 1 && !strchr("+-*/%<>&|^!~?:,.()[]{}", *p))
			l->tok = T_BAD;
		l->op = OP(p[0], l->len == 2 ? p[1] : 0);
	}
	l->p = p + l->len;
}

/* a token is compared as a number: formats have thousands of them */
#define is_op(l, s)	((l)->tok == T_OP && (l)->op == OP((s)[0], (s)[1]))

static int expr(struct lex *l);

/* an expression, then the op close, past it */
static int closed_by(struct lex *l, const char *close)
{
	if (expr(l) || !is_op(l, close))
		return -1;
	next(l);
	return 0;
}

/*
 * A type name ahead ("unsigned long", "struct page *", "gfp_t"): words
 * and stars up to ')' or ','.  Consumed only when it is one (then l is
 * at that ')' or ','); "(x)" alone is left to be an expression.
 */
static int type_name(struct lex *l)
{
	struct lex save = *l;
	int words = 0, stars = 0;

	while (l->tok == T_IDENT || is_op(l, "*")) {
		if (l->tok == T_IDENT) {
			if (stars)
				break;
			words++;
		} else {
			stars++;
		}
		next(l);
	}
	if (words && (words > 1 || stars) && (is_op(l, ")") || is_op(l, ",")))
		return 1;
	*l = save;
	return 0;
}

/* a list of expressions (or, in calls, type names) up to op close */
static int list(struct lex *l, const char *close, int types)
{
	if (is_op(l, close)) {
		next(l);
		return 0;
	}
	for (;;) {
		if (!(types && type_name(l)) && expr(l))
			return -1;
		if (is_op(l, close)) {
			next(l);
			return 0;
		}
		if (!is_op(l, ","))
			return -1;
		next(l);
		/* { 1, "a" }, the last element with a comma after it */
		if (is_op(l, close)) {
			next(l);
			return 0;
		}
	}
}

/*
 * A statement expression, "({ int x = (REC->a); x < 128 ? x : 128; })":
 * the kernel's min() and kvm's printing helpers write them, and
 * libtraceevent takes one whole, whatever it holds.  l is at its "{".
 */
static int statement_expr(struct lex *l)
{
	int level = 1;

	while (level) {
		next(l);
		if (l->tok == T_END)
			return -1;
		if (is_op(l, "(") || is_op(l, "[") || is_op(l, "{"))
			level++;
		else if (is_op(l, ")") || is_op(l, "]") || is_op(l, "}"))
			level--;
	}
	next(l);
	if (!is_op(l, ")"))
		return -1;
	next(l);
	return 0;
}

static int is_word(const struct lex *l, const char *w)
{
	return l->tok == T_IDENT && l->len == strlen(w) &&
	       !memcmp(l->s, w, l->len);
}

/*
 * libtraceevent 1.7.1 frees a token twice on sizeof(REC->x), and on
 * sizeof(int), sizeof(unsigned int) or sizeof(long long) outside a
 * call's arguments (inside __print_array's, where 6.12's dma events
 * write them, it does not): found with valgrind on each form.
 */
static int sizeof_risky(const struct lex *l, int ints, int longs)
{
	return (ints || longs > 1) && !l->calls;
}

/*
 * sizeof( at l: a type, or taken whole as libtraceevent takes it (it
 * gives up at once on an expression or an anonymous struct, as 4.x's
 * binder events have: "sizeof(struct { int:-!!(...); })")
 */
static int sizeof_expr(struct lex *l)
{
	const char *open;
	int ints = 0, longs = 0;

	next(l);
	if (!is_op(l, "("))
		return -1;
	open = l->s;
	next(l);
	if (is_word(l, "REC"))
		return -1;
	/*
	 * what is not a type ahead is taken whole: 5.15's min() writes
	 * sizeof(*(8 ? ((void *)((long)(REC->x) * 0l)) : (int *)8))
	 */
	if (l->tok != T_IDENT || is_word(l, "struct") || is_word(l, "union") ||
	    is_word(l, "typeof")) {
		l->p = skip_group(open, l->end);
		if (!l->p)
			return -1;
		next(l);
		return 0;
	}
	while (l->tok == T_IDENT || is_op(l, "*")) {
		ints += is_word(l, "int");
		longs += is_word(l, "long");
		next(l);
	}
	if (!is_op(l, ")") || sizeof_risky(l, ints, longs))
		return -1;
	next(l);
	return 0;
}

/* { .tv64 = REC->x }: a compound literal's designated initializers */
static int initializers(struct lex *l)
{
	for (;;) {
		if (is_op(l, "}")) {
			next(l);
			return 0;
		}
		if (is_op(l, ".")) {
			next(l);
			if (l->tok != T_IDENT)
				return -1;
			next(l);
			if (l->tok != T_BAD || *l->s != '=')
				return -1;
			next(l);
		}
		if (expr(l))
			return -1;
		if (is_op(l, ","))
			next(l);
		else if (!is_op(l, "}"))
			return -1;
	}
}

static int postfix(struct lex *l)
{
	int member = 0;

	if (is_word(l, "sizeof")) {
		return sizeof_expr(l);
	} else if (l->tok == T_IDENT || l->tok == T_NUM) {
		next(l);
	} else if (l->tok == T_STR) {
		while (l->tok == T_STR)
			next(l);
	} else if (is_op(l, "(")) {
		next(l);
		if (is_op(l, "{")) {
			if (statement_expr(l))
				return -1;
		} else if (closed_by(l, ")")) {
			return -1;
		}
		/*
		 * ((ktime_t) { .tv64 = REC->x }).tv64 (4.x's hrtimer
		 * events): a member of a parenthesized expression, which
		 * libtraceevent fails without harm; after a string or a
		 * name it dereferences NULL ("\"none\". REC->x")
		 */
		member = 1;
	} else if (is_op(l, "{")) {
		next(l);
		if (initializers(l))
			return -1;
	} else {
		return -1;
	}
	for (;;) {
		if (member && is_op(l, ".")) {
			next(l);
			if (l->tok != T_IDENT)
				return -1;
			next(l);
		} else if (is_op(l, "[")) {
			next(l);
			if (closed_by(l, "]"))
				return -1;
		} else if (is_op(l, "->")) {
			/* not ".": libtraceevent dereferences NULL on one */
			next(l);
			if (l->tok != T_IDENT)
				return -1;
			next(l);
		} else if (is_op(l, "(")) {
			next(l);
			l->calls++;
			if (list(l, ")", 1))
				return -1;
			l->calls--;
		} else {
			return 0;
		}
	}
}

/*
 * At "(": whether a cast is ahead, consumed to its ")" when it is one: a
 * type name alone in parentheses, or one word ("(gfp_t)x") followed by
 * an operand ("(x) - 1" stays an expression).
 */
static int cast(struct lex *l)
{
	struct lex save = *l;

	next(l);
	if (l->tok == T_IDENT && type_name(l) && is_op(l, ")")) {
		next(l);
		return 1;
	}
	if (l->tok == T_IDENT) {
		next(l);
		if (is_op(l, ")")) {
			next(l);
			if (l->tok == T_IDENT || l->tok == T_NUM ||
			    l->tok == T_STR || is_op(l, "(") || is_op(l, "{"))
				return 1;
		}
	}
	*l = save;
	return 0;
}

static int unary(struct lex *l)
{
	if (++l->depth > FMT_MAX_DEPTH)
		return -1;
	if (is_op(l, "!") || is_op(l, "~") || is_op(l, "-") ||
	    is_op(l, "+") || is_op(l, "*") || is_op(l, "&")) {
		next(l);
		if (unary(l))
			return -1;
	} else if (is_op(l, "(") && cast(l)) {
		if (unary(l))
			return -1;
	} else if (postfix(l)) {
		return -1;
	}
	l->depth--;
	return 0;
}

static int binary_op(const struct lex *l)
{
	if (l->tok != T_OP)
		return 0;
	switch (l->op) {
	case OP('*', 0): case OP('/', 0): case OP('%', 0): case OP('+', 0):
	case OP('-', 0): case OP('<', '<'): case OP('>', '>'): case OP('<', 0):
	case OP('>', 0): case OP('<', '='): case OP('>', '='): case OP('=', '='):
	case OP('!', '='): case OP('&', 0): case OP('^', 0): case OP('|', 0):
	case OP('&', '&'): case OP('|', '|'):
		return 1;
	}
	return 0;
}

static int expr(struct lex *l)
{
	if (++l->depth > FMT_MAX_DEPTH || unary(l))
		return -1;
	while (binary_op(l)) {
		next(l);
		if (unary(l))
			return -1;
	}
	if (is_op(l, "?")) {
		next(l);
		if (closed_by(l, ":") || expr(l))
			return -1;
	}
	l->depth--;
	return 0;
}

/* the print format's string and arguments, from p to end */
static int print_args(const char *p, const char *end)
{
	struct lex l = { .p = p, .end = end };

	next(&l);
	if (l.tok == T_END)
		return 0;
	for (;;) {
		if (expr(&l))
			return -1;
		if (l.tok == T_END)
			return 0;
		if (!is_op(&l, ","))
			return -1;
		next(&l);
	}
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
	p = memmem(text, len, tag, sizeof(tag) - 1);
	if (p && print_args(p + sizeof(tag) - 1, end)) {
		*why = "its print format is not a C expression list";
		return -1;
	}
	return 0;
}

void kmt_format_name(const char *text, size_t len, char *buf, size_t size)
{
	static const char tag[] = "name:";
	const char *p = memmem(text, len, tag, sizeof(tag) - 1), *end = text + len;
	size_t n = 0;

	if (p)
		p = skip_space(p + sizeof(tag) - 1, end);
	while (p && p < end && n + 1 < size && is_ident((unsigned char)*p))
		buf[n++] = *p++;
	if (!n && size > 1)
		buf[n++] = '?';
	if (size)
		buf[n] = '\0';
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
