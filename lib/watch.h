/* SPDX-License-Identifier: MIT */
/*
 * watch.h - between librbtrace and its expression module, rbtrace-watch.so.
 *
 * The library's worker thread loads the module with dlopen() on the first
 * watch the process gets, so programs that are never watched never load
 * it, nor libdw.  The worker compiles and releases programs; the watched
 * thread evaluates them at its hooks.  Not installed.
 */
#ifndef RB_WATCH_H
#define RB_WATCH_H

#include <stddef.h>

#define RB_WATCH_ABI		2
#define RB_WATCH_MODULE		"rbtrace-watch.so"
#define RB_WATCH_ENTRY		"rbtrace_watch_ops"

/*
 * Where a value's text goes, piece by piece.  Returns non-zero once it
 * wants no more (the evaluator then stops formatting).
 */
typedef int (*rb_watch_sink)(void *ctx, const char *s, size_t n);

struct rb_watch_ops {
	int	abi;		/* RB_WATCH_ABI */
	/*
	 * Compile expression text (not NUL-terminated) once, in any thread
	 * (the library's worker).  Never returns NULL but when out of
	 * memory; a program that did not compile reports its error at every
	 * eval.  Thread-safe; allocates and locks.
	 */
	void	*(*compile)(const char *expr, size_t len);
	/* Whether prog was compiled from this text. */
	int	(*same)(const void *prog, const char *expr, size_t len);
	/*
	 * Evaluate in the calling thread (thread-locals are its own) and send
	 * the value's text to put.  Returns 0, or -1 with a message in err
	 * (nothing was sent).  Reads of the program's memory cannot fault;
	 * no locks, no allocation: safe in a hook.  One thread at a time per
	 * program.
	 */
	int	(*eval)(void *prog, rb_watch_sink put, void *ctx,
			char *err, size_t errsz);
	/* Free prog, in any thread but while it is evaluated. */
	void	(*release)(void *prog);
};

typedef const struct rb_watch_ops *(*rb_watch_entry_fn)(void);

#endif /* RB_WATCH_H */
