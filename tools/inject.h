/* SPDX-License-Identifier: MIT */
/* inject.h - call functions in a running process, one thread stopped briefly (ptrace). */
#ifndef RBTRACE_INJECT_H
#define RBTRACE_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rb_inject;

/*
 * rb_inject_open - stop one thread of @pid (the others run on) and save
 * its registers.  Return: the handle, or NULL with one line in @err.
 */
struct rb_inject *rb_inject_open(pid_t pid, char *err, size_t errlen);

/* The thread stopped. */
pid_t rb_inject_tid(const struct rb_inject *in);

/*
 * rb_inject_dlopen - dlopen(@path, RTLD_NOW) in the process.  Return: 0,
 * or -1 with the loader's message (dlerror() read from the process).
 */
int rb_inject_dlopen(struct rb_inject *in, const char *path, char *err,
		     size_t errlen);

/*
 * rb_inject_call - call int @func(const char *@arg, char *msg, size_t
 * @msglen), defined by the object @lib loaded in the process, and copy msg
 * back into @msg.  Return: 0 with its value in *@ret, or -1 and @err.
 */
int rb_inject_call(struct rb_inject *in, const char *lib, const char *func,
		   const char *arg, int *ret, char *msg, size_t msglen,
		   char *err, size_t errlen);

/*
 * rb_inject_close - restore every register and let the thread go.
 * Return: how long it was stopped, in ns.
 */
uint64_t rb_inject_close(struct rb_inject *in);

#endif
