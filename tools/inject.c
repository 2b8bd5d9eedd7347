/* SPDX-License-Identifier: MIT */
/*
 * inject.c - call a function inside a running process: one thread stopped
 * with ptrace, the call made on its stack, every register put back.
 *
 * The thread is chosen to hold no lock of the C library, as far as can be
 * told from outside: one blocked in a system call that waits for input or
 * time (read, poll, nanosleep, ...), else the main thread.  Only that
 * thread is seized (PTRACE_SEIZE, PTRACE_INTERRUPT); the others run on.
 * Its general registers and its whole extended state (x87, SSE, AVX) are
 * saved: it was stopped anywhere, and nothing it holds may change.
 *
 * A call: the arguments in rdi, rsi, rdx, data below the red zone of its
 * stack, a return address of 0, orig_rax -1 so that the kernel does not
 * restart an interrupted system call into the call.  The call returns by
 * faulting at address 0, which the tracer sees as SIGSEGV at rip 0 and
 * suppresses.  Put back, orig_rax and rax make the interrupted system call
 * restart as if nothing happened (a read goes on reading, a nanosleep
 * sleeps the rest).  Signals for the thread meanwhile are the program's:
 * they are delivered.
 */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/inject.h"

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE	0x202
#endif

/* How long a call may take before the thread is taken back. */
#define INJ_CALL_NS	(30ull * 1000000000ull)
#define INJ_XSTATE_MAX	(64 * 1024)

struct rb_inject {
	pid_t			pid, tid;
	struct user_regs_struct	regs;		/* as stopped */
	void			*xstate;	/* NT_X86_XSTATE, or NT_PRFPREG */
	size_t			xlen;
	int			xtype;
	int			sig;		/* a signal to deliver at the end */
	uint64_t		t0;		/* when it stopped */
	bool			lost;		/* the process is gone */
};

static uint64_t inj_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

pid_t rb_inject_tid(const struct rb_inject *in)
{
	return in->tid;
}

/* A line of /proc/PID/status: the number after @key, or -1. */
static long inj_status(pid_t pid, const char *key)
{
	char name[64], line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)pid);
	f = fopen(name, "re");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static char inj_state(pid_t pid)
{
	char name[64], line[256];
	char st = '?';
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)pid);
	f = fopen(name, "re");
	if (f == NULL)
		return '?';
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "State:", 6) == 0) {
			sscanf(line + 6, " %c", &st);
			break;
		}
	fclose(f);
	return st;
}

