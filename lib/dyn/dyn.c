/* SPDX-License-Identifier: MIT */
/*
 * dyn.c - dynamic tracing: which functions' sites are off, and why, in
 * this process (rbtrace(5), "DYNAMIC TRACING").
 *
 * Every object that calls the hooks gets a site table (sites.c, cached
 * per build id); each site is tied to the function it reports (this_fn,
 * at run time).  A function is off while the process is asleep
 * (RBTRACE_DORMANT, rbtrace --detach), or while a reason holds: excluded
 * by name (RBTRACE_EXCLUDE, rbtrace -p --exclude, a monitor's DYN
 * command) or automatically (RBTRACE_AUTO_EXCLUDE).  Its sites are then
 * a no-op of their length (a tail call: a return and no-ops), and the call
 * they were otherwise; nothing else is ever left in the text.
 *
 * Every change is made the same way, under dyn_lock: the objects loaded
 * now are listed inside dl_iterate_phdr(), which holds the loader's lock,
 * so that none is unloaded until the batch is written: an object
 * unloaded before is never written again.  The sites whose state is not
 * the one wanted make one batch (patch.c).  Then the process's entry in
 * the trace file (struct rb_dynproc) shows the counts and the functions
 * off.
 *
 * Frames stay true (hooks.c): an exit whose entry was a no-op is ignored,
 * an entry whose exit is a no-op is dropped by the stack-pointer rule.  A
 * process put to sleep gives its threads' rings back, as a detach does;
 * woken, the threads that ran meanwhile unwind their stacks at their first
 * hook (seed.c), as after an attach.
 *
 * Nothing here runs in a hook: requests from a hook (a monitor's DYN
 * command) are queued for the worker thread (rb_dyn_post()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "common/futex.h"
#include "lib/internal.h"
#include "common/namematch.h"
#include "lib/dyn/dyn.h"
#include "lib/dyn/names.h"
#include "lib/dyn/patch.h"
#include "lib/dyn/sites.h"
#include "lib/dyn/x86len.h"

#define DYN_MAX_OBJS		1024
#define DYN_PIN			0x80u	/* switched on by name: never automatic */
#define DYN_OFF_BITS		(RB_DYN_BY_NAME | RB_DYN_BY_AUTO)
#define DYN_REQ_MAX		8192
#define DYN_PATS_MAX		(1u << 20)
#define AUTO_ROUND_NS		(20 * 1000000ull)	/* between automatic rounds */
#define AUTO_IDLE_ROUNDS	10

/* One loaded object as the tables know it. */
struct dobj {
	uintptr_t	 bias;
	const void	*phdr;		/* with bias, its identity while loaded */
	unsigned	 phnum;
	bool		 present;	/* seen in the latest listing */
	bool		 gone;		/* unloaded: never written again */
	bool		 scanned;	/* table built (maybe empty) */
	struct rb_sites	 t;
	uint64_t	*fn;		/* per site: this_fn at run time, 0 unknown */
	uint8_t		*orig;		/* per site: its original bytes */
	uint8_t		*off;		/* per site: 1 if the text is the no-op */
	uint32_t	 nfuncs;	/* distinct functions of its sites */
	size_t		 mapped;
	char		 name[128];
};

/* The functions with a reason, by address: open addressing. */
struct fnmap {
	uint64_t	*key;		/* 0: empty */
	uint8_t		*val;		/* RB_DYN_BY_*, DYN_PIN */
	size_t		 cap, n;	/* cap a power of two */
};

static pthread_mutex_t	 dyn_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dobj	*objs;
static size_t		 nobjs;
static struct fnmap	 fns;
static int		 dyn_used;	/* tables built: a sync may be due */
static int		 dyn_dormant;	/* wanted: every site off */
static int		 dyn_asleep;	/* read by thread.c (rb_dyn_asleep()) */
static int		 dyn_woken;	/* woken: threads seed their stacks */
static int		 dyn_refused;
static char		 dyn_why[RB_DYN_WHY_MAX];
static uint64_t		 dyn_batches, dyn_pages, dyn_last_ns;
static struct rb_dynproc *dyn_entry;	/* this process's, or NULL */
static char		*dyn_patterns;	/* every exclude/include line, in order,
					   for objects loaded later */
static size_t		 dyn_plen, dyn_pcap;
static uintptr_t	 dyn_self_base;	/* librbtrace: never scanned */

/* ------------------------------------------------------------------
 * Memory: mmap'ed, never malloc'ed (see sites.c).
 */

static void *
dyn_map(size_t len)
{
	void	*p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static size_t
dyn_round(size_t n)
{
	return (n + 4095) & ~(size_t)4095;
}

/* ------------------------------------------------------------------
 * The function map.
 */

static size_t
fn_hash(uint64_t a, size_t cap)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	a ^= a >> 33;
	return (size_t)a & (cap - 1);
}

static int
fn_grow(void)
{
	struct fnmap	 m;
	size_t		 i, j;

	m.cap = fns.cap ? fns.cap * 2 : 1024;
	m.n = 0;
	m.key = dyn_map(dyn_round(m.cap * sizeof(uint64_t)));
	m.val = dyn_map(dyn_round(m.cap));
	if (m.key == NULL || m.val == NULL) {
		if (m.key != NULL)
			munmap(m.key, dyn_round(m.cap * sizeof(uint64_t)));
		if (m.val != NULL)
			munmap(m.val, dyn_round(m.cap));
		return -1;
	}
	for (i = 0; i < fns.cap; i++) {
		if (fns.key[i] == 0)
			continue;
		for (j = fn_hash(fns.key[i], m.cap); m.key[j] != 0;
		    j = (j + 1) & (m.cap - 1))
			;
		m.key[j] = fns.key[i];
		m.val[j] = fns.val[i];
		m.n++;
	}
	if (fns.cap != 0) {
		munmap(fns.key, dyn_round(fns.cap * sizeof(uint64_t)));
		munmap(fns.val, dyn_round(fns.cap));
	}
	fns = m;
	return 0;
}

/* The reasons of @fn (0 if none). */
static uint8_t
fn_get(uint64_t fn)
{
	size_t	j;

	if (fns.cap == 0 || fn == 0)
		return 0;
	for (j = fn_hash(fn, fns.cap); fns.key[j] != 0;
	    j = (j + 1) & (fns.cap - 1))
		if (fns.key[j] == fn)
			return fns.val[j];
	return 0;
}

static int
fn_set(uint64_t fn, uint8_t val)
{
	size_t	j;

	if (fn == 0)
		return -1;
	if ((fns.n + 1) * 2 > fns.cap && fn_grow() != 0)
		return -1;
	for (j = fn_hash(fn, fns.cap); fns.key[j] != 0;
	    j = (j + 1) & (fns.cap - 1))
		if (fns.key[j] == fn) {
			fns.val[j] = val;
			return 0;
		}
	fns.key[j] = fn;
	fns.val[j] = val;
	fns.n++;
	return 0;
}

/* ------------------------------------------------------------------
 * Objects and their tables.
 */

/* Does any object's table have a site of @fn? */
static bool
fn_has_sites(uint64_t fn)
{
	size_t	i, k;

	for (i = 0; i < nobjs; i++) {
		const struct dobj *o = &objs[i];

		if (o->gone)
			continue;
		for (k = 0; k < o->t.n; k++)
			if (o->fn[k] == fn)
				return true;
	}
	return false;
}

/* This object's site @k: the function it reports at run time. */
static uint64_t
site_fn(const struct dobj *o, const struct rb_site *s)
{
	uint64_t	v;

	if (s->this_fn == RB_SITE_FN_UNKNOWN)
		return 0;
	if (s->flags & RB_SITE_FN_SLOT) {
		/* A GOT slot in RELRO, relocated by now. */
		memcpy(&v, (const void *)(uintptr_t)(s->this_fn + o->bias),
		    sizeof(v));
		return v;
	}
	return s->this_fn + o->bias;
}

