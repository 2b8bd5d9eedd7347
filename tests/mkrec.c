/* SPDX-License-Identifier: MIT */
/*
 * mkrec - craft a recording (rbtrace(5), "RECORDINGS") of a given shape,
 * for the readers' tests and the recording fuzzer's seeds.
 *
 *   mkrec [-c mono|tsc|slow|none] [-ELMNO] [-F ADDR] [-P PATH] -o FILE SHAPE N
 *
 * Shapes:
 *   images N   N threads, each in a process image of its own, one call each
 *   threads N  N threads of one process, each a small call tree
 *   deep N     one thread, N nested calls of one function
 *   funcs N    one thread calling N different functions
 *
 * Options:
 *   -c CLOCK   the records' clock (mono); slow: a counter of one tick a
 *              second by the file's word, at 2^40 ticks: times no 64-bit
 *              count of nanoseconds holds
 *   -E         no END chunk (a recorder killed)
 *   -F ADDR    the first function's address (0x401000; the others 16
 *              bytes apart): where -P's file has one
 *   -L         a LOST chunk in every thread, halfway through its calls
 *   -M         threads end mid-call: their calls are never left
 *   -N         no THREAD_END chunks
 *   -O         an OBJECT chunk for every process image, naming -P PATH
 *              (default a file that does not exist) with its build-id, as
 *              the recorder would record it
 *
 * Records are written with the recorder's own encoder (recfile.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include "monitor/history/recfile.h"

#define MK_FN		0x401000ull	/* the first function by default */
#define MK_T0		1000000000ull	/* the first record's time, ns */
#define MK_STEP		50		/* ns between records */

struct mk {
	struct rbrec_writer w;
	uint32_t	 clock;
	int		 slow;
	int		 no_end, lost, midcall, no_thread_end, objects;
	uint64_t	 fn;		/* the first function */
	const char	*path;
	unsigned char	 build_id[RB_BUILD_ID_MAX];
	uint32_t	 build_id_len;
	uint32_t	 streams;
	uint64_t	 records, nlost, ts;
	struct rb_event	*ev;
	size_t		 nev, capev;
};

/* The build-id of the ELF file @path, if it has one and can be read. */
static void
mk_build_id(struct mk *m, const char *path)
{
	const void	*bits;
	ssize_t		 len;
	Elf		*elf;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	len = elf != NULL ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
	if (len > 0 && (size_t)len <= sizeof m->build_id) {
		memcpy(m->build_id, bits, (size_t)len);
		m->build_id_len = (uint32_t)len;
	}
	if (elf != NULL)
		elf_end(elf);
	close(fd);
}

static void __attribute__((noreturn))
mk_usage(void)
{
	fputs("usage: mkrec [-c mono|tsc|slow|none] [-ELMNO] [-F ADDR] [-P PATH] "
	    "-o FILE "
	    "images|threads|deep|funcs N\n", stderr);
	exit(2);
}

static void
mk_check(struct mk *m)
{
	if (m->w.err != 0) {
		fprintf(stderr, "mkrec: %s: %s\n", m->w.path,
		    strerror(m->w.err));
		exit(1);
	}
}

static void
mk_event(struct mk *m, uint32_t kind, uint64_t fn, uint64_t arg)
{
	struct rb_event	*e;

	if (m->nev == m->capev) {
		m->capev = m->capev == 0 ? 1024 : m->capev * 2;
		m->ev = realloc(m->ev, m->capev * sizeof *m->ev);
		if (m->ev == NULL) {
			fputs("mkrec: out of memory\n", stderr);
			exit(1);
		}
	}
	e = &m->ev[m->nev++];
	memset(e, 0, sizeof *e);
	m->ts += m->clock == RB_CLOCK_NONE ? 1 : MK_STEP;
	e->ts = m->ts;
	e->fn = fn;
	e->arg = arg;
	e->kind = kind;
}

static void
mk_enter(struct mk *m, uint64_t fn)
{
	mk_event(m, RB_EV_ENTRY, fn, fn + 0x20);
}

static void
mk_leave(struct mk *m, uint64_t fn)
{
	if (!m->midcall)
		mk_event(m, RB_EV_EXIT, fn, 0);
}

