// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootpack-read-opts.c --- bootpack-read's settings: options, bootpack.conf, kernel command line
 *
 * As a service the options are read with getopt_long(); as PID 1 only the
 * long options, up to the first other word, which goes to init with all
 * that follow. A bad value stops the service (exit 2) and is ignored as
 * PID 1: init must still run. The options that are settings of
 * bootpack.conf too are parsed by bp_reader_conf_set() (reader-cmdline.c),
 * the one parser of those settings and their limits.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bootpack-read.h"
#include "c.h"
#include "exitcodes.h"

enum {
	OPT_MAX_FDS = 256,
	OPT_METHOD,
	OPT_IOPRIO,
	OPT_LOG,
	OPT_AS_INIT,
	OPT_NO_META,
	OPT_CONFIG,
	OPT_BUDGET,
	OPT_HEAD_START,
	OPT_BACKGROUND,
	OPT_META_GAP,
	OPT_IN_FLIGHT,
	OPT_MAX_REQUEST,
	OPT_PROBE,
};

static const struct option longopts[] = {
	{ "pack", required_argument, NULL, 'p' },
	{ "init", required_argument, NULL, 'i' },
	{ "root", required_argument, NULL, 'r' },
	{ "max-ms", required_argument, NULL, 't' },
	{ "budget", required_argument, NULL, OPT_BUDGET },
	{ "head-start-ms", required_argument, NULL, OPT_HEAD_START },
	{ "background", no_argument, NULL, OPT_BACKGROUND },
	{ "max-fds", required_argument, NULL, OPT_MAX_FDS },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "ioprio", required_argument, NULL, OPT_IOPRIO },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "no-exec", no_argument, NULL, 'n' },
	{ "as-init", no_argument, NULL, OPT_AS_INIT },
	{ "no-meta", no_argument, NULL, OPT_NO_META },
	{ "meta-gap", required_argument, NULL, OPT_META_GAP },
	{ "in-flight", required_argument, NULL, OPT_IN_FLIGHT },
	{ "max-request", required_argument, NULL, OPT_MAX_REQUEST },
	{ "probe-file", required_argument, NULL, OPT_PROBE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	dprintf(STDOUT_FILENO,
		"Usage:\n"
		" %1$s [options]                  as init= (PID 1): exec init, read in a child\n"
		" %1$s --no-exec [options]        read in the foreground (service, initramfs)\n"
		"\n"
		"Read the boot readahead pack: its metadata through the block device, then\n"
		"its file ranges, so the boot finds them in the page cache.\n"
		"\n"
		"Options:\n"
		" -p, --pack <file>         the pack [" BP_PACK_DEFAULT_PATH "]\n"
		" -r, --root <dir>          where the packed filesystem is mounted [/]\n"
		" -i, --init <path>         init to exec as PID 1 [" BP_READER_DEFAULT_INIT "]\n"
		" -n, --no-exec             do not exec init; read and exit (implied unless PID 1)\n"
		" -t, --max-ms <ms>         stop issuing reads after this long [none; %2$u as init]\n"
		"     --budget <size>       read at most this much (the pack's own budget is the\n"
		"                           most; both scaled down to half of MemAvailable)\n"
		"     --max-fds <n>         files open at once at most [%3$u]\n"
		"     --method <how>        uring, pread, readahead or fadvise [uring]\n"
		"     --head-start-ms <ms>  as PID 1 and with --background: wait this long at\n"
		"                           most for the reader's stream before exec'ing init\n"
		"                           or returning, or auto (%5$u) [auto; at most %4$u]\n"
		"     --background          with --no-exec: read in a child, return once its\n"
		"                           stream is under way or the head start is over\n"
		"                           (initramfs hooks)\n"
		"     --ioprio <class>      auto, be, idle or keep [auto: best-effort 7 unless\n"
		"                           a class is already set]; never real-time\n"
		"     --log <where>         kmsg, stderr or auto [auto: kmsg as PID 1 or when\n"
		"                           stderr is not a terminal]\n"
		"     --config <file>       settings file [" BP_READER_CONF "]; \"none\" for none\n"
		"     --no-meta             do not read the metadata ranges\n"
		"     --meta-gap <size>     read through gaps up to this between metadata\n"
		"                           ranges [auto: 256 KiB on a rotating disk, else 0]\n"
		"     --in-flight <size>    file reads queued or in flight at most [%6$u MiB]\n"
		"     --max-request <size>  bytes of one file read request at most [the disk's\n"
		"                           queue limits, %7$u KiB at most]\n"
		"     --probe-file <file>   max_request and in_flight measured by 'bootpack setup'\n"
		"                           [" BP_READER_PROBE "]; \"none\" for none\n"
		"     --as-init             behave as PID 1 even if not (PID namespace tests)\n"
		" -h, --help                display this help\n"
		" -V, --version             display version\n"
		"\n"
		"Kernel command line: bootpack=off disables it, bootpack.init=<path> names init,\n"
		"bootpack.meta_gap=<size>, bootpack.head_start_ms=<ms> and bootpack.in_flight=<size>\n"
		"set the options of those names.\n"
		"Exit status (--no-exec): 0 read, 1 failure, 2 usage, 3 no pack or a stale or\n"
		"corrupt one, 4 pack refused (unsafe owner or mode, not a regular file).\n"
		"\n"
		"For more details see bootpack-read(8) and bootpack.conf(5).\n",
		BP_READER_PROG, BP_READER_MAX_MS_INIT, BP_READER_MAX_FDS, BP_READER_MAX_HEAD_START,
		BP_READER_HEAD_START_MS, BP_READER_IN_FLIGHT >> 20, BP_READER_REQUEST >> 10);
}

