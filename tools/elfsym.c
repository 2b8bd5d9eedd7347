/* SPDX-License-Identifier: MIT */
/*
 * elfsym.c - an ELF object's dynamic symbols, read from its file: what it
 * imports (the launcher's look before a run, rbtrace -p's look at the
 * objects a process has loaded) and what it defines (the functions
 * called in a process under ptrace).
 *
 * Whether an object "calls the hooks" is decided here only, for both:
 * it imports __cyg_profile_func_enter or __cyg_profile_func_exit (built
 * with -finstrument-functions), or rbtrace_push or rbtrace_line (the API
 * of <rbtrace/rbtrace.h>).  A preloaded librbtrace binds those imports
 * at the program's start, an attached one rebinds them (rbtrace(1),
 * "ATTACH"; rbtrace(5), "ATTACH").
 */
#include "config.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "tools/elfsym.h"

static const char *const rb_elf_hooks[] = {
	"__cyg_profile_func_enter", "__cyg_profile_func_exit",
	"rbtrace_push", "rbtrace_line",
};

/**
 * rb_elf_begin - @fd, an open file, as a 64-bit ELF object
 * @machine: its e_machine, or EM_NONE for any
 *
 * Return: its handle (elf_end() it), or NULL.
 */
Elf *rb_elf_begin(int fd, int machine)
{
	GElf_Ehdr eh;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf == NULL || elf_kind(elf) != ELF_K_ELF ||
	    gelf_getehdr(elf, &eh) == NULL || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    (machine != EM_NONE && eh.e_machine != machine)) {
		if (elf != NULL)
			elf_end(elf);
		return NULL;
	}
	return elf;
}

/**
 * rb_elf_open - open @path as a 64-bit ELF object
 * @machine: its e_machine, or EM_NONE for any
 * @elfp: set to its handle
 *
 * Return: the descriptor, or -1.  Close both with rb_elf_close().
 */
int rb_elf_open(const char *path, int machine, Elf **elfp)
{
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	*elfp = rb_elf_begin(fd, machine);
	if (*elfp == NULL) {
		close(fd);
		return -1;
	}
	return fd;
}

void rb_elf_close(int fd, Elf *elf)
{
	if (elf != NULL)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* rb_elf_is_hook - is @name, imported, a call of the hooks? */
bool rb_elf_is_hook(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(rb_elf_hooks) / sizeof(rb_elf_hooks[0]); i++)
		if (strcmp(name, rb_elf_hooks[i]) == 0)
			return true;
	return false;
}

/*
 * rb_elf_walk - call @fn with each named symbol of @elf's tables of type
 * @type (SHT_DYNSYM, SHT_SYMTAB), its entry and its name.  Return: how
 * many, or -1 when @elf has no such table.
 */
int rb_elf_walk(Elf *elf, unsigned type, rb_elf_sym_fn fn, void *arg)
{
	Elf_Scn *scn = NULL;
	int count = 0, tables = 0;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t k, n;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != type ||
		    sh.sh_entsize == 0 || (data = elf_getdata(scn, NULL)) == NULL)
			continue;
		tables++;
		n = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < n; k++) {
			GElf_Sym sym;
			const char *s;

			if (gelf_getsym(data, (int)k, &sym) == NULL || sym.st_name == 0 ||
			    (s = elf_strptr(elf, sh.sh_link, sym.st_name)) == NULL)
				continue;
			fn(&sym, s, arg);
			count++;
		}
	}
	return tables > 0 ? count : -1;
}

struct elf_imports {
	rb_elf_import_fn	 fn;
	void			*arg;
};

static void elf_import_seen(const GElf_Sym *sym, const char *name, void *arg)
{
	const struct elf_imports *im = arg;

	if (sym->st_shndx == SHN_UNDEF)
		im->fn(name, im->arg);
}

/*
 * rb_elf_imports - call @fn with the name of each symbol @elf imports
 * (undefined in its .dynsym).  Return: 0, or -1 when it has no dynamic
 * symbol table.
 */
