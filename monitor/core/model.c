/* SPDX-License-Identifier: MIT */
/*
 * rbmon model: open, validate and snapshot a trace file without trusting it.
 * Its loads are the readers' side of the pairs of rbtrace(5), "ORDERING":
 * a slot's (A) and (B) and the ring's depth (C), whose writer is
 * lib/hooks.c, a ring's owner (K) and an object (L).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/clock.h"
#include "common/strl.h"

#include "common/bootid.h"
#include "common/procstat.h"
#include "monitor/core/model.h"
#include "monitor/core/taskstat.h"

static sigjmp_buf		model_jmp;
static volatile sig_atomic_t	model_guard;
static int			model_sigbus_installed;

void				(*rbmon_model_fatal_hook)(void);


/**
 * rbmon_model_check_header - validate a header copy against a file size
 * @h: the copy, read once from the file
 * @file_size: st_size of the file
 * @cause: set to a message (without the file name) on failure
 *
 * Every offset and stride must equal what rb_layout_compute() gives for
 * the geometry, so that later reads need no further checks.
 *
 * Return: 0, or -1 with *@cause set.
 */
int
rbmon_model_check_header(const struct rb_header *h, uint64_t file_size,
    char **cause)
{
	const char	*what;
	uint64_t	 value;

	if (file_size < sizeof *h || memcmp(h->magic, RB_MAGIC,
	    RB_MAGIC_LEN) != 0) {
		rbmon_xasprintf(cause, "not an rbtrace trace file");
		return -1;
	}
	if (h->version != RB_VERSION) {
		rbmon_xasprintf(cause, "trace format version %u; this rbmon "
		    "reads version %d", h->version, RB_VERSION);
		return -1;
	}
	if (h->endian != RB_ENDIAN_MARK) {
		rbmon_xasprintf(cause, "corrupt header (byte order mark "
		    "0x%08x; written on another kind of machine?)", h->endian);
		return -1;
	}
	if (h->header_size != sizeof *h) {
		rbmon_xasprintf(cause, "corrupt header (header size %u, "
		    "expected %zu)", h->header_size, sizeof *h);
		return -1;
	}
	if (h->ready != 1) {
		rbmon_xasprintf(cause, "not ready (its creator has not "
		    "finished setting it up)");
		return -1;
	}

	if (rb_header_check_layout(h, &what, &value) < 0) {
		if (strcmp(what, "layout") == 0)
			rbmon_xasprintf(cause, "corrupt header (layout does not "
			    "match geometry)");
		else
			rbmon_xasprintf(cause, "corrupt header (%s %llu outside "
			    "its limits)", what, (unsigned long long)value);
		return -1;
	}
	if (h->total_size > file_size) {
		rbmon_xasprintf(cause, "truncated: header says %llu bytes, "
		    "file has %llu", (unsigned long long)h->total_size,
		    (unsigned long long)file_size);
		return -1;
	}
	return 0;
}

static int
model_read_header(int fd, struct rb_header *h)
{
	ssize_t	n;

	do
		n = pread(fd, h, sizeof *h, 0);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof *h ? 0 : -1;
}

/**
 * rbmon_model_open - open and map a trace file read-only
 * @m: filled in
 * @path: the file
 * @wait_ms: how long to wait for a header that is not ready yet
 * @cause: message on failure, without the file name
 *
 * Return: 0, or -1 with *@cause set and nothing left open.
 */
