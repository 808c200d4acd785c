// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-strategies.c --- the boot bench's four strategies, modelled and ranked
 *
 *   bp-strategies [-J] [-m MODEL]... [-p PACK] [--stream-out FILE] [--svg FILE]
 *                 --trace TRACE IMAGE
 *
 * The boot bench's model (bench-boot.sh model, model-vs-real.py): the disk
 * streams of stock, sreadahead, ureadahead and bootpack (strategy.h) built
 * from one trace, charged on the disk models of `bootpack bench` and ranked
 * by modelled time; --svg draws the trace's two layouts as a bootchart. Built
 * in the tree, never installed: a user judges relayout with `bootpack bench`,
 * which models no rival reader. Nothing is written to IMAGE. Exit 0, 1 on
 * failure, 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "diskmodel.h"
#include "exitcodes.h"
#include "fsident.h"
#include "jsonwrt.h"
#include "log.h"
#include "pack-build.h"
#include "strategy.h"
#include "stream.h"
#include "strutils.h"
#include "svg.h"
#include "tracefile.h"

#define MAX_MODELS 16

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage:\n"
		" bp-strategies [options] --trace <trace> <image>\n"
		"\n"
		"The boot bench's model: the reads of four strategies (stock, sreadahead,\n"
		"ureadahead, bootpack) built from one trace, charged on the disk models and\n"
		"ranked by modelled time. Not installed; 'bootpack bench' is the user's tool.\n"
		"\n"
		"Options:\n"
		" -t, --trace <file>      the trace of the boot\n"
		" -m, --model <name>      a disk model (repeatable; \"all\": every one; default:\n"
		"                           eee-flash, hdd-5k160 and sata-ssd)\n"
		" -p, --pack <file>       the pack bootpack-read reads (default: one built\n"
		"                           from the trace and <image> now)\n"
		" -J, --json              one JSON object on stdout\n"
		"     --svg <file>        draw the traced layout and the layout now on the\n"
		"                           first model (default hdd-5k160) as a bootchart SVG\n"
		"     --stream-out <file> write the strategies' request streams, one\n"
		"                           \"STRATEGY OFFSET LENGTH\" line per read\n"
		" -h, --help              display this help\n"
		"\n"
		"Models:\n");
	for (i = 0; bp_disk_models[i]; i++)
		fprintf(f, " %-12s %s\n", bp_disk_models[i]->name, bp_disk_models[i]->description);
}

static int bad_usage(void)
{
	fprintf(stderr, "Try 'bp-strategies --help' for more information.\n");
	return BP_EX_USAGE;
}

