/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * show.h --- the printing side of dump and verify, implemented by each stage
 *
 * cli/cmd-dump.c and cli/cmd-verify.c parse the command line and pick the
 * stage by the file's magic; each function below prints (text or JSON on
 * stdout, errors on stderr) and returns an exit code from exitcodes.h.
 */
#ifndef BP_SHOW_H
#define BP_SHOW_H

enum bp_sort {
	BP_SORT_DEFAULT = 0,	/* time for traces, disk for packs */
	BP_SORT_TIME,
	BP_SORT_DISK,
	BP_SORT_SIZE,
};

struct bp_show_opts {
	int json;
	enum bp_sort sort;
	int bytes;		/* raw byte counts instead of human sizes */
};

/* --sort=time|disk|size; 0 or -EINVAL (cli/cmd-dump.c). */
int bp_parse_sort(const char *arg, enum bp_sort *sort);

/* trace/show-trace.c */
int bp_dump_trace(const char *path, const struct bp_show_opts *o);
/* relayout/show-verify-trace.c: contiguity of a trace's boot set on device */
int bp_verify_trace(const char *trace, const char *device, const struct bp_show_opts *o);
/* readahead-pack/writer/show-pack.c */
int bp_dump_pack(const char *path, const struct bp_show_opts *o);
/*
 * readahead-pack/writer/show-verify-pack.c: stale entries and contiguity of a
 * pack on device; with trace (may be NULL), every block the trace read by
 * owner, in the pack or cut by its budget (exit 3 otherwise).
 */
int bp_verify_pack(const char *pack, const char *trace, const char *device,
		   const struct bp_show_opts *o);

#endif /* BP_SHOW_H */
