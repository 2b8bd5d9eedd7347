/* SPDX-License-Identifier: MIT */
/*
 * nopsites.c - overwrite every hook call of an ELF file with a no-op, on
 * disk: the floor of dynamic tracing for bench/dyn.sh (a program whose
 * sites are all off, without the library that switched them).
 *
 * usage: sitesdump FILE | nopsites FILE
 * Reads the site lines of tests/sites/sitesdump on standard input (address,
 * enter|exit, plt|got|direct, length, call|tail, ...; the totals line is
 * skipped) and patches FILE in place (give it a copy): a call becomes a
 * multi-byte NOP of its length, a tail call (a jmp to the hook, which would
 * have returned to the caller) a ret followed by a NOP.  The bytes there
 * must be the call or jmp the line says, else nothing is written and it
 * exits 1.  Prints "patched N" on success.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SITES_MAX	(4u * 1024 * 1024)

/* The recommended multi-byte NOPs (Intel SDM), by length. */
static const uint8_t nops[8][8] = {
	{ 0 },
	{ 0x90 },
	{ 0x66, 0x90 },
	{ 0x0f, 0x1f, 0x00 },
	{ 0x0f, 0x1f, 0x40, 0x00 },
	{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
};

struct patch {
	uint64_t	off;
	unsigned	len;
	int		tail;
};

static void __attribute__((format(printf, 1, 2), noreturn))
die(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "nopsites: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The file offset of link address @addr, @len bytes in one PT_LOAD. */
static int
file_offset(const uint8_t *f, size_t sz, uint64_t addr, unsigned len,
    uint64_t *off)
{
	const Elf64_Ehdr *eh = (const void *)f;
	const Elf64_Phdr *ph;
	unsigned	  i;

	if (eh->e_phoff > sz || eh->e_phentsize != sizeof(*ph) ||
	    (sz - eh->e_phoff) / sizeof(*ph) < eh->e_phnum)
		return -1;
	ph = (const void *)(f + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		if (addr < ph[i].p_vaddr || addr - ph[i].p_vaddr > ph[i].p_filesz ||
		    ph[i].p_filesz - (addr - ph[i].p_vaddr) < len)
			continue;
		*off = ph[i].p_offset + (addr - ph[i].p_vaddr);
		if (*off > sz || sz - *off < len)
			return -1;
		return 0;
	}
	return -1;
}

/* Is the instruction at @p a call (or, @tail, a jmp) of length @len? */
static int
is_branch(const uint8_t *p, unsigned len, int tail)
{
	unsigned i = 0;

	if (len > 5 && p[0] == 0x67)		/* addr32 */
		i = 1;
	if (len - i == 5)
		return p[i] == (tail ? 0xe9 : 0xe8);
	if (len - i == 6 || len - i == 7)	/* ff /2 call, ff /4 jmp */
		return p[i] == 0xff &&
		    ((p[i + 1] >> 3) & 7) == (tail ? 4 : 2);
	return 0;
}

int
main(int argc, char **argv)
{
	struct patch	*v;
	struct stat	 st;
	uint8_t		*f;
	char		 line[512], hook[16], via[16], kind[16];
	uint64_t	 addr;
	unsigned	 len;
	size_t		 n = 0, i;
	int		 fd;

	if (argc != 2) {
		fprintf(stderr, "usage: sitesdump FILE | nopsites FILE\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDWR)) == -1 || fstat(fd, &st) == -1)
		die("%s", strerror(errno));
	if ((size_t)st.st_size < sizeof(Elf64_Ehdr))
		die("%s: not an ELF file", argv[1]);
	f = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	if (memcmp(f, ELFMAG, SELFMAG) || f[EI_CLASS] != ELFCLASS64)
		die("%s: not a 64-bit ELF file", argv[1]);
	if ((v = calloc(SITES_MAX, sizeof(*v))) == NULL)
		die("%s", "out of memory");

	/* Check every site before writing any. */
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (strncmp(line, "sites ", 6) == 0)
			continue;
		if (sscanf(line, "%" SCNx64 " %15s %15s %u %15s", &addr, hook,
		    via, &len, kind) != 5 || len < 5 || len > 7)
			die("bad site line: %.80s", line);
		if (n == SITES_MAX)
			die("%s", "too many sites");
		v[n].len = len;
		v[n].tail = strcmp(kind, "tail") == 0;
		if (file_offset(f, st.st_size, addr, len, &v[n].off) == -1)
			die("site outside the code: %.80s", line);
		if (!is_branch(f + v[n].off, len, v[n].tail))
			die("not a call or jmp there: %.80s", line);
		n++;
	}
	for (i = 0; i < n; i++) {
		if (v[i].tail) {
			f[v[i].off] = 0xc3;		/* ret */
			memcpy(f + v[i].off + 1, nops[v[i].len - 1],
			    v[i].len - 1);
		} else
			memcpy(f + v[i].off, nops[v[i].len], v[i].len);
	}
	if (msync(f, st.st_size, MS_SYNC) == -1)
		die("msync: %s", strerror(errno));
	printf("patched %zu\n", n);
	return 0;
}
