/* SPDX-License-Identifier: MIT */
/*
 * rbmon live (rbmon FILE on a terminal): the full-screen live view of a
 * trace file, or of one picked from this user's.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/discover.h"
#include "monitor/core/model.h"
#include "monitor/core/safeio.h"
#include "monitor/screen/tui.h"
#include "monitor/util/escape.h"
#include "monitor/util/opts.h"
#include "monitor/util/util.h"

static int
live_run(const char *path, const struct rbmon_tui_opts *o)
{
	struct rbmon_model	 m;
	char			*cause = NULL;
	int			 status;

	if (rbmon_safeio_open_trace(&m, path, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		return 1;
	}
	status = rbmon_tui_run(&m, o);
	rbmon_model_close(&m);
	return status;
}

/* No file given on a terminal: pick one, open it, and come back on error. */
static int
live_pick(const struct rbmon_tui_opts *o)
{
	struct rbmon_model	 m;
	char			*path = NULL, *cause = NULL, *error = NULL;
	char			*last = NULL;
	int			 r;

	for (;;) {
		r = rbmon_pick_run(o, error, last, &path);
		free(error);
		free(last);
		error = last = NULL;
		if (r != 0)
			return r < 0 ? 1 : 0;
		if (rbmon_safeio_open_trace(&m, path, &cause) == 0)
			break;
		rbmon_xasprintf(&error, "%s: %s", path, cause);
		free(cause);
		cause = NULL;
		last = path;
	}
	r = rbmon_tui_run(&m, o);
	rbmon_model_close(&m);
	free(path);
	return r;
}

static void
live_usage(FILE *f)
{
	fputs("Usage: rbmon live [OPTIONS] [FILE]\n"
	    "       rbmon live [OPTIONS] -p PID\n"
	    "The full-screen live view of a trace file (F1 or ? there lists "
	    "the keys);\nwithout FILE, pick one of yours.  rbmon FILE on a "
	    "terminal is rbmon live FILE.\n"
	    "\n"
	    "  -d, --delay TENTHS   refresh interval in tenths of a second "
	    "(default 10)\n"
	    "      --hide-exited    start with exited threads hidden\n"
	    "      --no-color       draw without colour (also NO_COLOR=1)\n"
	    "      --ascii          draw lines with ASCII characters\n"
	    "  -p, --pid PID        use the trace file PID writes to\n"
	    "  -h, --help           show this help\n", f);
}

/**
 * rbmon_cmd_live - `rbmon live [FILE]`, what rbmon FILE does on a
 * terminal
 */
int
rbmon_cmd_live(int argc, char **argv)
{
	struct rbmon_tui_opts	 t;
	struct rbmon_opts	 o;
	const char		*file;
	char			*found;
	int			 status;

	rbmon_opts_parse(&o, "live", argc, argv);
	if (rbmon_opts_answered(&o, live_usage))
		return 0;
	t.delay = o.delay;
	t.color = o.color;
	t.ascii = o.ascii;
	t.hide_exited = o.hide_exited;
	if (o.file == NULL && o.pid == 0)
		status = live_pick(&t);
	else if ((file = rbmon_discover_file(o.file, o.pid, &found)) == NULL)
		status = 1;
	else {
		status = live_run(file, &t);
		free(found);
	}
	rbmon_opts_free(&o);
	return status;
}
