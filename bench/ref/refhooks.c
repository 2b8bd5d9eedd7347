/* SPDX-License-Identifier: MIT */
/*
 * bench/ref/refhooks.c - reference hooks for bench/overhead.sh: the least a
 * tracer of the same kind could do, preloaded in place of librbtrace.so,
 * to measure the library against in the same run.
 *
 * Built twice (bench/local.mk):
 *   librefstack.so   REF_EVENTS undefined: the live stack, store-only: the
 *                    function stored in a per-thread array on entry, the
 *                    depth moved back on exit; no clock, no shared file;
 *   librefevents.so  REF_EVENTS defined: an event logger, one timestamp
 *                    (the TSC, as librbtrace reads it) and two stores per
 *                    event (time, function | kind) into a per-thread ring
 *                    of REF_EVENT_SLOTS records.
 * Neither is safe against signals or anything a real tracer must survive;
 * both keep their arrays per thread, allocated at the thread's first call.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <x86intrin.h>

#define REF_STACK_SLOTS	1024		/* power of two */
#define REF_EVENT_SLOTS	65536		/* records, power of two */

#define REF_TLS	__attribute__((tls_model("initial-exec")))
#define REF_API	__attribute__((visibility("default"), no_instrument_function))

#ifndef REF_EVENTS
struct ref_thread {
	uint32_t	depth;
	uint64_t	fn[REF_STACK_SLOTS];
};
#else
struct ref_thread {
	uint64_t	head;
	uint64_t	rec[2 * REF_EVENT_SLOTS];
};
#endif

static __thread struct ref_thread *ref_self REF_TLS;

/* A thread's array, at its first call; NULL if memory is short. */
static __attribute__((noinline, no_instrument_function)) struct ref_thread *
ref_start(void)
{
	void	*p = mmap(NULL, sizeof(struct ref_thread), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ref_self = p == MAP_FAILED ? NULL : p;
	return ref_self;
}

#ifndef REF_EVENTS
REF_API void
__cyg_profile_func_enter(void *fn, void *site)
{
	struct ref_thread	*t = ref_self;

	(void)site;
	if (__builtin_expect(t == NULL, 0) && (t = ref_start()) == NULL)
		return;
	t->fn[t->depth++ & (REF_STACK_SLOTS - 1)] = (uintptr_t)fn;
}

REF_API void
__cyg_profile_func_exit(void *fn, void *site)
{
	struct ref_thread	*t = ref_self;

	(void)fn;
	(void)site;
	if (__builtin_expect(t != NULL, 1))
		t->depth--;
}
#else
static inline __attribute__((always_inline)) void
ref_event(uint64_t word)
{
	struct ref_thread	*t = ref_self;
	uint64_t		 i;

	if (__builtin_expect(t == NULL, 0) && (t = ref_start()) == NULL)
		return;
	i = t->head++ & (REF_EVENT_SLOTS - 1);
	t->rec[2 * i] = __rdtsc();
	t->rec[2 * i + 1] = word;
}

REF_API void
__cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	ref_event((uintptr_t)fn);
}

REF_API void
__cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	ref_event((uintptr_t)fn | 1);
}
#endif
