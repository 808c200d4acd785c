// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-trace.c --- bootpack trace: record what a command or a boot reads
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bp_et.h"
#include "cli.h"
#include "devspec.h"
#include "log.h"
#include "outfile.h"
#include "strutils.h"
#include "cmd-trace.h"
#include "trace-engine.h"
#include "from-kernel.h"

#define DEFAULT_BUFFER_KB (32U * 1024)	/* per CPU */
#define MAX_DEVICES 16
#define MAX_MERGE_CHECK 64	/* traces to merge checked against -o */

enum mode { MODE_COMMAND, MODE_BOOT, MODE_IMPORT, MODE_MERGE, MODE_SETUP, MODE_KERNEL };

struct opts {
	enum mode mode;
	const char *output;
	const char *device;
	const char *import;
	const char *record;	/* --from-kernel=RECORD */
	const char *dev;	/* --dev MAJ:MIN */
	const char *save_text;
	const char *unit_dir;
	unsigned int buffer_kb;
	int install;
};

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack trace -o <file> [--device <dev>] -- <command> [<args>...]\n"
	       " bootpack trace --from-boot -o <file> --device <dev>\n"
	       " bootpack trace --import <text> -o <file> --device <dev> [--dev <maj:min>]\n"
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
	       "     --merge               merge the traces given as arguments\n"
	       "     --setup               print the kernel arguments and systemd units for a\n"
	       "                           boot trace\n"
	       "     --install             with --setup: write the units\n"
	       "     --unit-dir <dir>      where --install writes them [/etc/systemd/system]\n"
	       "     --buffer-size <size>  trace buffer per CPU [32M]\n"
	       "     --save-text <file>    keep a copy of the kernel's text trace\n"
	       " -h, --help                display this help\n"
	       " -q, --quiet               print errors only\n"
	       " -v, --verbose             say more (repeat for debugging output)\n"
	       " -V, --version             display version\n"
	       "\n"
	       "For more details see bootpack-trace(8).\n");
}

/* --- signals: never leave tracing on --------------------------------------- */

static struct bp_tracefs *sig_tf;
static volatile sig_atomic_t sig_caught;
static volatile pid_t sig_child;

static void on_signal(int sig)
{
	sig_caught = sig;
	if (sig_tf)
		bp_tracefs_stop(sig_tf);
	if (sig_child > 0)
		kill(sig_child, sig);
}

static void catch_signals(struct bp_tracefs *tf)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sig_tf = tf;
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void default_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
}

/* --- helpers ---------------------------------------------------------------- */

static int exit_for(errcode_t code)
{
	if (code == BP_ET_TRACE_CORRUPT)
		return BP_EX_STALE;
	return bp_exit_code(code);
}

static int fail(const struct bp_err *err)
{
	bp_log_error("%s", bp_err_str(err));
	return exit_for(err->code);
}

static int parse_majmin(const char *s, uint32_t *kdev)
{
	unsigned int ma, mi;
	char c;

	if (sscanf(s, "%u:%u%c", &ma, &mi, &c) != 2 || ma > 0xfff || mi > 0xfffff)
		return -1;
	*kdev = BP_KDEV(ma, mi);
	return 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Boot time (Unix ns) from /proc/stat's btime, or INT64_MIN. */
static int64_t boot_ns(void)
{
	char line[256];
	long long bt;
	FILE *fp = fopen("/proc/stat", "re");

	if (!fp)
		return INT64_MIN;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "btime %lld", &bt) == 1) {
			fclose(fp);
			return bt * 1000000000LL;
		}
	}
	fclose(fp);
	return INT64_MIN;
}

int bp_trace_require_root(const char *what)
{
	if (geteuid() == 0)
		return 0;
	bp_log_error("trace: %s needs root (it uses tracefs): run it with sudo", what);
	return BP_EX_REFUSED;
}

/*
 * The device node of MAJ:MIN: /dev/block/MAJ:MIN where udev made it, else
 * /dev/ + DEVNAME from sysfs.
 */
void bp_trace_devnode(unsigned int ma, unsigned int mi, char *buf, size_t len)
{
	char path[96], line[256];
	FILE *fp;

	snprintf(buf, len, "/dev/block/%u:%u", ma, mi);
	if (access(buf, F_OK) == 0)
		return;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", ma, mi);
	fp = fopen(path, "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "DEVNAME=", 8) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "/dev/%s", line + 8);
			break;
		}
	}
	fclose(fp);
}

