/* SPDX-License-Identifier: MIT */
/* check_model: rbmon's reading of trace files, built here in temp files. */
#include "config.h"

#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "common/bootid.h"
#include "common/clock.h"
#include "monitor/core/dump.h"
#include "monitor/core/model.h"
#include "monitor/core/stack.h"
#include "monitor/core/symbols.h"
#include "monitor/core/taskstat.h"

Suite	*suite_model(void);

/* A trace file laid out as librbtrace would, writable by the test. */
struct fixture {
	char		 path[64];
	int		 fd;
	void		*base;
	size_t		 size;
	struct rb_header *h;
};

static uint64_t
fixture_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
fixture_make(struct fixture *fx, uint32_t rings, uint32_t slots,
    uint32_t slot_sz)
{
	struct rb_geometry	g = { rings, slots, slot_sz, RB_MIN_MSG_SZ,
				    RB_MIN_GLOBAL_SZ, 16 };
	struct rb_layout	l;
	struct rb_header	*h;

	ck_assert_int_eq(rb_layout_compute(&g, &l), 0);
	strcpy(fx->path, "/tmp/check-model-XXXXXX.trace");
	fx->fd = mkstemps(fx->path, 6);
	ck_assert_int_ge(fx->fd, 0);
	ck_assert_int_eq(ftruncate(fx->fd, (off_t)l.total_size), 0);
	fx->size = l.total_size;
	fx->base = mmap(NULL, fx->size, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fx->fd, 0);
	ck_assert(fx->base != MAP_FAILED);
	fx->h = h = fx->base;
	memcpy(h->magic, RB_MAGIC, RB_MAGIC_LEN);
	h->version = RB_VERSION;
	h->header_size = sizeof *h;
	h->total_size = l.total_size;
	h->endian = RB_ENDIAN_MARK;
	h->rings = g.rings;
	h->slots = g.slots;
	h->slot_sz = g.slot_sz;
	h->msg_sz = g.msg_sz;
	h->global_sz = g.global_sz;
	h->objects = g.objects;
	h->ring_size = l.ring_size;
	h->slot_size = l.slot_size;
	h->events_off = l.events_off;
	h->gma_off = l.gma_off;
	h->owners_off = l.owners_off;
	h->objects_off = l.objects_off;
	h->rings_off = l.rings_off;
	h->bpfilter_off = l.bpfilter_off;
	h->bps_off = l.bps_off;
	h->dyn_off = l.dyn_off;
	h->dyn_procs = RB_DYN_PROCS;
	h->bps = RB_BP_ENTRIES;
	h->bpfilter_bits = RB_BP_FILTER_BITS;
	h->slots_off = l.slots_off;
	h->pinned = rb_slots_pinned(g.slots);
	h->msgarea_off = l.msgarea_off;
	h->creator_pid = getpid();
	h->creator_start = rbmon_model_proc_start(getpid());
	strcpy(h->program, "fixture");
	rb_boot_id_read(h->boot_id, sizeof h->boot_id);
	h->clock = RB_CLOCK_MONO;
	h->ready = 1;
}

static void
fixture_done(struct fixture *fx)
{
	munmap(fx->base, fx->size);
	close(fx->fd);
	unlink(fx->path);
}

static struct rb_ring *
fixture_ring(struct fixture *fx, uint32_t i, uint32_t own, pid_t pid,
    pid_t tid, const char *name)
{
	struct rb_ring	*r = rb_ring_at(fx->base, fx->h, i);

	r->pid = pid;
	r->tid = tid;
	r->pstart = rbmon_model_proc_start(pid);
	r->image = 1;
	r->created_ns = fixture_now() - 1000 * (64 - i);
	r->state = RB_STATE_RUNNING;
	memcpy(r->name, name, strnlen(name, sizeof r->name));
	rb_owner_at(fx->base, fx->h, i)->ctl = RB_OWN_MAKE(own, pid);
	return r;
}

static struct rb_slot *
fixture_push(struct fixture *fx, struct rb_ring *r, uint64_t fn,
    uint64_t site, int line)
{
	struct rb_slot	*sl;
	uint32_t	 k = (uint32_t)r->depth;

	sl = rb_slot_at(fx->h, r, rb_slot_index(k, fx->h->slots,
	    fx->h->pinned));
	sl->seq += 2;
	sl->depth = k;
	sl->fn = fn;
	sl->site = site;
	sl->ts = fixture_now() - 5000;
	sl->line = line;
	sl->flags = 0;
	r->depth = (int32_t)k + 1;
	return sl;
}

static void
fixture_push_named(struct fixture *fx, struct rb_ring *r, const char *name,
    const char *file, int line)
{
	struct rb_slot	*sl = fixture_push(fx, r, 0, 0, line);
	char		*p = rb_slot_name(sl);

	memset(p, 0, fx->h->slot_sz);
	memcpy(p, name, strlen(name) + 1);
	memcpy(p + strlen(name) + 1, file, strlen(file) + 1);
	sl->flags = RB_SLOT_NAMED;
}

static int
fixture_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;	/* the first entry is the main program */
}

static void
fixture_object_self(struct fixture *fx, uint32_t i)
{
	struct rb_object	*o = rb_object_at(fx->base, fx->h, i);
	char			 self[RB_PATH_MAX];
	ssize_t			 n;

	n = readlink("/proc/self/exe", self, sizeof self - 1);
	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	dl_iterate_phdr(fixture_phdr, &o->base);
	o->image = 1;
	o->flags = RB_OBJF_MAIN;
	strcpy(o->path, self);
	o->state = RB_OBJ_VALID;
}

/* Functions to symbolize: a leaf and a caller whose call site is known. */
static uint64_t	fixture_site;
static int	fixture_call_line;

