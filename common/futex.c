/* SPDX-License-Identifier: MIT */
/* futex.c - futex wait and wake, and waking a ring's stopped owner. */
#include "config.h"

#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/futex.h"

#define RB_FUTEX_SEC	1000000000ull

static void rb_futex_call(void *addr, int op, uint32_t val, uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / RB_FUTEX_SEC),
		.tv_nsec = (long)(ns % RB_FUTEX_SEC),
	};

	syscall(SYS_futex, addr, op, val,
		ns == RB_FUTEX_FOREVER ? NULL : &ts, NULL, 0);
}

/* rb_futex_wake - wake every waiter on the shared word at @addr */
void rb_futex_wake(void *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/*
 * rb_futex_wait - sleep on the shared word at @addr while it holds @val,
 * at most @ns nanoseconds (RB_FUTEX_FOREVER: no limit); a wake, a signal
 * or another value returns early
 */
void rb_futex_wait(void *addr, uint32_t val, uint64_t ns)
{
	rb_futex_call(addr, FUTEX_WAIT, val, ns);
}

/* rb_futex_wake_private - wake up to @n waiters on this process's word */
void rb_futex_wake_private(void *addr, int n)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* rb_futex_wait_private - rb_futex_wait() on this process's word */
void rb_futex_wait_private(void *addr, uint32_t val, uint64_t ns)
{
	rb_futex_call(addr, FUTEX_WAIT_PRIVATE, val, ns);
}

/**
 * rb_ring_wake - wake @r's owner if it is stopped: bump wake, FUTEX_WAKE
 *
 * After the request that the caller made (cmdready, a watch entry, an
 * attention bit, header.single).
 */
void rb_ring_wake(struct rb_ring *r)
{
	/* Release: the request before the bump; pairs with the stopped owner's acquire load of wake (rbtrace(5), "Stopping"). */
	__atomic_fetch_add(&r->wake, 1, __ATOMIC_RELEASE);
	rb_futex_wake(&r->wake);
}