/* Why ptrace was refused, in one line. */
static void inj_why_eperm(pid_t pid, char *err, size_t errlen)
{
	long tracer = inj_status(pid, "TracerPid");
	long scope = -1;
	char name[64];
	struct stat sb;
	FILE *f;

	if (tracer > 0) {
		snprintf(err, errlen, "%d is traced already by process %ld (a debugger?): "
			 "detach it first", (int)pid, tracer);
		return;
	}
	snprintf(name, sizeof(name), "/proc/%d", (int)pid);
	if (geteuid() != 0 && stat(name, &sb) == 0 && sb.st_uid != geteuid()) {
		struct passwd *pw = getpwuid(sb.st_uid);

		snprintf(err, errlen, "%d belongs to user %s (uid %u): only that user or root may attach",
			 (int)pid, pw != NULL ? pw->pw_name : "?", (unsigned)sb.st_uid);
		return;
	}
	f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f != NULL) {
		if (fscanf(f, "%ld", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	if (scope == 1)
		snprintf(err, errlen, "not permitted to attach to %d: kernel.yama.ptrace_scope is 1 "
			 "(only a process's ancestors may); run rbtrace -p as root, or "
			 "sysctl kernel.yama.ptrace_scope=0", (int)pid);
	else if (scope == 2)
		snprintf(err, errlen, "not permitted to attach to %d: kernel.yama.ptrace_scope is 2 "
			 "(only root, with CAP_SYS_PTRACE, may)", (int)pid);
	else if (scope == 3)
		snprintf(err, errlen, "not permitted to attach to %d: kernel.yama.ptrace_scope is 3 "
			 "(attaching is disabled until reboot)", (int)pid);
	else
		snprintf(err, errlen, "not permitted to attach to %d (a set-user-ID program, or "
			 "no CAP_SYS_PTRACE?)", (int)pid);
}

/*
 * The thread to stop: one blocked in a system call that waits without a
 * lock of the C library held, else the main thread.
 */
static pid_t inj_pick(pid_t pid)
{
	/* x86_64: read, poll, select, pause, nanosleep, accept, recvfrom, recvmsg, wait4, clock_nanosleep, epoll_wait, pselect6, ppoll, epoll_pwait, accept4, epoll_pwait2 */
	static const long calm[] = { 0, 7, 23, 34, 35, 43, 45, 47, 61, 230,
				     232, 270, 271, 281, 288, 441 };
	char name[96], line[128];
	struct dirent *e;
	pid_t best = pid;
	DIR *d;
	size_t i;

	snprintf(name, sizeof(name), "/proc/%d/task", (int)pid);
	d = opendir(name);
	if (d == NULL)
		return pid;
	while ((e = readdir(d)) != NULL) {
		long tid = strtol(e->d_name, NULL, 10), nr;
		FILE *f;

		if (tid <= 0)
			continue;
		snprintf(name, sizeof(name), "/proc/%d/task/%ld/syscall",
			 (int)pid, tid);
		f = fopen(name, "re");
		if (f == NULL)
			continue;
		nr = -1;
		if (fgets(line, sizeof(line), f) == NULL ||
		    sscanf(line, "%ld", &nr) != 1)
			nr = -1;
		fclose(f);
		for (i = 0; i < sizeof(calm) / sizeof(calm[0]); i++)
			if (nr == calm[i])
				break;
		if (i < sizeof(calm) / sizeof(calm[0])) {
			best = (pid_t)tid;
			/* The main thread when it qualifies: it never exits alone. */
			if (tid == pid)
				break;
		}
	}
	closedir(d);
	return best;
}

/*
 * Wait for the next stop of the thread, at most until @deadline.
 * Return: 1 stopped (*status), 0 timed out, -1 gone (the process exited).
 */
static int inj_wait(struct rb_inject *in, int *status, uint64_t deadline)
{
	const struct timespec tick = { 0, 50000 };
	unsigned spins = 0;
	pid_t r;

	for (;;) {
		r = waitpid(in->tid, status, __WALL | WNOHANG);
		if (r == in->tid) {
			if (WIFEXITED(*status) || WIFSIGNALED(*status)) {
				in->lost = true;
				return -1;
			}
			return 1;
		}
		if (r < 0 && errno != EINTR) {
			in->lost = true;
			return -1;
		}
		if (inj_now() >= deadline)
			return 0;
		/* The first stops come within microseconds: spin a little first. */
		if (++spins > 200)
			nanosleep(&tick, NULL);
		else
			sched_yield();
	}
}

static void inj_gone(const struct rb_inject *in, char *err, size_t errlen)
{
	snprintf(err, errlen, "%d exited during the attach", (int)in->pid);
}

/* Can a library be loaded into @pid at all?  Return: 0, or -1 and @err. */
static int inj_loadable(pid_t pid, char *err, size_t errlen)
{
	char name[64], line[PATH_MAX + 256];
	unsigned char ident[EI_NIDENT];
	bool loader = false, any = false;
	FILE *f;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/exe", (int)pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, ident, sizeof(ident)) == (ssize_t)sizeof(ident) &&
		    memcmp(ident, ELFMAG, SELFMAG) == 0 &&
		    ident[EI_CLASS] != ELFCLASS64) {
			close(fd);
			snprintf(err, errlen, "%d is a 32-bit program: only 64-bit ones "
				 "can be attached", (int)pid);
			return -1;
		}
		close(fd);
	}
	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (f == NULL)
		return 0;	/* the seize says why */
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *p = strchr(line, '/');

		if (p == NULL)
			continue;
		any = true;
		if (strstr(p, "/ld-linux") != NULL || strstr(p, "/ld-musl") != NULL ||
		    strstr(p, "/ld-2.") != NULL || strstr(p, "/ld.so") != NULL)
			loader = true;
	}
	fclose(f);
	if (any && !loader) {
		snprintf(err, errlen, "%d is a static program: it has no dynamic loader "
			 "to load librbtrace with", (int)pid);
		return -1;
	}
	return 0;
}