static __attribute__((noinline)) void
fixture_leaf(void)
{
	fixture_site = (uint64_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void
fixture_caller(void)
{
	fixture_call_line = __LINE__; fixture_leaf();
	__asm__ volatile("" ::: "memory");
}

static char *
fixture_dump(struct fixture *fx, int json)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_symbols	*sy;
	struct rbmon_clock	 c;
	char			*cause = NULL, *buf = NULL;
	size_t			 len = 0;
	FILE			*out;

	ck_assert_msg(rbmon_model_open(&m, fx->path, 0, &cause) == 0, "%s",
	    cause);
	ck_assert_msg(rbmon_model_snapshot(&m, &s, &cause) == 0, "%s", cause);
	rbmon_clock_init(&c, &m.hdr);
	sy = rbmon_symbols_new(NULL);
	rbmon_stack_resolve_all(sy, &s);
	out = open_memstream(&buf, &len);
	if (json)
		rbmon_dump_json(out, &m, &s, sy, &c);
	else
		rbmon_dump_text(out, &m, &s, sy, &c);
	fclose(out);
	rbmon_symbols_free(sy);
	rbmon_model_free(&s);
	rbmon_model_close(&m);
	return buf;
}

static struct rb_header
header_valid(void)
{
	struct rb_geometry	g = { 4, 8, 64, 64, 1024, 4 };
	struct rb_layout	l;
	struct rb_header	h;

	memset(&h, 0, sizeof h);
	rb_layout_compute(&g, &l);
	memcpy(h.magic, RB_MAGIC, RB_MAGIC_LEN);
	h.version = RB_VERSION;
	h.header_size = sizeof h;
	h.endian = RB_ENDIAN_MARK;
	h.ready = 1;
	h.rings = g.rings;
	h.slots = g.slots;
	h.slot_sz = g.slot_sz;
	h.msg_sz = g.msg_sz;
	h.global_sz = g.global_sz;
	h.objects = g.objects;
	h.gma_off = l.gma_off;
	h.owners_off = l.owners_off;
	h.objects_off = l.objects_off;
	h.rings_off = l.rings_off;
	h.bpfilter_off = l.bpfilter_off;
	h.bps_off = l.bps_off;
	h.dyn_off = l.dyn_off;
	h.dyn_procs = RB_DYN_PROCS;
	h.bps = RB_BP_ENTRIES;
	h.bpfilter_bits = RB_BP_FILTER_BITS;
	h.slots_off = l.slots_off;
	h.pinned = rb_slots_pinned(g.slots);
	h.msgarea_off = l.msgarea_off;
	h.slot_size = l.slot_size;
	h.events_off = l.events_off;
	h.ring_size = l.ring_size;
	h.total_size = l.total_size;
	h.clock = RB_CLOCK_MONO;
	return h;
}

static void
expect_header_error(const struct rb_header *h, uint64_t size,
    const char *want)
{
	char	*cause = NULL;

	ck_assert_int_eq(rbmon_model_check_header(h, size, &cause), -1);
	ck_assert_msg(strstr(cause, want) != NULL, "'%s' lacks '%s'", cause,
	    want);
	free(cause);
}

START_TEST(test_header_valid)
{
	struct rb_header	h = header_valid();
	char			*cause = NULL;

	ck_assert_int_eq(rbmon_model_check_header(&h, h.total_size, &cause),
	    0);
	ck_assert_ptr_null(cause);
}
END_TEST

START_TEST(test_header_corrupt)
{
	struct rb_header	h, v = header_valid();
	uint64_t		size = v.total_size;

	h = v; h.magic[0] = 'X';
	expect_header_error(&h, size, "not an rbtrace trace file");
	expect_header_error(&v, 100, "not an rbtrace trace file");
	h = v; h.version = 8;
	expect_header_error(&h, size,
	    "trace format version 8; this rbmon reads version 7");
	h = v; h.endian = 0x04030201u;
	expect_header_error(&h, size, "byte order");
	h = v; h.header_size = 12;
	expect_header_error(&h, size, "header size");
	h = v; h.ready = 0;
	expect_header_error(&h, size, "not ready");
	h = v; h.rings = 0;
	expect_header_error(&h, size, "rings 0 outside");
	h = v; h.slots = RB_MAX_SLOTS + 1;
	expect_header_error(&h, size, "slots");
	h = v; h.slot_sz = 1;
	expect_header_error(&h, size, "slot_sz");
	h = v; h.objects = 65537;
	expect_header_error(&h, size, "objects");
	h = v; h.clock = 7;
	expect_header_error(&h, size, "clock 7 outside");
	h = v; h.clock = 0;
	expect_header_error(&h, size, "clock 0 outside");
	h = v; h.clock = RB_CLOCK_MAX + 1;
	expect_header_error(&h, size, "clock 5 outside");
	h = v; h.gma_off += 64;
	expect_header_error(&h, size, "layout does not match geometry");
	h = v; h.ring_size -= 64;
	expect_header_error(&h, size, "layout does not match geometry");
	h = v; h.slots_off = 0;
	expect_header_error(&h, size, "layout does not match geometry");
	h = v; h.total_size += 4096;
	expect_header_error(&h, size, "layout does not match geometry");
	h = v; h.rings = 60000; h.slots = 60000; h.slot_sz = 4096;
	expect_header_error(&h, ~0ull, "layout does not match geometry");
	h = v;
	expect_header_error(&h, size - 1, "truncated: header says");
}
END_TEST

START_TEST(test_open_errors)
{
	struct rbmon_model	 m;
	struct fixture		 fx;
	char			*cause = NULL, path[] = "/tmp/check-model-XXXXXX";
	int			 fd;

	ck_assert_int_eq(rbmon_model_open(&m, "/nonexistent/x.trace", 0,
	    &cause), -1);
	ck_assert_str_eq(cause, "No such file or directory");
	free(cause);

	ck_assert_int_eq(rbmon_model_open(&m, "/tmp", 0, &cause), -1);
	ck_assert_str_eq(cause, "not an rbtrace trace file");
	free(cause);

	fd = mkstemp(path);
	ck_assert_int_eq(write(fd, "RBTRACE", 7), 7);
	ck_assert_int_eq(rbmon_model_open(&m, path, 0, &cause), -1);
	ck_assert_str_eq(cause, "not an rbtrace trace file");
	free(cause);
	close(fd);
	unlink(path);

	fixture_make(&fx, 4, 8, 64);
	ck_assert_int_eq(ftruncate(fx.fd, (off_t)fx.size / 2), 0);
	ck_assert_int_eq(rbmon_model_open(&m, fx.path, 0, &cause), -1);
	ck_assert_msg(strncmp(cause, "truncated: header says", 22) == 0,
	    "%s", cause);
	free(cause);
	fixture_done(&fx);

	/* A header never made ready: the bounded wait gives up. */
	fixture_make(&fx, 4, 8, 64);
	fx.h->ready = 0;
	ck_assert_int_eq(rbmon_model_open(&m, fx.path, 50, &cause), -1);
	ck_assert_msg(strstr(cause, "not ready") != NULL, "%s", cause);
	free(cause);
	fixture_done(&fx);
}
END_TEST

START_TEST(test_open_truncated_later)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct fixture		 fx;
	char			*cause = NULL;

	fixture_make(&fx, 4, 8, 64);
	ck_assert_int_eq(rbmon_model_open(&m, fx.path, 0, &cause), 0);
	ck_assert_int_eq(ftruncate(fx.fd, 4096), 0);
	ck_assert_int_eq(rbmon_model_snapshot(&m, &s, &cause), -1);
	ck_assert_msg(strstr(cause, "truncated") != NULL, "%s", cause);
	free(cause);
	rbmon_model_close(&m);
	fixture_done(&fx);
}
END_TEST

/* A writer that shrinks and regrows the file under a reader: no crash. */
static void *
truncator(void *arg)
{
	struct fixture	*fx = arg;
	int		 i;

	for (i = 0; i < 2000; i++) {
		if (ftruncate(fx->fd, 4096) != 0 ||
		    ftruncate(fx->fd, (off_t)fx->size) != 0)
			break;
	}
	return NULL;
}

START_TEST(test_sigbus_race)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct fixture		 fx;
	pthread_t		 th;
	char			*cause = NULL;
	int			 i, ok = 0, bad = 0;

	fixture_make(&fx, 64, 64, 256);
	for (i = 0; i < 64; i++)
		fixture_ring(&fx, (uint32_t)i, RB_OWN_LIVE, getpid(),
		    getpid() + i, "t");
	ck_assert_int_eq(rbmon_model_open(&m, fx.path, 0, &cause), 0);
	pthread_create(&th, NULL, truncator, &fx);
	for (i = 0; i < 300; i++) {
		if (rbmon_model_snapshot(&m, &s, &cause) == 0) {
			rbmon_model_free(&s);
			ok++;
		} else {
			ck_assert_ptr_nonnull(strstr(cause, "truncated"));
			free(cause);
			bad++;
		}
	}
	pthread_join(th, NULL);
	ck_assert_int_eq(ok + bad, 300);
	rbmon_model_close(&m);
	fixture_done(&fx);
}
END_TEST

