/* SPDX-License-Identifier: MIT */
/* rbmon profile: samples of the live stacks, on CPU and off. */
#ifndef RBMON_PROFILE_H
#define RBMON_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/core/model.h"
#include "monitor/util/util.h"
#include "monitor/core/symbols.h"

/* rbmon_prof.keep */
#define RBMON_PROF_ALL		0
#define RBMON_PROF_ON_CPU	1	/* the kernel said R */
#define RBMON_PROF_OFF_CPU	2	/* anything else */

/* One distinct stack of one thread, and how often it was seen. */
struct rbmon_prof_stack {
	int32_t		 pid, tid;
	int		 on_cpu;
	char		*program;	/* basename of its image's executable */
	char		*thread;	/* its name when first seen */
	char		*off;		/* off CPU: what in ("futex", "stopped") */
	size_t		 n;		/* names, outermost first */
	char		**names;	/* functions; "[N frames lost]", "[torn]" */
	char		**files;	/* where each name is, or NULL */
	uint64_t	 count;
	/* the raw key it was found by */
	unsigned char	*key;
	size_t		 keylen;
	uint64_t	 hash;
};

struct rbmon_prof {
	struct rbmon_prof_stack **v;
	size_t		 n, cap;
	uint32_t	*slots;		/* open addressing: index + 1, 0 free */
	size_t		 nslots;
	int		 keep;		/* RBMON_PROF_* */
	struct rbmon_tids tids;		/* only these threads, if any */
	uint64_t	 passes;	/* rbmon_prof_take() calls */
	uint64_t	 samples, on_cpu;	/* thread samples kept */
	unsigned char	*kbuf;		/* key scratch */
	size_t		 klen, kcap;
};

void	rbmon_prof_init(struct rbmon_prof *);
void	rbmon_prof_free(struct rbmon_prof *);
void	rbmon_prof_reset(struct rbmon_prof *);
size_t	rbmon_prof_take(struct rbmon_prof *, const struct rbmon_model *,
	    struct rbmon_symbols *, struct rbmon_snapshot *);
void	rbmon_prof_folded_name(FILE *, const char *);

void	rbmon_prof_write(FILE *, struct rbmon_prof *);
int	rbmon_prof_threads(const struct rbmon_prof *);

#endif /* RBMON_PROFILE_H */
