/* SPDX-License-Identifier: MIT */
/*
 * perm.c - may this process be attached to (ptrace(2)), and if not, one
 * line saying why: gone, a zombie, a thread rather than a process, stopped
 * by job control, traced already, 32-bit, another user's, set-user-ID or
 * otherwise not dumpable, Yama's ptrace_scope, a missing CAP_SYS_PTRACE,
 * a security module.  From /proc only: nothing is stopped.  And whether a
 * library here is the same file inside the process's root and mount
 * namespace, where it must be loaded from.
 */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/escape.h"
#include "tools/perm.h"
#include "tools/proc.h"

static void perm_user(uid_t uid, char *out, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL)
		snprintf(out, size, "user %s (uid %u)", pw->pw_name, (unsigned)uid);
	else
		snprintf(out, size, "uid %u", (unsigned)uid);
}

/* Do we hold CAP_SYS_PTRACE? */
static bool perm_cap_ptrace(void)
{
	char buf[4096], val[64];

	if (rb_proc_slurp("/proc/self/status", buf, sizeof(buf)) < 0)
		return geteuid() == 0;
	rb_proc_status_field(buf, "CapEff", val, sizeof(val));
	return (strtoull(val, NULL, 16) >> 19) & 1;	/* CAP_SYS_PTRACE */
}

