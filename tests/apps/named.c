/*
 * named.c - an interpreter-like program, not instrumented, linked with
 * -lrbtrace: it shows its own frames through the explicit API.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rbtrace/rbtrace.h"

int main(void)
{
	const char *path = getenv("RBT_READY"), *file;
	char line[4200];
	int fds[2], fd, n;
	char c;

	if (pipe(fds) < 0)
		return 2;
	if (rbtrace_push("interp_eval", "script.py", 10) != 1 ||
	    rbtrace_push("handler", "lib/util.py", 3) != 2 ||
	    rbtrace_push("popped", "x.py", 1) != 3 || rbtrace_pop() != 2)
		return 3;
	rbtrace_line(5);
	file = rbtrace_file();
	n = snprintf(line, sizeof(line), "named %s\n", file ? file : "(none)");
	fd = path ? open(path, O_WRONLY | O_APPEND | O_CREAT, 0600) : -1;
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) != n)
			return 4;
		close(fd);
	}
	while (read(fds[0], &c, 1) < 0)
		;
	return 0;
}
