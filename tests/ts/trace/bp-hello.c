// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-hello.c --- test helper: a static program to exec from a traced image
 */
#include <stdio.h>

int main(void)
{
	puts("hello from the image");
	return 0;
}
