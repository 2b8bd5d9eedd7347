/* SPDX-License-Identifier: MIT */
/*
 * control.c - fuzz the library's command handling: a thread of the traced
 * program runs whatever a monitor (or anyone who can write the file)
 * posted in its ring, at a hook (lib/control.c, rb_command()).
 *
 * This program is the traced process: its first hook makes a small trace
 * file and its ring.  An input is
 *
 *   byte 0      flags: 1 the thread is stopped (else running, at a hook),
 *               2 msglen is the next 4 bytes (else the argument length),
 *               4 cmdready is the next 4 bytes (else POSTED),
 *               8 header fields follow: msg_sz, global_sz, rings (4 bytes
 *                 each), gma_off (8), gma_owner (4), as a stray writer
 *                 might leave them
 *   the command, 4 bytes, then its arguments (the ring's msgarea)
 *
 * Every input starts from the same file: the header is put back and the
 * ring's command state cleared after each.  FUZZ_CONTROL_HEADER=0 leaves
 * the header alone (flag 8 ignored), to fuzz the rest past a known crash.
 */
#include "../../lib/control.c"

#include <stdlib.h>

#include "fuzz.h"

#define CONTROL_MSGSZ	64

enum {
	CONTROL_STOPPED	= 1,
	CONTROL_MSGLEN	= 2,
	CONTROL_READY	= 4,
	CONTROL_HEADER	= 8,
};

static char		 control_path[256];
static struct rb_header	 control_saved;
static struct rb_thread	*control_t;
static uint32_t		 control_flags = 0xff;	/* the flags inputs may set */

static void control_cleanup(void)
{
	if (control_path[0] != '\0')
		unlink(control_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc;
	(void)argv;
	fuzz_path(control_path, sizeof(control_path));
	fd = mkstemp(control_path);
	if (fd < 0)
		fuzz_fail("mkstemp %s failed", control_path);
	close(fd);
	unlink(control_path);	/* the library makes it, mode 0600 */
	atexit(control_cleanup);
	setenv("RBTRACE_FILE", control_path, 1);
	setenv("RBTRACE_RINGS", "2", 1);
	setenv("RBTRACE_SLOTS", "8", 1);
	setenv("RBTRACE_MSGSZ", "64", 1);
	setenv("RBTRACE_GLOBALSZ", "1024", 1);
	setenv("RBTRACE_SOC", "0", 1);
	/* The first hook: the file, and this thread's ring. */
	rb_enter_at((void *)LLVMFuzzerInitialize, NULL, 1ull << 40);
	control_t = &rb_self;
	if (control_t->ring == NULL || rb_proc.map.hdr == NULL)
		fuzz_fail("the library did not set up (%s)", control_path);
	if (rb_proc.map.hdr->msg_sz != CONTROL_MSGSZ)
		fuzz_fail("msg_sz %u, not %u", rb_proc.map.hdr->msg_sz,
			  CONTROL_MSGSZ);
	memcpy(&control_saved, rb_proc.map.hdr, sizeof(control_saved));
	if (getenv("FUZZ_CONTROL_HEADER") != NULL &&
	    strcmp(getenv("FUZZ_CONTROL_HEADER"), "0") == 0)
		control_flags &= ~(uint32_t)CONTROL_HEADER;
	return 0;
}

static uint32_t control_u32(const uint8_t **p, size_t *n)
{
	uint32_t v = 0;

	if (*n >= 4) {
		memcpy(&v, *p, 4);
		*p += 4;
		*n -= 4;
	}
	return v;
}

static void control_reset(void)
{
	struct rb_thread *t = control_t;
	struct rb_ring *r = t->ring;

	memcpy(rb_proc.map.hdr, &control_saved, sizeof(control_saved));
	RB_STORE(&r->attention, 0);
	RB_STORE(&r->cmdready, RB_CMD_EMPTY);
	RB_STORE(&r->msglen, 0);
	RB_STORE(&r->trace, 1);
	t->step = RB_STEP_NONE;
	t->level = 0;
	t->resume = 0;
	t->pending = 0;
	t->fresh = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_thread *t = control_t;
	struct rb_ring *r = t->ring;
	struct rb_header *h = rb_proc.map.hdr;
	char *area = rb_ring_msgarea(h, r);
	uint32_t flags, why = 0, ready = RB_CMD_POSTED;
	int32_t msglen = 0, state;
	size_t n;

	if (size < 1)
		return 0;
	flags = data[0] & control_flags;
	data++;
	size--;
	if (flags & CONTROL_MSGLEN)
		msglen = (int32_t)control_u32(&data, &size);
	if (flags & CONTROL_READY)
		ready = control_u32(&data, &size);
	if (flags & CONTROL_HEADER) {
		uint64_t gma_off;

		h->msg_sz = control_u32(&data, &size);
		h->global_sz = control_u32(&data, &size);
		h->rings = control_u32(&data, &size);
		gma_off = control_u32(&data, &size);
		gma_off |= (uint64_t)control_u32(&data, &size) << 32;
		h->gma_off = gma_off;
		h->gma_owner = control_u32(&data, &size);
	}
	memset(r->command, 0, sizeof(r->command));
	memcpy(r->command, data, size < 4 ? size : 4);
	data += size < 4 ? size : 4;
	size -= size < 4 ? size : 4;
	n = size < CONTROL_MSGSZ ? size : CONTROL_MSGSZ;
	memset(area, 0, CONTROL_MSGSZ);
	memcpy(area, data, n);
	RB_STORE(&r->msglen, (flags & CONTROL_MSGLEN) ? msglen : (int32_t)n);
	RB_STORE(&r->cmdready, (int32_t)ready);
	RB_ATTN_OR(r, RB_ATTN_COMMAND);

	rb_command(t, (flags & CONTROL_STOPPED) ? NULL : &why);

	state = RB_LOAD(&r->cmdready);
	if (ready == RB_CMD_POSTED) {
		if (state != RB_CMD_RESPONSE)
			fuzz_fail("a posted command left cmdready %d", state);
		if (memcmp(r->command, "OK  ", 4) != 0 &&
		    memcmp(r->command, "ERR ", 4) != 0)
			fuzz_fail("response '%.4s'", r->command);
		if (RB_LOAD(&r->msglen) < 0)
			fuzz_fail("response length %d", RB_LOAD(&r->msglen));
		if (getenv("FUZZ_VERBOSE") != NULL)
			fprintf(stderr, "%.4s %.*s\n", r->command,
				RB_LOAD(&r->msglen) < CONTROL_MSGSZ ?
				RB_LOAD(&r->msglen) : CONTROL_MSGSZ, area);
	} else if (state != (int32_t)ready) {
		fuzz_fail("cmdready %u became %d with no command posted",
			  ready, state);
	}
	control_reset();
	return 0;
}