int
rbmon_model_open(struct rbmon_model *m, const char *path, int wait_ms,
    char **cause)
{
	struct stat	 st;
	struct rb_header h;
	void		*base;
	int		 fd, waited = 0;

	memset(m, 0, sizeof *m);
	m->fd = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rbmon_xasprintf(cause, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		rbmon_xasprintf(cause, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rbmon_xasprintf(cause, "not an rbtrace trace file");
		goto fail;
	}
	if (st.st_uid != geteuid() && geteuid() != 0) {
		rbmon_xasprintf(cause, "belongs to uid %lu, not you; refusing "
		    "to read it", (unsigned long)st.st_uid);
		goto fail;
	}
	for (;;) {
		static const char	 none[RB_MAGIC_LEN];
		int			 empty;

		/* Just created: empty, or its header not written yet. */
		empty = (uint64_t)st.st_size < sizeof h ||
		    model_read_header(fd, &h) != 0 ||
		    memcmp(h.magic, none, RB_MAGIC_LEN) == 0;
		if ((empty && waited >= wait_ms) || (!empty &&
		    memcmp(h.magic, RB_MAGIC, RB_MAGIC_LEN) != 0)) {
			rbmon_xasprintf(cause, "not an rbtrace trace file");
			goto fail;
		}
		if ((!empty && h.ready == 1) || waited >= wait_ms)
			break;
		usleep(10000);
		waited += 10;
		if (fstat(fd, &st) != 0) {
			rbmon_xasprintf(cause, "%s", strerror(errno));
			goto fail;
		}
	}
	if (rbmon_model_check_header(&h, (uint64_t)st.st_size, cause) != 0)
		goto fail;
	h.program[RB_PROGRAM_MAX - 1] = '\0';
	h.boot_id[RB_BOOT_ID_MAX - 1] = '\0';

	base = mmap(NULL, h.total_size, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		rbmon_xasprintf(cause, "mmap: %s", strerror(errno));
		goto fail;
	}
	m->path = rbmon_xstrdup(path);
	m->fd = fd;
	m->base = base;
	m->size = h.total_size;
	m->hdr = h;
	m->scratch.name = rbmon_xcalloc(1, (size_t)h.slot_sz + 1);
	return 0;

fail:
	close(fd);
	return -1;
}

/**
 * rbmon_model_close - unmap and close a trace file
 * @m: opened by rbmon_model_open(), or zeroed
 */
void
rbmon_model_close(struct rbmon_model *m)
{
	if (m->base != NULL)
		munmap(m->base, m->size);
	if (m->fd >= 0)
		close(m->fd);
	free(m->scratch.name);
	rbmon_tasks_free(m->tasks);
	free(m->path);
	memset(m, 0, sizeof *m);
	m->fd = -1;
}

static inline void
model_cpu_relax(void)
{
	rb_cpu_relax();
}

/**
 * rbmon_model_read_slot - copy one slot under its sequence counter
 * @sl: the slot, in the mapping
 * @slot_sz: name bytes in the slot
 * @out: the copy; out->name must hold @slot_sz + 1 bytes
 *
 * Return: 0 for a consistent copy, -1 if the slot stayed torn.
 */
int
rbmon_model_read_slot(const struct rb_slot *sl, uint32_t slot_sz,
    struct rbmon_slot *out)
{
	uint32_t	s1, s2;
	int		i;

	for (i = 0; i < RBMON_SLOT_TRIES; i++) {
		/*
		 * (B) Acquire: pairs with the owner's release store of the
		 * even seq that ends a slot update, so the fields read below
		 * are at least as new as that update.
		 */
		s1 = RB_LOAD_ACQ(&sl->seq);
		if (s1 & 1) {
			model_cpu_relax();
			continue;
		}
		/* Relaxed: validated by the seq recheck below. */
		out->depth = RB_LOAD(&sl->depth);
		out->fn = RB_LOAD(&sl->fn);
		out->site = RB_LOAD(&sl->site);
		out->hook = RB_LOAD(&sl->hook);
		out->ts = RB_LOAD(&sl->ts);
		out->line = RB_LOAD(&sl->line);
		out->flags = RB_LOAD(&sl->flags);
		/* Only named frames use the name; a torn flags read retries. */
		if (out->flags & RB_SLOT_NAMED)
			memcpy(out->name, rb_slot_name((struct rb_slot *)sl),
			    slot_sz);
		else
			out->name[0] = '\0';
		/*
		 * (A) Acquire fence: orders the copies above before the seq
		 * reread; pairs with the owner's fence between its odd seq
		 * store and its field stores, so a changed field implies a
		 * changed seq.
		 */
		RB_FENCE_ACQ();
		s2 = RB_LOAD(&sl->seq);
		if (s1 == s2) {
			out->seq = s1;
			out->name[slot_sz] = '\0';
			return 0;
		}
		model_cpu_relax();
	}
	return -1;
}

static void
model_frames_free(struct rbmon_thread *t)
{
	size_t	i;

	for (i = 0; i < t->nframes; i++) {
		free(t->frames[i].function);
		free(t->frames[i].file);
	}
	free(t->frames);
	t->frames = NULL;
	t->nframes = 0;
}

static void
model_thread_free(struct rbmon_thread *t)
{
	model_frames_free(t);
	free(t->watches);
	t->watches = NULL;
	free(t->blocked_in);
	t->blocked_in = NULL;
}

static int
model_stack_changed(const struct rb_header *h, struct rb_ring *r,
    const struct rbmon_thread *t, int32_t d)
{
	const struct rbmon_frame *f;
	const struct rb_slot	*sl;
	size_t			 i;

	/* (A) Orders the slot copies before these rereads, as in read_slot. */
	RB_FENCE_ACQ();
	if (RB_LOAD(&r->depth) != d)
		return 1;
	for (i = 0; i < t->nframes; i++) {
		f = &t->frames[i];
		if (f->torn)
			continue;
		sl = rb_slot_at(h, r, rb_slot_index(f->level, h->slots,
		    h->pinned));
		if (RB_LOAD(&sl->seq) != f->seq)
			return 1;
	}
	return 0;
}

/**
 * rbmon_model_read_stack - copy a ring's live stack, newest frame first
 * @h: validated header copy
 * @r: the ring, in the mapping
 * @t: frames, depth and wrapped are filled in (old frames are freed)
 * @scratch: a slot copy with h->slot_sz + 1 name bytes
 *
 * The stack is reread while it changes under us, a bounded number of
 * times; after that the last copy is kept.
 *
 * Return: the number of frames.
 */
int
rbmon_model_read_stack(const struct rb_header *h, struct rb_ring *r,
    struct rbmon_thread *t, struct rbmon_slot *scratch)
{
	struct rbmon_frame	*f;
	int32_t			 d, k, lo;
	size_t			 fl;
	const char		*file;
	int			 attempt;

	for (attempt = 0; attempt < RBMON_STACK_TRIES; attempt++) {
		model_frames_free(t);
		/*
		 * (C) Acquire: pairs with the owner's release store of depth
		 * after it published the slot of the new level.
		 */
		d = RB_LOAD_ACQ(&r->depth);
		if (d < 0)
			d = 0;
		/*
		 * Deeper than the ring: the innermost levels down to lo, then
		 * the pinned outermost ones (rb_slot_index()).
		 */
		lo = (uint32_t)d > h->slots ?
		    d - (int32_t)(h->slots - h->pinned) : 0;
		t->gap_at = SIZE_MAX;
		t->gap_site = 0;
		t->frames = rbmon_xcalloc((size_t)d < h->slots ? (size_t)d :
		    h->slots, sizeof *t->frames);
		for (k = d - 1; k >= 0; k--) {
			if (k < lo && k >= (int32_t)h->pinned) {
				t->gap_at = t->nframes;
				/*
				 * Relaxed: (C), stored before the depth
				 * acquired above was released.
				 */
				t->gap_site = RB_LOAD(&r->pinned_site);
				k = (int32_t)h->pinned;
				continue;
			}
			f = &t->frames[t->nframes];
			memset(f, 0, sizeof *f);
			f->level = (uint32_t)k;
			if (rbmon_model_read_slot(rb_slot_at(h, r,
			    rb_slot_index((uint32_t)k, h->slots, h->pinned)),
			    h->slot_sz, scratch) != 0) {
				f->torn = 1;
				t->nframes++;
				continue;
			}
			if (scratch->depth != (uint32_t)k) {
				/* Overwritten by a deeper frame, since gone. */
				if (t->gap_at == SIZE_MAX)
					t->gap_at = t->nframes;
				continue;
			}
			f->seq = scratch->seq;
			f->fn = scratch->fn;
			f->site = scratch->site;
			f->hook = scratch->hook;
			f->ts = scratch->ts;
			f->line = scratch->line;
			f->seeded = (scratch->flags & RB_SLOT_SEEDED) != 0 &&
			    !(scratch->flags & RB_SLOT_NAMED);
			if (scratch->flags & RB_SLOT_NAMED) {
				f->named = 1;
				f->before_attach =
				    (scratch->flags & RB_SLOT_ATTACH) != 0;
				f->fn = 0;
				fl = strnlen(scratch->name, h->slot_sz);
				file = fl < h->slot_sz ?
				    scratch->name + fl + 1 : "";
				f->function = rbmon_xstrdup(scratch->name);
				f->file = rbmon_xstrdup(file);
			}
			t->nframes++;
		}
		if (!model_stack_changed(h, r, t, d))
			break;
	}
	t->depth = d;
	t->wrapped = (uint32_t)d - (uint32_t)t->nframes;
	if (t->gap_at == SIZE_MAX || t->wrapped == 0)
		t->gap_at = t->nframes;
	return (int)t->nframes;
}

static void
model_objects_read(struct rbmon_model *m, struct rbmon_snapshot *s)
{
	const struct rb_header	*h = &m->hdr;
	struct rb_object	*o;
	struct rbmon_object	*c;
	size_t			 cap = 0;
	uint32_t		 i;

	for (i = 0; i < h->objects; i++) {
		o = rb_object_at(m->base, h, i);
		/*
		 * (L) Acquire: pairs with the writer's release store of
		 * RB_OBJ_VALID after it filled in the entry.
		 */
		if (RB_LOAD_ACQ(&o->state) != RB_OBJ_VALID)
			continue;
		if (s->nobjects == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			s->objects = rbmon_xreallocarray(s->objects, cap,
			    sizeof *s->objects);
		}
		c = &s->objects[s->nobjects];
		c->image = o->image;
		c->base = o->base;
		c->lo = o->lo;
		c->hi = o->hi;
		c->flags = o->flags;
		c->build_id_len = o->build_id_len;
		if (c->build_id_len > RB_BUILD_ID_MAX)
			c->build_id_len = 0;
		memcpy(c->build_id, o->build_id, sizeof c->build_id);
		memcpy(c->path, o->path, sizeof c->path);
		c->path[RB_PATH_MAX - 1] = '\0';
		/*
		 * (L) Orders the field reads before the state reread: an
		 * entry reused for another object meanwhile left VALID.
		 */
		RB_FENCE_ACQ();
		if (RB_LOAD(&o->state) != RB_OBJ_VALID)
			continue;
		if (c->path[0] == '\0')
			continue;
		s->nobjects++;
	}
}

/*
 * The control and watch words as they are now.  They are shown, not
 * trusted: nothing below depends on their consistency.
 */
static void
model_ring_control(struct rb_ring *r, struct rbmon_thread *t)
{
	struct rb_watch		*w;
	struct rbmon_watch	*c;
	int			 i;

	/* Relaxed: display-only values (see above). */
	t->why = RB_LOAD(&r->why);
	t->stop_ns = RB_LOAD(&r->stop_ns);
	t->stopfn = RB_LOAD(&r->stopfn);
	t->stops = RB_LOAD(&r->stops);
	t->orphaned = RB_LOAD(&r->orphaned);
	t->trace = RB_LOAD(&r->trace);
	t->signal = RB_LOAD(&r->signal);
	t->attention = RB_LOAD(&r->attention);
	t->cmdready = RB_LOAD(&r->cmdready);
	t->watches = NULL;
	for (i = 0; i < RB_WATCHES; i++) {
		w = &r->watches[i];
		/* Relaxed: a display-only value (see above). */
		if (RB_LOAD(&w->inuse) == RB_WATCH_FREE)
			continue;
		if (t->watches == NULL)
			t->watches = rbmon_xcalloc(RB_WATCHES,
			    sizeof *t->watches);
		c = &t->watches[i];
		c->inuse = RB_LOAD(&w->inuse);
		c->exprlength = RB_LOAD(&w->exprlength);
		c->resready = RB_LOAD(&w->resready);
		c->reslength = RB_LOAD(&w->reslength);
		memcpy(c->expr, w->expr, RB_EXPR_MAX);
		c->expr[c->exprlength >= 0 && c->exprlength < RB_EXPR_MAX ?
		    c->exprlength : RB_EXPR_MAX] = '\0';
		memcpy(c->result, w->result, RB_RESULT_MAX);
		c->result[c->reslength >= 0 ?
		    (c->reslength < RB_RESULT_MAX ? c->reslength : RB_RESULT_MAX) :
		    (c->reslength > -RB_RESULT_MAX ? -c->reslength :
		    RB_RESULT_MAX)] = '\0';
	}
}

/* The event log's counters, display-only (events.c copies the records). */
static void
model_ring_events(const struct rb_header *h, struct rb_ring *r,
    struct rbmon_thread *t)
{
	struct rb_evlog	*l;

	if (h->events == 0)
		return;
	l = rb_ring_evlog(h, r);
	/* Relaxed: counts shown as they are; events.c orders its copies. */
	t->ev_head = RB_LOAD(&l->head);
	t->ev_tail = RB_LOAD(&l->tail);
	t->ev_dropped = RB_LOAD(&l->dropped);
	t->ev_pending = RB_LOAD(&l->pending_lost);
	t->ev_rewinds = RB_LOAD(&l->rewinds);
	t->ev_off = RB_LOAD(&l->off) != 0;
}

static void
model_rings_read(struct rbmon_model *m, struct rbmon_snapshot *s)
{
	const struct rb_header	*h = &m->hdr;
	struct rb_header	*hl;
	struct rb_owner		*ow;
	struct rb_ring		*r;
	struct rbmon_thread	*t;
	struct rbmon_slot	 scratch;
	uint64_t		 ctl, ctl2;
	uint32_t		 i, st;
	size_t			 cap = 0;

	memset(&scratch, 0, sizeof scratch);
	scratch.name = m->scratch.name;
	for (i = 0; i < h->rings; i++) {
		ow = rb_owner_at(m->base, h, i);
		/*
		 * (K) Acquire: pairs with the owner's release store of ctl
		 * (live, exited) after it wrote the ring's identity.
		 */
		ctl = RB_LOAD_ACQ(&ow->ctl);
		st = RB_OWN_STATE(ctl);
		if (st == RB_OWN_CLAIMING || st == RB_OWN_LIVE)
			s->rings_used++;
		if (st != RB_OWN_LIVE && st != RB_OWN_EXITED)
			continue;

		if (s->nthreads == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			s->threads = rbmon_xreallocarray(s->threads, cap,
			    sizeof *s->threads);
		}
		t = &s->threads[s->nthreads];
		memset(t, 0, sizeof *t);
		r = rb_ring_at(m->base, h, i);
		t->ring = i;
		t->own = st;
		t->pid = RB_LOAD(&r->pid);
		t->tid = RB_LOAD(&r->tid);
		t->ppid = RB_LOAD(&r->ppid);
		t->state = RB_LOAD(&r->state);
		t->pstart = RB_LOAD(&r->pstart);
		t->image = RB_LOAD(&r->image);
		t->created_ns = RB_LOAD(&r->created_ns);
		t->exited_ns = RB_LOAD(&r->exited_ns);
		memcpy(t->name, r->name, RB_THREAD_NAME_MAX);
		t->name[RB_THREAD_NAME_MAX] = '\0';
		/*
		 * (K) Orders the identity reads before the ctl reread: if the
		 * ring changed hands meanwhile, ctl changed too.
		 */
		RB_FENCE_ACQ();
		ctl2 = RB_LOAD(&ow->ctl);
		if (ctl2 != ctl || t->pid <= 0)
			continue;
		if (t->state == RB_STATE_EXITED ||
		    t->state == RB_STATE_DETACHED)
			t->own = RB_OWN_EXITED;
		s->nthreads++;	/* before the frames: freed on SIGBUS */
		t->gen = RB_LOAD(&ow->gen);
		model_ring_events(h, r, t);
		model_ring_control(r, t);
		rbmon_model_read_stack(h, r, t, &scratch);
	}
	/* Relaxed: a statistic and flags shown as they are, no ordering. */
	hl = m->base;
	s->untraced = RB_LOAD(&hl->untraced_threads);
	/* Relaxed: shown as it is; a monitor may change it any time. */
	s->min_duration_ns = RB_LOAD(&hl->min_duration_ns);
	s->single = RB_LOAD(&hl->single);
	s->stop_on_create = RB_LOAD(&hl->stop_on_create);
	s->trace_on_create = RB_LOAD(&hl->trace_on_create);
	s->snap.taken = RB_LOAD(&hl->snap_taken);
	s->snap.written = RB_LOAD(&hl->snap_written);
	s->snap.missed = RB_LOAD(&hl->snap_missed);
	s->snap.suppressed = RB_LOAD(&hl->snap_suppressed);
	s->snap.writer = RB_LOAD(&hl->snap_writer);
	s->snap.state = RB_LOAD(&hl->snap_state);
}

static void
model_sigbus(int sig, siginfo_t *si, void *uc)
{
	if (model_guard)
		siglongjmp(model_jmp, 1);
	if (rbmon_model_fatal_hook != NULL)
		rbmon_model_fatal_hook();
	signal(sig, SIG_DFL);
	raise(sig);
}

static __attribute__((noinline)) void
model_read_all(struct rbmon_model *m, struct rbmon_snapshot *s)
{
	model_objects_read(m, s);
	model_rings_read(m, s);
	rbmon_dyn_read(m->base, &m->hdr, &s->dyn);
}

/**
 * rbmon_model_proc_start - a process's start time
 * @pid: the process
 *
 * Return: field 22 of /proc/PID/stat (clock ticks since boot), or 0 if it
 * cannot be read or the process is a zombie.
 */
uint64_t
rbmon_model_proc_start(pid_t pid)
{
	struct rb_procstat	st;

	if (rb_procstat_read(pid, 0, &st) != 0 || st.state == 'Z' ||
	    st.state == 'X')
		return 0;
	return st.starttime;
}

/*
 * A live thread as the kernel has it: state, CPU and its current name
 * (which follows prctl(PR_SET_NAME); the ring keeps the name it had when
 * last recorded).  Nothing when the tid names no thread of the process,
 * or one that started after the ring was made (the thread is gone and
 * its tid was given to another).
 */
static void
model_thread_kernel(struct rbmon_model *m, const struct rbmon_process *p,
    struct rbmon_thread *t)
{
	struct rbmon_task	k;
	size_t			n;

	if (rbmon_tasks_read(m->tasks, p->pid, t->tid, &k) != 0 ||
	    k.st.starttime < p->pstart ||
	    !rbmon_tasks_started_by(m->tasks, k.st.starttime, t->created_ns))
		return;
	t->kstate = k.st.state;
	t->cpu = k.cpu;
	t->cpu_ns = k.cpu_ns;
	n = strlen(k.st.comm);
	if (n > 0 && n <= RB_THREAD_NAME_MAX)
		memcpy(t->name, k.st.comm, n + 1);
}

/*
 * The process as a whole, if it is still the one that started at pstart
 * (0: unknown, which rbmon_model_pid_alive() takes as it is).
 */
static void
model_proc_kernel(struct rbmon_model *m, struct rbmon_process *p)
{
	struct rbmon_task	k;

	if (rbmon_tasks_read(m->tasks, p->pid, 0, &k) != 0 ||
	    (p->pstart != 0 && k.st.starttime != p->pstart))
		return;
	p->kstate = k.st.state;
	p->cpu = k.cpu;
	p->cpu_ns = k.cpu_ns;
}

/**
 * rbmon_model_blocked - read what a thread blocked in the kernel waits in
 * @p: its process
 * @t: the thread, of a snapshot; t->blocked_in is replaced
 *
 * Read anew for a thread the snapshot saw sleeping (S) or in disk sleep
 * (D): "read(3, 0x7ffd..., 4096)" from /proc/PID/task/TID/syscall where
 * it is readable, else the kernel's wait channel ("futex_wait_queue").
 * Two reads of /proc: the screen asks for the selected thread only.
 * The text comes from the kernel, yet is escaped like any before it is
 * shown.
 *
 * Return: t->blocked_in; NULL if it is not blocked or the kernel does not
 * say where.
 */
const char *
rbmon_model_blocked(const struct rbmon_process *p, struct rbmon_thread *t)
{
	free(t->blocked_in);
	t->blocked_in = NULL;
	if (p->alive && (t->kstate == 'S' || t->kstate == 'D'))
		t->blocked_in = rbmon_task_blocked(p->pid, t->tid);
	return t->blocked_in;
}

/**
 * rbmon_model_pid_alive - whether a process is still the one that wrote
 * @pid: its pid
 * @pstart: its start time as recorded (0: unknown)
 *
 * Return: 1 if alive, 0 if gone (or the pid now names another process).
 */
int
rbmon_model_pid_alive(pid_t pid, uint64_t pstart)
{
	uint64_t	now;

	if (pid <= 0)
		return 0;
	if (kill(pid, 0) != 0 && errno != EPERM)
		return 0;
	now = rbmon_model_proc_start(pid);
	if (now == 0)
		return 0;
	return pstart == 0 || now == pstart;
}

static int
model_thread_cmp(const void *a, const void *b)
{
	const struct rbmon_thread	*x = a, *y = b;

	if ((x->tid == x->pid) != (y->tid == y->pid))
		return x->tid == x->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->created_ns != y->created_ns)
		return x->created_ns < y->created_ns ? -1 : 1;
	return x->ring < y->ring ? -1 : x->ring > y->ring;
}

