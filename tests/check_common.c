/* SPDX-License-Identifier: MIT */
/* check_common: the code lib/, monitor/ and tools/ share (common/). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <check.h>

#include "tasks.h"

#include "common/outfile.h"
#include "common/procstat.h"

/* A kernel stat line: pid 4242, state S, ppid 17, utime 1234, stime
 * 56, 3 threads, started 987654 ticks after boot. */
#define LINE_HEAD	"4242 ("
#define LINE_TAIL	") S 17 4242 4242 0 -1 4194560 2093 0 0 0 1234 56 0 " \
	"0 20 0 3 0 987654 12345678 512 18446744073709551615 1 1 0 0 0 " \
	"0 0 4096 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n"

static int
parse(const char *s, struct rb_procstat *st)
{
	return rb_procstat_parse(s, strlen(s), st);
}

static char *
line_with(const char *comm)
{
	char	*s;

	ck_assert_int_ge(asprintf(&s, LINE_HEAD "%s" LINE_TAIL, comm), 0);
	return s;
}

START_TEST(test_procstat_fields)
{
	struct rb_procstat	 st;
	char			*s = line_with("prog");

	ck_assert_int_eq(parse(s, &st), 0);
	ck_assert_str_eq(st.comm, "prog");
	ck_assert_int_eq(st.state, 'S');
	ck_assert_int_eq(st.ppid, 17);
	ck_assert_uint_eq(st.utime, 1234);
	ck_assert_uint_eq(st.stime, 56);
	ck_assert_uint_eq(st.num_threads, 3);
	ck_assert_uint_eq(st.starttime, 987654);
	free(s);
}
END_TEST

