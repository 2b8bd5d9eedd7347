/* SPDX-License-Identifier: MIT */
/*
 * attach.c - rbtrace -p: trace a program that already runs (rbtrace(1),
 * "ATTACH").
 *
 * First a look from outside, which stops nothing: /proc/PID/maps names
 * every object the process has loaded; one of them must call the hooks
 * (rb_elf_calls_hooks(): built with -finstrument-functions, or calling
 * the API of <rbtrace/rbtrace.h>), and no other librbtrace may be there
 * (the program would be traced already).  Then one thread is stopped briefly (inject.c): librbtrace is
 * loaded with dlopen() unless it is there from an earlier attach, and
 * __rbtrace_start() called, which starts the request in a thread of the
 * program's and returns the address of its status block; the thread
 * stopped goes on, and the status block is read from outside
 * (/proc/PID/mem) until the request is done (lib/attach.c).  A detach
 * goes the same way.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tools/attach.h"
#include "tools/elfsym.h"
#include "tools/proc.h"
#include "tools/inject.h"

/* What /proc/PID/maps shows. */
struct at_maps {
	bool	readable;
	bool	hooks;		/* an object calls the hooks (rb_elf_calls_hooks()) */
	bool	ours;		/* this librbtrace is loaded */
	bool	loader;		/* a dynamic loader is mapped: not static */
	bool	runtime;	/* the sanitizer runtime of this build is mapped */
	char	other[PATH_MAX];	/* another librbtrace, loaded at start */
};

static void at_scan_maps(pid_t pid, const char *lib, struct at_maps *m)
{
	char name[64], line[PATH_MAX + 256], last[PATH_MAX] = "";
	char in[PATH_MAX + 32];
	struct stat libsb, sansb;
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (stat(lib, &libsb) != 0)
		memset(&libsb, 0, sizeof(libsb));
	memset(&sansb, 0, sizeof(sansb));
#ifdef RB_SAN_RUNTIME
	if (stat(RB_SAN_RUNTIME, &sansb) != 0)
		memset(&sansb, 0, sizeof(sansb));
#else
	m->runtime = true;		/* none needed */
#endif
	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *path = strchr(line, '/'), *nl, *base;

		if (path == NULL)
			continue;
		m->readable = true;
		nl = strchr(path, '\n');
		if (nl != NULL)
			*nl = '\0';
		if (strcmp(path, last) == 0)
			continue;
		snprintf(last, sizeof(last), "%s", path);
		base = strrchr(path, '/') + 1;
		if (strncmp(base, "ld-", 3) == 0 || strncmp(base, "ld.so", 5) == 0)
			m->loader = true;
		if (strncmp(base, "librbtrace.so", 13) == 0) {
			if (rb_proc_same_file(pid, path, &libsb))
				m->ours = true;
			else
				snprintf(m->other, sizeof(m->other), "%s", path);
			continue;
		}
		if (!m->runtime && sansb.st_ino != 0 &&
		    rb_proc_same_file(pid, path, &sansb))
			m->runtime = true;
		snprintf(in, sizeof(in), "/proc/%d/root%s", (int)pid, path);
		if (!m->hooks && rb_elf_file_calls_hooks(in))
			m->hooks = true;
	}
	/* The process's own maps are never empty: a read refused gives nothing. */
	fclose(f);
}

/* The program's name, for messages: its comm, escaped by the caller. */
static void at_comm(pid_t pid, char *out, size_t size)
{
	char name[64];
	FILE *f;
	size_t i;

	snprintf(name, sizeof(name), "/proc/%d/comm", (int)pid);
	snprintf(out, size, "?");
	f = fopen(name, "re");
	if (f == NULL)
		return;
	if (fgets(out, (int)size, f) == NULL)
		snprintf(out, size, "?");
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	for (i = 0; out[i] != '\0'; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] >= 0x7f)
			out[i] = '?';
}

/*
 * The library's status block (lib/attach.c, __rbtrace_start()): the
 * request runs in a thread of the program's while the program runs on;
 * its reply is read from outside until done is set.
 */
