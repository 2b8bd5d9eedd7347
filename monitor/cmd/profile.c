/* SPDX-License-Identifier: MIT */
/*
 * rbmon profile: sample the live stacks of a traced program's threads,
 * on CPU and off, into folded stacks (the sampler is history/profile.c).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/outfile.h"
#include "monitor/cmd/cmd.h"
#include "monitor/core/discover.h"
#include "monitor/core/model.h"
#include "monitor/core/safeio.h"
#include "monitor/core/symbols.h"
#include "monitor/history/profile.h"
#include "monitor/util/escape.h"
#include "monitor/util/util.h"

#define PROF_RATE_DEFAULT	1000	/* samples per second */
#define PROF_RATE_MAX		10000
#define PROF_DURATION_MAX	(366 * 86400000000000ull)	/* ns */

static volatile sig_atomic_t prof_stop;

static void
prof_on_signal(int sig)
{
	(void)sig;
	prof_stop = 1;
}

static void
prof_help(FILE *f)
{
	fputs("Usage: rbmon profile [OPTIONS] FILE\n"
	    "       rbmon profile [OPTIONS] -p PID\n"
	    "Sample the live stacks of a traced program's threads and write "
	    "them as folded\nstacks (flamegraph.pl, inferno, speedscope): "
	    "\"program (pid);thread (tid);\nouter;...;inner COUNT\", COUNT "
	    "the samples.  A thread off CPU (not running or\nrunnable) gets "
	    "a last frame \"[off-CPU: what]\": the system call it waits in,\n"
	    "else the kernel function, else its state.  The program pays "
	    "nothing; the event\nlog may be off.  It stops after --duration, "
	    "when the program has ended, or at\n^C.\n"
	    "\n"
	    "  -o, --output FILE     write to FILE (default: standard output)\n"
	    "  -r, --rate HZ         samples per second (default 1000, at "
	    "most 10000)\n"
	    "  -d, --duration TIME   stop after TIME (10s, 1.5m, 500ms: a "
	    "number needs its\n"
	    "                        unit; default: at the end)\n"
	    "      --on-cpu          keep only samples of threads on CPU\n"
	    "      --off-cpu         keep only samples of threads off CPU\n"
	    "  -t, --tid TID[,TID...]  only these threads\n"
	    "  -p, --pid PID         the trace file PID writes to\n"
	    "  -h, --help            show this help\n", f);
}

