/* SPDX-License-Identifier: MIT */
/* init.c - process life: start-up, fork, exec and exit. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/tracepath.h"
#include "internal.h"
#include "lib/dyn/dyn.h"
#include "rbtrace/rbtrace.h"

struct rb_process rb_proc;
pthread_key_t rb_thread_key;

/* The forking thread's slots, copied before fork() for the child. */
static char *rb_fork_frames;
static uint32_t rb_fork_depth;
static int rb_fork_traced;
static pid_t rb_fork_tid;
static pid_t rb_fork_ppid;
static pthread_mutex_t rb_fork_lock = PTHREAD_MUTEX_INITIALIZER;

/* Settings: the environment, or an attach's request (attach.c). */
static const char *rb_getenv(const char *name)
{
	if (rb_attach_state() != RB_ATT_NONE)
		return rb_attach_getenv(name);
	return secure_getenv(name);
}

/*
 * RBTRACE_FILE, a relative path made absolute against the directory we
 * started in and put back into the environment: exec'd children that
 * changed directory join the same file (rbtrace(5)).  Once absolute, it
 * stays as it is.
 */
static const char *rb_file_env(void)
{
	const char *path = rb_getenv("RBTRACE_FILE");
	char abs[sizeof(rb_proc.map.path)];

	if (path != NULL && *path != '\0' && *path != '/' &&
	    rb_attach_state() == RB_ATT_NONE &&
	    rb_path_absolute(path, abs, sizeof(abs)) == 0 &&
	    setenv("RBTRACE_FILE", abs, 1) == 0)
		path = rb_getenv("RBTRACE_FILE");
	return path;
}

static void rb_thread_exit_cb(void *arg)
{
	(void)arg;
	rb_thread_detach(&rb_self);
}

static void rb_fork_prepare(void)
{
	struct rb_thread *t = &rb_self;

	/* The child must find nothing held by a thread it lacks: no batch of sites half written, */
	rb_dyn_fork_prepare();
	/* no attach under way, */
	rb_attach_fork_lock();
	/* no thread of ours half-started, */
	rb_watch_fork_prepare();
	/* and every process-private lock. */
	pthread_mutex_lock(&rb_fork_lock);
	pthread_mutex_lock(&rb_objects_lock);
	pthread_mutex_lock(&rb_thread_lock);
	rb_fork_traced = t->state == RB_T_TRACED && rb_fork_frames != NULL;
	rb_fork_tid = rb_attach_state() == RB_ATT_ON ? rb_gettid() : 0;
	/* The child's getppid() is 1 once we have exited: it keeps us. */
	rb_fork_ppid = getpid();
	if (!rb_fork_traced)
		return;
	/* Our own ring, and we are inside fork(): no hook of ours writes it now. */
	rb_fork_depth = t->depth;
	memcpy(rb_fork_frames, t->slots, (size_t)t->nslots * t->slot_size);
}

static void rb_fork_unlock(void)
{
	pthread_mutex_unlock(&rb_thread_lock);
	pthread_mutex_unlock(&rb_objects_lock);
	pthread_mutex_unlock(&rb_fork_lock);
	rb_attach_fork_unlock();
}

static void rb_fork_parent(void)
{
	rb_fork_unlock();
	rb_dyn_fork_parent();
}

