/* SPDX-License-Identifier: MIT */
/* rbmon taskstat: the kernel's view of traced threads, read from /proc. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "monitor/util/alloc.h"
#include "monitor/core/taskstat.h"

/*
 * Each snapshot (a pass) reads the stat line of every live traced thread
 * and of its process.  A refresh every 0.1 s over hundreds of threads must
 * stay cheap, so each stat file is kept open and read again from offset 0
 * (the kernel generates it anew): a read costs a third of an open, read
 * and close.  A kept file names its task, not its number: once the thread
 * is gone the read fails (ESRCH) and a thread that reuses the tid is only
 * reached by opening the path again.  The CPU share of a task is the
 * growth of utime + stime between the start of its interval and now; an
 * interval ends at the first pass at least RBMON_CPU_MIN_NS after it
 * began, so an extra snapshot in between (a command looking up a thread)
 * keeps the share of the last whole interval.
 */

struct tasks_ent {
	int32_t		 pid, tid;	/* tid 0: the process (/proc/PID/stat) */
	int		 fd;		/* the stat file kept open, or -1 */
	uint32_t	 pass;		/* the last pass that asked for it */
	uint64_t	 read_ns;	/* when its line was last read */
	int		 ok;		/* what that read gave: */
	struct rbmon_task t;
	int		 based;		/* the current interval began: */
	uint64_t	 base_ticks, base_ns, base_start;
};

struct rbmon_tasks {
	struct tasks_ent *ents;		/* [0, sorted) by pid, tid; then new */
	size_t		 n, sorted, cap;
	uint32_t	 pass;
	uint64_t	 reread_ns;	/* a line read again after this, at the soonest */
	uint64_t	 now_ns;	/* CLOCK_MONOTONIC at the pass */
	uint64_t	 boot_ns;	/* CLOCK_BOOTTIME - CLOCK_MONOTONIC */
	uint64_t	 tick_ns;
	int		 ncpu;
	size_t		 kept, keep_max;
};

#define TASKS_KEEP_MAX	4096	/* stat files kept open, at most */

/**
 * rbmon_tasks_new - the per-model state of the /proc reads
 *
 * Return: a new state; release it with rbmon_tasks_free().
 */
