// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-bench.c --- bootpack bench: model the boot's reads before and after
 *
 * The trace records the layout when it was taken ("traced"); the device
 * shows the layout now ("now", e.g. after relayout). Both streams, in the
 * boot's first-access order, are charged against each disk model and
 * compared with the physical limit, bytes / sequential rate. The four
 * strategies of the boot bench (strategy.h) are charged on the same models
 * and ranked, to compare with the real boots (bench/boot/model-vs-real.py).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "cli.h"
#include "devspec.h"
#include "diskmodel.h"
#include "fsident.h"
#include "jsonwrt.h"
#include "log.h"
#include "pack-build.h"
#include "show-common.h"
#include "strategy.h"
#include "stream.h"
#include "svg.h"
#include "strutils.h"
#include "tracefile.h"

#define MAX_MODELS 16

static void usage(void)
{
	size_t i;

	printf("Usage:\n"
	       " bootpack bench [options] --trace <trace> <device>\n"
	       "\n"
	       "Model the boot's reads, in first-access order, on 2008-era and today's slow\n"
	       "disks: with the layout recorded in the trace (\"traced\") and with the layout\n"
	       "on <device> now (\"now\", e.g. after relayout), against the physical limit\n"
	       "(bytes divided by the sequential rate); and the reads of four strategies\n"
	       "(stock, sreadahead, ureadahead, bootpack), ranked by modelled time. Nothing\n"
	       "is written.\n"
	       "\n"
	       "Options:\n"
	       " -t, --trace <file>      the trace of the boot\n"
	       " -m, --model <name>      a disk model (repeatable; \"all\": every one; default:\n"
	       "                           eee-flash, hdd-5k160 and sata-ssd)\n"
	       " -p, --pack <file>       the pack bootpack-read reads (default: one built\n"
	       "                           from the trace and <device> now)\n"
	       " -J, --json              one JSON object on stdout\n"
	       "     --svg <file>        draw both layouts on the first model (default\n"
	       "                           hdd-5k160) as a bootchart-style SVG\n"
	       "     --stream-out <file> write the request streams, one \"LAYOUT OFFSET LENGTH\"\n"
	       "                           line per read (LAYOUT: traced, now or a strategy)\n"
	       BP_USAGE_COMMON("")
	       "\n"
	       "Models:\n");
	for (i = 0; bp_disk_models[i]; i++)
		printf(" %-12s %s\n", bp_disk_models[i]->name, bp_disk_models[i]->description);
	printf("\nFor more details see bootpack-bench(8).\n");
}

static void print_row(const char *model, const char *layout, const struct bp_model_result *r,
		      const struct bp_stream *s)
{
	printf("%-10s %-7s %9.3f %9.3f %9.3f %9.3f %9.3f %7.2f %8llu %8llu\n", model, layout,
	       r->seconds, r->positioning, r->transfer, r->overhead, r->t_phys,
	       r->t_phys > 0 ? r->seconds / r->t_phys : 0.0, (unsigned long long)r->commands,
	       (unsigned long long)s->discontig);
}

static void json_result(struct bp_json *j, const char *name, const struct bp_model_result *r,
			const struct bp_stream *s)
{
	bp_json_open_object(j, name);
	bp_json_double(j, "seconds", r->seconds);
	bp_json_double(j, "positioning", r->positioning);
	bp_json_double(j, "transfer", r->transfer);
	bp_json_double(j, "overhead", r->overhead);
	bp_json_double(j, "t_phys", r->t_phys);
	bp_json_double(j, "ratio_to_limit", r->t_phys > 0 ? r->seconds / r->t_phys : 0.0);
	bp_json_u64(j, "bytes", r->bytes);
	bp_json_u64(j, "commands", r->commands);
	bp_json_u64(j, "seeks", r->seeks);
	bp_json_u64(j, "fetches", r->fetches);
	bp_json_u64(j, "discontiguities", s->discontig);
	bp_json_close_object(j);
}

