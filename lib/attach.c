/* SPDX-License-Identifier: MIT */
/*
 * attach.c - rbtrace -p: the library loaded into a program that is already
 * running (rbtrace(5), "ATTACH").
 *
 * A program built with -finstrument-functions calls the hooks through its
 * relocation tables, bound at start to the C library's empty versions.
 * rbtrace loads this library into the running process (dlopen() called in
 * one thread under ptrace, tools/inject.c) and calls __rbtrace_start()
 * there, which lets that thread go at once and attaches in a thread of its
 * own while the program runs: it takes its settings from the request instead of the
 * environment, sets the process up as a preloaded library would, and
 * rewrites every loaded object's GOT entries (JUMP_SLOT and GLOB_DAT) of
 * the hooks, of the API of <rbtrace/rbtrace.h> (which a program may call
 * through weak references only), and of the calls the library interposes
 * on, to its own definitions; RELRO pages are made writable for the write and read-only
 * again.  Objects loaded later through dlopen() get the same (objects.c).
 * A detach (__rbtrace_start() too) puts every entry back but those of the
 * API of <rbtrace/rbtrace.h>, which do nothing while detached, and gives
 * the threads' rings back; the library stays loaded, unused, for a later
 * attach.
 *
 * Threads that ran before the attach have frames the hooks never saw: each
 * unwinds its stack once, at its first hook (seed.c); where that falls
 * short, its stack begins with a frame of its own, RB_ATTACH_MARKER, under
 * which returns never pop (rb_thread.floor).
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "lib/dyn/dyn.h"
#include "rbtrace/rbtrace.h"

#if defined(__x86_64__)
#define RB_R_JUMP_SLOT	R_X86_64_JUMP_SLOT
#define RB_R_GLOB_DAT	R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define RB_R_JUMP_SLOT	R_AARCH64_JUMP_SLOT
#define RB_R_GLOB_DAT	R_AARCH64_GLOB_DAT
#endif

/* A request's result (rb_attach_status.ret). */
#define RB_ATTACH_OK		0
#define RB_ATTACH_ALREADY	1	/* attached, or preloaded */
#define RB_ATTACH_FAILED	2
#define RB_ATTACH_UNINSTR	3	/* nothing calls the hooks */

int rb_attached;

/*
 * Bound while attached: the hooks first (rb_attach_on() counts them), the
 * calls of -finstrument-functions and of the API that push and move
 * frames, as rbtrace -p and the launcher count them (tools/elfsym.c); the
 * rest of the API, so that a program's API calls all come here.
 */
static const char *const rb_bind_names[] = {
	"__cyg_profile_func_enter", "__cyg_profile_func_exit",
	"rbtrace_push", "rbtrace_line",
	"rbtrace_pop", "rbtrace_file",
	"__cxa_begin_catch", "longjmp", "_longjmp", "siglongjmp",
	"__longjmp_chk", "dlopen", "dlmopen", "pthread_setname_np",
};
#define RB_NBIND	(sizeof(rb_bind_names) / sizeof(rb_bind_names[0]))
#define RB_NHOOKS	4
/*
 * The API's entries, [RB_API_FIRST, RB_API_END), stay bound at a detach:
 * the library stays loaded and its API does nothing while detached,
 * whereas an entry put back to what it held (0 for a weak reference) may
 * be called by a thread that tested it an instant before.
 */
#define RB_API_FIRST	2
#define RB_API_END	6

/* One GOT entry rewritten: where, what it held, in which object. */
struct rb_bind {
	uintptr_t	*slot;
	uintptr_t	old;
	uintptr_t	base;
	const void	*dyn;
};

static pthread_mutex_t rb_attach_lock = PTHREAD_MUTEX_INITIALIZER;
static void *rb_bind_to[RB_NBIND];	/* our definitions */
static uintptr_t rb_self_base;
static struct rb_bind *rb_binds;
static size_t rb_nbinds, rb_capbinds;
static pid_t *rb_tids;			/* threads at the attach, sorted */
static size_t rb_ntids;

