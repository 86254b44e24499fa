// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "report/profile.h"

const char *const kmt_profile_values[KMT_PROFILE_NR_VALUES][2] = {
	{ "alloc_objects", "count" },
	{ "alloc_space", "bytes" },
	{ "inuse_objects", "count" },
	{ "inuse_space", "bytes" },
};

int kmt_profile_value(const char *name)
{
	int i;

	for (i = 0; i < KMT_PROFILE_NR_VALUES; i++) {
		if (!strcmp(kmt_profile_values[i][0], name))
			return i;
	}
	return -1;
}
