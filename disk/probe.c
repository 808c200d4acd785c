// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probe.c --- measure a disk read-only: latency, depth, rate, whole requests
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bp_et.h"
#include "c.h"
#include "probe.h"
#include "queueattr.h"
#include "smallfile.h"

const unsigned int bp_probe_depths[BP_PROBE_NQD] = { 8, 32 };

/* Shares of the budget, in the order the phases run. */
#define SHARE_PAIRS 0.10	/* first, on blocks nothing has read yet */
#define SHARE_FAR 0.15
#define SHARE_SEQ 0.05
#define SHARE_NEAR 0.10
#define SHARE_QD 0.10	/* each depth */
#define SHARE_RATE 0.15	/* the rest (0.25) finds the whole request */
#define NEAR_MIN (1ULL << 20)
#define NEAR_SPAN (7ULL << 20)
#define WHOLE_REPS_MIN 3
#define WHOLE_REPS_MAX 32

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One read, timed: seconds, or -errno. A short read (the end) is an error. */
static double timed_read(int fd, void *buf, size_t len, uint64_t off)
{
	double t0 = now_s();
	ssize_t n = pread(fd, buf, len, (off_t)off);

	if (n < 0)
		return -(double)errno;
	if ((size_t)n != len)
		return -(double)EIO;
	return now_s() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bp_probe_median(double *v, size_t n)
{
	if (!n)
		return 0.0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static void lat_summary(struct bp_probe_lat *l, double *v, size_t n)
{
	double sum = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	l->n = n;
	l->mean_ms = n ? sum / (double)n * 1e3 : 0.0;
	l->ms = bp_probe_median(v, n) * 1e3;
}

/* ---- sysfs and mounts -------------------------------------------------------------- */

static int queue_u64(dev_t rdev, const char *name, uint64_t *v)
{
	return bp_queue_u64(AT_FDCWD, major(rdev), minor(rdev), name, v);
}

static void read_sysfs(dev_t rdev, struct bp_probe *p)
{
	uint64_t v;

	p->sys_rotational = queue_u64(rdev, "rotational", &v) == 0 && v <= 1 ? (int)v : -1;
	if (queue_u64(rdev, "max_sectors_kb", &v) == 0 && v < (1ULL << 30))
		p->sys_max_sectors_kb = v;
	if (queue_u64(rdev, "max_hw_sectors_kb", &v) == 0 && v < (1ULL << 40))
		p->sys_max_hw_sectors_kb = v;
	p->sys_max_request = p->sys_max_sectors_kb * 1024;
}

/* Is dev, or a partition of it, mounted read-write? Its mount point into mnt. */
static int mounted_rw(dev_t rdev, char *mnt, size_t len)
{
	char line[8192], mine[PATH_MAX], theirs[PATH_MAX], sys[64];
	unsigned int ma, mi;
	size_t mlen;
	FILE *fp;
	int found = 0;

	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
	if (!realpath(sys, mine))
		mine[0] = '\0';
	mlen = strlen(mine);
	fp = fopen("/proc/self/mountinfo", "re");
	if (!fp)
		return 0;
	while (!found && fgets(line, sizeof(line), fp)) {
		char point[4096], opts[256];

		/* id parent maj:min root point options ... */
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s %255s", &ma, &mi, point, opts) != 4)
			continue;
		if (strncmp(opts, "rw", 2) != 0 || (opts[2] && opts[2] != ','))
			continue;
		if (ma == major(rdev) && mi == minor(rdev)) {
			found = 1;
		} else if (mlen) {
			snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", ma, mi);
			found = realpath(sys, theirs) && strncmp(theirs, mine, mlen) == 0 &&
				theirs[mlen] == '/';
		}
		if (found)
			snprintf(mnt, len, "%s", point);
	}
	fclose(fp);
	return found;
}

/* ---- the phases --------------------------------------------------------------------- */

struct ctx {
	int fd;
	uint64_t size;
	void *buf;		/* BP_PROBE_WHOLE_MAX, aligned */
	double *lat;		/* BP_PROBE_LAT_MAX samples */
	uint64_t x;		/* random state */
	double t_end;		/* the whole probe's deadline */
	double last;		/* the latest read's time: what the next one may take */
};

/* Is there time for one more read before the deadline? */
static int time_left(const struct ctx *c)
{
	return now_s() + c->last <= c->t_end;
}

/* timed_read() on c's device, its time kept as the next one's estimate. */
static double ctx_read(struct ctx *c, void *buf, size_t len, uint64_t off)
{
	double r = timed_read(c->fd, buf, len, off);

	if (r >= 0)
		c->last = r;
	return r;
}

static errcode_t read_fail(const struct bp_probe *p, double r, uint64_t off, struct bp_err *err)
{
	int e = (int)-r;

	return bp_err_set(err, e, "%s: read at byte %llu failed: %s", p->path,
			  (unsigned long long)off, strerror(e));
}

/*
 * Pairs of QD1 4 KiB reads of one block: the first read, then the same
 * block again. Offsets from the seed (bp_probe_predict() replays them), in
 * the first phase, before any other read could have touched their chunks.
 */
static errcode_t phase_pairs(struct ctx *c, struct bp_probe *p, double until,
			     struct bp_err *err)
{
	double second[BP_PROBE_PAIRS_MAX], r;
	uint64_t x = p->seed ^ BP_PROBE_PAIR_SALT, off;
	size_t n = 0;

	while (n < BP_PROBE_PAIRS_MAX && (n < 1 || now_s() < until) && time_left(c)) {
		off = bp_probe_rand_off(&x, c->size, BP_PROBE_IO);
		r = ctx_read(c, c->buf, BP_PROBE_IO, off);
		if (r < 0)
			return read_fail(p, r, off, err);
		c->lat[n] = r;
		if (!time_left(c))
			break;	/* no time for the pair's second read */
		r = ctx_read(c, c->buf, BP_PROBE_IO, off);
		if (r < 0)
			return read_fail(p, r, off, err);
		second[n++] = r;
	}
	lat_summary(&p->cold, c->lat, n);
	lat_summary(&p->reread, second, n);
	return 0;
}

/* QD1 4 KiB reads far apart: offsets from the seed, as bp_probe_predict() replays them. */
static errcode_t phase_far(struct ctx *c, struct bp_probe *p, double until, struct bp_err *err)
{
	uint64_t x = p->seed, off;
	size_t n = 0;
	double r;

	while (n < BP_PROBE_LAT_MAX && (n < 1 || now_s() < until) && time_left(c)) {
		off = bp_probe_rand_off(&x, c->size, BP_PROBE_IO);
		r = ctx_read(c, c->buf, BP_PROBE_IO, off);
		if (r < 0)
			return read_fail(p, r, off, err);
		c->lat[n++] = r;
	}
	lat_summary(&p->far, c->lat, n);
	return 0;
}

/* QD1 4 KiB reads: the next block (back = 0), or a few MiB back. */
static errcode_t phase_walk(struct ctx *c, struct bp_probe *p, struct bp_probe_lat *l, int back,
			    double until, struct bp_err *err)
{
	uint64_t off = bp_probe_rand_off(&c->x, c->size, BP_PROBE_IO), jump;
	size_t n = 0;
	double r;

	while (n < BP_PROBE_LAT_MAX && (n < 2 || now_s() < until) && time_left(c)) {
		r = ctx_read(c, c->buf, BP_PROBE_IO, off);
		if (r < 0)
			return read_fail(p, r, off, err);
		c->lat[n++] = r;
		if (back) {
			jump = NEAR_MIN + bp_probe_next(&c->x) % (NEAR_SPAN / BP_PROBE_IO) * BP_PROBE_IO;
			off = off >= jump ? off - jump : bp_probe_rand_off(&c->x, c->size, BP_PROBE_IO);
		} else {
			off += BP_PROBE_IO;
			if (off + BP_PROBE_IO > c->size)
				off = 0;
		}
	}
	/* the first read of a walk positions it: not a sample of the distance */
	if (n > 1)
		lat_summary(l, c->lat + 1, n - 1);
	return 0;
}

struct worker {
	pthread_t tid;
	int fd;
	uint64_t size, x;
	double until, t_end, last;
	double *lat;
	size_t n;
	int error;
	uint64_t bad_off;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	void *buf;
	uint64_t off;
	double r;

	if (posix_memalign(&buf, BP_PROBE_IO, BP_PROBE_IO)) {
		w->error = ENOMEM;
		return NULL;
	}
	while (w->n < BP_PROBE_LAT_MAX && (!w->n || now_s() < w->until) &&
	       now_s() + w->last <= w->t_end) {
		off = bp_probe_rand_off(&w->x, w->size, BP_PROBE_IO);
		r = timed_read(w->fd, buf, BP_PROBE_IO, off);
		if (r < 0) {
			w->error = (int)-r;
			w->bad_off = off;
			break;
		}
		w->lat[w->n++] = r;
		w->last = r;
	}
	free(buf);
	return NULL;
}

/* depth threads, each with one random 4 KiB read in flight. */
static errcode_t phase_depth(struct ctx *c, struct bp_probe *p, struct bp_probe_qd *q,
			     unsigned int depth, double until, struct bp_err *err)
{
	struct worker *w;
	double *all, t0, wall;
	unsigned int i, started = 0;
	size_t n = 0;
	errcode_t ret = 0;

	w = calloc(depth, sizeof(*w));
	all = calloc((size_t)depth * BP_PROBE_LAT_MAX, sizeof(*all));
	if (!w || !all) {
		ret = bp_err_set(err, ENOMEM, "%s: out of memory", p->path);
		goto out;
	}
	t0 = now_s();
	for (i = 0; i < depth; i++) {
		w[i].fd = c->fd;
		w[i].size = c->size;
		w[i].x = bp_probe_next(&c->x) | 1;
		w[i].until = until;
		w[i].t_end = c->t_end;
		w[i].last = c->last;
		w[i].lat = all + (size_t)i * BP_PROBE_LAT_MAX;
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]) != 0)
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	wall = now_s() - t0;
	for (i = 0; i < started; i++) {
		if (w[i].error && !ret)
			ret = read_fail(p, -(double)w[i].error, w[i].bad_off, err);
		memmove(all + n, w[i].lat, w[i].n * sizeof(*all));
		n += w[i].n;
	}
	q->depth = started;
	q->n = n;
	q->iops = wall > 0 ? (double)n / wall : 0.0;
	q->ms = bp_probe_median(all, n) * 1e3;
out:
	free(w);
	free(all);
	return ret;
}

