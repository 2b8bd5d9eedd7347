/* SPDX-License-Identifier: MIT */
/* rbmon symbols: addresses to function, file and line through libdwfl. */
#ifndef RBMON_SYMBOLS_H
#define RBMON_SYMBOLS_H

#include <stdint.h>
#include <stdio.h>

#include "monitor/core/model.h"

struct rbmon_symbols;

/* What one address resolves to; strings belong to the cache. */
struct rbmon_sym {
	const char	*function;	/* demangled, NULL if unknown */
	const char	*file;		/* basename, NULL if unknown */
	int		 line;		/* 0 if unknown */
	uint64_t	 origin;	/* which function (DWARF), 0 if unknown */
};

/* One function of a call site's inline chain; strings belong to the cache. */
struct rbmon_inline {
	const char	*function;	/* demangled, NULL if unknown */
	const char	*file;		/* basename, NULL if unknown */
	int		 line;		/* 0 if unknown */
	uint64_t	 origin;	/* as rbmon_sym's */
};

struct rbmon_symbols *rbmon_symbols_new(FILE *);
void	rbmon_symbols_free(struct rbmon_symbols *);
void	rbmon_symbols_recorded(struct rbmon_symbols *);
void	rbmon_symbols_lookup(struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    uint64_t, struct rbmon_sym *);
size_t	rbmon_symbols_site(struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    uint64_t, const struct rbmon_inline **);
int	rbmon_symbols_inlined(struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    uint64_t, uint64_t, uint64_t, const char **, int *);
int	rbmon_symbols_same_object(struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    uint64_t, uint64_t);
char	*rbmon_symbols_demangle(const char *);
char	*rbmon_symbols_source(struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    uint64_t, const char *);
char *const *rbmon_symbols_functions(struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    size_t *);
char *const *rbmon_symbols_variables(struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    size_t *);
struct Dwfl;
struct Dwfl_Module;
struct Dwfl *rbmon_symbols_dwfl(struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    struct Dwfl_Module *const **, size_t *);

#endif /* RBMON_SYMBOLS_H */
