/* SPDX-License-Identifier: MIT */
/*
 * names.c - the functions a user's patterns (--exclude, --include) name
 * in this process, and the name of a function's address.
 *
 * Each loaded object's symbol table is read from its file (the main
 * program's through /proc/self/exe), mapped read-only: .symtab, or
 * .dynsym where it was stripped.  The file is untrusted, and may have
 * been replaced since it was loaded: every offset and size is checked
 * against the mapping before it is used, and an object whose loadable
 * segments differ from those in memory is passed over.  A symbol is
 * matched by common/namematch.c's rule, as rbmon's breakpoints match
 * names, plus globs: on its own name, on its name without GCC's suffix,
 * and on its demangled name.  Fragments (.cold, .part) receive no hooks
 * and are never named; a clone (.constprop, .isra) names the function it
 * was cloned from, whose address its hooks pass.
 *
 * C++ names are demangled by __cxa_demangle, taken from the process
 * when it has one (a C++ runtime loaded): a C program has none, and then
 * a mangled name matches only itself ("_ZN3Foo3barEv").
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/namematch.h"
#include "lib/dyn/names.h"

/* An object as dl_iterate_phdr() gave it, copied out of the loader's lock. */
struct names_obj {
	char		*path;
	uint64_t	 bias;
	Elf64_Phdr	*phdr;
	unsigned	 phnum;
	int		 self;		/* this library */
};

struct names_objs {
	struct names_obj	*v;
	size_t			 n, cap;
	int			 failed;
};

/* A function found, at its runtime address. */
struct names_hit {
	uint64_t	 addr;
	char		*name;
};

struct names_hits {
	struct names_hit	*v;
	size_t			 n, cap;
};

/* A function's name and link address, to find a clone's original. */
struct names_fn {
	const char	*name;
	uint64_t	 value;
};

typedef char	*names_demangle_fn(const char *, char *, size_t *, int *);

struct names_ctx {
	const char *const	*pat;
	size_t			 npat;
	uint8_t			*hit;
	size_t			 nhit;
	names_demangle_fn	*demangle;
	char			*base;		/* a symbol's name, suffix off */
	size_t			 basecap;
	char			*dem;		/* __cxa_demangle's buffer */
	size_t			 demcap;
	struct names_hits	 out;
	int			 failed;
};

/* ------------------------------------------------------------------
 * The ELF file.
 */

/* [off, off + len) inside @size bytes, and aligned to @align? */
static int
names_in(uint64_t off, uint64_t len, size_t size, uint64_t align)
{
	return off <= size && len <= size - off && off % align == 0;
}

/**
 * rb_names_symtab - an ELF image's symbol table, checked
 * @img, @size: the file, mapped
 * @st: set to its .symtab, or its .dynsym if it has none
 *
 * Every header, offset and size is checked against @size; a name is
 * checked when rb_names_symname() reads it.
 * Return: 0, or -1 if the image has no usable symbol table.
 */
int
rb_names_symtab(const void *img, size_t size, struct rb_names_symtab *st)
{
	const unsigned char	*b = img;
	const Elf64_Ehdr	*eh = img;
	const Elf64_Shdr	*sh, *s, *str;
	unsigned		 i, pick;

	memset(st, 0, sizeof *st);
	if (size < sizeof *eh || memcmp(b, ELFMAG, SELFMAG) != 0 ||
	    b[EI_CLASS] != ELFCLASS64 || b[EI_DATA] != ELFDATA2LSB ||
	    eh->e_shentsize != sizeof *sh || eh->e_shnum == 0 ||
	    !names_in(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *sh, size,
	    _Alignof(Elf64_Shdr)))
		return -1;
	sh = (const Elf64_Shdr *)(b + eh->e_shoff);
	pick = eh->e_shnum;
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB && sh[i].sh_size > 0) {
			pick = i;
			break;
		}
		if (sh[i].sh_type == SHT_DYNSYM && sh[i].sh_size > 0 &&
		    pick == eh->e_shnum)
			pick = i;
	}
	if (pick == eh->e_shnum)
		return -1;
	s = &sh[pick];
	if (s->sh_entsize != sizeof(Elf64_Sym) ||
	    !names_in(s->sh_offset, s->sh_size, size, _Alignof(Elf64_Sym)) ||
	    s->sh_link == 0 || s->sh_link >= eh->e_shnum)
		return -1;
	str = &sh[s->sh_link];
	if (str->sh_type != SHT_STRTAB ||
	    !names_in(str->sh_offset, str->sh_size, size, 1))
		return -1;
	st->sym = (const Elf64_Sym *)(b + s->sh_offset);
	st->nsym = s->sh_size / sizeof(Elf64_Sym);
	st->str = (const char *)b + str->sh_offset;
	st->strsz = str->sh_size;
	return 0;
}

