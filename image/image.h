/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * image.h --- the engine of bootpack image: lay out a disk image offline
 *
 * A disk image (raw, GPT or MBR) or a bare ext2/3/4 image: find its root
 * filesystem, get a trace of its boot (traces given, or the QEMU boot
 * driver), relay the root out at its offset in the file (no loop device),
 * write the pack inside it and start the reader there (its initramfs's,
 * or the unit), all through libext2fs. Library-like: returns errcode_t
 * with err filled, never prints.
 */
#ifndef BP_IMAGE_H
#define BP_IMAGE_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "fsident.h"
#include "pack-budget.h"
#include "relayout.h"
#include "tracefile.h"

/* ---- find.c: the root filesystem inside an image ---------------------------- */

struct bp_image_root {
	uint64_t offset, size;	/* bytes into the image file */
	unsigned int partno;	/* 1-based; 0: the image is a bare filesystem */
	const char *how;	/* "bare", "gpt-root-type", "label", "fstab", "only-ext" */
	char type[16];		/* ext2, ext3, ext4 */
	char label[64];
	char uuid[40];
	char pttype[8];		/* "gpt", "dos" or "" */
	unsigned int nparts;	/* partitions in the table */
};

/*
 * Find the root: a bare ext2/3/4 image is its own root; else, among the
 * ext2/3/4 partitions of the table (libblkid), the one whose GPT type is the
 * root type of this architecture, else the one labelled label (filesystem
 * or GPT partition name; NULL: "root", "rootfs" or "cloudimg-rootfs"),
 * else the one whose /etc/fstab mounts it on "/", else the only one.
 * BP_ET_NO_FS (no table, no ext filesystem) or BP_ET_AMBIVALENT (several
 * candidates and nothing tells them apart), err naming what was found.
 */
errcode_t bp_image_find_root(const char *image, const char *label, struct bp_image_root *r,
			     struct bp_err *err);

/* ---- inuse.c: is the image in use ------------------------------------------- */

/*
 * BP_ET_BUSY when a loop device is backed by the image or the image is a
 * mount's source (/proc/self/mountinfo); err names the device and the fix.
 */
errcode_t bp_image_check_unused(const char *image, struct bp_err *err);

/* ---- boot.c: the QEMU boot driver and its trace --------------------------- */

struct bp_image_boot_opts {
	const char *image;
	uint64_t offset;	/* of the root filesystem */
	const char *driver;	/* program; NULL: $BOOTPACK_IMAGE_BOOT or the installed one */
	const char *workdir;	/* where the driver's text trace goes */
	unsigned int timeout_s;
};

/* The driver's default path (libexecdir/bootpack/image-boot). */
const char *bp_image_boot_default_driver(void);

/*
 * Run the driver and import its trace against the root at offset.
 * BP_ET_NO_BOOT when the driver says the image did not boot (its exit
 * status 3; its message is on stderr already), BP_ET_TRACE_CORRUPT when
 * its output cannot be read; *ret: the trace, resolved on the image;
 * *guest_mem: the guest's memory in bytes, as the driver's mem_mb= line
 * says (0: it does not say).
 */
errcode_t bp_image_boot_trace(const struct bp_image_boot_opts *o, int64_t created,
			      struct bp_trace **ret, uint64_t *guest_mem, struct bp_err *err);

/* ---- fswrite.c: files written into an unmounted filesystem ---------------- */

/* mkdir -p of an absolute path, mode 0755, owner root. */
errcode_t bp_fsw_mkdirs(ext2_filsys fs, const char *path, struct bp_err *err);
/* Create or replace the regular file path with buf (mode, owner root). */
errcode_t bp_fsw_write_file(ext2_filsys fs, const char *path, const void *buf, size_t len,
			    unsigned int mode, struct bp_err *err);
/* Create or replace the symbolic link path -> target. */
errcode_t bp_fsw_symlink(ext2_filsys fs, const char *path, const char *target,
			 struct bp_err *err);
/* 1 if path exists (following symlinks inside the filesystem). */
int bp_fsw_exists(ext2_filsys fs, const char *path);
/*
 * The regular file path (symbolic links followed) into buf: at most len - 1
 * bytes, the rest of a longer file left unread (not an error), then a NUL;
 * *got (may be NULL): the bytes read. 0; ENOENT when path is not there,
 * EISDIR when it is not a regular file (a directory, a device...), EINVAL
 * when len is 0, or libext2fs' code; on an error *got is 0 and buf "" (but
 * for len 0, when buf is not written).
 */
