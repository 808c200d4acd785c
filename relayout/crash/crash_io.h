/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crash_io.h --- a fault-injecting io_manager: volatile write cache, power cut at write N
 *
 * A bottom-level libext2fs I/O manager (it replaces unix_io and opens the
 * image itself). Every write is queued in a volatile cache; reads see the
 * queue; io_channel_flush() applies the queue in order and fsync()s, the
 * only barrier (doc/relayout-safety.md §2, §9). Controlled by the environment:
 *
 *   BP_CRASH_AT=N       at the N-th write call (1-based, every write_blk,
 *                       write_blk64 and byte write of the process) apply a
 *                       subset of the pending writes (write N included) and
 *                       _exit(BP_CRASH_EXIT)
 *   BP_CRASH_SEED=S     seed of the subset (default 1)
 *   BP_CRASH_PREFIX=1   apply every pending write in order (the kill -9 model)
 *   BP_CRASH_TORN=1     a multi-sector write may land as a subset of its
 *                       sectors (device-aligned)
 *   BP_CRASH_SECTOR=B   the atomic unit of a torn write (default 512: 512n
 *                       disks; 4096: 512e/4Kn disks, whose physical sectors
 *                       are 4 KiB)
 *   BP_CRASH_COUNT=FILE run to completion; write "writes W\nflushes F\n" to
 *                       FILE when a channel closes and at exit
 *   BP_CRASH_DEVICE=SFX only writes to files whose name ends in SFX count
 *                       (and are crash points); the others (an undo file)
 *                       stay volatile and are cut with the rest
 *   BP_CRASH_SIGNAL_AT=N no power cut: raise(SIGTERM) right after queueing
 *                       the N-th write (the run's own signal handling)
 *   BP_CRASH_LOG=FILE   append one line per write and flush (debugging)
 *
 * It works underneath libext2fs's undo manager too
 * (set_undo_io_backing_manager(crash_io_manager)).
 */
#ifndef BP_CRASH_IO_H
#define BP_CRASH_IO_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

#define BP_CRASH_EXIT 99

extern io_manager crash_io_manager;

/* Write calls and flushes seen so far in this process. */
uint64_t crash_io_writes(void);
uint64_t crash_io_flushes(void);

#endif /* BP_CRASH_IO_H */
