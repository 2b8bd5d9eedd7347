/* SPDX-License-Identifier: MIT */
/* rbmon discover: trace files in a process's maps, $RBTRACE_DIR, $TMPDIR, /tmp. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/strl.h"

#include "common/tracepath.h"
#include "monitor/core/discover.h"
#include "monitor/core/dyn.h"
#include "monitor/util/escape.h"
#include "monitor/core/model.h"

static int
discover_is_trace(const char *name)
{
	size_t	n = strlen(name);

	return n > 6 && strcmp(name + n - 6, ".trace") == 0;
}

static int
discover_seen(const struct rbmon_found_list *l, const char *path)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (strcmp(l->v[i].path, path) == 0)
			return 1;
	}
	return 0;
}

static void
discover_examine(struct rbmon_found *f, pid_t want)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_process	*p;
	const struct rbmon_dyn	*d;
	size_t			 i, j;
	char			*cause = NULL;

	if (rbmon_model_open(&m, f->path, 0, &cause) != 0) {
		f->reason = cause;
		return;
	}
	f->creator_pid = m.hdr.creator_pid;
	strlcpy(f->program, m.hdr.program, sizeof f->program);
	f->created_ns = m.hdr.created_realtime_ns;
	if (want > 0 && m.hdr.creator_pid == want) {
		f->has_pid = 1;
		f->pid_alive = rbmon_model_pid_alive(want,
		    m.hdr.creator_start);
	}
	if (rbmon_model_pid_alive(m.hdr.creator_pid, m.hdr.creator_start))
		f->alive = 1;
	if (rbmon_model_snapshot(&m, &s, &cause) != 0) {
		f->reason = cause;
		rbmon_model_close(&m);
		return;
	}
	for (i = 0; i < s.nprocs; i++) {
		p = &s.procs[i];
		if (p->alive)
			f->alive = 1;
		if (want > 0 && p->pid == want) {
			f->has_pid = 1;
			if (p->alive)
				f->pid_alive = 1;
		}
		for (j = 0; p->alive && j < p->nthreads; j++) {
			if (p->threads[j].own == RB_OWN_LIVE)
				f->threads++;
		}
	}
	for (i = 0; i < s.dyn.n; i++) {
		d = &s.dyn.v[i];
		if (!d->torn && (d->flags & RB_DYNF_DORMANT) &&
		    rbmon_model_pid_alive(d->pid, d->pstart))
			f->dormant = 1;
	}
	rbmon_model_free(&s);
	rbmon_model_close(&m);
}

static void
discover_dir(struct rbmon_found_list *l, const char *dir, pid_t want)
{
	struct rbmon_found	*f;
	struct dirent		*de;
	struct stat		 st;
	DIR			*d;
	char			*path, real[PATH_MAX];

	d = opendir(dir);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!discover_is_trace(de->d_name))
			continue;
		rbmon_xasprintf(&path, "%s/%s", dir, de->d_name);
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
		    (st.st_uid != geteuid() && geteuid() != 0) ||
		    realpath(path, real) == NULL || discover_seen(l, real)) {
			free(path);
			continue;
		}
		free(path);
		l->v = rbmon_xreallocarray(l->v, l->n + 1, sizeof *l->v);
		f = &l->v[l->n++];
		memset(f, 0, sizeof *f);
		f->path = rbmon_xstrdup(real);
		f->uid = st.st_uid;
		discover_examine(f, want);
	}
	closedir(d);
}

static int
discover_cmp(const void *a, const void *b)
{
	const struct rbmon_found	*x = a, *y = b;

	if ((x->reason == NULL) != (y->reason == NULL))
		return x->reason == NULL ? -1 : 1;
	if (x->created_ns != y->created_ns)
		return x->created_ns < y->created_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void discover_scan_dirs(struct rbmon_found_list *, pid_t,
    const char *const *, size_t);

/**
 * rbmon_discover_scan - find the caller's trace files
 * @l: filled in; release with rbmon_discover_free()
 * @want: a pid to look for in each file, or 0
 *
 * Scans $RBTRACE_DIR, where the library puts default trace files ($TMPDIR
 * when it is absolute, rb_trace_dir()) and /tmp, each directory and each
 * file once (by realpath).  Files that fail validation are kept, with a
 * reason.
 */
