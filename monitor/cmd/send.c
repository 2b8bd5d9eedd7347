/* SPDX-License-Identifier: MIT */
/*
 * rbmon send (rbmon --send, --watch, --set): one round of control of a
 * traced program's threads, for scripts.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "monitor/cmd/cmd.h"
#include "monitor/core/breakpoint.h"
#include "monitor/core/control.h"
#include "monitor/core/discover.h"
#include "monitor/core/dyn.h"
#include "monitor/core/model.h"
#include "common/mindur.h"
#include "monitor/core/safeio.h"
#include "monitor/core/symbols.h"
#include "monitor/core/view.h"
#include "monitor/history/events.h"
#include "monitor/util/escape.h"
#include "monitor/util/opts.h"
#include "monitor/util/util.h"

/* --set NAME=VALUE: a global flag, or with @k a thread's. */
static int
send_set(struct rbmon_ctl *c, struct rbmon_cmd *k, const char *spec,
    double timeout)
{
	const char	*eq = strchr(spec, '=');
	char		*name, *cause = NULL;
	uint64_t	 ns;
	int		 value, r;

	if (strncmp(spec, "min-duration=", 13) == 0) {
		if (k != NULL)
			rbmon_bad_usage("--set min-duration is the file's, "
			    "not a thread's: no --thread");
		if (rb_mindur_parse(spec + 13, &ns) != 0)
			rbmon_bad_usage("--set min-duration wants "
			    RB_MINDUR_WORDS ", not '%s'", spec + 13);
		r = rbmon_ctl_set_min_duration(c, ns, &cause);
		if (r != 0) {
			rbmon_esc_line(stderr, "rbmon: --set %s: %s", spec,
			    cause);
			free(cause);
		}
		return r;
	}
	if (eq == NULL || (strcmp(eq + 1, "0") != 0 && strcmp(eq + 1, "1") != 0))
		rbmon_bad_usage("--set wants FLAG=0 or FLAG=1, not '%s'", spec);
	value = eq[1] - '0';
	name = rbmon_xstrdup(spec);
	name[eq - spec] = '\0';
	if (strcmp(name, "signal") == 0 || strcmp(name, "trace") == 0) {
		if (k == NULL)
			rbmon_bad_usage("--set %s needs --thread TID", name);
		if (strcmp(name, "signal") == 0) {
			r = value ? rbmon_ctl_signal(c, k, &cause) : 0;
		} else {
			r = rbmon_ctl_post(c, k, value ? "TRON" : "TROF", "",
			    &cause);
			if (r == 0 && rbmon_ctl_wait(c, k,
			    (uint64_t)(timeout * 1e9), &cause) != 1) {
				if (cause == NULL)
					rbmon_xasprintf(&cause, "thread %d did "
					    "not answer", k->tid);
				rbmon_ctl_withdraw(c, k);
				r = -1;
			}
		}
	} else {
		r = rbmon_ctl_set_flag(c, name, value, &cause);
	}
	if (r != 0) {
		rbmon_esc_line(stderr, "rbmon: --set %s: %s", spec, cause);
		free(cause);
	}
	free(name);
	return r;
}

