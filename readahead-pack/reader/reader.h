/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader.h --- bootpack-read internals: options, counters, engine, logger
 *
 * bootpack-read links libc, zlib and libbppack.a only (no libext2fs, no
 * com_err, no stdio output): everything here returns 0 or a negative errno
 * and never prints, except the logger in reader-log.c.
 */
#ifndef BP_READER_H
#define BP_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pack-parse.h"

#define BP_READER_PROG		"bootpack-read"
#define BP_READER_CONF		BP_SYSCONFDIR "/bootpack.conf"	/* configure --sysconfdir */
#define BP_READER_DEFAULT_INIT	"/sbin/init"
#define BP_READER_CHUNK		(1U << 20)	/* bytes per read call */
#define BP_READER_MAX_FDS	64		/* default cap on open file descriptors */
#define BP_READER_MAX_MS_INIT	60000		/* default --max-ms as init= */
#define BP_READER_MAX_HEAD_START 10000		/* --head-start-ms at most */
#define BP_READER_HEAD_START_MS 500		/* --head-start-ms=auto, on every disk */
#define BP_READER_HEAD_START_AUTO UINT64_MAX	/* --head-start-ms=auto */
/*
 * --meta-gap: metadata ranges closer than this are read as one request,
 * gap included. On a rotating disk a gap under ~300 KiB costs less to read
 * through (at ~45 MB/s) than the ~7 ms seek and half turn it saves; on
 * flash a command costs what ~12 KiB of transfer does. auto: 256 KiB when
 * the disk says it rotates, else 0. See bootpack-read(8).
 */
#define BP_READER_META_GAP_AUTO	UINT64_MAX
#define BP_READER_META_GAP_ROT	(256u << 10)
#define BP_READER_META_GAP_MAX	(16u << 20)
/*
 * Metadata the boot first needs within this many bytes of its reads is read
 * before the files; the rest when the file stream gets there (reader-meta.c).
 */
#define BP_READER_META_EARLY	(8u << 20)
enum { BP_GAP_SET, BP_GAP_ROTATING, BP_GAP_NOT_ROTATING, BP_GAP_UNKNOWN };
/*
 * --in-flight: bytes of file reads queued or in flight at most (io_uring).
 * The disk serves what it is given in order; a read the boot issues itself
 * waits behind all of it. A few maximal requests keep a disk streaming.
 */
#define BP_READER_IN_FLIGHT	(4u << 20)
#define BP_READER_IN_FLIGHT_MIN	(128u << 10)
#define BP_READER_IN_FLIGHT_MAX	(1024u << 20)
/*
 * io_uring: bytes of one request at most, submitted on its own (less where
 * the disk's queue limits say so: bp_reader_max_request()). Larger ones are
 * cut short where the device's segments run out (virtio's 254 take 1 MiB
 * whole when 2 of its 256 pages are adjacent in memory, 1280 KiB only when
 * 66 are), and a request cut short leaves a remnant behind it.
 */
#define BP_READER_REQUEST	(1u << 20)
/*
 * --max-request: a cap on that request (bytes, a multiple of 4 KiB), for a
 * disk that takes less whole than its queue limits say. 'bootpack setup'
 * measures it ('bootpack probe') and writes it, with an in-flight window,
 * into BP_READER_PROBE, which fills what neither the options nor
 * bootpack.conf set.
 */
#define BP_READER_REQUEST_MIN	(4u << 10)
#define BP_READER_REQUEST_MAX	(1024u << 20)
#define BP_READER_PROBE		BP_STATEDIR "/probe"

/* How ranges are read (--method); see readahead-pack/BENCH.md. */
enum bp_read_method {
	BP_READ_PREAD = 0,	/* synchronous: sendfile(2) to /dev/null (no copy), else pread(2) */
	BP_READ_READAHEAD,	/* readahead(2), chunked */
	BP_READ_FADVISE,	/* posix_fadvise(POSIX_FADV_WILLNEED), chunked */
	BP_READ_URING,		/* io_uring reads, batched: large merged requests */
};