void
rbmon_discover_scan(struct rbmon_found_list *l, pid_t want)
{
	const char	*dirs[3];

	dirs[0] = getenv("RBTRACE_DIR");
	dirs[1] = rb_trace_dir(getenv("TMPDIR"));
	dirs[2] = RB_TRACE_DIR_DEFAULT;
	discover_scan_dirs(l, want, dirs, 3);
}

/* rbmon_discover_scan() of the directories @dirs (@n, NULL ones skipped). */
static void
discover_scan_dirs(struct rbmon_found_list *l, pid_t want,
    const char *const *dirs, size_t ndirs)
{
	char		(*real)[PATH_MAX], *joined;
	size_t		 i, j, n = 0;

	memset(l, 0, sizeof *l);
	real = rbmon_xcalloc(ndirs + 1, sizeof *real);
	for (i = 0; i < ndirs; i++) {
		if (dirs[i] == NULL || *dirs[i] == '\0' ||
		    realpath(dirs[i], real[n]) == NULL)
			continue;
		for (j = 0; j < n; j++) {
			if (strcmp(real[j], real[n]) == 0)
				break;
		}
		if (j < n)
			continue;
		if (l->dirs == NULL)
			l->dirs = rbmon_xstrdup(real[n]);
		else {
			rbmon_xasprintf(&joined, "%s %s", l->dirs, real[n]);
			free(l->dirs);
			l->dirs = joined;
		}
		discover_dir(l, real[n], want);
		n++;
	}
	free(real);
	if (l->dirs == NULL)
		l->dirs = rbmon_xstrdup(ndirs > 0 && dirs[0] != NULL ? dirs[0] :
		    RB_TRACE_DIR_DEFAULT);
	qsort(l->v, l->n, sizeof *l->v, discover_cmp);
}

/**
 * rbmon_discover_free - release a scan
 * @l: filled by rbmon_discover_scan()
 */
void
rbmon_discover_free(struct rbmon_found_list *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].reason);
	}
	free(l->v);
	free(l->dirs);
	memset(l, 0, sizeof *l);
}

/* A file's owner for --list: the user name, else the number; escaped. */
static char *
discover_owner(uid_t uid)
{
	struct passwd	*pw = getpwuid(uid);
	char		*s;

	if (pw != NULL && pw->pw_name != NULL && *pw->pw_name != '\0')
		return rbmon_esc_dup(pw->pw_name);
	rbmon_xasprintf(&s, "%lu", (unsigned long)uid);
	return s;
}

/**
 * rbmon_discover_list - print the caller's trace files (--list)
 * @out: the table
 * @err: where to say there are none
 *
 * Paths, program names and reasons are escaped (escape.c).  When files
 * of other users are listed (root scans everyone's), an OWNER column
 * names the owner of every file.
 *
 * Return: the exit status, 0.
 */
