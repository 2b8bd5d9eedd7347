/* SPDX-License-Identifier: MIT */
/*
 * check_shared.c - unit tests of common/, the code the library, the
 * monitor and the launcher share: the default trace path rule, the
 * program name in it, absolute paths, the boot id, the futex wrappers,
 * the atomics macros and a snapshot trigger's rules (common/snap.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/bootid.h"
#include "common/futex.h"
#include "common/snap.h"
#include "common/tracepath.h"
#include "rbtrace/format.h"

#define MS	1000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------------
 * The default trace path: ${TMPDIR:-/tmp}/PROG.PID.trace, a relative
 * TMPDIR counting as unset.
 */


START_TEST(test_trace_dir)
{
	const char *abs = "/var/tmp/x/";

	ck_assert_str_eq(rb_trace_dir(NULL), "/tmp");
	ck_assert_str_eq(rb_trace_dir(""), "/tmp");
	ck_assert_str_eq(rb_trace_dir("tmp"), "/tmp");
	ck_assert_str_eq(rb_trace_dir("./tmp"), "/tmp");
	ck_assert_str_eq(rb_trace_dir("~/tmp"), "/tmp");
	ck_assert_str_eq(rb_trace_dir(" /tmp"), "/tmp");
	ck_assert_str_eq(rb_trace_dir("/"), "/");
	/* An absolute one is taken as it is, the very string. */
	ck_assert_ptr_eq(rb_trace_dir(abs), abs);
}
END_TEST

START_TEST(test_trace_path)
{
	char out[4096];

	ck_assert_int_eq(rb_trace_path(out, sizeof(out), NULL, "/usr/bin/srv", 42), 0);
	ck_assert_str_eq(out, "/tmp/srv.42.trace");
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "", "srv", 42), 0);
	ck_assert_str_eq(out, "/tmp/srv.42.trace");
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "rel/dir", "srv", 7), 0);
	ck_assert_str_eq(out, "/tmp/srv.7.trace");
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "/data/t", "./a.out", 1), 0);
	ck_assert_str_eq(out, "/data/t/a.out.1.trace");
	/* Spelt as the shell's ${TMPDIR:-/tmp}/...: slashes as they come. */
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "/data/t/", "x", 1), 0);
	ck_assert_str_eq(out, "/data/t//x.1.trace");
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "/", "x", 1), 0);
	ck_assert_str_eq(out, "//x.1.trace");
	/* The name as rb_progname() spells it. */
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "/t", "/opt/my prog;rm", 9), 0);
	ck_assert_str_eq(out, "/t/my_prog_rm.9.trace");
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "/t", "", 9), 0);
	ck_assert_str_eq(out, "/t/prog.9.trace");
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "/t", NULL, 9), 0);
	ck_assert_str_eq(out, "/t/prog.9.trace");
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "/t", "bin/", 9), 0);
	ck_assert_str_eq(out, "/t/prog.9.trace");
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "/t", "srv", 2147483647), 0);
	ck_assert_str_eq(out, "/t/srv.2147483647.trace");
}
END_TEST

/* The name from an executable's path, as readlink() of /proc/PID/exe has it. */
START_TEST(test_exe_progname)
{
	char out[64];

	rb_exe_progname("/usr/sbin/nginx", out, sizeof(out));
	ck_assert_str_eq(out, "nginx");
	/* Deleted since the exec: the file's name without the ending. */
	rb_exe_progname("/opt/srv (deleted)", out, sizeof(out));
	ck_assert_str_eq(out, "srv");
	rb_exe_progname(" (deleted)", out, sizeof(out));
	ck_assert_str_eq(out, "__deleted_");
	rb_exe_progname("/ (deleted)", out, sizeof(out));
	ck_assert_str_eq(out, "prog");
	/* Spelt as rb_progname() spells it. */
	rb_exe_progname("/opt/my prog;rm (deleted) x", out, sizeof(out));
	ck_assert_str_eq(out, "my_prog_rm__deleted__x");
	rb_exe_progname("", out, sizeof(out));
	ck_assert_str_eq(out, "prog");
	rb_exe_progname(NULL, out, sizeof(out));
	ck_assert_str_eq(out, "prog");
	rb_exe_progname("/usr/bin/longname", out, 5);
	ck_assert_str_eq(out, "long");
}
END_TEST

/* A name longer than the header keeps is cut as the header cuts it. */
START_TEST(test_trace_path_long_name)
{
	char name[RB_PROGRAM_MAX * 2 + 1], want[RB_PROGRAM_MAX + 32], out[4096];

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(want, sizeof(want), "/t/%.*s.5.trace", RB_PROGRAM_MAX - 1, name);
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), "/t", name, 5), 0);
	ck_assert_str_eq(out, want);
}
END_TEST

