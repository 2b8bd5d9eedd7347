/* SPDX-License-Identifier: MIT */
/*
 * inject.c - load a shared object into a running process and call into it,
 * with one of its threads stopped under ptrace for as short as it takes.
 *
 * One thread is seized and interrupted where it is, preferably blocked in
 * a system call that holds no lock of the C library; its registers are
 * saved, all of them.  A call is made by pointing that thread at the
 * function with its arguments in registers and on its stack (below the
 * red zone), and a return address of 0: the function's return faults at
 * address 0, which ends the call.  Closing puts every register back,
 * orig_rax too, so that a system call the thread was interrupted in
 * restarts as the kernel would restart it after a stop (signal(7)), and
 * detaches.  The process's files are read through /proc/PID/root, its
 * memory through /proc/PID/mem.
 *
 * Only the register and ptrace work here is x86-64's; what /proc says of
 * the process is read in proc.c, whether it may be attached to is judged
 * in perm.c, and its objects' symbols are looked up in elfsym.c.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/escape.h"
#include "tools/elfsym.h"
#include "tools/inject.h"
#include "tools/perm.h"
#include "tools/proc.h"

int rb_inject_mapped(pid_t pid, const char *lib)
{
	char abs[PATH_MAX], path[64], err[256], *maps;
	struct rb_map m;
	struct stat sb;
	bool found;

	if (rb_perm_lib_resolve(pid, lib, abs, &sb, err, sizeof(err)) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = rb_proc_slurp_all(path);
	if (maps == NULL)
		return -1;
	found = rb_map_of(maps, &sb, abs, &m);
	free(maps);
	return found;
}

#if defined(__x86_64__)

#include <elf.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>

#ifndef NT_X86_SHSTK
#define NT_X86_SHSTK	0x204
#endif

#define INJ_RED_ZONE	128
#define INJ_CS64	0x33		/* the 64-bit user code segment */
#define INJ_EFLAGS_TF	0x100u
#define INJ_EFLAGS_DF	0x400u
#define INJ_EFLAGS_AC	0x40000u
#define INJ_FP_MAX	65536		/* NT_X86_XSTATE: the kernel says how much */
#define INJ_RTLD_NOW	0x2
#define INJ_RTLD_DLOPEN	0x80000000	/* __libc_dlopen_mode's __RTLD_DLOPEN */
#define INJ_TRIES	3		/* threads tried that left their system call */
#define INJ_ERESTART_RESTARTBLOCK 516	/* the kernel's, in rax at a stop */

/* A thread stopped besides the one called in (rb_inject_hold()). */
struct inj_held {
	pid_t			 tid;
	bool			 stopped;
	bool			 rewind;	/* restart an epoll wait that said EINTR */
	struct user_regs_struct	 regs;
};

enum inj_state {
	INJ_STOPPED,	/* the thread is stopped, its state saved */
	INJ_GONE,	/* it exited */
	INJ_LOST,	/* left running a call that did not return */
};

struct rb_inject {
	pid_t			 pid;
	pid_t			 tid;
	int			 state;		/* INJ_* */
	bool			 crashed;	/* a call faulted: no more calls */
	bool			 rewind;	/* restart an epoll wait that said EINTR */
	bool			 restartblock;	/* its system call restarts from kernel state */
	bool			 clobbered;	/* a call may have replaced that state */
	bool			 fpclean;	/* the calls' FP control words are set */
	int			 memfd;		/* /proc/PID/mem */
	unsigned		 timeout_ms;
	uint64_t		 t_stop;	/* CLOCK_MONOTONIC ns at the stop */
	uint64_t		 t_end;
	uint64_t		 dlopen;	/* addresses in the process, 0: none */
	uint64_t		 dlerror;
	unsigned		 dlmode;	/* or'ed into RTLD_NOW */
	sigset_t		 oldmask;
	bool			 boosted;	/* inj_boost() raised this thread */
	int			 oldpolicy;
	struct sched_param	 oldparam;
	struct user_regs_struct	 regs;		/* as stopped */
	struct inj_held		*held;		/* the other threads, rb_inject_hold() */
	size_t			 nheld;
	int			 fptype;	/* NT_X86_XSTATE or NT_PRFPREG */
	size_t			 fplen;
	uint8_t			 fp[INJ_FP_MAX];
};

/* System calls a thread waits in holding no lock of the C library. */
static const long inj_safe_calls[] = {
	SYS_nanosleep, SYS_clock_nanosleep, SYS_poll, SYS_ppoll, SYS_select,
	SYS_pselect6, SYS_read, SYS_accept, SYS_accept4, SYS_recvfrom,
	SYS_recvmsg, SYS_wait4, SYS_waitid, SYS_pause, SYS_rt_sigsuspend,
};

/* The same, but they fail with EINTR when the thread is stopped (signal(7)). */
static const long inj_epoll_calls[] = {
	SYS_epoll_wait, SYS_epoll_pwait,
#ifdef SYS_epoll_pwait2
	SYS_epoll_pwait2,
#endif
};

/* System calls that replace what restart_syscall restarts. */
static const long inj_restart_clobber[] = {
	SYS_nanosleep, SYS_clock_nanosleep, SYS_restart_syscall, SYS_rt_sigreturn,
};

static uint64_t inj_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool inj_in(long nr, const long *calls, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (calls[i] == nr)
			return true;
	return false;
}

/*
 * Look up @n dynamic symbols of the object whose file offset 0 is mapped
 * by @m in @pid: their addresses there into @addr (0: not defined), their
 * types (STT_*) into @type.  A symbol's default version wins over a hidden
 * one.  Return: 0, or -1 with @err set.
 */