START_TEST(test_slot_read)
{
	char		 mem[sizeof(struct rb_slot) + 16] __attribute__((aligned(8)));
	char		 name[17];
	struct rb_slot	*sl = (struct rb_slot *)mem;
	struct rbmon_slot out = { .name = name };

	memset(mem, 0, sizeof mem);
	sl->seq = 4;
	sl->depth = 3;
	sl->fn = 0x1234;
	sl->line = 9;
	memcpy(rb_slot_name(sl), "0123456789abcdefXYZ", 16);
	ck_assert_int_eq(rbmon_model_read_slot(sl, 16, &out), 0);
	ck_assert_str_eq(out.name, "");		/* an address frame: no name */
	sl->flags = RB_SLOT_NAMED;
	ck_assert_int_eq(rbmon_model_read_slot(sl, 16, &out), 0);
	ck_assert_uint_eq(out.depth, 3);
	ck_assert_uint_eq(out.fn, 0x1234);
	ck_assert_int_eq(out.line, 9);
	ck_assert_uint_eq(out.seq, 4);
	ck_assert_str_eq(out.name, "0123456789abcdef");	/* bounded */

	sl->seq = 5;	/* a writer died mid-update: torn, not garbage */
	ck_assert_int_eq(rbmon_model_read_slot(sl, 16, &out), -1);
}
END_TEST

/* A seqlock writer: fn and ts always equal in a published slot. */
static int		writer_stop;	/* atomic */

