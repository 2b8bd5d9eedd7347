/* SPDX-License-Identifier: MIT */
/*
 * rbmon opts: one reading of the options of rbmon's trace-file commands.
 * Each mode once was a flag of rbmon (--dump, --events, --record, --list,
 * --prune, --send, --watch, --set) and still is one: a command spelled
 * sets its flag and reads the same options, so both forms take the same
 * options and refuse the same mixtures with the same words.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/util/alloc.h"
#include "monitor/util/escape.h"
#include "monitor/util/opts.h"
#include "monitor/util/util.h"
#include "rbtrace/format.h"

static const struct option opts_long[] = {
	{ "dump",	no_argument,		NULL, 'D' },
	{ "json",	no_argument,		NULL, 'J' },
	{ "events",	no_argument,		NULL, 'e' },
	{ "record",	no_argument,		NULL, 'R' },
	{ "output",	required_argument,	NULL, 'o' },
	{ "blocking",	optional_argument,	NULL, 'B' },
	{ "list",	no_argument,		NULL, 'L' },
	{ "prune",	no_argument,		NULL, 'P' },
	{ "older-than",	required_argument,	NULL, 'O' },
	{ "dry-run",	no_argument,		NULL, 'N' },
	{ "pid",	required_argument,	NULL, 'p' },
	{ "follow",	no_argument,		NULL, 'f' },
	{ "delay",	required_argument,	NULL, 'd' },
	{ "no-color",	no_argument,		NULL, 'C' },
	{ "no-colour",	no_argument,		NULL, 'C' },
	{ "ascii",	no_argument,		NULL, 'A' },
	{ "hide-exited", no_argument,		NULL, 'E' },
	{ "thread",	required_argument,	NULL, 't' },
	{ "send",	required_argument,	NULL, 's' },
	{ "set",	required_argument,	NULL, 'S' },
	{ "timeout",	required_argument,	NULL, 'T' },
	{ "watch",	required_argument,	NULL, 'w' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 }
};

/*
 * --send EVON|EVOF (rbmon_ctl_parse()'s word) acts on the file, BLST,
 * BCLR and BRKP on a process's breakpoints, CAPT, CCLR and CLST on its
 * captures: none needs --thread (but a breakpoint for one thread, BRKP F
 * thread, names it).
 */
/* Does @line end with the word "thread"? */
static int
opts_ends_thread(const char *line)
{
	size_t	n = strlen(line);

	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	return n >= 7 && strncmp(line + n - 6, "thread", 6) == 0 &&
	    (line[n - 7] == ' ' || line[n - 7] == '\t');
}

static int
opts_nothread(const char *line)
{
	size_t	n;

	while (*line == ' ' || *line == '\t')
		line++;
	n = strcspn(line, " \t");
	return n == 4 && (strncasecmp(line, "EVON", 4) == 0 ||
	    strncasecmp(line, "EVOF", 4) == 0 ||
	    strncasecmp(line, "BLST", 4) == 0 ||
	    strncasecmp(line, "BCLR", 4) == 0 ||
	    strncasecmp(line, "CAPT", 4) == 0 ||
	    strncasecmp(line, "CCLR", 4) == 0 ||
	    strncasecmp(line, "CLST", 4) == 0 ||
	    (strncasecmp(line, "BRKP", 4) == 0 && !opts_ends_thread(line)));
}

static void
opts_older(struct rbmon_opts *o, const char *arg)
{
	switch (rbmon_duration_parse(arg, &o->older)) {
	case RBMON_DUR_OK:
		if (o->older <= 100 * 365 * 86400000000000ull)
			break;
		/* FALLTHROUGH */
	default:
		rbmon_bad_usage("invalid age '%s' for --older-than (for "
		    "example 90s, 30m, 12h, 7d)", arg);
	case RBMON_DUR_BARE:
		rbmon_duration_bare(NULL, "--older-than", arg, "h");
	}
	o->have_older = 1;
}

