/* SPDX-License-Identifier: MIT */
/*
 * named.c - an interpreter-like program, not instrumented, linked with
 * -lrbtrace: it shows its own frames through the explicit API.
 */
#include <unistd.h>

#include "app.h"
#include "rbtrace/rbtrace.h"

int main(void)
{
	const char *file;
	int fds[2];
	char c;

	if (pipe(fds) < 0)
		return 2;
	if (rbtrace_push("interp_eval", "script.py", 10) != 1 ||
	    rbtrace_push("handler", "lib/util.py", 3) != 2 ||
	    rbtrace_push("popped", "x.py", 1) != 3 || rbtrace_pop() != 2)
		return 3;
	rbtrace_line(5);
	file = rbtrace_file();
	app_ready("named %s", file ? file : "(none)");
	while (read(fds[0], &c, 1) < 0)
		;
	return 0;
}
