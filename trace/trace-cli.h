/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-cli.h --- what the files of the trace verb share
 *
 *   cmd-trace.c     options and dispatch
 *   session.c       trace a command: fork, exec, signals, stop tracing
 *   sources.c       --from-boot, --import, --from-kernel, --merge
 *   boot-readahead.c  --from-boot after a bootpack=trace boot: readahead back on
 *   buffer.c        read the kernel's trace buffer (and --save-text)
 *   output.c        events to the trace file: resolve, header, save, summary;
 *                   output checks; root and device helpers
 *   trace-setup.c   --setup [--install]
 * Dependencies run one way: cmd-trace.c calls the others, which call
 * output.c, buffer.c and the engine (trace-engine.h), never cmd-trace.c.
 */
#ifndef BP_TRACE_CLI_H
#define BP_TRACE_CLI_H

#include <stdint.h>

#include "devspec.h"
#include "trace-engine.h"

#define BP_TRACE_DEFAULT_BUFFER_KB (32U * 1024)	/* per CPU */

enum bp_trace_mode {
	BP_TRACE_COMMAND,
	BP_TRACE_BOOT,
	BP_TRACE_IMPORT,
	BP_TRACE_MERGE,
	BP_TRACE_SETUP,
	BP_TRACE_KERNEL,
};

struct bp_trace_opts {
	enum bp_trace_mode mode;
	const char *output;
	const char *device;
	const char *import;
	const char *record;	/* --from-kernel=RECORD */
	const char *dev;	/* --dev MAJ:MIN */
	uint64_t offset;	/* --offset: bytes into the device or image (fsident.h) */
	const char *save_text;
	const char *unit_dir;
	unsigned int buffer_kb;
	int install;
};

/* session.c: trace argv while it runs. */
int bp_trace_command(const struct bp_trace_opts *o, char **argv);
/* Until _off: a terminating signal stops tracing on tf (and is recorded);
 * _off returns that signal, or 0. */
void bp_trace_signals_on(struct bp_tracefs *tf);
int bp_trace_signals_off(void);

/* sources.c */
/* boot-readahead.c: after a bootpack=trace boot, the traced disk's readahead back on. */
void bp_trace_boot_readahead(uint32_t kdev);
int bp_trace_from_boot(const struct bp_trace_opts *o);
int bp_trace_from_text(const struct bp_trace_opts *o);		/* --import */
int bp_trace_from_kernel(const struct bp_trace_opts *o);	/* --from-kernel */
int bp_trace_merge_files(const struct bp_trace_opts *o, int n, char **paths);

/* buffer.c: parse tf's text trace into c (keeping --save-text). */
int bp_trace_read_buffer(struct bp_tracefs *tf, struct bp_collect *c,
			 const struct bp_trace_opts *o);
/* Warn about the events this kernel lacks or that we cannot read. */
void bp_trace_warn_events(const struct bp_tracefs *tf);

/* output.c */
/* 0 if root, else says why WHAT needs root and returns BP_EX_REFUSED. */
int bp_trace_require_root(const char *what);
/* --device: resolved (a mount point too) and its dev_t if a block device. */
int bp_trace_open_device(const char *spec, struct bp_dev *dev, uint32_t *kdev);
/* The one device the events read files from; else says why, exit code. */
int bp_trace_pick_device(const struct bp_collect *c, uint32_t *kdev, const char *opt);
/* Boot time (Unix ns) from /proc/stat's btime, or INT64_MIN. */
int64_t bp_trace_boot_ns(void);
/* Every source's tail: events of kdev, resolved on devpath, saved to -o. */
int bp_trace_finish(struct bp_collect *c, uint32_t kdev, const char *devpath,
		    int64_t written_after, const char *source, const struct bp_trace_opts *o);
/* Log what a written trace holds (st may be NULL). */
void bp_trace_summary(const struct bp_trace *t, const char *out,
		      const struct bp_resolve_stats *st);
/* -o and --save-text usable, and none of the n inputs; before any work. */
int bp_trace_check_outputs(const struct bp_trace_opts *o, int n, char **paths);

/* trace-setup.c: --setup [--install]: kernel arguments and the units. */
int bp_trace_setup(const char *device, unsigned int buffer_kb, int install,
		   const char *unit_dir);

#endif /* BP_TRACE_CLI_H */