static int inj_syms(pid_t pid, const struct rb_map *m, const char *const *names,
		    uint64_t *addr, int *type, int n, char *err, size_t errlen)
{
	char epath[PATH_MAX];
	uint64_t bias, vmin;
	size_t nph;
	Elf *elf;
	int fd, k;

	for (k = 0; k < n; k++) {
		addr[k] = 0;
		type[k] = STT_NOTYPE;
	}
	rb_escape(m->path, epath, sizeof(epath));
	fd = rb_map_open(pid, m);
	if (fd < 0) {
		rb_err_set(err, errlen, "cannot read %s as %d maps it (replaced on "
			"disk since it was loaded?)", epath, pid);
		return -1;
	}
	elf = rb_elf_begin(fd, EM_X86_64);
	if (elf == NULL || elf_getphdrnum(elf, &nph) != 0) {
		rb_err_set(err, errlen, "%s is not a 64-bit x86-64 ELF object", epath);
		goto fail;
	}
	/* The segment that maps file offset 0 gives the load bias. */
	if (rb_elf_first_vaddr(elf, &vmin) < 0) {
		rb_err_set(err, errlen, "%s has no segment at file offset 0", epath);
		goto fail;
	}
	bias = m->start - (vmin & ~(uint64_t)0xfff);
	if (rb_elf_defined(elf, names, addr, type, n) < 0) {
		rb_err_set(err, errlen, "%s has no dynamic symbol table", epath);
		goto fail;
	}
	for (k = 0; k < n; k++)
		if (addr[k] != 0)
			addr[k] += bias;
	rb_elf_close(fd, elf);
	return 0;
fail:
	rb_elf_close(fd, elf);
	return -1;
}

/* What a library's basename says it is. */
enum { INJ_OTHER, INJ_LIBC, INJ_LIBDL, INJ_LOADER, INJ_MUSL };

static int inj_lib_kind(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	if (base == NULL)
		return INJ_OTHER;
	base++;
	len = strlen(base);
	if (strcmp(base, "libc.so.6") == 0 ||
	    (strncmp(base, "libc-2.", 7) == 0 && len > 3 && strcmp(base + len - 3, ".so") == 0))
		return INJ_LIBC;
	if (strncmp(base, "ld-musl-", 8) == 0 || strncmp(base, "libc.musl-", 10) == 0)
		return INJ_MUSL;
	if (strcmp(base, "libdl.so.2") == 0 || strncmp(base, "libdl-2.", 8) == 0)
		return INJ_LIBDL;
	if (strncmp(base, "ld-linux", 8) == 0 || strncmp(base, "ld-2.", 5) == 0 ||
	    strncmp(base, "ld64.so", 7) == 0)
		return INJ_LOADER;
	return INJ_OTHER;
}

/*
 * Find dlopen (and dlerror) in @pid from its maps text @maps: libc's
 * (glibc 2.34, musl), else libdl's, else libc's __libc_dlopen_mode.
 */
static int inj_find_dlopen(struct rb_inject *in, char *maps, char *err, size_t errlen)
{
	static const char *const names[3] = { "dlopen", "dlerror", "__libc_dlopen_mode" };
	struct rb_map m, libc = { 0 }, libdl = { 0 };
	bool loader = false, have_libc = false, have_libdl = false;
	uint64_t a[3], d[3];
	int t[3];
	size_t pos = 0;

	while (rb_map_next(maps, &pos, &m)) {
		int kind = inj_lib_kind(m.path);

		if (kind == INJ_LOADER || kind == INJ_MUSL)
			loader = true;
		if (m.off != 0)
			continue;
		if ((kind == INJ_LIBC || kind == INJ_MUSL) && !have_libc) {
			libc = m;
			have_libc = true;
		} else if (kind == INJ_LIBDL && !have_libdl) {
			libdl = m;
			have_libdl = true;
		}
	}
	if (!have_libc) {
		if (!loader)
			rb_err_set(err, errlen, "%d runs a statically linked program: it "
				"has no dynamic loader to load a library with", in->pid);
		else
			rb_err_set(err, errlen, "%d has no C library loaded (glibc or "
				"musl) whose dlopen could load a library", in->pid);
		return -1;
	}
	if (inj_syms(in->pid, &libc, names, a, t, 3, err, errlen) < 0)
		return -1;
	if (a[0] != 0) {
		in->dlopen = a[0];
		in->dlerror = a[1];
		return 0;
	}
	if (have_libdl && inj_syms(in->pid, &libdl, names, d, t, 2, err, errlen) == 0 &&
	    d[0] != 0) {
		in->dlopen = d[0];
		in->dlerror = d[1];
		return 0;
	}
	if (a[2] != 0) {
		in->dlopen = a[2];
		in->dlmode = INJ_RTLD_DLOPEN;
		return 0;
	}
	{
		char epath[PATH_MAX];

		rb_escape(libc.path, epath, sizeof(epath));
		rb_err_set(err, errlen, "%s in %d has neither dlopen nor "
			"__libc_dlopen_mode", epath, in->pid);
	}
	return -1;
}

/* Wait up to @ms for a state change of @tid.  Return: 1, 0 on timeout, -1 (errno). */
static int inj_wait(pid_t tid, int *status, unsigned ms)
{
	uint64_t deadline = inj_now() + (uint64_t)ms * 1000000u, now;
	struct timespec ts;
	sigset_t chld;
	pid_t r;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		r = waitpid(tid, status, __WALL | WNOHANG);
		if (r == tid)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
		now = inj_now();
		if (now >= deadline)
			return 0;
		/* SIGCHLD is blocked (rb_inject_open): a stop meanwhile stays pending. */
		ts.tv_sec = (time_t)((deadline - now) / 1000000000u);
		ts.tv_nsec = (long)((deadline - now) % 1000000000u);
		sigtimedwait(&chld, NULL, &ts);
	}
}

/* Is process @pid gone (or a zombie)?  Looks for up to 200 ms while it dies. */
static bool inj_process_gone(pid_t pid)
{
	uint64_t deadline = inj_now() + 200000000u;
	struct timespec ts = { 0, 5000000 };
	char st;

	do {
		st = rb_proc_task_state(pid, pid);
		if (st == 0 || st == 'Z' || st == 'X')
			return true;
		nanosleep(&ts, NULL);
	} while (inj_now() < deadline);
	return false;
}

/* The thread is gone: say how; the handle is spent. */
static int inj_gone(struct rb_inject *in, int status, char *err, size_t errlen)
{
	in->state = INJ_GONE;
	in->t_end = inj_now();
	if (WIFSIGNALED(status) || inj_process_gone(in->pid))
		rb_err_set(err, errlen, "%d exited while being attached", in->pid);
	else
		rb_err_set(err, errlen, "thread %d of %d exited while being attached", in->tid, in->pid);
	return -1;
}

