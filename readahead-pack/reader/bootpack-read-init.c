// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootpack-read-init.c --- bootpack-read as PID 1: fork the reader, exec init without delay
 *
 * Whatever goes wrong (no pack, a corrupt one, no memory, fork failure)
 * init is exec'd; --head-start-ms holds it back a bounded time at most.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "c.h"
#include "bootpack-read.h"

extern char **environ;

/* Exec init, then the kernel's own fallbacks; never returns unless all fail. */
static void exec_init(const char *init, int argc, char **argv)
{
	static const char *const fallback[] = { "/sbin/init", "/etc/init", "/bin/init", "/bin/sh" };
	char *nargv[256];
	const char *tried = init;
	size_t i, n = 1;

	for (i = 0; i < (size_t)argc && n < ARRAY_SIZE(nargv) - 1; i++)
		nargv[n++] = argv[i];
	nargv[n] = NULL;
	nargv[0] = (char *)init;
	execve(init, nargv, environ);
	bp_rlog(BP_RLOG_ERR, "cannot exec %s: %s; trying the default inits", init, strerror(errno));
	for (i = 0; i < ARRAY_SIZE(fallback); i++) {
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

int bp_read_init_main(int argc, char **argv)
{
	struct bp_reader_cmdline cl;
	struct bp_read_settings s;
	const char *init;
	int first, rc;
	pid_t pid;

	bp_read_defaults(&s);
	s.o.max_ms = BP_READER_MAX_MS_INIT;
	/*
	 * The head start is auto (bp_read_defaults): on a rotating disk init
	 * waits up to 500 ms for the reader, about what its start-up lookups
	 * and the metadata pass take on a 2008 disk, so systemd's first
	 * lookups find them cached and do not seek across the reader's stream
	 * (real-boot bench, hdd-5k160: 61 seeks instead of 68;
	 * doc/architecture.md).
	 */
	first = bp_read_parse_init_args(&s, argc, argv);
	if (s.o.log == BP_LOGT_AUTO)
		s.o.log = BP_LOGT_KMSG;
	ensure_proc();
	bp_reader_read_cmdline(&cl);	/* unreadable: defaults */
	bp_read_apply_conf(&s);
	bp_read_apply_cmdline(&s, &cl);
	s.o.as_init = 1;
	if (s.o.log == BP_LOGT_AUTO)
		s.o.log = BP_LOGT_KMSG;
	init = cl.init[0] ? cl.init : s.o.init;
	/* a bare /dev: log to the console init was given, look nothing up */
	if (s.o.log == BP_LOGT_KMSG && bp_reader_dev_is_bare())
		bp_rlog_open_fd2();
	else
		bp_rlog_open(s.o.log);

	if (cl.trace) {
		bp_read_trace_boot(&s);
		cl.off = 1;
	} else if (cl.off) {
		bp_rlog(BP_RLOG_INFO, "bootpack=off: not reading");
	} else if (s.no_exec) {
		/* --no-exec as PID 1 makes no sense: still never keep init from running */
		bp_rlog(BP_RLOG_WARNING, "--no-exec ignored as PID 1");
	}
	if (!cl.off) {
		struct bp_read_wait w;

		/*
		 * --head-start-ms: the child holds the write end until its stream
		 * is under way (the first files' metadata in, the first window of
		 * reads queued), or until it ends.
		 */
		bp_read_wait_init(&w, bp_read_head_start_ms(&s));
		pid = fork();
		if (pid == 0) {
			bp_read_wait_child(&w, &s.o);
			child_setup(s.o.log);
			rc = bp_read_run(&s);
			bp_rlog_close();
			_exit(rc);
		}
		if (pid < 0) {
			bp_rlog(BP_RLOG_ERR, "fork: %s; starting %s without reading", strerror(errno),
				init);
			w.ms = 0;	/* no child: nothing to wait for */
		}
		bp_read_wait_parent(&w);
	}
	exec_init(init, argc - first, argv + first);
	_exit(127);
}