int
rbmon_discover_list(FILE *out, FILE *err)
{
	struct rbmon_found_list	 l;
	struct rbmon_found	*f;
	struct timespec		 ts;
	uint64_t		 now, age;
	char			 agebuf[32], **path, **prog, *owner, *dirs;
	size_t			 i;
	int			 w = 4, others = 0;

	rbmon_discover_scan(&l, 0);
	if (l.n == 0) {
		dirs = rbmon_esc_dup(l.dirs);
		fprintf(err, "no trace files in %s\n", dirs);
		free(dirs);
		rbmon_discover_free(&l);
		return 0;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	path = rbmon_xcalloc(l.n, sizeof *path);
	prog = rbmon_xcalloc(l.n, sizeof *prog);
	for (i = 0; i < l.n; i++) {
		path[i] = rbmon_esc_dup(l.v[i].path);
		prog[i] = rbmon_esc_dup(l.v[i].reason != NULL ?
		    l.v[i].reason : l.v[i].program);
		if ((int)strlen(path[i]) > w)
			w = (int)strlen(path[i]);
		if (l.v[i].uid != geteuid())
			others = 1;
	}
	fprintf(out, "%-*s %7s %-16s %-5s %7s %-*s%s\n", w, "PATH", "PID",
	    "PROGRAM", "STATE", "THREADS", others ? 7 : 0, "AGE",
	    others ? " OWNER" : "");
	for (i = 0; i < l.n; i++) {
		f = &l.v[i];
		if (f->reason != NULL) {
			fprintf(out, "%-*s %7s %-16s invalid: %s", w, path[i],
			    "-", "-", prog[i]);
		} else {
			age = now > f->created_ns ? now - f->created_ns : 0;
			rbmon_age_format(agebuf, sizeof agebuf, age);
			fprintf(out, "%-*s %7d %-16s %-5s %7u %-*s", w,
			    path[i], f->creator_pid, prog[i],
			    f->alive ? "alive" : "gone", f->threads,
			    others ? 7 : 0, agebuf);
		}
		if (others) {
			owner = discover_owner(f->uid);
			fprintf(out, " %s", owner);
			free(owner);
		}
		if (f->reason == NULL && f->dormant)
			fputs(" dormant", out);
		fputc('\n', out);
		free(path[i]);
		free(prog[i]);
	}
	free(path);
	free(prog);
	rbmon_discover_free(&l);
	return 0;
}

/*
 * Whether the file at @path may go: still the regular file of this user
 * that was scanned (device and inode @st), a valid trace file, and no
 * process of it alive now.  Read again right before the unlink, so that a
 * program that started on it since the scan keeps it.
 */
static int
discover_prunable(const char *path, const struct stat *st)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct stat		 now;
	char			*cause = NULL;
	size_t			 i;
	int			 ok;

	if (lstat(path, &now) != 0 || !S_ISREG(now.st_mode) ||
	    now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
	    now.st_uid != geteuid())
		return 0;
	if (rbmon_model_open(&m, path, 0, &cause) != 0) {
		free(cause);
		return 0;
	}
	ok = fstat(m.fd, &now) == 0 && now.st_dev == st->st_dev &&
	    now.st_ino == st->st_ino && !rbmon_model_pid_alive(
	    m.hdr.creator_pid, m.hdr.creator_start);
	if (ok && rbmon_model_snapshot(&m, &s, &cause) == 0) {
		for (i = 0; i < s.nprocs && ok; i++)
			ok = !s.procs[i].alive;
		rbmon_model_free(&s);
	} else if (ok) {
		free(cause);
		ok = 0;
	}
	rbmon_model_close(&m);
	return ok;
}

static void
discover_size(char *buf, size_t len, uint64_t bytes)
{
	if (bytes >= 1024ull * 1024 * 1024)
		snprintf(buf, len, "%.1f GiB", (double)bytes / 1073741824.0);
	else
		snprintf(buf, len, "%.1f MiB", (double)bytes / 1048576.0);
}

/**
 * rbmon_discover_prune - remove the caller's trace files of programs that
 * are gone (--prune)
 * @out: a line per file removed, and the totals
 * @err: what could not be removed
 * @dirs: the directories to look in (@ndirs of them; none: those of
 *	rbmon_discover_scan())
 * @older_ns: only files created longer ago than this
 * @dry: say what would go, remove nothing
 *
 * Only valid trace files the caller owns are candidates (root's too: its
 * own only); files that are not trace files are never touched.  Each is
 * checked again just before it goes.
 *
 * Return: the exit status: 0, or 1 if a file could not be removed.
 */
