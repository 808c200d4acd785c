// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * show-verify-trace.c --- bootpack verify --trace: contiguity of a boot set on a device
 */
#include <stdio.h>
#include <time.h>

#include "bp_et.h"
#include "cli.h"
#include "devspec.h"
#include "jsonwrt.h"
#include "log.h"
#include "relayout.h"
#include "show.h"
#include "strutils.h"
#include "tracefile.h"

/* -v: what was opened and what the trace is; -vv: every traced file. */
static void say_more(const struct bp_dev *dev, const char *path, const struct bp_trace *t)
{
	char when[32], a[32];
	time_t created = (time_t)t->hdr.created;
	struct tm tm;
	uint64_t bytes;
	size_t i, j;

	bp_log_info("%s resolves to %s (%s, UUID %s)", dev->spec, dev->path, dev->type,
		    dev->uuid ? dev->uuid : "none");
	if (!gmtime_r(&created, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(when, sizeof(when), "?");
	bp_log_info("%s: trace of %s (source: %s), taken %s on Linux %s: %zu files, %zu "
		    "metadata ranges", path, t->hdr.device ? t->hdr.device : "?",
		    t->hdr.source ? t->hdr.source : "?", when, t->hdr.kernel ? t->hdr.kernel : "?",
		    t->nfiles, t->nmeta);
	if (bp_log_level() < BP_LOG_DEBUG)
		return;
	for (i = 0; i < t->nfiles; i++) {
		for (bytes = 0, j = 0; j < t->files[i].nranges; j++)
			bytes += t->files[i].ranges[j].length;
		bp_log_debug("%s: inode %u, %s traced in %zu range%s", t->files[i].path,
			     t->files[i].ino, bp_size_human(bytes, a, sizeof(a)), t->files[i].nranges,
			     t->files[i].nranges == 1 ? "" : "s");
	}
}

int bp_verify_trace(const char *trace_path, const char *device, const struct bp_show_opts *o)
{
	struct bp_verify_report r;
	struct bp_err err = { 0 };
	struct bp_trace *t = NULL;
	struct bp_dev dev;
	char a[32], b[32], c[32];
	errcode_t rc;
	int ret;

	ret = bp_cli_open_dev_trace(device, trace_path, &dev, &t);
	if (ret)
		return ret;
	say_more(&dev, trace_path, t);
	rc = bp_verify_run(dev.path, t, 0, &r, &err);
	if (rc) {
		ret = bp_fail(&err);
		goto out;
	}
	if (o->json) {
		struct bp_json j;

		bp_json_init(&j, stdout, 1);
		bp_json_open_object(&j, NULL);
		bp_json_open_object(&j, "verify");
		bp_json_string(&j, "device", dev.path);
		bp_json_string(&j, "trace", trace_path);
		bp_json_u64(&j, "block_size", r.block_size);
		bp_json_u64(&j, "files", r.files);
		bp_json_u64(&j, "dirs", r.dirs);
		bp_json_u64(&j, "skipped", r.skipped);
		bp_json_u64(&j, "blocks", r.blocks);
		bp_json_u64(&j, "bytes", r.blocks * r.block_size);
		bp_json_u64(&j, "runs", r.runs);
		bp_json_u64(&j, "discontiguities", r.discontiguities);
		bp_json_u64(&j, "discontiguities_fixed_metadata", r.discontig_fixed);
		bp_json_u64(&j, "in_order_bytes", r.in_order_blocks * r.block_size);
		bp_json_u64(&j, "largest_run_bytes", r.largest_run * r.block_size);
		bp_json_u64(&j, "first_block", r.first_block);
		bp_json_u64(&j, "last_block", r.last_block);
		bp_json_close_object(&j);
		bp_json_close_object(&j);
		bp_json_finish(&j);
	} else if (bp_log_level() > BP_LOG_ERR) {	/* -q: errors only */
		printf("%s: boot set of %llu files and %llu directories (%llu traced files "
		       "skipped)\n",
		       dev.path, (unsigned long long)r.files, (unsigned long long)r.dirs,
		       (unsigned long long)r.skipped);
		printf("  bytes:            %s in %llu runs, blocks %llu-%llu\n",
		       bp_size_str(r.blocks * r.block_size, o->bytes, a, sizeof(a)),
		       (unsigned long long)r.runs, (unsigned long long)r.first_block,
		       (unsigned long long)r.last_block);
		printf("  in order:         %s; largest run %s\n",
		       bp_size_str(r.in_order_blocks * r.block_size, o->bytes, b, sizeof(b)),
		       bp_size_str(r.largest_run * r.block_size, o->bytes, c, sizeof(c)));
		printf("  discontiguities:  %llu%s", (unsigned long long)r.discontiguities,
		       r.discontiguities ? "" : " (one sequential stream)");
		if (r.discontig_fixed)
			printf(" (%llu over fixed metadata, unavoidable; %llu avoidable)",
			       (unsigned long long)r.discontig_fixed,
			       (unsigned long long)(r.discontiguities - r.discontig_fixed));
		printf("\n");
	}
	ret = BP_EX_OK;
out:
	bp_trace_free(t);
	bp_dev_free(&dev);
	return ret;
}
