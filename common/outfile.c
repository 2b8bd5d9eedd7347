/* SPDX-License-Identifier: MIT */
/*
 * outfile.c - the files rbmon and rbtrace write, at names that others can
 * guess (PROGRAM.PID.rbr in the current directory, PROGRAM.PID.out in
 * /tmp) or in directories they share (rbmon(1), "FILES IT WRITES";
 * rbtrace(1), "FILES WRITTEN").
 *
 * Nothing found at a name is ever opened: a new file is created with
 * O_CREAT|O_EXCL, which a symbolic link (dangling or not), a FIFO or a
 * device already there makes fail, without following it or waiting.  What
 * is there is then looked at with lstat(): only a regular file or a
 * symbolic link of the user who writes (the filesystem uid) may go, only
 * when the caller says the user named it, and only by renaming a new file
 * of the same directory over the name: rename() replaces the entry,
 * whatever it has become meanwhile, and never writes through it.  Nothing
 * of another user's is replaced, by root neither: the kernel's
 * protected_regular and protected_symlinks stop root only in sticky
 * world-writable directories, and only from opening such a file or
 * following such a link, not from renaming over it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/outfile.h"

#define OUTFILE_FLAGS	(O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | \
			 O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
#define OUTFILE_TRIES	100	/* temporary names taken already */

/* The uid the files are created with, which a file must have to go. */
static uid_t outfile_fsuid(void)
{
	/* An invalid id changes nothing, and the current one is returned. */
	return (uid_t)setfsuid((uid_t)-1);
}

static void outfile_errno(struct rb_outfile *o, int e)
{
	snprintf(o->why, sizeof(o->why), "%s", strerror(e));
}

/*
 * May the entry lstat() found at the name go?  Only a regular file or a
 * symbolic link (the link, not what it leads to) of the user's, and only
 * with RB_OUTFILE_REPLACE.  Return: 1, or 0 with o->why saying what it is.
 */
static int outfile_replaceable(struct rb_outfile *o, const struct stat *st)
{
	const char *what = NULL;
	struct passwd *pw;
	int link = S_ISLNK(st->st_mode);

	if (S_ISFIFO(st->st_mode))
		what = "a FIFO";
	else if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		what = "a device";
	else if (S_ISSOCK(st->st_mode))
		what = "a socket";
	else if (S_ISDIR(st->st_mode))
		what = "a directory";
	else if (!S_ISREG(st->st_mode) && !link)
		what = "not a regular file";
	if (what != NULL) {
		snprintf(o->why, sizeof(o->why), "it is %s", what);
		return 0;
	}
	if (st->st_uid != outfile_fsuid()) {
		pw = getpwuid(st->st_uid);
		snprintf(o->why, sizeof(o->why),
			 "it is a %s of uid %lu%s%s%s, not yours%s",
			 link ? "symbolic link" : "file",
			 (unsigned long)st->st_uid, pw != NULL ? " (" : "",
			 pw != NULL ? pw->pw_name : "", pw != NULL ? ")" : "",
			 link ? " (not followed)" : "");
		return 0;
	}
	if (!(o->flags & RB_OUTFILE_REPLACE)) {
		snprintf(o->why, sizeof(o->why), "%s",
			 link ? "it is a symbolic link (not followed)" :
			 "it exists");
		o->mine = 1;
		return 0;
	}
	return 1;
}

/* Six random bytes as hex; from the clock if the kernel has none yet. */
static void outfile_random(char *out, size_t size, unsigned salt)
{
	unsigned char r[6];
	struct timespec ts;
	uint64_t x;
	size_t i;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
		    ((uint64_t)getpid() << 32) ^ salt;
		for (i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)(x >> (8 * i));
	}
	snprintf(out, size, "%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3],
		 r[4], r[5]);
}

/*
 * A new file beside o->path, ".NAME.XXXXXXXXXXXX", its name in o->tmp.
 * Return: its descriptor, or -1 with errno set.
 */
