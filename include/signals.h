/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * signals.h --- the one signal setup of the verbs that must not die
 * half-way (trace: never leave tracing on; relayout: finish the step)
 *
 * The signals are every catchable one whose default action ends the
 * process: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2,
 * SIGVTALRM, SIGPROF. Handlers run without SA_RESTART, so a blocking call
 * returns EINTR and the verb sees the flag it set.
 */
#ifndef BP_SIGNALS_H
#define BP_SIGNALS_H

#include <signal.h>

/* Install fn for each of them. */
void bp_signals_catch(void (*fn)(int));

/* Back to the default action (e.g. in a child before exec). */
void bp_signals_default(void);

/* Block them, the previous mask into old (restore with sigprocmask). */
void bp_signals_block(sigset_t *old);

#endif /* BP_SIGNALS_H */