/* --blocking[=TIME]: 1 ms to an hour, whole milliseconds. */
static void
opts_blocking(struct rbmon_opts *o, const char *arg)
{
	uint64_t	ns;

	if (arg == NULL) {
		o->block_ms = RBMON_BLOCKING_MS;
		return;
	}
	switch (rbmon_duration_parse(arg, &ns)) {
	case RBMON_DUR_OK:
		if (ns >= 1000000 && ns <= 3600000000000ull)
			break;
		/* FALLTHROUGH */
	default:
		rbmon_bad_usage("invalid time '%s' for --blocking (1ms to 1h, "
		    "for example 100ms, 2s)", arg);
	case RBMON_DUR_BARE:
		rbmon_duration_bare(NULL, "--blocking", arg, "ms");
	}
	o->block_ms = (uint32_t)(ns / 1000000);
}

/* The mode @cmd is; "live" and "send" have no flag of their own. */
static void
opts_preset(struct rbmon_opts *o, const char *cmd)
{
	if (cmd == NULL)
		return;
	if (strcmp(cmd, "dump") == 0)
		o->dump = 1;
	else if (strcmp(cmd, "events") == 0)
		o->events = 1;
	else if (strcmp(cmd, "record") == 0)
		o->record = 1;
	else if (strcmp(cmd, "list") == 0)
		o->list = 1;
	else if (strcmp(cmd, "prune") == 0)
		o->prune = 1;
}

/* What goes with what: the checks rbmon made of its flags, in order. */
static void
opts_check(struct rbmon_opts *o)
{
	int	nothread;

	if ((o->have_older || o->dry) && !o->prune)
		rbmon_bad_usage("--older-than and --dry-run go with --prune");
	if (o->list || o->prune) {
		if (o->dump || o->follow || o->pid != 0 ||
		    (o->list && o->prune) || o->record || o->events ||
		    o->send != NULL || o->nsets > 0 || o->nwatches > 0 ||
		    (o->list && o->nargs > 0))
			rbmon_bad_usage("%s", o->list ? "--list takes no file "
			    "and no other mode" : "--prune takes directories "
			    "and no other mode");
		return;
	}
	if (o->nargs > 0)
		o->file = o->args[0];
	if (o->nargs > 1)
		rbmon_bad_usage("too many arguments: '%s'", o->args[1]);
	/* With --send a FILE's process is chosen with -p (BLST, BCLR, EV*). */
	if (o->file != NULL && o->pid != 0 && o->send == NULL)
		rbmon_bad_usage("give either FILE or --pid, not both");
	if (o->output != NULL && !o->record)
		rbmon_bad_usage("--output goes with --record");
	if (o->block_ms != 0 && !o->record)
		rbmon_bad_usage("--blocking goes with --record");
	if (o->record) {
		if (o->events || o->dump || o->follow || o->send != NULL ||
		    o->nsets > 0 || o->nwatches > 0 || o->tid != 0)
			rbmon_bad_usage("--record goes with --output and --pid "
			    "only");
		if (o->file == NULL && o->pid == 0)
			rbmon_bad_usage("no trace file given (FILE or --pid "
			    "PID)");
	}
	if (o->events) {
		if (o->send != NULL || o->nsets > 0 || o->nwatches > 0 ||
		    o->follow || o->list)
			rbmon_bad_usage("--events goes with --json and "
			    "--thread only");
		if (o->file == NULL && o->pid == 0)
			rbmon_bad_usage("no trace file given (FILE or --pid "
			    "PID)");
	}
	nothread = o->send != NULL && opts_nothread(o->send);
	if (o->send != NULL && o->tid == 0 && !nothread)
		rbmon_bad_usage("--send needs --thread TID");
	if (o->nwatches > 0 && o->tid == 0)
		rbmon_bad_usage("--watch needs --thread TID");
	if (o->nwatches > 0 && o->send != NULL)
		rbmon_bad_usage("give either --send or --watch, not both");
	if (!o->events && (o->send != NULL || o->nsets > 0 || o->tid != 0 ||
	    o->nwatches > 0) && (o->dump || o->follow || o->list))
		rbmon_bad_usage("--thread, --send, --set and --watch do not go "
		    "with --dump, --json, --follow or --list");
	if (o->tid != 0 && o->send == NULL && o->nsets == 0 &&
	    o->nwatches == 0 && !o->events)
		rbmon_bad_usage("--thread needs --send, --watch, --set or "
		    "--events");
	if ((o->send != NULL || o->nsets > 0 || o->nwatches > 0) &&
	    o->file == NULL && o->pid == 0)
		rbmon_bad_usage("no trace file given (FILE or --pid PID)");
	o->interactive = !o->dump && !o->follow && isatty(STDIN_FILENO) &&
	    isatty(STDOUT_FILENO);
	if (o->file == NULL && o->pid == 0 && !o->interactive)
		rbmon_bad_usage("no trace file given (FILE or --pid PID; see "
		    "rbmon --list)");
	if (!o->dump && !o->follow && !o->interactive)
		o->dump = 1;
}

