/* SPDX-License-Identifier: MIT */
/* file.c - create or join the trace file, safely, and map it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/bootid.h"
#include "common/mindur.h"
#include "internal.h"

#define RB_JOIN_WAIT_MS	2000	/* for a creator still laying the file out */

static void rb_sleep_ms(int ms)
{
	struct timespec ts = { 0, (long)ms * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/**
 * rb_file_validate - check a header against the file it came from
 * @h: header (a private copy or the mapping)
 * @file_size: the file's size
 *
 * Return: 0, or a negative code: -1 not a trace file, -2 other version,
 * -3 truncated, -4 corrupt geometry or layout.
 */
int rb_file_validate(const struct rb_header *h, uint64_t file_size)
{
	const char *what;
	uint64_t value;

	if (file_size < sizeof(*h) || memcmp(h->magic, RB_MAGIC, RB_MAGIC_LEN))
		return -1;
	if (h->version != RB_VERSION || h->endian != RB_ENDIAN_MARK ||
	    h->header_size != sizeof(*h))
		return -2;
	if (h->total_size > file_size)
		return -3;
	return rb_header_check_layout(h, &what, &value) < 0 ? -4 : 0;
}

static const char *rb_file_reason(int code)
{
	switch (code) {
	case -1: return "not an rbtrace trace file";
	case -2: return "made by another version of rbtrace";
	case -3: return "truncated";
	default: return "corrupt";
	}
}

static int rb_file_create(struct rb_map *m, int fd, const struct rb_settings *s,
			  pid_t pid, uint64_t pstart, const char *program)
{
	struct rb_header *h;
	struct rb_layout l;
	struct timespec rt;
	int err;

	if (rb_layout_compute(&s->geo, &l) < 0) {	/* rb_settings_from_env() checked it */
		rb_warnf("rbtrace: geometry too large for %s; running untraced", m->path);
		return -1;
	}
	/* every block allocated now: a full disk fails here, not as SIGBUS later */
	err = posix_fallocate(fd, 0, (off_t)l.total_size);
	if (err != 0) {
		rb_warnf("rbtrace: cannot allocate %llu bytes for %s: %s; running untraced",
			 (unsigned long long)l.total_size, m->path, strerror(err));
		return -1;
	}
	m->base = mmap(NULL, l.total_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, 0);
	if (m->base == MAP_FAILED) {
		rb_warnf("rbtrace: cannot map %s: %s; running untraced",
			 m->path, strerror(errno));
		m->base = NULL;
		return -1;
	}
	m->size = l.total_size;
	m->hdr = m->base;
	/*
	 * No read-ahead: a fault on the new file would have the kernel read
	 * and zero a window of pages around it (hundreds of KiB), of which a
	 * process uses a few: its rings' pages are touched as its threads
	 * come, and a dormant process touches the tables alone.
	 */
	madvise(m->base, m->size, MADV_RANDOM);

	/* Laid out privately first: the copy kept is what was written, whatever happens to the file. */
	h = &m->geo;
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, RB_MAGIC, RB_MAGIC_LEN);
	h->version = RB_VERSION;
	h->header_size = sizeof(*h);
	h->total_size = l.total_size;
	h->endian = RB_ENDIAN_MARK;
	h->rings = s->geo.rings;
	h->slots = s->geo.slots;
	h->pinned = rb_slots_pinned(s->geo.slots);
	h->slot_sz = s->geo.slot_sz;
	h->msg_sz = s->geo.msg_sz;
	h->global_sz = s->geo.global_sz;
	h->objects = s->geo.objects;
	h->events = s->geo.events;
	h->ev_policy = s->geo.ev_policy;
	h->events_off = l.events_off;
	h->ring_size = l.ring_size;
	h->slot_size = l.slot_size;
	h->gma_off = l.gma_off;
	h->owners_off = l.owners_off;
	h->objects_off = l.objects_off;
	h->rings_off = l.rings_off;
	h->bpfilter_off = l.bpfilter_off;
	h->bps_off = l.bps_off;
	h->dyn_off = l.dyn_off;
	h->dyn_procs = RB_DYN_PROCS;
	h->capfn_off = l.capfn_off;
	h->cap_off = l.cap_off;
	h->capfns = RB_CAP_FNS;
	h->caps = RB_CAP_SLOTS;
	h->bps = RB_BP_ENTRIES;
	h->bpfilter_bits = RB_BP_FILTER_BITS;
	h->slots_off = l.slots_off;
	h->msgarea_off = l.msgarea_off;
	h->creator_pid = pid;
	h->creator_uid = (uint32_t)geteuid();
	h->creator_start = pstart;
	clock_gettime(CLOCK_REALTIME, &rt);
	h->created_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u +
				 (uint64_t)rt.tv_nsec;
	rb_strlcpy(h->program, program, sizeof(h->program));
	rb_boot_id_read(h->boot_id, sizeof(h->boot_id));
	h->clock = (uint32_t)rb_clock_kind;
	h->clock_tsc0 = rb_counter_read();
	h->clock_ns0 = rb_clock_mono_ns();
	/* An architectural rate (CNTFRQ) is known now; the TSC's is measured. */
	h->clock_tsc_hz = rb_clock_is_counter(h->clock) ? rb_counter_hz() : 0;
	h->min_duration_ns = s->min_duration_ns;
	h->min_duration = rb_mindur_units(h->clock, rb_clock_rate(h),
	    s->min_duration_ns);
	h->single = 0;
	h->stop_on_create = s->stop_on_create;
	h->trace_on_create = s->trace_on_create;
	memcpy(m->hdr, h, sizeof(*h));
	/* Publish: every field above before ready; pairs with the acquire load of ready by joiners. */
	RB_STORE_REL(&m->hdr->ready, 1u);
	m->geo.ready = 1;
	m->created = true;
	return 0;
}

/* A file nobody uses any more: its creator and every ring owner are gone. */
static bool rb_file_stale(const struct rb_map *m)
{
	const struct rb_header *h = &m->geo;
	uint32_t i;

	if (rb_proc_alive(h->creator_pid, h->creator_start))
		return false;
	for (i = 0; i < h->rings; i++) {
		struct rb_owner *o = rb_owner_at(m->base, h, i);
		uint64_t ctl = RB_LOAD_ACQ(&o->ctl);
		struct rb_ring *r = rb_ring_at(m->base, h, i);

		if (RB_OWN_STATE(ctl) == RB_OWN_CLAIMING &&
		    rb_proc_alive_pid(RB_OWN_PID(ctl)))
			return false;
		if (RB_OWN_STATE(ctl) == RB_OWN_LIVE &&
		    rb_proc_alive(RB_OWN_PID(ctl), RB_LOAD(&r->pstart)))
			return false;
	}
	return true;
}

/* Return: 0 joined, 1 stale file removed (create again), -1 failed. */
static int rb_file_join(struct rb_map *m)
{
	struct rb_header *h;
	struct stat st, now;
	int fd, waited, code;

	fd = open(m->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;	/* removed meanwhile: create it */
		rb_warnf("rbtrace: cannot open %s: %s; running untraced",
			 m->path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
		rb_warnf("rbtrace: %s is not a private file of this user; running untraced",
			 m->path);
		close(fd);
		return -1;
	}
	/* A creator between open(O_EXCL) and posix_fallocate: wait for the size. */
	for (waited = 0; (size_t)st.st_size < sizeof(*h) &&
	     waited < RB_JOIN_WAIT_MS; waited += 10) {
		rb_sleep_ms(10);
		if (fstat(fd, &st) < 0)
			break;
	}
	if ((size_t)st.st_size < sizeof(*h)) {
		rb_warnf("rbtrace: %s: not an rbtrace trace file; running untraced",
			 m->path);
		close(fd);
		return -1;
	}
	h = mmap(NULL, sizeof(*h), PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		rb_warnf("rbtrace: cannot map %s: %s; running untraced",
			 m->path, strerror(errno));
		close(fd);
		return -1;
	}
	/* Pairs with the creator's release store of ready. */
	for (waited = 0; RB_LOAD_ACQ(&h->ready) != 1 &&
	     !memcmp(h->magic, RB_MAGIC, RB_MAGIC_LEN) &&
	     waited < RB_JOIN_WAIT_MS; waited += 10)
		rb_sleep_ms(10);
	/*
	 * Validate a private copy and keep it: nothing written into the
	 * header later moves or resizes anything this process uses.
	 */
	code = -1;
	if (RB_LOAD_ACQ(&h->ready) == 1) {
		memcpy(&m->geo, h, sizeof(m->geo));
		code = rb_file_validate(&m->geo, (uint64_t)st.st_size);
	}
	if (code == 0 && m->geo.total_size != (uint64_t)st.st_size)
		code = -4;
	munmap(h, sizeof(*h));
	if (code < 0) {
		rb_warnf("rbtrace: cannot use %s: %s; running untraced",
			 m->path, rb_file_reason(code));
		close(fd);
		return -1;
	}
	m->size = m->geo.total_size;
	m->base = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m->base == MAP_FAILED) {
		rb_warnf("rbtrace: cannot map %s: %s; running untraced",
			 m->path, strerror(errno));
		m->base = NULL;
		close(fd);
		return -1;
	}
	/* No read-ahead, as at creation (rb_file_create()). */
	madvise(m->base, m->size, MADV_RANDOM);
	m->hdr = m->base;
	if (rb_file_stale(m)) {
		/* unlink only the file we examined, not one that replaced it */
		if (lstat(m->path, &now) == 0 && now.st_ino == st.st_ino &&
		    now.st_dev == st.st_dev)
			unlink(m->path);
		rb_file_close(m);
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

/**
 * rb_file_open - create the trace file at @path, or join the live one there
 *
 * Says what went wrong in one line on stderr.
 * Return: 0, or -1 (the process then runs untraced).
 */
int rb_file_open(struct rb_map *m, const char *path,
		 const struct rb_settings *s, pid_t pid, uint64_t pstart,
		 const char *program)
{
	int attempt, fd, r;

	memset(m, 0, sizeof(*m));
	if (strlen(path) >= sizeof(m->path)) {
		rb_warn("rbtrace: RBTRACE_FILE is too long; running untraced");
		return -1;
	}
	rb_strlcpy(m->path, path, sizeof(m->path));
	for (attempt = 0; attempt < 3; attempt++) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0600);
		if (fd >= 0) {
			r = rb_file_create(m, fd, s, pid, pstart, program);
			close(fd);
			if (r < 0)
				unlink(path);
			return r;
		}
		if (errno != EEXIST) {
			rb_warnf("rbtrace: cannot create %s: %s; running untraced",
				 path, strerror(errno));
			return -1;
		}
		r = rb_file_join(m);
		if (r <= 0)
			return r;
	}
	rb_warnf("rbtrace: %s keeps changing under us; running untraced", path);
	return -1;
}

void rb_file_close(struct rb_map *m)
{
	if (m->base != NULL)
		munmap(m->base, m->size);
	m->base = NULL;
	m->hdr = NULL;
	m->size = 0;
}