static void *
slot_writer(void *arg)
{
	struct rb_slot	*sl = arg;
	uint64_t	 v = 0;

	while (!__atomic_load_n(&writer_stop, __ATOMIC_RELAXED)) {
		v++;
		__atomic_store_n(&sl->seq, sl->seq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&sl->fn, v, __ATOMIC_RELAXED);
		__atomic_store_n(&sl->ts, v, __ATOMIC_RELAXED);
		__atomic_store_n(&sl->site, v, __ATOMIC_RELAXED);
		__atomic_store_n(&sl->seq, sl->seq + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

START_TEST(test_slot_retry)
{
	struct rb_slot	  *sl;
	struct rbmon_slot  out;
	char		   name[9];
	pthread_t	   th;
	uint64_t	   t0;
	int		   i, good = 0;

	sl = aligned_alloc(64, 128);	/* C11: size a multiple of the alignment */
	memset(sl, 0, 64 + 8);
	out.name = name;
	__atomic_store_n(&writer_stop, 0, __ATOMIC_RELAXED);
	pthread_create(&th, NULL, slot_writer, sl);
	t0 = fixture_now();
	for (i = 0; i < 20000 && fixture_now() - t0 < 1000000000u; i++) {
		if (rbmon_model_read_slot(sl, 8, &out) != 0)
			continue;
		ck_assert_uint_eq(out.fn, out.ts);
		ck_assert_uint_eq(out.fn, out.site);
		ck_assert_int_eq(out.seq & 1, 0);
		good++;
	}
	__atomic_store_n(&writer_stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	ck_assert_int_gt(good, 0);
	free(sl);
}
END_TEST

START_TEST(test_stack_wrap)
{
	struct fixture		 fx;
	struct rb_ring		*r;
	struct rbmon_thread	 t;
	struct rbmon_slot	 scratch;
	char			 name[65];
	int			 k;

	scratch.name = name;
	fixture_make(&fx, 2, 4, 64);
	r = fixture_ring(&fx, 0, RB_OWN_LIVE, getpid(), getpid(), "main");
	for (k = 0; k < 6; k++)
		fixture_push(&fx, r, 0x1000 + (uint64_t)k, 0, 0);

	memset(&t, 0, sizeof t);
	ck_assert_int_eq(rbmon_model_read_stack(fx.h, r, &t, &scratch), 4);
	ck_assert_int_eq(t.depth, 6);
	ck_assert_uint_eq(t.wrapped, 2);
	ck_assert_uint_eq(t.frames[0].fn, 0x1005);	/* newest first */
	ck_assert_uint_eq(t.frames[2].fn, 0x1003);
	/* Level 0 keeps its slot: the lost frames are above it. */
	ck_assert_uint_eq(fx.h->pinned, 1);
	ck_assert_uint_eq(t.frames[3].fn, 0x1000);
	ck_assert_uint_eq(t.gap_at, 3);

	/* Unwind to 3: levels 1 and 2 were overwritten by levels 4 and 5. */
	r->depth = 3;
	ck_assert_int_eq(rbmon_model_read_stack(fx.h, r, &t, &scratch), 1);
	ck_assert_uint_eq(t.frames[0].level, 0);
	ck_assert_uint_eq(t.wrapped, 2);

	/* A slot that stays odd is a torn frame, shown and counted. */
	r->depth = 6;
	rb_slot_at(fx.h, r, rb_slot_index(5, 4, 1))->seq |= 1;
	ck_assert_int_eq(rbmon_model_read_stack(fx.h, r, &t, &scratch), 4);
	ck_assert_int_eq(t.frames[0].torn, 1);
	ck_assert_uint_eq(t.wrapped, 2);

	r->depth = -5;	/* never trusted */
	ck_assert_int_eq(rbmon_model_read_stack(fx.h, r, &t, &scratch), 0);
	ck_assert_int_eq(t.depth, 0);
	free(t.frames);
	fixture_done(&fx);
}
END_TEST

START_TEST(test_snapshot_groups)
{
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct fixture		 fx;
	char			*cause = NULL;
	pid_t			 dead;

	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);

	fixture_make(&fx, 8, 8, 64);
	fixture_ring(&fx, 0, RB_OWN_LIVE, dead, dead + 1, "dead-worker");
	fixture_ring(&fx, 1, RB_OWN_LIVE, getpid(), getpid() + 5, "worker");
	fixture_ring(&fx, 2, RB_OWN_LIVE, getpid(), getpid(), "main");
	fixture_ring(&fx, 3, RB_OWN_EXITED, getpid(), getpid() + 2, "old");
	fixture_ring(&fx, 4, RB_OWN_CLAIMING, getpid(), 0, "");
	rb_owner_at(fx.base, fx.h, 5)->ctl = RB_OWN_MAKE(RB_OWN_FREE, 0);
	fx.h->untraced_threads = 3;

	ck_assert_int_eq(rbmon_model_open(&m, fx.path, 0, &cause), 0);
	ck_assert_int_eq(rbmon_model_snapshot(&m, &s, &cause), 0);
	ck_assert_uint_eq(s.rings_total, 8);
	ck_assert_uint_eq(s.rings_used, 4);
	ck_assert_uint_eq(s.untraced, 3);
	ck_assert_uint_eq(s.nprocs, 2);
	/* The creator first even though the dead one was created earlier. */
	ck_assert_int_eq(s.procs[0].pid, getpid());
	ck_assert_int_eq(s.procs[0].alive, 1);
	ck_assert_uint_eq(s.procs[0].nthreads, 3);
	ck_assert_int_eq(s.procs[0].threads[0].tid, getpid());
	ck_assert_int_eq(s.procs[0].threads[1].tid, getpid() + 2);
	ck_assert_str_eq(rbmon_dump_state(&s.procs[0],
	    &s.procs[0].threads[1]), "exited");
	ck_assert_int_eq(s.procs[1].pid, dead);
	ck_assert_int_eq(s.procs[1].alive, 0);
	ck_assert_str_eq(rbmon_dump_state(&s.procs[1],
	    &s.procs[1].threads[0]), "exited");
	rbmon_model_free(&s);
	rbmon_model_close(&m);
	fixture_done(&fx);
}
END_TEST

START_TEST(test_pid_reuse)
{
	uint64_t	st = rbmon_model_proc_start(getpid());

	ck_assert_uint_ne(st, 0);
	ck_assert_int_eq(rbmon_model_pid_alive(getpid(), st), 1);
	ck_assert_int_eq(rbmon_model_pid_alive(getpid(), st + 1), 0);
	ck_assert_int_eq(rbmon_model_pid_alive(0, 0), 0);
}
END_TEST

struct kernel_reader {
	int	fd;
	pid_t	tid;
	int	ready;
};

static void *
kernel_reader_main(void *arg)
{
	struct kernel_reader	*a = arg;
	char			 c;

	a->tid = (pid_t)syscall(SYS_gettid);
	__atomic_store_n(&a->ready, 1, __ATOMIC_RELEASE);
	while (read(a->fd, &c, 1) < 0)
		continue;
	return NULL;
}

static pid_t
kernel_reader_start(struct kernel_reader *a, pthread_t *t, int fd)
{
	struct rbmon_task	k;
	struct rbmon_tasks	*ts = rbmon_tasks_new();
	int			i;

	memset(a, 0, sizeof *a);
	a->fd = fd;
	ck_assert_int_eq(pthread_create(t, NULL, kernel_reader_main, a), 0);
	while (!__atomic_load_n(&a->ready, __ATOMIC_ACQUIRE))
		usleep(1000);
	for (i = 0; i < 1000; i++) {	/* until it sleeps in read() */
		rbmon_tasks_begin(ts);
		if (rbmon_tasks_read(ts, getpid(), a->tid, &k) == 0 &&
		    k.st.state == 'S')
			break;
		usleep(10000);
	}
	rbmon_tasks_free(ts);
	return a->tid;
}

/* This thread's name as the kernel has it. */
static int
prctl_comm(char *buf, size_t size)
{
	FILE	*f = fopen("/proc/thread-self/comm", "r");
	int	 r = -1;

	if (f != NULL && fgets(buf, (int)size, f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		r = 0;
	}
	if (f != NULL)
		fclose(f);
	return r;
}

/* The thread of ring @ring in a snapshot of one process. */
static const struct rbmon_thread *
kernel_thread(const struct rbmon_snapshot *s, uint32_t ring)
{
	size_t	i;

	ck_assert_uint_eq(s->nprocs, 1);
	for (i = 0; i < s->procs[0].nthreads; i++) {
		if (s->procs[0].threads[i].ring == ring)
			return &s->procs[0].threads[i];
	}
	ck_abort_msg("no thread of ring %u", ring);
	return NULL;
}

/*
 * What the kernel says of the threads of a live process: state, name,
 * CPU over the interval between snapshots, what a blocked one waits in;
 * nothing for a ring whose tid now names a thread started after it, nor
 * for an exited ring.
 */
START_TEST(test_kernel_threads)
{
	struct rbmon_model		 m;
	struct rbmon_snapshot		 s;
	struct fixture			 fx;
	struct kernel_reader		 a, b;
	const struct rbmon_thread	*t;
	struct rb_ring			*r;
	pthread_t			 ta, tb;
	struct timespec			 c0, c1;
	char				*cause = NULL, *out, comm[32], want[128];
	uint64_t			 w0, w1;
	double				 ref;
	int				 p[2], q[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(pipe(q), 0);
	kernel_reader_start(&a, &ta, p[0]);
	fixture_make(&fx, 8, 8, 64);
	fixture_ring(&fx, 0, RB_OWN_LIVE, getpid(), getpid(), "ringname");
	fixture_ring(&fx, 1, RB_OWN_LIVE, getpid(), a.tid, "reader");
	fixture_ring(&fx, 2, RB_OWN_EXITED, getpid(), a.tid, "before");
	/* The ring of a thread gone before b started and got its tid. */
	kernel_reader_start(&b, &tb, q[0]);
	r = fixture_ring(&fx, 3, RB_OWN_LIVE, getpid(), b.tid, "stale");
	r->created_ns = fixture_now() - 5000000000ull;

	ck_assert_int_eq(rbmon_model_open(&m, fx.path, 0, &cause), 0);
	w0 = fixture_now();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	ck_assert_int_eq(rbmon_model_snapshot(&m, &s, &cause), 0);
	ck_assert_int_eq(s.procs[0].kstate, 'R');
	ck_assert(s.procs[0].cpu < 0);		/* the first snapshot */
	t = kernel_thread(&s, 0);
	ck_assert_int_eq(t->kstate, 'R');
	ck_assert(t->cpu < 0);
	ck_assert_ptr_null(rbmon_model_blocked(&s.procs[0],
	    (struct rbmon_thread *)t));		/* running */
	ck_assert_int_eq(prctl_comm(comm, sizeof comm), 0);
	ck_assert_str_eq(t->name, comm);	/* the kernel's name */
	t = kernel_thread(&s, 1);
	ck_assert_int_eq(t->kstate, 'S');
	ck_assert_ptr_null(t->blocked_in);	/* only when asked */
	ck_assert_ptr_nonnull(rbmon_model_blocked(&s.procs[0],
	    (struct rbmon_thread *)t));
	snprintf(want, sizeof want, "read(%d, 0x", p[0]);
	ck_assert_msg(strncmp(t->blocked_in, want, strlen(want)) == 0, "%s",
	    t->blocked_in);
	t = kernel_thread(&s, 2);
	ck_assert_int_eq(t->kstate, 0);
	ck_assert(t->cpu < 0);
	t = kernel_thread(&s, 3);
	ck_assert_int_eq(t->kstate, 0);
	ck_assert(t->cpu < 0);
	ck_assert_ptr_null(rbmon_model_blocked(&s.procs[0],
	    (struct rbmon_thread *)t));
	rbmon_model_free(&s);

	/* Spin for 0.3 s of this thread's CPU (20 s of wall at most). */
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	while ((c1.tv_sec - c0.tv_sec) * 1000000000ll + c1.tv_nsec -
	    c0.tv_nsec < 300000000 && fixture_now() - w0 < 20000000000ull);
	w1 = fixture_now();
	ref = (double)((c1.tv_sec - c0.tv_sec) * 1000000000ll + c1.tv_nsec -
	    c0.tv_nsec) / (double)(w1 - w0) * 100;
	ck_assert_int_eq(rbmon_model_snapshot(&m, &s, &cause), 0);
	t = kernel_thread(&s, 0);
	ck_assert_msg(t->cpu > ref - 15 && t->cpu < ref + 15,
	    "cpu %.1f, its own clock says %.1f", t->cpu, ref);
	ck_assert_msg(s.procs[0].cpu > ref - 15, "process %.1f, thread %.1f",
	    s.procs[0].cpu, ref);
	ck_assert_uint_ge(s.procs[0].cpu_ns, t->cpu_ns);
	t = kernel_thread(&s, 1);
	ck_assert_msg(t->cpu >= 0 && t->cpu < 5, "blocked: %.1f", t->cpu);
	rbmon_model_free(&s);

	/* The reader ends; its ring stays live (no exit hook ran). */
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	pthread_join(ta, NULL);
	ck_assert_int_eq(rbmon_model_snapshot(&m, &s, &cause), 0);
	t = kernel_thread(&s, 1);
	ck_assert_int_eq(t->kstate, 0);
	ck_assert(t->cpu < 0);
	rbmon_model_free(&s);
	rbmon_model_close(&m);

	/* The dumps: b under a ring of its own now; the stale one. */
	fixture_ring(&fx, 1, RB_OWN_LIVE, getpid(), b.tid, "sleeper");
	out = fixture_dump(&fx, 0);
	snprintf(want, sizeof want, "\"%s\" running, depth 0, kernel S "
	    "(sleeping)\n    blocked in read(%d, 0x", comm, q[0]);
	ck_assert_msg(strstr(out, want) != NULL, "%s\nlacks %s", out, want);
	ck_assert_msg(strstr(out, "\"stale\" running, depth 0\n") != NULL,
	    "%s", out);
	free(out);
	out = fixture_dump(&fx, 1);
	snprintf(want, sizeof want, "\"kstate\": \"S\", \"cpu\": null, "
	    "\"cpu_ns\": ");
	ck_assert_msg(strstr(out, want) != NULL, "%s\nlacks %s", out, want);
	snprintf(want, sizeof want, "\"blocked_in\": \"read(%d, 0x", q[0]);
	ck_assert_msg(strstr(out, want) != NULL, "%s\nlacks %s", out, want);
	ck_assert_msg(strstr(out, "\"kstate\": null, \"cpu\": null, \"cpu_ns\""
	    ": null, \"blocked_in\": null") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"alive\": true, \"cpu\": null, "
	    "\"cpu_ns\": ") != NULL, "%s", out);
	free(out);

	ck_assert_int_eq(write(q[1], "x", 1), 1);
	pthread_join(tb, NULL);
	fixture_done(&fx);
}
END_TEST

START_TEST(test_age_format)
{
	static const struct {
		uint64_t	 ns;
		const char	*want;
	} t[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1.0us" },
		{ 1250, "1.2us" }, { 999999, "999.9us" }, { 1200000, "1.2ms" },
		{ 2100000000ull, "2.10s" }, { 59999999999ull, "59.99s" },
		{ 62000000000ull, "1m02s" }, { 3599000000000ull, "59m59s" },
		{ 3780000000000ull, "1h03m" },
	};
	char	buf[32];
	size_t	i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		rbmon_age_format(buf, sizeof buf, t[i].ns);
		ck_assert_str_eq(buf, t[i].want);
	}
}
END_TEST

START_TEST(test_clock)
{
	struct rb_header	h = header_valid();
	struct rbmon_clock	c;
	uint64_t		age;

	rb_boot_id_read(h.boot_id, sizeof h.boot_id);
	h.clock = RB_CLOCK_MONO;
	rbmon_clock_init(&c, &h);
	ck_assert_int_eq(rbmon_clock_age(&c, c.now_ns - 5000, &age), 0);
	ck_assert_uint_eq(age, 5000);
	ck_assert_int_eq(rbmon_clock_age(&c, c.now_ns + 5000, &age), 0);
	ck_assert_uint_eq(age, 0);	/* clamped */

	strcpy(h.boot_id, "another-boot");
	rbmon_clock_init(&c, &h);
	ck_assert_int_eq(rbmon_clock_age(&c, 1, &age), -1);
	h.clock = RB_CLOCK_TSC;
	rbmon_clock_init(&c, &h);
	ck_assert_int_eq(rbmon_clock_age(&c, 1, &age), -1);

	/* Same boot, TSC: 1 GHz calibration, stamp 2 s after tsc0. */
	rb_boot_id_read(h.boot_id, sizeof h.boot_id);
	memset(&c, 0, sizeof c);
	c.valid = 1;
	c.kind = RB_CLOCK_TSC;
	c.tsc0 = 1000;
	c.ns0 = 1000000000;
	c.hz = 1e9L;
	c.now_ns = 5000000000ull;
	ck_assert_int_eq(rbmon_clock_age(&c, 1000 + 2000000000ull, &age), 0);
	ck_assert_uint_eq(age, 2000000000ull);
	h.clock_tsc_hz = 3000000000ull;
	h.clock_ns0 = fixture_now();	/* too fresh to calibrate */
	rbmon_clock_init(&c, &h);
	ck_assert_int_eq(c.valid, 1);
}
END_TEST

/* Every clock of the format passes the header check; the counters convert. */
START_TEST(test_clock_kinds)
{
	struct rb_header	h = header_valid();
	struct rbmon_clock	c;
	uint32_t		k, other;
	uint64_t		ns, age;
	char			*cause = NULL;

	for (k = RB_CLOCK_MONO; k <= RB_CLOCK_MAX; k++) {
		h.clock = k;
		ck_assert_msg(rbmon_model_check_header(&h, h.total_size,
		    &cause) == 0, "clock %u: %s", k, cause);
		ck_assert_ptr_nonnull(rb_clock_name(k));
	}
	ck_assert_ptr_null(rb_clock_name(0));
	ck_assert_ptr_null(rb_clock_name(RB_CLOCK_MAX + 1));

	/* No clock: no age and no time, but the snapshot's time is kept. */
	rb_boot_id_read(h.boot_id, sizeof h.boot_id);
	h.clock = RB_CLOCK_NONE;
	rbmon_clock_init(&c, &h);
	ck_assert_int_eq(c.valid, 0);
	ck_assert_uint_ge(c.now_ns, fixture_now() - 1000000000ull);
	ck_assert_int_eq(rbmon_clock_age(&c, 5, &age), -1);
	ck_assert_int_eq(rbmon_clock_ns(&c, 5, &ns), -1);

	/*
	 * The other architecture's counter, on this boot: this machine
	 * cannot read it, so no age; times at the writers' rate still.
	 */
	other = RB_CLOCK_COUNTER == RB_CLOCK_TSC ? RB_CLOCK_CNTVCT :
	    RB_CLOCK_TSC;
	h.clock = other;
	h.clock_tsc0 = 1000;
	h.clock_ns0 = 7000000000ull;
	h.clock_tsc_hz = 500000000ull;		/* 2 ns a tick */
	rbmon_clock_init(&c, &h);
	ck_assert_int_eq(c.valid, 0);
	ck_assert_int_eq(rbmon_clock_age(&c, 2000, &age), -1);
	ck_assert_int_eq(rbmon_clock_ns(&c, 1000 + 1500, &ns), 0);
	ck_assert_uint_eq(ns, 7000003000ull);

	/* This machine's counter: ages, from a pair read now. */
	if (RB_CLOCK_COUNTER != 0) {
		h.clock = RB_CLOCK_COUNTER;
		h.clock_ns0 = fixture_now() - 2000000000ull;
		h.clock_tsc0 = rb_counter_read();	/* only the rate matters */
		h.clock_tsc_hz = 0;
		rbmon_clock_init(&c, &h);
		ck_assert_int_eq(c.valid, 1);
		ck_assert_int_eq(rbmon_clock_age(&c, rb_counter_read(), &age),
		    0);
		ck_assert_uint_lt(age, 1000000000ull);
	}
}
END_TEST

/* A snapshot of @fx, its frames stamped through @sn as of @now. */
static void
seen_snapshot(struct rbmon_model *m, struct rbmon_snapshot *s,
    struct rbmon_seen *sn, uint64_t now)
{
	char	*cause = NULL;

	ck_assert_msg(rbmon_model_snapshot(m, s, &cause) == 0, "%s", cause);
	rbmon_seen_update(sn, s, now);
}

/* The text and JSON dumps of @s, as of @c. */
static char *
seen_dump(struct rbmon_model *m, struct rbmon_snapshot *s,
    const struct rbmon_clock *c, int json)
{
	struct rbmon_symbols	*sy = rbmon_symbols_new(NULL);
	char			*buf = NULL;
	size_t			 len = 0;
	FILE			*out = open_memstream(&buf, &len);

	rbmon_stack_resolve_all(sy, s);
	if (json)
		rbmon_dump_json(out, m, s, sy, c);
	else
		rbmon_dump_text(out, m, s, sy, c);
	fclose(out);
	rbmon_symbols_free(sy);
	return buf;
}

/*
 * RBTRACE_CLOCK=none: rbmon shows how long it has seen each frame, the
 * same frame (ring claim, level, slot seq) keeping its first sight.
 */
START_TEST(test_clock_none_seen)
{
	struct fixture		 fx;
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_seen	 sn = { NULL, 0 };
	struct rbmon_clock	 c;
	struct rbmon_shown	 sh;
	struct rbmon_symbols	*sy = rbmon_symbols_new(NULL);
	struct rb_ring		*r;
	struct rbmon_thread	*t;
	uint64_t		 t1;
	char			*cause = NULL, *out;
	size_t			 k;

	fixture_make(&fx, 4, 8, 64);
	fx.h->clock = RB_CLOCK_NONE;
	r = fixture_ring(&fx, 0, RB_OWN_LIVE, getpid(), getpid(), "main");
	fixture_push(&fx, r, 0x1000, 0, 0)->ts = 0;
	fixture_push(&fx, r, 0x2000, 0, 0)->ts = 0;
	fixture_push(&fx, r, 0x3000, 0, 0)->ts = 0;
	ck_assert_msg(rbmon_model_open(&m, fx.path, 0, &cause) == 0, "%s",
	    cause);
	rbmon_clock_init(&c, &m.hdr);
	ck_assert_uint_eq(c.kind, RB_CLOCK_NONE);
	t1 = c.now_ns;

	/* First sight: every frame seen 0 ns, none aged. */
	seen_snapshot(&m, &s, &sn, t1);
	t = &s.procs[0].threads[0];
	ck_assert_uint_eq(t->nframes, 3);
	rbmon_stack_resolve_all(sy, &s);
	for (k = 0; k < 3; k++) {
		ck_assert_uint_eq(t->frames[k].seen_ns, t1);
		rbmon_dump_resolve(sy, &s, &s.procs[0], t, k, &c, &sh);
		ck_assert_int_eq(sh.have_age, 0);
		ck_assert_int_eq(sh.have_seen, 1);
		ck_assert_uint_eq(sh.seen_ns, 0);
	}
	rbmon_model_free(&s);

	/* Two seconds on: the top frame left and another took its level. */
	r->depth = 2;
	fixture_push(&fx, r, 0x4000, 0, 0)->ts = 0;
	c.now_ns = t1 + 2000000000ull;
	seen_snapshot(&m, &s, &sn, c.now_ns);
	t = &s.procs[0].threads[0];
	ck_assert_uint_eq(t->frames[0].fn, 0x4000);
	ck_assert_uint_eq(t->frames[0].seen_ns, c.now_ns);
	ck_assert_uint_eq(t->frames[1].seen_ns, t1);
	ck_assert_uint_eq(t->frames[2].seen_ns, t1);
	out = seen_dump(&m, &s, &c, 0);
	ck_assert_msg(strstr(out, "no clock (RBTRACE_CLOCK=none): frames show "
	    "how long rbmon has seen them") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "#0 0x4000 (?\?) seen 0ns\n") != NULL, "%s",
	    out);
	ck_assert_msg(strstr(out, "#1 0x2000 (?\?) seen 2.00s\n") != NULL,
	    "%s", out);
	free(out);
	out = seen_dump(&m, &s, &c, 1);
	ck_assert_msg(strstr(out, "\"clock\": \"none\"") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"age_ns\": null, \"seen_ns\": 0, "
	    "\"address\": \"0x4000\"") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"age_ns\": null, \"seen_ns\": 2000000000, "
	    "\"address\": \"0x1000\"") != NULL, "%s", out);
	free(out);
	rbmon_model_free(&s);

	/* The ring claimed again (another generation): all new. */
	rb_owner_at(fx.base, fx.h, 0)->gen++;
	c.now_ns = t1 + 3000000000ull;
	seen_snapshot(&m, &s, &sn, c.now_ns);
	t = &s.procs[0].threads[0];
	for (k = 0; k < t->nframes; k++)
		ck_assert_uint_eq(t->frames[k].seen_ns, c.now_ns);
	rbmon_model_free(&s);

	/* A file with a clock never shows "seen". */
	fx.h->clock = RB_CLOCK_MONO;
	rbmon_model_close(&m);
	ck_assert_msg(rbmon_model_open(&m, fx.path, 0, &cause) == 0, "%s",
	    cause);
	rbmon_clock_init(&c, &m.hdr);
	seen_snapshot(&m, &s, &sn, c.now_ns);
	rbmon_stack_resolve_all(sy, &s);
	rbmon_dump_resolve(sy, &s, &s.procs[0], &s.procs[0].threads[0], 0,
	    &c, &sh);
	ck_assert_int_eq(sh.have_seen, 0);
	rbmon_model_free(&s);
	rbmon_symbols_free(sy);
	rbmon_seen_free(&sn);
	rbmon_model_close(&m);
	fixture_done(&fx);
}
END_TEST

