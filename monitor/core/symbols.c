/* SPDX-License-Identifier: MIT */
/* rbmon symbols: one cached Dwfl per process image, one cache per address. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "common/debugfile.h"
#include "monitor/util/escape.h"
#include "monitor/core/safeio.h"
#include "monitor/core/symbols.h"

#ifdef HAVE_CXA_DEMANGLE
extern char *__cxa_demangle(const char *, char *, size_t *, int *);
#endif

/*
 * One cached answer.  Keys are function entries (rbmon_symbols_lookup),
 * call sites tagged SYMBOLS_SITE (their inline chain) and inline call
 * questions tagged SYMBOLS_INL (see rbmon_symbols_inline_call).
 */
#define SYMBOLS_SITE	(1ull << 63)
#define SYMBOLS_INL	(1ull << 62)

struct symbols_addr {
	uint64_t	 addr;
	int		 used;
	int		 line;
	char		*function;
	char		*file;
	uint64_t	 origin;
	struct rbmon_inline *chain;	/* SYMBOLS_SITE entries */
	size_t		 nchain;
	uint64_t	 a, b, c;	/* SYMBOLS_INL: the question, */
	int		 places;	/* and the answer */
};

/*
 * Compilation units by address, for objects without .debug_aranges (clang
 * emits none): built once per module from the units' own ranges.
 */
struct symbols_cu {
	Dwarf_Addr	 lo, hi;
	Dwarf_Die	 die;
};

struct symbols_module {
	struct symbols_cu *cu;
	size_t		 ncu;
	int		 built;
};

struct symbols_image {
	uint64_t	 image;
	size_t		 nobjects;	/* objects reported, 0: /proc of pid */
	int32_t		 pid;
	Dwfl		*dwfl;		/* NULL: nothing to symbolize with */
	Dwfl_Module	**bad;		/* changed on disk since loaded */
	size_t		 nbad;
	char		**funcs;	/* function names, sorted, unique */
	size_t		 nfuncs;
	int		 have_funcs;
	char		**vars;		/* variable names, sorted, unique */
	size_t		 nvars;
	int		 have_vars;
	struct symbols_addr *tab;	/* open addressing, power of two */
	size_t		 cap, used;
	struct symbols_module **mods;	/* CU tables, freed with the image */
	size_t		 nmods;
};

/*
 * A snapshot's objects by image: indices into s->objects sorted by image,
 * then by index, so that an image's objects are a range found by binary
 * search and reported in the snapshot's order.  Built once per snapshot
 * (rbmon_snapshot.gen), never per lookup: a recording may hold as many
 * images as streams.
 */
struct symbols_objidx {
	uint64_t	 gen;		/* the snapshot's; 0: none built */
	const struct rbmon_object *objects;
	uint32_t	*order;
	size_t		 n, cap;
};

struct rbmon_symbols {
	FILE			*notes;
	int			 recorded;	/* objects by build-id only */
	struct symbols_image	**images;	/* by image, open addressing */
	size_t			 cap, used;	/* cap a power of two */
	struct symbols_objidx	 idx;
};

static char *symbols_debuginfo_path;

static int	symbols_find_elf_none(Dwfl_Module *, void **, const char *,
		    Dwarf_Addr, char **, Elf **);
static int	symbols_find_elf_proc(Dwfl_Module *, void **, const char *,
		    Dwarf_Addr, char **, Elf **);
static int	symbols_find_debuginfo(Dwfl_Module *, void **, const char *,
		    Dwarf_Addr, const char *, const char *, GElf_Word, char **);

/*
 * Every file libdwfl would open by a name is opened here instead, as
 * rbmon_safeio_open() does: the names come from the trace file and from
 * the objects it names.
 */
static const Dwfl_Callbacks symbols_offline_cb = {
	.find_elf = symbols_find_elf_none,
	.find_debuginfo = symbols_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &symbols_debuginfo_path,
};

static const Dwfl_Callbacks symbols_proc_cb = {
	.find_elf = symbols_find_elf_proc,
	.find_debuginfo = symbols_find_debuginfo,
	.debuginfo_path = &symbols_debuginfo_path,
};

/* Objects are reported with their descriptor: nothing is looked up. */
static int
symbols_find_elf_none(Dwfl_Module *mod, void **ud, const char *name,
    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	(void)mod;
	(void)ud;
	(void)name;
	(void)base;
	(void)file_name;
	(void)elfp;
	errno = 0;
	return -1;
}

/* A live process's mappings: files by path, the rest (vdso) as libdwfl. */
static int
symbols_find_elf_proc(Dwfl_Module *mod, void **ud, const char *name,
    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	const char	*why;
	size_t		 n = strlen(name);
	int		 fd;

	if (name[0] != '/' || (n > 10 && strcmp(name + n - 10,
	    " (deleted)") == 0))
		return dwfl_linux_proc_find_elf(mod, ud, name, base,
		    file_name, elfp);
	fd = rbmon_safeio_open(name, &why);
	if (fd < 0)
		return -1;
	*file_name = rbmon_xstrdup(name);
	return fd;
}

/* A candidate debug file, opened as every file a trace file leads to. */
static int
symbols_debug_open(const char *path)
{
	const char	*why;

	return rbmon_safeio_open(path, &why);
}

/* A module's separate debug file: the search the watches make too. */
static int
symbols_find_debuginfo(Dwfl_Module *mod, void **ud, const char *modname,
    Dwarf_Addr base, const char *file_name, const char *debuglink,
    GElf_Word crc, char **debuginfo_file_name)
{
	return rb_debugfile_find(mod, ud, modname, base, file_name, debuglink,
	    crc, debuginfo_file_name, symbols_debug_open);
}

/**
 * rbmon_symbols_new - an empty symbol cache
 * @notes: where to say which objects cannot be used, or NULL
 *
 * Return: the cache.
 */
struct rbmon_symbols *
rbmon_symbols_new(FILE *notes)
{
	struct rbmon_symbols	*sy;

	sy = rbmon_xcalloc(1, sizeof *sy);
	sy->notes = notes;
	return sy;
}

/**
 * rbmon_symbols_recorded - the objects are a recording's
 * @sy: the cache, before its first lookup
 *
 * A recording is read on another machine, or long after: an object's
 * file is used only if the recording gives its build-id and the file has
 * the same one; otherwise a note says why and its frames show addresses.
 */