/* A ptrace request failed: the thread died meanwhile, or something else. */
static int inj_ptrace_fail(struct rb_inject *in, const char *what, char *err, size_t errlen)
{
	int e = errno, status = 0;

	if (e == ESRCH && inj_wait(in->tid, &status, 1000) == 1 &&
	    (WIFEXITED(status) || WIFSIGNALED(status)))
		return inj_gone(in, status, err, errlen);
	if (e == ESRCH && inj_process_gone(in->pid)) {
		in->state = INJ_GONE;
		in->t_end = inj_now();
		rb_err_set(err, errlen, "%d exited while being attached", in->pid);
		return -1;
	}
	rb_err_set(err, errlen, "%s (thread %d of %d): %s", what, in->tid, in->pid, strerror(e));
	return -1;
}

static int inj_mem_write(struct rb_inject *in, uint64_t addr, const void *buf, size_t len)
{
	ssize_t r = pwrite(in->memfd, buf, len, (off_t)addr);

	return r == (ssize_t)len ? 0 : -1;
}

/* Read a NUL-terminated string of the process at @addr into @out. */
static void inj_mem_string(struct rb_inject *in, uint64_t addr, char *out, size_t size)
{
	size_t n = 0, chunk;
	ssize_t r;

	while (n + 1 < size) {
		chunk = 4096 - ((addr + n) & 4095);	/* never across a page */
		if (chunk > size - 1 - n)
			chunk = size - 1 - n;
		r = pread(in->memfd, out + n, chunk, (off_t)(addr + n));
		if (r <= 0)
			break;
		if (memchr(out + n, '\0', (size_t)r) != NULL)
			return;
		n += (size_t)r;
	}
	out[n] = '\0';
}

/* The process's object and offset at @addr, for a message. */
static void inj_where(pid_t pid, uint64_t addr, char *out, size_t size)
{
	char path[64], *maps;
	struct rb_map m;
	size_t pos = 0;

	snprintf(out, size, "0x%llx", (unsigned long long)addr);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = rb_proc_slurp_all(path);
	if (maps == NULL)
		return;
	while (rb_map_next(maps, &pos, &m)) {
		const char *base = strrchr(m.path, '/');
		char esc[128];

		if (addr < m.start || addr >= m.end || base == NULL)
			continue;
		rb_escape(base + 1, esc, sizeof(esc));
		snprintf(out, size, "0x%llx in %s+0x%llx", (unsigned long long)addr, esc,
			 (unsigned long long)(addr - m.start + m.off));
		break;
	}
	free(maps);
}

/* May a call be made?  Return: 0, or -1 with @err set. */
static int inj_usable(const struct rb_inject *in, char *err, size_t errlen)
{
	if (in->state == INJ_STOPPED && !in->crashed)
		return 0;
	rb_err_set(err, errlen, "no call into %d is possible any more: %s", in->pid,
		in->crashed ? "an earlier one crashed" :
		in->state == INJ_GONE ? "it exited" : "an earlier one did not return");
	return -1;
}

/* Where a call's data goes: below the thread's stack pointer and red zone. */
static uint64_t inj_stack_top(const struct rb_inject *in)
{
	return (in->regs.rsp - INJ_RED_ZONE) & ~(uint64_t)15;
}

/*
 * Copy @len bytes of @data to the process's stack below *@sp, reserving
 * @room bytes (at least @len), 16-byte aligned.  Return: their address, or
 * 0 with @err set.
 */
static uint64_t inj_stack_put(struct rb_inject *in, uint64_t *sp, const void *data,
			      size_t len, size_t room, char *err, size_t errlen)
{
	*sp = (*sp - room) & ~(uint64_t)15;
	if (inj_mem_write(in, *sp, data, len) < 0) {
		rb_err_set(err, errlen, "cannot write %zu bytes to the stack of thread "
			"%d of %d at 0x%llx: %s", len, in->tid, in->pid,
			(unsigned long long)*sp, strerror(errno));
		return 0;
	}
	return *sp;
}

/*
 * How to let the thread run a call.  A system call interrupted with
 * ERESTART_RESTARTBLOCK (a relative sleep: nanosleep, poll with a timeout)
 * restarts from what the kernel keeps of it (restart_syscall), which a
 * sleep or a signal handler's return during the call replaces.  Its
 * system calls are watched until one does; rb_inject_close then executes
 * the interrupted one again instead: its timeout starts over (later than
 * asked, never earlier, never EINTR).
 */
static enum __ptrace_request inj_resume(const struct rb_inject *in)
{
	return in->restartblock && !in->clobbered ? PTRACE_SYSCALL : PTRACE_CONT;
}

/*
 * Call @fn(@a0, @a1, @a2) in the thread, its data put below @sp by
 * inj_stack_put: 16-byte aligned stack at the call, return address 0.
 * The return is the fault at address 0 with the stack pointer just above
 * that address.  Return: 0 with *@rax, or -1 with @err set (the handle's
 * state says whether any call may follow).
 */
