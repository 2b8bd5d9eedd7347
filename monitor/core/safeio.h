/* SPDX-License-Identifier: MIT */
/*
 * rbmon safeio: opening what a trace file or a recording names, creating
 * what rbmon writes, and whose rights apply.
 */
#ifndef RBMON_SAFEIO_H
#define RBMON_SAFEIO_H

#include <stdio.h>
#include <sys/types.h>

struct rb_outfile;
struct rbmon_model;

int	rbmon_safeio_open(const char *, const char **);
int	rbmon_safeio_become_owner(int, char **);
int	rbmon_safeio_become_user(uid_t, gid_t, char **);
void	rbmon_safeio_become_self(void);
FILE	*rbmon_safeio_output(struct rb_outfile *, const char *, char **);
int	rbmon_safeio_output_done(struct rb_outfile *, FILE *, int, char **);
int	rbmon_safeio_shared_write(int);
int	rbmon_safeio_open_trace(struct rbmon_model *, const char *, char **);

#endif /* RBMON_SAFEIO_H */