void
rbmon_symbols_recorded(struct rbmon_symbols *sy)
{
	sy->recorded = 1;
}

static void
symbols_addr_clear(struct symbols_addr *e)
{
	size_t	i;

	free(e->function);
	free(e->file);
	for (i = 0; i < e->nchain; i++) {
		free((char *)e->chain[i].function);
		free((char *)e->chain[i].file);
	}
	free(e->chain);
}

static void
symbols_image_free(struct symbols_image *im)
{
	size_t	i;

	for (i = 0; i < im->cap; i++)
		symbols_addr_clear(&im->tab[i]);
	free(im->tab);
	for (i = 0; i < im->nmods; i++) {
		free(im->mods[i]->cu);
		free(im->mods[i]);
	}
	free(im->mods);
	for (i = 0; i < im->nfuncs; i++)
		free(im->funcs[i]);
	free(im->funcs);
	for (i = 0; i < im->nvars; i++)
		free(im->vars[i]);
	free(im->vars);
	free(im->bad);
	if (im->dwfl != NULL)
		dwfl_end(im->dwfl);
	free(im);
}

/**
 * rbmon_symbols_free - release a cache and every Dwfl in it
 * @sy: the cache, or NULL
 */
void
rbmon_symbols_free(struct rbmon_symbols *sy)
{
	size_t	i;

	if (sy == NULL)
		return;
	for (i = 0; i < sy->cap; i++)
		if (sy->images[i] != NULL)
			symbols_image_free(sy->images[i]);
	free(sy->images);
	free(sy->idx.order);
	free(sy);
}

/**
 * rbmon_symbols_demangle - demangle a C++ symbol
 * @name: a symbol name
 *
 * Return: a malloc'd copy, demangled when it can be.
 */
char *
rbmon_symbols_demangle(const char *name)
{
#ifdef HAVE_CXA_DEMANGLE
	char	*d;
	int	 status = -1;

	if (name[0] == '_' && name[1] == 'Z') {
		d = __cxa_demangle(name, NULL, NULL, &status);
		if (d != NULL && status == 0)
			return d;
		free(d);
	}
#endif
	return rbmon_xstrdup(name);
}

static int
symbols_build_id_matches(Dwfl_Module *mod, const struct rbmon_object *o)
{
	const unsigned char	*bits;
	GElf_Addr		 vaddr;
	int			 len;

	if (o->build_id_len == 0)
		return 1;
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len <= 0)
		return 1;	/* nothing to compare against on disk */
	return (uint32_t)len == o->build_id_len &&
	    memcmp(bits, o->build_id, (size_t)len) == 0;
}

/*
 * An object whose file is gone.  A live process still maps its main
 * executable: /proc/PID/exe opens it (build-id checked after).
 */
static Dwfl_Module *
symbols_report_deleted(struct rbmon_symbols *sy, struct symbols_image *im,
    const struct rbmon_object *o, const struct rbmon_process *p)
{
	Dwfl_Module	*mod = NULL;
	const char	*why;
	char		 exe[64];
	int		 fd;

	if (p->alive && (o->flags & RB_OBJF_MAIN)) {
		snprintf(exe, sizeof exe, "/proc/%d/exe", (int)p->pid);
		fd = rbmon_safeio_open(exe, &why);
		if (fd >= 0) {
			/* libdwfl owns the descriptor once it is reported. */
			mod = dwfl_report_elf(im->dwfl, rbmon_basename(o->path),
			    exe, fd, o->base, true);
			if (mod == NULL)
				close(fd);
		}
	}
	if (sy->notes != NULL)
		rbmon_esc_line(sy->notes, "rbmon: note: %s: binary deleted "
		    "since it was loaded%s", o->path, mod != NULL ? "; reading "
		    "it through the live process" : "; its frames show "
		    "addresses only");
	return mod;
}

/*
 * Why the file @fd may not stand for the recorded object @o (NULL: it may):
 * its build-id must be the one recorded.
 */
static const char *
symbols_recorded_mismatch(int fd, const struct rbmon_object *o)
{
	const char	*why = NULL;
	const void	*got;
	ssize_t		 len;
	Elf		*elf;

	if (o->build_id_len == 0)
		return "the recording gives no build-id for it";
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	len = elf != NULL ? dwelf_elf_gnu_build_id(elf, &got) : -1;
	if (len <= 0)
		why = "it has no build-id to match the recorded one";
	else if ((uint32_t)len != o->build_id_len ||
	    memcmp(got, o->build_id, (size_t)len) != 0)
		why = "its build-id is not the recorded one";
	if (elf != NULL)
		elf_end(elf);	/* got points into it */
	return why;
}

/*
 * An object as the file names it: opened by rbmon_safeio_open() and handed
 * to libdwfl, so that a FIFO, a device or a path its owner cannot read is
 * never opened for symbols; of a recording, only the file it recorded.
 */
static Dwfl_Module *
symbols_report_object(struct rbmon_symbols *sy, struct symbols_image *im,
    const struct rbmon_object *o, const struct rbmon_process *p)
{
	Dwfl_Module	*mod;
	const char	*why;
	int		 fd;

	fd = rbmon_safeio_open(o->path, &why);
	if (fd < 0 && errno == ENOENT && !sy->recorded)
		return symbols_report_deleted(sy, im, o, p);
	if (fd >= 0 && sy->recorded &&
	    (why = symbols_recorded_mismatch(fd, o)) != NULL) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		if (sy->notes != NULL)
			rbmon_esc_line(sy->notes, "rbmon: note: %s: %s; not "
			    "read for symbols, its frames show addresses only",
			    o->path, why);
		return NULL;
	}
	/* base is the load bias: add_p_vaddr places PT_LOADs. */
	mod = dwfl_report_elf(im->dwfl, rbmon_basename(o->path), o->path, fd,
	    o->base, true);
	if (mod == NULL)
		close(fd);	/* libdwfl keeps only what it reported */
	return mod;
}