int
rbmon_discover_prune(FILE *out, FILE *err, const char *const *dirs,
    size_t ndirs, uint64_t older_ns, int dry)
{
	struct rbmon_found_list	 l;
	struct rbmon_found	*f;
	struct timespec		 ts;
	struct stat		 st;
	uint64_t		 now, age, bytes = 0;
	size_t			 i, gone = 0, alive = 0, young = 0, others = 0;
	size_t			 invalid = 0, busy = 0;
	char			 agebuf[32], sizebuf[32];
	int			 status = 0;

	if (ndirs > 0)
		discover_scan_dirs(&l, 0, dirs, ndirs);
	else
		rbmon_discover_scan(&l, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	for (i = 0; i < l.n; i++) {
		f = &l.v[i];
		if (f->reason != NULL) {
			invalid++;
			continue;
		}
		if (f->uid != geteuid()) {
			others++;
			continue;
		}
		if (f->alive) {
			alive++;
			continue;
		}
		age = now > f->created_ns ? now - f->created_ns : 0;
		if (age < older_ns) {
			young++;
			continue;
		}
		if (lstat(f->path, &st) != 0 || !discover_prunable(f->path,
		    &st)) {
			busy++;
			continue;
		}
		if (!dry && unlink(f->path) != 0) {
			rbmon_esc_line(err, "rbmon: cannot remove %s: %s",
			    f->path, strerror(errno));
			status = 1;
			continue;
		}
		rbmon_age_format(agebuf, sizeof agebuf, age);
		discover_size(sizebuf, sizeof sizebuf,
		    (uint64_t)st.st_blocks * 512u);
		rbmon_esc_line(out, "%s %s (%s, pid %d, %s old, %s)",
		    dry ? "would remove" : "removed", f->path, f->program,
		    f->creator_pid, agebuf, sizebuf);
		bytes += (uint64_t)st.st_blocks * 512u;
		gone++;
	}
	discover_size(sizebuf, sizeof sizebuf, bytes);
	fprintf(out, "rbmon: %s %zu trace file%s (%s on disk)", dry ?
	    "would remove" : "removed", gone, gone == 1 ? "" : "s", sizebuf);
	if (alive != 0)
		fprintf(out, "; kept %zu of programs still running", alive);
	if (young != 0)
		fprintf(out, "; kept %zu younger than --older-than", young);
	if (busy != 0)
		fprintf(out, "; kept %zu that changed meanwhile", busy);
	if (others != 0)
		fprintf(out, "; left %zu of other users", others);
	if (invalid != 0)
		fprintf(out, "; left %zu that %s", invalid, invalid == 1 ?
		    "is not a trace file" : "are not trace files");
	fputc('\n', out);
	rbmon_discover_free(&l);
	return status;
}

/* The effective uid of process @pid, from /proc/PID/status; -1 if unknown. */
static long long
discover_proc_uid(pid_t pid)
{
	char		 path[64], *line = NULL;
	size_t		 cap = 0;
	long long	 uid = -1, r, e;
	FILE		*f;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "Uid: %lld %lld", &r, &e) == 2) {
			uid = e;
			break;
		}
	}
	free(line);
	fclose(f);
	return uid;
}

/*
 * Whether @path is a trace file of process @pid (started at @start, owned
 * by @uid): a regular file of that owner, valid, whose creator or one of
 * whose rings is that very process, pid and start time.  Sets *@created.
 */
static int
discover_claims(const char *path, pid_t pid, uint64_t start, long long uid,
    uint64_t *created)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct stat		 st;
	char			*cause = NULL;
	size_t			 i;
	int			 yes = 0;

	/* Never open what is not a regular file: devices map shared too. */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (rbmon_model_open(&m, path, 0, &cause) != 0) {
		free(cause);
		return 0;
	}
	if (fstat(m.fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (long long)st.st_uid != uid)
		goto out;
	*created = m.hdr.created_realtime_ns;
	if (m.hdr.creator_pid == pid && m.hdr.creator_start == start) {
		yes = 1;
		goto out;
	}
	if (rbmon_model_snapshot(&m, &s, &cause) != 0) {
		free(cause);
		goto out;
	}
	for (i = 0; i < s.nprocs && !yes; i++)
		yes = s.procs[i].pid == pid && s.procs[i].pstart == start;
	rbmon_model_free(&s);
out:
	rbmon_model_close(&m);
	return yes;
}

/*
 * The trace file process @pid has mapped, wherever it is: its shared
 * mappings of files, each examined once, that discover_claims() accepts;
 * the newest wins.  Return: a malloc'd path, or NULL.
 */