struct rbmon_tasks *
rbmon_tasks_new(void)
{
	struct rbmon_tasks	*ts;
	struct rlimit		 rl;
	long			 v;

	ts = rbmon_xcalloc(1, sizeof *ts);
	v = sysconf(_SC_CLK_TCK);
	ts->tick_ns = v > 0 && v <= 1000000000 ? 1000000000u / (uint64_t)v :
	    10000000u;
	v = sysconf(_SC_NPROCESSORS_ONLN);
	ts->ncpu = v > 0 ? (int)v : 1;
	/* Half of what rbmon may open: the rest for objects and files. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		ts->keep_max = rl.rlim_cur == RLIM_INFINITY ||
		    rl.rlim_cur / 2 > TASKS_KEEP_MAX ? TASKS_KEEP_MAX :
		    (size_t)rl.rlim_cur / 2;
	return ts;
}

void
rbmon_tasks_free(struct rbmon_tasks *ts)
{
	size_t	i;

	if (ts == NULL)
		return;
	for (i = 0; i < ts->n; i++) {
		if (ts->ents[i].fd >= 0)
			close(ts->ents[i].fd);
	}
	free(ts->ents);
	free(ts);
}

/* The number of stat files kept open (for tests). */
size_t
rbmon_tasks_kept(const struct rbmon_tasks *ts)
{
	return ts->kept;
}

static uint64_t
tasks_ns(clockid_t id)
{
	struct timespec	ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/**
 * rbmon_tasks_every - read a task's stat line again only after @ns (0:
 * at every pass, the default)
 */
void
rbmon_tasks_every(struct rbmon_tasks *ts, uint64_t ns)
{
	ts->reread_ns = ns;
}

/**
 * rbmon_tasks_begin - start a pass: the reads that follow are of one time
 * @ts: the state
 */
void
rbmon_tasks_begin(struct rbmon_tasks *ts)
{
	uint64_t	boot;

	ts->pass++;
	ts->now_ns = tasks_ns(CLOCK_MONOTONIC);
	boot = tasks_ns(CLOCK_BOOTTIME);
	ts->boot_ns = boot > ts->now_ns ? boot - ts->now_ns : 0;
}

static int
tasks_cmp(const void *a, const void *b)
{
	const struct tasks_ent	*x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static struct tasks_ent *
tasks_find(struct rbmon_tasks *ts, pid_t pid, pid_t tid)
{
	struct tasks_ent	 key, *e = NULL;
	size_t			 i;

	key.pid = pid;
	key.tid = tid;
	if (ts->sorted > 0)
		e = bsearch(&key, ts->ents, ts->sorted, sizeof *e, tasks_cmp);
	if (e != NULL)
		return e;
	for (i = ts->sorted; i < ts->n; i++) {
		if (ts->ents[i].pid == pid && ts->ents[i].tid == tid)
			return &ts->ents[i];
	}
	if (ts->n == ts->cap) {
		ts->cap = ts->cap == 0 ? 64 : ts->cap * 2;
		ts->ents = rbmon_xreallocarray(ts->ents, ts->cap,
		    sizeof *ts->ents);
	}
	e = &ts->ents[ts->n++];
	memset(e, 0, sizeof *e);
	e->pid = pid;
	e->tid = tid;
	e->fd = -1;
	e->t.cpu = -1;
	return e;
}

/* The CPU share of @e's last whole interval, from the line just read. */
static void
tasks_sample(struct rbmon_tasks *ts, struct tasks_ent *e)
{
	const struct rb_procstat	*st = &e->t.st;
	uint64_t			 ticks = st->utime + st->stime, dt;
	double				 max;

	e->t.cpu_ns = ticks * ts->tick_ns;
	if (!e->based || e->base_start != st->starttime ||
	    ticks < e->base_ticks) {
		/* First seen, or another task under the number. */
		e->based = 1;
		e->base_ticks = ticks;
		e->base_ns = ts->now_ns;
		e->base_start = st->starttime;
		e->t.cpu = -1;
		return;
	}
	dt = ts->now_ns - e->base_ns;
	if (dt < RBMON_CPU_MIN_NS)
		return;
	/* Ticks are coarse: a thread can seem to run more than it can. */
	max = e->tid == 0 ? 100.0 * ts->ncpu : 100.0;
	e->t.cpu = (double)(ticks - e->base_ticks) * (double)ts->tick_ns *
	    100.0 / (double)dt;
	if (e->t.cpu > max)
		e->t.cpu = max;
	e->base_ticks = ticks;
	e->base_ns = ts->now_ns;
}

/**
 * rbmon_tasks_read - the stat line of a thread or a process, this pass
 * @ts: the state, between rbmon_tasks_begin() and rbmon_tasks_end()
 * @pid: the process
 * @tid: the thread, or 0 for the process as a whole
 * @out: filled in
 *
 * A task is read once per pass; asking again gives the same answer.
 *
 * Return: 0, or -1 if there is no such task (gone) or no stat line.
 */
int
rbmon_tasks_read(struct rbmon_tasks *ts, pid_t pid, pid_t tid,
    struct rbmon_task *out)
{
	struct tasks_ent	*e;
	char			 buf[RB_PROCSTAT_BUF], path[64];
	ssize_t			 n = -1;
	int			 fd;

	if (pid <= 0 || tid < 0)
		return -1;
	e = tasks_find(ts, pid, tid);
	/*
	 * Once per pass, and not more often than every reread_ns (the
	 * screen's choice: it refreshes up to ten times a second, and reading
	 * hundreds of stat lines is most of what a refresh costs); in
	 * between, the last line read stands.
	 */
	if (e->pass != ts->pass && e->ok && ts->reread_ns != 0 &&
	    ts->now_ns - e->read_ns < ts->reread_ns)
		e->pass = ts->pass;
	if (e->pass != ts->pass) {
		e->pass = ts->pass;
		e->read_ns = ts->now_ns;
		e->ok = 0;
		if (e->fd >= 0 &&
		    (n = rb_procfs_pread(e->fd, buf, sizeof buf)) <= 0) {
			close(e->fd);	/* that task is gone */
			e->fd = -1;
			ts->kept--;
		}
		if (e->fd < 0 && rb_procfs_path(path, sizeof path, pid, tid,
		    "stat") != 0 &&
		    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) >= 0) {
			n = rb_procfs_pread(fd, buf, sizeof buf);
			if (n > 0 && ts->kept < ts->keep_max) {
				e->fd = fd;
				ts->kept++;
			} else
				close(fd);
		}
		if (n > 0 && rb_procstat_parse(buf, (size_t)n, &e->t.st) == 0) {
			e->ok = 1;
			tasks_sample(ts, e);
		}
	}
	if (!e->ok)
		return -1;
	*out = e->t;
	return 0;
}

/**
 * rbmon_tasks_started_by - could a task that started at @start have made
 * a ring at @created_ns?
 * @ts: the state (its pass knows the boot clock)
 * @start: the task's start, field 22 of its stat line (ticks after boot)
 * @created_ns: when the ring was made (CLOCK_MONOTONIC, rbtrace(5))
 *
 * A thread makes its ring after it started: a task that started later is
 * another thread that got the same tid.  The boot clock runs ahead of the
 * monotonic one by the time suspended, which only grows: taking today's
 * difference never refuses the thread that made the ring.
 *
 * Return: 1 if it could, 0 if it cannot have.
 */
int
rbmon_tasks_started_by(const struct rbmon_tasks *ts, uint64_t start,
    uint64_t created_ns)
{
	uint64_t	limit;

	if (start > UINT64_MAX / ts->tick_ns)
		return 0;
	limit = created_ns + ts->boot_ns;
	if (limit < created_ns || limit + ts->tick_ns < limit)
		return 1;
	return start * ts->tick_ns <= limit + ts->tick_ns;
}

/**
 * rbmon_tasks_end - end a pass: forget the tasks it did not read
 * @ts: the state
 */
void
rbmon_tasks_end(struct rbmon_tasks *ts)
{
	struct tasks_ent	*e;
	size_t			 i, k = 0;

	for (i = 0; i < ts->n; i++) {
		e = &ts->ents[i];
		if (e->pass != ts->pass) {
			if (e->fd >= 0) {
				close(e->fd);
				ts->kept--;
			}
			continue;
		}
		ts->ents[k++] = *e;
	}
	ts->n = k;
	if (k > 1)
		qsort(ts->ents, k, sizeof *ts->ents, tasks_cmp);
	ts->sorted = k;
}

/*
 * The x86_64 system calls by number (the kernel's syscall_64.tbl, "common"
 * and "64" entries; numbers never change).
 */
static const char *const sc_names[] = {
	[0] = "read", [1] = "write", [2] = "open", [3] = "close", [4] = "stat",
	[5] = "fstat", [6] = "lstat", [7] = "poll", [8] = "lseek",
	[9] = "mmap", [10] = "mprotect", [11] = "munmap", [12] = "brk",
	[13] = "rt_sigaction", [14] = "rt_sigprocmask", [15] = "rt_sigreturn",
	[16] = "ioctl", [17] = "pread64", [18] = "pwrite64", [19] = "readv",
	[20] = "writev", [21] = "access", [22] = "pipe", [23] = "select",
	[24] = "sched_yield", [25] = "mremap", [26] = "msync",
	[27] = "mincore", [28] = "madvise", [29] = "shmget", [30] = "shmat",
	[31] = "shmctl", [32] = "dup", [33] = "dup2", [34] = "pause",
	[35] = "nanosleep", [36] = "getitimer", [37] = "alarm",
	[38] = "setitimer", [39] = "getpid", [40] = "sendfile",
	[41] = "socket", [42] = "connect", [43] = "accept", [44] = "sendto",
	[45] = "recvfrom", [46] = "sendmsg", [47] = "recvmsg",
	[48] = "shutdown", [49] = "bind", [50] = "listen",
	[51] = "getsockname", [52] = "getpeername", [53] = "socketpair",
	[54] = "setsockopt", [55] = "getsockopt", [56] = "clone",
	[57] = "fork", [58] = "vfork", [59] = "execve", [60] = "exit",
	[61] = "wait4", [62] = "kill", [63] = "uname", [64] = "semget",
	[65] = "semop", [66] = "semctl", [67] = "shmdt", [68] = "msgget",
	[69] = "msgsnd", [70] = "msgrcv", [71] = "msgctl", [72] = "fcntl",
	[73] = "flock", [74] = "fsync", [75] = "fdatasync", [76] = "truncate",
	[77] = "ftruncate", [78] = "getdents", [79] = "getcwd", [80] = "chdir",
	[81] = "fchdir", [82] = "rename", [83] = "mkdir", [84] = "rmdir",
	[85] = "creat", [86] = "link", [87] = "unlink", [88] = "symlink",
	[89] = "readlink", [90] = "chmod", [91] = "fchmod", [92] = "chown",
	[93] = "fchown", [94] = "lchown", [95] = "umask",
	[96] = "gettimeofday", [97] = "getrlimit", [98] = "getrusage",
	[99] = "sysinfo", [100] = "times", [101] = "ptrace", [102] = "getuid",
	[103] = "syslog", [104] = "getgid", [105] = "setuid", [106] = "setgid",
	[107] = "geteuid", [108] = "getegid", [109] = "setpgid",
	[110] = "getppid", [111] = "getpgrp", [112] = "setsid",
	[113] = "setreuid", [114] = "setregid", [115] = "getgroups",
	[116] = "setgroups", [117] = "setresuid", [118] = "getresuid",
	[119] = "setresgid", [120] = "getresgid", [121] = "getpgid",
	[122] = "setfsuid", [123] = "setfsgid", [124] = "getsid",
	[125] = "capget", [126] = "capset", [127] = "rt_sigpending",
	[128] = "rt_sigtimedwait", [129] = "rt_sigqueueinfo",
	[130] = "rt_sigsuspend", [131] = "sigaltstack", [132] = "utime",
	[133] = "mknod", [134] = "uselib", [135] = "personality",
	[136] = "ustat", [137] = "statfs", [138] = "fstatfs", [139] = "sysfs",
	[140] = "getpriority", [141] = "setpriority", [142] = "sched_setparam",
	[143] = "sched_getparam", [144] = "sched_setscheduler",
	[145] = "sched_getscheduler", [146] = "sched_get_priority_max",
	[147] = "sched_get_priority_min", [148] = "sched_rr_get_interval",
	[149] = "mlock", [150] = "munlock", [151] = "mlockall",
	[152] = "munlockall", [153] = "vhangup", [154] = "modify_ldt",
	[155] = "pivot_root", [156] = "_sysctl", [157] = "prctl",
	[158] = "arch_prctl", [159] = "adjtimex", [160] = "setrlimit",
	[161] = "chroot", [162] = "sync", [163] = "acct",
	[164] = "settimeofday", [165] = "mount", [166] = "umount2",
	[167] = "swapon", [168] = "swapoff", [169] = "reboot",
	[170] = "sethostname", [171] = "setdomainname", [172] = "iopl",
	[173] = "ioperm", [174] = "create_module", [175] = "init_module",
	[176] = "delete_module", [177] = "get_kernel_syms",
	[178] = "query_module", [179] = "quotactl", [180] = "nfsservctl",
	[181] = "getpmsg", [182] = "putpmsg", [183] = "afs_syscall",
	[184] = "tuxcall", [185] = "security", [186] = "gettid",
	[187] = "readahead", [188] = "setxattr", [189] = "lsetxattr",
	[190] = "fsetxattr", [191] = "getxattr", [192] = "lgetxattr",
	[193] = "fgetxattr", [194] = "listxattr", [195] = "llistxattr",
	[196] = "flistxattr", [197] = "removexattr", [198] = "lremovexattr",
	[199] = "fremovexattr", [200] = "tkill", [201] = "time",
	[202] = "futex", [203] = "sched_setaffinity",
	[204] = "sched_getaffinity", [205] = "set_thread_area",
	[206] = "io_setup", [207] = "io_destroy", [208] = "io_getevents",
	[209] = "io_submit", [210] = "io_cancel", [211] = "get_thread_area",
	[212] = "lookup_dcookie", [213] = "epoll_create",
	[214] = "epoll_ctl_old", [215] = "epoll_wait_old",
	[216] = "remap_file_pages", [217] = "getdents64",
	[218] = "set_tid_address", [219] = "restart_syscall",
	[220] = "semtimedop", [221] = "fadvise64", [222] = "timer_create",
	[223] = "timer_settime", [224] = "timer_gettime",
	[225] = "timer_getoverrun", [226] = "timer_delete",
	[227] = "clock_settime", [228] = "clock_gettime",
	[229] = "clock_getres", [230] = "clock_nanosleep",
	[231] = "exit_group", [232] = "epoll_wait", [233] = "epoll_ctl",
	[234] = "tgkill", [235] = "utimes", [236] = "vserver", [237] = "mbind",
	[238] = "set_mempolicy", [239] = "get_mempolicy", [240] = "mq_open",
	[241] = "mq_unlink", [242] = "mq_timedsend", [243] = "mq_timedreceive",
	[244] = "mq_notify", [245] = "mq_getsetattr", [246] = "kexec_load",
	[247] = "waitid", [248] = "add_key", [249] = "request_key",
	[250] = "keyctl", [251] = "ioprio_set", [252] = "ioprio_get",
	[253] = "inotify_init", [254] = "inotify_add_watch",
	[255] = "inotify_rm_watch", [256] = "migrate_pages", [257] = "openat",
	[258] = "mkdirat", [259] = "mknodat", [260] = "fchownat",
	[261] = "futimesat", [262] = "newfstatat", [263] = "unlinkat",
	[264] = "renameat", [265] = "linkat", [266] = "symlinkat",
	[267] = "readlinkat", [268] = "fchmodat", [269] = "faccessat",
	[270] = "pselect6", [271] = "ppoll", [272] = "unshare",
	[273] = "set_robust_list", [274] = "get_robust_list", [275] = "splice",
	[276] = "tee", [277] = "sync_file_range", [278] = "vmsplice",
	[279] = "move_pages", [280] = "utimensat", [281] = "epoll_pwait",
	[282] = "signalfd", [283] = "timerfd_create", [284] = "eventfd",
	[285] = "fallocate", [286] = "timerfd_settime",
	[287] = "timerfd_gettime", [288] = "accept4", [289] = "signalfd4",
	[290] = "eventfd2", [291] = "epoll_create1", [292] = "dup3",
	[293] = "pipe2", [294] = "inotify_init1", [295] = "preadv",
	[296] = "pwritev", [297] = "rt_tgsigqueueinfo",
	[298] = "perf_event_open", [299] = "recvmmsg", [300] = "fanotify_init",
	[301] = "fanotify_mark", [302] = "prlimit64",
	[303] = "name_to_handle_at", [304] = "open_by_handle_at",
	[305] = "clock_adjtime", [306] = "syncfs", [307] = "sendmmsg",
	[308] = "setns", [309] = "getcpu", [310] = "process_vm_readv",
	[311] = "process_vm_writev", [312] = "kcmp", [313] = "finit_module",
	[314] = "sched_setattr", [315] = "sched_getattr", [316] = "renameat2",
	[317] = "seccomp", [318] = "getrandom", [319] = "memfd_create",
	[320] = "kexec_file_load", [321] = "bpf", [322] = "execveat",
	[323] = "userfaultfd", [324] = "membarrier", [325] = "mlock2",
	[326] = "copy_file_range", [327] = "preadv2", [328] = "pwritev2",
	[329] = "pkey_mprotect", [330] = "pkey_alloc", [331] = "pkey_free",
	[332] = "statx", [333] = "io_pgetevents", [334] = "rseq",
	[424] = "pidfd_send_signal", [425] = "io_uring_setup",
	[426] = "io_uring_enter", [427] = "io_uring_register",
	[428] = "open_tree", [429] = "move_mount", [430] = "fsopen",
	[431] = "fsconfig", [432] = "fsmount", [433] = "fspick",
	[434] = "pidfd_open", [435] = "clone3", [436] = "close_range",
	[437] = "openat2", [438] = "pidfd_getfd", [439] = "faccessat2",
	[440] = "process_madvise", [441] = "epoll_pwait2",
	[442] = "mount_setattr", [443] = "quotactl_fd",
	[444] = "landlock_create_ruleset", [445] = "landlock_add_rule",
	[446] = "landlock_restrict_self", [447] = "memfd_secret",
	[448] = "process_mrelease", [449] = "futex_waitv",
	[450] = "set_mempolicy_home_node", [451] = "cachestat",
	[452] = "fchmodat2", [453] = "map_shadow_stack", [454] = "futex_wake",
	[455] = "futex_wait", [456] = "futex_requeue", [457] = "statmount",
	[458] = "listmount", [459] = "lsm_get_self_attr",
	[460] = "lsm_set_self_attr", [461] = "lsm_list_modules",
	[462] = "mseal", [463] = "setxattrat", [464] = "getxattrat",
	[465] = "listxattrat", [466] = "removexattrat",
	[467] = "open_tree_attr", [468] = "file_getattr",
	[469] = "file_setattr",
};

/*
 * How the arguments of the calls a thread is often blocked in are shown,
 * one letter each: f a descriptor, d an int, l a long, u an unsigned size,
 * p a pointer, x flags in hex, F a futex operation, c a clock.  Others show
 * "(...)".
 */
static const char *const sc_args[] = {
	[0] = "fpu",		/* read */
	[1] = "fpu",		/* write */
	[2] = "px",		/* open */
	[3] = "f",		/* close */
	[7] = "pud",		/* poll */
	[8] = "fld",		/* lseek */
	[16] = "fxx",		/* ioctl */
	[17] = "fpul",		/* pread64 */
	[18] = "fpul",		/* pwrite64 */
	[19] = "fpd",		/* readv */
	[20] = "fpd",		/* writev */
	[23] = "dpppp",		/* select */
	[24] = "",		/* sched_yield */
	[34] = "",		/* pause */
	[35] = "pp",		/* nanosleep */
	[40] = "ffpu",		/* sendfile */
	[42] = "fpu",		/* connect */
	[43] = "fpp",		/* accept */
	[44] = "fpuxpu",	/* sendto */
	[45] = "fpuxpp",	/* recvfrom */
	[46] = "fpx",		/* sendmsg */
	[47] = "fpx",		/* recvmsg */
	[48] = "fd",		/* shutdown */
	[61] = "dpxp",		/* wait4 */
	[62] = "dd",		/* kill */
	[65] = "dpu",		/* semop */
	[69] = "dpux",		/* msgsnd */
	[70] = "dpulx",		/* msgrcv */
	[72] = "fdx",		/* fcntl */
	[73] = "fx",		/* flock */
	[74] = "f",		/* fsync */
	[75] = "f",		/* fdatasync */
	[128] = "pppu",		/* rt_sigtimedwait */
	[130] = "pu",		/* rt_sigsuspend */
	[162] = "",		/* sync */
	[200] = "dd",		/* tkill */
	[202] = "pFup",		/* futex */
	[208] = "xllpp",	/* io_getevents */
	[220] = "dpup",		/* semtimedop */
	[230] = "cxpp",		/* clock_nanosleep */
	[232] = "fpdd",		/* epoll_wait */
	[234] = "ddd",		/* tgkill */
	[242] = "fpuup",	/* mq_timedsend */
	[243] = "fpupp",	/* mq_timedreceive */
	[247] = "ddpxp",	/* waitid */
	[257] = "fpx",		/* openat */
	[270] = "dppppp",	/* pselect6 */
	[271] = "puppu",	/* ppoll */
	[275] = "fpfpux",	/* splice */
	[276] = "ffux",		/* tee */
	[281] = "fpddpu",	/* epoll_pwait */
	[288] = "fppx",		/* accept4 */
	[295] = "fpdl",		/* preadv */
	[296] = "fpdl",		/* pwritev */
	[299] = "fpuxp",	/* recvmmsg */
	[306] = "f",		/* syncfs */
	[307] = "fpux",		/* sendmmsg */
	[318] = "pux",		/* getrandom */
	[327] = "fpdllx",	/* preadv2 */
	[328] = "fpdllx",	/* pwritev2 */
	[426] = "fuuxpu",	/* io_uring_enter */
	[441] = "fpdppu",	/* epoll_pwait2 */
	[449] = "puxpc",	/* futex_waitv */
	[454] = "pxdx",		/* futex_wake */
	[455] = "puxxpc",	/* futex_wait */
};

static const char *const sc_futex_cmds[] = {
	"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_FD", "FUTEX_REQUEUE",
	"FUTEX_CMP_REQUEUE", "FUTEX_WAKE_OP", "FUTEX_LOCK_PI",
	"FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI", "FUTEX_WAIT_BITSET",
	"FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI", "FUTEX_CMP_REQUEUE_PI",
	"FUTEX_LOCK_PI2",
};

static const char *const sc_clocks[] = {
	"CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_PROCESS_CPUTIME_ID",
	"CLOCK_THREAD_CPUTIME_ID", "CLOCK_MONOTONIC_RAW",
	"CLOCK_REALTIME_COARSE", "CLOCK_MONOTONIC_COARSE", "CLOCK_BOOTTIME",
	"CLOCK_REALTIME_ALARM", "CLOCK_BOOTTIME_ALARM", NULL, "CLOCK_TAI",
};

#define SC_NELEM(a)	(sizeof (a) / sizeof (a)[0])
#define SC_FUTEX_PRIVATE	128
#define SC_FUTEX_CLOCK_REALTIME	256
#define SC_AT_FDCWD		(-100)

/**
 * rbmon_syscall_name - an x86_64 system call's name
 * @nr: its number
 *
 * Return: the name, or NULL if @nr names none that this table knows.
 */
const char *
rbmon_syscall_name(long nr)
{
	if (nr < 0 || (unsigned long)nr >= SC_NELEM(sc_names))
		return NULL;
	return sc_names[nr];
}

static void __attribute__((format(printf, 4, 5)))
sc_put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	if (*len + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

static void
sc_arg(char *buf, size_t size, size_t *len, char kind, unsigned long long a)
{
	unsigned	op, cmd;
	int		i = (int)(unsigned)a;

	switch (kind) {
	case 'f':
		if (i == SC_AT_FDCWD)
			sc_put(buf, size, len, "AT_FDCWD");
		else
			sc_put(buf, size, len, "%d", i);
		break;
	case 'd':
		sc_put(buf, size, len, "%d", i);
		break;
	case 'l':
		sc_put(buf, size, len, "%lld", (long long)a);
		break;
	case 'u':
		sc_put(buf, size, len, "%llu", a);
		break;
	case 'p':
		if (a == 0)
			sc_put(buf, size, len, "NULL");
		else
			sc_put(buf, size, len, "0x%llx", a);
		break;
	case 'F':
		op = (unsigned)a;
		cmd = op & ~(unsigned)(SC_FUTEX_PRIVATE |
		    SC_FUTEX_CLOCK_REALTIME);
		if (a > UINT32_MAX || cmd >= SC_NELEM(sc_futex_cmds)) {
			sc_put(buf, size, len, "0x%llx", a);
			break;
		}
		sc_put(buf, size, len, "%s%s%s", sc_futex_cmds[cmd],
		    (op & SC_FUTEX_PRIVATE) ? "_PRIVATE" : "",
		    (op & SC_FUTEX_CLOCK_REALTIME) ?
		    "|FUTEX_CLOCK_REALTIME" : "");
		break;
	case 'c':
		if (a < SC_NELEM(sc_clocks) && sc_clocks[a] != NULL)
			sc_put(buf, size, len, "%s", sc_clocks[a]);
		else
			sc_put(buf, size, len, "%d", i);
		break;
	default:
		sc_put(buf, size, len, "0x%llx", a);
		break;
	}
}

/**
 * rbmon_syscall_format - a system call as /proc/PID/task/TID/syscall has it
 * @line: that file's text: "NR ARG1 ... ARG6 SP PC" (hexadecimal
 * arguments), or "-1 SP PC" (blocked, not in a system call), or "running"
 * @buf: "read(3, 0x7ffd5a0e1230, 4096)": the name and, for the calls
 * threads are often blocked in, their arguments; "name(...)" for others
 * @size: its size; a longer text is cut
 *
 * Return: 0, or -1 if @line names no system call.
 */
int
rbmon_syscall_format(const char *line, char *buf, size_t size)
{
	unsigned long long	 a[6];
	const char		*name, *spec = NULL, *p;
	char			*end;
	size_t			 len = 0;
	long			 nr;
	int			 i;

	if (size == 0 || *line < '0' || *line > '9')
		return -1;
	errno = 0;
	nr = strtol(line, &end, 10);
	if (errno != 0 || *end != ' ')
		return -1;
	p = end;
	for (i = 0; i < 6; i++) {
		if (p[0] != ' ' || p[1] != '0' || p[2] != 'x' ||
		    !((p[3] >= '0' && p[3] <= '9') ||
		    (p[3] >= 'a' && p[3] <= 'f')))
			return -1;
		errno = 0;
		a[i] = strtoull(p + 3, &end, 16);
		if (errno != 0)
			return -1;
		p = end;
	}
	buf[0] = '\0';
	name = rbmon_syscall_name(nr);
	if (name != NULL)
		sc_put(buf, size, &len, "%s(", name);
	else
		sc_put(buf, size, &len, "syscall_%ld(", nr);
	if ((unsigned long)nr < SC_NELEM(sc_args))
		spec = sc_args[nr];
	if (spec == NULL)
		sc_put(buf, size, &len, "...");
	for (i = 0; spec != NULL && spec[i] != '\0'; i++) {
		if (i != 0)
			sc_put(buf, size, &len, ", ");
		sc_arg(buf, size, &len, spec[i], a[i]);
	}
	sc_put(buf, size, &len, ")");
	return 0;
}

/**
 * rbmon_task_blocked - what a thread blocked in the kernel waits in
 * @pid: its process
 * @tid: the thread
 *
 * From /proc/PID/task/TID/syscall where it is readable (the kernel asks
 * for the right to trace the thread) and names a system call, else the
 * kernel function it waits in (wchan).
 *
 * Return: a new string (the caller escapes it before it is shown), or
 * NULL if the kernel says neither (running, gone, not allowed).
 */
char *
rbmon_task_blocked(pid_t pid, pid_t tid)
{
	char	path[64], buf[512], out[RBMON_BLOCKED_MAX];

	if (rb_procfs_path(path, sizeof path, pid, tid, "syscall") != 0 &&
	    rb_procfs_read(path, buf, sizeof buf) > 0 &&
	    rbmon_syscall_format(buf, out, sizeof out) == 0)
		return rbmon_xstrdup(out);
	if (rb_procfs_path(path, sizeof path, pid, tid, "wchan") == 0 ||
	    rb_procfs_read(path, buf, sizeof buf) <= 0)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	if (buf[0] == '\0' || strcmp(buf, "0") == 0)
		return NULL;
	return rbmon_xstrdup(buf);
}
