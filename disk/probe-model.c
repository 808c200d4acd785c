// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probe-model.c --- the disk model nearest to a probe's measurements
 *
 * Each model of bp_disk_models[] is asked what it would have measured: the
 * probe's own far reads (the same offsets, from the same seed) and its
 * sequential reads are charged to the model (bp_model_charge()), behind the
 * kernel's request limit as the real reads were. So a model is compared on
 * cmd_ms, rate_mbs, max_request and kind (and a disk's seek and rotation)
 * through the one implementation bench and the nbdkit filter use, and a
 * model added to the table needs no code here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probe.h"

#define MIN_WINDOW (4ULL << 20)		/* the reader's default: a few maximal requests */
#define MAX_WINDOW (1ULL << 30)
#define DEFAULT_REQUEST (1ULL << 20)
#define DEFAULT_PAIRS 16

/* The model behind this device's queue: requests split at max_sectors_kb. */
static void behind_queue(const struct bp_disk_model *m, const struct bp_probe *p,
			 struct bp_disk_model *mm)
{
	*mm = *m;
	if (p->sys_max_request >= BP_PROBE_IO && p->sys_max_request < mm->max_request)
		mm->max_request = p->sys_max_request;
}

void bp_probe_predict(const struct bp_disk_model *m, const struct bp_probe *p,
		      struct bp_probe_pred *out)
{
	double v[BP_PROBE_LAT_MAX], w[BP_PROBE_PAIRS_MAX], t = 0.0;
	struct bp_model_state st;
	struct bp_disk_model mm;
	struct bp_io io = { 0 };
	uint64_t x = p->seed ^ BP_PROBE_PAIR_SALT, size = p->size / BP_PROBE_IO * BP_PROBE_IO;
	uint64_t n, i, req, count;

	memset(out, 0, sizeof(*out));
	behind_queue(m, p, &mm);
	out->disk = m->kind == BP_DISK_HDD;
	/* the probe's rule on a cold volume: the near walk's fetches look like seeks */
	out->rotational = out->disk || m->chunk;
	out->max_request = mm.max_request;
	if (p->whole_tested && out->max_request > p->whole_tested)
		out->max_request = p->whole_tested;	/* the most the probe could see */
	/* the probe tries powers of two: usb2-stick's 120 KiB shows as 64 KiB */
	for (req = BP_PROBE_WHOLE_MIN; req * 2 <= out->max_request; req *= 2)
		;
	if (out->max_request >= BP_PROBE_WHOLE_MIN)
		out->max_request = req;
	if (size < 2 * BP_PROBE_IO)
		return;

	/* the pairs, then the far reads, on one state: what the device went through */
	bp_model_init(&st, &mm);
	io.length = BP_PROBE_IO;
	n = p->cold.n ? p->cold.n : DEFAULT_PAIRS;
	if (n > BP_PROBE_PAIRS_MAX)
		n = BP_PROBE_PAIRS_MAX;
	for (i = 0; i < n; i++) {
		io.offset = bp_probe_rand_off(&x, size, BP_PROBE_IO);
		v[i] = bp_model_charge(&st, &io, NULL);
		w[i] = bp_model_charge(&st, &io, NULL);
	}
	out->cold_ms = bp_probe_median(v, n) * 1e3;
	out->reread_ms = bp_probe_median(w, n) * 1e3;

	x = p->seed;
	n = p->far.n ? p->far.n : 64;
	if (n > BP_PROBE_LAT_MAX)
		n = BP_PROBE_LAT_MAX;
	for (i = 0; i < n; i++) {
		io.offset = bp_probe_rand_off(&x, size, BP_PROBE_IO);
		v[i] = bp_model_charge(&st, &io, NULL);
	}
	bp_model_free(&st);
	out->far_ms = bp_probe_median(v, n) * 1e3;
	bp_model_free(&st);

	req = p->seq_request ? p->seq_request : DEFAULT_REQUEST;
	count = p->seq_bytes / req;
	if (count < 4)
		count = 4;
	bp_model_init(&st, &mm);
	io.length = req;
	for (i = 0; i < count; i++) {
		io.offset = p->seq_offset + i * req;
		t += bp_model_charge(&st, &io, NULL);
	}
	bp_model_free(&st);
	out->rate_mbs = t > 0 ? (double)(count * req) / t / 1e6 : 0.0;
}

static double log_ratio(double a, double b)
{
	if (a <= 0 || b <= 0)
		return 0.0;	/* not measured: no evidence either way */
	return log(a / b);
}

double bp_probe_distance(const struct bp_probe *p, const struct bp_probe_pred *pred)
{
	double d2 = 0.0, r;

	r = log_ratio(p->far.ms, pred->far_ms);
	d2 += r * r;
	r = log_ratio(p->rate_mbs, pred->rate_mbs);
	d2 += r * r;
	if (p->max_request && pred->max_request) {
		r = log2((double)p->max_request / (double)pred->max_request) / 2.0;
		d2 += r * r;
	}
	if (!!p->rotational != !!pred->rotational)
		d2 += 1.0;
	/* a rotating disk against a disk model: its own cache, which the models do
	 * not have, answers the re-read; no evidence either way */
	if (!(p->rotational && pred->disk) && p->cold.ms > 0 && p->reread.ms > 0 &&
	    pred->cold_ms > 0 && pred->reread_ms > 0) {
		r = (log_ratio(p->cold.ms, p->reread.ms) - log_ratio(pred->cold_ms,
								      pred->reread_ms)) / 2.0;
		d2 += r * r;
	}
	return sqrt(d2);
}

size_t bp_probe_rank(const struct bp_probe *p, const struct bp_disk_model **rank, double *dist,
		     size_t n)
{
	struct bp_probe_pred pred;
	size_t k = 0, i, j;
	double d;

	for (i = 0; bp_disk_models[i] && n; i++) {
		bp_probe_predict(bp_disk_models[i], p, &pred);
		d = bp_probe_distance(p, &pred);
		/* insertion, stable (the table's order breaks ties); the n nearest are kept */
		j = k < n ? k++ : n;
		for (; j > 0 && dist[j - 1] > d; j--) {
			if (j < n) {
				rank[j] = rank[j - 1];
				dist[j] = dist[j - 1];
			}
		}
		if (j < n) {
			rank[j] = bp_disk_models[i];
			dist[j] = d;
		}
	}
	return k;
}

uint64_t bp_probe_reader_request(const struct bp_probe *p)
{
	uint64_t r = p->max_request, pow2 = BP_PROBE_IO;

	/*
	 * The probe tries powers of two: n taken whole, and the queue's limit
	 * between n and 2n is the device's command (usb-storage's 120 KiB), not
	 * the power of two below it (64 KiB: twice the commands).
	 */
	if (r && p->sys_max_request > r && p->sys_max_request < 2 * r)
		return p->sys_max_request / BP_PROBE_IO * BP_PROBE_IO;
	if (p->sys_max_request >= BP_PROBE_IO && (!r || p->sys_max_request < r))
		r = p->sys_max_request;
	if (r < BP_PROBE_IO)
		return 0;
	while (pow2 * 2 <= r)
		pow2 *= 2;
	return pow2;
}

/*
 * A few maximal requests keep a disk that serves one at a time streaming
 * (MIN_WINDOW, the reader's default); a device whose random reads gain from
 * a deeper queue gets as many requests as the depth where the gain stops.
 */
uint64_t bp_probe_reader_window(const struct bp_probe *p)
{
	uint64_t req = bp_probe_reader_request(p), w, depth = 1;
	double qd1 = p->far.ms > 0 ? 1e3 / p->far.ms : 0.0;
	size_t i;

	if (!req)
		req = DEFAULT_REQUEST;
	for (i = 0; i < BP_PROBE_NQD && qd1 > 0; i++) {
		/* this depth counts if it served half again what the last one did */
		double prev = i ? p->qd[i - 1].iops : qd1;

		if (p->qd[i].depth && p->qd[i].iops >= 1.5 * prev)
			depth = p->qd[i].depth;
		else
			break;
	}
	w = req * depth;
	if (w < MIN_WINDOW)
		w = MIN_WINDOW;
	if (w > MAX_WINDOW)
		w = MAX_WINDOW;
	return w;
}

int bp_probe_format_kv(const struct bp_probe *p, char *buf, size_t len)
{
	const struct bp_disk_model *rank[1];
	double dist[1] = { 0.0 };
	size_t n, i;
	int k;

	/* the nearest alone: rank() keeps the n best of the table */
	n = bp_probe_rank(p, rank, dist, 1);
	k = snprintf(buf, len,
		     "# Written by 'bootpack setup' from 'bootpack probe %s'; bootpack-read\n"
		     "# takes max_request and in_flight from it. See bootpack-probe(8).\n"
		     "model=%s\ndistance=%.3f\nnext_ms=%.4f\nnear_ms=%.4f\nfar_ms=%.4f\n",
		     p->path, n ? rank[0]->name : "", dist[0], p->seq.ms, p->near.ms, p->far.ms);
	for (i = 0; i < BP_PROBE_NQD && k >= 0 && (size_t)k < len; i++)
		k += snprintf(buf + k, len - (size_t)k, "qd%u_iops=%.0f\n", p->qd[i].depth,
			      p->qd[i].iops);
	if (k >= 0 && (size_t)k < len)
		k += snprintf(buf + k, len - (size_t)k,
			      "rate_mbs=%.1f\ncmd_ms=%.4f\nrotational=%d\nmax_request=%llu\n"
			      "in_flight=%llu\n", p->rate_mbs, p->whole_saving_ms, p->rotational,
			      (unsigned long long)bp_probe_reader_request(p),
			      (unsigned long long)bp_probe_reader_window(p));
	return k >= 0 && (size_t)k < len ? 0 : -1;
}