/* Sequential reads of p->seq_request from a random place, while the time lasts. */
static errcode_t phase_rate(struct ctx *c, struct bp_probe *p, double until, struct bp_err *err)
{
	uint64_t req = p->seq_request, off;
	double t0, r, busy = 0.0;

	p->seq_offset = bp_probe_rand_off(&c->x, c->size / 2, req) / req * req;
	off = p->seq_offset;
	t0 = now_s();
	do {
		if (off + req > c->size || !time_left(c))
			break;
		r = ctx_read(c, c->buf, req, off);
		if (r < 0)
			return read_fail(p, r, off, err);
		busy += r;
		off += req;
	} while (now_s() < until || off - p->seq_offset < 2 * req);
	(void)t0;
	p->seq_bytes = off - p->seq_offset;
	p->rate_mbs = busy > 0 ? (double)p->seq_bytes / busy / 1e6 : 0.0;
	return 0;
}

/*
 * One read of n bytes against two of n/2, back to back, in a sequential
 * walk; the saving of the two over the one is a command's cost while n is
 * taken whole, nothing once the device splits it.
 */
static errcode_t phase_whole(struct ctx *c, struct bp_probe *p, double until, struct bp_err *err)
{
	uint64_t top = BP_PROBE_WHOLE_MAX, n, off;
	double one[WHOLE_REPS_MAX], two[WHOLE_REPS_MAX], r1, r2, slice, t_size, saving;
	unsigned int sizes = 0, reps;
	int split = 0;

	while (top > BP_PROBE_WHOLE_MIN && top * 8 > c->size)
		top /= 2;
	for (n = BP_PROBE_WHOLE_MIN; n <= top; n *= 2)
		sizes++;
	off = bp_probe_rand_off(&c->x, c->size / 2, BP_PROBE_IO);
	for (n = BP_PROBE_WHOLE_MIN; n <= top && !split; n *= 2, sizes--) {
		slice = (until - now_s()) / sizes;
		t_size = now_s();
		for (reps = 0; reps < WHOLE_REPS_MAX; reps++) {
			if (reps >= WHOLE_REPS_MIN && now_s() - t_size > slice)
				break;
			if (!time_left(c))
				break;
			if (off + 2 * n > c->size)
				off = bp_probe_rand_off(&c->x, c->size / 2, BP_PROBE_IO);
			r1 = ctx_read(c, c->buf, n, off);
			if (r1 < 0)
				return read_fail(p, r1, off, err);
			off += n;
			r2 = ctx_read(c, c->buf, n / 2, off);
			if (r2 >= 0) {
				double r3 = ctx_read(c, c->buf, n / 2, off + n / 2);

				r2 = r3 < 0 ? r3 : r2 + r3;
			}
			if (r2 < 0)
				return read_fail(p, r2, off, err);
			off += n;
			one[reps] = r1;
			two[reps] = r2;
		}
		if (reps < WHOLE_REPS_MIN)
			break;	/* out of time: n was not measured */
		saving = (bp_probe_median(two, reps) - bp_probe_median(one, reps)) * 1e3;
		p->whole_tested = n;
		if (n == BP_PROBE_WHOLE_MIN) {
			p->whole_saving_ms = saving;
			if (saving < 0.003)
				break;	/* a command costs nothing measurable: unknown */
			p->max_request = n;
		} else if (saving >= p->whole_saving_ms / 2) {
			p->max_request = n;
		} else {
			split = 1;
		}
	}
	return 0;
}

