/* SPDX-License-Identifier: MIT */
/*
 * rbmon control: post commands to one thread and collect the response, set
 * the global flags, show the heartbeat.  See lib/control.c for the owner's
 * half and rbtrace(5) for the protocol.
 *
 * Nothing here trusts the file more than the model does: ring indexes come
 * from the validated header, lengths read back are clamped to the geometry,
 * and every access runs under the model's SIGBUS guard.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/futex.h"
#include "common/mindur.h"
#include "monitor/core/control.h"

#define CTL_SEC		1000000000ull
#define CTL_WAIT_STEP	(50 * 1000000ull)	/* futex waits while polling */

/**
 * rbmon_ctl_open - map @m's file for writing
 * @c: filled in
 * @m: an open model
 * @cause: message on failure
 *
 * Return: 0, or -1 (for example: the file is read-only to us).
 */
int
rbmon_ctl_open(struct rbmon_ctl *c, struct rbmon_model *m, char **cause)
{
	struct stat	 a, b;
	void		*base;
	int		 fd;

	memset(c, 0, sizeof *c);
	fd = open(m->path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rbmon_xasprintf(cause, "cannot open it for writing: %s",
		    strerror(errno));
		return -1;
	}
	/* The same file the model validated, not one renamed in since. */
	if (fstat(fd, &a) != 0 || fstat(m->fd, &b) != 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		rbmon_xasprintf(cause, "file changed since it was opened");
		close(fd);
		return -1;
	}
	base = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (base == MAP_FAILED) {
		rbmon_xasprintf(cause, "mmap for writing: %s", strerror(errno));
		return -1;
	}
	c->m = m;
	c->base = base;
	c->size = m->size;
	return 0;
}

void
rbmon_ctl_close(struct rbmon_ctl *c)
{
	if (c->base != NULL)
		munmap(c->base, c->size);
	memset(c, 0, sizeof *c);
}

void
rbmon_cmd_free(struct rbmon_cmd *k)
{
	free(k->args);
	free(k->text);
	k->args = k->text = NULL;
}

static struct rb_header *
ctl_hdr(struct rbmon_ctl *c)
{
	return c->base;
}

static struct rb_ring *
ctl_ring(struct rbmon_ctl *c, uint32_t i)
{
	return rb_ring_at(c->base, &c->m->hdr, i);
}

/* Guarded calls: a file truncated under us gives an error, not SIGBUS. */
struct ctl_call {
	struct rbmon_ctl *c;
	struct rbmon_cmd *k;
	const char	*cmd, *args;
	char		**cause;
	const char	*name;
	int		 value;
	uint64_t	 ns, units;	/* ctl_set_min_duration() */
	int		 ret;
	int		 (*fn)(struct ctl_call *);
};

static void
ctl_trampoline(void *arg)
{
	struct ctl_call	*x = arg;

	x->ret = x->fn(x);
}

static int
ctl_guarded(struct ctl_call *x)
{
	if (rbmon_model_guarded(x->c->m, ctl_trampoline, x) != 0) {
		if (x->cause != NULL && *x->cause == NULL)
			rbmon_xasprintf(x->cause, "file truncated under "
			    "rbmon");
		return -1;
	}
	return x->ret;
}

/**
 * rbmon_ctl_heartbeat - tell stopped threads a monitor is here
 */
static int
ctl_heartbeat(struct ctl_call *x)
{
	/* Relaxed: a clock value, compared, never ordered against anything. */
	RB_STORE(&ctl_hdr(x->c)->monitor_heartbeat_ns, rbmon_mono_ns());
	return 0;
}

void
rbmon_ctl_heartbeat(struct rbmon_ctl *c)
{
	struct ctl_call	x = { .c = c, .fn = ctl_heartbeat };

	if (c->base != NULL)
		ctl_guarded(&x);
}

/* Is ring @k->ring still the thread it was when targeted? */
static int
ctl_same_thread(struct rbmon_ctl *c, const struct rbmon_cmd *k)
{
	struct rb_owner	*o = rb_owner_at(c->base, &c->m->hdr, k->ring);
	struct rb_ring	*r = ctl_ring(c, k->ring);
	/* Acquire: the identity the owner wrote before publishing LIVE. */
	uint64_t	 ctl = RB_LOAD_ACQ(&o->ctl);

	return RB_OWN_STATE(ctl) == RB_OWN_LIVE &&
	    RB_OWN_PID(ctl) == k->pid &&
	    RB_LOAD(&r->tid) == k->tid && RB_LOAD(&r->gen) == k->gen;
}

struct ctl_pcall {
	struct ctl_call	 x;
	const struct rbmon_cmd *k;
	uint64_t	 pstart, image;
};

