// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * show-pack.c --- bootpack dump PACK: header, one row per range, summary
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "jsonwrt.h"
#include "log.h"
#include "pack-build.h"
#include "show-common.h"
#include "pack-layout.h"
#include "show.h"
#include "strutils.h"

struct row {
	uint64_t key_pos, key_phys, key_len;
	uint32_t idx;
};

static enum bp_sort sort_key;

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	switch (sort_key) {
	case BP_SORT_TIME:
		if (x->key_pos != y->key_pos)
			return x->key_pos < y->key_pos ? -1 : 1;
		break;
	case BP_SORT_SIZE:
		if (x->key_len != y->key_len)
			return x->key_len > y->key_len ? -1 : 1;
		break;
	default:
		break;
	}
	return x->idx < y->idx ? -1 : x->idx > y->idx;	/* stored order: disk */
}

static struct row *sorted_rows(const struct bp_pack *p, int meta, uint32_t n, enum bp_sort s)
{
	struct row *r = malloc((n ? n : 1) * sizeof(*r));
	uint32_t i;

	if (!r)
		return NULL;
	for (i = 0; i < n; i++) {
		if (meta) {
			struct bp_pack_meta m;

			bp_pack_meta(p, i, &m);
			r[i] = (struct row){ m.budget_pos, m.offset, m.length, i };
		} else {
			struct bp_pack_entry e;

			bp_pack_entry(p, i, &e);
			r[i] = (struct row){ e.budget_pos, e.phys, e.length, i };
		}
	}
	sort_key = s;
	qsort(r, n, sizeof(*r), cmp_row);
	return r;
}

