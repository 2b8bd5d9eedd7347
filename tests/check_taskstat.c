/* SPDX-License-Identifier: MIT */
/* check_taskstat: the kernel's view of threads: system calls, stat reads. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "tasks.h"

#include "monitor/core/taskstat.h"

Suite	*suite_taskstat(void);

START_TEST(test_syscall_names)
{
	ck_assert_str_eq(rbmon_syscall_name(0), "read");
	ck_assert_str_eq(rbmon_syscall_name(SYS_read), "read");
	ck_assert_str_eq(rbmon_syscall_name(SYS_futex), "futex");
	ck_assert_str_eq(rbmon_syscall_name(SYS_epoll_wait), "epoll_wait");
	ck_assert_str_eq(rbmon_syscall_name(SYS_clock_nanosleep),
	    "clock_nanosleep");
	ck_assert_str_eq(rbmon_syscall_name(334), "rseq");
	ck_assert_str_eq(rbmon_syscall_name(469), "file_setattr");
	ck_assert_ptr_null(rbmon_syscall_name(335));	/* never assigned */
	ck_assert_ptr_null(rbmon_syscall_name(-1));
	ck_assert_ptr_null(rbmon_syscall_name(100000));
}
END_TEST

START_TEST(test_syscall_format)
{
	static const struct {
		const char	*line, *want;
	} t[] = {
		{ "0 0x3 0x7ffd5a0e1230 0x1000 0x0 0x0 0x0 0x7ffd5a0e1200 "
		    "0x7f1c2d3e4f50\n", "read(3, 0x7ffd5a0e1230, 4096)" },
		{ "202 0x55d0c0de1000 0x189 0x0 0x0 0x0 0xffffffff 0x7ffd "
		    "0x7f00\n", "futex(0x55d0c0de1000, FUTEX_WAIT_BITSET_PRIVATE"
		    "|FUTEX_CLOCK_REALTIME, 0, NULL)" },
		{ "202 0x55d0c0de1000 0x80 0x2 0x7ffd00001000 0x0 0x0 0x1 "
		    "0x2\n", "futex(0x55d0c0de1000, FUTEX_WAIT_PRIVATE, 2, "
		    "0x7ffd00001000)" },
		{ "202 0x1000 0x4000 0x0 0x0 0x0 0x0 0x1 0x2\n",
		    "futex(0x1000, 0x4000, 0, NULL)" },
		{ "257 0xffffff9c 0x5600 0x80000 0x0 0x0 0x0 0x1 0x2\n",
		    "openat(AT_FDCWD, 0x5600, 0x80000)" },
		{ "232 0x5 0x7ffd10 0x40 0xffffffff 0x0 0x0 0x1 0x2\n",
		    "epoll_wait(5, 0x7ffd10, 64, -1)" },
		{ "230 0x1 0x0 0x7ffd20 0x0 0x0 0x0 0x1 0x2\n",
		    "clock_nanosleep(CLOCK_MONOTONIC, 0x0, 0x7ffd20, NULL)" },
		{ "230 0x63 0x0 0x7ffd20 0x0 0x0 0x0 0x1 0x2\n",
		    "clock_nanosleep(99, 0x0, 0x7ffd20, NULL)" },
		{ "8 0x3 0xfffffffffffffffe 0x2 0x0 0x0 0x0 0x1 0x2\n",
		    "lseek(3, -2, 2)" },
		{ "34 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n", "pause()" },
		{ "9 0x0 0x1000 0x3 0x22 0xffffffff 0x0 0x1 0x2\n",
		    "mmap(...)" },
		{ "335 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n", "syscall_335(...)" },
		{ "100000 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n",
		    "syscall_100000(...)" },
	};
	static const char *const bad[] = {
		"running\n",
		"-1 0x7ffd5a0e1200 0x7f1c2d3e4f50\n",
		"",
		"0",
		"0 0x3 0x7ffd 0x1000\n",		/* cut short */
		"0 3 0x7ffd 0x1000 0x0 0x0 0x0 0x1 0x2\n",
		"0 0x3 0x7ffd 0x1000 0x0 0x0 0xzz 0x1 0x2\n",
		"0  0x3 0x7ffd 0x1000 0x0 0x0 0x0 0x1 0x2\n",
		"0 0x3 0x7ffd 0x1000 0x0 0x0 0x10000000000000000 0x1 0x2\n",
		"99999999999999999999 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n",
		" 0 0x3 0x7ffd 0x1000 0x0 0x0 0x0 0x1 0x2\n",
		"x0 0x3 0x7ffd 0x1000 0x0 0x0 0x0 0x1 0x2\n",
	};
	char	buf[RBMON_BLOCKED_MAX], small[8];
	size_t	i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		memset(buf, 'z', sizeof buf);
		ck_assert_msg(rbmon_syscall_format(t[i].line, buf,
		    sizeof buf) == 0, "%s", t[i].line);
		ck_assert_str_eq(buf, t[i].want);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(rbmon_syscall_format(bad[i], buf, sizeof buf) ==
		    -1, "formatted: %s as %s", bad[i], buf);
	/* A short buffer cuts the text and keeps it terminated. */
	ck_assert_int_eq(rbmon_syscall_format(t[0].line, small, sizeof small),
	    0);
	ck_assert_str_eq(small, "read(3,");
}
END_TEST