static int
ctl_process(struct ctl_call *x)
{
	struct ctl_pcall *p = (struct ctl_pcall *)x;
	struct rb_ring	*r = ctl_ring(x->c, p->k->ring);

	if (!ctl_same_thread(x->c, p->k)) {
		rbmon_xasprintf(x->cause, "thread %d has exited", p->k->tid);
		return -1;
	}
	/* Relaxed: identity, written before the ring was published LIVE (ctl_same_thread's acquire). */
	p->pstart = RB_LOAD(&r->pstart);
	p->image = RB_LOAD(&r->image);
	return 0;
}

/**
 * rbmon_ctl_process - the process image of @k's thread
 * @pstart: set to the process's start time
 * @image: set to its image id (rb_ring.image)
 *
 * Return: 0, or -1 with *@cause set (the thread is gone).
 */
int
rbmon_ctl_process(struct rbmon_ctl *c, const struct rbmon_cmd *k,
    uint64_t *pstart, uint64_t *image, char **cause)
{
	struct ctl_pcall p = { .x = { .c = c, .cause = cause,
				      .fn = ctl_process }, .k = k };

	if (c->base == NULL) {
		rbmon_xasprintf(cause, "the trace file is not open for "
		    "writing");
		return -1;
	}
	if (ctl_guarded(&p.x) != 0)
		return -1;
	*pstart = p.pstart;
	*image = p.image;
	return 0;
}

static int
ctl_target(struct ctl_call *x)
{
	struct rbmon_ctl *c = x->c;
	uint32_t	 i, found = UINT32_MAX;
	uint64_t	 best = 0;

	for (i = 0; i < c->m->hdr.rings; i++) {
		struct rb_owner	*o = rb_owner_at(c->base, &c->m->hdr, i);
		struct rb_ring	*r = ctl_ring(c, i);
		uint64_t	 ctl = RB_LOAD_ACQ(&o->ctl);

		if (RB_OWN_STATE(ctl) != RB_OWN_LIVE ||
		    RB_LOAD(&r->tid) != x->value)
			continue;
		/* A tid reused by a later thread: the newest ring is it. */
		if (found == UINT32_MAX || r->created_ns >= best) {
			found = i;
			best = r->created_ns;
		}
	}
	if (found == UINT32_MAX) {
		rbmon_xasprintf(x->cause, "no live traced thread %d in %s",
		    x->value, c->m->path);
		return -1;
	}
	x->k->ring = found;
	x->k->pid = RB_LOAD(&ctl_ring(c, found)->pid);
	x->k->tid = x->value;
	x->k->gen = RB_LOAD(&ctl_ring(c, found)->gen);
	if (!rbmon_model_pid_alive(x->k->pid,
	    RB_LOAD(&ctl_ring(c, found)->pstart))) {
		rbmon_xasprintf(x->cause, "thread %d's process %d is gone",
		    x->value, x->k->pid);
		return -1;
	}
	return 0;
}

/**
 * rbmon_ctl_target - aim @k at live thread @tid
 *
 * Return: 0, or -1 with *@cause set.
 */
int
rbmon_ctl_target(struct rbmon_ctl *c, int32_t tid, struct rbmon_cmd *k,
    char **cause)
{
	struct ctl_call	x = { .c = c, .k = k, .cause = cause, .value = tid,
			    .fn = ctl_target };

	memset(k, 0, sizeof *k);
	return ctl_guarded(&x);
}

/*
 * Make a busy command area free when nobody will finish with it:
 *
 *  - a value that is no state of the protocol (a stray write): at once;
 *  - WRITING, POSTED or RESPONSE whose cmdpid is no live process (a
 *    monitor that died; or our own, abandoned): at once.  POSTED was never
 *    taken, so withdrawing it leaves nothing half-done;
 *  - anything else (a live cmdpid, or TAKEN) once the area has stayed the
 *    same, cmdready, cmdpid and the ring's wake count (bumped by every
 *    request), for RBMON_CTL_RECLAIM_NS as this monitor saw it.  A monitor
 *    reads its answer within a poll and an owner executes a command within
 *    its hook, so only a monitor that waits for a thread blocked in a
 *    system call loses its command (it was never taken: nothing was done).
 *
 * Every take-over is a compare-and-swap from the value seen.
 */
static void
ctl_reclaim(struct rbmon_ctl *c, const struct rbmon_cmd *k, struct rb_ring *r)
{
	/* Acquire: the area as its last user left it. */
	int32_t		st = RB_LOAD_ACQ(&r->cmdready);
	int32_t		pid = RB_LOAD(&r->cmdpid);
	uint32_t	wake = RB_LOAD(&r->wake);
	uint64_t	now;

	switch (st) {
	case RB_CMD_EMPTY:
		c->stuck_since = 0;
		return;
	case RB_CMD_WRITING:
	case RB_CMD_POSTED:
	case RB_CMD_RESPONSE:
		if (pid <= 0 || pid == getpid() ||
		    (kill(pid, 0) != 0 && errno != EPERM))
			goto take;
		break;
	case RB_CMD_TAKEN:
		break;
	default:
		goto take;
	}
	now = rbmon_mono_ns();
	if (c->stuck_since == 0 || c->stuck_ring != k->ring ||
	    c->stuck_gen != k->gen || c->stuck_state != st ||
	    c->stuck_pid != pid || c->stuck_wake != wake) {
		c->stuck_ring = k->ring;
		c->stuck_gen = k->gen;
		c->stuck_state = st;
		c->stuck_pid = pid;
		c->stuck_wake = wake;
		c->stuck_since = now;
		return;
	}
	if (now - c->stuck_since < RBMON_CTL_RECLAIM_NS)
		return;
take:
	c->stuck_since = 0;
	RB_CAS(&r->cmdready, &st, RB_CMD_EMPTY);
}