/* The request's settings: "NAME=VALUE" strings, each NUL-terminated, then "". */
static char rb_spec[8192];

const char *rb_attach_getenv(const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = rb_spec; *p != '\0'; p += strlen(p) + 1)
		if (strncmp(p, name, n) == 0 && p[n] == '=')
			return p + n + 1;
	return NULL;
}

/* Keep @spec's lines as rb_spec's strings.  Return: false if too long. */
static bool rb_spec_set(const char *spec)
{
	size_t n = strlen(spec), i;

	if (n + 2 > sizeof(rb_spec))
		return false;
	for (i = 0; i < n; i++)
		rb_spec[i] = spec[i] == '\n' ? '\0' : spec[i];
	rb_spec[n] = '\0';
	rb_spec[n + 1] = '\0';
	return true;
}

/* Our own definitions, looked up in this object first (not the global scope). */
static bool rb_attach_self(void)
{
	Dl_info info;
	void *h;
	size_t i;

	if (rb_bind_to[0] != NULL)
		return true;
	if (dladdr((void *)rb_attach_self, &info) == 0 || info.dli_fname == NULL)
		return false;
	h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (h == NULL)
		return false;
	for (i = 0; i < RB_NBIND; i++)
		rb_bind_to[i] = dlsym(h, rb_bind_names[i]);
	rb_self_base = (uintptr_t)info.dli_fbase;
	/* The reference dlopen() took stays: this library is never unloaded. */
	return rb_bind_to[0] != NULL && rb_bind_to[1] != NULL;
}

/**
 * rb_attach_real - the program's own definition of a function this
 * library interposes on, for an attached library that has no "next" one
 * Return: it, or NULL (never this library's).
 */
void *rb_attach_real(const char *name)
{
	Dl_info info;
	void *p = dlsym(RTLD_DEFAULT, name);

	if (p != NULL && dladdr(p, &info) != 0 &&
	    (uintptr_t)info.dli_fbase == rb_self_base)
		return NULL;
	return p;
}

static int rb_tid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The threads running now; their stacks began before the attach. */
void rb_attach_tids(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	size_t cap = 0;
	pid_t *v;

	rb_ntids = 0;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		long tid = strtol(e->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		if (rb_ntids == cap) {
			cap = cap ? cap * 2 : 64;
			v = realloc(rb_tids, cap * sizeof(*v));
			if (v == NULL)
				break;
			rb_tids = v;
		}
		rb_tids[rb_ntids++] = (pid_t)tid;
	}
	closedir(d);
	qsort(rb_tids, rb_ntids, sizeof(*rb_tids), rb_tid_cmp);
}

/* A fork child's thread whose parent thread ran before the attach. */
static pid_t rb_forked_tid;

/**
 * rb_attach_forked - in a fork child: the forking thread @parent had no
 * ring; if it ran before the attach, this process's thread did too
 */
void rb_attach_forked(pid_t parent)
{
	rb_forked_tid = rb_attach_predates(parent) ? getpid() : 0;
}

/**
 * rb_attach_predates - did thread @tid run before the attach?
 */
bool rb_attach_predates(pid_t tid)
{
	if (tid == rb_forked_tid)
		return true;
	return rb_ntids != 0 &&
	       bsearch(&tid, rb_tids, rb_ntids, sizeof(*rb_tids),
		       rb_tid_cmp) != NULL;
}

#define RB_BIND_COUNT	0	/* count the entries only */
#define RB_BIND_ON	1
#define RB_BIND_OFF	2

struct rb_bind_ctx {
	int		mode;
	size_t		count[RB_NBIND];
	size_t		objects;	/* objects with an entry */
	bool		failed;
};

/* A dynamic entry's address: relocated by the loader, or still relative. */
static uintptr_t rb_dyn_addr(uintptr_t base, uintptr_t v)
{
	return v < base ? base + v : v;
}

