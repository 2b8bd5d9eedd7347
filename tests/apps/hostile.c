/* SPDX-License-Identifier: MIT */
/*
 * hostile.c - a stray writer, for the tests of what a traced program
 * survives.  It writes header and ring fields of a live trace file
 * directly, and speaks the command handshake itself from the geometry it
 * validated first, so it keeps working while the header says nonsense.
 *
 *   hostile [-s SAVE] FILE TID STEP...
 *
 * With -s, the header as validated is saved to SAVE, or taken from SAVE
 * when that exists (the file's own header may say nonsense by then).
 *
 *   hdr NAME=VALUE     store VALUE in header field NAME (in its width);
 *                      VALUE "+N" is CLOCK_MONOTONIC now + N nanoseconds
 *   ring NAME=VALUE    the same in thread TID's ring
 *   log NAME=VALUE     the same in thread TID's event log (struct rb_evlog)
 *   send CMD ARGS      post CMD (up to four letters) with ARGS (one word,
 *                      maybe empty) to TID and print its answer: "OK TEXT"
 *                      or "ERR TEXT", the whole text (message area, then
 *                      the global area)
 *   post CMD LEN ARGS  the same, with LEN in msglen whatever ARGS' length
 *   restore            put back the header fields that say the layout
 *   scribble AREA SEED N  random bytes into AREA (capfn: the armed table,
 *                      cap: the captures): all of it, then N rounds of
 *                      256 random runs of 1 to 64 bytes
 *
 * Exit status: 0; 1 when a command found the area busy or got no answer
 * within 10 s; 2 on a usage error or a file that is no valid trace file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rbtrace/format.h"

struct field {
	const char	*name;
	size_t		 off, size;
	int		 layout;	/* restored by "restore" */
};

#define HF(f, l) { #f, offsetof(struct rb_header, f), \
		   sizeof(((struct rb_header *)0)->f), l }
#define RF(f) { #f, offsetof(struct rb_ring, f), \
		sizeof(((struct rb_ring *)0)->f), 0 }
#define LF(f) { #f, offsetof(struct rb_evlog, f), \
		sizeof(((struct rb_evlog *)0)->f), 0 }

static const struct field hdr_fields[] = {
	HF(version, 1), HF(header_size, 1), HF(total_size, 1), HF(endian, 1),
	HF(rings, 1), HF(slots, 1), HF(slot_sz, 1), HF(msg_sz, 1),
	HF(global_sz, 1), HF(objects, 1), HF(ring_size, 1), HF(slot_size, 1),
	HF(gma_off, 1), HF(owners_off, 1), HF(objects_off, 1),
	HF(rings_off, 1), HF(slots_off, 1), HF(msgarea_off, 1), HF(clock, 1),
	HF(bpfilter_off, 1), HF(bps_off, 1), HF(bps, 1), HF(bpfilter_bits, 1),
	HF(dyn_off, 1), HF(dyn_procs, 1),
	HF(capfn_off, 1), HF(cap_off, 1), HF(capfns, 1), HF(caps, 1),
	HF(pinned, 1),
	HF(single, 0), HF(stop_on_create, 0), HF(trace_on_create, 0),
	HF(monitor_heartbeat_ns, 0), HF(gma_len, 0), HF(gma_owner, 0),
	HF(gma_pos, 0), HF(next_image, 0),
	HF(snap_state, 0), HF(snap_gen, 0), HF(snap_writer, 0), HF(snap_pid, 0),
	HF(snap_tid, 0), HF(snap_reason, 0), HF(snap_fn, 0), HF(snap_arg, 0),
	HF(snap_ts, 0), HF(snap_ns, 0), HF(snap_interval_ns, 0),
	HF(snap_taken, 0), HF(snap_written, 0), HF(snap_missed, 0),
	HF(snap_suppressed, 0),
	HF(min_duration, 0), HF(min_duration_ns, 0),
};

static const struct field ring_fields[] = {
	RF(pid), RF(tid), RF(state), RF(why), RF(stop_ns), RF(stops),
	RF(currSlot), RF(depth), RF(trace), RF(signal), RF(attention),
	RF(wake), RF(cmdready), RF(msglen), RF(cmdpid),
};

static const struct field log_fields[] = {
	LF(head), LF(dropped), LF(pending_lost), LF(off), LF(stalled),
	LF(rewinds), LF(peak), LF(min_duration), LF(tail), LF(waiting),
};

static char *base;
static struct rb_header geo;	/* as validated at the start */
static struct rb_ring *ring;
static uint32_t ring_index;

static void usage(const char *why)
{
	fprintf(stderr, "hostile: %s\n", why);
	exit(2);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const struct field *field_find(const struct field *t, size_t n,
				      const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(t[i].name) == len && strncmp(t[i].name, name, len) == 0)
			return &t[i];
	return NULL;
}