static int
model_proc_cmp(const void *a, const void *b)
{
	const struct rbmon_process	*x = a, *y = b;

	if (x->creator != y->creator)
		return x->creator ? -1 : 1;
	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void
model_group(struct rbmon_model *m, struct rbmon_snapshot *s)
{
	struct rbmon_thread	*t;
	struct rbmon_process	*p;
	uint64_t		 newest;
	size_t			*owner, i, j, cap = 0;

	/* Assign each thread its process, then size each array once. */
	owner = rbmon_xcalloc(s->nthreads, sizeof *owner);
	for (i = 0; i < s->nthreads; i++) {
		t = &s->threads[i];
		for (j = 0; j < s->nprocs; j++) {
			if (s->procs[j].pid == t->pid &&
			    s->procs[j].pstart == t->pstart)
				break;
		}
		if (j == s->nprocs) {
			if (s->nprocs == cap) {
				cap = cap == 0 ? 4 : cap * 2;
				s->procs = rbmon_xreallocarray(s->procs, cap,
				    sizeof *s->procs);
			}
			p = &s->procs[s->nprocs++];
			memset(p, 0, sizeof *p);
			p->pid = t->pid;
			p->ppid = t->ppid;
			p->pstart = t->pstart;
			p->first_ns = t->created_ns;
			p->creator = t->pid == m->hdr.creator_pid &&
			    t->pstart == m->hdr.creator_start;
		}
		p = &s->procs[j];
		owner[i] = j;
		p->nthreads++;
		/* The oldest ring knows the parent before any reparenting. */
		if (t->created_ns < p->first_ns) {
			p->first_ns = t->created_ns;
			p->ppid = t->ppid;
		}
	}
	for (j = 0; j < s->nprocs; j++) {
		s->procs[j].threads = rbmon_xcalloc(s->procs[j].nthreads,
		    sizeof *s->procs[j].threads);
		s->procs[j].nthreads = 0;
	}
	for (i = 0; i < s->nthreads; i++) {
		p = &s->procs[owner[i]];
		p->threads[p->nthreads++] = s->threads[i];
	}
	free(owner);
	free(s->threads);
	s->threads = NULL;
	s->nthreads = 0;

	if (m->tasks == NULL)
		m->tasks = rbmon_tasks_new();
	rbmon_tasks_every(m->tasks, m->kernel_every_ns);
	rbmon_tasks_begin(m->tasks);
	for (j = 0; j < s->nprocs; j++) {
		p = &s->procs[j];
		/* One liveness check per (pid, pstart) and snapshot. */
		p->alive = rbmon_model_pid_alive(p->pid, p->pstart);
		p->cpu = -1;
		newest = 0;
		for (i = 0; i < p->nthreads; i++) {
			t = &p->threads[i];
			t->cpu = -1;
			if (p->alive && t->own == RB_OWN_LIVE)
				model_thread_kernel(m, p, t);
			if (i == 0 || t->created_ns >= newest) {
				newest = t->created_ns;
				p->image = t->image;
			}
		}
		p->dyn = rbmon_dyn_find(&s->dyn, p->pid, p->pstart);
		if (p->dyn != NULL)
			((struct rbmon_dyn *)p->dyn)->linked = 1;
		/* After its threads: its CPU time is at least any of theirs. */
		if (p->alive)
			model_proc_kernel(m, p);
		if (p->nthreads > 1)
			qsort(p->threads, p->nthreads, sizeof *p->threads,
			    model_thread_cmp);
	}
	rbmon_tasks_end(m->tasks);
	/* No process: procs is NULL, which qsort() must not be given. */
	if (s->nprocs > 1)
		qsort(s->procs, s->nprocs, sizeof *s->procs, model_proc_cmp);
}

/**
 * rbmon_model_snapshot - copy every process, thread and stack of the file
 * @m: an open model
 * @s: filled in; release with rbmon_model_free()
 * @cause: message on failure (the file was truncated under us)
 *
 * Return: 0, or -1 with *@cause set and @s empty.
 */
int
rbmon_model_snapshot(struct rbmon_model *m, struct rbmon_snapshot *s,
    char **cause)
{
	struct sigaction	 sa;
	struct stat		 st;

	memset(s, 0, sizeof *s);
	if (fstat(m->fd, &st) != 0 || (uint64_t)st.st_size < m->size) {
		rbmon_xasprintf(cause, "truncated: header says %zu bytes, "
		    "file has %llu", m->size,
		    (unsigned long long)st.st_size);
		return -1;
	}
	if (!model_sigbus_installed) {
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = model_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		model_sigbus_installed = 1;
	}
	s->rings_total = m->hdr.rings;
	if (sigsetjmp(model_jmp, 1) != 0) {
		model_guard = 0;
		rbmon_model_free(s);
		rbmon_xasprintf(cause, "truncated while being read");
		return -1;
	}
	model_guard = 1;
	model_read_all(m, s);
	model_guard = 0;
	model_group(m, s);
	s->gen = rbmon_snapshot_gen();
	return 0;
}

/**
 * rbmon_snapshot_gen - a new name for a snapshot's object table
 *
 * Return: a number never returned before, not 0.
 */
uint64_t
rbmon_snapshot_gen(void)
{
	static uint64_t	gen;

	/* Relaxed: only uniqueness matters, nothing is published with it. */
	return RB_ADD_FETCH(&gen, 1);
}

/**
 * rbmon_model_guarded - run @fn(@arg) on the mapping, surviving a file
 * truncated under it
 * @m: an open model
 *
 * Return: 0, or -1 if the file is (or became) shorter than its header says.
 */
int
rbmon_model_guarded(struct rbmon_model *m, void (*fn)(void *), void *arg)
{
	struct rbmon_snapshot	 s;
	struct stat		 st;
	char			*cause = NULL;

	if (fstat(m->fd, &st) != 0 || (uint64_t)st.st_size < m->size)
		return -1;
	if (model_sigbus_installed == 0) {
		/* Installs the handler through an empty snapshot's path. */
		if (rbmon_model_snapshot(m, &s, &cause) != 0) {
			free(cause);
			return -1;
		}
		rbmon_model_free(&s);
	}
	if (sigsetjmp(model_jmp, 1) != 0) {
		model_guard = 0;
		return -1;
	}
	model_guard = 1;
	fn(arg);
	model_guard = 0;
	return 0;
}

/**
 * rbmon_model_free - release a snapshot
 * @s: filled by rbmon_model_snapshot(), or zeroed
 */
void
rbmon_model_free(struct rbmon_snapshot *s)
{
	size_t	i, j;

	for (i = 0; i < s->nthreads; i++)
		model_thread_free(&s->threads[i]);
	free(s->threads);
	for (i = 0; i < s->nprocs; i++) {
		for (j = 0; j < s->procs[i].nthreads; j++)
			model_thread_free(&s->procs[i].threads[j]);
		free(s->procs[i].threads);
	}
	free(s->procs);
	free(s->objects);
	rbmon_dyn_free(&s->dyn);
	memset(s, 0, sizeof *s);
}

/**
 * rbmon_model_program - the program name of a process image
 * @m: the model
 * @s: a snapshot of it
 * @image: the image id
 *
 * Return: the basename of the image's main executable, else the creator's
 * program name from the header.
 */
const char *
rbmon_model_program(const struct rbmon_model *m,
    const struct rbmon_snapshot *s, uint64_t image)
{
	size_t	i;

	for (i = 0; i < s->nobjects; i++) {
		if (s->objects[i].image == image &&
		    (s->objects[i].flags & RB_OBJF_MAIN))
			return rbmon_basename(s->objects[i].path);
	}
	return m->hdr.program;
}

/* CLOCK_MONOTONIC in nanoseconds, as the library's created_ns stamps. */
uint64_t
rbmon_mono_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/**
 * rbmon_clock_pair - read the CPU's counter (RB_CLOCK_COUNTER) and
 * CLOCK_MONOTONIC together
 *
 * Return: 0, or -1 where there is no counter.
 */
int
rbmon_clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t	a, b;

	if (RB_CLOCK_COUNTER == 0)
		return -1;
	/* The read of the monotonic clock between two counter reads: their middle. */
	a = rb_counter_read();
	*ns = rbmon_mono_ns();
	b = rb_counter_read();
	*tsc = a + (b - a) / 2;
	return 0;
}