static char *
json_of(const char *s)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*f = open_memstream(&buf, &len);

	rbmon_json_string(f, s);
	fclose(f);
	return buf;
}

START_TEST(test_json_escape)
{
	static const struct {
		const char	*in, *want;
	} t[] = {
		{ "plain", "\"plain\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "\n\t\r\b\f", "\"\\n\\t\\r\\b\\f\"" },
		{ "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xe2\x82\xac\xf0\x9f\x98\x80\"" },
		{ "a\xff" "b", "\"a\\ufffdb\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },		/* overlong */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
		{ "x\xe2\x82", "\"x\\ufffd\\ufffd\"" },		/* cut short */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
		/* C1 and bidirectional controls: plain to a terminal too */
		{ "\xc2\x9b\xc2\x85\xc2\xa0", "\"\\u009b\\u0085\xc2\xa0\"" },
		{ "\xe2\x80\xae\xe2\x80\xa8", "\"\\u202e\\u2028\"" },
	};
	char	*got;
	size_t	 i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		got = json_of(t[i].in);
		ck_assert_str_eq(got, t[i].want);
		free(got);
	}
	got = json_of(NULL);
	ck_assert_str_eq(got, "null");
	free(got);
}
END_TEST

START_TEST(test_dump_symbols)
{
	struct fixture	 fx;
	struct rb_ring	*r;
	char		*out, want[128];

	fixture_caller();
	fixture_make(&fx, 4, 8, 64);
	fixture_object_self(&fx, 0);
	r = fixture_ring(&fx, 0, RB_OWN_LIVE, getpid(), getpid(), "main");
	fixture_push(&fx, r, (uint64_t)(uintptr_t)fixture_caller, 0, 0);
	fixture_push(&fx, r, (uint64_t)(uintptr_t)fixture_leaf, fixture_site,
	    0);
	fixture_push_named(&fx, r, "interp_fn", "script.py", 17);
	fixture_push(&fx, r, 0x10, 0, 0);	/* nowhere */

	out = fixture_dump(&fx, 1);
	ck_assert_msg(strstr(out, "\"function\": \"fixture_leaf\", "
	    "\"file\": \"check_model.c\"") != NULL, "%s", out);
	snprintf(want, sizeof want, "\"function\": \"fixture_caller\", "
	    "\"file\": \"check_model.c\", \"line\": %d", fixture_call_line);
	ck_assert_msg(strstr(out, want) != NULL, "%s\nlacks %s", out, want);
	ck_assert_msg(strstr(out, "{\"function\": \"interp_fn\", \"file\": "
	    "\"script.py\", \"line\": 17, \"age_ns\": ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"address\": null, \"inlined\": false}") !=
	    NULL, "%s", out);
	ck_assert_msg(strstr(out, "{\"function\": null, \"file\": null, "
	    "\"line\": null, \"age_ns\": ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"address\": \"0x10\"") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"program\": \"check_monitor\"") != NULL,
	    "%s", out);
	ck_assert_msg(strstr(out, "\"depth\": 4, \"wrapped\": 0") != NULL,
	    "%s", out);
	ck_assert(out[strlen(out) - 1] == '\n');
	free(out);

	out = fixture_dump(&fx, 0);
	ck_assert_msg(strstr(out, "process ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "#0 0x10 (?\?) ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "#1 interp_fn (script.py:17) ") != NULL,
	    "%s", out);
	ck_assert_msg(strstr(out, "#2 fixture_leaf (check_model.c) ") != NULL,
	    "%s", out);
	free(out);
	fixture_done(&fx);
}
END_TEST

