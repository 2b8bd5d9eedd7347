/* proc.c - process identity (pid plus start time) and liveness. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

pid_t rb_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Field 3 (state) and 22 (starttime) of /proc/PID/stat; 0 on failure. */
static uint64_t rb_proc_stat(pid_t pid, char *state)
{
	char path[64], buf[1024], *p;
	uint64_t start = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the comm may hold spaces and parentheses */
	if (p == NULL || p[1] != ' ')
		return 0;
	p += 2;
	if (state)
		*state = *p;
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p == NULL)
		return 0;
	while (*p >= '0' && *p <= '9')
		start = start * 10 + (uint64_t)(*p++ - '0');
	return start;
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
