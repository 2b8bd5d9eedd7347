/* SPDX-License-Identifier: MIT */
/* progcheck.c - can LD_PRELOAD trace this program?  A look at its ELF first. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <grp.h>
#include <libelf.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tools/elfsym.h"
#include "tools/progcheck.h"

/* This machine's objects, and their entries in /etc/ld.so.cache. */
#if defined(__x86_64__)
#define PC_MACHINE	EM_X86_64
#define PC_CACHE_ID	0x0303	/* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
#define PC_MULTIARCH	"x86_64-linux-gnu"
#elif defined(__aarch64__)
#define PC_MACHINE	EM_AARCH64
#define PC_CACHE_ID	0x0a03	/* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */
#define PC_MULTIARCH	"aarch64-linux-gnu"
#else
#define PC_MACHINE	EM_NONE	/* any */
#define PC_CACHE_ID	0	/* the cache is not read */
#define PC_MULTIARCH	"."
#endif

/* What an object imports (an undefined dynamic symbol). */
#define PC_HOOKS	0x1u	/* the hooks (rb_elf_is_hook()) */
#define PC_LOADS	0x2u	/* dlopen() */
#define PC_RUNS		0x4u	/* exec*(), posix_spawn(), system(), popen() */

static const struct {
	const char	*name;
	unsigned	 what;
} pc_imports[] = {
	{ "dlopen", PC_LOADS },
	{ "dlmopen", PC_LOADS },
	{ "execve", PC_RUNS },
	{ "execv", PC_RUNS },
	{ "execvp", PC_RUNS },
	{ "execvpe", PC_RUNS },
	{ "execl", PC_RUNS },
	{ "execle", PC_RUNS },
	{ "execlp", PC_RUNS },
	{ "fexecve", PC_RUNS },
	{ "posix_spawn", PC_RUNS },
	{ "posix_spawnp", PC_RUNS },
	{ "system", PC_RUNS },
	{ "popen", PC_RUNS },
};

/* Where the loader looks last (glibc's system directories, and Debian's). */
static const char pc_default_dirs[] = "/lib/" PC_MULTIARCH ":/usr/lib/" PC_MULTIARCH
				      ":/lib64:/usr/lib64:/lib:/usr/lib";

#define PC_MAX_OBJS	512

struct pc_obj {
	char	*path;		/* where it was found */
	char	*name;		/* the name it was looked for by, NULL: the executable */
	char	*soname;	/* DT_SONAME, or NULL */
	char	*rpath;		/* DT_RPATH with $ORIGIN expanded, or NULL */
	char	*runpath;	/* DT_RUNPATH, likewise */
	char	**needed;	/* DT_NEEDED, NULL-terminated */
	int	 loader;	/* the object that needs it, -1 for the executable */
};

struct pc_state {
	struct pc_obj	 obj[PC_MAX_OBJS];
	int		 n;
	unsigned	 what;		/* PC_* of every object seen */
	bool		 blind;		/* something could not be looked at */
	const char	*ldpath;	/* LD_LIBRARY_PATH */
	const uint8_t	*cache;		/* /etc/ld.so.cache, mapped */
	size_t		 cachesz;
};

static char *pc_strdup(struct pc_state *st, const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		st->blind = true;
	return d;
}

static bool pc_elf_usable(const char *path)
{
	Elf *elf;
	int fd = rb_elf_open(path, PC_MACHINE, &elf);

	if (fd < 0)
		return false;
	rb_elf_close(fd, elf);
	return true;
}

