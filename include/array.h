/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * array.h --- growing malloc'd arrays
 */
#ifndef BP_ARRAY_H
#define BP_ARRAY_H

#include <stddef.h>

/*
 * Make room for element n of *arr (elements of size bytes, capacity *cap):
 * when n == *cap the capacity doubles, starting at first. Returns 0, or
 * ENOMEM (allocation failed or the size overflows; *arr is unchanged).
 */
int bp_array_reserve(void **arr, size_t *cap, size_t n, size_t size, size_t first);

#endif /* BP_ARRAY_H */