static int inj_run(struct rb_inject *in, const char *what, uint64_t fn, uint64_t sp,
		   uint64_t a0, uint64_t a1, uint64_t a2, uint64_t *rax,
		   char *err, size_t errlen)
{
	struct user_regs_struct r = in->regs;
	uint64_t zero = 0, deadline;
	siginfo_t si;
	int status, w;

	sp = (sp & ~(uint64_t)15) - 8;
	if (inj_mem_write(in, sp, &zero, sizeof(zero)) < 0) {
		rb_err_set(err, errlen, "cannot write to the stack of thread %d of %d: %s",
			in->tid, in->pid, strerror(errno));
		return -1;
	}
	r.rip = fn;
	r.rsp = sp;
	r.rdi = a0;
	r.rsi = a1;
	r.rdx = a2;
	r.rax = 0;
	r.orig_rax = (unsigned long long)-1;	/* no system call to restart into the call */
	r.eflags &= ~(unsigned long long)(INJ_EFLAGS_TF | INJ_EFLAGS_DF | INJ_EFLAGS_AC);
	if (!in->fpclean) {
		/* The ABI's control words at a call: x87 empty, round to nearest. */
		uint8_t fx[512];
		struct iovec iov = { fx, sizeof(fx) };
		uint16_t fcw = 0x37f, zero16 = 0;
		uint32_t mxcsr = 0x1f80;

		memcpy(fx, in->fp, sizeof(fx));
		memcpy(fx + 0, &fcw, 2);
		memcpy(fx + 2, &zero16, 2);	/* fsw */
		fx[4] = 0;			/* abridged ftw: all empty */
		memcpy(fx + 6, &zero16, 2);	/* fop */
		memcpy(fx + 24, &mxcsr, 4);
		if (ptrace(PTRACE_SETREGSET, in->tid, (void *)NT_PRFPREG, &iov) < 0)
			return inj_ptrace_fail(in, "setting the FP registers", err, errlen);
		in->fpclean = true;
	}
	if (ptrace(PTRACE_SETREGS, in->tid, NULL, &r) < 0)
		return inj_ptrace_fail(in, "setting the registers", err, errlen);
	if (ptrace(inj_resume(in), in->tid, NULL, NULL) < 0)
		return inj_ptrace_fail(in, "continuing", err, errlen);
	deadline = inj_now() + (uint64_t)in->timeout_ms * 1000000u;
	for (;;) {
		uint64_t now = inj_now();
		unsigned left = now >= deadline ? 0 : (unsigned)((deadline - now) / 1000000u) + 1;
		int sig;

		w = inj_wait(in->tid, &status, left);
		if (w < 0)
			return inj_ptrace_fail(in, "waiting", err, errlen);
		if (w == 0)
			break;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return inj_gone(in, status, err, errlen);
		if (!WIFSTOPPED(status))
			continue;
		sig = WSTOPSIG(status);
		if (sig == (SIGTRAP | 0x80)) {
			/* a system call of the call's (inj_resume) */
			if (ptrace(PTRACE_GETREGS, in->tid, NULL, &r) < 0)
				return inj_ptrace_fail(in, "reading the registers", err, errlen);
			if (inj_in((long)r.orig_rax, inj_restart_clobber,
				   sizeof(inj_restart_clobber) / sizeof(long)))
				in->clobbered = true;
			if (ptrace(inj_resume(in), in->tid, NULL, NULL) < 0)
				return inj_ptrace_fail(in, "continuing", err, errlen);
			continue;
		}
		if ((status >> 16) != 0) {
			/* a group stop (the program's SIGSTOP): the call goes on */
			if (ptrace(inj_resume(in), in->tid, NULL, NULL) < 0)
				return inj_ptrace_fail(in, "continuing", err, errlen);
			continue;
		}
		if (ptrace(PTRACE_GETSIGINFO, in->tid, NULL, &si) < 0)
			return inj_ptrace_fail(in, "reading the signal", err, errlen);
		if ((sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) &&
		    si.si_code > 0) {
			char where[PATH_MAX];

			if (ptrace(PTRACE_GETREGS, in->tid, NULL, &r) < 0)
				return inj_ptrace_fail(in, "reading the registers", err, errlen);
			if (sig == SIGSEGV && r.rip == 0 && r.rsp == sp + 8) {
				*rax = r.rax;
				return 0;
			}
			in->crashed = true;
			inj_where(in->pid, r.rip, where, sizeof(where));
			rb_err_set(err, errlen, "%s crashed in %d: %s at address 0x%llx "
				"(instruction at %s); the thread's registers are put back, "
				"but %d may be left in a bad state", what, in->pid,
				strsignal(sig), (unsigned long long)(uintptr_t)si.si_addr,
				where, in->pid);
			return -1;
		}
		if (sig == SIGABRT && si.si_code == SI_TKILL && si.si_pid == in->pid) {
			in->crashed = true;
			rb_err_set(err, errlen, "%s aborted in %d; the thread's registers are "
				"put back, but %d may be left in a bad state", what,
				in->pid, in->pid);
			return -1;
		}
		/* the program's own signal: delivered, its handler runs on top of the call */
		in->clobbered = true;	/* its return (rt_sigreturn) */
		if (ptrace(inj_resume(in), in->tid, NULL, (void *)(uintptr_t)sig) < 0)
			return inj_ptrace_fail(in, "continuing", err, errlen);
	}
	/* Not returned in time: leave it running (detached) rather than cut it. */
	in->state = INJ_LOST;
	in->t_end = inj_now();
	if (ptrace(PTRACE_INTERRUPT, in->tid, NULL, NULL) == 0 &&
	    inj_wait(in->tid, &status, 1000) == 1 && WIFSTOPPED(status)) {
		char where[PATH_MAX];

		if (ptrace(PTRACE_GETREGS, in->tid, NULL, &r) == 0)
			inj_where(in->pid, r.rip, where, sizeof(where));
		else
			snprintf(where, sizeof(where), "?");
		/* a signal about to be delivered instead of the interrupt goes on */
		ptrace(PTRACE_DETACH, in->tid, NULL,
		       (void *)(uintptr_t)((status >> 16) == 0 &&
					   WSTOPSIG(status) != (SIGTRAP | 0x80) ?
					   WSTOPSIG(status) : 0));
		in->t_end = inj_now();
		rb_err_set(err, errlen, "%s has not returned after %u ms (thread %d of %d "
			"is at %s): it is left running it, detached; should it return, "
			"%d dies of a SIGSEGV at address 0", what, in->timeout_ms,
			in->tid, in->pid, where, in->pid);
	} else {
		rb_err_set(err, errlen, "%s has not returned after %u ms: thread %d of %d "
			"is left running it, and stays attached until this program "
			"exits; should it return, %d dies of a SIGSEGV at address 0",
			what, in->timeout_ms, in->tid, in->pid, in->pid);
	}
	return -1;
}

