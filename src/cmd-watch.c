// SPDX-License-Identifier: GPL-2.0
#include "builtin.h"
int cmd_watch(int argc, char **argv) { (void)argc; (void)argv; return 2; }
