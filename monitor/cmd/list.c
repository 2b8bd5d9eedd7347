/* SPDX-License-Identifier: MIT */
/* rbmon list (rbmon --list): this user's trace files. */
#include "config.h"

#include <stdio.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/discover.h"
#include "monitor/util/opts.h"

static void
list_usage(FILE *f)
{
	fputs("Usage: rbmon list\n"
	    "List this user's trace files, with their programs and whether "
	    "they run\n(rbmon --list).\n"
	    "\n"
	    "  -h, --help           show this help\n", f);
}

/** rbmon_cmd_list - `rbmon list`, or --list */
int
rbmon_cmd_list(int argc, char **argv)
{
	struct rbmon_opts	o;

	rbmon_opts_parse(&o, "list", argc, argv);
	if (rbmon_opts_answered(&o, list_usage))
		return 0;
	rbmon_opts_free(&o);
	return rbmon_discover_list(stdout, stderr);
}
