// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-pack-parse.c --- unit tests of the pack writer and parser
 *
 * Round trips in every compression mode, then every class of corruption:
 * each must be refused with the documented error, never crash (run under
 * ASan/UBSan with --enable-sanitizers).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "pack-parse.h"
#include "pack-write.h"
#include "unit.h"

static const char *paths[] = { "/bin/sh", "/etc/ld.so.cache", "/usr/lib/x86_64-linux-gnu/libc.so.6" };

static const struct bp_pack_meta meta[] = {
	{ .offset = 4096, .length = 8192, .budget_pos = 8192 },
	{ .offset = 1 << 20, .length = 4096, .budget_pos = 12288 },
};

static const struct bp_pack_wentry entries[] = {
	{ .offset = 0, .length = 65536, .phys = 2 << 20, .budget_pos = 12288 + 65536,
	  .size = 125000, .mtime_sec = 1700000000, .mtime_nsec = 123, .ino = 12,
	  .generation = 77, .file = 0 },
	{ .offset = 0, .length = 4096, .phys = 3 << 20, .budget_pos = 12288 + 65536 + 4096 + 200000,
	  .size = 4096, .mtime_sec = -5, .ino = 13, .generation = 1, .file = 1 },
	{ .offset = 65536, .length = 4096, .phys = 3 << 20, .budget_pos = 12288 + 65536 + 4096,
	  .size = 125000, .mtime_sec = 1700000000, .mtime_nsec = 123, .ino = 12,
	  .generation = 77, .file = 0, .flags = BP_PACK_ENTRY_F_CHANGED },
	{ .offset = 8192, .length = 200000, .phys = 5ULL << 32, .budget_pos = 12288 + 65536 + 4096 + 200000 - 4096,
	  .size = 2000000, .mtime_sec = 1, .mtime_nsec = 999999999, .ino = 4000000000U,
	  .generation = 0xffffffffU, .file = 2 },
};

static void fill(struct bp_pack_wdata *d, enum bp_pack_compress c)
{
	memset(d, 0, sizeof(*d));
	memcpy(d->uuid, "0123456789abcdef", 16);
	d->block_size = 4096;
	d->dev_major = 7;
	d->dev_minor = 3;
	d->created = 1767225600;
	d->budget = 75 << 20;
	d->cut_bytes = 4242;
	d->feature_compat = BP_PACK_COMPAT_MTIME_NSEC;
	d->page_size = 16384;
	d->compress = c;
	d->meta = meta;
	d->nmeta = ARRAY_SIZE(meta);
	d->entries = entries;
	d->nentries = ARRAY_SIZE(entries);
	d->paths = paths;
	d->npaths = ARRAY_SIZE(paths);
}

static void *make(enum bp_pack_compress c, size_t *len)
{
	struct bp_pack_wdata d;
	struct bp_err err = { 0 };
	void *buf;

	fill(&d, c);
	CHECK(bp_pack_serialize(&d, &buf, len, &err) == 0);
	return buf;
}

/* Recompute both CRCs after editing a stored (uncompressed) pack. */
static void refix(uint8_t *b, size_t len)
{
	uint32_t hs = bp_get_le32(b + BP_PACK_OFF_HDR_SIZE);

	if (hs > len)
		hs = (uint32_t)len;
	bp_put_le32(b + BP_PACK_OFF_BODY_CRC,
		    (uint32_t)crc32(crc32(0L, Z_NULL, 0), b + hs, (uInt)(len - hs)));
	bp_put_le32(b + BP_PACK_OFF_HEADER_CRC, 0);
	bp_put_le32(b + BP_PACK_OFF_HEADER_CRC, (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, hs));
}

static int parse(const void *b, size_t len, const char **why)
{
	struct bp_pack *p = NULL;
	int rc = bp_pack_open_mem_why(b, len, &p, why);

	CHECK((rc == 0) == (p != NULL));
	bp_pack_free(p);
	return rc;
}

