// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/duration.h"

/* more seconds than this overflow nanoseconds in 64 bits */
#define MAX_SECONDS 18000000000ULL

int kmt_parse_seconds(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0;
	int digits = 0, fd = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		sec = sec * 10 + (uint64_t)(s[i] - '0');
		if (sec > MAX_SECONDS)
			return -1;
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
			if (fd < 9) {
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				fd++;
			}
		}
	}
	if (i != len || !digits)
		return -1;
	while (fd++ < 9)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

int kmt_parse_duration(const char *arg, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t div, mul;
	} units[] = {
		{ "ns", 1000000000, 1 }, { "us", 1000000, 1 },
		{ "ms", 1000, 1 }, { "s", 1, 1 }, { "m", 1, 60 },
		{ "h", 1, 3600 }, { "", 1, 1 },
	};
	size_t len = strlen(arg), num = 0, i;
	uint64_t v;

	while (num < len && ((arg[num] >= '0' && arg[num] <= '9') ||
			     arg[num] == '.'))
		num++;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(arg + num, units[i].unit))
			continue;
		if (kmt_parse_seconds(arg, num, &v))
			return -1;
		if (v > UINT64_MAX / units[i].mul)
			return -1;
		*ns = v / units[i].div * units[i].mul;
		return 0;
	}
	return -1;
}

const char *kmt_utc_text(uint64_t unix_ns, int iso, char *buf, size_t len)
{
	time_t sec = (time_t)(unix_ns / 1000000000u);
	struct tm tm;

	if (!gmtime_r(&sec, &tm)) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(buf, len, "%04d-%02d-%02d%c%02d:%02d:%02d.%06u%s",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, iso ? 'T' : ' ',
		 tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned int)(unix_ns / 1000 % 1000000), iso ? "Z" : " UTC");
	return buf;
}

const char *kmt_duration_text(uint64_t ns, char *buf, size_t size)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {
		{ "h", 3600000000000ULL }, { "m", 60000000000ULL },
		{ "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL },
		{ "ns", 1ULL },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]) - 1; i++) {
		if (ns && ns % units[i].ns == 0)
			break;
	}
	snprintf(buf, size, "%" PRIu64 "%s", ns / units[i].ns, units[i].unit);
	return buf;
}