static int
dyn_obj_arrays(struct dobj *o)
{
	size_t	n = o->t.n, len;
	char	*p;

	len = dyn_round(n * (sizeof(uint64_t) + RB_PATCH_MAX_LEN + 1));
	if (n == 0)
		return 0;
	p = dyn_map(len);
	if (p == NULL)
		return -1;
	o->fn = (uint64_t *)(void *)p;
	o->orig = (uint8_t *)(p + n * sizeof(uint64_t));
	o->off = o->orig + n * RB_PATCH_MAX_LEN;
	o->mapped = len;
	return 0;
}

/* Build @o's table and read its sites' original bytes. */
static void
dyn_obj_scan(struct dobj *o, const struct dl_phdr_info *info)
{
	struct rb_sites_obj	 so;
	size_t			 k;
	int			 err;

	o->scanned = true;
	memset(&so, 0, sizeof(so));
	so.bias = info->dlpi_addr;
	so.phdr = info->dlpi_phdr;
	so.phnum = info->dlpi_phnum;
	err = rb_sites_get(&so, NULL, &o->t);
	if (err != 0) {
		memset(&o->t, 0, sizeof(o->t));
		return;
	}
	if (o->t.n == 0 || dyn_obj_arrays(o) != 0) {
		rb_sites_free(&o->t);
		memset(&o->t, 0, sizeof(o->t));
		return;
	}
	for (k = 0; k < o->t.n; k++) {
		const struct rb_site *s = &o->t.v[k];

		o->fn[k] = site_fn(o, s);
		/* Sorted by this_fn: a function's sites are together. */
		if (k == 0 || s->this_fn != o->t.v[k - 1].this_fn)
			o->nfuncs++;
		memcpy(o->orig + k * RB_PATCH_MAX_LEN,
		    (const void *)(uintptr_t)(s->addr + o->bias), s->len);
	}
	if (o->t.nfail != 0)
		rb_warnf("rbtrace: %s: %u code range%s could not be decoded; "
		    "their sites stay as they are", o->name, o->t.nfail,
		    o->t.nfail == 1 ? "" : "s");
}

struct listing {
	bool	verify;	/* an object was unloaded since the last listing */
};

static unsigned long long dyn_subs;	/* dlpi_subs at the last listing */

/*
 * Is @o, loaded where the object @info of the listing is, still that
 * object?  After an unload, another object (or the same one loaded again,
 * its text fresh from the file) may be where it was: the same file, and
 * every site must be in its text and hold its original bytes or the no-op
 * written there.
 * Then each site's state is what the text holds.
 */
/* Are @len bytes at link address @addr in an executable segment of @info? */
static bool
dyn_in_text(const struct dl_phdr_info *info, uint64_t addr, unsigned len)
{
	const ElfW(Phdr)	*ph;
	unsigned		 i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    addr >= ph->p_vaddr &&
		    addr + len <= ph->p_vaddr + ph->p_memsz)
			return true;
	}
	return false;
}

/*
 * The bytes of site @s switched off (a no-op of its length; a tail call a
 * return and no-ops) into @out.  Return: what a thread sent on from a
 * trap does there (RB_PATCH_*).
 */
static uint8_t
site_off_bytes(const struct rb_site *s, uint8_t *out)
{
	if (s->flags & RB_SITE_TAIL) {
		out[0] = 0xc3;
		rb_patch_nop(out + 1, s->len - 1u);
		return RB_PATCH_RET;
	}
	rb_patch_nop(out, s->len);
	return RB_PATCH_NOP;
}

static bool
dyn_obj_same(struct dobj *o, const struct dl_phdr_info *info)
{
	uint8_t		 nop[RB_PATCH_MAX_LEN];
	const uint8_t	*at;
	size_t		 k;
	unsigned	 len;

	/* Another file there (one without sites has nothing else to tell). */
	if (strncmp(o->name, info->dlpi_name != NULL && *info->dlpi_name ?
	    info->dlpi_name : "the program", sizeof(o->name) - 1) != 0)
		return false;
	for (k = 0; k < o->t.n; k++) {
		len = o->t.v[k].len;
		/* Another object's text may be smaller: never read past it. */
		if (!dyn_in_text(info, o->t.v[k].addr, len))
			return false;
		at = (const uint8_t *)(uintptr_t)(o->t.v[k].addr + o->bias);
		site_off_bytes(&o->t.v[k], nop);
		if (memcmp(at, o->orig + k * RB_PATCH_MAX_LEN, len) != 0 &&
		    memcmp(at, nop, len) != 0)
			return false;
	}
	for (k = 0; k < o->t.n; k++) {
		at = (const uint8_t *)(uintptr_t)(o->t.v[k].addr + o->bias);
		o->off[k] = memcmp(at, o->orig + k * RB_PATCH_MAX_LEN,
		    o->t.v[k].len) != 0;
		o->fn[k] = site_fn(o, &o->t.v[k]);
	}
	return true;
}

static int
dyn_list_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct listing	*ls = arg;
	struct dobj	*o;
	size_t		 i;

	(void)size;
	if (info->dlpi_phnum == 0 || info->dlpi_addr == dyn_self_base)
		return 0;
	for (i = 0; i < nobjs; i++) {
		o = &objs[i];
		if (!o->gone && o->bias == info->dlpi_addr &&
		    o->phdr == (const void *)info->dlpi_phdr) {
			if (ls->verify && !dyn_obj_same(o, info)) {
				o->gone = true;
				break;
			}
			o->present = true;
			return 0;
		}
	}
	/* The slot of an object unloaded, else a new one. */
	for (i = 0; i < nobjs && !objs[i].gone; i++)
		;
	if (i == DYN_MAX_OBJS)
		return 0;
	o = &objs[i];
	if (i < nobjs) {
		if (o->mapped != 0)
			munmap(o->fn, o->mapped);
		rb_sites_free(&o->t);
	} else
		nobjs++;
	memset(o, 0, sizeof(*o));
	o->bias = info->dlpi_addr;
	o->phdr = info->dlpi_phdr;
	o->phnum = info->dlpi_phnum;
	o->present = true;
	rb_strlcpy(o->name, info->dlpi_name != NULL && *info->dlpi_name ?
	    info->dlpi_name : "the program", sizeof(o->name));
	dyn_obj_scan(o, info);
	if (o->t.n != 0)
		rb_seed_object(info);
	return 0;
}

/* ------------------------------------------------------------------
 * Batches.
 */

/* The target of original call or jmp @b at @addr (runtime). */
static uint64_t
orig_target(const uint8_t *b, unsigned len, uint64_t addr)
{
	struct rb_x86_insn	d;
	uint64_t		next = addr + len, slot, v;

	if (rb_x86_decode(b, len, &d) != (int)len)
		return 0;
	if (d.map == RB_X86_MAP_1B && (d.op == 0xe8 || d.op == 0xe9))
		return next + (uint64_t)(int64_t)(int32_t)d.imm;
	if (d.map == RB_X86_MAP_1B && d.op == 0xff && d.has_modrm) {
		slot = d.riprel ? next + (uint64_t)d.disp : (uint64_t)d.disp;
		memcpy(&v, (const void *)(uintptr_t)slot, sizeof(v));
		return v;
	}
	return 0;
}

/* Is site @k of @o to be off now? */
static bool
site_want_off(const struct dobj *o, size_t k)
{
	if (dyn_dormant)
		return true;
	return (fn_get(o->fn[k]) & DYN_OFF_BITS) != 0;
}

struct batchbuf {
	struct rb_patch	*v;
	size_t		 n, mapped;
	/* where each patch came from */
	uint32_t	*obj, *site;
	size_t		 omapped;
};

