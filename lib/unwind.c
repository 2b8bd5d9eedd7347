/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - frames that leave without their exit hooks, dropped as they
 * go: a caught C++ exception (clang's unwinding calls no exit hook) and
 * longjmp.  The library interposes the functions that resume execution
 * higher up the stack, drops the frames below the point they resume at,
 * then calls the real function.  See rbtrace(5), "FRAMES UNWOUND WITHOUT
 * EXIT HOOKS".
 */
#include "config.h"

#include <setjmp.h>
#include <stdlib.h>

#include "internal.h"

/* The caller's stack pointer at the call: this function's frame address. */
#if defined(__GNUC__) && !defined(__clang__)
#define RB_CALLER_SP()	((uint64_t)(uintptr_t)__builtin_dwarf_cfa())
#else
#define RB_CALLER_SP()	((uint64_t)(uintptr_t)__builtin_frame_address(0) + 16)
#endif

typedef void *(*rb_begin_catch_fn)(void *);
typedef void (*rb_longjmp_fn)(struct __jmp_buf_tag *, int)
	__attribute__((noreturn));

void *__cxa_begin_catch(void *exc);
void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
	__attribute__((noreturn));

/* The next definition of @name: the C++ runtime's, libc's. */
static RB_NOINSTR void *rb_next(void **cache, const char *name)
{
	void *p = rb_sym_next(cache, name);

	if (p == NULL) {
		/* Only a caller that found ours first gets here. */
		rb_warnf("rbtrace: %s: not found after librbtrace", name);
		abort();
	}
	return p;
}

/*
 * A catch clause runs: every frame below the catching function's stack
 * pointer (this call's frame address) was unwound.
 */
RB_NOINSTR __attribute__((visibility("default")))
void *__cxa_begin_catch(void *exc)
{
	static void *next;
	rb_begin_catch_fn fn = (rb_begin_catch_fn)rb_next(&next,
							 "__cxa_begin_catch");

	rb_stack_drop_below(RB_CALLER_SP());
	return fn(exc);
}

/*
 * Where a longjmp resumes: the stack pointer setjmp saved, which glibc
 * keeps mangled with the thread's pointer guard (x86_64: xor, then rotate
 * left by 17).  Return: 0 when unknown or implausible (not 16-byte
 * aligned, as at a call; not above this frame; more than 1 GiB above it).
 */
static RB_NOINSTR uint64_t rb_jmp_sp(const struct __jmp_buf_tag *env)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	uint64_t v = (uint64_t)env->__jmpbuf[6], guard, here;

	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	v = ((v >> 17) | (v << 47)) ^ guard;
	here = RB_CALLER_SP();
	if ((v & 15) != 0 || v <= here || v - here > (1ull << 30))
		return 0;
	return v;
#else
	(void)env;
	return 0;
#endif
}

static RB_NOINSTR void rb_jmp_drop(const struct __jmp_buf_tag *env)
{
	uint64_t sp = rb_jmp_sp(env);

	if (sp != 0)
		rb_stack_drop_below(sp);
}

#define RB_LONGJMP(name)						\
RB_NOINSTR __attribute__((visibility("default"), noreturn))		\
void name(struct __jmp_buf_tag env[1], int val)				\
{									\
	static void *next;						\
	rb_longjmp_fn fn = (rb_longjmp_fn)rb_next(&next, #name);	\
									\
	rb_jmp_drop(env);						\
	fn(env, val);							\
}

RB_LONGJMP(longjmp)
RB_LONGJMP(_longjmp)
RB_LONGJMP(siglongjmp)
RB_LONGJMP(__longjmp_chk)