static uint64_t
prof_cpu_ns(void)
{
	struct rusage	ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
	    1000000000u + ((uint64_t)ru.ru_utime.tv_usec +
	    (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

/**
 * rbmon_cmd_profile - `rbmon profile [OPTIONS] FILE`
 *
 * Return: the exit status: 0, 1 when the file could not be read or the
 * output written, 2 for bad usage (it exits).
 */
int
rbmon_cmd_profile(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "rate", required_argument, NULL, 'r' },
		{ "duration", required_argument, NULL, 'd' },
		{ "on-cpu", no_argument, NULL, 'C' },
		{ "off-cpu", no_argument, NULL, 'O' },
		{ "tid", required_argument, NULL, 't' },
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rbmon_prof	 pr;
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_symbols	*sy;
	struct sigaction	 sa;
	struct timespec		 next;
	const char		*output = NULL, *file = NULL;
	char			*found = NULL, *cause = NULL, *end;
	FILE			*out = stdout;
	struct rbmon_tids	 tids = { NULL, 0 };
	struct rb_outfile	 of;
	long			 rate = PROF_RATE_DEFAULT, pid = 0;
	uint64_t		 t0, t1, cpu0, period, missed = 0, lim = 0;
	int			 ch, keep = RBMON_PROF_ALL, status = 0, ended = 0;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":o:r:d:t:p:h", opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'o':
			output = optarg;
			break;
		case 'r':
			errno = 0;
			rate = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    rate < 1 || rate > PROF_RATE_MAX)
				rbmon_cmd_usage("profile", "invalid rate '%s' (1 to %d samples "
				    "per second)", optarg, PROF_RATE_MAX);
			break;
		case 'd':
			switch (rbmon_duration_parse(optarg, &lim)) {
			case RBMON_DUR_BARE:
				rbmon_duration_bare("profile", "--duration",
				    optarg, "s");
			case RBMON_DUR_OK:
				if (lim > 0 && lim <= PROF_DURATION_MAX)
					break;
				/* FALLTHROUGH */
			default:
				rbmon_cmd_usage("profile", "invalid duration "
				    "'%s' (for example 10s, 1.5m, 500ms)",
				    optarg);
			}
			break;
		case 'C':
		case 'O':
			if (keep != RBMON_PROF_ALL && keep !=
			    (ch == 'C' ? RBMON_PROF_ON_CPU : RBMON_PROF_OFF_CPU))
				rbmon_cmd_usage("profile", "give --on-cpu or --off-cpu, not "
				    "both");
			keep = ch == 'C' ? RBMON_PROF_ON_CPU :
			    RBMON_PROF_OFF_CPU;
			break;
		case 't':
			rbmon_cmd_parse_tids("profile", optarg, &tids);
			break;
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    pid <= 0 || pid > INT_MAX)
				rbmon_cmd_usage("profile", "invalid pid '%s'", optarg);
			break;
		case 'h':
			prof_help(stdout);
			return 0;
		case ':':
			rbmon_cmd_usage("profile", "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			rbmon_cmd_usage("profile", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc)
		rbmon_cmd_usage("profile", "too many arguments");
	if (file != NULL && pid != 0)
		rbmon_cmd_usage("profile", "give a FILE or --pid, not both");
	if (file == NULL && pid == 0)
		rbmon_cmd_usage("profile", "no trace file given (FILE or --pid PID; see "
		    "rbmon --list)");
	if (pid != 0) {
		if ((found = rbmon_discover_pid((pid_t)pid, stderr,
		    &cause)) == NULL) {
			rbmon_esc_line(stderr, "rbmon profile: %s", cause);
			free(cause);
			free(tids.v);
			return 1;
		}
		file = found;
	}
	if (rbmon_model_open(&m, file, RBMON_READY_WAIT_MS, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon profile: %s: %s", file, cause);
		free(cause);
		free(found);
		free(tids.v);
		return 1;
	}
	/* Created as the user, before reading as the file's owner. */
	if (output != NULL &&
	    (out = rbmon_safeio_output(&of, output, &cause)) == NULL) {
		rbmon_esc_line(stderr, "rbmon profile: cannot write %s: %s",
		    output, cause);
		free(cause);
		rbmon_model_close(&m);
		free(found);
		free(tids.v);
		return 1;
	}
	if (rbmon_safeio_become_owner(m.fd, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon profile: %s: %s", file, cause);
		free(cause);
		if (output != NULL)
			rbmon_safeio_output_done(&of, out, 0, NULL);
		rbmon_model_close(&m);
		free(found);
		free(tids.v);
		return 1;
	}
	m.kernel_every_ns = 0;
	sy = rbmon_symbols_new(stderr);
	rbmon_prof_init(&pr);
	pr.keep = keep;
	pr.tids = tids;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = prof_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	period = 1000000000u / (uint64_t)rate;
	cpu0 = prof_cpu_ns();
	t0 = rbmon_mono_ns();
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!prof_stop) {
		if (rbmon_model_snapshot(&m, &s, &cause) != 0) {
			rbmon_esc_line(stderr, "rbmon profile: %s: %s", file,
			    cause);
			free(cause);
			cause = NULL;
			status = 1;
			break;
		}
		rbmon_prof_take(&pr, &m, sy, &s);
		ended = !rbmon_any_alive(&m, &s);
		rbmon_model_free(&s);
		if (ended || (lim != 0 && rbmon_mono_ns() - t0 >= lim))
			break;
		/* The next tick; ticks already past are skipped, counted. */
		next.tv_nsec += (long)period;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		{
			struct timespec	now;
			uint64_t	n_ns, t_ns;

			clock_gettime(CLOCK_MONOTONIC, &now);
			n_ns = (uint64_t)now.tv_sec * 1000000000u +
			    (uint64_t)now.tv_nsec;
			t_ns = (uint64_t)next.tv_sec * 1000000000u +
			    (uint64_t)next.tv_nsec;
			if (t_ns < n_ns) {
				missed += (n_ns - t_ns) / period + 1;
				t_ns += ((n_ns - t_ns) / period + 1) * period;
				next.tv_sec = (time_t)(t_ns / 1000000000u);
				next.tv_nsec = (long)(t_ns % 1000000000u);
			}
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
		    NULL) == EINTR && !prof_stop)
			;
	}
	t1 = rbmon_mono_ns();

	rbmon_prof_write(out, &pr);
	if (output == NULL && (fflush(out) != 0 || ferror(out))) {
		rbmon_esc_line(stderr, "rbmon profile: standard output: %s",
		    strerror(errno));
		status = 1;
	} else if (output != NULL &&
	    rbmon_safeio_output_done(&of, out, 1, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon profile: cannot write %s: %s",
		    output, cause);
		free(cause);
		status = 1;
	} else {
		double	 wall = (double)(t1 - t0) / 1e9;
		double	 cpu = (double)(prof_cpu_ns() - cpu0) / 1e9;

		fprintf(stderr, "rbmon: %" PRIu64 " sample%s of %d thread%s in "
		    "%.1f s: %" PRIu64 " pass%s, %.0f a second (asked %ld)",
		    pr.samples, pr.samples == 1 ? "" : "s",
		    rbmon_prof_threads(&pr), rbmon_prof_threads(&pr) == 1 ? "" :
		    "s", wall, pr.passes, pr.passes == 1 ? "" : "es",
		    wall > 0 ? (double)pr.passes / wall : 0.0, rate);
		if (missed != 0)
			fprintf(stderr, ", %" PRIu64 " ticks missed", missed);
		fprintf(stderr, "\nrbmon:   %.1f%% on CPU, %.1f%% off CPU; "
		    "%zu distinct stacks; the sampler used %.2f s of CPU "
		    "(%.1f%%)%s\n",
		    pr.samples ? 100.0 * (double)pr.on_cpu /
		    (double)pr.samples : 0.0,
		    pr.samples ? 100.0 * (double)(pr.samples - pr.on_cpu) /
		    (double)pr.samples : 0.0, pr.n, cpu,
		    wall > 0 ? 100.0 * cpu / wall : 0.0,
		    ended ? "; the program ended" : "");
	}
	if (output == NULL && out != stdout)
		fclose(out);
	rbmon_prof_free(&pr);
	rbmon_symbols_free(sy);
	rbmon_model_close(&m);
	free(found);
	free(tids.v);
	return status;
}
