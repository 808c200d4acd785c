// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * signals.c --- the one signal setup (signals.h)
 */
#include <signal.h>
#include <string.h>

#include "c.h"
#include "signals.h"

static const int sigs[] = { SIGINT,  SIGTERM, SIGHUP,	 SIGQUIT, SIGALRM,
			    SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF };

void bp_signals_catch(void (*fn)(int))
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

void bp_signals_default(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
}

void bp_signals_block(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}