int rb_inject_dlopen(struct rb_inject *in, const char *path, char *err, size_t errlen)
{
	char abs[PATH_MAX], what[PATH_MAX + 32], esc[PATH_MAX], text[1024], etext[1024];
	uint64_t sp = inj_stack_top(in), str, rax;
	struct stat sb;

	if (inj_usable(in, err, errlen) < 0 ||
	    rb_perm_lib_resolve(in->pid, path, abs, &sb, err, errlen) < 0)
		return -1;
	rb_escape(abs, esc, sizeof(esc));
	snprintf(what, sizeof(what), "dlopen(%s)", esc);
	str = inj_stack_put(in, &sp, abs, strlen(abs) + 1, strlen(abs) + 1, err, errlen);
	if (str == 0 || inj_run(in, what, in->dlopen, sp, str, INJ_RTLD_NOW | in->dlmode,
				0, &rax, err, errlen) < 0)
		return -1;
	if (rax != 0)
		return 0;
	if (in->dlerror == 0) {
		rb_err_set(err, errlen, "%s failed in %d (its C library says no more)",
			what, in->pid);
		return -1;
	}
	if (inj_run(in, "dlerror()", in->dlerror, inj_stack_top(in), 0, 0, 0, &rax,
		    err, errlen) < 0)
		return -1;
	if (rax == 0)
		snprintf(text, sizeof(text), "no reason given");
	else
		inj_mem_string(in, rax, text, sizeof(text));
	rb_escape(text, etext, sizeof(etext));
	rb_err_set(err, errlen, "%s failed in %d: %s", what, in->pid, etext);
	return -1;
}

/*
 * The function rb_inject_resolve() found last: a call of it needs no
 * look-up while a thread is held.
 */
static struct {
	pid_t		pid;
	char		lib[PATH_MAX];
	char		func[128];
	uint64_t	addr;
} inj_resolved;

static bool inj_is_resolved(pid_t pid, const char *lib, const char *func)
{
	return inj_resolved.pid == pid && strcmp(inj_resolved.lib, lib) == 0 &&
	       strcmp(inj_resolved.func, func) == 0;
}

int rb_inject_resolve(pid_t pid, const char *lib, const char *func,
		      char *err, size_t errlen)
{
	char abs[PATH_MAX], path[64], efunc[128], elib[PATH_MAX], *maps;
	const char *const names[1] = { func };
	struct rb_map m;
	struct stat sb;
	uint64_t addr;
	int type;

	inj_resolved.pid = 0;
	rb_escape(func, efunc, sizeof(efunc));
	if (rb_perm_lib_resolve(pid, lib, abs, &sb, err, errlen) < 0)
		return -1;
	rb_escape(abs, elib, sizeof(elib));
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = rb_proc_slurp_all(path);
	if (maps == NULL) {
		rb_err_set(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!rb_map_of(maps, &sb, abs, &m)) {
		free(maps);
		rb_err_set(err, errlen, "%s is not loaded in %d", elib, pid);
		return -1;
	}
	if (inj_syms(pid, &m, names, &addr, &type, 1, err, errlen) < 0) {
		free(maps);
		return -1;
	}
	free(maps);
	if (addr == 0 || (type != STT_FUNC && type != STT_GNU_IFUNC)) {
		rb_err_set(err, errlen, "%s defines no function %s", elib, efunc);
		return -1;
	}
	if (type == STT_GNU_IFUNC) {
		rb_err_set(err, errlen, "%s in %s is an indirect function (IFUNC): "
			"cannot be called this way", efunc, elib);
		return -1;
	}
	if (strlen(lib) < sizeof(inj_resolved.lib) &&
	    strlen(func) < sizeof(inj_resolved.func)) {
		inj_resolved.pid = pid;
		strcpy(inj_resolved.lib, lib);
		strcpy(inj_resolved.func, func);
		inj_resolved.addr = addr;
	}
	return 0;
}

int rb_inject_call(struct rb_inject *in, const char *lib, const char *func,
		   const char *arg, int *ret, char *msg, size_t msglen,
		   char *err, size_t errlen)
{
	char what[256], efunc[128];
	uint64_t sp = inj_stack_top(in), rax, a0, a1;
	size_t arglen = strlen(arg) + 1;
	char nul = '\0';

	if (msglen > 0)
		msg[0] = '\0';
	if (inj_usable(in, err, errlen) < 0)
		return -1;
	if (msglen == 0 || msglen > RB_INJECT_MSG_MAX || arglen > RB_INJECT_ARG_MAX) {
		rb_err_set(err, errlen, "the argument (%zu bytes) or the message (%zu "
			"bytes) is empty or longer than %d bytes", arglen, msglen,
			RB_INJECT_MSG_MAX);
		return -1;
	}
	/* Found before the stop, or now (the object loaded meanwhile). */
	if (!inj_is_resolved(in->pid, lib, func) &&
	    rb_inject_resolve(in->pid, lib, func, err, errlen) < 0)
		return -1;
	rb_escape(func, efunc, sizeof(efunc));
	if (!inj_is_resolved(in->pid, lib, func)) {
		rb_err_set(err, errlen, "the name %s or its library's path is too long",
			efunc);
		return -1;
	}
	snprintf(what, sizeof(what), "%s()", efunc);
	a0 = inj_stack_put(in, &sp, arg, arglen, arglen, err, errlen);
	a1 = a0 == 0 ? 0 : inj_stack_put(in, &sp, &nul, 1, msglen, err, errlen);
	if (a1 == 0 || inj_run(in, what, inj_resolved.addr, sp, a0, a1, msglen, &rax,
			       err, errlen) < 0)
		return -1;
	*ret = (int)(uint32_t)rax;
	if (pread(in->memfd, msg, msglen, (off_t)a1) != (ssize_t)msglen)
		msg[0] = '\0';
	msg[msglen - 1] = '\0';
	return 0;
}

/*
 * Stop thread @tid: seize it, interrupt it, wait for the stop (a signal
 * it was about to take is delivered first), save its registers.
 * Return: 0, or -1 with @err set.
 */
static int inj_stop(struct rb_inject *in, pid_t tid, char *err, size_t errlen)
{
	struct iovec iov;
	uint64_t ssp;
	int status, w;

	in->tid = tid;
	in->state = INJ_STOPPED;
	if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)PTRACE_O_TRACESYSGOOD) < 0) {
		if (errno == EPERM)
			rb_perm_why(in->pid, err, errlen);
		else if (errno == ESRCH && inj_process_gone(in->pid))
			rb_err_set(err, errlen, "%d exited while being attached", in->pid);
		else
			rb_err_set(err, errlen, "cannot attach to thread %d of %d: %s",
				tid, in->pid, strerror(errno));
		return -1;
	}
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0)
		goto fail;
	for (;;) {
		w = inj_wait(tid, &status, in->timeout_ms);
		if (w < 0)
			goto fail;
		if (w == 0) {
			rb_err_set(err, errlen, "thread %d of %d did not stop within %u ms "
				"(state %c: in the kernel, uninterruptible?); it stays "
				"attached until this program exits", tid, in->pid,
				in->timeout_ms, rb_proc_task_state(in->pid, tid));
			in->state = INJ_LOST;
			return -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			inj_gone(in, status, err, errlen);
			return -1;
		}
		if (WIFSTOPPED(status) && (status >> 16) == 0) {
			/* a signal about to be delivered: deliver it, the interrupt stays */
			if (ptrace(PTRACE_CONT, tid, NULL,
				   (void *)(uintptr_t)WSTOPSIG(status)) < 0)
				goto fail;
			continue;
		}
		if (WIFSTOPPED(status))
			break;
	}
	in->t_stop = inj_now();
	if (ptrace(PTRACE_GETREGS, tid, NULL, &in->regs) < 0)
		goto fail;
	iov.iov_base = &ssp;
	iov.iov_len = sizeof(ssp);
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_SHSTK, &iov) == 0) {
		rb_err_set(err, errlen, "%d runs with shadow stacks (CET): a call into "
			"it cannot return; not supported", in->pid);
		goto detach;
	}
	in->fptype = NT_X86_XSTATE;
	iov.iov_base = in->fp;
	iov.iov_len = sizeof(in->fp);
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0) {
		in->fptype = NT_PRFPREG;
		iov.iov_len = 512;
		if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRFPREG, &iov) < 0)
			goto fail;
	}
	in->fplen = iov.iov_len;
	if (in->fplen < 512) {
		rb_err_set(err, errlen, "thread %d of %d: short FP state (%zu bytes)",
			tid, in->pid, in->fplen);
		goto detach;
	}
	if (in->regs.cs != INJ_CS64) {
		rb_err_set(err, errlen, "%d is a 32-bit process: only 64-bit ones can "
			"be attached to", in->pid);
		goto detach;
	}
	return 0;