/* The strategies on m: results and the ranking by modelled time (ties: in enum order). */
static void run_strategies(const struct bp_disk_model *m, const struct bp_stream *strat,
			   struct bp_model_result *res, int *rank)
{
	int k, i, j;

	for (k = 0; k < BP_STRATEGY_NR; k++) {
		bp_model_run(m, strat[k].ios, strat[k].n, &res[k]);
		rank[k] = k;
	}
	for (i = 1; i < BP_STRATEGY_NR; i++)
		for (j = i; j > 0 && res[rank[j]].seconds < res[rank[j - 1]].seconds; j--) {
			k = rank[j];
			rank[j] = rank[j - 1];
			rank[j - 1] = k;
		}
}

/* Time against the stock boot's physical limit (the boot bench's T_phys). */
static double over_stock_limit(const struct bp_model_result *res, int k)
{
	double t = res[BP_STRATEGY_STOCK].t_phys;

	return t > 0 ? res[k].seconds / t : 0.0;
}

static void json_strategies(struct bp_json *j, const struct bp_stream *strat,
			    const struct bp_model_result *res, const int *rank)
{
	int k;

	bp_json_open_array(j, "strategies");
	for (k = 0; k < BP_STRATEGY_NR; k++) {
		bp_json_open_object(j, NULL);
		bp_json_string(j, "strategy", bp_strategy_names[k]);
		bp_json_double(j, "seconds", res[k].seconds);
		bp_json_double(j, "positioning", res[k].positioning);
		bp_json_double(j, "transfer", res[k].transfer);
		bp_json_double(j, "overhead", res[k].overhead);
		bp_json_double(j, "ratio_to_stock_limit", over_stock_limit(res, k));
		bp_json_u64(j, "bytes", res[k].bytes);
		bp_json_u64(j, "metadata_bytes", strat[k].meta_bytes);
		bp_json_u64(j, "reads", strat[k].n);
		bp_json_u64(j, "commands", res[k].commands);
		bp_json_u64(j, "seeks", res[k].seeks);
		bp_json_u64(j, "fetches", res[k].fetches);
		bp_json_u64(j, "discontiguities", strat[k].discontig);
		bp_json_close_object(j);
	}
	bp_json_close_array(j);
	bp_json_open_array(j, "ordering");
	for (k = 0; k < BP_STRATEGY_NR; k++)
		bp_json_string(j, NULL, bp_strategy_names[rank[k]]);
	bp_json_close_array(j);
}

