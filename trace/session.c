// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session.c --- bootpack trace -- COMMAND: a tracing session around one
 * command (fork, exec, wait), that never leaves tracing on: a signal stops
 * tracing in the handler, is passed on to the command, and nothing is
 * written.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "signals.h"
#include "trace-cli.h"

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

void bp_trace_signals_on(struct bp_tracefs *tf)
{
	sig_caught = 0;
	sig_tf = tf;
	bp_signals_catch(on_signal);
}

int bp_trace_signals_off(void)
{
	sig_tf = NULL;
	bp_signals_default();
	return sig_caught;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Run argv to its end; 0 or an exit code (said why). */
static int run_child(char **argv)
{
	sigset_t oldmask;
	int status = 0;
	pid_t pid;

	/*
	 * Signals wait until the child is known (and, in the child, until our
	 * handlers are gone): a signal in between would otherwise be lost.
	 */
	bp_signals_block(&oldmask);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		bp_log_error("trace: fork: %s", strerror(errno));
		return BP_EX_FAILURE;
	}
	if (pid == 0) {
		bp_signals_default();
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "bootpack trace: %s: %s\n", argv[0], strerror(errno));
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
	if (sig_caught)
		return 0;	/* the caller says it */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		bp_log_error("trace: could not run '%s'", argv[0]);
		return BP_EX_FAILURE;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		bp_log_warn("trace: '%s' %s %d; writing the trace of what it read", argv[0],
			    WIFEXITED(status) ? "exited with status" : "was killed by signal",
			    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}

/* Without --device: the one block device files were read from. */
static int pick(struct bp_collect *c, uint32_t *kdev, char *path, size_t len, const char *cmd)
{
	int ret;

	ret = bp_trace_pick_device(c, kdev, "--device (a device, a mount point such as /, "
					    "or the loop device of an image)");
	if (ret)
		return ret;
	bp_dev_node(BP_KDEV_MAJOR(*kdev), BP_KDEV_MINOR(*kdev), path, len);
	bp_log_warn("trace: no --device given: tracing %s (%u:%u), the one block device files "
		    "were read from while '%s' ran", path, BP_KDEV_MAJOR(*kdev),
		    BP_KDEV_MINOR(*kdev), cmd);
	return 0;
}

int bp_trace_command(const struct bp_trace_opts *o, char **argv)
{
	struct bp_tracefs tf;
	struct bp_collect *c = NULL;
	struct bp_dev dev = { 0 };
	struct bp_err err = { 0 };
	char devpath[PATH_MAX];
	const char *path;
	uint32_t kdev = 0;
	int64_t start;
	int ret;

	ret = bp_trace_require_root("tracing a command");
	if (ret)
		return ret;
	if (o->device) {
		ret = bp_trace_open_device(o->device, &dev, &kdev);
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
		ret = bp_fail(&err);
		goto out_dev;
	}
	bp_tracefs_reap(&tf);
	c = bp_collect_new();
	if (!c) {
		ret = BP_EX_FAILURE;
		goto out_dev;
	}
	bp_trace_signals_on(&tf);
	if (bp_tracefs_create(&tf, o->buffer_kb, kdev, &err)) {
		ret = bp_fail(&err);
		goto out;
	}
	start = now_ns();
	if (bp_tracefs_start(&tf, &err)) {
		ret = bp_fail(&err);
		goto out;
	}
	ret = run_child(argv);
	bp_tracefs_stop(&tf);
	if (!ret && sig_caught) {
		bp_log_error("trace: interrupted by signal %d: tracing stopped, nothing written",
			     (int)sig_caught);
		ret = BP_EX_CANCELED;
	}
	if (ret)
		goto out;
	bp_trace_warn_events(&tf);
	ret = bp_trace_read_buffer(&tf, c, o);
	bp_tracefs_close(&tf);
	sig_tf = NULL;
	if (ret)
		goto out;
	path = dev.path;
	if (!kdev) {
		ret = pick(c, &kdev, devpath, sizeof(devpath), argv[0]);
		if (ret)
			goto out;
		path = devpath;
	}
	ret = sig_caught ? BP_EX_CANCELED : bp_trace_finish(c, kdev, path, start, "command", o);
	if (ret && ret != BP_EX_CANCELED && !o->device)
		bp_log_error("trace: %s was picked because no --device was given; name the "
			     "filesystem to trace with --device (a device, a mount point such as /, "
			     "or the loop device of an image)", path);
out:
	bp_tracefs_close(&tf);
	bp_trace_signals_off();
	bp_collect_free(c);
out_dev:
	bp_dev_free(&dev);
	return ret;
}