static const char *
ctl_state_text(int32_t st)
{
	switch (st) {
	case RB_CMD_POSTED:
		return "posted, not yet taken";
	case RB_CMD_TAKEN:
		return "being executed";
	case RB_CMD_RESPONSE:
		return "answered, not yet read";
	case RB_CMD_WRITING:
		return "being written";
	default:
		return "in an unknown state";
	}
}

/* Write command @x->cmd with @x->args into the claimed area and publish it. */
static int
ctl_post(struct ctl_call *x)
{
	struct rbmon_ctl *c = x->c;
	struct rbmon_cmd *k = x->k;
	struct rb_ring	*r = ctl_ring(c, k->ring);
	size_t		 len = strlen(x->args);
	int32_t		 expect = RB_CMD_EMPTY, pid;

	if (len > c->m->hdr.msg_sz) {
		rbmon_xasprintf(x->cause, "arguments of %zu bytes do not fit "
		    "the %u-byte message area", len, c->m->hdr.msg_sz);
		return -1;
	}
	if (!ctl_same_thread(c, k)) {
		rbmon_xasprintf(x->cause, "thread %d has exited", k->tid);
		return -1;
	}
	ctl_reclaim(c, k, r);
	/* Acquire: the area is ours only after the CAS; pairs with the release that emptied it. */
	if (!RB_CAS_ACQ(&r->cmdready, &expect, RB_CMD_WRITING)) {
		pid = RB_LOAD(&r->cmdpid);
		rbmon_xasprintf(x->cause, "thread %d is busy with another "
		    "command (from rbmon pid %d, %s; taken over if it stays "
		    "so for %llu s)", k->tid, (int)pid, ctl_state_text(expect),
		    RBMON_CTL_RECLAIM_NS / CTL_SEC);
		c->busy = 1;
		return -1;
	}
	c->stuck_since = 0;
	memcpy(r->command, x->cmd, 4);
	memcpy(rb_ring_msgarea(&c->m->hdr, r), x->args, len);
	RB_STORE(&r->msglen, (int32_t)len);
	RB_STORE(&r->cmdpid, (int32_t)getpid());
	/* The command and its arguments before POSTED; pairs with the owner's acquiring CAS POSTED -> TAKEN. */
	RB_STORE_REL(&r->cmdready, RB_CMD_POSTED);
	/* After cmdready: the owner clears the bit before it looks (see format.h). */
	RB_ATTN_OR(r, RB_ATTN_COMMAND);
	rb_ring_wake(r);
	k->posted = 1;
	k->posted_ns = rbmon_mono_ns();
	return 0;
}

static int
ctl_post_args(struct rbmon_ctl *c, struct rbmon_cmd *k, const char *cmd,
    const char *args, char **cause)
{
	struct ctl_call	x = { .c = c, .k = k, .cmd = cmd, .args = args,
			    .cause = cause, .fn = ctl_post };

	return ctl_guarded(&x);
}

/**
 * rbmon_ctl_post - post @cmd (four bytes) with @args to @k's thread
 *
 * Return: 0 once posted, or -1 with *@cause set (thread gone, area busy,
 * arguments too long, file not writable).
 */
int
rbmon_ctl_post(struct rbmon_ctl *c, struct rbmon_cmd *k, const char *cmd,
    const char *args, char **cause)
{
	if (c->base == NULL) {
		rbmon_xasprintf(cause, "the trace file is not open for "
		    "writing");
		return -1;
	}
	memcpy(k->cmd, cmd, 4);
	k->cmd[4] = '\0';
	free(k->args);
	k->args = rbmon_xstrdup(args);
	free(k->text);
	k->text = NULL;
	k->len = k->want = 0;
	k->done = k->ok = 0;
	k->rounds = 0;
	c->busy = 0;
	return ctl_post_args(c, k, k->cmd, k->args, cause);
}

/**
 * rbmon_ctl_post_wait - rbmon_ctl_post(), waiting up to @wait_ns for an
 * area busy with another command, and at least long enough to take over
 * one nobody finishes (see ctl_reclaim()); heartbeats meanwhile
 *
 * Return: 0 once posted, or -1 with *@cause set.
 */
