/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exitcodes.h --- the exit codes of bootpack and bootpack-read
 *
 * BE CAREFUL: these values are part of the official interface. They are
 * documented in bootpack(8), bootpack-read(8) and every verb's man page.
 * A value, once released, never changes meaning.
 */
#ifndef BP_EXITCODES_H
#define BP_EXITCODES_H

#define BP_EX_OK	 0	/* success, including "nothing to do" */
#define BP_EX_FAILURE	 1	/* failed; nothing was changed */
#define BP_EX_USAGE	 2	/* bad command line */
#define BP_EX_STALE	 3	/* pack or trace missing, stale or unusable */
#define BP_EX_REFUSED	 4	/* refused: mounted, busy, not ext2/3/4, not clean, unsupported feature */
#define BP_EX_NOTBUILT	 5	/* the verb or option is not built in this version */
#define BP_EX_NOBOOT	 6	/* bootpack image: the image did not boot (nothing written) */
#define BP_EX_AFTERWRITE 8	/* failed after writes to the filesystem began */
#define BP_EX_CANCELED	32	/* interrupted by a signal */

#endif /* BP_EXITCODES_H */