struct rb_inject *rb_inject_open(pid_t pid, char *err, size_t errlen)
{
	struct rb_inject *in;
	struct iovec iov;
	char st;
	int status, r;

	st = inj_state(pid);
	if (st == '?') {
		snprintf(err, errlen, "no process %d", (int)pid);
		return NULL;
	}
	if (st == 'Z' || st == 'X') {
		snprintf(err, errlen, "%d has exited (a zombie its parent has not reaped)",
			 (int)pid);
		return NULL;
	}
	if (inj_loadable(pid, err, errlen) != 0)
		return NULL;
	in = calloc(1, sizeof(*in));
	if (in == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	in->pid = pid;
	in->tid = inj_pick(pid);
	if (ptrace(PTRACE_SEIZE, in->tid, NULL, NULL) < 0) {
		if (errno == ESRCH)
			snprintf(err, errlen, "no process %d", (int)pid);
		else if (errno == EPERM)
			inj_why_eperm(pid, err, errlen);
		else
			snprintf(err, errlen, "cannot attach to %d: %s", (int)pid,
				 strerror(errno));
		free(in);
		return NULL;
	}
	if (ptrace(PTRACE_INTERRUPT, in->tid, NULL, NULL) < 0) {
		snprintf(err, errlen, "cannot stop thread %d of %d: %s",
			 (int)in->tid, (int)pid, strerror(errno));
		ptrace(PTRACE_DETACH, in->tid, NULL, NULL);
		free(in);
		return NULL;
	}
	r = inj_wait(in, &status, inj_now() + 10000000000ull);
	if (r <= 0) {
		if (r < 0)
			inj_gone(in, err, errlen);
		else
			snprintf(err, errlen, "thread %d of %d did not stop within 10 s",
				 (int)in->tid, (int)pid);
		if (r == 0)
			ptrace(PTRACE_DETACH, in->tid, NULL, NULL);
		free(in);
		return NULL;
	}
	in->t0 = inj_now();
	/* A signal on its way stopped it first: ours to deliver when done. */
	if (WIFSTOPPED(status) && (status >> 16) == 0 &&
	    WSTOPSIG(status) != SIGTRAP)
		in->sig = WSTOPSIG(status);
	if (ptrace(PTRACE_GETREGS, in->tid, NULL, &in->regs) < 0) {
		snprintf(err, errlen, "cannot read thread %d's registers: %s",
			 (int)in->tid, strerror(errno));
		ptrace(PTRACE_DETACH, in->tid, NULL, (void *)(long)in->sig);
		free(in);
		return NULL;
	}
	in->xstate = malloc(INJ_XSTATE_MAX);
	if (in->xstate != NULL) {
		iov.iov_base = in->xstate;
		iov.iov_len = INJ_XSTATE_MAX;
		in->xtype = NT_X86_XSTATE;
		if (ptrace(PTRACE_GETREGSET, in->tid, (void *)(long)in->xtype, &iov) < 0) {
			iov.iov_len = INJ_XSTATE_MAX;
			in->xtype = NT_PRFPREG;
			if (ptrace(PTRACE_GETREGSET, in->tid,
				   (void *)(long)in->xtype, &iov) < 0)
				iov.iov_len = 0;
		}
		in->xlen = iov.iov_len;
	}
	if (in->xlen == 0) {
		snprintf(err, errlen, "cannot read thread %d's floating point state: %s",
			 (int)in->tid, strerror(errno));
		rb_inject_close(in);
		return NULL;
	}
	return in;
}

uint64_t rb_inject_close(struct rb_inject *in)
{
	struct iovec iov = { in->xstate, in->xlen };
	uint64_t ns;

	if (!in->lost) {
		if (in->xlen != 0)
			ptrace(PTRACE_SETREGSET, in->tid, (void *)(long)in->xtype, &iov);
		ptrace(PTRACE_SETREGS, in->tid, NULL, &in->regs);
	}
	ns = inj_now() - in->t0;
	if (!in->lost)
		ptrace(PTRACE_DETACH, in->tid, NULL, (void *)(long)in->sig);
	free(in->xstate);
	free(in);
	return ns;
}

/* Write @n bytes at @addr in the process. */
static int inj_poke(struct rb_inject *in, uint64_t addr, const void *buf, size_t n)
{
	struct iovec l = { (void *)buf, n }, r = { (void *)(uintptr_t)addr, n };

	return process_vm_writev(in->pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

static int inj_peek(struct rb_inject *in, uint64_t addr, void *buf, size_t n)
{
	struct iovec l = { buf, n }, r = { (void *)(uintptr_t)addr, n };

	return process_vm_readv(in->pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* A NUL-terminated string at @addr, cut to @size. */
static void inj_peek_str(struct rb_inject *in, uint64_t addr, char *out, size_t size)
{
	size_t i;

	out[0] = '\0';
	if (addr == 0 || size == 0)
		return;
	for (i = 0; i + 1 < size; i++)
		if (inj_peek(in, addr + i, &out[i], 1) != 0 || out[i] == '\0')
			break;
	out[i] = '\0';
	for (i = 0; out[i] != '\0'; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] == 0x7f)
			out[i] = '?';
}

/*
 * Call @fn(@a0, @a1, @a2) in the stopped thread, with @data (@n bytes)
 * copied to its stack first: @a0..@a2 that are INJ_DATA + k point at byte
 * k of it.  Return: 0 and the call's rax in *@ret, else -1 and @err.
 */
#define INJ_DATA	((uint64_t)1 << 63)

static int inj_call(struct rb_inject *in, uint64_t fn, uint64_t a[3],
		    const void *data, size_t n, void *back, size_t nback,
		    uint64_t *ret, char *err, size_t errlen)
{
	struct user_regs_struct regs = in->regs;
	uint64_t base, sp, zero = 0;
	int status, r, i;

	/* Below the red zone, 16-byte aligned; then the return address. */
	base = (in->regs.rsp - 128 - n) & ~(uint64_t)15;
	sp = base - 8;
	if ((n != 0 && inj_poke(in, base, data, n) != 0) ||
	    inj_poke(in, sp, &zero, sizeof(zero)) != 0) {
		snprintf(err, errlen, "cannot write to thread %d's stack: %s",
			 (int)in->tid, strerror(errno));
		return -1;
	}
	for (i = 0; i < 3; i++)
		if (a[i] & INJ_DATA)
			a[i] = base + (a[i] & ~INJ_DATA);
	regs.rip = fn;
	regs.rsp = sp;
	regs.rdi = a[0];
	regs.rsi = a[1];
	regs.rdx = a[2];
	regs.rax = 0;
	/* Not in a system call: nothing to restart into the call. */
	regs.orig_rax = (uint64_t)-1;
	if (ptrace(PTRACE_SETREGS, in->tid, NULL, &regs) < 0 ||
	    ptrace(PTRACE_CONT, in->tid, NULL, NULL) < 0) {
		snprintf(err, errlen, "cannot start the call in thread %d: %s",
			 (int)in->tid, strerror(errno));
		return -1;
	}
	for (;;) {
		r = inj_wait(in, &status, inj_now() + INJ_CALL_NS);
		if (r < 0) {
			inj_gone(in, err, errlen);
			return -1;
		}
		if (r == 0) {
			/* Take the thread back where it was; what the call held stays held. */
			ptrace(PTRACE_INTERRUPT, in->tid, NULL, NULL);
			if (inj_wait(in, &status, inj_now() + 1000000000ull) < 0) {
				inj_gone(in, err, errlen);
				return -1;
			}
			snprintf(err, errlen, "the call in thread %d did not return within %llu s; "
				 "the program may be left waiting", (int)in->tid,
				 (unsigned long long)(INJ_CALL_NS / 1000000000ull));
			return -1;
		}
		if ((status >> 16) != 0 || WSTOPSIG(status) == SIGTRAP) {
			/* A group stop or our interrupt: go on. */
			ptrace(PTRACE_CONT, in->tid, NULL, NULL);
			continue;
		}
		if (WSTOPSIG(status) == SIGSEGV) {
			if (ptrace(PTRACE_GETREGS, in->tid, NULL, &regs) < 0) {
				snprintf(err, errlen, "cannot read thread %d's registers: %s",
					 (int)in->tid, strerror(errno));
				return -1;
			}
			if (regs.rip == 0)
				break;
			snprintf(err, errlen, "the call crashed in thread %d at 0x%llx "
				 "(SIGSEGV); the thread was put back as it was",
				 (int)in->tid, (unsigned long long)regs.rip);
			return -1;
		}
		/* The program's own signal: delivered now, as it would be. */
		ptrace(PTRACE_CONT, in->tid, NULL, (void *)(long)WSTOPSIG(status));
	}
	*ret = regs.rax;
	if (nback != 0 && inj_peek(in, base, back, nback) != 0) {
		snprintf(err, errlen, "cannot read thread %d's stack: %s",
			 (int)in->tid, strerror(errno));
		return -1;
	}
	return 0;
}

/* Where @file (as stat()ed here, or by path inside the process) is mapped at offset 0. */
static uint64_t inj_base(struct rb_inject *in, const struct stat *want,
			 const char *suffix, char *path, size_t size)
{
	char name[64], line[PATH_MAX + 256], in_root[PATH_MAX + 64];
	unsigned long long lo, off;
	uint64_t base = 0;
	struct stat sb;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)in->pid);
	f = fopen(name, "re");
	if (f == NULL)
		return 0;
	while (base == 0 && fgets(line, sizeof(line), f) != NULL) {
		char *p = strchr(line, '/'), *nl;

		if (p == NULL || sscanf(line, "%llx-%*x %*s %llx", &lo, &off) != 2 ||
		    off != 0)
			continue;
		nl = strchr(p, '\n');
		if (nl != NULL)
			*nl = '\0';
		if (suffix != NULL) {
			const char *b = strrchr(p, '/') + 1;

			if (strncmp(b, suffix, strlen(suffix)) != 0)
				continue;
		}
		snprintf(in_root, sizeof(in_root), "/proc/%d/root%s", (int)in->pid, p);
		if (want != NULL && (stat(in_root, &sb) != 0 ||
				     sb.st_dev != want->st_dev || sb.st_ino != want->st_ino))
			continue;
		base = lo;
		snprintf(path, size, "%s", in_root);
	}
	fclose(f);
	return base;
}

/* @name's value in the dynamic symbols of the ELF file @path (0: none). */
static uint64_t inj_sym(const char *path, const char *name, bool *pie)
{
	Elf_Scn *scn = NULL;
	uint64_t v = 0;
	GElf_Ehdr eh;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf != NULL && gelf_getehdr(elf, &eh) != NULL)
		*pie = eh.e_type == ET_DYN;
	while (elf != NULL && v == 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t k, n;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_DYNSYM ||
		    sh.sh_entsize == 0 || (data = elf_getdata(scn, NULL)) == NULL)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < n; k++) {
			GElf_Sym sym;
			const char *s;

			if (gelf_getsym(data, (int)k, &sym) == NULL ||
			    sym.st_shndx == SHN_UNDEF || sym.st_value == 0 ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    (s = elf_strptr(elf, sh.sh_link, sym.st_name)) == NULL)
				continue;
			if (strcmp(s, name) == 0) {
				v = sym.st_value;
				break;
			}
		}
	}
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	return v;
}