int
rbmon_ctl_post_wait(struct rbmon_ctl *c, struct rbmon_cmd *k, const char *cmd,
    const char *args, uint64_t wait_ns, char **cause)
{
	struct timespec	 step = { 0, (long)CTL_WAIT_STEP };
	uint64_t	 start = rbmon_mono_ns(), now;
	char		*why = NULL;

	if (wait_ns < RBMON_CTL_RECLAIM_NS + CTL_SEC / 2)
		wait_ns = RBMON_CTL_RECLAIM_NS + CTL_SEC / 2;
	for (;;) {
		if (rbmon_ctl_post(c, k, cmd, args, &why) == 0)
			return 0;
		now = rbmon_mono_ns();
		if (!c->busy || now - start >= wait_ns) {
			*cause = why;
			return -1;
		}
		free(why);
		why = NULL;
		rbmon_ctl_heartbeat(c);
		nanosleep(&step, NULL);
	}
}

/* Take in a response window starting at byte k->len of the full text. */
static int
ctl_collect(struct ctl_call *x)
{
	struct rbmon_ctl *c = x->c;
	struct rbmon_cmd *k = x->k;
	struct rb_header *h = ctl_hdr(c);
	struct rb_ring	*r = ctl_ring(c, k->ring);
	const char	*gma = (const char *)c->base + c->m->hdr.gma_off;
	uint32_t	 msg_sz = c->m->hdr.msg_sz, gsz = c->m->hdr.global_sz;
	int32_t		 msglen = RB_LOAD(&r->msglen);
	size_t		 want, area, more = 0;
	uint32_t	 glen;
	int		 ok;

	ok = memcmp(r->command, "OK  ", 4) == 0;
	want = msglen < 0 ? 0 : (size_t)msglen;
	if (want > RBMON_CTL_TEXT_MAX)
		want = RBMON_CTL_TEXT_MAX;
	if (k->len == 0) {
		k->want = want;
		k->ok = ok;
		free(k->text);
		k->text = rbmon_xcalloc(1, want + 1);
	} else if (want != k->want || ok != k->ok) {
		/* The text changed between windows: start over. */
		k->len = 0;
		k->want = want;
		k->ok = ok;
		free(k->text);
		k->text = rbmon_xcalloc(1, want + 1);
		return 0;
	}
	area = want - k->len < msg_sz ? want - k->len : msg_sz;
	memcpy(k->text + k->len, rb_ring_msgarea(&c->m->hdr, r), area);
	if (k->len + area < want &&
	    RB_LOAD(&h->gma_owner) == k->ring + 1 &&
	    RB_LOAD(&h->gma_pos) == k->len + msg_sz) {
		glen = RB_LOAD(&h->gma_len);
		if (glen > gsz)
			glen = gsz;
		more = want - k->len - area < glen ? want - k->len - area : glen;
		memcpy(k->text + k->len + area, gma, more);
		/* The copy before the owner check; nobody takes the GMA while our ring holds RESPONSE. */
		RB_FENCE_ACQ();
		if (RB_LOAD(&h->gma_owner) != k->ring + 1)
			more = 0;
	}
	k->len += area + more;
	return 0;
}

/* Release the GMA if our ring holds it, then empty the command area. */
static void
ctl_finish(struct rbmon_ctl *c, struct rbmon_cmd *k)
{
	struct rb_header *h = ctl_hdr(c);
	struct rb_ring	*r = ctl_ring(c, k->ring);
	uint32_t	 me = k->ring + 1;
	int32_t		 st = RB_CMD_RESPONSE;

	RB_CAS_REL(&h->gma_owner, &me, 0);
	/* Release: our reads of the response are done before the area is reused. */
	RB_CAS_REL(&r->cmdready, &st, RB_CMD_EMPTY);
}

static int
ctl_poll(struct ctl_call *x)
{
	struct rbmon_ctl *c = x->c;
	struct rbmon_cmd *k = x->k;
	struct rb_ring	*r = ctl_ring(c, k->ring);
	int32_t		 st;
	char		*more;

	if (k->done)
		return 1;
	if (!k->posted)
		return -1;
	/* Acquire: the response the owner wrote before RESPONSE. */
	st = RB_LOAD_ACQ(&r->cmdready);
	if (st != RB_CMD_RESPONSE ||
	    RB_LOAD(&r->cmdpid) != getpid()) {
		if (!ctl_same_thread(c, k)) {
			k->posted = 0;
			rbmon_xasprintf(x->cause, "thread %d exited before it "
			    "answered", k->tid);
			return -1;
		}
		return 0;
	}
	ctl_collect(x);
	ctl_finish(c, k);
	k->posted = 0;
	if (k->len >= k->want) {
		k->text[k->len] = '\0';
		k->done = 1;
		return 1;
	}
	if (++k->rounds > RBMON_CTL_MORE_MAX) {
		rbmon_xasprintf(x->cause, "response of %zu bytes did not "
		    "arrive in %d rounds", k->want, RBMON_CTL_MORE_MAX);
		return -1;
	}
	/* The rest: MORE OFFSET COMMAND ARGS. */
	rbmon_xasprintf(&more, "%zu %s%s%s", k->len, k->cmd,
	    k->args[0] ? " " : "", k->args);
	x->cmd = "MORE";
	x->args = more;
	if (strlen(more) > c->m->hdr.msg_sz) {
		free(more);
		rbmon_xasprintf(x->cause, "response too long to continue");
		return -1;
	}
	st = ctl_post(x);
	free(more);
	return st < 0 ? -1 : 0;
}