/**
 * rbmon_clock_init - sample the clocks to turn slot stamps into ages
 * @c: filled in; c->valid is 0 if ages cannot be known
 * @h: validated header copy
 */
void
rbmon_clock_init(struct rbmon_clock *c, const struct rb_header *h)
{
	char		boot[RB_BOOT_ID_MAX + 8];
	int		same;
	uint64_t	tsc_now;

	memset(c, 0, sizeof *c);
	c->kind = h->clock;
	c->tsc0 = h->clock_tsc0;
	c->ns0 = h->clock_ns0;
	rb_boot_id_read(boot, sizeof boot);
	same = h->boot_id[0] != '\0' &&
	    strncmp(h->boot_id, boot, RB_BOOT_ID_MAX) == 0;

	switch (h->clock) {
	case RB_CLOCK_MONO:
		c->now_ns = rbmon_mono_ns();
		/* An empty boot id cannot tell: assume this boot. */
		c->valid = same || h->boot_id[0] == '\0';
		break;
	case RB_CLOCK_TSC:
	case RB_CLOCK_CNTVCT:
		/*
		 * Another boot, or a counter this machine has not: no age,
		 * but durations at the writers' rate.
		 */
		c->hz = (long double)h->clock_tsc_hz;
		if (!same || h->clock != RB_CLOCK_COUNTER)
			break;
		tsc_now = rb_counter_read();
		c->now_ns = rbmon_mono_ns();
		if (c->now_ns > c->ns0 && c->now_ns - c->ns0 >= 1000000 &&
		    tsc_now > c->tsc0)
			c->hz = (long double)(tsc_now - c->tsc0) * 1e9L /
			    (long double)(c->now_ns - c->ns0);
		else if (h->clock_tsc_hz != 0)
			c->hz = (long double)h->clock_tsc_hz;
		c->valid = c->hz > 0;
		break;
	case RB_CLOCK_NONE:
		/* No ages: how long rbmon has seen a frame, from now_ns. */
		c->now_ns = rbmon_mono_ns();
		break;
	}
}

