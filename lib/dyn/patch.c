/* SPDX-License-Identifier: MIT */
/*
 * patch.c - write a batch of call sites in this process's text while its
 * threads run through them (rbtrace(5), "DYNAMIC TRACING").
 *
 * The kernel's text_poke_bp() protocol, for every site of the batch at
 * once:
 *
 *   1. the first byte of each site becomes int3;       every core serialized
 *   2. the other bytes become the new instruction's;   every core serialized
 *   3. the first byte becomes the new instruction's;   every core serialized
 *
 * A thread never executes a mix of two instructions: until step 1 is seen
 * everywhere it runs the old one whole, from then on it traps at the first
 * byte until step 3 is seen.  The trap (SIGTRAP) sends it on as if the new
 * instruction had run (rb_patch_trap()): a call pushes its return address
 * and goes to its target, a no-op goes on after the site, a return (a
 * tail call switched off) pops.  A trap whose handler runs only after
 * step 3 finds no int3 there any more and executes the site again, now
 * new.  A trap not at a site of this batch or the one before goes to the
 * handler the program had installed, or to the default action.
 *
 * Serializing: membarrier(2)'s MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE
 * where the kernel has it, else its plain expedited barrier (an
 * interrupt's return is serializing on x86), else a protection change on
 * a page of our own, whose TLB shootdown interrupts every core running
 * this process.  Three per batch, however many sites.
 *
 * Writing: the pages of the batch are made writable (their protection as
 * /proc/self/maps gives it, plus PROT_WRITE) and put back after; where the
 * system refuses writable code (an SELinux policy without execmod, PaX
 * MPROTECT), through /proc/self/mem, which writes a private copy of the
 * page without changing its protection; where both are refused, nothing
 * is written and the caller says why.  Either way a written page becomes
 * a private copy (counted: rb_patch_stats.pages).
 *
 * Cold path: called from a worker thread or at start-up, never from a
 * hook; memory is mmap'ed, never malloc'ed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "lib/dyn/patch.h"

#define PAGE		4096ul
#define PAGE_OF(a)	((a) & ~(PAGE - 1))
#define INT3		0xcc

/* A batch as the trap handler sees it. */
struct batch {
	struct rb_patch	*v;
	size_t		 n;
	size_t		 mapped;
};

/*
 * The batch being written, and the one before it (a trap taken during it
 * whose handler runs late); older ones are unmapped.  Acquire/release:
 * the sites' fields before the pointer that shows them.
 */
static struct batch	*trap_cur, *trap_prev;
static struct batch	 batches[3];
static unsigned		 batch_next;
static uint64_t		 trap_count;
static struct sigaction	 trap_old;
static int		 trap_installed;

