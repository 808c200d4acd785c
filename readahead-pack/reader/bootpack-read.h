/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bootpack-read.h --- bootpack-read's settings, shared by the program's files
 *
 * bootpack-read-opts.c fills them: the defaults, then the options, then
 * bootpack.conf where no option was given, then the kernel command line
 * where no option was given. bootpack-read.c reads the pack with them as a
 * service, bootpack-read-init.c as PID 1. The engine is reader-*.c.
 */
#ifndef BP_BOOTPACK_READ_H
#define BP_BOOTPACK_READ_H

#include <stdint.h>

#include "reader.h"

struct bp_read_settings {
	struct bp_reader_opts o;
	const char *config;
	const char *probe;	/* the probe file of 'bootpack setup', "none" for none */
	int no_exec, as_init, background;
	uint64_t head_start_ms;
	/* set on the command line: wins over the configuration file */
	int cl_pack, cl_init;
	struct bp_reader_conf cl;	/* the options that are settings of bootpack.conf too */
	char conf_pack[256], conf_init[256];
	unsigned int conf_bad_line;
	int conf_rc;
};

void bp_read_defaults(struct bp_read_settings *s);
/* The service's command line: -1 to go on, else the exit status (help, version, usage). */
int bp_read_parse_args(struct bp_read_settings *s, int argc, char **argv);
/* As PID 1: the index of the first word that goes to init. */
int bp_read_parse_init_args(struct bp_read_settings *s, int argc, char **argv);
void bp_read_apply_conf(struct bp_read_settings *s);
void bp_read_apply_cmdline(struct bp_read_settings *s, const struct bp_reader_cmdline *cl);

/* Load the pack, read it, log one summary. Returns an exit status (exitcodes.h). */
int bp_read_run(struct bp_read_settings *s);
/* bootpack=trace: the root disk's readahead off for this boot, logged. */
void bp_read_trace_boot(const struct bp_read_settings *s);
/*
 * The head start (bootpack-read-wait.c): the process that forked the reader
 * waits, at most ms, until the child's stream is under way.
 */
struct bp_read_wait {
	uint64_t ms;
	int fd[2];
};

/* --head-start-ms with "auto" resolved for the root's disk. */
uint64_t bp_read_head_start_ms(const struct bp_read_settings *s);
/* Before fork(): a pipe when ms > 0 (none if it cannot be made: no wait). */
void bp_read_wait_init(struct bp_read_wait *w, uint64_t ms);
/* In the child: o->streaming ends the parent's wait. */
void bp_read_wait_child(struct bp_read_wait *w, struct bp_reader_opts *o);
/* In the parent: wait for the child's stream, its end, or w->ms. */
void bp_read_wait_parent(struct bp_read_wait *w);
/* As PID 1: fork the reader, exec init. Returns only if no init could be exec'd. */
int bp_read_init_main(int argc, char **argv);

#endif /* BP_BOOTPACK_READ_H */