/* The image's objects: @n of them, s->objects[@which[0..n)]. */
static void
symbols_image_report(struct rbmon_symbols *sy, struct symbols_image *im,
    const struct rbmon_snapshot *s, const struct rbmon_process *p,
    const uint32_t *which, size_t n)
{
	const struct rbmon_object	*o;
	Dwfl_Module			*mod;
	size_t				 i;

	im->dwfl = dwfl_begin(&symbols_offline_cb);
	if (im->dwfl == NULL)
		return;
	dwfl_report_begin(im->dwfl);
	for (i = 0; i < n; i++) {
		o = &s->objects[which[i]];
		if (o->path[0] != '/')
			continue;
		mod = symbols_report_object(sy, im, o, p);
		if (mod == NULL)
			continue;
		if (!symbols_build_id_matches(mod, o)) {
			if (sy->notes != NULL)
				rbmon_esc_line(sy->notes, "rbmon: note: %s "
				    "changed on disk since it was loaded "
				    "(build-id differs); not using it",
				    o->path);
			im->bad = rbmon_xreallocarray(im->bad, im->nbad + 1,
			    sizeof *im->bad);
			im->bad[im->nbad++] = mod;
		}
	}
	dwfl_report_end(im->dwfl, NULL, NULL);
}

static void
symbols_image_proc(struct symbols_image *im)
{
	im->dwfl = dwfl_begin(&symbols_proc_cb);
	if (im->dwfl == NULL)
		return;
	dwfl_report_begin(im->dwfl);
	if (dwfl_linux_proc_report(im->dwfl, im->pid) != 0) {
		dwfl_end(im->dwfl);
		im->dwfl = NULL;
		return;
	}
	dwfl_report_end(im->dwfl, NULL, NULL);
}

static uint64_t
symbols_hash(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	a ^= a >> 33;
	return a;
}