/* A TMPDIR too long for the path: /tmp rather than a path cut short. */
START_TEST(test_trace_path_long_tmpdir)
{
	char tmpdir[5000], out[4096];

	memset(tmpdir, 'd', sizeof(tmpdir) - 1);
	tmpdir[0] = '/';
	tmpdir[sizeof(tmpdir) - 1] = '\0';
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), tmpdir, "srv", 3), 0);
	ck_assert_str_eq(out, "/tmp/srv.3.trace");
	/* Exactly fitting: kept. */
	tmpdir[sizeof(out) - strlen("/srv.3.trace") - 1] = '\0';
	ck_assert_int_eq(rb_trace_path(out, sizeof(out), tmpdir, "srv", 3), 0);
	ck_assert_uint_eq(strlen(out), sizeof(out) - 1);
	ck_assert(strncmp(out, tmpdir, strlen(tmpdir)) == 0);
	ck_assert_str_eq(out + strlen(tmpdir), "/srv.3.trace");
	/* One byte more: /tmp. */
	ck_assert_int_eq(rb_trace_path(out, sizeof(out) - 1, tmpdir, "srv", 3), 0);
	ck_assert_str_eq(out, "/tmp/srv.3.trace");
	/* Not even /tmp fits: -1, cut short and terminated. */
	ck_assert_int_eq(rb_trace_path(out, 8, "/t", "srv", 3), -1);
	ck_assert_str_eq(out, "/tmp/sr");
}
END_TEST

START_TEST(test_progname)
{
	char out[16];

	rb_progname("/usr/local/bin/a-b_c.d+e", out, sizeof(out));
	ck_assert_str_eq(out, "a-b_c.d+e");
	rb_progname("x y\t\x1b[2J\xc3\xa9", out, sizeof(out));
	ck_assert_str_eq(out, "x_y___2J__");
	rb_progname("/", out, sizeof(out));
	ck_assert_str_eq(out, "prog");
	rb_progname("averyveryverylongname", out, 8);
	ck_assert_str_eq(out, "averyve");
	rb_progname("abc", out, 1);
	ck_assert_str_eq(out, "");
	out[0] = 'z';
	rb_progname("abc", out, 0);	/* nothing written */
	ck_assert_int_eq(out[0], 'z');
}
END_TEST