static void test_round_trip(enum bp_pack_compress c)
{
	struct bp_pack_entry e;
	struct bp_pack_meta m;
	const struct bp_pack_info *in;
	struct bp_pack *p = NULL;
	size_t len, i;
	void *buf = make(c, &len);

	CHECK(bp_pack_has_magic(buf, len));
	CHECK(bp_pack_open_mem(buf, len, &p) == 0);
	if (!p) {
		free(buf);
		return;
	}
	in = bp_pack_info(p);
	CHECK(in->version == BP_PACK_VERSION);
	CHECK(memcmp(in->uuid, "0123456789abcdef", 16) == 0);
	CHECK(in->block_size == 4096 && in->dev_major == 7 && in->dev_minor == 3);
	CHECK(in->created == 1767225600 && in->budget == 75 << 20 && in->cut_bytes == 4242);
	CHECK(in->nmeta == 2 && in->nentries == 4 && in->nfiles == 3);
	CHECK(in->total_bytes == 8192 + 4096 + 65536 + 4096 + 4096 + 200000);
	CHECK(in->feature_compat == (BP_PACK_COMPAT_MTIME_NSEC | BP_PACK_COMPAT_PAGE_SIZE) &&
	      in->page_size == 16384);
	if (c == BP_PACK_COMPRESS_ALWAYS)
		CHECK(in->feature_incompat & BP_PACK_INCOMPAT_DEFLATE);
	if (c == BP_PACK_COMPRESS_NEVER)
		CHECK(!(in->feature_incompat & BP_PACK_INCOMPAT_DEFLATE));
	for (i = 0; i < ARRAY_SIZE(meta); i++) {
		CHECK(bp_pack_meta(p, (uint32_t)i, &m) == 0);
		CHECK(m.offset == meta[i].offset && m.length == meta[i].length &&
		      m.budget_pos == meta[i].budget_pos);
	}
	CHECK(bp_pack_meta(p, 2, &m) == -ERANGE);
	for (i = 0; i < ARRAY_SIZE(entries); i++) {
		const struct bp_pack_wentry *w = &entries[i];

		CHECK(bp_pack_entry(p, (uint32_t)i, &e) == 0);
		CHECK(e.offset == w->offset && e.length == w->length && e.phys == w->phys);
		CHECK(e.budget_pos == w->budget_pos && e.size == w->size);
		CHECK(e.mtime_sec == w->mtime_sec && e.mtime_nsec == w->mtime_nsec);
		CHECK(e.ino == w->ino && e.generation == w->generation && e.flags == w->flags);
		CHECK(strcmp(e.path, paths[w->file]) == 0 && e.path_len == strlen(paths[w->file]));
	}
	CHECK(bp_pack_entry(p, 4, &e) == -ERANGE);
	bp_pack_free(p);
	free(buf);
}

static void test_empty_pack(void)
{
	struct bp_pack_wdata d;
	struct bp_err err = { 0 };
	struct bp_pack *p = NULL;
	size_t len;
	void *buf;

	fill(&d, BP_PACK_COMPRESS_AUTO);
	d.nmeta = d.nentries = d.npaths = 0;
	CHECK(bp_pack_serialize(&d, &buf, &len, &err) == 0);
	CHECK(bp_pack_open_mem(buf, len, &p) == 0);
	CHECK(p && bp_pack_nentries(p) == 0 && bp_pack_nmeta(p) == 0);
	bp_pack_free(p);
	free(buf);
}

static void test_truncated(enum bp_pack_compress c)
{
	size_t len, n;
	uint8_t *buf = make(c, &len);
	uint8_t *copy = malloc(len + 1);

	/* Every proper prefix, in an exactly-sized buffer so ASan sees overreads. */
	for (n = 0; n < len; n++) {
		uint8_t *t = malloc(n ? n : 1);

		memcpy(t, buf, n);
		CHECK(parse(t, n, NULL) == -EBADMSG);
		free(t);
	}
	/* Trailing garbage. */
	memcpy(copy, buf, len);
	copy[len] = 0;
	CHECK(parse(copy, len + 1, NULL) == -EBADMSG);
	free(copy);
	free(buf);
}