/* The comm runs to the last ')': whatever it holds is not a field. */
START_TEST(test_procstat_comm)
{
	static const char *const comms[] = {
		"a) b (c", ")", "(", "()", ") R 1 2 3",
		"x) Z 9 1 2 3 4 5 6 7 8 9 1 2 3 4 5 6 7 8 9 ",	/* 3-22 */
		"a b",
		"", "tab\there", "nl\nin",
	};
	struct rb_procstat	 st;
	char			*s, big[RB_PROCSTAT_COMM_MAX + 40];
	size_t			 i;

	for (i = 0; i < sizeof comms / sizeof comms[0]; i++) {
		s = line_with(comms[i]);
		memset(&st, 0, sizeof st);
		ck_assert_msg(parse(s, &st) == 0, "%s", s);
		ck_assert_str_eq(st.comm, comms[i]);
		ck_assert_int_eq(st.state, 'S');
		ck_assert_int_eq(st.ppid, 17);
		ck_assert_uint_eq(st.starttime, 987654);
		free(s);
	}
	/* A comm longer than the kernel's longest is cut, not overrun. */
	memset(big, 'k', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	s = line_with(big);
	ck_assert_int_eq(parse(s, &st), 0);
	ck_assert_uint_eq(strlen(st.comm), RB_PROCSTAT_COMM_MAX);
	ck_assert_uint_eq(st.utime, 1234);
	free(s);
}
END_TEST

/* Every cut before field 22 is whole is refused; every later one parses. */
START_TEST(test_procstat_truncated)
{
	struct rb_procstat	 st, want;
	char			*s = line_with("a) b (c"), *field22;
	size_t			 len, whole;

	ck_assert_int_eq(parse(s, &want), 0);
	field22 = strstr(s, " 987654 ");
	ck_assert_ptr_nonnull(field22);
	whole = (size_t)(field22 - s) + strlen(" 987654 ");
	for (len = 0; len <= strlen(s); len++) {
		memset(&st, 0x5a, sizeof st);
		if (len < whole) {
			ck_assert_msg(rb_procstat_parse(s, len, &st) == -1,
			    "cut at %zu parsed", len);
			ck_assert_int_eq(st.state, 0x5a);	/* untouched */
		} else {
			ck_assert_msg(rb_procstat_parse(s, len, &st) == 0,
			    "cut at %zu refused", len);
			ck_assert_uint_eq(st.starttime, want.starttime);
			ck_assert_uint_eq(st.utime, want.utime);
		}
	}
	/* A NUL ends the text as a short length would. */
	s[whole - 2] = '\0';
	ck_assert_int_eq(rb_procstat_parse(s, strlen(LINE_TAIL) + 100, &st),
	    -1);
	free(s);
	/* The newline ends the line: fields after it are not the line's. */
	ck_assert_int_eq(parse("1 (a) S 1 1 1 0 -1 0 0 0 0 0 5\n6 0 0 20 0 1 "
	    "0 77 0 0 ", &st), -1);
}
END_TEST

START_TEST(test_procstat_garbage)
{
	static const char *const bad[] = {
		"",
		"hello",
		"(",
		")",
		"()",
		"1 (a)",
		"1 (a) S",
		"1 (a) S ",
		"(a) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77 0",
		"x (a) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77 0",
		"1(a) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77 0",
		"1 (a) 7 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77 0",
		"1 (a) SS 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77 0",
		"1 (a)  S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77 0",
		"1 (a) S -1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77 0",
		"1 (a) S 1  1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77 0",
		"1 (a) S 1 1 1 0 -1 0 0 0 0 0 0x5 6 0 0 20 0 1 0 77 0",
		"1 (a) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77x 0",
		"1 (a) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 +1 0 77 0",
		"1 (a) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77",
		"1 (a) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 \n77 0",
		"\xff\xfe (\x01) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77 0",
	};
	struct rb_procstat	st;
	size_t			i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(parse(bad[i], &st) == -1, "parsed: %s", bad[i]);
	/* The smallest line that holds fields 3 to 22. */
	ck_assert_int_eq(parse("1 (a) t 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 "
	    "77 0", &st), 0);
	ck_assert_int_eq(st.state, 't');
	ck_assert_uint_eq(st.utime + st.stime, 11);
	ck_assert_uint_eq(st.starttime, 77);
	/* Fields the parser does not read may be negative or odd. */
	ck_assert_int_eq(parse("1 (a) R 1 -5 -6 -7 -1 -8 x y z w 5 6 -3 -4 -100 "
	    "-20 1 -9 77\n", &st), 0);
	ck_assert_uint_eq(st.starttime, 77);
}
END_TEST

START_TEST(test_procstat_huge)
{
	struct rb_procstat	st;

	ck_assert_int_eq(parse("1 (a) S 2147483647 1 1 0 -1 0 0 0 0 0 "
	    "18446744073709551615 0 0 0 20 0 18446744073709551615 0 "
	    "18446744073709551615 0", &st), 0);
	ck_assert_int_eq(st.ppid, INT32_MAX);
	ck_assert_uint_eq(st.utime, UINT64_MAX);
	ck_assert_uint_eq(st.num_threads, UINT64_MAX);
	ck_assert_uint_eq(st.starttime, UINT64_MAX);
	ck_assert_int_eq(parse("1 (a) S 2147483648 1 1 0 -1 0 0 0 0 0 5 6 0 0 "
	    "20 0 1 0 77 0", &st), -1);
	ck_assert_int_eq(parse("1 (a) S 1 1 1 0 -1 0 0 0 0 0 "
	    "18446744073709551616 6 0 0 20 0 1 0 77 0", &st), -1);
	ck_assert_int_eq(parse("1 (a) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 "
	    "99999999999999999999999999999999 0", &st), -1);
	ck_assert_int_eq(parse("99999999999999999999999 (a) S 1 1 1 0 -1 0 0 0 "
	    "0 0 5 6 0 0 20 0 1 0 77 0", &st), -1);
}
END_TEST

START_TEST(test_procfs_path)
{
	char	buf[64];

	ck_assert_uint_eq(rb_procfs_path(buf, sizeof buf, 1, 0, "stat"), 12);
	ck_assert_str_eq(buf, "/proc/1/stat");
	ck_assert_uint_gt(rb_procfs_path(buf, sizeof buf, 12, 345, "syscall"),
	    0);
	ck_assert_str_eq(buf, "/proc/12/task/345/syscall");
	ck_assert_uint_gt(rb_procfs_path(buf, sizeof buf, INT_MAX, INT_MAX,
	    "wchan"), 0);
	ck_assert_str_eq(buf, "/proc/2147483647/task/2147483647/wchan");
	ck_assert_uint_eq(rb_procfs_path(buf, sizeof buf, 0, 0, "stat"), 0);
	ck_assert_uint_eq(rb_procfs_path(buf, sizeof buf, -1, 0, "stat"), 0);
	ck_assert_uint_eq(rb_procfs_path(buf, sizeof buf, 1, -1, "stat"), 0);
	/* Too small by one (no room for the NUL), then just right. */
	ck_assert_uint_eq(rb_procfs_path(buf, 12, 1, 0, "stat"), 0);
	ck_assert_uint_eq(rb_procfs_path(buf, 13, 1, 0, "stat"), 12);
	ck_assert_uint_eq(rb_procfs_path(buf, 3, 12345, 0, "stat"), 0);
	ck_assert_uint_eq(rb_procfs_path(buf, 0, 1, 0, "stat"), 0);
}
END_TEST

static void *
procstat_spin(void *arg)
{
	volatile int	*stop = arg;

	while (!__atomic_load_n(stop, __ATOMIC_RELAXED))
		continue;
	return NULL;
}

/* This process as the kernel says it, through the reader. */
START_TEST(test_procstat_read_self)
{
	struct rb_procstat	st, th;
	pthread_t		t;
	volatile int		stop = 0;
	pid_t			tid;
	unsigned		n0;

	n0 = task_count();
	ck_assert_int_eq(rb_procstat_read(getpid(), 0, &st), 0);
	ck_assert_int_eq(st.state, 'R');
	ck_assert_int_eq(st.ppid, getppid());
	ck_assert_uint_gt(st.starttime, 0);
	ck_assert_uint_eq(st.num_threads, n0);
	ck_assert_int_eq(pthread_create(&t, NULL, procstat_spin,
	    (void *)&stop), 0);
	ck_assert_int_eq(rb_procstat_read(getpid(), 0, &st), 0);
	/* One more at least (a sanitizer may start its own with the first). */
	ck_assert_uint_gt(st.num_threads, n0);
	ck_assert_uint_eq(st.num_threads, task_count());
	tid = (pid_t)syscall(SYS_gettid);
	ck_assert_int_eq(rb_procstat_read(getpid(), tid, &th), 0);
	ck_assert_uint_eq(th.starttime, st.starttime);	/* the main thread */
	ck_assert_str_eq(th.comm, st.comm);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);

	/* Nothing there: -1, and errno as it was. */
	errno = 4321;
	ck_assert_int_eq(rb_procstat_read(getpid(), INT_MAX, &st), -1);
	ck_assert_int_eq(errno, 4321);
	ck_assert_int_eq(rb_procstat_read(0, 0, &st), -1);
	ck_assert_int_eq(errno, 4321);
	ck_assert_int_eq(rb_procfs_read("/proc/self/nonesuch", (char[8]){0},
	    8), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

static Suite *
suite_procstat(void)
{
	Suite	*s = suite_create("procstat");
	TCase	*tc = tcase_create("procstat");

	tcase_add_test(tc, test_procstat_fields);
	tcase_add_test(tc, test_procstat_comm);
	tcase_add_test(tc, test_procstat_truncated);
	tcase_add_test(tc, test_procstat_garbage);
	tcase_add_test(tc, test_procstat_huge);
	tcase_add_test(tc, test_procfs_path);
	tcase_add_test(tc, test_procstat_read_self);
	suite_add_tcase(s, tc);
	return s;
}

/* ---- outfile -------------------------------------------------------------- */

static char	outdir[] = "/tmp/check_outfile.XXXXXX";

static void
out_setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(outdir));
	ck_assert_int_eq(chdir(outdir), 0);
}

