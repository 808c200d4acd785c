// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verbs.c --- the table of bootpack's commands
 */
#include <string.h>

#include "cli.h"

const struct bp_verb bp_verbs[] = {
	{ "trace", cmd_trace, "record which file pages and metadata a boot or a command reads" },
	{ "relayout", cmd_relayout, "move the traced blocks into one contiguous region (offline)" },
	{ "pack", cmd_pack, "write the readahead pack for bootpack-read" },
	{ "dump", cmd_dump, "show a trace or a pack" },
	{ "verify", cmd_verify, "check how contiguous a trace or pack is on a filesystem" },
	{ "bench", cmd_bench, "model and measure boot I/O before and after" },
	{ "probe", cmd_probe, "measure a disk read-only and name the nearest disk model" },
	{ "setup", cmd_setup, "set up the boot loop once: trace, relayout at boot, read" },
	{ "image", cmd_image, "lay out a disk image offline: relayout, pack and reader inside" },
	{ "status", cmd_status, "show the boot loop: next boot, pack age, hit rate, staleness" },
	{ NULL, NULL, NULL },
};

const struct bp_verb *bp_verb_find(const char *name)
{
	const struct bp_verb *v;

	for (v = bp_verbs; v->name; v++)
		if (strcmp(v->name, name) == 0)
			return v;
	return NULL;
}
