// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "event/session.h"
#include "event/tpdecode.h"

/* field names by role; the first one an event has wins */
static const char *const field_names[KMT_TPF_NR][3] = {
	[KMT_TPF_CALL_SITE]	= { "call_site" },
	[KMT_TPF_PTR]		= { "ptr" },
	[KMT_TPF_PFN]		= { "pfn", "page" },
	[KMT_TPF_BYTES_REQ]	= { "bytes_req" },
	[KMT_TPF_BYTES_ALLOC]	= { "bytes_alloc" },
	[KMT_TPF_GFP]		= { "gfp_flags" },
	[KMT_TPF_ORDER]		= { "order", "alloc_order" },
	[KMT_TPF_MIGRATETYPE]	= { "migratetype", "alloc_migratetype" },
	[KMT_TPF_NODE]		= { "node" },
	[KMT_TPF_NAME]		= { "name" },
	[KMT_TPF_ACCOUNTED]	= { "accounted" },
	[KMT_TPF_PERCPU_REFILL]	= { "percpu_refill" },
	[KMT_TPF_FALLBACK_ORDER] = { "fallback_order" },
	[KMT_TPF_FALLBACK_MT]	= { "fallback_migratetype" },
	[KMT_TPF_CHANGE_OWNER]	= { "change_ownership" },
};

static void set_field(struct kmt_tp_field *f,
		      const struct tep_format_field *tf)
{
	f->offset = tf ? (int16_t)tf->offset : -1;
	f->size = tf ? (int16_t)tf->size : 0;
}

/*
 * The percpu and vmalloc events name their fields apart from kmem's
 * (event.h says where each goes); only these, and of the names above
 * only call_site, ptr, bytes_alloc and gfp_flags, are theirs.
 */
static const struct {
	uint16_t type;
	uint16_t role;
	const char *name;
} other_fields[] = {
	{ KMT_EV_PERCPU_ALLOC,		KMT_TPF_BYTES_REQ,	"size" },
	{ KMT_EV_PERCPU_FAIL,		KMT_TPF_BYTES_REQ,	"size" },
	{ KMT_EV_PERCPU_CHUNK_NEW,	KMT_TPF_PTR,		"base_addr" },
	{ KMT_EV_PERCPU_CHUNK_DEL,	KMT_TPF_PTR,		"base_addr" },
	{ KMT_EV_VMAP_ALLOC,		KMT_TPF_PTR,		"addr" },
	{ KMT_EV_VMAP_ALLOC,		KMT_TPF_PTR,		"va_start" },
	{ KMT_EV_VMAP_ALLOC,		KMT_TPF_BYTES_REQ,	"size" },
	{ KMT_EV_VMAP_ALLOC,		KMT_TPF_BYTES_ALLOC,	"size" },
	{ KMT_EV_VMAP_ALLOC,		KMT_TPF_FAILED,		"failed" },
	{ KMT_EV_VMAP_FREE,		KMT_TPF_PTR,		"va_start" },
	{ KMT_EV_VMAP_PURGE,		KMT_TPF_PTR,		"start" },
	{ KMT_EV_VMAP_PURGE,		KMT_TPF_END,		"end" },
	{ KMT_EV_VMAP_PURGE,		KMT_TPF_BYTES_REQ,	"npurged" },
};

#define OTHER_ROLES	(1U << KMT_TPF_CALL_SITE | 1U << KMT_TPF_PTR |	\
			 1U << KMT_TPF_BYTES_ALLOC | 1U << KMT_TPF_GFP)

/* the field each event of percpu or vmalloc cannot be read without */
static int other_needs(unsigned int type)
{
	switch (type) {
	case KMT_EV_PERCPU_FAIL:
		return KMT_TPF_BYTES_REQ;
	case KMT_EV_VMAP_PURGE:
		return KMT_TPF_END;
	default:
		return KMT_TPF_PTR;
	}
}

static void take_field(struct kmt_tp_format *fmt, int role,
		       const struct tep_format_field *tf)
{
	set_field(&fmt->f[role], tf);
	if (tf && (size_t)(tf->offset + tf->size) > fmt->min_size)
		fmt->min_size = tf->offset + tf->size;
}

/*
 * The fields of a percpu or vmalloc event.  One without the field it
 * is about (a format of some other kernel) is not typed: its records
 * count as the session's unusable format, never as events of nothing.
 */
