/* SPDX-License-Identifier: MIT */
/*
 * debugfile.c - an object's separate debug file, as rbmon's stacks and the
 * traced program's watches both look for it: the same search, the same
 * check, so that a frame and a watched variable never come from two
 * different debug files (rbmon(1), "Symbols from regular files only").
 *
 * In the library this runs in the watch worker only (lib/expr/compile.c):
 * it allocates, and is never instrumented.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "common/debugfile.h"

/* The CRC-32 of .gnu_debuglink (gdb's, zlib's) of the whole file @fd. */
static uint32_t
debugfile_crc32(int fd, int *ok)
{
	unsigned char	 buf[16384];
	uint32_t	 tab[256], c, crc = 0xffffffffu;
	off_t		 off = 0;
	ssize_t		 n, i;
	int		 k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		tab[i] = c;
	}
	while ((n = pread(fd, buf, sizeof buf, off)) > 0) {
		for (i = 0; i < n; i++)
			crc = tab[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
		off += n;
	}
	*ok = n == 0;
	return crc ^ 0xffffffffu;
}

/*
 * Is @fd the debug file of @mod?  With a build-id, only a file with the
 * same one is; without, with @check, only a file whose CRC is the link's.
 */
static int
debugfile_valid(Dwfl_Module *mod, int fd, int check, GElf_Word crc)
{
	const unsigned char	*want;
	const void		*got;
	GElf_Addr		 vaddr;
	ssize_t			 len;
	Elf			*elf;
	int			 n, ok;

	n = dwfl_module_build_id(mod, &want, &vaddr);
	if (n > 0) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		len = elf != NULL ? dwelf_elf_gnu_build_id(elf, &got) : -1;
		ok = len == n && memcmp(want, got, (size_t)n) == 0;
		if (elf != NULL)
			elf_end(elf);
		return ok;
	}
	if (!check)
		return 1;
	return debugfile_crc32(fd, &ok) == crc && ok;
}

/* Try @dir/@sub/@name (@sub may be NULL); on success set *@found. */
static int
debugfile_try(Dwfl_Module *mod, const struct stat *main_st, const char *dir,
    const char *sub, const char *name, int check, GElf_Word crc,
    char **found, rb_debugfile_open_fn open_fn)
{
	struct stat	 st;
	char		*path;
	int		 fd, n;

	if (sub != NULL)
		n = asprintf(&path, "%s/%s/%s", dir, sub, name);
	else
		n = asprintf(&path, "%s/%s", dir, name);
	if (n < 0)
		return -1;
	fd = open_fn(path);
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == main_st->st_dev &&
	    st.st_ino == main_st->st_ino) {
		close(fd);	/* the object itself by another name */
		fd = -1;
	}
	if (fd >= 0 && !debugfile_valid(mod, fd, check, crc)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		*found = path;
	else
		free(path);
	return fd;
}

/*
 * The .gnu_debuglink search of libdwfl's standard callback: the object's
 * directory, its .debug subdirectory, and the directory's twin under
 * /usr/lib/debug.  Without a link, NAME.debug, unchecked but for the
 * build-id.
 */
static int
debugfile_by_link(Dwfl_Module *mod, const char *file, const char *link,
    GElf_Word crc, char **found, rb_debugfile_open_fn open_fn)
{
	struct stat	 main_st;
	char		*dir, *name = NULL, *slash;
	int		 fd, check = crc != 0;

	if (file == NULL || file[0] != '/')
		return -1;
	if (stat(file, &main_st) != 0)
		memset(&main_st, 0, sizeof main_st);
	if ((dir = strdup(file)) == NULL)
		return -1;
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (link == NULL) {
		if (asprintf(&name, "%s.debug", slash + 1) < 0) {
			free(dir);
			return -1;
		}
		link = name;
		check = 0;
	}
	fd = debugfile_try(mod, &main_st, dir, NULL, link, check, crc, found,
	    open_fn);
	if (fd < 0)
		fd = debugfile_try(mod, &main_st, dir, ".debug", link, check,
		    crc, found, open_fn);
	if (fd < 0)
		fd = debugfile_try(mod, &main_st, "/usr/lib/debug",
		    dir[0] != '\0' ? dir + 1 : NULL, link, check, crc, found,
		    open_fn);
	free(dir);
	free(name);
	return fd;
}

/**
 * rb_debugfile_open - the default way to open a candidate
 * @path: the file
 *
 * Non-blocking (a FIFO cannot hold the caller in open()), no controlling
 * terminal, close-on-exec; only a regular file is kept.
 *
 * Return: the descriptor, or -1 with errno set.
 */
int
rb_debugfile_open(const char *path)
{
	struct stat	st;
	int		fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/**
 * rb_debugfile_find - a module's separate debug file (a libdwfl
 * find_debuginfo callback's work)
 * @mod, @ud, @modname, @base, @file_name, @debuglink, @crc,
 * @debuginfo_file_name: the callback's arguments
 * @open_fn: how a candidate found by the link is opened
 *
 * First by build-id: libdwfl's own lookup opens only
 * /usr/lib/debug/.build-id/NN/N...N.debug (and checks the build-id).
 * Then by .gnu_debuglink, next to the object, in its .debug directory,
 * under /usr/lib/debug/DIR, for the object's name as given and then with
 * its links resolved: a candidate is taken only if its build-id is the
 * object's, or, the object having none, its CRC the link's.  A dwz
 * alternate file is looked up by build-id only: its name comes from the
 * debug information.  Never from debuginfod servers.
 *
 * Return: the descriptor with *@debuginfo_file_name set (malloc'ed), or
 * -1 with errno 0 (none found).
 */
int
rb_debugfile_find(Dwfl_Module *mod, void **ud, const char *modname,
    Dwarf_Addr base, const char *file_name, const char *debuglink,
    GElf_Word crc, char **debuginfo_file_name, rb_debugfile_open_fn open_fn)
{
	GElf_Addr	 bias;
	GElf_Word	 mycrc = 0;
	const char	*mylink = NULL;
	char		*canon, *found = NULL;
	Elf		*elf;
	int		 fd;

	elf = dwfl_module_getelf(mod, &bias);
	if (elf != NULL)
		mylink = dwelf_elf_gnu_debuglink(elf, &mycrc);
	fd = dwfl_build_id_find_debuginfo(mod, ud, modname, base, file_name,
	    debuglink, crc, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	if (debuglink != NULL && (mylink == NULL ||
	    strcmp(mylink, debuglink) != 0 || crc != mycrc)) {
		errno = 0;	/* a dwz file: not found */
		return -1;
	}
	fd = debugfile_by_link(mod, file_name, debuglink, crc, &found, open_fn);
	if (fd < 0 && file_name != NULL &&
	    (canon = realpath(file_name, NULL)) != NULL) {
		if (strcmp(canon, file_name) != 0)
			fd = debugfile_by_link(mod, canon, debuglink, crc,
			    &found, open_fn);
		free(canon);
	}
	if (fd < 0) {
		errno = 0;
		return -1;
	}
	*debuginfo_file_name = found;
	return fd;
}
