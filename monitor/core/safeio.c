/* SPDX-License-Identifier: MIT */
/*
 * rbmon safeio: a trace file or a recording names other files (the
 * objects its programs loaded, and through them their debug files), and
 * whoever wrote the file chose those names.  rbmon opens them as regular
 * files only, without blocking, and, run by root, with the file owner's
 * rights alone; what it writes where its user asked, it writes as that
 * user.  See rbmon(1), "HOSTILE FILES" and "FILES IT WRITES".
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/outfile.h"
#include "monitor/core/model.h"
#include "monitor/core/safeio.h"

/**
 * rbmon_safeio_open - open a file a trace file names, for reading
 * @path: the name
 * @why: set to what is wrong when it cannot be used
 *
 * Non-blocking, so that a FIFO cannot hold rbmon in open(); no controlling
 * terminal; then only a regular file is kept: never a FIFO, a socket or a
 * device.  Symbolic links are followed with the caller's filesystem rights
 * (as root, the trace file owner's: rbmon_safeio_become_owner()).
 *
 * Return: the descriptor (close-on-exec), or -1 with errno and *@why set.
 */
int
rbmon_safeio_open(const char *path, const char **why)
{
	struct stat	st;
	int		fd, e;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		e = errno;
		*why = strerror(e);
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* The supplementary groups of user @pw, primary group @gid among them. */
static gid_t *
safeio_groups(const struct passwd *pw, gid_t gid, int *n)
{
	gid_t	*g = NULL;
	int	 cap = 16, want;

	for (;;) {
		g = rbmon_xreallocarray(g, (size_t)cap, sizeof *g);
		want = cap;
		if (pw == NULL) {
			g[0] = gid;
			*n = 1;
			return g;
		}
		if (getgrouplist(pw->pw_name, gid, g, &want) >= 0) {
			*n = want;
			return g;
		}
		if (want <= cap)
			cap *= 2;
		else
			cap = want;
	}
}

/* The identity rbmon_safeio_become_user() left, for rbmon_safeio_become_self(). */
static struct {
	int	 changed;
	gid_t	*groups;
	int	 ngroups;
} safeio_self;

/**
 * rbmon_safeio_become_owner - act on files as the owner of a trace file
 * @fd: the open trace file
 * @cause: message on failure
 *
 * Run by root on another user's file, rbmon takes that user's filesystem
 * identity for the rest of its run (fsuid, fsgid and the user's groups):
 * every file it opens afterwards, through a name the trace file holds or
 * one the debug information of such a file holds, is opened as that user
 * could, and rbmon never reads through one what the user could not.
 * Nothing changes for other users, or on root's own files.
 *
 * Return: 0, or -1 with *@cause set: then rbmon must not go on.
 */
int
rbmon_safeio_become_owner(int fd, char **cause)
{
	struct stat	 st;

	if (geteuid() != 0)
		return 0;
	if (fstat(fd, &st) != 0) {
		rbmon_xasprintf(cause, "%s", strerror(errno));
		return -1;
	}
	return rbmon_safeio_become_user(st.st_uid, st.st_gid, cause);
}

/**
 * rbmon_safeio_become_user - act on files as user @uid
 * @uid: the owner of the file read (a trace file, a recording)
 * @gid: its group, the group taken if @uid has no passwd entry
 * @cause: message on failure
 *
 * As rbmon_safeio_become_owner(), for a file whose owner is known.
 * Return: 0, or -1 with *@cause set: then rbmon must not go on.
 */
int
rbmon_safeio_become_user(uid_t uid, gid_t gid, char **cause)
{
	struct passwd	*pw;
	gid_t		*groups;
	int		 n, e = 0;

	if (geteuid() != 0 || uid == 0)
		return 0;
	if (!safeio_self.changed) {
		n = getgroups(0, NULL);
		safeio_self.groups = rbmon_xcalloc(n > 0 ? (size_t)n : 1,
		    sizeof *safeio_self.groups);
		safeio_self.ngroups = n > 0 ? getgroups(n,
		    safeio_self.groups) : 0;
		if (safeio_self.ngroups < 0)
			safeio_self.ngroups = 0;
	}
	safeio_self.changed = 1;
	pw = getpwuid(uid);
	if (pw != NULL)
		gid = pw->pw_gid;
	groups = safeio_groups(pw, gid, &n);
	if (setgroups((size_t)n, groups) != 0)
		e = errno;
	free(groups);
	/* setfsuid() tells no error: the value it returns next says. */
	if (e == 0) {
		setfsgid(gid);
		if ((gid_t)setfsgid((gid_t)-1) != gid)
			e = EPERM;
	}
	if (e == 0) {
		setfsuid(uid);
		if ((uid_t)setfsuid((uid_t)-1) != uid)
			e = EPERM;
	}
	if (e != 0) {
		rbmon_xasprintf(cause, "cannot take the file access rights of "
		    "its owner, uid %lu: %s", (unsigned long)uid, strerror(e));
		return -1;
	}
	return 0;
}

/**
 * rbmon_safeio_become_self - act on files as rbmon's own user again
 *
 * For what rbmon writes where its user asked (an export's, a profile's
 * -o): the file is created before rbmon_safeio_become_user() and given its
 * name after this.  Nothing to do if rbmon never took another identity.
 */
void
rbmon_safeio_become_self(void)
{
	if (!safeio_self.changed)
		return;
	setfsuid(geteuid());
	setfsgid(getegid());
	(void)setgroups((size_t)safeio_self.ngroups, safeio_self.groups);
	free(safeio_self.groups);
	memset(&safeio_self, 0, sizeof safeio_self);
}

/**
 * rbmon_safeio_output - create the file a command writes, named by its -o
 * @o: the file (rb_outfile_open()), until rbmon_safeio_output_done()
 * @path: the name the user gave
 * @cause: on failure, what is wrong (to free)
 *
 * Created as rbmon's own user, before rbmon_safeio_become_user(), under
 * a temporary name in the same directory: it takes its name whole, at
 * rbmon_safeio_output_done(), replacing only a regular file of the user's.
 *
 * Return: the stream, or NULL with *@cause set.
 */
FILE *
rbmon_safeio_output(struct rb_outfile *o, const char *path, char **cause)
{
	FILE	*f;
	int	 e;

	if (rb_outfile_open(o, path, RB_OUTFILE_REPLACE, 0666) != 0) {
		rbmon_xasprintf(cause, "%s", o->why);
		return NULL;
	}
	if ((f = fdopen(o->fd, "w")) == NULL) {
		e = errno;
		close(o->fd);
		rb_outfile_discard(o);
		rbmon_xasprintf(cause, "%s", strerror(e));
		return NULL;
	}
	return f;
}

/**
 * rbmon_safeio_output_done - close an output and give it its name
 * @o: from rbmon_safeio_output()
 * @f: its stream, closed here
 * @keep: 0 when what was written is not wanted: the file goes
 * @cause: on failure, what is wrong (to free); NULL if @keep is 0
 *
 * As rbmon's own user again (rbmon_safeio_become_self()); a write that
 * failed leaves no file.
 *
 * Return: 0, or -1 with *@cause set.
 */
int
rbmon_safeio_output_done(struct rb_outfile *o, FILE *f, int keep,
    char **cause)
{
	int	e = 0;

	if (fflush(f) != 0 || ferror(f))
		e = errno != 0 ? errno : EIO;
	if (fclose(f) != 0 && e == 0)
		e = errno != 0 ? errno : EIO;
	rbmon_safeio_become_self();
	if (!keep || e != 0) {
		rb_outfile_discard(o);
		if (keep)
			rbmon_xasprintf(cause, "%s", strerror(e));
		return keep ? -1 : 0;
	}
	if (rb_outfile_commit(o) != 0) {
		rbmon_xasprintf(cause, "%s", o->why);
		return -1;
	}
	return 0;
}

/**
 * rbmon_safeio_shared_write - can others than its owner write to a file?
 * @fd: the trace file
 *
 * librbtrace joins no such file; rbmon still writes to one, and warns.
 * Return: 1 if it is group- or world-writable, else 0.
 */
int
rbmon_safeio_shared_write(int fd)
{
	struct stat	st;

	return fstat(fd, &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

/**
 * rbmon_safeio_open_trace - open the trace file to work on; run by root on
 * another user's file, rbmon then keeps to that user's file access rights
 */
int
rbmon_safeio_open_trace(struct rbmon_model *m, const char *path,
    char **cause)
{
	if (rbmon_model_open(m, path, RBMON_READY_WAIT_MS, cause) != 0)
		return -1;
	if (rbmon_safeio_become_owner(m->fd, cause) != 0) {
		rbmon_model_close(m);
		return -1;
	}
	return 0;
}