static size_t rb_bind_find(uintptr_t *slot, uintptr_t base, const void *dyn)
{
	size_t i;

	for (i = 0; i < rb_nbinds; i++)
		if (rb_binds[i].slot == slot && rb_binds[i].base == base &&
		    rb_binds[i].dyn == dyn)
			return i;
	return (size_t)-1;
}

/*
 * Write @val into @slot; a slot in the object's RELRO pages [@lo, @hi)
 * (whole pages, as the loader protects them) is made writable for it.
 * A word-sized aligned store: a thread calling through it meanwhile takes
 * the old target or the new one.
 */
static bool rb_slot_write(uintptr_t *slot, uintptr_t val, uintptr_t lo,
			  uintptr_t hi)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t page = (uintptr_t)slot & ~((uintptr_t)psz - 1);
	bool ro = (uintptr_t)slot >= lo && (uintptr_t)slot < hi;

	if (ro && mprotect((void *)page, psz, PROT_READ | PROT_WRITE) != 0)
		return false;
	__atomic_store_n(slot, val, __ATOMIC_RELAXED);
	if (ro && mprotect((void *)page, psz, PROT_READ) != 0)
		return false;
	return true;
}

static void rb_bind_one(struct rb_bind_ctx *c, size_t which, uintptr_t *slot,
			uintptr_t base, const void *dyn, uintptr_t lo,
			uintptr_t hi)
{
	uintptr_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
	uintptr_t mine = (uintptr_t)rb_bind_to[which];
	size_t i;

	if (mine == 0)
		return;
	c->count[which]++;
	if (c->mode == RB_BIND_ON && cur != mine) {
		struct rb_bind *v;

		if (rb_nbinds == rb_capbinds) {
			size_t cap = rb_capbinds ? rb_capbinds * 2 : 64;

			v = realloc(rb_binds, cap * sizeof(*v));
			if (v == NULL) {
				c->failed = true;
				return;
			}
			rb_binds = v;
			rb_capbinds = cap;
		}
		if (!rb_slot_write(slot, mine, lo, hi)) {
			c->failed = true;
			return;
		}
		rb_binds[rb_nbinds++] = (struct rb_bind){ slot, cur, base, dyn };
	} else if (c->mode == RB_BIND_OFF && cur == mine &&
		   (which < RB_API_FIRST || which >= RB_API_END)) {
		void *real;

		i = rb_bind_find(slot, base, dyn);
		if (i != (size_t)-1) {
			if (!rb_slot_write(slot, rb_binds[i].old, lo, hi))
				c->failed = true;
			return;
		}
		/* Not written by us (a copy of a rewritten table): the real one. */
		real = rb_attach_real(rb_bind_names[which]);
		if (real == NULL || !rb_slot_write(slot, (uintptr_t)real, lo, hi))
			c->failed = true;
	}
}

static size_t rb_bind_which(const char *name)
{
	size_t i;

	for (i = 0; i < RB_NBIND; i++)
		if (strcmp(name, rb_bind_names[i]) == 0)
			return i;
	return (size_t)-1;
}

static void rb_bind_relocs(struct rb_bind_ctx *c, uintptr_t base,
			   const void *dyn, const ElfW(Rela) *rel, size_t n,
			   const ElfW(Sym) *sym, const char *str, size_t strsz,
			   uintptr_t lo, uintptr_t hi, size_t *hits,
			   size_t *hooks)
{
	size_t i, which;

	for (i = 0; i < n; i++) {
		uint32_t type = (uint32_t)ELF64_R_TYPE(rel[i].r_info);
		size_t si = ELF64_R_SYM(rel[i].r_info);

		if ((type != RB_R_JUMP_SLOT && type != RB_R_GLOB_DAT) || si == 0)
			continue;
		if (sym[si].st_name >= strsz)
			continue;
		which = rb_bind_which(str + sym[si].st_name);
		if (which == (size_t)-1)
			continue;
		(*hits)++;
		if (which < RB_NHOOKS)
			(*hooks)++;
		rb_bind_one(c, which, (uintptr_t *)(base + rel[i].r_offset),
			    base, dyn, lo, hi);
	}
}

