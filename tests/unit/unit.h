/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.h --- a minimal harness for the C unit tests
 */
#ifndef BP_UNIT_H
#define BP_UNIT_H

#include <stdio.h>
#include <stdlib.h>

static int unit_failures;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                               \
			unit_failures++;                                              \
		}                                                                     \
	} while (0)

static inline int unit_exit(void)
{
	if (unit_failures)
		fprintf(stderr, "%d check(s) failed\n", unit_failures);
	return unit_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* BP_UNIT_H */