struct at_status {
	int32_t		done;
	int32_t		ret;
	char		msg[2048];
};

/* How long a request may run in the program. */
#define AT_WAIT_MS	30000

/*
 * Wait for the request whose status block is at @addr in @pid to be done,
 * reading the program's memory without stopping it.  Return: 0 with @st
 * filled, or -1 with @why set.
 */
static int at_wait_done(pid_t pid, uint64_t addr, struct at_status *st,
			char *why, size_t whylen)
{
	const struct timespec tick = { 0, 200000 };
	char mem[64];
	unsigned waited = 0;
	int32_t done = 0;
	int fd;

	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, errno == ENOENT ? "%d exited while being attached"
			 : "cannot read the memory of %d: %s", (int)pid, strerror(errno));
		return -1;
	}
	for (;;) {
		if (pread(fd, &done, sizeof(done), (off_t)addr) != (ssize_t)sizeof(done)) {
			/* An exited process reads as nothing. */
			snprintf(why, whylen, "%d exited while being attached", (int)pid);
			break;
		}
		if (done == 1) {
			if (pread(fd, st, sizeof(*st), (off_t)addr) != (ssize_t)sizeof(*st)) {
				snprintf(why, whylen, "%d exited while being attached", (int)pid);
				break;
			}
			close(fd);
			st->msg[sizeof(st->msg) - 1] = '\0';
			return 0;
		}
		if (waited >= AT_WAIT_MS * 5) {
			snprintf(why, whylen, "%d did not finish the request in %u s; it runs on "
				 "in the program", (int)pid, AT_WAIT_MS / 1000);
			break;
		}
		nanosleep(&tick, NULL);
		waited++;
	}
	close(fd);
	return -1;
}

/* @text's characters that a terminal would act on, as '?'. */
static void at_printable(char *text)
{
	for (; *text != '\0'; text++)
		if ((unsigned char)*text < 0x20 || (unsigned char)*text == 0x7f)
			*text = *text == '\n' ? '\n' : '?';
}

/* Threads whose registers go to the library at most in one call. */
#define AT_SEED_MAX	4096
#define AT_SEED_LINE	(9 * 17 + 1)

/*
 * After an attach: every thread of @pid stopped at once under ptrace
 * (none signalled), and their registers given to the library (a seed
 * request of __rbtrace_start(), lib/attach.c) in one of them, which
 * makes a ring for each that has none, seeded with the frames it is in:
 * threads asleep since before the attach show at once.  Fills @a->seeded.
 */
