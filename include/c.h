/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * c.h --- small macros shared by every part of bootpack
 */
#ifndef BP_C_H
#define BP_C_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define _printf_(f, a) __attribute__((format(printf, f, a)))
#define _unused_ __attribute__((unused))

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))

#endif /* BP_C_H */