/* @sym's name, or NULL if it has none or it runs off the string table. */
const char *
rb_names_symname(const struct rb_names_symtab *st, const Elf64_Sym *sym)
{
	const char	*p;

	if (sym->st_name == 0 || sym->st_name >= st->strsz)
		return NULL;
	p = st->str + sym->st_name;
	if (memchr(p, '\0', st->strsz - sym->st_name) == NULL || *p == '\0')
		return NULL;
	return p;
}

/*
 * Is @img the file of @o: its loadable segments those in memory?  (A file
 * replaced since it was loaded is not.)
 */
static int
names_same_file(const void *img, size_t size, const struct names_obj *o)
{
	const Elf64_Ehdr	*eh = img;
	const Elf64_Phdr	*ph;
	unsigned		 i, k = 0;

	if (eh->e_phentsize != sizeof *ph || !names_in(eh->e_phoff,
	    (uint64_t)eh->e_phnum * sizeof *ph, size, _Alignof(Elf64_Phdr)))
		return 0;
	ph = (const Elf64_Phdr *)((const char *)img + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		while (k < o->phnum && o->phdr[k].p_type != PT_LOAD)
			k++;
		if (k == o->phnum || o->phdr[k].p_vaddr != ph[i].p_vaddr ||
		    o->phdr[k].p_memsz != ph[i].p_memsz ||
		    o->phdr[k].p_offset != ph[i].p_offset)
			return 0;
		k++;
	}
	while (k < o->phnum && o->phdr[k].p_type != PT_LOAD)
		k++;
	return k == o->phnum;
}

/* Map @o's file read-only; NULL if it cannot be read or is not @o's. */
static void *
names_map(const struct names_obj *o, size_t *size)
{
	struct stat	 sb;
	void		*img;
	int		 fd;

	fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return NULL;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size < (off_t)sizeof(Elf64_Ehdr) ||
	    (uint64_t)sb.st_size > SIZE_MAX) {
		close(fd);
		return NULL;
	}
	*size = (size_t)sb.st_size;
	img = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return NULL;
	if (memcmp(img, ELFMAG, SELFMAG) != 0 ||
	    ((const unsigned char *)img)[EI_CLASS] != ELFCLASS64 ||
	    !names_same_file(img, *size, o)) {
		munmap(img, *size);
		return NULL;
	}
	return img;
}

/* ------------------------------------------------------------------
 * The objects of the process.
 */

static const char	*names_func_sym(const struct rb_names_symtab *,
			    const Elf64_Sym *);

