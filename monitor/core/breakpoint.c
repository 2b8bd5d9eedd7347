/* SPDX-License-Identifier: MIT */
/*
 * rbmon breakpoints: BRKP, BCLR and BLST, done by the monitor itself.
 *
 * A function name is resolved here, with libdwfl over the objects its
 * process image recorded (separate debug files found the way libdwfl
 * finds them), to every entry address the hooks receive: never a .cold or
 * .part fragment of a function, which receives none.  Each address takes
 * one entry of the file's breakpoint table, and its bit is set in the
 * filter the hooks test (rbtrace(5), "BREAKPOINTS").  No thread of the
 * program takes part, so breakpoints are set, listed and cleared while
 * every thread is blocked in a system call.
 *
 * Entries are claimed by compare-and-swap, so several monitors and the
 * program (fork children's copies) write the table side by side; readers
 * copy an entry between two loads of its ctl word.  Every access runs
 * under the model's SIGBUS guard.  The ordering points carry the letters
 * of rbtrace(5), "ORDERING", as the library's side (lib/breakpoint.c)
 * does: (H) and (I) for an entry, (J) for the filter.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "common/atomic.h"
#include "common/namematch.h"
#include "monitor/core/breakpoint.h"
#include "monitor/core/capture.h"
#include "monitor/core/control.h"
#include "monitor/core/dyn.h"

#define BP_COPY_TRIES	100	/* rereads of an entry caught changing */
#define BP_ID_MAX	0xffffffu	/* rb_ring.why keeps ids in 24 bits */

/* ------------------------------------------------------------------
 * Names.
 */

/*
 * The rule itself is common/namematch.c's, shared with the library's
 * dynamic tracing; a breakpoint's name is never a glob.
 */
int
rbmon_bp_name_match(const char *q, const char *d)
{
	return rb_name_equal(q, d);
}

int
rbmon_bp_symbol_kind(const char *name, size_t *base)
{
	return rb_symbol_kind(name, base);
}

/* ------------------------------------------------------------------
 * Resolving: every entry address of a name in a process image.
 */

struct bp_addrs {
	uint64_t	*v;
	size_t		 n, cap;
};

static void
bp_addrs_add(struct bp_addrs *a, uint64_t addr)
{
	size_t	i;

	for (i = 0; i < a->n; i++)
		if (a->v[i] == addr)
			return;
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = rbmon_xreallocarray(a->v, a->cap, sizeof *a->v);
	}
	a->v[a->n++] = addr;
}

struct bp_query {
	const char		 *name;
	Dwfl_Module *const	 *bad;
	size_t			  nbad;
	struct bp_addrs		  out;
	struct bp_addrs		  funcs, clones;	/* of one module */
};

/* Symbol @sym, of base length @base, named by the query? */
static int
bp_sym_matches(const struct bp_query *q, const char *sym, size_t base)
{
	char	*raw, *d;
	int	 ok;

	if (strcmp(sym, q->name) == 0 ||
	    (strlen(q->name) == base && strncmp(sym, q->name, base) == 0))
		return 1;
	if (base < 3 || sym[0] != '_' || sym[1] != 'Z')
		return 0;
	raw = rbmon_xcalloc(1, base + 1);
	memcpy(raw, sym, base);
	d = rbmon_symbols_demangle(raw);
	ok = strcmp(d, raw) != 0 && rb_name_equal(q->name, d);
	free(d);
	free(raw);
	return ok;
}

static int
bp_module_bad(const struct bp_query *q, Dwfl_Module *mod)
{
	size_t	i;

	for (i = 0; i < q->nbad; i++)
		if (q->bad[i] == mod)
			return 1;
	return 0;
}

/* A module's candidates: its functions, or if it has none, their clones. */
static void
bp_module_done(struct bp_query *q)
{
	struct bp_addrs	*a = q->funcs.n > 0 ? &q->funcs : &q->clones;
	size_t		 i;

	for (i = 0; i < a->n; i++)
		bp_addrs_add(&q->out, a->v[i]);
	q->funcs.n = q->clones.n = 0;
}

