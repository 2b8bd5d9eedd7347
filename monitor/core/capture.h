/* SPDX-License-Identifier: MIT */
/* rbmon captures of slow calls: the armed table and the captures, read and written. */
#ifndef RBMON_CAPTURE_H
#define RBMON_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/core/control.h"
#include "monitor/core/model.h"

/* The file's captures and armed entries, copied whole and checked. */
struct rbmon_caps {
	struct rb_capture	*v;	/* by time of return */
	size_t			 n;
	struct rb_capfn		*fns;	/* the entries in force */
	uint32_t		*fnidx;	/* their index in the table */
	size_t			 nfns;
	size_t			 torn;	/* slots being written, or kept
					   changing while read */
	uint64_t		 lost;	/* rb_header.cap_lost */
};

int	rbmon_caps_read(struct rbmon_model *, struct rbmon_caps *, char **);
void	rbmon_caps_free(struct rbmon_caps *);
size_t	rbmon_caps_count(const struct rbmon_model *, int32_t, uint64_t);
size_t	rbmon_caps_of(const struct rbmon_caps *, int32_t, uint64_t);
int	rbmon_cap_parse(const char *, char *, size_t, uint64_t *, uint32_t *);
void	rbmon_cap_duration(char *, size_t, uint64_t);
void	rbmon_cap_filter_want(struct rbmon_ctl *, uint64_t *);

/*
 * CAPT, CCLR, CLST for one process image, run by breakpoint.c with what
 * it has: the image, a resolver of names (its symbols), and the filter's
 * exact pass, which it does for both tables.
 */
struct rbmon_cap_scope {
	int32_t		 pid;
	uint64_t	 pstart, image;
};

struct rbmon_cap_ops {
	uint64_t	*(*resolve)(void *, const char *, size_t *, char **);
	void		 (*filter_sync)(void *);
	void		*arg;
};

int	rbmon_cap_is_command(const char *);
int	rbmon_cap_run(struct rbmon_ctl *, const struct rbmon_cap_scope *,
	    const struct rbmon_cap_ops *, const char *, const char *, char **);

#endif /* RBMON_CAPTURE_H */
