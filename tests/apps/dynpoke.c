/* SPDX-License-Identifier: MIT */
/*
 * dynpoke.c - write an entry of a trace file's dynamic tracing table as
 * the library (or a hostile writer) would, for dyn-monitor.sh.
 *
 *   dynpoke FILE ENTRY PID FIELD=VALUE...
 *
 * Claims entry ENTRY for process PID: its pstart and image are copied from
 * a ring of PID (pstart=, image= override them; without a ring both must
 * be given), then the fields are set in the order given, between an odd
 * and an even gen, unless gen= is given (written last, as is).  Fields:
 * flags, sites, sites_off, off_name, off_auto, listed, objects, funcs,
 * state, gen (numbers), why (text; "why=@fill" fills all of it with 'w'
 * and no NUL, "\e" in it is an escape byte), fn=ADDR:REASON (appended to
 * the list, listed follows unless given after), fill=N:ADDR:REASON (N
 * entries, all the same).  Exit 2 on bad usage or a file it cannot use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rbtrace/format.h"

static void die(const char *msg)
{
	fprintf(stderr, "dynpoke: %s\n", msg);
	exit(2);
}

static unsigned long long num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0' || *s == '\0')
		die("bad number");
	return v;
}

/* ADDR:REASON */
static void fn_parse(char *s, struct rb_dynfn *f)
{
	char *c = strchr(s, ':');

	if (c == NULL)
		die("fn wants ADDR:REASON");
	*c = '\0';
	f->addr = num(s);
	f->reason = (uint32_t)num(c + 1);
	f->pad = 0;
}

int main(int argc, char **argv)
{
	struct rb_header *h;
	struct rb_dynproc *e;
	struct rb_ring *r;
	struct rb_owner *ow;
	struct rb_dynfn f;
	struct stat st;
	char *base, *v, *c, *w;
	uint32_t i, listed = 0, n, gen = UINT32_MAX;
	int fd, a, pid, have = 0, set_listed = 0;
	unsigned long long idx;

	if (argc < 4)
		die("usage: dynpoke FILE ENTRY PID FIELD=VALUE...");
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || fstat(fd, &st) != 0 ||
	    (size_t)st.st_size < sizeof(struct rb_header))
		die("cannot open the file");
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		die("cannot map the file");
	h = (struct rb_header *)(void *)base;
	idx = num(argv[2]);
	pid = (int)num(argv[3]);
	if (h->dyn_procs == 0 || idx >= h->dyn_procs ||
	    h->dyn_off + (idx + 1) * sizeof(*e) > (uint64_t)st.st_size)
		die("no such entry");
	e = rb_dynproc_at(base, h, (uint32_t)idx);

	__atomic_store_n(&e->gen, e->gen | 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->pid = pid;
	for (i = 0; i < h->rings; i++) {
		ow = rb_owner_at(base, h, i);
		r = rb_ring_at(base, h, i);
		if (RB_OWN_STATE(ow->ctl) == RB_OWN_LIVE && r->pid == pid) {
			e->pstart = r->pstart;
			e->image = r->image;
			have = 1;
			break;
		}
	}
	for (a = 4; a < argc; a++) {
		v = strchr(argv[a], '=');
		if (v == NULL)
			die("FIELD=VALUE expected");
		*v++ = '\0';
		if (strcmp(argv[a], "why") == 0) {
			memset(e->why, 0, sizeof(e->why));
			if (strcmp(v, "@fill") == 0) {
				memset(e->why, 'w', sizeof(e->why));
				continue;
			}
			for (i = 0, c = v; *c != '\0' && i < RB_DYN_WHY_MAX; c++) {
				if (c[0] == '\\' && c[1] == 'e') {
					e->why[i++] = '\033';
					c++;
				} else
					e->why[i++] = *c;
			}
		} else if (strcmp(argv[a], "fn") == 0) {
			fn_parse(v, &f);
			if (listed < RB_DYN_LISTED)
				e->fns[listed++] = f;
			if (!set_listed)
				e->listed = listed;
		} else if (strcmp(argv[a], "fill") == 0) {
			w = strchr(v, ':');
			if (w == NULL)
				die("fill wants N:ADDR:REASON");
			*w++ = '\0';
			n = (uint32_t)num(v);
			fn_parse(w, &f);
			while (n-- > 0 && listed < RB_DYN_LISTED)
				e->fns[listed++] = f;
			if (!set_listed)
				e->listed = listed;
		} else if (strcmp(argv[a], "pstart") == 0) {
			e->pstart = num(v);
			have |= 2;
		} else if (strcmp(argv[a], "image") == 0) {
			e->image = num(v);
			have |= 4;
		} else if (strcmp(argv[a], "flags") == 0)
			e->flags = (uint32_t)num(v);
		else if (strcmp(argv[a], "sites") == 0)
			e->sites = num(v);
		else if (strcmp(argv[a], "sites_off") == 0)
			e->sites_off = num(v);
		else if (strcmp(argv[a], "off_name") == 0)
			e->off_name = (uint32_t)num(v);
		else if (strcmp(argv[a], "off_auto") == 0)
			e->off_auto = (uint32_t)num(v);
		else if (strcmp(argv[a], "listed") == 0) {
			e->listed = (uint32_t)num(v);
			set_listed = 1;
		} else if (strcmp(argv[a], "objects") == 0)
			e->objects = (uint32_t)num(v);
		else if (strcmp(argv[a], "funcs") == 0)
			e->funcs = (uint32_t)num(v);
		else if (strcmp(argv[a], "state") == 0)
			e->state = (uint32_t)num(v);
		else if (strcmp(argv[a], "gen") == 0)
			gen = (uint32_t)num(v);
		else
			die("unknown field");
	}
	if (have != 1 && (have & 6) != 6)
		die("no ring of that pid: give pstart= and image=");
	if (e->state == RB_DYNP_FREE)
		e->state = RB_DYNP_CLAIMED;
	/* Even again, or as asked: publishes the fields written above. */
	__atomic_store_n(&e->gen, gen != UINT32_MAX ? gen : (e->gen | 1) + 1,
			 __ATOMIC_RELEASE);
	munmap(base, (size_t)st.st_size);
	close(fd);
	return 0;
}
