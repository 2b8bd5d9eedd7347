/* SPDX-License-Identifier: MIT */
/*
 * dyn.h - dynamic tracing: the hooks' call sites switched between the call
 * and a no-op while the program runs (rbtrace(5), "DYNAMIC TRACING").
 */
#ifndef RB_DYN_DYN_H
#define RB_DYN_DYN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rbtrace/format.h"

struct rb_thread;

/* rb_dyn_request()'s results */
#define RB_DYN_OK		0
#define RB_DYN_FAILED		-1

/*
 * At process set-up, before the program's own threads: RBTRACE_DORMANT,
 * RBTRACE_EXCLUDE, RBTRACE_INCLUDE, RBTRACE_AUTO_EXCLUDE.
 */
void	rb_dyn_setup(void);

/*
 * A request, done at once by the calling thread, which must not be in a
 * hook (it allocates, locks, and makes system calls).  One request per
 * line: "wake", "sleep", "exclude PATTERN", "include PATTERN",
 * "exclude-addr 0xADDR", "include-addr 0xADDR", "include-all", "status".
 * @msg receives one line per request done, or why it failed.
 */
int	rb_dyn_request(const char *req, char *msg, size_t msglen);

/*
 * The same from inside a hook (a monitor's command): @req is handed to
 * the library's worker thread, which does it soon.  Return: 0 queued, -1
 * with @msg saying why not.
 */
int	rb_dyn_post(struct rb_thread *t, const char *req, char *msg,
	    size_t msglen);

/* Is this process asleep (every site off)?  Woken since it slept? */
bool	rb_dyn_asleep(void);
bool	rb_dyn_woken(void);
bool	rb_dyn_cut(uint64_t fn);

/* Are site tables built (an object loaded later must be brought in line)? */
bool	rb_dyn_active(void);
void	rb_dyn_loaded(void);

/* The worker thread, which is never traced. */
pid_t	rb_dyn_tid(void);

/* fork(): no batch under way across it; the child's entry in the file its own. */
void	rb_dyn_fork_prepare(void);
void	rb_dyn_fork_parent(void);
void	rb_dyn_fork_child(void);

#endif