/**
 * rbmon_ctl_poll - has @k's response arrived?
 *
 * Long responses are continued (MORE) here without the caller's help.
 * Return: 1 done (k->ok, k->text), 0 still waiting, -1 failed (*@cause).
 */
int
rbmon_ctl_poll(struct rbmon_ctl *c, struct rbmon_cmd *k, char **cause)
{
	struct ctl_call	x = { .c = c, .k = k, .cause = cause, .fn = ctl_poll };

	return ctl_guarded(&x);
}

static int
ctl_withdraw(struct ctl_call *x)
{
	struct rb_ring	*r = ctl_ring(x->c, x->k->ring);
	int32_t		 st = RB_CMD_POSTED;

	if (!x->k->posted)
		return 1;
	if (RB_LOAD(&r->cmdpid) != getpid())
		return 1;
	if (RB_CAS(&r->cmdready, &st, RB_CMD_EMPTY)) {
		x->k->posted = 0;
		return 1;
	}
	return 0;
}

/**
 * rbmon_ctl_withdraw - take back a command the thread has not started
 *
 * Return: 1 if nothing of it was or will be done, 0 if the thread has
 * taken it (its response will still come).
 */
int
rbmon_ctl_withdraw(struct rbmon_ctl *c, struct rbmon_cmd *k)
{
	struct ctl_call	x = { .c = c, .k = k, .fn = ctl_withdraw };

	return ctl_guarded(&x) != 0;
}

/**
 * rbmon_ctl_wait - wait up to @timeout_ns for @k's response, showing a
 * heartbeat meanwhile
 *
 * Return: 1 done, 0 timed out (still posted: withdraw it), -1 failed.
 */
int
rbmon_ctl_wait(struct rbmon_ctl *c, struct rbmon_cmd *k, uint64_t timeout_ns,
    char **cause)
{
	uint64_t	 start = rbmon_mono_ns(), now;
	int		 r;

	for (;;) {
		rbmon_ctl_heartbeat(c);
		r = rbmon_ctl_poll(c, k, cause);
		if (r != 0)
			return r;
		now = rbmon_mono_ns();
		if (now - start >= timeout_ns)
			return 0;
		rb_futex_wait(&ctl_ring(c, k->ring)->cmdready,
		    (uint32_t)RB_LOAD(&ctl_ring(c, k->ring)->cmdready),
		    timeout_ns - (now - start) < CTL_WAIT_STEP ?
		    timeout_ns - (now - start) : CTL_WAIT_STEP);
	}
}

static int
ctl_set_flag(struct ctl_call *x)
{
	struct rbmon_ctl *c = x->c;
	struct rb_header *h = ctl_hdr(c);
	int32_t		*flag;
	uint32_t	 i;

	if (strcmp(x->name, "single") == 0)
		flag = &h->single;
	else if (strcmp(x->name, "stop_on_create") == 0)
		flag = &h->stop_on_create;
	else if (strcmp(x->name, "trace_on_create") == 0)
		flag = &h->trace_on_create;
	else {
		rbmon_xasprintf(x->cause, "unknown flag '%s' (single, "
		    "stop_on_create, trace_on_create)", x->name);
		return -1;
	}
	/* Seq_cst: before the ORs below; pairs with the owners' clear-then-look. */
	RB_STORE_SEQ(flag, x->value);
	if (flag != &h->single)
		return 0;
	for (i = 0; i < c->m->hdr.rings; i++) {
		struct rb_ring *r = ctl_ring(c, i);

		/* Every ring, even one being set up: its owner looks again after its store (rb_control_thread_start). */
		if (x->value)
			RB_ATTN_OR(r, RB_ATTN_SINGLE);
		else
			rb_ring_wake(r);	/* single-step stops end */
	}
	return 0;
}

/**
 * rbmon_ctl_set_flag - set global flag @name ("single", "stop_on_create",
 * "trace_on_create") to @value
 *
 * Return: 0, or -1 with *@cause set.
 */
int
rbmon_ctl_set_flag(struct rbmon_ctl *c, const char *name, int value,
    char **cause)
{
	struct ctl_call	x = { .c = c, .name = name, .value = value,
			    .cause = cause, .fn = ctl_set_flag };

	if (c->base == NULL) {
		rbmon_xasprintf(cause, "the trace file is not open for "
		    "writing");
		return -1;
	}
	return ctl_guarded(&x);
}

