// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * output.c --- bootpack trace: from collected events to the trace file
 * (resolve, header, save, summary), the output checks, and the root and
 * device helpers every source uses
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bp_et.h"
#include "cli.h"
#include "fsident.h"
#include "log.h"
#include "outfile.h"
#include "strutils.h"
#include "trace-cli.h"

#define MAX_DEVICES 16
#define MAX_MERGE_CHECK 64	/* traces to merge checked against -o */

int bp_trace_require_root(const char *what)
{
	if (geteuid() == 0)
		return 0;
	bp_log_error("trace: %s needs root (it uses tracefs): run it with sudo", what);
	return BP_EX_REFUSED;
}

int bp_trace_open_device(const char *spec, struct bp_dev *dev, uint32_t *kdev)
{
	struct bp_err err = { 0 };
	struct stat st;

	*kdev = 0;
	if (bp_dev_resolve_ext(spec, dev, &err)) {
		bp_dev_free(dev);
		return bp_fail(&err);
	}
	if (stat(dev->path, &st) == 0 && S_ISBLK(st.st_mode))
		*kdev = BP_KDEV(major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

int bp_trace_pick_device(const struct bp_collect *c, uint32_t *kdev, const char *opt)
{
	uint32_t kdevs[MAX_DEVICES];
	size_t i, n = bp_collect_devices(c, kdevs, MAX_DEVICES);

	if (n == 1) {
		*kdev = kdevs[0];
		return 0;
	}
	if (n == 0) {
		bp_log_error("trace: the trace holds no file read from a block device");
		return BP_EX_STALE;
	}
	bp_log_error("trace: the trace read files from %zu block devices; pick one with %s:", n,
		     opt);
	for (i = 0; i < n && i < MAX_DEVICES; i++)
		fprintf(stderr, "  %u:%u\n", BP_KDEV_MAJOR(kdevs[i]), BP_KDEV_MINOR(kdevs[i]));
	return BP_EX_REFUSED;
}

int64_t bp_trace_boot_ns(void)
{
	char line[256];
	long long bt;
	FILE *fp = fopen("/proc/stat", "re");

	if (!fp)
		return INT64_MIN;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "btime %lld", &bt) == 1) {
			fclose(fp);
			return bt * 1000000000LL;
		}
	}
	fclose(fp);
	return INT64_MIN;
}

static void fill_header(struct bp_trace *t, const char *device, uint32_t kdev,
			const char *source)
{
	struct utsname u;

	bp_trace_set_str(&t->hdr.device, device);
	t->hdr.dev_major = BP_KDEV_MAJOR(kdev);
	t->hdr.dev_minor = BP_KDEV_MINOR(kdev);
	bp_trace_set_str(&t->hdr.kernel, uname(&u) == 0 ? u.release : "");
	bp_trace_set_str(&t->hdr.source, source);
	t->hdr.created = (int64_t)time(NULL);
}

void bp_trace_summary(const struct bp_trace *t, const char *out,
		      const struct bp_resolve_stats *st)
{
	uint64_t bytes = 0, mbytes = 0;
	char b1[32], b2[32];
	size_t i, j;

	for (i = 0; i < t->nfiles; i++)
		for (j = 0; j < t->files[i].nranges; j++)
			bytes += t->files[i].ranges[j].length;
	for (i = 0; i < t->nmeta; i++)
		mbytes += t->meta[i].length;
	bp_log_info("trace: %s: %zu files, %s of data, %s of metadata", out, t->nfiles,
		    bp_size_human(bytes, b1, sizeof(b1)), bp_size_human(mbytes, b2, sizeof(b2)));
	if (st)
		bp_log_debug("trace: %zu metadata runs named by owner, in %.1f ms", t->nowned,
			     (double)st->owner_ns / 1e6);
	if (st && (st->deleted || st->nonreg || st->written || st->unnamed))
		bp_log_info("trace: left out %" PRIu64 " deleted, %" PRIu64 " non-regular, %" PRIu64
			    " written during the trace, %" PRIu64 " unreachable inodes",
			    st->deleted, st->nonreg, st->written, st->unnamed);
}

int bp_trace_finish(struct bp_collect *c, uint32_t kdev, const char *devpath,
		    int64_t written_after, const char *source, const struct bp_trace_opts *o)
{
	struct bp_fsloc loc = { devpath, o->offset };
	struct bp_events_stats st;
	struct bp_err err = { 0 };
	struct bp_trace *t;
	errcode_t rc;
	int ret = BP_EX_OK;

	rc = bp_trace_from_events(c, kdev, &loc, written_after, &t, &st, &err);
	if (st.collected && st.lost)
		bp_log_warn("trace: %" PRIu64 " events were lost (the trace buffer overflowed): "
			    "the trace is incomplete; use a bigger buffer (--buffer-size, or "
			    "trace_buf_size= for a boot trace)", st.lost);
	if (st.collected && !st.used_access)
		bp_log_warn("trace: no page-access events (mm_filemap_get_pages, _map_pages, "
			    "_fault; Linux 6.12 or later): ranges include readahead nobody used");
	if (rc)
		return bp_fail(&err);
	fill_header(t, devpath, kdev, source);
	if (bp_trace_save(t, o->output, &err))
		ret = bp_fail(&err);
	else
		bp_trace_summary(t, o->output, &st.res);
	bp_trace_free(t);
	return ret;
}

int bp_trace_check_outputs(const struct bp_trace_opts *o, int n, char **paths)
{
	struct bp_path_ref ins[MAX_MERGE_CHECK + 4];
	struct bp_err err = { 0 };
	size_t k = 0;
	errcode_t rc;
	int i;

	ins[k++] = (struct bp_path_ref){ "device", o->device };
	ins[k++] = (struct bp_path_ref){ "imported text trace", o->import };
	ins[k++] = (struct bp_path_ref){ "kernel record", o->record };
	for (i = 0; i < n && i < MAX_MERGE_CHECK; i++)
		ins[k++] = (struct bp_path_ref){ "trace to merge", paths[i] };
	if (o->save_text && (strcmp(o->save_text, o->output) == 0 ||
			     bp_path_same(o->save_text, o->output))) {
		bp_log_error("trace: %s: named both by -o and by --save-text; choose two names",
			     o->output);
		return bp_errtryhelp("trace");
	}
	rc = bp_outfile_check("the trace", o->output, ins, k, &err);
	if (!rc && o->save_text)
		rc = bp_outfile_check("the text trace", o->save_text, ins, k, &err);
	if (!rc)
		return 0;
	bp_log_error("trace: %s", bp_err_str(&err));
	return rc == BP_ET_PATH_CONFLICT ? bp_errtryhelp("trace") : BP_EX_FAILURE;
}
