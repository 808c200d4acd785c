// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * show-verify-pack.c --- bootpack verify --pack PACK DEV: stale entries, contiguity on disk
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "devspec.h"
#include "jsonwrt.h"
#include "log.h"
#include "pack-build.h"
#include "show-common.h"
#include "pack-layout.h"
#include "pack-verify.h"
#include "show.h"
#include "strutils.h"

#define MAX_TEXT_ROWS 50	/* stale rows printed in text mode; -v and JSON list all */

static void cover_json(struct bp_json *j, const char *trace, const struct bp_pack_cover *v);

static void print_json(const char *pack, const char *device, const struct bp_pack *p,
		       const struct bp_pack_check *c, const struct bp_pack_layout *l,
		       const char *trace, const struct bp_pack_cover *v)
{
	const struct bp_pack_info *in = bp_pack_info(p);
	struct bp_json j;
	char uuid[37];
	uint32_t i;
	int s;

	bp_uuid_str(in->uuid, uuid);
	bp_json_init(&j, stdout, 1);
	bp_json_open_object(&j, NULL);
	bp_json_open_object(&j, "verify");
	bp_json_string(&j, "pack", pack);
	bp_json_string(&j, "device", device);
	bp_json_string(&j, "uuid", uuid);
	bp_json_bool(&j, "uuid_match", c->uuid_match);
	bp_json_u64(&j, "entries", in->nentries);
	bp_json_u64(&j, "files", in->nfiles);
	bp_json_u64(&j, "meta_ranges", in->nmeta);
	bp_json_u64(&j, "bytes", in->total_bytes);
	bp_json_u64(&j, "stale_entries", c->stale_entries);
	bp_json_u64(&j, "stale_files", c->stale_files);
	bp_json_u64(&j, "stale_bytes", c->stale_bytes);
	bp_json_open_object(&j, "stale_by_reason");
	for (s = 1; s < BP_PACK_STALE_NR; s++)
		bp_json_u64(&j, bp_pack_stale_name(s), c->count[s]);
	bp_json_close_object(&j);
	bp_json_u64(&j, "discontiguities", l->discontig);
	bp_json_u64(&j, "reading_order_seeks", l->reading_seeks);
	bp_json_u64(&j, "gap_bytes", l->gap_bytes);
	bp_json_u64(&j, "spread", l->file_phys_end - l->file_phys_min);
	if (trace)
		cover_json(&j, trace, v);
	bp_json_close_object(&j);
	bp_json_open_array(&j, "stale");
	for (i = 0; i < in->nentries; i++) {
		struct bp_pack_entry e;

		if (c->state[i] == BP_PACK_FRESH)
			continue;
		bp_pack_entry(p, i, &e);
		bp_json_open_object(&j, NULL);
		bp_json_string(&j, "path", e.path);
		bp_json_u64(&j, "offset", e.offset);
		bp_json_u64(&j, "length", e.length);
		bp_json_string(&j, "reason", bp_pack_stale_name(c->state[i]));
		bp_json_close_object(&j);
	}
	bp_json_close_array(&j);
	bp_json_close_object(&j);
	bp_json_finish(&j);
}

static void print_text(const char *pack, const char *device, const struct bp_pack *p,
		       const struct bp_pack_check *c, const struct bp_pack_layout *l, int bytes)
{
	const struct bp_pack_info *in = bp_pack_info(p);
	uint64_t spread = l->file_phys_end - l->file_phys_min;
	char uuid[37], b1[32], b2[32], b3[32];
	/* -v: every stale entry; -vv: every entry, fresh ones too. */
	uint32_t i, shown = 0, max_rows = bp_log_level() >= BP_LOG_INFO ? UINT32_MAX : MAX_TEXT_ROWS;
	int s, fresh_too = bp_log_level() >= BP_LOG_DEBUG;

	bp_uuid_str(in->uuid, uuid);
	printf("Pack:        %s: %u entries, %u files, %u metadata ranges, %s\n", pack,
	       in->nentries, in->nfiles, in->nmeta,
	       bp_size_str(in->total_bytes, bytes, b1, sizeof(b1)));
	printf("Filesystem:  %s, UUID %s\n", device, uuid);
	printf("Stale:       %llu entries (%s) in %llu files", (unsigned long long)c->stale_entries,
	       bp_size_str(c->stale_bytes, bytes, b1, sizeof(b1)),
	       (unsigned long long)c->stale_files);
	for (s = 1; s < BP_PACK_STALE_NR; s++)
		if (c->count[s])
			printf(", %s %llu", bp_pack_stale_name(s), (unsigned long long)c->count[s]);
	printf("\n");
	for (i = 0; i < in->nentries && shown < max_rows; i++) {
		struct bp_pack_entry e;

		if (c->state[i] == BP_PACK_FRESH && !fresh_too)
			continue;
		bp_pack_entry(p, i, &e);
		printf("  %-11s %s %llu+%llu\n", bp_pack_stale_name(c->state[i]), e.path,
		       (unsigned long long)e.offset, (unsigned long long)e.length);
		shown += c->state[i] != BP_PACK_FRESH;
	}
	if (shown < c->stale_entries)
		printf("  ... %llu more (-v or --json lists all)\n",
		       (unsigned long long)(c->stale_entries - shown));
	printf("Contiguity:  %llu discontiguities in first-access order; %llu seeks in reading "
	       "order (%s skipped)\n", (unsigned long long)l->discontig,
	       (unsigned long long)l->reading_seeks,
	       bp_size_str(l->gap_bytes, bytes, b2, sizeof(b2)));
	printf("Spread:      file entries span %s on disk for %s of data (%.1f%% dense)\n",
	       bp_size_str(spread, bytes, b3, sizeof(b3)),
	       bp_size_str(l->file_bytes, bytes, b1, sizeof(b1)),
	       spread ? 100.0 * (double)l->file_bytes / (double)spread : 100.0);
}

