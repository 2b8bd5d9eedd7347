/* SPDX-License-Identifier: MIT */
/* debugfile: an object's separate debug file, found and checked once. */
#ifndef RB_COMMON_DEBUGFILE_H
#define RB_COMMON_DEBUGFILE_H

#include <elfutils/libdwfl.h>

/*
 * How a candidate file is opened: read-only, close-on-exec, never blocking
 * on a FIFO, and only a regular file kept.  Return: the descriptor, or -1.
 */
typedef int (*rb_debugfile_open_fn)(const char *);

int	rb_debugfile_find(Dwfl_Module *, void **, const char *, Dwarf_Addr,
	    const char *, const char *, GElf_Word, char **,
	    rb_debugfile_open_fn);
int	rb_debugfile_open(const char *);

#endif /* RB_COMMON_DEBUGFILE_H */