/* Resolve --device: path, and its dev_t when it is a block device. */
static int open_device(const char *spec, struct bp_dev *dev, uint32_t *kdev)
{
	struct bp_err err = { 0 };
	struct stat st;
	char mnt[PATH_MAX];

	*kdev = 0;
	/* A directory stands for the filesystem mounted there ("--device /"). */
	if (stat(spec, &st) == 0 && S_ISDIR(st.st_mode)) {
		bp_trace_devnode(major(st.st_dev), minor(st.st_dev), mnt, sizeof(mnt));
		spec = mnt;
	}
	if (bp_dev_resolve_ext(spec, dev, &err))
		return fail(&err);
	if (stat(dev->path, &st) == 0 && S_ISBLK(st.st_mode))
		*kdev = BP_KDEV(major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

static void list_devices(const uint32_t *kdevs, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < MAX_DEVICES; i++)
		fprintf(stderr, "  %u:%u\n", BP_KDEV_MAJOR(kdevs[i]), BP_KDEV_MINOR(kdevs[i]));
}

/*
 * The one device the trace read files from; prints and returns an exit code
 * if not one. opt is the option that names a device instead.
 */
static int pick_device(const struct bp_collect *c, uint32_t *kdev, const char *opt)
{
	uint32_t kdevs[MAX_DEVICES];
	size_t n = bp_collect_devices(c, kdevs, MAX_DEVICES);

	if (n == 1) {
		*kdev = kdevs[0];
		return 0;
	}
	if (n == 0) {
		bp_log_error("trace: the trace holds no file read from a block device");
		return BP_EX_STALE;
	}
	bp_log_error("trace: the trace read files from %zu block devices; pick one with %s:", n,
		     opt);
	list_devices(kdevs, n);
	return BP_EX_REFUSED;
}

static void fill_header(struct bp_trace *t, const char *device, uint32_t kdev,
			const char *source)
{
	struct utsname u;

	bp_trace_set_str(&t->hdr.device, device);
	t->hdr.dev_major = BP_KDEV_MAJOR(kdev);
	t->hdr.dev_minor = BP_KDEV_MINOR(kdev);
	bp_trace_set_str(&t->hdr.kernel, uname(&u) == 0 ? u.release : "");
	bp_trace_set_str(&t->hdr.source, source);
	t->hdr.created = (int64_t)time(NULL);
}

static void summary(const struct bp_trace *t, const char *out, const struct bp_resolve_stats *st)
{
	uint64_t bytes = 0, mbytes = 0;
	char b1[32], b2[32];
	size_t i, j;

	for (i = 0; i < t->nfiles; i++)
		for (j = 0; j < t->files[i].nranges; j++)
			bytes += t->files[i].ranges[j].length;
	for (i = 0; i < t->nmeta; i++)
		mbytes += t->meta[i].length;
	bp_log_info("trace: %s: %zu files, %s of data, %s of metadata", out, t->nfiles,
		    bp_size_human(bytes, b1, sizeof(b1)), bp_size_human(mbytes, b2, sizeof(b2)));
	if (st && (st->deleted || st->nonreg || st->written || st->unnamed))
		bp_log_info("trace: left out %" PRIu64 " deleted, %" PRIu64 " non-regular, %" PRIu64
			    " written during the trace, %" PRIu64 " unreachable inodes",
			    st->deleted, st->nonreg, st->written, st->unnamed);
}

/*
 * Shared tail of every source: events → ranges of kdev → resolved trace →
 * file. devpath is what libext2fs opens.
 */
static int finish(struct bp_collect *c, uint32_t kdev, const char *devpath, const char *devname,
		  int64_t written_after, const char *source, const struct opts *o)
{
	struct bp_resolve_stats st;
	struct bp_collected col;
	struct bp_err err = { 0 };
	struct bp_trace *t;
	int ret = BP_EX_OK;

	if (bp_collect_finish(c, kdev, &col, &err))
		return fail(&err);
	if (col.lost)
		bp_log_warn("trace: %" PRIu64 " events were lost (the trace buffer overflowed): "
			    "the trace is incomplete; use a bigger buffer (--buffer-size, or "
			    "trace_buf_size= for a boot trace)", col.lost);
	if (!col.used_access)
		bp_log_warn("trace: no page-access events (mm_filemap_get_pages, _map_pages, "
			    "_fault; Linux 6.12 or later): ranges include readahead nobody used");
	t = bp_trace_new();
	if (!t) {
		bp_collected_free(&col);
		bp_log_error("out of memory");
		return BP_EX_FAILURE;
	}
	if (bp_resolve(&col, devpath, written_after, t, &st, &err)) {
		ret = fail(&err);
		goto out;
	}
	fill_header(t, devname, kdev, source);
	if (bp_trace_save(t, o->output, &err)) {
		ret = fail(&err);
		goto out;
	}
	summary(t, o->output, &st);
out:
	bp_trace_free(t);
	bp_collected_free(&col);
	return ret;
}

/* --save-text: an output like any other (include/outfile.h). */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	struct bp_outfile of;
	struct bp_err err = { 0 };
	FILE *in;
	size_t n;
	int rc = 0;

	in = fopen(from, "re");
	if (!in)
		return -errno;
	if (bp_outfile_open(&of, "the text trace", to, &err)) {
		fclose(in);
		bp_log_error("trace: %s", bp_err_str(&err));
		return -EEXIST;
	}
	while (!rc && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		const char *p = buf;

		while (n) {
			ssize_t w = write(of.fd, p, n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				rc = -errno;
				break;
			}
			p += w;
			n -= (size_t)w;
		}
	}
	if (!rc && ferror(in))
		rc = -EIO;
	fclose(in);
	if (rc) {
		bp_outfile_abort(&of);
		return rc;
	}
	if (bp_outfile_commit(&of, &err)) {
		bp_log_error("trace: %s", bp_err_str(&err));
		return -EEXIST;
	}
	return 0;
}