static int
symbols_objidx_cmp(const void *a, const void *b, void *arg)
{
	const struct rbmon_object	*o = arg;
	uint32_t			 i = *(const uint32_t *)a;
	uint32_t			 j = *(const uint32_t *)b;

	if (o[i].image != o[j].image)
		return o[i].image < o[j].image ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* The objects of @image in snapshot @s: *@n of them, indices returned. */
static const uint32_t *
symbols_objidx_find(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    uint64_t image, size_t *n)
{
	struct symbols_objidx	*x = &sy->idx;
	size_t			 lo, hi, mid, first;

	if (s->gen == 0 || x->gen != s->gen || x->objects != s->objects ||
	    x->n != s->nobjects) {
		if (s->nobjects > x->cap) {
			x->cap = s->nobjects;
			x->order = rbmon_xreallocarray(x->order, x->cap,
			    sizeof *x->order);
		}
		for (lo = 0; lo < s->nobjects; lo++)
			x->order[lo] = (uint32_t)lo;
		if (s->nobjects > 1)
			qsort_r(x->order, s->nobjects, sizeof *x->order,
			    symbols_objidx_cmp, s->objects);
		x->gen = s->gen;
		x->objects = s->objects;
		x->n = s->nobjects;
	}
	for (lo = 0, hi = x->n; lo < hi; ) {
		mid = lo + (hi - lo) / 2;
		if (s->objects[x->order[mid]].image < image)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	for (hi = x->n; lo < hi; ) {
		mid = lo + (hi - lo) / 2;
		if (s->objects[x->order[mid]].image <= image)
			lo = mid + 1;
		else
			hi = mid;
	}
	*n = lo - first;
	return x->order != NULL ? x->order + first : NULL;
}

/* The slot of @image in the table of images: its entry, or an empty one. */
static struct symbols_image **
symbols_image_slot(struct rbmon_symbols *sy, uint64_t image)
{
	struct symbols_image	**old;
	size_t			  oldcap, i, j;

	if ((sy->used + 1) * 2 > sy->cap) {
		old = sy->images;
		oldcap = sy->cap;
		sy->cap = oldcap == 0 ? 16 : oldcap * 2;
		sy->images = rbmon_xcalloc(sy->cap, sizeof *sy->images);
		for (i = 0; i < oldcap; i++) {
			if (old[i] == NULL)
				continue;
			j = symbols_hash(old[i]->image) & (sy->cap - 1);
			while (sy->images[j] != NULL)
				j = (j + 1) & (sy->cap - 1);
			sy->images[j] = old[i];
		}
		free(old);
	}
	j = symbols_hash(image) & (sy->cap - 1);
	while (sy->images[j] != NULL && sy->images[j]->image != image)
		j = (j + 1) & (sy->cap - 1);
	return &sy->images[j];
}

static struct symbols_image *
symbols_image_get(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p)
{
	struct symbols_image	*im, **slot;
	const uint32_t		*which;
	size_t			 n;
	int32_t			 pid = 0;

	which = symbols_objidx_find(sy, s, p->image, &n);
	if (n == 0 && p->alive)
		pid = p->pid;

	slot = symbols_image_slot(sy, p->image);
	if ((im = *slot) != NULL) {
		if (im->nobjects == n && im->pid == pid)
			return im;
		if (n == 0 && pid == 0)
			return im;	/* keep what we had for a dead one */
		symbols_image_free(im);	/* objects were added: rebuild */
		sy->used--;
	}

	im = rbmon_xcalloc(1, sizeof *im);
	im->image = p->image;
	im->nobjects = n;
	im->pid = pid;
	if (n != 0)
		symbols_image_report(sy, im, s, p, which, n);
	else if (pid != 0)
		symbols_image_proc(im);
	*slot = im;
	sy->used++;
	return im;
}

static struct symbols_addr *
symbols_addr_slot(struct symbols_image *im, uint64_t addr)
{
	struct symbols_addr	*old;
	size_t			 oldcap, i, j;

	if (im->used * 2 >= im->cap) {
		old = im->tab;
		oldcap = im->cap;
		/* Small at first: a recording may have an image a thread. */
		im->cap = oldcap == 0 ? 16 : oldcap * 2;
		im->tab = rbmon_xcalloc(im->cap, sizeof *im->tab);
		for (i = 0; i < oldcap; i++) {
			if (!old[i].used)
				continue;
			j = symbols_hash(old[i].addr) & (im->cap - 1);
			while (im->tab[j].used)
				j = (j + 1) & (im->cap - 1);
			im->tab[j] = old[i];
		}
		free(old);
	}
	j = symbols_hash(addr) & (im->cap - 1);
	while (im->tab[j].used && im->tab[j].addr != addr)
		j = (j + 1) & (im->cap - 1);
	return &im->tab[j];
}

static int
symbols_cu_cmp(const void *a, const void *b)
{
	const struct symbols_cu	*x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every unit's address ranges, sorted; units without code add none. */
static void
symbols_cu_build(struct symbols_module *sm, Dwarf *dw)
{
	Dwarf_CU	*cu = NULL;
	Dwarf_Die	 cudie, subdie, *die;
	Dwarf_Addr	 base, lo, hi;
	Dwarf_Half	 version;
	uint8_t		 type;
	ptrdiff_t	 off;
	size_t		 cap = 0;

	sm->built = 1;
	while (dwarf_get_units(dw, cu, &cu, &version, &type, &cudie,
	    &subdie) == 0) {
		if (type == DW_UT_type || type == DW_UT_split_type)
			continue;
		/* A skeleton's ranges, its split unit's DIEs. */
		die = type == DW_UT_skeleton && dwarf_tag(&subdie) ==
		    DW_TAG_compile_unit ? &subdie : &cudie;
		off = 0;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (lo == 0 || lo >= hi)
				continue;	/* discarded code */
			if (sm->ncu == cap) {
				cap = cap ? cap * 2 : 64;
				sm->cu = rbmon_xreallocarray(sm->cu, cap,
				    sizeof *sm->cu);
			}
			sm->cu[sm->ncu].lo = lo;
			sm->cu[sm->ncu].hi = hi;
			sm->cu[sm->ncu].die = *die;
			sm->ncu++;
		}
	}
	if (sm->ncu > 0)
		qsort(sm->cu, sm->ncu, sizeof *sm->cu, symbols_cu_cmp);
}

static struct symbols_module *
symbols_module_get(struct symbols_image *im, Dwfl_Module *mod)
{
	struct symbols_module	*sm;
	void			**ud;

	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (*ud != NULL)
		return *ud;
	sm = rbmon_xcalloc(1, sizeof *sm);
	im->mods = rbmon_xreallocarray(im->mods, im->nmods + 1,
	    sizeof *im->mods);
	im->mods[im->nmods++] = sm;
	*ud = sm;
	return sm;
}

/*
 * The compilation unit holding @addr: through .debug_aranges when the
 * object has them, else through the units' own ranges.
 */
static Dwarf_Die *
symbols_cudie(struct symbols_image *im, Dwfl_Module *mod, Dwarf_Addr addr,
    Dwarf_Die *mem, Dwarf_Addr *bias)
{
	struct symbols_module	*sm;
	Dwarf_Die		*cu;
	Dwarf			*dw;
	Dwarf_Addr		 rel;
	size_t			 lo, hi, mid, k;

	cu = dwfl_module_addrdie(mod, addr, bias);
	if (cu != NULL)
		return cu;
	dw = dwfl_module_getdwarf(mod, bias);
	if (dw == NULL)
		return NULL;
	sm = symbols_module_get(im, mod);
	if (!sm->built)
		symbols_cu_build(sm, dw);
	rel = addr - *bias;
	lo = 0;
	hi = sm->ncu;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sm->cu[mid].lo <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges rarely nest; look back a little for one that does. */
	for (k = lo; k > 0 && lo - k < 64; k--) {
		if (rel < sm->cu[k - 1].hi) {
			*mem = sm->cu[k - 1].die;
			return mem;
		}
	}
	return NULL;
}

struct symbols_path {
	Dwarf_Die	*v;
	int		 n, cap;
};

/*
 * Find the scopes under @parent that hold @pc, outermost first, looking
 * into namespaces and classes too (clang defines functions there, where
 * dwarf_getscopes() of this libdw does not look).  Return: 1 if found.
 */
static int
symbols_walk(Dwarf_Die *parent, Dwarf_Addr pc, struct symbols_path *w,
    int depth)
{
	Dwarf_Die	c;

	if (depth > 64 || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_entry_point:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&c, pc) <= 0)
				break;
			if (w->n == w->cap) {
				w->cap = w->cap ? w->cap * 2 : 8;
				w->v = rbmon_xreallocarray(w->v, (size_t)w->cap,
				    sizeof *w->v);
			}
			w->v[w->n++] = c;
			symbols_walk(&c, pc, w, depth + 1);
			return 1;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_module:
			if (symbols_walk(&c, pc, w, depth + 1))
				return 1;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/*
 * The scopes holding @addr, innermost first, as they nest in the code: an
 * inlined function's scope is followed by the one it was inlined into.
 */
static int
symbols_scopes(struct symbols_image *im, Dwfl_Module *mod, Dwarf_Addr addr,
    Dwarf_Die **scopes, Dwarf_Die *cumem, Dwarf_Die **cu, Dwarf_Addr *bias)
{
	struct symbols_path	 w;
	Dwarf_Die		*sc = NULL, inner;
	int			 i, n;

	*scopes = NULL;
	*cu = symbols_cudie(im, mod, addr, cumem, bias);
	if (*cu == NULL)
		return 0;
	n = dwarf_getscopes(*cu, addr - *bias, &sc);
	if (n > 0) {
		inner = sc[0];
		free(sc);
		n = dwarf_getscopes_die(&inner, scopes);
		if (n > 0)
			return n;
		free(*scopes);
		*scopes = NULL;
	} else
		free(sc);
	memset(&w, 0, sizeof w);
	if (!symbols_walk(*cu, addr - *bias, &w, 0)) {
		free(w.v);
		return 0;
	}
	for (i = 0; i < w.n / 2; i++) {
		inner = w.v[i];
		w.v[i] = w.v[w.n - 1 - i];
		w.v[w.n - 1 - i] = inner;
	}
	*scopes = w.v;
	return w.n;
}

static int
symbols_is_function(Dwarf_Die *d)
{
	int	tag = dwarf_tag(d);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	    tag == DW_TAG_entry_point;
}

/*
 * A compiler's copy of a function is shown as the function: "f(int)
 * [clone .constprop.0]" as "f(int)", "f.part.0" as "f".
 */
static char *
symbols_unclone(char *name)
{
	char	*p;

	if ((p = strstr(name, " [clone ")) != NULL)
		*p = '\0';
	else if (strchr(name, '(') == NULL && (p = strchr(name, '.')) != NULL &&
	    p != name)
		*p = '\0';
	return name;
}

/* A function's name as a debugger shows it: C++ demangled, qualified. */
static char *
symbols_die_name(Dwarf_Die *d)
{
	Dwarf_Attribute	 a;
	const char	*n = NULL;

	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) != NULL ||
	    dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a) != NULL)
		n = dwarf_formstring(&a);
	if (n != NULL && *n != '\0')
		return rbmon_symbols_demangle(n);
	if (dwarf_attr_integrate(d, DW_AT_name, &a) != NULL)
		n = dwarf_formstring(&a);
	return n != NULL && *n != '\0' ? rbmon_xstrdup(n) : NULL;
}