static void lat_scale(struct bp_probe_lat *l, double f)
{
	l->ms /= f;
	l->mean_ms /= f;
}

/* An emulated disk stretched f times: the figures of the disk it stands for. */
static void scale_figures(struct bp_probe *p, double f)
{
	unsigned int i;

	p->scale = f;
	if (f == 1.0)
		return;
	lat_scale(&p->cold, f);
	lat_scale(&p->reread, f);
	lat_scale(&p->seq, f);
	lat_scale(&p->near, f);
	lat_scale(&p->far, f);
	for (i = 0; i < BP_PROBE_NQD; i++) {
		p->qd[i].ms /= f;
		p->qd[i].iops *= f;
	}
	p->rate_mbs *= f;
	p->whole_saving_ms /= f;
}

static const char *const phase_names[] = {
	"first-again", "far", "next", "near", "depth8", "depth32", "rate", "whole",
};

const char *bp_probe_phase_name(unsigned int bit)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(phase_names); i++)
		if (bit == 1U << i)
			return phase_names[i];
	return "?";
}

void bp_probe_unmeasured_str(const struct bp_probe *p, char *buf, size_t len)
{
	size_t k = 0;
	unsigned int i;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(phase_names) && k < len; i++)
		if (p->unmeasured & (1U << i))
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "",
					      phase_names[i]);
}

