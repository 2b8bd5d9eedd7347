/* SPDX-License-Identifier: MIT */
/* rbmon linehist: the lines typed at each kind of prompt, kept across runs. */
#ifndef RBMON_LINEHIST_H
#define RBMON_LINEHIST_H

#include <stddef.h>

#include "monitor/screen/edit.h"

#define RBMON_HIST_MAX		100		/* lines kept, per kind */
#define RBMON_HIST_KIND_MAX	16		/* "search", "filter", ... */
#define RBMON_HIST_READ_MAX	(64 * 1024)	/* bytes read from the file */

/* One kind's lines, oldest first: none empty, no two consecutive equal. */
struct rbmon_hist {
	char	 kind[RBMON_HIST_KIND_MAX];
	char	*path;		/* its file; NULL: kept in memory only */
	char	*line[RBMON_HIST_MAX];
	size_t	 n;
	int	 save_failed;	/* a failure to save has been reported */
};

int	rbmon_hist_load(struct rbmon_hist *, const char *, char **);
int	rbmon_hist_add(struct rbmon_hist *, const char *, char **);
void	rbmon_hist_free(struct rbmon_hist *);

#endif /* RBMON_LINEHIST_H */
