/* SPDX-License-Identifier: MIT */
/*
 * rbmon safeio: a trace file names other files (the objects its programs
 * loaded, and through them their debug files), and whoever wrote the file
 * chose those names.  rbmon opens them as regular files only, without
 * blocking, and, run by root, with the file owner's rights alone.  See
 * rbmon(1), "HOSTILE FILES".
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

#include "model.h"
#include "safeio.h"

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
	struct passwd	*pw;
	struct stat	 st;
	gid_t		*groups, gid;
	int		 n, e = 0;

	if (geteuid() != 0)
		return 0;
	if (fstat(fd, &st) != 0) {
		rbmon_xasprintf(cause, "%s", strerror(errno));
		return -1;
	}
	if (st.st_uid == 0)
		return 0;
	pw = getpwuid(st.st_uid);
	gid = pw != NULL ? pw->pw_gid : st.st_gid;
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
		setfsuid(st.st_uid);
		if ((uid_t)setfsuid((uid_t)-1) != st.st_uid)
			e = EPERM;
	}
	if (e != 0) {
		rbmon_xasprintf(cause, "cannot take the file access rights of "
		    "its owner, uid %lu: %s", (unsigned long)st.st_uid,
		    strerror(e));
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
