// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootpack-read.c --- stream the readahead pack at boot: as init= (PID 1) or as a service
 *
 * As PID 1 (init=/usr/sbin/bootpack-read, or --as-init in a PID namespace)
 * it reads the kernel command line, forks, and the parent execs the real
 * init at once; the child reads the pack. Whatever goes wrong (no pack, a
 * corrupt one, no memory, fork failure) init is exec'd without delay. As a
 * service (--no-exec, or whenever it is not PID 1) it reads in the
 * foreground and exits with a documented status. See bootpack-read(8).
 *
 * Links libc, zlib and libbppack.a only; logs with write(2), never stdio.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "exitcodes.h"
#include "reader.h"
#include "strutils.h"

extern char **environ;

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
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct settings {
	struct bp_reader_opts o;
	const char *config;
	int no_exec, as_init, background;
	uint64_t head_start_ms;
	/* set on the command line: wins over the configuration file */
	int cl_pack, cl_init, cl_max_ms, cl_budget, cl_max_fds, cl_method, cl_ioprio, cl_log;
	int cl_head_start, cl_meta_gap;
	char conf_pack[256], conf_init[256];
	unsigned int conf_bad_line;
	int conf_rc;
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
		"     --head-start-ms <ms>  as PID 1: wait this long at most for the reader\n"
		"                           before exec'ing init [%5$u; at most %4$u]\n"
		"     --background          with --no-exec: return once the pack and the root\n"
		"                           are open, read in a child (initramfs hooks)\n"
		"     --ioprio <class>      auto, be, idle or keep [auto: best-effort 7 unless\n"
		"                           a class is already set]; never real-time\n"
		"     --log <where>         kmsg, stderr or auto [auto: kmsg as PID 1 or when\n"
		"                           stderr is not a terminal]\n"
		"     --config <file>       settings file [" BP_READER_CONF "]; \"none\" for none\n"
		"     --no-meta             do not read the metadata ranges\n"
		"     --meta-gap <size>     read through gaps up to this between metadata\n"
		"                           ranges [auto: 256 KiB on a rotating disk, else 0]\n"
		"     --as-init             behave as PID 1 even if not (PID namespace tests)\n"
		" -h, --help                display this help\n"
		" -V, --version             display version\n"
		"\n"
		"Kernel command line: bootpack=off disables it, bootpack.init=<path> names init,\n"
		"bootpack.meta_gap=<size> sets --meta-gap.\n"
		"Exit status (--no-exec): 0 read, 1 failure, 2 usage, 3 no pack or a stale or\n"
		"corrupt one, 4 pack refused (unsafe owner or mode, not a regular file).\n"
		"\n"
		"For more details see bootpack-read(8) and bootpack.conf(5).\n",
		BP_READER_PROG, BP_READER_MAX_MS_INIT, BP_READER_MAX_FDS, BP_READER_MAX_HEAD_START,
		BP_READER_HEAD_START_INIT);
}

static void usage_error(const char *what, const char *arg)
{
	dprintf(STDERR_FILENO, "%s: %s '%s'\nTry '%s --help' for more information.\n",
		BP_READER_PROG, what, arg, BP_READER_PROG);
}