static int
names_obj_cb(struct dl_phdr_info *info, size_t sz, void *arg)
{
	struct names_objs	*os = arg;
	struct names_obj	*o, *v;
	uintptr_t		 me = (uintptr_t)rb_names_match, lo;
	unsigned		 i;
	int			 first = os->n == 0 && os->cap == 0;

	(void)sz;
	if (os->n == os->cap) {
		os->cap = os->cap ? os->cap * 2 : 32;
		v = reallocarray(os->v, os->cap, sizeof *v);
		if (v == NULL) {
			os->failed = 1;
			return 1;
		}
		os->v = v;
	}
	/* The vdso, and anything else without a file. */
	if ((getauxval(AT_SYSINFO_EHDR) != 0 &&
	    info->dlpi_addr == getauxval(AT_SYSINFO_EHDR)) ||
	    (!first && (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')))
		return 0;
	o = &os->v[os->n];
	memset(o, 0, sizeof *o);
	/* The main program has no name, unless ld.so was run to start it. */
	o->path = strdup(info->dlpi_name != NULL && info->dlpi_name[0] != '\0' ?
	    info->dlpi_name : "/proc/self/exe");
	o->phdr = calloc(info->dlpi_phnum ? info->dlpi_phnum : 1,
	    sizeof *o->phdr);
	if (o->path == NULL || o->phdr == NULL) {
		free(o->path);
		free(o->phdr);
		os->failed = 1;
		return 1;
	}
	memcpy(o->phdr, info->dlpi_phdr, info->dlpi_phnum * sizeof *o->phdr);
	o->phnum = info->dlpi_phnum;
	o->bias = info->dlpi_addr;
	for (i = 0; i < o->phnum; i++) {
		lo = info->dlpi_addr + o->phdr[i].p_vaddr;
		if (o->phdr[i].p_type == PT_LOAD && me >= lo &&
		    me - lo < o->phdr[i].p_memsz)
			o->self = 1;
	}
	os->n++;
	return 0;
}

static void
names_objs_free(struct names_objs *os)
{
	size_t	i;

	for (i = 0; i < os->n; i++) {
		free(os->v[i].path);
		free(os->v[i].phdr);
	}
	free(os->v);
}

/* The process's objects; -1 if out of memory. */
static int
names_objs(struct names_objs *os)
{
	memset(os, 0, sizeof *os);
	dl_iterate_phdr(names_obj_cb, os);
	if (os->failed) {
		names_objs_free(os);
		return -1;
	}
	return 0;
}

/*
 * The process's __cxa_demangle, if it has a C++ runtime: in the global
 * scope, or else in an object's symbol table (a runtime that a dlopen()ed
 * object brought, outside the global scope), if the loader agrees that
 * the function at that address is __cxa_demangle: the file proposes, the
 * loader's own tables decide.  (Never dlopen() here: this library
 * interposes on it, and its callers may hold locks that dlopen() takes.)
 */
static names_demangle_fn *
names_demangler(const struct names_objs *os)
{
	static const char	 want[] = "__cxa_demangle";
	struct rb_names_symtab	 st;
	const struct names_obj	*o;
	const char		*nm;
	Dl_info			 info;
	uintptr_t		 addr;
	names_demangle_fn	*fn;
	size_t			 i, k, size;
	void			*img;

	fn = (names_demangle_fn *)dlsym(RTLD_DEFAULT, want);
	for (i = 0; fn == NULL && i < os->n; i++) {
		o = &os->v[i];
		if (o->self || (img = names_map(o, &size)) == NULL)
			continue;
		if (rb_names_symtab(img, size, &st) != 0)
			st.nsym = 0;
		for (k = 1; fn == NULL && k < st.nsym; k++) {
			if ((nm = names_func_sym(&st, &st.sym[k])) == NULL ||
			    strcmp(nm, want) != 0)
				continue;
			addr = (uintptr_t)(st.sym[k].st_value + o->bias);
			if (dladdr((void *)addr, &info) != 0 &&
			    (uintptr_t)info.dli_saddr == addr &&
			    info.dli_sname != NULL &&
			    strcmp(info.dli_sname, want) == 0)
				fn = (names_demangle_fn *)addr;
		}
		munmap(img, size);
	}
	return fn;
}

/*
 * @name's first @n bytes, and demangled if it is a C++ name and the
 * process can: *@dem NULL if not.  Return: the bytes, NULL if out of
 * memory.
 */
static const char *
names_base(struct names_ctx *x, const char *name, size_t n, const char **dem)
{
	char	*p;
	int	 status;

	*dem = NULL;
	if (n + 1 > x->basecap) {
		p = realloc(x->base, n + 1);
		if (p == NULL)
			return NULL;
		x->base = p;
		x->basecap = n + 1;
	}
	memcpy(x->base, name, n);
	x->base[n] = '\0';
	if (x->demangle != NULL && n > 2 && name[0] == '_' && name[1] == 'Z') {
		status = -1;
		p = x->demangle(x->base, x->dem, &x->demcap, &status);
		if (p != NULL && status == 0) {
			x->dem = p;
			*dem = p;
		}
	}
	return x->base;
}

/* ------------------------------------------------------------------
 * Matching.
 */

static int
names_fn_cmp(const void *a, const void *b)
{
	return strcmp(((const struct names_fn *)a)->name,
	    ((const struct names_fn *)b)->name);
}

static int
names_hit_cmp(const void *a, const void *b)
{
	const struct names_hit	*x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
names_hit_add(struct names_hits *h, uint64_t addr, const char *name)
{
	struct names_hit	*v;

	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		v = reallocarray(h->v, h->cap, sizeof *v);
		if (v == NULL)
			return -1;
		h->v = v;
	}
	h->v[h->n].addr = addr;
	h->v[h->n].name = strdup(name);
	if (h->v[h->n].name == NULL)
		return -1;
	h->n++;
	return 0;
}

/* A symbol that may name a function of its object: its name, or NULL. */
static const char *
names_func_sym(const struct rb_names_symtab *st, const Elf64_Sym *s)
{
	/*
	 * STT_GNU_IFUNC is left out: its value is its resolver's address,
	 * not a function's; the variants it picks have symbols of their own.
	 */
	if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_value == 0 ||
	    s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
		return NULL;
	return rb_names_symname(st, s);
}

/*
 * The link address of the function named @name's first @n bytes, from
 * @fn (sorted by name): a clone's original.  0 if it has none.
 */
static uint64_t
names_original(const struct names_fn *fn, size_t nfn, const char *name,
    size_t n)
{
	size_t	lo = 0, hi = nfn, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strncmp(fn[mid].name, name, n);
		if (c == 0 && fn[mid].name[n] != '\0')
			c = 1;
		if (c == 0)
			return fn[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* @st's functions (not fragments, not clones), sorted by name. */
static int
names_fns(const struct rb_names_symtab *st, struct names_fn **fn, size_t *nfn)
{
	const char	*nm;
	size_t		 i, bl;

	*nfn = 0;
	*fn = calloc(st->nsym ? st->nsym : 1, sizeof **fn);
	if (*fn == NULL)
		return -1;
	for (i = 1; i < st->nsym; i++) {
		if ((nm = names_func_sym(st, &st->sym[i])) == NULL ||
		    rb_symbol_kind(nm, &bl) != RB_SYM_FUNC)
			continue;
		(*fn)[*nfn].name = nm;
		(*fn)[*nfn].value = st->sym[i].st_value;
		(*nfn)++;
	}
	qsort(*fn, *nfn, sizeof **fn, names_fn_cmp);
	return 0;
}

/* The functions of one object that a pattern names, into @x->out. */
static int
names_match_obj(struct names_ctx *x, const struct names_obj *o)
{
	struct rb_names_symtab	 st;
	struct names_fn		*fn = NULL;
	const char		*nm, *base, *dem;
	size_t			 size, i, j, bl, nfn = 0;
	uint64_t		 value;
	void			*img;
	int			 kind, any, rc = 0;

	img = names_map(o, &size);
	if (img == NULL)
		return 0;
	if (rb_names_symtab(img, size, &st) != 0)
		goto out;
	for (i = 1; i < st.nsym; i++) {
		if ((nm = names_func_sym(&st, &st.sym[i])) == NULL)
			continue;
		kind = rb_symbol_kind(nm, &bl);
		if (kind == RB_SYM_FRAGMENT)
			continue;
		if ((base = names_base(x, nm, bl, &dem)) == NULL) {
			rc = -1;
			goto out;
		}
		any = 0;
		for (j = 0; j < x->npat; j++) {
			if (rb_name_match(x->pat[j], nm) ||
			    (nm[bl] != '\0' && rb_name_match(x->pat[j], base)) ||
			    (dem != NULL && rb_name_match(x->pat[j], dem))) {
				any = 1;
				if (j < x->nhit)
					x->hit[j] = 1;
			}
		}
		if (!any)
			continue;
		value = st.sym[i].st_value;
		if (kind == RB_SYM_CLONE) {
			if (fn == NULL && (rc = names_fns(&st, &fn, &nfn)) != 0)
				goto out;
			if ((value = names_original(fn, nfn, nm, bl)) == 0)
				value = st.sym[i].st_value;
		}
		if (names_hit_add(&x->out, value + o->bias,
		    dem != NULL ? dem : base) != 0) {
			rc = -1;
			goto out;
		}
	}
out:
	free(fn);
	munmap(img, size);
	return rc;
}

/*
 * @patterns, one a line, into @pat (pointers into @buf, a copy): empty
 * lines are kept, as "", so that a line's index is its pattern's.
 */
static int
names_patterns(const char *patterns, char **buf, const char ***pat,
    size_t *npat)
{
	char	*p, *e;
	size_t	 n = 0, k;

	*pat = NULL;
	if ((*buf = strdup(patterns)) == NULL)
		return -1;
	for (p = *buf; *p != '\0'; p = e + 1) {
		n++;
		if ((e = strchr(p, '\n')) == NULL)
			break;
	}
	if ((*pat = calloc(n ? n : 1, sizeof **pat)) == NULL) {
		free(*buf);
		return -1;
	}
	for (k = 0, p = *buf; k < n; k++, p = e + 1) {
		if ((e = strchr(p, '\n')) != NULL)
			*e = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		(*pat)[k] = p;
		p += strlen(p);
		while (p > (*pat)[k] && (p[-1] == ' ' || p[-1] == '\t' ||
		    p[-1] == '\r'))
			*--p = '\0';
		if (e == NULL)
			break;
	}
	*npat = n;
	return 0;
}

/**
 * rb_names_match_hits - the functions of this process that patterns name
 * @patterns: one a line (rb_patterns_split()'s output, or a file's lines),
 *	spaces, tabs and a CR around it ignored; a pattern is a name as
 *	rbmon's breakpoints take it, or a glob (common/namematch.c,
 *	rb_name_match())
 * @cb: called once per function named, by runtime address, in the
 *	order of addresses; returning nonzero stops the walk
 * @hit: if not NULL, hit[i] is set to 1 when line i (from 0) named a
 *	function; lines from @nhit on are not reported
 * @err: why not, when -1 is returned
 *
 * Every object loaded in the process is searched but this library, the
 * vdso and objects without a file.  Not from a hook: it allocates.
 * Return: the number of functions @cb was called for, or -1.
 */
int
rb_names_match_hits(const char *patterns, rb_names_cb *cb, void *arg,
    uint8_t *hit, size_t nhit, char *err, size_t errlen)
{
	struct names_ctx	 x;
	struct names_objs	 os;
	const char		**pat = NULL;
	char			*buf = NULL;
	size_t			 i, npat = 0, some = 0;
	int			 n = -1;

	memset(&x, 0, sizeof x);
	if (hit != NULL)
		memset(hit, 0, nhit);
	if (names_patterns(patterns, &buf, &pat, &npat) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < npat; i++)
		if (pat[i][0] != '\0')
			some++;
	if (some == 0) {
		snprintf(err, errlen, "no pattern");
		goto out;
	}
	if (names_objs(&os) != 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	x.pat = pat;
	x.npat = npat;
	x.hit = hit;
	x.nhit = hit != NULL ? nhit : 0;
	x.demangle = names_demangler(&os);
	for (i = 0; i < os.n; i++)
		if (!os.v[i].self && names_match_obj(&x, &os.v[i]) != 0) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
	if (x.out.n > 0)
		qsort(x.out.v, x.out.n, sizeof *x.out.v, names_hit_cmp);
	n = 0;
	for (i = 0; i < x.out.n; i++) {
		if (i > 0 && x.out.v[i].addr == x.out.v[i - 1].addr)
			continue;
		n++;
		if (cb(x.out.v[i].addr, x.out.v[i].name, arg) != 0)
			break;
	}
done:
	for (i = 0; i < x.out.n; i++)
		free(x.out.v[i].name);
	free(x.out.v);
	free(x.base);
	free(x.dem);
	names_objs_free(&os);
out:
	free(pat);
	free(buf);
	return n;
}

/**
 * rb_names_match - rb_names_match_hits() without the patterns' report
 */
int
rb_names_match(const char *patterns, rb_names_cb *cb, void *arg, char *err,
    size_t errlen)
{
	return rb_names_match_hits(patterns, cb, arg, NULL, 0, err, errlen);
}

/**
 * rb_names_of - the name of the function at runtime address @addr
 * @out, @size: receives its demangled name, or "0x..." if it has none
 *
 * For messages: the name is the symbol's bytes, to be escaped before it
 * reaches a terminal.  Not from a hook: it allocates.
 * Return: 0, or -1 if no function of a loaded object starts at @addr.
 */
int
rb_names_of(uint64_t addr, char *out, size_t size)
{
	struct names_objs	 os;
	struct names_ctx	 x;
	struct rb_names_symtab	 st;
	const struct names_obj	*o;
	const char		*nm, *base, *dem, *best = NULL;
	size_t			 i, k, bl, isz;
	uint64_t		 lo;
	void			*img;
	int			 kind, found = -1, looked = 0;

	snprintf(out, size, "0x%llx", (unsigned long long)addr);
	if (names_objs(&os) != 0)
		return -1;
	memset(&x, 0, sizeof x);
	for (i = 0; i < os.n && found != 0; i++) {
		o = &os.v[i];
		for (k = 0; k < o->phnum; k++) {
			lo = o->bias + o->phdr[k].p_vaddr;
			if (o->phdr[k].p_type == PT_LOAD && addr >= lo &&
			    addr - lo < o->phdr[k].p_memsz)
				break;
		}
		if (k == o->phnum || (img = names_map(o, &isz)) == NULL)
			continue;
		if (rb_names_symtab(img, isz, &st) == 0) {
			/* A function's own symbol before a clone's. */
			for (k = 1; k < st.nsym; k++) {
				if ((nm = names_func_sym(&st, &st.sym[k])) ==
				    NULL || st.sym[k].st_value + o->bias != addr)
					continue;
				kind = rb_symbol_kind(nm, &bl);
				if (kind == RB_SYM_FUNC ||
				    (kind == RB_SYM_CLONE && best == NULL))
					best = nm;
				if (kind == RB_SYM_FUNC)
					break;
			}
			if (best != NULL) {
				if (!looked) {
					x.demangle = names_demangler(&os);
					looked = 1;
				}
				rb_symbol_kind(best, &bl);
				base = names_base(&x, best, bl, &dem);
				if (base != NULL) {
					snprintf(out, size, "%s",
					    dem != NULL ? dem : base);
					found = 0;
				}
			}
		}
		munmap(img, isz);
		best = NULL;
	}
	free(x.base);
	free(x.dem);
	names_objs_free(&os);
	return found;
}