/* A string's hash, for symbols_origin(). */
static uint64_t
symbols_strhash(const char *s)
{
	uint64_t	h = 0xcbf29ce484222325ull;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return symbols_hash(h);
}

/*
 * Which function a DIE is an instance of: its abstract origin (shared by
 * every inlined copy and the out-of-line one), or itself.  A function with
 * a linkage name (C++) or external linkage is that name: a header's inline
 * function is described anew in every unit that inlines it, while the one
 * out-of-line copy the linker keeps (the one the hooks name) is one unit's.
 * Never 0.
 */
static uint64_t
symbols_origin(Dwfl_Module *mod, Dwarf_Die *d)
{
	Dwarf_Attribute	 a;
	Dwarf_Die	 o, *p = d;
	const char	*n = NULL;

	if (dwarf_attr(d, DW_AT_abstract_origin, &a) != NULL &&
	    dwarf_formref_die(&a, &o) != NULL)
		p = &o;
	if (dwarf_attr_integrate(p, DW_AT_linkage_name, &a) != NULL ||
	    dwarf_attr_integrate(p, DW_AT_MIPS_linkage_name, &a) != NULL)
		n = dwarf_formstring(&a);
	else if (dwarf_hasattr_integrate(p, DW_AT_external) &&
	    dwarf_attr_integrate(p, DW_AT_name, &a) != NULL)
		n = dwarf_formstring(&a);
	if (n != NULL && *n != '\0')
		return symbols_strhash(n) | 1;
	return symbols_hash(dwarf_dieoffset(p) ^
	    symbols_hash((uint64_t)(uintptr_t)mod)) | 1;
}

/* Where an inlined instance was called from: its call_file:call_line. */
static void
symbols_call_site(Dwarf_Die *d, char **file, int *line)
{
	Dwarf_Attribute	 a;
	Dwarf_Word	 w;
	Dwarf_Die	 cu;
	Dwarf_Files	*files;
	size_t		 nf;
	const char	*f;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(d, DW_AT_call_line, &a) != NULL &&
	    dwarf_formudata(&a, &w) == 0 && w <= INT32_MAX)
		*line = (int)w;
	if (dwarf_attr(d, DW_AT_call_file, &a) != NULL &&
	    dwarf_formudata(&a, &w) == 0 &&
	    dwarf_diecu(d, &cu, NULL, NULL) != NULL &&
	    dwarf_getsrcfiles(&cu, &files, &nf) == 0 && w < nf &&
	    (f = dwarf_filesrc(files, w, NULL, NULL)) != NULL && *f != '\0')
		*file = rbmon_xstrdup(rbmon_basename(f));
}

/*
 * A row of line 0 (code no source line is given, as clang marks merged
 * calls): the row before it in the same sequence that has a line, as gdb
 * reads the line table (it drops rows of line 0, so the row before covers
 * their code).  @ln itself if there is none.
 */