/* What the measuring child shares with the caller (one anonymous shared mapping). */
struct shared {
	struct bp_probe p;	/* the child's figures, phase by phase */
	unsigned int done;	/* BP_PROBE_PH_* measured: their fields are final */
	int finished;		/* the child ran to its end (rc, err set) */
	errcode_t rc;
	struct bp_err err;
};

static void mark(struct shared *sh, unsigned int bit, int measured)
{
	if (measured)
		__atomic_fetch_or(&sh->done, bit, __ATOMIC_RELEASE);
}

/* The phases, in the child, into sh->p; each marked once its figures are final. */
static errcode_t measure(struct ctx *c, struct shared *sh, double t0, double budget)
{
	struct bp_probe *p = &sh->p;
	struct bp_err *err = &sh->err;
	double until;
	unsigned int i;
	errcode_t ret;

	until = t0 + budget * SHARE_PAIRS;
	if ((ret = phase_pairs(c, p, until, err)))
		return ret;
	mark(sh, BP_PROBE_PH_PAIRS, p->cold.n > 0);
	until += budget * SHARE_FAR;
	if ((ret = phase_far(c, p, until, err)))
		return ret;
	mark(sh, BP_PROBE_PH_FAR, p->far.n > 0);
	until += budget * SHARE_SEQ;
	if ((ret = phase_walk(c, p, &p->seq, 0, until, err)))
		return ret;
	mark(sh, BP_PROBE_PH_SEQ, p->seq.n > 0);
	until += budget * SHARE_NEAR;
	if ((ret = phase_walk(c, p, &p->near, 1, until, err)))
		return ret;
	mark(sh, BP_PROBE_PH_NEAR, p->near.n > 0);
	for (i = 0; i < BP_PROBE_NQD; i++) {
		until += budget * SHARE_QD;
		if ((ret = phase_depth(c, p, &p->qd[i], bp_probe_depths[i], until, err)))
			return ret;
		mark(sh, i ? BP_PROBE_PH_QD32 : BP_PROBE_PH_QD8, p->qd[i].n > 0);
	}
	until += budget * SHARE_RATE;
	if ((ret = phase_rate(c, p, until, err)))
		return ret;
	mark(sh, BP_PROBE_PH_RATE, p->seq_bytes > 0);
	if ((ret = phase_whole(c, p, c->t_end, err)))
		return ret;
	mark(sh, BP_PROBE_PH_WHOLE, p->whole_tested > 0);
	return 0;
}