/* @list with every $ORIGIN or ${ORIGIN} replaced by @origin; NULL if out of memory. */
static char *pc_expand(const char *list, const char *origin)
{
	size_t olen = strlen(origin), n = strlen(list) + 1;
	const char *s;
	char *out, *d;

	for (s = list; (s = strchr(s, '$')) != NULL; s++)
		n += olen;
	out = malloc(n);
	if (out == NULL)
		return NULL;
	for (s = list, d = out; *s != '\0';) {
		if (strncmp(s, "$ORIGIN", 7) == 0 &&
		    !(s[7] == '_' || (s[7] >= 'A' && s[7] <= 'Z') ||
		      (s[7] >= 'a' && s[7] <= 'z') || (s[7] >= '0' && s[7] <= '9'))) {
			memcpy(d, origin, olen);
			d += olen;
			s += 7;
		} else if (strncmp(s, "${ORIGIN}", 9) == 0) {
			memcpy(d, origin, olen);
			d += olen;
			s += 9;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
	return out;
}

/* The first directory of @list (separated by any of @seps) that holds @name. */
static bool pc_dirs_find(const char *list, const char *seps, const char *name,
			 char *out, size_t size)
{
	const char *s = list;
	size_t len;

	for (;;) {
		len = strcspn(s, seps);
		if ((size_t)snprintf(out, size, "%.*s/%s", (int)len,
				     len != 0 ? s : ".", name) < size &&
		    pc_elf_usable(out))
			return true;
		if (s[len] == '\0')
			return false;
		s += len + 1;
	}
}

static void pc_cache_map(struct pc_state *st)
{
	struct stat sb;
	void *p;
	int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
	    (uint64_t)sb.st_size < SIZE_MAX) {
		p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			st->cache = p;
			st->cachesz = (size_t)sb.st_size;
		}
	}
	close(fd);
}

static uint32_t pc_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * @name in /etc/ld.so.cache (glibc's format "glibc-ld.so.cache1.1", alone or
 * after the old one): entries of 24 bytes (flags, key, value, osversion,
 * hwcap) after a 48-byte header, strings at offsets from that header.
 */
static bool pc_cache_find(const struct pc_state *st, const char *name,
			  char *out, size_t size)
{
	static const char old[] = "ld.so-1.7.0", new[] = "glibc-ld.so.cache1.1";
	const uint8_t *c = st->cache;
	size_t off = 0, len, i, nlibs, klen = strlen(name);

	if (c == NULL || PC_CACHE_ID == 0)
		return false;
	if (st->cachesz >= 16 && memcmp(c, old, sizeof(old) - 1) == 0)
		off = ((size_t)16 + (size_t)pc_u32(c + 12) * 12 + 7) & ~(size_t)7;
	if (off > st->cachesz || st->cachesz - off < 48 ||
	    memcmp(c + off, new, sizeof(new) - 1) != 0)
		return false;
	c += off;
	len = st->cachesz - off;
	nlibs = pc_u32(c + 20);
	if (nlibs > (len - 48) / 24)
		return false;
	for (i = 0; i < nlibs; i++) {
		const uint8_t *e = c + 48 + i * 24;
		uint32_t flags = pc_u32(e), key = pc_u32(e + 4), val = pc_u32(e + 8);
		uint64_t hwcap;

		memcpy(&hwcap, e + 16, sizeof(hwcap));
		if ((flags & 0xffff) != PC_CACHE_ID || hwcap != 0 ||
		    key >= len || val >= len || len - key <= klen ||
		    memcmp(c + key, name, klen + 1) != 0 ||
		    memchr(c + val, '\0', len - val) == NULL)
			continue;
		if ((size_t)snprintf(out, size, "%s", (const char *)(c + val)) < size &&
		    pc_elf_usable(out))
			return true;
	}
	return false;
}

/* Where the loader finds @name, needed by object @loader (ld.so(8)'s order). */
static bool pc_lib_find(const struct pc_state *st, const char *name, int loader,
			char *out, size_t size)
{
	const struct pc_obj *lo = &st->obj[loader];
	int l;

	if (strchr(name, '/') != NULL)
		return (size_t)snprintf(out, size, "%s", name) < size &&
		       pc_elf_usable(out);
	if (lo->runpath == NULL)
		for (l = loader; l >= 0; l = st->obj[l].loader)
			if (st->obj[l].rpath != NULL &&
			    pc_dirs_find(st->obj[l].rpath, ":", name, out, size))
				return true;
	if (st->ldpath != NULL && *st->ldpath != '\0' &&
	    pc_dirs_find(st->ldpath, ":;", name, out, size))
		return true;
	if (lo->runpath != NULL && pc_dirs_find(lo->runpath, ":", name, out, size))
		return true;
	return pc_cache_find(st, name, out, size) ||
	       pc_dirs_find(pc_default_dirs, ":", name, out, size);
}