static int outfile_temp(struct rb_outfile *o, mode_t mode)
{
	const char *slash = strrchr(o->path, '/');
	const char *base = slash != NULL ? slash + 1 : o->path;
	int dirlen = slash != NULL ? (int)(slash - o->path + 1) : 0;
	struct stat st;
	char rnd[16];
	unsigned i;
	int fd, n;

	for (i = 0; i < OUTFILE_TRIES; i++) {
		outfile_random(rnd, sizeof(rnd), i);
		n = snprintf(o->tmp, sizeof(o->tmp), "%.*s.%.200s.%s", dirlen,
			     o->path, base, rnd);
		if (n < 0 || (size_t)n >= sizeof(o->tmp)) {
			o->tmp[0] = '\0';
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = open(o->tmp, OUTFILE_FLAGS, mode);
		if (fd >= 0) {
			if (fstat(fd, &st) == 0) {
				o->dev = st.st_dev;
				o->ino = st.st_ino;
			}
			return fd;
		}
		if (errno != EEXIST)
			break;
	}
	o->tmp[0] = '\0';
	return -1;
}

/* O_NONBLOCK served the open only.  Return: 0. */
static int outfile_ready(struct rb_outfile *o)
{
	int fl = fcntl(o->fd, F_GETFL);

	if (fl >= 0)
		fcntl(o->fd, F_SETFL, fl & ~O_NONBLOCK);
	return 0;
}

/**
 * rb_outfile_open - create a file to write at @path
 * @o: set up; o->fd is the file, for the caller to close
 * @flags: RB_OUTFILE_REPLACE: the user named @path, a regular file or a
 *	symbolic link of theirs there is replaced (else refused);
 *	RB_OUTFILE_NOW: the file has its name from now on (a recording read
 *	while it grows, a program's output), else it is written under a
 *	temporary name in the same directory and takes its name at
 *	rb_outfile_commit(), so that one never sees half a file
 * @mode: as open(2)'s, the umask applies
 *
 * What is refused at @path (o->taken set) is never opened nor followed:
 * a FIFO, a device, a socket, a directory, anything of another user's,
 * and without RB_OUTFILE_REPLACE anything at all (o->mine set when that
 * flag would have replaced it).
 *
 * Return: 0, or -1 with o->why set (nothing is left behind).
 */
int rb_outfile_open(struct rb_outfile *o, const char *path, int flags,
		    mode_t mode)
{
	struct stat st;
	int i, n;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->flags = flags;
	n = snprintf(o->path, sizeof(o->path), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(o->path)) {
		outfile_errno(o, ENAMETOOLONG);
		return -1;
	}
	/* What is at the name may come and go meanwhile: look again. */
	for (i = 0; i < 3; i++) {
		if (flags & RB_OUTFILE_NOW) {
			o->fd = open(path, OUTFILE_FLAGS, mode);
			if (o->fd >= 0)
				return outfile_ready(o);
			if (errno != EEXIST) {
				outfile_errno(o, errno);
				return -1;
			}
		}
		if (lstat(path, &st) == 0) {
			o->taken = 1;
			if (!outfile_replaceable(o, &st))
				return -1;
		} else if (errno != ENOENT) {
			outfile_errno(o, errno);
			return -1;
		} else if (flags & RB_OUTFILE_NOW) {
			continue;	/* gone since open() found it */
		}
		o->fd = outfile_temp(o, mode);
		if (o->fd < 0) {
			outfile_errno(o, errno);
			return -1;
		}
		if (!(flags & RB_OUTFILE_NOW))
			return outfile_ready(o);
		/* Replaced at once: the entry goes, not what it leads to. */
		if (rename(o->tmp, o->path) != 0) {
			outfile_errno(o, errno);
			unlink(o->tmp);
			close(o->fd);
			o->fd = -1;
			return -1;
		}
		o->tmp[0] = '\0';
		return outfile_ready(o);
	}
	snprintf(o->why, sizeof(o->why), "something else keeps appearing "
		 "and disappearing there");
	return -1;
}

/**
 * rb_outfile_commit - give a file written under a temporary name its name
 * @o: from rb_outfile_open(); its descriptor closed by the caller first
 *
 * Its name is looked at again: what is there now must still be something
 * it may replace.  Nothing to do for RB_OUTFILE_NOW.
 *
 * Return: 0, or -1 with o->why set and the temporary file removed.
 */
int rb_outfile_commit(struct rb_outfile *o)
{
	struct stat st;
	int e;

	if (o->tmp[0] == '\0')
		return 0;
	/* The temporary name may have been replaced in a shared directory. */
	if (lstat(o->tmp, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_dev != o->dev || st.st_ino != o->ino) {
		snprintf(o->why, sizeof(o->why), "its temporary file was "
			 "replaced while it was written");
		o->tmp[0] = '\0';
		return -1;
	}
	if (lstat(o->path, &st) == 0 && !outfile_replaceable(o, &st)) {
		o->taken = 1;
		rb_outfile_discard(o);
		return -1;
	}
	if (o->flags & RB_OUTFILE_REPLACE) {
		if (rename(o->tmp, o->path) != 0) {
			outfile_errno(o, errno);
			rb_outfile_discard(o);
			return -1;
		}
	} else if (link(o->tmp, o->path) != 0) {
		/* link() never replaces: EEXIST, the name was taken meanwhile. */
		e = errno;
		outfile_errno(o, e);
		o->taken = e == EEXIST;
		rb_outfile_discard(o);
		return -1;
	} else {
		unlink(o->tmp);
	}
	o->tmp[0] = '\0';
	return 0;
}

/**
 * rb_outfile_discard - a file written under a temporary name is not wanted
 * @o: from rb_outfile_open(); the descriptor stays the caller's
 *
 * A file that has its name already (RB_OUTFILE_NOW) stays.
 */
void rb_outfile_discard(struct rb_outfile *o)
{
	if (o->tmp[0] != '\0')
		unlink(o->tmp);
	o->tmp[0] = '\0';
}