/* One option; 0, or -EINVAL (bad value) with the offending text in *bad. */
static int set_opt(struct settings *s, int c, const char *arg)
{
	uint64_t v;
	int r;

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
	case 't':
		if (bp_parse_u64(arg, &v) || v > 86400000)
			return -EINVAL;
		s->o.max_ms = v;
		s->cl_max_ms = 1;
		return 0;
	case OPT_BUDGET:
		if (bp_parse_size(arg, &v))
			return -EINVAL;
		s->o.budget = v;
		s->cl_budget = 1;
		return 0;
	case OPT_HEAD_START:
		if (bp_parse_u64(arg, &v) || v > BP_READER_MAX_HEAD_START)
			return -EINVAL;
		s->head_start_ms = v;
		s->cl_head_start = 1;
		return 0;
	case OPT_BACKGROUND:
		s->background = 1;
		return 0;
	case OPT_MAX_FDS:
		if (bp_parse_u64(arg, &v) || v < 1 || v > 65536)
			return -EINVAL;
		s->o.max_fds = (unsigned int)v;
		s->cl_max_fds = 1;
		return 0;
	case OPT_METHOD:
		if ((r = bp_reader_parse_method(arg)) < 0)
			return r;
		s->o.method = r;
		s->cl_method = 1;
		return 0;
	case OPT_IOPRIO:
		if ((r = bp_reader_parse_ioprio(arg)) < 0)
			return r;
		s->o.ioprio = r;
		s->cl_ioprio = 1;
		return 0;
	case OPT_LOG:
		if ((r = bp_reader_parse_log(arg)) < 0)
			return r;
		s->o.log = r;
		s->cl_log = 1;
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
	case OPT_META_GAP:
		if (bp_reader_parse_gap(arg, &v))
			return -EINVAL;
		s->o.meta_gap = v;
		s->cl_meta_gap = 1;
		return 0;
	}
	return -EINVAL;
}

/* The configuration file fills what the command line left unset. */
static void apply_conf(struct settings *s)
{
	struct bp_reader_conf conf;

	s->conf_rc = 0;
	if (!s->config || strcmp(s->config, "none") == 0)
		return;
	bp_reader_conf_init(&conf);
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
	if (conf.has_max_ms && !s->cl_max_ms)
		s->o.max_ms = conf.max_ms;
	if (conf.has_budget && !s->cl_budget)
		s->o.budget = conf.budget;
	if (conf.has_head_start && !s->cl_head_start)
		s->head_start_ms = conf.head_start_ms;
	if (conf.has_max_fds && !s->cl_max_fds)
		s->o.max_fds = conf.max_fds;
	if (conf.method >= 0 && !s->cl_method)
		s->o.method = conf.method;
	if (conf.ioprio >= 0 && !s->cl_ioprio)
		s->o.ioprio = conf.ioprio;
	if (conf.log >= 0 && !s->cl_log)
		s->o.log = conf.log;
	if (conf.has_meta_gap && !s->cl_meta_gap)
		s->o.meta_gap = conf.meta_gap;
}

/* The kernel command line wins over the configuration file, not over options. */
static void apply_cmdline(struct settings *s, const struct bp_reader_cmdline *cl)
{
	if (cl->has_meta_gap && !s->cl_meta_gap)
		s->o.meta_gap = cl->meta_gap;
}

static void defaults(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->o.pack = BP_PACK_DEFAULT_PATH;
	s->o.root = "/";
	s->o.init = BP_READER_DEFAULT_INIT;
	s->o.max_fds = BP_READER_MAX_FDS;
	s->o.method = BP_READ_URING;
	s->o.ioprio = BP_IOPRIO_AUTO;
	s->o.log = BP_LOGT_AUTO;
	s->o.meta_gap = BP_READER_META_GAP_AUTO;
	s->config = BP_READER_CONF;
}

static char *argv0;

/*
 * --background: called once the pack, the root and the device are open.
 * The caller (an initramfs hook) gets exit status 0 at once; the child
 * reads on through the descriptors it holds, so that moving the root's
 * mount (switch_root) does not matter. argv[0] starts with '@': systemd
 * leaves such processes running when it switches root or shuts down.
 */
static void go_background(void)
{
	pid_t pid = fork();

	if (pid > 0)
		_exit(BP_EX_OK);
	if (pid < 0) {
		bp_rlog(BP_RLOG_WARNING, "fork: %s; reading in the foreground", strerror(errno));
		return;
	}
	setsid();
	if (argv0 && argv0[0])
		argv0[0] = '@';
}