static void field_put(char *at, const struct field *f, uint64_t v)
{
	uint32_t v32 = (uint32_t)v;

	if (f->size == 8)
		__atomic_store_n((uint64_t *)(at + f->off), v, __ATOMIC_SEQ_CST);
	else
		__atomic_store_n((uint32_t *)(at + f->off), v32, __ATOMIC_SEQ_CST);
}

/* "NAME=VALUE" into the struct at @at described by @t. */
static void assign(char *at, const struct field *t, size_t n, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const struct field *f;
	char *end;
	uint64_t v;
	int rel;

	if (eq == NULL)
		usage("expected NAME=VALUE");
	f = field_find(t, n, arg, (size_t)(eq - arg));
	if (f == NULL)
		usage("unknown field");
	rel = eq[1] == '+';
	errno = 0;
	v = strtoull(eq + 1 + rel, &end, 0);
	if (errno != 0 || *end != '\0' || end == eq + 1 + rel) {
		/* negative values as their two's complement */
		v = (uint64_t)strtoll(eq + 1, &end, 0);
		if (*end != '\0')
			usage("bad value");
	}
	field_put(at, f, rel ? mono_ns() + v : v);
}

static void restore(void)
{
	size_t i;

	for (i = 0; i < sizeof(hdr_fields) / sizeof(hdr_fields[0]); i++) {
		const struct field *f = &hdr_fields[i];
		uint64_t v = 0;

		if (!f->layout)
			continue;
		memcpy(&v, (char *)&geo + f->off, f->size);
		field_put(base, f, v);
	}
}

static struct rb_ring *ring_find(int32_t tid)
{
	struct rb_ring *best = NULL;
	uint32_t i;

	for (i = 0; i < geo.rings; i++) {
		struct rb_owner *o = rb_owner_at(base, &geo, i);
		struct rb_ring *r = rb_ring_at(base, &geo, i);

		if (RB_OWN_STATE(__atomic_load_n(&o->ctl, __ATOMIC_ACQUIRE)) !=
		    RB_OWN_LIVE || r->tid != tid)
			continue;
		if (best == NULL || r->created_ns >= best->created_ns) {
			best = r;
			ring_index = i;
		}
	}
	return best;
}

