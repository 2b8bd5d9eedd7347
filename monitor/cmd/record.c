/* SPDX-License-Identifier: MIT */
/*
 * rbmon record (rbmon --record): every thread's event log drained into a
 * recording until the program ends or rbmon is interrupted.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/discover.h"
#include "monitor/core/model.h"
#include "monitor/history/record.h"
#include "monitor/util/opts.h"
#include "monitor/util/util.h"

/* --record: the recording's default name is the trace file's, here. */
static int
record_run(const char *file, const char *output, uint32_t block_ms)
{
	struct rbmon_record_opts	 o;
	char				*dflt = NULL;
	const char			*base = rbmon_basename(file);
	size_t				 n = strlen(base);
	int				 status;

	if (output == NULL) {
		if (n > 6 && strcmp(base + n - 6, ".trace") == 0)
			n -= 6;
		rbmon_xasprintf(&dflt, "%.*s.rbr", (int)n, base);
		output = dflt;
	}
	memset(&o, 0, sizeof o);
	o.trace = file;
	o.replace = dflt == NULL;
	o.out = output;
	o.wait_ms = RBMON_READY_WAIT_MS;
	o.block_ms = block_ms;
	status = rbmon_record(&o);
	free(dflt);
	return status;
}

static void
record_usage(FILE *f)
{
	fputs("Usage: rbmon record [OPTIONS] FILE\n"
	    "       rbmon record [OPTIONS] -p PID\n"
	    "Record every thread's event log into a recording until the "
	    "program ends or\nrbmon is interrupted (rbmon --record; read it "
	    "with rbmon replay).\n"
	    "\n"
	    "  -o, --output OUT     the recording (default PROGRAM.PID.rbr "
	    "here, after the\n"
	    "                       trace file's name)\n"
	    "  -p, --pid PID        use the trace file PID writes to\n"
	    "      --blocking[=TIME]\n"
	    "                       lossless: a thread whose log is full waits "
	    "for the\n"
	    "                       recorder, at most TIME (1ms to 1h, default "
	    "1s) per wait,\n"
	    "                       instead of dropping; never for a recorder "
	    "that is gone\n"
	    "  -h, --help           show this help\n", f);
}

/** rbmon_cmd_record - `rbmon record [-o OUT] FILE`, or --record */
int
rbmon_cmd_record(int argc, char **argv)
{
	struct rbmon_opts	 o;
	const char		*file;
	char			*found;
	int			 status;

	rbmon_opts_parse(&o, "record", argc, argv);
	if (rbmon_opts_answered(&o, record_usage))
		return 0;
	if ((file = rbmon_discover_file(o.file, o.pid, &found)) == NULL)
		status = 1;
	else
		status = record_run(file, o.output, o.block_ms);
	free(found);
	rbmon_opts_free(&o);
	return status;
}