struct tt_reader {
	int	fd;
	pid_t	tid;
	int	ready;
};

static void *
tt_reader_main(void *arg)
{
	struct tt_reader	*a = arg;
	char			 c;

	a->tid = (pid_t)syscall(SYS_gettid);
	__atomic_store_n(&a->ready, 1, __ATOMIC_RELEASE);
	while (read(a->fd, &c, 1) < 0)
		continue;
	return NULL;
}

/* Wait (up to 10 s) until the kernel has @tid of this process in @state. */
static int
tt_wait_state(pid_t tid, char state)
{
	struct rb_procstat	st;
	int			i;

	for (i = 0; i < 1000; i++) {
		if (rb_procstat_read(getpid(), tid, &st) == 0 &&
		    st.state == state)
			return 1;
		usleep(10000);
	}
	return 0;
}

/* A thread of this process blocked in read() on a pipe, as /proc says. */
START_TEST(test_task_blocked)
{
	struct tt_reader	a;
	pthread_t		t;
	char			*b, want[32];
	int			p[2];

	ck_assert_int_eq(pipe(p), 0);
	memset(&a, 0, sizeof a);
	a.fd = p[0];
	ck_assert_int_eq(pthread_create(&t, NULL, tt_reader_main, &a), 0);
	while (!__atomic_load_n(&a.ready, __ATOMIC_ACQUIRE))
		usleep(1000);
	ck_assert(tt_wait_state(a.tid, 'S'));
	b = rbmon_task_blocked(getpid(), a.tid);
	ck_assert_ptr_nonnull(b);
	snprintf(want, sizeof want, "read(%d, 0x", p[0]);
	ck_assert_msg(strncmp(b, want, strlen(want)) == 0, "%s", b);
	ck_assert_msg(strcmp(b + strlen(b) - 4, ", 1)") == 0, "%s", b);
	free(b);
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	pthread_join(t, NULL);
	/* Gone: nothing to say. */
	ck_assert_ptr_null(rbmon_task_blocked(getpid(), a.tid));
	ck_assert_ptr_null(rbmon_task_blocked(0, 1));
	close(p[0]);
	close(p[1]);
}
END_TEST

