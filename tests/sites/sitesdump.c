/* SPDX-License-Identifier: MIT */
/*
 * sitesdump - print the site table of an ELF file, or the instruction
 * starts of its code, for inspection, the tests and the benchmark.
 *
 *   sitesdump [-s] [-c DIR] FILE   map FILE's segments as the loader
 *                                  would (no relocation), build its table
 *                                  (through the cache in DIR with -c) and
 *                                  print one line per site, then totals
 *                                  (-s: the totals only)
 *   sitesdump -i FILE              the start of every instruction of its
 *                                  executable sections, decoded linearly
 *                                  and restarted at each symbol, as
 *                                  objdump -d walks them
 *
 * A site line: address, enter|exit, plt|got|direct, length, call|tail,
 * this_fn (or ?; *SLOT: the GOT slot holding it), start of its code
 * range; all hexadecimal link addresses.
 * The hooks' own definitions, for direct calls, come from the file's
 * .symtab or .dynsym (in a process librbtrace has them from the loader).
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/dyn/sites.h"
#include "lib/dyn/x86len.h"

static const uint8_t *file;
static size_t filesz;
static int filefd;

static void
die(const char *what)
{
	fprintf(stderr, "sitesdump: %s\n", what);
	exit(2);
}

static const Elf64_Ehdr *
elf_header(void)
{
	const Elf64_Ehdr *eh = (const void *)file;

	if (filesz < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64)
		die("not an x86-64 ELF file");
	return eh;
}

static const Elf64_Shdr *
elf_sections(unsigned *n)
{
	const Elf64_Ehdr *eh = elf_header();

	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > filesz ||
	    (filesz - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		die("bad section headers");
	*n = eh->e_shnum;
	return (const void *)(file + eh->e_shoff);
}

/* The value of the defined symbol @name in .symtab or .dynsym, or 0. */
static uint64_t
elf_symbol(const char *name)
{
	const Elf64_Shdr *sh;
	unsigned	  n, i;
	size_t		  j, len = strlen(name) + 1;

	sh = elf_sections(&n);
	for (i = 0; i < n; i++) {
		const Elf64_Sym	*sym;
		const Elf64_Shdr *str;

		if ((sh[i].sh_type != SHT_SYMTAB &&
		    sh[i].sh_type != SHT_DYNSYM) || sh[i].sh_link >= n ||
		    sh[i].sh_offset > filesz ||
		    sh[i].sh_size > filesz - sh[i].sh_offset)
			continue;
		str = &sh[sh[i].sh_link];
		if (str->sh_offset > filesz ||
		    str->sh_size > filesz - str->sh_offset)
			continue;
		sym = (const void *)(file + sh[i].sh_offset);
		for (j = 0; j < sh[i].sh_size / sizeof(*sym); j++) {
			if (sym[j].st_shndx == SHN_UNDEF ||
			    sym[j].st_name >= str->sh_size ||
			    str->sh_size - sym[j].st_name < len)
				continue;
			if (memcmp(file + str->sh_offset + sym[j].st_name,
			    name, len) == 0)
				return sym[j].st_value;
		}
	}
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
dump_insns(void)
{
	const Elf64_Shdr *sh;
	unsigned	  n, i;
	uint64_t	 *starts = NULL;
	size_t		  ns = 0, cap = 0, j, k;
	int		  bad = 0;

	sh = elf_sections(&n);
	for (i = 0; i < n; i++) {
		const Elf64_Sym	*sym;

		if ((sh[i].sh_type != SHT_SYMTAB &&
		    sh[i].sh_type != SHT_DYNSYM) || sh[i].sh_offset > filesz ||
		    sh[i].sh_size > filesz - sh[i].sh_offset)
			continue;
		sym = (const void *)(file + sh[i].sh_offset);
		for (j = 0; j < sh[i].sh_size / sizeof(*sym); j++) {
			if (sym[j].st_shndx == SHN_UNDEF ||
			    sym[j].st_shndx >= n ||
			    !(sh[sym[j].st_shndx].sh_flags & SHF_EXECINSTR))
				continue;
			if (ns == cap) {
				cap = cap ? cap * 2 : 4096;
				starts = realloc(starts, cap * sizeof(*starts));
				if (starts == NULL)
					die("out of memory");
			}
			starts[ns++] = sym[j].st_value;
		}
	}
	if (ns > 0)
		qsort(starts, ns, sizeof(*starts), cmp_u64);
	for (i = 0, k = 0; i < n; i++) {
		uint64_t	 a = sh[i].sh_addr, e, lim;
		const uint8_t	*b;

		if (!(sh[i].sh_flags & SHF_EXECINSTR) ||
		    sh[i].sh_type != SHT_PROGBITS ||
		    sh[i].sh_offset > filesz ||
		    sh[i].sh_size > filesz - sh[i].sh_offset)
			continue;
		e = a + sh[i].sh_size;
		b = file + sh[i].sh_offset;
		k = 0;
		while (a < e) {
			struct rb_x86_insn d;
			int		   len;

			while (k < ns && starts[k] <= a)
				k++;
			lim = k < ns && starts[k] < e ? starts[k] : e;
			len = rb_x86_decode(b + (a - sh[i].sh_addr), lim - a,
			    &d);
			printf("%" PRIx64 "\n", a);
			if (len < 0) {
				bad++;
				len = 1;
			}
			a += (uint64_t)len;
		}
	}
	free(starts);
	fprintf(stderr, "sitesdump: %d undecodable\n", bad);
	return 0;
}

/* Map the file's PT_LOAD segments read-only, as the loader places them. */
static void
map_image(struct rb_sites_obj *o)
{
	const Elf64_Ehdr *eh = elf_header();
	const Elf64_Phdr *ph;
	Elf64_Phdr	 *copy;
	uint64_t	  lo = UINT64_MAX, hi = 0;
	long		  pg = sysconf(_SC_PAGESIZE);
	uint8_t		 *base;
	unsigned	  i;
	int		  fixed;

	if (eh->e_phoff > filesz || eh->e_phentsize != sizeof(*ph) ||
	    (filesz - eh->e_phoff) / sizeof(*ph) < eh->e_phnum)
		die("bad program headers");
	ph = (const void *)(file + eh->e_phoff);
	copy = calloc(eh->e_phnum, sizeof(*copy));
	if (copy == NULL)
		die("out of memory");
	memcpy(copy, ph, eh->e_phnum * sizeof(*ph));
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_offset > filesz ||
		    ph[i].p_filesz > filesz - ph[i].p_offset)
			die("segment past the end of the file");
		if (ph[i].p_vaddr < lo)
			lo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	if (hi <= lo)
		die("no segment");
	lo &= ~(uint64_t)(pg - 1);
	fixed = eh->e_type == ET_EXEC;
	base = mmap(fixed ? (void *)(uintptr_t)lo : NULL, hi - lo, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS | (fixed ? MAP_FIXED_NOREPLACE : 0),
	    -1, 0);
	if (base == MAP_FAILED)
		die("cannot reserve the image's addresses");
	o->bias = (uintptr_t)base - lo;
	for (i = 0; i < eh->e_phnum; i++) {
		uint64_t va, off;

		if (ph[i].p_type != PT_LOAD || ph[i].p_filesz == 0)
			continue;
		va = ph[i].p_vaddr & ~(uint64_t)(pg - 1);
		off = ph[i].p_offset & ~(uint64_t)(pg - 1);
		if (mmap((void *)(uintptr_t)(va + o->bias),
		    ph[i].p_filesz + (ph[i].p_vaddr - va), PROT_READ,
		    MAP_PRIVATE | MAP_FIXED, filefd, (off_t)off) == MAP_FAILED)
			die("cannot map a segment");
	}
	o->phdr = copy;
	o->phnum = eh->e_phnum;
}

