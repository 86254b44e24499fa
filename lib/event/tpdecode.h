/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_TPDECODE_H
#define KMT_EVENT_TPDECODE_H

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"
#include "util/hash.h"

struct tep_handle;
struct kmt_session;

/*
 * Binary tracepoint records (perf.data raw samples, trace.dat records) to
 * kmt_event.  Fields are found by name in the recording's own formats,
 * never at assumed offsets, so any kernel's layout decodes.  The table of
 * tracepoint names is in event.c; this is the per-recording half.
 */
struct kmt_tp_field {
	int16_t offset;		/* -1: the event has no such field */
	int16_t size;
};

enum kmt_tp_field_id {
	KMT_TPF_CALL_SITE,
	KMT_TPF_PTR,
	KMT_TPF_PFN,		/* pfn, or page (a struct page *) on old kernels */
	KMT_TPF_BYTES_REQ,
	KMT_TPF_BYTES_ALLOC,
	KMT_TPF_GFP,
	KMT_TPF_ORDER,		/* order, or alloc_order for extfrag */
	KMT_TPF_MIGRATETYPE,	/* migratetype, or alloc_migratetype */
	KMT_TPF_NODE,
	KMT_TPF_NAME,		/* __data_loc char[] cache name */
	KMT_TPF_ACCOUNTED,
	KMT_TPF_PERCPU_REFILL,
	KMT_TPF_FALLBACK_ORDER,
	KMT_TPF_FALLBACK_MT,
	KMT_TPF_CHANGE_OWNER,
	KMT_TPF_FAILED,		/* vmalloc: alloc_vmap_area's failed */
	KMT_TPF_END,		/* vmalloc: purge_vmap_area_lazy's end */
	KMT_TPF_NR
};

struct kmt_tp_format {
	unsigned int type;	/* enum kmt_ev_type; NONE for others' events */
	int pfn_is_page;	/* the old "page" pointer field, not a pfn */
	struct tep_event *event;
	size_t min_size;	/* the record must reach past every field */
	struct kmt_tp_field f[KMT_TPF_NR];
};

KMT_HASH_TYPE(kmt_tp_formats, struct kmt_tp_format)

struct kmt_tp_decoder {
	struct tep_handle *tep;
	struct kmt_tp_formats by_id;	/* event id -> format */
	struct kmt_tp_field common_type;
	struct kmt_tp_field common_pid;
	int pageblock_order;	/* for "fragmenting" when the format hides it */
	/* __GFP_ACCOUNT, for slab formats that print "accounted" from gfp */
	uint64_t gfp_account;
	/*
	 * The hot path: formats by id in an array (ids are small), field
	 * reads without libtraceevent when the file has this machine's byte
	 * order, and recently seen cache names, so that a record costs a few
	 * loads rather than a hash lookup per field.
	 */
	struct kmt_tp_format **by_index;
	size_t nr_index;
	int native;
	struct {
		uint32_t id;	/* strtab id of the name, 0 empty */
		uint32_t len;
	} names[64];
};

/*
 * Prepares decoding for every event tep knows; also loads the session's
 * GFP names from the recording's print formats.  Returns 0 or -errno.
 */
int kmt_tp_decoder_init(struct kmt_tp_decoder *d, struct tep_handle *tep,
			struct kmt_session *s);
void kmt_tp_decoder_free(struct kmt_tp_decoder *d);

/*
 * Fills ev (type, pid and fields; the caller sets ts and cpu) from one
 * raw record.  Returns 1 for an event of ours (kmem, percpu, vmalloc), 0
 * for any other event (ev->type is KMT_EV_NONE), -1 for a record too short for its
 * format or with an unknown id.
 */
int kmt_tp_decode(struct kmt_tp_decoder *d, struct kmt_session *s,
		  const void *data, size_t size, struct kmt_event *ev);

/* the id of the event in data (common_type), -1 if too short */
int kmt_tp_event_id(const struct kmt_tp_decoder *d, const void *data,
		    size_t size);

#endif