/* Load, read, log one summary. Returns an exit status (exitcodes.h). */
static int do_read(struct settings *s)
{
	char refetch[96] = "";
	struct bp_reader_stats st;
	struct bp_pack *p = NULL;
	const char *why = NULL;
	int rc;

	if (s->conf_rc)
		bp_rlog(BP_RLOG_WARNING, "%s: line %u: bad setting, ignored (see bootpack.conf(5))",
			s->config, s->conf_bad_line);
	rc = bp_pack_load_file(s->o.pack, s->o.load_flags, &p, &why);
	if (rc) {
		bp_rlog(rc == -ENOENT ? BP_RLOG_INFO : BP_RLOG_ERR, "%s: %s%s%s", s->o.pack,
			why ? why : bp_pack_strerror(rc),
			rc == -ENOENT ? " (nothing to read; create it with 'bootpack pack')" :
			rc == -EPERM ? " (fix: chown root:root and chmod go-w the pack)" :
			(rc == -EBADMSG || rc == -EOPNOTSUPP || rc == -E2BIG) ?
				" (pack refused; write a new one with 'bootpack pack')" : "",
			"");
		switch (rc) {
		case -ENOENT:
		case -EBADMSG:
		case -EOPNOTSUPP:
		case -E2BIG:
			return BP_EX_STALE;
		case -EPERM:
		case -EINVAL:
		case -ELOOP:
			return BP_EX_REFUSED;
		default:
			return BP_EX_FAILURE;
		}
	}
	if (bp_reader_set_ioprio(s->o.ioprio) < 0)
		bp_rlog(BP_RLOG_WARNING, "cannot set the I/O priority: %s", strerror(errno));
	if (s->background)
		s->o.ready = go_background;
	rc = bp_reader_run(p, &s->o, &st, &why);
	bp_pack_free(p);
	if (rc) {
		if (rc == -ESTALE) {
			bp_rlog(BP_RLOG_ERR, "%s: %s; write a new one with 'bootpack pack'", s->o.pack,
				why);
			return BP_EX_STALE;
		}
		bp_rlog(BP_RLOG_ERR, "%s: %s: %s", s->o.root, why, strerror(-rc));
		return BP_EX_FAILURE;
	}
	if (st.refetched)
		snprintf(refetch, sizeof(refetch), ", %llu bytes not resident after the pass, read again",
			 (unsigned long long)st.refetched);
	if (st.uring_errno)
		bp_rlog(BP_RLOG_WARNING, "io_uring unavailable (%s): read with pread instead",
			strerror(st.uring_errno));
	if (st.meta_skipped)
		bp_rlog(BP_RLOG_WARNING, "metadata ranges not read: %s", st.why_meta);
	else if (st.meta_dev[0])
		bp_rlog(BP_RLOG_INFO, "metadata ranges read through %s", st.meta_dev);
	if (!st.meta_skipped && st.meta_dev[0])
		bp_rlog(BP_RLOG_INFO, "metadata gaps up to %llu KiB read through (%s): %llu bytes",
			(unsigned long long)(st.meta_gap >> 10),
			st.meta_gap_how == BP_GAP_ROTATING ? "auto, rotating disk" :
			st.meta_gap_how == BP_GAP_NOT_ROTATING ? "auto, not rotating" :
			st.meta_gap_how == BP_GAP_UNKNOWN ? "auto, rotation unknown" : "set",
			(unsigned long long)st.meta_gap_bytes);
	bp_rlog(BP_RLOG_INFO,
		"%llu bytes (%llu metadata), %llu files, %llu skipped (%llu stale, %llu unsafe, "
		"%llu missing), %llu cut, %llu errors, %llu ms%s%s",
		(unsigned long long)st.bytes, (unsigned long long)st.meta_bytes,
		(unsigned long long)st.files, (unsigned long long)st.skipped,
		(unsigned long long)st.stale, (unsigned long long)st.unsafe,
		(unsigned long long)st.missing, (unsigned long long)st.cut,
		(unsigned long long)st.errors, (unsigned long long)st.elapsed_ms,
		st.timed_out ? " (stopped at --max-ms)" : "", refetch);
	return BP_EX_OK;
}

