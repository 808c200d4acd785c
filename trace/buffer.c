// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * buffer.c --- bootpack trace: read the kernel's trace buffer (tracefs
 * instance or top buffer) into the collector, keeping --save-text
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "outfile.h"
#include "trace-cli.h"

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
int bp_trace_read_buffer(struct bp_tracefs *tf, struct bp_collect *c,
			 const struct bp_trace_opts *o)
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
		return bp_fail(&err);
	if (lost > bp_collect_get_lost(c))
		bp_collect_set_lost(c, lost);
	return 0;
}

/* Say which events this kernel lacks, or prints in a layout we cannot read. */
void bp_trace_warn_events(const struct bp_tracefs *tf)
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
