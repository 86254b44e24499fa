/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_DURATION_H
#define KMT_UTIL_DURATION_H

#include <stddef.h>
#include <stdint.h>

/*
 * Times and durations as people give and read them.
 *
 * The one grammar of durations every command takes: a number with a
 * unit, ns, us, ms, s, m or h ("500ms", "1.5s", "2m"); a bare number is
 * seconds.  To the nanosecond, without floating point, so "0.1" is
 * exactly 100000000.  0, or -1 when arg is none.
 */
int kmt_parse_duration(const char *arg, uint64_t *ns);

/*
 * The first len bytes of s as seconds, "12.5", digits and at most one
 * point, to nanoseconds: what --time's sides are.  0, or -1.
 */
int kmt_parse_seconds(const char *s, size_t len, uint64_t *ns);

/*
 * ns since the epoch as UTC to the microsecond: ISO 8601
 * ("2026-11-28T05:12:33.123456Z") with iso, else for people
 * ("2026-11-28 05:12:33.123456 UTC").  Returns buf ("?" when the time
 * cannot be shown).
 */
const char *kmt_utc_text(uint64_t unix_ns, int iso, char *buf, size_t len);

/*
 * ns in that grammar, in the largest unit that holds it whole ("50ms",
 * "1500ms", "2s", "90s", "1h"), so that it reads back as ns exactly:
 * for messages that name a bound.  Returns buf.
 */
const char *kmt_duration_text(uint64_t ns, char *buf, size_t size);

#endif
