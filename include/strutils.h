/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strutils.h --- parsing and printing numbers and sizes
 */
#ifndef BP_STRUTILS_H
#define BP_STRUTILS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse a size: a decimal number with an optional suffix. K, M, G, T (and
 * KiB, MiB, GiB, TiB) are powers of 1024; KB, MB, GB, TB powers of 1000;
 * a bare number or a "B" suffix is bytes. Returns 0, -EINVAL or -ERANGE.
 */
int bp_parse_size(const char *str, uint64_t *ret);

/* Parse an unsigned integer (decimal, or hex with 0x). 0, -EINVAL, -ERANGE. */
int bp_parse_u64(const char *str, uint64_t *ret);

/* "75.0 MiB", "4.0 KiB", "512 B" into buf; returns buf. */
char *bp_size_human(uint64_t bytes, char *buf, size_t len);

#endif /* BP_STRUTILS_H */
