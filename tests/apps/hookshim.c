/* SPDX-License-Identifier: MIT */
/*
 * hookshim.c - preloaded before librbtrace: counts what a thread does
 * inside a hook that a hook must never do (rbtrace(5), WATCHES): allocate
 * or free memory, take a lock, load an object, walk the loaded objects.
 *
 * Its __cyg_profile_func_enter/exit mark the calling thread as inside a
 * hook around librbtrace's; its malloc() & co., pthread_mutex_lock(),
 * the rwlocks, dlopen() and dl_iterate_phdr() count the calls made while
 * marked.  SIGUSR2 writes one line to stderr:
 *
 *   hookshim alloc N lock N dlopen N phdr N first 0xADDR
 *
 * (ADDR: where the first counted call since the last report came from,
 * 0 if none).  Not built
 * with -finstrument-functions: nothing here is ever traced.
 *
 * Under AddressSanitizer, whose runtime is preloaded first and owns
 * malloc(), the allocations are counted by the runtime's allocator hooks
 * (ADDR is then in the runtime); its pthread_mutex_lock() and its own
 * start-up, which runs before this object's constructor, call in here.
 * Not built with the sanitizers either: their start-up calls
 * dl_iterate_phdr() before they can check any code.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT	__attribute__((visibility("default")))

/* glibc's own allocator, which interposed malloc() hands on to. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

/* AddressSanitizer's, when its runtime is loaded. */
extern int __sanitizer_install_malloc_and_free_hooks(
	void (*malloc_hook)(const volatile void *, size_t),
	void (*free_hook)(const volatile void *)) __attribute__((weak));

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static __thread int shim_in_hook;
static bool shim_ready;		/* set by the constructor, before any thread */
static unsigned long shim_alloc, shim_lock, shim_dlopen, shim_phdr;
static uintptr_t shim_first;

static void (*shim_enter)(void *, void *);
static void (*shim_exit)(void *, void *);
static int (*shim_mutex_lock)(pthread_mutex_t *);
static int (*shim_rdlock)(pthread_rwlock_t *);
static int (*shim_wrlock)(pthread_rwlock_t *);
static void *(*shim_dlopen_fn)(const char *, int);
static int (*shim_phdr_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);

static void shim_count(unsigned long *n, void *from)
{
	uintptr_t none = 0;

	/* No hook runs before; a sanitizer's start-up cannot reach TLS yet. */
	if (!shim_ready || !shim_in_hook)
		return;
	__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&shim_first, &none, (uintptr_t)from, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

#define COUNT(n)	shim_count(&(n), __builtin_return_address(0))

/*
 * From the constructor, or from a call that comes before it (the
 * sanitizer runtime's start-up, single-threaded).
 */
static void shim_resolve(void)
{
	*(void **)&shim_enter = dlsym(RTLD_NEXT, "__cyg_profile_func_enter");
	*(void **)&shim_exit = dlsym(RTLD_NEXT, "__cyg_profile_func_exit");
	*(void **)&shim_mutex_lock = dlsym(RTLD_NEXT, "pthread_mutex_lock");
	*(void **)&shim_rdlock = dlsym(RTLD_NEXT, "pthread_rwlock_rdlock");
	*(void **)&shim_wrlock = dlsym(RTLD_NEXT, "pthread_rwlock_wrlock");
	*(void **)&shim_dlopen_fn = dlsym(RTLD_NEXT, "dlopen");
	*(void **)&shim_phdr_fn = dlsym(RTLD_NEXT, "dl_iterate_phdr");
}

EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
	if (shim_enter == NULL)
		return;
	shim_in_hook++;
	shim_enter(fn, site);
	shim_in_hook--;
}

EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
	if (shim_exit == NULL)
		return;
	shim_in_hook++;
	shim_exit(fn, site);
	shim_in_hook--;
}

static void shim_malloc_hook(const volatile void *p, size_t n)
{
	(void)p;
	(void)n;
	COUNT(shim_alloc);
}

static void shim_free_hook(const volatile void *p)
{
	(void)p;
	COUNT(shim_alloc);
}

EXPORT void *malloc(size_t n)
{
	COUNT(shim_alloc);
	return __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t size)
{
	COUNT(shim_alloc);
	return __libc_calloc(n, size);
}

EXPORT void *realloc(void *p, size_t n)
{
	COUNT(shim_alloc);
	return __libc_realloc(p, n);
}

EXPORT void free(void *p)
{
	if (p != NULL)
		COUNT(shim_alloc);
	__libc_free(p);
}

EXPORT void *memalign(size_t align, size_t n)
{
	COUNT(shim_alloc);
	return __libc_memalign(align, n);
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	COUNT(shim_alloc);
	return __libc_memalign(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	COUNT(shim_alloc);
	p = __libc_memalign(align, n);
	if (p == NULL)
		return 12;	/* ENOMEM */
	*out = p;
	return 0;
}

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	COUNT(shim_lock);
	if (shim_mutex_lock == NULL)
		shim_resolve();
	return shim_mutex_lock(m);
}

EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	COUNT(shim_lock);
	if (shim_rdlock == NULL)
		shim_resolve();
	return shim_rdlock(l);
}

EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	COUNT(shim_lock);
	if (shim_wrlock == NULL)
		shim_resolve();
	return shim_wrlock(l);
}

EXPORT void *dlopen(const char *file, int mode)
{
	COUNT(shim_dlopen);
	if (shim_dlopen_fn == NULL)
		shim_resolve();
	return shim_dlopen_fn(file, mode);
}

EXPORT int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *),
			   void *arg)
{
	COUNT(shim_phdr);
	if (shim_phdr_fn == NULL)
		shim_resolve();
	return shim_phdr_fn(cb, arg);
}

/* Async-signal-safe: a number into buf, backwards from its end. */
static char *shim_num(char *end, uintptr_t v, unsigned base)
{
	*--end = '\0';
	do {
		*--end = "0123456789abcdef"[v % base];
		v /= base;
	} while (v != 0);
	return end;
}

static void shim_put(const char *s)
{
	ssize_t n = write(2, s, strlen(s));

	(void)n;
}

static void shim_report(int sig)
{
	char buf[32];

	(void)sig;
	shim_put("hookshim alloc ");
	shim_put(shim_num(buf + sizeof(buf), __atomic_load_n(&shim_alloc, __ATOMIC_RELAXED), 10));
	shim_put(" lock ");
	shim_put(shim_num(buf + sizeof(buf), __atomic_load_n(&shim_lock, __ATOMIC_RELAXED), 10));
	shim_put(" dlopen ");
	shim_put(shim_num(buf + sizeof(buf), __atomic_load_n(&shim_dlopen, __ATOMIC_RELAXED), 10));
	shim_put(" phdr ");
	shim_put(shim_num(buf + sizeof(buf), __atomic_load_n(&shim_phdr, __ATOMIC_RELAXED), 10));
	shim_put(" first 0x");
	shim_put(shim_num(buf + sizeof(buf),
			  __atomic_exchange_n(&shim_first, 0, __ATOMIC_RELAXED), 16));
	shim_put("\n");
}

/* Before any constructor of the program (its hooks count from then on). */
__attribute__((constructor(101))) static void shim_init(void)
{
	struct sigaction sa;

	shim_resolve();
	if (__sanitizer_install_malloc_and_free_hooks != NULL)
		__sanitizer_install_malloc_and_free_hooks(shim_malloc_hook,
							  shim_free_hook);
	shim_ready = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = shim_report;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
}