/* The address of @name in the process's C library. */
static uint64_t inj_libc(struct rb_inject *in, const char *name)
{
	char path[PATH_MAX + 64];
	bool pie = true;
	uint64_t base, v;

	base = inj_base(in, NULL, "libc.so", path, sizeof(path));
	if (base == 0)
		base = inj_base(in, NULL, "libc-", path, sizeof(path));
	if (base == 0)
		return 0;
	v = inj_sym(path, name, &pie);
	return v == 0 ? 0 : (pie ? base : 0) + v;
}

int rb_inject_dlopen(struct rb_inject *in, const char *path, char *err,
		     size_t errlen)
{
	uint64_t fn, a[3], ret = 0, mode = 2;	/* RTLD_NOW */
	char why[512];

	fn = inj_libc(in, "dlopen");
	if (fn == 0) {
		/* Before glibc 2.34, libc's own: the mode with __RTLD_DLOPEN. */
		fn = inj_libc(in, "__libc_dlopen_mode");
		mode |= 0x80000000u;
	}
	if (fn == 0) {
		if (inj_base(in, NULL, "ld-", why, sizeof(why)) == 0)
			snprintf(err, errlen, "%d is a static program: it has no dynamic "
				 "loader to load librbtrace with", (int)in->pid);
		else
			snprintf(err, errlen, "no dlopen() found in %d's C library",
				 (int)in->pid);
		return -1;
	}
	a[0] = INJ_DATA;
	a[1] = mode;
	a[2] = 0;
	if (inj_call(in, fn, a, path, strlen(path) + 1, NULL, 0, &ret, err,
		     errlen) != 0)
		return -1;
	if (ret != 0)
		return 0;
	why[0] = '\0';
	fn = inj_libc(in, "dlerror");
	a[0] = a[1] = a[2] = 0;
	if (fn != 0 && inj_call(in, fn, a, NULL, 0, NULL, 0, &ret, err,
				errlen) == 0)
		inj_peek_str(in, ret, why, sizeof(why));
	snprintf(err, errlen, "%d could not load %s: %s", (int)in->pid, path,
		 why[0] ? why : "dlopen() failed");
	return -1;
}

