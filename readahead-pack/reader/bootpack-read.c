// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootpack-read.c --- stream the readahead pack at boot: as init= (PID 1) or as a service
 *
 * As PID 1 (init=/usr/sbin/bootpack-read, or --as-init in a PID namespace)
 * it reads the kernel command line, forks, and the parent execs the real
 * init at once; the child reads the pack (bootpack-read-init.c). As a
 * service (--no-exec, or whenever it is not PID 1) it reads in the
 * foreground and exits with a documented status. See bootpack-read(8).
 * The settings are merged in bootpack-read-opts.c.
 *
 * Links libc, zlib and libbppack.a only; logs with write(2), never stdio.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bootpack-read.h"
#include "exitcodes.h"

static char *argv0;

/* the settings of the run --background forks */
static struct bp_read_settings *bg_settings;

/*
 * --background: called once the pack, the root and the device are open.
 * The caller (an initramfs hook) gets exit status 0 once the child's
 * stream is under way or --head-start-ms has passed (auto: 500 ms on a
 * rotating disk, else at once), as PID 1 does before exec'ing init. The
 * child reads on through the descriptors it holds, so that moving the
 * root's mount (switch_root) does not matter. argv[0] starts with '@':
 * systemd leaves such processes running when it switches root or shuts
 * down.
 */
static void go_background(void)
{
	struct bp_read_wait w;
	pid_t pid;

	bp_read_wait_init(&w, bp_read_head_start_ms(bg_settings));
	pid = fork();
	if (pid > 0) {
		bp_read_wait_parent(&w);
		_exit(BP_EX_OK);
	}
	if (pid < 0) {
		bp_rlog(BP_RLOG_WARNING, "fork: %s; reading in the foreground", strerror(errno));
		w.ms = 0;
		bp_read_wait_parent(&w);
		return;
	}
	bp_read_wait_child(&w, &bg_settings->o);
	setsid();
	if (argv0 && argv0[0])
		argv0[0] = '@';
}

