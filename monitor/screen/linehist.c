/* SPDX-License-Identifier: MIT */
/*
 * rbmon linehist: the lines typed at each kind of prompt ("search",
 * "filter", "break", "watch"), kept across runs, one per line, in
 * $XDG_STATE_HOME/rbtrace/history-KIND.  The file is read only when it is
 * a regular file of the user's, at most its last 64 KiB, and a line the
 * editor could not hold is dropped; it is written whole to a file renamed
 * over it.  A failure is a message for the caller, never fatal: the
 * history then lives in memory only.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/outfile.h"
#include "monitor/screen/edit.h"
#include "monitor/util/escape.h"
#include "monitor/screen/linehist.h"
#include "monitor/core/model.h"

#define HIST_ENV_MAX	1024	/* longer $XDG_STATE_HOME, $HOME: ignored */

/* A directory from the environment: absolute and of a sane length. */
static int
hist_env_ok(const char *v)
{
	return v != NULL && v[0] == '/' && strnlen(v, HIST_ENV_MAX) <
	    HIST_ENV_MAX;
}

/* $XDG_STATE_HOME/rbtrace, else $HOME/.local/state/rbtrace. */
static char *
hist_dir(void)
{
	const char	*v = getenv("XDG_STATE_HOME");
	struct passwd	*pw;
	char		*dir;

	if (hist_env_ok(v)) {
		rbmon_xasprintf(&dir, "%s/rbtrace", v);
		return dir;
	}
	v = getenv("HOME");
	if (!hist_env_ok(v)) {
		pw = getpwuid(getuid());
		v = pw != NULL ? pw->pw_dir : NULL;
		if (!hist_env_ok(v))
			return NULL;
	}
	rbmon_xasprintf(&dir, "%s/.local/state/rbtrace", v);
	return dir;
}

/* The message for a failure on @path: "the KIND history ...: PATH: why". */
static void
hist_cause(char **cause, const struct rbmon_hist *h, const char *what,
    const char *path, const char *why)
{
	char	*p = rbmon_esc_dup(path);

	rbmon_xasprintf(cause, "the %s history %s: %s: %s", h->kind, what, p,
	    why);
	free(p);
}

/* Append @line (one the editor could hold); 0 if it repeats the last. */
static int
hist_push(struct rbmon_hist *h, const char *line)
{
	if (h->n > 0 && strcmp(h->line[h->n - 1], line) == 0)
		return 0;
	if (h->n == RBMON_HIST_MAX) {
		free(h->line[0]);
		memmove(h->line, h->line + 1, sizeof h->line[0] * (h->n - 1));
		h->n--;
	}
	h->line[h->n++] = rbmon_xstrdup(line);
	return 1;
}

/* A line the editor could hold: not empty, not too long, safe text. */
static int
hist_line_ok(const char *line, size_t len)
{
	return len > 0 && len <= RBMON_EDIT_MAX &&
	    rbmon_edit_safe(line, len) == len;
}