static double
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int
main(int argc, char **argv)
{
	static const char *hooks[] = { "enter", "exit" };
	static const char *vias[] = { "plt", "got", "direct" };
	struct rb_sites_obj o;
	struct rb_sites	 t;
	struct rusage	 ru;
	struct stat	 sb;
	const char	*dir = NULL;
	double		 t0, ms;
	size_t		 i;
	int		 c, fd, insns = 0, summary = 0, err;

	while ((c = getopt(argc, argv, "c:is")) != -1) {
		switch (c) {
		case 'c':
			dir = optarg;
			break;
		case 'i':
			insns = 1;
			break;
		case 's':
			summary = 1;
			break;
		default:
			fprintf(stderr, "usage: sitesdump [-is] [-c DIR] FILE\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: sitesdump [-is] [-c DIR] FILE\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) != 0)
		die("cannot open the file");
	filesz = (size_t)sb.st_size;
	file = mmap(NULL, filesz, PROT_READ, MAP_PRIVATE, fd, 0);
	if (file == MAP_FAILED)
		die("cannot map the file");
	if (insns)
		return dump_insns();

	memset(&o, 0, sizeof(o));
	filefd = fd;
	map_image(&o);
	if ((o.hooks[0] = elf_symbol("__cyg_profile_func_enter")) != 0)
		o.hooks[0] += o.bias;
	if ((o.hooks[1] = elf_symbol("__cyg_profile_func_exit")) != 0)
		o.hooks[1] += o.bias;

	t0 = now_ms();
	err = dir != NULL ? rb_sites_get(&o, dir, &t) : rb_sites_build(&o, &t);
	ms = now_ms() - t0;
	if (err != 0) {
		fprintf(stderr, "sitesdump: no table: %s\n", strerror(-err));
		return 1;
	}
	for (i = 0; !summary && i < t.n; i++) {
		const struct rb_site *st = &t.v[i];

		printf("%" PRIx64 " %s %s %u %s ", st->addr, hooks[st->hook],
		    vias[st->via], st->len,
		    (st->flags & RB_SITE_TAIL) ? "tail" : "call");
		if (st->this_fn == RB_SITE_FN_UNKNOWN)
			printf("?");
		else
			printf("%s%" PRIx64, (st->flags & RB_SITE_FN_SLOT) ?
			    "*" : "", st->this_fn);
		printf(" %" PRIx64 "\n", st->func);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("sites %zu functions %u failed %u unknown %u tail %u "
	    "text %" PRIu64 " ms %.3f scratch_kib %zu table_kib %zu "
	    "maxrss_kib %ld cached %d\n", t.n, t.nfuncs, t.nfail, t.nunknown,
	    t.ntail, t.text_bytes, ms, t.peak_scratch / 1024,
	    t.n * sizeof(*t.v) / 1024, ru.ru_maxrss, t.cached);
	for (i = 0; i < t.nfail && i < RB_SITES_FAILS_KEPT; i++)
		printf("failed %" PRIx64 "\n", t.fails[i]);
	rb_sites_free(&t);
	return 0;
}
