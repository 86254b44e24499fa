// SPDX-License-Identifier: GPL-2.0
/* PLACEHOLDER: being written */
#include <stdio.h>
#include "builtin.h"
int cmd_report(int argc, char **argv)
{
	(void)argc; (void)argv;
	return 1;
}