static int report(const char *trace_path, const struct bp_dev *dev,
		  const struct bp_disk_model **models, size_t nmodels,
		  const struct bp_stream *before, const struct bp_stream *now,
		  const struct bp_stream *strat, int json)
{
	struct bp_model_result rb, rn, rs[BP_STRATEGY_NR];
	int rank[BP_STRATEGY_NR], k;
	char a[32], b[32];
	size_t i;

	if (json) {
		struct bp_json j;

		bp_json_init(&j, stdout, 1);
		bp_json_open_object(&j, NULL);
		bp_json_open_object(&j, "bench");
		bp_json_string(&j, "trace", trace_path);
		bp_json_string(&j, "device", dev->path);
		bp_json_u64(&j, "file_bytes", now->file_bytes);
		bp_json_u64(&j, "metadata_bytes", now->meta_bytes);
		bp_json_u64(&j, "stale_files", now->stale_files);
		bp_json_open_array(&j, "models");
		for (i = 0; i < nmodels; i++) {
			bp_model_run(models[i], before->ios, before->n, &rb);
			bp_model_run(models[i], now->ios, now->n, &rn);
			run_strategies(models[i], strat, rs, rank);
			bp_json_open_object(&j, NULL);
			bp_json_string(&j, "model", models[i]->name);
			bp_json_string(&j, "description", models[i]->description);
			json_result(&j, "traced", &rb, before);
			json_result(&j, "now", &rn, now);
			json_strategies(&j, strat, rs, rank);
			bp_json_close_object(&j);
		}
		bp_json_close_array(&j);
		bp_json_close_object(&j);
		bp_json_close_object(&j);
		bp_json_finish(&j);
		return BP_EX_OK;
	}

	printf("%s on %s: %s of file data and %s of metadata in the boot stream",
	       trace_path, dev->path, bp_size_human(now->file_bytes, a, sizeof(a)),
	       bp_size_human(now->meta_bytes, b, sizeof(b)));
	if (now->stale_files)
		printf(" (%llu traced files changed since: not counted now)",
		       (unsigned long long)now->stale_files);
	printf("\n\n%-10s %-7s %9s %9s %9s %9s %9s %7s %8s %8s\n", "MODEL", "LAYOUT", "TIME_S",
	       "POSITION", "TRANSFER", "OVERHEAD", "T_PHYS", "xLIMIT", "COMMANDS", "DISCONT");
	for (i = 0; i < nmodels; i++) {
		bp_model_run(models[i], before->ios, before->n, &rb);
		bp_model_run(models[i], now->ios, now->n, &rn);
		print_row(models[i]->name, "traced", &rb, before);
		print_row(models[i]->name, "now", &rn, now);
	}
	printf("\nStrategies (stock, sreadahead, ureadahead: the traced layout; bootpack: the pack;"
	       " xSTOCK: time over the stock boot's limit):\n%-10s %-10s %9s %9s %8s %8s %8s %8s %7s\n",
	       "MODEL", "STRATEGY", "TIME_S", "POSITION", "READS", "COMMANDS", "SEEKS", "MB",
	       "xSTOCK");
	for (i = 0; i < nmodels; i++) {
		run_strategies(models[i], strat, rs, rank);
		for (k = 0; k < BP_STRATEGY_NR; k++)
			printf("%-10s %-10s %9.3f %9.3f %8zu %8llu %8llu %8.1f %7.2f\n", models[i]->name,
			       bp_strategy_names[k], rs[k].seconds, rs[k].positioning, strat[k].n,
			       (unsigned long long)rs[k].commands, (unsigned long long)rs[k].seeks,
			       (double)rs[k].bytes / 1e6, over_stock_limit(rs, k));
		printf("%-10s ordering:", models[i]->name);
		for (k = 0; k < BP_STRATEGY_NR; k++)
			printf("%s %s", k ? " <" : "", bp_strategy_names[rank[k]]);
		printf("\n");
	}
	return BP_EX_OK;
}

/* The stream charged on m, request after request, as a timeline. */
static struct bp_svg_req *timeline(const struct bp_disk_model *m, const struct bp_stream *s,
				   struct bp_model_result *res)
{
	struct bp_svg_req *q = calloc(s->n ? s->n : 1, sizeof(*q));
	struct bp_model_state st;
	double t = 0;
	size_t i;

	if (!q)
		return NULL;
	bp_model_init(&st, m);
	for (i = 0; i < s->n; i++) {
		q[i].t = t;
		q[i].dur = bp_model_charge(&st, &s->ios[i], NULL);
		q[i].offset = s->ios[i].offset;
		q[i].length = s->ios[i].length;
		q[i].type = 'R';
		t += q[i].dur;
	}
	bp_model_totals(&st, res);
	bp_model_free(&st);
	return q;
}