/*
 * A frame entered before an attach and found by unwinding (RB_SLOT_SEEDED,
 * no entry time): resolved like any other, "seeded" and no age; the
 * before-attach frame under it keeps its own flag.
 */
START_TEST(test_dump_seeded)
{
	struct fixture	 fx;
	struct rb_ring	*r;
	struct rb_slot	*sl;
	char		*out, want[160];

	fixture_caller();
	fixture_make(&fx, 4, 8, 64);
	fixture_object_self(&fx, 0);
	r = fixture_ring(&fx, 0, RB_OWN_LIVE, getpid(), getpid(), "main");
	fixture_push_named(&fx, r, RB_ATTACH_MARKER, "", 0);
	rb_slot_at(fx.h, r, 0)->flags = RB_SLOT_NAMED | RB_SLOT_ATTACH;
	sl = fixture_push(&fx, r, (uint64_t)(uintptr_t)fixture_caller, 0, 0);
	sl->flags = RB_SLOT_SEEDED;
	sl->ts = 0;
	fixture_push(&fx, r, (uint64_t)(uintptr_t)fixture_leaf, fixture_site,
	    0);

	out = fixture_dump(&fx, 1);
	snprintf(want, sizeof want, "{\"function\": \"fixture_caller\", "
	    "\"file\": \"check_model.c\", \"line\": %d, \"age_ns\": null, ",
	    fixture_call_line);
	ck_assert_msg(strstr(out, want) != NULL, "%s\nlacks %s", out, want);
	ck_assert_msg(strstr(out, "\"inlined\": false, \"seeded\": true}") !=
	    NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"before_attach\": true}") != NULL, "%s",
	    out);
	/* One seeded frame only: the leaf, entered since, is not. */
	ck_assert_ptr_eq(strstr(strstr(out, "\"seeded\": true") + 1,
	    "\"seeded\""), NULL);
	free(out);

	out = fixture_dump(&fx, 0);
	snprintf(want, sizeof want, "#1 fixture_caller (check_model.c:%d) "
	    "before attach\n", fixture_call_line);
	ck_assert_msg(strstr(out, want) != NULL, "%s\nlacks %s", out, want);
	ck_assert_msg(strstr(out, "#2 [frames before attach] ") != NULL, "%s",
	    out);
	free(out);
	fixture_done(&fx);
}
END_TEST