static int
ctl_set_min_duration(struct ctl_call *x)
{
	struct rb_header	*h = ctl_hdr(x->c);
	const struct rb_header	*g = &x->c->m->hdr;
	uint32_t		 i;

	/* ns first, for readers; then the units each log copies. */
	RB_STORE(&h->min_duration_ns, x->ns);
	RB_STORE(&h->min_duration, x->units);
	/*
	 * Full fence: the header before the logs; a thread starting looks
	 * at the header after its own store (rb_ev_mindur_sync()).
	 */
	RB_FENCE_SEQ();
	for (i = 0; g->events != 0 && i < g->rings; i++)
		RB_STORE(&rb_ring_evlog(g, ctl_ring(x->c, i))->min_duration,
		    x->units);
	return 0;
}

/**
 * rbmon_ctl_set_min_duration - calls shorter than @ns are taken back out
 * of the event logs from now on (rbtrace(5), "EVENT LOG", "Short calls");
 * 0: none
 *
 * Refused for a drain log (a drained record may be consumed before its
 * call returns) and without a clock.
 * Return: 0, or -1 with *@cause set.
 */
int
rbmon_ctl_set_min_duration(struct rbmon_ctl *c, uint64_t ns, char **cause)
{
	struct ctl_call		 x = { .c = c, .cause = cause,
				    .fn = ctl_set_min_duration, .ns = ns };
	const struct rb_header	*h = &c->m->hdr;
	struct rbmon_clock	 k;

	if (c->base == NULL) {
		rbmon_xasprintf(cause, "the trace file is not open for "
		    "writing");
		return -1;
	}
	if (ns != 0 && h->events == 0) {
		rbmon_xasprintf(cause, "the file has no event log");
		return -1;
	}
	if (ns != 0 && h->ev_policy == RB_POLICY_DRAIN) {
		rbmon_xasprintf(cause, "not with the drain policy: a drained "
		    "record may be consumed before its call returns");
		return -1;
	}
	if (ns != 0 && h->clock == RB_CLOCK_NONE) {
		rbmon_xasprintf(cause, "the file has no clock "
		    "(RBTRACE_CLOCK=none)");
		return -1;
	}
	rbmon_clock_init(&k, h);
	x.units = rb_mindur_units(h->clock, k.hz > 0 ? (uint64_t)k.hz : 0, ns);
	if (ns != 0 && x.units == 0) {
		rbmon_xasprintf(cause, "the rate of the file's clock is not "
		    "known here");
		return -1;
	}
	return ctl_guarded(&x);
}

static int
ctl_signal(struct ctl_call *x)
{
	struct rb_ring	*r = ctl_ring(x->c, x->k->ring);

	if (!ctl_same_thread(x->c, x->k)) {
		rbmon_xasprintf(x->cause, "thread %d has exited", x->k->tid);
		return -1;
	}
	RB_STORE_SEQ(&r->signal, 1);
	/* After signal: the owner clears the bit before it looks. */
	RB_ATTN_OR(r, RB_ATTN_SIGNAL);
	return 0;
}

/**
 * rbmon_ctl_signal - set @k's thread's signal flag: it stops at its next hook
 *
 * Return: 0, or -1 with *@cause set.
 */
int
rbmon_ctl_signal(struct rbmon_ctl *c, const struct rbmon_cmd *k, char **cause)
{
	struct ctl_call	x = { .c = c, .k = (struct rbmon_cmd *)k,
			    .cause = cause, .fn = ctl_signal };

	if (c->base == NULL) {
		rbmon_xasprintf(cause, "the trace file is not open for "
		    "writing");
		return -1;
	}
	return ctl_guarded(&x);
}

/**
 * rbmon_ctl_parse - split "cmd [args]" as a user types it
 * @line: the text
 * @cmd: five bytes: the command, upper-cased and padded with spaces
 * @args: set to the arguments (a pointer into @line, spaces skipped)
 * @cause: message on failure
 *
 * Return: 0, or -1 (empty, or a command word longer than four letters).
 */
int
rbmon_ctl_parse(const char *line, char *cmd, char **args, char **cause)
{
	size_t	n, i;

	while (*line == ' ' || *line == '\t')
		line++;
	n = strcspn(line, " \t");
	if (n == 0 || n > 4) {
		rbmon_xasprintf(cause, "a command is one word of up to four "
		    "letters (STOP CONT STEP NEXT FINI BRKP BCLR BLST TRON "
		    "TROF PING), got '%.*s'", (int)(n > 40 ? 40 : n), line);
		return -1;
	}
	for (i = 0; i < 4; i++) {
		char ch = i < n ? line[i] : ' ';

		cmd[i] = ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch;
	}
	cmd[4] = '\0';
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	*args = (char *)line;
	return 0;
}

/*
 * Watches (rbtrace(5), "WATCH PROTOCOL").  An entry is claimed by
 * compare-and-swap RB_WATCH_FREE -> RB_WATCH_WRITING, so two monitors
 * never fill the same one; the owner ignores that value.
 */

struct ctl_wcall {
	struct ctl_call		 x;
	const struct rbmon_cmd	*k;
	int			 entry;
	const char		*expr;
	struct rbmon_wval	*val;
};