fail:
	inj_ptrace_fail(in, "stopping", err, errlen);
	if (in->state != INJ_STOPPED)
		return -1;
detach:
	ptrace(PTRACE_DETACH, tid, NULL, NULL);
	in->state = INJ_GONE;
	return -1;
}

/* Did the stopped thread leave (or never enter) the system call it was picked for? */
static bool inj_stop_moved(const struct rb_inject *in, int rank)
{
	long nr = (long)in->regs.orig_rax;

	if (rank == 0)
		return !inj_in(nr, inj_safe_calls, sizeof(inj_safe_calls) / sizeof(long));
	if (rank == 1)
		return !inj_in(nr, inj_epoll_calls, sizeof(inj_epoll_calls) / sizeof(long));
	return false;
}

/*
 * The thread to stop: 0 blocked in a safe system call, 1 in an epoll wait,
 * 2 the main thread, 3 another, 4 one in uninterruptible sleep; never a
 * thread in @skip.  Return: its tid with *@rank, 0 if none, -1 with @err.
 */
static pid_t inj_pick(pid_t pid, const pid_t *skip, int nskip, int *rank,
		      char *err, size_t errlen)
{
	char path[96], buf[256];
	struct dirent *de;
	pid_t best = 0, tid;
	int best_rank = 5, r, i;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (d == NULL) {
		rb_err_set(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		long nr;
		char st, *end;

		tid = (pid_t)strtol(de->d_name, &end, 10);
		if (tid <= 0 || *end != '\0')
			continue;
		for (i = 0; i < nskip && skip[i] != tid; i++)
			;
		if (i < nskip)
			continue;
		st = rb_proc_task_state(pid, tid);
		if (st == 0 || st == 'Z' || st == 'X' || st == 'T' || st == 't')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
		if (rb_proc_slurp(path, buf, sizeof(buf)) < 0) {
			if (errno == EACCES || errno == EPERM) {
				closedir(d);
				rb_perm_why(pid, err, errlen);
				return -1;
			}
			continue;
		}
		nr = strtol(buf, &end, 10);
		if (st == 'D')
			r = 4;
		else if (end != buf && inj_in(nr, inj_safe_calls,
					      sizeof(inj_safe_calls) / sizeof(long)))
			r = 0;
		else if (end != buf && inj_in(nr, inj_epoll_calls,
					      sizeof(inj_epoll_calls) / sizeof(long)))
			r = 1;
		else
			r = tid == pid ? 2 : 3;
		/* among equals, the main thread, else the first started */
		if (r < best_rank || (r == best_rank && (tid == pid ||
		    (best != pid && tid < best)))) {
			best = tid;
			best_rank = r;
		}
	}
	closedir(d);
	*rank = best_rank;
	return best;
}

/*
 * While a thread of the process is held, this one runs ahead of the
 * process's busy threads where it may (root, CAP_SYS_NICE, RLIMIT_RTPRIO):
 * each step of a call is a round trip between the two, and on a machine
 * whose cores the program keeps busy, an ordinary tool waits out their
 * time slices at every one of them (milliseconds each).  This thread only
 * ever blocks between steps; the lowest real-time priority, not inherited.
 */
static void inj_boost(struct rb_inject *in)
{
	struct sched_param sp = { .sched_priority = sched_get_priority_min(SCHED_FIFO) };

	in->oldpolicy = sched_getscheduler(0);
	if (in->oldpolicy < 0 || sched_getparam(0, &in->oldparam) != 0 ||
	    (in->oldpolicy & ~SCHED_RESET_ON_FORK) != SCHED_OTHER)
		return;
	in->boosted = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0;
}

static void inj_unboost(struct rb_inject *in)
{
	/* Keeping the flag: taking it off would need the privilege. */
	if (in->boosted)
		sched_setscheduler(0, in->oldpolicy | SCHED_RESET_ON_FORK,
				   &in->oldparam);
	in->boosted = false;
}

struct rb_inject *rb_inject_open(pid_t pid, pid_t tid, char *err, size_t errlen)
{
	struct rb_inject *in;
	pid_t tried[INJ_TRIES], t;
	char path[64], *maps;
	sigset_t block;
	int rank = 5, ntried = 0;

	if (rb_perm_check(pid, tid, err, errlen) < 0)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = rb_proc_slurp_all(path);
	if (maps == NULL) {
		if (errno == EACCES || errno == EPERM)
			rb_perm_why(pid, err, errlen);
		else if (errno == ENOENT || errno == ESRCH)
			rb_err_set(err, errlen, "%d exited while being attached", pid);
		else
			rb_err_set(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (maps[0] == '\0') {
		free(maps);
		rb_err_set(err, errlen, "%d is a kernel thread or exiting: nothing to "
			"load a library into", pid);
		return NULL;
	}
	in = calloc(1, sizeof(*in));
	if (in == NULL) {
		free(maps);
		rb_err_set(err, errlen, "out of memory");
		return NULL;
	}
	in->pid = pid;
	in->memfd = -1;
	in->timeout_ms = RB_INJECT_TIMEOUT_MS;
	if (rb_perm_check_exe(pid, err, errlen) < 0 ||
	    inj_find_dlopen(in, maps, err, errlen) < 0) {
		free(maps);
		free(in);
		return NULL;
	}
	free(maps);
	/* opened before the stop: it takes as long as a call */
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	in->memfd = open(path, O_RDWR | O_CLOEXEC);
	if (in->memfd < 0) {
		if (errno == EACCES || errno == EPERM)
			rb_perm_why(pid, err, errlen);
		else
			rb_err_set(err, errlen, "%s: %s", path, strerror(errno));
		free(in);
		return NULL;
	}

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &block, &in->oldmask);
	inj_boost(in);
	for (;;) {
		t = tid;
		if (t == 0) {
			t = inj_pick(pid, tried, ntried, &rank, err, errlen);
			if (t == 0 && ntried > 0) {
				/* none other: the last one tried, wherever it is */
				t = tried[--ntried];
				rank = 5;
			}
			if (t == 0)
				rb_err_set(err, errlen, "%d has no thread that can be stopped", pid);
			if (t <= 0)
				goto fail;
		}
		if (inj_stop(in, t, err, errlen) < 0)
			goto fail;
		/* picked in a safe system call: still in it, or try another */
		if (tid != 0 || rank > 1 || !inj_stop_moved(in, rank) ||
		    ntried == INJ_TRIES - 1)
			break;
		ptrace(PTRACE_DETACH, t, NULL, NULL);
		tried[ntried++] = t;
	}
	/* An epoll wait says EINTR on any stop; one without a timeout is restarted. */
	if (inj_in((long)in->regs.orig_rax, inj_epoll_calls,
		   sizeof(inj_epoll_calls) / sizeof(long)) &&
	    (long long)in->regs.rax == -EINTR) {
#ifdef SYS_epoll_pwait2
		if ((long)in->regs.orig_rax == SYS_epoll_pwait2)
			in->rewind = in->regs.r10 == 0;		/* no timespec */
		else
#endif
			in->rewind = (int)in->regs.r10 == -1;	/* timeout -1 */
	}
	in->restartblock = (long long)in->regs.orig_rax >= 0 &&
			   (long long)in->regs.rax == -INJ_ERESTART_RESTARTBLOCK;
	return in;
fail:
	inj_unboost(in);
	pthread_sigmask(SIG_SETMASK, &in->oldmask, NULL);
	if (in->memfd >= 0)
		close(in->memfd);
	free(in);
	return NULL;
}

/* An epoll wait that says EINTR on a stop, without a timeout: restarted. */
static bool inj_epoll_rewind(const struct user_regs_struct *r)
{
	if (!inj_in((long)r->orig_rax, inj_epoll_calls,
		    sizeof(inj_epoll_calls) / sizeof(long)) ||
	    (long long)r->rax != -EINTR)
		return false;
#ifdef SYS_epoll_pwait2
	if ((long)r->orig_rax == SYS_epoll_pwait2)
		return r->r10 == 0;		/* no timespec */
#endif
	return (int)r->r10 == -1;		/* timeout -1 */
}

/* How long the other threads are given to stop, all together. */
#define INJ_HOLD_MS	1000
/* Passes over /proc/PID/task for threads started meanwhile. */
#define INJ_HOLD_PASSES	8

/* Seize and interrupt the threads not held yet.  Return: how many. */
static int inj_hold_scan(struct rb_inject *in)
{
	char path[64];
	struct dirent *de;
	struct inj_held *v;
	size_t i;
	int added = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", in->pid);
	d = opendir(path);
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char *end, st;
		pid_t tid = (pid_t)strtol(de->d_name, &end, 10);

		if (tid <= 0 || *end != '\0' || tid == in->tid)
			continue;
		/* In uninterruptible sleep: it would not stop in time. */
		st = rb_proc_task_state(in->pid, tid);
		if (st == 0 || st == 'D' || st == 'Z' || st == 'X')
			continue;
		for (i = 0; i < in->nheld && in->held[i].tid != tid; i++)
			;
		if (i < in->nheld)
			continue;
		v = realloc(in->held, (in->nheld + 1) * sizeof(*v));
		if (v == NULL)
			break;
		in->held = v;
		memset(&v[in->nheld], 0, sizeof(*v));
		v[in->nheld].tid = tid;
		/* No signal: a seized thread stops where it is. */
		if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0)
			v[in->nheld].tid = -tid;	/* gone, or refused: not held */
		else if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
			ptrace(PTRACE_DETACH, tid, NULL, NULL);
			v[in->nheld].tid = -tid;
		} else
			added++;
		in->nheld++;
	}
	closedir(d);
	return added;
}

