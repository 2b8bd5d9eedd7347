/* SPDX-License-Identifier: MIT */
/* inject.h - load a shared object into a running process and call into it, under ptrace. */
#ifndef RBTRACE_INJECT_H
#define RBTRACE_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How long a call into the process may take before it is given up. */
#define RB_INJECT_TIMEOUT_MS	10000

/* The longest argument and message a call carries (on the thread's stack). */
#define RB_INJECT_ARG_MAX	65536
#define RB_INJECT_MSG_MAX	65536

/* A process with one of its threads stopped, and that thread's saved state. */
struct rb_inject;

/*
 * rb_inject_open - stop one thread of process @pid and save its registers
 * @tid: the thread to stop, or 0 to choose: one blocked in a system call
 *       that holds no lock of the C library (nanosleep, poll, select,
 *       epoll_wait, read, accept, wait4, ...), else the main thread, else
 *       any.  The other threads run on throughout.
 * @err, @errlen: on failure, one line saying why (no such process, a
 *       zombie, not permitted and by what, traced already, statically
 *       linked, 32-bit, exited meanwhile)
 *
 * The thread is seized (PTRACE_SEIZE, PTRACE_INTERRUPT) wherever it is,
 * and every register saved: the general ones with orig_rax (a system call
 * it was in restarts at rb_inject_close), the x87/SSE/AVX state.  Until
 * rb_inject_close the calling thread blocks SIGCHLD (how a stop or an exit
 * of the target is awaited: one for a child of the caller's meanwhile is
 * taken too, reap children with waitpid), SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT (an interrupted tool would leave the thread in a call); block
 * them in every other thread of a threaded caller.  The thread stays stopped until
 * rb_inject_close: keep what lies between short.
 *
 * Return: the handle, or NULL with @err set.
 */
struct rb_inject *rb_inject_open(pid_t pid, pid_t tid, char *err, size_t errlen);

/* rb_inject_tid - the thread rb_inject_open stopped. */
pid_t rb_inject_tid(const struct rb_inject *in);

/* rb_inject_set_timeout - give a call @ms milliseconds, not RB_INJECT_TIMEOUT_MS. */
void rb_inject_set_timeout(struct rb_inject *in, unsigned ms);

/*
 * rb_inject_dlopen - dlopen(@path, RTLD_NOW) in the stopped thread
 * @path: the shared object; it must be the same file at that path in the
 *        process's mount namespace and root
 *
 * Uses the process's own dlopen (glibc 2.34 and later, musl; older glibc:
 * libdl's where it is loaded, else __libc_dlopen_mode).
 *
 * Return: 0, or -1 with @err set (dlerror()'s text read from the process,
 * escaped, where its C library gives one).
 */
int rb_inject_dlopen(struct rb_inject *in, const char *path, char *err, size_t errlen);

/*
 * rb_inject_call - call int @func(const char *arg, char *msg, size_t msglen)
 * in the stopped thread
 * @lib: the loaded object defining @func (a dynamic symbol), found in the
 *       process's maps by device and inode
 * @arg: copied into the process (at most RB_INJECT_ARG_MAX bytes)
 * @ret: what @func returned
 * @msg, @msglen: what @func wrote into its @msg (as many bytes, at most
 *       RB_INJECT_MSG_MAX), NUL-terminated, "" on failure; the process's
 *       own bytes, unescaped: escape them before printing
 *
 * Signals that arrive for the thread meanwhile are the program's and
 * delivered to it.  A call that crashes (a fault other than its return)
 * is reported and the thread's state put back at rb_inject_close; no
 * further call is made.  A call that has not returned after the timeout
 * is left running, detached, and said so: no further call is possible.
 *
 * Return: 0, or -1 with @err set.
 */
int rb_inject_call(struct rb_inject *in, const char *lib, const char *func,
		   const char *arg, int *ret, char *msg, size_t msglen,
		   char *err, size_t errlen);

/*
 * rb_inject_resolve - look up @func in @lib as loaded in @pid before any
 * thread is stopped, so that the next rb_inject_call of it holds the
 * thread only for the call (the library must be loaded already and stay)
 *
 * Return: 0, or -1 with @err set as rb_inject_call would.
 */
int rb_inject_resolve(pid_t pid, const char *lib, const char *func,
		      char *err, size_t errlen);
/* A thread stopped, as rb_inject_hold() gives it. */
struct rb_inject_thread {
	pid_t		tid;
	uint64_t	rip, rsp, rbp, rbx, r12, r13, r14, r15;
};

/*
 * rb_inject_hold - stop every other thread of the process too, until
 * rb_inject_close, to look at them all as they are
 * @out, @max: filled with the thread rb_inject_open stopped (its registers
 *       as it was stopped), then each other thread that stopped within a
 *       second; one in uninterruptible sleep is left out (it would not
 *       stop), one that stops later is let go at rb_inject_close
 *
 * Each is seized and interrupted as the first was, never signalled: a
 * system call it waits in restarts when it goes on, as after any stop
 * (signal(7)); an epoll wait without a timeout, which would say EINTR, is
 * restarted too.  Threads started meanwhile are stopped as well.
 *
 * Return: how many threads @out holds, or -1 with @err set.
 */
int rb_inject_hold(struct rb_inject *in, struct rb_inject_thread *out,
		   size_t max, char *err, size_t errlen);

/*
 * rb_inject_mapped - is @lib (the same device and inode, seen from inside
 * the process's root) mapped in process @pid?
 *
 * Return: 1 yes, 0 no, -1 cannot tell (no such process, not permitted).
 */
int rb_inject_mapped(pid_t pid, const char *lib);

/*
 * rb_inject_close - put back every register of the stopped thread exactly
 * as it was (a system call it was interrupted in restarts as if nothing
 * happened) and detach, and the threads rb_inject_hold stopped: the
 * process runs on.  Frees @in; restores the
 * signal mask.  After an exit or a timeout, only frees.
 *
 * Return: how long the thread was stopped, in nanoseconds.
 */
uint64_t rb_inject_close(struct rb_inject *in);

#endif
