// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "event/fmtcheck.h"
#include "event/kcounters.h"
#include "event/session.h"
#include "util/array.h"

int kmt_session_init(struct kmt_session *s)
{
	memset(s, 0, sizeof(*s));
	if (kmt_strtab_init(&s->strs) || kmt_stacks_init(&s->stacks)) {
		kmt_session_free(s);
		return -ENOMEM;
	}
	kmt_symtab_init(&s->syms, &s->strs);
	s->page_size = 4096;
	kmt_gfp_init(&s->gfp);
	kmt_hash_u32_init(&s->comms);
	kmt_hash_i32_init(&s->tgids);
	kmt_cgmap_init(&s->cgroups);
	return 0;
}

void kmt_session_drop_kcounters(struct kmt_session *s)
{
	if (s->kcounters) {
		kmt_kcounters_free(s->kcounters);
		free(s->kcounters);
	}
	s->kcounters = NULL;
	s->kcounters_damaged[0] = '\0';
}

void kmt_session_free(struct kmt_session *s)
{
	kmt_symtab_free(&s->syms);
	kmt_stacks_free(&s->stacks);
	kmt_gfp_free(&s->gfp);
	kmt_hash_u32_free(&s->comms);
	kmt_hash_i32_free(&s->tgids);
	kmt_cgmap_free(&s->cgroups);
	kmt_strtab_free(&s->strs);
	kmt_session_drop_nodes(s);
	kmt_session_drop_kcounters(s);
	free(s->unusable);
	s->unusable = NULL;
	s->nr_unusable = s->alloc_unusable = 0;
	if (s->tep)
		tep_free(s->tep);
	s->tep = NULL;
}

/*
 * Messages quote names and bytes from the recording: a control
 * character there (a newline in a damaged buffer name) would break the
 * one line a message is
 */
static void one_line(char *p)
{
	for (; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	}
}

int kmt_session_error(struct kmt_session *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
	va_end(ap);
	one_line(s->errmsg);
	return err > 0 ? -err : (err ? err : -EINVAL);
}

void kmt_session_anomaly(struct kmt_session *s, enum kmt_anomaly kind,
			 enum kmt_where unit, uint64_t where,
			 const char *fmt, ...)
{
	struct kmt_anomaly_note *n;
	va_list ap;

	s->anomalies[kind]++;
	if (s->nr_notes >= KMT_ANOMALY_NOTES)
		return;
	n = &s->notes[s->nr_notes++];
	n->kind = kind;
	n->unit = unit;
	n->where = where;
	va_start(ap, fmt);
	vsnprintf(n->why, sizeof(n->why), fmt, ap);
	one_line(n->why);
	va_end(ap);
}

int kmt_session_emit(struct kmt_session *s, const struct kmt_event *ev)
{
	if (ev->type == KMT_EV_NONE || ev->type >= KMT_EV_NR) {
		s->nr_other++;
		return 0;
	}
	if (s->time_relative) {
		if (s->time_relative & KMT_TIME_REL_START)
			s->time_start += ev->ts;
		if (s->time_relative & KMT_TIME_REL_END)
			s->time_end += ev->ts;
		s->time_relative = 0;
	}
	/*
	 * Counts and times describe all events read, the window or not.
	 * The count is a sum over types: it is only needed while every
	 * event so far (if any) was at time 0.
	 */
	if (ev->ts < s->first_ts ||
	    (!s->last_ts && !s->first_ts && !kmt_session_total_events(s)))
		s->first_ts = ev->ts;
	if (ev->ts > s->last_ts)
		s->last_ts = ev->ts;
	s->nr_events[ev->type]++;
	if (s->time_start && ev->ts < s->time_start)
		return 0;
	if (s->time_end && ev->ts > s->time_end)
		return 0;
	s->nr_emitted++;
	if (!s->consumer)
		return 0;
	return s->consumer(s->consumer_ctx, ev);
}

int kmt_session_set_comm(struct kmt_session *s, int32_t pid, const char *comm,
			 size_t len)
{
	uint32_t id = kmt_strtab_intern(&s->strs, comm, len);
	uint32_t *slot;

	if (!id)
		return -ENOMEM;
	slot = kmt_hash_u32_put(&s->comms, (uint32_t)pid, NULL);
	if (!slot)
		return -ENOMEM;
	*slot = id;
	return 0;
}

const char *kmt_session_comm(const struct kmt_session *s, int32_t pid)
{
	const uint32_t *id = kmt_hash_u32_get(&s->comms, (uint32_t)pid);

	return id ? kmt_strtab_get(&s->strs, *id) : NULL;
}

int kmt_session_set_tgid(struct kmt_session *s, int32_t pid, int32_t tgid)
{
	int32_t *slot = kmt_hash_i32_put(&s->tgids, (uint32_t)pid, NULL);

	if (!slot)
		return -ENOMEM;
	*slot = tgid;
	return 0;
}

int kmt_session_wall_start(const struct kmt_session *s, uint64_t *ns)
{
	int64_t off = s->wall_offset_ns;

	if (!s->has_wall || !kmt_session_total_events(s))
		return 0;
	if (off >= 0)
		return !__builtin_add_overflow(s->first_ts, (uint64_t)off, ns);
	if (s->first_ts < (uint64_t)-(off + 1) + 1)
		return 0;
	*ns = s->first_ts - ((uint64_t)-(off + 1) + 1);
	return 1;
}

/* a decimal number below KMT_MAX_CPUS at *p, which it moves past */
static int cpulist_num(const char **p, const char *end)
{
	int v = 0;

	if (*p == end || **p < '0' || **p > '9')
		return -EINVAL;
	while (*p < end && **p >= '0' && **p <= '9') {
		v = v * 10 + (**p - '0');
		if (v >= KMT_MAX_CPUS)
			return -EINVAL;
		(*p)++;
	}
	return v;
}