/* Is @name (needed or preloaded) one of the objects already there? */
static bool pc_obj_known(const struct pc_state *st, const char *name,
			 const char *path)
{
	int i;

	for (i = 0; i < st->n; i++) {
		const struct pc_obj *o = &st->obj[i];

		if ((o->name != NULL && strcmp(o->name, name) == 0) ||
		    (o->soname != NULL && strcmp(o->soname, name) == 0) ||
		    (path != NULL && o->path != NULL && strcmp(o->path, path) == 0))
			return true;
	}
	return false;
}

static void pc_obj_add(struct pc_state *st, const char *name, int loader)
{
	char path[PATH_MAX];
	struct pc_obj *o;

	if (pc_obj_known(st, name, NULL))
		return;
	if (st->n == PC_MAX_OBJS || !pc_lib_find(st, name, loader, path, sizeof(path))) {
		st->blind = true;	/* the loader will say what it misses */
		return;
	}
	if (pc_obj_known(st, name, path))
		return;
	o = &st->obj[st->n++];
	memset(o, 0, sizeof(*o));
	o->path = pc_strdup(st, path);
	o->name = pc_strdup(st, name);
	o->loader = loader;
}

/* The directory of @path, absolute; the executable's with its links resolved. */
static void pc_origin(const char *path, bool exe, char *out, size_t size)
{
	char buf[PATH_MAX], *slash;

	if (exe && realpath(path, buf) != NULL) {
		snprintf(out, size, "%s", buf);
	} else if (path[0] != '/' && getcwd(buf, sizeof(buf)) != NULL) {
		if ((size_t)snprintf(out, size, "%s/%s", buf, path) >= size)
			snprintf(out, size, "%s", path);
	} else {
		snprintf(out, size, "%s", path);
	}
	slash = strrchr(out, '/');
	if (slash == out)
		slash[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
}

/* What an import of @name says the object does, into the state @arg. */
static void pc_import_seen(const char *name, void *arg)
{
	struct pc_state *st = arg;
	size_t m;

	if (rb_elf_is_hook(name))
		st->what |= PC_HOOKS;
	for (m = 0; m < sizeof(pc_imports) / sizeof(pc_imports[0]); m++)
		if (strcmp(name, pc_imports[m].name) == 0)
			st->what |= pc_imports[m].what;
}

/* Read object @i's dynamic section and imports. */
static void pc_obj_scan(struct pc_state *st, int i)
{
	struct pc_obj *o = &st->obj[i];
	char origin[PATH_MAX];
	size_t nneeded = 0;
	bool dynamic = false;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	if (o->path == NULL || (fd = rb_elf_open(o->path, PC_MACHINE, &elf)) < 0) {
		st->blind = true;
		return;
	}
	pc_origin(o->path, i == 0, origin, sizeof(origin));
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t k, n;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_entsize == 0 ||
		    sh.sh_type != SHT_DYNAMIC ||
		    (data = elf_getdata(scn, NULL)) == NULL)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		dynamic = true;
		o->needed = calloc(n + 1, sizeof(*o->needed));
		if (o->needed == NULL) {
			st->blind = true;
			continue;
		}
		for (k = 0; k < n; k++) {
			const char *s;
			GElf_Dyn dyn;

			if (gelf_getdyn(data, (int)k, &dyn) == NULL)
				continue;
			if (dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME &&
			    dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
				continue;
			s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (s == NULL)
				continue;
			if (dyn.d_tag == DT_NEEDED) {
				if (strncmp(s, "librbtrace.so", 13) == 0)
					st->what |= PC_HOOKS;
				o->needed[nneeded] = pc_strdup(st, s);
				if (o->needed[nneeded] != NULL)
					nneeded++;
			} else if (dyn.d_tag == DT_SONAME && o->soname == NULL) {
				o->soname = pc_strdup(st, s);
			} else if (dyn.d_tag == DT_RPATH && o->rpath == NULL) {
				o->rpath = pc_expand(s, origin);
			} else if (dyn.d_tag == DT_RUNPATH && o->runpath == NULL) {
				o->runpath = pc_expand(s, origin);
			}
		}
	}
	rb_elf_imports(elf, pc_import_seen, st);
	if (!dynamic)
		st->blind = true;	/* no section headers: nothing to go by */
	rb_elf_close(fd, elf);
}

