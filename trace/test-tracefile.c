// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-tracefile.c --- trace format: round trip, normalising, merging, corrupt input
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bp_et.h"
#include "tracefile.h"
#include "../tests/unit/unit.h"

static char dir[] = "/tmp/bp-test-tracefile.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp)
		return NULL;
	fputs(text, fp);
	fclose(fp);
	return path;
}

static struct bp_trace *sample(const char *uuid, int64_t created)
{
	struct bp_trace *t = bp_trace_new();
	struct bp_trace_file *f;

	memcpy(t->hdr.uuid, uuid, 37);
	t->hdr.block_size = 4096;
	t->hdr.created = created;
	t->hdr.dev_major = 7;
	bp_trace_set_str(&t->hdr.device, "/dev/loop0");
	bp_trace_set_str(&t->hdr.kernel, "6.18.0 test");
	bp_trace_set_str(&t->hdr.source, "command");
	f = bp_trace_add_file(t, 12, 3, 10000, 1700000000, "/bin/a b%c");
	bp_trace_file_add_range(f, 4096, 4096, 50, 8192 + 4096);
	bp_trace_file_add_range(f, 0, 4096, 70, 8192);		/* touches: merged */
	bp_trace_file_add_range(f, 8192, 4096, 90, BP_PHYS_NONE);	/* hole: separate */
	f = bp_trace_add_file(t, 13, 1, 4096, -5, "/etc/x");
	bp_trace_file_add_range(f, 0, 4096, 10, 65536);
	f = bp_trace_add_file(t, 14, 1, 4096, 0, "/empty");
	bp_trace_add_meta(t, 1024, 1024, 5);
	bp_trace_add_meta(t, 0, 1024, 7);
	bp_trace_add_meta(t, 8192, 4096, 1);
	bp_trace_normalize(t);
	return t;
}

static errcode_t load_text(const char *text, struct bp_err *err)
{
	struct bp_trace *t = NULL;
	errcode_t rc;

	rc = bp_trace_load(write_file("bad", text), &t, err);
	bp_trace_free(t);
	return rc;
}

#define HDR "bootpack-trace 1\nuuid 0123abcd-0000-4000-8000-00000000000a\nblock-size 4096\n"

/*
 * Page order: touching ranges of a file join only when no other file was
 * first read in between. A: head at 10, B at 20, A's tail at 30 -> A keeps
 * two ranges; C: two touching reads at 40 and 50 with nothing between -> one.
 */
static void test_page_order_runs(void)
{
	struct bp_trace *t = bp_trace_new();
	struct bp_trace_file *f;

	f = bp_trace_add_file(t, 20, 1, 65536, 0, "/a");
	bp_trace_file_add_range(f, 0, 8192, 10, 1 << 20);
	bp_trace_file_add_range(f, 8192, 8192, 30, (1 << 20) + 8192);
	f = bp_trace_add_file(t, 21, 1, 4096, 0, "/b");
	bp_trace_file_add_range(f, 0, 4096, 20, 2 << 20);
	f = bp_trace_add_file(t, 22, 1, 16384, 0, "/c");
	bp_trace_file_add_range(f, 8192, 8192, 50, (3 << 20) + 8192);
	bp_trace_file_add_range(f, 0, 8192, 40, 3 << 20);
	CHECK(bp_trace_normalize(t) == 0);
	CHECK(t->nfiles == 3 && t->files[0].ino == 20 && t->files[2].ino == 22);
	if (t->nfiles == 3) {
		CHECK(t->files[0].nranges == 2);
		CHECK(t->files[0].ranges[0].first_ns == 10 && t->files[0].ranges[1].first_ns == 30);
		CHECK(t->files[0].ranges[1].offset == 8192 && t->files[0].ranges[1].length == 8192);
		CHECK(t->files[2].nranges == 1 && t->files[2].ranges[0].length == 16384);
		CHECK(t->files[2].ranges[0].first_ns == 40);
	}
	bp_trace_free(t);
}