/**
 * rbmon_clock_age - how long ago a slot timestamp was
 * @c: sampled by rbmon_clock_init()
 * @ts: the stamp, in the file's clock units
 * @age: nanoseconds, clamped at 0
 *
 * Return: 0, or -1 if unknown (no usable clock, or an age of 2^64 ns or
 * more, which only a corrupt clock gives).
 */
int
rbmon_clock_age(const struct rbmon_clock *c, uint64_t ts, uint64_t *age)
{
	long double	ns;

	if (!c->valid || ts == 0)
		return -1;
	if (rb_clock_is_counter(c->kind))
		ns = (long double)c->ns0 +
		    (long double)(int64_t)(ts - c->tsc0) / c->hz * 1e9L;
	else
		ns = (long double)ts;
	if (ns >= (long double)c->now_ns) {
		*age = 0;
		return 0;
	}
	/* A hostile tsc0 or rate: an age no uint64_t holds is unknown. */
	if ((long double)c->now_ns - ns >= 0x1p64L)
		return -1;
	*age = (uint64_t)((long double)c->now_ns - ns);
	return 0;
}

/**
 * rbmon_clock_ns - a timestamp of the file's clock as CLOCK_MONOTONIC ns
 * of the boot that wrote it
 * @c: sampled by rbmon_clock_init()
 * @ts: the stamp
 * @ns: set
 *
 * Return: 0, or -1 if unknown (a counter of no known rate; out of range;
 * no clock).
 */