static int write_svg(const char *path, const char *trace_path, const struct bp_dev *dev,
		     const struct bp_disk_model *m, const struct bp_stream *before,
		     const struct bp_stream *now)
{
	struct bp_model_result res[2];
	struct bp_svg_run runs[2] = { { 0 } };
	const struct bp_stream *s[2] = { before, now };
	static const char *const name[2] = { "traced layout", "layout now" };
	char note[2][160], title[160], sub[PATH_MAX * 2 + 64], a[32];
	int ret = BP_EX_FAILURE;
	FILE *f = NULL;
	size_t k;

	for (k = 0; k < 2; k++) {
		struct bp_svg_req *q = timeline(m, s[k], &res[k]);

		if (!q)
			goto out;
		snprintf(note[k], sizeof(note[k]),
			 "%.2f s for %s in %llu reads, %llu seeks; limit %.2f s (x%.1f)",
			 res[k].seconds, bp_size_human(res[k].bytes, a, sizeof(a)),
			 (unsigned long long)s[k]->n, (unsigned long long)res[k].seeks,
			 res[k].t_phys, res[k].t_phys > 0 ? res[k].seconds / res[k].t_phys : 0.0);
		runs[k] = (struct bp_svg_run){ .title = name[k], .note = note[k], .reqs = q,
					       .nreqs = s[k]->n, .reader_start = -1,
					       .reader_end = -1, .done = res[k].seconds,
					       .done_label = "reads done" };
	}
	snprintf(title, sizeof(title), "bootpack bench: the boot's reads on %s", m->name);
	snprintf(sub, sizeof(sub), "%s on %s; %s; modelled, back to back in first-access order",
		 trace_path, dev->path, m->description);
	f = fopen(path, "w");
	if (!f) {
		bp_log_error("%s: %s", path, strerror(errno));
		goto out;
	}
	if (bp_svg_write(f, title, sub, runs, 2) | fclose(f)) {
		bp_log_error("%s: write error", path);
		goto out;
	}
	ret = BP_EX_OK;
out:
	free((void *)runs[0].reqs);
	free((void *)runs[1].reqs);
	return ret;
}

/* The streams the models are charged with, for replay through the disk filter. */
static int write_streams(const char *path, const struct bp_stream *before,
			 const struct bp_stream *now, const struct bp_stream *strat)
{
	const struct bp_stream *s[2 + BP_STRATEGY_NR] = { before, now };
	const char *name[2 + BP_STRATEGY_NR] = { "traced", "now" };
	FILE *f = fopen(path, "w");
	size_t i, k;

	for (k = 0; k < BP_STRATEGY_NR; k++) {
		s[2 + k] = &strat[k];
		name[2 + k] = bp_strategy_names[k];
	}
	if (!f) {
		bp_log_error("%s: %s", path, strerror(errno));
		return BP_EX_FAILURE;
	}
	for (k = 0; k < 2 + BP_STRATEGY_NR; k++)
		for (i = 0; i < s[k]->n; i++)
			fprintf(f, "%s %llu %llu\n", name[k], (unsigned long long)s[k]->ios[i].offset,
				(unsigned long long)s[k]->ios[i].length);
	if (ferror(f) | fclose(f)) {
		bp_log_error("%s: write error", path);
		return BP_EX_FAILURE;
	}
	return BP_EX_OK;
}

/*
 * The pack bootpack-read reads: path, which must be of fs; or, without one,
 * the pack `bootpack pack` would write for t on fs now (in memory).
 */
static int open_pack(const char *path, const char *device, ext2_filsys fs,
		     const struct bp_trace *t, struct bp_pack **ret, void **buf)
{
	struct bp_pack_opts po = { .budget = BP_PACK_DEFAULT_BUDGET };
	struct bp_err err = { 0 };
	char uuid[BP_UUID_STR_LEN];
	size_t len = 0;
	int rc;

	if (!path) {
		if (bp_pack_build(fs, t, &po, buf, &len, NULL, &err))
			return bp_fail(&err);
		if (bp_pack_open_mem(*buf, len, ret)) {
			bp_log_error("bench: the pack built from the trace does not parse");
			return BP_EX_FAILURE;
		}
		return BP_EX_OK;
	}
	rc = bp_pack_cli_load(path, ret);
	if (rc)
		return rc;
	bp_uuid_str(bp_pack_info(*ret)->uuid, uuid);
	if (bp_fs_check_ident(fs, device, "pack", uuid, bp_pack_info(*ret)->block_size, &err))
		return bp_fail(&err);
	return BP_EX_OK;
}