/* Load, read, log one summary. Returns an exit status (exitcodes.h). */
int bp_read_run(struct bp_read_settings *s)
{
	char refetch[96] = "";
	struct bp_reader_stats st;
	struct bp_pack *p = NULL;
	const char *why = NULL;
	int rc;

	if (s->conf_rc)
		bp_rlog(BP_RLOG_WARNING, "%s: line %u: bad setting, ignored (see bootpack.conf(5))",
			s->config, s->conf_bad_line);
	rc = bp_pack_load_file(s->o.pack, s->o.load_flags, &p, &why);
	if (rc) {
		bp_rlog(rc == -ENOENT ? BP_RLOG_INFO : BP_RLOG_ERR, "%s: %s%s%s", s->o.pack,
			why ? why : bp_pack_strerror(rc),
			rc == -ENOENT ? " (nothing to read; create it with 'bootpack pack')" :
			rc == -EPERM ? " (fix: chown root:root and chmod go-w the pack)" :
			(rc == -EBADMSG || rc == -EOPNOTSUPP || rc == -E2BIG) ?
				" (pack refused; write a new one with 'bootpack pack')" : "",
			"");
		switch (rc) {
		case -ENOENT:
		case -EBADMSG:
		case -EOPNOTSUPP:
		case -E2BIG:
			return BP_EX_STALE;
		case -EPERM:
		case -EINVAL:
		case -ELOOP:
			return BP_EX_REFUSED;
		default:
			return BP_EX_FAILURE;
		}
	}
	if (bp_reader_set_ioprio(s->o.ioprio) < 0)
		bp_rlog(BP_RLOG_WARNING, "cannot set the I/O priority: %s", strerror(errno));
	if (s->background) {
		bg_settings = s;
		s->o.ready = go_background;
	}
	rc = bp_reader_run(p, &s->o, &st, &why);
	bp_pack_free(p);
	if (rc) {
		if (rc == -ESTALE) {
			bp_rlog(BP_RLOG_ERR, "%s: %s; write a new one with 'bootpack pack'", s->o.pack,
				why);
			return BP_EX_STALE;
		}
		bp_rlog(BP_RLOG_ERR, "%s: %s: %s", s->o.root, why, strerror(-rc));
		return BP_EX_FAILURE;
	}
	if (st.refetched)
		snprintf(refetch, sizeof(refetch), ", %llu bytes not resident after the pass, read again",
			 (unsigned long long)st.refetched);
	if (st.uring_errno)
		bp_rlog(BP_RLOG_WARNING, "io_uring unavailable (%s): read with pread instead",
			strerror(st.uring_errno));
	if (st.meta_skipped)
		bp_rlog(BP_RLOG_WARNING, "metadata ranges not read: %s", st.why_meta);
	else if (st.meta_dev[0])
		bp_rlog(BP_RLOG_INFO, "metadata ranges read through %s", st.meta_dev);
	if (!st.meta_skipped && st.meta_dev[0])
		bp_rlog(BP_RLOG_INFO, "metadata gaps up to %llu KiB read through (%s): %llu bytes",
			(unsigned long long)(st.meta_gap >> 10),
			st.meta_gap_how == BP_GAP_ROTATING ? "auto, rotating disk" :
			st.meta_gap_how == BP_GAP_NOT_ROTATING ? "auto, not rotating" :
			st.meta_gap_how == BP_GAP_UNKNOWN ? "auto, rotation unknown" : "set",
			(unsigned long long)st.meta_gap_bytes);
	if (st.pack_page_size && st.pack_page_size != st.page_size)
		bp_rlog(BP_RLOG_INFO, "pack built for %llu-byte pages, this system's are %llu: %s",
			(unsigned long long)st.pack_page_size, (unsigned long long)st.page_size,
			st.pack_page_size < st.page_size ?
			"file ranges rounded out to whole pages of this system" :
			"ranges read as recorded (whole pages of the pack's)");
	if (st.meta_deferred)
		bp_rlog(BP_RLOG_INFO, "metadata first needed later in the boot read at its place in "
			"the stream: %llu bytes", (unsigned long long)st.meta_deferred);
	bp_rlog(BP_RLOG_INFO,
		"%llu bytes (%llu metadata), %llu files, %llu skipped (%llu stale, %llu unsafe, "
		"%llu missing), %llu cut, %llu errors, %llu ms (%llu ms CPU)%s%s",
		(unsigned long long)st.bytes, (unsigned long long)st.meta_bytes,
		(unsigned long long)st.files, (unsigned long long)st.skipped,
		(unsigned long long)st.stale, (unsigned long long)st.unsafe,
		(unsigned long long)st.missing, (unsigned long long)st.cut,
		(unsigned long long)st.errors, (unsigned long long)st.elapsed_ms,
		(unsigned long long)st.cpu_ms,
		st.timed_out ? " (stopped at --max-ms)" : "", refetch);
	return BP_EX_OK;
}

/* The linker's bounds of this program's own image (GNU ld, gold, lld). */
extern char __executable_start[], _end[];

#ifdef BP_READER_ENTRY
#define BP_STR2(x) #x
#define BP_STR(x) BP_STR2(x)
/*
 * The ELF entry point of the static x86-64 or aarch64 reader (-Wl,-e,bp_read_entry):
 * static glibc's start-up (IRELATIVE relocations, TLS, tunables) touches
 * most of the image before main(), one page fault at a time, each a 128 KiB
 * read around it in the order the code runs: 10 requests, 4 of them
 * backwards, on the real-boot bench's 5400 rpm model. Here the whole image
 * is asked for at once (madvise(MADV_WILLNEED), ascending, one plug), then
 * _start runs with the registers as the kernel left them: %rdx is 0 (no
 * rtld_fini in a static program), %rsp at argc.
 */
