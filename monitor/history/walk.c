/* SPDX-License-Identifier: MIT */
/*
 * rbmon walk: a recording (rbtrace(5), "RECORDINGS") opened for the
 * readers that walk its streams as calls (calls.c), and its functions.
 *
 * Names are resolved once per function through the objects the recording
 * lists (with their build ids), and functions of the same name, file and
 * line are one function across processes and images.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/core/safeio.h"
#include "monitor/history/walk.h"

/* ---- maps --------------------------------------------------------------- */

static uint64_t
rbwalk_hash2(uint64_t a, uint64_t b)
{
	uint64_t	h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

int
rbwalk_map_get(const struct rbwalk_map *m, uint64_t a, uint64_t b, uint32_t *v)
{
	size_t	i;

	if (m->cap == 0)
		return 0;
	for (i = rbwalk_hash2(a, b) & (m->cap - 1); m->v[i] != 0;
	    i = (i + 1) & (m->cap - 1))
		if (m->k1[i] == a && m->k2[i] == b) {
			*v = m->v[i] - 1;
			return 1;
		}
	return 0;
}

void
rbwalk_map_put(struct rbwalk_map *m, uint64_t a, uint64_t b, uint32_t v)
{
	size_t	i, j, oldcap = m->cap;
	uint64_t *k1 = m->k1, *k2 = m->k2;
	uint32_t *vv = m->v;

	if ((m->n + 1) * 2 > m->cap) {
		m->cap = m->cap == 0 ? 256 : m->cap * 2;
		m->k1 = rbmon_xcalloc(m->cap, sizeof *m->k1);
		m->k2 = rbmon_xcalloc(m->cap, sizeof *m->k2);
		m->v = rbmon_xcalloc(m->cap, sizeof *m->v);
		m->n = 0;
		for (j = 0; j < oldcap; j++)
			if (vv[j] != 0)
				rbwalk_map_put(m, k1[j], k2[j], vv[j] - 1);
		free(k1);
		free(k2);
		free(vv);
	}
	for (i = rbwalk_hash2(a, b) & (m->cap - 1); m->v[i] != 0;
	    i = (i + 1) & (m->cap - 1))
		;
	m->k1[i] = a;
	m->k2[i] = b;
	m->v[i] = v + 1;
	m->n++;
}

void
rbwalk_map_free(struct rbwalk_map *m)
{
	free(m->k1);
	free(m->k2);
	free(m->v);
	memset(m, 0, sizeof *m);
}

static uint64_t
rbwalk_hash_str(const char *s, size_t len)
{
	uint64_t	h = 0xcbf29ce484222325ull;
	size_t		i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/*
 * Keys are "name\0file\0line" strings of @len bytes, kept by the map with
 * their lengths: a key is compared only with keys of its own length.
 */
static int
rbwalk_smap_get(const struct rbwalk_smap *m, const char *key, size_t len,
    uint32_t *v)
{
	size_t	i;

	if (m->cap == 0)
		return 0;
	for (i = rbwalk_hash_str(key, len) & (m->cap - 1); m->v[i] != 0;
	    i = (i + 1) & (m->cap - 1))
		if (m->klen[i] == len && memcmp(m->k[i], key, len) == 0) {
			*v = m->v[i] - 1;
			return 1;
		}
	return 0;
}

static void
rbwalk_smap_put(struct rbwalk_smap *m, char *key, size_t len, uint32_t v)
{
	size_t	i, j, oldcap = m->cap;
	char	**kk = m->k;
	size_t	*kl = m->klen;
	uint32_t *vv = m->v;

	if ((m->n + 1) * 2 > m->cap) {
		m->cap = m->cap == 0 ? 256 : m->cap * 2;
		m->k = rbmon_xcalloc(m->cap, sizeof *m->k);
		m->klen = rbmon_xcalloc(m->cap, sizeof *m->klen);
		m->v = rbmon_xcalloc(m->cap, sizeof *m->v);
		m->n = 0;
		for (j = 0; j < oldcap; j++)
			if (vv[j] != 0)
				rbwalk_smap_put(m, kk[j], kl[j], vv[j] - 1);
		free(kk);
		free(kl);
		free(vv);
	}
	for (i = rbwalk_hash_str(key, len) & (m->cap - 1); m->v[i] != 0;
	    i = (i + 1) & (m->cap - 1))
		;
	m->k[i] = key;
	m->klen[i] = len;
	m->v[i] = v + 1;
	m->n++;
}

static void
rbwalk_smap_free(struct rbwalk_smap *m)
{
	size_t	i;

	for (i = 0; i < m->cap; i++)
		if (m->v[i] != 0)
			free(m->k[i]);
	free(m->k);
	free(m->klen);
	free(m->v);
	memset(m, 0, sizeof *m);
}

/* ---- functions ------------------------------------------------------------ */

static uint32_t
rbwalk_func_add(struct rbwalk_ctx *x, const char *name, const char *file,
    int line, int named)
{
	char		*key;
	int		 klen;
	uint32_t	 v;
	struct rbwalk_func *f;

	klen = asprintf(&key, "%s%c%s%c%d%c", name, 0, file, 0, line, 0);
	if (klen < 0) {
		fputs("rbmon: out of memory\n", stderr);
		exit(1);
	}
	if (rbwalk_smap_get(&x->byname, key, (size_t)klen, &v)) {
		free(key);
		return v;
	}
	if (x->nfuncs == x->capfuncs) {
		x->capfuncs = x->capfuncs == 0 ? 256 : x->capfuncs * 2;
		x->funcs = rbmon_xreallocarray(x->funcs, x->capfuncs,
		    sizeof *x->funcs);
	}
	f = &x->funcs[x->nfuncs];
	f->name = rbmon_xstrdup(name);
	f->file = rbmon_xstrdup(file);
	f->line = line;
	f->named = named;
	rbwalk_smap_put(&x->byname, key, (size_t)klen, (uint32_t)x->nfuncs);
	return (uint32_t)x->nfuncs++;
}

/* What address @addr of image @image is: its symbol, empty if unknown. */
static void
rbwalk_lookup(struct rbwalk_ctx *x, uint64_t image, uint64_t addr,
    struct rbmon_sym *sym)
{
	const struct rbwalk_obj	*o;
	size_t			 lo = 0, hi = x->nobjs, mid;

	memset(sym, 0, sizeof *sym);
	/* The last object of the image beginning at or below addr. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		o = &x->objs[mid];
		if (o->image < image || (o->image == image && o->lo <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return;
	o = &x->objs[lo - 1];
	if (o->image != image || addr >= o->hi)
		return;
	rbmon_symbols_lookup(x->sy, &x->snap, &x->files[o->file],
	    addr - o->base, sym);
}

/**
 * rbwalk_func_of - the function at address @fn in stream @si's process
 *
 * Return: its index in ctx->funcs.
 */
uint32_t
rbwalk_func_of(struct rbwalk_ctx *x, size_t si, uint64_t fn)
{
	const struct rbmon_process *p = &x->procs[si];
	struct rbmon_sym	sym;
	uint32_t		v;
	char			buf[32];

	if (rbwalk_map_get(&x->byaddr, p->image, fn, &v))
		return v;
	rbwalk_lookup(x, p->image, fn, &sym);
	if (sym.function == NULL)
		snprintf(buf, sizeof buf, "0x%" PRIx64, fn);
	v = rbwalk_func_add(x, sym.function != NULL ? sym.function : buf,
	    sym.file != NULL ? sym.file : "", sym.line, 0);
	rbwalk_map_put(&x->byaddr, p->image, fn, v);
	return v;
}

/**
 * rbwalk_name_at - the name of function @fn of process image @image, as
 * the records' functions are named ("0x..." when unknown), into @buf
 */
void
rbwalk_name_at(struct rbwalk_ctx *x, uint64_t image, uint64_t fn, char *buf,
    size_t len)
{
	struct rbmon_sym	sym;

	rbwalk_lookup(x, image, fn, &sym);
	if (sym.function == NULL)
		snprintf(buf, len, "0x%" PRIx64, fn);
	else
		snprintf(buf, len, "%s", sym.function);
}

/* A named frame's function (rbtrace_push()). */
uint32_t
rbwalk_func_named(struct rbwalk_ctx *x, const char *name, const char *file,
    int line)
{
	return rbwalk_func_add(x, name, file, line, 1);
}

/**
 * rbwalk_site - the file and line of call site @site (a return address) in
 * stream @si's process; "" and 0 when unknown
 */
void
rbwalk_site(struct rbwalk_ctx *x, size_t si, uint64_t site, const char **file,
    int *line)
{
	const struct rbmon_process *p = &x->procs[si];
	struct rbmon_sym	sym;
	uint32_t		v;

	*file = "";
	*line = 0;
	if (site == 0)
		return;
	if (!rbwalk_map_get(&x->bysite, p->image, site, &v)) {
		rbwalk_lookup(x, p->image, site - 1, &sym);
		v = rbwalk_func_add(x, "", sym.file != NULL ? sym.file : "",
		    sym.line, 0);
		rbwalk_map_put(&x->bysite, p->image, site, v);
	}
	*file = x->funcs[v].file;
	*line = x->funcs[v].line;
}

/* A raw time as CLOCK_MONOTONIC ns. Return: 0, or -1 without calibration. */
int
rbwalk_ns(const struct rbwalk_ctx *x, uint64_t ts, uint64_t *ns)
{
	return rbrec_ts_ns(&x->rec, ts, ns);
}

/* A raw time as ns since the recording's first record (0 if unknown). */
uint64_t
rbwalk_rel_ns(const struct rbwalk_ctx *x, uint64_t ts)
{
	uint64_t	a, b;

	if (!x->have_t0 || ts <= x->t0 || rbwalk_ns(x, ts, &a) != 0 ||
	    rbwalk_ns(x, x->t0, &b) != 0 || a < b)
		return 0;
	return a - b;
}

static int
rbwalk_obj_cmp(const void *a, const void *b)
{
	const struct rbwalk_obj	*x = a, *y = b;

	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * A file's key: its build id if it has one (the same bits, the same file,
 * whatever the path), else its path without empty and "." components.
 */
static char *
rbwalk_file_key(const struct rbrec_object *o, size_t *len)
{
	const char	*p;
	char		*k;
	size_t		 n = 0;

	k = rbmon_xcalloc(1 + RB_BUILD_ID_MAX + RB_PATH_MAX + 1, 1);
	if (o->build_id_len > 0) {
		k[n++] = 'b';
		memcpy(k + n, o->build_id, o->build_id_len);
		n += o->build_id_len;
	} else {
		k[n++] = 'p';
		for (p = o->path; *p != '\0'; ) {
			while (*p == '/')
				p++;
			if (p[0] == '.' && (p[1] == '/' || p[1] == '\0')) {
				p++;
				continue;
			}
			if (*p == '\0')
				break;
			k[n++] = '/';
			while (*p != '\0' && *p != '/')
				k[n++] = *p++;
		}
	}
	*len = n;
	return k;
}

/* The recording's objects by image, each pointing at its file's image. */
static void
rbwalk_files(struct rbwalk_ctx *x)
{
	struct rbwalk_smap keys;
	struct rbmon_object *d;
	uint32_t	 f;
	size_t		 i, klen;
	char		*k;

	memset(&keys, 0, sizeof keys);
	x->snap.gen = rbmon_snapshot_gen();
	x->snap.objects = rbmon_xcalloc(x->rec.nobjects + 1,
	    sizeof *x->snap.objects);
	x->files = rbmon_xcalloc(x->rec.nobjects + 1, sizeof *x->files);
	x->objs = rbmon_xcalloc(x->rec.nobjects + 1, sizeof *x->objs);
	for (i = 0; i < x->rec.nobjects; i++) {
		const struct rbrec_object	*o = &x->rec.objects[i];

		if (o->path[0] != '/' || o->hi <= o->lo || o->lo < o->base)
			continue;
		k = rbwalk_file_key(o, &klen);
		if (rbwalk_smap_get(&keys, k, klen, &f)) {
			free(k);
		} else {
			f = (uint32_t)x->snap.nobjects++;
			rbwalk_smap_put(&keys, k, klen, f);
			d = &x->snap.objects[f];
			d->image = f + 1ull;
			d->base = 0;
			d->lo = o->lo - o->base;
			d->hi = o->hi - o->base;
			d->flags = o->flags;
			d->build_id_len = o->build_id_len;
			memcpy(d->build_id, o->build_id, sizeof d->build_id);
			memcpy(d->path, o->path, sizeof d->path);
			x->files[f].image = d->image;
			x->files[f].cpu = -1;
		}
		x->objs[x->nobjs].image = o->image;
		x->objs[x->nobjs].lo = o->lo;
		x->objs[x->nobjs].hi = o->hi;
		x->objs[x->nobjs].base = o->base;
		x->objs[x->nobjs++].file = f;
	}
	qsort(x->objs, x->nobjs, sizeof *x->objs, rbwalk_obj_cmp);
	rbwalk_smap_free(&keys);
}

/**
 * rbwalk_open - open the recording @path for the walkers
 * @why: on failure, what is wrong (to free)
 *
 * Return: 0, or -1.
 */
int
rbwalk_open(struct rbwalk_ctx *x, const char *path, char **why)
{
	struct rbrec_cursor	c;
	struct rbrec_rec	rec;
	size_t			i;

	memset(x, 0, sizeof *x);
	if (rbrec_open(&x->rec, path, why) != 0)
		return -1;
	/* The objects it names are opened as its owner could (root's rbmon). */
	if (rbmon_safeio_become_user(x->rec.uid, x->rec.gid, why) != 0) {
		rbrec_close(&x->rec);
		return -1;
	}
	/* ... and used only when their build-id is the one recorded. */
	x->sy = rbmon_symbols_new(stderr);
	rbmon_symbols_recorded(x->sy);
	rbwalk_files(x);
	x->procs = rbmon_xcalloc(x->rec.nstreams + 1, sizeof *x->procs);
	x->counts = rbmon_xcalloc(x->rec.nstreams + 1, sizeof *x->counts);
	for (i = 0; i < x->rec.nstreams; i++) {
		const struct rbrec_thread	*t = &x->rec.streams[i].info;

		x->procs[i].pid = t->pid;
		x->procs[i].ppid = t->ppid;
		x->procs[i].pstart = t->pstart;
		x->procs[i].image = t->image;
		x->procs[i].alive = 0;
		x->procs[i].cpu = -1;
		/* The earliest time of all: times are shown from there. */
		rbrec_cursor_init(&c, &x->rec, &x->rec.streams[i]);
		while (rbrec_next(&c, &rec))
			if (!rec.lost && rec.e.kind != RB_EV_TEXT) {
				if (!x->have_t0 || rec.e.ts < x->t0)
					x->t0 = rec.e.ts;
				x->have_t0 = 1;
				break;
			}
	}
	return 0;
}

void
rbwalk_close(struct rbwalk_ctx *x)
{
	size_t	i;

	for (i = 0; i < x->nfuncs; i++) {
		free(x->funcs[i].name);
		free(x->funcs[i].file);
	}
	free(x->funcs);
	rbwalk_map_free(&x->byaddr);
	rbwalk_map_free(&x->bysite);
	rbwalk_smap_free(&x->byname);
	if (x->sy != NULL)
		rbmon_symbols_free(x->sy);
	free(x->snap.objects);
	free(x->files);
	free(x->objs);
	free(x->procs);
	free(x->counts);
	rbrec_close(&x->rec);
	memset(x, 0, sizeof *x);
}
