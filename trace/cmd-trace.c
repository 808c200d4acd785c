// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-trace.c --- bootpack trace: options, and which source records the
 * trace (the sources are in session.c, sources.c and trace-setup.c; see
 * trace-cli.h)
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "strutils.h"
#include "trace-cli.h"

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack trace -o <file> [--device <dev>] -- <command> [<args>...]\n"
	       " bootpack trace --from-boot -o <file> --device <dev>\n"
	       " bootpack trace --import <text> -o <file> --device <dev> [--dev <maj:min>] [--offset <bytes>]\n"
	       " bootpack trace --from-kernel[=<record>] -o <file> --device <dev> [--dev <maj:min>]\n"
	       " bootpack trace --merge <trace>... -o <file> [--device <dev>]\n"
	       " bootpack trace --setup [--install [--unit-dir <dir>]] [--device <dev>]\n"
	       "\n"
	       "Record which file pages and metadata blocks are read, in first-access order.\n"
	       "\n"
	       "Options:\n"
	       " -o, --output <file>       write the trace here\n"
	       " -d, --device <dev>        the ext2/3/4 filesystem to trace and resolve against\n"
	       "                           (a device, an image, UUID=…, LABEL=… or a mount point)\n"
	       "     --from-boot           read what the kernel traced since power-on\n"
	       "                           (trace_event= on the kernel command line)\n"
	       "     --import <text>       parse a saved text trace (/sys/kernel/tracing/trace)\n"
	       "     --from-kernel[=<rec>] read the record of the kernel/ patch\n"
	       "                           (bootpack.record=1), live or saved to a file\n"
	       "     --dev <maj:min>       the traced block device in an imported trace or record\n"
	       "     --offset <bytes>      with --import: the filesystem starts this far into the\n"
	       "                           --device image (a partition's offset)\n"
	       "     --merge               merge the traces given as arguments\n"
	       "     --setup               print the kernel arguments and systemd units for a\n"
	       "                           boot trace\n"
	       "     --install             with --setup: write the units\n"
	       "     --unit-dir <dir>      where --install writes them [/etc/systemd/system]\n"
	       "     --buffer-size <size>  trace buffer per CPU [32M]\n"
	       "     --save-text <file>    keep a copy of the kernel's text trace\n"
	       BP_USAGE_COMMON("  ")
	       "\n"
	       "For more details see bootpack-trace(8).\n");
}

/* Before any work: not root (for tracing), then the outputs. */
static int prepare(const struct bp_trace_opts *o, int n, char **paths)
{
	int ret;

	if (o->mode == BP_TRACE_COMMAND || o->mode == BP_TRACE_BOOT) {
		ret = bp_trace_require_root(o->mode == BP_TRACE_BOOT ? "--from-boot" :
								  "tracing a command");
		if (ret)
			return ret;
	}
	return bp_trace_check_outputs(o, n, paths);
}