static void
send_sleep_ms(long ms)
{
	struct timespec	ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* --watch: each expression evaluated once by thread @k, then removed. */
static int
send_watch(struct rbmon_ctl *c, struct rbmon_cmd *k, char **exprs,
    int n, double timeout)
{
	struct rbmon_wval	 v[RB_WATCHES];
	int			 entry[RB_WATCHES], got[RB_WATCHES];
	uint64_t		 deadline;
	char			*cause = NULL;
	int			 i, r, pending = 0, status = 0, answered = 0;

	memset(v, 0, sizeof v);
	for (i = 0; i < n; i++) {
		got[i] = 0;
		entry[i] = -1;
		if (rbmon_ctl_watch_add(c, k, exprs[i], &entry[i], &cause) !=
		    0) {
			rbmon_esc_line(stderr, "rbmon: thread %d: %s: %s",
			    k->tid, exprs[i], cause);
			free(cause);
			cause = NULL;
			got[i] = -1;
			status = 1;
			continue;
		}
		pending++;
	}
	deadline = rbmon_mono_ns() + (uint64_t)(timeout * 1e9);
	while (pending > 0 && rbmon_mono_ns() < deadline) {
		for (i = 0; i < n; i++) {
			if (got[i] != 0)
				continue;
			r = rbmon_ctl_watch_read(c, k, entry[i], &v[i], &cause);
			if (r == 0)
				continue;
			pending--;
			got[i] = r;
			if (r < 0) {
				rbmon_esc_line(stderr, "rbmon: thread %d: %s: "
				    "%s", k->tid, exprs[i], cause != NULL ?
				    cause : "the thread exited");
				free(cause);
				cause = NULL;
				status = 1;
			} else
				answered++;
		}
		if (pending > 0)
			send_sleep_ms(2);
	}
	for (i = 0; i < n; i++) {
		if (got[i] != 1)
			continue;
		if (v[i].error) {
			rbmon_esc_line(stderr, "rbmon: thread %d: %s: %s",
			    k->tid, exprs[i], v[i].text);
			status = 1;
			continue;
		}
		if (n == 1)
			rbmon_esc_line(stdout, "%s%s", v[i].text,
			    v[i].truncated ? "..." : "");
		else
			rbmon_esc_line(stdout, "%s = %s%s", exprs[i],
			    v[i].text, v[i].truncated ? "..." : "");
		if (v[i].truncated)
			rbmon_esc_line(stderr, "rbmon: thread %d: %s: only %zu "
			    "of %d bytes: the global message area was in use "
			    "or too small", k->tid, exprs[i],
			    strlen(v[i].text), (int)v[i].reslength);
	}
	if (pending > 0) {
		fprintf(stderr, "rbmon: thread %d did not evaluate the watch "
		    "within %g s: it passed no hook since (blocked in a system "
		    "call, or running code built without "
		    "-finstrument-functions); the watch entry is freed when it "
		    "next passes one\n", k->tid, timeout);
		status = 2;
	}
	for (i = 0; i < n; i++)
		if (entry[i] >= 0)
			rbmon_ctl_watch_remove(c, k, entry[i]);
	/* A thread that answered acknowledges the removal at its next hook. */
	deadline = rbmon_mono_ns() + 2000000000ull;
	while (pending == 0 && answered > 0 && rbmon_mono_ns() < deadline) {
		for (i = 0; i < n; i++)
			if (entry[i] >= 0 &&
			    rbmon_ctl_watch_inuse(c, k, entry[i]) !=
			    RB_WATCH_FREE)
				break;
		if (i == n)
			break;
		send_sleep_ms(2);
	}
	for (i = 0; i < n; i++)
		rbmon_wval_free(&v[i]);
	return status;
}

/*
 * --send BRKP, BCLR, BLST: rbmon writes the file's breakpoint table
 * itself, so the thread need not pass a hook; the answers are as the
 * thread's would be.
 */
static int
send_bp(struct rbmon_ctl *c, const struct rbmon_cmd *k,
    const char *cmd, const char *args)
{
	struct rbmon_bp_scope	 sc;
	struct rbmon_symbols	*sy;
	char			*text = NULL;
	int			 r;

	if (rbmon_bp_scope_of(c, k, &sc, &text) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s", text);
		free(text);
		return 2;
	}
	sy = rbmon_symbols_new(stderr);
	r = rbmon_bp_run(c, sy, &sc, cmd, args, &text);
	rbmon_symbols_free(sy);
	/* BLST answers a line per breakpoint. */
	if (r == 1) {
		rbmon_esc_write(stdout, text, RBMON_ESC_NL);
		putchar('\n');
	} else if (r == 0)
		rbmon_esc_line(stderr, "rbmon: thread %d: %s", k->tid, text);
	else
		rbmon_esc_line(stderr, "rbmon: %s", text);
	free(text);
	return r == 1 ? 0 : r == 0 ? 1 : 2;
}

/* A live traced thread of @p, or NULL. */
static const struct rbmon_thread *
send_live_thread(const struct rbmon_process *p)
{
	size_t	j;

	if (!p->alive)
		return NULL;
	for (j = 0; j < p->nthreads; j++)
		if (rbmon_thread_live(rbmon_thread_state(p, &p->threads[j])))
			return &p->threads[j];
	return NULL;
}

/*
 * BLST and BCLR without --thread: the breakpoints are the process's, so
 * any live traced thread of it names them: the one process in the file,
 * or with -p the one @pid.  Return: its tid, or 0 with the reason said.
 */
static int32_t
send_bp_thread(struct rbmon_model *m, const char *path, long pid)
{
	struct rbmon_snapshot		 s;
	const struct rbmon_thread	*t, *one = NULL;
	char				*cause = NULL;
	size_t				 i, live = 0;
	int32_t				 tid = 0;

	if (rbmon_model_snapshot(m, &s, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s", cause);
		free(cause);
		return 0;
	}
	for (i = 0; i < s.nprocs; i++) {
		if ((t = send_live_thread(&s.procs[i])) == NULL)
			continue;
		live++;
		if (one == NULL && (pid == 0 || s.procs[i].pid == pid))
			one = t;
	}
	for (i = 0; one == NULL && pid != 0 && i < s.nprocs; i++)
		if (s.procs[i].pid == pid && s.procs[i].dyn != NULL &&
		    (s.procs[i].dyn->flags & RB_DYNF_DORMANT))
			break;
	if (one == NULL && pid != 0 && i < s.nprocs)
		fprintf(stderr, "rbmon: process %ld is asleep (dynamic tracing): "
		    "no thread is traced until rbtrace -p %ld wakes it\n", pid,
		    pid);
	else if (one == NULL && pid != 0)
		fprintf(stderr, "rbmon: process %ld has no live traced thread "
		    "in the file\n", pid);
	else if (one == NULL) {
		fputs("rbmon: ", stderr);
		rbmon_esc_fputs(path, stderr);
		fputs(": no live traced process\n", stderr);
	} else if (pid == 0 && live > 1) {
		fputs("rbmon: ", stderr);
		rbmon_esc_fputs(path, stderr);
		fprintf(stderr, " holds %zu traced processes (", live);
		for (i = 0, live = 0; i < s.nprocs; i++)
			if (send_live_thread(&s.procs[i]) != NULL)
				fprintf(stderr, "%s%d", live++ ? ", " : "",
				    s.procs[i].pid);
		fputs("): choose one with -p PID or -t TID\n", stderr);
	} else
		tid = one->tid;
	rbmon_model_free(&s);
	return tid;
}

/* EVON/EVOF: switch event logs in the file itself. */
static int
send_events(struct rbmon_ctl *c, struct rbmon_model *m, long pid,
    long tid, const char *cmd, const char *args)
{
	struct rbmon_snapshot	 s;
	char			*cause = NULL;
	int			 on = strcmp(cmd, "EVON") == 0, n;

	if (*args != '\0') {
		rbmon_esc_line(stderr, "rbmon: %s takes no argument", cmd);
		return 1;
	}
	if (rbmon_model_snapshot(m, &s, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s", cause);
		free(cause);
		return 2;
	}
	n = rbmon_events_switch(c, &s, (int32_t)pid, (int32_t)tid, on, &cause);
	rbmon_model_free(&s);
	if (n < 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", cmd, cause);
		free(cause);
		return 1;
	}
	if (tid != 0)
		printf("recording %s for thread %ld\n", on ? "on" : "off", tid);
	else
		printf("recording %s for %d thread%s%s\n", on ? "on" : "off",
		    n, n == 1 ? "" : "s", " and the threads started later");
	return 0;
}

/* --thread/--send/--set/--watch: one round of control, for scripts. */
static int
send_run(const char *path, long pid, long tid, const char *send,
    char **sets, int nsets, char **watches, int nwatches, double timeout)
{
	struct rbmon_model	 m;
	struct rbmon_ctl	 c;
	struct rbmon_cmd	 k;
	char			*cause = NULL, *args, cmd[5];
	int			 i, r, status = 0;

	memset(&k, 0, sizeof k);
	if (send != NULL && rbmon_ctl_parse(send, cmd, &args, &cause) != 0)
		rbmon_bad_usage("--send: %s", cause);
	if (send != NULL && strcmp(cmd, "MORE") == 0)
		rbmon_bad_usage("--send: MORE is what rbmon itself sends to "
		    "continue a long answer");
	if (rbmon_safeio_open_trace(&m, path, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		return 2;
	}
	if (rbmon_ctl_open(&c, &m, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s: %s", path, cause);
		free(cause);
		rbmon_model_close(&m);
		return 2;
	}
	if (rbmon_safeio_shared_write(m.fd))
		rbmon_esc_line(stderr, "rbmon: warning: %s is writable by "
		    "others than its owner: they can change what rbmon writes "
		    "to it (librbtrace joins no such file)", path);
	/* Stopped threads count their orphan timeout from here. */
	rbmon_ctl_heartbeat(&c);
	if (tid == 0 && send != NULL && rbmon_bp_is_command(cmd) &&
	    (tid = send_bp_thread(&m, path, pid)) == 0) {
		status = 2;
		goto out;
	}
	if (tid != 0 && rbmon_ctl_target(&c, (int32_t)tid, &k, &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s", cause);
		free(cause);
		status = 2;
		goto out;
	}
	for (i = 0; i < nsets; i++)
		if (send_set(&c, tid != 0 ? &k : NULL, sets[i],
		    timeout) != 0)
			status = 2;
	if (nwatches > 0 && status == 0) {
		status = send_watch(&c, &k, watches, nwatches, timeout);
		goto out;
	}
	if (send == NULL || status != 0)
		goto out;
	if (strcmp(cmd, "EVON") == 0 || strcmp(cmd, "EVOF") == 0) {
		status = send_events(&c, &m, pid, tid, cmd, args);
		goto out;
	}
	if (rbmon_bp_is_command(cmd)) {
		status = send_bp(&c, &k, cmd, args);
		goto out;
	}
	if (rbmon_ctl_post_wait(&c, &k, cmd, args, (uint64_t)(timeout * 1e9),
	    &cause) != 0) {
		rbmon_esc_line(stderr, "rbmon: %s", cause);
		free(cause);
		status = 2;
		goto out;
	}
	r = rbmon_ctl_wait(&c, &k, (uint64_t)(timeout * 1e9), &cause);
	if (r == 0 && rbmon_ctl_withdraw(&c, &k)) {
		fprintf(stderr, "rbmon: thread %ld did not answer within %g s: "
		    "it passed no hook since (blocked in a system call, or "
		    "running code built without -finstrument-functions); the "
		    "command was withdrawn, nothing was done\n", tid, timeout);
		status = 2;
	} else if (r == 0 &&
	    (r = rbmon_ctl_wait(&c, &k, 5 * 1000000000ull, &cause)) == 0) {
		fprintf(stderr, "rbmon: thread %ld took the command but did "
		    "not finish its answer\n", tid);
		status = 2;
	}
	if (r < 0) {
		rbmon_esc_line(stderr, "rbmon: %s", cause);
		free(cause);
		status = 2;
	} else if (r == 1 && k.ok) {
		rbmon_esc_line(stdout, "%s", k.text);
	} else if (r == 1) {
		rbmon_esc_line(stderr, "rbmon: thread %ld: %s", tid, k.text);
		status = 1;
	}
out:
	rbmon_cmd_free(&k);
	rbmon_ctl_close(&c);
	rbmon_model_close(&m);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rbmon: write error: %s\n", strerror(errno));
		status = 2;
	}
	return status;
}

static void
send_usage(FILE *f)
{
	fputs("Usage: rbmon send [OPTIONS] FILE\n"
	    "       rbmon send [OPTIONS] -p PID\n"
	    "One round of control, for scripts: the options --thread, --send, "
	    "--watch, --set\nand --timeout, as rbmon --help tells; rbmon send "
	    "with them is rbmon with them.\n"
	    "\n"
	    "  -t, --thread TID     the thread --send, --watch and thread flags "
	    "act on\n"
	    "      --send 'CMD [ARG]'  post one command to --thread and print "
	    "its answer\n"
	    "  -w, --watch EXPR     print the value of a C expression over the "
	    "program's\n"
	    "                       globals, as --thread evaluates it\n"
	    "      --set FLAG=0|1   set a flag\n"
	    "      --set min-duration=T  the file's minimum duration (0: off)\n"
	    "      --timeout SEC    how long --send and --watch wait (default "
	    "5)\n"
	    "  -p, --pid PID        use the trace file PID writes to; with a FILE,\n"
	    "                       the process of it BLST, BCLR, EVON and EVOF act on\n"
	    "  -h, --help           show this help\n", f);
}

/**
 * rbmon_cmd_send - `rbmon send --thread TID --send CMD FILE`, or rbmon with
 * --send, --watch or --set
 *
 * Return: 0, 1 for an error answer, 2 when there was no answer.
 */
int
rbmon_cmd_send(int argc, char **argv)
{
	struct rbmon_opts	 o;
	const char		*file;
	char			*found;
	int			 status;

	rbmon_opts_parse(&o, "send", argc, argv);
	if (rbmon_opts_answered(&o, send_usage))
		return 0;
	/* 2 whenever no answer was had */
	/* -p with a FILE chooses the process, not the file. */
	if ((file = rbmon_discover_file(o.file,
	    o.file != NULL ? 0 : o.pid, &found)) == NULL)
		status = 2;
	else
		status = send_run(file, o.pid, o.tid, o.send, o.sets,
		    o.nsets, o.watches, o.nwatches, o.timeout);
	free(found);
	rbmon_opts_free(&o);
	return status;
}