/*
 * Parse the instance's (or top buffer's) text trace, keeping a copy if
 * asked. Lost events: the per-CPU counters, or the text header's count if
 * larger (they count the same overwritten events).
 */
static int read_buffer(struct bp_tracefs *tf, struct bp_collect *c, const struct opts *o)
{
	char path[PATH_MAX + 16];
	struct bp_err err = { 0 };
	uint64_t lost = 0;
	errcode_t rc;
	FILE *fp;
	int r;

	if (bp_tracefs_lost(tf, &lost, &err))
		lost = 0;
	if (!o->save_text) {
		rc = bp_tracefs_read(tf, c, &err);
	} else {
		snprintf(path, sizeof(path), "%s/trace", tf->dir);
		r = copy_file(path, o->save_text);
		if (r == -EEXIST)
			return BP_EX_FAILURE;	/* said why */
		if (r < 0) {
			bp_log_error("trace: %s: cannot save the text trace: %s", o->save_text,
				     strerror(-r));
			return BP_EX_FAILURE;
		}
		fp = fopen(o->save_text, "re");
		if (!fp) {
			bp_log_error("trace: %s: %s", o->save_text, strerror(errno));
			return BP_EX_FAILURE;
		}
		rc = bp_parse_text(fp, o->save_text, c, &err);
		fclose(fp);
	}
	if (rc)
		return fail(&err);
	if (lost > bp_collect_get_lost(c))
		bp_collect_set_lost(c, lost);
	return 0;
}

/* Say which events this kernel lacks, or prints in a layout we cannot read. */
static void warn_events(const struct bp_tracefs *tf)
{
	unsigned int i;

	for (i = 1; i < bp_tracefs_nevents; i++) {
		if (tf->missing & (1U << i))
			bp_log_warn("trace: this kernel has no %s event (Linux 6.12 or later): "
				    "tracing without it", bp_tracefs_events[i]);
		else if (tf->bad_layout & (1U << i))
			bp_log_warn("trace: the %s event has a layout this bootpack cannot read: "
				    "tracing without it", bp_tracefs_events[i]);
	}
}

/* --- sources ----------------------------------------------------------------- */