static void at_seed(pid_t pid, const char *lib, struct rbtrace_attach *a)
{
	struct rb_inject_thread *th;
	unsigned sum[5] = { 0 }, v[5];
	char err[1024], msg[256], *req;
	struct rb_inject *in;
	size_t per, len;
	int n, i, j, fret;

	/* Looked up before anything stops: the threads are held for the call alone. */
	if (rb_inject_resolve(pid, lib, "__rbtrace_start", err, sizeof(err)) != 0) {
		snprintf(a->seeded, sizeof(a->seeded),
			 "threads not looked at: %s", err);
		return;
	}
	in = rb_inject_open(pid, 0, err, sizeof(err));
	if (in == NULL) {
		snprintf(a->seeded, sizeof(a->seeded),
			 "threads not looked at: %s", err);
		return;
	}
	th = calloc(AT_SEED_MAX, sizeof(*th));
	per = RB_INJECT_ARG_MAX / AT_SEED_LINE - 1;
	req = malloc(per * AT_SEED_LINE + 6);
	n = th == NULL || req == NULL ? -1 :
	    rb_inject_hold(in, th, AT_SEED_MAX, err, sizeof(err));
	if (n < 0 && th != NULL && req != NULL)
		snprintf(a->seeded, sizeof(a->seeded),
			 "threads not looked at: %s", err);
	for (i = 0; i < n; i += (int)per) {
		len = (size_t)snprintf(req, 6, "seed\n");
		for (j = i; j < n && j < i + (int)per; j++)
			len += (size_t)snprintf(req + len, AT_SEED_LINE + 1,
				"%x %llx %llx %llx %llx %llx %llx %llx %llx\n",
				(unsigned)th[j].tid,
				(unsigned long long)th[j].rip,
				(unsigned long long)th[j].rsp,
				(unsigned long long)th[j].rbp,
				(unsigned long long)th[j].rbx,
				(unsigned long long)th[j].r12,
				(unsigned long long)th[j].r13,
				(unsigned long long)th[j].r14,
				(unsigned long long)th[j].r15);
		msg[0] = '\0';
		if (rb_inject_call(in, lib, "__rbtrace_start", req, &fret, msg,
				   sizeof(msg), err, sizeof(err)) != 0) {
			snprintf(a->seeded, sizeof(a->seeded),
				 "threads not looked at: %s", err);
			break;
		}
		if (fret != 0 || sscanf(msg, "%u %u %u %u %u", &v[0], &v[1],
					&v[2], &v[3], &v[4]) != 5)
			break;
		for (j = 0; j < 5; j++)
			sum[j] += v[j];
	}
	a->seed_ms = (double)rb_inject_close(in) / 1e6;
	free(req);
	free(th);
	a->threads = n > 0 ? (unsigned)n : 0;
	if (a->seeded[0] == '\0' && n > 0) {
		unsigned made = sum[0] + sum[1] + sum[2];

		snprintf(a->seeded, sizeof(a->seeded),
			 "%u thread%s without a ring shown with %s stack%s "
			 "(%u whole, %u in part, %u with none found)%s",
			 made, made == 1 ? "" : "s",
			 made == 1 ? "its" : "their", made == 1 ? "" : "s",
			 sum[0], sum[1], sum[2],
			 sum[4] != 0 ? "; some found no ring free" : "");
	}
	at_printable(a->seeded);
}