int
rbmon_clock_ns(const struct rbmon_clock *c, uint64_t ts, uint64_t *ns)
{
	long double	v;

	if (c->kind == RB_CLOCK_MONO) {
		*ns = ts;
		return 0;
	}
	if (!rb_clock_is_counter(c->kind) || !(c->hz > 0))
		return -1;
	v = (long double)c->ns0 + (long double)(int64_t)(ts - c->tsc0) /
	    c->hz * 1e9L;
	if (!(v >= 0) || v >= 0x1p64L)
		return -1;
	*ns = (uint64_t)v;
	return 0;
}

/* ---- how long a frame has been seen (files without a clock) -------------- */

struct rbmon_seen_ent {
	uint64_t	gen, fn, first_ns;
	uint32_t	ring, level, seq;
};

static int
seen_cmp(const void *a, const void *b)
{
	const struct rbmon_seen_ent	*x = a, *y = b;

	if (x->ring != y->ring)
		return x->ring < y->ring ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return 0;
}

/**
 * rbmon_seen_update - stamp the frames of @s with when they were first seen
 * @sn: what earlier snapshots saw; replaced by what @s has
 * @s: a snapshot, not yet resolved (rbmon_stack_resolve())
 * @now_ns: when @s was taken, CLOCK_MONOTONIC (rbmon_clock.now_ns)
 *
 * A frame an earlier snapshot had keeps its time; a new one gets @now_ns.
 * Torn frames are not stamped.
 */
