/* SPDX-License-Identifier: MIT */
/* rbmon events (rbmon --events): each thread's event log, once. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/discover.h"
#include "monitor/core/model.h"
#include "monitor/core/safeio.h"
#include "monitor/core/symbols.h"
#include "monitor/history/events.h"
#include "monitor/util/escape.h"
#include "monitor/util/opts.h"
#include "monitor/util/util.h"

/* --events: every thread's event log, once. */
static int
events_run(const char *path, int json, long tid)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_symbols	*sy;
	struct rbmon_clock	 c;
	char			*cause = NULL;
	size_t			 i, j;
	int			 status = 0, found = tid == 0;

	if (rbmon_safeio_open_trace(&m, path, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		return 1;
	}
	if (rbmon_model_snapshot(&m, &s, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		rbmon_model_close(&m);
		return 1;
	}
	for (i = 0; i < s.nprocs && !found; i++)
		for (j = 0; j < s.procs[i].nthreads; j++)
			if (s.procs[i].threads[j].tid == tid)
				found = 1;
	if (!found) {
		rbmon_esc_line(stderr, "rbmon: %s: no thread %ld in it", path,
		    tid);
		status = 1;
	} else {
		rbmon_clock_init(&c, &m.hdr);
		sy = rbmon_symbols_new(stderr);
		if (json)
			rbmon_events_json(stdout, &m, &s, sy, &c, tid);
		else
			rbmon_events_text(stdout, &m, &s, sy, &c, tid);
		rbmon_symbols_free(sy);
	}
	rbmon_model_free(&s);
	rbmon_model_close(&m);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rbmon: write error: %s\n", strerror(errno));
		status = 1;
	}
	return status;
}

static void
events_usage(FILE *f)
{
	fputs("Usage: rbmon events [OPTIONS] FILE\n"
	    "       rbmon events [OPTIONS] -p PID\n"
	    "Print each thread's event log (its recent calls) as a function "
	    "graph with\ndurations (rbmon --events).\n"
	    "\n"
	    "      --json           the records, as JSON\n"
	    "  -t, --thread TID     only this thread's\n"
	    "  -p, --pid PID        use the trace file PID writes to\n"
	    "  -h, --help           show this help\n", f);
}

/** rbmon_cmd_events - `rbmon events [--json] [-t TID] FILE`, or --events */
int
rbmon_cmd_events(int argc, char **argv)
{
	struct rbmon_opts	 o;
	const char		*file;
	char			*found;
	int			 status;

	rbmon_opts_parse(&o, "events", argc, argv);
	if (rbmon_opts_answered(&o, events_usage))
		return 0;
	if ((file = rbmon_discover_file(o.file, o.pid, &found)) == NULL)
		status = 1;
	else
		status = events_run(file, o.json, o.tid);
	free(found);
	rbmon_opts_free(&o);
	return status;
}