/* I/O priority (--ioprio); real-time is never used. */
enum bp_read_ioprio {
	BP_IOPRIO_AUTO = 0,	/* best-effort 7 unless a class was already set (systemd unit) */
	BP_IOPRIO_BE,		/* best-effort, level 7 (lowest) */
	BP_IOPRIO_IDLE,		/* idle class */
	BP_IOPRIO_KEEP,		/* leave it alone */
};

enum bp_log_target {
	BP_LOGT_AUTO = 0,	/* kmsg when PID 1 or stderr is not a tty, else stderr */
	BP_LOGT_KMSG,
	BP_LOGT_STDERR,
};

struct bp_reader_opts {
	const char *pack;	/* pack file */
	const char *root;	/* where the packed filesystem is mounted */
	const char *init;	/* init to exec in init= mode */
	uint64_t max_ms;	/* stop issuing reads after this long; 0: no limit */
	uint64_t budget;	/* read at most this many bytes; 0: the pack's own */
	unsigned int max_fds;	/* open file descriptors at most */
	enum bp_read_method method;
	enum bp_read_ioprio ioprio;
	enum bp_log_target log;
	unsigned int load_flags;	/* BP_PACK_LOAD_* */
	int no_meta;		/* do not read metadata through the block device */
	int as_init;		/* PID 1 (init=): nothing may be mounted yet */
	uint64_t meta_gap;	/* read through gaps up to this between metadata ranges;
				 * BP_READER_META_GAP_AUTO: by the disk's rotational flag */
	uint64_t in_flight;	/* io_uring bytes queued or in flight at most; 0: default */
	uint64_t max_request;	/* io_uring bytes of one request at most; 0: the disk's limits */
	void (*ready)(void);	/* called once the root and the device are open, before reading */
	/*
	 * Called once, when the first files' metadata is in and the first
	 * --in-flight bytes of file reads are queued (or at the end): init's
	 * head start ends there, its own reads then queue behind the stream.
	 */
	void (*streaming)(void);
};

struct bp_reader_stats {
	uint64_t bytes;		/* bytes issued (metadata + files) */
	uint64_t meta_bytes;
	uint64_t meta_ranges;
	uint64_t page_size, pack_page_size;	/* this system's, the pack's */
	uint64_t files;		/* distinct files read */
	uint64_t entries;	/* file entries read */
	uint64_t skipped;	/* file entries skipped, all reasons below */
	uint64_t stale;		/* entries of files whose ino/generation/size/mtime differ */
	uint64_t unsafe;	/* entries of paths refused: not regular, other fs, escapes root */
	uint64_t missing;	/* entries of files that could not be opened */
	uint64_t cut;		/* ranges left out by the (scaled) budget or --max-ms */
	uint64_t errors;	/* read errors */
	uint64_t refetched;	/* bytes not resident after an asynchronous pass, read again */
	uint64_t budget;	/* effective budget in bytes */
	uint64_t elapsed_ms;
	uint64_t cpu_ms;	/* CPU time of the run (user + system, getrusage(2)); with a
				 * forking ready(): the caller's before it, the child's after */
	int meta_skipped;	/* 1: metadata ranges not read (no device), see why_meta */
	const char *why_meta;
	char meta_dev[96];	/* how the device node was found, when read */
	uint64_t meta_gap;	/* the gap used (bytes) */
	int meta_gap_how;	/* BP_GAP_* */
	uint64_t meta_gap_bytes;	/* bytes of gaps read to save a seek */
	uint64_t meta_deferred;	/* metadata bytes read at their place in the stream */
	int timed_out;		/* --max-ms reached */
	int uring_errno;	/* --method=uring: io_uring_setup(2) failed with this, pread used */
};

/* reader-io.c: read the pack's ranges below o->root. */
int bp_reader_run(const struct bp_pack *p, const struct bp_reader_opts *o,
		  struct bp_reader_stats *st, const char **why);

