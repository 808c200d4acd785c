// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-monitor.c --- measure "done booting" inside the guest, then report
 * and power the guest off.
 *
 * Started by the bench initramfs (guest/init) before it mounts the root, as a
 * background process. It moves to a private mount namespace at once, so the
 * /proc, /sys, /dev and tracefs it keeps mounted are invisible to the system
 * that boots (the initramfs then unmounts its own and switch_roots: the real
 * init finds nothing mounted, as with a kernel booting without an initramfs).
 *
 * Every --interval-ms (100) on CLOCK_BOOTTIME (0 = kernel start) it samples
 * /proc/stat (CPU), /proc/diskstats (the boot disk) and /proc/pressure/io.
 * Done booting is the first sample time t after which, for --window-ms
 * (2000):
 *   - the disk completes no read and has no request in flight, and
 *   - the CPU is busy less than --cpu-pct (5) % of the window, the monitor's
 *     own CPU time subtracted;
 *   - the window was seen: at least half of its ticks were accounted (a
 *     vCPU the host did not run for a while accounts none, and would look
 *     idle).
 * It then writes, between marker lines, to --out (the second serial port):
 * a summary (key=value), the samples, the kernel log, /proc/partitions, the trace buffer
 * (block events always; filemap events on a traced boot) and the CPU loop
 * timing (TCG factor); then sync(2) and reboot(RB_POWER_OFF).
 *
 * --session MARK (the desktop variant): the boot is also done "to the
 * session" when a kernel log record holding MARK appears (the session's
 * autostart entry writes it to /dev/kmsg); its time (the record's own
 * timestamp) is reported as session_ms, and done booting is then the first
 * idle window that starts at or after it (a desktop that is not up yet is
 * not done, however idle it looks).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "c.h"
#include "cpuloop.h"

struct sample {
	uint64_t t_ns;		/* CLOCK_BOOTTIME */
	uint64_t cpu_busy;	/* USER_HZ ticks, all CPUs, monitor excluded */
	uint64_t cpu_all;	/* USER_HZ ticks */
	uint64_t rd_ios, rd_sect, rd_ms, wr_ios, wr_sect, in_flight, io_ms;
	uint64_t psi_some_us, psi_full_us;
};

static struct {
	const char *out, *disk, *session;
	unsigned interval_ms, window_ms, timeout_s;
	double cpu_pct;
	uint64_t calib_iters;
	int poweroff, dump_trace;
	uint64_t calib_only;
} opt = {
	.out = "/dev/ttyS1", .disk = "vda", .interval_ms = 100, .window_ms = 2000,
	.timeout_s = 900, .cpu_pct = 5.0, .calib_iters = 20000000, .poweroff = 1,
	.dump_trace = 1,
};

static int outfd = -1;
/*
 * /proc, /sys, tracefs and /dev as this process found them at its start,
 * held open: an initramfs whose switch to the root deletes its own
 * directories (initramfs-tools' run-init) detaches the mounts this
 * namespace had on them, and a path would then lead nowhere.
 */
static int dir_proc = -1, dir_sys = -1, dir_trace = -1, dir_dev = -1;

static int open_in(const char *path, int flags)
{
	static const struct { const char *prefix; int *dir; } map[] = {
		{ "/sys/kernel/tracing/", &dir_trace }, { "/proc/", &dir_proc },
		{ "/sys/", &dir_sys }, { "/dev/", &dir_dev },
	};
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		n = strlen(map[i].prefix);
		if (*map[i].dir >= 0 && !strncmp(path, map[i].prefix, n))
			return openat(*map[i].dir, path + n, flags);
	}
	return open(path, flags);
}
static int fd_kmsg = -1;
static uint64_t session_ns;	/* the session marker's kmsg time; 0: not seen */
static struct sample *samples;
static size_t nsamples, capsamples;

static void out(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (n > 0 && write(outfd, buf, n) < 0)
		return;
}

static void out_raw(const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(outfd, buf, n);

		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return;
		}
		buf += w;
		n -= w;
	}
}

static ssize_t slurp(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	buf[n < 0 ? 0 : n] = '\0';
	return n;
}

static int fd_stat = -1, fd_disk = -1, fd_psi = -1, fd_self = -1;