/* The nops of the Intel manual, by length. */
static const uint8_t nops[9][8] = {
	{ 0 },
	{ 0x90 },
	{ 0x66, 0x90 },
	{ 0x0f, 0x1f, 0x00 },
	{ 0x0f, 0x1f, 0x40, 0x00 },
	{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
};

/**
 * rb_patch_nop - the no-op of @len bytes (1..8) into @out
 */
void
rb_patch_nop(uint8_t *out, unsigned len)
{
	if (len >= 1 && len <= 8)
		memcpy(out, nops[len], len);
}

/**
 * rb_patch_traps - threads sent on from a trap since start
 */
uint64_t
rb_patch_traps(void)
{
	return __atomic_load_n(&trap_count, __ATOMIC_RELAXED);
}

static const struct rb_patch *
batch_find(const struct batch *b, uint64_t addr)
{
	size_t	lo = 0, hi, mid;

	if (b == NULL)
		return NULL;
	hi = b->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (b->v[mid].addr == addr)
			return &b->v[mid];
		if (b->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Hand a trap that is not ours to the program's handler, or the default. */
static void
trap_chain(int sig, siginfo_t *si, void *ctx)
{
	struct sigaction	dfl;

	if (trap_old.sa_flags & SA_SIGINFO) {
		if (trap_old.sa_sigaction != NULL) {
			trap_old.sa_sigaction(sig, si, ctx);
			return;
		}
	} else if (trap_old.sa_handler != SIG_DFL &&
	    trap_old.sa_handler != SIG_IGN) {
		trap_old.sa_handler(sig);
		return;
	}
	/*
	 * The default action, as without us: a trap cannot be ignored.
	 * The signal is blocked in here; it is taken again on return.
	 */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGTRAP, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGTRAP);
}

/*
 * SIGTRAP: a thread met a site in the middle of a batch.  Async-signal-
 * safe: reads the batch, changes the interrupted context, nothing else.
 */
static void
rb_patch_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t		*uc = ctx;
	greg_t			*g = uc->uc_mcontext.gregs;
	uint64_t		 ip = (uint64_t)g[REG_RIP] - 1, sp;
	const struct rb_patch	*p;
	struct batch		*b;
	uint8_t			 now;

	if (si->si_code != SI_KERNEL) {
		trap_chain(sig, si, ctx);
		return;
	}
	/* Acquire: pairs with the release that published the batch. */
	b = __atomic_load_n(&trap_cur, __ATOMIC_ACQUIRE);
	p = batch_find(b, ip);
	if (p == NULL)
		p = batch_find(__atomic_load_n(&trap_prev, __ATOMIC_ACQUIRE),
		    ip);
	if (p == NULL) {
		trap_chain(sig, si, ctx);
		return;
	}
	__atomic_add_fetch(&trap_count, 1, __ATOMIC_RELAXED);
	now = __atomic_load_n((const uint8_t *)(uintptr_t)ip, __ATOMIC_RELAXED);
	if (now != INT3) {
		/* Step 3 is done: run the new instruction itself. */
		g[REG_RIP] = (greg_t)ip;
		return;
	}
	sp = (uint64_t)g[REG_RSP];
	switch (p->kind) {
	case RB_PATCH_CALL:
		sp -= 8;
		*(uint64_t *)(uintptr_t)sp = p->addr + p->len;
		g[REG_RSP] = (greg_t)sp;
		g[REG_RIP] = (greg_t)p->target;
		break;
	case RB_PATCH_JMP:
		g[REG_RIP] = (greg_t)p->target;
		break;
	case RB_PATCH_RET:
		g[REG_RIP] = (greg_t)*(const uint64_t *)(uintptr_t)sp;
		g[REG_RSP] = (greg_t)(sp + 8);
		break;
	default:
		g[REG_RIP] = (greg_t)(p->addr + p->len);
		break;
	}
}

/* Our handler in place, the program's kept to chain to. */
static int
trap_install(char *err, size_t errlen)
{
	struct sigaction	sa, cur;

	if (sigaction(SIGTRAP, NULL, &cur) != 0) {
		snprintf(err, errlen, "sigaction(SIGTRAP): %s", strerror(errno));
		return -1;
	}
	if (trap_installed && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == rb_patch_trap)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = rb_patch_trap;
	/*
	 * SIGTRAP not blocked in here: the program's handler, chained to,
	 * may meet a site of this batch too (instrumented code), a trap
	 * that would otherwise kill the process.
	 */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL) != 0) {
		snprintf(err, errlen, "sigaction(SIGTRAP): %s", strerror(errno));
		return -1;
	}
	/* The program's own, installed since ours, is the one to chain to. */
	trap_old = cur;
	trap_installed = 1;
	return 0;
}

/* ------------------------------------------------------------------
 * Serializing every core.
 */

#define SYNC_UNKNOWN	0
#define SYNC_CORE	1
#define SYNC_EXPEDITED	2
#define SYNC_GLOBAL	3
#define SYNC_SHOOTDOWN	4

static int	 sync_kind;
static uint8_t	*sync_page;

static int
membarrier(int cmd)
{
	return (int)syscall(SYS_membarrier, cmd, 0, 0);
}

static void
sync_choose(void)
{
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE) == 0)
		sync_kind = SYNC_CORE;
	else if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
		sync_kind = SYNC_EXPEDITED;
	else if (membarrier(MEMBARRIER_CMD_GLOBAL) == 0)
		sync_kind = SYNC_GLOBAL;
	else {
		sync_page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		sync_kind = sync_page == MAP_FAILED ? SYNC_UNKNOWN :
		    SYNC_SHOOTDOWN;
	}
}

/* Every running thread of the process passes a serializing instruction. */
static void
sync_cores(struct rb_patch_stats *st)
{
	st->syncs++;
	switch (sync_kind) {
	case SYNC_CORE:
		if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) == 0)
			return;
		break;
	case SYNC_EXPEDITED:
		if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0)
			return;
		break;
	case SYNC_GLOBAL:
		if (membarrier(MEMBARRIER_CMD_GLOBAL) == 0)
			return;
		break;
	default:
		break;
	}
	if (sync_page != NULL && sync_page != MAP_FAILED) {
		/* A present, dirty page made read-only: a shootdown IPI. */
		__atomic_store_n(sync_page, 1, __ATOMIC_SEQ_CST);
		mprotect(sync_page, PAGE, PROT_READ);
		mprotect(sync_page, PAGE, PROT_READ | PROT_WRITE);
	}
}

/* ------------------------------------------------------------------
 * Page protections.
 */

/* A run of pages with one protection. */
struct span {
	uint64_t	lo, hi;
	int		prot;
};