static void
mk_info(struct mk *m)
{
	struct rbrec_info	i;
	struct rbrec_clock	c;

	memset(&i, 0, sizeof i);
	snprintf(i.program, sizeof i.program, "mkrec");
	snprintf(i.trace, sizeof i.trace, "/tmp/mkrec.trace");
	i.clock = m->clock;
	i.policy = RB_POLICY_DRAIN;
	i.events = 4096;
	i.rings = 64;
	i.creator_pid = 1000;
	i.recorder_pid = 999;
	i.start_ns = MK_T0;
	if (m->slow) {
		/* No pair but the file's: its rate is all there is. */
		i.clock_tsc0 = 1;
		i.clock_ns0 = 1;
		i.clock_tsc_hz = 1;
	} else if (m->clock == RB_CLOCK_TSC) {
		/* 2 ticks a ns, the trace file's pair at the start. */
		i.clock_tsc0 = 2 * MK_T0;
		i.clock_ns0 = MK_T0;
		i.clock_tsc_hz = 2000000000ull;
	}
	rbrec_put(&m->w, RBREC_INFO, &i, sizeof i, NULL, 0);
	if (m->clock == RB_CLOCK_TSC && !m->slow) {
		c.tsc = 2 * MK_T0;
		c.ns = MK_T0;
		rbrec_put(&m->w, RBREC_CLOCK, &c, sizeof c, NULL, 0);
	}
	m->ts = m->slow ? 1ull << 40 : m->clock == RB_CLOCK_TSC ? 2 * MK_T0 :
	    m->clock == RB_CLOCK_NONE ? 0 : MK_T0;
}

static void
mk_object(struct mk *m, uint64_t image)
{
	struct rbrec_object	o;

	memset(&o, 0, sizeof o);
	o.image = image;
	o.lo = 0x1000;
	o.hi = m->fn + 0x100000;
	o.flags = RB_OBJF_MAIN;
	snprintf(o.path, sizeof o.path, "%s", m->path);
	memcpy(o.build_id, m->build_id, m->build_id_len);
	o.build_id_len = m->build_id_len;
	rbrec_put(&m->w, RBREC_OBJECT, &o, sizeof o, NULL, 0);
}

static uint32_t
mk_thread(struct mk *m, int32_t pid, int32_t tid, uint64_t image)
{
	struct rbrec_thread	t;

	memset(&t, 0, sizeof t);
	t.stream = ++m->streams;
	t.ring = (t.stream - 1) % 64;
	t.pid = pid;
	t.tid = tid;
	t.ppid = 1;
	t.image = image;
	t.pstart = 100;
	t.created_ns = MK_T0;
	snprintf(t.name, sizeof t.name, "t%u", t.stream);
	rbrec_put(&m->w, RBREC_THREAD, &t, sizeof t, NULL, 0);
	m->nev = 0;
	return t.stream;
}

/* The thread's records so far, from index @first; a LOST chunk after. */
static uint64_t
mk_flush(struct mk *m, uint32_t stream, uint64_t first, int lose)
{
	struct rbrec_lost	l;

	rbrec_put_events(&m->w, stream, first, m->ev, m->nev);
	m->records += m->nev;
	first += m->nev;
	m->nev = 0;
	if (lose) {
		memset(&l, 0, sizeof l);
		l.stream = stream;
		l.why = RBREC_LOST_OVERWRITTEN;
		l.count = 7;
		l.at = first;
		rbrec_put(&m->w, RBREC_LOST, &l, sizeof l, NULL, 0);
		m->nlost += l.count;
		first += l.count;
	}
	return first;
}

static void
mk_thread_end(struct mk *m, uint32_t stream, uint64_t next)
{
	struct rbrec_thread_end	e;

	if (m->no_thread_end)
		return;
	memset(&e, 0, sizeof e);
	e.stream = stream;
	e.next = next;
	e.exited_ns = MK_T0 + 1000000000ull;
	snprintf(e.name, sizeof e.name, "end%u", stream);
	rbrec_put(&m->w, RBREC_THREAD_END, &e, sizeof e, NULL, 0);
}

/* One thread's calls: main() { a() { b(); } c(); }, LOST halfway. */
static void
mk_small(struct mk *m, uint32_t stream)
{
	uint64_t	next;

	mk_enter(m, m->fn);
	mk_enter(m, m->fn + 16);
	mk_enter(m, m->fn + 32);
	mk_leave(m, m->fn + 32);
	next = mk_flush(m, stream, 0, m->lost);
	mk_leave(m, m->fn + 16);
	mk_enter(m, m->fn + 48);
	mk_leave(m, m->fn + 48);
	mk_leave(m, m->fn);
	mk_thread_end(m, stream, mk_flush(m, stream, next, 0));
}

