/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli.h --- what the verbs of the bootpack command share
 */
#ifndef BP_CLI_H
#define BP_CLI_H

#include <stdio.h>

#include "bperr.h"
#include "c.h"
#include "exitcodes.h"

struct bp_verb {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the verb name */
	const char *summary;
};

/* The verb table, NULL-terminated. */
extern const struct bp_verb bp_verbs[];
const struct bp_verb *bp_verb_find(const char *name);

/* "Try 'bootpack VERB --help' for more information." and BP_EX_USAGE. */
int bp_errtryhelp(const char *verb);

/* Prints "bootpack: <msg>" for err and returns the exit code it maps to. */
int bp_fail(const struct bp_err *err);

/* The exit code for an engine's error: refusals → 4, others → 1. */
int bp_exit_code(errcode_t code);

/* Long options shared by every verb, above CHAR_MAX. */
enum {
	OPT_COMMON_BASE = 0x100,
};

/*
 * -q, -v and -V, which every verb takes as well as bootpack itself: append
 * BP_COMMON_SHORTOPTS to a verb's getopt string and BP_COMMON_LONGOPTS to its
 * option table, list them in its usage, and hand them to bp_cli_common_opt().
 */
#define BP_COMMON_SHORTOPTS "qvV"
#define BP_COMMON_LONGOPTS                                   \
	{ "quiet", no_argument, NULL, 'q' },                 \
	{ "verbose", no_argument, NULL, 'v' },               \
	{ "version", no_argument, NULL, 'V' }

/*
 * Their lines in a verb's usage(), inside its printf string; pad: spaces
 * added after the 24 columns of the option names ("" or "  ").
 */
#define BP_USAGE_COMMON(pad)								\
	" -h, --help              " pad "display this help\n"			\
	" -q, --quiet             " pad "print errors only\n"			\
	" -v, --verbose           " pad "say more (repeat for debugging output)\n"	\
	" -V, --version           " pad "display version\n"

/* Sets the level for -q/-v; prints the version for -V and returns 1 (then exit 0). */
int bp_cli_common_opt(int c);

/*
 * The arms every verb's getopt switch ends with, in one place: -q, -v, -V
 * (bp_cli_common_opt()), -h (the verb's own usage(), exit 0) and an
 * unknown option (a hint, exit 2). c: the option character; verb: its name.
 */
#define BP_CLI_COMMON_CASES(c, usage, verb)	\
	case 'q':				\
	case 'v':				\
	case 'V':				\
		if (bp_cli_common_opt(c))	\
			return BP_EX_OK;	\
		break;				\
	case 'h':				\
		usage();			\
		return BP_EX_OK;		\
	default:				\
		return bp_errtryhelp(verb)

struct bp_dev;
struct bp_trace;

/*
 * Resolve and probe a device spec; it must hold ext2/3/4. Returns 0, or
 * prints why not, frees dev and returns the exit code.
 */
int bp_cli_open_dev(const char *spec, struct bp_dev *dev);

/* Load a trace: 0, or prints why not and returns BP_EX_STALE (unreadable, corrupt) or 1. */
int bp_cli_load_trace(const char *path, struct bp_trace **ret);

/*
 * A version 1 trace (tracefile.h) converted against the filesystem on
 * devpath (bp_trace_upgrade(), in memory; said with -vv): 0, or prints why
 * not and returns 1. Not ext2/3/4 or another filesystem: left as it is
 * (the verb refuses it).
 */
int bp_cli_upgrade_trace(struct bp_trace *t, const char *trace_path, const char *devpath);

/* What every verb taking a device and a trace does first, in this order:
 * bp_cli_open_dev(), bp_cli_load_trace(), bp_cli_upgrade_trace(); on
 * failure nothing is held. */
int bp_cli_open_dev_trace(const char *spec, const char *trace_path, struct bp_dev *dev,
			  struct bp_trace **ret);

int cmd_trace(int argc, char **argv);
int cmd_relayout(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_status(int argc, char **argv);

#endif /* BP_CLI_H */