static int rb_bind_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct rb_bind_ctx *c = arg;
	uintptr_t base = info->dlpi_addr, lo = 0, hi = 0, v;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), strsz = 0, hits = 0;
	size_t relsz = 0, pltsz = 0, hooks = 0;
	const ElfW(Phdr) *ph = info->dlpi_phdr;
	const ElfW(Dyn) *dyn = NULL, *d;
	const ElfW(Rela) *rela = NULL, *jmprel = NULL;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL, *slash;
	ElfW(Sxword) pltrel = DT_RELA;
	int i;

	(void)size;
	if (base == rb_self_base)
		return 0;
	slash = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	/* The expression module is ours too; the vDSO has nothing to bind. */
	if (slash != NULL && strncmp(slash + 1, "rbtrace-watch", 13) == 0)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(base + ph[i].p_vaddr);
		else if (ph[i].p_type == PT_GNU_RELRO) {
			lo = (base + ph[i].p_vaddr) & ~(psz - 1);
			hi = (base + ph[i].p_vaddr + ph[i].p_memsz) & ~(psz - 1);
		}
	}
	if (dyn == NULL)
		return 0;
	for (d = dyn; d->d_tag != DT_NULL; d++) {
		v = (uintptr_t)d->d_un.d_ptr;
		switch (d->d_tag) {
		case DT_SYMTAB:
			sym = (const ElfW(Sym) *)rb_dyn_addr(base, v);
			break;
		case DT_STRTAB:
			str = (const char *)rb_dyn_addr(base, v);
			break;
		case DT_STRSZ:
			strsz = (size_t)d->d_un.d_val;
			break;
		case DT_RELA:
			rela = (const ElfW(Rela) *)rb_dyn_addr(base, v);
			break;
		case DT_RELASZ:
			relsz = (size_t)d->d_un.d_val;
			break;
		case DT_JMPREL:
			jmprel = (const ElfW(Rela) *)rb_dyn_addr(base, v);
			break;
		case DT_PLTRELSZ:
			pltsz = (size_t)d->d_un.d_val;
			break;
		case DT_PLTREL:
			pltrel = d->d_un.d_val;
			break;
		}
	}
	if (sym == NULL || str == NULL || pltrel != DT_RELA)
		return 0;
	if (rela != NULL)
		rb_bind_relocs(c, base, dyn, rela, relsz / sizeof(*rela), sym,
			       str, strsz, lo, hi, &hits, &hooks);
	if (jmprel != NULL)
		rb_bind_relocs(c, base, dyn, jmprel, pltsz / sizeof(*jmprel),
			       sym, str, strsz, lo, hi, &hits, &hooks);
	if (hits != 0)
		c->objects++;
	/* Its frames are those a thread's stack, unwound, keeps (seed.c). */
	if (hooks != 0 && c->mode == RB_BIND_ON)
		rb_seed_object(info);
	return 0;
}

/* The hooks' entries a pass saw. */
static size_t rb_bind_hooks(const struct rb_bind_ctx *c)
{
	size_t i, n = 0;

	for (i = 0; i < RB_NHOOKS; i++)
		n += c->count[i];
	return n;
}

static void rb_bind_all(struct rb_bind_ctx *c, int mode)
{
	memset(c, 0, sizeof(*c));
	c->mode = mode;
	dl_iterate_phdr(rb_bind_object, c);
	if (mode == RB_BIND_OFF)
		rb_nbinds = 0;
}

/*
 * fork() while another thread attaches or detaches: the child must not
 * inherit the lock held (init.c's fork handlers, before their own locks).
 */
void rb_attach_fork_lock(void)
{
	pthread_mutex_lock(&rb_attach_lock);
}

void rb_attach_fork_unlock(void)
{
	pthread_mutex_unlock(&rb_attach_lock);
}

/**
 * rb_attach_rebind - bind the objects a dlopen() just loaded
 */
