/* SPDX-License-Identifier: MIT */
/* rbmon export: a recording in a format other tools read. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/cmd/cmd.h"
#include "common/outfile.h"
#include "monitor/core/dump.h"
#include "monitor/core/safeio.h"
#include "monitor/history/calls.h"
#include "monitor/history/export.h"
#include "monitor/history/perfetto.h"
#include "monitor/core/model.h"
#include "monitor/history/readback.h"
#include "monitor/history/walk.h"
#include "monitor/util/escape.h"
#include "monitor/util/opts.h"
#include "monitor/util/util.h"

static void
export_usage(FILE *f)
{
	fputs("Usage: rbmon export FORMAT [OPTIONS] RECORDING\n"
	    "Write a recording in a format other tools read, to standard "
	    "output.\n"
	    "\n"
	    "  --chrome            Chrome Trace Event JSON: Perfetto UI, "
	    "chrome://tracing,\n"
	    "                      speedscope (complete events, in us, per "
	    "thread); fine up\n"
	    "                      to about a hundred MB\n"
	    "  --perfetto          Perfetto's protobuf trace (TrackEvent "
	    "slices, names\n"
	    "                      interned): Perfetto UI, trace_processor; "
	    "for larger\n"
	    "                      traces (binary: give -o FILE or redirect)\n"
	    "  --folded            folded stacks: flamegraph.pl, inferno, "
	    "speedscope\n"
	    "                      (\"program (pid);thread (tid);outer;...;inner "
	    "NS\", NS the\n"
	    "                      nanoseconds spent in inner itself)\n"
	    "  -D, --depth N       --folded: frames a stack keeps (default "
	    "128); deeper\n"
	    "                      ones go under one \"[folded: ...]\" frame; "
	    "the others:\n"
	    "                      the filter (below)\n"
	    "  --speedscope        speedscope's JSON: one evented profile per "
	    "thread\n"
	    "  -o, --output FILE   write to FILE instead\n"
	    "  -h, --help          show this help\n"
	    "\n"
	    "An export over 256 MiB (RBMON_EXPORT_WARN) is said on standard "
	    "error first,\nwith its size.\n", f);
	rbmon_filter_usage(f, 1);
}

int
rbmon_cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "chrome", no_argument, NULL, 'c' },
		{ "folded", no_argument, NULL, 'f' },
		{ "speedscope", no_argument, NULL, 's' },
		{ "perfetto", no_argument, NULL, 'p' },
		RBMON_FILTER_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rbexp_export	 e;
	struct rbmon_tids	 tids = { NULL, 0 };
	struct rbmon_filter	 fl;
	struct rbwalk_ctx	 x;
	struct rb_outfile	 of;
	const char		*output = NULL;
	char			*cause = NULL;
	size_t			 depth = 0;
	int			 ch, format = 0, status = 0;

	memset(&fl, 0, sizeof fl);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":" RBMON_FILTER_SHORTOPTS "o:h",
	    opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
		case 'f':
		case 's':
		case 'p':
			if (format != 0 && format != ch)
				rbmon_cmd_usage("export", "give one format");
			format = ch;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			export_usage(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("export", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			if (rbmon_filter_option("export", ch, argv, optarg,
			    &tids, &fl))
				break;
			rbmon_cmd_usage("export", "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (format == 0)
		rbmon_cmd_usage("export", "no format given (--chrome, --perfetto, "
		    "--folded or --speedscope)");
	if (optind + 1 != argc)
		rbmon_cmd_usage("export", optind == argc ? "no recording given" :
		    "too many arguments");
	/* --folded folds what is deeper than -D, its time kept. */
	if (format == 'f') {
		depth = fl.depth;
		fl.depth = 0;
	}
	if (format == 'p' && output == NULL && isatty(STDOUT_FILENO))
		rbmon_cmd_usage("export", "--perfetto writes binary data, not for a "
		    "terminal: give -o FILE or redirect standard output");
	memset(&e, 0, sizeof e);
	e.x = &x;
	e.out = stdout;
	e.depth = depth != 0 ? depth : RBEXP_FOLDED_DEPTH;
	/*
	 * Created as the user, before rbwalk_open() reads as the file's
	 * owner.
	 */
	if (output != NULL &&
	    (e.out = rbmon_safeio_output(&of, output, &cause)) == NULL) {
		rbmon_esc_line(stderr, "rbmon export: cannot write %s: %s",
		    output, cause);
		free(cause);
		free(tids.v);
		rbmon_filter_free(&fl);
		return 1;
	}
	if (rbread_open_or_say(&x, "export", argv[optind], "an export") != 0) {
		if (output != NULL)
			rbmon_safeio_output_done(&of, e.out, 0, NULL);
		free(tids.v);
		rbmon_filter_free(&fl);
		return 1;
	}
	x.filter = &fl;
	rbexp_size_say("export", &x, &tids, format);
	if (format == 'c')
		rbexp_chrome(&e, &tids);
	else if (format == 'p')
		rbmon_perfetto_write(&x, e.out, tids.v, tids.n);
	else if (format == 'f')
		rbexp_folded(&e, &tids);
	else
		rbexp_speedscope(&e, &tids);
	rbmon_filter_unmatched("export", &fl);
	if (output == NULL && (fflush(e.out) != 0 || ferror(e.out))) {
		rbmon_esc_line(stderr, "rbmon export: standard output: %s",
		    strerror(errno));
		status = 1;
	}
	if (e.folded)
		rbmon_esc_line(stderr, "rbmon export: %s: stacks deeper than "
		    "%zu frames: their deeper frames are folded under \"[folded: "
		    "frames deeper than %zu]\" (-D to keep more)", argv[optind],
		    e.depth, e.depth);
	if (output != NULL &&
	    rbmon_safeio_output_done(&of, e.out, 1, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon export: cannot write %s: %s",
		    output, cause);
		free(cause);
		status = 1;
	}
	rbread_lost_say(&x, "export", "per thread in its name");
	rbread_dyn_say(&x, "export");
	free(e.nodes);
	rbwalk_map_free(&e.kids);
	free(tids.v);
	rbmon_filter_free(&fl);
	return rbread_done(&x, status == 0);
}