static void take(struct sample *s)
{
	char buf[16384], *p;
	unsigned long long v[10] = { 0 };
	unsigned long long ut = 0, st = 0;
	int i;

	memset(s, 0, sizeof(*s));
	s->t_ns = cpuloop_ns(CLOCK_BOOTTIME);
	if (slurp(fd_stat, buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		/* user nice system idle iowait irq softirq steal */
		for (i = 0; i < 8; i++)
			s->cpu_all += v[i];
		s->cpu_busy = s->cpu_all - v[3] - v[4];
	}
	if (slurp(fd_self, buf, sizeof(buf)) > 0 && (p = strrchr(buf, ')')) &&
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2) {
		s->cpu_busy = s->cpu_busy > ut + st ? s->cpu_busy - ut - st : 0;
	}
	if (slurp(fd_disk, buf, sizeof(buf)) > 0) {
		char name[64];
		char *line = buf;

		while (line && *line) {
			char *nl = strchr(line, '\n');

			if (nl)
				*nl = '\0';
			/* major minor name rd_ios rd_merges rd_sect rd_ms wr_ios wr_merges wr_sect wr_ms in_flight io_ms */
			if (sscanf(line, "%*u %*u %63s %llu %*u %llu %llu %llu %*u %llu %*u %llu %llu",
				   name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) == 8 &&
			    !strcmp(name, opt.disk)) {
				s->rd_ios = v[0];
				s->rd_sect = v[1];
				s->rd_ms = v[2];
				s->wr_ios = v[3];
				s->wr_sect = v[4];
				s->in_flight = v[5];
				s->io_ms = v[6];
			}
			line = nl ? nl + 1 : NULL;
		}
	}
	if (fd_psi >= 0 && slurp(fd_psi, buf, sizeof(buf)) > 0) {
		p = strstr(buf, "some ");
		if (p && (p = strstr(p, "total=")))
			s->psi_some_us = strtoull(p + 6, NULL, 10);
		p = strstr(buf, "full ");
		if (p && (p = strstr(p, "total=")))
			s->psi_full_us = strtoull(p + 6, NULL, 10);
	}
}

static int push(void)
{
	if (nsamples == capsamples) {
		size_t n = capsamples ? capsamples * 2 : 4096;
		struct sample *ns = realloc(samples, n * sizeof(*ns));

		if (!ns)
			return -1;
		samples = ns;
		capsamples = n;
	}
	take(&samples[nsamples++]);
	return 0;
}

/* Disk activity in the interval ending at sample j (j >= 1). */
static int disk_busy(size_t j)
{
	return samples[j].rd_ios != samples[j - 1].rd_ios ||
	       samples[j].rd_sect != samples[j - 1].rd_sect || samples[j].in_flight;
}

/*
 * Called after each new sample; returns the index of the done sample, or -1.
 * cand: first sample after the last disk activity. The window [t_i, t_i+W]
 * must also hold less than cpu_pct % CPU busy; otherwise the candidate moves
 * one sample on.
 */
static long check_done(size_t *cand)
{
	size_t j = nsamples - 1, k;
	uint64_t w = (uint64_t)opt.window_ms * 1000000u;

	if (j >= 1 && disk_busy(j))
		*cand = j;
	while (*cand < j && samples[j].t_ns - samples[*cand].t_ns >= w) {
		struct sample *a = &samples[*cand], *b;
		double busy, all;

		for (k = *cand; k < j && samples[k].t_ns - a->t_ns < w; k++)
			;
		b = &samples[k];
		busy = (double)(b->cpu_busy - a->cpu_busy);
		all = (double)(b->cpu_all - a->cpu_all);
		/*
		 * A vCPU the host did not run accounts no tick at all: such a
		 * window is not idle, it is unseen. Require at least half the
		 * window's ticks (USER_HZ 100, one CPU) to be accounted.
		 */
		if (all > 0 && busy * 100.0 < opt.cpu_pct * all &&
		    all * 2 >= (double)(b->t_ns - a->t_ns) / 1e7)
			return (long)*cand;
		(*cand)++;
	}
	return -1;
}

/*
 * Read the kernel log records that came since the last call and look for
 * the session marker. A record is "PRI,SEQ,USEC,FLAGS;TEXT": USEC is the
 * kernel's timestamp (CLOCK_MONOTONIC; the guest never suspends, so equal
 * to CLOCK_BOOTTIME).
 */
static void poll_session(void)
{
	char buf[8192];
	ssize_t n;
	unsigned long long usec;
	char *msg;

	if (fd_kmsg < 0)
		fd_kmsg = open_in("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd_kmsg < 0)
		return;
	while (!session_ns) {
		n = read(fd_kmsg, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		buf[n] = '\0';
		/* the record's text begins with MARK (the command line that
		 * names it is a record too) */
		msg = strchr(buf, ';');
		if (msg && !strncmp(msg + 1, opt.session, strlen(opt.session)) &&
		    sscanf(buf, "%*u,%*u,%llu", &usec) == 1)
			session_ns = usec ? usec * 1000u : 1;
	}
}

static void dump_file(const char *path, const char *tag)
{
	char buf[65536];
	ssize_t n;
	int fd = open_in(path, O_RDONLY | O_CLOEXEC);

	out("=== BENCH-BEGIN %s\n", tag);
	if (fd >= 0) {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			out_raw(buf, n);
		close(fd);
	} else {
		out("# cannot open %s: %s\n", path, strerror(errno));
	}
	out("=== BENCH-END %s\n", tag);
}

static void dump_kmsg(void)
{
	char buf[8192];
	ssize_t n;
	int fd = open_in("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	out("=== BENCH-BEGIN kmsg\n");
	if (fd >= 0) {
		for (;;) {
			n = read(fd, buf, sizeof(buf) - 1);
			if (n < 0 && errno == EPIPE)
				continue;	/* overwritten records */
			if (n <= 0)
				break;
			out_raw(buf, n);
		}
		close(fd);
	}
	out("=== BENCH-END kmsg\n");
}

static void write_str(const char *path, const char *s)
{
	int fd = open_in(path, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		/* best effort: the trace is read all the same */
		if (write(fd, s, strlen(s)) < 0)
			s = NULL;
		close(fd);
	}
}

/* The loops of cpuloop.h; with exec (the calibration boot, whose initramfs
 * has the same static busybox as the host), the fork/fault/exec rounds too. */
static void calib(uint64_t iters, const char *exec)
{
	uint64_t wall[2], cpu[2], ew = 0, ec = 0, sum = cpuloop_time(iters, wall, cpu);

	if (exec && cpuloop_exec(CPULOOP_EXEC_ROUNDS, exec, &ew, &ec))
		ew = ec = 0;
	out("=== BENCH-BEGIN calib\niters=%" PRIu64 " wall_ns=%" PRIu64 " cpu_ns=%" PRIu64
	    " big_wall_ns=%" PRIu64 " big_cpu_ns=%" PRIu64 " exec_wall_ns=%" PRIu64
	    " exec_cpu_ns=%" PRIu64 " sum=%" PRIx64 "\n=== BENCH-END calib\n",
	    iters, wall[0], cpu[0], wall[1], cpu[1], ew, ec, sum);
}

static void report(long done)
{
	struct sample *d = done >= 0 ? &samples[done] : &samples[nsamples - 1];
	struct sample *f = &samples[0], *l = &samples[nsamples - 1];
	size_t i;
	char buf[512];
	ssize_t n;
	int fd;

	out("\n=== BENCH-BEGIN summary\n");
	out("done_ms=%.1f\n", done >= 0 ? d->t_ns / 1e6 : -1.0);
	out("reached=%d\n", done >= 0);
	if (opt.session) {
		out("session_ms=%.1f\n", session_ns ? session_ns / 1e6 : -1.0);
		out("session_mark=%s\n", opt.session);
	}
	out("interval_ms=%u\nwindow_ms=%u\ncpu_pct=%.1f\n", opt.interval_ms, opt.window_ms,
	    opt.cpu_pct);
	out("monitor_start_ms=%.1f\nend_ms=%.1f\nsamples=%zu\n", f->t_ns / 1e6, l->t_ns / 1e6,
	    nsamples);
	/* figures at done (the counters start at 0 at kernel start) */
	out("rd_ios=%" PRIu64 "\nrd_bytes=%" PRIu64 "\nrd_ms=%" PRIu64 "\n", d->rd_ios,
	    d->rd_sect * 512, d->rd_ms);
	out("wr_ios=%" PRIu64 "\nwr_bytes=%" PRIu64 "\nio_ticks_ms=%" PRIu64 "\n", d->wr_ios,
	    d->wr_sect * 512, d->io_ms);
	out("psi_io_some_us=%" PRIu64 "\npsi_io_full_us=%" PRIu64 "\n", d->psi_some_us,
	    d->psi_full_us);
	out("cpu_busy_ticks=%" PRIu64 "\ncpu_all_ticks=%" PRIu64 "\n", d->cpu_busy, d->cpu_all);
	out("end_rd_ios=%" PRIu64 "\nend_rd_bytes=%" PRIu64 "\n", l->rd_ios, l->rd_sect * 512);
	snprintf(buf, sizeof(buf), "/sys/block/%s/queue/read_ahead_kb", opt.disk);
	fd = open_in(buf, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		out("read_ahead_kb=%s", n > 0 ? buf : "?\n");
		close(fd);
	}
	fd = open_in("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		out("cmdline=%s", buf);
		if (n <= 0 || buf[n - 1] != '\n')
			out("\n");
		close(fd);
	}
	out("=== BENCH-END summary\n");

	out("=== BENCH-BEGIN samples\n# t_ms cpu_busy cpu_all rd_ios rd_sect wr_ios wr_sect in_flight io_ms psi_some_us\n");
	for (i = 0; i < nsamples; i++) {
		struct sample *s = &samples[i];

		out("%.1f %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		    " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		    s->t_ns / 1e6, s->cpu_busy, s->cpu_all, s->rd_ios, s->rd_sect, s->wr_ios,
		    s->wr_sect, s->in_flight, s->io_ms, s->psi_some_us);
	}
	out("=== BENCH-END samples\n");

	dump_kmsg();
	/* the boot disk's partitions and their MAJ:MIN (bootpack image) */
	dump_file("/proc/partitions", "partitions");
	if (opt.dump_trace) {
		write_str("/sys/kernel/tracing/tracing_on", "0");
		dump_file("/sys/kernel/tracing/per_cpu/cpu0/stats", "trace-stats");
		dump_file("/sys/kernel/tracing/trace", "trace");
	}

	if (opt.calib_iters)
		calib(opt.calib_iters, NULL);
	out("=== BENCH-DONE\n");
	fsync(outfd);
}

static void setup_ns(void)
{
	struct stat st;

	/* Private mounts: nothing we mount is seen by the booting system. */
	if (unshare(CLONE_NEWNS) == 0)
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	if (stat("/proc/self", &st) != 0)
		mount("proc", "/proc", "proc", 0, NULL);
	if (stat("/sys/kernel", &st) != 0)
		mount("sysfs", "/sys", "sysfs", 0, NULL);
	if (stat("/sys/kernel/tracing/trace", &st) != 0)
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	dir_proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir_sys = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir_trace = open("/sys/kernel/tracing", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir_dev = open("/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-monitor [--out DEV] [--disk NAME] [--interval-ms N] "
		"[--window-ms N] [--cpu-pct P] [--timeout-s N] [--calib-iters N] "
		"[--session MARK] [--no-trace] [--no-poweroff]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct timespec next;
	size_t cand = 0;
	long done = -1;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--no-trace"))
			opt.dump_trace = 0;
		else if (!strcmp(a, "--no-poweroff"))
			opt.poweroff = 0;
		else if (!v)
			usage();
		else if (!strcmp(a, "--out"))
			opt.out = v, i++;
		else if (!strcmp(a, "--disk"))
			opt.disk = v, i++;
		else if (!strcmp(a, "--interval-ms"))
			opt.interval_ms = atoi(v), i++;
		else if (!strcmp(a, "--window-ms"))
			opt.window_ms = atoi(v), i++;
		else if (!strcmp(a, "--cpu-pct"))
			opt.cpu_pct = atof(v), i++;
		else if (!strcmp(a, "--timeout-s"))
			opt.timeout_s = atoi(v), i++;
		else if (!strcmp(a, "--calib-only"))
			opt.calib_only = strtoull(v, NULL, 0), i++;
		else if (!strcmp(a, "--session"))
			opt.session = v, i++;
		else if (!strcmp(a, "--calib-iters"))
			opt.calib_iters = strtoull(v, NULL, 0), i++;
		else
			usage();
	}
	if (opt.interval_ms == 0)
		usage();

	setsid();
	setup_ns();
	if (opt.calib_only) {
		outfd = open(opt.out, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		calib(opt.calib_only, "/bin/busybox");
		out("=== BENCH-DONE\n");
		fsync(outfd);
		sync();
		reboot(RB_POWER_OFF);
		return 0;
	}
	outfd = open(opt.out, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (outfd < 0)
		outfd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (outfd >= 0 && isatty(outfd)) {
		struct termios tio;

		if (tcgetattr(outfd, &tio) == 0) {
			cfmakeraw(&tio);
			cfsetospeed(&tio, B115200);
			tcsetattr(outfd, TCSANOW, &tio);
		}
	}
	fd_stat = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	fd_disk = open("/proc/diskstats", O_RDONLY | O_CLOEXEC);
	fd_psi = open("/proc/pressure/io", O_RDONLY | O_CLOEXEC);
	fd_self = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd_stat < 0 || fd_disk < 0 || fd_self < 0) {
		out("bench-monitor: cannot open /proc files: %s\n", strerror(errno));
		return 1;
	}
	/* Ignore the terminal signals a dying session could send. */
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	out("bench-monitor: started at %.1f ms\n", cpuloop_ns(CLOCK_BOOTTIME) / 1e6);
	close(open("/.monitor-ready", O_WRONLY | O_CREAT | O_CLOEXEC, 0600));

	clock_gettime(CLOCK_BOOTTIME, &next);
	for (;;) {
		if (push() < 0)
			break;
		if (opt.session) {
			/* no idle window starts before the session is up */
			if (!session_ns)
				poll_session();
			if (!session_ns)
				cand = nsamples - 1;
			while (session_ns && cand < nsamples - 1 && samples[cand].t_ns < session_ns)
				cand++;
		}
		if (nsamples >= 2 && (done = check_done(&cand)) >= 0)
			break;
		if (samples[nsamples - 1].t_ns / 1000000000u >= opt.timeout_s)
			break;
		next.tv_nsec += (long)opt.interval_ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	report(done);
	if (opt.poweroff) {
		sync();
		reboot(RB_POWER_OFF);
	}
	return 0;
}
