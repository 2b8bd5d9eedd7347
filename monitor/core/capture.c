/* SPDX-License-Identifier: MIT */
/*
 * capture.c - rbmon's side of the captures of slow calls (rbtrace(5),
 * "CAPTURES"): the captures and the armed table copied out of the file,
 * and the commands that arm and disarm functions (CAPT, CCLR, CLST),
 * written by rbmon itself as breakpoints are (breakpoint.c).
 *
 * A capture is copied seqlock style; the letters are the pairs of
 * rbtrace(5), "ORDERING" (lib/capture.c has the writer's side):
 *
 *   s1 = seq (acquire) (N); odd: being written, skip; 0: never written
 *   copy the capture; acquire fence (O); s2 = seq; s1 == s2: whole
 *
 * Nothing copied is trusted: counts are bounded by the arrays, names
 * terminated, and a capture's entry index checked, before anyone uses
 * them.  The mapping is read under rbmon_model_guarded(), so a file
 * truncated meanwhile is an error, not a crash.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/capspec.h"
#include "common/namematch.h"
#include "monitor/core/capture.h"
#include "monitor/core/control.h"
#include "monitor/util/alloc.h"
#include "monitor/util/util.h"

#define CAP_COPY_TRIES	8

/* Copy armed entry @f if it is in force.  Return: 1 with @v whole. */
static int
cap_fn_copy(struct rb_capfn *f, struct rb_capfn *v)
{
	uint32_t	c1;
	int		i;

	for (i = 0; i < CAP_COPY_TRIES; i++) {
		/* (I) Acquire: the fields written before SET; pairs with the writer's release of ctl. */
		c1 = RB_LOAD_ACQ(&f->ctl);
		if (RB_BP_STATE(c1) != RB_BP_SET)
			return 0;
		memcpy(v, f, sizeof *v);
		/* (H) The copy before the second ctl load; pairs with the writer's fence after its claim. */
		RB_FENCE_ACQ();
		if (RB_LOAD(&f->ctl) == c1) {
			v->ctl = c1;
			v->name[RB_CAP_NAME - 1] = '\0';
			if (v->keep < 1 || v->keep > RB_CAP_KEEP_MAX)
				v->keep = v->keep < 1 ? 1 : RB_CAP_KEEP_MAX;
			return 1;
		}
	}
	return 0;
}

/* Copy capture @s.  Return: 1 whole, 0 never written, -1 torn. */
static int
cap_copy(struct rb_capture *s, struct rb_capture *v)
{
	uint32_t	q;
	int		i;

	for (i = 0; i < CAP_COPY_TRIES; i++) {
		/* (N) Acquire: pairs with the writer's release of the even seq. */
		q = RB_LOAD_ACQ(&s->seq);
		if (q == 0)
			return 0;
		if (q & 1)
			continue;
		memcpy(v, s, sizeof *v);
		/* (O) The copy before the second seq load; pairs with the writer's fence after its claim. */
		RB_FENCE_ACQ();
		if (RB_LOAD(&s->seq) != q)
			continue;
		v->seq = q;
		v->thread[RB_THREAD_NAME_MAX - 1] = '\0';
		v->name[RB_CAP_NAME - 1] = '\0';
		if (v->nrec > RB_CAP_EVENTS)
			v->nrec = RB_CAP_EVENTS;
		if (v->nframes > RB_CAP_FRAMES)
			v->nframes = RB_CAP_FRAMES;
		if (v->entry >= RB_CAP_FNS)
			v->entry = RB_CAP_FNS;
		return 1;
	}
	return -1;
}

/** rbmon_cap_duration - @ns as "5.12 ms" */
void
rbmon_cap_duration(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}

struct cap_op {
	struct rbmon_model	*m;
	void			*base;
	struct rbmon_caps	*out;
};

static void
cap_do_read(void *arg)
{
	struct cap_op		*o = arg;
	struct rbmon_caps	*c = o->out;
	const struct rb_header	*h = &o->m->hdr;
	uint32_t		 i;
	int			 r;

	for (i = 0; i < RB_CAP_SLOTS; i++) {
		r = cap_copy(rb_capture_at(o->base, h, i), &c->v[c->n]);
		if (r > 0)
			c->n++;
		else if (r < 0)
			c->torn++;
	}
	for (i = 0; i < RB_CAP_FNS; i++)
		if (cap_fn_copy(rb_capfn_at(o->base, h, i), &c->fns[c->nfns]))
			c->fnidx[c->nfns++] = i;
	c->lost = RB_LOAD(&((struct rb_header *)o->base)->cap_lost);
}

