// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootpack-read-trace.c --- bootpack=trace: trace what the boot uses, not what readahead guessed
 *
 * Before Linux 6.12 no tracepoint says that a cached page was used: a trace
 * sees a page when it is read from disk, and readahead reads pages nobody
 * asked for (on the real-boot bench's Debian guest 16 of the 47 MB the stock
 * boot read; doc/architecture.md). With the root disk's readahead off
 * (read_ahead_kb 0) the kernel reads a page when, and only when, a process
 * touches it, and the trace holds exactly the boot's working set. That boot
 * is slower (one request per run of pages): it is the one boot traced. The
 * reader reads nothing in it, or the trace would record the pack instead of
 * the boot. 'bootpack trace --from-boot' puts the kernel's default back.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "bootpack-read.h"

void bp_read_trace_boot(const struct bp_read_settings *s)
{
	unsigned int ma, mi;
	struct stat st;
	uint64_t was;
	int rc;

	if (stat(s->o.root, &st) < 0) {
		bp_rlog(BP_RLOG_WARNING, "bootpack=trace: %s: %s; readahead stays on, nothing read",
			s->o.root, strerror(errno));
		return;
	}
	ma = major(st.st_dev);
	mi = minor(st.st_dev);
	rc = bp_reader_set_read_ahead(ma, mi, s->o.as_init, 0, &was);
	if (rc)
		bp_rlog(BP_RLOG_WARNING, "bootpack=trace: cannot turn readahead of the root's disk "
			"(%u:%u) off: %s; the trace will hold readahead nobody used; nothing read",
			ma, mi, strerror(-rc));
	else
		bp_rlog(BP_RLOG_INFO, "bootpack=trace: readahead of the root's disk (%u:%u) off "
			"(read_ahead_kb was %llu) for a trace of what the boot uses; nothing read",
			ma, mi, (unsigned long long)was);
}
