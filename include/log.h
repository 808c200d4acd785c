/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h --- messages of the command-line programs (never of the engines)
 *
 * Everything goes to stderr as "bootpack: message", or "bootpack VERB: message"
 * once the dispatcher picked a verb. The level is set by
 * -q/-v. bootpack-read has its own kmsg logger (it must not pull in stdio
 * buffering surprises as PID 1).
 */
#ifndef BP_LOG_H
#define BP_LOG_H

#include "c.h"

enum bp_log_level {
	BP_LOG_ERR = 0,
	BP_LOG_WARN,
	BP_LOG_INFO,
	BP_LOG_DEBUG,
};

void bp_log_init(const char *prog);
/* Messages of a verb say "bootpack VERB: ..." (a leading "VERB: " is dropped). */
void bp_log_set_verb(const char *verb);
const char *bp_log_prog(void);
void bp_log_set_level(int level);
int bp_log_level(void);

void bp_log(int level, const char *fmt, ...) _printf_(2, 3);

#define bp_log_error(...) bp_log(BP_LOG_ERR, __VA_ARGS__)
#define bp_log_warn(...) bp_log(BP_LOG_WARN, __VA_ARGS__)
#define bp_log_info(...) bp_log(BP_LOG_INFO, __VA_ARGS__)
#define bp_log_debug(...) bp_log(BP_LOG_DEBUG, __VA_ARGS__)

#endif /* BP_LOG_H */
