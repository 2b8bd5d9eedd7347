/* rbmon replay, report and export: a recording read back. */
#ifndef RBMON_REPLAY_H
#define RBMON_REPLAY_H

#include <stddef.h>

struct rbrec_rec;

int	rbmon_subcommand(int, char **);
int	rp_mark_name(char *, size_t, const struct rbrec_rec *);

#endif /* RBMON_REPLAY_H */