static Dwarf_Line *
symbols_line_nonzero(Dwarf_Die *cu, Dwarf_Line *ln)
{
	Dwarf_Lines	*lines;
	Dwarf_Line	*r;
	Dwarf_Addr	 at, a;
	size_t		 n, lo, hi, mid, k;
	bool		 end;
	int		 l;

	if (dwarf_lineno(ln, &l) != 0 || l != 0 ||
	    dwarf_lineaddr(ln, &at) != 0 ||
	    dwarf_getsrclines(cu, &lines, &n) != 0)
		return ln;
	/* Rows are sorted by address: find @ln among those at its address. */
	for (lo = 0, hi = n; lo < hi; ) {
		mid = lo + (hi - lo) / 2;
		r = dwarf_onesrcline(lines, mid);
		if (r != NULL && dwarf_lineaddr(r, &a) == 0 && a <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k > 0 && dwarf_onesrcline(lines, k - 1) != ln; k--) {
		r = dwarf_onesrcline(lines, k - 1);
		if (r == NULL || dwarf_lineaddr(r, &a) != 0 || a != at)
			return ln;
	}
	if (k == 0)
		return ln;
	for (k--; k > 0; k--) {
		r = dwarf_onesrcline(lines, k - 1);
		if (r == NULL || dwarf_lineendsequence(r, &end) != 0 || end ||
		    dwarf_lineno(r, &l) != 0)
			break;
		if (l > 0)
			return r;
	}
	return ln;
}

/* The line table's file and line for @addr, as gdb gives them. */
static void
symbols_src(Dwarf_Die *cu, Dwarf_Addr rel, char **file, int *line)
{
	Dwarf_Line	*ln;
	const char	*src;
	int		 l = 0;

	*file = NULL;
	*line = 0;
	if (cu == NULL || (ln = dwarf_getsrc_die(cu, rel)) == NULL)
		return;
	ln = symbols_line_nonzero(cu, ln);
	src = dwarf_linesrc(ln, NULL, NULL);
	if (src == NULL || *src == '\0')
		return;
	*file = rbmon_xstrdup(rbmon_basename(src));
	if (dwarf_lineno(ln, &l) == 0 && l > 0)
		*line = l;
}

static Dwfl_Module *
symbols_module(struct symbols_image *im, uint64_t addr)
{
	Dwfl_Module	*mod;
	size_t		 i;

	if (im->dwfl == NULL)
		return NULL;
	mod = dwfl_addrmodule(im->dwfl, addr);
	for (i = 0; mod != NULL && i < im->nbad; i++) {
		if (im->bad[i] == mod)
			return NULL;
	}
	return mod;
}

/*
 * A function entry: its name, where it is defined (a function's entry, as
 * recorded for every frame, is located at its definition line; the line
 * table would give the opening brace or the first statement) and which
 * function it is an instance of.  Any other address: its line.
 */
static void
symbols_resolve(struct symbols_image *im, struct symbols_addr *e)
{
	Dwfl_Module	*mod;
	Dwarf_Die	*scopes, cumem, *cu;
	Dwarf_Addr	 bias;
	GElf_Off	 off;
	GElf_Sym	 sym;
	const char	*name, *file;
	int		 i, n, line = 0;

	if ((mod = symbols_module(im, e->addr)) == NULL)
		return;
	name = dwfl_module_addrinfo(mod, e->addr, &off, &sym, NULL, NULL,
	    NULL);
	n = symbols_scopes(im, mod, e->addr, &scopes, &cumem, &cu, &bias);
	for (i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		if (name == NULL || *name == '\0')
			e->function = symbols_die_name(&scopes[i]);
		e->origin = symbols_origin(mod, &scopes[i]);
		file = dwarf_decl_file(&scopes[i]);
		if (name != NULL && off == 0 && file != NULL && *file != '\0' &&
		    dwarf_decl_line(&scopes[i], &line) == 0 && line > 0) {
			e->file = rbmon_xstrdup(rbmon_basename(file));
			e->line = line;
		}
		break;
	}
	free(scopes);
	if (e->function == NULL && name != NULL && *name != '\0')
		e->function = symbols_unclone(rbmon_symbols_demangle(name));
	if (e->file == NULL)
		symbols_src(cu, e->addr - bias, &e->file, &e->line);
}

/* The inline chain of a call site, innermost first; see rbmon_symbols_site. */
static void
symbols_resolve_site(struct symbols_image *im, struct symbols_addr *e,
    uint64_t addr)
{
	Dwfl_Module		*mod;
	Dwarf_Die		*scopes, cumem, *cu;
	Dwarf_Addr		 bias;
	GElf_Off		 off;
	GElf_Sym		 sym;
	struct rbmon_inline	*in;
	const char		*name;
	char			*file;
	int			 i, n, line;

	if ((mod = symbols_module(im, addr)) == NULL)
		return;
	n = symbols_scopes(im, mod, addr, &scopes, &cumem, &cu, &bias);
	symbols_src(cu, addr - bias, &file, &line);
	for (i = 0; i < n; i++) {
		if (!symbols_is_function(&scopes[i]))
			continue;
		e->chain = rbmon_xreallocarray(e->chain, e->nchain + 1,
		    sizeof *e->chain);
		in = &e->chain[e->nchain++];
		in->function = symbols_die_name(&scopes[i]);
		in->origin = symbols_origin(mod, &scopes[i]);
		in->file = file;
		in->line = line;
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) {
			file = NULL;
			break;
		}
		symbols_call_site(&scopes[i], &file, &line);
	}
	free(file);
	free(scopes);
	if (e->nchain > 0)
		return;
	/* No DWARF: the symbol table's function alone. */
	name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (name == NULL || *name == '\0')
		return;
	e->chain = rbmon_xcalloc(1, sizeof *e->chain);
	e->nchain = 1;
	e->chain[0].function = rbmon_symbols_demangle(name);
}

/* The cache entry for @key; *fresh says it is new and must be filled. */
static struct symbols_addr *
symbols_cached(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, uint64_t key, struct symbols_image **imp,
    int *fresh)
{
	struct symbols_image	*im;
	struct symbols_addr	*e;

	im = symbols_image_get(sy, s, p);
	*imp = im;
	e = symbols_addr_slot(im, key);
	*fresh = !e->used;
	if (*fresh) {
		e->used = 1;
		e->addr = key;
		im->used++;
	}
	return e;
}

/**
 * rbmon_symbols_lookup - what an address of a process is
 * @sy: the cache
 * @s: the snapshot the process comes from (its object table)
 * @p: the process
 * @addr: a runtime address
 * @out: function containing @addr and, for a function's entry, where it is
 *	defined, else the source line of @addr itself
 */
void
rbmon_symbols_lookup(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, uint64_t addr, struct rbmon_sym *out)
{
	struct symbols_image	*im;
	struct symbols_addr	*e;
	int			 fresh;

	memset(out, 0, sizeof *out);
	if (addr == 0 || (addr & (SYMBOLS_SITE | SYMBOLS_INL)) != 0)
		return;
	e = symbols_cached(sy, s, p, addr, &im, &fresh);
	if (fresh)
		symbols_resolve(im, e);
	out->function = e->function;
	out->file = e->file;
	out->line = e->line;
	out->origin = e->origin;
}

/**
 * rbmon_symbols_site - the functions a call site lies in
 * @sy: the cache
 * @s: the snapshot the process comes from
 * @p: the process
 * @addr: an address inside the call instruction (a return address - 1)
 * @chain: set to the functions, innermost first; the last is the function
 *	the code belongs to, the ones before it were inlined into it.  Each
 *	names its own file:line: the first the line of @addr, every other
 *	the line where the one before it was inlined.  Owned by the cache.
 *
 * Return: how many, 0 if nothing is known.
 */
size_t
rbmon_symbols_site(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, uint64_t addr,
    const struct rbmon_inline **chain)
{
	struct symbols_image	*im;
	struct symbols_addr	*e;
	int			 fresh;

	*chain = NULL;
	if (addr == 0 || (addr & (SYMBOLS_SITE | SYMBOLS_INL)) != 0)
		return 0;
	e = symbols_cached(sy, s, p, addr | SYMBOLS_SITE, &im, &fresh);
	if (fresh)
		symbols_resolve_site(im, e, addr);
	*chain = e->chain;
	return e->nchain;
}

/**
 * rbmon_symbols_same_object - do two addresses of a process lie in one object?
 * @sy: the cache
 * @s: the snapshot the process comes from
 * @p: the process
 * @a: a runtime address
 * @b: another
 *
 * Return: 1 if they do, 0 if they lie in two objects, -1 if either is in
 * none known.
 */