/* Why may we not trace @pid?  One line into @err. */
void rb_perm_why(pid_t pid, char *err, size_t errlen)
{
	char path[64], status[4096], val[128], who[96], me[96];
	unsigned ruid = 0, euid = 0, suid = 0;
	bool cap = perm_cap_ptrace();
	struct stat sb;
	int scope = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (rb_proc_slurp(path, status, sizeof(status)) > 0) {
		rb_proc_status_field(status, "Uid", val, sizeof(val));
		if (sscanf(val, "%u %u %u", &ruid, &euid, &suid) == 3 && !cap &&
		    (ruid != getuid() || euid != getuid() || suid != getuid())) {
			perm_user(euid != getuid() ? euid : ruid != getuid() ? ruid : suid,
				 who, sizeof(who));
			perm_user(getuid(), me, sizeof(me));
			rb_err_set(err, errlen, "%d runs as %s and you are %s: only that "
				"user or root may attach to it", pid, who, me);
			return;
		}
		rb_proc_status_field(status, "Gid", val, sizeof(val));
		if (sscanf(val, "%u %u %u", &ruid, &euid, &suid) == 3 && !cap &&
		    (ruid != getgid() || euid != getgid() || suid != getgid())) {
			rb_err_set(err, errlen, "%d runs with group id %u and you with %u: "
				"only root may attach to it", pid,
				euid != getgid() ? euid : ruid != getgid() ? ruid : suid,
				(unsigned)getgid());
			return;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (!cap && stat(path, &sb) == 0 && sb.st_uid == 0 && getuid() != 0) {
		rb_err_set(err, errlen, "%d is not dumpable (set-user-ID or "
			"set-group-ID, file capabilities, or prctl(PR_SET_DUMPABLE, 0)): "
			"only root may attach to it", pid);
		return;
	}
	if (rb_proc_slurp("/proc/sys/kernel/yama/ptrace_scope", val, sizeof(val)) > 0)
		scope = atoi(val);
	if (scope == 1 && !cap) {
		rb_err_set(err, errlen, "kernel.yama.ptrace_scope=1: only a parent may "
			"trace; run as root or `sysctl kernel.yama.ptrace_scope=0`");
	} else if (scope == 2 && !cap) {
		rb_err_set(err, errlen, "kernel.yama.ptrace_scope=2: only root (with "
			"CAP_SYS_PTRACE) may trace; run as root");
	} else if (scope == 3) {
		rb_err_set(err, errlen, "kernel.yama.ptrace_scope=3: no process may "
			"be traced until the next boot");
	} else if (geteuid() == 0 && !cap) {
		rb_err_set(err, errlen, "attaching to %d is not permitted: this root "
			"lacks CAP_SYS_PTRACE (a container without it?)", pid);
	} else {
		rb_err_set(err, errlen, "attaching to %d is not permitted (ptrace: %s); "
			"a security module (SELinux, AppArmor) or a seccomp filter "
			"may forbid it", pid, strerror(EPERM));
	}
}

/* Refuse what cannot be attached to, from /proc/PID/status and its tasks'. */
int rb_perm_check(pid_t pid, pid_t tid, char *err, size_t errlen)
{
	char path[96], status[4096], val[128], comm[64], ecomm[300];
	struct dirent *de;
	DIR *d;
	long tracer;
	int threads;

	if (pid <= 0 || pid == getpid()) {
		rb_err_set(err, errlen, "%d: not a process that can be attached to", pid);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (rb_proc_slurp(path, status, sizeof(status)) <= 0) {
		if (errno == ENOENT || errno == ESRCH)
			rb_err_set(err, errlen, "no process %d", pid);
		else
			rb_err_set(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rb_proc_status_field(status, "Tgid", val, sizeof(val));
	if (atoi(val) != pid) {
		rb_err_set(err, errlen, "%d is a thread of process %s: attach to that", pid, val);
		return -1;
	}
	rb_proc_status_field(status, "Threads", val, sizeof(val));
	threads = atoi(val);
	rb_proc_status_field(status, "State", val, sizeof(val));
	if ((val[0] == 'Z' || val[0] == 'X') && threads <= 1) {
		rb_err_set(err, errlen, "%d is a zombie: it has exited, and its parent has "
			"not reaped it yet", pid);
		return -1;
	}
	if (val[0] == 'Z' || val[0] == 'X') {
		/* its memory and root are seen through the main thread */
		rb_err_set(err, errlen, "the main thread of %d has exited (its other "
			"threads run on): cannot attach to such a process", pid);
		return -1;
	}
	if (val[0] == 'T') {
		rb_err_set(err, errlen, "%d is stopped (job control): continue it first "
			"(kill -CONT %d)", pid, pid);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/status", pid, de->d_name);
		if (rb_proc_slurp(path, status, sizeof(status)) <= 0)
			continue;
		rb_proc_status_field(status, "TracerPid", val, sizeof(val));
		tracer = atol(val);
		if (tracer != 0) {
			closedir(d);
			rb_proc_comm((pid_t)tracer, comm, sizeof(comm));
			rb_escape(comm, ecomm, sizeof(ecomm));
			rb_err_set(err, errlen, "%d is already traced by process %ld (%s): "
				"detach that debugger first", pid, tracer, ecomm);
			return -1;
		}
	}
	if (d != NULL)
		closedir(d);
	if (tid != 0) {
		char st = rb_proc_task_state(pid, tid);

		if (st == 0 || st == 'Z' || st == 'X') {
			rb_err_set(err, errlen, "%d has no thread %d", pid, tid);
			return -1;
		}
	}
	return 0;
}

/* Refuse a 32-bit program before looking at its libraries. */
int rb_perm_check_exe(pid_t pid, char *err, size_t errlen)
{
	unsigned char ident[EI_NIDENT];
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == EACCES || errno == EPERM) {
			rb_perm_why(pid, err, errlen);
			return -1;
		}
		return 0;	/* the registers' code segment will tell */
	}
	if (read(fd, ident, sizeof(ident)) == (ssize_t)sizeof(ident) &&
	    memcmp(ident, ELFMAG, SELFMAG) == 0 && ident[EI_CLASS] == ELFCLASS32) {
		close(fd);
		rb_err_set(err, errlen, "%d is a 32-bit process: only 64-bit ones can be "
			"attached to", pid);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * The process's view of @lib: its absolute path here, which must name the
 * same file inside the process's root and mount namespace.  Sets @sb to
 * that file's.  Return: 0, or -1 with @err set.
 */
int rb_perm_lib_resolve(pid_t pid, const char *lib, char *abs, struct stat *sb,
			char *err, size_t errlen)
{
	char path[PATH_MAX + 64], ns1[64], ns2[64], elib[PATH_MAX];
	struct stat here;
	ssize_t n1, n2;

	rb_escape(lib, elib, sizeof(elib));
	if (realpath(lib, abs) == NULL) {
		rb_err_set(err, errlen, "%s: %s", elib, strerror(errno));
		return -1;
	}
	if (stat(abs, &here) != 0 || !S_ISREG(here.st_mode)) {
		rb_err_set(err, errlen, "%s: not a regular file", elib);
		return -1;
	}
	rb_escape(abs, elib, sizeof(elib));
	snprintf(path, sizeof(path), "/proc/%d/root%s", pid, abs);
	if (stat(path, sb) == 0) {
		if (sb->st_dev == here.st_dev && sb->st_ino == here.st_ino)
			return 0;
	} else if (errno == EACCES) {
		rb_perm_why(pid, err, errlen);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	n1 = readlink("/proc/self/ns/mnt", ns1, sizeof(ns1) - 1);
	n2 = readlink(path, ns2, sizeof(ns2) - 1);
	if (n2 < 0 && (errno == ENOENT || errno == ESRCH))
		rb_err_set(err, errlen, "%d exited while being attached", pid);
	else if (n1 != n2 || (n1 > 0 && memcmp(ns1, ns2, (size_t)n1) != 0))
		rb_err_set(err, errlen, "%d runs in another mount namespace; %s is not "
			"at that path inside it", pid, elib);
	else
		rb_err_set(err, errlen, "%d runs in another root directory (chroot); "
			"%s is not at that path inside it", pid, elib);
	return -1;
}