/* Variables for rbmon_symbols_variables to find in this very program. */
int		 check_var_global = 1;
static int	 check_var_static = 2;
__thread int	 check_var_tls;

START_TEST(test_symbols_variables)
{
	struct fixture		 fx;
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	struct rbmon_symbols	*sy;
	char *const		*v;
	char			*cause = NULL;
	size_t			 n, i, found = 0;

	/* Through its address, so no optimisation folds it away. */
	(*(volatile int *)&check_var_static)++;
	check_var_tls = check_var_global + check_var_static;
	fixture_make(&fx, 4, 8, 64);
	fixture_object_self(&fx, 0);
	fixture_ring(&fx, 0, RB_OWN_LIVE, getpid(), getpid(), "main");
	ck_assert_msg(rbmon_model_open(&m, fx.path, 0, &cause) == 0, "%s",
	    cause);
	ck_assert_msg(rbmon_model_snapshot(&m, &s, &cause) == 0, "%s", cause);
	ck_assert_uint_eq(s.nprocs, 1);
	sy = rbmon_symbols_new(NULL);
	v = rbmon_symbols_variables(sy, &s, &s.procs[0], &n);
	ck_assert_ptr_nonnull(v);
	for (i = 0; i < n; i++) {
		/* Sorted, unique, and names an expression can spell. */
		if (i > 0)
			ck_assert_msg(strcmp(v[i - 1], v[i]) < 0, "%s, %s",
			    v[i - 1], v[i]);
		ck_assert_msg(strspn(v[i], "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(v[i]),
		    "%s", v[i]);
		found += strcmp(v[i], "check_var_global") == 0 ||
		    strcmp(v[i], "check_var_static") == 0 ||
		    strcmp(v[i], "check_var_tls") == 0;
		/* Functions are not variables. */
		ck_assert_str_ne(v[i], "fixture_leaf");
	}
	ck_assert_uint_eq(found, 3);
	/* Asked again: the same list, from the cache. */
	ck_assert_ptr_eq(rbmon_symbols_variables(sy, &s, &s.procs[0], &i), v);
	ck_assert_uint_eq(i, n);
	rbmon_symbols_free(sy);
	rbmon_model_free(&s);
	rbmon_model_close(&m);
	fixture_done(&fx);
}
END_TEST

START_TEST(test_dump_torn_gone)
{
	struct fixture	 fx;
	struct rb_ring	*r;
	char		*out;
	pid_t		 dead;
	int		 k;

	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	fixture_make(&fx, 4, 4, 64);
	fx.h->creator_pid = dead;
	r = fixture_ring(&fx, 0, RB_OWN_LIVE, dead, dead, "app\x01\"");
	r->pstart = 12345;
	for (k = 0; k < 7; k++)
		fixture_push(&fx, r, 0x400000 + (uint64_t)k, 0, 0);
	rb_slot_at(fx.h, r, rb_slot_index(6, 4, 1))->seq |= 1;

	out = fixture_dump(&fx, 0);
	ck_assert_msg(strstr(out, "gone (was running), depth 7") != NULL,
	    "%s", out);
	ck_assert_msg(strstr(out, "#0 <torn frame>") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "... 3 frames overwritten") != NULL,
	    "%s", out);
	free(out);
	out = fixture_dump(&fx, 1);
	ck_assert_msg(strstr(out, "\"alive\": false") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"name\": \"app\\u0001\\\"\", \"state\": "
	    "\"exited\", \"depth\": 7, \"wrapped\": 3") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "{\"function\": null, \"file\": null, "
	    "\"line\": null, \"age_ns\": null, \"address\": null, "
	    "\"inlined\": false, \"torn\": true}") != NULL, "%s", out);
	free(out);
	fixture_done(&fx);
}
END_TEST

/*
 * A dead process whose every thread ended itself is "exited" in the text
 * dump, as on the screen; one that died without ending them is "gone".
 */
