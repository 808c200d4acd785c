// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-calib.c --- time the fixed CPU loop (cpuloop.h) on the host.
 *
 * Usage: bench-calib ITERS [REPEATS [EXEC]]
 * Prints one line per repeat: "iters=N wall_ns=W cpu_ns=C big_wall_ns=
 * big_cpu_ns= exec_wall_ns= exec_cpu_ns= sum=S" (the 256 KiB and the 8 MiB
 * table, then fork/fault/exec rounds of the static binary EXEC, default
 * /bin/busybox: cpuloop.h; exec_* are 0 if EXEC did not run). The
 * harness takes the minimum CPU time (the host is shared: CPU time is what
 * the loop costs, wall time includes other engineers' load).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpuloop.h"

int main(int argc, char **argv)
{
	uint64_t iters, wall[2], cpu[2], ew, ec, sum;
	const char *exe;
	int rep, n;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-calib ITERS [REPEATS]\n");
		return 2;
	}
	iters = strtoull(argv[1], NULL, 0);
	n = argc > 2 ? atoi(argv[2]) : 3;
	exe = argc > 3 ? argv[3] : "/bin/busybox";
	for (rep = 0; rep < n; rep++) {
		sum = cpuloop_time(iters, wall, cpu);
		if (cpuloop_exec(CPULOOP_EXEC_ROUNDS, exe, &ew, &ec))
			ew = ec = 0;
		printf("iters=%" PRIu64 " wall_ns=%" PRIu64 " cpu_ns=%" PRIu64 " big_wall_ns=%"
		       PRIu64 " big_cpu_ns=%" PRIu64 " exec_wall_ns=%" PRIu64 " exec_cpu_ns=%"
		       PRIu64 " sum=%" PRIx64 "\n",
		       iters, wall[0], cpu[0], wall[1], cpu[1], ew, ec, sum);
	}
	return 0;
}