int
rbmon_symbols_same_object(struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p,
    uint64_t a, uint64_t b)
{
	struct symbols_image	*im;
	Dwfl_Module		*ma, *mb;

	if (a == 0 || b == 0)
		return -1;
	im = symbols_image_get(sy, s, p);
	if ((ma = symbols_module(im, a)) == NULL ||
	    (mb = symbols_module(im, b)) == NULL)
		return -1;
	return ma == mb;
}

/**
 * rbmon_symbols_source - where the source file a frame names is
 * @sy: the cache
 * @s: the snapshot the process comes from
 * @p: the process
 * @addr: an address of the frame's code (its function or call site)
 * @base: the file's base name, as the frame shows it
 *
 * The compilation unit of @addr lists its source files; the first whose
 * base name is @base, made absolute with the unit's directory.  The path
 * comes from debug information: open it with rbmon_safeio_open().
 *
 * Return: the path, to free(), or NULL.
 */
char *
rbmon_symbols_source(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, uint64_t addr, const char *base)
{
	struct symbols_image	*im;
	Dwfl_Module		*mod;
	Dwarf_Die		 cumem, *cu;
	Dwarf_Addr		 bias;
	Dwarf_Files		*files;
	const char *const	*dirs;
	const char		*f;
	char			*path;
	size_t			 nf, nd, i;

	if (base == NULL || *base == '\0' || addr == 0 ||
	    (addr & (SYMBOLS_SITE | SYMBOLS_INL)) != 0)
		return NULL;
	im = symbols_image_get(sy, s, p);
	if ((mod = symbols_module(im, addr)) == NULL ||
	    (cu = symbols_cudie(im, mod, addr, &cumem, &bias)) == NULL ||
	    dwarf_getsrcfiles(cu, &files, &nf) != 0)
		return NULL;
	for (i = 0; i < nf; i++) {
		f = dwarf_filesrc(files, i, NULL, NULL);
		if (f == NULL || strcmp(rbmon_basename(f), base) != 0)
			continue;
		if (f[0] == '/')
			return rbmon_xstrdup(f);
		/* Relative: to the unit's directory, the first of its list. */
		if (dwarf_getsrcdirs(files, &dirs, &nd) != 0 || nd == 0 ||
		    dirs[0] == NULL || dirs[0][0] != '/')
			return rbmon_xstrdup(f);
		rbmon_xasprintf(&path, "%s/%s", dirs[0], f);
		return path;
	}
	return NULL;
}

struct symbols_inl_query {
	Dwfl_Module	*mod;
	uint64_t	 outer, inner;
	char		*file;
	int		 line;
	int		 found;		/* 0 none, 1 one place, 2 several */
};

/* Visit the inlined instances under @d, inside function instance @ctx. */
static void
symbols_inl_walk(struct symbols_inl_query *q, Dwarf_Die *d, uint64_t ctx,
    int depth)
{
	Dwarf_Die	 c;
	uint64_t	 o;
	char		*file;
	int		 line, tag;

	if (depth > 64 || dwarf_child(d, &c) != 0)
		return;
	do {
		tag = dwarf_tag(&c);
		if (tag == DW_TAG_inlined_subroutine) {
			o = symbols_origin(q->mod, &c);
			if (o == q->inner && (q->outer == 0 || ctx == q->outer)) {
				symbols_call_site(&c, &file, &line);
				if (q->found == 0) {
					q->file = file;
					q->line = line;
					q->found = 1;
				} else {
					if (q->line != line || file == NULL ||
					    q->file == NULL ||
					    strcmp(q->file, file) != 0)
						q->found = 2;
					free(file);
				}
			}
			symbols_inl_walk(q, &c, o, depth + 1);
		} else if (tag == DW_TAG_lexical_block)
			symbols_inl_walk(q, &c, ctx, depth + 1);
	} while (q->found < 2 && dwarf_siblingof(&c, &c) == 0);
}

/**
 * rbmon_symbols_inlined - where one function was inlined into another
 * @sy: the cache
 * @s: the snapshot the process comes from
 * @p: the process
 * @fn: the entry of the function whose code is searched
 * @outer: the origin of the function instance inlined into (@fn's own, or
 *	of a function inlined in it), or 0 for any
 * @inner: the origin of the function inlined
 * @file: set to the file of the call when there is one place, owned by
 *	the cache
 * @line: set to its line
 *
 * Answers whether two frames that share a machine frame were inlined one
 * into the other, and where when no return address says it (the call
 * the innermost frame made is not known).
 *
 * Return: 0 if @inner was not inlined there, 1 if at one place, 2 if at
 * several.
 */
int
rbmon_symbols_inlined(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, uint64_t fn, uint64_t outer, uint64_t inner,
    const char **file, int *line)
{
	struct symbols_inl_query q;
	struct symbols_image	*im;
	struct symbols_addr	*e;
	Dwfl_Module		*mod;
	Dwarf_Die		*scopes, cumem, *cu;
	Dwarf_Addr		 bias;
	uint64_t		 key;
	int			 i, n, fresh;

	*file = NULL;
	*line = 0;
	if (fn == 0 || inner == 0)
		return 0;
	key = SYMBOLS_INL | (symbols_hash(fn ^ symbols_hash(outer ^
	    symbols_hash(inner))) >> 2);
	e = symbols_cached(sy, s, p, key, &im, &fresh);
	if (!fresh) {
		if (e->a != fn || e->b != outer || e->c != inner)
			return 0;	/* a rare collision: not cached */
		*file = e->file;
		*line = e->line;
		return e->places;
	}
	e->a = fn;
	e->b = outer;
	e->c = inner;
	if ((mod = symbols_module(im, fn)) == NULL)
		return 0;
	memset(&q, 0, sizeof q);
	q.mod = mod;
	q.outer = outer;
	q.inner = inner;
	n = symbols_scopes(im, mod, fn, &scopes, &cumem, &cu, &bias);
	for (i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			symbols_inl_walk(&q, &scopes[i],
			    symbols_origin(mod, &scopes[i]), 0);
			break;
		}
	}
	free(scopes);
	e->places = q.found;
	if (q.found == 1) {
		e->file = q.file;
		e->line = q.line;
	} else
		free(q.file);
	*file = e->file;
	*line = e->line;
	return q.found;
}