void rb_attach_rebind(void)
{
	struct rb_bind_ctx c;

	pthread_mutex_lock(&rb_attach_lock);
	if (rb_attach_state() == RB_ATT_ON)
		rb_bind_all(&c, RB_BIND_ON);
	pthread_mutex_unlock(&rb_attach_lock);
}

/* Is this library in the global scope ahead of the C library: preloaded or linked? */
static int rb_dyn_reply(const char *req, char *msg, size_t msglen);

static bool rb_attach_preloaded(void)
{
	return dlsym(RTLD_DEFAULT, rb_bind_names[0]) == rb_bind_to[0];
}

static int rb_attach_on(const char *spec, char *msg, size_t msglen)
{
	struct rb_bind_ctx c;
	const char *file;
	int prev = rb_attach_state();
	bool seeds;
	size_t n;

	if (!rb_attach_self()) {
		rb_warn("cannot find librbtrace's own hooks in the process");
		return RB_ATTACH_FAILED;
	}
	if (rb_attach_state() == RB_ATT_ON) {
		rb_warnf("already attached: tracing into %s", rb_proc.map.path);
		return RB_ATTACH_ALREADY;
	}
	if (rb_attach_state() == RB_ATT_NONE && rb_attach_preloaded()) {
		/* Asleep (rbtrace --dormant): woken (rbtrace(5), "DYNAMIC TRACING"). */
		if (rbtrace_file() != NULL && rb_dyn_asleep()) {
			rb_seed_init();
			return rb_dyn_reply("wake", msg, msglen);
		}
		if (rbtrace_file() != NULL)
			rb_warnf("already traced: librbtrace was loaded at start; tracing into %s",
				 rb_proc.map.path);
		else
			rb_warn("already traced: librbtrace was loaded at start (LD_PRELOAD or linked)");
		return RB_ATTACH_ALREADY;
	}
	rb_bind_all(&c, RB_BIND_COUNT);
	if (rb_bind_hooks(&c) == 0) {
		rb_warn("no loaded object calls __cyg_profile_func_enter or _exit, "
			"or rbtrace_push or rbtrace_line: "
			"the program is not built with -finstrument-functions");
		return RB_ATTACH_UNINSTR;
	}
	/* Before rb_attached is set: its dlopen() must not rebind under our lock. */
	seeds = rb_seed_init();
	if (!rb_spec_set(spec)) {
		rb_warn("the attach request is too long");
		return RB_ATTACH_FAILED;
	}
	/* Release: a thread that sees ON sees the detach before it done (thread.c). */
	__atomic_store_n(&rb_attached, RB_ATT_ON, __ATOMIC_RELEASE);
	switch (atomic_load_explicit(&rb_proc.init, memory_order_acquire)) {
	case RB_INIT_NONE:
		if (!rb_process_init()) {
			__atomic_store_n(&rb_attached, prev, __ATOMIC_RELEASE);
			return RB_ATTACH_FAILED;
		}
		break;
	case RB_INIT_DONE:
		/* Attached before: the file it made stays this process's. */
		file = rb_attach_getenv("RBTRACE_FILE");
		if (file != NULL && strcmp(file, rb_proc.map.path) != 0) {
			rb_warnf("this process traces into %s since it was first attached; "
				 "attach without --file, or with that file",
				 rb_proc.map.path);
			__atomic_store_n(&rb_attached, prev, __ATOMIC_RELEASE);
			return RB_ATTACH_FAILED;
		}
		break;
	default:
		rb_warn("tracing could not be set up in this process before");
		__atomic_store_n(&rb_attached, prev, __ATOMIC_RELEASE);
		return RB_ATTACH_FAILED;
	}
	rb_attach_tids();
	rb_bind_all(&c, RB_BIND_ON);
	if (c.failed) {
		rb_bind_all(&c, RB_BIND_OFF);
		__atomic_store_n(&rb_attached, RB_ATT_OFF, __ATOMIC_RELEASE);
		rb_warn("cannot rewrite the program's relocation entries (mprotect refused)");
		return RB_ATTACH_FAILED;
	}
	n = rb_bind_hooks(&c);
	snprintf(msg, msglen, "%s\n%zu object%s the hooks (%zu entr%s)%s",
		 rb_proc.map.path, c.objects, c.objects == 1 ? " calls" :
		 "s call", n, n == 1 ? "y" : "ies",
		 seeds ? "" : "; no unwinder (libgcc_s.so.1): the frames threads "
			      "had entered before show as one");
	return RB_ATTACH_OK;
}

