// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * array.c --- growing malloc'd arrays
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "array.h"

int bp_array_reserve(void **arr, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	if (ncap < *cap || ncap > SIZE_MAX / size)
		return ENOMEM;
	p = realloc(*arr, ncap * size);
	if (!p)
		return ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}
