// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootpack-delay.c --- nbdkit filter: serve the disk at the speed of a disk model
 *
 *   nbdkit --filter=bench/boot/nbdkit-bootpack-delay-filter.so file disk.img \
 *          model=hdd-5k160 [scale=4.2] [log=requests.log]
 *
 * Every request (read, write, zero, trim, flush, cache) is charged by the
 * disk model of `bootpack bench` (disk/diskmodel.c) in the order the
 * requests arrive, times scale (the guest's CPU slowdown under emulation).
 * The disk serves one request at a time: a request that arrives while the
 * disk is busy waits in the queue. Each reply is held back until the
 * modelled completion time. The log has one line per request:
 *
 *   start_us offset length type service_us wait_us
 *
 * start_us: when the disk began serving it, microseconds since the first
 * connection opened; type R (read, cache), W (write, zero), F (flush), T
 * (trim); service_us: scaled model time; wait_us: time queued. Lines
 * starting with '#' are comments (the header names the model, the scale and
 * the wall-clock time of open; the last line sums the busy time).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nbdkit-filter.h>

#include "delay.h"
#include "diskmodel.h"

static const struct bp_disk_model *model;
static double scale = 1.0;
static char *log_path;
static FILE *log_fp;
static pid_t log_owner;	/* a child forked by nbdkit --run must not close it */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct bp_delay disk;	/* under lock */
static int opened;		/* under lock: disk initialised */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void delay_unload(void)
{
	if (log_fp && getpid() == log_owner) {
		fprintf(log_fp, "# end requests %llu busy_us %.3f\n",
			(unsigned long long)disk.requests, disk.busy_s * 1e6);
		fclose(log_fp);
	}
	if (opened)
		bp_delay_free(&disk);
	free(log_path);
}

static int delay_config(nbdkit_next_config *next, nbdkit_backend *nxdata, const char *key,
			const char *value)
{
	char *end, names[256];

	if (strcmp(key, "model") == 0) {
		model = bp_disk_model_find(value);
		if (!model) {
			bp_disk_model_names(names, sizeof(names));
			nbdkit_error("bootpack-delay: unknown model '%s' (use one of %s)", value,
				     names);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "scale") == 0) {
		errno = 0;
		scale = strtod(value, &end);
		if (errno || end == value || *end || !isfinite(scale) || scale <= 0) {
			nbdkit_error("bootpack-delay: scale '%s' is not a positive number", value);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "log") == 0) {
		free(log_path);
		log_path = nbdkit_absolute_path(value);
		return log_path ? 0 : -1;
	}
	return next(nxdata, key, value);
}

static int delay_config_complete(nbdkit_next_config_complete *next, nbdkit_backend *nxdata)
{
	char names[256];

	if (!model) {
		bp_disk_model_names(names, sizeof(names));
		nbdkit_error("bootpack-delay: model= is required (one of %s)", names);
		return -1;
	}
	return next(nxdata);
}

#define delay_config_help \
	"model=<name>                          (required) a disk model of bootpack bench\n" \
	"                                      (eee-flash, hdd-5k160, sata-ssd, pi4-sd,\n" \
	"                                      pi4-sd-slow, usb2-stick, emmc, hdd-smr,\n" \
	"                                      cloud-gp3, cloud-cold)\n" \
	"scale=<float>                         multiply every delay (default 1)\n" \
	"log=<file>                            one line per request"

static int delay_get_ready(int thread_model)
{
	if (!log_path)
		return 0;
	log_fp = fopen(log_path, "we");
	if (!log_fp) {
		nbdkit_error("bootpack-delay: %s: %s", log_path, strerror(errno));
		return -1;
	}
	setvbuf(log_fp, NULL, _IOLBF, 0);
	log_owner = getpid();
	return 0;
}

/* nbdkit may fork after get_ready (--run, daemonising): the server owns the log. */
static int delay_after_fork(nbdkit_backend *nxdata)
{
	log_owner = getpid();
	return 0;
}

static void *delay_open(nbdkit_next_open *next, nbdkit_context *ctx, int readonly,
			const char *exportname, int is_tls)
{
	struct timespec rt;

	if (next(ctx, readonly, exportname) == -1)
		return NULL;
	pthread_mutex_lock(&lock);
	if (!opened) {
		clock_gettime(CLOCK_REALTIME, &rt);
		bp_delay_init(&disk, model, scale, mono_ns());
		opened = 1;
		if (log_fp)
			fprintf(log_fp,
				"# bootpack-delay 1 model %s scale %.6g open_realtime %lld.%06ld\n"
				"# start_us offset length type service_us wait_us\n",
				model->name, scale, (long long)rt.tv_sec, rt.tv_nsec / 1000);
	}
	pthread_mutex_unlock(&lock);
	return NBDKIT_HANDLE_NOT_NEEDED;
}

/* Queue the request on the disk; returns when the modelled disk completes it. */
static uint64_t admit(enum bp_io_type type, uint64_t offset, uint64_t length)
{
	struct bp_io io = { .offset = offset, .length = length, .type = type };
	struct bp_delay_slot slot;
	char line[128];

	pthread_mutex_lock(&lock);
	bp_delay_admit(&disk, &io, mono_ns(), &slot);
	if (log_fp && bp_delay_format(line, sizeof(line), &disk, &io, &slot) > 0)
		fputs(line, log_fp);
	pthread_mutex_unlock(&lock);
	return slot.end_ns;
}

static int delay_is_rotational(nbdkit_next *next, void *handle)
{
	return model->kind == BP_DISK_HDD;
}

static int delay_pread(nbdkit_next *next, void *handle, void *buf, uint32_t count,
		       uint64_t offset, uint32_t flags, int *err)
{
	uint64_t end = admit(BP_IO_READ, offset, count);
	int r = next->pread(next, buf, count, offset, flags, err);

	sleep_until(end);
	return r;
}

static int delay_pwrite(nbdkit_next *next, void *handle, const void *buf, uint32_t count,
			uint64_t offset, uint32_t flags, int *err)
{
	uint64_t end = admit(BP_IO_WRITE, offset, count);
	int r = next->pwrite(next, buf, count, offset, flags, err);

	sleep_until(end);
	return r;
}

static int delay_zero(nbdkit_next *next, void *handle, uint32_t count, uint64_t offset,
		      uint32_t flags, int *err)
{
	uint64_t end = admit(BP_IO_WRITE, offset, count);
	int r = next->zero(next, count, offset, flags, err);

	sleep_until(end);
	return r;
}

static int delay_trim(nbdkit_next *next, void *handle, uint32_t count, uint64_t offset,
		      uint32_t flags, int *err)
{
	uint64_t end = admit(BP_IO_TRIM, offset, count);
	int r = next->trim(next, count, offset, flags, err);

	sleep_until(end);
	return r;
}

static int delay_flush(nbdkit_next *next, void *handle, uint32_t flags, int *err)
{
	uint64_t end = admit(BP_IO_FLUSH, 0, 0);
	int r = next->flush(next, flags, err);

	sleep_until(end);
	return r;
}

static int delay_cache(nbdkit_next *next, void *handle, uint32_t count, uint64_t offset,
		       uint32_t flags, int *err)
{
	uint64_t end = admit(BP_IO_READ, offset, count);
	int r = next->cache(next, count, offset, flags, err);

	sleep_until(end);
	return r;
}

static struct nbdkit_filter filter = {
	.name = "bootpack-delay",
	.longname = "bootpack disk-model delay filter",
	.description = "delay every request as a disk model of bootpack bench says",
	.unload = delay_unload,
	.config = delay_config,
	.config_complete = delay_config_complete,
	.config_help = delay_config_help,
	.get_ready = delay_get_ready,
	.after_fork = delay_after_fork,
	.open = delay_open,
	.is_rotational = delay_is_rotational,
	.pread = delay_pread,
	.pwrite = delay_pwrite,
	.zero = delay_zero,
	.trim = delay_trim,
	.flush = delay_flush,
	.cache = delay_cache,
};

NBDKIT_REGISTER_FILTER(filter)
