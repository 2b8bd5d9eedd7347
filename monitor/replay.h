/* rbmon replay, report and export: a recording read back. */
#ifndef RBMON_REPLAY_H
#define RBMON_REPLAY_H

int	rbmon_subcommand(int, char **);

#endif /* RBMON_REPLAY_H */