/*
 * The request under way, for __rbtrace_start(): rbtrace reads it from
 * outside (/proc/PID/mem) until done is set, without stopping anything.
 * Its layout is rbtrace's too (tools/attach.c).
 */
struct rb_attach_status {
	int32_t		done;		/* 1: ret and msg are final */
	int32_t		ret;		/* RB_ATTACH_* */
	char		msg[2048];
};

static struct rb_attach_status rb_status;
static int rb_status_busy;		/* a request's thread runs */
static pid_t rb_status_tid;		/* the latest request's thread */
static char rb_status_spec[sizeof(rb_spec)];
static int (*rb_status_fn)(const char *spec, char *msg, size_t msglen);

static int rb_attach_off(const char *spec, char *msg, size_t msglen);
static int rb_seed_request(const char *req, char *msg, size_t msglen);

/*
 * A dynamic tracing request (rbtrace(5), "DYNAMIC TRACING"); the reply is
 * the trace file, then what was done.
 */
static int rb_dyn_reply(const char *req, char *msg, size_t msglen)
{
	size_t n;

	snprintf(msg, msglen, "%s\n", rb_proc.map.path);
	n = strlen(msg);
	if (rb_dyn_request(req, msg + n, msglen - n) != 0) {
		/* The error alone: rb_warn()'s capture takes the whole reply. */
		memmove(msg, msg + n, strlen(msg + n) + 1);
		return RB_ATTACH_FAILED;
	}
	return RB_ATTACH_OK;
}

/* "dyn\n" then the lines of a request (rbtrace -p PID --exclude ...). */
static int rb_dyn_job(const char *spec, char *msg, size_t msglen)
{
	if (atomic_load_explicit(&rb_proc.init, memory_order_acquire) !=
	    RB_INIT_DONE) {
		rb_warn("not traced: librbtrace is loaded but was never set up here");
		return RB_ATTACH_FAILED;
	}
	return rb_dyn_reply(spec, msg, msglen);
}

static int rb_attach_job(int (*fn)(const char *, char *, size_t),
			 const char *spec, char *msg, size_t msglen)
{
	int ret;

	pthread_mutex_lock(&rb_attach_lock);
	rb_warn_capture(msg, msglen);
	ret = fn(spec, msg, msglen);
	rb_warn_capture(NULL, 0);
	pthread_mutex_unlock(&rb_attach_lock);
	return ret;
}

/*
 * The thread rbtrace stopped has left __rbtrace_start() (it is held until
 * rbtrace lets it go, microseconds later).  A request's thread begins only
 * then, or after RB_STATUS_LEFT_NS: the scheduler may run a thread just
 * created ahead of its creator on the same core, and the request's work
 * (a batch of sites patched, a detach's wait) would hold the stopped
 * thread that long.  Timed sleeps, not a wake-up by that thread, for the
 * same reason.
 */
#define RB_STATUS_LEFT_NS	20000000ull
static int rb_status_left;

static void rb_status_wait_left(void)
{
	struct timespec ts = { 0, 20000 };
	unsigned i;

	for (i = 0; i < RB_STATUS_LEFT_NS / 20000u; i++) {
		if (__atomic_load_n(&rb_status_left, __ATOMIC_ACQUIRE))
			return;
		nanosleep(&ts, NULL);
	}
}