/* Post @cmd with @args, msglen @len; print the answer. */
static int post(const char *cmd, const char *args, int32_t len)
{
	struct rb_header *h = (struct rb_header *)base;
	char *area = rb_ring_msgarea(&geo, ring), *gma = base + geo.gma_off;
	int32_t expect = RB_CMD_EMPTY, n;
	uint32_t me = ring_index + 1, glen;
	uint64_t deadline;
	char word[4] = "    ", *text;
	size_t have, more = 0;

	memcpy(word, cmd, strlen(cmd) < 4 ? strlen(cmd) : 4);
	if (strlen(args) > geo.msg_sz)
		usage("arguments longer than the message area");
	if (!__atomic_compare_exchange_n(&ring->cmdready, &expect,
	    RB_CMD_WRITING, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		printf("BUSY %d\n", (int)expect);
		return 1;
	}
	memcpy(ring->command, word, 4);
	memcpy(area, args, strlen(args));
	ring->msglen = len;
	ring->cmdpid = (int32_t)getpid();
	/* The command before POSTED, as a monitor does (rbtrace(5)). */
	__atomic_store_n(&ring->cmdready, RB_CMD_POSTED, __ATOMIC_RELEASE);
	__atomic_fetch_or(&ring->attention, RB_ATTN_COMMAND, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&ring->wake, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &ring->wake, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);

	deadline = mono_ns() + 10 * 1000000000ull;
	while (__atomic_load_n(&ring->cmdready, __ATOMIC_ACQUIRE) !=
	       RB_CMD_RESPONSE) {
		if (mono_ns() > deadline) {
			printf("TIMEOUT\n");
			return 1;
		}
		usleep(1000);
	}
	n = ring->msglen;
	if (n < 0 || n > 1 << 20)
		n = 0;
	/* MORE OFFSET ...: the window starts there; an error is all of it. */
	if (memcmp(word, "MORE", 4) == 0 && memcmp(ring->command, "OK  ", 4) == 0) {
		unsigned long off = strtoul(args, NULL, 10);

		n = off < (unsigned long)n ? n - (int32_t)off : 0;
	}
	text = calloc(1, (size_t)n + 1);
	if (text == NULL)
		exit(2);
	have = (size_t)n < geo.msg_sz ? (size_t)n : geo.msg_sz;
	memcpy(text, area, have);
	if (have < (size_t)n &&
	    __atomic_load_n(&h->gma_owner, __ATOMIC_ACQUIRE) == me &&
	    __atomic_load_n(&h->gma_pos, __ATOMIC_RELAXED) == geo.msg_sz) {
		glen = __atomic_load_n(&h->gma_len, __ATOMIC_RELAXED);
		if (glen > geo.global_sz)
			glen = geo.global_sz;
		more = (size_t)n - have < glen ? (size_t)n - have : glen;
		memcpy(text + have, gma, more);
	}
	text[have + more] = '\0';
	printf("%s %s\n", memcmp(ring->command, "OK  ", 4) == 0 ? "OK" : "ERR",
	       text);
	free(text);
	__atomic_compare_exchange_n(&h->gma_owner, &me, 0, 0, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
	/* Our reads before the area is free again. */
	__atomic_store_n(&ring->cmdready, RB_CMD_EMPTY, __ATOMIC_RELEASE);
	return 0;
}

/* The header to work from: @save's copy, or the file's, saved there. */
static void geo_load(int fd, const char *save)
{
	int sfd = save != NULL ? open(save, O_RDONLY | O_CLOEXEC) : -1;
	const char *what;
	struct stat st;
	uint64_t value;

	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(geo))
		usage("not a trace file");
	if (sfd >= 0) {
		if (read(sfd, &geo, sizeof(geo)) != (ssize_t)sizeof(geo))
			usage("cannot read the saved header");
		close(sfd);
	} else if (pread(fd, &geo, sizeof(geo), 0) != (ssize_t)sizeof(geo)) {
		usage("cannot read the header");
	}
	if (memcmp(geo.magic, RB_MAGIC, RB_MAGIC_LEN) != 0 ||
	    geo.version != RB_VERSION || geo.total_size != (uint64_t)st.st_size ||
	    rb_header_check_layout(&geo, &what, &value) != 0)
		usage("not a valid trace file");
	if (save != NULL && sfd < 0) {
		sfd = open(save, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (sfd < 0 || write(sfd, &geo, sizeof(geo)) != (ssize_t)sizeof(geo))
			usage("cannot save the header");
		close(sfd);
	}
}

/* The armed table or the captures, filled with random bytes, then hit at random. */
static void scribble(const char *area, unsigned seed, long rounds)
{
	unsigned char *a;
	size_t size, off, len, k;
	long r;

	if (strcmp(area, "capfn") == 0) {
		a = (unsigned char *)rb_capfn_at(base, &geo, 0);
		size = (size_t)RB_CAP_FNS * sizeof(struct rb_capfn);
	} else if (strcmp(area, "cap") == 0) {
		a = (unsigned char *)rb_capture_at(base, &geo, 0);
		size = (size_t)RB_CAP_SLOTS * sizeof(struct rb_capture);
	} else {
		usage("scribble: capfn or cap");
	}
	srandom(seed);
	for (off = 0; off < size; off++)
		a[off] = (unsigned char)random();
	for (r = 0; r < rounds; r++)
		for (k = 0; k < 256; k++) {
			off = (size_t)random() % size;
			len = 1 + (size_t)random() % 64;
			while (len-- > 0 && off < size)
				a[off++] = (unsigned char)random();
		}
}

int main(int argc, char **argv)
{
	const char *save = NULL;
	int fd, i, status = 0;
	char *end;
	long tid;

	if (argc > 2 && strcmp(argv[1], "-s") == 0) {
		save = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 3)
		usage("usage: hostile [-s SAVE] FILE TID STEP...");
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0)
		usage("cannot open the file");
	geo_load(fd, save);
	base = mmap(NULL, geo.total_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	if (base == MAP_FAILED)
		usage("cannot map the file");
	close(fd);
	tid = strtol(argv[2], &end, 10);
	if (*end != '\0' || (ring = ring_find((int32_t)tid)) == NULL)
		usage("no live ring of that thread");
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (i = 3; i < argc; i++) {
		if (strcmp(argv[i], "hdr") == 0 && i + 1 < argc) {
			assign(base, hdr_fields, sizeof(hdr_fields) /
			       sizeof(hdr_fields[0]), argv[++i]);
		} else if (strcmp(argv[i], "ring") == 0 && i + 1 < argc) {
			assign((char *)ring, ring_fields, sizeof(ring_fields) /
			       sizeof(ring_fields[0]), argv[++i]);
		} else if (strcmp(argv[i], "log") == 0 && i + 1 < argc &&
			   geo.events != 0) {
			assign((char *)rb_ring_evlog(&geo, ring), log_fields,
			       sizeof(log_fields) / sizeof(log_fields[0]),
			       argv[++i]);
		} else if (strcmp(argv[i], "send") == 0 && i + 2 < argc) {
			status |= post(argv[i + 1], argv[i + 2],
				       (int32_t)strlen(argv[i + 2]));
			i += 2;
		} else if (strcmp(argv[i], "post") == 0 && i + 3 < argc) {
			status |= post(argv[i + 1], argv[i + 3],
				       (int32_t)strtol(argv[i + 2], NULL, 0));
			i += 3;
		} else if (strcmp(argv[i], "scribble") == 0 && i + 3 < argc) {
			scribble(argv[i + 1], (unsigned)strtoul(argv[i + 2], NULL, 0),
				 strtol(argv[i + 3], NULL, 0));
			i += 3;
		} else if (strcmp(argv[i], "restore") == 0) {
			restore();
		} else {
			usage("unknown step");
		}
	}
	return status;
}