static int
cap_cmp(const void *a, const void *b)
{
	const struct rb_capture	*x = a, *y = b;

	if (x->realtime_ns != y->realtime_ns)
		return x->realtime_ns < y->realtime_ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/**
 * rbmon_caps_read - copy every whole capture and every armed entry of @m
 *
 * Return: 0, or -1 with *@cause set (the file shrank under rbmon).
 */
int
rbmon_caps_read(struct rbmon_model *m, struct rbmon_caps *c, char **cause)
{
	struct cap_op	 o;

	memset(c, 0, sizeof *c);
	c->v = rbmon_xcalloc(RB_CAP_SLOTS, sizeof *c->v);
	c->fns = rbmon_xcalloc(RB_CAP_FNS, sizeof *c->fns);
	c->fnidx = rbmon_xcalloc(RB_CAP_FNS, sizeof *c->fnidx);
	o.m = m;
	o.base = m->base;
	o.out = c;
	if (m->hdr.cap_off == 0 || m->hdr.capfn_off == 0)
		return 0;
	if (rbmon_model_guarded(m, cap_do_read, &o) != 0) {
		rbmon_xasprintf(cause, "file truncated under rbmon");
		rbmon_caps_free(c);
		return -1;
	}
	if (c->n > 1)
		qsort(c->v, c->n, sizeof *c->v, cap_cmp);
	return 0;
}

void
rbmon_caps_free(struct rbmon_caps *c)
{
	free(c->v);
	free(c->fns);
	free(c->fnidx);
	memset(c, 0, sizeof *c);
}

/** rbmon_caps_of - how many captures process @pid (started at @pstart) holds */
size_t
rbmon_caps_of(const struct rbmon_caps *c, int32_t pid, uint64_t pstart)
{
	size_t	i, n = 0;

	for (i = 0; i < c->n; i++)
		n += c->v[i].pid == pid && c->v[i].pstart == pstart;
	return n;
}

struct cap_count {
	struct rbmon_model	*m;
	int32_t			 pid;
	uint64_t		 pstart;
	size_t			 n;
};

static void
cap_do_count(void *arg)
{
	struct cap_count	*o = arg;
	struct rb_capture	*s;
	uint32_t		 i, q;
	int32_t			 pid;
	uint64_t		 pstart;

	for (i = 0; i < RB_CAP_SLOTS; i++) {
		s = rb_capture_at(o->m->base, &o->m->hdr, i);
		/* (N) Acquire: pairs with the writer's release of the even seq. */
		q = RB_LOAD_ACQ(&s->seq);
		if (q == 0 || (q & 1))
			continue;
		pid = RB_LOAD(&s->pid);
		pstart = RB_LOAD(&s->pstart);
		/* (O) The fields before the second seq load. */
		RB_FENCE_ACQ();
		if (RB_LOAD(&s->seq) == q && pid == o->pid &&
		    pstart == o->pstart)
			o->n++;
	}
}

/**
 * rbmon_caps_count - how many whole captures process @pid (started at
 * @pstart) holds in @m; 0 if the file shrank under rbmon
 */
size_t
rbmon_caps_count(const struct rbmon_model *m, int32_t pid, uint64_t pstart)
{
	struct cap_count	 o;

	if (m->hdr.cap_off == 0)
		return 0;
	memset(&o, 0, sizeof o);
	o.m = (struct rbmon_model *)m;
	o.pid = pid;
	o.pstart = pstart;
	if (rbmon_model_guarded(o.m, cap_do_count, &o) != 0)
		return 0;
	return o.n;
}

struct cap_filter {
	struct rbmon_ctl	*c;
	uint64_t		*want;
};

/**
 * rbmon_cap_filter_want - add the bits of the armed entries in force to
 * @want, a breakpoint filter being rebuilt (breakpoint.c): the filter is
 * theirs too
 */
void
rbmon_cap_filter_want(struct rbmon_ctl *c, uint64_t *want)
{
	struct rb_capfn	 v;
	uint32_t	 i, h;

	if (c->m->hdr.capfn_off == 0)
		return;
	for (i = 0; i < RB_CAP_FNS; i++)
		if (cap_fn_copy(rb_capfn_at(c->base, &c->m->hdr, i), &v)) {
			h = rb_bp_hash(v.addr);
			want[h >> 6] |= 1ull << (h & 63);
		}
}

/* ------------------------------------------------------------------
 * The commands: CAPT FUNC>DURATION [KEEP], CCLR [FUNC], CLST.
 */

int
rbmon_cap_is_command(const char *cmd)
{
	return memcmp(cmd, "CAPT", 4) == 0 || memcmp(cmd, "CCLR", 4) == 0 ||
	    memcmp(cmd, "CLST", 4) == 0;
}

struct cap_arm {
	struct rbmon_ctl		*c;
	const struct rbmon_cap_scope	*sc;
	const char			*name;
	uint64_t			 ns;
	uint32_t			 flags, keep, id;
	const uint64_t			*addrs;
	size_t				 n;
	int				 ret;
	uint32_t			 cleared;
	FILE				*f;
};

/* Claim entry @f: free, or nobody's any more.  Return: 1 with @gen. */
static int
cap_claim(struct rb_capfn *f, int reclaim, uint32_t *gen)
{
	struct rb_capfn	 v;
	uint32_t	 cur;

	/* (I) Acquire: the state its last writer left; pairs with its release. */
	cur = RB_LOAD_ACQ(&f->ctl);
	switch (RB_BP_STATE(cur)) {
	case RB_BP_FREE:
		break;
	case RB_BP_SET:
		if (!reclaim || !cap_fn_copy(f, &v) ||
		    rbmon_model_pid_alive(v.pid, v.pstart))
			return 0;
		cur = v.ctl;
		break;
	case RB_BP_WRITING:
		if (!reclaim || RB_LOAD(&f->setter) == getpid() ||
		    kill(RB_LOAD(&f->setter), 0) == 0 || errno == EPERM)
			return 0;
		break;
	default:
		if (!reclaim)
			return 0;
		break;
	}
	*gen = RB_BP_GEN(cur) + 1;
	if (!RB_CAS(&f->ctl, &cur, RB_BP_MAKE(RB_BP_WRITING, *gen)))
		return 0;
	/* (H) The claim before the fields; pairs with the readers' fence. */
	RB_FENCE_REL();
	return 1;
}

static void
cap_filter_or(struct rbmon_ctl *c, uint64_t addr)
{
	uint64_t	*f = rb_bpfilter(c->base, &c->m->hdr);
	uint32_t	 h = rb_bp_hash(addr);

	/* (J) After the entry's SET; the hooks read the word relaxed. */
	RB_BPF_OR(&f[h >> 6], 1ull << (h & 63));
}

static void
cap_do_arm(void *arg)
{
	struct cap_arm	*o = arg;
	struct rb_header *h = o->c->base;
	uint32_t	 idx[RB_CAP_FNS], gen[RB_CAP_FNS], i, k = 0;
	int		 reclaim;

	for (reclaim = 0; reclaim < 2 && k < o->n; reclaim++)
		for (i = 0; i < RB_CAP_FNS && k < o->n; i++)
			if (cap_claim(rb_capfn_at(o->c->base, &o->c->m->hdr, i),
			    reclaim, &gen[k]))
				idx[k++] = i;
	if (k < o->n) {
		for (i = 0; i < k; i++)
			/* (I) Release: nothing of ours is left in it. */
			RB_STORE_REL(&rb_capfn_at(o->c->base, &o->c->m->hdr,
			    idx[i])->ctl, RB_BP_MAKE(RB_BP_FREE, gen[i] + 1));
		o->ret = -1;
		return;
	}
	/* Relaxed: a counter; ids only need to differ. */
	o->id = (uint32_t)RB_ADD_FETCH(&h->cap_next_id, 1);
	for (i = 0; i < k; i++) {
		struct rb_capfn *f = rb_capfn_at(o->c->base, &o->c->m->hdr,
		    idx[i]);

		/* Relaxed: published by the release store of SET below (I). */
		RB_STORE(&f->flags, o->flags);
		RB_STORE(&f->pid, o->sc->pid);
		RB_STORE(&f->setter, (int32_t)getpid());
		RB_STORE(&f->pstart, o->sc->pstart);
		RB_STORE(&f->image, o->sc->image);
		RB_STORE(&f->addr, o->addrs[i]);
		RB_STORE(&f->threshold_ns, o->ns);
		RB_STORE(&f->keep, o->keep);
		RB_STORE(&f->id, o->id);
		RB_STORE(&f->max_ns, 0);
		RB_STORE(&f->fired, 0);
		RB_STORE(&f->stored, 0);
		RB_STORE(&f->dropped, 0);
		memset(f->name, 0, sizeof f->name);
		memcpy(f->name, o->name, strlen(o->name));
	}
	for (i = 0; i < k; i++) {
		struct rb_capfn *f = rb_capfn_at(o->c->base, &o->c->m->hdr,
		    idx[i]);

		/* (I) The fields before SET; pairs with the readers' acquire load of ctl. */
		RB_STORE_REL(&f->ctl, RB_BP_MAKE(RB_BP_SET, gen[i]));
		cap_filter_or(o->c, o->addrs[i]);
	}
	o->ret = 0;
}

static void
cap_do_clear(void *arg)
{
	struct cap_arm	*o = arg;
	struct rb_capfn	 v;
	uint32_t	 i, cur;

	for (i = 0; i < RB_CAP_FNS; i++) {
		struct rb_capfn *f = rb_capfn_at(o->c->base, &o->c->m->hdr, i);

		if (!cap_fn_copy(f, &v) || v.image != o->sc->image ||
		    v.pid != o->sc->pid ||
		    (o->name != NULL && !rb_name_equal(o->name, v.name)))
			continue;
		cur = v.ctl;
		/* (I) Release: our reads of it before it may be reused. */
		if (RB_CAS_REL(&f->ctl, &cur,
		    RB_BP_MAKE(RB_BP_FREE, RB_BP_GEN(cur) + 1)))
			o->cleared++;
	}
	o->ret = 0;
}

static void
cap_do_list(void *arg)
{
	struct cap_arm	*o = arg;
	struct rb_capfn	 v;
	uint32_t	 i, n = 0;
	char		 d[32];

	for (i = 0; i < RB_CAP_FNS; i++) {
		if (!cap_fn_copy(rb_capfn_at(o->c->base, &o->c->m->hdr, i),
		    &v) || v.image != o->sc->image || v.pid != o->sc->pid)
			continue;
		if (v.flags & RB_CAPF_MAX)
			snprintf(d, sizeof d, "max");
		else
			rbmon_cap_duration(d, sizeof d, v.threshold_ns);
		fprintf(o->f, "%s%s>%s at 0x%" PRIx64 ": keeps %u, %" PRIu64
		    " slow, %" PRIu64 " kept, %" PRIu64 " not kept",
		    n++ ? "\n" : "", v.name, d, v.addr, v.keep, v.fired,
		    v.stored, v.dropped);
	}
	if (n == 0)
		fputs("no function armed for captures", o->f);
	o->ret = 0;
}

static int
cap_guarded(struct cap_arm *o, void (*fn)(void *), char **text)
{
	if (rbmon_model_guarded(o->c->m, fn, o) != 0) {
		rbmon_xasprintf(text, "file truncated under rbmon");
		return -1;
	}
	return 0;
}

/* CAPT FUNC>DURATION [KEEP] */
static int
cap_capt(struct rbmon_ctl *c, const struct rbmon_cap_scope *sc,
    const struct rbmon_cap_ops *ops, const char *args, char **text)
{
	struct cap_arm	 o;
	char		*buf = rbmon_xstrdup(args), *sp, *end, name[RB_CAP_NAME];
	char		*cause = NULL, d[32];
	uint64_t	*addrs = NULL;
	unsigned long	 keep = RB_CAP_KEEP_DEF;
	size_t		 n = 0, len;
	int		 ret;

	memset(&o, 0, sizeof o);
	len = strlen(buf);
	while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		buf[--len] = '\0';
	sp = strrchr(buf, ' ');
	if (sp != NULL && sp[1] >= '0' && sp[1] <= '9' &&
	    sp[1 + strspn(sp + 1, "0123456789")] == '\0') {
		keep = strtoul(sp + 1, &end, 10);
		if (keep < 1 || keep > RB_CAP_KEEP_MAX) {
			rbmon_xasprintf(text, "captures kept: 1 to %d, not %.12s",
			    RB_CAP_KEEP_MAX, sp + 1);
			ret = 0;
			goto out;
		}
		*sp = '\0';
	}
	if (rb_capspec_parse(buf, name, sizeof name, &o.ns, &o.flags) != 0) {
		rbmon_xasprintf(text, "usage: CAPT FUNC>DURATION [KEEP] "
		    "(DURATION: a number and ns, us, ms or s; or max)");
		ret = 0;
		goto out;
	}
	addrs = ops->resolve(ops->arg, name, &n, &cause);
	if (cause != NULL) {
		*text = cause;
		ret = -1;
		goto out;
	}
	if (n == 0) {
		rbmon_xasprintf(text, "no function '%s' in the program's "
		    "symbols", name);
		ret = 0;
		goto out;
	}
	if (n > RB_CAP_FNS) {
		rbmon_xasprintf(text, "'%s' has %zu entry addresses; the armed "
		    "table holds %d", name, n, RB_CAP_FNS);
		ret = 0;
		goto out;
	}
	o.c = c;
	o.sc = sc;
	o.name = name;
	o.keep = (uint32_t)keep;
	o.addrs = addrs;
	o.n = n;
	if (cap_guarded(&o, cap_do_arm, text) != 0) {
		ret = -1;
		goto out;
	}
	if (o.ret != 0) {
		rbmon_xasprintf(text, "no room for %zu more location%s in the "
		    "armed table (%d entries); disarm some with CCLR", n,
		    n == 1 ? "" : "s", RB_CAP_FNS);
		ret = 0;
		goto out;
	}
	if (o.flags & RB_CAPF_MAX)
		snprintf(d, sizeof d, "its slowest so far");
	else
		rbmon_cap_duration(d, sizeof d, o.ns);
	rbmon_xasprintf(text, "capturing %s when slower than %s (%zu "
	    "location%s, keeping the %u slowest)", name, d, n,
	    n == 1 ? "" : "s", o.keep);
	ret = 1;
out:
	free(addrs);
	free(buf);
	return ret;
}

/**
 * rbmon_cap_run - one capture command for @sc's process image: CAPT
 * FUNC>DURATION [KEEP], CCLR [FUNC] (every function without), CLST
 *
 * Return: 1 OK, 0 ERR, -1 failed (the file).
 */
int
rbmon_cap_run(struct rbmon_ctl *c, const struct rbmon_cap_scope *sc,
    const struct rbmon_cap_ops *ops, const char *cmd, const char *args,
    char **text)
{
	struct cap_arm	 o;
	char		*buf, *a;
	size_t		 len;

	*text = NULL;
	if (c->m->hdr.capfn_off == 0) {
		rbmon_xasprintf(text, "the file has no armed table");
		return -1;
	}
	if (memcmp(cmd, "CAPT", 4) == 0)
		return cap_capt(c, sc, ops, args, text);
	memset(&o, 0, sizeof o);
	o.c = c;
	o.sc = sc;
	if (memcmp(cmd, "CCLR", 4) == 0) {
		buf = rbmon_xstrdup(args);
		for (a = buf; *a == ' ' || *a == '\t'; a++)
			;
		len = strlen(a);
		while (len > 0 && (a[len - 1] == ' ' || a[len - 1] == '\t'))
			a[--len] = '\0';
		o.name = *a != '\0' ? a : NULL;
		if (cap_guarded(&o, cap_do_clear, text) != 0) {
			free(buf);
			return -1;
		}
		if (o.cleared > 0)
			ops->filter_sync(ops->arg);
		if (o.name != NULL && o.cleared == 0)
			rbmon_xasprintf(text, "no capture of '%s' armed", o.name);
		else
			rbmon_xasprintf(text, "%u location%s disarmed",
			    o.cleared, o.cleared == 1 ? "" : "s");
		free(buf);
		return o.name != NULL && o.cleared == 0 ? 0 : 1;
	}
	{
		size_t	 n;

		o.f = open_memstream(text, &n);
		if (o.f == NULL) {
			fputs("rbmon: out of memory\n", stderr);
			exit(1);
		}
		if (cap_guarded(&o, cap_do_list, text) != 0) {
			fclose(o.f);
			return -1;
		}
		if (fclose(o.f) != 0 || *text == NULL) {
			fputs("rbmon: out of memory\n", stderr);
			exit(1);
		}
	}
	return 1;
}