errcode_t bp_fsw_read(ext2_filsys fs, const char *path, char *buf, size_t len, size_t *got);
/* Remove path (not a directory) if it is there; *removed: it was. */
errcode_t bp_fsw_remove(ext2_filsys fs, const char *path, int *removed, struct bp_err *err);

/* ---- reader.c: where bootpack-read starts in the image -------------------- */

/* Where the reader starts: --reader (auto: what the image has), or what it has. */
enum bp_image_reader_at {
	BP_IMAGE_READER_AUTO = 0,
	BP_IMAGE_READER_SERVICE,
	BP_IMAGE_READER_INITRAMFS,
};

/* "auto", "service", "initramfs" */
const char *bp_image_reader_name(enum bp_image_reader_at a);

struct bp_image_reader {
	enum bp_image_reader_at at;	/* the initramfs reads the pack (INITRAMFS), or
					   bootpack-read.service (SERVICE) */
	char tool[16];		/* "initramfs-tools", "dracut": installed with bootpack's
				   reader hook; "" neither */
	char conf[64];		/* the opt-in file of that tool (bootpack setup's) */
	char why[4500];		/* what the image's configuration says */
	char disabled[4200];	/* the unit's link removed (the initramfs reads), or "" */
};

/*
 * Where the reader starts in the image at fs, with the rule of bootpack setup
 * (loop/initramfs-conf.c): in the initramfs when initramfs-tools (else dracut)
 * is installed with bootpack's reader hook and its configuration asks for
 * it (BOOTPACK=y, or add_dracutmodules in dracut.conf.d/bootpack.conf);
 * else as bootpack-read.service.
 */
errcode_t bp_image_reader_find(ext2_filsys fs, struct bp_image_reader *r, struct bp_err *err);

/*
 * The same, read-only, before anything is written; BP_ET_UNSUPPORTED (err:
 * the file to write, or the line to take out, before the initramfs is
 * built) when it is not what ask requires.
 */
errcode_t bp_image_reader_check(const struct bp_fsloc *loc, enum bp_image_reader_at ask,
				struct bp_image_reader *r, struct bp_err *err);

/* ---- install.c: the reader's start inside the image ----------------------- */

struct bp_image_install {
	char pack_path[4096];	/* inside the image */
	uint64_t pack_bytes, pack_entries;
	uint64_t packed_bytes, cut_bytes;	/* to read, and left out by the budget */
	uint64_t budget;			/* applied; 0: none */
	struct bp_budget_in budget_in;		/* automatic: the rule's inputs (else zero) */
	struct bp_budget_out budget_auto;	/* and its result; .bound GIVEN otherwise */
	char unit[256];		/* the enabled unit's path, or "" */
	char unit_link[4200];	/* its .wants link */
	struct bp_image_reader reader;
};

/*
 * Into fs (read-write): the reader's start as bp_image_reader_find() says;
 * out->unit the unit found. The service: its .wants link, as bootpack setup
 * enables it; the initramfs: no link (one the package left is removed),
 * out->unit "".
 */
errcode_t bp_image_reader_start(ext2_filsys fs, struct bp_image_install *out,
				struct bp_err *err);

/*
 * On the filesystem at loc (unmounted, relaid out): build the pack for t
 * and write it at BP_PACK_DEFAULT_PATH inside, enable bootpack-read.service
 * (a .wants link, as bootpack setup does, to the unit the image has
 * installed). No loop state is written: no traced boot is scheduled.
 * undo_file: libext2fs undo file of these writes (NULL: none). created:
 * the pack's time. budget_auto: the target's inputs of the automatic budget
 * (pack-budget.h; boot_ns 0: the trace's), or NULL for budget (bytes, 0:
 * none). Needs bootpack installed in the image (the unit).
 */
/* ENOENT (err: install bootpack in the image) when the image has no reader unit. */
errcode_t bp_image_check_installed(const struct bp_fsloc *loc, struct bp_err *err);

errcode_t bp_image_install(const struct bp_fsloc *loc, const struct bp_trace *t,
			   const char *undo_file, int64_t created, const uint64_t *moved_from,
			   size_t nmoved_from, const struct bp_budget_in *budget_auto,
			   uint64_t budget, struct bp_image_install *out, struct bp_err *err);

/* ---- run.c: the whole of bootpack image ------------------------------------ */

#define BP_IMAGE_MODELS_MAX 32
#define BP_IMAGE_TIMEOUT_DEFAULT 300	/* seconds for the boot driver */