static void rb_fork_child(void)
{
	struct rb_thread *t = &rb_self;
	struct rb_map *m = &rb_proc.map;
	uint64_t parent_image = rb_proc.image;
	int idx;

	rb_proc.pid = getpid();
	rb_proc.ppid = rb_fork_ppid;
	rb_proc.pstart = rb_proc_start_time(rb_proc.pid);
	rb_proc.image = __atomic_add_fetch(&m->hdr->next_image, 1,
					   __ATOMIC_RELAXED);
	rb_thread_table_reset();
	/* No worker here: the parent's is not ours (before any setup). */
	rb_watch_fork_child();
	/* rb_thread_setup() takes these. */
	pthread_mutex_unlock(&rb_thread_lock);
	pthread_mutex_unlock(&rb_objects_lock);
	rb_objects_copy(m, parent_image, rb_proc.pid, rb_proc.pstart,
			rb_proc.image);
	rb_bp_fork_child(parent_image);

	/* The parent's ring stays the parent's; this thread needs its own. */
	t->gate = NULL;
	t->ring = NULL;
	if (t->state == RB_T_TRACED || t->state == RB_T_UNTRACED)
		t->state = RB_T_NEW;
	/* Forked by a thread that ran before the attach and has no ring yet: so did this one. */
	if (!rb_fork_traced && rb_fork_tid != 0)
		rb_attach_forked(rb_fork_tid);
	if (rb_fork_traced) {
		idx = rb_ring_claim(m, rb_proc.pid);
		if (idx >= 0) {
			rb_thread_setup(t, (uint32_t)idx, rb_fork_frames,
					rb_fork_depth);
		} else {
			rb_thread_no_ring(m);
			t->state = RB_T_UNTRACED;
		}
	}
	pthread_setspecific(rb_thread_key, t->ring);
	pthread_mutex_unlock(&rb_fork_lock);
	rb_attach_fork_unlock();
	rb_dyn_fork_child();
}

/*
 * `rbtrace record`: the program's first records wait in the drain logs
 * until the recorder has attached, or @secs have passed; no longer, so a
 * recorder that failed to start costs a pause, never a hang.
 */
static void rb_wait_recorder(uint32_t secs)
{
	const struct timespec tick = { 0, 1000000 };
	uint64_t end = rb_clock_mono_ns() + (uint64_t)secs * 1000000000u;

	while (RB_LOAD(&rb_proc.map.hdr->ev_consumer) == 0) {
		if (rb_clock_mono_ns() >= end) {
			rb_warnf("rbtrace: no recorder attached to %s within %u s; running on",
				 rb_proc.map.path, secs);
			return;
		}
		nanosleep(&tick, NULL);
	}
}

/*
 * The program's name: its executable's, which setproctitle() leaves alone
 * where it rewrites argv[0] (rbtrace(5), "ENVIRONMENT"); argv[0]'s only
 * when /proc is not there.  @buf is scratch space for the link.
 */
static void rb_self_name(char *out, size_t size, char *buf, size_t bufsize)
{
	ssize_t n = readlink("/proc/self/exe", buf, bufsize - 1);

	if (n <= 0) {
		rb_progname(program_invocation_short_name, out, size);
		return;
	}
	buf[n] = '\0';
	rb_exe_progname(buf, out, size);
}