static int
batch_push(struct batchbuf *b, const struct dobj *o, size_t k, bool off)
{
	const struct rb_site	*s = &o->t.v[k];
	const uint8_t		*orig = o->orig + k * RB_PATCH_MAX_LEN;
	struct rb_patch		*p;

	if ((b->n + 1) * sizeof(*p) > b->mapped) {
		size_t	 len = dyn_round(b->mapped ? b->mapped * 2 : 65536);
		size_t	 olen = dyn_round(len / sizeof(*p) * 2 * sizeof(uint32_t));
		void	*nv = dyn_map(len), *no = dyn_map(olen);

		if (nv == NULL || no == NULL)
			return -1;
		if (b->n != 0) {
			memcpy(nv, b->v, b->n * sizeof(*p));
			memcpy(no, b->obj, b->n * sizeof(uint32_t));
			memcpy((uint32_t *)no + len / sizeof(*p), b->site,
			    b->n * sizeof(uint32_t));
		}
		if (b->mapped != 0) {
			munmap(b->v, b->mapped);
			munmap(b->obj, b->omapped);
		}
		b->v = nv;
		b->obj = no;
		b->site = (uint32_t *)no + len / sizeof(*p);
		b->mapped = len;
		b->omapped = olen;
	}
	p = &b->v[b->n];
	memset(p, 0, sizeof(*p));
	p->addr = s->addr + o->bias;
	p->len = s->len;
	if (off) {
		p->kind = site_off_bytes(s, p->bytes);
	} else {
		memcpy(p->bytes, orig, s->len);
		p->kind = (s->flags & RB_SITE_TAIL) ? RB_PATCH_JMP :
		    RB_PATCH_CALL;
		p->target = orig_target(orig, s->len, p->addr);
		if (p->target == 0)
			return 0;	/* cannot be sent on: leave it */
	}
	b->obj[b->n] = (uint32_t)(o - objs);
	b->site[b->n] = (uint32_t)k;
	b->n++;
	return 0;
}

static void
batch_free(struct batchbuf *b)
{
	if (b->mapped != 0) {
		munmap(b->v, b->mapped);
		munmap(b->obj, b->omapped);
	}
	memset(b, 0, sizeof(*b));
}

/*
 * The functions whose exit sites were ever switched off, for the hooks
 * (rb_dyn_cut()): written under dyn_lock, read by any thread.
 */
#define DYN_CUT_SLOTS		4096
#define DYN_CUT_PROBES		32
static uint64_t		 dyn_cut[DYN_CUT_SLOTS];
static int		 dyn_cut_all;	/* table full: any function */

static void
dyn_cut_add(uint64_t fn)
{
	size_t		i, h = fn_hash(fn, DYN_CUT_SLOTS);
	uint64_t	v, *slot;

	for (i = 0; fn != 0 && i < DYN_CUT_PROBES; i++) {
		slot = &dyn_cut[(h + i) & (DYN_CUT_SLOTS - 1)];
		v = __atomic_load_n(slot, __ATOMIC_RELAXED);
		if (v == fn)
			return;
		if (v == 0) {
			__atomic_store_n(slot, fn, __ATOMIC_RELAXED);
			return;
		}
	}
	__atomic_store_n(&dyn_cut_all, 1, __ATOMIC_RELAXED);
}

/**
 * rb_dyn_cut - was an exit site of @fn ever switched off?  A frame of @fn
 * may then be left on a stack by a call whose exit was a no-op (hooks.c).
 */
RB_NOINSTR bool
rb_dyn_cut(uint64_t fn)
{
	size_t		i, h;
	uint64_t	v;

	if (__atomic_load_n(&dyn_cut_all, __ATOMIC_RELAXED))
		return true;
	h = fn_hash(fn, DYN_CUT_SLOTS);
	for (i = 0; i < DYN_CUT_PROBES; i++) {
		v = __atomic_load_n(&dyn_cut[(h + i) & (DYN_CUT_SLOTS - 1)],
		    __ATOMIC_RELAXED);
		if (v == fn)
			return true;
		if (v == 0)
			return false;
	}
	return false;
}

/* The patches are sorted by patch.c: find each one's site again by address. */
static void
batch_done(struct batchbuf *b)
{
	size_t	i, k;

	for (i = 0; i < b->n; i++) {
		struct dobj	*o = &objs[b->obj[i]];

		k = b->site[i];
		o->off[k] = !o->off[k];
		if (o->off[k] && o->t.v[k].hook == RB_SITE_EXIT)
			dyn_cut_add(o->fn[k]);
	}
}

struct syncer {
	char	*err;
	size_t	 errlen;
	int	 ret;
	size_t	 changed;
};

static void dyn_publish(void);
static void dyn_auto_arm(uint32_t ms);
static int dyn_worker_start(void);

/*
 * Under the loader's lock (a dl_iterate_phdr() callback): list the
 * objects, then write what must change.
 */
static int
dyn_sync_locked(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct syncer		*sy = arg;
	struct listing		 ls = { 0 };
	struct batchbuf		 b;
	struct rb_patch_stats	 st;
	size_t			 i, k;
	bool			 off;

	for (i = 0; i < nobjs; i++)
		objs[i].present = false;
	/* An unload since the last listing: objects found again are checked. */
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) +
	    sizeof(info->dlpi_subs)) {
		ls.verify = info->dlpi_subs != dyn_subs;
		dyn_subs = info->dlpi_subs;
	} else
		ls.verify = true;
	/* Recursive: the loader's lock is taken again, by this thread. */
	dl_iterate_phdr(dyn_list_one, &ls);
	for (i = 0; i < nobjs; i++)
		if (!objs[i].present)
			objs[i].gone = true;
	memset(&b, 0, sizeof(b));
	sy->ret = 0;
	if (dyn_refused)
		return 1;
	/* The order of the patches is patch.c's: their indices go with them. */
	for (i = 0; i < nobjs; i++) {
		struct dobj *o = &objs[i];

		if (o->gone)
			continue;
		for (k = 0; k < o->t.n; k++) {
			off = site_want_off(o, k);
			if (off != (o->off[k] != 0) &&
			    batch_push(&b, o, k, off) != 0) {
				snprintf(sy->err, sy->errlen, "out of memory");
				sy->ret = -1;
				batch_free(&b);
				return 1;
			}
		}
	}
	if (b.n != 0) {
		struct rb_patch	*copy;
		size_t		 len = dyn_round(b.n * sizeof(*copy));

		/* patch.c sorts its argument: keep ours in step with obj/site. */
		copy = dyn_map(len);
		if (copy == NULL) {
			snprintf(sy->err, sy->errlen, "out of memory");
			sy->ret = -1;
			batch_free(&b);
			return 1;
		}
		memcpy(copy, b.v, b.n * sizeof(*copy));
		if (rb_patch_apply(copy, b.n, &st, sy->err, sy->errlen) != 0) {
			dyn_refused = 1;
			rb_strlcpy(dyn_why, sy->err, sizeof(dyn_why));
			sy->ret = -1;
		} else {
			batch_done(&b);
			sy->changed = b.n;
			dyn_batches++;
			dyn_pages += st.pages;
			dyn_last_ns = st.ns;
		}
		munmap(copy, len);
	}
	batch_free(&b);
	return 1;
}