/* ---- PID 1 ------------------------------------------------------------- */

/* Exec init, then the kernel's own fallbacks; never returns unless all fail. */
static void exec_init(const char *init, int argc, char **argv)
{
	static const char *const fallback[] = { "/sbin/init", "/etc/init", "/bin/init", "/bin/sh" };
	char *nargv[256];
	const char *tried = init;
	size_t i, n = 1;

	for (i = 0; i < (size_t)argc && n < sizeof(nargv) / sizeof(nargv[0]) - 1; i++)
		nargv[n++] = argv[i];
	nargv[n] = NULL;
	nargv[0] = (char *)init;
	execve(init, nargv, environ);
	bp_rlog(BP_RLOG_ERR, "cannot exec %s: %s; trying the default inits", init, strerror(errno));
	for (i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++) {
		if (strcmp(fallback[i], tried) == 0)
			continue;
		nargv[0] = (char *)fallback[i];
		execve(fallback[i], nargv, environ);
	}
	bp_rlog(BP_RLOG_ERR, "no working init found");
}

/*
 * /proc is mounted unless it is the root's own directory: stat(2) reads
 * its inode only, where a lookup in it (of "self") would read its
 * directory block from the disk the reader is about to read in order.
 */
static void ensure_proc(void)
{
	struct stat root, proc;

	if (stat("/", &root) == 0 && stat("/proc", &proc) == 0 && root.st_dev != proc.st_dev)
		return;
	mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

static void child_setup(enum bp_log_target log)
{
	int fd;

	/* No /dev/kmsg (no devtmpfs): a private node of our own. */
	if (log == BP_LOGT_KMSG && !bp_rlog_has_kmsg()) {
		fd = bp_reader_private_node(S_IFCHR, makedev(1, 11), O_WRONLY);
		if (fd >= 0)
			bp_rlog_use_kmsg_fd(fd);
	}
	setsid();
	/*
	 * The CPU priority stays init's. io_uring completes a buffered read
	 * in the submitter's context (task work): a reader at nice 10 that
	 * a CPU-bound boot keeps off the CPU stops feeding the disk. On the
	 * real-boot bench (hdd-5k160) the pack took 6.3-8.2 s at nice 10,
	 * 4.7 s at nice 0 and at nice -5 (doc/architecture.md).
	 */
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1000", 4) < 0) {
			/* best effort */
		}
		close(fd);
	}
}

/*
 * Options are taken only as "--name=value" or "--name value" of the long
 * options above; the first other word (or "--") ends them, and it and all
 * that follow go to init unchanged (the kernel passes init its own words,
 * e.g. "single").
 */
static int parse_init_args(struct settings *s, int argc, char **argv)
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

/*
 * Wait until the reader is done or ms have passed, whichever comes first:
 * a hard deadline on the monotonic clock, no I/O of our own, so a slow or
 * stuck disk never holds init longer than ms.
 */
static void head_start(int fd, uint64_t ms)
{
	uint64_t t0 = bp_reader_now_ms(), now;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while ((now = bp_reader_now_ms()) - t0 < ms) {
		int r = poll(&p, 1, (int)(ms - (now - t0)));

		if (r > 0 || (r < 0 && errno != EINTR))
			break;
	}
}

