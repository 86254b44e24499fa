/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_FMTCHECK_H
#define KMT_EVENT_FMTCHECK_H

#include <stddef.h>

/*
 * What an event format from a recording must be before libtraceevent
 * 1.7.1 parses it (tep_parse_event), which trusts it: it dereferences
 * NULL for __print_flags or __print_symbolic of a field the event does
 * not have, and divides by zero folding a constant division, or printing
 * one by a field that is 0.  So every REC->field of the print format
 * must be one of the event's fields, and every divisor (/ and %) a
 * constant other than 0.  The kernel writes nothing else.
 *
 * Returns 0, or -1 with *why set to a phrase for a message ("its print
 * format divides by a field").
 */
int kmt_format_check(const char *text, size_t len, const char **why);

/*
 * The event's name as its format gives it ("name: kmalloc"), printable,
 * in buf; "?" where it has none.
 */
void kmt_format_name(const char *text, size_t len, char *buf, size_t size);

/*
 * The same for printk formats ("ADDR : \"FORMAT\"" a line), which
 * libtraceevent reads past its buffer when a line has no ':' or a
 * format shorter than two characters.  *line is the bad line's number.
 */
int kmt_printk_check(const char *text, size_t len, unsigned long *line,
		     const char **why);

#endif
