/*
 * watch.c - the owner's half of the watch protocol (DESIGN.md, rbtrace(5)).
 *
 *   monitor                                   owner thread (a hook)
 *   expr, exprlength, resready = 0
 *   inuse = 1                  (release)      attention &= ~WATCH (seq_cst)
 *   attention |= WATCH         (seq_cst)      for each entry with inuse == 1
 *   wake++, FUTEX_WAKE(wake)                    and resready == 0 (acquire):
 *                                               evaluate; result, reslength,
 *                                               GMA past RB_RESULT_MAX
 *   sees resready == 1 (acquire), reads  <-     resready = 1     (release)
 *   resready = 0, attention |= WATCH: again
 *   inuse = -2, attention |= WATCH: remove ->   inuse = 0        (release)
 *
 * Nothing happens while no monitor asks: an entry whose value was read and
 * not asked for again costs nothing, and the hot path never looks here.
 *
 * The expressions themselves are compiled and evaluated by the module
 * rbtrace-watch.so (expr.c), loaded here on the first watch the process
 * gets: programs that are never watched never load it, nor libdw.
 * Compiling happens once per entry and expression text, in the watched
 * thread; evaluating reads memory without faulting and allocates nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "watch.h"

#define RB_ATTN_AND(r, bits)	__atomic_fetch_and(&(r)->attention, (bits), __ATOMIC_SEQ_CST)

static pthread_mutex_t rb_wmod_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct rb_watch_ops *rb_wops;
static int rb_wmod_state;		/* 0 not tried, 1 loaded, -1 failed */
static char rb_wmod_err[256];

static bool rb_watch_try(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	rb_watch_entry_fn fn;
	const struct rb_watch_ops *ops;

	if (h == NULL) {
		const char *e = dlerror();

		if (rb_wmod_err[0] == '\0' && e != NULL)
			snprintf(rb_wmod_err, sizeof(rb_wmod_err), "%s", e);
		return false;
	}
	*(void **)&fn = dlsym(h, RB_WATCH_ENTRY);
	ops = fn != NULL ? fn() : NULL;
	if (ops == NULL || ops->abi != RB_WATCH_ABI) {
		snprintf(rb_wmod_err, sizeof(rb_wmod_err),
			 "%s: not this version's expression module", path);
		dlclose(h);
		return false;
	}
	rb_wops = ops;
	return true;
}

/*
 * The module: next to the library that holds this code (its rbtrace/
 * subdirectory when installed, the same directory in a build tree), then
 * where it was installed.
 */