/* C++: "ns::f(int)" is typed as "ns::f"; the parameter list goes. */
static char *
symbols_short_name(const char *raw)
{
	char	*d = rbmon_symbols_demangle(raw), *p;
	int	 depth = 0;

	for (p = d; *p; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (*p == '(' && depth == 0 && p != d) {
			*p = '\0';
			break;
		}
	}
	return d;
}

static int
symbols_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct symbols_funcs {
	char	**v;
	size_t	  n, cap;
};

static int
symbols_module_funcs(Dwfl_Module *mod, void **ud, const char *name,
    Dwarf_Addr base, void *arg)
{
	struct symbols_funcs	*f = arg;
	GElf_Sym		 sym;
	GElf_Addr		 addr;
	const char		*nm;
	int			 i, n;

	(void)ud;
	(void)name;
	(void)base;
	n = dwfl_module_getsymtab(mod);
	for (i = 1; i < n; i++) {
		nm = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL,
		    NULL);
		if (nm == NULL || *nm == '\0' || sym.st_shndx == SHN_UNDEF ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		    GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		if (f->n == f->cap) {
			f->cap = f->cap ? f->cap * 2 : 1024;
			f->v = rbmon_xreallocarray(f->v, f->cap, sizeof *f->v);
		}
		f->v[f->n++] = symbols_short_name(nm);
	}
	return DWARF_CB_OK;
}

/* Sort @n malloc'd names and drop repeats; returns how many are left. */
static size_t
symbols_sort_unique(char **v, size_t n)
{
	size_t	i, j;

	if (n > 0)
		qsort(v, n, sizeof *v, symbols_strcmp);
	for (i = j = 0; i < n; i++) {
		if (j > 0 && strcmp(v[j - 1], v[i]) == 0)
			free(v[i]);
		else
			v[j++] = v[i];
	}
	return j;
}

/**
 * rbmon_symbols_functions - the names of the functions a process has
 * @sy: the cache
 * @s: the snapshot the process comes from
 * @p: the process
 * @n: set to how many
 *
 * Names are as BRKP takes them (C++ demangled, without parameters),
 * sorted and unique; the array belongs to the cache.
 * Return: the names, or NULL when none are known.
 */
char *const *
rbmon_symbols_functions(struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p, size_t *n)
{
	struct symbols_image	*im = symbols_image_get(sy, s, p);
	struct symbols_funcs	 f = { NULL, 0, 0 };

	if (!im->have_funcs && im->dwfl != NULL) {
		dwfl_getmodules(im->dwfl, symbols_module_funcs, &f, 0);
		im->funcs = f.v;
		im->nfuncs = symbols_sort_unique(f.v, f.n);
		im->have_funcs = 1;
	}
	*n = im->nfuncs;
	return im->funcs;
}

/* Is @s a C identifier (not "x.1234", not "x@VERSION")? */
static int
symbols_is_ident(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
	    *s == '_'))
		return 0;
	for (s++; *s; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	}
	return 1;
}

/* The tracer's own objects: their variables are not the program's. */
static int
symbols_is_tracer(const char *name)
{
	name = rbmon_basename(name);
	return strncmp(name, "librbtrace.so", 13) == 0 ||
	    strncmp(name, "rbtrace-watch.so", 16) == 0;
}

static int
symbols_module_vars(Dwfl_Module *mod, void **ud, const char *name,
    Dwarf_Addr base, void *arg)
{
	struct symbols_funcs	*f = arg;
	const char		*file = NULL, *nm;
	GElf_Sym		 sym;
	GElf_Addr		 addr;
	int			 i, n, type;

	(void)ud;
	(void)base;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
	if ((name != NULL && symbols_is_tracer(name)) ||
	    (file != NULL && symbols_is_tracer(file)))
		return DWARF_CB_OK;
	n = dwfl_module_getsymtab(mod);
	for (i = 1; i < n; i++) {
		nm = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL,
		    NULL);
		type = GELF_ST_TYPE(sym.st_info);
		if (nm == NULL || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_OBJECT && type != STT_TLS) ||
		    !symbols_is_ident(nm))
			continue;
		if (f->n == f->cap) {
			f->cap = f->cap ? f->cap * 2 : 1024;
			f->v = rbmon_xreallocarray(f->v, f->cap, sizeof *f->v);
		}
		f->v[f->n++] = rbmon_xstrdup(nm);
	}
	return DWARF_CB_OK;
}

/**
 * rbmon_symbols_variables - the names of the variables a process has
 * @sy: the cache
 * @s: the snapshot the process comes from
 * @p: the process
 * @n: set to how many
 *
 * Global and static data and thread-local symbols (STT_OBJECT, STT_TLS)
 * of the process's objects, those of librbtrace.so and rbtrace-watch.so
 * left out; only names a watch expression can spell.  Sorted and unique;
 * the array belongs to the cache.
 * Return: the names, or NULL when none are known.
 */
char *const *
rbmon_symbols_variables(struct rbmon_symbols *sy,
    const struct rbmon_snapshot *s, const struct rbmon_process *p, size_t *n)
{
	struct symbols_image	*im = symbols_image_get(sy, s, p);
	struct symbols_funcs	 f = { NULL, 0, 0 };

	if (!im->have_vars && im->dwfl != NULL) {
		dwfl_getmodules(im->dwfl, symbols_module_vars, &f, 0);
		im->vars = f.v;
		im->nvars = symbols_sort_unique(f.v, f.n);
		im->have_vars = 1;
	}
	*n = im->nvars;
	return im->vars;
}

/**
 * rbmon_symbols_dwfl - the Dwfl a process image is symbolized with
 * @sy: the cache
 * @s: the snapshot the process comes from
 * @p: the process (its image and pid)
 * @bad: set to the modules not to use (changed on disk since loaded)
 * @nbad: set to how many
 *
 * For lookups this file does not make itself (breakpoint.c); the Dwfl
 * belongs to the cache and lasts until the image's objects change.
 * Return: the Dwfl, or NULL when there is nothing to symbolize with.
 */
Dwfl *
rbmon_symbols_dwfl(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, Dwfl_Module *const **bad, size_t *nbad)
{
	struct symbols_image	*im = symbols_image_get(sy, s, p);

	*bad = im->bad;
	*nbad = im->nbad;
	return im->dwfl;
}