START_TEST(test_dump_text_exited)
{
	struct fixture	 fx;
	struct rb_ring	*r;
	char		*out, want[64];
	pid_t		 dead;

	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	fixture_make(&fx, 4, 8, 64);
	fx.h->creator_pid = dead;
	r = fixture_ring(&fx, 0, RB_OWN_EXITED, dead, dead, "main");
	r->pstart = 12345;
	r->state = RB_STATE_EXITED;
	r = fixture_ring(&fx, 1, RB_OWN_EXITED, dead, dead + 1, "worker");
	r->pstart = 12345;
	r->state = RB_STATE_EXITED;
	out = fixture_dump(&fx, 0);
	snprintf(want, sizeof want, "process %d (", (int)dead);
	ck_assert_msg(strstr(out, want) != NULL, "%s", out);
	ck_assert_msg(strstr(out, ") exited, parent ") != NULL, "%s", out);
	free(out);
	r->state = RB_STATE_RUNNING;
	rb_owner_at(fx.base, fx.h, 1)->ctl = RB_OWN_MAKE(RB_OWN_LIVE, dead);
	out = fixture_dump(&fx, 0);
	ck_assert_msg(strstr(out, ") gone, parent ") != NULL, "%s", out);
	free(out);
	fixture_done(&fx);
}
END_TEST

/* Every byte from the file reaches the text dump escaped (escape.c). */
START_TEST(test_dump_text_escaped)
{
	struct fixture	 fx;
	struct rb_ring	*r;
	const char	*p;
	char		*out, want[128];
	pid_t		 dead;

	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	fixture_make(&fx, 4, 8, 64);
	fx.h->creator_pid = dead;
	strcpy(fx.h->program, "\033]2;P\a\033[2J\x7f\xc2\x85p");
	r = fixture_ring(&fx, 0, RB_OWN_LIVE, dead, dead,
	    "\033]2;T\a\xc2\x9b\x9b\n");
	r->pstart = 12345;
	fixture_push_named(&fx, r, "\033[31mfn\r", "\033[2Jx.c\t", 7);
	out = fixture_dump(&fx, 0);
	for (p = out; *p != '\0'; p++)
		ck_assert_msg(*p == '\n' || (*p >= ' ' && *p <= '~'),
		    "byte 0x%02x at %zu of:\n%s", (unsigned char)*p,
		    (size_t)(p - out), out);
	ck_assert_msg(strstr(out, ": program \\x1b]2;P\\x07\\x1b[2J\\x7f"
	    "\\u0085p, ") != NULL, "%s", out);
	snprintf(want, sizeof want, "process %d (\\x1b]2;P\\x07\\x1b[2J"
	    "\\x7f\\u0085p) gone", (int)dead);
	ck_assert_msg(strstr(out, want) != NULL, "%s\nlacks %s", out, want);
	ck_assert_msg(strstr(out, "\"\\x1b]2;T\\x07\\u009b\\x9b\\n\" "
	    "gone (was running)") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "#0 \\x1b[31mfn\\r (\\x1b[2Jx.c\\t:7)") !=
	    NULL, "%s", out);
	free(out);
	out = fixture_dump(&fx, 1);
	ck_assert_msg(strstr(out, "\"name\": \"\\u001b]2;T\\u0007\\u009b"
	    "\\ufffd\\n\"") != NULL, "%s", out);
	free(out);
	fixture_done(&fx);
}
END_TEST

/* A file no thread ever joined: no process, every output still whole. */
START_TEST(test_snapshot_empty)
{
	struct fixture		 fx;
	struct rbmon_model	 m;
	struct rbmon_snapshot	 s;
	char			*cause = NULL, *out;

	fixture_make(&fx, 4, 8, 64);
	ck_assert_msg(rbmon_model_open(&m, fx.path, 0, &cause) == 0, "%s",
	    cause);
	ck_assert_msg(rbmon_model_snapshot(&m, &s, &cause) == 0, "%s", cause);
	ck_assert_uint_eq(s.nprocs, 0);
	rbmon_model_free(&s);
	rbmon_model_close(&m);
	out = fixture_dump(&fx, 0);
	ck_assert_msg(strstr(out, "program fixture, 0 of 4 rings used") != NULL,
	    "%s", out);
	free(out);
	out = fixture_dump(&fx, 1);
	ck_assert_msg(strstr(out, "\"processes\": []") != NULL, "%s", out);
	free(out);
	fixture_done(&fx);
}
END_TEST

/*
 * A hostile clock: TSC stamps at 1 Hz (too fresh to calibrate), so one
 * tick is a second and a stamp far from tsc0 is an age past 2^64 ns.
 */
START_TEST(test_clock_out_of_range)
{
	struct rb_header	h = header_valid();
	struct rbmon_clock	c;
	uint64_t		age = 7;

	memset(&c, 0, sizeof c);
	c.valid = 1;
	c.kind = RB_CLOCK_TSC;
	c.tsc0 = 1ull << 62;
	c.ns0 = 1000000000;
	c.hz = 1;
	c.now_ns = 5000000000ull;
	ck_assert_int_eq(rbmon_clock_age(&c, 1, &age), -1);
	ck_assert_uint_eq(age, 7);
	/* 2^34 s ago: 1.7e19 ns is within range, 2^35 s is not. */
	ck_assert_int_eq(rbmon_clock_age(&c, c.tsc0 - (1ull << 34), &age), 0);
	ck_assert_uint_eq(age, c.now_ns - c.ns0 + (1ull << 34) * 1000000000ull);
	ck_assert_int_eq(rbmon_clock_age(&c, c.tsc0 - (1ull << 35), &age), -1);
	/* Far in the future: no age, not a wrapped one. */
	ck_assert_int_eq(rbmon_clock_age(&c, c.tsc0 + (1ull << 40), &age), 0);
	ck_assert_uint_eq(age, 0);

	/* The same from the header, through rbmon_clock_init(). */
	rb_boot_id_read(h.boot_id, sizeof h.boot_id);
	h.clock = RB_CLOCK_TSC;
	h.clock_tsc_hz = 1;
	h.clock_tsc0 = 1ull << 62;	/* after now: not calibrated */
	h.clock_ns0 = fixture_now();
	rbmon_clock_init(&c, &h);
	if (!c.valid)
		return;		/* no TSC here */
	ck_assert_int_eq(rbmon_clock_age(&c, 1, &age), -1);
}
END_TEST

Suite *
suite_model(void)
{
	Suite	*s = suite_create("model");
	TCase	*tc;

	tc = tcase_create("header");
	tcase_add_test(tc, test_header_valid);
	tcase_add_test(tc, test_dump_seeded);
	tcase_add_test(tc, test_header_corrupt);
	tcase_add_test(tc, test_open_errors);
	tcase_add_test(tc, test_open_truncated_later);
	tcase_add_test(tc, test_sigbus_race);
	suite_add_tcase(s, tc);

	tc = tcase_create("stack");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_slot_read);
	tcase_add_test(tc, test_slot_retry);
	tcase_add_test(tc, test_stack_wrap);
	tcase_add_test(tc, test_snapshot_groups);
	tcase_add_test(tc, test_pid_reuse);
	suite_add_tcase(s, tc);

	tc = tcase_create("kernel");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_kernel_threads);
	suite_add_tcase(s, tc);

	tc = tcase_create("output");
	tcase_add_test(tc, test_age_format);
	tcase_add_test(tc, test_clock);
	tcase_add_test(tc, test_clock_kinds);
	tcase_add_test(tc, test_clock_none_seen);
	tcase_add_test(tc, test_json_escape);
	tcase_add_test(tc, test_dump_symbols);
	tcase_add_test(tc, test_dump_text_exited);
	tcase_add_test(tc, test_dump_text_escaped);
	tcase_add_test(tc, test_dump_torn_gone);
	tcase_add_test(tc, test_symbols_variables);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_snapshot_empty);
	tcase_add_test(tc, test_clock_out_of_range);
	suite_add_tcase(s, tc);
	return s;
}
