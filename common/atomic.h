/* SPDX-License-Identifier: MIT */
/*
 * atomic.h - atomic access to the words of the shared file, spelt once for
 * the library and the monitor.  Each use says what it orders and what it
 * pairs with; the pairs of the stack, the event log and the breakpoint
 * table carry the letters of rbtrace(5), "ORDERING".
 */
#ifndef RB_COMMON_ATOMIC_H
#define RB_COMMON_ATOMIC_H

#include <stdbool.h>

/* Loads and stores: relaxed, acquire, release, sequentially consistent. */
#define RB_LOAD(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define RB_STORE(p, v)		__atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define RB_LOAD_ACQ(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define RB_STORE_REL(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define RB_STORE_SEQ(p, v)	__atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

/* Fences: between threads, and with a signal handler of this thread only. */
#define RB_FENCE_ACQ()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define RB_FENCE_REL()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define RB_FENCE_SEQ()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define RB_SIGNAL_FENCE()	__atomic_signal_fence(__ATOMIC_SEQ_CST)

/*
 * Compare-and-swap, strong: true if *p was *expp and is now v, else false
 * with *expp the value found.  RB_CAS: acquire and release (failure:
 * acquire); _ACQ: acquire (failure: acquire); _REL: release (failure:
 * relaxed); _RLX: relaxed.
 */
#define RB_CAS(p, expp, v)	__atomic_compare_exchange_n((p), (expp), (v), \
					false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define RB_CAS_ACQ(p, expp, v)	__atomic_compare_exchange_n((p), (expp), (v), \
					false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)
#define RB_CAS_REL(p, expp, v)	__atomic_compare_exchange_n((p), (expp), (v), \
					false, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define RB_CAS_RLX(p, expp, v)	__atomic_compare_exchange_n((p), (expp), (v), \
					false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)

/* Counters and flag words: relaxed read-modify-writes. */
#define RB_ADD_FETCH(p, v)	__atomic_add_fetch((p), (v), __ATOMIC_RELAXED)
#define RB_FETCH_ADD(p, v)	__atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define RB_FETCH_OR(p, v)	__atomic_fetch_or((p), (v), __ATOMIC_RELAXED)
#define RB_FETCH_AND(p, v)	__atomic_fetch_and((p), (v), __ATOMIC_RELAXED)

/*
 * The OR and AND of rb_ring.attention (format.h): sequentially consistent,
 * for a monitor sets a bit after the request it announces and the owner
 * clears a bit before it looks at the request; each side's store and its
 * load of the other side's word must not be reordered.
 */
#define RB_ATTN_OR(r, bits)	__atomic_fetch_or(&(r)->attention, (bits), __ATOMIC_SEQ_CST)
#define RB_ATTN_AND(r, bits)	__atomic_fetch_and(&(r)->attention, (bits), __ATOMIC_SEQ_CST)

/*
 * The OR and AND of a breakpoint filter word: acquire and release, so a
 * writer's OR comes after its entry is in force and an exact pass's AND
 * and OR are ordered with the writers' ORs of the same word (rbtrace(5),
 * "The filter"; (L) of "ORDERING").
 */
#define RB_BPF_OR(w, bits)	__atomic_fetch_or((w), (bits), __ATOMIC_ACQ_REL)
#define RB_BPF_AND(w, bits)	__atomic_fetch_and((w), (bits), __ATOMIC_ACQ_REL)

#endif /* RB_COMMON_ATOMIC_H */