/* Close [a, b] (close_range(2), else one by one up to a sane bound). */
static void close_fds(int a, int b)
{
	int fd;

	if (a > b)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned int)a, (unsigned int)b, 0U) == 0)
		return;
#endif
	for (fd = a; fd <= b && fd < 65536; fd++)
		close(fd);
}

/*
 * The child keeps the device and the pipe only: one stuck in a read must
 * hold no pipe or terminal of the caller's (a shell waiting for its
 * output's end would wait for it too).
 */
static void child_fds(int dev, int wfd)
{
	int lo = MIN(dev, wfd), hi = MAX(dev, wfd), null;

	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	close_fds(3, lo - 1);
	close_fds(lo + 1, hi - 1);
	close_fds(hi + 1, INT_MAX);
}

/* A phase not measured: its figures 0, not half of a run. */
static void clear_unmeasured(struct bp_probe *p)
{
	unsigned int u = p->unmeasured, i;

	if (u & BP_PROBE_PH_PAIRS) {
		memset(&p->cold, 0, sizeof(p->cold));
		memset(&p->reread, 0, sizeof(p->reread));
	}
	if (u & BP_PROBE_PH_FAR)
		memset(&p->far, 0, sizeof(p->far));
	if (u & BP_PROBE_PH_SEQ)
		memset(&p->seq, 0, sizeof(p->seq));
	if (u & BP_PROBE_PH_NEAR)
		memset(&p->near, 0, sizeof(p->near));
	for (i = 0; i < BP_PROBE_NQD; i++) {
		if (!(u & (i ? BP_PROBE_PH_QD32 : BP_PROBE_PH_QD8)))
			continue;
		memset(&p->qd[i], 0, sizeof(p->qd[i]));
		p->qd[i].depth = bp_probe_depths[i];
	}
	if (u & BP_PROBE_PH_RATE) {
		p->rate_mbs = 0.0;
		p->seq_bytes = 0;
		p->seq_offset = 0;
	}
	if (u & BP_PROBE_PH_WHOLE) {
		p->max_request = 0;
		p->whole_tested = 0;
		p->whole_saving_ms = 0.0;
	}
}

/*
 * Run measure() in a child and wait for it until the deadline + the grace:
 * past it the child is killed and not waited for (a read stuck in the
 * kernel keeps it until the read returns); what it marked done is kept.
 */