/* reader-sys.c */
uint64_t bp_reader_now_ms(void);
uint64_t bp_reader_cpu_ms(void);	/* this process's CPU time (getrusage(2)), 0 if unknown */
/* end - start, 0 if end is before start (a clock restarted: the child of a fork) */
uint64_t bp_reader_ms_between(uint64_t start, uint64_t end);
uint64_t bp_reader_page_size(void);	/* sysconf(_SC_PAGESIZE), 4096 if it cannot say */
int bp_reader_mem_available(uint64_t *bytes);	/* MemAvailable, else sysinfo(2) */
uint64_t bp_reader_scale_budget(uint64_t want, uint64_t mem_available);
int bp_reader_set_ioprio(enum bp_read_ioprio how);
int bp_reader_fs_uuid(int dirfd, uint8_t uuid[16]);	/* FS_IOC_GETFSUUID */
uint64_t bp_reader_ra_cap(unsigned int major, unsigned int minor, int as_init);
int bp_reader_open_null(void);

/*
 * reader-dev.c: the block device major:minor opened read-only, found in
 * /dev, else through a node of our own in a private mount namespace (see
 * there); how it was found is written to how. fd or -errno.
 */
int bp_reader_open_blockdev(unsigned int major, unsigned int minor, int as_init, char *how,
			    size_t howsz);
/*
 * The ext2/3/4 UUID in the superblock of major:minor, for kernels without
 * FS_IOC_GETFSUUID (before 6.5: Debian 12's 6.1; qemu-user). 0 or -errno.
 */
int bp_reader_sb_uuid(unsigned int major, unsigned int minor, int as_init, uint8_t uuid[16]);
/* A sysfs or tmpfs mounted nowhere (Linux 5.2+): its root's fd, or -errno. */
int bp_reader_detached_fs(const char *type);
/* 1 if /dev is the root filesystem's own directory (no devtmpfs on it). */
int bp_reader_dev_is_bare(void);
/*
 * A number of the disk's queue/ directory in sysfs (a partition's
 * parent's; as init= with no /sys, a sysfs mounted nowhere). 0 or -errno.
 */
int bp_reader_queue_u64(unsigned int major, unsigned int minor, int as_init, const char *name,
			uint64_t *v);
/* 1 rotational, 0 not, -1 unknown: the disk's queue/rotational in sysfs. */
int bp_reader_rotational(unsigned int major, unsigned int minor, int as_init);
/* Bytes of a request the disk takes whole (sysfs queue limits); 0 if unknown. */
uint64_t bp_reader_max_request(unsigned int major, unsigned int minor, int as_init);
/* Write the disk's queue/read_ahead_kb (*was: the value before); 0 or -errno. */
int bp_reader_set_read_ahead(unsigned int major, unsigned int minor, int as_init,
			     unsigned int kb, uint64_t *was);
/* A node of that type and number in a private tmpfs, opened with flags. */
int bp_reader_private_node(mode_t type, dev_t dev, int flags);

/* reader-uring.c: a minimal io_uring of reads into one scratch buffer. */
struct bp_uring;
struct bp_uring_req {
	int fd;
	int32_t res;		/* bytes read or -errno, once completed */
	uint32_t len;
	uint64_t off;
	uint64_t tag;		/* the caller's */
};
int bp_uring_open(struct bp_uring **ret, unsigned int entries, size_t buflen);
void bp_uring_close(struct bp_uring *u);
int bp_uring_queue_read(struct bp_uring *u, int fd, uint64_t off, uint32_t len, uint64_t tag);
int bp_uring_submit(struct bp_uring *u);
unsigned int bp_uring_reap(struct bp_uring *u, unsigned int wait_nr, struct bp_uring_req *done,
			   unsigned int ndone);
unsigned int bp_uring_inflight(const struct bp_uring *u);	/* queued or in flight */
unsigned int bp_uring_queued(const struct bp_uring *u);		/* not yet submitted */

