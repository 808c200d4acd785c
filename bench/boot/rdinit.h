/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdinit.h --- start a boot bench reader as an init= wrapper
 *
 *   NAME [--list FILE] [--root DIR] [--no-exec] [--init PATH] [--] [INIT-ARGS...]
 *
 * rd_start() forks. The parent execs the real init at once, with the same
 * arguments the kernel gave (INIT-ARGS): --init PATH, else the kernel
 * command line's bench.init=PATH (which the kernel puts in init's
 * environment), else /sbin/init; or, with --no-exec, waits for the reader
 * and exits with its status. The child returns from rd_start() and reads.
 * As PID 1 nothing stops init from being exec'd: bad options are ignored.
 */
#ifndef BP_RDINIT_H
#define BP_RDINIT_H

#include <stdint.h>

struct rd_opts {
	const char *name;	/* for messages */
	const char *list;	/* default given by the reader */
	const char *root;	/* list paths are under this directory ("" for /) */
	int no_exec;
};

void rd_start(int argc, char **argv, struct rd_opts *o);

/* A line on stderr and, when writable, /dev/kmsg: "NAME: [ms] message". */
void rd_log(const struct rd_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * readahead(2) of the whole of [off, off+len): since Linux 4.10 one call
 * reads at most the device's largest request (max_sectors_kb) or its
 * read_ahead_kb, whichever is larger, so the range is asked for in pieces
 * of max_sectors_kb of the disk under root (128 KiB when unknown), as
 * ureadahead does since 2019. Returns 0 if every call succeeded.
 */
int rd_readahead(const struct rd_opts *o, int fd, uint64_t off, uint64_t len);

/* Milliseconds on CLOCK_MONOTONIC. */
double rd_now_ms(void);

#endif /* BP_RDINIT_H */