static int other_format(struct kmt_tp_format *fmt, struct tep_event *ev,
			struct kmt_session *s)
{
	const struct tep_format_field *tf;
	char why[96], text[160];
	size_t i;
	int j, need;

	for (j = 0; j < KMT_TPF_NR; j++) {
		tf = OTHER_ROLES >> j & 1 ?
		     tep_find_field(ev, field_names[j][0]) : NULL;
		take_field(fmt, j, tf);
	}
	for (i = 0; i < sizeof(other_fields) / sizeof(other_fields[0]); i++) {
		if (other_fields[i].type != fmt->type ||
		    fmt->f[other_fields[i].role].offset >= 0)
			continue;
		tf = tep_find_field(ev, other_fields[i].name);
		if (tf)
			take_field(fmt, other_fields[i].role, tf);
	}
	need = other_needs(fmt->type);
	if (fmt->f[need].offset >= 0 && fmt->f[need].size > 0 &&
	    fmt->f[need].size <= 8 &&
	    (fmt->type != KMT_EV_VMAP_PURGE ||
	     (fmt->f[KMT_TPF_PTR].offset >= 0 && fmt->f[KMT_TPF_PTR].size <= 8)))
		return 0;
	snprintf(why, sizeof(why), "it has no field the event is read by (%s)",
		 need == KMT_TPF_PTR ? "its address" :
		 need == KMT_TPF_END ? "start and end" : "size");
	/* what kmt_session_unusable_format reads of a format: name and id */
	snprintf(text, sizeof(text), "name: %s\nID: %d\n", ev->name, ev->id);
	fmt->type = KMT_EV_NONE;
	return kmt_session_unusable_format(s, s->input ? s->input : "",
					   ev->system, text, strlen(text),
					   why);
}

/* no more formats are added after init, so pointers into by_id stay put */
static int index_formats(struct kmt_tp_decoder *d)
{
	size_t it = 0, max = 0;
	struct kmt_tp_format *val;
	uint64_t id;

	while (kmt_tp_formats_next(&d->by_id, &it, &id, NULL))
		if (id > max)
			max = id;
	if (max >= 65536)
		return 0;	/* odd ids: the hash table serves */
	d->by_index = calloc(max + 1, sizeof(*d->by_index));
	if (!d->by_index)
		return -ENOMEM;
	d->nr_index = max + 1;
	it = 0;
	while (kmt_tp_formats_next(&d->by_id, &it, &id, &val))
		d->by_index[id] = val;
	return 0;
}

int kmt_tp_decoder_init(struct kmt_tp_decoder *d, struct tep_handle *tep,
			struct kmt_session *s)
{
	int i, n = tep_get_events_count(tep);
	int have_gfp = 0;

	memset(d, 0, sizeof(*d));
	d->tep = tep;
	kmt_tp_formats_init(&d->by_id);
	d->common_type.offset = -1;
	d->common_pid.offset = -1;
	/*
	 * Only a fallback for extfrag records libtraceevent cannot print:
	 * the format computes "fragmenting" from config values, so decoding
	 * asks the print format (see extfrag_fragmenting) first.
	 */
	d->pageblock_order = 9;

