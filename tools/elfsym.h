/* SPDX-License-Identifier: MIT */
/* elfsym.h - an ELF object's symbols: imports, definitions, hook calls. */
#ifndef RBTRACE_ELFSYM_H
#define RBTRACE_ELFSYM_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many names for one rb_elf_defined(). */
#define RB_ELF_NAMES_MAX	16

/* Called with each symbol an object imports (undefined in .dynsym). */
typedef void (*rb_elf_import_fn)(const char *name, void *arg);
/* Called with each named symbol of a table, and its name. */
typedef void (*rb_elf_sym_fn)(const GElf_Sym *sym, const char *name, void *arg);

Elf	*rb_elf_begin(int fd, int machine);
int	rb_elf_open(const char *path, int machine, Elf **elfp);
void	rb_elf_close(int fd, Elf *elf);
bool	rb_elf_is_hook(const char *name);
bool	rb_elf_calls_hooks(Elf *elf);
bool	rb_elf_file_calls_hooks(const char *path);
int	rb_elf_walk(Elf *elf, unsigned type, rb_elf_sym_fn fn, void *arg);
int	rb_elf_imports(Elf *elf, rb_elf_import_fn fn, void *arg);
int	rb_elf_defined(Elf *elf, const char *const *names, uint64_t *value,
	    int *type, int n);
int	rb_elf_first_vaddr(Elf *elf, uint64_t *vaddr);

#endif