void
rbmon_seen_update(struct rbmon_seen *sn, struct rbmon_snapshot *s,
    uint64_t now_ns)
{
	struct rbmon_seen_ent	*v, key;
	const struct rbmon_seen_ent *hit;
	struct rbmon_thread	*t;
	struct rbmon_frame	*f;
	size_t			 n = 0, cap = 0, i, j, k;

	for (i = 0; i < s->nprocs; i++)
		for (j = 0; j < s->procs[i].nthreads; j++)
			cap += s->procs[i].threads[j].nframes;
	v = rbmon_xcalloc(cap + 1, sizeof *v);
	for (i = 0; i < s->nprocs; i++) {
		for (j = 0; j < s->procs[i].nthreads; j++) {
			t = &s->procs[i].threads[j];
			for (k = 0; k < t->nframes; k++) {
				f = &t->frames[k];
				if (f->torn)
					continue;
				memset(&key, 0, sizeof key);
				key.ring = t->ring;
				key.gen = t->gen;
				key.level = f->level;
				key.seq = f->seq;
				key.fn = f->fn;
				hit = sn->n == 0 ? NULL : bsearch(&key, sn->v,
				    sn->n, sizeof *sn->v, seen_cmp);
				key.first_ns = hit != NULL ? hit->first_ns :
				    now_ns;
				f->seen_ns = key.first_ns;
				v[n++] = key;
			}
		}
	}
	qsort(v, n, sizeof *v, seen_cmp);
	free(sn->v);
	sn->v = v;
	sn->n = n;
}

void
rbmon_seen_free(struct rbmon_seen *sn)
{
	free(sn->v);
	sn->v = NULL;
	sn->n = 0;
}

/**
 * rbmon_age_format - a compact age: 850ns 12.3us 1.2ms 2.10s 1m02s 1h03m
 * @buf: output
 * @len: its size
 * @ns: the age
 */
void
rbmon_age_format(char *buf, size_t len, uint64_t ns)
{
	unsigned long long	v = ns;

	if (v < 1000ull)
		snprintf(buf, len, "%lluns", v);
	else if (v < 1000000ull)
		snprintf(buf, len, "%llu.%lluus", v / 1000, v % 1000 / 100);
	else if (v < 1000000000ull)
		snprintf(buf, len, "%llu.%llums", v / 1000000,
		    v % 1000000 / 100000);
	else if (v < 60000000000ull)
		snprintf(buf, len, "%llu.%02llus", v / 1000000000,
		    v % 1000000000 / 10000000);
	else if (v < 3600000000000ull)
		snprintf(buf, len, "%llum%02llus", v / 60000000000ull,
		    v / 1000000000 % 60);
	else
		snprintf(buf, len, "%lluh%02llum", v / 3600000000000ull,
		    v / 60000000000ull % 60);
}
