/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - creating the files rbmon and rbtrace write (recordings,
 * exports, profiles, saved stacks, the prompt history, a program's output)
 * without following what another user planted at their names.
 */
#ifndef RB_COMMON_OUTFILE_H
#define RB_COMMON_OUTFILE_H

#include <limits.h>
#include <sys/types.h>

#include "common/defs.h"

/* rb_outfile_open() flags */
#define RB_OUTFILE_REPLACE	0x1	/* the user named it: a regular file
					   of theirs there may be replaced */
#define RB_OUTFILE_NOW		0x2	/* it has its name while it is written
					   (else from rb_outfile_commit()) */

struct rb_outfile {
	int	 fd;		/* the file, opened for writing; the caller's */
	int	 flags;		/* RB_OUTFILE_* */
	int	 taken;		/* refused: something is at the name */
	int	 mine;		/* and RB_OUTFILE_REPLACE would replace it */
	char	 path[PATH_MAX];	/* the name asked for */
	char	 tmp[PATH_MAX];	/* the file's name until committed, or "" */
	dev_t	 dev;		/* and the file it names */
	ino_t	 ino;
	char	 why[160];	/* on failure: what is wrong, without the path */
};

RB_HIDDEN int rb_outfile_open(struct rb_outfile *o, const char *path,
			      int flags, mode_t mode);
RB_HIDDEN int rb_outfile_commit(struct rb_outfile *o);
RB_HIDDEN void rb_outfile_discard(struct rb_outfile *o);

#endif /* RB_COMMON_OUTFILE_H */