/* The protection of @page from /proc/self/maps (@buf, @len), or -1. */
static int
maps_prot(const char *buf, size_t len, uint64_t page)
{
	const char	*p = buf, *end = buf + len, *nl;
	unsigned long	 lo, hi;
	char		 perms[5];
	int		 prot;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			break;
		if (sscanf(p, "%lx-%lx %4s", &lo, &hi, perms) != 3)
			continue;
		if (page < lo || page >= hi)
			continue;
		prot = 0;
		if (perms[0] == 'r')
			prot |= PROT_READ;
		if (perms[1] == 'w')
			prot |= PROT_WRITE;
		if (perms[2] == 'x')
			prot |= PROT_EXEC;
		return prot;
	}
	return -1;
}

/* /proc/self/maps into a fresh mapping; *@len its bytes. */
static char *
maps_read(size_t *len, size_t *mapped)
{
	size_t	 cap = 1 << 20, n = 0;
	ssize_t	 r;
	char	*buf;
	int	 fd;

	*len = 0;
	*mapped = 0;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		buf = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED) {
			close(fd);
			return NULL;
		}
		n = 0;
		lseek(fd, 0, SEEK_SET);
		while (n < cap && (r = read(fd, buf + n, cap - n)) > 0)
			n += (size_t)r;
		if (n < cap)
			break;
		munmap(buf, cap);
		cap *= 4;
	}
	close(fd);
	*len = n;
	*mapped = cap;
	return buf;
}

/* ------------------------------------------------------------------
 * Writing.
 */

struct writer {
	int	memfd;		/* /proc/self/mem, or -1: plain stores */
	bool	failed;
};

static void
text_write(struct writer *w, uint64_t addr, const uint8_t *b, size_t n)
{
	volatile uint8_t	*t = (volatile uint8_t *)(uintptr_t)addr;
	size_t			 i;

	if (w->memfd >= 0) {
		if (pwrite(w->memfd, b, n, (off_t)addr) != (ssize_t)n)
			w->failed = true;
		return;
	}
	for (i = 0; i < n; i++)
		t[i] = b[i];
}

/*
 * By address: an LSD radix sort, a byte a pass, passes whose byte is the
 * same in every address skipped (a batch's sites share their high bytes).
 * Return: -1 if out of memory (then unsorted).
 */
static int
patch_sort(struct rb_patch *v, size_t n)
{
	struct rb_patch	*tmp, *src = v, *dst;
	size_t		 len = (n * sizeof(*v) + PAGE - 1) & ~(PAGE - 1), i;
	uint32_t	 count[256];
	uint64_t	 diff = 0;
	unsigned	 shift, b;

	for (i = 1; i < n && v[i - 1].addr <= v[i].addr; i++)
		;
	if (i >= n)
		return 0;	/* sorted already */
	for (i = 1; i < n; i++)
		diff |= v[i].addr ^ v[0].addr;
	tmp = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tmp == MAP_FAILED)
		return -1;
	dst = tmp;
	for (shift = 0; shift < 64; shift += 8) {
		struct rb_patch	*t;
		uint32_t	 sum = 0, c;

		if (((diff >> shift) & 0xff) == 0)
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i].addr >> shift) & 0xff]++;
		for (b = 0; b < 256; b++) {
			c = count[b];
			count[b] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].addr >> shift) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	munmap(tmp, len);
	return 0;
}

/* The batch's copy the trap handler reads, in the oldest of three buffers. */
static struct batch *
batch_take(const struct rb_patch *v, size_t n)
{
	struct batch	*b = &batches[batch_next];
	size_t		 need = (n * sizeof(*v) + PAGE - 1) & ~(PAGE - 1);

	if (b == trap_cur || b == trap_prev)
		return NULL;	/* cannot be: three buffers, two in view */
	if (b->mapped < need) {
		if (b->mapped != 0)
			munmap(b->v, b->mapped);
		b->mapped = 0;
		b->v = mmap(NULL, need, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b->v == MAP_FAILED) {
			b->v = NULL;
			return NULL;
		}
		b->mapped = need;
	}
	memcpy(b->v, v, n * sizeof(*v));
	b->n = n;
	batch_next = (batch_next + 1) % 3;
	return b;
}

/* Spans of pages: make them writable (@on) or put their protection back. */
static int
spans_set(struct span *sp, size_t ns, bool on, size_t *done)
{
	size_t	i;

	for (i = 0; i < ns; i++) {
		if (mprotect((void *)(uintptr_t)sp[i].lo, sp[i].hi - sp[i].lo,
		    on ? sp[i].prot | PROT_WRITE : sp[i].prot) != 0) {
			*done = i;
			return -1;
		}
	}
	*done = ns;
	return 0;
}