static void usage_error(const char *what, const char *arg)
{
	dprintf(STDERR_FILENO, "%s: %s '%s'\nTry '%s --help' for more information.\n",
		BP_READER_PROG, what, arg, BP_READER_PROG);
}

/* Options that are settings of bootpack.conf too: parsed by bp_reader_conf_set(), as there. */
static const struct {
	int opt;
	const char *key;
} conf_opts[] = {
	{ 't', "max_ms" },
	{ OPT_BUDGET, "budget" },
	{ OPT_HEAD_START, "head_start_ms" },
	{ OPT_MAX_FDS, "max_fds" },
	{ OPT_METHOD, "method" },
	{ OPT_IOPRIO, "ioprio" },
	{ OPT_LOG, "log" },
	{ OPT_META_GAP, "meta_gap" },
	{ OPT_IN_FLIGHT, "in_flight" },
	{ OPT_MAX_REQUEST, "max_request" },
};

/* The settings c holds and over does not (over may be NULL) into s. */
static void take(struct bp_read_settings *s, const struct bp_reader_conf *c,
		 const struct bp_reader_conf *over)
{
	const struct bp_reader_conf none = { .log = -1, .method = -1, .ioprio = -1 };

	if (!over)
		over = &none;
	if (c->has_max_ms && !over->has_max_ms)
		s->o.max_ms = c->max_ms;
	if (c->has_budget && !over->has_budget)
		s->o.budget = c->budget;
	if (c->has_head_start && !over->has_head_start)
		s->head_start_ms = c->head_start_ms;
	if (c->has_max_fds && !over->has_max_fds)
		s->o.max_fds = c->max_fds;
	if (c->method >= 0 && over->method < 0)
		s->o.method = c->method;
	if (c->ioprio >= 0 && over->ioprio < 0)
		s->o.ioprio = c->ioprio;
	if (c->log >= 0 && over->log < 0)
		s->o.log = c->log;
	if (c->has_meta_gap && !over->has_meta_gap)
		s->o.meta_gap = c->meta_gap;
	if (c->has_in_flight && !over->has_in_flight)
		s->o.in_flight = c->in_flight;
	if (c->has_max_request && !over->has_max_request)
		s->o.max_request = c->max_request;
}

/* One option; 0, or -EINVAL (bad value). */
static int set_opt(struct bp_read_settings *s, int c, const char *arg)
{
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(conf_opts); i++) {
		if (conf_opts[i].opt != c)
			continue;
		r = bp_reader_conf_set(&s->cl, conf_opts[i].key, arg);
		if (!r)
			take(s, &s->cl, NULL);
		return r;
	}
	switch (c) {
	case 'p':
		s->o.pack = arg;
		s->cl_pack = 1;
		return 0;
	case 'i':
		if (arg[0] != '/')
			return -EINVAL;
		s->o.init = arg;
		s->cl_init = 1;
		return 0;
	case 'r':
		s->o.root = arg;
		return 0;
	case OPT_BACKGROUND:
		s->background = 1;
		return 0;
	case OPT_CONFIG:
		s->config = arg;
		return 0;
	case 'n':
		s->no_exec = 1;
		return 0;
	case OPT_AS_INIT:
		s->as_init = 1;
		return 0;
	case OPT_NO_META:
		s->o.no_meta = 1;
		return 0;
	case OPT_PROBE:
		s->probe = arg;
		return 0;
	}
	return -EINVAL;
}

/*
 * The probe file of 'bootpack setup' fills what the command line and the
 * configuration file left unset (called after them).
 */