static void *rb_status_main(void *arg)
{
	int ret;

	(void)arg;
	rb_status_wait_left();
	/* Relaxed: read by the seed request rbtrace sends after the reply. */
	__atomic_store_n(&rb_status_tid, rb_gettid(), __ATOMIC_RELAXED);
	ret = rb_attach_job(rb_status_fn, rb_status_spec, rb_status.msg,
			    sizeof(rb_status.msg));
	__atomic_store_n(&rb_status.ret, ret, __ATOMIC_RELAXED);
	/* The reply before done; rbtrace reads done first. */
	__atomic_store_n(&rb_status.done, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&rb_status_busy, 0, __ATOMIC_RELEASE);
	return NULL;
}

static int rb_attach_on_spec(const char *spec, char *msg, size_t msglen)
{
	return rb_attach_on(spec != NULL ? spec : "", msg, msglen);
}

/**
 * __rbtrace_start - begin an attach or a detach in a thread of its own and
 * return at once (rbtrace -p, rbtrace -p --detach)
 * @req: "attach\n" then the settings, "RBTRACE_FILE=..." lines as in the
 *	 environment, or "detach\n"; or "seed\n" then the registers of the
 *	 threads rbtrace holds stopped, done at once (rb_seed_request())
 * @msg, @msglen: the address of the status block, "0x..." (rbtrace reads
 *	 it from outside until its done is set), or why nothing started; a
 *	 seed request's reply
 *
 * Called by rbtrace, in the one thread it stopped: that thread goes on at
 * once, and the work of the request (the file, the unwinder, the
 * relocations, a detach's wait for hooks under way) is done while the
 * program runs.  The thread blocks every signal: the program's go to its
 * own threads.  Without a thread to be had, the request is done here.
 *
 * Return: 0 started (or done), RB_ATTACH_FAILED nothing started.
 */
int __rbtrace_start(const char *req, char *msg, size_t msglen)
	__attribute__((visibility("default")));
int __rbtrace_start(const char *req, char *msg, size_t msglen)
{
	sigset_t all, old;
	pthread_t th;
	size_t n;
	int err;

	int (*fn)(const char *, char *, size_t);
	const char *body;

	if (strncmp(req, "seed\n", 5) == 0)
		return rb_seed_request(req + 5, msg, msglen);
	if (strncmp(req, "attach\n", 7) == 0)
		fn = rb_attach_on_spec;
	else if (strcmp(req, "detach\n") == 0)
		fn = rb_attach_off;
	else if (strncmp(req, "dyn\n", 4) == 0)
		fn = rb_dyn_job;
	else {
		snprintf(msg, msglen, "unknown request");
		return RB_ATTACH_FAILED;
	}
	body = req + strcspn(req, "\n") + 1;
	n = strlen(body);
	if (n >= sizeof(rb_status_spec)) {
		snprintf(msg, msglen, "the attach request is too long");
		return RB_ATTACH_FAILED;
	}
	if (__atomic_exchange_n(&rb_status_busy, 1, __ATOMIC_ACQUIRE) != 0) {
		snprintf(msg, msglen, "another attach or detach is under way");
		return RB_ATTACH_FAILED;
	}
	rb_status_fn = fn;
	memcpy(rb_status_spec, body, n + 1);
	memset(&rb_status, 0, sizeof(rb_status));
	snprintf(msg, msglen, "%p", (void *)&rb_status);
	__atomic_store_n(&rb_status_left, 0, __ATOMIC_RELAXED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&th, NULL, rb_status_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err == 0)
		pthread_detach(th);
	__atomic_store_n(&rb_status_left, 1, __ATOMIC_RELEASE);
	if (err != 0)
		rb_status_main(NULL);
	return 0;
}

