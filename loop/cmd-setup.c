// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-setup.c --- bootpack setup: set the boot loop up once, or undo it
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "loop.h"
#include "pack-budget.h"
#include "probe.h"
#include "strutils.h"

#define SETUP_PROBE_SECONDS 3.0

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack setup [options]\n"
	       " bootpack setup --undo [--root <dir>]\n"
	       "\n"
	       "Check this system and set up the boot loop: the next boot is traced, the\n"
	       "boot after it relays the root filesystem out in the initramfs, and the\n"
	       "boots after that are read by bootpack-read in the initramfs. Package\n"
	       "changes and a falling hit rate schedule a new trace.\n"
	       "\n"
	       "Options:\n"
	       " -r, --root <dir>         act on the system mounted at dir (an image, a chroot)\n"
	       " -d, --device <dev>       the root filesystem (default: the one holding dir)\n"
	       " -n, --dry-run            check and say what would happen, write nothing\n"
	       "     --region-size <size> expected size of the boot set (default 160M)\n"
	       "     --buffer-size <size> trace buffer per CPU for the traced boot (default 32M)\n"
	       "     --memory <size>      memory of the machine that boots (default: this one's;\n"
	       "                          with --root, unknown: the undo file is not checked)\n"
	       "     --reader <where>     where bootpack-read runs on the read boots: initramfs\n"
	       "                          (before switch_root) or service (bootpack-read.service)\n"
	       "                          [initramfs]\n"
	       "     --probe <when>       measure the root's disk for bootpack-read: auto (when\n"
	       "                          the root is this system's /), always, never [auto]\n"
	       " -u, --undo               remove everything setup installed\n"
	       "     --event <name>       a step of the loop, run by its units and hooks:\n"
	       "                          traced, boot, packages, read-start\n"
	       " -h, --help               display this help\n"
	       "\n"
	       "For more details see bootpack-setup(8).\n");
}

static void say_line(const char *line)
{
	printf("  %s\n", line);
}

static void say_plan(const struct bp_setup_opts *o, const struct bp_setup_check *c)
{
	char args[1024];

	bp_setup_trace_args(o->buffer_kb, c->events, args, sizeof(args));
	printf("Root filesystem: %s (%s, UUID=%s), %llu MiB free (%llu MiB needed)\n",
	       c->devpath, c->fstype, c->uuid, (unsigned long long)(c->free_bytes >> 20),
	       (unsigned long long)(c->need_bytes >> 20));
	printf("Tracing: %s\n", c->kernel);
	if (!(c->events & ~1U))
		printf("  (page-cache insertions only: what readahead read and nobody used is in\n"
		       "  the trace too; Linux 6.12 and later have the page-access events)\n");
	printf("Initramfs: %s\n", c->initramfs_tools ? "initramfs-tools (local-premount script)" :
	       "dracut (pre-mount hook)");
	printf("Reader: %s (%s)\n", c->reader == BP_READER_AT_INITRAMFS ?
	       "in the initramfs, before switch_root" : BP_SETUP_READER_UNIT, c->reader_why);
	if (c->mem_bytes)
		printf("Memory: %llu MiB; the undo file of boot 2 (about %llu MiB%s) is kept in a "
		       "tmpfs of %llu MiB until the root is up\n",
		       (unsigned long long)(c->mem_bytes >> 20),
		       (unsigned long long)(c->undo_bytes >> 20),
		       c->evicts ? ", with eviction" : "", (unsigned long long)(c->mem_bytes >> 21));
	else
		printf("Memory: unknown (give --memory): the undo file of boot 2 (about %llu MiB) "
		       "must fit in half of it\n", (unsigned long long)(c->undo_bytes >> 20));
	printf("\n%s:\n", o->dry_run ? "Would happen" : "What happens next");
	printf("  next boot (1): traced with the kernel arguments\n    %s\n"
	       "    %s; 45 s after the boot reached default.target the trace is saved\n"
	       "    to %s/trace and the relayout is scheduled.\n", args,
	       c->grub ? "(added through " "/etc/default/grub.d/bootpack.cfg and update-grub)" :
	       "(no GRUB found: add them to the boot loader's command line yourself; they\n"
	       "    are also in " BP_STATEDIR "/cmdline)", BP_STATEDIR);
	printf("  boot 2: before the root is mounted, the initramfs checks it (e2fsck -n)\n"
	       "    and relays it out (progress on the console, time limit 10 min); the undo\n"
	       "    file goes to /run, then to %s/relayout-root.e2undo. Anything\n"
	       "    unexpected skips the relayout and the boot goes on.\n"
	       "  boot 3 and on: bootpack-read streams the pack (%s); 'bootpack status'\n"
	       "    shows its age and hit rate.\n", BP_STATEDIR,
	       c->reader == BP_READER_AT_INITRAMFS ? "from the initramfs" : BP_SETUP_READER_UNIT);
	if (c->mem_bytes)
		printf("  the pack: what the boot reads, at most a quarter of the memory (%llu MiB)\n"
		       "    and what the disk streams in the boot's time (its probed rate, else\n"
		       "    25 MB/s); see HOW MUCH THE PACK READS in bootpack-setup(8).\n",
		       (unsigned long long)(c->mem_bytes / BP_BUDGET_MEM_DIV >> 20));
	else
		printf("  the pack: what the boot reads, at most a quarter of the memory and what\n"
		       "    the disk streams in the boot's time (its probed rate, else 25 MB/s);\n"
		       "    see HOW MUCH THE PACK READS in bootpack-setup(8).\n");
}

