/* SPDX-License-Identifier: MIT */
/* proc.c - process identity (pid plus start time) and liveness. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/procstat.h"
#include "internal.h"

pid_t rb_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The state and start time (field 22) of /proc/PID/stat; 0 on failure. */
static uint64_t rb_proc_stat(pid_t pid, char *state)
{
	struct rb_procstat st;

	if (rb_procstat_read(pid, 0, &st) != 0)
		return 0;
	if (state)
		*state = st.state;
	return st.starttime;
}

uint64_t rb_proc_start_time(pid_t pid)
{
	return rb_proc_stat(pid, NULL);
}

/**
 * rb_proc_alive_pid - is a process with @pid running (any start time)?
 */
bool rb_proc_alive_pid(pid_t pid)
{
	char state = '?';

	return rb_proc_stat(pid, &state) != 0 && state != 'Z' && state != 'X';
}

/**
 * rb_proc_alive - is the process that had @pid and started at @pstart running?
 *
 * A zombie counts as gone; a different start time means the pid was reused.
 */
bool rb_proc_alive(pid_t pid, uint64_t pstart)
{
	int saved = errno;
	char state = '?';
	uint64_t start;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH)) {
		errno = saved;
		return false;
	}
	errno = saved;
	start = rb_proc_stat(pid, &state);
	if (start == 0 || state == 'Z' || state == 'X')
		return false;
	return start == pstart;
}
