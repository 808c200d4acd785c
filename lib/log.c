// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * log.c --- stderr messages for the bootpack command
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static const char *bp_prog = "bootpack";
static const char *bp_verb;
static char bp_prog_verb[64];
static int bp_level = BP_LOG_WARN;

void bp_log_init(const char *prog)
{
	if (prog && *prog)
		bp_prog = prog;
}

void bp_log_set_verb(const char *verb)
{
	bp_verb = verb;
	snprintf(bp_prog_verb, sizeof(bp_prog_verb), "%s %s", bp_prog, verb);
}

const char *bp_log_prog(void)
{
	return bp_verb ? bp_prog_verb : bp_prog;
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
	char buf[4096];
	char *msg = buf;
	const char *m;
	size_t n;
	va_list ap;
	int len;

	if (level > bp_level)
		return;
	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len >= (int)sizeof(buf)) {	/* long paths: the whole message, not a cut one */
		msg = malloc((size_t)len + 1);
		if (msg) {
			va_start(ap, fmt);
			vsnprintf(msg, (size_t)len + 1, fmt, ap);
			va_end(ap);
		} else {
			msg = buf;
		}
	}
	m = msg;
	/* "bootpack relayout: x", not "bootpack relayout: relayout: x" */
	if (bp_verb) {
		n = strlen(bp_verb);
		if (strncmp(m, bp_verb, n) == 0 && m[n] == ':' && m[n + 1] == ' ')
			m += n + 2;
	}
	fflush(stdout);
	fprintf(stderr, "%s: %s%s\n", bp_log_prog(), level == BP_LOG_WARN ? "warning: " : "", m);
	if (msg != buf)
		free(msg);
}
