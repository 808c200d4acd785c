// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * log.c --- stderr messages for the bootpack command
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static const char *bp_prog = "bootpack";
static int bp_level = BP_LOG_WARN;

void bp_log_init(const char *prog)
{
	if (prog && *prog)
		bp_prog = prog;
}

const char *bp_log_prog(void)
{
	return bp_prog;
}

void bp_log_set_level(int level)
{
	if (level < BP_LOG_ERR)
		level = BP_LOG_ERR;
	if (level > BP_LOG_DEBUG)
		level = BP_LOG_DEBUG;
	bp_level = level;
}

int bp_log_level(void)
{
	return bp_level;
}

void bp_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > bp_level)
		return;
	fflush(stdout);
	fprintf(stderr, "%s: ", bp_prog);
	if (level == BP_LOG_WARN)
		fputs("warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