static uint64_t
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * rb_patch_apply - write @n sites (sorted here by address) into the text
 * @v: the sites; each must be an instruction boundary of code that stays
 *	mapped for the call (the caller holds the loader's lock)
 * @st: filled in
 * @err: why nothing was written
 *
 * Callers serialize: one batch at a time in the process.
 * Return: 0, or -1 with @err and nothing written.
 */
int
rb_patch_apply(struct rb_patch *v, size_t n, struct rb_patch_stats *st,
    char *err, size_t errlen)
{
	struct span	*sp = NULL;
	size_t		 ns = 0, spmapped = 0, mlen = 0, mmapped = 0, i, done;
	struct writer	 w = { -1, false };
	struct batch	*b;
	uint64_t	 t0, last = 0;
	uint8_t		 probe;
	const uint8_t	 int3 = INT3;
	char		*maps = NULL;
	int		 prot, ret = -1;

	memset(st, 0, sizeof(*st));
	if (n == 0)
		return 0;
	if (sync_kind == SYNC_UNKNOWN)
		sync_choose();
	if (sync_kind == SYNC_UNKNOWN) {
		snprintf(err, errlen, "no way to serialize every core: membarrier(2) refused, and mmap too");
		return -1;
	}
	if (patch_sort(v, n) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Spans of pages, each page with the protection it has now. */
	spmapped = (n * 2 * sizeof(*sp) + PAGE - 1) & ~(PAGE - 1);
	sp = mmap(NULL, spmapped, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	maps = maps_read(&mlen, &mmapped);
	if (sp == MAP_FAILED || maps == NULL) {
		snprintf(err, errlen, "out of memory, or /proc/self/maps unreadable");
		goto out;
	}
	for (i = 0; i < n; i++) {
		uint64_t	a;

		for (a = PAGE_OF(v[i].addr); a <= PAGE_OF(v[i].addr + v[i].len - 1);
		    a += PAGE) {
			if (a == last && ns > 0)
				continue;
			last = a;
			prot = maps_prot(maps, mlen, a);
			if (prot < 0 || !(prot & PROT_EXEC)) {
				snprintf(err, errlen, "site %#llx is not in mapped code",
				    (unsigned long long)v[i].addr);
				goto out;
			}
			st->pages++;
			if (ns > 0 && sp[ns - 1].hi == a && sp[ns - 1].prot == prot)
				sp[ns - 1].hi = a + PAGE;
			else {
				sp[ns].lo = a;
				sp[ns].hi = a + PAGE;
				sp[ns].prot = prot;
				ns++;
			}
		}
	}
	if (spans_set(sp, ns, true, &done) != 0) {
		int	e = errno;
		size_t	undone;

		spans_set(sp, done, false, &undone);
		w.memfd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
		/* A byte written back as it is: can this process write code? */
		if (w.memfd < 0 ||
		    pread(w.memfd, &probe, 1, (off_t)v[0].addr) != 1 ||
		    pwrite(w.memfd, &probe, 1, (off_t)v[0].addr) != 1) {
			snprintf(err, errlen,
			    "the system refuses to write code (mprotect: %s; /proc/self/mem: %s)",
			    strerror(e), strerror(errno));
			goto out;
		}
		st->via_mem = 1;
	}
	if (trap_install(err, errlen) != 0)
		goto restore;
	b = batch_take(v, n);
	if (b == NULL) {
		snprintf(err, errlen, "out of memory for the batch");
		goto restore;
	}
	t0 = now_ns();
	/* Release: the batch's sites before the pointer; pairs with the handler's acquire. */
	__atomic_store_n(&trap_prev, trap_cur, __ATOMIC_RELEASE);
	__atomic_store_n(&trap_cur, b, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++)
		text_write(&w, v[i].addr, &int3, 1);
	sync_cores(st);
	for (i = 0; i < n; i++)
		if (v[i].len > 1)
			text_write(&w, v[i].addr + 1, v[i].bytes + 1,
			    v[i].len - 1u);
	sync_cores(st);
	for (i = 0; i < n; i++)
		text_write(&w, v[i].addr, v[i].bytes, 1);
	sync_cores(st);
	/* The batch stays in view as the one before, for late traps. */
	__atomic_store_n(&trap_prev, b, __ATOMIC_RELEASE);
	__atomic_store_n(&trap_cur, NULL, __ATOMIC_RELEASE);
	st->ns = now_ns() - t0;
	if (w.failed) {
		/* Only a /proc/self/mem write can fail half way. */
		snprintf(err, errlen, "a write through /proc/self/mem failed");
		ret = -2;
	} else
		ret = 0;
restore:
	if (w.memfd >= 0)
		close(w.memfd);
	else
		spans_set(sp, ns, false, &done);
out:
	if (sp != NULL && sp != MAP_FAILED)
		munmap(sp, spmapped);
	if (maps != NULL)
		munmap(maps, mmapped);
	return ret;
}