static errcode_t run_child(struct ctx *c, struct bp_probe *p, double t0, double budget,
			   struct bp_err *err)
{
	struct shared *sh;
	struct pollfd pf;
	double stop = c->t_end + BP_PROBE_GRACE, left;
	unsigned int done;
	int pfd[2], status = 0, killed = 0, reaped = 0, i;
	pid_t pid;
	errcode_t ret = 0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return bp_err_set(err, errno, "%s: out of memory", p->path);
	memset(sh, 0, sizeof(*sh));
	sh->p = *p;
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = bp_err_set(err, errno, "%s: cannot make a pipe: %s", p->path,
				 strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = bp_err_set(err, errno, "%s: cannot fork: %s", p->path, strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		goto out;
	}
	if (pid == 0) {
		close(pfd[0]);
		child_fds(c->fd, pfd[1]);
		sh->rc = measure(c, sh, t0, budget);
		__atomic_store_n(&sh->finished, 1, __ATOMIC_RELEASE);
		_exit(0);
	}
	close(pfd[1]);
	pf.fd = pfd[0];
	pf.events = POLLIN;
	/* The child never writes: the pipe's end is its exit. */
	for (;;) {
		char b;

		left = stop - now_s();
		if (left <= 0) {
			killed = 1;
			break;
		}
		pf.revents = 0;
		if (poll(&pf, 1, (int)(left * 1e3) + 1) < 0) {
			if (errno == EINTR)
				continue;
			killed = 1;
			break;
		}
		if (pf.revents && read(pfd[0], &b, 1) <= 0)
			break;
	}
	close(pfd[0]);
	if (killed && !__atomic_load_n(&sh->finished, __ATOMIC_ACQUIRE))
		kill(pid, SIGKILL);
	else
		killed = 0;
	/* Reap it if it goes (at once when it ended; a stuck read keeps it: not waited for). */
	for (i = 0; i < (killed ? 20 : 1000) && !reaped; i++) {
		pid_t w = waitpid(pid, &status, killed ? WNOHANG : 0);

		if (w == pid || (w < 0 && errno == ECHILD))
			reaped = 1;
		else if (w == 0)
			usleep(5000);
	}
	done = __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE);
	*p = sh->p;
	p->unmeasured = BP_PROBE_PH_ALL & ~done;
	p->partial = p->unmeasured != 0;
	p->abandoned = killed;
	clear_unmeasured(p);
	if (!killed && __atomic_load_n(&sh->finished, __ATOMIC_ACQUIRE)) {
		if (sh->rc) {
			ret = sh->rc;
			*err = sh->err;
		}
	} else if (!killed) {
		ret = bp_err_set(err, EIO, "%s: the measuring process died (%s %d)", p->path,
				 WIFSIGNALED(status) ? "signal" : "exit status",
				 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
out:
	munmap(sh, sizeof(*sh));
	return ret;
}

errcode_t bp_probe_run(const char *path, const struct bp_probe_opts *o, struct bp_probe *p,
		       struct bp_err *err)
{
	struct ctx c = { .fd = -1 };
	struct stat st;
	double t0, budget;
	char mnt[4096];
	errcode_t ret = 0;

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	p->sys_rotational = -1;
	p->seed = o->seed ? o->seed : 0x9e3779b97f4a7c15ULL;
	budget = o->seconds > 0 ? o->seconds : BP_PROBE_SECONDS_DEFAULT;
	p->deadline_s = budget;
	t0 = now_s();
	c.t_end = t0 + budget;

	c.fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT | O_NOFOLLOW);
	if (c.fd < 0 && errno == EINVAL) {
		c.fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);	/* tmpfs: no O_DIRECT */
	} else if (c.fd >= 0) {
		p->direct = 1;
	}
	if (c.fd < 0)
		return bp_err_set(err, errno, "%s: %s", path, strerror(errno));
	if (fstat(c.fd, &st) < 0) {
		ret = bp_err_set(err, errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (S_ISBLK(st.st_mode)) {
		p->is_blockdev = 1;
		if (ioctl(c.fd, BLKGETSIZE64, &p->size) < 0) {
			ret = bp_err_set(err, errno, "%s: cannot read its size: %s", path,
					 strerror(errno));
			goto out;
		}
		if (!o->mounted_ok && mounted_rw(st.st_rdev, mnt, sizeof(mnt))) {
			ret = bp_err_set(err, BP_ET_MOUNTED, "%s: mounted read-write on %s: the "
					 "filesystem's own reads and writes would skew the figures "
					 "(unmount it, mount it read-only, or give --mounted)",
					 path, mnt);
			goto out;
		}
		read_sysfs(st.st_rdev, p);
	} else if (S_ISREG(st.st_mode)) {
		p->size = (uint64_t)st.st_size;
	} else {
		ret = bp_err_set(err, EINVAL, "%s: neither a block device nor a regular file", path);
		goto out;
	}
	if (p->size < BP_PROBE_MIN_SIZE) {
		ret = bp_err_set(err, EINVAL, "%s: %llu bytes: too small to measure (%llu MiB at "
				 "least)", path, (unsigned long long)p->size,
				 (unsigned long long)(BP_PROBE_MIN_SIZE >> 20));
		goto out;
	}
	c.size = p->size / BP_PROBE_IO * BP_PROBE_IO;
	c.x = p->seed ^ 0x2545f4914f6cdd1dULL;
	c.lat = malloc(BP_PROBE_LAT_MAX * sizeof(*c.lat));
	if (!c.lat || posix_memalign(&c.buf, BP_PROBE_IO, BP_PROBE_WHOLE_MAX)) {
		ret = bp_err_set(err, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	p->seq_request = BP_PROBE_SEQ_REQUEST;
	if (p->sys_max_request >= BP_PROBE_IO && p->sys_max_request < p->seq_request)
		p->seq_request = p->sys_max_request / BP_PROBE_IO * BP_PROBE_IO;

	ret = run_child(&c, p, t0, budget, err);
	if (ret)
		goto out;
	scale_figures(p, o->scale > 0 ? o->scale : 1.0);
	/* a disk that rotates: positioning costs milliseconds, the next block does not */
	p->rotational = (p->far.ms >= 2.0 || p->near.ms >= 2.0) &&
			(p->far.ms > 3.0 * p->seq.ms || p->near.ms > 3.0 * p->seq.ms);
out:
	p->elapsed_s = now_s() - t0;
	free(c.buf);
	free(c.lat);
	if (c.fd >= 0)
		close(c.fd);
	return ret;
}