static int
bp_module_symtab(Dwfl_Module *mod, void **ud, const char *name,
    Dwarf_Addr base, void *arg)
{
	struct bp_query	*q = arg;
	GElf_Sym	 sym;
	GElf_Addr	 addr;
	const char	*nm;
	size_t		 bl;
	int		 i, n, kind;

	(void)ud;
	(void)name;
	(void)base;
	if (bp_module_bad(q, mod))
		return DWARF_CB_OK;
	n = dwfl_module_getsymtab(mod);
	for (i = 1; i < n; i++) {
		nm = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL,
		    NULL);
		if (nm == NULL || *nm == '\0' || sym.st_shndx == SHN_UNDEF ||
		    addr == 0 || (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		    GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		kind = rb_symbol_kind(nm, &bl);
		if (kind == RB_SYM_FRAGMENT || !bp_sym_matches(q, nm, bl))
			continue;
		bp_addrs_add(kind == RB_SYM_CLONE ? &q->clones :
		    &q->funcs, addr);
	}
	bp_module_done(q);
	return DWARF_CB_OK;
}

/* The entry of a function's DIE: its entry pc, low pc or first range. */
static int
bp_die_entry(Dwarf_Die *f, Dwarf_Addr *pc)
{
	Dwarf_Addr	 base, end;

	if (dwarf_entrypc(f, pc) == 0 || dwarf_lowpc(f, pc) == 0)
		return 0;
	return dwarf_ranges(f, 0, &base, pc, &end) > 0 ? 0 : -1;
}

struct bp_dwarf {
	struct bp_query	*q;
	Dwarf_Addr	 bias;
};

static int
bp_dwarf_func(Dwarf_Die *f, void *arg)
{
	struct bp_dwarf	*x = arg;
	Dwarf_Attribute	 at;
	Dwarf_Addr	 pc;
	const char	*nm;
	size_t		 bl;
	int		 kind;

	if (dwarf_hasattr(f, DW_AT_declaration) || bp_die_entry(f, &pc) != 0)
		return DWARF_CB_OK;
	nm = dwarf_formstring(dwarf_attr_integrate(f, DW_AT_linkage_name, &at));
	if (nm == NULL)
		nm = dwarf_formstring(dwarf_attr_integrate(f,
		    DW_AT_MIPS_linkage_name, &at));
	if (nm == NULL) {
		nm = dwarf_diename(f);
		if (nm == NULL || strcmp(nm, x->q->name) != 0)
			return DWARF_CB_OK;
		kind = RB_SYM_FUNC;
	} else {
		kind = rb_symbol_kind(nm, &bl);
		if (kind == RB_SYM_FRAGMENT ||
		    !bp_sym_matches(x->q, nm, bl))
			return DWARF_CB_OK;
	}
	bp_addrs_add(kind == RB_SYM_CLONE ? &x->q->clones :
	    &x->q->funcs, pc + x->bias);
	return DWARF_CB_OK;
}

/* Where no symbol table names the function: the functions DWARF describes. */
static int
bp_module_dwarf(Dwfl_Module *mod, void **ud, const char *name,
    Dwarf_Addr base, void *arg)
{
	struct bp_dwarf	 x = { arg, 0 };
	Dwarf_Die	*cu = NULL;

	(void)ud;
	(void)name;
	(void)base;
	if (bp_module_bad(x.q, mod) || dwfl_module_getdwarf(mod, &x.bias) ==
	    NULL)
		return DWARF_CB_OK;
	while ((cu = dwfl_module_nextcu(mod, cu, &x.bias)) != NULL)
		dwarf_getfuncs(cu, bp_dwarf_func, &x, 0);
	bp_module_done(x.q);
	return DWARF_CB_OK;
}

static int
bp_addr_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/**
 * rbmon_bp_resolve - every entry address of @name in @sc's image, sorted
 *
 * Return: them (*@n of them), NULL when none or with *@cause set.
 */
uint64_t *
rbmon_bp_resolve(struct rbmon_ctl *c, struct rbmon_symbols *sy,
    const struct rbmon_bp_scope *sc, const char *name, size_t *n,
    char **cause)
{
	struct rbmon_snapshot	 s;
	struct rbmon_process	 p;
	struct bp_query		 q;
	Dwfl			*dwfl;

	*n = 0;
	if (rbmon_model_snapshot(c->m, &s, cause) != 0)
		return NULL;
	memset(&p, 0, sizeof p);
	p.pid = sc->pid;
	p.pstart = sc->pstart;
	p.image = sc->image;
	p.alive = 1;
	memset(&q, 0, sizeof q);
	q.name = name;
	dwfl = rbmon_symbols_dwfl(sy, &s, &p, &q.bad, &q.nbad);
	if (dwfl != NULL) {
		dwfl_getmodules(dwfl, bp_module_symtab, &q, 0);
		if (q.out.n == 0)
			dwfl_getmodules(dwfl, bp_module_dwarf, &q, 0);
	}
	rbmon_model_free(&s);
	free(q.funcs.v);
	free(q.clones.v);
	if (q.out.n > 0)
		qsort(q.out.v, q.out.n, sizeof *q.out.v, bp_addr_cmp);
	*n = q.out.n;
	return q.out.v;
}

/* ------------------------------------------------------------------
 * The table.
 */

/* One breakpoint as listed: its locations gathered. */
struct bp_row {
	uint32_t	 id, from, nlocs;
	int32_t		 tid;
	uint64_t	 hits;
	uint64_t	*addrs;		/* by location, 0: not seen */
	char		 name[RB_BP_NAME];
};

struct bp_op {
	struct rbmon_ctl		*c;
	const struct rbmon_bp_scope	*sc;
	int				 ret;
	/* set */
	const char			*name;
	uint32_t			 from;
	int32_t				 tid;
	const uint64_t			*addrs;
	size_t				 n;
	uint32_t			 id;
	/* clear */
	uint32_t			 cleared;
	/* list */
	struct bp_row			*rows;
	size_t				 nrows;
	/* dynamic tracing: the table's copies */
	struct rbmon_dyns		 dyns;
};

static struct rb_bp *
bp_entry(struct rbmon_ctl *c, uint32_t i)
{
	return rb_bp_at(c->base, &c->m->hdr, i);
}

/*
 * Copy entry @b (a consistent copy of one state of it).
 * Return: 1 with @v filled, 0 if it is not SET or kept changing.
 */
static int
bp_copy(struct rb_bp *b, struct rb_bp *v)
{
	uint32_t	c1;
	int		i;

	for (i = 0; i < BP_COPY_TRIES; i++) {
		/* (I) Acquire: the fields written before SET; pairs with the writer's release of ctl. */
		c1 = RB_LOAD_ACQ(&b->ctl);
		if (RB_BP_STATE(c1) != RB_BP_SET)
			return 0;
		v->id = RB_LOAD(&b->id);
		v->pid = RB_LOAD(&b->pid);
		v->tid = RB_LOAD(&b->tid);
		v->pstart = RB_LOAD(&b->pstart);
		v->image = RB_LOAD(&b->image);
		v->addr = RB_LOAD(&b->addr);
		v->hits = RB_LOAD(&b->hits);
		v->from = RB_LOAD(&b->from);
		v->loc = RB_LOAD(&b->loc);
		v->nlocs = RB_LOAD(&b->nlocs);
		v->setter = RB_LOAD(&b->setter);
		memcpy(v->name, b->name, sizeof v->name);
		/* (H) The copy before the second ctl load; pairs with the writer's fence after its claim. */
		RB_FENCE_ACQ();
		if (RB_LOAD(&b->ctl) == c1) {
			v->ctl = c1;
			v->name[RB_BP_NAME - 1] = '\0';
			return 1;
		}
	}
	return 0;
}

static int
bp_pid_alive(int32_t pid)
{
	return pid > 0 && (pid == getpid() || kill(pid, 0) == 0 ||
	    errno == EPERM);
}

/*
 * Claim entry @b for writing: a free one, or with @reclaim one that is
 * nobody's any more (its process is gone, or its writer died writing it).
 * Return: 1 with @gen set to the generation it is claimed in, or 0.
 */
static int
bp_claim(struct rb_bp *b, int reclaim, uint32_t *gen)
{
	struct rb_bp	 v;
	uint32_t	 cur;

	/* (I) Acquire: the state its last writer left; pairs with its release. */
	cur = RB_LOAD_ACQ(&b->ctl);
	switch (RB_BP_STATE(cur)) {
	case RB_BP_FREE:
		break;
	case RB_BP_SET:
		if (!reclaim || !bp_copy(b, &v) ||
		    rbmon_model_pid_alive(v.pid, v.pstart))
			return 0;
		cur = v.ctl;
		break;
	case RB_BP_WRITING:
		if (!reclaim ||
		    bp_pid_alive(RB_LOAD(&b->setter)))
			return 0;
		break;
	default:		/* not a state: a stray write */
		if (!reclaim)
			return 0;
		break;
	}
	*gen = RB_BP_GEN(cur) + 1;
	if (!RB_CAS(&b->ctl, &cur, RB_BP_MAKE(RB_BP_WRITING, *gen)))
		return 0;
	/*
	 * (H) The claim before the fields written next; pairs with the
	 * readers' acquire fence before their second ctl load.
	 */
	RB_FENCE_REL();
	return 1;
}

/*
 * Make the filter hold exactly the bits of the entries in force: drop
 * bits nobody needs, keep and add the others.  A writer sets its entry
 * SET and then ORs its bit (acq_rel or stronger); the AND below and that
 * OR are ordered on the word, so either the OR comes after the AND, or
 * the writer's SET is visible to the second scan, which ORs the bit again.
 */
static void
bp_filter_sync(struct rbmon_ctl *c)
{
	uint64_t	 want[RB_BP_FILTER_BITS / 64], *f, bit;
	struct rb_bp	 v;
	uint32_t	 i, h, w;

	f = rb_bpfilter(c->base, &c->m->hdr);
	memset(want, 0, sizeof want);
	for (i = 0; i < RB_BP_ENTRIES; i++)
		if (bp_copy(bp_entry(c, i), &v)) {
			h = rb_bp_hash(v.addr);
			want[h >> 6] |= 1ull << (h & 63);
		}
	rbmon_cap_filter_want(c, want);
	for (w = 0; w < RB_BP_FILTER_BITS / 64; w++)
		/* (J) Acq_rel: ordered against the writers' ORs of this word (see above). */
		if (RB_LOAD(&f[w]) & ~want[w])
			RB_BPF_AND(&f[w], want[w]);
	for (i = 0; i < RB_BP_ENTRIES; i++)
		if (bp_copy(bp_entry(c, i), &v)) {
			h = rb_bp_hash(v.addr);
			bit = 1ull << (h & 63);
			/* (J) After the entry's SET, which bp_copy() saw; the hooks read it relaxed. */
			if (!(RB_LOAD(&f[h >> 6]) & bit))
				RB_BPF_OR(&f[h >> 6], bit);
		}
}

static void
bp_do_set(void *arg)
{
	struct bp_op	*o = arg;
	struct rbmon_ctl *c = o->c;
	struct rb_header *h = c->base;
	uint32_t	*idx, *gen, i, k = 0;
	uint64_t	 id;
	int		 reclaim;

	idx = rbmon_xcalloc(o->n, sizeof *idx);
	gen = rbmon_xcalloc(o->n, sizeof *gen);
	for (reclaim = 0; reclaim < 2 && k < o->n; reclaim++)
		for (i = 0; i < RB_BP_ENTRIES && k < o->n; i++)
			if (bp_claim(bp_entry(c, i), reclaim, &gen[k]))
				idx[k++] = i;
	if (k < o->n) {
		for (i = 0; i < k; i++)
			/* (I) Release: nothing of ours is left in it. */
			RB_STORE_REL(&bp_entry(c, idx[i])->ctl,
			    RB_BP_MAKE(RB_BP_FREE, gen[i] + 1));
		o->ret = -1;
		goto out;
	}
	/* Relaxed: a counter; ids only need to differ. */
	id = RB_ADD_FETCH(&h->bp_next_id, 1);
	o->id = (uint32_t)((id - 1) % BP_ID_MAX) + 1;
	for (i = 0; i < k; i++) {
		struct rb_bp *b = bp_entry(c, idx[i]);

		/* Relaxed: published by the release store of SET below (I). */
		RB_STORE(&b->id, o->id);
		RB_STORE(&b->pid, o->sc->pid);
		RB_STORE(&b->tid, o->tid);
		RB_STORE(&b->pstart, o->sc->pstart);
		RB_STORE(&b->image, o->sc->image);
		RB_STORE(&b->addr, o->addrs[i]);
		RB_STORE(&b->hits, 0);
		RB_STORE(&b->from, o->from);
		RB_STORE(&b->loc, i);
		RB_STORE(&b->nlocs, k);
		RB_STORE(&b->setter, (int32_t)getpid());
		memset(b->name, 0, sizeof b->name);
		memcpy(b->name, o->name, strlen(o->name));
	}
	for (i = 0; i < k; i++)
		/* (I) The fields before SET; pairs with the readers' acquire load of ctl. */
		RB_STORE_REL(&bp_entry(c, idx[i])->ctl,
		    RB_BP_MAKE(RB_BP_SET, gen[i]));
	bp_filter_sync(c);
	o->ret = 0;
out:
	free(idx);
	free(gen);
}

static void
bp_do_clear(void *arg)
{
	struct bp_op	*o = arg;
	struct rb_bp	 v;
	uint32_t	*ids = NULL, i, k;
	size_t		 nids = 0;

	for (i = 0; i < RB_BP_ENTRIES; i++) {
		struct rb_bp *b = bp_entry(o->c, i);
		uint32_t cur;

		if (!bp_copy(b, &v) || v.image != o->sc->image ||
		    v.pid != o->sc->pid || (o->id != 0 && v.id != o->id))
			continue;
		cur = v.ctl;
		/* (I) Release: our reads of it before it may be reused. */
		if (!RB_CAS_REL(&b->ctl, &cur,
		    RB_BP_MAKE(RB_BP_FREE, RB_BP_GEN(cur) + 1)))
			continue;
		for (k = 0; k < nids && ids[k] != v.id; k++)
			;
		if (k == nids) {
			ids = rbmon_xreallocarray(ids, nids + 1, sizeof *ids);
			ids[nids++] = v.id;
		}
	}
	free(ids);
	o->cleared = (uint32_t)nids;
	bp_filter_sync(o->c);
	o->ret = 0;
}

static void
bp_do_list(void *arg)
{
	struct bp_op	*o = arg;
	struct bp_row	*r;
	struct rb_bp	 v;
	uint32_t	 i;
	size_t		 k;

	for (i = 0; i < RB_BP_ENTRIES; i++) {
		if (!bp_copy(bp_entry(o->c, i), &v) ||
		    v.image != o->sc->image || v.pid != o->sc->pid)
			continue;
		for (k = 0; k < o->nrows && o->rows[k].id != v.id; k++)
			;
		if (k == o->nrows) {
			o->rows = rbmon_xreallocarray(o->rows, o->nrows + 1,
			    sizeof *o->rows);
			r = &o->rows[o->nrows++];
			memset(r, 0, sizeof *r);
			r->id = v.id;
			r->from = v.from;
			r->tid = v.tid;
			r->nlocs = v.nlocs > RB_BP_ENTRIES ? RB_BP_ENTRIES :
			    v.nlocs;
			r->addrs = rbmon_xcalloc(r->nlocs ? r->nlocs : 1,
			    sizeof *r->addrs);
			memcpy(r->name, v.name, sizeof r->name);
		}
		r = &o->rows[k];
		r->hits += v.hits;
		if (v.loc < r->nlocs)
			r->addrs[v.loc] = v.addr;
	}
	o->ret = 0;
}

static int
bp_guarded(struct bp_op *o, void (*fn)(void *), char **cause)
{
	if (rbmon_model_guarded(o->c->m, fn, o) != 0) {
		rbmon_xasprintf(cause, "file truncated under rbmon");
		return -1;
	}
	return 0;
}

static void
bp_do_dyn(void *arg)
{
	struct bp_op	*o = arg;

	rbmon_dyn_read(o->c->base, &o->c->m->hdr, &o->dyns);
}

/*
 * A breakpoint on a function switched off (rbtrace(5), "DYNAMIC TRACING")
 * would never be hit: ask the scope's thread to switch its locations back
 * on (a DYN command, waited for a moment), or say why not, after the
 * breakpoint's line in @f.
 */
static void
bp_dyn_check(struct bp_op *o, FILE *f)
{
	const struct rbmon_dyn	*d;
	struct rbmon_cmd	 k;
	char			 req[512], *why = NULL;
	size_t			 i, j, n = 0, len = 0;
	int			 r;

	memset(&o->dyns, 0, sizeof o->dyns);
	if (o->c->base == NULL || bp_guarded(o, bp_do_dyn, &why) != 0) {
		free(why);
		return;
	}
	d = rbmon_dyn_find(&o->dyns, o->sc->pid, o->sc->pstart);
	if (d == NULL || d->torn)
		goto out;
	if (d->flags & RB_DYNF_DORMANT) {
		fprintf(f, "; the process is asleep, no function is traced: "
		    "rbtrace -p %d wakes it", (int)o->sc->pid);
		goto out;
	}
	req[0] = '\0';
	for (i = 0; i < o->n; i++)
		for (j = 0; j < d->nfns; j++)
			if (d->fns[j].addr == o->addrs[i] &&
			    len + 40 < sizeof req) {
				len += (size_t)snprintf(req + len,
				    sizeof req - len, "%sinclude-addr %#llx",
				    n ? "\n" : "",
				    (unsigned long long)o->addrs[i]);
				n++;
			}
	if (n == 0)
		goto out;
	memset(&k, 0, sizeof k);
	r = -1;
	if (rbmon_ctl_target(o->c, o->sc->tid, &k, &why) == 0 &&
	    rbmon_ctl_post(o->c, &k, "DYN ", req, &why) == 0) {
		r = rbmon_ctl_wait(o->c, &k, 1000000000ull, &why);
		if (r == 0)
			rbmon_ctl_withdraw(o->c, &k);
	}
	if (r > 0 && k.ok)
		fprintf(f, "; it was not traced (switched off): switched back on");
	else
		fprintf(f, "; it is not traced (switched off), and thread %d "
		    "could not switch it back on%s%s: rbtrace -p %d --include "
		    "%s, or X in rbmon's screen", (int)o->sc->tid,
		    why != NULL ? ": " : "", why != NULL ? why : "",
		    (int)o->sc->pid, o->name);
	rbmon_cmd_free(&k);
out:
	free(why);
	rbmon_dyn_free(&o->dyns);
}

static int
bp_row_cmp(const void *a, const void *b)
{
	uint32_t	x = ((const struct bp_row *)a)->id;
	uint32_t	y = ((const struct bp_row *)b)->id;

	return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------
 * The commands.
 */

/**
 * rbmon_bp_is_command - is @cmd (four bytes) one rbmon does itself?
 */
int
rbmon_bp_is_command(const char *cmd)
{
	return memcmp(cmd, "BRKP", 4) == 0 || memcmp(cmd, "BCLR", 4) == 0 ||
	    memcmp(cmd, "BLST", 4) == 0 || rbmon_cap_is_command(cmd);
}

/**
 * rbmon_bp_scope_of - the breakpoints a command to @k's thread acts on:
 * those of its process image
 *
 * Return: 0, or -1 with *@cause set (the thread is gone).
 */
int
rbmon_bp_scope_of(struct rbmon_ctl *c, const struct rbmon_cmd *k,
    struct rbmon_bp_scope *sc, char **cause)
{
	memset(sc, 0, sizeof *sc);
	sc->pid = k->pid;
	sc->tid = k->tid;
	return rbmon_ctl_process(c, k, &sc->pstart, &sc->image, cause);
}

static int
bp_err(char **text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
bp_err(char **text, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	if (vasprintf(text, fmt, ap) < 0) {
		fputs("rbmon: out of memory\n", stderr);
		exit(1);
	}
	va_end(ap);
	return 0;
}

/* An answer's text, printed into a memory stream. */
struct bp_out {
	FILE	 *f;
	char	**text;
	size_t	  len;
};

static FILE *
bp_open(struct bp_out *o, char **text)
{
	o->text = text;
	o->f = open_memstream(text, &o->len);
	if (o->f == NULL) {
		fputs("rbmon: out of memory\n", stderr);
		exit(1);
	}
	return o->f;
}

static void
bp_close(struct bp_out *o)
{
	if (fclose(o->f) != 0 || *o->text == NULL) {
		fputs("rbmon: out of memory\n", stderr);
		exit(1);
	}
}

static int
bp_hexaddr(const char *s, uint64_t *out)
{
	char	*end;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s[2] == '\0' ||
	    strlen(s) > 18 || !isxdigit((unsigned char)s[2]))
		return -1;
	errno = 0;
	*out = strtoull(s + 2, &end, 16);
	return errno != 0 || *end != '\0' ? -1 : 0;
}

/* Trim trailing blanks of @a in place. */
static void
bp_rtrim(char *a)
{
	char	*end = a + strlen(a);

	while (end > a && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
}

/*
 * BRKP FUNCTION [COUNT] [thread]: the arguments end with the optional
 * words, so a C++ name may contain spaces ("ns::f(int, char)").
 */
static int
bp_brkp(struct rbmon_ctl *c, struct rbmon_symbols *sy,
    const struct rbmon_bp_scope *sc, const char *args, char **text)
{
	struct bp_op	 o;
	char		*buf = rbmon_xstrdup(args), *a = buf, *sp, *w, *end;
	char		*cause = NULL;
	struct bp_out	 out;
	FILE		*f;
	unsigned long long v;
	uint64_t	*addrs = NULL, one;
	size_t		 n = 0;
	uint32_t	 from = 1;
	int32_t		 tid = 0;
	int		 i, ret;

	/* The optional words from the end: "thread", then COUNT before it. */
	for (i = 0; i < 2; i++) {
		bp_rtrim(a);
		sp = strrchr(a, ' ');
		if (sp == NULL)
			sp = strrchr(a, '\t');
		if (sp == NULL)
			break;
		w = sp + 1;
		if (i == 0 && strcmp(w, "thread") == 0) {
			tid = sc->tid;
		} else if (w[strspn(w, "0123456789")] == '\0') {
			errno = 0;
			v = strtoull(w, &end, 10);
			if (errno != 0 || v < 1 || v > UINT32_MAX ||
			    strlen(w) > 10) {
				ret = bp_err(text, "hit count '%.20s' is not a "
				    "number from 1 to %u", w, UINT32_MAX);
				goto out;
			}
			from = (uint32_t)v;
			i = 2;	/* nothing comes before the count */
		} else {
			break;
		}
		*sp = '\0';
	}
	bp_rtrim(a);
	while (*a == ' ' || *a == '\t')
		a++;
	if (*a == '\0') {
		ret = bp_err(text, "usage: BRKP FUNCTION [COUNT] [thread]");
		goto out;
	}
	if (strlen(a) >= RB_BP_NAME) {
		ret = bp_err(text, "function name longer than %d bytes",
		    RB_BP_NAME - 1);
		goto out;
	}
	if (bp_hexaddr(a, &one) == 0) {
		addrs = rbmon_xcalloc(1, sizeof *addrs);
		addrs[0] = one;
		n = 1;
	} else {
		addrs = rbmon_bp_resolve(c, sy, sc, a, &n, &cause);
		if (cause != NULL) {
			*text = cause;
			ret = -1;
			goto out;
		}
		if (n == 0) {
			ret = bp_err(text, "no function '%s' in the program's "
			    "symbols", a);
			goto out;
		}
	}
	if (n > RB_BP_ENTRIES) {
		ret = bp_err(text, "'%s' has %zu entry addresses; the "
		    "breakpoint table holds %d", a, n, RB_BP_ENTRIES);
		goto out;
	}
	memset(&o, 0, sizeof o);
	o.c = c;
	o.sc = sc;
	o.name = a;
	o.from = from;
	o.tid = tid;
	o.addrs = addrs;
	o.n = n;
	if (bp_guarded(&o, bp_do_set, text) != 0) {
		ret = -1;
		goto out;
	}
	if (o.ret != 0) {
		ret = bp_err(text, "no room for %zu more location%s in the "
		    "breakpoint table (%d entries); clear some with BCLR", n,
		    n == 1 ? "" : "s", RB_BP_ENTRIES);
		goto out;
	}
	f = bp_open(&out, text);
	fprintf(f, "breakpoint %u at %s", o.id, a);
	if (n > 1)
		fprintf(f, " (%zu locations)", n);
	if (from > 1)
		fprintf(f, ", stops from hit %u", from);
	if (tid != 0)
		fprintf(f, ", thread %d only", (int)tid);
	bp_dyn_check(&o, f);
	bp_close(&out);
	ret = 1;
out:
	free(addrs);
	free(buf);
	return ret;
}

static int
bp_bclr(struct rbmon_ctl *c, const struct rbmon_bp_scope *sc,
    const char *args, char **text)
{
	struct bp_op	 o;
	char		 w[16], *end;
	unsigned long	 v = 0;
	size_t		 n;

	while (*args == ' ' || *args == '\t')
		args++;
	n = strcspn(args, " \t");
	if (n == 0 || n >= sizeof w || args[n + strspn(args + n, " \t")] != '\0')
		return bp_err(text, "usage: BCLR ID|*");
	memcpy(w, args, n);
	w[n] = '\0';
	if (strcmp(w, "*") != 0) {
		errno = 0;
		v = strtoul(w, &end, 10);
		if (errno != 0 || *end != '\0' || !isdigit((unsigned char)w[0]) ||
		    v < 1 || v > UINT32_MAX)
			return bp_err(text, "usage: BCLR ID|*");
	}
	memset(&o, 0, sizeof o);
	o.c = c;
	o.sc = sc;
	o.id = (uint32_t)v;
	if (bp_guarded(&o, bp_do_clear, text) != 0)
		return -1;
	if (v != 0 && o.cleared == 0)
		return bp_err(text, "no breakpoint %lu", v);
	if (v != 0)
		rbmon_xasprintf(text, "cleared breakpoint %lu", v);
	else
		rbmon_xasprintf(text, "cleared %u breakpoint%s", o.cleared,
		    o.cleared == 1 ? "" : "s");
	return 1;
}

/* One line per breakpoint: ID hits=N from=N thread=all|TID at=ADDR[,...] NAME */
static int
bp_blst(struct rbmon_ctl *c, const struct rbmon_bp_scope *sc,
    const char *args, char **text)
{
	struct bp_op	 o;
	struct bp_row	*r;
	struct bp_out	 out;
	FILE		*f;
	size_t		 i;
	uint32_t	 k;
	char		*p;

	if (args[strspn(args, " \t")] != '\0')
		return bp_err(text, "BLST takes no argument");
	memset(&o, 0, sizeof o);
	o.c = c;
	o.sc = sc;
	if (bp_guarded(&o, bp_do_list, text) != 0)
		return -1;
	if (o.nrows > 0)
		qsort(o.rows, o.nrows, sizeof *o.rows, bp_row_cmp);
	f = bp_open(&out, text);
	for (i = 0; i < o.nrows; i++) {
		r = &o.rows[i];
		fprintf(f, "%s%u hits=%llu from=%u thread=", i ? "\n" : "",
		    r->id, (unsigned long long)r->hits, r->from);
		if (r->tid != 0)
			fprintf(f, "%d", (int)r->tid);
		else
			fputs("all", f);
		for (k = 0; k < r->nlocs; k++)
			fprintf(f, "%s%#llx", k ? "," : " at=",
			    (unsigned long long)r->addrs[k]);
		/* A name from the file: nothing unprintable reaches a terminal. */
		for (p = r->name; *p != '\0'; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				*p = '?';
		fprintf(f, " %s", r->name);
		free(r->addrs);
	}
	if (o.nrows == 0)
		fputs("no breakpoints", f);
	free(o.rows);
	bp_close(&out);
	return 1;
}

/* CAPT, CCLR, CLST (capture.c), with this file's resolver and filter pass. */
struct bp_cap {
	struct rbmon_ctl		*c;
	struct rbmon_symbols		*sy;
	const struct rbmon_bp_scope	*sc;
};

static uint64_t *
bp_cap_resolve(void *arg, const char *name, size_t *n, char **cause)
{
	struct bp_cap	*b = arg;

	return rbmon_bp_resolve(b->c, b->sy, b->sc, name, n, cause);
}

static void
bp_cap_sync(void *arg)
{
	struct bp_cap	*b = arg;

	bp_filter_sync(b->c);
}

static int
bp_cap_run(struct rbmon_ctl *c, struct rbmon_symbols *sy,
    const struct rbmon_bp_scope *sc, const char *cmd, const char *args,
    char **text)
{
	struct bp_cap		b = { c, sy, sc };
	struct rbmon_cap_scope	cs = { sc->pid, sc->pstart, sc->image };
	struct rbmon_cap_ops	ops = { bp_cap_resolve, bp_cap_sync, &b };

	return rbmon_cap_run(c, &cs, &ops, cmd, args, text);
}

/**
 * rbmon_bp_run - do BRKP, BCLR or BLST for the process image @sc
 * @sy: the symbols to resolve names with
 * @cmd: the command (four bytes)
 * @args: its arguments
 * @text: set to the answer (OK or ERR text), or to what failed; free it
 *
 * The answers are those the thread would have given (rbtrace(5),
 * "COMMANDS").
 * Return: 1 OK, 0 ERR, -1 failed (the file, the thread's process).
 */
int
rbmon_bp_run(struct rbmon_ctl *c, struct rbmon_symbols *sy,
    const struct rbmon_bp_scope *sc, const char *cmd, const char *args,
    char **text)
{
	*text = NULL;
	if (c->base == NULL) {
		rbmon_xasprintf(text, "the trace file is not open for writing");
		return -1;
	}
	if (rbmon_cap_is_command(cmd))
		return bp_cap_run(c, sy, sc, cmd, args, text);
	if (memcmp(cmd, "BRKP", 4) == 0)
		return bp_brkp(c, sy, sc, args, text);
	if (memcmp(cmd, "BCLR", 4) == 0)
		return bp_bclr(c, sc, args, text);
	return bp_blst(c, sc, args, text);
}
