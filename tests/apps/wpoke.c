/* SPDX-License-Identifier: MIT */
/*
 * wpoke.c - write into a live trace file as a hostile (or careless) writer
 * would, and read what the program answered, for watch-hostile.
 *
 *   wpoke FILE TID ENTRY FIELD=VALUE...   set fields of a watch entry, in
 *                                         the order given
 *   wpoke FILE TID ENTRY get              print the entry
 *   wpoke FILE header FIELD=VALUE...      set header fields
 *   wpoke FILE gma N                      print the GMA's owner, position,
 *                                         length and first N bytes, at the
 *                                         offset the layout gives
 *
 * Entry fields: inuse, exprlength, resready, reslength (numbers), expr
 * (text, "\0" a NUL byte), kick (set the watch bit in attention, bump
 * wake and wake the thread, as a monitor does).  Header fields: gma_off,
 * global_sz.  The ring is the one whose owner is live with thread TID.
 * get prints "inuse I exprlength L resready R reslength N result TEXT",
 * TEXT with bytes outside printable ASCII as \ooo, cut at |reslength| and
 * 512 bytes.  Exit 2 on bad usage or a file it cannot use.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rbtrace/format.h"

static void die(const char *msg)
{
	fprintf(stderr, "wpoke: %s\n", msg);
	exit(2);
}

static long long num(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno != 0 || *end != '\0')
		die("bad number");
	return v;
}

static struct rb_ring *find_ring(char *base, uint64_t size, pid_t tid)
{
	struct rb_header *h = (struct rb_header *)(void *)base;
	uint32_t i;

	for (i = 0; i < h->rings; i++) {
		uint64_t off = h->rings_off + (uint64_t)i * h->ring_size;
		struct rb_owner *o = rb_owner_at(base, h, i);
		struct rb_ring *r;

		if (off + sizeof(*r) > size)
			break;
		r = (struct rb_ring *)(void *)(base + off);
		if (RB_OWN_STATE(__atomic_load_n(&o->ctl, __ATOMIC_ACQUIRE)) == RB_OWN_LIVE &&
		    r->tid == tid)
			return r;
	}
	die("no live ring of that thread");
	return NULL;
}

static void put_text(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			printf("\\%03o", c);
		else
			putchar(c);
	}
}

static void set_entry(struct rb_ring *r, struct rb_watch *w, const char *arg)
{
	const char *v = strchr(arg, '=');
	size_t k = v != NULL ? (size_t)(v - arg) : strlen(arg);

	if (k == 4 && strncmp(arg, "kick", 4) == 0) {
		__atomic_fetch_or(&r->attention, RB_ATTN_WATCH, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&r->wake, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &r->wake, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
		return;
	}
	if (v == NULL)
		die("FIELD=VALUE expected");
	v++;
	if (k == 5 && strncmp(arg, "inuse", 5) == 0)
		__atomic_store_n(&w->inuse, (int32_t)num(v), __ATOMIC_RELEASE);
	else if (k == 10 && strncmp(arg, "exprlength", 10) == 0)
		__atomic_store_n(&w->exprlength, (int32_t)num(v), __ATOMIC_RELAXED);
	else if (k == 8 && strncmp(arg, "resready", 8) == 0)
		__atomic_store_n(&w->resready, (int32_t)num(v), __ATOMIC_RELEASE);
	else if (k == 9 && strncmp(arg, "reslength", 9) == 0)
		__atomic_store_n(&w->reslength, (int32_t)num(v), __ATOMIC_RELAXED);
	else if (k == 4 && strncmp(arg, "expr", 4) == 0) {
		size_t n = 0;

		while (*v != '\0' && n < RB_EXPR_MAX) {
			if (v[0] == '\\' && v[1] == '0') {
				w->expr[n++] = '\0';
				v += 2;
			} else {
				w->expr[n++] = *v++;
			}
		}
	} else
		die("unknown entry field");
}

int main(int argc, char **argv)
{
	struct stat st;
	struct rb_header *h;
	char *base;
	int fd, i;

	if (argc < 4)
		die("usage: wpoke FILE TID ENTRY FIELD=VALUE... | FILE TID ENTRY get | FILE header FIELD=VALUE... | FILE gma N");
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(*h))
		die("cannot open the file");
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	if (base == MAP_FAILED)
		die("cannot map the file");
	h = (struct rb_header *)(void *)base;
	if (strcmp(argv[2], "header") == 0) {
		for (i = 3; i < argc; i++) {
			if (strncmp(argv[i], "gma_off=", 8) == 0)
				__atomic_store_n(&h->gma_off, (uint64_t)num(argv[i] + 8),
						 __ATOMIC_RELAXED);
			else if (strncmp(argv[i], "global_sz=", 10) == 0)
				__atomic_store_n(&h->global_sz, (uint32_t)num(argv[i] + 10),
						 __ATOMIC_RELAXED);
			else
				die("unknown header field");
		}
		return 0;
	}
	if (strcmp(argv[2], "gma") == 0) {
		uint64_t off = RB_ALIGN(sizeof(*h), RB_CACHELINE);
		long long n = num(argv[3]);

		if (n < 0 || off + (uint64_t)n > (uint64_t)st.st_size)
			die("bad length");
		printf("owner %#x pos %llu len %u text ",
		       __atomic_load_n(&h->gma_owner, __ATOMIC_ACQUIRE),
		       (unsigned long long)h->gma_pos, h->gma_len);
		put_text(base + off, (size_t)n);
		putchar('\n');
		return 0;
	}
	{
		struct rb_ring *r = find_ring(base, (uint64_t)st.st_size,
					      (pid_t)num(argv[2]));
		long long e = num(argv[3]);
		struct rb_watch *w;

		if (e < 0 || e >= RB_WATCHES)
			die("bad entry");
		w = &r->watches[e];
		if (argc == 5 && strcmp(argv[4], "get") == 0) {
			int32_t rl = __atomic_load_n(&w->reslength, __ATOMIC_RELAXED);
			int32_t rr = __atomic_load_n(&w->resready, __ATOMIC_ACQUIRE);
			size_t n = rl < 0 ? (size_t)-(int64_t)rl : (size_t)rl;

			if (n > RB_RESULT_MAX)
				n = RB_RESULT_MAX;
			printf("inuse %d exprlength %d resready %d reslength %d result ",
			       __atomic_load_n(&w->inuse, __ATOMIC_ACQUIRE),
			       w->exprlength, rr, rl);
			put_text(w->result, n);
			putchar('\n');
			return 0;
		}
		for (i = 4; i < argc; i++)
			set_entry(r, w, argv[i]);
	}
	return 0;
}