static bool rb_process_setup(void)
{
	struct rb_settings *s = &rb_proc.set;
	char program[RB_PROGRAM_MAX], dflt[4096];
	const char *path;
	pthread_t *owners;
	struct rb_thread **selves;
	size_t frames;

	rb_settings_defaults(s);
	rb_settings_from_env(s, rb_getenv, rb_warn);
	rb_clock_select(s->clock);
	rb_proc.pid = getpid();
	rb_proc.pstart = rb_proc_start_time(rb_proc.pid);
	rb_self_name(program, sizeof(program), dflt, sizeof(dflt));

	path = rb_file_env();
	if (path != NULL && *path == '\0') {
		rb_warn("rbtrace: RBTRACE_FILE is empty; using the default path");
		path = NULL;
	}
	if (path == NULL) {
		rb_trace_path(dflt, sizeof(dflt), rb_getenv("TMPDIR"), program,
			      rb_proc.pid);
		path = dflt;
	}
	if (rb_file_open(&rb_proc.map, path, s, rb_proc.pid, rb_proc.pstart,
			 program) < 0)
		return false;
	rb_bp_setup();
	rb_cap_setup();
	/* A joined file keeps the clock its creator chose. */
	rb_clock_kind = (int)rb_proc.map.geo.clock;
	/* exec'd children join this file through the environment; an attached program's is left alone */
	if (path == dflt && rb_attach_state() == RB_ATT_NONE)
		setenv("RBTRACE_FILE", path, 1);

	/* Private memory: fork snapshots and the ring -> pthread table. */
	frames = (size_t)rb_proc.map.geo.slots * rb_proc.map.geo.slot_size;
	rb_fork_frames = mmap(NULL, frames, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rb_fork_frames == MAP_FAILED)
		rb_fork_frames = NULL;
	owners = mmap(NULL, rb_proc.map.geo.rings * sizeof(pthread_t),
		      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	selves = mmap(NULL, rb_proc.map.geo.rings * sizeof(*selves),
		      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (owners == MAP_FAILED || selves == MAP_FAILED)
		rb_thread_table_init(NULL, NULL);
	else
		rb_thread_table_init(owners, selves);

	rb_proc.image = __atomic_add_fetch(&rb_proc.map.hdr->next_image, 1,
					   __ATOMIC_RELAXED);
	rb_objects_register(&rb_proc.map, rb_proc.pid, rb_proc.pstart,
			    rb_proc.image);
	if (!rb_proc.map.created) {
		rb_ring_release_image(&rb_proc.map, rb_proc.pid, rb_proc.pstart,
				      rb_proc.image);
		rb_bp_image_start();
	}
	if (pthread_key_create(&rb_thread_key, rb_thread_exit_cb) != 0 ||
	    pthread_atfork(rb_fork_prepare, rb_fork_parent, rb_fork_child) != 0) {
		rb_warn("rbtrace: cannot register thread and fork handlers; running untraced");
		return false;
	}
	rb_clock_calibrate(rb_proc.map.hdr);
	rb_snapshot_setup(rb_getenv);
	rb_cap_arm_env();
	if (rb_proc.map.created && s->record_wait != 0)
		rb_wait_recorder(s->record_wait);
	return true;
}

/**
 * rb_process_init - set the process up once, from whichever comes first:
 * the constructor or a hook
 *
 * Return: true once tracing is ready; false while another thread is
 * setting it up, or for good if it failed.
 */
bool rb_process_init(void)
{
	int expect = RB_INIT_NONE;
	int saved = errno;
	bool ok;

	/* Acquire: a thread that sees DONE sees everything the setup wrote. */
	if (!atomic_compare_exchange_strong_explicit(&rb_proc.init, &expect,
			RB_INIT_BUSY, memory_order_acquire, memory_order_acquire))
		return expect == RB_INIT_DONE;
	ok = rb_process_setup();
	/* Release: pairs with the acquire above and with dlopen()'s check. */
	atomic_store_explicit(&rb_proc.init, ok ? RB_INIT_DONE : RB_INIT_FAILED,
			      memory_order_release);
	errno = saved;
	return ok;
}

/*
 * The file is created at the first hook, so programs that are not
 * instrumented leave no file behind.  An existing file is joined at once:
 * an exec'd image, instrumented or not, must release the rings of its
 * pre-exec self.  A relative path is made absolute here already, for the
 * programs that never trace but start others elsewhere (make -C).
 */
__attribute__((constructor(101))) static void rb_constructor(void)
{
	const char *path = rb_file_env();

	if (path != NULL && *path && access(path, F_OK) == 0)
		rb_process_init();
	/* RBTRACE_DORMANT, RBTRACE_DYN, RBTRACE_AUTO_EXCLUDE: before main(). */
	rb_dyn_setup();
	/* RBTRACE_CAPTURE: its names resolved here, where allocating is safe. */
	rb_cap_env();
}

/* exit(): the calling thread is done; other threads' rings stay as they are. */
__attribute__((destructor(101))) static void rb_destructor(void)
{
	if (rb_self.state == RB_T_TRACED)
		rb_thread_detach(&rb_self);
}

const char *rbtrace_file(void)
{
	if (atomic_load_explicit(&rb_proc.init, memory_order_acquire) != RB_INIT_DONE)
		return NULL;
	return rb_proc.map.path;
}