static int rb_attach_off(const char *spec, char *msg, size_t msglen)
{
	struct rb_bind_ctx c;
	uint32_t released, kept;
	bool fenced;
	size_t n;

	(void)spec;
	if (rb_attach_state() != RB_ATT_ON) {
		/* Loaded at start: put to sleep (rbtrace(5), "DYNAMIC TRACING"). */
		if (rb_attach_state() == RB_ATT_NONE && rb_attach_self() &&
		    rb_attach_preloaded() && rbtrace_file() != NULL) {
			if (rb_dyn_asleep()) {
				rb_warn("asleep already");
				return RB_ATTACH_ALREADY;
			}
			return rb_dyn_reply("sleep", msg, msglen);
		}
		if (rb_attach_state() == RB_ATT_NONE && rb_attach_self() &&
		    rb_attach_preloaded())
			rb_warn("librbtrace was loaded at start, not attached: it cannot be detached");
		else
			rb_warn("not attached");
		return RB_ATTACH_ALREADY;
	}
	rb_bind_all(&c, RB_BIND_OFF);
	/*
	 * Before the threads' table is taken (thread.c): a thread that claims
	 * a ring after that sees OFF and gives it back.  Hooks entered
	 * through the entries just put back are the table's handshake's.
	 */
	__atomic_store_n(&rb_attached, RB_ATT_OFF, __ATOMIC_RELEASE);
	released = rb_thread_release_all(1000000000ull, &kept, &fenced);
	released += rb_seed_release_all();
	n = c.count[0] + c.count[1];
	snprintf(msg, msglen, "%s\n%zu entr%s restored, %u ring%s given back%s",
		 rb_proc.map.path, n, n == 1 ? "y" : "ies", released,
		 released == 1 ? "" : "s",
		 kept == 0 ? "" : !fenced ?
		 "; membarrier(2) is refused here: threads keep their rings until they exit" :
		 "; threads stopped keep theirs until they go on");
	return c.failed ? RB_ATTACH_FAILED : RB_ATTACH_OK;
}

/* A number of a seed request, in hex. */
static bool rb_seed_hex(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d, n = 0;

	while (*s == ' ')
		s++;
	for (;; s++, n++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			break;
		if (n == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*p = s;
	*out = v;
	return n > 0;
}

/*
 * A seed request (__rbtrace_start()): give the threads that have no ring
 * one, seeded with the frames they are in (seed.c).
 * @req: a line per thread: its tid, then rip rsp rbp rbx r12 r13 r14 r15
 *	 as it is stopped, in hex, space-separated
 * @msg, @msglen: "W P N H F": threads seeded whole, in part, with the
 *	 before-attach frame alone, that had a ring, that found none free
 *
 * Done at once, in the thread called: rbtrace holds every other thread of
 * the process stopped under ptrace meanwhile, so it takes no lock and
 * allocates nothing with malloc(), as a stopped thread may hold any.
 *
 * Return: 0, or RB_ATTACH_FAILED if not attached (nothing done).
 */
static int rb_seed_request(const char *req, char *msg, size_t msglen)
{
	unsigned count[RB_SEED_NORING + 1] = { 0 };
	uint64_t tid, reg[RB_SEED_NREGS];
	const char *p = req;
	int i;

	if ((rb_attach_state() != RB_ATT_ON && !rb_dyn_woken()) ||
	    atomic_load_explicit(&rb_proc.init, memory_order_acquire) !=
	    RB_INIT_DONE) {
		snprintf(msg, msglen, "not attached");
		return RB_ATTACH_FAILED;
	}
	while (*p != '\0') {
		bool ok = rb_seed_hex(&p, &tid);

		for (i = 0; ok && i < RB_SEED_NREGS; i++)
			ok = rb_seed_hex(&p, &reg[i]);
		/*
		 * The library's own threads get no ring: the one that did
		 * the attach may not have exited yet, the watch worker.
		 */
		if (ok && tid > 0 && tid <= INT32_MAX &&
		    (pid_t)tid != __atomic_load_n(&rb_status_tid, __ATOMIC_RELAXED) &&
		    (pid_t)tid != rb_watch_tid() && (pid_t)tid != rb_dyn_tid())
			count[rb_seed_thread((pid_t)tid, reg)]++;
		p += strcspn(p, "\n");
		if (*p == '\n')
			p++;
	}
	snprintf(msg, msglen, "%u %u %u %u %u", count[RB_SEED_WHOLE],
		 count[RB_SEED_PART], count[RB_SEED_NONE], count[RB_SEED_HAS],
		 count[RB_SEED_NORING]);
	return 0;
}
