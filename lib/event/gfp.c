// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "event/gfp.h"
#include "util/array.h"

void kmt_gfp_init(struct kmt_gfp *g)
{
	memset(g, 0, sizeof(*g));
}

void kmt_gfp_free(struct kmt_gfp *g)
{
	size_t i;

	for (i = 0; i < g->nr; i++)
		free(g->flags[i].name);
	free(g->flags);
	memset(g, 0, sizeof(*g));
}

int kmt_gfp_add(struct kmt_gfp *g, uint64_t value, const char *name)
{
	char *copy;

	if (KMT_ARRAY_GROW(g->flags, g->nr + 1, g->alloc))
		return -ENOMEM;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	g->flags[g->nr].value = value;
	g->flags[g->nr].name = copy;
	g->nr++;
	return 0;
}

/* does arg (a print argument tree) read field? */
static int reads_field(const struct tep_print_arg *arg, const char *field)
{
	while (arg && arg->type == TEP_PRINT_TYPE)
		arg = arg->typecast.item;
	return arg && arg->type == TEP_PRINT_FIELD &&
	       !strcmp(arg->field.name, field);
}

static const struct tep_print_arg *find_flags(const struct tep_print_arg *arg,
					      const char *field)
{
	const struct tep_print_arg *found;

	for (; arg; arg = arg->next) {
		switch (arg->type) {
		case TEP_PRINT_FLAGS:
			if (reads_field(arg->flags.field, field))
				return arg;
			break;
		case TEP_PRINT_OP:
			found = find_flags(arg->op.left, field);
			if (!found)
				found = find_flags(arg->op.right, field);
			if (found)
				return found;
			break;
		case TEP_PRINT_TYPE:
			found = find_flags(arg->typecast.item, field);
			if (found)
				return found;
			break;
		default:
			break;
		}
	}
	return NULL;
}

int kmt_gfp_from_tep(struct kmt_gfp *g, struct tep_event *event,
		     const char *field)
{
	const struct tep_print_arg *flags;
	const struct tep_print_flag_sym *sym;
	int n = 0;

	if (!event)
		return 0;
	flags = find_flags(event->print_fmt.args, field);
	if (!flags)
		return 0;
	for (sym = flags->flags.flags; sym; sym = sym->next) {
		char *end;
		unsigned long long v;

		if (!sym->value || !sym->str)
			continue;
		errno = 0;
		v = strtoull(sym->value, &end, 0);
		/*
		 * A zero mask never matches; it is the { 0, NULL } end of the
		 * kernel's array, which libtraceevent reads as a flag "0".
		 */
		if (errno || *end || !v)
			continue;
		if (kmt_gfp_add(g, v, sym->str))
			return -ENOMEM;
		n++;
	}
	return n;
}

void kmt_gfp_format(const struct kmt_gfp *g, uint64_t value,
		    struct kmt_sb *out)
{
	uint64_t rest = value;
	int first = 1;
	size_t i;

	if (!value) {
		kmt_sb_adds(out, "none");
		return;
	}
	if (!g->nr) {
		kmt_sb_addf(out, "0x%" PRIx64, value);
		return;
	}
	/* the kernel's __print_flags: first fully matching entry wins */
	for (i = 0; i < g->nr && rest; i++) {
		uint64_t f = g->flags[i].value;

		if (!f || (rest & f) != f)
			continue;
		if (!first)
			kmt_sb_addc(out, '|');
		kmt_sb_adds(out, g->flags[i].name);
		first = 0;
		rest &= ~f;
	}
	if (rest) {
		if (!first)
			kmt_sb_addc(out, '|');
		kmt_sb_addf(out, "0x%" PRIx64, rest);
	}
}

/* the initials of words (each one letter, the last last_len), in buf */
static void initials(const char *name, size_t last_len, char *buf,
		     size_t size)
{
	const char *w, *end;
	size_t o = 0, k;

	while (*name == '_')
		name++;
	if (!strncmp(name, "GFP_", 4) && name[4])
		name += 4;
	for (w = name; *w && o + 1 < size; w = *end ? end + 1 : end) {
		end = strchr(w, '_');
		if (!end)
			end = w + strlen(w);
		if (end == w)
			continue;
		/* the last word: last_len letters of it */
		k = *end ? 1 : last_len;
		if (k > (size_t)(end - w))
			k = end - w;
		while (k-- && o + 1 < size)
			buf[o++] = *w++;
	}
	buf[o] = '\0';
}

static int taken(char *const *abbrevs, size_t n, const char *a)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(abbrevs[i], a))
			return 1;
	}
	return 0;
}

int kmt_gfp_abbreviate(const char *const *names, size_t n, char **abbrevs)
{
	char buf[64], prev[64];
	size_t i, len, num;

	for (i = 0; i < n; i++) {
		prev[0] = '\0';
		for (len = 1; len < sizeof(buf); len++) {
			initials(names[i], len, buf, sizeof(buf));
			if (!taken(abbrevs, i, buf) || !strcmp(buf, prev))
				break;
			/* strcpy of a NUL-terminated copy of the same size */
			memcpy(prev, buf, sizeof(buf));
		}
		/* every letter of the name taken: a number after them */
		for (num = 2; taken(abbrevs, i, buf); num++) {
			char base[48];

			initials(names[i], sizeof(base), base, sizeof(base));
			snprintf(buf, sizeof(buf), "%s%zu", base, num);
		}
		abbrevs[i] = strdup(buf);
		if (!abbrevs[i]) {
			while (i--)
				free(abbrevs[i]);
			return -ENOMEM;
		}
	}
	return 0;
}