static double
tt_now(clockid_t id)
{
	struct timespec	ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The stat cache: one read per task and pass, the CPU share against this
 * thread's own CPU clock, files closed once their task is gone.
 */
START_TEST(test_tasks_cpu)
{
	struct rbmon_tasks	*ts = rbmon_tasks_new();
	struct rbmon_task	 k, k2;
	struct tt_reader	 a;
	pthread_t		 t;
	pid_t			 self = (pid_t)syscall(SYS_gettid);
	double			 w0, c0, w1, c1, ref;
	int			 p[2], i, r = 0;

	ck_assert_int_eq(pipe(p), 0);
	memset(&a, 0, sizeof a);
	a.fd = p[0];
	ck_assert_int_eq(pthread_create(&t, NULL, tt_reader_main, &a), 0);
	while (!__atomic_load_n(&a.ready, __ATOMIC_ACQUIRE))
		usleep(1000);

	rbmon_tasks_begin(ts);
	w0 = tt_now(CLOCK_MONOTONIC);
	c0 = tt_now(CLOCK_THREAD_CPUTIME_ID);
	ck_assert_int_eq(rbmon_tasks_read(ts, getpid(), self, &k), 0);
	ck_assert_int_eq(k.st.state, 'R');
	ck_assert(k.cpu < 0);			/* no interval yet */
	ck_assert_int_eq(rbmon_tasks_read(ts, getpid(), a.tid, &k), 0);
	ck_assert_int_eq(rbmon_tasks_read(ts, getpid(), 0, &k), 0);
	ck_assert_uint_eq(k.st.num_threads, task_count());
	ck_assert_int_eq(rbmon_tasks_read(ts, getpid(), 1 << 30, &k), -1);
	ck_assert_int_eq(rbmon_tasks_read(ts, 0, 0, &k), -1);
	rbmon_tasks_end(ts);
	ck_assert_uint_eq(rbmon_tasks_kept(ts), 3);

	/* Spin for 0.3 s of this thread's CPU (bounded by 20 s of wall). */
	while (tt_now(CLOCK_THREAD_CPUTIME_ID) - c0 < 0.3 &&
	    tt_now(CLOCK_MONOTONIC) - w0 < 20)
		continue;
	rbmon_tasks_begin(ts);
	w1 = tt_now(CLOCK_MONOTONIC);
	c1 = tt_now(CLOCK_THREAD_CPUTIME_ID);
	ref = (c1 - c0) / (w1 - w0) * 100;
	ck_assert_int_eq(rbmon_tasks_read(ts, getpid(), self, &k), 0);
	ck_assert_msg(k.cpu > ref - 15 && k.cpu < ref + 15 && k.cpu <= 100,
	    "cpu %.1f, its own clock says %.1f", k.cpu, ref);
	ck_assert_uint_ge(k.cpu_ns, (uint64_t)((c1 - c0) * 1e9) / 2);
	/* Asked again in the same pass: the same answer, not a new read. */
	ck_assert_int_eq(rbmon_tasks_read(ts, getpid(), self, &k2), 0);
	ck_assert(k2.cpu == k.cpu && k2.cpu_ns == k.cpu_ns);
	ck_assert_int_eq(rbmon_tasks_read(ts, getpid(), a.tid, &k), 0);
	ck_assert_int_eq(k.st.state, 'S');
	ck_assert_msg(k.cpu >= 0 && k.cpu < 5, "blocked thread: %.1f", k.cpu);
	ck_assert_int_eq(rbmon_tasks_read(ts, getpid(), 0, &k), 0);
	ck_assert_msg(k.cpu > ref - 15, "process %.1f, thread %.1f", k.cpu,
	    ref);
	rbmon_tasks_end(ts);

	/* A pass soon after keeps the last interval's share. */
	rbmon_tasks_begin(ts);
	ck_assert_int_eq(rbmon_tasks_read(ts, getpid(), self, &k2), 0);
	ck_assert(k2.cpu >= 0);
	rbmon_tasks_end(ts);

	/*
	 * The reader ends: its kept file fails, and is closed.  pthread_join()
	 * returns when the thread clears its tid, a moment before the kernel
	 * has reaped the task: wait for that (at most 10 s).
	 */
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	pthread_join(t, NULL);
	for (i = 0; i < 10000; i++) {
		rbmon_tasks_begin(ts);
		r = rbmon_tasks_read(ts, getpid(), a.tid, &k);
		if (r == -1)
			break;
		rbmon_tasks_end(ts);
		usleep(1000);
	}
	ck_assert_int_eq(r, -1);
	ck_assert_int_eq(rbmon_tasks_read(ts, getpid(), self, &k), 0);
	rbmon_tasks_end(ts);
	ck_assert_uint_eq(rbmon_tasks_kept(ts), 1);
	/* Not read in a pass: forgotten. */
	rbmon_tasks_begin(ts);
	rbmon_tasks_end(ts);
	ck_assert_uint_eq(rbmon_tasks_kept(ts), 0);
	rbmon_tasks_free(ts);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* A ring made before its task started belongs to another thread. */
START_TEST(test_tasks_started_by)
{
	struct rbmon_tasks	*ts = rbmon_tasks_new();
	uint64_t		 tick = 1000000000u / (uint64_t)sysconf(_SC_CLK_TCK);
	uint64_t		 now;

	rbmon_tasks_begin(ts);
	now = (uint64_t)(tt_now(CLOCK_BOOTTIME) * 1e9);
	/* Started 5 s after boot; the ring made now: the same thread. */
	ck_assert_int_eq(rbmon_tasks_started_by(ts, 5000000000u / tick,
	    (uint64_t)(tt_now(CLOCK_MONOTONIC) * 1e9)), 1);
	/* Started now (boot clock); the ring made 2 s ago: another. */
	ck_assert_int_eq(rbmon_tasks_started_by(ts, now / tick,
	    (uint64_t)(tt_now(CLOCK_MONOTONIC) * 1e9) - 2000000000u), 0);
	/* Within a tick: the same (start times are whole ticks). */
	ck_assert_int_eq(rbmon_tasks_started_by(ts, now / tick,
	    (uint64_t)(tt_now(CLOCK_MONOTONIC) * 1e9)), 1);
	/* Values no clock gives do not wrap around. */
	ck_assert_int_eq(rbmon_tasks_started_by(ts, UINT64_MAX, 0), 0);
	ck_assert_int_eq(rbmon_tasks_started_by(ts, 1, UINT64_MAX), 1);
	rbmon_tasks_free(ts);
}
END_TEST

Suite *
suite_taskstat(void)
{
	Suite	*s = suite_create("taskstat");
	TCase	*tc = tcase_create("taskstat");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_syscall_names);
	tcase_add_test(tc, test_syscall_format);
	tcase_add_test(tc, test_task_blocked);
	tcase_add_test(tc, test_tasks_cpu);
	tcase_add_test(tc, test_tasks_started_by);
	suite_add_tcase(s, tc);
	return s;
}
