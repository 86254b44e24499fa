// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/allocinfo text: a header, a comment, then one line per tag.  The
 * whole input is read first (the live file is a few hundred KiB) and
 * parsed line by line; names go to the caller's string table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/allocinfo.h"
#include "util/array.h"
#include "util/strbuf.h"

#define HEADER "allocinfo - version:"

void kmt_allocinfo_init(struct kmt_allocinfo *ai, struct kmt_strtab *names)
{
	memset(ai, 0, sizeof(*ai));
	ai->names = names;
}

void kmt_allocinfo_free(struct kmt_allocinfo *ai)
{
	free(ai->tags);
	ai->tags = NULL;
	ai->nr = ai->alloc = 0;
}

void kmt_allocinfo_reset(struct kmt_allocinfo *ai)
{
	ai->version[0] = 0;
	ai->nr = 0;
	ai->nr_lines = ai->nr_inaccurate = ai->nr_malformed = 0;
	ai->nr_notes = 0;
	ai->errmsg[0] = 0;
}

const char *kmt_allocinfo_name(const struct kmt_allocinfo *ai, uint32_t id)
{
	const char *s = id ? kmt_strtab_get(ai->names, id) : NULL;

	return s ? s : "";
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* the next word of [*p, end) into w and wlen; 0 when none is left */
static int next_word(const char **p, const char *end, const char **w,
		     size_t *wlen)
{
	const char *s = *p;

	while (s < end && is_space(*s))
		s++;
	if (s == end)
		return 0;
	*w = s;
	while (s < end && !is_space(*s))
		s++;
	*wlen = (size_t)(s - *w);
	*p = s;
	return 1;
}

/*
 * A count: decimal digits, '-' first when sign; a trailing '*' marks it
 * inaccurate (how the first drafts of version 2.0 said it).  0 or -1.
 */
static int parse_count(const char *w, size_t len, int sign, uint64_t *v,
		       int *neg, int *star)
{
	size_t i = 0;

	*v = 0;
	*neg = 0;
	if (len && w[len - 1] == '*') {
		*star = 1;
		len--;
	}
	if (sign && len && w[0] == '-') {
		*neg = 1;
		i = 1;
	}
	if (i == len)
		return -1;
	for (; i < len; i++) {
		if (w[i] < '0' || w[i] > '9')
			return -1;
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(w[i] - '0');
	}
	if (sign && *v > (uint64_t)INT64_MAX)
		return -1;
	return 0;
}

static int note(struct kmt_allocinfo *ai, uint64_t line, const char *why)
{
	if (ai->nr_notes < KMT_AI_NOTES) {
		ai->notes[ai->nr_notes].line = line;
		ai->notes[ai->nr_notes].why = why;
		ai->nr_notes++;
	}
	ai->nr_malformed++;
	return 0;
}

static uint32_t intern(struct kmt_allocinfo *ai, const char *s, size_t len)
{
	return kmt_strtab_intern(ai->names, s, len);
}

/* one tag line; 0 (a malformed line noted), or -ENOMEM */
static int parse_tag(struct kmt_allocinfo *ai, const char *p,
		     const char *end, uint64_t lineno)
{
	const char *w, *loc = NULL, *mod = NULL, *func = NULL, *colon;
	size_t wlen, loc_len = 0, mod_len = 0, func_len = 0, i;
	struct kmt_ai_tag tag;
	struct kmt_sb key = KMT_SB_INIT;
	uint64_t v, line = 0;
	int neg, star = 0;

	memset(&tag, 0, sizeof(tag));
	if (!next_word(&p, end, &w, &wlen) ||
	    parse_count(w, wlen, 1, &v, &neg, &star))
		return note(ai, lineno, "no size");
	tag.bytes = neg ? -(int64_t)v : (int64_t)v;
	if (!next_word(&p, end, &w, &wlen) ||
	    parse_count(w, wlen, 0, &tag.calls, &neg, &star))
		return note(ai, lineno, "no calls");
	if (!next_word(&p, end, &w, &wlen))
		return note(ai, lineno, "no file:line");
	colon = memrchr(w, ':', wlen);
	if (!colon || colon == w || colon + 1 == w + wlen)
		return note(ai, lineno, "no file:line");
	for (i = (size_t)(colon + 1 - w); i < wlen; i++) {
		if (w[i] < '0' || w[i] > '9' || line > UINT32_MAX / 10)
			return note(ai, lineno, "no file:line");
		line = line * 10 + (uint64_t)(w[i] - '0');
	}
	loc = w;
	loc_len = wlen;
	while (next_word(&p, end, &w, &wlen)) {
		if (w[0] == '[' && wlen > 2 && w[wlen - 1] == ']' && !mod &&
		    !func) {
			mod = w + 1;
			mod_len = wlen - 2;
		} else if (wlen > 5 && !memcmp(w, "func:", 5) && !func) {
			func = w + 5;
			func_len = wlen - 5;
		} else if (wlen == 11 && !memcmp(w, "accurate:no", 11)) {
			tag.inaccurate = 1;
		} else if (!memchr(w, ':', wlen)) {
			return note(ai, lineno, "a word that is not key:value");
		}
		/* other key:value fields: a later kernel's, skipped */
	}
	if (!func)
		return note(ai, lineno, "no func:");
	if (star)
		tag.inaccurate = 1;
	tag.line = (uint32_t)line;
	tag.lineno = lineno;
	tag.file = intern(ai, loc, (size_t)(colon - loc));
	tag.func = intern(ai, func, func_len);
	tag.module = mod ? intern(ai, mod, mod_len) : 0;
	kmt_sb_add(&key, loc, loc_len);
	if (mod) {
		kmt_sb_adds(&key, " [");
		kmt_sb_add(&key, mod, mod_len);
		kmt_sb_addc(&key, ']');
	}
	kmt_sb_adds(&key, " func:");
	kmt_sb_add(&key, func, func_len);
	tag.key = key.oom ? 0 : intern(ai, key.buf, key.len);
	kmt_sb_release(&key);
	if (!tag.file || !tag.func || (mod && !tag.module) || !tag.key)
		return -ENOMEM;
	if (KMT_ARRAY_GROW(ai->tags, ai->nr + 1, ai->alloc))
		return -ENOMEM;
	ai->tags[ai->nr++] = tag;
	if (tag.inaccurate)
		ai->nr_inaccurate++;
	return 0;
}

int kmt_allocinfo_parse(struct kmt_allocinfo *ai, const char *text,
			size_t len, const char *display)
{
	const char *p = text, *end = text + len, *eol, *s, *e;
	uint64_t lineno = 0;
	int ret;

	if (!len) {
		snprintf(ai->errmsg, sizeof(ai->errmsg), "'%s' is empty",
			 display);
		return -EINVAL;
	}
	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		lineno++;
		for (s = p; s < eol && is_space(*s); s++)
			;
		for (e = eol; e > s && is_space(e[-1]); e--)
			;
		if (s == e || *s == '#')
			continue;
		if ((size_t)(e - s) >= sizeof(HEADER) - 1 &&
		    !memcmp(s, HEADER, sizeof(HEADER) - 1)) {
			const char *w = s + sizeof(HEADER) - 1;
			size_t wlen;

			if (!next_word(&w, e, &s, &wlen) ||
			    wlen >= sizeof(ai->version))
				note(ai, lineno, "a header without its version");
			else
				snprintf(ai->version, sizeof(ai->version),
					 "%.*s", (int)wlen, s);
			continue;
		}
		ret = parse_tag(ai, s, e, lineno);
		if (ret) {
			snprintf(ai->errmsg, sizeof(ai->errmsg),
				 "out of memory reading '%s'", display);
			return ret;
		}
	}
	ai->nr_lines = lineno;
	if (!ai->version[0] && !ai->nr) {
		snprintf(ai->errmsg, sizeof(ai->errmsg),
			 "'%s' is not /proc/allocinfo text: no 'allocinfo - version:' header and no line of size, calls, file:line and func:",
			 display);
		return -EINVAL;
	}
	return 0;
}

int kmt_allocinfo_read(struct kmt_allocinfo *ai, const char *path)
{
	struct kmt_sb text = KMT_SB_INIT;
	int fd, ret = 0, is_stdin = !strcmp(path, "-");
	const char *display = is_stdin ? "the standard input" : path;
	char buf[65536];
	ssize_t n;

	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(ai->errmsg, sizeof(ai->errmsg), "cannot open '%s': %s",
			 path, strerror(errno));
		return ret;
	}
	/* procfs files say size 0: read to the end */
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(ai->errmsg, sizeof(ai->errmsg),
				 "cannot read '%s': %s", display,
				 strerror(errno));
			goto out;
		}
		if (!n)
			break;
		kmt_sb_add(&text, buf, (size_t)n);
	}
	if (text.oom) {
		ret = -ENOMEM;
		snprintf(ai->errmsg, sizeof(ai->errmsg),
			 "out of memory reading '%s'", display);
		goto out;
	}
	ret = kmt_allocinfo_parse(ai, text.buf ? text.buf : "", text.len,
				  display);
out:
	if (!is_stdin)
		close(fd);
	kmt_sb_release(&text);
	return ret;
}