/* Bring the text in line with what is wanted; under dyn_lock. */
static int
dyn_sync(char *err, size_t errlen, size_t *changed)
{
	struct syncer	sy = { err, errlen, 0, 0 };

	if (objs == NULL) {
		objs = dyn_map(dyn_round(DYN_MAX_OBJS * sizeof(*objs)));
		if (objs == NULL) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	dyn_used = 1;
	dl_iterate_phdr(dyn_sync_locked, &sy);
	if (changed != NULL)
		*changed = sy.changed;
	dyn_publish();
	return sy.ret;
}

/* ------------------------------------------------------------------
 * The process's entry in the trace file (struct rb_dynproc).
 */

static struct rb_dynproc *
dyn_claim(void)
{
	const struct rb_header	*g = &rb_proc.map.geo;
	struct rb_dynproc	*e;
	uint32_t		 i, st;
	int32_t			 pid;

	if (atomic_load_explicit(&rb_proc.init, memory_order_acquire) !=
	    RB_INIT_DONE || rb_proc.map.base == NULL)
		return NULL;
	for (i = 0; i < g->dyn_procs; i++) {
		e = rb_dynproc_at(rb_proc.map.base, g, i);
		pid = __atomic_load_n(&e->pid, __ATOMIC_RELAXED);
		if (pid == rb_proc.pid &&
		    __atomic_load_n(&e->pstart, __ATOMIC_RELAXED) == rb_proc.pstart)
			return e;
	}
	for (i = 0; i < g->dyn_procs; i++) {
		e = rb_dynproc_at(rb_proc.map.base, g, i);
		pid = __atomic_load_n(&e->pid, __ATOMIC_RELAXED);
		st = __atomic_load_n(&e->state, __ATOMIC_RELAXED);
		if (st != RB_DYNP_FREE && pid > 0 &&
		    rb_proc_alive(pid, __atomic_load_n(&e->pstart,
		    __ATOMIC_RELAXED)))
			continue;
		/* Free, or a dead process's: taken by compare-and-swap on pid. */
		if (!__atomic_compare_exchange_n(&e->pid, &pid,
		    (int32_t)rb_proc.pid, false, __ATOMIC_ACQUIRE,
		    __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&e->pstart, rb_proc.pstart, __ATOMIC_RELAXED);
		__atomic_store_n(&e->image, rb_proc.image, __ATOMIC_RELAXED);
		__atomic_store_n(&e->state, RB_DYNP_CLAIMED, __ATOMIC_RELEASE);
		return e;
	}
	__atomic_add_fetch(&rb_proc.map.hdr->dyn_lost, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int
dynfn_cmp(const void *a, const void *b)
{
	const struct rb_dynfn *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Write the counts and the functions off into the file; under dyn_lock. */
static void
dyn_publish(void)
{
	struct rb_dynfn	 list[RB_DYN_LISTED];
	struct rb_dynproc *e;
	uint64_t	 sites = 0, off = 0;
	uint32_t	 nobj = 0, nfuncs = 0, off_name = 0, off_auto = 0, n = 0;
	uint32_t	 flags = 0;
	uint32_t	 gen;
	size_t		 i, k;

	if (dyn_entry == NULL)
		dyn_entry = dyn_claim();
	e = dyn_entry;
	if (e == NULL)
		return;
	for (i = 0; i < nobjs; i++) {
		if (objs[i].gone || objs[i].t.n == 0)
			continue;
		nobj++;
		nfuncs += objs[i].nfuncs;
		sites += objs[i].t.n;
		for (k = 0; k < objs[i].t.n; k++)
			off += objs[i].off[k] != 0;
	}
	for (i = 0; i < fns.cap; i++) {
		uint8_t	v = fns.val[i];

		if (fns.key[i] == 0 || !(v & DYN_OFF_BITS))
			continue;
		if (v & RB_DYN_BY_NAME)
			off_name++;
		else if (v & RB_DYN_BY_AUTO)
			off_auto++;
		if (n < RB_DYN_LISTED) {
			list[n].addr = fns.key[i];
			list[n].reason = v & DYN_OFF_BITS;
			list[n].pad = 0;
			n++;
		}
	}
	qsort(list, n, sizeof(list[0]), dynfn_cmp);
	if (dyn_dormant)
		flags |= RB_DYNF_DORMANT;
	if (dyn_refused)
		flags |= RB_DYNF_REFUSED;
	flags |= __atomic_load_n(&e->flags, __ATOMIC_RELAXED) &
	    (RB_DYNF_AUTO | RB_DYNF_AUTO_DONE);
	/* Seqlock: odd while the entry changes; readers retry. */
	gen = __atomic_load_n(&e->gen, __ATOMIC_RELAXED) | 1u;
	__atomic_store_n(&e->gen, gen, __ATOMIC_RELAXED);
	/* The odd gen before the fields; pairs with the readers' acquire fence before their second gen load. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&e->pid, (int32_t)rb_proc.pid, __ATOMIC_RELAXED);
	__atomic_store_n(&e->flags, flags, __ATOMIC_RELAXED);
	__atomic_store_n(&e->objects, nobj, __ATOMIC_RELAXED);
	__atomic_store_n(&e->funcs, nfuncs, __ATOMIC_RELAXED);
	__atomic_store_n(&e->sites, sites, __ATOMIC_RELAXED);
	__atomic_store_n(&e->sites_off, off, __ATOMIC_RELAXED);
	__atomic_store_n(&e->off_name, off_name, __ATOMIC_RELAXED);
	__atomic_store_n(&e->off_auto, off_auto, __ATOMIC_RELAXED);
	__atomic_store_n(&e->listed, n, __ATOMIC_RELAXED);
	__atomic_store_n(&e->batches, dyn_batches, __ATOMIC_RELAXED);
	__atomic_store_n(&e->traps, rb_patch_traps(), __ATOMIC_RELAXED);
	__atomic_store_n(&e->private_bytes, dyn_pages * 4096, __ATOMIC_RELAXED);
	__atomic_store_n(&e->last_ns, dyn_last_ns, __ATOMIC_RELAXED);
	memcpy(e->why, dyn_why, sizeof(e->why));
	memcpy(e->fns, list, n * sizeof(list[0]));
	/* (release) The fields before the even gen; pairs with the readers' acquire load. */
	__atomic_store_n(&e->gen, gen + 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------
 * Requests.
 */

struct matched {
	uint8_t		set, clear;
	uint32_t	n, nosites;
};

static int
dyn_apply_one(uint64_t addr, struct matched *m)
{
	uint8_t	v = fn_get(addr);

	if (!fn_has_sites(addr)) {
		m->nosites++;
		return 0;
	}
	v = (uint8_t)((v & ~m->clear) | m->set);
	if (fn_set(addr, v) != 0)
		return -1;
	m->n++;
	return 0;
}

static int
dyn_match_cb(uint64_t addr, const char *name, void *arg)
{
	(void)name;
	return dyn_apply_one(addr, arg);
}

/* Keep an exclude/include line for the objects loaded later. */
static void
dyn_remember(const char *line, size_t len)
{
	char	*p;
	size_t	 cap;

	if (dyn_plen + len + 2 > dyn_pcap) {
		cap = dyn_round(dyn_plen + len + 2 + 4096);
		p = dyn_map(cap);
		if (p == NULL)
			return;
		if (dyn_plen != 0)
			memcpy(p, dyn_patterns, dyn_plen);
		if (dyn_pcap != 0)
			munmap(dyn_patterns, dyn_pcap);
		dyn_patterns = p;
		dyn_pcap = cap;
	}
	memcpy(dyn_patterns + dyn_plen, line, len);
	dyn_plen += len;
	dyn_patterns[dyn_plen++] = '\n';
	dyn_patterns[dyn_plen] = '\0';
}

static int
dyn_hex(const char *s, uint64_t *out)
{
	char			*end;
	unsigned long long	 v;

	errno = 0;
	v = strtoull(s, &end, 16);
	if (errno != 0 || end == s || *end != '\0' || v == 0)
		return -1;
	*out = v;
	return 0;
}

/* Append "PATTERN\n" to @out for each line of file @path. */
static int
dyn_file_lines(const char *path, char *out, size_t size, size_t *k)
{
	char	 line[1024];
	FILE	*f = fopen(path, "re");
	size_t	 n;
	int	 w;

	if (f == NULL) {
		rb_warnf("rbtrace: %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		n = strcspn(line, "\r\n");
		line[n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		w = snprintf(out + *k, size - *k, "%s\n", line);
		if (w < 0 || (size_t)w >= size - *k) {
			fclose(f);
			return -1;
		}
		*k += (size_t)w;
	}
	fclose(f);
	return 0;
}

/*
 * The patterns of a user's list @list ("P, P, @FILE", rb_patterns_split()),
 * one a line into @out, each @FILE replaced by its lines.
 * Return: 0, or -1 with @why.
 */
static int
dyn_list_lines(const char *list, char *out, size_t size, size_t *k,
    char *why, size_t whylen)
{
	char	*pats, *p, *nl;
	size_t	 need;
	int	 w;

	need = rb_patterns_split(list, why, whylen);
	if (need == RB_PATTERNS_BAD)
		return -1;
	pats = dyn_map(dyn_round(need + 1));
	if (pats == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	rb_patterns_split(list, pats, need + 1);
	for (p = pats; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			break;
		*nl = '\0';
		if (*p == '@') {
			if (dyn_file_lines(p + 1, out, size, k) != 0) {
				snprintf(why, whylen, "cannot read %.200s", p + 1);
				munmap(pats, dyn_round(need + 1));
				return -1;
			}
			continue;
		}
		w = snprintf(out + *k, size - *k, "%s\n", p);
		if (w < 0 || (size_t)w >= size - *k) {
			snprintf(why, whylen, "too many patterns");
			munmap(pats, dyn_round(need + 1));
			return -1;
		}
		*k += (size_t)w;
	}
	munmap(pats, dyn_round(need + 1));
	return 0;
}

/* One line of a request; @out gets one line of reply. */
static int
dyn_line(char *line, char *out, size_t outlen, bool *sync, bool *wake,
    bool *sleep_, bool remember)
{
	struct matched	 m = { 0, 0, 0, 0 };
	char		 err[256] = "", name[256], *pats, *p, *nl;
	char		 missbuf[104] = "";
	const char	*arg, *miss;
	uint8_t		 hit[4096];
	size_t		 plen = 0, misslen = 0;
	unsigned	 missn = 0;
	uint32_t	 ms;
	uint64_t	 addr;
	bool		 excl;
	size_t		 i;
	int		 r;

	/* These are said by the state's line that ends every reply. */
	if (strcmp(line, "wake") == 0) {
		*wake = true;
		out[0] = '\0';
		return 0;
	}
	if (strcmp(line, "sleep") == 0) {
		*sleep_ = true;
		out[0] = '\0';
		return 0;
	}
	if (strcmp(line, "auto") == 0 || strncmp(line, "auto ", 5) == 0) {
		ms = 500;
		if (line[4] == ' ' && strcmp(line + 5, "1") != 0 &&
		    rb_parse_uint(line + 5, 10, 600000, &ms) != 0) {
			snprintf(out, outlen, "auto: a warm-up from 10 to 600000 ms, not '%.40s'",
			    line + 5);
			return -1;
		}
		if (rb_proc.map.geo.events == 0) {
			snprintf(out, outlen, "automatic exclusion needs the event log (the program runs with --events 0)");
			return -1;
		}
		dyn_auto_arm(ms);
		if (dyn_worker_start() != 0) {
			snprintf(out, outlen, "cannot start the library's worker thread");
			return -1;
		}
		snprintf(out, outlen, "automatic exclusion for %u ms", ms);
		return 0;
	}
	if (strcmp(line, "status") == 0) {
		out[0] = '\0';
		return 0;
	}
	if (strcmp(line, "include-all") == 0) {
		for (i = 0; i < fns.cap; i++)
			if (fns.key[i] != 0 && (fns.val[i] & DYN_OFF_BITS)) {
				fns.val[i] = DYN_PIN;
				m.n++;
			}
		*sync = true;
		snprintf(out, outlen, "%u function%s back on", m.n,
		    m.n == 1 ? "" : "s");
		return 0;
	}
	excl = strncmp(line, "exclude", 7) == 0;
	if (!excl && strncmp(line, "include", 7) != 0) {
		snprintf(out, outlen, "unknown request '%.40s' (wake, sleep, exclude, include, exclude-addr, include-addr, include-all)",
		    line);
		return -1;
	}
	m.set = excl ? RB_DYN_BY_NAME : DYN_PIN;
	m.clear = excl ? DYN_PIN : DYN_OFF_BITS;
	arg = line + 7;
	if (strncmp(arg, "-addr ", 6) == 0) {
		if (dyn_hex(arg + 6, &addr) != 0) {
			snprintf(out, outlen, "bad address '%.40s'", arg + 6);
			return -1;
		}
		if (dyn_apply_one(addr, &m) != 0) {
			snprintf(out, outlen, "out of memory");
			return -1;
		}
		if (m.n == 0) {
			snprintf(out, outlen, "no site reports function %#" PRIx64
			    " (not instrumented, or not a function's address)",
			    addr);
			return -1;
		}
		*sync = true;
		if (rb_names_of(addr, name, sizeof(name)) != 0)
			snprintf(name, sizeof(name), "%#" PRIx64, addr);
		snprintf(out, outlen, "%s %s", name, excl ? "off" : "on");
		return 0;
	}
	if (*arg != ' ' || arg[1] == '\0') {
		snprintf(out, outlen, "%s needs a pattern", excl ? "exclude" :
		    "include");
		return -1;
	}
	arg++;
	pats = dyn_map(DYN_PATS_MAX);
	if (pats == NULL) {
		snprintf(out, outlen, "out of memory");
		return -1;
	}
	pats[0] = '\0';
	if (dyn_list_lines(arg, pats, DYN_PATS_MAX, &plen, err,
	    sizeof(err)) != 0) {
		munmap(pats, DYN_PATS_MAX);
		snprintf(out, outlen, "%s %s", excl ? "exclude:" : "include:",
		    err);
		return -1;
	}
	memset(hit, 0, sizeof(hit));
	r = rb_names_match_hits(pats, dyn_match_cb, &m, hit, sizeof(hit),
	    err, sizeof(err));
	/* The first pattern that names nothing, by its line. */
	miss = NULL;
	for (i = 0, p = pats; r >= 0 && *p != '\0' && i < sizeof(hit); i++) {
		nl = strchr(p, '\n');
		if (!hit[i]) {
			missn++;
			if (miss == NULL) {
				miss = p;
				misslen = nl ? (size_t)(nl - p) : strlen(p);
			}
		}
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	if (miss != NULL) {
		if (misslen > 100)
			misslen = 100;
		memcpy(missbuf, miss, misslen);
		missbuf[misslen] = '\0';
	}
	munmap(pats, DYN_PATS_MAX);
	if (r < 0) {
		snprintf(out, outlen, "%s", err[0] ? err : "cannot read the symbols");
		return -1;
	}
	if (remember)
		dyn_remember(line, strlen(line));
	*sync = true;
	if (m.n == 0 && m.nosites == 0) {
		snprintf(out, outlen, "no function matches '%s'", missbuf);
		return -1;
	}
	snprintf(out, outlen, "%u function%s %s%s%s%s%s", m.n,
	    m.n == 1 ? "" : "s", excl ? "off" : "on",
	    m.nosites && m.n == 0 ? " (those matching are not instrumented)" :
	    "", missn ? "; no function matches '" : "", missn ? missbuf : "",
	    missn ? "'" : "");
	return 0;
}

static void
dyn_msg_add(char *msg, size_t msglen, size_t *k, const char *line)
{
	int	n;

	if (*k >= msglen || *line == '\0')
		return;
	n = snprintf(msg + *k, msglen - *k, "%s%s", *k ? "\n" : "", line);
	if (n > 0)
		*k += (size_t)n < msglen - *k ? (size_t)n : msglen - *k - 1;
}

static void
dyn_summary(char *out, size_t outlen)
{
	uint64_t	sites = 0, off = 0;
	uint32_t	nf = 0;
	size_t		i, k;

	for (i = 0; i < nobjs; i++)
		for (k = 0; !objs[i].gone && k < objs[i].t.n; k++) {
			sites++;
			off += objs[i].off[k] != 0;
		}
	for (i = 0; i < fns.cap; i++)
		nf += fns.key[i] != 0 && (fns.val[i] & DYN_OFF_BITS);
	snprintf(out, outlen, "%s; %u function%s not traced; %" PRIu64
	    " of %" PRIu64 " sites off", dyn_dormant ? "asleep" : "awake",
	    nf, nf == 1 ? "" : "s", off, sites);
}

/*
 * Asleep: every thread gives its ring back, as at a detach, and so do the
 * rings made for threads asleep in the kernel at the wake (seed.c).
 */
static void
dyn_release_rings(void)
{
	uint32_t	kept;
	bool		fenced;

	rb_thread_release_all(1000000000ull, &kept, &fenced);
	rb_seed_release_all();
}

/*
 * Do @req now; @remember: keep its patterns for objects loaded later
 * (not when they are those being applied again).
 */
static int
dyn_request(const char *req, char *msg, size_t msglen, bool remember)
{
	char		 out[512], err[256], *line;
	const char	*p = req, *nl;
	bool		 sync = false, wake = false, sleep_ = false;
	size_t		 k = 0, len, changed = 0;
	int		 ret = RB_DYN_OK;

	if (msglen > 0)
		msg[0] = '\0';
	pthread_mutex_lock(&dyn_lock);
	/* The tables first: patterns and addresses are matched against them. */
	if (dyn_sync(err, sizeof(err), NULL) != 0 && dyn_refused) {
		dyn_msg_add(msg, msglen, &k, err);
		pthread_mutex_unlock(&dyn_lock);
		return RB_DYN_FAILED;
	}
	while (*p != '\0') {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		line = len > 0 ? dyn_map(dyn_round(len + 1)) : NULL;
		if (len > 0 && line == NULL) {
			dyn_msg_add(msg, msglen, &k, "out of memory");
			ret = RB_DYN_FAILED;
		} else if (len > 0) {
			memcpy(line, p, len);
			line[len] = '\0';
			if (dyn_line(line, out, sizeof(out), &sync, &wake,
			    &sleep_, remember) != 0)
				ret = RB_DYN_FAILED;
			dyn_msg_add(msg, msglen, &k, out);
			munmap(line, dyn_round(len + 1));
		}
		p += len + (nl != NULL);
	}
	if (wake && dyn_dormant) {
		rb_attach_tids();
		rb_seed_init();
		__atomic_store_n(&dyn_woken, 1, __ATOMIC_RELEASE);
		dyn_dormant = 0;
		/* Release: claims allowed again (thread.c reads it). */
		__atomic_store_n(&dyn_asleep, 0, __ATOMIC_RELEASE);
		sync = true;
	} else if (sleep_ && !dyn_dormant) {
		dyn_dormant = 1;
		sync = true;
	}
	if (sync && dyn_sync(err, sizeof(err), &changed) != 0) {
		dyn_msg_add(msg, msglen, &k, err);
		ret = RB_DYN_FAILED;
	}
	if (sleep_ && dyn_dormant && ret == RB_DYN_OK) {
		__atomic_store_n(&dyn_asleep, 1, __ATOMIC_RELEASE);
		dyn_release_rings();
	}
	dyn_summary(out, sizeof(out));
	dyn_msg_add(msg, msglen, &k, out);
	pthread_mutex_unlock(&dyn_lock);
	return ret;
}

/**
 * rb_dyn_request - do @req now (see dyn.h)
 */
int
rb_dyn_request(const char *req, char *msg, size_t msglen)
{
	return dyn_request(req, msg, msglen, true);
}

/**
 * rb_dyn_asleep - every site off: threads claim no ring
 */
bool
rb_dyn_asleep(void)
{
	/* Acquire: pairs with the wake's release. */
	return __atomic_load_n(&dyn_asleep, __ATOMIC_ACQUIRE) != 0;
}

/**
 * rb_dyn_woken - a sleeping process was woken: threads that ran meanwhile
 * unwind their stacks at their first hook
 */
bool
rb_dyn_woken(void)
{
	return __atomic_load_n(&dyn_woken, __ATOMIC_ACQUIRE) != 0;
}

/* ------------------------------------------------------------------
 * The worker: requests from hooks, automatic exclusion.
 */

static struct {
	uint32_t	seq;		/* futex: bumped per request */
	char		req[DYN_REQ_MAX];
	int		pending;
	int		running;
	pid_t		tid;
	int		auto_on;
	uint32_t	auto_ms;	/* warm-up */
	uint64_t	auto_start;
} wk;
static pthread_mutex_t wk_lock = PTHREAD_MUTEX_INITIALIZER;
static int auto_reset;		/* the automatic counts start again */

static unsigned dyn_auto_round(void);

static void
dyn_worker_serve(void)
{
	char	req[DYN_REQ_MAX], msg[1024];

	pthread_mutex_lock(&wk_lock);
	if (!wk.pending) {
		pthread_mutex_unlock(&wk_lock);
		return;
	}
	memcpy(req, wk.req, sizeof(req));
	wk.pending = 0;
	wk.req[0] = '\0';
	pthread_mutex_unlock(&wk_lock);
	rb_dyn_request(req, msg, sizeof(msg));
}

static void *
dyn_worker(void *arg)
{
	uint64_t	 now, next;
	uint32_t	 seq;
	unsigned	 idle = 0;
	sigset_t	 all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	prctl(PR_SET_NAME, "rbtrace-dyn", 0, 0, 0);
	__atomic_store_n(&wk.tid, rb_gettid(), __ATOMIC_RELEASE);
	next = 0;
	for (;;) {
		seq = __atomic_load_n(&wk.seq, __ATOMIC_ACQUIRE);
		dyn_worker_serve();
		now = rb_clock_mono_ns();
		if (__atomic_load_n(&wk.auto_on, __ATOMIC_ACQUIRE) && now >= next) {
			/*
			 * Rounds for the warm-up, and on while they find more
			 * (a caller's time shrinks as its callees go off):
			 * until AUTO_IDLE_ROUNDS found nothing, up to four
			 * times as long.
			 */
			idle = dyn_auto_round() != 0 ? 0 : idle + 1;
			next = now + AUTO_ROUND_NS;
			if (now - wk.auto_start >= 4ull * wk.auto_ms * 1000000ull ||
			    (now - wk.auto_start >= (uint64_t)wk.auto_ms * 1000000ull &&
			     idle >= AUTO_IDLE_ROUNDS)) {
				wk.auto_on = 0;
				if (dyn_entry != NULL)
					__atomic_or_fetch(&dyn_entry->flags,
					    RB_DYNF_AUTO_DONE, __ATOMIC_RELAXED);
			}
		}
		rb_futex_wait_private(&wk.seq, seq, wk.auto_on ?
		    (next > now ? next - now : 1) : RB_FUTEX_FOREVER);
	}
	return NULL;
}

/* The worker runs (started once per process; again in a fork child). */
static int
dyn_worker_start(void)
{
	pthread_attr_t	 a;
	pthread_t	 th;
	sigset_t	 all, old;
	int		 err;

	if (__atomic_exchange_n(&wk.running, 1, __ATOMIC_ACQ_REL))
		return 0;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256 * 1024);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&th, &a, dyn_worker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (err != 0) {
		__atomic_store_n(&wk.running, 0, __ATOMIC_RELEASE);
		return -1;
	}
	return 0;
}

/*
 * Automatic exclusion from now on, for a warm-up of @ms: the worker looks
 * every 50 ms (under dyn_lock).
 */
static void
dyn_auto_arm(uint32_t ms)
{
	wk.auto_ms = ms;
	wk.auto_start = rb_clock_mono_ns();
	__atomic_store_n(&auto_reset, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&wk.auto_on, 1, __ATOMIC_RELEASE);
	if (dyn_entry != NULL)
		__atomic_or_fetch(&dyn_entry->flags, RB_DYNF_AUTO,
		    __ATOMIC_RELAXED);
	__atomic_add_fetch(&wk.seq, 1, __ATOMIC_RELEASE);
	rb_futex_wake_private(&wk.seq, 1);
}

/**
 * rb_dyn_tid - the worker's thread, which the library does not trace
 */
pid_t
rb_dyn_tid(void)
{
	return __atomic_load_n(&wk.tid, __ATOMIC_ACQUIRE);
}

/**
 * rb_dyn_post - hand @req to the worker (see dyn.h)
 */
int
rb_dyn_post(struct rb_thread *t, const char *req, char *msg, size_t msglen)
{
	size_t	n = strlen(req);

	if (n >= sizeof(wk.req)) {
		snprintf(msg, msglen, "request too long");
		return -1;
	}
	/*
	 * The worker is started by the first request that needs it, from a
	 * hook where starting a thread is safe (as the watch worker is).
	 */
	if (!__atomic_load_n(&wk.running, __ATOMIC_ACQUIRE) &&
	    (!rb_watch_safe(t) || dyn_worker_start() != 0)) {
		snprintf(msg, msglen, "cannot start the library's worker thread "
		    "here (in a signal handler?): post the command again");
		return -1;
	}
	/* A hook takes no lock that another thread may hold long: try only. */
	if (pthread_mutex_trylock(&wk_lock) != 0) {
		snprintf(msg, msglen, "busy, try again");
		return -1;
	}
	if (wk.pending) {
		pthread_mutex_unlock(&wk_lock);
		snprintf(msg, msglen, "another request is pending, try again");
		return -1;
	}
	memcpy(wk.req, req, n + 1);
	wk.pending = 1;
	pthread_mutex_unlock(&wk_lock);
	__atomic_add_fetch(&wk.seq, 1, __ATOMIC_RELEASE);
	rb_futex_wake_private(&wk.seq, 1);
	snprintf(msg, msglen, "queued: %s", req);
	return 0;
}

/* ------------------------------------------------------------------
 * Automatic exclusion: the functions called very often that return very
 * fast (rbmon hot's rule), from this process's own event logs.
 */

#define AUTO_RECS	16384		/* newest records read per ring */
#define AUTO_DEPTH	256
#define AUTO_LONG_NS	10000		/* a call this long keeps its function */
#define AUTO_RATE	20000		/* calls a second, all threads */
#define AUTO_LONG_FRAC	10000		/* at most 1 call in this many long */
#define AUTO_LEAVES	4096		/* leaf durations kept per ring */
#define AUTO_MIN_CALLS	16		/* calls seen, at the least */

struct auto_st {
	uint64_t	*key;
	uint64_t	*calls, *longc;
	size_t		 cap, used;
	size_t		 mapped;
	uint64_t	 span_ns;	/* summed over threads and rounds */
	uint64_t	*seen;		/* per ring: the log's head last read */
};

static struct auto_st	as;
static struct rb_event	*auto_buf;
static uint64_t		*auto_leaves;

static uint64_t
auto_ns(uint64_t ticks)
{
	const struct rb_header	*g = &rb_proc.map.geo;
	uint64_t		 hz;

	if (g->clock == RB_CLOCK_MONO)
		return ticks;
	hz = __atomic_load_n(&rb_proc.map.hdr->clock_tsc_hz, __ATOMIC_RELAXED);
	if (hz == 0)
		return 0;
	return (uint64_t)((double)ticks * 1e9 / (double)hz);
}

/* @fn's slot, or SIZE_MAX when the table is full enough. */
static size_t
auto_slot(uint64_t fn)
{
	size_t	j;

	for (j = fn_hash(fn, as.cap); as.key[j] != 0 && as.key[j] != fn;
	    j = (j + 1) & (as.cap - 1))
		;
	if (as.key[j] == 0) {
		if (as.used * 2 >= as.cap)
			return SIZE_MAX;
		as.key[j] = fn;
		as.used++;
	}
	return j;
}

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * One pass over a window of a log: each call's duration, less what the
 * hooks of the calls it made cost (@pair_ns each: the durations were
 * measured traced), into the table; with @leaves, the durations of the
 * calls that made none instead.
 */
static void
auto_pass(const struct rb_event *ev, size_t n, uint64_t pair_ns,
    uint64_t *leaves, size_t *nleaves)
{
	struct { uint64_t fn, ts, kids; } st[AUTO_DEPTH];
	size_t		d = 0, i, j;
	uint64_t	dur, hooks, first = 0, under = 0;

	for (i = 0; i < n; i++) {
		const struct rb_event *e = &ev[i];

		if (first == 0 && (e->kind == RB_EV_ENTRY || e->kind == RB_EV_EXIT))
			first = e->ts;
		/*
		 * An exit whose entry came before the window: a call at least
		 * as long as the window up to it (less the hooks of the calls
		 * it made there), which would otherwise never be seen long.
		 */
		if (e->kind == RB_EV_EXIT && d == 0 && leaves == NULL &&
		    e->ts >= first) {
			dur = auto_ns(e->ts - first);
			hooks = under * pair_ns;
			dur = dur > hooks ? dur - hooks : 0;
			under++;
			if ((j = auto_slot(e->fn)) == SIZE_MAX)
				continue;
			as.calls[j]++;
			if (dur >= AUTO_LONG_NS)
				as.longc[j]++;
			continue;
		}

		if (e->kind == RB_EV_ENTRY) {
			if (d < AUTO_DEPTH) {
				st[d].fn = e->fn;
				st[d].ts = e->ts;
				st[d].kids = 0;
			}
			d++;
		} else if (e->kind == RB_EV_EXIT) {
			if (d == 0 || d > AUTO_DEPTH) {
				d = d ? d - 1 : 0;
				continue;
			}
			d--;
			if (st[d].fn != e->fn || e->ts < st[d].ts) {
				d = 0;	/* out of step: start over */
				continue;
			}
			dur = auto_ns(e->ts - st[d].ts);
			if (d > 0)
				st[d - 1].kids += 1 + st[d].kids;
			else
				under += 1 + st[d].kids;
			if (leaves != NULL) {
				if (st[d].kids == 0 && *nleaves < AUTO_LEAVES)
					leaves[(*nleaves)++] = dur;
				continue;
			}
			hooks = st[d].kids * pair_ns;
			dur = dur > hooks ? dur - hooks : 0;
			if ((j = auto_slot(e->fn)) == SIZE_MAX)
				continue;
			as.calls[j]++;
			if (dur >= AUTO_LONG_NS)
				as.longc[j]++;
		} else if (e->kind == RB_EV_LOST || e->kind == RB_EV_OFF) {
			d = 0;
		}
	}
}

static void
auto_ring(struct rb_ring *r, void *arg)
{
	const struct rb_header	*g = &rb_proc.map.geo;
	uint64_t		 first = 0, last = 0, pair_ns = 0;
	struct rb_ev_window	 w;
	struct rb_evq		 q;
	size_t			 n, i, k, nleaves = 0;

	(void)arg;
	if (g->events == 0 || auto_buf == NULL || auto_leaves == NULL)
		return;
	k = (size_t)(((char *)r - ((char *)rb_proc.map.base + g->rings_off)) /
	    g->ring_size);
	rb_evq_attach(&q, rb_ring_evlog(g, r), g->events, g->ev_policy);
	/* From where the last round stopped: no record counted twice. */
	n = rb_evlog_copy(&q, k < RB_MAX_RINGS ? as.seen[k] : 0, auto_buf,
	    AUTO_RECS, &w);
	if (k < RB_MAX_RINGS)
		as.seen[k] = w.head;
	for (i = 0; i < n; i++) {
		if (auto_buf[i].kind != RB_EV_ENTRY &&
		    auto_buf[i].kind != RB_EV_EXIT)
			continue;
		if (first == 0)
			first = auto_buf[i].ts;
		last = auto_buf[i].ts;
	}
	/*
	 * What a traced call costs its caller: twice the median of the calls
	 * that made none (one hook's work each side of its body), as rbmon
	 * hot estimates it.
	 */
	auto_pass(auto_buf, n, 0, auto_leaves, &nleaves);
	if (nleaves > 0) {
		qsort(auto_leaves, nleaves, sizeof(*auto_leaves), u64_cmp);
		pair_ns = 2 * auto_leaves[nleaves / 2];
	}
	auto_pass(auto_buf, n, pair_ns, NULL, NULL);
	if (last > first)
		as.span_ns += auto_ns(last - first);
}

static unsigned
dyn_auto_round(void)
{
	struct matched	 m = { RB_DYN_BY_AUTO, 0, 0, 0 };
	size_t		 j, len = dyn_round(4096 * 3 * sizeof(uint64_t));
	char		 err[256];
	uint64_t	 need;

	if (auto_buf == NULL)
		auto_buf = dyn_map(dyn_round(AUTO_RECS * sizeof(struct rb_event)));
	if (auto_leaves == NULL)
		auto_leaves = dyn_map(dyn_round(AUTO_LEAVES * sizeof(uint64_t)));
	if (as.cap == 0) {
		as.key = dyn_map(len);
		as.seen = dyn_map(dyn_round(RB_MAX_RINGS * sizeof(uint64_t)));
		if (as.key == NULL || as.seen == NULL || auto_buf == NULL)
			return 0;
		as.cap = 4096;
		as.calls = as.key + as.cap;
		as.longc = as.calls + as.cap;
		as.mapped = len;
		auto_reset = 1;
	}
	/* The counts add up over the warm-up's rounds. */
	if (__atomic_exchange_n(&auto_reset, 0, __ATOMIC_ACQ_REL)) {
		memset(as.key, 0, len);
		as.used = 0;
		as.span_ns = 0;
	}
	/* The counter's rate, if nothing measured it yet (no thread since 10 ms). */
	rb_clock_calibrate(rb_proc.map.hdr);
	rb_thread_each_ring(auto_ring, NULL);
	if (as.span_ns == 0)
		return 0;
	/* Calls in the windows for AUTO_RATE a second of the threads' time. */
	need = (uint64_t)((double)AUTO_RATE * (double)as.span_ns / 1e9);
	if (need < AUTO_MIN_CALLS)
		need = AUTO_MIN_CALLS;
	pthread_mutex_lock(&dyn_lock);
	for (j = 0; j < as.cap; j++) {
		uint8_t	v;

		if (as.key[j] == 0 || as.calls[j] < need ||
		    as.longc[j] * AUTO_LONG_FRAC > as.calls[j])
			continue;
		v = fn_get(as.key[j]);
		if (v & (DYN_PIN | RB_DYN_BY_AUTO))
			continue;
		dyn_apply_one(as.key[j], &m);
	}
	if (m.n != 0 && dyn_sync(err, sizeof(err), NULL) != 0)
		rb_warnf("rbtrace: automatic exclusion: %s", err);
	pthread_mutex_unlock(&dyn_lock);
	return m.n;
}

/* ------------------------------------------------------------------
 * Start-up and fork.
 */

static int
dyn_self_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t	self = (uintptr_t)arg;
	unsigned	i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD &&
		    self >= info->dlpi_addr + ph->p_vaddr &&
		    self < info->dlpi_addr + ph->p_vaddr + ph->p_memsz) {
			dyn_self_base = info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

static int
dyn_flag(const char *name, const char *v)
{
	if (v == NULL || *v == '\0' || strcmp(v, "0") == 0)
		return 0;
	if (strcmp(v, "1") == 0)
		return 1;
	rb_warnf("rbtrace: %s must be 0 or 1, not '%.40s'; using 0", name, v);
	return 0;
}

/* Does any object loaded call the hooks? */
static bool
dyn_any_sites(void)
{
	size_t	i;

	for (i = 0; i < nobjs; i++)
		if (!objs[i].gone && objs[i].t.n != 0)
			return true;
	return false;
}

/* A reply on standard error, one line each, the state's line aside. */
static void
dyn_warn_lines(char *msg)
{
	char	*p, *nl;

	for (p = msg; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			break;	/* the last line: the process's state */
		*nl = '\0';
		rb_warnf("rbtrace: %s", p);
	}
}

/*
 * At start-up, before main(): RBTRACE_DORMANT=1, RBTRACE_EXCLUDE and
 * RBTRACE_INCLUDE (lists of patterns and @FILEs; the includes after the
 * excludes), RBTRACE_AUTO_EXCLUDE=1 or a warm-up in ms.  A process none
 * of whose objects calls the hooks is left alone (no trace file).
 */
void
rb_dyn_setup(void)
{
	const char	*dorm = getenv("RBTRACE_DORMANT");
	const char	*ex = getenv("RBTRACE_EXCLUDE");
	const char	*in = getenv("RBTRACE_INCLUDE");
	const char	*aut = getenv("RBTRACE_AUTO_EXCLUDE");
	char		 msg[2048], *lines;
	size_t		 size;
	uint32_t	 ms = 0;
	int		 d, a = 0;

	d = dyn_flag("RBTRACE_DORMANT", dorm);
	if (aut != NULL && *aut != '\0' && strcmp(aut, "0") != 0) {
		if (strcmp(aut, "1") == 0)
			ms = 500;
		else if (rb_parse_uint(aut, 10, 600000, &ms) != 0) {
			rb_warnf("rbtrace: RBTRACE_AUTO_EXCLUDE must be 0, 1 or a warm-up in ms (10..600000), not '%.40s'; using 0",
			    aut);
			ms = 0;
		}
		a = ms != 0;
	}
	if (!d && !a && (ex == NULL || *ex == '\0') &&
	    (in == NULL || *in == '\0'))
		return;
#if !defined(__x86_64__)
	rb_warn("rbtrace: dynamic tracing is built for x86-64 only: every site stays on");
	return;
#endif
	size = dyn_round((ex != NULL ? strlen(ex) : 0) +
	    (in != NULL ? strlen(in) : 0) + 64);
	lines = dyn_map(size);
	if (lines == NULL)
		return;
	snprintf(lines, size, "%s%s%s%s%s%s",
	    ex != NULL && *ex ? "exclude " : "", ex != NULL && *ex ? ex : "",
	    ex != NULL && *ex ? "\n" : "",
	    in != NULL && *in ? "include " : "", in != NULL && *in ? in : "",
	    in != NULL && *in ? "\n" : "");
	dl_iterate_phdr(dyn_self_phdr, (void *)(uintptr_t)rb_dyn_setup);
	/* The tables first: a process that calls no hook is left alone, silently. */
	pthread_mutex_lock(&dyn_lock);
	dyn_sync(msg, sizeof(msg), NULL);
	if (!dyn_any_sites()) {
		pthread_mutex_unlock(&dyn_lock);
		munmap(lines, size);
		return;
	}
	if (d) {
		dyn_dormant = 1;
		__atomic_store_n(&dyn_asleep, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&dyn_lock);
	/* Said on failure, and for a pattern that names nothing. */
	if (rb_dyn_request(lines, msg, sizeof(msg)) != 0 ||
	    strstr(msg, "no function matches") != NULL)
		dyn_warn_lines(msg);
	munmap(lines, size);
	/* The trace file: a dormant program is listed too. */
	if (!rb_process_init())
		return;
	if (a && rb_proc.map.geo.events == 0) {
		rb_warn("rbtrace: RBTRACE_AUTO_EXCLUDE needs the event log (RBTRACE_EVENTS is 0): not done");
		a = 0;
	}
	pthread_mutex_lock(&dyn_lock);
	dyn_publish();
	pthread_mutex_unlock(&dyn_lock);
	if (d)
		dyn_release_rings();
	/* The worker only for automatic exclusion; else at the first request from a hook. */
	if (a) {
		pthread_mutex_lock(&dyn_lock);
		dyn_auto_arm(ms);
		pthread_mutex_unlock(&dyn_lock);
		if (dyn_worker_start() != 0)
			rb_warn("rbtrace: cannot start the dynamic tracing thread: no automatic exclusion");
	}
}

/**
 * rb_dyn_active - are the tables built (a dlopen() must sync)?
 */
bool
rb_dyn_active(void)
{
	return __atomic_load_n(&dyn_used, __ATOMIC_ACQUIRE) != 0;
}

/**
 * rb_dyn_loaded - an object was loaded: its sites follow the process's
 * state (asleep, the patterns given)
 */
void
rb_dyn_loaded(void)
{
	char	msg[1024], *req = NULL;
	size_t	len = 0;

	if (!rb_dyn_active())
		return;
	/* A copy: the request may grow the list it comes from. */
	pthread_mutex_lock(&dyn_lock);
	if (dyn_plen != 0) {
		len = dyn_round(dyn_plen + 1);
		req = dyn_map(len);
		if (req != NULL)
			memcpy(req, dyn_patterns, dyn_plen + 1);
	}
	pthread_mutex_unlock(&dyn_lock);
	/* The patterns again, for the new object's functions. */
	dyn_request(req != NULL ? req : "", msg, sizeof(msg), false);
	if (req != NULL)
		munmap(req, len);
}

void
rb_dyn_fork_prepare(void)
{
	pthread_mutex_lock(&dyn_lock);
}

void
rb_dyn_fork_parent(void)
{
	pthread_mutex_unlock(&dyn_lock);
}

/**
 * rb_dyn_fork_child - a fork child: the parent's text and state, an entry
 * of its own; the worker is started again
 */
void
rb_dyn_fork_child(void)
{
	pthread_mutex_init(&dyn_lock, NULL);
	pthread_mutex_init(&wk_lock, NULL);
	dyn_entry = NULL;
	wk.running = 0;
	wk.pending = 0;
	wk.tid = 0;
	if (!dyn_used)
		return;
	dyn_publish();
	if (__atomic_load_n(&wk.auto_on, __ATOMIC_ACQUIRE))
		dyn_worker_start();
}