int rb_inject_hold(struct rb_inject *in, struct rb_inject_thread *out,
		   size_t max, char *err, size_t errlen)
{
	uint64_t deadline = inj_now() + (uint64_t)INJ_HOLD_MS * 1000000u, now;
	size_t i, n = 0;
	int pass, status, w;

	if (in->state != INJ_STOPPED) {
		rb_err_set(err, errlen, "the thread called in is not stopped");
		return -1;
	}
	for (pass = 0; pass < INJ_HOLD_PASSES; pass++) {
		if (inj_hold_scan(in) == 0 && pass > 0)
			break;
		for (i = 0; i < in->nheld; i++) {
			struct inj_held *h = &in->held[i];

			while (h->tid > 0 && !h->stopped) {
				now = inj_now();
				w = inj_wait(h->tid, &status, now >= deadline ? 0 :
					     (unsigned)((deadline - now) / 1000000u));
				if (w <= 0)
					break;		/* not stopped in time: left */
				if (WIFEXITED(status) || WIFSIGNALED(status)) {
					h->tid = -h->tid;
					break;
				}
				if (WIFSTOPPED(status) && (status >> 16) == 0) {
					/* a signal to deliver first; the interrupt stays */
					if (ptrace(PTRACE_CONT, h->tid, NULL,
						   (void *)(uintptr_t)WSTOPSIG(status)) < 0)
						break;
					continue;
				}
				if (WIFSTOPPED(status) &&
				    ptrace(PTRACE_GETREGS, h->tid, NULL, &h->regs) == 0) {
					h->stopped = true;
					h->rewind = inj_epoll_rewind(&h->regs);
				}
				break;
			}
		}
	}
	if (max > 0) {
		out[n++] = (struct rb_inject_thread){ in->tid, in->regs.rip,
			in->regs.rsp, in->regs.rbp, in->regs.rbx, in->regs.r12,
			in->regs.r13, in->regs.r14, in->regs.r15 };
	}
	for (i = 0; i < in->nheld && n < max; i++) {
		const struct user_regs_struct *r = &in->held[i].regs;

		if (in->held[i].stopped)
			out[n++] = (struct rb_inject_thread){ in->held[i].tid,
				r->rip, r->rsp, r->rbp, r->rbx, r->r12, r->r13,
				r->r14, r->r15 };
	}
	return (int)n;
}