/*
 * A loaded trace grows like a built one. The loader kept the capacities of
 * its arrays (files, each file's ranges, meta) in locals and left the
 * trace's afiles, aranges and ameta at 0, so the first bp_trace_add_file()
 * on a loaded trace of more than 16 files realloc()ed the array down to 16
 * and wrote past it: the read boot's merge into the state dir's trace
 * (loop/readboot.c converge()) then crashed in bp_trace_normalize()'s qsort
 * of a garbage ranges pointer. 40 files of 20 ranges and 20 M ranges; the
 * merge adds a file, a range to every file and an M range. The capacity
 * checks are the oracle without ASan; the merged contents are checked by
 * counting (ASan reports the overflow itself).
 */
#define BIG_FILES 40
#define BIG_RANGES 20

static void test_load_then_grow(const char *path)
{
	const char *uuid = "0123abcd-0000-4000-8000-00000000000c";
	struct bp_trace *t = bp_trace_new(), *u = NULL, *b = bp_trace_new();
	struct bp_err err = { 0 };
	struct bp_trace_file *f;
	size_t i, j, ok = 1;

	memcpy(t->hdr.uuid, uuid, 37);
	t->hdr.block_size = 4096;
	memcpy(b->hdr.uuid, uuid, 37);
	b->hdr.block_size = 4096;
	for (i = 0; i < BIG_FILES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "/f%zu", i);
		f = bp_trace_add_file(t, 100 + i, 1, 1 << 20, 0, name);
		/* every other page: ranges that never join */
		for (j = 0; j < BIG_RANGES; j++)
			bp_trace_file_add_range(f, j * 8192, 4096, 10 + i * 1000 + j,
						BP_PHYS_NONE);
		bp_trace_add_meta(t, i * 65536, 4096, 10 + i);
		f = bp_trace_add_file(b, 100 + i, 1, 1 << 20, 0, name);
		bp_trace_file_add_range(f, BIG_RANGES * 8192, 4096, 900000 + i, BP_PHYS_NONE);
	}
	f = bp_trace_add_file(b, 99, 1, 4096, 0, "/new");
	bp_trace_file_add_range(f, 0, 4096, 1, BP_PHYS_NONE);
	bp_trace_add_meta(b, 1ULL << 30, 4096, 1);
	CHECK(bp_trace_normalize(t) == 0 && bp_trace_normalize(b) == 0);
	CHECK(t->nfiles == BIG_FILES && t->nmeta == BIG_FILES);
	CHECK(bp_trace_save(t, path, &err) == 0);
	CHECK(bp_trace_load(path, &u, &err) == 0);
	if (!u)
		goto out;
	CHECK(u->nfiles == BIG_FILES && u->afiles >= u->nfiles);
	CHECK(u->nmeta == BIG_FILES && u->ameta >= u->nmeta);
	for (i = 0; i < u->nfiles; i++)
		if (u->files[i].nranges != BIG_RANGES || u->files[i].aranges < BIG_RANGES)
			ok = 0;
	CHECK(ok);
	CHECK(bp_trace_merge(u, b, &err) == 0);
	CHECK(u->nfiles == BIG_FILES + 1 && u->nmeta == BIG_FILES + 1);
	for (i = 0, ok = 1; i < u->nfiles; i++)
		if (u->files[i].nranges != (u->files[i].ino == 99 ? 1 : BIG_RANGES + 1))
			ok = 0;
	CHECK(ok);
	CHECK(u->files[0].ino == 99 && strcmp(u->files[0].path, "/new") == 0);
out:
	bp_trace_free(t);
	bp_trace_free(u);
	bp_trace_free(b);
}

#define HDR2 "bootpack-trace 2\nuuid 0123abcd-0000-4000-8000-00000000000a\nblock-size 4096\n"

/*
 * at=: records that touch join only when contiguous as traced too; the
 * offset round-trips; bp_trace_meta_traced() places them where they were
 * read (records without at= left out, counted), beside the M ranges.
 */
