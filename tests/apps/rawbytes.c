/* SPDX-License-Identifier: MIT */
/*
 * rawbytes.c - a traced program that puts terminal control sequences
 * wherever a program can: a thread's name (prctl), a named frame
 * (rbtrace_push, found with dlsym under LD_PRELOAD) and, written into its
 * own trace file as a hostile writer would, the header's program name, its
 * main object's path, and the answers and watch values of a thread that
 * passes no hook ("mute"): main answers in its place.
 *
 *   rawbytes [-f PATH]	-f: another object's path becomes PATH (a FIFO)
 *
 * Ready lines: "thread busy TID", "thread mute TID", "rawbytes PID FILE".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/futex.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

#include "app.h"
#include "rbtrace/format.h"

/* C0 (ESC, BEL, CR, LF, DEL), C1 (U+009B CSI, U+0085 NEL) and a lone 0x9b. */
#define EVIL_THREAD	"\033]2;T\a\033[2J\xc2\x9b"
#define EVIL_PROGRAM	"\033]2;P\a\033[2J\x7f\xc2\x85prog"
#define EVIL_OBJECT	"/nonexistent/\033]2;O\a\033[2J\x9b.bin"
#define EVIL_FUNCTION	"\033]2;F\a\033[31mfn"
#define EVIL_FILE	"\033[2Jsrc\x9b.c"
#define EVIL_ANSWER	"\033]2;A\a\033[2J pong\r\n\xc2\x9b"
#define EVIL_VALUE	"\033]2;V\a\033[2J\x07"
#define EVIL_ERROR	"\033]2;E\a\033[2J error"

static int fds[2];
static pthread_barrier_t up;
static long mute_tid;

static void busy_tick(void)
{
	__asm__ volatile("" ::: "memory");
}

static void *busy_main(void *arg)
{
	struct timespec ts = { 0, 10000000 };

	(void)arg;
	prctl(PR_SET_NAME, EVIL_THREAD, 0, 0, 0);
	app_ready("thread busy %ld", (long)syscall(SYS_gettid));
	pthread_barrier_wait(&up);
	for (;;) {
		busy_tick();	/* hooks: commands and watches are served */
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void mute_block(void)
{
	char c;

	while (read(fds[0], &c, 1) < 0)
		;
}

static void *mute_main(void *arg)
{
	int (*push)(const char *, const char *, int);

	(void)arg;
	*(void **)&push = dlsym(RTLD_DEFAULT, "rbtrace_push");
	if (push == NULL || push(EVIL_FUNCTION, EVIL_FILE, 7) < 1)
		_exit(3);
	mute_tid = (long)syscall(SYS_gettid);
	app_ready("thread mute %ld", mute_tid);
	pthread_barrier_wait(&up);
	mute_block();
	return NULL;
}

NOTRACE static void put(char *dst, size_t size, const char *s)
{
	memset(dst, 0, size);
	strncpy(dst, s, size - 1);
}

/* What librbtrace would do for the mute thread, answers made up. */
NOTRACE static void answer(struct rb_header *h, struct rb_ring *r)
{
	int32_t st = RB_CMD_POSTED, in;
	struct rb_watch *w;
	size_t n;
	int i;

	if (__atomic_compare_exchange_n(&r->cmdready, &st, RB_CMD_TAKEN, 0,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		n = strlen(EVIL_ANSWER);
		memcpy(r->command, "OK  ", 4);
		memcpy(rb_ring_msgarea(h, r), EVIL_ANSWER, n);
		r->msglen = (int32_t)n;
		/* Release: the answer before RESPONSE, as librbtrace's. */
		__atomic_store_n(&r->cmdready, RB_CMD_RESPONSE, __ATOMIC_RELEASE);
		syscall(SYS_futex, &r->cmdready, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
	}
	for (i = 0; i < RB_WATCHES; i++) {
		w = &r->watches[i];
		in = __atomic_load_n(&w->inuse, __ATOMIC_ACQUIRE);
		if (in == RB_WATCH_REMOVING) {
			__atomic_store_n(&w->inuse, RB_WATCH_FREE, __ATOMIC_RELEASE);
			continue;
		}
		if (in != RB_WATCH_SET ||
		    __atomic_load_n(&w->resready, __ATOMIC_ACQUIRE) != 0)
			continue;
		if (strcmp(w->expr, "v") == 0) {
			put(w->result, sizeof(w->result), EVIL_VALUE);
			w->reslength = (int32_t)strlen(EVIL_VALUE);
		} else {
			put(w->result, sizeof(w->result), EVIL_ERROR);
			w->reslength = -(int32_t)strlen(EVIL_ERROR);
		}
		__atomic_store_n(&w->resready, 1, __ATOMIC_RELEASE);
	}
}

NOTRACE int main(int argc, char **argv)
{
	const char *(*file_of)(void), *fifo = NULL, *file;
	struct timespec ts = { 0, 2000000 };
	struct rb_ring *mute = NULL, *r;
	struct rb_object *o;
	struct rb_header *h;
	pthread_t a, b;
	struct stat st;
	uint32_t i;
	void *base;
	int fd;

	if (argc == 3 && strcmp(argv[1], "-f") == 0)
		fifo = argv[2];
	if (pipe(fds) < 0)
		return 2;
	pthread_barrier_init(&up, NULL, 3);
	busy_tick();	/* the first hook creates the trace file */
	if (pthread_create(&a, NULL, busy_main, NULL) != 0 ||
	    pthread_create(&b, NULL, mute_main, NULL) != 0)
		return 2;
	pthread_barrier_wait(&up);
	*(void **)&file_of = dlsym(RTLD_DEFAULT, "rbtrace_file");
	file = file_of != NULL ? file_of() : NULL;
	if (file == NULL)
		return 4;
	fd = open(file, O_RDWR);
	if (fd < 0 || fstat(fd, &st) != 0)
		return 5;
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return 5;
	h = base;
	put(h->program, sizeof(h->program), EVIL_PROGRAM);
	for (i = 0; i < h->objects; i++) {
		o = rb_object_at(base, h, i);
		if (o->state != RB_OBJ_VALID || o->pid != getpid())
			continue;
		if (o->flags & RB_OBJF_MAIN) {
			put(o->path, sizeof(o->path), EVIL_OBJECT);
		} else if (fifo != NULL && o->path[0] == '/') {
			put(o->path, sizeof(o->path), fifo);
			fifo = NULL;
		}
	}
	for (i = 0; i < h->rings; i++) {
		r = rb_ring_at(base, h, i);
		if (RB_OWN_STATE(rb_owner_at(base, h, i)->ctl) == RB_OWN_LIVE &&
		    r->pid == getpid() && r->tid == mute_tid)
			mute = r;
	}
	if (mute == NULL)
		return 6;
	app_ready("rawbytes %d %s", (int)getpid(), file);
	for (;;) {
		answer(h, mute);
		nanosleep(&ts, NULL);
	}
}