static void
out_teardown(void)
{
	char	cmd[64];

	ck_assert_int_eq(chdir("/"), 0);
	snprintf(cmd, sizeof cmd, "rm -rf -- '%s'", outdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void
spit(const char *path, const char *text)
{
	FILE	*f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The file's first line, or "" if it cannot be read. */
static const char *
slurp(const char *path)
{
	static char	buf[256];
	FILE		*f = fopen(path, "r");

	buf[0] = '\0';
	if (f != NULL) {
		if (fgets(buf, sizeof buf, f) == NULL)
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* How many entries the directory has (so: no temporary file left). */
static int
entries(void)
{
	struct dirent	*d;
	DIR		*dir = opendir(".");
	int		 n = 0;

	ck_assert_ptr_nonnull(dir);
	while ((d = readdir(dir)) != NULL)
		n += strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
	closedir(dir);
	return n;
}

static void
put(int fd, const char *text)
{
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(close(fd), 0);
}

/* A new name: created at once (NOW), or at commit. */
START_TEST(test_outfile_new)
{
	struct rb_outfile	o;
	struct stat		st;

	ck_assert_int_eq(rb_outfile_open(&o, "now", RB_OUTFILE_NOW, 0600), 0);
	ck_assert_int_eq(stat("now", &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	put(o.fd, "now\n");
	ck_assert_int_eq(rb_outfile_commit(&o), 0);
	ck_assert_str_eq(slurp("now"), "now");

	ck_assert_int_eq(rb_outfile_open(&o, "later", RB_OUTFILE_REPLACE,
	    0644), 0);
	ck_assert_int_eq(access("later", F_OK), -1);
	put(o.fd, "later\n");
	ck_assert_int_eq(rb_outfile_commit(&o), 0);
	ck_assert_str_eq(slurp("later"), "later");
	ck_assert_int_eq(stat("later", &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644 & ~(unsigned)umask(022));

	/* Not wanted: nothing left. */
	ck_assert_int_eq(rb_outfile_open(&o, "gone", RB_OUTFILE_REPLACE,
	    0644), 0);
	put(o.fd, "half\n");
	rb_outfile_discard(&o);
	ck_assert_int_eq(access("gone", F_OK), -1);
	ck_assert_int_eq(entries(), 2);
}
END_TEST

/* Without RB_OUTFILE_REPLACE, whatever is at the name stays. */
START_TEST(test_outfile_taken)
{
	struct rb_outfile	o;
	struct stat		st;

	spit("target", "target\n");
	spit("mine", "mine\n");
	ck_assert_int_eq(symlink("target", "link"), 0);
	ck_assert_int_eq(symlink("nowhere", "dangling"), 0);
	ck_assert_int_eq(mkfifo("fifo", 0600), 0);

	ck_assert_int_eq(rb_outfile_open(&o, "mine", RB_OUTFILE_NOW, 0600), -1);
	ck_assert_str_eq(o.why, "it exists");
	ck_assert(o.taken && o.mine);
	ck_assert_int_eq(rb_outfile_open(&o, "link", RB_OUTFILE_NOW, 0600), -1);
	ck_assert_str_eq(o.why, "it is a symbolic link (not followed)");
	ck_assert_int_eq(rb_outfile_open(&o, "dangling", RB_OUTFILE_NOW, 0600),
	    -1);
	ck_assert_int_eq(access("nowhere", F_OK), -1);
	alarm(20);	/* a FIFO opened would wait for a reader */
	ck_assert_int_eq(rb_outfile_open(&o, "fifo", RB_OUTFILE_NOW, 0600), -1);
	ck_assert_str_eq(o.why, "it is a FIFO");
	ck_assert(o.taken && !o.mine);
	alarm(0);
	ck_assert_str_eq(slurp("target"), "target");
	ck_assert_str_eq(slurp("mine"), "mine");
	ck_assert_int_eq(lstat("link", &st), 0);
	ck_assert(S_ISLNK(st.st_mode));

	/* Taken while a file was written under its temporary name. */
	ck_assert_int_eq(rb_outfile_open(&o, "late", 0, 0600), 0);
	put(o.fd, "ours\n");
	spit("late", "first\n");
	ck_assert_int_eq(rb_outfile_commit(&o), -1);
	ck_assert(o.taken);
	ck_assert_str_eq(slurp("late"), "first");
	ck_assert_int_eq(rb_outfile_open(&o, "free", 0, 0600), 0);
	put(o.fd, "free\n");
	ck_assert_int_eq(rb_outfile_commit(&o), 0);
	ck_assert_str_eq(slurp("free"), "free");
	ck_assert_int_eq(entries(), 7);
}
END_TEST

/* With it: the user's file or link goes, nothing else, never followed. */
START_TEST(test_outfile_replace)
{
	struct rb_outfile	o;
	struct stat		st;
	int			flags;

	spit("target", "target\n");
	for (flags = 0; flags <= RB_OUTFILE_NOW; flags += RB_OUTFILE_NOW) {
		flags |= RB_OUTFILE_REPLACE;
		ck_assert_int_eq(symlink("target", "link"), 0);
		ck_assert_int_eq(rb_outfile_open(&o, "link", flags, 0600), 0);
		put(o.fd, "new\n");
		ck_assert_int_eq(rb_outfile_commit(&o), 0);
		ck_assert_int_eq(lstat("link", &st), 0);
		ck_assert(S_ISREG(st.st_mode));
		ck_assert_str_eq(slurp("link"), "new");
		ck_assert_str_eq(slurp("target"), "target");
		ck_assert_int_eq(unlink("link"), 0);

		spit("mine", "old\n");
		ck_assert_int_eq(rb_outfile_open(&o, "mine", flags, 0600), 0);
		put(o.fd, "new\n");
		ck_assert_int_eq(rb_outfile_commit(&o), 0);
		ck_assert_str_eq(slurp("mine"), "new");
		flags &= ~RB_OUTFILE_REPLACE;
	}

	ck_assert_int_eq(mkdir("dir", 0700), 0);
	ck_assert_int_eq(rb_outfile_open(&o, "dir", RB_OUTFILE_REPLACE, 0600),
	    -1);
	ck_assert_str_eq(o.why, "it is a directory");
	ck_assert_int_eq(mkfifo("fifo", 0600), 0);
	alarm(20);
	ck_assert_int_eq(rb_outfile_open(&o, "fifo", RB_OUTFILE_REPLACE |
	    RB_OUTFILE_NOW, 0600), -1);
	alarm(0);
	ck_assert_str_eq(o.why, "it is a FIFO");

	/* A FIFO put at the name while the file was written stays. */
	ck_assert_int_eq(rb_outfile_open(&o, "late", RB_OUTFILE_REPLACE, 0600),
	    0);
	put(o.fd, "ours\n");
	ck_assert_int_eq(mkfifo("late", 0600), 0);
	ck_assert_int_eq(rb_outfile_commit(&o), -1);
	ck_assert_str_eq(o.why, "it is a FIFO");
	ck_assert_int_eq(lstat("late", &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(entries(), 5);
}
END_TEST

/* The temporary file itself replaced by another: not given the name. */
START_TEST(test_outfile_swapped)
{
	struct rb_outfile	o;

	ck_assert_int_eq(rb_outfile_open(&o, "out", RB_OUTFILE_REPLACE, 0600),
	    0);
	ck_assert_str_ne(o.tmp, "");
	put(o.fd, "ours\n");
	ck_assert_int_eq(rename(o.tmp, "moved"), 0);
	spit(o.tmp, "theirs\n");
	ck_assert_int_eq(rb_outfile_commit(&o), -1);
	ck_assert_str_eq(o.why, "its temporary file was replaced while it was "
	    "written");
	ck_assert_int_eq(access("out", F_OK), -1);
}
END_TEST

/* Another user's file or link: refused, root's rbmon too. */
START_TEST(test_outfile_theirs)
{
	struct rb_outfile	o;

	if (geteuid() != 0)
		return;		/* only root can make one */
	spit("theirs", "theirs\n");
	ck_assert_int_eq(chown("theirs", 65534, 65534), 0);
	ck_assert_int_eq(symlink("theirs", "link"), 0);
	ck_assert_int_eq(lchown("link", 65534, 65534), 0);
	ck_assert_int_eq(rb_outfile_open(&o, "theirs", RB_OUTFILE_REPLACE |
	    RB_OUTFILE_NOW, 0600), -1);
	ck_assert_ptr_nonnull(strstr(o.why, "it is a file of uid 65534"));
	ck_assert(o.taken && !o.mine);
	ck_assert_int_eq(rb_outfile_open(&o, "link", RB_OUTFILE_REPLACE, 0600),
	    -1);
	ck_assert_ptr_nonnull(strstr(o.why, "it is a symbolic link of uid "
	    "65534"));
	/* ... and one that appears meanwhile. */
	ck_assert_int_eq(rb_outfile_open(&o, "late", RB_OUTFILE_REPLACE, 0600),
	    0);
	put(o.fd, "ours\n");
	spit("late", "theirs\n");
	ck_assert_int_eq(chown("late", 65534, 65534), 0);
	ck_assert_int_eq(rb_outfile_commit(&o), -1);
	ck_assert_str_eq(slurp("late"), "theirs");
	ck_assert_str_eq(slurp("theirs"), "theirs");
	ck_assert_int_eq(entries(), 3);
}
END_TEST

static Suite *
suite_outfile(void)
{
	Suite	*s = suite_create("outfile");
	TCase	*tc = tcase_create("outfile");

	tcase_add_checked_fixture(tc, out_setup, out_teardown);
	tcase_add_test(tc, test_outfile_new);
	tcase_add_test(tc, test_outfile_taken);
	tcase_add_test(tc, test_outfile_replace);
	tcase_add_test(tc, test_outfile_swapped);
	tcase_add_test(tc, test_outfile_theirs);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(suite_procstat());
	srunner_add_suite(sr, suite_outfile());
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