static char *
discover_maps(pid_t pid)
{
	char		 path[64], perms[8], *line = NULL, *name;
	char		*best = NULL, **seen = NULL;
	size_t		 cap = 0, nseen = 0, i, n;
	uint64_t	 start, created, best_ns = 0;
	unsigned long	 inode;
	long long	 uid;
	ssize_t		 len;
	FILE		*f;
	int		 at;

	start = rbmon_model_proc_start(pid);
	uid = discover_proc_uid(pid);
	if (start == 0 || uid < 0)
		return NULL;
	snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return NULL;
	/* "lo-hi perms offset dev inode   path": the path runs to the end */
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		at = 0;
		if (sscanf(line, "%*s %7s %*s %*s %lu %n", perms, &inode,
		    &at) != 2 || at == 0 || perms[3] != 's' || inode == 0)
			continue;
		name = line + at;
		n = strlen(name);
		if (name[0] != '/' || (n > 10 &&
		    strcmp(name + n - 10, " (deleted)") == 0))
			continue;
		for (i = 0; i < nseen && strcmp(seen[i], name) != 0; i++)
			;
		if (i < nseen)
			continue;
		seen = rbmon_xreallocarray(seen, nseen + 1, sizeof *seen);
		seen[nseen++] = rbmon_xstrdup(name);
		created = 0;
		if (!discover_claims(name, pid, start, uid, &created))
			continue;
		if (best == NULL || created >= best_ns) {
			free(best);
			best = rbmon_xstrdup(name);
			best_ns = created;
		}
	}
	free(line);
	fclose(f);
	for (i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	/* The maps were those of the process we checked, not of a new one. */
	if (best != NULL && rbmon_model_proc_start(pid) != start) {
		free(best);
		best = NULL;
	}
	return best;
}

/*
 * Whether process @pid has librbtrace loaded (a mapping of a file named
 * librbtrace.so*): 1 yes, 0 no, -1 cannot tell (gone, or maps unreadable).
 */
static int
discover_has_lib(pid_t pid)
{
	char		 path[64], *line = NULL, *name;
	size_t		 cap = 0;
	ssize_t		 len;
	FILE		*f;
	int		 at, yes = 0, any = 0;

	snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	while (!yes && (len = getline(&line, &cap, f)) > 0) {
		any = 1;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		at = 0;
		if (sscanf(line, "%*s %*s %*s %*s %*s %n", &at) != 0 ||
		    at == 0 || line[at] != '/')
			continue;
		name = strrchr(line + at, '/') + 1;
		yes = strncmp(name, "librbtrace.so", 13) == 0;
	}
	/* a zombie's maps are empty: nothing to tell from */
	if (ferror(f) || !any)
		yes = -1;
	free(line);
	fclose(f);
	return yes;
}

/*
 * Why a scanned file that names @pid does not count for it, or NULL if it
 * does.  A live process (started at @start, owned by @uid) must be in the
 * file, pid and start time, and own it; for a pid that is gone nothing can
 * vouch for a file, so only the caller's own files count.
 */
static char *
discover_refuse(const struct rbmon_found *f, pid_t pid, uint64_t start,
    long long uid, uint64_t *created)
{
	char	*why = NULL;

	*created = f->created_ns;
	if (start != 0 && uid >= 0) {
		if ((long long)f->uid != uid)
			rbmon_xasprintf(&why, "it belongs to uid %lu, process "
			    "%ld to uid %lld", (unsigned long)f->uid,
			    (long)pid, uid);
		else if (!discover_claims(f->path, pid, start, uid, created))
			rbmon_xasprintf(&why, "process %ld is not in it (its "
			    "start time differs: another process had the pid)",
			    (long)pid);
	} else if (f->uid != geteuid())
		rbmon_xasprintf(&why, "it belongs to uid %lu and process %ld "
		    "is gone: nothing shows the file is its", (unsigned long)
		    f->uid, (long)pid);
	return why;
}