int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "model", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'J' },
		{ "pack", required_argument, NULL, 'p' },
		{ "stream-out", required_argument, NULL, 'S' },
		{ "svg", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		BP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const struct bp_disk_model *models[MAX_MODELS];
	struct bp_stream before = { 0 }, now = { 0 }, strat[BP_STRATEGY_NR] = { { 0 } };
	struct bp_err err = { 0 };
	struct bp_pack *pack = NULL;
	void *pack_buf = NULL;
	const char *pack_path = NULL;
	struct bp_trace *t = NULL;
	const char *trace_path = NULL, *stream_path = NULL, *svg_path = NULL;
	const struct bp_disk_model *svg_model = NULL;
	ext2_filsys fs = NULL;
	size_t nmodels = 0, i;
	struct bp_dev dev;
	int c, json = 0, ret, k;

	while ((c = getopt_long(argc, argv, "t:m:p:Jh" BP_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			trace_path = optarg;
			break;
		case 'm':
			if (strcmp(optarg, "all") == 0) {
				for (i = 0; bp_disk_models[i] && nmodels < MAX_MODELS; i++)
					models[nmodels++] = bp_disk_models[i];
				break;
			}
			if (nmodels == MAX_MODELS)
				break;
			models[nmodels] = bp_disk_model_find(optarg);
			if (!models[nmodels]) {
				bp_log_error("bench: unknown disk model '%s'; the models are:",
					     optarg);
				for (i = 0; bp_disk_models[i]; i++)
					fprintf(stderr, "  %-12s %s\n", bp_disk_models[i]->name,
						bp_disk_models[i]->description);
				return bp_errtryhelp("bench");
			}
			nmodels++;
			break;
		case 'J':
			json = 1;
			break;
		case 'p':
			pack_path = optarg;
			break;
		case 'S':
			stream_path = optarg;
			break;
		case 'G':
			svg_path = optarg;
			break;
		BP_CLI_COMMON_CASES(c, usage, "bench");
		}
	}
	if (!trace_path || optind != argc - 1) {
		bp_log_error("bench: a trace (--trace) and one device are expected");
		return bp_errtryhelp("bench");
	}
	if (svg_path && !nmodels)
		svg_model = bp_disk_model_find("hdd-5k160");
	else if (svg_path)
		svg_model = models[0];
	if (!nmodels)
		for (; bp_disk_models_default[nmodels] && nmodels < MAX_MODELS; nmodels++)
			models[nmodels] = bp_disk_models_default[nmodels];

	ret = bp_cli_open_dev_trace(argv[optind], trace_path, &dev, &t);
	if (ret)
		return ret;
	ret = BP_EX_FAILURE;
	if (bp_fs_open_ro(dev.path, &fs, &err) ||
	    bp_fs_check_ident(fs, dev.path, "trace", t->hdr.uuid, t->hdr.block_size, &err)) {
		ret = bp_fail(&err);
		goto out;
	}
	if (bp_stream_build(t, NULL, &before, &err) || bp_stream_build(t, fs, &now, &err)) {
		ret = bp_fail(&err);
		goto out;
	}
	ret = open_pack(pack_path, dev.path, fs, t, &pack, &pack_buf);
	if (ret)
		goto out;
	for (k = 0; k < BP_STRATEGY_NR; k++) {
		struct bp_strategy_in in = { .t = t, .fs = fs, .pack = pack };

		if (bp_strategy_build((enum bp_strategy)k, &in, &strat[k], &err)) {
			ret = bp_fail(&err);
			goto out;
		}
	}
	if (stream_path) {
		ret = write_streams(stream_path, &before, &now, strat);
		if (ret)
			goto out;
	}
	if (svg_path) {
		ret = write_svg(svg_path, trace_path, &dev, svg_model, &before, &now);
		if (ret)
			goto out;
	}
	ret = report(trace_path, &dev, models, nmodels, &before, &now, strat, json);
out:
	for (k = 0; k < BP_STRATEGY_NR; k++)
		bp_stream_free(&strat[k]);
	bp_pack_free(pack);
	free(pack_buf);
	bp_stream_free(&before);
	bp_stream_free(&now);
	if (fs)
		ext2fs_close_free(&fs);
	bp_trace_free(t);
	bp_dev_free(&dev);
	return ret;
}