static int fail(const struct bp_err *err)
{
	bp_log_error("%s", bp_err_str(err));
	return BP_EX_FAILURE;
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

static void json_model(struct bp_json *j, const struct bp_disk_model *m,
		       const struct bp_stream *strat)
{
	struct bp_model_result res[BP_STRATEGY_NR];
	int rank[BP_STRATEGY_NR], k;

	run_strategies(m, strat, res, rank);
	bp_json_open_object(j, NULL);
	bp_json_string(j, "model", m->name);
	bp_json_string(j, "description", m->description);
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
	bp_json_close_object(j);
}

static void report(const char *trace_path, const char *image, const struct bp_disk_model **models,
		   size_t nmodels, const struct bp_stream *strat, int json)
{
	struct bp_model_result res[BP_STRATEGY_NR];
	int rank[BP_STRATEGY_NR], k;
	size_t i;

	if (json) {
		struct bp_json j;

		bp_json_init(&j, stdout, 1);
		bp_json_open_object(&j, NULL);
		bp_json_open_object(&j, "ranking");
		bp_json_string(&j, "trace", trace_path);
		bp_json_string(&j, "device", image);
		bp_json_open_array(&j, "models");
		for (i = 0; i < nmodels; i++)
			json_model(&j, models[i], strat);
		bp_json_close_array(&j);
		bp_json_close_object(&j);
		bp_json_close_object(&j);
		bp_json_finish(&j);
		return;
	}
	printf("%s on %s: stock, sreadahead, ureadahead read the traced layout; bootpack the "
	       "pack\n(xSTOCK: time over the stock boot's physical limit)\n\n"
	       "%-10s %-10s %9s %9s %8s %8s %8s %8s %7s\n", trace_path, image, "MODEL",
	       "STRATEGY", "TIME_S", "POSITION", "READS", "COMMANDS", "SEEKS", "MB", "xSTOCK");
	for (i = 0; i < nmodels; i++) {
		run_strategies(models[i], strat, res, rank);
		for (k = 0; k < BP_STRATEGY_NR; k++)
			printf("%-10s %-10s %9.3f %9.3f %8zu %8llu %8llu %8.1f %7.2f\n",
			       models[i]->name, bp_strategy_names[k], res[k].seconds,
			       res[k].positioning, strat[k].n, (unsigned long long)res[k].commands,
			       (unsigned long long)res[k].seeks, (double)res[k].bytes / 1e6,
			       over_stock_limit(res, k));
		printf("%-10s ordering:", models[i]->name);
		for (k = 0; k < BP_STRATEGY_NR; k++)
			printf("%s %s", k ? " <" : "", bp_strategy_names[rank[k]]);
		printf("\n");
	}
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

/* The traced layout and the layout now, the streams of `bootpack bench`, side by side. */
static int write_svg(const char *path, const char *trace_path, const char *image,
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
	snprintf(title, sizeof(title), "the boot's reads on %s", m->name);
	snprintf(sub, sizeof(sub), "%s on %s; %s; modelled, back to back in first-access order",
		 trace_path, image, m->description);
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

/* The strategies' streams, for replay through the disk filter. */
static int write_streams(const char *path, const struct bp_stream *strat)
{
	FILE *f = fopen(path, "w");
	size_t i;
	int k;

	if (!f) {
		bp_log_error("%s: %s", path, strerror(errno));
		return BP_EX_FAILURE;
	}
	for (k = 0; k < BP_STRATEGY_NR; k++)
		for (i = 0; i < strat[k].n; i++)
			fprintf(f, "%s %llu %llu\n", bp_strategy_names[k],
				(unsigned long long)strat[k].ios[i].offset,
				(unsigned long long)strat[k].ios[i].length);
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
static int open_pack(const char *path, const char *image, ext2_filsys fs,
		     const struct bp_trace *t, struct bp_pack **ret, void **buf)
{
	struct bp_pack_opts po = { .budget = BP_PACK_DEFAULT_BUDGET };
	struct bp_err err = { 0 };
	char uuid[BP_UUID_STR_LEN];
	const char *why = NULL;
	size_t len = 0;
	int rc;

	if (!path) {
		if (bp_pack_build(fs, t, &po, buf, &len, NULL, &err))
			return fail(&err);
		if (bp_pack_open_mem(*buf, len, ret)) {
			bp_log_error("the pack built from the trace does not parse");
			return BP_EX_FAILURE;
		}
		return BP_EX_OK;
	}
	rc = bp_pack_load_file(path, BP_PACK_LOAD_ANY_OWNER, ret, &why);
	if (rc == -ENOENT) {
		bp_log_error("%s: no such pack", path);
		return BP_EX_FAILURE;
	}
	if (rc) {
		bp_log_error("%s: %s", path, why ? why : bp_pack_strerror(rc));
		return BP_EX_FAILURE;
	}
	bp_uuid_str(bp_pack_info(*ret)->uuid, uuid);
	if (bp_fs_check_ident(fs, image, "pack", uuid, bp_pack_info(*ret)->block_size, &err))
		return fail(&err);
	return BP_EX_OK;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "model", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'J' },
		{ "pack", required_argument, NULL, 'p' },
		{ "stream-out", required_argument, NULL, 'S' },
		{ "svg", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct bp_disk_model *models[MAX_MODELS];
	struct bp_stream before = { 0 }, now = { 0 }, strat[BP_STRATEGY_NR] = { { 0 } };
	const char *trace_path = NULL, *pack_path = NULL, *stream_path = NULL, *svg_path = NULL;
	const struct bp_disk_model *svg_model;
	struct bp_err err = { 0 };
	struct bp_pack *pack = NULL;
	struct bp_trace *t = NULL;
	void *pack_buf = NULL;
	ext2_filsys fs = NULL;
	const char *image;
	size_t nmodels = 0;
	int c, json = 0, ret, k;

	bp_log_init("bp-strategies");
	while ((c = getopt_long(argc, argv, "t:m:p:Jh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			trace_path = optarg;
			break;
		case 'm':
			if (bp_disk_models_add(optarg, models, &nmodels, MAX_MODELS)) {
				bp_log_error("unknown disk model '%s'", optarg);
				return bad_usage();
			}
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
		case 'h':
			usage(stdout);
			return BP_EX_OK;
		default:
			return bad_usage();
		}
	}
	if (!trace_path || optind != argc - 1) {
		bp_log_error("a trace (--trace) and one image are expected");
		return bad_usage();
	}
	image = argv[optind];
	svg_model = nmodels ? models[0] : bp_disk_model_find("hdd-5k160");
	if (!nmodels)
		for (; bp_disk_models_default[nmodels] && nmodels < MAX_MODELS; nmodels++)
			models[nmodels] = bp_disk_models_default[nmodels];

	add_error_table(&et_ext2_error_table);
	ret = BP_EX_FAILURE;
	if (bp_trace_load(trace_path, &t, &err) || bp_fs_open_ro(image, &fs, &err) ||
	    bp_fs_check_ident(fs, image, "trace", t->hdr.uuid, t->hdr.block_size, &err)) {
		ret = fail(&err);
		goto out;
	}
	if (bp_stream_build(t, NULL, &before, &err) || bp_stream_build(t, fs, &now, &err)) {
		ret = fail(&err);
		goto out;
	}
	ret = open_pack(pack_path, image, fs, t, &pack, &pack_buf);
	if (ret)
		goto out;
	for (k = 0; k < BP_STRATEGY_NR; k++) {
		struct bp_strategy_in in = { .t = t, .fs = fs, .pack = pack };

		if (bp_strategy_build((enum bp_strategy)k, &in, &strat[k], &err)) {
			ret = fail(&err);
			goto out;
		}
	}
	if (stream_path) {
		ret = write_streams(stream_path, strat);
		if (ret)
			goto out;
	}
	if (svg_path) {
		ret = write_svg(svg_path, trace_path, image, svg_model, &before, &now);
		if (ret)
			goto out;
	}
	report(trace_path, image, models, nmodels, strat, json);
	ret = BP_EX_OK;
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
	return ret;
}