/* o->probe: bootpack probe of the root's device, a few seconds, as key=value lines. */
static int probe_root(const char *devpath, char *text, size_t len, char *why, size_t whylen)
{
	struct bp_probe_opts po = { .seconds = SETUP_PROBE_SECONDS, .mounted_ok = 1 };
	struct bp_err err = { 0 };
	struct bp_probe *p = malloc(sizeof(*p));
	int rc = -1;

	if (!p) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	printf("  probing %s for %.0f s (read-only)\n", devpath, SETUP_PROBE_SECONDS);
	fflush(stdout);
	if (bp_probe_run(devpath, &po, p, &err)) {
		snprintf(why, whylen, "%s", bp_err_str(&err));
	} else if (p->partial) {
		char what[256];

		/* A disk that stalls: no half-measured figures for the reader. */
		bp_probe_unmeasured_str(p, what, sizeof(what));
		snprintf(why, whylen, "the probe's deadline of %.0f s came before it measured "
			 "%s%s: a slow or stalling disk", p->deadline_s, what,
			 p->abandoned ? "; a read under way was abandoned" : "");
	} else if (bp_probe_format_kv(p, text, len))
		snprintf(why, whylen, "its record is too long");
	else
		rc = 0;
	free(p);
	return rc;
}

static int is_slash(const char *root)
{
	char real[PATH_MAX];

	return realpath(root, real) && strcmp(real, "/") == 0;
}

static int parse_event(const char *s, enum bp_event *ev)
{
	if (!strcmp(s, "traced"))
		*ev = BP_EVENT_TRACED;
	else if (!strcmp(s, "boot"))
		*ev = BP_EVENT_BOOT;
	else if (!strcmp(s, "packages"))
		*ev = BP_EVENT_PACKAGES;
	else if (!strcmp(s, "read-start"))
		*ev = BP_EVENT_READ_START;
	else
		return -1;
	return 0;
}