#if defined(__x86_64__)
/* x86-64 has 4096-byte pages only: the image's start rounded down to one. */
__asm__("	.text\n"
	"	.globl bp_read_entry\n"
	"	.type bp_read_entry, @function\n"
	"bp_read_entry:\n"
	"	lea __executable_start(%rip), %rdi\n"
	"	and $-4096, %rdi\n"
	"	lea _end(%rip), %rsi\n"
	"	sub %rdi, %rsi\n"
	"	mov $" BP_STR(MADV_WILLNEED) ", %edx\n"
	"	mov $" BP_STR(__NR_madvise) ", %eax\n"
	"	syscall\n"
	"	xor %edx, %edx\n"
	"	jmp _start\n"
	"	.size bp_read_entry, .-bp_read_entry\n");
#elif defined(__aarch64__)
/*
 * aarch64 kernels use 4, 16 or 64 KiB pages: the page size is taken from
 * the auxiliary vector (AT_PAGESZ, 6) above envp; x0 (rtld_fini) is 0 for
 * _start again after the system call.
 */
__asm__("	.text\n"
	"	.globl bp_read_entry\n"
	"	.type bp_read_entry, %function\n"
	"bp_read_entry:\n"
	"	mov x9, sp\n"
	"	ldr x10, [x9], #8\n"		/* argc; x9: argv */
	"	add x9, x9, x10, lsl #3\n"
	"	add x9, x9, #8\n"		/* envp */
	"1:	ldr x10, [x9], #8\n"
	"	cbnz x10, 1b\n"		/* x9: auxv */
	"	mov x11, #65536\n"		/* no AT_PAGESZ: the largest page */
	"2:	ldp x10, x12, [x9], #16\n"
	"	cbz x10, 3f\n"
	"	cmp x10, #6\n"
	"	b.ne 2b\n"
	"	mov x11, x12\n"
	"3:	adrp x0, __executable_start\n"
	"	add x0, x0, :lo12:__executable_start\n"
	"	sub x12, x11, #1\n"
	"	bic x0, x0, x12\n"
	"	adrp x1, _end\n"
	"	add x1, x1, :lo12:_end\n"
	"	sub x1, x1, x0\n"
	"	mov x2, #" BP_STR(MADV_WILLNEED) "\n"
	"	mov x8, #" BP_STR(__NR_madvise) "\n"
	"	svc #0\n"
	"	mov x0, #0\n"
	"	b _start\n"
	"	.size bp_read_entry, .-bp_read_entry\n");
#endif
#endif

/*
 * The program's own pages, in one request: left to page faults, its image
 * came in as 8 reads of 64-128 KiB in the order the code ran, each a half
 * turn of a 5400 rpm disk. relayout puts the image at the head of the
 * region (--first), so this reads on in one stream. The anonymous parts of
 * the range are skipped by the kernel; errors do not matter (it is a hint).
 * A dynamic reader gets here after the dynamic loader only; the static
 * x86-64 one asks from bp_read_entry already, and this finds it all cached.
 */
static void prefetch_self(void)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)__executable_start & ~(pg - 1);

	if (pg && (uintptr_t)_end > a)
		madvise((void *)a, (uintptr_t)_end - a, MADV_WILLNEED);
}

int main(int argc, char **argv)
{
	struct bp_reader_cmdline cl;
	struct bp_read_settings s;
	int i, rc;

	prefetch_self();

	/* As PID 1 init always runs, whatever the options say. */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--as-init") == 0)
			break;
	if (getpid() == 1 || (i < argc && strcmp(argv[i], "--as-init") == 0))
		return bp_read_init_main(argc, argv);

	argv0 = argv[0];
	bp_read_defaults(&s);
	rc = bp_read_parse_args(&s, argc, argv);
	if (rc >= 0)
		return rc;
	bp_read_apply_conf(&s);
	bp_rlog_open(s.o.log);
	if (bp_reader_read_cmdline(&cl) == 0)
		bp_read_apply_cmdline(&s, &cl);
	if (cl.off || cl.trace) {
		if (cl.trace)
			bp_read_trace_boot(&s);
		else
			bp_rlog(BP_RLOG_INFO, "bootpack=off: not reading");
		bp_rlog_close();
		return BP_EX_OK;
	}
	rc = bp_read_run(&s);
	bp_rlog_close();
	return rc;
}