static void test_corrupt_header(void)
{
	const char *why;
	size_t len, i;
	uint8_t *buf = make(BP_PACK_COMPRESS_NEVER, &len);

	CHECK(parse(buf, len, NULL) == 0);

	buf[0] ^= 0x20;		/* "bOOTPACK" */
	CHECK(parse(buf, len, &why) == -EBADMSG && strstr(why, "magic"));
	buf[0] ^= 0x20;

	/* Any flipped bit in the header is caught (by the CRC or earlier). */
	for (i = BP_PACK_MAGIC_LEN; i < BP_PACK_HDR_SIZE; i++) {
		int rc;

		buf[i] ^= 0x01;
		rc = parse(buf, len, NULL);
		CHECK(rc == -EBADMSG || rc == -EOPNOTSUPP || rc == -E2BIG);
		buf[i] ^= 0x01;
	}
	buf[BP_PACK_OFF_CREATED] ^= 1;
	CHECK(parse(buf, len, &why) == -EBADMSG && strcmp(why, "header CRC mismatch") == 0);
	buf[BP_PACK_OFF_CREATED] ^= 1;

	/* Any flipped bit in the body: body CRC. */
	for (i = BP_PACK_HDR_SIZE; i < len; i++) {
		buf[i] ^= 0x80;
		CHECK(parse(buf, len, &why) == -EBADMSG && strcmp(why, "body CRC mismatch") == 0);
		buf[i] ^= 0x80;
	}
	free(buf);
}

/* Edit a field of a valid uncompressed pack, fix the CRCs, expect rc. */
static void edit32(size_t off, uint32_t v, int want, const char *what)
{
	const char *why = NULL;
	size_t len;
	uint8_t *buf = make(BP_PACK_COMPRESS_NEVER, &len);
	int rc;

	bp_put_le32(buf + off, v);
	refix(buf, len);
	rc = parse(buf, len, &why);
	if (rc != want)
		fprintf(stderr, "%s: got %d (%s), want %d\n", what, rc, why ? why : "-", want);
	CHECK(rc == want);
	free(buf);
}

static void edit64(size_t off, uint64_t v, int want, const char *what)
{
	const char *why = NULL;
	size_t len;
	uint8_t *buf = make(BP_PACK_COMPRESS_NEVER, &len);
	int rc;

	bp_put_le64(buf + off, v);
	refix(buf, len);
	rc = parse(buf, len, &why);
	if (rc != want)
		fprintf(stderr, "%s: got %d (%s), want %d\n", what, rc, why ? why : "-", want);
	CHECK(rc == want);
	free(buf);
}

#define H BP_PACK_HDR_SIZE
#define E0 (H + 2 * BP_PACK_META_SIZE)			/* first entry */
#define STRTAB (E0 + 4 * BP_PACK_ENTRY_SIZE)

/* The page size: recorded (136-byte header), or absent in an older pack (4096). */
static void test_page_size(void)
{
	struct bp_pack_wdata d;
	struct bp_err err = { 0 };
	struct bp_pack *p = NULL;
	size_t len;
	uint8_t *buf;

	fill(&d, BP_PACK_COMPRESS_NEVER);
	CHECK(bp_pack_serialize(&d, (void **)&buf, &len, &err) == 0);
	CHECK(bp_get_le32(buf + BP_PACK_OFF_HDR_SIZE) == 136);
	CHECK(bp_get_le32(buf + BP_PACK_OFF_COMPAT) & BP_PACK_COMPAT_PAGE_SIZE);
	CHECK(bp_pack_open_mem(buf, len, &p) == 0 && bp_pack_info(p)->page_size == 16384);
	bp_pack_free(p);
	p = NULL;
	/* without the compat bit the field means nothing: 4096 */
	bp_put_le32(buf + BP_PACK_OFF_COMPAT, BP_PACK_COMPAT_MTIME_NSEC);
	refix(buf, len);
	CHECK(bp_pack_open_mem(buf, len, &p) == 0 && bp_pack_info(p)->page_size == 4096);
	bp_pack_free(p);
	p = NULL;
	free(buf);
	/* what older writers wrote: 128 bytes of header, no bit */
	d.page_size = 0;
	CHECK(bp_pack_serialize(&d, (void **)&buf, &len, &err) == 0);
	CHECK(bp_get_le32(buf + BP_PACK_OFF_HDR_SIZE) == 128);
	CHECK(!(bp_get_le32(buf + BP_PACK_OFF_COMPAT) & BP_PACK_COMPAT_PAGE_SIZE));
	CHECK(bp_pack_open_mem(buf, len, &p) == 0 && bp_pack_info(p)->page_size == 4096);
	bp_pack_free(p);
	free(buf);
	/* the bit with a 128-byte header, or a page size that is none */
	edit32(BP_PACK_OFF_PAGE_SIZE, 3000, -EBADMSG, "page size not a power of two");
	edit32(BP_PACK_OFF_PAGE_SIZE, 2048, -EBADMSG, "page size below 4096");
	edit32(BP_PACK_OFF_PAGE_SIZE, 1U << 20, -EBADMSG, "page size above 256 KiB");
	edit32(BP_PACK_OFF_PAGE_SIZE, 65536, 0, "64 KiB pages");
	d.page_size = 3000;
	CHECK(bp_pack_serialize(&d, (void **)&buf, &len, &err) == EINVAL);
}

