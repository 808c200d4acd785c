// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-pack.c --- size and parse time of a synthetic 10,000-entry pack
 *
 * Usage: bench-pack [ENTRIES [ENTRIES_PER_FILE]]
 *
 * Builds a pack shaped like a boot set (paths under /usr/lib, /usr/bin,
 * /etc; 4 KiB-aligned ranges of 4 KiB..1 MiB; increasing physical offsets
 * with gaps; random generations; a few metadata ranges), serializes it raw
 * and deflated, and measures bytes per entry and the CPU time of parsing
 * (bp_pack_open_mem + decoding every record, as bootpack-read does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pack-parse.h"
#include "pack-write.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Open and walk every record; returns a checksum so nothing is optimized out. */
static uint64_t parse_once(const void *buf, size_t len)
{
	struct bp_pack *p;
	struct bp_pack_entry e;
	struct bp_pack_meta m;
	uint64_t sum = 0;
	uint32_t i;

	if (bp_pack_open_mem(buf, len, &p) != 0) {
		fprintf(stderr, "bench-pack: the pack does not parse\n");
		exit(1);
	}
	for (i = 0; i < bp_pack_nmeta(p); i++) {
		bp_pack_meta(p, i, &m);
		sum += m.length;
	}
	for (i = 0; i < bp_pack_nentries(p); i++) {
		bp_pack_entry(p, i, &e);
		sum += e.length + e.path_len;
	}
	bp_pack_free(p);
	return sum;
}

static void measure(const char *what, const void *buf, size_t len, size_t nranges)
{
	double t0, best = 1e9, total = 0;
	uint64_t sum = 0;
	int i, rounds = 50;

	for (i = 0; i < rounds; i++) {
		double dt;

		t0 = cpu_now();
		sum += parse_once(buf, len);
		dt = cpu_now() - t0;
		total += dt;
		if (dt < best)
			best = dt;
	}
	printf("%-8s %9zu bytes  %6.1f bytes/entry  parse: best %.3f ms, mean %.3f ms CPU "
	       "(%d rounds, check %llu)\n", what, len, (double)len / (double)nranges, best * 1e3,
	       total / rounds * 1e3, rounds, (unsigned long long)(sum % 1000));
}

int main(int argc, char **argv)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/bin", "/etc",
					    "/usr/lib/systemd", "/usr/share/locale/en/LC_MESSAGES",
					    "/usr/lib/x86_64-linux-gnu/gconv" };
	size_t nent = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	size_t per = argc > 2 ? strtoul(argv[2], NULL, 10) : 4;
	size_t nfiles, i, nmeta = 64, rawlen, zlen;
	struct bp_pack_wentry *ents;
	struct bp_pack_meta *meta;
	char **paths;
	struct bp_pack_wdata d;
	struct bp_err err = { 0 };
	uint64_t phys = 1ULL << 30, pos = 0, *order;
	void *raw, *z;
	struct rusage ru;

	if (!nent || !per) {
		fprintf(stderr, "usage: bench-pack [ENTRIES [ENTRIES_PER_FILE]]\n");
		return 2;
	}
	nfiles = (nent + per - 1) / per;
	ents = calloc(nent, sizeof(*ents));
	meta = calloc(nmeta, sizeof(*meta));
	paths = calloc(nfiles, sizeof(*paths));
	order = calloc(nent + nmeta, sizeof(*order));
	if (!ents || !meta || !paths || !order)
		return 1;
	for (i = 0; i < nfiles; i++) {
		if (asprintf(&paths[i], "%s/lib%s-%zu.so.%zu", dirs[next() % 6],
			     (next() & 1) ? "systemd-shared" : "bp", i, (size_t)(next() % 9)) < 0)
			return 1;
	}
	/* first-access positions: a random permutation of all ranges */
	for (i = 0; i < nent + nmeta; i++)
		order[i] = i;
	for (i = nent + nmeta - 1; i > 0; i--) {
		size_t j = next() % (i + 1);
		uint64_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < nmeta; i++) {
		meta[i].offset = (1ULL << 20) + i * (1ULL << 22);
		meta[i].length = 4096 * (1 + next() % 8);
	}
	for (i = 0; i < nent; i++) {
		size_t f = i / per;
		struct bp_pack_wentry *e = &ents[i];

		e->file = (uint32_t)f;
		e->offset = (i % per) * (1ULL << 20);
		e->length = 4096 * (1 + next() % 3);	/* about 8 KiB: 10,000 entries ~ 78 MiB */
		phys += 4096 * (next() % 64);
		e->phys = phys;
		phys += e->length;
		e->size = (uint64_t)per << 20;
		e->mtime_sec = 1700000000 + (int64_t)(next() % 86400);
		e->mtime_nsec = (uint32_t)(next() % 1000000000);
		e->ino = (uint32_t)(12 + f * 7);
		e->generation = (uint32_t)next();
	}
	/* budget positions: cumulative bytes in the permuted first-access order */
	{
		uint64_t *len = calloc(nent + nmeta, sizeof(*len));
		uint64_t *bpos = calloc(nent + nmeta, sizeof(*bpos));

		if (!len || !bpos)
			return 1;
		for (i = 0; i < nmeta; i++)
			len[i] = meta[i].length;
		for (i = 0; i < nent; i++)
			len[nmeta + i] = ents[i].length;
		for (i = 0; i < nent + nmeta; i++) {
			pos += len[order[i]];
			bpos[order[i]] = pos;
		}
		for (i = 0; i < nmeta; i++)
			meta[i].budget_pos = bpos[i];
		for (i = 0; i < nent; i++)
			ents[i].budget_pos = bpos[nmeta + i];
		free(len);
		free(bpos);
	}

	memset(&d, 0, sizeof(d));
	memcpy(d.uuid, "bench-pack-uuid!", 16);
	d.block_size = 4096;
	d.created = 1767225600;
	d.feature_compat = BP_PACK_COMPAT_MTIME_NSEC;
	d.meta = meta;
	d.nmeta = nmeta;
	d.entries = ents;
	d.nentries = nent;
	d.paths = (const char *const *)paths;
	d.npaths = nfiles;
	d.compress = BP_PACK_COMPRESS_NEVER;
	if (bp_pack_serialize(&d, &raw, &rawlen, &err)) {
		fprintf(stderr, "bench-pack: %s\n", bp_err_str(&err));
		return 1;
	}
	d.compress = BP_PACK_COMPRESS_ALWAYS;
	if (bp_pack_serialize(&d, &z, &zlen, &err)) {
		fprintf(stderr, "bench-pack: %s\n", bp_err_str(&err));
		return 1;
	}
	printf("pack: %zu entries (%zu files, %zu per file) + %zu metadata ranges, "
	       "%.1f MiB to read\n", nent, nfiles, per, nmeta, (double)pos / 1048576.0);
	measure("raw", raw, rawlen, nent + nmeta);
	measure("deflate", z, zlen, nent + nmeta);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS of this benchmark (builder included): %ld KiB\n", ru.ru_maxrss);
	free(raw);
	free(z);
	for (i = 0; i < nfiles; i++)
		free(paths[i]);
	free(paths);
	free(ents);
	free(meta);
	free(order);
	return 0;
}