/* reader-cmdline.c: the kernel command line and BP_READER_CONF. */
struct bp_reader_cmdline {
	int off;		/* bootpack=off */
	int trace;		/* bootpack=trace */
	char init[256];		/* bootpack.init=PATH, "" if absent */
	uint64_t meta_gap;	/* bootpack.meta_gap=SIZE|auto */
	int has_meta_gap;
	uint64_t head_start_ms;	/* bootpack.head_start_ms=MS|auto */
	int has_head_start;
	uint64_t in_flight;	/* bootpack.in_flight=SIZE */
	int has_in_flight;
};
void bp_reader_parse_cmdline(const char *buf, struct bp_reader_cmdline *c);
int bp_reader_read_cmdline(struct bp_reader_cmdline *c);

struct bp_reader_conf {
	char pack[256];
	char init[256];
	uint64_t max_ms;
	uint64_t budget;
	uint64_t head_start_ms;
	unsigned int max_fds;
	int log;		/* enum bp_log_target, -1 if unset */
	int method;		/* enum bp_read_method, -1 if unset */
	int ioprio;		/* enum bp_read_ioprio, -1 if unset */
	int has_max_ms, has_budget, has_max_fds, has_head_start;
	uint64_t meta_gap;
	int has_meta_gap;
	uint64_t in_flight;
	int has_in_flight;
	uint64_t max_request;
	int has_max_request;
};
void bp_reader_conf_init(struct bp_reader_conf *c);
/*
 * One setting by its bootpack.conf key: 0, or -EINVAL (no such key, or a
 * value outside its limits; c unchanged). The one parser of the reader's
 * settings: bootpack.conf, the probe file and the options that are settings
 * too (bootpack-read-opts.c) all go through it.
 */
int bp_reader_conf_set(struct bp_reader_conf *c, const char *key, const char *value);
/* 0, or -EINVAL with *line set to the first bad line (which is skipped). */
int bp_reader_parse_conf(const char *buf, struct bp_reader_conf *c, unsigned int *line);
int bp_reader_load_conf(const char *path, struct bp_reader_conf *c, unsigned int *line);
int bp_reader_parse_method(const char *s);
int bp_reader_parse_ioprio(const char *s);
/* "auto" (BP_READER_HEAD_START_AUTO) or 0..BP_READER_MAX_HEAD_START ms; -EINVAL. */
int bp_reader_parse_head_start(const char *s, uint64_t *ms);
int bp_reader_parse_log(const char *s);
/* "auto" (BP_READER_META_GAP_AUTO) or a size up to BP_READER_META_GAP_MAX; 0 or -EINVAL. */
int bp_reader_parse_gap(const char *s, uint64_t *gap);
/* A size from BP_READER_IN_FLIGHT_MIN to BP_READER_IN_FLIGHT_MAX; 0 or -EINVAL. */
int bp_reader_parse_in_flight(const char *s, uint64_t *bytes);
/* A multiple of 4 KiB from BP_READER_REQUEST_MIN to BP_READER_REQUEST_MAX; 0 or -EINVAL. */
int bp_reader_parse_max_request(const char *s, uint64_t *bytes);
/*
 * The probe file of 'bootpack setup' (key=value lines): only its
 * max_request and in_flight are taken, other keys and bad values ignored
 * (it is a record, not the administrator's file). 0 or -errno.
 */
int bp_reader_parse_probe(const char *buf, struct bp_reader_conf *c);
int bp_reader_load_probe(const char *path, struct bp_reader_conf *c);

/* reader-log.c: one line at a time, with write(2); never fails, never blocks. */
void bp_rlog_open(enum bp_log_target t);
/* What fd 2 is (the console init was given), opening nothing: a bare /dev. */
void bp_rlog_open_fd2(void);
void bp_rlog_close(void);
int bp_rlog_has_kmsg(void);
void bp_rlog_use_kmsg_fd(int fd);	/* log to this /dev/kmsg descriptor too */
void bp_rlog(int pri, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define BP_RLOG_ERR	3
#define BP_RLOG_WARNING	4
#define BP_RLOG_INFO	6

#endif /* BP_READER_H */