static void test_fields(void)
{
	/* Features. */
	edit32(BP_PACK_OFF_INCOMPAT, 0x80, -EOPNOTSUPP, "unknown incompat");
	edit32(BP_PACK_OFF_INCOMPAT, BP_PACK_INCOMPAT_DEFLATE, -EBADMSG, "deflate flag on raw body");
	edit32(BP_PACK_OFF_COMPAT, 0x80000000U | BP_PACK_COMPAT_MTIME_NSEC, 0, "unknown compat");
	edit32(BP_PACK_OFF_RO_COMPAT, 0x40, 0, "unknown ro_compat");
	edit32(BP_PACK_OFF_VERSION, 2, -EOPNOTSUPP, "version 2");
	edit32(BP_PACK_OFF_VERSION, 0, -EOPNOTSUPP, "version 0");
	edit32(BP_PACK_OFF_HDR_SIZE, 64, -EBADMSG, "small header");
	edit32(BP_PACK_OFF_HDR_SIZE, 1 << 20, -EBADMSG, "huge header");
	edit32(BP_PACK_OFF_BLOCK_SIZE, 3000, -EBADMSG, "block size");

	/* Huge and inconsistent counts and sizes. */
	edit32(BP_PACK_OFF_NENTRIES, 0xffffffffU, -E2BIG, "huge nentries");
	edit32(BP_PACK_OFF_NMETA, 0xffffffffU, -E2BIG, "huge nmeta");
	edit32(BP_PACK_OFF_STRTAB_SIZE, 0xffffffffU, -E2BIG, "huge strtab");
	edit64(BP_PACK_OFF_BODY_RAW_SIZE, UINT64_MAX, -E2BIG, "huge raw size");
	edit64(BP_PACK_OFF_BODY_SIZE, UINT64_MAX, -E2BIG, "huge body size");
	edit32(BP_PACK_OFF_NENTRIES, 5, -EBADMSG, "nentries + 1");
	edit32(BP_PACK_OFF_NENTRIES, 3, -EBADMSG, "nentries - 1");
	edit32(BP_PACK_OFF_NMETA, 3, -EBADMSG, "nmeta + 1");
	edit32(BP_PACK_OFF_STRTAB_SIZE, 10, -EBADMSG, "strtab size");
	edit32(BP_PACK_OFF_NFILES, 2, -EBADMSG, "nfiles");
	edit64(BP_PACK_OFF_TOTAL_BYTES, 1, -EBADMSG, "total bytes");
	edit64(BP_PACK_OFF_BUDGET, 4096, -EBADMSG, "budget below total");

	/* Records. */
	edit64(H + 8, 0, -EBADMSG, "empty meta range");
	edit64(H + BP_PACK_META_SIZE, 0, -EBADMSG, "meta unsorted");
	edit64(H + 8, UINT64_MAX, -EBADMSG, "meta length overflow");
	edit64(H + 16, 1, -EBADMSG, "meta budget_pos below length");
	edit64(E0 + 8, 0, -EBADMSG, "empty entry");
	edit64(E0 + 0, UINT64_MAX - 10, -EBADMSG, "entry offset overflow");
	edit64(E0 + 16, UINT64_MAX, -EBADMSG, "entry phys none");
	edit64(E0 + 16, 6ULL << 32, -EBADMSG, "entries unsorted");
	edit64(E0 + 24, UINT64_MAX, -EBADMSG, "entry budget_pos");
	edit32(E0 + 60, 0xfffffff0U, -EBADMSG, "path offset out of range");
	edit32(E0 + 60, 1, -EBADMSG, "path offset not at a string start");
	edit32(E0 + 64, 0xffffffffU, -EBADMSG, "path length out of range");
	edit32(E0 + 64, 3, -EBADMSG, "path length short");
	edit32(E0 + 64, 20, -EBADMSG, "path length spans two strings");
	edit32(E0 + 68, 0x80000000U, 0, "unknown entry flag");
}

