/*
 * elfsym.c - function names to addresses, for breakpoints.
 *
 * Runs only when a BRKP command names a function: every object loaded in
 * this process is mapped read-only from its file, its .symtab (static
 * functions too) or else its .dynsym is searched, and the object is
 * unmapped again.  Nothing is kept and nothing is allocated with malloc (a
 * hook may run in a signal handler that interrupted malloc); the file is
 * trusted no further than its own size.
 *
 * C++ names match mangled ("_ZN2ns3runEv") and, when the program has
 * __cxa_demangle (it links libstdc++), demangled with or without the
 * parameter list ("ns::run", "ns::run()").
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

typedef char *(*rb_demangle_fn)(const char *, char *, size_t *, int *);

struct rb_sym_query {
	const char	*name;
	int		 cxx;		/* name looks like C++: demangle candidates */
	rb_demangle_fn	 demangle;
	uint64_t	*addrs;
	int		 max, n;
	int		 more;		/* found more than max */
};

static void rb_sym_add(struct rb_sym_query *q, uint64_t a)
{
	int i;

	for (i = 0; i < q->n; i++)
		if (q->addrs[i] == a)
			return;
	if (q->n < q->max)
		q->addrs[q->n++] = a;
	else
		q->more = 1;
}

/* Does symbol @sym name the function asked for? */
static int rb_sym_match(struct rb_sym_query *q, const char *sym, size_t symlen)
{
	size_t n = strlen(q->name);
	char *d;
	int st = -1, ok = 0;

	if (symlen == n && memcmp(sym, q->name, n) == 0)
		return 1;
	/* "foo@@VERSION" and "foo.cold" style suffixes are other symbols. */
	if (!q->cxx || q->demangle == NULL || symlen < 2 || sym[0] != '_' ||
	    sym[1] != 'Z')
		return 0;
	d = q->demangle(sym, NULL, NULL, &st);
	if (d == NULL || st != 0) {
		free(d);
		return 0;
	}
	if (strcmp(d, q->name) == 0)
		ok = 1;
	else if (strncmp(d, q->name, n) == 0 && d[n] == '(' &&
		 strchr(q->name, '(') == NULL)
		ok = 1;
	free(d);
	return ok;
}

static void rb_sym_scan(struct rb_sym_query *q, const char *img, size_t size,
			uint64_t bias)
{
	const Elf64_Ehdr *e = (const void *)img;
	const Elf64_Shdr *sh;
	int pass, i;

	if (size < sizeof(*e) || memcmp(e->e_ident, ELFMAG, SELFMAG) != 0 ||
	    e->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->e_shentsize != sizeof(Elf64_Shdr) || e->e_shoff >= size ||
	    (uint64_t)e->e_shnum * sizeof(Elf64_Shdr) > size - e->e_shoff)
		return;
	sh = (const void *)(img + e->e_shoff);
	/* .symtab holds everything .dynsym does, and the static functions. */
	for (pass = 0; pass < 2; pass++) {
		uint32_t want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
		int found = 0;

		for (i = 0; i < e->e_shnum; i++) {
			const Elf64_Shdr *s = &sh[i], *str;
			const Elf64_Sym *sym;
			uint64_t k, count;

			if (s->sh_type != want || s->sh_link >= e->e_shnum ||
			    s->sh_entsize != sizeof(Elf64_Sym) ||
			    s->sh_offset > size || s->sh_size > size - s->sh_offset)
				continue;
			str = &sh[s->sh_link];
			if (str->sh_offset > size ||
			    str->sh_size > size - str->sh_offset)
				continue;
			found = 1;
			sym = (const void *)(img + s->sh_offset);
			count = s->sh_size / sizeof(Elf64_Sym);
			for (k = 1; k < count; k++) {
				const char *nm;
				size_t len;

				if ((ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC &&
				     ELF64_ST_TYPE(sym[k].st_info) != STT_GNU_IFUNC) ||
				    sym[k].st_shndx == SHN_UNDEF ||
				    sym[k].st_value == 0 ||
				    sym[k].st_name >= str->sh_size)
					continue;
				nm = img + str->sh_offset + sym[k].st_name;
				len = strnlen(nm, str->sh_size - sym[k].st_name);
				if (len == str->sh_size - sym[k].st_name)
					continue;	/* not terminated */
				if (rb_sym_match(q, nm, len))
					rb_sym_add(q, sym[k].st_value + bias);
			}
		}
		if (found)
			break;
	}
}

static int rb_sym_object(struct dl_phdr_info *info, size_t sz, void *arg)
{
	struct rb_sym_query *q = arg;
	const char *path = info->dlpi_name;
	struct stat st;
	void *img;
	int fd;

	(void)sz;
	if (path == NULL || *path == '\0')
		path = "/proc/self/exe";
	else if (*path != '/')
		return 0;	/* the vDSO: no file */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size >= (off_t)sizeof(Elf64_Ehdr)) {
		img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			   fd, 0);
		if (img != MAP_FAILED) {
			rb_sym_scan(q, img, (size_t)st.st_size,
				    (uint64_t)info->dlpi_addr);
			munmap(img, (size_t)st.st_size);
		}
	}
	close(fd);
	return 0;
}

/**
 * rb_sym_lookup - every address a function called @name has in this process
 * @name: symbol name, mangled or (C++) demangled
 * @addrs: filled with up to @max distinct addresses
 * @more: set to 1 if there were more than @max
 *
 * Return: how many addresses were found.
 */
int rb_sym_lookup(const char *name, uint64_t *addrs, int max, int *more)
{
	struct rb_sym_query q = {
		.name = name, .addrs = addrs, .max = max,
	};

	q.cxx = strstr(name, "::") != NULL || strchr(name, '(') != NULL ||
		strchr(name, '<') != NULL || strchr(name, '~') != NULL;
	if (q.cxx)
		q.demangle = (rb_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	dl_iterate_phdr(rb_sym_object, &q);
	*more = q.more;
	return q.n;
}