/**
 * rbmon_discover_pid - the trace file a process writes to (-p)
 * @pid: its creator or any process with a ring in it
 * @notes: where to name the files refused, or NULL
 * @cause: message on failure
 *
 * A live process's own mappings come first (a trace file in any
 * directory); otherwise the directories are scanned.  A file counts for a
 * live process only if the process's owner owns it and the process, pid
 * and start time, created it or has a ring in it; for a pid that is gone,
 * only the caller's own files count.  Among those the newest wins.
 *
 * Return: a malloc'd path, or NULL with *@cause set.
 */
char *
rbmon_discover_pid(pid_t pid, FILE *notes, char **cause)
{
	struct rbmon_found_list	 l;
	struct rbmon_found	*f, *best = NULL;
	uint64_t		 start, created, best_ns = 0;
	long long		 uid;
	char			*path, *why, *refused = NULL;
	size_t			 i, nrefused = 0;

	path = discover_maps(pid);
	if (path != NULL)
		return path;
	start = rbmon_model_proc_start(pid);
	uid = start != 0 ? discover_proc_uid(pid) : -1;
	rbmon_discover_scan(&l, pid);
	for (i = 0; i < l.n; i++) {
		f = &l.v[i];
		if (f->reason != NULL || !f->has_pid)
			continue;
		why = discover_refuse(f, pid, start, uid, &created);
		if (why != NULL) {
			if (notes != NULL)
				rbmon_esc_line(notes, "rbmon: note: %s names "
				    "pid %ld but does not count for it: %s",
				    f->path, (long)pid, why);
			if (refused == NULL)
				rbmon_xasprintf(&refused, "%s: %s", f->path,
				    why);
			nrefused++;
			free(why);
			continue;
		}
		if (best == NULL || created >= best_ns) {
			best = f;
			best_ns = created;
		}
	}
	if (best == NULL && refused != NULL) {
		rbmon_xasprintf(cause, "no trace file for pid %ld: %zu file%s "
		    "name%s it but do%s not count for it (%s)", (long)pid,
		    nrefused, nrefused == 1 ? "" : "s", nrefused == 1 ? "s" :
		    "", nrefused == 1 ? "es" : "", refused);
	} else if (best == NULL && start != 0 && discover_has_lib(pid) == 1) {
		rbmon_xasprintf(cause, "no trace file for pid %ld (librbtrace "
		    "is loaded in it but it maps no trace file: nothing it ran "
		    "was instrumented yet, build it with -finstrument-functions;"
		    " none in %s; see rbmon --list)", (long)pid, l.dirs);
	} else if (best == NULL && start != 0 && discover_has_lib(pid) == 0) {
		rbmon_xasprintf(cause, "no trace file for pid %ld (librbtrace "
		    "is not loaded in it: run it under rbtrace, or attach with "
		    "rbtrace -p; none in %s; see rbmon --list)", (long)pid,
		    l.dirs);
	} else if (best == NULL) {
		rbmon_xasprintf(cause, "no trace file for pid %ld (none mapped "
		    "by it, none in %s; see rbmon --list)", (long)pid, l.dirs);
	}
	path = best != NULL ? rbmon_xstrdup(best->path) : NULL;
	free(refused);
	rbmon_discover_free(&l);
	return path;
}

/**
 * rbmon_any_alive - is any process of a trace file alive: one of @s's, or
 * the file's creator
 */
int
rbmon_any_alive(const struct rbmon_model *m, const struct rbmon_snapshot *s)
{
	size_t	i;

	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].alive)
			return 1;
	return rbmon_model_pid_alive(m->hdr.creator_pid, m->hdr.creator_start);
}

/**
 * rbmon_discover_file - the trace file a command works on: @file, or the
 * one @pid writes to
 * @found: set to what was found for @pid, for the caller to free, or NULL
 *
 * Return: the path, or NULL after saying why on stderr.
 */
const char *
rbmon_discover_file(const char *file, long pid, char **found)
{
	char	*cause = NULL;

	*found = NULL;
	if (pid == 0)
		return file;
	*found = rbmon_discover_pid((pid_t)pid, stderr, &cause);
	if (*found == NULL) {
		rbmon_esc_line(stderr, "rbmon: %s", cause);
		free(cause);
	}
	return *found;
}