static void test_owned_at(const char *path)
{
	struct bp_trace_owned a = { BP_OWN_DIR, 12, 7, 0, 1, 50, 40960, 1 };
	struct bp_trace_owned b = { BP_OWN_DIR, 12, 7, 1, 1, 60, 45056, 1 };	/* contiguous */
	struct bp_trace_owned c = { BP_OWN_DIR, 12, 7, 2, 1, 70, 8192, 1 };	/* elsewhere */
	struct bp_trace_owned d = { BP_OWN_ITABLE, 0, 0, 0, 3, 5, 0, 0 };	/* no at= */
	struct bp_trace *t = bp_trace_new(), *u = NULL;
	struct bp_trace_meta *m = NULL;
	struct bp_err err = { 0 };
	uint64_t unplaced = 0;
	size_t n = 0;

	memcpy(t->hdr.uuid, "0123abcd-0000-4000-8000-00000000000a", 37);
	t->hdr.block_size = 4096;
	CHECK(bp_trace_add_owned(t, &c) == 0 && bp_trace_add_owned(t, &a) == 0 &&
	      bp_trace_add_owned(t, &b) == 0 && bp_trace_add_owned(t, &d) == 0);
	bp_trace_add_meta(t, 1ULL << 20, 4096, 1);
	CHECK(bp_trace_normalize(t) == 0);
	CHECK(t->nowned == 3 && t->owned[0].count == 2 && t->owned[0].at == 40960 &&
	      t->owned[1].index == 2 && t->owned[1].at == 8192 && !t->owned[2].has_at);
	CHECK(bp_trace_save(t, path, &err) == 0 && bp_trace_load(path, &u, &err) == 0);
	if (u) {
		CHECK(u->nowned == 3 && u->owned[0].has_at && u->owned[0].at == 40960 &&
		      u->owned[0].count == 2 && u->owned[1].at == 8192 && !u->owned[2].has_at);
		CHECK(bp_trace_meta_traced(u, &m, &n, &unplaced) == 0);
		CHECK(n == 3 && unplaced == 3);
		if (n == 3)
			CHECK(m[0].offset == 8192 && m[0].length == 4096 && m[0].first_ns == 70 &&
			      m[1].offset == 40960 && m[1].length == 8192 && m[1].first_ns == 50 &&
			      m[1].kind == BP_OWN_DIR && m[2].offset == 1ULL << 20 &&
			      m[2].kind == BP_OWN_NONE);
		free(m);
	}
	bp_trace_free(u);
	bp_trace_free(t);
}

/*
 * Version 2: O records (metadata by owner) round-trip, are merged when they
 * touch, and every field is checked on load; a version 1 trace loads (no O
 * line allowed) and is written back as version 1 until it gains one.
 */
