/* SPDX-License-Identifier: MIT */
/*
 * plugin.c - an instrumented shared object loaded with dlopen() by
 * dlopener: its frames must be named live and after the process is killed.
 */
#include <unistd.h>

#include "app.h"

int plugin_run(int fd);

static void plugin_wait(int fd)	/* LINE:plugin_wait_def */
{
	char c;

	app_ready("plugin");
	while (read(fd, &c, 1) < 0)
		;
}

int plugin_run(int fd)
{
	plugin_wait(fd);	/* LINE:call_plugin_wait */
	return 0;
}