static void apply_probe(struct bp_read_settings *s, const struct bp_reader_conf *conf)
{
	struct bp_reader_conf pr;

	if (!s->probe || strcmp(s->probe, "none") == 0)
		return;
	bp_reader_conf_init(&pr);
	if (bp_reader_load_probe(s->probe, &pr))
		return;	/* none, or unreadable: the defaults */
	if (pr.has_max_request && !s->cl.has_max_request && !conf->has_max_request)
		s->o.max_request = pr.max_request;
	if (pr.has_in_flight && !s->cl.has_in_flight && !conf->has_in_flight)
		s->o.in_flight = pr.in_flight;
}

/* The configuration file fills what the command line left unset, then the probe file. */
void bp_read_apply_conf(struct bp_read_settings *s)
{
	struct bp_reader_conf conf;

	s->conf_rc = 0;
	bp_reader_conf_init(&conf);
	if (!s->config || strcmp(s->config, "none") == 0) {
		apply_probe(s, &conf);
		return;
	}
	s->conf_rc = bp_reader_load_conf(s->config, &conf, &s->conf_bad_line);
	if (s->conf_rc == -ENOENT)
		s->conf_rc = 0;
	if (conf.pack[0] && !s->cl_pack) {
		memcpy(s->conf_pack, conf.pack, sizeof(s->conf_pack));
		s->o.pack = s->conf_pack;
	}
	if (conf.init[0] && !s->cl_init) {
		memcpy(s->conf_init, conf.init, sizeof(s->conf_init));
		s->o.init = s->conf_init;
	}
	take(s, &conf, &s->cl);
	apply_probe(s, &conf);
}

/* The kernel command line wins over the configuration file, not over options. */
void bp_read_apply_cmdline(struct bp_read_settings *s, const struct bp_reader_cmdline *cl)
{
	if (cl->has_meta_gap && !s->cl.has_meta_gap)
		s->o.meta_gap = cl->meta_gap;
	if (cl->has_head_start && !s->cl.has_head_start)
		s->head_start_ms = cl->head_start_ms;
	if (cl->has_in_flight && !s->cl.has_in_flight)
		s->o.in_flight = cl->in_flight;
}

void bp_read_defaults(struct bp_read_settings *s)
{
	memset(s, 0, sizeof(*s));
	bp_reader_conf_init(&s->cl);
	s->o.pack = BP_PACK_DEFAULT_PATH;
	s->o.root = "/";
	s->o.init = BP_READER_DEFAULT_INIT;
	s->o.max_fds = BP_READER_MAX_FDS;
	s->o.method = BP_READ_URING;
	s->o.ioprio = BP_IOPRIO_AUTO;
	s->o.log = BP_LOGT_AUTO;
	s->o.meta_gap = BP_READER_META_GAP_AUTO;
	s->head_start_ms = BP_READER_HEAD_START_AUTO;	/* as PID 1 and --background */
	s->config = BP_READER_CONF;
	s->probe = BP_READER_PROBE;
}

/*
 * Options are taken only as "--name=value" or "--name value" of the long
 * options above; the first other word (or "--") ends them, and it and all
 * that follow go to init unchanged (the kernel passes init its own words,
 * e.g. "single").
 */
int bp_read_parse_init_args(struct bp_read_settings *s, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const struct option *lo;
		size_t nlen;

		if (strcmp(a, "--") == 0)
			return i + 1;
		if (strncmp(a, "--", 2) != 0)
			return i;
		nlen = strcspn(a + 2, "=");
		for (lo = longopts; lo->name; lo++)
			if (strlen(lo->name) == nlen && strncmp(lo->name, a + 2, nlen) == 0)
				break;
		if (!lo->name || lo->val == 'h' || lo->val == 'V')
			return i;
		if (lo->has_arg == required_argument) {
			if (a[2 + nlen] == '=')
				val = a + 3 + nlen;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return i;
		}
		if (set_opt(s, lo->val, val) < 0)
			continue;	/* a bad value is ignored: init must still run */
	}
	return i;
}

/* The service's command line: -1 to go on, else the exit status. */
int bp_read_parse_args(struct bp_read_settings *s, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "p:i:r:t:nhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage();
			return BP_EX_OK;
		case 'V':
			dprintf(STDOUT_FILENO, "%s from bootpack %s\n", BP_READER_PROG, PACKAGE_VERSION);
			return BP_EX_OK;
		case '?':
			dprintf(STDERR_FILENO, "Try '%s --help' for more information.\n",
				BP_READER_PROG);
			return BP_EX_USAGE;
		default:
			if (set_opt(s, c, optarg) < 0) {
				usage_error("bad value", optarg);
				return BP_EX_USAGE;
			}
		}
	}
	if (optind < argc) {
		usage_error("unexpected argument", argv[optind]);
		return BP_EX_USAGE;
	}
	return -1;
}
