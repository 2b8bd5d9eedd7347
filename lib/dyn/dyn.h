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

/* Is this process asleep (every site off)? */
bool	rb_dyn_asleep(void);

/* A fork child: its text is its parent's; its entry in the file its own. */
void	rb_dyn_fork_child(void);

#endif
