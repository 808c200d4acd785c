// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-relayout.c --- bootpack relayout: command line and policy
 *
 * The engine is not built yet; the command already resolves and probes the
 * device the way the real one will, so the preflight can be tested.
 */
#include <getopt.h>
#include <stdio.h>

#include "bp_et.h"
#include "cli.h"
#include "devspec.h"
#include "log.h"

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack relayout [options] --trace <trace> <device>\n"
	       "\n"
	       "Move the blocks a boot reads into one contiguous region, in first-access\n"
	       "order, on an unmounted ext3/ext4 filesystem.\n"
	       "\n"
	       "<device> is a block device, an image file, UUID=<uuid> or LABEL=<label>.\n"
	       "\n"
	       "Options:\n"
	       " -t, --trace <file>      the trace to lay out\n"
	       " -n, --dry-run           open read-only and print the plan\n"
	       " -z, --undo <file>       write an e2undo file (default under " BP_STATEDIR ")\n"
	       "     --no-undo           do not write an undo file\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "For more details see bootpack-relayout(8).\n");
}

int cmd_relayout(int argc, char **argv)
{
	enum { OPT_NO_UNDO = OPT_COMMON_BASE };
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "undo", required_argument, NULL, 'z' },
		{ "no-undo", no_argument, NULL, OPT_NO_UNDO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bp_err err = { 0 };
	struct bp_dev dev;
	errcode_t rc;
	int c;

	while ((c = getopt_long(argc, argv, "t:nz:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
		case 'n':
		case 'z':
		case OPT_NO_UNDO:
			break;
		case 'h':
			usage();
			return BP_EX_OK;
		default:
			return bp_errtryhelp("relayout");
		}
	}
	if (optind != argc - 1) {
		bp_log_error("relayout: exactly one device expected");
		return bp_errtryhelp("relayout");
	}

	rc = bp_dev_resolve(argv[optind], &dev, &err);
	if (!rc)
		rc = bp_dev_require_ext(&dev, &err);
	if (rc) {
		bp_dev_free(&dev);
		return bp_fail(&err);
	}
	bp_log_info("%s resolves to %s (%s, UUID %s)", dev.spec, dev.path, dev.type,
		    dev.uuid ? dev.uuid : "none");
	bp_log_error("relayout: %s is an %s filesystem, but the relayout engine is not built "
		     "in this version yet", dev.path, dev.type);
	bp_dev_free(&dev);
	return BP_EX_NOTBUILT;
}