	for (i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(tep, i);
		struct kmt_tp_format *fmt;
		int j, k;

		if (!ev)
			continue;
		if (d->common_type.offset < 0) {
			set_field(&d->common_type,
				  tep_find_common_field(ev, "common_type"));
			set_field(&d->common_pid,
				  tep_find_common_field(ev, "common_pid"));
		}
		fmt = kmt_tp_formats_put(&d->by_id, (uint32_t)ev->id, NULL);
		if (!fmt)
			return -ENOMEM;
		fmt->event = ev;
		fmt->type = ev->system ?
			    kmt_ev_type_from_system(ev->system,
						    strlen(ev->system),
						    ev->name) : KMT_EV_NONE;
		if (fmt->type != KMT_EV_NONE &&
		    (kmt_ev_is_percpu(fmt->type) ||
		     kmt_ev_is_vmalloc(fmt->type))) {
			int r = other_format(fmt, ev, s);

			if (r < 0)
				return r;
			if (fmt->type != KMT_EV_NONE)
				s->recorded_types |= KMT_EV_BIT(fmt->type);
			continue;
		}
		if (fmt->type != KMT_EV_NONE)
			s->recorded_types |= KMT_EV_BIT(fmt->type);
		for (j = 0; j < KMT_TPF_NR; j++) {
			const struct tep_format_field *tf = NULL;

			for (k = 0; k < 3 && field_names[j][k] && !tf; k++) {
				tf = tep_find_field(ev, field_names[j][k]);
				if (tf && j == KMT_TPF_PFN && k == 1)
					fmt->pfn_is_page = 1;
			}
			set_field(&fmt->f[j], tf);
			if (tf && (size_t)(tf->offset + tf->size) > fmt->min_size)
				fmt->min_size = tf->offset + tf->size;
		}
		/* GFP names from the first format that has them */
		if (!have_gfp && (fmt->type == KMT_EV_KMALLOC ||
				  fmt->type == KMT_EV_PAGE_ALLOC ||
				  fmt->type == KMT_EV_CACHE_ALLOC)) {
			int r = kmt_gfp_from_tep(&s->gfp, ev, "gfp_flags");

			if (r < 0)
				return r;
			have_gfp = r > 0;
		}
	}
	if (d->common_type.offset < 0) {
		d->common_type.offset = 0;
		d->common_type.size = 2;
	}
	for (i = 0; (size_t)i < s->gfp.nr; i++) {
		if (!strcmp(s->gfp.flags[i].name, "__GFP_ACCOUNT"))
			d->gfp_account = s->gfp.flags[i].value;
	}
	s->types_known = 1;
	d->native = tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	return index_formats(d);
}

void kmt_tp_decoder_free(struct kmt_tp_decoder *d)
{
	kmt_tp_formats_free(&d->by_id);
	free(d->by_index);
	d->by_index = NULL;
}

static inline int fits(const struct kmt_tp_field *f, size_t size)
{
	return f->offset >= 0 && (size_t)f->offset + f->size <= size;
}

/*
 * A field's value.  native is the decoder's, passed as a constant where
 * the decoding is inlined (decode_native), so that the byte-order test
 * leaves the per-field path.
 */
static inline __attribute__((always_inline)) uint64_t
rd_as(const struct kmt_tp_decoder *d, const struct kmt_tp_field *f,
      const void *data, int native)
{
	const char *p = (const char *)data + f->offset;

	if (native) {
		uint64_t v8;
		uint32_t v4;
		uint16_t v2;

		switch (f->size) {
		case 8:
			memcpy(&v8, p, 8);
			return v8;
		case 4:
			memcpy(&v4, p, 4);
			return v4;
		case 2:
			memcpy(&v2, p, 2);
			return v2;
		case 1:
			return *(const uint8_t *)p;
		}
	}
	return tep_read_number(d->tep, p, f->size);
}

/* sign-extends a field narrower than 64 bits */
static inline __attribute__((always_inline)) int64_t
rds_as(const struct kmt_tp_decoder *d, const struct kmt_tp_field *f,
       const void *data, int native)
{
	uint64_t v = rd_as(d, f, data, native);

	if (f->size < 8 && f->size > 0) {
		int shift = 64 - 8 * f->size;

		return (int64_t)(v << shift) >> shift;
	}
	return (int64_t)v;
}

/* cache names repeat: look in a small direct-mapped memo first */
static uint32_t intern_name(struct kmt_tp_decoder *d, struct kmt_session *s,
			    const char *name, size_t len)
{
	unsigned int slot = len ? (len * 31 + (unsigned char)name[0] * 7 +
				   (unsigned char)name[len - 1] +
				   (unsigned char)name[len / 2] * 3) & 63 : 0;
	uint32_t id = d->names[slot].id;

	if (id && d->names[slot].len == len &&
	    !memcmp(kmt_strtab_get(&s->strs, id), name, len))
		return id;
	id = kmt_strtab_intern(&s->strs, name, len);
	d->names[slot].id = id;
	d->names[slot].len = (uint32_t)len;
	return id;
}

static inline __attribute__((always_inline)) int
event_id_as(const struct kmt_tp_decoder *d, const void *data, size_t size,
	    int native)
{
	if (!fits(&d->common_type, size))
		return -1;
	return (int)rd_as(d, &d->common_type, data, native);
}

