// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-pack-mutate.c --- test helper: corrupt a real pack in a precise way
 *
 *   bp-pack-mutate IN OUT OP...
 *     le32 OFF VAL     write a little-endian 32-bit value at byte OFF
 *     le64 OFF VAL     same, 64-bit
 *     replace OLD NEW  replace the first OLD by NEW (same length) after the header
 *     truncate LEN     keep the first LEN bytes
 *     fixcrc           recompute the body CRC then the header CRC (pack-format.h)
 *
 * Only for packs written by `bootpack pack --compress=never`: it edits bytes,
 * it does not write packs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "pack-format.h"

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 24];
	size_t len;
	FILE *f;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: bp-pack-mutate IN OUT OP...\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f)
		return 1;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (i = 3; i < argc; i++) {
		const char *op = argv[i];

		if (strcmp(op, "le32") == 0 && i + 2 < argc) {
			bp_put_le32(buf + strtoul(argv[i + 1], NULL, 0),
				    (uint32_t)strtoul(argv[i + 2], NULL, 0));
			i += 2;
		} else if (strcmp(op, "le64") == 0 && i + 2 < argc) {
			bp_put_le64(buf + strtoul(argv[i + 1], NULL, 0), strtoull(argv[i + 2], NULL, 0));
			i += 2;
		} else if (strcmp(op, "replace") == 0 && i + 2 < argc) {
			size_t n = strlen(argv[i + 1]), k;

			if (strlen(argv[i + 2]) != n) {
				fprintf(stderr, "bp-pack-mutate: replace needs equal lengths\n");
				return 2;
			}
			for (k = BP_PACK_HDR_SIZE; k + n <= len; k++)
				if (memcmp(buf + k, argv[i + 1], n) == 0)
					break;
			if (k + n > len) {
				fprintf(stderr, "bp-pack-mutate: '%s' not found\n", argv[i + 1]);
				return 1;
			}
			memcpy(buf + k, argv[i + 2], n);
			i += 2;
		} else if (strcmp(op, "truncate") == 0 && i + 1 < argc) {
			size_t n = strtoul(argv[i + 1], NULL, 0);

			len = n < len ? n : len;
			i += 1;
		} else if (strcmp(op, "fixcrc") == 0) {
			uint32_t hs = bp_get_le32(buf + BP_PACK_OFF_HDR_SIZE);

			bp_put_le32(buf + BP_PACK_OFF_BODY_CRC,
				    (uint32_t)crc32(0, buf + hs, (uInt)(len - hs)));
			bp_put_le32(buf + BP_PACK_OFF_HEADER_CRC, 0);
			bp_put_le32(buf + BP_PACK_OFF_HEADER_CRC, (uint32_t)crc32(0, buf, hs));
		} else {
			fprintf(stderr, "bp-pack-mutate: bad operation '%s'\n", op);
			return 2;
		}
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		return 1;
	return 0;
}
