// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-judge.c --- the "does readahead pay" decision on recorded stats lines
 *
 * The lines are in the format bootpack status --sample appends to
 * /var/lib/bootpack/stats. The first set holds the hdd-5k160 figures of the
 * whole-loop check (tests/loop/README.md): read boots reached default.target
 * in about 104 s, boots without the reader in about 205 s.
 */
#include <string.h>

#include "loop.h"
#include "unit.h"

static size_t parse(const char *const *lines, struct bp_loop_sample *v)
{
	size_t n = 0;

	for (; *lines; lines++)
		if (bp_loop_parse_sample(*lines, &v[n]) == 0)
			n++;
	return n;
}

/* a slow disk: reading pays */
static const char *const hdd[] = {
	"time=1764800000 packed=39410233 resident=39409972 changed=0 changed_files=0 hit=99 read=1 boot_ms=0",
	"time=1764800600 packed=39410233 resident=39409972 changed=0 changed_files=0 hit=99 read=1 boot_ms=103700",
	"time=1764801200 packed=39410233 resident=39400000 changed=0 changed_files=0 hit=99 read=1 boot_ms=108100",
	"time=1764801800 packed=39410233 resident=39409972 changed=0 changed_files=0 hit=99 read=1 boot_ms=101900",
	"time=1764802400 packed=39410233 resident=21000000 changed=0 changed_files=0 hit=53 read=0 boot_ms=204700",
	"time=1764803000 packed=39410233 resident=39409972 changed=0 changed_files=0 hit=99 read=1 boot_ms=104400",
	"time=1764803600 packed=39410233 resident=20500000 changed=0 changed_files=0 hit=52 read=0 boot_ms=222800",
	NULL,
};

/* a fast disk: the reader only adds work */
static const char *const ssd[] = {
	"time=1764800000 packed=39410233 resident=39409972 changed=0 changed_files=0 hit=99 read=1 boot_ms=12900",
	"time=1764800600 packed=39410233 resident=39409972 changed=0 changed_files=0 hit=99 read=1 boot_ms=12700",
	"time=1764801200 packed=39410233 resident=39409972 changed=0 changed_files=0 hit=99 read=1 boot_ms=13100",
	"time=1764801800 packed=39410233 resident=30000000 changed=0 changed_files=0 hit=76 read=0 boot_ms=12600",
	"time=1764802400 packed=39410233 resident=39409972 changed=0 changed_files=0 hit=99 read=1 boot_ms=12800",
	"time=1764803000 packed=39410233 resident=31000000 changed=0 changed_files=0 hit=78 read=0 boot_ms=12800",
	NULL,
};

int main(void)
{
	struct bp_loop_sample v[64], s;
	struct bp_loop_verdict j;
	size_t n, i;

	/* lines of earlier versions (no read=, no boot_ms=): read boots of unknown length */
	CHECK(bp_loop_parse_sample("time=5 packed=10 resident=9 changed=1 changed_files=1 hit=90\n",
				   &s) == 0);
	CHECK(s.when == 5 && s.packed == 10 && s.resident == 9 && s.hit_pct == 90 &&
	      s.read == 1 && s.boot_ms == 0);
	CHECK(bp_loop_parse_sample("time=5 packed=10 resident=9 changed=1 changed_files=1 hit=90 "
				   "read=0 boot_ms=4711\n", &s) == 0);
	CHECK(s.read == 0 && s.boot_ms == 4711);
	CHECK(bp_loop_parse_sample("time=5 packed=10 resident=9 changed=1 changed_files=1", &s) < 0);
	CHECK(bp_loop_parse_sample("time=5 packed=10 resident=9 changed=1 changed_files=1 hit=101",
				   &s) < 0);
	CHECK(bp_loop_parse_sample("time=5 packed=10 resident=9 changed=1 changed_files=1 hit=9 "
				   "read=2", &s) < 0);
	CHECK(bp_loop_parse_sample("time=5 packed=x resident=9 changed=1 changed_files=1 hit=9",
				   &s) < 0);
	CHECK(bp_loop_parse_sample("# comment", &s) < 0);

	/* the hard disk: decided, pays; medians 104,050 (4 timed reads) and 213,750 */
	n = parse(hdd, v);
	CHECK(n == 7);
	bp_loop_judge(v, n, &j);
	CHECK(j.nread == 4 && j.ncontrol == 2);
	CHECK(j.read_ms == (103700 + 104400) / 2 && j.control_ms == (204700 + 222800) / 2);
	CHECK(j.decided && j.pays);
	/* one control boot only: not decided yet */
	bp_loop_judge(v, 5, &j);
	CHECK(j.ncontrol == 1 && !j.decided && !j.pays);

	/* the fast disk: decided, does not pay */
	n = parse(ssd, v);
	CHECK(n == 6);
	bp_loop_judge(v, n, &j);
	CHECK(j.nread == 4 && j.ncontrol == 2 && j.read_ms == 12850 && j.control_ms == 12700);
	CHECK(j.decided && !j.pays);

	/* the margin: 2 % faster is not enough, more is */
	memset(v, 0, sizeof(v));
	for (i = 0; i < 4; i++) {
		v[i].read = i < 2;
		v[i].boot_ms = i < 2 ? 98000 : 100000;
	}
	bp_loop_judge(v, 4, &j);
	CHECK(j.decided && !j.pays);
	v[0].boot_ms = v[1].boot_ms = 97999;
	bp_loop_judge(v, 4, &j);
	CHECK(j.decided && j.pays);

	/* only the last BP_LOOP_JUDGE_WINDOW samples count: old slow controls drop out */
	memset(v, 0, sizeof(v));
	for (i = 0; i < BP_LOOP_JUDGE_WINDOW + 4; i++) {
		v[i].read = !(i % 4 == 3);
		v[i].boot_ms = v[i].read ? 50000 : (i < 8 ? 90000 : 49000);
	}
	bp_loop_judge(v, 8, &j);
	CHECK(j.decided && j.pays);
	bp_loop_judge(v, BP_LOOP_JUDGE_WINDOW + 4, &j);
	CHECK(j.decided && !j.pays && j.ncontrol == BP_LOOP_JUDGE_WINDOW / 4);
	return unit_exit();
}
