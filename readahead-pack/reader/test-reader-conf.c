// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-reader-conf.c --- unit tests of bootpack-read's settings: command line, bootpack.conf, budget
 */
#include <errno.h>
#include <string.h>

#include "reader.h"
#include "strutils.h"
#include "unit.h"

static void test_cmdline(void)
{
	struct bp_reader_cmdline c;

	bp_reader_parse_cmdline("BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet\n", &c);
	CHECK(!c.off && c.init[0] == '\0');
	bp_reader_parse_cmdline("root=/dev/vda1 bootpack=off splash", &c);
	CHECK(c.off);
	bp_reader_parse_cmdline("bootpack=0", &c);
	CHECK(c.off);
	bp_reader_parse_cmdline("bootpack=on bootpack.init=/lib/systemd/systemd single", &c);
	CHECK(!c.off && strcmp(c.init, "/lib/systemd/systemd") == 0);
	bp_reader_parse_cmdline("bootpack.init=\"/sbin/my init\" x=\"a b\" bootpack=off", &c);
	CHECK(c.off && strcmp(c.init, "/sbin/my init") == 0);
	bp_reader_parse_cmdline("bootpack.init=relative/init", &c);
	CHECK(c.init[0] == '\0');	/* must be absolute */
	bp_reader_parse_cmdline("mybootpack=off bootpack.initx=/x", &c);
	CHECK(!c.off && c.init[0] == '\0');
	bp_reader_parse_cmdline("", &c);
	CHECK(!c.off && !c.has_meta_gap);
	bp_reader_parse_cmdline("quiet bootpack.meta_gap=256k ro", &c);
	CHECK(c.has_meta_gap && c.meta_gap == 256ULL << 10);
	bp_reader_parse_cmdline("bootpack.meta_gap=auto", &c);
	CHECK(c.has_meta_gap && c.meta_gap == BP_READER_META_GAP_AUTO);
	bp_reader_parse_cmdline("bootpack.meta_gap=17M bootpack.meta_gapx=1k", &c);
	CHECK(!c.has_meta_gap);	/* above the most, and not our key */
	bp_reader_parse_cmdline("bootpack.head_start_ms=0 quiet", &c);
	CHECK(c.has_head_start && c.head_start_ms == 0);
	bp_reader_parse_cmdline("bootpack.head_start_ms=auto", &c);
	CHECK(c.has_head_start && c.head_start_ms == BP_READER_HEAD_START_AUTO);
	bp_reader_parse_cmdline("bootpack.head_start_ms=10001 bootpack.head_start=5", &c);
	CHECK(!c.has_head_start);	/* above the most, and not our key */
	bp_reader_parse_cmdline("bootpack.in_flight=2M", &c);
	CHECK(c.has_in_flight && c.in_flight == 2ULL << 20);
	bp_reader_parse_cmdline("bootpack.in_flight=64k bootpack.in_flights=8M", &c);
	CHECK(!c.has_in_flight);	/* below the least, and not our key */
	bp_reader_parse_cmdline("bootpack.in_flight=2G", &c);
	CHECK(!c.has_in_flight);	/* above the most */
}

