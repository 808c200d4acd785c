/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-trace.h --- what the files of the trace verb share
 */
#ifndef BP_CMD_TRACE_H
#define BP_CMD_TRACE_H

#include <stddef.h>

/* The device node of MAJ:MIN (/dev/block/…, else /dev/ + sysfs DEVNAME). */
void bp_trace_devnode(unsigned int ma, unsigned int mi, char *buf, size_t len);
/* 0 if root, else prints why WHAT needs root and returns BP_EX_REFUSED. */
int bp_trace_require_root(const char *what);
/* --setup [--install]: kernel arguments and the boot-trace units. */
int bp_trace_setup(const char *device, unsigned int buffer_kb, int install,
		   const char *unit_dir);

#endif /* BP_CMD_TRACE_H */
