// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-standin.c --- test helper: a stand-in init for bootpack-read as PID 1
 *
 *   BP_MARK=FILE bp-standin [ARGS...]
 *
 * Writes its PID and "args:ARGS" to FILE, then reaps every child (as PID 1
 * of a PID namespace the reader's child is one, and every orphan) for at
 * most 20 s, and appends "others-done" or "others-running". A C program,
 * not a script: it runs in a bare root with no shell.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t timed_out;

/*
 * A hook of the sanitizer runtime (unused in a plain build). In a bare root
 * (no /proc) LeakSanitizer cannot stop the world at exit: it reads
 * /proc/PID/task, and without it ends the run with a fatal error (exit 1).
 * ASAN_OPTIONS=detect_leaks=0 cannot say so there: the runtime reads its
 * options from /proc/self/environ, not from environ(7). So the leak check
 * is turned off from inside where /proc is missing; with /proc it runs.
 */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return access("/proc/self/task", R_OK) != 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

int main(int argc, char **argv)
{
	const char *mark = getenv("BP_MARK");
	struct sigaction sa;
	FILE *f;
	int i;

	if (!mark)
		return 2;
	f = fopen(mark, "w");
	if (!f)
		return 1;
	fprintf(f, "%d\nargs:", (int)getpid());
	for (i = 1; i < argc; i++)
		fprintf(f, "%s%s", i > 1 ? " " : "", argv[i]);
	fprintf(f, "\n");
	fflush(f);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: wait() returns EINTR */
	sigaction(SIGALRM, &sa, NULL);
	alarm(20);
	while (!timed_out) {
		if (wait(NULL) < 0 && errno == ECHILD)
			break;
	}
	fprintf(f, "%s\n", timed_out ? "others-running" : "others-done");
	fclose(f);
	return 0;
}
