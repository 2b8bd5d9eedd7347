/* SPDX-License-Identifier: MIT */
/*
 * atomic.h - atomic access to the words of the shared file, spelt once for
 * the library and the monitor.  Each use says what it orders and what it
 * pairs with.
 */
#ifndef RB_COMMON_ATOMIC_H
#define RB_COMMON_ATOMIC_H

#include <stdbool.h>

#define RB_LOAD(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define RB_STORE(p, v)		__atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define RB_LOAD_ACQ(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define RB_STORE_REL(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define RB_CAS(p, expp, v)	__atomic_compare_exchange_n((p), (expp), (v), \
					false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)

/*
 * The OR and AND of rb_ring.attention (format.h): sequentially consistent,
 * for a monitor sets a bit after the request it announces and the owner
 * clears a bit before it looks at the request; each side's store and its
 * load of the other side's word must not be reordered.
 */
#define RB_ATTN_OR(r, bits)	__atomic_fetch_or(&(r)->attention, (bits), __ATOMIC_SEQ_CST)
#define RB_ATTN_AND(r, bits)	__atomic_fetch_and(&(r)->attention, (bits), __ATOMIC_SEQ_CST)

#endif /* RB_COMMON_ATOMIC_H */
