// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-loop-model.c --- one boot of make bench-loop on the disk models
 *
 * Usage: bench-loop-model PACK BOOT MODEL...
 *
 * PACK: the pack's ranges, "OFFSET LENGTH" a line (bytes on the disk), or
 * "-" for a boot without the reader (a control or traced boot). BOOT: the
 * boot's reads in first-access order on the layout now, "OFFSET LENGTH" a
 * line (bootpack bench --stream-out's "now" lines). A read boot's requests
 * are the reader's stream (the pack's ranges in 4 KiB pages, sorted, those
 * that touch merged: the reader's one pass over the disk) and then the
 * boot's reads outside them, in the boot's order (the misses, consecutive
 * pieces merged); a boot without the reader issues its reads as they come.
 * Each request list is charged on each MODEL with bench/diskmodel.c (QD1,
 * a fresh head, the misses charged where the pack's pass left it). Prints
 * "MODEL MS REQUESTS MISSES PACK_MS" a line: the modelled read time in ms,
 * the requests charged, the misses among them, the time of the pack's pass
 * (0 without the reader).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskmodel.h"

#define PG 4096ULL

struct list {
	struct bp_io *v;
	size_t n, cap;
};

static void push(struct list *l, uint64_t off, uint64_t len)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v) {
			perror("bench-loop-model");
			exit(1);
		}
	}
	l->v[l->n].offset = off;
	l->v[l->n].length = len;
	l->v[l->n].type = BP_IO_READ;
	l->n++;
}

static void load(const char *path, struct list *l)
{
	unsigned long long off, len;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "bench-loop-model: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (fscanf(f, "%llu %llu", &off, &len) == 2)
		if (len)
			push(l, off, len);
	fclose(f);
}

static int by_offset(const void *a, const void *b)
{
	const struct bp_io *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* the pack's ranges in pages, sorted, touching ones merged */
static void pages(struct list *p)
{
	size_t i, k = 0;

	for (i = 0; i < p->n; i++) {
		uint64_t end = (p->v[i].offset + p->v[i].length + PG - 1) / PG * PG;

		p->v[i].offset = p->v[i].offset / PG * PG;
		p->v[i].length = end - p->v[i].offset;
	}
	qsort(p->v, p->n, sizeof(*p->v), by_offset);
	for (i = 0; i < p->n; i++) {
		struct bp_io *last = k ? &p->v[k - 1] : NULL;

		if (last && p->v[i].offset <= last->offset + last->length) {
			uint64_t end = p->v[i].offset + p->v[i].length;

			if (end > last->offset + last->length)
				last->length = end - last->offset;
		} else {
			p->v[k++] = p->v[i];
		}
	}
	p->n = k;
}

/* add [off, off+len) less the pack's ranges to out, in order */
static void outside(const struct list *p, uint64_t off, uint64_t len, struct list *out)
{
	uint64_t end = off + len;
	size_t i;

	for (i = 0; i < p->n && off < end; i++) {
		uint64_t ps = p->v[i].offset, pe = ps + p->v[i].length;

		if (pe <= off)
			continue;
		if (ps >= end)
			break;
		if (ps > off) {
			struct bp_io *last = out->n ? &out->v[out->n - 1] : NULL;

			if (last && last->offset + last->length == off)
				last->length += ps - off;
			else
				push(out, off, ps - off);
		}
		off = pe;
	}
	if (off < end) {
		struct bp_io *last = out->n ? &out->v[out->n - 1] : NULL;

		if (last && last->offset + last->length == off)
			last->length += end - off;
		else
			push(out, off, end - off);
	}
}

int main(int argc, char **argv)
{
	struct list pack = { 0 }, boot = { 0 }, ios = { 0 };
	size_t misses = 0, i;
	int reader;

	if (argc < 4) {
		fprintf(stderr, "Usage: bench-loop-model PACK|- BOOT MODEL...\n");
		return 2;
	}
	reader = strcmp(argv[1], "-") != 0;
	load(argv[2], &boot);
	if (reader) {
		load(argv[1], &pack);
		pages(&pack);
		for (i = 0; i < pack.n; i++)
			push(&ios, pack.v[i].offset, pack.v[i].length);
		for (i = 0; i < boot.n; i++)
			outside(&pack, boot.v[i].offset, boot.v[i].length, &ios);
		misses = ios.n - pack.n;
	} else {
		for (i = 0; i < boot.n; i++)
			push(&ios, boot.v[i].offset, boot.v[i].length);
	}
	for (i = 3; i < (size_t)argc; i++) {
		const struct bp_disk_model *m = bp_disk_model_find(argv[i]);
		struct bp_model_result r;

		if (!m) {
			fprintf(stderr, "bench-loop-model: no disk model %s (bootpack bench --help)\n",
				argv[i]);
			return 2;
		}
		struct bp_model_state st;
		double pack_s = 0;
		size_t j;

		bp_model_init(&st, m);
		for (j = 0; j < ios.n; j++) {
			bp_model_charge(&st, &ios.v[j], NULL);
			if (j + 1 == pack.n) {
				bp_model_totals(&st, &r);
				pack_s = r.seconds;
			}
		}
		bp_model_totals(&st, &r);
		bp_model_free(&st);
		printf("%s %.0f %zu %zu %.0f\n", m->name, r.seconds * 1000.0, ios.n, misses,
		       pack_s * 1000.0);
	}
	free(pack.v);
	free(boot.v);
	free(ios.v);
	return 0;
}