static void time_str(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

static void dump_json(const char *path, const struct bp_pack *p, const struct bp_pack_layout *l,
		      const struct row *mr, const struct row *er)
{
	const struct bp_pack_info *in = bp_pack_info(p);
	char uuid[37], fb[128];
	struct bp_json j;
	uint32_t i;

	bp_uuid_str(in->uuid, uuid);
	bp_json_init(&j, stdout, 1);
	bp_json_open_object(&j, NULL);
	bp_json_open_object(&j, "pack");
	bp_json_string(&j, "path", path);
	bp_json_u64(&j, "version", in->version);
	bp_json_string(&j, "compat", bp_pack_compat_str(in->feature_compat, fb, sizeof(fb)));
	bp_json_string(&j, "incompat", bp_pack_incompat_str(in->feature_incompat, fb, sizeof(fb)));
	bp_json_u64(&j, "ro_compat", in->feature_ro_compat);
	bp_json_string(&j, "uuid", uuid);
	bp_json_u64(&j, "block_size", in->block_size);
	bp_json_u64(&j, "page_size", in->page_size);
	snprintf(fb, sizeof(fb), "%u:%u", in->dev_major, in->dev_minor);
	bp_json_string(&j, "dev", fb);
	bp_json_i64(&j, "created", in->created);
	bp_json_u64(&j, "budget", in->budget);
	bp_json_string(&j, "budget_bound", bp_budget_bound_name(BP_PACK_BUDGET_BOUND(in)));
	bp_json_u64(&j, "total_bytes", in->total_bytes);
	bp_json_u64(&j, "cut_bytes", in->cut_bytes);
	bp_json_u64(&j, "body_size", in->body_size);
	bp_json_u64(&j, "body_raw_size", in->body_raw_size);
	bp_json_u64(&j, "file_size", (uint64_t)in->hdr_size + in->body_size);
	bp_json_u64(&j, "meta_ranges", in->nmeta);
	bp_json_u64(&j, "entries", in->nentries);
	bp_json_u64(&j, "files", in->nfiles);
	bp_json_close_object(&j);

	bp_json_open_array(&j, "meta");
	for (i = 0; i < in->nmeta; i++) {
		struct bp_pack_meta m;

		bp_pack_meta(p, mr[i].idx, &m);
		bp_json_open_object(&j, NULL);
		bp_json_u64(&j, "offset", m.offset);
		bp_json_u64(&j, "length", m.length);
		bp_json_u64(&j, "budget_pos", m.budget_pos);
		bp_json_close_object(&j);
	}
	bp_json_close_array(&j);

	bp_json_open_array(&j, "entries");
	for (i = 0; i < in->nentries; i++) {
		struct bp_pack_entry e;

		bp_pack_entry(p, er[i].idx, &e);
		bp_json_open_object(&j, NULL);
		bp_json_string(&j, "path", e.path);
		bp_json_u64(&j, "offset", e.offset);
		bp_json_u64(&j, "length", e.length);
		bp_json_u64(&j, "phys", e.phys);
		bp_json_u64(&j, "budget_pos", e.budget_pos);
		bp_json_u64(&j, "ino", e.ino);
		bp_json_u64(&j, "generation", e.generation);
		bp_json_u64(&j, "size", e.size);
		bp_json_i64(&j, "mtime", e.mtime_sec);
		bp_json_u64(&j, "mtime_nsec", e.mtime_nsec);
		bp_json_bool(&j, "changed", !!(e.flags & BP_PACK_ENTRY_F_CHANGED));
		bp_json_close_object(&j);
	}
	bp_json_close_array(&j);

	bp_json_open_object(&j, "summary");
	bp_json_u64(&j, "ranges", l->ranges);
	bp_json_u64(&j, "files", l->files);
	bp_json_u64(&j, "bytes", l->meta_bytes + l->file_bytes);
	bp_json_u64(&j, "meta_bytes", l->meta_bytes);
	bp_json_u64(&j, "file_bytes", l->file_bytes);
	bp_json_double(&j, "bytes_per_entry",
		       l->ranges ? (double)(in->hdr_size + in->body_size) / (double)l->ranges : 0);
	bp_json_u64(&j, "discontiguities", l->discontig);
	bp_json_u64(&j, "reading_order_seeks", l->reading_seeks);
	bp_json_u64(&j, "gap_bytes", l->gap_bytes);
	bp_json_u64(&j, "spread", l->file_phys_end - l->file_phys_min);
	bp_json_close_object(&j);
	bp_json_close_object(&j);
	bp_json_finish(&j);
}

static void dump_text(const char *path, const struct bp_pack *p, const struct bp_pack_layout *l,
		      const struct row *mr, const struct row *er, int bytes)
{
	const struct bp_pack_info *in = bp_pack_info(p);
	char uuid[37], b1[32], b2[32], b3[32], fb[128], tb[64];
	uint64_t fsize = (uint64_t)in->hdr_size + in->body_size;
	uint32_t i;

	bp_uuid_str(in->uuid, uuid);
	time_str(in->created, tb, sizeof(tb));
	printf("Pack:          %s\n", path);
	printf("Version:       %u\n", in->version);
	printf("Features:      compat %s", bp_pack_compat_str(in->feature_compat, fb, sizeof(fb)));
	printf("; incompat %s; ro_compat 0x%x\n",
	       bp_pack_incompat_str(in->feature_incompat, fb, sizeof(fb)), in->feature_ro_compat);
	printf("Page size:     %u%s\n", in->page_size,
	       in->feature_compat & BP_PACK_COMPAT_PAGE_SIZE ? "" : " (not recorded: older pack)");
	printf("Filesystem:    UUID %s, block size %u, device %u:%u\n", uuid, in->block_size,
	       in->dev_major, in->dev_minor);
	printf("Created:       %s\n", tb);
	printf("Budget:        %s%s%s%s, %s to read, %s cut\n",
	       in->budget ? bp_size_str(in->budget, bytes, b1, sizeof(b1)) : "none",
	       BP_PACK_BUDGET_BOUND(in) ? " (auto, bound by " : "",
	       BP_PACK_BUDGET_BOUND(in) ? bp_budget_bound_name(BP_PACK_BUDGET_BOUND(in)) : "",
	       BP_PACK_BUDGET_BOUND(in) ? ")" : "",
	       bp_size_str(in->total_bytes, bytes, b2, sizeof(b2)),
	       bp_size_str(in->cut_bytes, bytes, b3, sizeof(b3)));
	printf("Size:          %s (body %s, %s before deflate)\n",
	       bp_size_str(fsize, bytes, b1, sizeof(b1)),
	       bp_size_str(in->body_size, bytes, b2, sizeof(b2)),
	       bp_size_str(in->body_raw_size, bytes, b3, sizeof(b3)));
	printf("Records:       %u metadata ranges, %u entries, %u files\n", in->nmeta,
	       in->nentries, in->nfiles);

	if (in->nmeta) {
		printf("\n%-5s %14s %10s %12s\n", "META", "OFFSET", "LENGTH", "BUDGET-POS");
		for (i = 0; i < in->nmeta; i++) {
			struct bp_pack_meta m;

			bp_pack_meta(p, mr[i].idx, &m);
			printf("%-5u %14llu %10s %12llu\n", mr[i].idx, (unsigned long long)m.offset,
			       bp_size_str(m.length, bytes, b1, sizeof(b1)),
			       (unsigned long long)m.budget_pos);
		}
	}
	if (in->nentries) {
		printf("\n%14s %12s %10s %10s %10s %s\n", "PHYS", "OFFSET", "LENGTH", "INO", "SIZE",
		       "PATH");
		for (i = 0; i < in->nentries; i++) {
			struct bp_pack_entry e;

			bp_pack_entry(p, er[i].idx, &e);
			printf("%14llu %12llu %10s %10u %10s %s%s\n", (unsigned long long)e.phys,
			       (unsigned long long)e.offset,
			       bp_size_str(e.length, bytes, b1, sizeof(b1)), e.ino,
			       bp_size_str(e.size, bytes, b2, sizeof(b2)), e.path,
			       e.flags & BP_PACK_ENTRY_F_CHANGED ? "  (changed since the trace)" : "");
		}
	}
	printf("\n%llu ranges, %llu files, %s (metadata %s); %.1f bytes per entry; "
	       "%llu discontiguities in first-access order, spread %s\n",
	       (unsigned long long)l->ranges, (unsigned long long)l->files,
	       bp_size_str(l->meta_bytes + l->file_bytes, bytes, b1, sizeof(b1)),
	       bp_size_str(l->meta_bytes, bytes, b2, sizeof(b2)),
	       l->ranges ? (double)fsize / (double)l->ranges : 0.0,
	       (unsigned long long)l->discontig,
	       bp_size_str(l->file_phys_end - l->file_phys_min, bytes, b3, sizeof(b3)));
}

int bp_dump_pack(const char *path, const struct bp_show_opts *o)
{
	struct bp_pack *p = NULL;
	struct bp_pack_layout l;
	struct row *mr = NULL, *er = NULL;
	enum bp_sort s = o->sort == BP_SORT_DEFAULT ? BP_SORT_DISK : o->sort;
	int ret;

	ret = bp_pack_cli_load(path, &p);
	if (ret)
		return ret;
	mr = sorted_rows(p, 1, bp_pack_nmeta(p), s);
	er = sorted_rows(p, 0, bp_pack_nentries(p), s);
	if (!mr || !er || bp_pack_layout(p, &l) < 0) {
		bp_log_error("%s: out of memory", path);
		ret = BP_EX_FAILURE;
		goto out;
	}
	if (o->json)
		dump_json(path, p, &l, mr, er);
	else
		dump_text(path, p, &l, mr, er, o->bytes);
	ret = BP_EX_OK;
out:
	free(mr);
	free(er);
	bp_pack_free(p);
	return ret;
}
