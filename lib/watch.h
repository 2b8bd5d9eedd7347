/*
 * watch.h - between librbtrace and its expression module, rbtrace-watch.so.
 *
 * The library loads the module with dlopen() the first time one of the
 * process's threads has a watch to evaluate, so programs that are never
 * watched never load it, nor libdw.  Not installed.
 */
#ifndef RB_WATCH_H
#define RB_WATCH_H

#include <stddef.h>

#define RB_WATCH_ABI		1
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
	 * Compile expression text (not NUL-terminated) once.  Never returns
	 * NULL but when out of memory; a program that did not compile
	 * reports its error at every eval.  Thread-safe.
	 */
	void	*(*compile)(const char *expr, size_t len);
	/* Whether prog was compiled from this text. */
	int	(*same)(const void *prog, const char *expr, size_t len);
	/*
	 * Evaluate in the calling thread and send the value's text to put.
	 * Returns 0, or -1 with a message in err (nothing was sent).  Reads
	 * of the program's memory cannot fault; no locks, no allocation.
	 */
	int	(*eval)(void *prog, rb_watch_sink put, void *ctx,
			char *err, size_t errsz);
	void	(*release)(void *prog);
};

typedef const struct rb_watch_ops *(*rb_watch_entry_fn)(void);

#endif /* RB_WATCH_H */