/*
 * The memory of the machines the image is for, when neither --target-mem
 * nor the boot driver (its guest's mem_mb=) says: 1 GiB, the driver's own
 * guest (image-boot --mem).
 */
#define BP_IMAGE_TARGET_MEM_DEFAULT BP_BUDGET_DEFAULT_MEM

/*
 * The pack's budget. An image is built on one machine for others: the
 * automatic budget's inputs are the target's, never this host's MemTotal
 * or probe file. mem: --target-mem, else the traced guest's memory, else
 * BP_IMAGE_TARGET_MEM_DEFAULT. rate: --target-rate or a disk model's
 * sequential rate, else BP_BUDGET_DEFAULT_RATE. The boot's time: the
 * trace's last first access (bp_pack_budget_boot_ns()).
 */
struct bp_image_budget {
	int given;			/* size below, not automatic */
	uint64_t size;			/* given: bytes, 0: no limit */
	uint64_t target_mem;		/* bytes; 0: the guest's, else the default */
	uint64_t target_rate;		/* bytes/s; 0: BP_BUDGET_DEFAULT_RATE */
	const char *model;		/* the disk model the rate is of, or NULL */
};

/* Where an input of the automatic budget came from. */
enum bp_image_input {
	BP_IMAGE_IN_DEFAULT = 0,	/* the documented default */
	BP_IMAGE_IN_OPTION,		/* --target-mem, --target-rate */
	BP_IMAGE_IN_GUEST,		/* the boot driver's guest (memory) */
	BP_IMAGE_IN_MODEL,		/* a disk model's rate (--model) */
};

/* "default", "option", "guest", "model". */
const char *bp_image_input_name(enum bp_image_input in);

/*
 * budget.c: the target's inputs of the automatic budget into in (zeroed
 * first; boot_ns left 0, the trace's), from b and the traced guest's
 * memory guest_mem (0: unknown), and where each came from. The rule
 * itself is bp_pack_budget(), applied by the pack builder.
 */
void bp_image_budget_inputs(const struct bp_image_budget *b, uint64_t guest_mem,
			    struct bp_budget_in *in, enum bp_image_input *mem_from,
			    enum bp_image_input *rate_from);

struct bp_image_opts {
	const char *image;
	const char *root_label;		/* NULL: the defaults of bp_image_find_root() */
	char *const *traces;		/* bootpack traces to merge; none: boot the image */
	size_t ntraces;
	const char *driver;		/* NULL: $BOOTPACK_IMAGE_BOOT or the installed one */
	const char *workdir;		/* the driver's output (a temporary directory) */
	unsigned int timeout_s;
	const char *undo_file;		/* the relayout's undo file; NULL: none */
	const char *undo_install;	/* the pack and unit writes' undo file; NULL: none */
	enum bp_image_reader_at reader;	/* --reader */
	uint64_t chunk_bytes;		/* align the region to it; 0: no alignment */
	int64_t created;		/* time written into the image (pack, inodes, superblock);
					   0: the root filesystem's last write time (reproducible) */
	struct bp_image_budget budget;
	const volatile int *cancel;
};

struct bp_image_model {
	const char *name;
	double before_s, after_s;
};

struct bp_image_report {
	struct bp_image_root root;
	size_t ntraces;			/* merged; 0: the driver's boot */
	uint64_t trace_files;
	struct bp_verify_report before, after;
	struct bp_relayout_report rl;
	struct bp_image_install inst;
	enum bp_image_input mem_from, rate_from;	/* automatic budget: its inputs' sources */
	struct bp_image_reader reader;	/* as checked before the writes */
	struct bp_image_model models[BP_IMAGE_MODELS_MAX];
	size_t nmodels;
	int writes_began;		/* the image was modified */
	int installed;			/* the pack and unit are written */
};

/*
 * Find the root, refuse an image in use or without bootpack installed, get
 * the trace, measure, relay out (relayout engine, undo file, crash-safe),
 * write the pack and the unit, measure again. Nothing is written before
 * the relayout's own preflight passed; rep->writes_began says whether
 * anything was. BP_ET_NO_FS / _AMBIVALENT / _BUSY / _NO_BOOT /
 * _TRACE_CORRUPT / _TRACE_MISMATCH, or the relayout's errors.
 */
errcode_t bp_image_run(const struct bp_image_opts *o, struct bp_image_report *rep,
		       struct bp_err *err);
void bp_image_report_free(struct bp_image_report *rep);

#endif /* BP_IMAGE_H */