static int run_command(const struct opts *o, char **argv)
{
	struct bp_tracefs tf;
	struct bp_collect *c = NULL;
	struct bp_dev dev = { 0 };
	struct bp_err err = { 0 };
	char devpath[PATH_MAX];
	const char *path;
	int ret, status = 0;
	sigset_t sigs, oldmask;
	uint32_t kdev = 0;
	int64_t start;
	pid_t pid;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGQUIT);

	ret = bp_trace_require_root("tracing a command");
	if (ret)
		return ret;
	if (o->device) {
		ret = open_device(o->device, &dev, &kdev);
		if (ret)
			goto out_dev;
		if (!kdev) {
			bp_log_error("trace: %s: not a block device; trace the mounted device "
				     "(e.g. the loop device of an image)", dev.path);
			ret = bp_errtryhelp("trace");
			goto out_dev;
		}
	}
	if (bp_tracefs_open(&tf, &err)) {
		ret = fail(&err);
		goto out_dev;
	}
	bp_tracefs_reap(&tf);
	c = bp_collect_new();
	if (!c) {
		ret = BP_EX_FAILURE;
		goto out_dev;
	}
	catch_signals(&tf);
	if (bp_tracefs_create(&tf, o->buffer_kb, kdev, &err)) {
		ret = fail(&err);
		goto out;
	}
	start = now_ns();
	if (bp_tracefs_start(&tf, &err)) {
		ret = fail(&err);
		goto out;
	}
	/*
	 * Signals wait until the child is known (and, in the child, until our
	 * handlers are gone): a signal in between would otherwise be lost.
	 */
	sigprocmask(SIG_BLOCK, &sigs, &oldmask);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		bp_log_error("trace: fork: %s", strerror(errno));
		ret = BP_EX_FAILURE;
		goto out;
	}
	if (pid == 0) {
		default_signals();
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "bootpack: trace: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	sig_child = pid;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (sig_caught)
		kill(pid, sig_caught);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = 0;
			break;
		}
	}
	sig_child = 0;
	bp_tracefs_stop(&tf);
	if (sig_caught) {
		bp_log_error("trace: interrupted by signal %d: tracing stopped, nothing written",
			     (int)sig_caught);
		ret = BP_EX_CANCELED;
		goto out;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		bp_log_error("trace: could not run '%s'", argv[0]);
		ret = BP_EX_FAILURE;
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		bp_log_warn("trace: '%s' %s %d; writing the trace of what it read", argv[0],
			    WIFEXITED(status) ? "exited with status" : "was killed by signal",
			    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	warn_events(&tf);
	ret = read_buffer(&tf, c, o);
	bp_tracefs_close(&tf);
	sig_tf = NULL;
	if (ret)
		goto out;
	if (!kdev) {
		/* Every process's reads count: name the filesystem to trace, --device. */
		ret = pick_device(c, &kdev, "--device (a device, a mount point such as /, "
					    "or the loop device of an image)");
		if (ret)
			goto out;
		bp_trace_devnode(BP_KDEV_MAJOR(kdev), BP_KDEV_MINOR(kdev), devpath, sizeof(devpath));
		path = devpath;
		bp_log_warn("trace: no --device given: tracing %s (%u:%u), the one block device "
			    "files were read from while '%s' ran", path, BP_KDEV_MAJOR(kdev),
			    BP_KDEV_MINOR(kdev), argv[0]);
	} else {
		path = dev.path;
	}
	ret = sig_caught ? BP_EX_CANCELED : finish(c, kdev, path, path, start, "command", o);
	if (ret && ret != BP_EX_CANCELED && !o->device)
		bp_log_error("trace: %s was picked because no --device was given; name the "
			     "filesystem to trace with --device (a device, a mount point such as /, "
			     "or the loop device of an image)", path);
out:
	bp_tracefs_close(&tf);
	sig_tf = NULL;
	default_signals();
	bp_collect_free(c);
out_dev:
	bp_dev_free(&dev);
	return ret;
}

static int from_boot(const struct opts *o)
{
	struct bp_tracefs tf;
	struct bp_collect *c;
	struct bp_dev dev = { 0 };
	struct bp_err err = { 0 };
	uint32_t kdev;
	int ret;

	ret = bp_trace_require_root("--from-boot");
	if (ret)
		return ret;
	ret = open_device(o->device, &dev, &kdev);
	if (ret)
		return ret;
	if (!kdev) {
		bp_log_error("trace: %s: not a block device", dev.path);
		bp_dev_free(&dev);
		return bp_errtryhelp("trace");
	}
	if (bp_tracefs_open(&tf, &err) || bp_tracefs_top(&tf, &err)) {
		bp_dev_free(&dev);
		return fail(&err);
	}
	c = bp_collect_new();
	if (!c) {
		bp_dev_free(&dev);
		return BP_EX_FAILURE;
	}
	catch_signals(&tf);
	bp_tracefs_stop(&tf);	/* a consistent snapshot; the events are disabled below */
	warn_events(&tf);
	ret = read_buffer(&tf, c, o);
	bp_tracefs_close(&tf);
	sig_tf = NULL;
	default_signals();
	if (!ret && sig_caught)
		ret = BP_EX_CANCELED;
	if (!ret && !bp_collect_nevents(c)) {
		bp_log_error("trace: the kernel's trace buffer holds no filemap event: boot with "
			     "the arguments 'bootpack trace --setup' prints");
		ret = BP_EX_STALE;
	}
	if (!ret)
		ret = finish(c, kdev, dev.path, dev.path, boot_ns(), "boot", o);
	bp_collect_free(c);
	bp_dev_free(&dev);
	return ret;
}

static int import(const struct opts *o)
{
	struct bp_collect *c;
	struct bp_dev dev = { 0 };
	struct bp_err err = { 0 };
	uint32_t kdev = 0, devkdev;
	FILE *fp;
	int ret;

	if (o->dev && parse_majmin(o->dev, &kdev) < 0) {
		bp_log_error("trace: --dev '%s': expected MAJOR:MINOR, e.g. 8:1", o->dev);
		return bp_errtryhelp("trace");
	}
	ret = open_device(o->device, &dev, &devkdev);
	if (ret)
		return ret;
	fp = fopen(o->import, "re");
	if (!fp) {
		bp_log_error("trace: %s: cannot open: %s", o->import, strerror(errno));
		bp_dev_free(&dev);
		return BP_EX_STALE;
	}
	c = bp_collect_new();
	if (!c || bp_parse_text(fp, o->import, c, &err)) {
		ret = c ? fail(&err) : BP_EX_FAILURE;
		goto out;
	}
	if (!kdev)
		ret = pick_device(c, &kdev, "--dev MAJ:MIN");
	if (!ret)
		ret = finish(c, kdev, dev.path, dev.path, INT64_MIN, "import", o);
out:
	fclose(fp);
	bp_collect_free(c);
	bp_dev_free(&dev);
	return ret;
}

/* --from-kernel: the record of the kernel/ patch (from-kernel.c). */
static int from_kernel(const struct opts *o)
{
	struct bp_collect *c;
	struct bp_dev dev = { 0 };
	struct bp_err err = { 0 };
	uint32_t kdev = 0, devkdev;
	int ret;

	if (o->dev && parse_majmin(o->dev, &kdev) < 0) {
		bp_log_error("trace: --dev '%s': expected MAJOR:MINOR, e.g. 8:1", o->dev);
		return bp_errtryhelp("trace");
	}
	ret = open_device(o->device, &dev, &devkdev);
	if (ret)
		return ret;
	c = bp_collect_new();
	if (!c)
		ret = BP_EX_FAILURE;
	else if (bp_krec_read(o->record, dev.path, &kdev, c, &err))
		ret = fail(&err);
	else
		ret = finish(c, kdev, dev.path, dev.path, o->record ? INT64_MIN : boot_ns(),
			     "boot", o);
	bp_collect_free(c);
	bp_dev_free(&dev);
	return ret;
}

static int merge(const struct opts *o, int n, char **paths)
{
	struct bp_trace *acc, *t;
	struct bp_dev dev = { 0 };
	struct bp_err err = { 0 };
	uint32_t kdev;
	int i, ret = 0;

	if (o->device) {
		ret = open_device(o->device, &dev, &kdev);
		if (ret)
			return ret;
	}
	acc = bp_trace_new();
	if (!acc)
		return BP_EX_FAILURE;
	for (i = 0; i < n && !ret; i++) {
		if (bp_trace_load(paths[i], &t, &err)) {
			ret = fail(&err);
			break;
		}
		if (o->device && bp_trace_check_device(t, dev.path, &err))
			ret = fail(&err);
		else if (bp_trace_merge(acc, t, &err))
			ret = fail(&err);
		bp_trace_free(t);
	}
	if (!ret) {
		acc->hdr.created = (int64_t)time(NULL);
		if (bp_trace_save(acc, o->output, &err))
			ret = fail(&err);
		else
			summary(acc, o->output, NULL);
	}
	bp_trace_free(acc);
	bp_dev_free(&dev);
	return ret;
}

/*
 * -o and --save-text: usable outputs, none of them an input (the device, a
 * trace to merge, the text to import) nor each other; before any work.
 */
static int check_outputs(const struct opts *o, int n, char **paths)
{
	struct bp_path_ref ins[MAX_MERGE_CHECK + 4];
	struct bp_err err = { 0 };
	size_t k = 0;
	errcode_t rc;
	int i;

	ins[k++] = (struct bp_path_ref){ "device", o->device };
	ins[k++] = (struct bp_path_ref){ "imported text trace", o->import };
	ins[k++] = (struct bp_path_ref){ "kernel record", o->record };
	for (i = 0; i < n && i < MAX_MERGE_CHECK; i++)
		ins[k++] = (struct bp_path_ref){ "trace to merge", paths[i] };
	if (o->save_text && (strcmp(o->save_text, o->output) == 0 ||
			     bp_path_same(o->save_text, o->output))) {
		bp_log_error("trace: %s: named both by -o and by --save-text; choose two names",
			     o->output);
		return bp_errtryhelp("trace");
	}
	rc = bp_outfile_check("the trace", o->output, ins, k, &err);
	if (!rc && o->save_text)
		rc = bp_outfile_check("the text trace", o->save_text, ins, k, &err);
	if (!rc)
		return 0;
	bp_log_error("trace: %s", bp_err_str(&err));
	return rc == BP_ET_PATH_CONFLICT ? bp_errtryhelp("trace") : BP_EX_FAILURE;
}

/* Before any work: not root (for tracing), then the outputs. */
static int prepare(const struct opts *o, int n, char **paths)
{
	int ret;

	if (o->mode == MODE_COMMAND || o->mode == MODE_BOOT) {
		ret = bp_trace_require_root(o->mode == MODE_BOOT ? "--from-boot" :
								  "tracing a command");
		if (ret)
			return ret;
	}
	return check_outputs(o, n, paths);
}

/* --- entry --------------------------------------------------------------------- */

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
		{ "help", no_argument, NULL, 'h' },
		BP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .mode = MODE_COMMAND, .buffer_kb = DEFAULT_BUFFER_KB };
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
			o.mode = MODE_BOOT;
			nmodes++;
			break;
		case OPT_IMPORT:
			o.mode = MODE_IMPORT;
			o.import = optarg;
			nmodes++;
			break;
		case OPT_FROM_KERNEL:
			o.mode = MODE_KERNEL;
			o.record = optarg;
			nmodes++;
			break;
		case OPT_DEV:
			o.dev = optarg;
			break;
		case OPT_MERGE:
			o.mode = MODE_MERGE;
			nmodes++;
			break;
		case OPT_SETUP:
			o.mode = MODE_SETUP;
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
		case 'q':
		case 'v':
		case 'V':
			if (bp_cli_common_opt(c))
				return BP_EX_OK;
			break;
		case 'h':
			usage();
			return BP_EX_OK;
		default:
			return bp_errtryhelp("trace");
		}
	}
	argc -= optind;
	argv += optind;
	if (nmodes > 1) {
		bp_log_error("trace: --from-boot, --from-kernel, --import, --merge and --setup "
			     "exclude each other");
		return bp_errtryhelp("trace");
	}
	if ((o.install || o.unit_dir) && o.mode != MODE_SETUP) {
		bp_log_error("trace: --install and --unit-dir go with --setup");
		return bp_errtryhelp("trace");
	}
	if (o.dev && o.mode != MODE_IMPORT && o.mode != MODE_KERNEL) {
		bp_log_error("trace: --dev goes with --import and --from-kernel");
		return bp_errtryhelp("trace");
	}
	if (o.mode == MODE_SETUP) {
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
	case MODE_COMMAND:
		if (!argc) {
			bp_log_error("trace: no command to trace: bootpack trace -o FILE -- COMMAND");
			return bp_errtryhelp("trace");
		}
		c = prepare(&o, 0, NULL);
		return c ? c : run_command(&o, argv);
	case MODE_MERGE:
		if (argc < 1) {
			bp_log_error("trace: --merge needs the traces to merge");
			return bp_errtryhelp("trace");
		}
		c = prepare(&o, argc, argv);
		return c ? c : merge(&o, argc, argv);
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
	if (o.mode == MODE_KERNEL)
		return from_kernel(&o);
	return o.mode == MODE_BOOT ? from_boot(&o) : import(&o);
}
