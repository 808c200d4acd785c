// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-pack.c --- fuzz target of the pack parser (libFuzzer, AFL++, corpus replay)
 *
 * LLVMFuzzerTestOneInput() parses one input and, when it opens, decodes
 * every record and checks what the parser promises (pack-parse.h): paths
 * absolute, normalized and as long as said, ranges nonempty, the bytes
 * summing to total_bytes, entries sorted by physical position. A broken
 * promise aborts, so the fuzzer reports it like a crash.
 *
 * Each input is parsed twice: as is, and with both CRCs recomputed, so the
 * mutations also reach the checks that lie behind the CRCs.
 *
 * Built with -DBP_FUZZ_LIBFUZZER by `make fuzz` (clang -fsanitize=fuzzer).
 * Without it, main() replays files and directories given as arguments
 * (the seed corpus in `make check`; AFL++: afl-clang-fast with @@).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "pack-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                 \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "fuzz-pack: broken promise: %s (line %d)\n", \
				#cond, __LINE__);                                   \
			abort();                                                    \
		}                                                                   \
	} while (0)

static int parse_one(const uint8_t *data, size_t size)
{
	const struct bp_pack_info *in;
	struct bp_pack_entry e;
	struct bp_pack_meta m;
	struct bp_pack *p;
	const char *why = NULL;
	uint64_t sum = 0, prev_phys = 0, prev_end = 0;
	uint32_t i;
	int rc;

	rc = bp_pack_open_mem_why(data, size, &p, &why);
	if (rc) {
		CHECK(rc < 0 && p == NULL && why != NULL);
		CHECK(bp_pack_strerror(rc) != NULL);
		return 0;
	}
	in = bp_pack_info(p);
	CHECK(in->version == BP_PACK_VERSION);
	CHECK(bp_pack_nmeta(p) <= BP_PACK_MAX_META && bp_pack_nentries(p) <= BP_PACK_MAX_ENTRIES);
	for (i = 0; i < bp_pack_nmeta(p); i++) {
		CHECK(bp_pack_meta(p, i, &m) == 0);
		CHECK(m.length > 0 && m.offset >= prev_end && m.budget_pos >= m.length);
		prev_end = m.offset + m.length;
		sum += m.length;
	}
	CHECK(bp_pack_meta(p, i, &m) == -ERANGE);
	for (i = 0; i < bp_pack_nentries(p); i++) {
		CHECK(bp_pack_entry(p, i, &e) == 0);
		CHECK(e.length > 0 && e.length <= BP_PACK_MAX_RANGE);
		CHECK(e.phys >= prev_phys);
		CHECK(strlen(e.path) == e.path_len);
		CHECK(bp_pack_path_ok(e.path, e.path_len));
		CHECK(e.budget_pos >= e.length && e.budget_pos <= in->total_bytes);
		prev_phys = e.phys;
		sum += e.length;
	}
	CHECK(bp_pack_entry(p, i, &e) == -ERANGE);
	CHECK(sum == in->total_bytes);
	bp_pack_free(p);
	return 0;
}

/* A copy of the input with the body and header CRCs made right. */
static void parse_crc_fixed(const uint8_t *data, size_t size)
{
	uint32_t hdr_size;
	uint64_t body_size;
	uint8_t *b;

	if (size < BP_PACK_HDR_SIZE)
		return;
	hdr_size = bp_get_le32(data + BP_PACK_OFF_HDR_SIZE);
	if (hdr_size < BP_PACK_HDR_SIZE || hdr_size > size)
		return;
	b = malloc(size);
	if (!b)
		return;
	memcpy(b, data, size);
	body_size = bp_get_le64(b + BP_PACK_OFF_BODY_SIZE);
	if (body_size <= size - hdr_size)
		bp_put_le32(b + BP_PACK_OFF_BODY_CRC,
			    (uint32_t)crc32(crc32(0L, Z_NULL, 0), b + hdr_size, (uInt)body_size));
	bp_put_le32(b + BP_PACK_OFF_HEADER_CRC, 0);
	bp_put_le32(b + BP_PACK_OFF_HEADER_CRC, (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, hdr_size));
	parse_one(b, size);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse_one(data, size);
	parse_crc_fixed(data, size);
	return 0;
}

#ifndef BP_FUZZ_LIBFUZZER
static int replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "fuzz-pack: %s: %s\n", path, strerror(errno));
		return -1;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return -1;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	LLVMFuzzerTestOneInput(buf, got);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = 0, bad = 0;
	char path[4096];
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: fuzz-pack FILE|DIR...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *d;
		DIR *dir;

		if (stat(argv[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
			bad += replay_file(argv[i]) < 0;
			n++;
			continue;
		}
		dir = opendir(argv[i]);
		if (!dir) {
			bad++;
			continue;
		}
		while ((d = readdir(dir))) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], d->d_name);
			bad += replay_file(path) < 0;
			n++;
		}
		closedir(dir);
	}
	printf("fuzz-pack: %lu inputs replayed, %lu unreadable\n", n, bad);
	return bad ? 1 : 0;
}
#endif
