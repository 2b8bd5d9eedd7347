/* SPDX-License-Identifier: MIT */
/*
 * names.h - the functions a user's patterns name in this process, by the
 * symbol tables of its objects' files (rbtrace(5), "DYNAMIC TRACING"),
 * and the name of a function's address.  Called at start-up or from the
 * library's worker thread, never from a hook: they allocate, open files
 * and take the loader's lock.
 */
#ifndef RB_DYN_NAMES_H
#define RB_DYN_NAMES_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

/*
 * rb_names_match()'s callback: a function (its runtime entry address, as
 * the hooks receive it in this_fn, and its demangled name) that a pattern
 * names.  Its name is the symbol's bytes: escape it before it reaches a
 * terminal.  Return 0 to go on, anything else to stop.
 */
typedef int	rb_names_cb(uint64_t addr, const char *name, void *arg);

int	rb_names_match(const char *patterns, rb_names_cb *cb, void *arg,
	    char *err, size_t errlen);
int	rb_names_match_hits(const char *patterns, rb_names_cb *cb, void *arg,
	    uint8_t *hit, size_t nhit, char *err, size_t errlen);
int	rb_names_of(uint64_t addr, char *out, size_t size);

/* An ELF file's symbol table, as rb_names_symtab() found it in its image. */
struct rb_names_symtab {
	const Elf64_Sym	*sym;
	size_t		 nsym;
	const char	*str;		/* the string table */
	size_t		 strsz;
};

int		 rb_names_symtab(const void *img, size_t size,
		    struct rb_names_symtab *st);
const char	*rb_names_symname(const struct rb_names_symtab *st,
		    const Elf64_Sym *sym);

#endif /* RB_DYN_NAMES_H */
