/* SPDX-License-Identifier: MIT */
/* rbmon prune (rbmon --prune): remove trace files whose programs are gone. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/discover.h"
#include "monitor/util/escape.h"
#include "monitor/util/opts.h"

static void
prune_usage(FILE *f)
{
	fputs("Usage: rbmon prune [OPTIONS] [DIR...]\n"
	    "Remove this user's trace files whose programs are gone, in DIR "
	    "or where\nrbmon list looks (rbmon --prune).\n"
	    "\n"
	    "      --older-than AGE only files created AGE ago or more (a "
	    "duration: 90s, 30m,\n"
	    "                       12h, 7d)\n"
	    "      --dry-run        say what would go, remove nothing\n"
	    "  -h, --help           show this help\n", f);
}

/** rbmon_cmd_prune - `rbmon prune [--older-than AGE] [DIR...]`, or --prune */
int
rbmon_cmd_prune(int argc, char **argv)
{
	struct rbmon_opts	 o;
	struct stat		 st;
	int			 i, status;

	rbmon_opts_parse(&o, "prune", argc, argv);
	if (rbmon_opts_answered(&o, prune_usage))
		return 0;
	for (i = 0; i < o.nargs; i++) {
		if (stat(o.args[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			rbmon_esc_line(stderr, "rbmon: --prune: %s: %s",
			    o.args[i], stat(o.args[i], &st) != 0 ?
			    strerror(errno) : "not a directory");
			rbmon_opts_free(&o);
			return 2;
		}
	}
	status = rbmon_discover_prune(stdout, stderr,
	    (const char *const *)o.args, (size_t)o.nargs, o.older, o.dry);
	rbmon_opts_free(&o);
	return status;
}
