/* SPDX-License-Identifier: MIT */
/*
 * app.h - what the test programs share: readiness lines and waiting.
 *
 * A test waits for a line in the file named by $RBT_READY; a program
 * appends one (with a single write) once it reached the state under test.
 */
#ifndef RBT_APP_H
#define RBT_APP_H

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOTRACE		__attribute__((no_instrument_function))

NOTRACE __attribute__((format(printf, 1, 2), unused))
static void app_ready(const char *fmt, ...)
{
	const char *path = getenv("RBT_READY");
	char buf[4200];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (path == NULL || n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
	if (fd >= 0) {
		if (write(fd, buf, (size_t)n) != n)
			perror("app: ready");
		close(fd);
	}
}

/* Block until SIGTERM, SIGINT or @also (0: none), all blocked beforehand; return which. */
NOTRACE __attribute__((unused)) static int app_wait(int also)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (also != 0)
		sigaddset(&set, also);
	sigwait(&set, &sig);
	return sig;
}

#endif