/* Replace the string table's first path by s (same length), fix CRCs. */
static int with_path(const char *s)
{
	size_t len;
	uint8_t *buf = make(BP_PACK_COMPRESS_NEVER, &len);
	int rc;

	memcpy(buf + STRTAB, s, strlen(paths[0]));
	refix(buf, len);
	rc = parse(buf, len, NULL);
	free(buf);
	return rc;
}

static void test_paths(void)
{
	/* paths[0] is "/bin/sh": 7 bytes. */
	CHECK(with_path("/bin/sh") == 0);
	CHECK(with_path("/../etc") == -EBADMSG);
	CHECK(with_path("/bin/..") == -EBADMSG);
	CHECK(with_path("/./bin/") == -EBADMSG);
	CHECK(with_path("//bin/s") == -EBADMSG);
	CHECK(with_path("/bin/s/") == -EBADMSG);
	CHECK(with_path("bin/sh/") == -EBADMSG);
	CHECK(with_path("/bin\0sh") == -EBADMSG);

	CHECK(bp_pack_path_ok("/a", 2));
	CHECK(bp_pack_path_ok("/a/.b/..c/...", 13));
	CHECK(!bp_pack_path_ok("/", 1));
	CHECK(!bp_pack_path_ok("", 0));
	CHECK(!bp_pack_path_ok("/a/./b", 6));
	CHECK(!bp_pack_path_ok("/a/../b", 7));
	CHECK(!bp_pack_path_ok("/a/..", 5));
	CHECK(!bp_pack_path_ok("/a//b", 5));
}

static void test_writer_refuses(void)
{
	static const char *bad[] = { "/bin/../sh" };
	struct bp_pack_wentry e[2] = { entries[1], entries[0] };
	struct bp_pack_wdata d;
	struct bp_err err = { 0 };
	size_t len;
	void *buf;

	fill(&d, BP_PACK_COMPRESS_AUTO);
	d.paths = bad;
	d.npaths = 1;
	d.nentries = 0;
	CHECK(bp_pack_serialize(&d, &buf, &len, &err) == EINVAL && strstr(err.msg, "/bin/../sh"));

	fill(&d, BP_PACK_COMPRESS_AUTO);
	d.entries = e;
	d.nentries = 2;
	CHECK(bp_pack_serialize(&d, &buf, &len, &err) == EINVAL);

	fill(&d, BP_PACK_COMPRESS_AUTO);
	d.budget = 1000;
	CHECK(bp_pack_serialize(&d, &buf, &len, &err) == EINVAL);
}

/* Deflated packs: corrupt stream with a correct CRC, wrong raw size. */
static void test_deflate(void)
{
	size_t len;
	uint8_t *buf = make(BP_PACK_COMPRESS_ALWAYS, &len);
	uint64_t raw = bp_get_le64(buf + BP_PACK_OFF_BODY_RAW_SIZE);

	CHECK(parse(buf, len, NULL) == 0);
	buf[H + 5] ^= 0xff;
	refix(buf, len);
	CHECK(parse(buf, len, NULL) == -EBADMSG);
	free(buf);

	buf = make(BP_PACK_COMPRESS_ALWAYS, &len);
	bp_put_le64(buf + BP_PACK_OFF_BODY_RAW_SIZE, raw + BP_PACK_ENTRY_SIZE);
	bp_put_le32(buf + BP_PACK_OFF_NENTRIES, 5);
	refix(buf, len);
	CHECK(parse(buf, len, NULL) == -EBADMSG);
	free(buf);

	/* A tiny stream claiming a huge body is refused before allocating. */
	buf = make(BP_PACK_COMPRESS_ALWAYS, &len);
	bp_put_le32(buf + BP_PACK_OFF_NENTRIES, 1000000);
	bp_put_le64(buf + BP_PACK_OFF_BODY_RAW_SIZE, raw + 999996ULL * BP_PACK_ENTRY_SIZE);
	refix(buf, len);
	CHECK(parse(buf, len, NULL) == -EBADMSG);
	free(buf);
}