static void pc_state_free(struct pc_state *st)
{
	int i;
	char **p;

	for (i = 0; i < st->n; i++) {
		for (p = st->obj[i].needed; p != NULL && *p != NULL; p++)
			free(*p);
		free(st->obj[i].needed);
		free(st->obj[i].path);
		free(st->obj[i].name);
		free(st->obj[i].soname);
		free(st->obj[i].rpath);
		free(st->obj[i].runpath);
	}
	if (st->cache != NULL)
		munmap((void *)st->cache, st->cachesz);
}

/*
 * What the loader would load, breadth first as it does: the executable,
 * the preloaded objects, then each one's DT_NEEDED.  Stops at the first
 * object that calls the hooks.
 */
static void pc_walk(struct pc_state *st, const char *exe, const char *preload)
{
	const char *s = preload;
	char name[PATH_MAX];
	size_t len;
	char **p;
	int i;

	st->ldpath = getenv("LD_LIBRARY_PATH");
	pc_cache_map(st);
	st->obj[0].path = pc_strdup(st, exe);
	st->obj[0].loader = -1;
	st->n = 1;
	pc_obj_scan(st, 0);
	while (s != NULL && *s != '\0') {
		len = strcspn(s, ": \t");
		if (len != 0 && len < sizeof(name)) {
			memcpy(name, s, len);
			name[len] = '\0';
			pc_obj_add(st, name, 0);
		}
		s += len;
		s += strspn(s, ": \t");
	}
	for (i = 0; i < st->n && !(st->what & PC_HOOKS); i++) {
		if (i > 0)
			pc_obj_scan(st, i);
		for (p = st->obj[i].needed; p != NULL && *p != NULL; p++)
			pc_obj_add(st, *p, i);
	}
}

/* execvp()'s search: the file it would run, or false. */
bool progcheck_resolve(const char *prog, char *out, size_t size)
{
	const char *path = getenv("PATH"), *s;
	struct stat sb;
	size_t len;

	if (*prog == '\0')
		return false;
	if (strchr(prog, '/') != NULL)
		return (size_t)snprintf(out, size, "%s", prog) < size;
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (s = path;; s += len + 1) {
		len = strcspn(s, ":");
		if ((size_t)snprintf(out, size, "%.*s/%s", (int)len,
				     len != 0 ? s : ".", prog) < size &&
		    stat(out, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    access(out, X_OK) == 0)
			return true;
		if (s[len] == '\0')
			return false;
	}
}

/*
 * Does exec'ing @path put the loader in secure mode (AT_SECURE), where it
 * ignores LD_PRELOAD of a library outside the system directories?  Why,
 * in @what ("is set-user-ID nobody").
 */
static bool pc_secure(const char *path, const struct stat *sb, char *what,
		      size_t size)
{
	struct statvfs vfs;

	/* no_new_privs, nosuid: the bits are ignored, and so are capabilities */
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ||
	    (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)))
		return false;
	if ((sb->st_mode & S_ISUID) && sb->st_uid != getuid()) {
		struct passwd *pw = getpwuid(sb->st_uid);

		if (pw != NULL)
			snprintf(what, size, "is set-user-ID %s", pw->pw_name);
		else
			snprintf(what, size, "is set-user-ID %u", (unsigned)sb->st_uid);
		return true;
	}
	if ((sb->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
	    sb->st_gid != getgid()) {
		struct group *gr = getgrgid(sb->st_gid);

		if (gr != NULL)
			snprintf(what, size, "is set-group-ID %s", gr->gr_name);
		else
			snprintf(what, size, "is set-group-ID %u", (unsigned)sb->st_gid);
		return true;
	}
	/* Capabilities raise a non-root user's, not root's: secure for the former. */
	if (getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0) {
		snprintf(what, size, "has file capabilities");
		return true;
	}
	return false;
}

