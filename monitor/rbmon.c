/* SPDX-License-Identifier: MIT */
/*
 * rbmon: show the live stacks in an rbtrace trace file, and read
 * recordings back.  main() finds the command in the table and runs it;
 * each command is a file of monitor/cmd/.  The modes that were flags
 * (--dump, --json, --events, --record, --list, --prune, --send, --watch,
 * --set) still are: the options then name the command.
 */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "monitor/cmd/cmd.h"
#include "monitor/util/opts.h"

static const struct rbmon_cmdent {
	const char	*name;
	int		(*run)(int, char **);
	const char	*summary;
} rbmon_cmds[] = {
	{ "live",	rbmon_cmd_live,
	    "the live view of FILE (rbmon FILE on a terminal)" },
	{ "dump",	rbmon_cmd_dump,
	    "every process and thread of FILE with its live stack" },
	{ "events",	rbmon_cmd_events,
	    "each thread's event log as a function graph" },
	{ "send",	rbmon_cmd_send,
	    "control: --send, --watch, --set, as rbmon with them" },
	{ "record",	rbmon_cmd_record,
	    "record the event logs of FILE into a recording" },
	{ "snapshot",	rbmon_cmd_snapshot,
	    "write a recording of every thread at each snapshot trigger" },
	{ "replay",	rbmon_cmd_replay,
	    "a RECORDING's calls, threads merged in time order" },
	{ "report",	rbmon_cmd_report,
	    "a RECORDING's calls, total and self time per function" },
	{ "hot",	rbmon_cmd_hot,
	    "the most called functions, and how to stop instrumenting them" },
	{ "latency",	rbmon_cmd_latency,
	    "per function: calls, total, p50, p99, max and a histogram" },
	{ "export",	rbmon_cmd_export,
	    "a RECORDING as Chrome JSON, Perfetto, folded stacks, speedscope" },
	{ "profile",	rbmon_cmd_profile,
	    "sample the live stacks of FILE into folded stacks" },
	{ "list",	rbmon_cmd_list,
	    "list this user's trace files" },
	{ "prune",	rbmon_cmd_prune,
	    "remove this user's trace files whose programs are gone" },
	{ "captures",	rbmon_cmd_captures,
	    "the captures of slow calls: list, graphs, JSON, exports" },
};
#define RBMON_NCMDS	(sizeof rbmon_cmds / sizeof rbmon_cmds[0])

