/* SPDX-License-Identifier: MIT */
/*
 * rbmon's commands, one file each in monitor/cmd/, run by rbmon.c from its
 * table: each takes its own argv (argv[0] is the command's name) and
 * returns the exit status.  A command includes only this header and the
 * rooms below it (util, core, history, screen), never another command.
 */
#ifndef RBMON_CMD_H
#define RBMON_CMD_H

int	rbmon_cmd_live(int, char **);
int	rbmon_cmd_dump(int, char **);
int	rbmon_cmd_events(int, char **);
int	rbmon_cmd_send(int, char **);
int	rbmon_cmd_record(int, char **);
int	rbmon_cmd_replay(int, char **);
int	rbmon_cmd_report(int, char **);
int	rbmon_cmd_hot(int, char **);
int	rbmon_cmd_latency(int, char **);
int	rbmon_cmd_export(int, char **);
int	rbmon_cmd_profile(int, char **);
int	rbmon_cmd_list(int, char **);
int	rbmon_cmd_prune(int, char **);
int	rbmon_cmd_snapshot(int, char **);
int	rbmon_cmd_captures(int, char **);

#endif /* RBMON_CMD_H */