int
main(int argc, char **argv)
{
	int			fd;
	struct rbrec_end	e;
	struct mk		m;
	const char		*out = NULL, *shape;
	unsigned long		n, i;
	uint32_t		s;
	uint64_t		next;
	char			*end;
	int			ch;

	memset(&m, 0, sizeof m);
	m.clock = RB_CLOCK_MONO;
	m.fn = MK_FN;
	m.path = "/nonexistent/mkrec/prog";
	while ((ch = getopt(argc, argv, "c:EF:LMNOP:o:")) != -1) {
		switch (ch) {
		case 'c':
			if (strcmp(optarg, "mono") == 0)
				m.clock = RB_CLOCK_MONO;
			else if (strcmp(optarg, "tsc") == 0)
				m.clock = RB_CLOCK_TSC;
			else if (strcmp(optarg, "slow") == 0) {
				m.clock = RB_CLOCK_TSC;
				m.slow = 1;
			}
			else if (strcmp(optarg, "none") == 0)
				m.clock = RB_CLOCK_NONE;
			else
				mk_usage();
			break;
		case 'E': m.no_end = 1; break;
		case 'F':
			errno = 0;
			m.fn = strtoull(optarg, &end, 0);
			if (errno != 0 || *end != '\0' || m.fn < 0x1000)
				mk_usage();
			break;
		case 'L': m.lost = 1; break;
		case 'M': m.midcall = 1; break;
		case 'N': m.no_thread_end = 1; break;
		case 'O': m.objects = 1; break;
		case 'P': m.path = optarg; mk_build_id(&m, optarg); break;
		case 'o': out = optarg; break;
		default: mk_usage();
		}
	}
	if (out == NULL || optind + 2 != argc)
		mk_usage();
	shape = argv[optind];
	errno = 0;
	n = strtoul(argv[optind + 1], &end, 10);
	if (errno != 0 || *end != '\0' || n == 0 || n > 100000000)
		mk_usage();

	/* The writer, on a file of its own (this tool writes what it is told). */
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || rbrec_open_write(&m.w, fd, out, 0) != 0) {
		fprintf(stderr, "mkrec: %s: %s\n", out, strerror(errno));
		return 1;
	}
	mk_check(&m);
	mk_info(&m);

	if (strcmp(shape, "images") == 0) {
		for (i = 0; i < n; i++) {
			if (m.objects)
				mk_object(&m, i + 1);
			s = mk_thread(&m, (int32_t)(1000 + i),
			    (int32_t)(1000 + i), i + 1);
			mk_enter(&m, m.fn);
			mk_leave(&m, m.fn);
			next = mk_flush(&m, s, 0, m.lost);
			mk_thread_end(&m, s, next);
		}
	} else if (strcmp(shape, "threads") == 0) {
		if (m.objects)
			mk_object(&m, 1);
		for (i = 0; i < n; i++)
			mk_small(&m, mk_thread(&m, 1000, (int32_t)(1000 + i), 1));
	} else if (strcmp(shape, "deep") == 0) {
		if (m.objects)
			mk_object(&m, 1);
		s = mk_thread(&m, 1000, 1000, 1);
		for (i = 0; i < n; i++)
			mk_enter(&m, m.fn);
		next = mk_flush(&m, s, 0, m.lost);
		for (i = 0; i < n; i++)
			mk_leave(&m, m.fn);
		mk_thread_end(&m, s, mk_flush(&m, s, next, 0));
	} else if (strcmp(shape, "funcs") == 0) {
		if (m.objects)
			mk_object(&m, 1);
		s = mk_thread(&m, 1000, 1000, 1);
		next = 0;
		mk_enter(&m, m.fn);
		for (i = 0; i < n; i++) {
			mk_enter(&m, m.fn + 16 * (i + 1));
			mk_leave(&m, m.fn + 16 * (i + 1));
			if (i == n / 2)
				next = mk_flush(&m, s, next, m.lost);
		}
		mk_leave(&m, m.fn);
		mk_thread_end(&m, s, mk_flush(&m, s, next, 0));
	} else {
		mk_usage();
	}

	if (!m.no_end) {
		memset(&e, 0, sizeof e);
		e.reason = RBREC_END_EXITED;
		e.streams = m.streams;
		e.records = m.records;
		e.lost = m.nlost;
		e.end_ns = MK_T0 + 2000000000ull;
		e.bytes = m.w.bytes + 8 + sizeof e;
		rbrec_put(&m.w, RBREC_END, &e, sizeof e, NULL, 0);
	}
	mk_check(&m);
	if (rbrec_close_write(&m.w) != 0)
		mk_check(&m);
	free(m.ev);
	return 0;
}
