/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strutils.h --- parsing and printing numbers and sizes
 */
#ifndef BP_STRUTILS_H
#define BP_STRUTILS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The one size rule of bootpack and bootpack-read (as util-linux's):
 * a decimal number with an optional suffix, case-insensitive.
 *   K, M, G, T and KiB, MiB, GiB, TiB: powers of 1024 ("75M" = 75 MiB);
 *   KB, MB, GB, TB: powers of 1000 ("75MB" = 75,000,000 bytes);
 *   none or B: bytes.
 * Returns 0, -EINVAL or -ERANGE. libc only: bootpack-read links this file.
 */
int bp_parse_size(const char *str, uint64_t *ret);

/* Parse an unsigned integer (decimal, or hex with 0x). 0, -EINVAL, -ERANGE. */
int bp_parse_u64(const char *str, uint64_t *ret);

/* "75.0 MiB", "4.0 KiB", "512 B" into buf; returns buf. */
char *bp_size_human(uint64_t bytes, char *buf, size_t len);

/* The one size formatter of the CLI: bytes as a plain number when raw
 * (--bytes), else bp_size_human(). Returns buf. */
const char *bp_size_str(uint64_t bytes, int raw, char *buf, size_t len);

#endif /* BP_STRUTILS_H */