int cmd_setup(int argc, char **argv)
{
	enum { OPT_REGION = OPT_COMMON_BASE, OPT_BUFFER, OPT_EVENT, OPT_MEMORY, OPT_PROBE,
	       OPT_READER };
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "device", required_argument, NULL, 'd' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "region-size", required_argument, NULL, OPT_REGION },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER },
		{ "memory", required_argument, NULL, OPT_MEMORY },
		{ "undo", no_argument, NULL, 'u' },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "probe", required_argument, NULL, OPT_PROBE },
		{ "reader", required_argument, NULL, OPT_READER },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bp_setup_opts o = {
		.root = "/",
		.region_bytes = BP_SETUP_REGION_DEFAULT,
		.buffer_kb = BP_SETUP_BUFFER_KB_DEFAULT,
		.reader = BP_READER_AT_INITRAMFS,
		.say = say_line,
	};
	struct bp_setup_check c;
	struct bp_err err = { 0 };
	const char *event = NULL, *probe = "auto";
	enum bp_event ev = BP_EVENT_BOOT;
	int undo = 0, ch;
	uint64_t v;

	while ((ch = getopt_long(argc, argv, "r:d:nuh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			o.root = optarg;
			break;
		case 'd':
			o.device = optarg;
			break;
		case 'n':
			o.dry_run = 1;
			break;
		case OPT_REGION:
			if (bp_parse_size(optarg, &v) || v < (1 << 20)) {
				bp_log_error("setup: --region-size: '%s' is not a size of 1M or more",
					     optarg);
				return bp_errtryhelp("setup");
			}
			o.region_bytes = v;
			break;
		case OPT_BUFFER:
			if (bp_parse_size(optarg, &v) || v < 1024 || v > (4ULL << 30)) {
				bp_log_error("setup: --buffer-size: '%s' is not a size from 1K to 4G",
					     optarg);
				return bp_errtryhelp("setup");
			}
			o.buffer_kb = (unsigned int)(v / 1024);
			break;
		case OPT_MEMORY:
			if (bp_parse_size(optarg, &v) || v < (16 << 20)) {
				bp_log_error("setup: --memory: '%s' is not a size of 16M or more",
					     optarg);
				return bp_errtryhelp("setup");
			}
			o.mem_bytes = v;
			break;
		case 'u':
			undo = 1;
			break;
		case OPT_PROBE:
			probe = optarg;
			if (strcmp(probe, "auto") && strcmp(probe, "always") && strcmp(probe, "never")) {
				bp_log_error("setup: --probe: '%s' is not auto, always or never",
					     optarg);
				return bp_errtryhelp("setup");
			}
			break;
		case OPT_READER:
			if (!strcmp(optarg, "initramfs")) {
				o.reader = BP_READER_AT_INITRAMFS;
			} else if (!strcmp(optarg, "service")) {
				o.reader = BP_READER_AT_SERVICE;
			} else {
				bp_log_error("setup: --reader: '%s' is not initramfs or service",
					     optarg);
				return bp_errtryhelp("setup");
			}
			break;
		case OPT_EVENT:
			event = optarg;
			if (parse_event(optarg, &ev)) {
				bp_log_error("setup: --event: '%s' is not traced, boot, packages or "
					     "read-start",
					     optarg);
				return bp_errtryhelp("setup");
			}
			break;
		case 'h':
			usage();
			return BP_EX_OK;
		default:
			return bp_errtryhelp("setup");
		}
	}
	if (optind != argc) {
		bp_log_error("setup: unexpected argument '%s'", argv[optind]);
		return bp_errtryhelp("setup");
	}
	if (undo + !!event + o.dry_run > 1) {
		bp_log_error("setup: --undo, --event and --dry-run exclude each other");
		return bp_errtryhelp("setup");
	}
	if (access(o.root, F_OK) != 0) {
		bp_log_error("setup: %s: no such directory", o.root);
		return BP_EX_USAGE;
	}
	if (!o.dry_run && geteuid() != 0) {
		bp_log_error("setup: must run as root (it writes units and boot settings under %s)",
			     o.root);
		return BP_EX_FAILURE;
	}
	if (event) {
		o.say = NULL;
		if (bp_loop_event(&o, ev, &err))
			return bp_fail(&err);
		return BP_EX_OK;
	}
	if (undo) {
		printf("Removing the boot loop of bootpack from %s:\n", o.root);
		if (bp_setup_undo(&o, &err))
			return bp_fail(&err);
		return BP_EX_OK;
	}
	if (o.dry_run) {
		if (bp_setup_check(&o, &c, &err))
			return bp_fail(&err);
		say_plan(&o, &c);
		return BP_EX_OK;
	}
	/* a tree (an image for another machine): its disk is not the one measured here */
	if (!strcmp(probe, "always") || (!strcmp(probe, "auto") && is_slash(o.root)))
		o.probe = probe_root;
	printf("Setting up the boot loop of bootpack in %s:\n", o.root);
	if (bp_setup_install(&o, &c, &err))
		return bp_fail(&err);
	printf("\n");
	say_plan(&o, &c);
	return BP_EX_OK;
}
