/* SPDX-License-Identifier: MIT */
/* rbmon safeio: opening what a trace file names, and whose rights apply. */
#ifndef RBMON_SAFEIO_H
#define RBMON_SAFEIO_H

int	rbmon_safeio_open(const char *, const char **);
int	rbmon_safeio_become_owner(int, char **);
int	rbmon_safeio_shared_write(int);

#endif /* RBMON_SAFEIO_H */
