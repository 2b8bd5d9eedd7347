/* rbmon symbols: addresses to function, file and line through libdwfl. */
#ifndef RBMON_SYMBOLS_H
#define RBMON_SYMBOLS_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"

struct rbmon_symbols;

/* What one address resolves to; strings belong to the cache. */
struct rbmon_sym {
	const char	*function;	/* demangled, NULL if unknown */
	const char	*file;		/* basename, NULL if unknown */
	int		 line;		/* 0 if unknown */
};

struct rbmon_symbols *rbmon_symbols_new(FILE *);
void	rbmon_symbols_free(struct rbmon_symbols *);
void	rbmon_symbols_lookup(struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    uint64_t, struct rbmon_sym *);
char	*rbmon_symbols_demangle(const char *);
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