static int
ctl_watch_add(struct ctl_call *x)
{
	struct ctl_wcall *w = (struct ctl_wcall *)x;
	struct rb_ring	*r = ctl_ring(x->c, w->k->ring);
	size_t		 len = strlen(w->expr);
	int		 i;

	if (!ctl_same_thread(x->c, w->k)) {
		rbmon_xasprintf(x->cause, "thread %d has exited", w->k->tid);
		return -1;
	}
	for (i = 0; i < RB_WATCHES; i++) {
		struct rb_watch	*e = &r->watches[i];
		int32_t		 free_ = RB_WATCH_FREE;

		/* Acquire: the owner's release of the entry (inuse = FREE). */
		if (!RB_CAS_ACQ(&e->inuse, &free_, RB_WATCH_WRITING))
			continue;
		memset(e->expr, 0, sizeof e->expr);
		memcpy(e->expr, w->expr, len);
		RB_STORE(&e->exprlength, (int32_t)len);
		RB_STORE(&e->reslength, 0);
		RB_STORE(&e->resready, 0);
		/* The expression before inuse; pairs with the owner's acquire load of inuse. */
		RB_STORE_REL(&e->inuse, RB_WATCH_SET);
		/* After inuse: the owner clears the bit before it looks. */
		RB_ATTN_OR(r, RB_ATTN_WATCH);
		rb_ring_wake(r);
		w->entry = i;
		return 0;
	}
	rbmon_xasprintf(x->cause, "all %d watch entries of thread %d are in "
	    "use", RB_WATCHES, w->k->tid);
	return -1;
}

/**
 * rbmon_ctl_watch_add - give @k's thread the watch @expr
 * @entry: set to the entry used
 *
 * Return: 0, or -1 with *@cause set (no free entry, thread gone, too long).
 */
int
rbmon_ctl_watch_add(struct rbmon_ctl *c, const struct rbmon_cmd *k,
    const char *expr, int *entry, char **cause)
{
	struct ctl_wcall w = { .x = { .c = c, .cause = cause,
				      .fn = ctl_watch_add },
			       .k = k, .expr = expr };
	size_t		 len = strlen(expr);

	if (c->base == NULL) {
		rbmon_xasprintf(cause, "the trace file is not open for "
		    "writing");
		return -1;
	}
	if (len == 0 || len >= RB_EXPR_MAX) {
		rbmon_xasprintf(cause, len == 0 ? "empty expression" :
		    "expression longer than %d bytes", RB_EXPR_MAX - 1);
		return -1;
	}
	if (ctl_guarded(&w.x) != 0)
		return -1;
	*entry = w.entry;
	return 0;
}

static int
ctl_watch_ask(struct ctl_call *x)
{
	struct ctl_wcall *w = (struct ctl_wcall *)x;
	struct rb_ring	*r = ctl_ring(x->c, w->k->ring);
	struct rb_watch	*e = &r->watches[w->entry];

	if (!ctl_same_thread(x->c, w->k) ||
	    RB_LOAD(&e->inuse) != RB_WATCH_SET)
		return -1;
	/* Release: our reads of the last value are done before the owner writes the next. */
	RB_STORE_REL(&e->resready, 0);
	RB_ATTN_OR(r, RB_ATTN_WATCH);
	rb_ring_wake(r);
	return 0;
}

/**
 * rbmon_ctl_watch_ask - ask for a fresh value of @entry
 *
 * Return: 0, or -1 when the entry or the thread is gone.
 */
int
rbmon_ctl_watch_ask(struct rbmon_ctl *c, const struct rbmon_cmd *k, int entry)
{
	struct ctl_wcall w = { .x = { .c = c, .fn = ctl_watch_ask },
			       .k = k, .entry = entry };

	if (c->base == NULL || entry < 0 || entry >= RB_WATCHES)
		return -1;
	return ctl_guarded(&w.x);
}

