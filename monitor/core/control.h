/* SPDX-License-Identifier: MIT */
/* rbmon control: the monitor's half of the command handshake and the flags. */
#ifndef RBMON_CONTROL_H
#define RBMON_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/core/model.h"

#define RBMON_CTL_MORE_MAX	4096	/* continuation rounds per response */
#define RBMON_CTL_TEXT_MAX	(16u << 20)	/* longest response kept */
#define RBMON_CTL_RECLAIM_NS	(2 * 1000000000ull)	/* a stuck area's wait */

/* A writable mapping of a model's file. */
struct rbmon_ctl {
	struct rbmon_model *m;
	void		*base;
	size_t		 size;
	int		 busy;		/* the last post found the area busy */
	/* A command area seen busy, unchanged since: see ctl_reclaim(). */
	uint32_t	 stuck_ring;
	uint64_t	 stuck_gen;
	int32_t		 stuck_state, stuck_pid;
	uint32_t	 stuck_wake;
	uint64_t	 stuck_since;	/* 0: none */
};

/* One command to one thread, from posting to its whole response. */
struct rbmon_cmd {
	uint32_t	 ring;
	uint64_t	 gen;
	int32_t		 pid, tid;
	char		 cmd[5];
	char		*args;
	int		 posted;	/* waiting for the thread */
	int		 done;
	int		 ok;		/* the response was OK, not ERR */
	char		*text;		/* the response, NUL-terminated */
	size_t		 len, want;	/* bytes received, full length */
	int		 rounds;	/* MORE continuations */
	uint64_t	 posted_ns;
};

int	rbmon_ctl_open(struct rbmon_ctl *, struct rbmon_model *, char **);
void	rbmon_ctl_close(struct rbmon_ctl *);
void	rbmon_ctl_heartbeat(struct rbmon_ctl *);
int	rbmon_ctl_target(struct rbmon_ctl *, int32_t, struct rbmon_cmd *,
	    char **);
int	rbmon_ctl_process(struct rbmon_ctl *, const struct rbmon_cmd *,
	    uint64_t *, uint64_t *, char **);
int	rbmon_ctl_post(struct rbmon_ctl *, struct rbmon_cmd *, const char *,
	    const char *, char **);
int	rbmon_ctl_post_wait(struct rbmon_ctl *, struct rbmon_cmd *,
	    const char *, const char *, uint64_t, char **);
int	rbmon_ctl_poll(struct rbmon_ctl *, struct rbmon_cmd *, char **);
int	rbmon_ctl_withdraw(struct rbmon_ctl *, struct rbmon_cmd *);
int	rbmon_ctl_wait(struct rbmon_ctl *, struct rbmon_cmd *, uint64_t,
	    char **);
void	rbmon_cmd_free(struct rbmon_cmd *);
int	rbmon_ctl_set_flag(struct rbmon_ctl *, const char *, int, char **);
int	rbmon_ctl_set_min_duration(struct rbmon_ctl *, uint64_t, char **);
int	rbmon_ctl_signal(struct rbmon_ctl *, const struct rbmon_cmd *, char **);
/* A watch's value as a thread gave it. */
struct rbmon_wval {
	int		 error;		/* text is an error message */
	int		 truncated;	/* longer than the text kept */
	int32_t		 reslength;
	char		*text;		/* NUL-terminated */
};

int	rbmon_ctl_watch_add(struct rbmon_ctl *, const struct rbmon_cmd *,
	    const char *, int *, char **);
int	rbmon_ctl_watch_ask(struct rbmon_ctl *, const struct rbmon_cmd *, int);
int	rbmon_ctl_watch_read(struct rbmon_ctl *, const struct rbmon_cmd *, int,
	    struct rbmon_wval *, char **);
int	rbmon_ctl_watch_remove(struct rbmon_ctl *, const struct rbmon_cmd *,
	    int);
int	rbmon_ctl_watch_inuse(struct rbmon_ctl *, const struct rbmon_cmd *,
	    int);
void	rbmon_wval_free(struct rbmon_wval *);
int	rbmon_ctl_parse(const char *, char *, char **, char **);

#endif /* RBMON_CONTROL_H */