static void test_owned(const char *path)
{
	struct bp_trace_owned o1 = { BP_OWN_DIR, 12, 7, 0, 1, 50 };
	struct bp_trace_owned o2 = { BP_OWN_DIR, 12, 7, 1, 2, 40 };	/* touches o1 */
	struct bp_trace_owned o3 = { BP_OWN_ITABLE, 3, 0, 9, 1, 5 };
	struct bp_trace_owned o4 = { BP_OWN_DIR, 11, 1, 4, 1, 60 };
	struct bp_trace *t = bp_trace_new(), *u = NULL, *v = NULL;
	struct bp_err err = { 0 };
	FILE *fp;
	char line[256];
	int saw = 0;

	memcpy(t->hdr.uuid, "0123abcd-0000-4000-8000-00000000000a", 37);
	t->hdr.block_size = 4096;
	CHECK(bp_trace_add_owned(t, &o3) == 0 && bp_trace_add_owned(t, &o1) == 0 &&
	      bp_trace_add_owned(t, &o2) == 0 && bp_trace_add_owned(t, &o4) == 0);
	CHECK(bp_trace_add_owned(t, &(struct bp_trace_owned){ BP_OWN_NONE, 1, 0, 0, 1, 0 }) ==
	      EINVAL);
	CHECK(bp_trace_add_owned(t, &(struct bp_trace_owned){ BP_OWN_DIR, 1, 0, 0, 0, 0 }) ==
	      EINVAL);
	bp_trace_add_meta(t, 1ULL << 40, 4096, 3);
	bp_trace_add_meta(t, 8192, 4096, 3);
	t->meta[1].kind = BP_OWN_DIR;	/* a copy of an owned block as read: not saved */
	CHECK(bp_trace_normalize(t) == 0);
	CHECK(t->nowned == 3 && t->owned[0].id == 11 && t->owned[1].id == 12 &&
	      t->owned[1].count == 3 && t->owned[1].first_ns == 40 &&
	      t->owned[2].kind == BP_OWN_ITABLE);
	CHECK(bp_trace_records(t) == 4);
	CHECK(bp_trace_save(t, path, &err) == 0);
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		saw |= strcmp(line, "bootpack-trace 2\n") == 0;
		saw |= (strcmp(line, "O dir 12 7 0 3 40\n") == 0) << 1;
		saw |= (strcmp(line, "O itable 3 0 9 1 5\n") == 0) << 2;
		saw |= (strncmp(line, "M 8192 ", 7) == 0) << 3;
	}
	if (fp)
		fclose(fp);
	CHECK(saw == 7);
	CHECK(bp_trace_load(path, &u, &err) == 0);
	if (u) {
		CHECK(u->version == 2 && u->nowned == 3 && u->nmeta == 1);
		CHECK(u->owned[1].kind == BP_OWN_DIR && u->owned[1].gen == 7 &&
		      u->owned[1].count == 3);
		CHECK(u->meta[0].kind == BP_OWN_NONE && u->meta[0].offset == 1ULL << 40);
		/* merging with itself changes nothing */
		CHECK(bp_trace_merge(u, t, &err) == 0 && u->nowned == 3 && u->nmeta == 2);
	}
	bp_trace_free(u);
	bp_trace_free(t);

	/* Version 1 loads, has no O line, is written back as version 1. */
	CHECK(bp_trace_load(write_file("v1", HDR "M 0 4096 0\nend 1\n"), &v, &err) == 0);
	if (v) {
		CHECK(v->version == 1 && v->nmeta == 1 && v->nowned == 0);
		CHECK(bp_trace_save(v, path, &err) == 0);
		bp_trace_free(v);
		v = NULL;
		CHECK(bp_trace_load(path, &v, &err) == 0 && v && v->version == 1);
	}
	bp_trace_free(v);
	unlink(write_file("v1", ""));

	/* Corrupt O lines. */
	CHECK(load_text(HDR "O dir 12 0 0 1 0\nend 1\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, ":4: O line in a version 1"));
	CHECK(load_text(HDR2 "O dir 12 0 0 1 0\nend 1\n", &err) == 0);
	CHECK(load_text(HDR2 "O dir 12 0 0 1\nend 1\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, ":4: O line needs"));
	CHECK(load_text(HDR2 "O file 12 0 0 1 0\nend 1\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, "owner kind"));
	CHECK(load_text(HDR2 "O raw 12 0 0 1 0\nend 1\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, "owner kind"));
	CHECK(load_text(HDR2 "O dir 4294967296 0 0 1 0\nend 1\n", &err) ==
	      BP_ET_TRACE_CORRUPT && strstr(err.msg, "bad number"));
	CHECK(load_text(HDR2 "O dir 0 0 0 1 0\nend 1\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, "inode 0"));
	CHECK(load_text(HDR2 "O dir 12 0 0 0 0\nend 1\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, "empty"));
	CHECK(load_text(HDR2 "O dir 12 0 18446744073709551615 2 0\nend 1\n", &err) ==
	      BP_ET_TRACE_CORRUPT && strstr(err.msg, "overflowing"));
	CHECK(load_text(HDR2 "O dir 12 0 0 4294967296 0\nend 1\n", &err) ==
	      BP_ET_TRACE_CORRUPT && strstr(err.msg, "too long"));
	CHECK(load_text(HDR2 "O dir 12 0 0 2 0\nO dir 12 0 1 1 0\nend 2\n", &err) ==
	      BP_ET_TRACE_CORRUPT && strstr(err.msg, ":5: owner ranges not sorted"));
	CHECK(load_text(HDR2 "O itable 1 0 0 1 0\nO dir 12 0 0 1 0\nend 2\n", &err) ==
	      BP_ET_TRACE_CORRUPT && strstr(err.msg, ":5: owner ranges not sorted"));
	CHECK(load_text(HDR2 "O dir 12 0 0 1 0\nO dir 12 0 1 1 0\nO itable 0 0 0 1 0\n"
			"M 0 1 0\nend 4\n", &err) == 0);
	/* at=: optional, block aligned, bounded; hostile ones refused */
	CHECK(load_text(HDR2 "O dir 12 0 0 2 0 at=8192\nend 1\n", &err) == 0);
	CHECK(load_text(HDR2 "O dir 12 0 0 2 0 at=8193\nend 1\n", &err) ==
	      BP_ET_TRACE_CORRUPT && strstr(err.msg, ":4: at= offset"));
	CHECK(load_text(HDR2 "O dir 12 0 0 2 0 at=18446744073709547520\nend 1\n", &err) ==
	      BP_ET_TRACE_CORRUPT && strstr(err.msg, "past 64-bit"));
	CHECK(load_text(HDR2 "O dir 12 0 0 4294967295 0 at=18446744069414584320\nend 1\n",
			&err) == BP_ET_TRACE_CORRUPT && strstr(err.msg, "past 64-bit"));
	CHECK(load_text(HDR2 "O dir 12 0 0 1 0 at=\nend 1\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, "bad at="));
	CHECK(load_text(HDR2 "O dir 12 0 0 1 0 8192\nend 1\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, "bad at="));
	CHECK(load_text(HDR2 "O dir 12 0 0 1 0 at=-4096\nend 1\n", &err) ==
	      BP_ET_TRACE_CORRUPT && strstr(err.msg, "bad at="));
	CHECK(load_text(HDR2 "O dir 12 0 0 1 0 at=4096 x\nend 1\n", &err) ==
	      BP_ET_TRACE_CORRUPT && strstr(err.msg, ":4: "));
	test_owned_at(path);
	CHECK(load_text(HDR2 "O dir 12 0 01 1 0\nend 1\n", &err) == BP_ET_TRACE_CORRUPT);
}

int main(void)
{
	struct bp_trace *t, *u, *m;
	struct bp_trace_ref *refs;
	struct bp_err err = { 0 };
	char path[256];
	size_t n;

	add_error_table(&et_bp_error_table);
	if (!mkdtemp(dir))
		return 99;
	snprintf(path, sizeof(path), "%s/t", dir);

	test_page_order_runs();
	test_load_then_grow(path);
	t = sample("0123abcd-0000-4000-8000-00000000000a", 100);
	CHECK(t->nfiles == 2);	/* /empty dropped */
	CHECK(t->files[0].ino == 13 && t->files[1].ino == 12);
	CHECK(t->files[1].nranges == 2 && t->files[1].ranges[0].length == 8192);
	CHECK(t->files[1].ranges[0].first_ns == 50 && t->files[1].first_ns == 50);
	CHECK(t->nmeta == 2 && t->meta[0].length == 2048 && t->meta[0].first_ns == 5);
	CHECK(bp_trace_records(t) == 2 + 2 + 3);
	CHECK(bp_trace_save(t, path, &err) == 0);
	CHECK(bp_trace_load(path, &u, &err) == 0);
	if (u) {
		CHECK(u->nfiles == 2 && strcmp(u->files[1].path, "/bin/a b%c") == 0);
		CHECK(u->files[0].mtime == -5);
		CHECK(u->files[1].ranges[1].phys == BP_PHYS_NONE);
		CHECK(strcmp(u->hdr.kernel, "6.18.0 test") == 0 && u->hdr.dev_major == 7);
		CHECK(bp_trace_ranges_by_time(u, &refs, &n) == 0 && n == 3);
		CHECK(refs[0].file->ino == 13 && refs[1].range->first_ns == 50 &&
		      refs[2].range->first_ns == 90);
		free(refs);
	}

	/* Merge: same inode with the same identity unions ranges, earliest time wins. */
	m = sample("0123abcd-0000-4000-8000-00000000000a", 200);
	m->files[0].ranges[0].first_ns = 1;	/* ino 13 */
	m->files[0].ranges[0].offset = 4096;	/* adjacent to [0,4096) but phys differs */
	CHECK(bp_trace_merge(u, m, &err) == 0);
	CHECK(u->nfiles == 2 && u->files[0].ino == 13 && u->files[0].first_ns == 1);
	CHECK(u->files[0].nranges == 2);
	CHECK(strcmp(u->hdr.source, "merge") == 0 && u->hdr.created == 200);
	bp_trace_free(m);
	m = sample("0123abcd-0000-4000-8000-00000000000b", 300);
	CHECK(bp_trace_merge(u, m, &err) == BP_ET_TRACE_MISMATCH);
	bp_trace_free(m);
	bp_trace_free(u);
	bp_trace_free(t);

	/* Corrupt input: error code, line number, reason. */
	CHECK(load_text("hello\n", &err) == BP_ET_TRACE_CORRUPT && strstr(err.msg, ":1: not a"));
	CHECK(load_text("bootpack-trace 3\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, "version"));
	CHECK(load_text(HDR "F 12 0 1 1 /a\nR 0 4096 0 -\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, "truncated"));
	CHECK(load_text(HDR "F 12 0 1 1 /a\nR 0 4096 0 x\nend 2\n", &err) ==
		      BP_ET_TRACE_CORRUPT && strstr(err.msg, ":5: bad physical"));
	CHECK(load_text(HDR "F 12 0 1 1 /a\nR 0 4096 0 0\nR 0 4096 0 0\nend 3\n", &err) ==
		      BP_ET_TRACE_CORRUPT && strstr(err.msg, ":6: ranges"));
	CHECK(load_text(HDR "R 0 4096 0 0\nend 1\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, ":4: R line before"));
	CHECK(load_text(HDR "F 12 0 1 1 /a\nR 0 4096 0 0\nend 3\n", &err) ==
		      BP_ET_TRACE_CORRUPT && strstr(err.msg, ":6: 'end' says 3"));
	CHECK(load_text(HDR "colour blue\nend 0\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, ":4: unknown"));
	CHECK(load_text(HDR "F 12 0 1 1 /a\nR 0 4096 0 0\nF 12 0 1 1 /b\nR 0 1 0 0\nend 4\n",
			&err) == BP_ET_TRACE_CORRUPT && strstr(err.msg, "more than one F"));
	CHECK(load_text(HDR "F 12 0 1 1 a\nR 0 4096 0 0\nend 2\n", &err) ==
		      BP_ET_TRACE_CORRUPT && strstr(err.msg, ":4: path"));
	CHECK(load_text(HDR "M 0 1  0\nend 1\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, ":4: fields"));
	CHECK(load_text(HDR "end 0\nM 0 1 0\n", &err) == BP_ET_TRACE_CORRUPT &&
	      strstr(err.msg, ":5: text after"));
	CHECK(load_text(HDR "# comment\n\nM 0 1 0\nend 1\n", &err) == 0);
	CHECK(load_text(HDR "end 0", &err) == BP_ET_TRACE_CORRUPT);

	test_owned(path);

	/* Unknown device and kernel round-trip as "-". */
	t = bp_trace_new();
	memcpy(t->hdr.uuid, "0123abcd-0000-4000-8000-00000000000a", 37);
	t->hdr.block_size = 1024;
	CHECK(bp_trace_save(t, path, &err) == 0);
	bp_trace_free(t);
	CHECK(bp_trace_load(path, &t, &err) == 0);
	if (t)
		CHECK(!strcmp(t->hdr.device, "") && !strcmp(t->hdr.kernel, "") &&
		      !strcmp(t->hdr.source, "command") && t->nfiles == 0);
	bp_trace_free(t);

	unlink(path);
	unlink(write_file("bad", ""));
	rmdir(dir);
	return unit_exit();
}