static void test_load_file(void)
{
	char dir[] = "/tmp/test-pack-parse.XXXXXX";
	char file[64], link[64], fifo[64];
	unsigned int any = getuid() == 0 ? 0 : BP_PACK_LOAD_ANY_OWNER;
	struct bp_pack *p;
	const char *why;
	size_t len;
	void *buf = make(BP_PACK_COMPRESS_AUTO, &len);
	int fd;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		free(buf);
		return;
	}
	snprintf(file, sizeof(file), "%s/pack", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, buf, len) == (ssize_t)len);
	close(fd);
	CHECK(chmod(file, 0644) == 0);

	CHECK(bp_pack_load_file(file, any, &p, &why) == 0);
	CHECK(p && bp_pack_nentries(p) == 4);
	bp_pack_free(p);
	if (getuid() != 0)
		CHECK(bp_pack_load_file(file, 0, &p, &why) == -EPERM && !p);

	CHECK(chmod(file, 0664) == 0);
	CHECK(bp_pack_load_file(file, BP_PACK_LOAD_ANY_OWNER, &p, &why) == -EPERM);
	CHECK(chmod(file, 0646) == 0);
	CHECK(bp_pack_load_file(file, BP_PACK_LOAD_ANY_OWNER, &p, &why) == -EPERM);
	CHECK(chmod(file, 0600) == 0);

	CHECK(symlink(file, link) == 0);
	CHECK(bp_pack_load_file(link, BP_PACK_LOAD_ANY_OWNER, &p, &why) == -EINVAL);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(bp_pack_load_file(fifo, BP_PACK_LOAD_ANY_OWNER, &p, &why) == -EINVAL);
	CHECK(bp_pack_load_file(dir, BP_PACK_LOAD_ANY_OWNER, &p, &why) == -EINVAL);
	CHECK(bp_pack_load_file("/nonexistent/pack", 0, &p, &why) == -ENOENT);

	/* A FIFO handed over as an fd does not block either. */
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	CHECK(fd >= 0 && bp_pack_load_fd(fd, BP_PACK_LOAD_ANY_OWNER, &p, &why) == -EINVAL);
	close(fd);

	unlink(fifo);
	unlink(link);
	unlink(file);
	rmdir(dir);
	free(buf);
}

/*
 * The seed corpus of the fuzz target: every valid-*.pack parses (as a file,
 * through bp_pack_load_file), every bad-*.pack is refused.
 */
static void test_corpus(void)
{
	DIR *d = opendir(PACK_CORPUS_DIR);
	struct dirent *de;
	int nvalid = 0, nbad = 0;

	CHECK(d != NULL);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[4096];
		struct bp_pack *p = NULL;
		const char *why = NULL;
		int rc;

		if (!strstr(de->d_name, ".pack"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", PACK_CORPUS_DIR, de->d_name);
		rc = bp_pack_load_file(path, BP_PACK_LOAD_ANY_OWNER, &p, &why);
		if (strncmp(de->d_name, "valid-", 6) == 0) {
			if (rc)
				fprintf(stderr, "%s: %s\n", de->d_name, why ? why : "?");
			CHECK(rc == 0 && p);
			nvalid++;
		} else {
			if (!rc)
				fprintf(stderr, "%s: accepted\n", de->d_name);
			CHECK(rc < 0 && !p);
			nbad++;
		}
		bp_pack_free(p);
	}
	closedir(d);
	CHECK(nvalid >= 4 && nbad >= 15);
}

int main(void)
{
	test_round_trip(BP_PACK_COMPRESS_NEVER);
	test_round_trip(BP_PACK_COMPRESS_ALWAYS);
	test_round_trip(BP_PACK_COMPRESS_AUTO);
	test_empty_pack();
	test_truncated(BP_PACK_COMPRESS_NEVER);
	test_truncated(BP_PACK_COMPRESS_ALWAYS);
	test_corrupt_header();
	test_fields();
	test_page_size();
	test_paths();
	test_writer_refuses();
	test_deflate();
	test_load_file();
	test_corpus();
	return unit_exit();
}