static void cover_json(struct bp_json *j, const char *trace, const struct bp_pack_cover *v)
{
	uint32_t k;

	bp_json_open_object(j, "trace");
	bp_json_string(j, "path", trace);
	bp_json_open_object(j, "blocks_by_owner");
	for (k = 0; k < BP_COVER_NR; k++) {
		if (!v->read[k])
			continue;
		bp_json_open_object(j, bp_cover_kind_name(k));
		bp_json_u64(j, "read", v->read[k]);
		bp_json_u64(j, "packed", v->packed[k]);
		bp_json_u64(j, "cut", v->cut[k]);
		bp_json_u64(j, "missing", v->missing[k]);
		bp_json_close_object(j);
	}
	bp_json_close_object(j);
	bp_json_u64(j, "missing", v->missing_total);
	bp_json_u64(j, "journal_blocks", v->journal);
	bp_json_u64(j, "past_end_blocks", v->past_end);
	bp_json_u64(j, "gone_blocks", v->gone);
	bp_json_u64(j, "gone_files", v->gone_files);
	bp_json_u64(j, "requests", v->requests);
	bp_json_u64(j, "seeks", v->seeks);
	bp_json_u64(j, "min_requests", v->min_requests);
	bp_json_u64(j, "min_seeks", v->min_seeks);
	bp_json_close_object(j);
}

static void cover_text(const char *trace, const struct bp_pack_cover *v)
{
	size_t i;
	uint32_t k;

	printf("Trace:       %s: the blocks it read, where they are now, by owner\n", trace);
	for (k = 0; k < BP_COVER_NR; k++)
		if (v->read[k])
			printf("  %-9s %8llu read, %8llu in the pack, %6llu cut by the budget, "
			       "%6llu missing\n", bp_cover_kind_name(k),
			       (unsigned long long)v->read[k], (unsigned long long)v->packed[k],
			       (unsigned long long)v->cut[k], (unsigned long long)v->missing[k]);
	if (v->journal || v->past_end || v->gone || v->gone_files)
		printf("  not counted: %llu journal blocks (never packed), %llu past the "
		       "filesystem, %llu whose owner is gone, %llu files gone\n",
		       (unsigned long long)v->journal, (unsigned long long)v->past_end,
		       (unsigned long long)v->gone, (unsigned long long)v->gone_files);
	for (i = 0; i < v->nexamples; i++)
		printf("  missing:   %s block %llu%s%s\n", bp_cover_kind_name(v->example[i].kind),
		       (unsigned long long)v->example[i].block, v->example[i].path ? " of " : "",
		       v->example[i].path ? v->example[i].path : "");
	if (v->missing_total > v->nexamples)
		printf("  ... %llu more missing\n",
		       (unsigned long long)(v->missing_total - v->nexamples));
	printf("Requests:    %llu read requests, %llu seeks in reading order; the layout "
	       "allows %llu requests, %llu seeks\n", (unsigned long long)v->requests,
	       (unsigned long long)v->seeks, (unsigned long long)v->min_requests,
	       (unsigned long long)v->min_seeks);
}

int bp_verify_pack(const char *pack, const char *trace, const char *device,
		   const struct bp_show_opts *o)
{
	struct bp_pack_check c = { 0 };
	struct bp_pack_cover v;
	struct bp_pack_layout l;
	struct bp_err err = { 0 };
	struct bp_dev dev = { 0 };
	struct bp_pack *p = NULL;
	struct bp_trace *t = NULL;
	ext2_filsys fs = NULL;
	int ret;

	ret = bp_pack_cli_load(pack, &p);
	if (ret)
		return ret;
	if (trace) {
		ret = bp_cli_load_trace(trace, &t);
		if (ret) {
			bp_pack_free(p);
			return ret;
		}
	}
	if (bp_dev_resolve_ext(device, &dev, &err) ||
	    bp_fs_open_ro(dev.path, &fs, &err) || bp_pack_check(fs, p, &c, &err) ||
	    (t && (bp_trace_upgrade(fs, t, NULL, &err) || bp_pack_cover(fs, p, t, &v, &err)))) {
		ret = bp_fail(&err);
		goto out;
	}
	bp_log_info("%s resolves to %s (%s, UUID %s)", dev.spec, dev.path, dev.type,
		    dev.uuid ? dev.uuid : "none");
	if (bp_pack_layout(p, &l) < 0) {
		bp_log_error("%s: out of memory", pack);
		ret = BP_EX_FAILURE;
		goto out;
	}
	if (o->json) {
		print_json(pack, device, p, &c, &l, trace, &v);
	} else if (bp_log_level() > BP_LOG_ERR) {	/* -q: errors only */
		print_text(pack, device, p, &c, &l, o->bytes);
		if (t)
			cover_text(trace, &v);
	}
	ret = c.stale_entries == 0 ? BP_EX_OK : BP_EX_STALE;
	if (t && v.missing_total) {
		bp_log_error("verify: %llu blocks the trace %s read are not in the pack %s (and "
			     "not cut by its budget): write it again with 'bootpack pack --trace "
			     "%s -o %s %s'", (unsigned long long)v.missing_total, trace, pack,
			     trace, pack, device);
		ret = BP_EX_STALE;
	}
out:
	bp_trace_free(t);
	bp_pack_check_free(&c);
	if (fs)
		ext2fs_close_free(&fs);
	bp_dev_free(&dev);
	bp_pack_free(p);
	return ret;
}
