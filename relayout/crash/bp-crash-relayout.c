// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-crash-relayout.c --- run the relayout engine through the crash-injection io_manager
 *
 *   bp-crash-relayout [--undo FILE] [--whole-files] [--region START] IMAGE TRACE
 *
 * bp_relayout_run() with opts.io = crash_io_manager: BP_CRASH_AT=N cuts the
 * power at the N-th write (exit 99), BP_CRASH_COUNT=FILE counts the writes of
 * a complete run (crash_io.h), BP_CRASH_SIGNAL_AT=N sends it SIGTERM at the
 * N-th write. Exit 0 after a complete run, 1 on an engine error (message on
 * stderr), 2 on bad usage, 32 when a signal stopped it ("stopped" on stdout
 * when writes had begun: consistent and marked clean).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "bperr.h"
#include "crash_io.h"
#include "relayout.h"
#include "tracefile.h"

static volatile int canceled;

static void on_signal(int sig)
{
	(void)sig;
	canceled = 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "undo", required_argument, NULL, 'z' },
		{ "whole-files", no_argument, NULL, 'w' },
		{ "region", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct bp_relayout_opts o;
	struct bp_relayout_report rep;
	struct bp_err err = { 0 };
	struct bp_trace *t = NULL;
	errcode_t rc;
	int c;

	memset(&o, 0, sizeof(o));
	while ((c = getopt_long(argc, argv, "z:wr:", longopts, NULL)) != -1) {
		switch (c) {
		case 'z':
			o.undo_file = optarg;
			break;
		case 'w':
			o.whole_files = 1;
			break;
		case 'r':
			o.region_start = strtoull(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "Usage: %s [--undo FILE] [--whole-files] [--region START] "
					"IMAGE TRACE\n",
				argv[0]);
			return 2;
		}
	}
	if (optind != argc - 2) {
		fprintf(stderr, "Usage: %s [--undo FILE] [--whole-files] [--region START] IMAGE TRACE\n",
			argv[0]);
		return 2;
	}
	initialize_ext2_error_table();
	initialize_bp_error_table();
	rc = bp_trace_load(argv[optind + 1], &t, &err);
	if (rc) {
		fprintf(stderr, "bp-crash-relayout: %s: %s\n", argv[optind + 1], bp_err_str(&err));
		return 1;
	}
	o.device = argv[optind];
	o.trace = t;
	o.io = crash_io_manager;
	o.cancel = &canceled;
	signal(SIGTERM, on_signal);
	rc = bp_relayout_run(&o, &rep, &err);
	bp_trace_free(t);
	if (rc == BP_ET_CANCELED) {
		printf("%s: %s\n", rep.stopped ? "stopped" : "canceled", bp_err_str(&err));
		return 32;
	}
	if (rc) {
		fprintf(stderr, "bp-crash-relayout: %s: %s\n", o.device, bp_err_str(&err));
		return 1;
	}
	printf("moved %llu blocks (%llu tree) of %llu files, %llu dirs; evicted %llu blocks; "
	       "region %llu+%llu; discontiguities %llu -> %llu\n",
	       (unsigned long long)rep.blocks_to_move, (unsigned long long)rep.tree_blocks,
	       (unsigned long long)rep.files_moved, (unsigned long long)rep.dirs_moved,
	       (unsigned long long)rep.evicted_blocks, (unsigned long long)rep.region_start, (unsigned long long)rep.region_len,
	       (unsigned long long)rep.discontig_before, (unsigned long long)rep.discontig_after);
	printf("engine: %llu writes, %llu barriers, %llu superblock writes; crash_io: %llu writes, "
	       "%llu flushes\n",
	       (unsigned long long)rep.writes, (unsigned long long)rep.barriers,
	       (unsigned long long)rep.sb_writes, (unsigned long long)crash_io_writes(),
	       (unsigned long long)crash_io_flushes());
	if (rep.nothing_to_do)
		printf("nothing to do\n");
	bp_relayout_report_free(&rep);
	return 0;
}
