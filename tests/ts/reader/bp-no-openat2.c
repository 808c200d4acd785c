// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-no-openat2 --- run a command on a "kernel without openat2(2)"
 *
 *   bp-no-openat2 COMMAND [ARG...]
 *
 * Installs a seccomp filter under which openat2(2) fails with ENOSYS, as on
 * Linux < 5.6, then execs COMMAND (the filter is inherited by its children).
 * bootpack-read then takes its openat(2) fallback, where only its own
 * checks (S_ISREG, st_dev, inode, generation) keep it on the root's
 * filesystem: the tests/ts/reader cases use it to exercise those checks.
 * Exit status: COMMAND's; 77 if seccomp is not available or the filter
 * does not take (the case is then skipped), 99 on a usage error.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "c.h"

#ifndef SYS_openat2
#define SYS_openat2 437		/* the same number on every architecture */
#endif

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };

	if (argc < 2) {
		fprintf(stderr, "usage: bp-no-openat2 COMMAND [ARG...]\n");
		return 99;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		printf("SKIP: seccomp filter: %s\n", strerror(errno));
		return 77;
	}
	/* Check that it took: openat2 with a null how must now say ENOSYS. */
	if (syscall(SYS_openat2, -1, "", NULL, 0) >= 0 || errno != ENOSYS) {
		printf("SKIP: openat2 still answers under the seccomp filter\n");
		return 77;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "bp-no-openat2: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