int cmd_trace(int argc, char **argv)
{
	enum {
		OPT_FROM_BOOT = OPT_COMMON_BASE,
		OPT_IMPORT,
		OPT_DEV,
		OPT_MERGE,
		OPT_SETUP,
		OPT_INSTALL,
		OPT_UNIT_DIR,
		OPT_BUFFER,
		OPT_SAVE_TEXT,
		OPT_FROM_KERNEL,
		OPT_OFFSET,
	};
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, 'd' },
		{ "from-boot", no_argument, NULL, OPT_FROM_BOOT },
		{ "import", required_argument, NULL, OPT_IMPORT },
		{ "dev", required_argument, NULL, OPT_DEV },
		{ "merge", no_argument, NULL, OPT_MERGE },
		{ "setup", no_argument, NULL, OPT_SETUP },
		{ "install", no_argument, NULL, OPT_INSTALL },
		{ "unit-dir", required_argument, NULL, OPT_UNIT_DIR },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER },
		{ "save-text", required_argument, NULL, OPT_SAVE_TEXT },
		{ "from-kernel", optional_argument, NULL, OPT_FROM_KERNEL },
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "help", no_argument, NULL, 'h' },
		BP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct bp_trace_opts o = { .mode = BP_TRACE_COMMAND, .buffer_kb = BP_TRACE_DEFAULT_BUFFER_KB };
	int c, nmodes = 0;
	uint64_t v;

	/* "--" ends our options: what follows is the command and its own options. */
	while ((c = getopt_long(argc, argv, "o:d:h" BP_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'd':
			o.device = optarg;
			break;
		case OPT_FROM_BOOT:
			o.mode = BP_TRACE_BOOT;
			nmodes++;
			break;
		case OPT_IMPORT:
			o.mode = BP_TRACE_IMPORT;
			o.import = optarg;
			nmodes++;
			break;
		case OPT_FROM_KERNEL:
			o.mode = BP_TRACE_KERNEL;
			o.record = optarg;
			nmodes++;
			break;
		case OPT_DEV:
			o.dev = optarg;
			break;
		case OPT_MERGE:
			o.mode = BP_TRACE_MERGE;
			nmodes++;
			break;
		case OPT_SETUP:
			o.mode = BP_TRACE_SETUP;
			nmodes++;
			break;
		case OPT_INSTALL:
			o.install = 1;
			break;
		case OPT_UNIT_DIR:
			o.unit_dir = optarg;
			break;
		case OPT_BUFFER:
			if (bp_parse_size(optarg, &v) < 0 || v < 4096 || v > (4ULL << 30)) {
				bp_log_error("trace: --buffer-size '%s': expected a size from 4K to "
					     "4G, e.g. 64M", optarg);
				return bp_errtryhelp("trace");
			}
			o.buffer_kb = (unsigned int)(v / 1024);
			break;
		case OPT_SAVE_TEXT:
			o.save_text = optarg;
			break;
		case OPT_OFFSET:
			if (bp_parse_u64(optarg, &v) < 0 || v % 512) {
				bp_log_error("trace: --offset '%s': expected bytes, a multiple of 512",
					     optarg);
				return bp_errtryhelp("trace");
			}
			o.offset = v;
			break;
		BP_CLI_COMMON_CASES(c, usage, "trace");
		}
	}
	argc -= optind;
	argv += optind;
	if (nmodes > 1) {
		bp_log_error("trace: --from-boot, --from-kernel, --import, --merge and --setup "
			     "exclude each other");
		return bp_errtryhelp("trace");
	}
	if ((o.install || o.unit_dir) && o.mode != BP_TRACE_SETUP) {
		bp_log_error("trace: --install and --unit-dir go with --setup");
		return bp_errtryhelp("trace");
	}
	if (o.dev && o.mode != BP_TRACE_IMPORT && o.mode != BP_TRACE_KERNEL) {
		bp_log_error("trace: --dev goes with --import and --from-kernel");
		return bp_errtryhelp("trace");
	}
	if (o.offset && o.mode != BP_TRACE_IMPORT) {
		bp_log_error("trace: --offset goes with --import");
		return bp_errtryhelp("trace");
	}
	if (o.mode == BP_TRACE_SETUP) {
		if (argc) {
			bp_log_error("trace: --setup takes no arguments");
			return bp_errtryhelp("trace");
		}
		return bp_trace_setup(o.device, o.buffer_kb, o.install, o.unit_dir);
	}
	if (!o.output) {
		bp_log_error("trace: no output file: use -o FILE");
		return bp_errtryhelp("trace");
	}
	switch (o.mode) {
	case BP_TRACE_COMMAND:
		if (!argc) {
			bp_log_error("trace: no command to trace: bootpack trace -o FILE -- COMMAND");
			return bp_errtryhelp("trace");
		}
		c = prepare(&o, 0, NULL);
		return c ? c : bp_trace_command(&o, argv);
	case BP_TRACE_MERGE:
		if (argc < 1) {
			bp_log_error("trace: --merge needs the traces to merge");
			return bp_errtryhelp("trace");
		}
		c = prepare(&o, argc, argv);
		return c ? c : bp_trace_merge_files(&o, argc, argv);
	default:
		break;
	}
	if (argc) {
		bp_log_error("trace: unexpected argument '%s'", argv[0]);
		return bp_errtryhelp("trace");
	}
	if (!o.device) {
		bp_log_error("trace: --device is required with --from-boot, --from-kernel and "
			     "--import");
		return bp_errtryhelp("trace");
	}
	c = prepare(&o, 0, NULL);
	if (c)
		return c;
	if (o.mode == BP_TRACE_KERNEL)
		return bp_trace_from_kernel(&o);
	return o.mode == BP_TRACE_BOOT ? bp_trace_from_boot(&o) : bp_trace_from_text(&o);
}