static void
rbmon_usage(FILE *f)
{
	size_t	i;

	fputs("Usage: rbmon [OPTIONS] [FILE]\n"
	    "       rbmon COMMAND [OPTIONS] [ARGS]\n"
	    "Show the live call stacks an rbtrace'd program keeps in FILE.\n"
	    "On a terminal rbmon opens a full-screen live view (F1 or ? there "
	    "lists\nthe keys); without FILE it lists your trace files to pick "
	    "from.\n"
	    "\n"
	    "  -p, --pid PID        use the trace file PID writes to\n"
	    "  -d, --delay TENTHS   refresh interval in tenths of a second "
	    "(default 10)\n"
	    "      --hide-exited    start with exited threads hidden\n"
	    "      --no-color       draw without colour (also NO_COLOR=1)\n"
	    "      --ascii          draw lines with ASCII characters\n"
	    "      --dump           print every process and thread with its "
	    "live stack, then exit\n"
	    "                       (the default when not on a terminal)\n"
	    "      --json           JSON output (implies --dump)\n"
	    "  -f, --follow         with --dump: redraw every interval until "
	    "every traced\n"
	    "                       process is gone, or until interrupted\n"
	    "      --list           list this user's trace files (rbmon list)\n"
	    "      --prune [DIR...] remove this user's trace files whose "
	    "programs are gone\n"
	    "                       (in DIR, or where --list looks)\n"
	    "      --older-than AGE with --prune: only files created AGE ago "
	    "or more\n"
	    "                       (a duration: 90s, 30m, 12h, 7d)\n"
	    "      --dry-run        with --prune: say what would go, remove "
	    "nothing\n"
	    "      --events         print each thread's event log (its recent "
	    "calls) as a\n"
	    "                       function graph with durations; with --json "
	    "the records;\n"
	    "                       with --thread TID only that thread's\n"
	    "      --record         record every thread's event log into a "
	    "recording until\n"
	    "                       the program ends or rbmon is interrupted "
	    "(see rbmon replay)\n"
	    "  -o, --output OUT     with --record: the recording (default "
	    "PROGRAM.PID.rbr\n"
	    "                       here, after the trace file's name)\n"
	    "      --blocking[=TIME]  with --record: a thread whose log is full "
	    "waits for the\n"
	    "                       recorder, at most TIME (default 1s), instead "
	    "of dropping\n"
	    "\n"
	    "Control (scriptable):\n"
	    "  -t, --thread TID     the thread --send, --watch and thread flags "
	    "act on\n"
	    "      --send 'CMD [ARG]'  post one command to --thread, wait for "
	    "its answer and\n"
	    "                       print it: STOP CONT STEP NEXT FINI TRON TROF "
	    "PING; exit\n"
	    "                       status 0 for OK, 1 for ERR, 2 when the "
	    "thread did not\n"
	    "                       answer.  BRKP FUNCTION [COUNT] [thread], "
	    "BCLR ID|* and\n"
	    "                       BLST act on the breakpoints of --thread's "
	    "process at once\n"
	    "                       (rbmon writes them; no answer awaited); "
	    "BCLR and BLST\n"
	    "                       without --thread on the process of --pid "
	    "or the file's\n"
	    "                       only one.  EVOF and EVON switch the event "
	    "log of --thread\n"
	    "                       off and on, or without --thread of every "
	    "thread of the\n"
	    "                       process (--pid) or of the file, and of the "
	    "threads they\n"
	    "                       start later.  DYN REQUEST asks for dynamic "
	    "tracing in\n"
	    "                       --thread's process: exclude-addr 0xADDR, "
	    "include-addr\n"
	    "                       0xADDR, include-all, exclude PATTERN, "
	    "include PATTERN\n"
	    "  -w, --watch EXPR     evaluate a C expression over the program's "
	    "globals in\n"
	    "                       --thread and print its value; up to 4 "
	    "--watch, each\n"
	    "                       then printed as EXPR = VALUE; exit status "
	    "0, 1 for an\n"
	    "                       error, 2 when the thread did not answer\n"
	    "      --timeout SEC    how long --send and --watch wait (default "
	    "5)\n"
	    "      --set FLAG=0|1   set a flag: single, stop_on_create, "
	    "trace_on_create;\n"
	    "                       with --thread also signal (stop at the "
	    "next hook) and\n"
	    "                       trace; may be repeated\n"
	    "      --set min-duration=T  calls shorter than T (0, or as 10us) "
	    "that kept\n"
	    "                       nothing they called leave the event logs\n"
	    "  -h, --help           show this help and exit\n"
	    "  -V, --version        show the version and exit\n"
	    "\n"
	    "Commands (rbmon COMMAND --help tells more; --dump, --events, "
	    "--record, --list,\n--prune and --send are the same as dump, "
	    "events, record, list, prune, send):\n", f);
	for (i = 0; i < RBMON_NCMDS; i++)
		fprintf(f, "  %-9s %s\n", rbmon_cmds[i].name,
		    rbmon_cmds[i].summary);
	fputs("A duration (TIME, AGE) is a number and its unit: ns, us, ms, s, "
	    "m, h or d\n(1.5ms, 90s, 12h); 0 alone is none.\n", f);
}

static const struct rbmon_cmdent *
rbmon_find(const char *name)
{
	size_t	i;

	for (i = 0; i < RBMON_NCMDS; i++)
		if (strcmp(rbmon_cmds[i].name, name) == 0)
			return &rbmon_cmds[i];
	return NULL;
}

int
main(int argc, char **argv)
{
	const struct rbmon_cmdent	*c;
	struct rbmon_opts		 o;

	setlocale(LC_CTYPE, "");	/* UTF-8 line drawing, if the terminal has it */
	/* rbmon COMMAND ...: the command reads its own arguments. */
	if (argc > 1 && (c = rbmon_find(argv[1])) != NULL)
		return c->run(argc - 1, argv + 1);
	/* rbmon [OPTIONS] [FILE]: the options name the command. */
	rbmon_opts_parse(&o, NULL, argc, argv);
	if (rbmon_opts_answered(&o, rbmon_usage))
		return 0;
	c = rbmon_find(rbmon_opts_command(&o));
	rbmon_opts_free(&o);
	return c->run(argc, argv);
}
