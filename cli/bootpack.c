// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootpack.c --- the bootpack command: global options and verb dispatch
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2_err.h>

#include "bp_et.h"
#include "cli.h"
#include "log.h"

static void usage(void)
{
	const struct bp_verb *v;

	printf("Usage:\n"
	       " bootpack [options] <command> [<args>]\n"
	       "\n"
	       "Record what a boot reads, lay it out contiguously on an unmounted ext3/ext4\n"
	       "filesystem, and stream it back early in the next boot.\n"
	       "\n"
	       "Commands:\n");
	for (v = bp_verbs; v->name; v++)
		printf(" %-10s %s\n", v->name, v->summary);
	printf(" %-10s %s\n", "help", "show the help of a command");
	printf("\n"
	       "Options:\n"
	       " -v, --verbose      say more (repeat for debugging output)\n"
	       " -q, --quiet        print errors only\n"
	       " -h, --help         display this help\n"
	       " -V, --version      display version\n"
	       "\n"
	       "Every command also takes -q, -v and -V.\n"
	       "Run 'bootpack help <command>' for the options of a command.\n"
	       "For more details see bootpack(8).\n");
	exit(BP_EX_OK);
}

int bp_errtryhelp(const char *verb)
{
	if (verb)
		fprintf(stderr, "Try 'bootpack %s --help' for more information.\n", verb);
	else
		fprintf(stderr, "Try 'bootpack --help' for more information.\n");
	return BP_EX_USAGE;
}

/* The one mapping of error codes to exit codes (include/exitcodes.h). */
static const struct {
	errcode_t code;
	int exit;
} exit_codes[] = {
	{ 0, BP_EX_OK },
	{ BP_ET_NOT_EXT, BP_EX_REFUSED },
	{ BP_ET_NO_FS, BP_EX_REFUSED },
	{ BP_ET_AMBIVALENT, BP_EX_REFUSED },
	{ BP_ET_MOUNTED, BP_EX_REFUSED },
	{ BP_ET_BUSY, BP_EX_REFUSED },
	{ BP_ET_NOT_CLEAN, BP_EX_REFUSED },
	{ BP_ET_UNSUPPORTED, BP_EX_REFUSED },
	{ BP_ET_TRACE_MISMATCH, BP_EX_REFUSED },
	{ BP_ET_TRACE_CORRUPT, BP_EX_STALE },
	{ BP_ET_PATH_CONFLICT, BP_EX_USAGE },
	{ BP_ET_NOT_BUILT, BP_EX_NOTBUILT },
	{ BP_ET_CANCELED, BP_EX_CANCELED },
	{ BP_ET_NO_BOOT, BP_EX_NOBOOT },
	{ BP_ET_FS_TOO_BIG, BP_EX_REFUSED },
};

int bp_exit_code(errcode_t code)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(exit_codes); i++)
		if (exit_codes[i].code == code)
			return exit_codes[i].exit;
	return BP_EX_FAILURE;
}

int bp_fail(const struct bp_err *err)
{
	bp_log_error("%s", bp_err_str(err));
	return bp_exit_code(err->code);
}

int bp_cli_common_opt(int c)
{
	switch (c) {
	case 'q':
		bp_log_set_level(BP_LOG_ERR);
		return 0;
	case 'v':
		bp_log_set_level(bp_log_level() + 1);
		return 0;
	case 'V':
		printf("bootpack %s\n", PACKAGE_VERSION);
		return 1;
	}
	return 0;
}

/* The verb's name for getopt's own messages and ours: "bootpack VERB: ..." */
static char *verb_argv0(const struct bp_verb *v)
{
	static char name[64];

	snprintf(name, sizeof(name), "bootpack %s", v->name);
	bp_log_set_verb(v->name);
	return name;
}

static int cmd_help(int argc, char **argv)
{
	const struct bp_verb *v;
	char *args[] = { NULL, (char *)"--help", NULL };

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		usage();
	v = bp_verb_find(argv[1]);
	if (!v) {
		bp_log_error("unknown command '%s'", argv[1]);
		return bp_errtryhelp(NULL);
	}
	args[0] = verb_argv0(v);
	optind = 0;
	return v->fn(2, args);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct bp_verb *v;
	int level = BP_LOG_WARN;
	int c;

	bp_log_init("bootpack");
	add_error_table(&et_bp_error_table);
	/* libext2fs's own codes ("Attempt to read block from filesystem resulted in short read") */
	initialize_ext2_error_table();

	while ((c = getopt_long(argc, argv, "+vqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			level++;
			break;
		case 'q':
			level = BP_LOG_ERR;
			break;
		case 'h':
			usage();
			break;
		case 'V':
			printf("bootpack %s\n", PACKAGE_VERSION);
			return BP_EX_OK;
		default:
			return bp_errtryhelp(NULL);
		}
	}
	bp_log_set_level(level);

	if (optind >= argc) {
		bp_log_error("no command given");
		return bp_errtryhelp(NULL);
	}
	if (strcmp(argv[optind], "help") == 0)
		return cmd_help(argc - optind, argv + optind);

	v = bp_verb_find(argv[optind]);
	if (!v) {
		bp_log_error("unknown command '%s'", argv[optind]);
		return bp_errtryhelp(NULL);
	}
	/* "bootpack VERB -V" for every verb, also one that does not parse -V itself. */
	if (argc - optind == 2 && (strcmp(argv[optind + 1], "-V") == 0 ||
				   strcmp(argv[optind + 1], "--version") == 0)) {
		bp_cli_common_opt('V');
		return BP_EX_OK;
	}
	/* Each verb parses its own options; optind = 0 resets glibc's getopt. */
	argc -= optind;
	argv += optind;
	argv[0] = verb_argv0(v);
	optind = 0;
	return v->fn(argc, argv);
}
