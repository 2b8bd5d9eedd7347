/* SPDX-License-Identifier: MIT */
/* progcheck.h - can LD_PRELOAD trace this program?  A look at its ELF first. */
#ifndef RBTRACE_PROGCHECK_H
#define RBTRACE_PROGCHECK_H

#include <stdbool.h>
#include <stddef.h>

/* What running it with librbtrace preloaded will do. */
enum progcheck_verdict {
	PROGCHECK_TRACED,	/* something it links calls the hooks */
	PROGCHECK_UNKNOWN,	/* cannot tell (not found, a script, a library missing) */
	PROGCHECK_LATER,	/* nothing it links does; code it loads or runs may */
	PROGCHECK_NEVER,	/* it runs untraced */
};

struct progcheck {
	int	verdict;	/* PROGCHECK_* */
	char	line[1024];	/* what to tell the user ("rbtrace: ..."), or "";
				   a warning when the verdict is NEVER */
};

/*
 * progcheck_run - look at @prog (found through PATH as execvp() would)
 * and, with @preload (LD_PRELOAD's value before librbtrace is added, or
 * NULL), the libraries the loader would load with it.
 */
void progcheck_run(const char *prog, const char *preload, struct progcheck *pc);

/*
 * progcheck_resolve - the file execvp() would run for @prog, through PATH
 * when @prog has no slash, in @out; false when there is none.
 */
bool progcheck_resolve(const char *prog, char *out, size_t size);

#endif