static void test_conf(void)
{
	struct bp_reader_conf c;
	unsigned int line = 0;

	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("# all at their defaults\n\n#pack = /var/lib/bootpack/pack\n",
				   &c, &line) == 0);
	CHECK(c.pack[0] == '\0' && c.log == -1 && c.method == -1 && !c.has_max_ms);

	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("pack=/p\n init = /sbin/x # comment\nmax_ms=500\nbudget = 10M\n"
				   "max_fds=8\nlog=stderr\nmethod=fadvise\nioprio=idle", &c, &line) == 0);
	CHECK(strcmp(c.pack, "/p") == 0 && strcmp(c.init, "/sbin/x") == 0);
	CHECK(c.has_max_ms && c.max_ms == 500);
	CHECK(c.has_budget && c.budget == 10ULL << 20);
	CHECK(c.has_max_fds && c.max_fds == 8);
	CHECK(c.log == BP_LOGT_STDERR && c.method == BP_READ_FADVISE && c.ioprio == BP_IOPRIO_IDLE);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("head_start_ms = auto\n", &c, &line) == 0);
	CHECK(c.has_head_start && c.head_start_ms == BP_READER_HEAD_START_AUTO);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("head_start_ms = 250\n", &c, &line) == 0);
	CHECK(c.has_head_start && c.head_start_ms == 250);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("budget = 75MB\n", &c, &line) == 0);
	CHECK(c.has_budget && c.budget == 75000000ULL);	/* as bootpack pack -B 75MB */

	/* A bad line is named, skipped, the others apply. */
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("max_ms=10\nmethod=mmap\nnoequals\npack=relative\nlog=kmsg\n",
				   &c, &line) == -EINVAL);
	CHECK(line == 2);
	CHECK(c.max_ms == 10 && c.method == -1 && c.pack[0] == '\0' && c.log == BP_LOGT_KMSG);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("ioprio=realtime\n", &c, &line) == -EINVAL && line == 1);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("meta_gap = 0\n", &c, &line) == 0);
	CHECK(c.has_meta_gap && c.meta_gap == 0);
	CHECK(bp_reader_parse_conf("meta_gap = 1M\n", &c, &line) == 0 && c.meta_gap == 1ULL << 20);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("in_flight = 8MiB\n", &c, &line) == 0);
	CHECK(c.has_in_flight && c.in_flight == 8ULL << 20);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("in_flight = 1k\n", &c, &line) == -EINVAL && !c.has_in_flight);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("meta_gap = lots\n", &c, &line) == -EINVAL && !c.has_meta_gap);
	CHECK(c.ioprio == -1);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("method=uring\nhead_start_ms=300\n", &c, &line) == 0);
	CHECK(c.method == BP_READ_URING && c.has_head_start && c.head_start_ms == 300);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("head_start_ms=20000\n", &c, &line) == -EINVAL && line == 1);
	CHECK(!c.has_head_start);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("max_request = 128K\n", &c, &line) == 0);
	CHECK(c.has_max_request && c.max_request == 128 << 10);
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_conf("max_request = 6000\n", &c, &line) == -EINVAL);
	CHECK(!c.has_max_request);	/* not a multiple of 4 KiB */
}

/* The probe file of bootpack setup: its two settings, nothing else, never an error. */
static void test_probe(void)
{
	struct bp_reader_conf c;

	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_probe("# Written by 'bootpack setup'\nmodel=hdd-5k160\n"
				    "far_ms=8.31\nmax_request=524288\nin_flight=8388608\n"
				    "method=pread\nbudget=1M\n", &c) == 0);
	CHECK(c.has_max_request && c.max_request == 512 << 10);
	CHECK(c.has_in_flight && c.in_flight == 8 << 20);
	CHECK(c.method == -1 && !c.has_budget);	/* only those two keys */
	bp_reader_conf_init(&c);
	CHECK(bp_reader_parse_probe("max_request=1\nin_flight=lots\nnonsense\n", &c) == 0);
	CHECK(!c.has_max_request && !c.has_in_flight);
}

static void test_sizes(void)
{
	uint64_t v;

	/* The reader parses sizes with the library's one rule (strutils.h). */
	CHECK(bp_parse_size("4096", &v) == 0 && v == 4096);
	CHECK(bp_parse_size("75M", &v) == 0 && v == 75ULL << 20);
	CHECK(bp_parse_size("75MB", &v) == 0 && v == 75000000ULL);
	CHECK(bp_parse_size("1GiB", &v) == 0 && v == 1ULL << 30);
	CHECK(bp_parse_size("512k", &v) == 0 && v == 512 << 10);
	CHECK(bp_parse_size("-1", &v) < 0);
	CHECK(bp_parse_size("12X", &v) < 0);
	CHECK(bp_parse_size("", &v) < 0);
	CHECK(bp_parse_size("99999999999999999999", &v) < 0);
	CHECK(bp_parse_size("17179869184G", &v) < 0);

	/* At most half of MemAvailable. */
	CHECK(bp_reader_scale_budget(75ULL << 20, 4ULL << 30) == 75ULL << 20);
	CHECK(bp_reader_scale_budget(75ULL << 20, 100ULL << 20) == 50ULL << 20);
	CHECK(bp_reader_scale_budget(75ULL << 20, 0) == 0);
}

int main(void)
{
	test_cmdline();
	test_conf();
	test_probe();
	test_sizes();
	return unit_exit();
}