int rb_elf_imports(Elf *elf, rb_elf_import_fn fn, void *arg)
{
	struct elf_imports im = { fn, arg };

	return rb_elf_walk(elf, SHT_DYNSYM, elf_import_seen, &im) < 0 ? -1 : 0;
}

static void elf_hook_seen(const char *name, void *arg)
{
	if (rb_elf_is_hook(name))
		*(bool *)arg = true;
}

/* rb_elf_calls_hooks - does @elf import one of the hooks (the rule above)? */
bool rb_elf_calls_hooks(Elf *elf)
{
	bool found = false;

	rb_elf_imports(elf, elf_hook_seen, &found);
	return found;
}

/* rb_elf_file_calls_hooks - rb_elf_calls_hooks() of the object at @path. */
bool rb_elf_file_calls_hooks(const char *path)
{
	Elf *elf = NULL;
	bool found;
	int fd;

	fd = rb_elf_open(path, EM_NONE, &elf);
	if (fd < 0)
		return false;
	found = rb_elf_calls_hooks(elf);
	rb_elf_close(fd, elf);
	return found;
}

/*
 * rb_elf_defined - look up @n (at most RB_ELF_NAMES_MAX) global or weak
 * symbols @elf defines in its .dynsym: their values into @value (0: not
 * defined), their types (STT_*) into @type.  A symbol's default version
 * wins over a hidden one.  Return: 0, or -1 without a dynamic symbol
 * table.
 */
int rb_elf_defined(Elf *elf, const char *const *names, uint64_t *value,
		   int *type, int n)
{
	Elf_Data *sdata = NULL, *vdata = NULL;
	bool hidden[RB_ELF_NAMES_MAX] = { false };
	GElf_Shdr sh, ssh = { 0 };
	Elf_Scn *scn = NULL;
	size_t i, nsyms;
	int k;

	for (k = 0; k < n; k++) {
		value[k] = 0;
		type[k] = STT_NOTYPE;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_DYNSYM && sh.sh_entsize != 0) {
			sdata = elf_getdata(scn, NULL);
			ssh = sh;
		} else if (sh.sh_type == SHT_GNU_versym) {
			vdata = elf_getdata(scn, NULL);
		}
	}
	if (sdata == NULL)
		return -1;
	nsyms = ssh.sh_size / ssh.sh_entsize;
	for (i = 1; i < nsyms; i++) {
		GElf_Versym vs = 0;
		GElf_Sym sym;
		const char *s;
		bool hid;

		if (gelf_getsym(sdata, (int)i, &sym) == NULL || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value == 0 || sym.st_name == 0 ||
		    (GELF_ST_BIND(sym.st_info) != STB_GLOBAL &&
		     GELF_ST_BIND(sym.st_info) != STB_WEAK) ||
		    (s = elf_strptr(elf, ssh.sh_link, sym.st_name)) == NULL)
			continue;
		if (vdata != NULL)
			gelf_getversym(vdata, (int)i, &vs);
		hid = (vs & 0x8000) != 0;
		for (k = 0; k < n && k < RB_ELF_NAMES_MAX; k++) {
			if (strcmp(s, names[k]) != 0 || (value[k] != 0 && (hid || !hidden[k])))
				continue;
			value[k] = sym.st_value;
			type[k] = GELF_ST_TYPE(sym.st_info);
			hidden[k] = hid;
		}
	}
	return 0;
}

/*
 * rb_elf_first_vaddr - the address of the loadable segment that maps
 * file offset 0 (the object's load bias is where that is mapped, less
 * it).  Return: 0, or -1 if none does.
 */
int rb_elf_first_vaddr(Elf *elf, uint64_t *vaddr)
{
	uint64_t vmin = UINT64_MAX;
	GElf_Phdr ph;
	size_t i, nph;

	if (elf_getphdrnum(elf, &nph) != 0)
		return -1;
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD &&
		    (ph.p_offset & ~(uint64_t)0xfff) == 0 && ph.p_vaddr < vmin)
			vmin = ph.p_vaddr;
	if (vmin == UINT64_MAX)
		return -1;
	*vaddr = vmin;
	return 0;
}