int kmt_tp_event_id(const struct kmt_tp_decoder *d, const void *data,
		    size_t size)
{
	return event_id_as(d, data, size, d->native);
}

/* extfrag's "fragmenting" is computed in the print format; ask it */
static int extfrag_fragmenting(struct kmt_tp_decoder *d, const void *data,
			       size_t size, int fallback)
{
	struct tep_record rec;
	struct trace_seq seq;
	const char *p;
	int v = -1;

	memset(&rec, 0, sizeof(rec));
	rec.data = (void *)data;
	rec.size = (int)size;
	trace_seq_init(&seq);
	tep_print_event(d->tep, &seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	/*
	 * libtraceevent 1.7 evaluates pageblock_order alone correctly but
	 * not "fallback_order < pageblock_order" (on 6.18 it prints
	 * fragmenting=10 for any fallback), so compare here.
	 */
	p = seq.buffer ? strstr(seq.buffer, "pageblock_order=") : NULL;
	if (p && p[16] >= '0' && p[16] <= '9')
		v = fallback < atoi(p + 16);
	trace_seq_destroy(&seq);
	if (v < 0)
		v = fallback < d->pageblock_order;
	return v;
}

/* what the vmalloc events hold beyond the fields every event has */
static __attribute__((noinline)) void
decode_vmalloc(struct kmt_tp_decoder *d, const struct kmt_tp_format *fmt,
	       const void *data, struct kmt_event *ev)
{
	const struct kmt_tp_field *f = fmt->f;

	if (f[KMT_TPF_FAILED].offset >= 0 &&
	    rd_as(d, &f[KMT_TPF_FAILED], data, d->native))
		ev->flags |= KMT_EVF_FAILED;
	if (ev->type == KMT_EV_VMAP_PURGE) {
		uint64_t end = rd_as(d, &f[KMT_TPF_END], data, d->native);

		/* bytes_req holds the areas purged (event.h) */
		ev->bytes_alloc = end > ev->ptr ? end - ev->ptr : 0;
	}
}

/* kmt_tp_decode, inlined twice: with native 1 and native 0 */
static inline __attribute__((always_inline)) int
decode_as(struct kmt_tp_decoder *d, struct kmt_session *s, const void *data,
	  size_t size, struct kmt_event *ev, int native)
{
	const struct kmt_tp_format *fmt;
	const struct kmt_tp_field *f;
	int id = event_id_as(d, data, size, native);

	kmt_event_init(ev);
	if (id < 0)
		return -1;
	if (d->by_index)
		fmt = (size_t)id < d->nr_index ? d->by_index[id] : NULL;
	else
		fmt = kmt_tp_formats_get(&d->by_id, (uint32_t)id);
	if (!fmt)
		return -1;
	if (fits(&d->common_pid, size))
		ev->pid = (int32_t)rds_as(d, &d->common_pid, data, native);
	if (fmt->type == KMT_EV_NONE)
		return 0;
	f = fmt->f;
	/* every field a type needs must be inside the record */
	if (size < fmt->min_size)
		return -1;
	ev->type = (uint16_t)fmt->type;

	if (f[KMT_TPF_CALL_SITE].offset >= 0)
		ev->call_site = rd_as(d, &f[KMT_TPF_CALL_SITE], data,
				      native);
	if (f[KMT_TPF_PTR].offset >= 0)
		ev->ptr = rd_as(d, &f[KMT_TPF_PTR], data, native);
	if (f[KMT_TPF_BYTES_REQ].offset >= 0)
		ev->bytes_req = rd_as(d, &f[KMT_TPF_BYTES_REQ], data,
				      native);
	if (f[KMT_TPF_BYTES_ALLOC].offset >= 0)
		ev->bytes_alloc = rd_as(d, &f[KMT_TPF_BYTES_ALLOC], data,
					native);
	if (f[KMT_TPF_GFP].offset >= 0) {
		ev->gfp = rd_as(d, &f[KMT_TPF_GFP], data, native);
		ev->flags |= KMT_EVF_HAS_GFP;
	}
	if (f[KMT_TPF_NODE].offset >= 0)
		ev->node = (int32_t)rds_as(d, &f[KMT_TPF_NODE], data,
					   native);
	if (f[KMT_TPF_ACCOUNTED].offset >= 0) {
		if (rd_as(d, &f[KMT_TPF_ACCOUNTED], data, native))
			ev->flags |= KMT_EVF_ACCOUNTED;
	} else if (kmt_ev_is_slab(ev->type) && (ev->gfp & d->gfp_account)) {
		/* kmalloc has none: its format prints gfp & __GFP_ACCOUNT */
		ev->flags |= KMT_EVF_ACCOUNTED;
	}
	if (f[KMT_TPF_NAME].offset >= 0) {
		uint32_t loc = (uint32_t)rd_as(d, &f[KMT_TPF_NAME], data,
					       native);
		size_t off = loc & 0xffff, len = loc >> 16;

		if (off + len > size)
			return -1;
		/* the length counts the NUL */
		while (len && ((const char *)data)[off + len - 1] == '\0')
			len--;
		if (!s->no_cache_names)
			ev->cache = intern_name(d, s, (const char *)data + off,
						len);
	}

	if (__builtin_expect(ev->type >= KMT_EV_VMAP_ALLOC, 0)) {
		decode_vmalloc(d, fmt, data, ev);
	} else if (kmt_ev_is_page(ev->type)) {
		if (f[KMT_TPF_PFN].offset >= 0) {
			ev->ptr = rd_as(d, &f[KMT_TPF_PFN], data, native);
			/* a failed allocation: pfn -1 (or a NULL page) */
			if (ev->type == KMT_EV_PAGE_ALLOC &&
			    ((fmt->pfn_is_page && ev->ptr == 0) ||
			     (!fmt->pfn_is_page &&
			      (f[KMT_TPF_PFN].size == 8 ?
			       ev->ptr == UINT64_MAX :
			       ev->ptr == UINT32_MAX))))
				ev->ptr = KMT_PFN_NONE;
		}
		ev->order = 0;
		if (f[KMT_TPF_ORDER].offset >= 0)
			ev->order = (int32_t)rds_as(d, &f[KMT_TPF_ORDER],
						    data, native);
		if (f[KMT_TPF_MIGRATETYPE].offset >= 0)
			ev->migratetype =
				(int32_t)rds_as(d, &f[KMT_TPF_MIGRATETYPE],
						data, native);
		if (f[KMT_TPF_PERCPU_REFILL].offset >= 0) {
			ev->flags |= KMT_EVF_HAS_REFILL;
			if (rd_as(d, &f[KMT_TPF_PERCPU_REFILL], data,
				  native))
				ev->flags |= KMT_EVF_PERCPU_REFILL;
		}
		if (ev->type == KMT_EV_EXTFRAG) {
			if (f[KMT_TPF_FALLBACK_ORDER].offset >= 0)
				ev->fallback_order = (int32_t)rds_as(d,
					&f[KMT_TPF_FALLBACK_ORDER], data,
					native);
			if (f[KMT_TPF_FALLBACK_MT].offset >= 0)
				ev->fallback_migratetype = (int32_t)rds_as(d,
					&f[KMT_TPF_FALLBACK_MT], data,
					native);
			if (f[KMT_TPF_CHANGE_OWNER].offset >= 0 &&
			    rd_as(d, &f[KMT_TPF_CHANGE_OWNER], data,
				  native))
				ev->flags |= KMT_EVF_CHANGE_OWNER;
			ev->flags |= KMT_EVF_HAS_FRAGMENTING;
			if (extfrag_fragmenting(d, data, size,
						ev->fallback_order))
				ev->flags |= KMT_EVF_FRAGMENTING;
		}
	}
	return 1;
}

static int decode_native(struct kmt_tp_decoder *d, struct kmt_session *s,
			 const void *data, size_t size, struct kmt_event *ev)
{
	return decode_as(d, s, data, size, ev, 1);
}

static int decode_foreign(struct kmt_tp_decoder *d, struct kmt_session *s,
			  const void *data, size_t size, struct kmt_event *ev)
{
	return decode_as(d, s, data, size, ev, 0);
}

int kmt_tp_decode(struct kmt_tp_decoder *d, struct kmt_session *s,
		  const void *data, size_t size, struct kmt_event *ev)
{
	return d->native ? decode_native(d, s, data, size, ev) :
			   decode_foreign(d, s, data, size, ev);
}