/* Up to the last RBMON_HIST_READ_MAX bytes of @fd, from a line's start. */
static int
hist_read(struct rbmon_hist *h, int fd, off_t size)
{
	char	*buf, *p, *nl;
	size_t	 want, got = 0;
	off_t	 off = 0;
	ssize_t	 r;
	int	 e;

	/* One byte more than the tail: is it at a line's start? */
	if (size > RBMON_HIST_READ_MAX)
		off = size - RBMON_HIST_READ_MAX - 1;
	want = (size_t)(size - off);
	buf = rbmon_xcalloc(want + 1, 1);
	while (got < want) {
		r = pread(fd, buf + got, want - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	p = buf;
	if (off > 0) {		/* the first line is cut (or the byte before) */
		nl = memchr(buf, '\n', got);
		p = nl != NULL ? nl + 1 : buf + got;
	}
	while (p < buf + got) {
		nl = memchr(p, '\n', (size_t)(buf + got - p));
		if (nl == NULL)
			nl = buf + got;
		*nl = '\0';
		if (hist_line_ok(p, (size_t)(nl - p)))
			hist_push(h, p);
		p = nl + 1;
	}
	free(buf);
	return 0;
}

/**
 * rbmon_hist_load - the history of one kind of prompt
 * @h: set to it (rbmon_hist_free() it, even after a failure)
 * @kind: "search", "filter", "break", "watch": lowercase letters
 * @cause: set on failure to a message to show once (free it)
 *
 * Reads $XDG_STATE_HOME/rbtrace/history-@kind ($XDG_STATE_HOME unset,
 * relative or absurdly long: $HOME/.local/state, $HOME from the password
 * database if it is no better).  A missing file is an empty history.  The
 * file is not read if it is a symbolic link, not a regular file (opening a
 * FIFO does not wait) or not the user's; of a larger one only the last
 * RBMON_HIST_READ_MAX bytes; lines that are empty, longer than
 * RBMON_EDIT_MAX, not UTF-8 or with control characters are dropped.  On
 * failure @h is an empty history all the same, saved by rbmon_hist_add()
 * if its file's name is known.  A zeroed struct rbmon_hist is an empty
 * history kept in memory only.
 *
 * Return: 0, or -1 with *@cause set.
 */
int
rbmon_hist_load(struct rbmon_hist *h, const char *kind, char **cause)
{
	struct stat	 st;
	char		*dir;
	size_t		 i;
	int		 fd, r;

	memset(h, 0, sizeof *h);
	*cause = NULL;
	for (i = 0; kind[i] >= 'a' && kind[i] <= 'z'; i++)
		;
	if (i == 0 || kind[i] != '\0' || i >= sizeof h->kind) {
		snprintf(h->kind, sizeof h->kind, "?");
		rbmon_xasprintf(cause, "no history kept for an invalid kind");
		return -1;
	}
	memcpy(h->kind, kind, i + 1);
	if ((dir = hist_dir()) == NULL) {
		rbmon_xasprintf(cause, "the %s history is not kept: no home "
		    "directory", h->kind);
		return -1;
	}
	rbmon_xasprintf(&h->path, "%s/history-%s", dir, h->kind);
	free(dir);

	fd = open(h->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		hist_cause(cause, h, "is not read", h->path, errno == ELOOP ?
		    "a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		hist_cause(cause, h, "is not read", h->path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		hist_cause(cause, h, "is not read", h->path,
		    !S_ISREG(st.st_mode) ? "not a regular file" :
		    "not owned by you");
		close(fd);
		return -1;
	}
	r = hist_read(h, fd, st.st_size);
	close(fd);
	if (r != 0) {
		hist_cause(cause, h, "is not read", h->path, strerror(-r));
		return -1;
	}
	return 0;
}

/* mkdir -p @dir, each new directory 0700. */
static int
hist_mkdirs(char *dir)
{
	char	*p;

	for (p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		if (p[-1] != '/') {
			char	c = *p;

			*p = '\0';
			if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
				*p = c;
				return -1;
			}
			*p = c;
		}
		if (*p == '\0')
			return 0;
	}
}

static int
hist_write_all(int fd, const char *buf, size_t len)
{
	ssize_t	r;

	while (len > 0) {
		r = write(fd, buf, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		buf += r;
		len -= (size_t)r;
	}
	return 0;
}

/*
 * Write the lines to a new file in the same directory, renamed over the
 * history if that is a regular file of the user's (rb_outfile_open()).
 */
static int
hist_save(struct rbmon_hist *h, char **cause)
{
	struct rb_outfile	 o;
	char			*dir, *buf, *slash;
	size_t			 len = 0, i, k;
	int			 fd, e = 0;

	dir = rbmon_xstrdup(h->path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (hist_mkdirs(dir) != 0) {
		hist_cause(cause, h, "is not saved", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	if (rb_outfile_open(&o, h->path, RB_OUTFILE_REPLACE, 0600) != 0) {
		hist_cause(cause, h, "is not saved", h->path, o.why);
		return -1;
	}
	fd = o.fd;
	for (i = 0; i < h->n; i++)
		len += strlen(h->line[i]) + 1;
	buf = rbmon_xcalloc(len + 1, 1);
	for (len = 0, i = 0; i < h->n; i++) {
		k = strlen(h->line[i]);
		memcpy(buf + len, h->line[i], k);
		buf[len + k] = '\n';
		len += k + 1;
	}
	if (hist_write_all(fd, buf, len) != 0)
		e = errno;
	free(buf);
	if (close(fd) != 0 && e == 0)
		e = errno;
	if (e != 0) {
		rb_outfile_discard(&o);
		hist_cause(cause, h, "is not saved", h->path, strerror(e));
		return -1;
	}
	if (rb_outfile_commit(&o) != 0) {
		hist_cause(cause, h, "is not saved", h->path, o.why);
		return -1;
	}
	return 0;
}

/**
 * rbmon_hist_add - keep a line that was entered, and save the history
 * @h: the history
 * @line: the line; nothing is kept if it is empty, repeats the newest, or
 *	is not one the editor could hold
 * @cause: set on a failure to save that was not reported yet: a message
 *	to show once (free it); NULL otherwise
 *
 * The oldest line goes when there are RBMON_HIST_MAX.  The file is written
 * again whole: lines another rbmon added to it meanwhile are lost.
 * Return: 0, or -1 when the history could not be saved (*@cause NULL if
 * that was already said since the last success).
 */
int
rbmon_hist_add(struct rbmon_hist *h, const char *line, char **cause)
{
	char	*why = NULL;

	*cause = NULL;
	if (!hist_line_ok(line, strlen(line)) || !hist_push(h, line) ||
	    h->path == NULL)
		return 0;
	if (hist_save(h, &why) == 0) {
		h->save_failed = 0;
		return 0;
	}
	if (!h->save_failed)
		*cause = why;
	else
		free(why);
	h->save_failed = 1;
	return -1;
}

/**
 * rbmon_hist_free - forget a history (its file stays)
 * @h: the history; zeroed, an empty history again
 */
void
rbmon_hist_free(struct rbmon_hist *h)
{
	size_t	i;

	for (i = 0; i < h->n; i++)
		free(h->line[i]);
	free(h->path);
	memset(h, 0, sizeof *h);
}