int rbtrace_attach_run(pid_t pid, const char *lib, const char *spec,
		       int mode, struct rbtrace_attach *a)
{
	int detach = mode == RBTRACE_AT_DETACH, dyn = mode == RBTRACE_AT_DYN;
	char comm[64], err[1024], msg[2048], *req;
	struct at_status st;
	struct rb_inject *in;
	uint64_t addr;
	int fret = -1;
	struct at_maps m;
	struct stat sb;
	char *nl;
	int ret = -1;

	memset(a, 0, sizeof(*a));
	snprintf(msg, sizeof(msg), "/proc/%d", (int)pid);
	if (pid <= 0 || stat(msg, &sb) != 0) {
		snprintf(a->line, sizeof(a->line), "no process %d", (int)pid);
		return 1;
	}
	at_comm(pid, comm, sizeof(comm));
	at_scan_maps(pid, lib, &m);
	if (m.readable && m.other[0] != '\0') {
		snprintf(a->line, sizeof(a->line),
			 detach ? "%d (%s) has librbtrace from its start (%s), not attached: there is nothing to detach"
				: "%d (%s) is traced already: librbtrace was loaded at its start (%s); see rbmon --list",
			 (int)pid, comm, m.other);
		return 1;
	}
	if (m.readable && !m.loader) {
		snprintf(a->line, sizeof(a->line),
			 "%d (%s) is a static program: it has no dynamic loader to load librbtrace with",
			 (int)pid, comm);
		return 1;
	}
	if (m.readable && dyn && !m.ours) {
		snprintf(a->line, sizeof(a->line),
			 "%d (%s) is not traced: librbtrace is not loaded in it",
			 (int)pid, comm);
		return 2;
	}
	if (m.readable && detach && !m.ours) {
		snprintf(a->line, sizeof(a->line),
			 "%d (%s) is not attached: librbtrace is not loaded in it",
			 (int)pid, comm);
		return 1;
	}
	if (m.readable && !detach && !m.hooks) {
		snprintf(a->line, sizeof(a->line),
			 "%d (%s) cannot be traced: nothing it has loaded calls "
			 "__cyg_profile_func_enter; build it with -finstrument-functions",
			 (int)pid, comm);
		return 1;
	}
#ifdef RB_SAN_RUNTIME
	/*
	 * A sanitized librbtrace.so works only in a process whose sanitizer
	 * runtime was loaded first, at its start: loaded later it kills it.
	 */
	if (m.readable && !detach && !m.ours && !m.runtime) {
		snprintf(a->line, sizeof(a->line),
			 "%d (%s) was started without %s, which this sanitized build's librbtrace "
			 "needs loaded first: start it with that first in LD_PRELOAD, or attach "
			 "with an rbtrace built without sanitizers",
			 (int)pid, comm, RB_SAN_RUNTIME);
		return 1;
	}
#endif
	/* The process must see the library at the same path, in its root. */
	if (!m.ours && !detach && rb_proc_other_mounts(pid) &&
	    (stat(lib, &sb) != 0 || !rb_proc_same_file(pid, lib, &sb))) {
		snprintf(a->line, sizeof(a->line),
			 "%d (%s) runs in another mount namespace (a container?) "
			 "where %s is not this librbtrace: copy it to that path inside",
			 (int)pid, comm, lib);
		return 1;
	}
	/* Loaded already: looked up before the thread is stopped. */
	if (m.ours && rb_inject_resolve(pid, lib, "__rbtrace_start", err,
					sizeof(err)) != 0) {
		snprintf(a->line, sizeof(a->line), "%s", err);
		return 1;
	}
	in = rb_inject_open(pid, 0, err, sizeof(err));
	if (in == NULL) {
		snprintf(a->line, sizeof(a->line), "%s", err);
		return 1;
	}
	a->tid = rb_inject_tid(in);
	if (!m.ours && !detach && !dyn &&
	    rb_inject_dlopen(in, lib, err, sizeof(err)) != 0) {
		a->pause_ms = (double)rb_inject_close(in) / 1e6;
		snprintf(a->line, sizeof(a->line), "%s", err);
		return 1;
	}
	/* Started there; done while the program runs on. */
	req = malloc(strlen(spec) + 8);
	if (req == NULL) {
		a->pause_ms = (double)rb_inject_close(in) / 1e6;
		snprintf(a->line, sizeof(a->line), "out of memory");
		return 1;
	}
	snprintf(req, strlen(spec) + 8, "%s\n%s",
		 dyn ? "dyn" : detach ? "detach" : "attach", detach ? "" : spec);
	msg[0] = '\0';
	ret = rb_inject_call(in, lib, "__rbtrace_start", req, &fret, msg,
			     sizeof(msg), err, sizeof(err));
	free(req);
	a->pause_ms = (double)rb_inject_close(in) / 1e6;
	if (ret != 0) {
		snprintf(a->line, sizeof(a->line), "%s", err);
		return 1;
	}
	msg[sizeof(msg) - 1] = '\0';
	if (fret != 0 || strncmp(msg, "0x", 2) != 0) {
		at_printable(msg);
		snprintf(a->line, sizeof(a->line), "%d (%s): %s", (int)pid, comm,
			 msg);
		return 1;
	}
	addr = strtoull(msg, NULL, 16);
	if (at_wait_done(pid, addr, &st, err, sizeof(err)) != 0) {
		snprintf(a->line, sizeof(a->line), "%s", err);
		return 1;
	}
	snprintf(msg, sizeof(msg), "%s", st.msg);
	at_printable(msg);
	if (st.ret != 0) {
		snprintf(a->line, sizeof(a->line), "%d (%s): %s", (int)pid, comm,
			 msg);
		return 1;
	}
	/* The reply: the trace file's path, then what was done. */
	nl = strchr(msg, '\n');
	if (nl != NULL)
		*nl++ = '\0';
	if (rb_proc_other_mounts(pid))
		snprintf(a->file, sizeof(a->file), "/proc/%d/root%s", (int)pid, msg);
	else
		snprintf(a->file, sizeof(a->file), "%s", msg);
	snprintf(a->line, sizeof(a->line), "%s", nl != NULL ? nl : "");
	if (mode == RBTRACE_AT_ATTACH)
		at_seed(pid, lib, a);
	return 0;
}