static const struct rb_watch_ops *rb_watch_module(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	Dl_info info;
	char *slash;

	if (__atomic_load_n(&rb_wmod_state, __ATOMIC_ACQUIRE) != 0)
		return rb_wops;
	pthread_mutex_lock(&rb_wmod_lock);
	if (rb_wmod_state == 0) {
		bool ok = false;

		if (dladdr((void *)rb_watch_module, &info) != 0 &&
		    info.dli_fname != NULL &&
		    strlen(info.dli_fname) < sizeof(dir)) {
			strcpy(dir, info.dli_fname);
			slash = strrchr(dir, '/');
			if (slash != NULL) {
				*slash = '\0';
				snprintf(path, sizeof(path), "%s/rbtrace/%s", dir,
					 RB_WATCH_MODULE);
				ok = rb_watch_try(path);
				if (!ok) {
					snprintf(path, sizeof(path), "%s/%s", dir,
						 RB_WATCH_MODULE);
					ok = rb_watch_try(path);
				}
			}
		}
		if (!ok)
			ok = rb_watch_try(RB_PKGLIBDIR "/" RB_WATCH_MODULE);
		__atomic_store_n(&rb_wmod_state, ok ? 1 : -1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&rb_wmod_lock);
	return rb_wops;
}

/* Where a value's text goes: result first, the GMA after it. */
struct rb_wsink {
	struct rb_thread	*t;
	struct rb_watch		*w;
	uint32_t		 entry;
	uint64_t		 total;
	int			 gma;	/* 1 owned, 0 not tried, -1 not to be had */
	uint32_t		 gma_len;
};

static int rb_watch_put(void *arg, const char *s, size_t n)
{
	struct rb_wsink *k = arg;
	struct rb_header *h = rb_proc.map.hdr;
	char *gma = (char *)rb_proc.map.base + h->gma_off;
	size_t i;

	for (i = 0; i < n; i++, k->total++) {
		uint64_t p = k->total;

		if (p < RB_RESULT_MAX) {
			k->w->result[p] = s[i];
			continue;
		}
		if (k->gma == 0)
			k->gma = rb_gma_claim(RB_GMA_MAKE(k->t->index, k->entry + 1) |
					      RB_GMA_BUSY, RB_RESULT_MAX) ? 1 : -1;
		if (k->gma == 1 && p - RB_RESULT_MAX < h->global_sz) {
			gma[p - RB_RESULT_MAX] = s[i];
			k->gma_len = (uint32_t)(p - RB_RESULT_MAX + 1);
		}
	}
	return 0;
}

static void rb_watch_eval(struct rb_thread *t, uint32_t i, struct rb_watch *w)
{
	struct rb_header *h = rb_proc.map.hdr;
	const struct rb_watch_ops *ops = rb_watch_module();
	char expr[RB_EXPR_MAX], err[RB_RESULT_MAX];
	struct rb_wsink k = { t, w, i, 0, 0, 0 };
	int32_t len = RB_LOAD(&w->exprlength);
	int rc;

	if (len < 0 || len > RB_EXPR_MAX)
		len = RB_EXPR_MAX;
	memcpy(expr, w->expr, (size_t)len);
	if (ops == NULL) {
		snprintf(err, sizeof(err), "watches need %s: %s", RB_WATCH_MODULE,
			 rb_wmod_err[0] ? rb_wmod_err : "not found");
		rc = -1;
	} else {
		if (t->wprog[i] != NULL && !ops->same(t->wprog[i], expr, (size_t)len)) {
			ops->release(t->wprog[i]);
			t->wprog[i] = NULL;
		}
		if (t->wprog[i] == NULL)
			t->wprog[i] = ops->compile(expr, (size_t)len);
		if (t->wprog[i] == NULL) {
			snprintf(err, sizeof(err), "out of memory");
			rc = -1;
		} else {
			err[0] = '\0';
			rc = ops->eval(t->wprog[i], rb_watch_put, &k, err, sizeof(err));
		}
	}
	if (rc != 0) {
		size_t n = strnlen(err, sizeof(err) - 1);

		if (n == 0)
			n = strlen(strcpy(err, "error"));
		memcpy(w->result, err, n);
		RB_STORE(&w->reslength, -(int32_t)n);
	} else {
		RB_STORE(&w->reslength,
			 (int32_t)(k.total > INT32_MAX ? INT32_MAX : k.total));
	}
	if (k.gma == 1)
		RB_STORE(&h->gma_len, rc == 0 ? k.gma_len : 0);
	/* result, reslength, the GMA before resready; pairs with the monitor's acquire load. */
	RB_STORE_REL(&w->resready, 1);
	/*
	 * Only now from busy to held (resready == 1 keeps it), so no moment
	 * lets another thread see the claim as lapsed.  The monitor waits out
	 * the busy bit; release pairs with its acquire load of gma_owner.
	 */
	if (k.gma == 1)
		RB_STORE_REL(&h->gma_owner, RB_GMA_MAKE(t->index, i + 1));
}

/*
 * rb_watch_serve - evaluate the entries a monitor asked for, remove the
 * ones it gave up; from a hook (or a stop) of the ring's owner
 */
void rb_watch_serve(struct rb_thread *t)
{
	struct rb_ring *r = t->ring;
	uint32_t i;

	/* Clear, then look: a request made meanwhile sets the bit again. */
	RB_ATTN_AND(r, ~RB_ATTN_WATCH);
	for (i = 0; i < RB_WATCHES; i++) {
		struct rb_watch *w = &r->watches[i];
		int32_t in = RB_LOAD_ACQ(&w->inuse);

		if (in == -2) {
			if (t->wprog[i] != NULL && rb_wops != NULL) {
				rb_wops->release(t->wprog[i]);
				t->wprog[i] = NULL;
			}
			/* Release: done with the entry before it is free. */
			RB_STORE_REL(&w->inuse, 0);
			continue;
		}
		if (in == 1 && RB_LOAD_ACQ(&w->resready) == 0)
			rb_watch_eval(t, i, w);
	}
}

/* rb_watch_thread_exit - free the exiting thread's compiled expressions */
void rb_watch_thread_exit(struct rb_thread *t)
{
	uint32_t i;

	for (i = 0; i < RB_WATCHES; i++) {
		if (t->wprog[i] != NULL && rb_wops != NULL)
			rb_wops->release(t->wprog[i]);
		t->wprog[i] = NULL;
	}
}