int rb_inject_call(struct rb_inject *in, const char *lib, const char *func,
		   const char *arg, int *ret, char *msg, size_t msglen,
		   char *err, size_t errlen)
{
	char path[PATH_MAX + 64], *data;
	size_t alen = strlen(arg) + 1, n = msglen + alen;
	uint64_t base, v, a[3], r = 0;
	struct stat sb;
	bool pie = true;
	int rc;

	if (stat(lib, &sb) != 0 ||
	    (base = inj_base(in, &sb, NULL, path, sizeof(path))) == 0) {
		snprintf(err, errlen, "%s is not loaded in %d", lib, (int)in->pid);
		return -1;
	}
	v = inj_sym(path, func, &pie);
	if (v == 0) {
		snprintf(err, errlen, "%s has no %s()", lib, func);
		return -1;
	}
	/* msg first (read back from the start), then arg. */
	data = calloc(1, n);
	if (data == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(data + msglen, arg, alen);
	a[0] = INJ_DATA + msglen;
	a[1] = INJ_DATA;
	a[2] = msglen;
	rc = inj_call(in, (pie ? base : 0) + v, a, data, n, msg, msglen, &r,
		      err, errlen);
	free(data);
	if (rc != 0)
		return -1;
	if (msglen != 0)
		msg[msglen - 1] = '\0';
	*ret = (int)(uint32_t)r;
	return 0;
}