static int init_main(int argc, char **argv)
{
	struct bp_reader_cmdline cl;
	struct settings s;
	const char *init;
	int first, rc;
	pid_t pid;

	defaults(&s);
	s.o.max_ms = BP_READER_MAX_MS_INIT;
	/*
	 * Init waits up to 500 ms for the reader: long enough for its start-up
	 * lookups and the metadata pass on a 2008 disk, so systemd's first
	 * lookups find them cached and do not seek across the reader's stream
	 * (real-boot bench, hdd-5k160: 61 seeks instead of 68; bench/boot/README.md).
	 */
	s.head_start_ms = BP_READER_HEAD_START_INIT;
	first = parse_init_args(&s, argc, argv);
	if (s.o.log == BP_LOGT_AUTO)
		s.o.log = BP_LOGT_KMSG;
	ensure_proc();
	bp_reader_read_cmdline(&cl);	/* unreadable: defaults */
	apply_conf(&s);
	apply_cmdline(&s, &cl);
	s.o.as_init = 1;
	if (s.o.log == BP_LOGT_AUTO)
		s.o.log = BP_LOGT_KMSG;
	init = cl.init[0] ? cl.init : s.o.init;
	/* a bare /dev: log to the console init was given, look nothing up */
	if (s.o.log == BP_LOGT_KMSG && bp_reader_dev_is_bare())
		bp_rlog_open_fd2();
	else
		bp_rlog_open(s.o.log);

	if (cl.off) {
		bp_rlog(BP_RLOG_INFO, "bootpack=off: not reading");
	} else if (s.no_exec) {
		/* --no-exec as PID 1 makes no sense: still never keep init from running */
		bp_rlog(BP_RLOG_WARNING, "--no-exec ignored as PID 1");
	}
	if (!cl.off) {
		int done[2] = { -1, -1 };

		/* --head-start-ms: the child holds the write end until it is done */
		if (s.head_start_ms && pipe2(done, O_CLOEXEC) < 0)
			done[0] = done[1] = -1;
		pid = fork();
		if (pid == 0) {
			if (done[0] >= 0)
				close(done[0]);
			child_setup(s.o.log);
			rc = do_read(&s);
			bp_rlog_close();
			_exit(rc);
		}
		if (pid < 0)
			bp_rlog(BP_RLOG_ERR, "fork: %s; starting %s without reading", strerror(errno),
				init);
		if (done[1] >= 0)
			close(done[1]);
		if (pid > 0 && done[0] >= 0)
			head_start(done[0], s.head_start_ms);
		if (done[0] >= 0)
			close(done[0]);
	}
	exec_init(init, argc - first, argv + first);
	_exit(127);
}

/* ---- service ------------------------------------------------------------- */

/* The linker's bounds of this program's own image (GNU ld, gold, lld). */
extern char __executable_start[], _end[];

/*
 * The program's own pages, in one request: left to page faults, its image
 * (~950 KiB static) came in as 8 reads of 64-128 KiB in the order the code
 * ran, each a half turn of a 5400 rpm disk. relayout puts the image at the
 * head of the region (--first), so this reads on in one stream. The
 * anonymous parts of the range are skipped by the kernel; errors do not
 * matter (it is a hint).
 */
static void prefetch_self(void)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)__executable_start & ~(pg - 1);

	if (pg && (uintptr_t)_end > a)
		madvise((void *)a, (uintptr_t)_end - a, MADV_WILLNEED);
}

int main(int argc, char **argv)
{
	struct bp_reader_cmdline cl;
	struct settings s;
	int c, i, rc;

	prefetch_self();

	/* As PID 1 init always runs, whatever the options say. */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--as-init") == 0)
			break;
	if (getpid() == 1 || (i < argc && strcmp(argv[i], "--as-init") == 0))
		return init_main(argc, argv);

	argv0 = argv[0];
	defaults(&s);
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
			if (set_opt(&s, c, optarg) < 0) {
				usage_error("bad value", optarg);
				return BP_EX_USAGE;
			}
		}
	}
	if (optind < argc) {
		usage_error("unexpected argument", argv[optind]);
		return BP_EX_USAGE;
	}
	apply_conf(&s);
	bp_rlog_open(s.o.log);
	if (bp_reader_read_cmdline(&cl) == 0)
		apply_cmdline(&s, &cl);
	if (cl.off) {
		bp_rlog(BP_RLOG_INFO, "bootpack=off: not reading");
		bp_rlog_close();
		return BP_EX_OK;
	}
	rc = do_read(&s);
	bp_rlog_close();
	return rc;
}
