/* SPDX-License-Identifier: MIT */
/* rbmon dump: the text and JSON renderings of a snapshot. */
#ifndef RBMON_DUMP_H
#define RBMON_DUMP_H

#include <stdio.h>

#include "monitor/core/model.h"
#include "monitor/core/symbols.h"

/* A frame as it is shown: resolved, located and aged. */
struct rbmon_shown {
	int		 torn;
	int		 named;
	int		 before_attach;	/* stands for the frames entered before an attach */
	int		 seeded;	/* entered before an attach, found by unwinding */
	int		 inlined;	/* inlined into the next frame out */
	const char	*function;	/* NULL: unknown */
	const char	*file;		/* NULL: unknown */
	int		 line;		/* 0: unknown */
	int		 have_age;
	uint64_t	 age_ns;
	int		 have_seen;	/* no clock: how long rbmon saw it */
	uint64_t	 seen_ns;
	uint64_t	 address;	/* 0 for named and torn frames */
};

void	rbmon_dump_resolve(struct rbmon_symbols *, const struct rbmon_snapshot *,
	    const struct rbmon_process *, const struct rbmon_thread *, size_t,
	    const struct rbmon_clock *, struct rbmon_shown *);
const char *rbmon_dump_state(const struct rbmon_process *,
	    const struct rbmon_thread *);
const char *rbmon_dump_kstate(char);
void	rbmon_json_string(FILE *, const char *);
void	rbmon_dump_text(FILE *, const struct rbmon_model *,
	    const struct rbmon_snapshot *, struct rbmon_symbols *,
	    const struct rbmon_clock *);
void	rbmon_dump_json(FILE *, const struct rbmon_model *,
	    const struct rbmon_snapshot *, struct rbmon_symbols *,
	    const struct rbmon_clock *);

#endif /* RBMON_DUMP_H */