START_TEST(test_path_absolute)
{
	char dir[] = "/tmp/check-shared-XXXXXX", real[PATH_MAX], want[PATH_MAX + 8];
	char out[PATH_MAX + 8];

	ck_assert_int_eq(rb_path_absolute("/a/./b", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/a/./b");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chdir(dir), 0);
	ck_assert_ptr_nonnull(getcwd(real, sizeof(real)));
	snprintf(want, sizeof(want), "%s/f.trace", real);
	ck_assert_int_eq(rb_path_absolute("f.trace", out, sizeof(out)), 0);
	ck_assert_str_eq(out, want);
	ck_assert_int_eq(rb_path_absolute("././/./f.trace", out, sizeof(out)), 0);
	ck_assert_str_eq(out, want);
	/* Too small: -1. */
	ck_assert_int_eq(rb_path_absolute("f.trace", out, strlen(want)), -1);
	ck_assert_int_eq(rb_path_absolute("/abc", out, 4), -1);
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert_int_eq(rb_path_absolute("f.trace", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/f.trace");
	rmdir(dir);
}
END_TEST

/* ------------------------------------------------------------------------
 * The boot id, against the file read with stdio.
 */

START_TEST(test_boot_id)
{
	char ref[128], id[RB_BOOT_ID_MAX], small[9];
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	size_t i;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(ref, sizeof(ref), f));
	fclose(f);
	ref[strcspn(ref, "\n")] = '\0';
	ck_assert_uint_eq(strlen(ref), 36);	/* a UUID */

	memset(id, 'x', sizeof(id));
	ck_assert_int_eq(rb_boot_id_read(id, sizeof(id)), 0);
	ck_assert_str_eq(id, ref);
	/* No newline, and zeros to the end (the header keeps all of it). */
	for (i = strlen(ref); i < sizeof(id); i++)
		ck_assert_int_eq(id[i], 0);

	ck_assert_int_eq(rb_boot_id_read(small, sizeof(small)), 0);
	ck_assert(strncmp(small, ref, 8) == 0 && small[8] == '\0');
	ck_assert_int_eq(rb_boot_id_read(small, 1), -1);
	ck_assert_int_eq(small[0], '\0');
	small[0] = 'z';
	ck_assert_int_eq(rb_boot_id_read(small, 0), -1);
	ck_assert_int_eq(small[0], 'z');
}
END_TEST

/* ------------------------------------------------------------------------
 * Futexes.
 */

/* A value other than the one expected: back at once, not after 10 s. */
START_TEST(test_futex_wait_other_value)
{
	uint32_t word = 5;
	uint64_t t0 = now_ns();

	rb_futex_wait(&word, 4, 10000 * MS);
	rb_futex_wait_private(&word, 4, 10000 * MS);
	rb_futex_wait_private(&word, 4, RB_FUTEX_FOREVER);
	ck_assert_uint_lt(now_ns() - t0, 5000 * MS);
}
END_TEST

/* The time limit: at least what was asked for, and not forever. */
START_TEST(test_futex_wait_timeout)
{
	uint32_t word = 0;
	uint64_t t0 = now_ns(), dt;

	rb_futex_wait(&word, 0, 50 * MS);
	dt = now_ns() - t0;
	ck_assert_uint_ge(dt, 50 * MS);
	ck_assert_uint_lt(dt, 5000 * MS);
	t0 = now_ns();
	rb_futex_wait_private(&word, 0, 1200 * MS);	/* seconds and nanoseconds */
	dt = now_ns() - t0;
	ck_assert_uint_ge(dt, 1200 * MS);
	ck_assert_uint_lt(dt, 6000 * MS);
}
END_TEST

struct waiter {
	uint32_t	word;
	int		started;
	int		woken;
};

static void *waiter_forever(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->started, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&w->word, __ATOMIC_SEQ_CST) == 0)
		rb_futex_wait_private(&w->word, 0, RB_FUTEX_FOREVER);
	__atomic_store_n(&w->woken, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* A thread asleep without a time limit wakes for rb_futex_wake_private(). */
START_TEST(test_futex_private_wake)
{
	struct waiter w = { 0, 0, 0 };
	struct timespec limit;
	pthread_t th;

	ck_assert_int_eq(pthread_create(&th, NULL, waiter_forever, &w), 0);
	while (!__atomic_load_n(&w.started, __ATOMIC_SEQ_CST))
		sched_yield();
	__atomic_store_n(&w.word, 1, __ATOMIC_SEQ_CST);
	rb_futex_wake_private(&w.word, INT_MAX);
	clock_gettime(CLOCK_REALTIME, &limit);
	limit.tv_sec += 20;
	ck_assert_int_eq(pthread_timedjoin_np(th, NULL, &limit), 0);
	ck_assert_int_eq(w.woken, 1);
}
END_TEST

/*
 * The file's words are shared between processes: a child asleep on its
 * ring's wake word (as a stopped owner) wakes for rb_ring_wake(), which
 * bumps the word by one.  A private wake would not reach it: it would
 * sleep out its 20 seconds.
 */
START_TEST(test_ring_wake_other_process)
{
	struct rb_ring *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char path[64], buf[32];
	uint64_t t0;
	pid_t pid;
	int status, i;
	FILE *f;

	ck_assert(r != MAP_FAILED);
	r->wake = 41;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uint32_t w = __atomic_load_n(&r->wake, __ATOMIC_ACQUIRE);

		t0 = now_ns();
		while (w == 41 && now_ns() - t0 < 20000 * MS) {
			rb_futex_wait(&r->wake, w, 20000 * MS);
			w = __atomic_load_n(&r->wake, __ATOMIC_ACQUIRE);
		}
		_exit(w == 42 && now_ns() - t0 < 15000 * MS ? 0 : 1);
	}
	/* Best effort: wake it once it sleeps in futex (202), so the wake is what ends it. */
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (i = 0; i < 5000; i++) {
		f = fopen(path, "r");
		if (f == NULL)
			break;
		buf[0] = '\0';
		if (fgets(buf, sizeof(buf), f) == NULL)
			buf[0] = '\0';
		fclose(f);
		if (strncmp(buf, "202 ", 4) == 0)
			break;
		usleep(1000);
	}
	rb_ring_wake(r);
	ck_assert_uint_eq(r->wake, 42);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	munmap(r, sizeof(*r));
}
END_TEST

/* ------------------------------------------------------------------------
 * The atomics macros: the values they return and leave.
 */

START_TEST(test_atomic_macros)
{
	struct rb_ring *r = calloc(1, sizeof(*r));
	int32_t v = 3, expect = 4;

	ck_assert_ptr_nonnull(r);
	RB_STORE(&r->attention, RB_ATTN_UNTRACED);
	ck_assert_uint_eq(RB_ATTN_OR(r, RB_ATTN_WATCH), RB_ATTN_UNTRACED);
	ck_assert_uint_eq(RB_LOAD(&r->attention), RB_ATTN_UNTRACED | RB_ATTN_WATCH);
	ck_assert_uint_eq(RB_ATTN_AND(r, ~RB_ATTN_UNTRACED),
			  RB_ATTN_UNTRACED | RB_ATTN_WATCH);
	ck_assert_uint_eq(RB_LOAD_ACQ(&r->attention), RB_ATTN_WATCH);
	/* A failed compare-and-swap leaves the word and says what it holds. */
	ck_assert(!RB_CAS(&v, &expect, 9));
	ck_assert_int_eq(v, 3);
	ck_assert_int_eq(expect, 3);
	ck_assert(RB_CAS(&v, &expect, 9));
	ck_assert_int_eq(v, 9);
	RB_STORE_REL(&r->cmdready, RB_CMD_RESPONSE);
	ck_assert_int_eq(RB_LOAD(&r->cmdready), -2);
	free(r);
}
END_TEST

/* ------------------------------------------------------------------------
 * Trigger snapshots (rbtrace(5), "SNAPSHOTS"): who is frozen, what is
 * counted missed or suppressed, and what heals.  A file of four rings in
 * memory: rings 0 and 1 live in process P, ring 2 in another, ring 3 free.
 */

#define SNAP_P	4242

static char *snap_file(struct rb_header **h)
{
	struct rb_geometry g = { 4, 2, 8, 64, 1024, 0, 2, RB_POLICY_RING };
	struct rb_layout l;
	char *base;
	uint32_t i;

	ck_assert_int_eq(rb_layout_compute(&g, &l), 0);
	base = calloc(1, l.total_size);
	ck_assert_ptr_nonnull(base);
	*h = (struct rb_header *)base;
	(*h)->rings = 4;
	(*h)->events = 2;
	(*h)->ev_policy = RB_POLICY_RING;
	(*h)->owners_off = l.owners_off;
	(*h)->rings_off = l.rings_off;
	(*h)->ring_size = l.ring_size;
	(*h)->events_off = l.events_off;
	for (i = 0; i < 3; i++)
		rb_owner_at(base, *h, i)->ctl = RB_OWN_MAKE(RB_OWN_LIVE,
			i < 2 ? SNAP_P : SNAP_P + 1);
	return base;
}

static uint32_t snap_off(char *base, struct rb_header *h, uint32_t i)
{
	return rb_ring_evlog(h, rb_ring_at(base, h, i))->off;
}

START_TEST(test_snap_trigger)
{
	struct rb_header *h, g;
	struct rb_snap_req q = { RB_SNAPR_SIGNAL, SNAP_P, 7, 0, 0x10, 12, 99 };
	struct rb_snap_info s;
	char *base = snap_file(&h);
	uint64_t t = 100 * 1000000000ull;

	g = *h;
	/* No writer: missed, nothing frozen. */
	ck_assert_int_eq(rb_snap_trigger(base, &g, &q, t), RB_SNAP_MISSED);
	ck_assert_uint_eq(h->snap_missed, 1);
	ck_assert_uint_eq(snap_off(base, h, 0), 0);
	/* A writer (this process, alive): P's two logs frozen, no other. */
	h->snap_writer = (int32_t)getpid();
	h->snap_interval_ns = 1000000000ull;
	ck_assert_int_eq(rb_snap_trigger(base, &g, &q, t), RB_SNAP_TAKEN);
	ck_assert_uint_eq(h->snap_state, RB_SNAP_FROZEN);
	ck_assert_uint_eq(h->snap_taken, 1);
	ck_assert_uint_eq(snap_off(base, h, 0), RB_EVOFF_SNAP);
	ck_assert_uint_eq(snap_off(base, h, 1), RB_EVOFF_SNAP);
	ck_assert_uint_eq(snap_off(base, h, 2), 0);
	ck_assert_uint_eq(snap_off(base, h, 3), 0);
	ck_assert_int_eq(rb_snap_read(h, &s), 0);
	ck_assert_int_eq(s.pid, SNAP_P);
	ck_assert_int_eq(s.tid, 7);
	ck_assert_uint_eq(s.reason, RB_SNAPR_SIGNAL);
	ck_assert_uint_eq(s.arg, 12);
	ck_assert_uint_eq(s.ts, 99);
	ck_assert_uint_eq(s.ns, t);
	ck_assert_uint_eq(h->snap_gen % 2, 0);
	/* One in flight: the next is suppressed. */
	ck_assert_int_eq(rb_snap_trigger(base, &g, &q, t + 2000000000ull),
			 RB_SNAP_SUPPRESSED);
	ck_assert_uint_eq(h->snap_suppressed, 1);
	/* The thaw leaves EVOF's bit alone. */
	rb_ring_evlog(h, rb_ring_at(base, h, 0))->off |= RB_EVOFF_USER;
	ck_assert_uint_eq(rb_snap_thaw(base, &g), 2);
	ck_assert_uint_eq(snap_off(base, h, 0), RB_EVOFF_USER);
	ck_assert_uint_eq(snap_off(base, h, 1), 0);
	h->snap_state = RB_SNAP_IDLE;
	/* Within the interval: suppressed, unless forced. */
	ck_assert_int_eq(rb_snap_trigger(base, &g, &q, t + 1000),
			 RB_SNAP_SUPPRESSED);
	q.flags = RB_SNAP_REQ_FORCE;
	ck_assert_int_eq(rb_snap_trigger(base, &g, &q, t + 1000),
			 RB_SNAP_TAKEN);
	q.flags = 0;
	ck_assert_uint_eq(h->snap_suppressed, 2);
	ck_assert_uint_eq(h->snap_taken, 2);
	free(base);
}
END_TEST

START_TEST(test_snap_heal)
{
	struct rb_header *h, g;
	struct rb_snap_req q = { RB_SNAPR_WATCH, SNAP_P, 7, 0, 0, 1, 1 };
	struct rb_snap_info s;
	char *base = snap_file(&h);
	uint64_t t = 100 * 1000000000ull;
	pid_t dead;

	g = *h;
	h->snap_writer = (int32_t)getpid();
	/* A freeze held longer than the bound: the next trigger ends it. */
	h->snap_state = RB_SNAP_FROZEN;
	h->snap_ns = t - RB_SNAP_HOLD_NS;
	rb_ring_evlog(h, rb_ring_at(base, h, 2))->off = RB_EVOFF_SNAP;
	ck_assert_int_eq(rb_snap_trigger(base, &g, &q, t), RB_SNAP_TAKEN);
	ck_assert_uint_eq(snap_off(base, h, 2), 0);
	ck_assert_uint_eq(snap_off(base, h, 0), RB_EVOFF_SNAP);
	/* A state that is none: taken over, whatever the interval says. */
	h->snap_state = 12345;
	h->snap_interval_ns = UINT64_MAX;
	ck_assert_int_eq(rb_snap_trigger(base, &g, &q, t + 1), RB_SNAP_TAKEN);
	/* An hour at most between two freezes. */
	h->snap_state = RB_SNAP_IDLE;
	ck_assert_int_eq(rb_snap_trigger(base, &g, &q, t + 3599000000000ull),
			 RB_SNAP_SUPPRESSED);
	ck_assert_int_eq(rb_snap_trigger(base, &g, &q, t + 3601000000000ull),
			 RB_SNAP_TAKEN);
	/* A writer that is gone: missed, and its freeze is ended. */
	dead = fork();
	ck_assert_int_ge(dead, 0);
	if (dead == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(dead, NULL, 0), dead);
	h->snap_writer = dead;
	ck_assert_int_eq(rb_snap_trigger(base, &g, &q, t + 3602000000000ull),
			 RB_SNAP_MISSED);
	ck_assert_uint_eq(h->snap_state, RB_SNAP_IDLE);
	ck_assert_uint_eq(snap_off(base, h, 0), 0);
	/* Fields that never settle are not read. */
	h->snap_gen = 7;
	ck_assert_int_eq(rb_snap_read(h, &s), -1);
	free(base);
}
END_TEST

static Suite *suite_shared(void)
{
	Suite *s = suite_create("shared");
	TCase *tc = tcase_create("shared");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_trace_dir);
	tcase_add_test(tc, test_trace_path);
	tcase_add_test(tc, test_exe_progname);
	tcase_add_test(tc, test_trace_path_long_name);
	tcase_add_test(tc, test_trace_path_long_tmpdir);
	tcase_add_test(tc, test_progname);
	tcase_add_test(tc, test_path_absolute);
	tcase_add_test(tc, test_boot_id);
	tcase_add_test(tc, test_futex_wait_other_value);
	tcase_add_test(tc, test_futex_wait_timeout);
	tcase_add_test(tc, test_futex_private_wake);
	tcase_add_test(tc, test_ring_wake_other_process);
	tcase_add_test(tc, test_atomic_macros);
	tcase_add_test(tc, test_snap_trigger);
	tcase_add_test(tc, test_snap_heal);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_shared());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