static int
ctl_watch_read(struct ctl_call *x)
{
	struct ctl_wcall *w = (struct ctl_wcall *)x;
	struct rb_header *h = ctl_hdr(x->c);
	struct rb_ring	*r = ctl_ring(x->c, w->k->ring);
	struct rb_watch	*e = &r->watches[w->entry];
	struct rbmon_wval *v = w->val;
	const char	*gma = (const char *)x->c->base + x->c->m->hdr.gma_off;
	uint32_t	 tag = RB_GMA_MAKE(w->k->ring, w->entry + 1);
	uint32_t	 gsz = x->c->m->hdr.global_sz, glen;
	int32_t		 len;
	size_t		 n, more = 0;
	int		 i;

	if (!ctl_same_thread(x->c, w->k) ||
	    RB_LOAD(&e->inuse) != RB_WATCH_SET) {
		rbmon_xasprintf(x->cause, "the watch is gone");
		return -1;
	}
	/* Acquire: the value the owner wrote before resready. */
	if (RB_LOAD_ACQ(&e->resready) != 1)
		return 0;
	len = RB_LOAD(&e->reslength);
	memset(v, 0, sizeof *v);
	v->reslength = len;
	v->error = len < 0;
	n = len < 0 ? (len < -RB_RESULT_MAX ? RB_RESULT_MAX : (size_t)-len) :
	    (len > RB_RESULT_MAX ? RB_RESULT_MAX : (size_t)len);
	v->text = rbmon_xcalloc(1, (len > RB_RESULT_MAX ? (size_t)len : n) + 1);
	memcpy(v->text, e->result, n);
	/* The owner clears the busy bit right after resready: wait it out. */
	for (i = 0; len > RB_RESULT_MAX && i < 1000 &&
	    RB_LOAD_ACQ(&h->gma_owner) == (tag | RB_GMA_BUSY); i++)
		sched_yield();
	if (len > RB_RESULT_MAX &&
	    RB_LOAD_ACQ(&h->gma_owner) == tag &&
	    RB_LOAD(&h->gma_pos) == RB_RESULT_MAX) {
		glen = RB_LOAD(&h->gma_len);
		if (glen > gsz)
			glen = gsz;
		more = (size_t)len - n < glen ? (size_t)len - n : glen;
		memcpy(v->text + n, gma, more);
		/* The copy before the owner check: a thief changes the owner first. */
		RB_FENCE_ACQ();
		if (RB_LOAD(&h->gma_owner) != tag)
			more = 0;
	}
	v->text[n + more] = '\0';
	v->truncated = len > 0 && n + more < (size_t)len;
	return 1;
}

/**
 * rbmon_ctl_watch_read - the value of @entry, if the thread gave one
 * @v: filled in when 1 is returned (free with rbmon_wval_free)
 *
 * The full text when it is longer than an entry holds and the global
 * message area still has the rest; v->truncated says when not.
 *
 * Return: 1 a value, 0 none yet, -1 the entry or the thread is gone.
 */
int
rbmon_ctl_watch_read(struct rbmon_ctl *c, const struct rbmon_cmd *k,
    int entry, struct rbmon_wval *v, char **cause)
{
	struct ctl_wcall w = { .x = { .c = c, .cause = cause,
				      .fn = ctl_watch_read },
			       .k = k, .entry = entry, .val = v };

	if (c->base == NULL || entry < 0 || entry >= RB_WATCHES)
		return -1;
	return ctl_guarded(&w.x);
}

void
rbmon_wval_free(struct rbmon_wval *v)
{
	free(v->text);
	v->text = NULL;
}

static int
ctl_watch_remove(struct ctl_call *x)
{
	struct ctl_wcall *w = (struct ctl_wcall *)x;
	struct rb_ring	*r = ctl_ring(x->c, w->k->ring);
	struct rb_watch	*e = &r->watches[w->entry];
	int32_t		 set = RB_WATCH_SET;

	if (!ctl_same_thread(x->c, w->k))
		return -1;
	/* Release: our reads of the entry before the owner frees it; pairs with its acquire load of inuse. */
	if (!RB_CAS_REL(&e->inuse, &set, RB_WATCH_REMOVING))
		return set == RB_WATCH_REMOVING ? 0 : -1;
	RB_ATTN_OR(r, RB_ATTN_WATCH);
	rb_ring_wake(r);
	return 0;
}

/**
 * rbmon_ctl_watch_remove - ask @k's thread to free @entry (inuse = REMOVING)
 *
 * The thread frees it at its next hook.  Return: 0, or -1 when the entry
 * was not in use or the thread is gone.
 */
int
rbmon_ctl_watch_remove(struct rbmon_ctl *c, const struct rbmon_cmd *k,
    int entry)
{
	struct ctl_wcall w = { .x = { .c = c, .fn = ctl_watch_remove },
			       .k = k, .entry = entry };

	if (c->base == NULL || entry < 0 || entry >= RB_WATCHES)
		return -1;
	return ctl_guarded(&w.x);
}

static int
ctl_watch_inuse(struct ctl_call *x)
{
	struct ctl_wcall *w = (struct ctl_wcall *)x;

	if (!ctl_same_thread(x->c, w->k))
		return RB_WATCH_FREE;
	return RB_LOAD_ACQ(&ctl_ring(x->c, w->k->ring)->watches[w->entry].inuse);
}

/**
 * rbmon_ctl_watch_inuse - @entry's inuse word, RB_WATCH_* (RB_WATCH_FREE also
 * when the thread is gone)
 */
int
rbmon_ctl_watch_inuse(struct rbmon_ctl *c, const struct rbmon_cmd *k,
    int entry)
{
	struct ctl_wcall w = { .x = { .c = c, .fn = ctl_watch_inuse },
			       .k = k, .entry = entry };

	if (c->base == NULL || entry < 0 || entry >= RB_WATCHES)
		return RB_WATCH_FREE;
	int		 r = ctl_guarded(&w.x);

	return r == -1 ? RB_WATCH_FREE : r;	/* -1: the guard; inuse is never -1 */
}