void progcheck_run(const char *prog, const char *preload, struct progcheck *pc)
{
	static struct pc_state st;
	char path[PATH_MAX], what[128], head[2];
	struct stat sb;
	GElf_Phdr ph;
	bool interp = false, secure;
	size_t i, nph;
	Elf *elf;
	int fd;

	memset(pc, 0, sizeof(*pc));
	pc->verdict = PROGCHECK_UNKNOWN;
	if (!progcheck_resolve(prog, path, sizeof(path)) ||
	    stat(path, &sb) != 0 ||
	    !S_ISREG(sb.st_mode) || access(path, X_OK) != 0)
		return;		/* exec will say why */
	secure = pc_secure(path, &sb, what, sizeof(what));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, head, 2, 0) == 2 && head[0] == '#' &&
	    head[1] == '!') {
		close(fd);
		return;		/* a script: what it runs is traced */
	}
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
		/* unreadable (mode 0711, say) or not ELF at all */
		if (elf != NULL)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
		if (fd < 0 && secure)
			goto secure;
		return;
	}
	if (gelf_getclass(elf) == ELFCLASS32) {
		elf_end(elf);
		close(fd);
		pc->verdict = PROGCHECK_NEVER;
		snprintf(pc->line, sizeof(pc->line),
			 "rbtrace: %s is a 32-bit program: the 64-bit librbtrace "
			 "cannot be loaded into it, it runs untraced; build it "
			 "as a 64-bit program", prog);
		return;
	}
	if (elf_getphdrnum(elf, &nph) == 0)
		for (i = 0; i < nph; i++)
			if (gelf_getphdr(elf, (int)i, &ph) != NULL &&
			    ph.p_type == PT_INTERP)
				interp = true;
	elf_end(elf);
	close(fd);
	if (!interp) {
		pc->verdict = PROGCHECK_NEVER;
		snprintf(pc->line, sizeof(pc->line),
			 "rbtrace: %s is statically linked: LD_PRELOAD cannot load "
			 "librbtrace into it, it runs untraced; link it without "
			 "-static", prog);
		return;
	}
	if (secure)
		goto secure;

	memset(&st, 0, sizeof(st));
	pc_walk(&st, path, preload);
	if (st.what & PC_HOOKS)
		pc->verdict = PROGCHECK_TRACED;
	else if (st.blind)
		pc->verdict = PROGCHECK_UNKNOWN;
	else if (st.what & PC_RUNS)
		pc->verdict = PROGCHECK_LATER;	/* a shell, make: what it runs is traced */
	else if (st.what & PC_LOADS) {
		pc->verdict = PROGCHECK_LATER;
		snprintf(pc->line, sizeof(pc->line),
			 "rbtrace: nothing %s links calls the hooks of "
			 "-finstrument-functions; code it loads later with "
			 "dlopen may; build it with -finstrument-functions "
			 "to trace it", prog);
	} else {
		pc->verdict = PROGCHECK_NEVER;
		snprintf(pc->line, sizeof(pc->line),
			 "rbtrace: nothing %s links calls the hooks of "
			 "-finstrument-functions: it runs untraced; build it with "
			 "-finstrument-functions", prog);
	}
	pc_state_free(&st);
	return;
secure:
	pc->verdict = PROGCHECK_NEVER;
	snprintf(pc->line, sizeof(pc->line),
		 "rbtrace: %s %s: the loader ignores LD_PRELOAD for it, it runs "
		 "untraced; trace a copy without %s", prog, what,
		 strncmp(what, "is set-user", 11) == 0 ? "the set-user-ID bit" :
		 strncmp(what, "is set-group", 12) == 0 ? "the set-group-ID bit" :
		 "them");
}