/**
 * rbmon_opts_parse - read rbmon's options, and check what goes together
 * @cmd: the command spelled ("record"), which sets its flag; NULL when
 * rbmon was given flags only
 *
 * A usage error exits with status 2; --help and --version set o->help
 * and o->version and stop there, for the caller to answer.
 */
void
rbmon_opts_parse(struct rbmon_opts *o, const char *cmd, int argc,
    char **argv)
{
	const char	*mode;
	char		*end;
	int		 ch;

	memset(o, 0, sizeof *o);
	o->cmd = cmd;
	o->delay = 10;
	o->color = 1;
	o->timeout = 5;
	opts_preset(o, cmd);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":p:fd:t:w:o:hV", opts_long,
	    NULL)) != -1) {
		switch (ch) {
		case 'D':
			o->dump = 1;
			break;
		case 'J':
			o->json = o->dump = 1;
			break;
		case 'e':
			o->events = 1;
			break;
		case 'L':
			o->list = 1;
			break;
		case 'P':
			o->prune = 1;
			break;
		case 'N':
			o->dry = 1;
			break;
		case 'O':
			opts_older(o, optarg);
			break;
		case 'R':
			o->record = 1;
			break;
		case 'B':
			opts_blocking(o, optarg);
			break;
		case 'o':
			if (*optarg == '\0')
				rbmon_bad_usage("--output needs a file name");
			o->output = optarg;
			break;
		case 'p':
			o->pid = rbmon_number(NULL, "pid", optarg, 1, INT_MAX);
			break;
		case 'f':
			o->follow = 1;
			break;
		case 'd':
			o->delay = rbmon_number(NULL, "delay", optarg, 1,
			    RBMON_DELAY_MAX);
			break;
		case 'C':
			o->color = 0;
			break;
		case 'A':
			o->ascii = 1;
			break;
		case 'E':
			o->hide_exited = 1;
			break;
		case 't':
			o->tid = rbmon_number(NULL, "thread id", optarg, 1,
			    INT_MAX);
			break;
		case 's':
			o->send = optarg;
			break;
		case 'S':
			o->sets = rbmon_xreallocarray(o->sets,
			    (size_t)o->nsets + 1, sizeof *o->sets);
			o->sets[o->nsets++] = optarg;
			break;
		case 'w':
			if (o->nwatches == RB_WATCHES)
				rbmon_bad_usage("at most %d --watch",
				    RB_WATCHES);
			o->watches = rbmon_xreallocarray(o->watches,
			    (size_t)o->nwatches + 1, sizeof *o->watches);
			o->watches[o->nwatches++] = optarg;
			break;
		case 'T':
			errno = 0;
			o->timeout = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(o->timeout >= 0.1 && o->timeout <= 3600))
				rbmon_bad_usage("invalid timeout '%s' (expected "
				    "0.1..3600 seconds)", optarg);
			break;
		case 'h':
			o->help = 1;
			return;
		case 'V':
			o->version = 1;
			return;
		case ':':
			rbmon_bad_usage("option '%s' needs a value",
			    argv[optind - 1]);
		default:
			if (optopt != 0)
				rbmon_bad_usage("unknown option '-%c'", optopt);
			rbmon_bad_usage("unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	o->args = argv + optind;
	o->nargs = argc - optind;
	opts_check(o);
	if (cmd == NULL)
		return;
	mode = rbmon_opts_command(o);
	if (strcmp(cmd, "send") == 0 && strcmp(mode, "send") != 0)
		rbmon_bad_usage("send needs --send, --watch or --set");
	if (strcmp(cmd, "live") == 0 && strcmp(mode, "dump") == 0)
		rbmon_bad_usage("live needs a terminal (rbmon dump prints the "
		    "stacks)");
	if (strcmp(cmd, mode) != 0)
		rbmon_bad_usage("%s: these options make it rbmon %s", cmd,
		    mode);
}

/* The command the options name: the one spelled, or the mode's flag. */
const char *
rbmon_opts_command(const struct rbmon_opts *o)
{
	if (o->list)
		return "list";
	if (o->prune)
		return "prune";
	if (o->record)
		return "record";
	if (o->events)
		return "events";
	if (o->send != NULL || o->nsets > 0 || o->nwatches > 0)
		return "send";
	if (o->interactive)
		return "live";
	return "dump";
}

void
rbmon_opts_free(struct rbmon_opts *o)
{
	free(o->sets);
	free(o->watches);
	o->sets = o->watches = NULL;
}

/*
 * rbmon_opts_answered - for --help, print @usage; for --version, the
 * version.  Return: 1 when one was asked for (@o is freed), else 0.
 */
int
rbmon_opts_answered(struct rbmon_opts *o, void (*usage)(FILE *))
{
	if (o->help)
		usage(stdout);
	else if (o->version)
		printf("rbmon (rbtrace) %s\n", PACKAGE_VERSION);
	else
		return 0;
	rbmon_opts_free(o);
	return 1;
}

/* ---- the filters of the readers of a recording --------------------------- */

/* One side of --time-range: a duration from the recording's start. */
static uint64_t
filter_time(const char *cmd, const char *opt, const char *side,
    const char *arg)
{
	uint64_t	ns;

	switch (rbmon_duration_parse(side, &ns)) {
	case RBMON_DUR_OK:
		return ns;
	case RBMON_DUR_BARE:
		rbmon_duration_bare(cmd, opt, side, "s");
	default:
		rbmon_cmd_usage(cmd, "invalid time range '%s' (expected "
		    "START~END, either side a duration from the recording's "
		    "start with its unit: " RBMON_DUR_UNITS ")", arg);
	}
}

static void
filter_name(const char *cmd, const char *opt, const char *arg, char ***v,
    size_t *n)
{
	if (*arg == '\0')
		rbmon_cmd_usage(cmd, "%s needs a name", opt);
	*v = rbmon_xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = (char *)arg;
}

/*
 * rbmon_filter_option - read filter option @ch (its value @arg) of
 * command @cmd, just read by getopt_long() from @argv, into @tids and @fl
 *
 * Return: 1 when @ch is one, 0 when it is not.  A bad value is a usage
 * error (exit 2).
 */
int
rbmon_filter_option(const char *cmd, int ch, char **argv, const char *arg,
    struct rbmon_tids *tids, struct rbmon_filter *fl)
{
	char		 name[32], *end;
	const char	*tilde, *opt = argv[optind - 1];
	char		*side;
	long		 depth;

	/* The option as spelled, for the messages: "--min", not "--min=1". */
	if (opt == arg && optind >= 2)
		opt = argv[optind - 2];
	snprintf(name, sizeof name, "%.*s", (int)strcspn(opt, "="), opt);
	switch (ch) {
	case 't':
		rbmon_cmd_parse_tids(cmd, arg, tids);
		return 1;
	case 'F':
		filter_name(cmd, "--function", arg, &fl->funcs, &fl->nfuncs);
		break;
	case 'N':
		filter_name(cmd, "--exclude", arg, &fl->nots, &fl->nnots);
		break;
	case 'D':
		errno = 0;
		depth = strtol(arg, &end, 10);
		if (errno != 0 || end == arg || *end != '\0' || depth < 1 ||
		    depth > 100000)
			rbmon_cmd_usage(cmd, "invalid depth '%s' (expected "
			    "1..100000)", arg);
		fl->depth = (size_t)depth;
		return 1;
	case RBMON_OPT_MIN:
		switch (rbmon_duration_parse(arg, &fl->min_ns)) {
		case RBMON_DUR_OK:
			break;
		case RBMON_DUR_BARE:
			rbmon_duration_bare(cmd, name, arg, "us");
		default:
			rbmon_cmd_usage(cmd, "invalid time '%s' (expected a "
			    "number and a unit: " RBMON_DUR_UNITS ")", arg);
		}
		return 1;
	case RBMON_OPT_RANGE:
		if ((tilde = strchr(arg, '~')) == NULL || strcmp(arg, "~") == 0)
			rbmon_cmd_usage(cmd, "invalid time range '%s' "
			    "(expected START~END, START~ or ~END, as in "
			    "1.5s~2s)", arg);
		side = rbmon_xstrdup(arg);
		side[tilde - arg] = '\0';
		fl->from = *side != '\0' ? filter_time(cmd, name, side, arg) :
		    0;
		free(side);
		fl->to = tilde[1] != '\0' ? filter_time(cmd, name, tilde + 1,
		    arg) : UINT64_MAX;
		if (fl->to <= fl->from)
			rbmon_cmd_usage(cmd, "invalid time range '%s': it ends "
			    "before it starts", arg);
		fl->have_range = 1;
		return 1;
	default:
		return 0;
	}
	free(fl->used);
	fl->used = rbmon_xcalloc(fl->nfuncs + fl->nnots + 1, 1);
	return 1;
}

void
rbmon_filter_free(struct rbmon_filter *fl)
{
	free(fl->funcs);
	free(fl->nots);
	free(fl->match);
	free(fl->used);
	memset(fl, 0, sizeof *fl);
}

/* The filters' lines of a reader's --help; @longf: -F has --function. */
void
rbmon_filter_usage(FILE *f, int longf)
{
	fputs("\nFilters (rbmon(1), FILTERS):\n"
	    "  -t, --thread TID[,TID...]  only these threads (--tid too)\n"
	    "      --time-range START~END  only calls that begin in it "
	    "(durations from the\n"
	    "                          recording's start: 1.5s~2s, 10ms~, "
	    "~500us)\n", f);
	fputs(longf ? "  -F, --function NAME     only calls of NAME (a glob) "
	    "and what they call\n" : "  -F NAME                 only calls "
	    "of NAME (a glob) and what they call\n", f);
	fputs("  -N, --exclude NAME      no calls of NAME, nor what they call\n"
	    "  -D, --depth N           only N levels (below NAME with -F)\n"
	    "      --min-duration TIME  only calls that took TIME or more "
	    "(10us, 1.5ms;\n"
	    "                          --min too)\n", f);
}

/* What in @fl needs times (rbread_open_or_say()), or NULL. */
const char *
rbmon_filter_needs(const struct rbmon_filter *fl)
{
	if (fl->min_ns != 0)
		return "--min";
	if (fl->have_range)
		return "--time-range";
	return NULL;
}

/* Say which -F and -N named no function the walks met. */
void
rbmon_filter_unmatched(const char *cmd, const struct rbmon_filter *fl)
{
	size_t	i;

	for (i = 0; i < fl->nfuncs + fl->nnots; i++) {
		if (fl->used[i])
			continue;
		rbmon_esc_line(stderr, "rbmon %s: %s '%s': no function called "
		    "in the recording matches it", cmd,
		    i < fl->nfuncs ? "-F" : "-N", i < fl->nfuncs ?
		    fl->funcs[i] : fl->nots[i - fl->nfuncs]);
	}
}