/* Let the threads rb_inject_hold() stopped go on, as they were. */
static void inj_release(struct rb_inject *in)
{
	size_t i;

	for (i = 0; i < in->nheld; i++) {
		struct inj_held *h = &in->held[i];
		struct user_regs_struct r = h->regs;
		uint8_t insn[2];

		if (h->tid <= 0)
			continue;
		/*
		 * Not stopped in time: it stops once out of what held it, and
		 * only a stopped thread can be let go; a while longer for it.
		 */
		while (!h->stopped) {
			int status;

			if (inj_wait(h->tid, &status, INJ_HOLD_MS) <= 0 ||
			    WIFEXITED(status) || WIFSIGNALED(status))
				break;
			if (WIFSTOPPED(status) && (status >> 16) == 0) {
				ptrace(PTRACE_CONT, h->tid, NULL,
				       (void *)(uintptr_t)WSTOPSIG(status));
				continue;
			}
			h->stopped = true;
			if (ptrace(PTRACE_GETREGS, h->tid, NULL, &h->regs) == 0)
				h->rewind = inj_epoll_rewind(&h->regs);
			r = h->regs;
		}
		if (h->stopped && h->rewind &&
		    pread(in->memfd, insn, 2, (off_t)(r.rip - 2)) == 2 &&
		    insn[0] == 0x0f && insn[1] == 0x05) {
			/* back to its syscall instruction, to wait again */
			r.rax = r.orig_rax;
			r.rip -= 2;
			ptrace(PTRACE_SETREGS, h->tid, NULL, &r);
		}
		/* One not stopped yet is let go when this process exits. */
		ptrace(PTRACE_DETACH, h->tid, NULL, NULL);
	}
	free(in->held);
	in->held = NULL;
	in->nheld = 0;
}

pid_t rb_inject_tid(const struct rb_inject *in)
{
	return in->tid;
}

void rb_inject_set_timeout(struct rb_inject *in, unsigned ms)
{
	in->timeout_ms = ms;
}

uint64_t rb_inject_close(struct rb_inject *in)
{
	struct user_regs_struct r = in->regs;
	struct iovec iov = { in->fp, in->fplen };
	uint64_t ns;

	if (in->state == INJ_STOPPED) {
		uint8_t insn[2];

		if ((in->rewind || (in->restartblock && in->clobbered)) &&
		    pread(in->memfd, insn, 2, (off_t)(r.rip - 2)) == 2 &&
		    insn[0] == 0x0f && insn[1] == 0x05) {
			/* back to its syscall instruction, to execute it again */
			r.rax = r.orig_rax;
			r.rip -= 2;
		}
		ptrace(PTRACE_SETREGSET, in->tid, (void *)(uintptr_t)in->fptype, &iov);
		ptrace(PTRACE_SETREGS, in->tid, NULL, &r);
		/* a pending SIGSEGV of a call's return is dropped (no signal) */
		ptrace(PTRACE_DETACH, in->tid, NULL, NULL);
		in->t_end = inj_now();
	}
	ns = in->t_end > in->t_stop && in->t_stop != 0 ? in->t_end - in->t_stop : 0;
	inj_release(in);
	inj_unboost(in);
	if (in->memfd >= 0)
		close(in->memfd);
	pthread_sigmask(SIG_SETMASK, &in->oldmask, NULL);
	free(in);
	return ns;
}

#else /* !__x86_64__ */

struct rb_inject {
	pid_t	pid;
};

struct rb_inject *rb_inject_open(pid_t pid, pid_t tid, char *err, size_t errlen)
{
	rb_err_set(err, errlen, "attaching to a running process is only supported on x86-64");
	return NULL;
}

pid_t rb_inject_tid(const struct rb_inject *in)
{
	return 0;
}

int rb_inject_resolve(pid_t pid, const char *lib, const char *func,
		      char *err, size_t errlen)
{
	rb_err_set(err, errlen, "not supported on this architecture");
	return -1;
}

void rb_inject_set_timeout(struct rb_inject *in, unsigned ms)
{
}

int rb_inject_dlopen(struct rb_inject *in, const char *path, char *err, size_t errlen)
{
	rb_err_set(err, errlen, "not supported on this architecture");
	return -1;
}

int rb_inject_call(struct rb_inject *in, const char *lib, const char *func,
		   const char *arg, int *ret, char *msg, size_t msglen,
		   char *err, size_t errlen)
{
	rb_err_set(err, errlen, "not supported on this architecture");
	return -1;
}

int rb_inject_hold(struct rb_inject *in, struct rb_inject_thread *out,
		   size_t max, char *err, size_t errlen)
{
	rb_err_set(err, errlen, "not supported on this architecture");
	return -1;
}

uint64_t rb_inject_close(struct rb_inject *in)
{
	return 0;
}

#endif
