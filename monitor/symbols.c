/* rbmon symbols: one cached Dwfl per process image, one cache per address. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "symbols.h"

#ifdef HAVE_CXA_DEMANGLE
extern char *__cxa_demangle(const char *, char *, size_t *, int *);
#endif

struct symbols_addr {
	uint64_t	 addr;
	int		 used;
	int		 line;
	char		*function;
	char		*file;
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
	struct symbols_image *next;
};

struct rbmon_symbols {
	FILE			*notes;
	struct symbols_image	*images;
};

static char *symbols_debuginfo_path;

static const Dwfl_Callbacks symbols_offline_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &symbols_debuginfo_path,
};

static const Dwfl_Callbacks symbols_proc_cb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &symbols_debuginfo_path,
};

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

static void
symbols_image_free(struct symbols_image *im)
{
	size_t	i;

	for (i = 0; i < im->cap; i++) {
		free(im->tab[i].function);
		free(im->tab[i].file);
	}
	free(im->tab);
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
	struct symbols_image	*im, *next;

	if (sy == NULL)
		return;
	for (im = sy->images; im != NULL; im = next) {
		next = im->next;
		symbols_image_free(im);
	}
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

static void
symbols_image_report(struct rbmon_symbols *sy, struct symbols_image *im,
    const struct rbmon_snapshot *s)
{
	const struct rbmon_object	*o;
	Dwfl_Module			*mod;
	size_t				 i;

	im->dwfl = dwfl_begin(&symbols_offline_cb);
	if (im->dwfl == NULL)
		return;
	dwfl_report_begin(im->dwfl);
	for (i = 0; i < s->nobjects; i++) {
		o = &s->objects[i];
		if (o->image != im->image || o->path[0] != '/')
			continue;
		/* base is the load bias: add_p_vaddr places PT_LOADs. */
		mod = dwfl_report_elf(im->dwfl, rbmon_basename(o->path),
		    o->path, -1, o->base, true);
		if (mod == NULL)
			continue;
		if (!symbols_build_id_matches(mod, o)) {
			if (sy->notes != NULL)
				fprintf(sy->notes, "rbmon: note: %s changed on "
				    "disk since it was loaded (build-id "
				    "differs); not using it\n", o->path);
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

static struct symbols_image *
symbols_image_get(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p)
{
	struct symbols_image	*im, **prev;
	size_t			 n = 0, i;
	int32_t			 pid = 0;

	for (i = 0; i < s->nobjects; i++) {
		if (s->objects[i].image == p->image)
			n++;
	}
	if (n == 0 && p->alive)
		pid = p->pid;

	for (prev = &sy->images; (im = *prev) != NULL; prev = &im->next) {
		if (im->image != p->image)
			continue;
		if (im->nobjects == n && im->pid == pid)
			return im;
		if (n == 0 && pid == 0)
			return im;	/* keep what we had for a dead one */
		*prev = im->next;	/* objects were added: rebuild */
		symbols_image_free(im);
		break;
	}

	im = rbmon_xcalloc(1, sizeof *im);
	im->image = p->image;
	im->nobjects = n;
	im->pid = pid;
	if (n != 0)
		symbols_image_report(sy, im, s);
	else if (pid != 0)
		symbols_image_proc(im);
	im->next = sy->images;
	sy->images = im;
	return im;
}

static uint64_t
symbols_hash(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	a ^= a >> 33;
	return a;
}

static struct symbols_addr *
symbols_addr_slot(struct symbols_image *im, uint64_t addr)
{
	struct symbols_addr	*old;
	size_t			 oldcap, i, j;

	if (im->used * 2 >= im->cap) {
		old = im->tab;
		oldcap = im->cap;
		im->cap = oldcap == 0 ? 256 : oldcap * 2;
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

/* The definition line of the function that starts at e->addr, from DWARF. */
static int
symbols_decl(Dwfl_Module *mod, struct symbols_addr *e)
{
	Dwarf_Die	*cu, *scopes = NULL;
	Dwarf_Addr	 bias;
	const char	*file;
	int		 i, n, line = 0, found = 0;

	cu = dwfl_module_addrdie(mod, e->addr, &bias);
	if (cu == NULL)
		return 0;
	n = dwarf_getscopes(cu, e->addr - bias, &scopes);
	for (i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		file = dwarf_decl_file(&scopes[i]);
		if (file != NULL && *file != '\0' &&
		    dwarf_decl_line(&scopes[i], &line) == 0 && line > 0) {
			e->file = rbmon_xstrdup(rbmon_basename(file));
			e->line = line;
			found = 1;
		}
		break;
	}
	free(scopes);
	return found;
}

static void
symbols_resolve(struct symbols_image *im, struct symbols_addr *e)
{
	Dwfl_Module	*mod;
	Dwfl_Line	*ln;
	GElf_Off	 off;
	GElf_Sym	 sym;
	const char	*name, *src;
	size_t		 i;
	int		 line = 0;

	if (im->dwfl == NULL)
		return;
	mod = dwfl_addrmodule(im->dwfl, e->addr);
	if (mod == NULL)
		return;
	for (i = 0; i < im->nbad; i++) {
		if (im->bad[i] == mod)
			return;
	}
	name = dwfl_module_addrinfo(mod, e->addr, &off, &sym, NULL, NULL,
	    NULL);
	if (name != NULL && *name != '\0')
		e->function = rbmon_symbols_demangle(name);
	/*
	 * A function's entry (as recorded for every frame) is located at the
	 * function's definition line; the line table would give the line
	 * of the opening brace or of the first statement instead.
	 */
	if (name != NULL && off == 0 && symbols_decl(mod, e))
		return;
	ln = dwfl_module_getsrc(mod, e->addr);
	if (ln != NULL) {
		src = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
		if (src != NULL && *src != '\0') {
			e->file = rbmon_xstrdup(rbmon_basename(src));
			e->line = line > 0 ? line : 0;
		}
	}
}

/**
 * rbmon_symbols_lookup - what an address of a process is
 * @sy: the cache
 * @s: the snapshot the process comes from (its object table)
 * @p: the process
 * @addr: a runtime address
 * @out: function containing @addr and the source line of @addr itself
 */
void
rbmon_symbols_lookup(struct rbmon_symbols *sy, const struct rbmon_snapshot *s,
    const struct rbmon_process *p, uint64_t addr, struct rbmon_sym *out)
{
	struct symbols_image	*im;
	struct symbols_addr	*e;

	memset(out, 0, sizeof *out);
	if (addr == 0)
		return;
	im = symbols_image_get(sy, s, p);
	e = symbols_addr_slot(im, addr);
	if (!e->used) {
		e->used = 1;
		e->addr = addr;
		im->used++;
		symbols_resolve(im, e);
	}
	out->function = e->function;
	out->file = e->file;
	out->line = e->line;
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