int kmt_cpulist_parse(const char *text, size_t len, struct kmt_cpumask *mask)
{
	const char *p = text, *end = text;
	int nr = 0;

	memset(mask, 0, sizeof(*mask));
	while (end < text + len && *end && *end != '\n')
		end++;
	while (p < end) {
		int first = cpulist_num(&p, end), last = first, cpu;

		if (first < 0)
			return -EINVAL;
		if (p < end && *p == '-') {
			p++;
			last = cpulist_num(&p, end);
			if (last < first)
				return -EINVAL;
		}
		if (p < end && *p++ != ',')
			return -EINVAL;
		/* "0-3," ends in a comma that names nothing after it */
		if (p == end && p[-1] == ',')
			return -EINVAL;
		for (cpu = first; cpu <= last; cpu++) {
			if (!kmt_cpumask_has(mask, cpu))
				nr++;
			mask->bits[cpu / 64] |= 1ULL << (cpu % 64);
		}
	}
	return nr;
}

int kmt_session_set_node_cpus(struct kmt_session *s, int node,
			      const char *cpulist, size_t len)
{
	struct kmt_cpumask mask;
	int cpu, last = -1;

	if (node < 0 || node > INT16_MAX ||
	    kmt_cpulist_parse(cpulist, len, &mask) < 0)
		return -EINVAL;
	for (cpu = 0; cpu < KMT_MAX_CPUS; cpu++) {
		if (kmt_cpumask_has(&mask, cpu))
			last = cpu;
	}
	if (last >= s->nr_cpu_node) {
		int16_t *map = realloc(s->cpu_node, (size_t)(last + 1) *
					sizeof(*map));

		if (!map)
			return -ENOMEM;
		for (cpu = s->nr_cpu_node; cpu <= last; cpu++)
			map[cpu] = -1;
		s->cpu_node = map;
		s->nr_cpu_node = last + 1;
	}
	for (cpu = 0; cpu <= last; cpu++) {
		if (!kmt_cpumask_has(&mask, cpu))
			continue;
		if (s->cpu_node[cpu] >= 0 && s->cpu_node[cpu] != node)
			return -EINVAL;
		s->cpu_node[cpu] = (int16_t)node;
	}
	s->has_cpu_node = 1;
	return 0;
}

void kmt_session_drop_nodes(struct kmt_session *s)
{
	free(s->cpu_node);
	s->cpu_node = NULL;
	s->nr_cpu_node = 0;
	s->has_cpu_node = 0;
}

int kmt_session_kernel_version(const struct kmt_session *s)
{
	int major = 0, minor = 0;

	if (sscanf(s->kernel_release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major * 1000 + minor;
}

const char *kmt_session_migratetype_name(const struct kmt_session *s, int mt)
{
	static const char *const since_4_4[] = {
		"UNMOVABLE", "MOVABLE", "RECLAIMABLE", "HIGHATOMIC",
	};
	static const char *const before_4_4[] = {
		"UNMOVABLE", "RECLAIMABLE", "MOVABLE", "RESERVE",
	};
	int v = kmt_session_kernel_version(s);

	if (mt < 0)
		return NULL;
	if (mt < 4)
		return v && v < 4004 ? before_4_4[mt] : since_4_4[mt];
	/*
	 * Then MIGRATE_CMA (CONFIG_CMA) and MIGRATE_ISOLATE
	 * (CONFIG_MEMORY_ISOLATION), each there or not by config: 4 is CMA
	 * where the kernel has CMA, else ISOLATE; 5 is ISOLATE after CMA.
	 * The recording does not say which config: 4 keeps both names.
	 */
	if (mt == 4)
		return "CMA/ISOLATE";
	if (mt == 5)
		return "ISOLATE";
	return NULL;
}

int kmt_session_unusable_format(struct kmt_session *s, const char *input,
				const char *system, const char *text,
				size_t len, const char *why)
{
	struct kmt_unusable_format *u;
	const char *id = memmem(text, len, "\nID:", 4);
	char name[64];

	/* without its kmem events there is no report to make */
	if (!strcmp(system, "kmem")) {
		kmt_format_name(text, len, name, sizeof(name));
		return kmt_session_error(s, EINVAL,
			"'%s' cannot be read: the format of its event kmem/%s cannot be parsed safely (%s), and the report needs it",
			input, name, why);
	}

	if (KMT_ARRAY_GROW(s->unusable, s->nr_unusable + 1, s->alloc_unusable))
		return -ENOMEM;
	u = &s->unusable[s->nr_unusable++];
	kmt_format_name(text, len, name, sizeof(name));
	snprintf(u->name, sizeof(u->name), "%s/%s", system, name);
	one_line(u->name);
	snprintf(u->why, sizeof(u->why), "%s", why);
	u->id = -1;
	if (id) {
		const char *p = id + 4, *end = text + len, *digits;
		long v = 0;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		for (digits = p; p < end && *p >= '0' && *p <= '9' &&
				 v < 1 << 20; p++)
			v = v * 10 + (*p - '0');
		if (p > digits && v < 1 << 20)
			u->id = (int)v;
	}
	u->records = 0;
	return 0;
}

int kmt_session_unusable_record(struct kmt_session *s, int id)
{
	unsigned int i;

	for (i = 0; i < s->nr_unusable; i++) {
		if (s->unusable[i].id == id && id >= 0) {
			s->unusable[i].records++;
			return 1;
		}
	}
	return 0;
}
