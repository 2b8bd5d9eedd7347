/* SPDX-License-Identifier: MIT */
/* check_lib.c - unit tests of librbtrace: settings, layout, file, rings, slot publication, breakpoints. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/internal.h"
#include "rbtrace/rbtrace.h"
#include "check_lib.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

/* ---- settings ---------------------------------------------------------- */

static const char *fake_env[16][2];
static int warnings;
static char last_warning[600];

static const char *fake_getenv(const char *name)
{
	int i;

	for (i = 0; i < 16 && fake_env[i][0]; i++)
		if (strcmp(fake_env[i][0], name) == 0)
			return fake_env[i][1];
	return NULL;
}

static void count_warn(const char *line)
{
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", line);
}

static void set_env1(const char *name, const char *val)
{
	memset(fake_env, 0, sizeof(fake_env));
	fake_env[0][0] = name;
	fake_env[0][1] = val;
	warnings = 0;
	last_warning[0] = '\0';
}

START_TEST(test_parse_uint)
{
	uint32_t v = 7;

	ck_assert_int_eq(rb_parse_uint("64", 1, 100, &v), 0);
	ck_assert_uint_eq(v, 64);
	ck_assert_int_eq(rb_parse_uint("1", 1, 100, &v), 0);
	ck_assert_int_eq(rb_parse_uint("100", 1, 100, &v), 0);
	v = 7;
	ck_assert_int_eq(rb_parse_uint("0", 1, 100, &v), -1);
	ck_assert_int_eq(rb_parse_uint("101", 1, 100, &v), -1);
	ck_assert_int_eq(rb_parse_uint("", 1, 100, &v), -1);
	ck_assert_int_eq(rb_parse_uint(NULL, 1, 100, &v), -1);
	ck_assert_int_eq(rb_parse_uint("-5", 1, 100, &v), -1);
	ck_assert_int_eq(rb_parse_uint("+5", 1, 100, &v), -1);
	ck_assert_int_eq(rb_parse_uint(" 5", 1, 100, &v), -1);
	ck_assert_int_eq(rb_parse_uint("5 ", 1, 100, &v), -1);
	ck_assert_int_eq(rb_parse_uint("5k", 1, 100, &v), -1);
	ck_assert_int_eq(rb_parse_uint("0x10", 1, 100, &v), -1);
	ck_assert_int_eq(rb_parse_uint("99999999999999999999999", 1, 100, &v), -1);
	ck_assert_uint_eq(v, 7);
}
END_TEST

START_TEST(test_settings_defaults)
{
	struct rb_settings s;

	rb_settings_defaults(&s);
	set_env1(NULL, NULL);
	ck_assert_int_eq(rb_settings_from_env(&s, fake_getenv, count_warn), 0);
	ck_assert_int_eq(warnings, 0);
	ck_assert_uint_eq(s.geo.rings, 64);
	ck_assert_uint_eq(s.geo.slots, 64);
	ck_assert_uint_eq(s.geo.slot_sz, 200);
	ck_assert_uint_eq(s.geo.msg_sz, 256);
	ck_assert_uint_eq(s.geo.global_sz, 16384);
	ck_assert_int_eq(s.stop_on_create, 0);
	ck_assert_int_eq(s.trace_on_create, 1);
	ck_assert_int_eq(s.watch_worker, RB_WW_LAZY);
}
END_TEST

START_TEST(test_settings_good)
{
	struct rb_settings s;

	rb_settings_defaults(&s);
	memset(fake_env, 0, sizeof(fake_env));
	fake_env[0][0] = "RBTRACE_RINGS";	fake_env[0][1] = "8";
	fake_env[1][0] = "RBTRACE_SLOTS";	fake_env[1][1] = "100";
	fake_env[2][0] = "RBTRACE_SLOTSZ";	fake_env[2][1] = "16";
	fake_env[3][0] = "RBTRACE_MSGSZ";	fake_env[3][1] = "1024";
	fake_env[4][0] = "RBTRACE_GLOBALSZ";	fake_env[4][1] = "4096";
	fake_env[5][0] = "RBTRACE_SOC";		fake_env[5][1] = "1";
	fake_env[6][0] = "RBTRACE_TOC";		fake_env[6][1] = "0";
	fake_env[7][0] = "RBTRACE_CLOCK";	fake_env[7][1] = "mono";
	warnings = 0;
	ck_assert_int_eq(rb_settings_from_env(&s, fake_getenv, count_warn), 0);
	ck_assert_int_eq(warnings, 0);
	ck_assert_uint_eq(s.geo.rings, 8);
	ck_assert_uint_eq(s.geo.slots, 100);
	ck_assert_uint_eq(s.geo.slot_sz, 16);
	ck_assert_uint_eq(s.geo.msg_sz, 1024);
	ck_assert_uint_eq(s.geo.global_sz, 4096);
	ck_assert_int_eq(s.stop_on_create, 1);
	ck_assert_int_eq(s.trace_on_create, 0);
	ck_assert_int_eq(s.clock, RB_CLOCK_MONO);

	set_env1("RBTRACE_WATCH_WORKER", "start");
	ck_assert_int_eq(rb_settings_from_env(&s, fake_getenv, count_warn), 0);
	ck_assert_int_eq(s.watch_worker, RB_WW_START);
	set_env1("RBTRACE_WATCH_WORKER", "lazy");
	ck_assert_int_eq(rb_settings_from_env(&s, fake_getenv, count_warn), 0);
	ck_assert_int_eq(s.watch_worker, RB_WW_LAZY);

	/* Every clock by its name, this machine's counter included. */
	set_env1("RBTRACE_CLOCK", "none");
	ck_assert_int_eq(rb_settings_from_env(&s, fake_getenv, count_warn), 0);
	ck_assert_int_eq(s.clock, RB_CLOCK_NONE);
	if (RB_CLOCK_COUNTER != 0) {
		set_env1("RBTRACE_CLOCK", rb_clock_name(RB_CLOCK_COUNTER));
		ck_assert_int_eq(rb_settings_from_env(&s, fake_getenv,
						      count_warn), 0);
		ck_assert_int_eq(s.clock, RB_CLOCK_COUNTER);
	}
	ck_assert_int_eq(warnings, 0);
}
END_TEST

static const struct {
	const char *name, *val, *expect;
} bad_env[] = {
	{ "RBTRACE_RINGS", "abc", "rbtrace: RBTRACE_RINGS=abc: not a number from 1 to 65536; using 64" },
	{ "RBTRACE_RINGS", "0", "rbtrace: RBTRACE_RINGS=0: not a number from 1 to 65536; using 64" },
	{ "RBTRACE_RINGS", "-3", "rbtrace: RBTRACE_RINGS=-3: not a number from 1 to 65536; using 64" },
	{ "RBTRACE_RINGS", "", "rbtrace: RBTRACE_RINGS=: not a number from 1 to 65536; using 64" },
	{ "RBTRACE_SLOTS", "1", "rbtrace: RBTRACE_SLOTS=1: not a number from 2 to 65536; using 64" },
	{ "RBTRACE_SLOTS", "12x", "rbtrace: RBTRACE_SLOTS=12x: not a number from 2 to 65536; using 64" },
	{ "RBTRACE_SLOTSZ", "5000", "rbtrace: RBTRACE_SLOTSZ=5000: not a number from 8 to 4096; using 200" },
	{ "RBTRACE_MSGSZ", "1", "rbtrace: RBTRACE_MSGSZ=1: not a number from 64 to 65536; using 256" },
	{ "RBTRACE_GLOBALSZ", "99999999999", "rbtrace: RBTRACE_GLOBALSZ=99999999999: not a number from 1024 to 16777216; using 16384" },
	{ "RBTRACE_SOC", "yes", "rbtrace: RBTRACE_SOC=yes: not 0 or 1; using 0" },
	{ "RBTRACE_TOC", "2", "rbtrace: RBTRACE_TOC=2: not 0 or 1; using 1" },
	{ "RBTRACE_CLOCK", "hpet", "rbtrace: RBTRACE_CLOCK=hpet: not " RB_CLOCK_WORDS "; using the default" },
	{ "RBTRACE_CLOCK", "", "rbtrace: RBTRACE_CLOCK=: not " RB_CLOCK_WORDS "; using the default" },
	{ "RBTRACE_CLOCK", "None", "rbtrace: RBTRACE_CLOCK=None: not " RB_CLOCK_WORDS "; using the default" },
	{ "RBTRACE_WATCH_WORKER", "Start", "rbtrace: RBTRACE_WATCH_WORKER=Start: not lazy or start; using lazy" },
	{ "RBTRACE_WATCH_WORKER", "", "rbtrace: RBTRACE_WATCH_WORKER=: not lazy or start; using lazy" },
	{ "RBTRACE_WATCH_WORKER", "1", "rbtrace: RBTRACE_WATCH_WORKER=1: not lazy or start; using lazy" },
	/* The counter of the other architecture. */
#if RB_CLOCK_COUNTER == RB_CLOCK_CNTVCT
	{ "RBTRACE_CLOCK", "tsc", "rbtrace: RBTRACE_CLOCK=tsc: not " RB_CLOCK_WORDS "; using the default" },
#else
	{ "RBTRACE_CLOCK", "cntvct", "rbtrace: RBTRACE_CLOCK=cntvct: not " RB_CLOCK_WORDS "; using the default" },
#endif
};

START_TEST(test_settings_bad)
{
	struct rb_settings s, d;

	rb_settings_defaults(&s);
	rb_settings_defaults(&d);
	set_env1(bad_env[_i].name, bad_env[_i].val);
	ck_assert_int_eq(rb_settings_from_env(&s, fake_getenv, count_warn), 1);
	ck_assert_int_eq(warnings, 1);
	ck_assert_str_eq(last_warning, bad_env[_i].expect);
	ck_assert_mem_eq(&s, &d, sizeof(s));
}
END_TEST

START_TEST(test_settings_too_large)
{
	struct rb_settings s;

	rb_settings_defaults(&s);
	memset(fake_env, 0, sizeof(fake_env));
	fake_env[0][0] = "RBTRACE_RINGS";	fake_env[0][1] = "65536";
	fake_env[1][0] = "RBTRACE_SLOTS";	fake_env[1][1] = "65536";
	fake_env[2][0] = "RBTRACE_SLOTSZ";	fake_env[2][1] = "4096";
	warnings = 0;
	ck_assert_int_eq(rb_settings_from_env(&s, fake_getenv, count_warn), 1);
	ck_assert_int_eq(warnings, 1);
	ck_assert_ptr_nonnull(strstr(last_warning, "using the default geometry"));
	ck_assert_uint_eq(s.geo.rings, 64);
	ck_assert_uint_eq(s.geo.slots, 64);
	ck_assert_uint_eq(s.geo.slot_sz, 200);
}
END_TEST

/* ---- layout ------------------------------------------------------------ */

START_TEST(test_layout_alignment)
{
	static const struct rb_geometry geos[] = {
		{ 64, 32, 200, 256, 16384, 256 },
		{ 1, 2, 8, 64, 1024, 0 },
		{ 3, 7, 13, 65, 1025, 3 },
		{ 1024, 64, 200, 256, 16384, 256 },
		{ 65536, 2, 8, 64, 1024, 65536 },
	};
	const struct rb_geometry *g = &geos[_i];
	struct rb_layout l;

	ck_assert_int_eq(rb_layout_compute(g, &l), 0);
	ck_assert_uint_eq(l.gma_off % 64, 0);
	ck_assert_uint_ge(l.gma_off, sizeof(struct rb_header));
	ck_assert_uint_ge(l.owners_off, l.gma_off + g->global_sz);
	ck_assert_uint_eq(l.owners_off % 64, 0);
	ck_assert_uint_ge(l.objects_off,
			  l.owners_off + g->rings * sizeof(struct rb_owner));
	ck_assert_uint_eq(l.objects_off % 8, 0);
	ck_assert_uint_ge(l.bpfilter_off,
			  l.objects_off + g->objects * sizeof(struct rb_object));
	ck_assert_uint_eq(l.bpfilter_off % 64, 0);
	ck_assert_uint_eq(l.bps_off, l.bpfilter_off + RB_BP_FILTER_BITS / 8);
	ck_assert_uint_eq(l.bps_off % 64, 0);
	ck_assert_uint_ge(l.dyn_off,
			  l.bps_off + RB_BP_ENTRIES * sizeof(struct rb_bp));
	ck_assert_uint_eq(l.dyn_off % 64, 0);
	ck_assert_uint_ge(l.capfn_off,
			  l.dyn_off + RB_DYN_PROCS * sizeof(struct rb_dynproc));
	ck_assert_uint_eq(l.capfn_off % 64, 0);
	ck_assert_uint_ge(l.cap_off,
			  l.capfn_off + RB_CAP_FNS * sizeof(struct rb_capfn));
	ck_assert_uint_eq(l.cap_off % 64, 0);
	ck_assert_uint_ge(l.rings_off,
			  l.cap_off + RB_CAP_SLOTS * sizeof(struct rb_capture));
	ck_assert_uint_eq(l.rings_off % 4096, 0);
	ck_assert_uint_eq(l.ring_size % 64, 0);
	ck_assert_uint_eq(l.slots_off % 64, 0);
	ck_assert_uint_ge(l.slots_off, l.msgarea_off + g->msg_sz);
	ck_assert_uint_eq(l.msgarea_off, sizeof(struct rb_ring));
	ck_assert_uint_eq(l.slot_size % 8, 0);
	ck_assert_uint_ge(l.slot_size, sizeof(struct rb_slot) + g->slot_sz);
	ck_assert_uint_ge(l.ring_size,
			  l.slots_off + (uint64_t)g->slots * l.slot_size);
	ck_assert_uint_eq(l.total_size % 4096, 0);
	ck_assert_uint_ge(l.total_size,
			  l.rings_off + (uint64_t)g->rings * l.ring_size);
}
END_TEST

START_TEST(test_layout_structs)
{
	/* fixed-width fields, naturally aligned: the same in every 64-bit process */
	ck_assert_uint_eq(sizeof(struct rb_header) % 8, 0);
	ck_assert_uint_eq(offsetof(struct rb_header, version), 8);
	ck_assert_uint_eq(offsetof(struct rb_header, total_size) % 8, 0);
	ck_assert_uint_eq(offsetof(struct rb_header, clock_tsc0) % 8, 0);
	ck_assert_uint_eq(offsetof(struct rb_header, untraced_threads) % 8, 0);
	ck_assert_uint_eq(sizeof(struct rb_owner), 32);
	ck_assert_uint_eq(sizeof(struct rb_header), 576);	/* rbtrace(5) */
	ck_assert_uint_eq(offsetof(struct rb_header, capfn_off) % 8, 0);
	ck_assert_uint_eq(sizeof(struct rb_capfn) % 8, 0);
	ck_assert_uint_eq(offsetof(struct rb_capture, records) % 8, 0);
	ck_assert_uint_eq(sizeof(struct rb_capture) % 8, 0);
	ck_assert_uint_eq(offsetof(struct rb_header, dyn_off) % 8, 0);
	ck_assert_uint_eq(sizeof(struct rb_dynfn), 16);
	ck_assert_uint_eq(offsetof(struct rb_dynproc, fns) % 8, 0);
	ck_assert_uint_eq(sizeof(struct rb_dynproc),
			  offsetof(struct rb_dynproc, fns) +
			  RB_DYN_LISTED * sizeof(struct rb_dynfn));
	ck_assert_uint_eq(sizeof(struct rb_event), 32);
	ck_assert_uint_eq(sizeof(struct rb_evlog), 128);
	/* the consumer's tail on a line of its own, away from the owner's head */
	ck_assert_uint_eq(offsetof(struct rb_evlog, tail), 64);
	ck_assert_uint_eq(sizeof(struct rb_bp), 64 + RB_BP_NAME);
	ck_assert_uint_eq(offsetof(struct rb_bp, addr) % 8, 0);
	ck_assert_uint_eq(offsetof(struct rb_bp, hits) % 8, 0);
	ck_assert_uint_eq(sizeof(struct rb_object) % 8, 0);
	ck_assert_uint_eq(sizeof(struct rb_slot), 56);
	ck_assert_uint_eq(sizeof(struct rb_watch), 16 + RB_EXPR_MAX + RB_RESULT_MAX);
	/* the owner's hot fields and the monitor's command fields on lines of their own */
	ck_assert_uint_eq(offsetof(struct rb_ring, currSlot) % 64, 0);
	ck_assert_uint_eq(offsetof(struct rb_ring, cmdready) % 64, 0);
	ck_assert_uint_lt(offsetof(struct rb_ring, attention),
			  offsetof(struct rb_ring, currSlot) + 64);
	ck_assert_uint_eq(sizeof(struct rb_ring) % 64, 0);
}
END_TEST

START_TEST(test_layout_refuses_huge)
{
	struct rb_geometry g = { 65536, 65536, 4096, 65536, 16u << 20, 65536 };
	struct rb_layout l;

	ck_assert_int_eq(rb_layout_compute(&g, &l), -1);
}
END_TEST

/* ---- file -------------------------------------------------------------- */

static char tmpdir[256];

static void tmp_setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_lib.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmp_teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

static void open_file(struct rb_map *m, const char *name,
		      const struct rb_geometry *g)
{
	struct rb_settings s;
	char path[512];
	pid_t pid = getpid();

	rb_settings_defaults(&s);
	if (g != NULL)
		s.geo = *g;
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	ck_assert_int_eq(rb_file_open(m, path, &s, pid,
				      rb_proc_start_time(pid), "check"), 0);
}

START_TEST(test_file_create)
{
	struct rb_map m, j;
	struct rb_layout l;
	struct rb_geometry g = { 8, 16, 64, 128, 2048, 32 };
	struct stat st;

	open_file(&m, "a.trace", &g);
	ck_assert(m.created);
	ck_assert_int_eq(stat(m.path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(rb_layout_compute(&g, &l), 0);
	ck_assert_uint_eq((uint64_t)st.st_size, l.total_size);
	/* fully allocated: no hole for a full disk to turn into SIGBUS */
	ck_assert_uint_ge((uint64_t)st.st_blocks * 512, l.total_size);
	ck_assert_int_eq(rb_file_validate(m.hdr, (uint64_t)st.st_size), 0);
	ck_assert_str_eq(m.hdr->program, "check");
	ck_assert_int_eq(m.hdr->creator_pid, getpid());
	ck_assert_uint_eq(m.hdr->ready, 1);
	ck_assert_uint_eq(m.hdr->rings, 8);

	/* a second open joins (the creator, us, is alive) */
	open_file(&j, "a.trace", NULL);
	ck_assert(!j.created);
	ck_assert_uint_eq(j.hdr->rings, 8);	/* the file's geometry wins */
	rb_file_close(&j);
	rb_file_close(&m);
}
END_TEST

START_TEST(test_file_validate)
{
	struct rb_map m;
	struct rb_header h;
	uint64_t size;

	open_file(&m, "v.trace", NULL);
	size = m.size;
	h = *m.hdr;
	ck_assert_int_eq(rb_file_validate(&h, size), 0);
	ck_assert_int_eq(rb_file_validate(&h, size - 1), -3);
	ck_assert_int_eq(rb_file_validate(&h, 100), -1);
	h.magic[0] = 'X';
	ck_assert_int_eq(rb_file_validate(&h, size), -1);
	h = *m.hdr;
	h.version = RB_VERSION + 1;
	ck_assert_int_eq(rb_file_validate(&h, size), -2);
	h = *m.hdr;
	h.endian = 0x04030201;
	ck_assert_int_eq(rb_file_validate(&h, size), -2);
	h = *m.hdr;
	h.rings = 65;		/* geometry no longer matches the offsets */
	ck_assert_int_eq(rb_file_validate(&h, size), -4);
	h = *m.hdr;
	h.rings = 0;
	ck_assert_int_eq(rb_file_validate(&h, size), -4);
	h = *m.hdr;
	h.slots_off += 8;
	ck_assert_int_eq(rb_file_validate(&h, size), -4);
	h = *m.hdr;
	h.clock = 9;
	ck_assert_int_eq(rb_file_validate(&h, size), -4);
	rb_file_close(&m);
}
END_TEST

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	fchmod(fd, mode);
	close(fd);
}

START_TEST(test_file_refuses)
{
	struct rb_settings s;
	struct rb_map m;
	char path[512], target[512];
	int saved_err = dup(2), devnull = open("/dev/null", O_WRONLY);

	rb_settings_defaults(&s);
	dup2(devnull, 2);	/* the library's one-line messages */

	/* a symlink planted at the path is never followed */
	snprintf(target, sizeof(target), "%s/target", tmpdir);
	write_file(target, "precious", 0600);
	snprintf(path, sizeof(path), "%s/link.trace", tmpdir);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(rb_file_open(&m, path, &s, getpid(), 1, "x"), -1);

	/* a foreign file is left alone */
	snprintf(path, sizeof(path), "%s/foreign.trace", tmpdir);
	write_file(path, "not a trace file at all", 0600);
	ck_assert_int_eq(rb_file_open(&m, path, &s, getpid(), 1, "x"), -1);

	/* a file others could write to is not joined */
	snprintf(path, sizeof(path), "%s/open.trace", tmpdir);
	write_file(path, "whatever", 0666);
	ck_assert_int_eq(rb_file_open(&m, path, &s, getpid(), 1, "x"), -1);

	dup2(saved_err, 2);
	close(saved_err);
	close(devnull);
	{
		char buf[16] = "";
		int fd = open(target, O_RDONLY);

		ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), 8);
		ck_assert_str_eq(buf, "precious");
		close(fd);
	}
}
END_TEST

/* A process that existed and is gone: its pid and start time. */
static void dead_process(pid_t *pid, uint64_t *pstart)
{
	int fds[2], status;
	char c;
	pid_t p;

	ck_assert_int_eq(pipe(fds), 0);
	p = fork();
	if (p == 0) {
		close(fds[0]);
		ck_assert_int_eq(write(fds[1], "x", 1), 1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &c, 1), 1);
	*pid = p;
	*pstart = rb_proc_start_time(p);
	ck_assert_uint_ne(*pstart, 0);
	ck_assert(rb_proc_alive(p, *pstart));
	ck_assert(!rb_proc_alive(p, *pstart + 1));	/* pid reuse is not life */
	kill(p, SIGKILL);
	waitpid(p, &status, 0);
	close(fds[0]);
	ck_assert(!rb_proc_alive(p, *pstart));
}

START_TEST(test_file_stale_replaced)
{
	struct rb_settings s;
	struct rb_map m;
	char path[512];
	pid_t dead;
	uint64_t dstart;

	dead_process(&dead, &dstart);
	rb_settings_defaults(&s);
	s.geo.rings = 4;
	snprintf(path, sizeof(path), "%s/stale.trace", tmpdir);
	ck_assert_int_eq(rb_file_open(&m, path, &s, dead, dstart, "old"), 0);
	ck_assert(m.created);
	rb_file_close(&m);

	s.geo.rings = 8;
	ck_assert_int_eq(rb_file_open(&m, path, &s, getpid(),
				      rb_proc_start_time(getpid()), "new"), 0);
	ck_assert(m.created);
	ck_assert_uint_eq(m.hdr->rings, 8);
	ck_assert_str_eq(m.hdr->program, "new");
	ck_assert_int_eq(m.hdr->creator_pid, getpid());
	rb_file_close(&m);
}
END_TEST

/* ---- rings ------------------------------------------------------------- */

static uint32_t own_state(struct rb_map *m, uint32_t i)
{
	return RB_OWN_STATE(rb_owner_at(m->base, m->hdr, i)->ctl);
}

static void make_live(struct rb_map *m, int i, pid_t pid, uint64_t pstart)
{
	struct rb_ring *r = rb_ring_at(m->base, m->hdr, (uint32_t)i);

	r->pid = pid;
	r->pstart = pstart;
	rb_owner_at(m->base, m->hdr, (uint32_t)i)->ctl =
		RB_OWN_MAKE(RB_OWN_LIVE, pid);
}

START_TEST(test_ring_exhaust_and_reuse)
{
	struct rb_geometry g = { 4, 8, 32, 64, 1024, 16 };
	struct rb_map m;
	pid_t me = getpid();
	uint64_t start = rb_proc_start_time(me);
	int i, got[4];

	open_file(&m, "r.trace", &g);
	for (i = 0; i < 4; i++) {
		got[i] = rb_ring_claim(&m, me);
		ck_assert_int_ge(got[i], 0);
		ck_assert_uint_eq(own_state(&m, (uint32_t)got[i]), RB_OWN_CLAIMING);
		make_live(&m, got[i], me, start);
	}
	ck_assert_int_ne(got[0], got[1]);
	ck_assert_int_eq(rb_ring_claim(&m, me), -1);	/* all taken, all alive */

	/* released rings come back oldest first */
	rb_ring_release(&m, (uint32_t)got[2]);
	usleep(2000);
	rb_ring_release(&m, (uint32_t)got[0]);
	ck_assert_uint_eq(own_state(&m, (uint32_t)got[2]), RB_OWN_EXITED);
	ck_assert_int_eq(rb_ring_at(m.base, m.hdr, (uint32_t)got[2])->state,
			 RB_STATE_EXITED);
	ck_assert_int_eq(rb_ring_claim(&m, me), got[2]);
	ck_assert_int_eq(rb_ring_claim(&m, me), got[0]);
	ck_assert_int_eq(rb_ring_claim(&m, me), -1);
	ck_assert_uint_eq(m.hdr->rings_reclaimed, 0);
	rb_file_close(&m);
}
END_TEST

START_TEST(test_ring_reclaim_dead)
{
	struct rb_geometry g = { 3, 8, 32, 64, 1024, 16 };
	struct rb_map m;
	pid_t me = getpid(), dead;
	uint64_t start = rb_proc_start_time(me), dstart;

	dead_process(&dead, &dstart);
	open_file(&m, "d.trace", &g);
	make_live(&m, 0, me, start);
	make_live(&m, 1, dead, dstart);		/* killed while traced */
	make_live(&m, 2, 1, start);		/* pid 1 alive, but another start: reused pid */
	rb_ring_at(m.base, m.hdr, 2)->pstart = rb_proc_start_time(1) + 12345;

	ck_assert_int_eq(rb_ring_claim(&m, me), 1);
	ck_assert_int_eq(rb_ring_claim(&m, me), 2);
	ck_assert_int_eq(rb_ring_claim(&m, me), -1);
	ck_assert_uint_eq(m.hdr->rings_reclaimed, 2);
	rb_file_close(&m);
}
END_TEST

START_TEST(test_ring_release_image)
{
	struct rb_geometry g = { 4, 8, 32, 64, 1024, 16 };
	struct rb_map m;
	pid_t me = getpid();
	uint64_t start = rb_proc_start_time(me);
	int i;

	open_file(&m, "e.trace", &g);
	for (i = 0; i < 3; i++) {
		make_live(&m, i, me, start);
		rb_ring_at(m.base, m.hdr, (uint32_t)i)->image = i < 2 ? 1 : 2;
	}
	/* exec: the image 2 keeps its ring, the pre-exec image 1 loses both */
	ck_assert_int_eq(rb_ring_release_image(&m, me, start, 2), 2);
	ck_assert_uint_eq(own_state(&m, 0), RB_OWN_EXITED);
	ck_assert_uint_eq(own_state(&m, 1), RB_OWN_EXITED);
	ck_assert_uint_eq(own_state(&m, 2), RB_OWN_LIVE);
	ck_assert_uint_eq(own_state(&m, 3), RB_OWN_FREE);
	rb_file_close(&m);
}
END_TEST

START_TEST(test_ring_claim_race)
{
	/* two processes claim concurrently: no ring is handed out twice */
	struct rb_geometry g = { 64, 4, 8, 64, 1024, 16 };
	struct rb_map m;
	int fds[2], hold[2], i, status, mine = 0;
	pid_t child;
	uint8_t seen[64] = { 0 };
	char c;

	open_file(&m, "c.trace", &g);
	ck_assert_int_eq(pipe(fds), 0);
	/* The child lives until the parent has claimed: a dead claimer's rings are rightly taken back. */
	ck_assert_int_eq(pipe(hold), 0);
	child = fork();
	if (child == 0) {
		pid_t p = getpid();

		close(hold[1]);
		for (i = 0; i < 40; i++) {
			int r = rb_ring_claim(&m, p);
			uint8_t b = (uint8_t)r;

			if (r < 0)
				break;
			make_live(&m, r, p, rb_proc_start_time(p));
			if (write(fds[1], &b, 1) != 1)
				_exit(1);
		}
		close(fds[1]);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(fds[1]);
	close(hold[0]);
	for (i = 0; i < 40; i++) {
		int r = rb_ring_claim(&m, getpid());

		if (r < 0)
			break;
		ck_assert_int_eq(seen[r], 0);
		seen[r] = 1;
		mine++;
	}
	close(hold[1]);
	for (;;) {
		uint8_t b;

		if (read(fds[0], &b, 1) != 1)
			break;
		ck_assert_int_eq(seen[b], 0);
		seen[b] = 2;
	}
	close(hold[1]);
	waitpid(child, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (i = 0, status = 0; i < 64; i++)
		status += seen[i] != 0;
	ck_assert_int_eq(status, 64);	/* every ring taken exactly once */
	ck_assert_int_ge(mine, 1);
	rb_file_close(&m);
}
END_TEST

/* ---- slot publication: the real hooks against a concurrent reader ----- */

#define PUB_SLOTS	8
#define PUB_ROUNDS	400000

/* A frame's fields are functions of its level and a round number. */
#define FN(k, n)	((void *)(uintptr_t)(0x100000u + (((uint64_t)(n) << 12) | ((k) << 4))))
#define SITE(fn)	((void *)((uintptr_t)(fn) ^ 0x5a5a5a5a5au))

/*
 * The entry hook as called from ever deeper machine frames: a flat loop
 * of calls here stands for a chain of nested functions.
 */
static __thread uint64_t test_sp = 1ull << 46;

static void enter(void *fn, void *site)
{
	test_sp -= 64;
	rb_enter_at(fn, site, test_sp);
}

struct pub_state {
	struct rb_ring	*ring;
	_Atomic int	done;
	_Atomic int	started;
};

static void *pub_writer(void *arg)
{
	struct pub_state *ps = arg;
	uint32_t n, k, depth;

	/* the first hook claims this thread's ring */
	enter(FN(0, 0), SITE(FN(0, 0)));
	ps->ring = rb_self.ring;
	atomic_store(&ps->started, 1);
	for (n = 1; n <= PUB_ROUNDS; n++) {
		depth = 1 + n % (PUB_SLOTS * 3);	/* wraps, unwinds, wraps again */
		for (k = 1; k < depth; k++)
			enter(FN(k, n), SITE(FN(k, n)));
		for (k = depth - 1; k >= 1; k--)
			__cyg_profile_func_exit(FN(k, n), SITE(FN(k, n)));
	}
	atomic_store(&ps->done, 1);
	return NULL;
}

START_TEST(test_publish_no_torn_frames)
{
	struct pub_state ps = { 0 };
	struct rb_header *h;
	uint64_t attempts = 0, accepted = 0, torn = 0, lost = 0, bad = 0;
	pthread_t th;
	char path[512];

	snprintf(path, sizeof(path), "%s/pub.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	setenv("RBTRACE_SLOTS", "8", 1);
	ck_assert_int_eq(pthread_create(&th, NULL, pub_writer, &ps), 0);
	while (!atomic_load(&ps.started))
		sched_yield();
	ck_assert_ptr_nonnull(ps.ring);
	h = rb_proc.map.hdr;
	ck_assert_uint_eq(h->slots, PUB_SLOTS);

	while (!atomic_load(&ps.done) || attempts < 1000000) {
		int32_t d = RB_LOAD_ACQ(&ps.ring->depth);
		int32_t k, lo = d > PUB_SLOTS ? d - PUB_SLOTS : 0;

		for (k = d - 1; k >= lo; k--) {
			struct rb_slot *s = rb_slot_at(h, ps.ring,
				rb_slot_index((uint32_t)k, PUB_SLOTS, h->pinned));
			struct rb_slot c;
			uint32_t s1, s2;
			int tries;

			attempts++;
			for (tries = 0; tries < 100; tries++) {
				s1 = RB_LOAD_ACQ(&s->seq);
				if (s1 & 1)
					continue;
				c.depth = RB_LOAD(&s->depth);
				c.fn = RB_LOAD(&s->fn);
				c.site = RB_LOAD(&s->site);
				__atomic_thread_fence(__ATOMIC_ACQUIRE);
				s2 = RB_LOAD(&s->seq);
				if (s1 == s2)
					break;
			}
			if (tries == 100) {
				torn++;
				continue;
			}
			if (c.depth != (uint32_t)k) {
				lost++;		/* overwritten by a deeper frame */
				continue;
			}
			accepted++;
			if (c.site != (uintptr_t)SITE(c.fn) ||
			    ((c.fn >> 4) & 0xff) != (uint64_t)k)
				bad++;
		}
	}
	pthread_join(th, NULL);
	/* the accounting identity: every attempt is accepted, lost or torn */
	ck_assert_uint_eq(accepted + lost + torn, attempts);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_ge(attempts, 1000000);
	ck_assert_uint_gt(accepted, attempts / 4);
	/* the writer's stack is balanced: back to its first frame */
	ck_assert_int_eq(RB_LOAD(&ps.ring->depth), 1);
}
END_TEST

/* ---- a detach while threads run in the hooks (thread.c's handshake) ---- */

#define REL_WRITERS	4
#define REL_ROUNDS	60

struct rel_writer {
	pthread_t		 th;
	struct rb_thread	*self;		/* its rb_self */
	_Atomic uint64_t	 hooks;		/* hook pairs made */
	_Atomic int		*stop;
	int			 id;
};

static void *rel_main(void *arg)
{
	struct rel_writer *w = arg;
	uint32_t n, k, depth;

	w->self = &rb_self;
	for (n = 1; !atomic_load(w->stop); n++) {
		depth = 1 + (n + (uint32_t)w->id) % 12;
		for (k = 0; k < depth; k++)
			enter(FN(k, n), SITE(FN(k, n)));
		for (k = depth; k-- > 0;)
			__cyg_profile_func_exit(FN(k, n), SITE(FN(k, n)));
		atomic_fetch_add(&w->hooks, 1);
	}
	return NULL;
}

/* Wait until every writer has made @more hook pairs since @from. */
static void rel_advance(struct rel_writer *w, const uint64_t *from, uint64_t more)
{
	int i;

	for (i = 0; i < REL_WRITERS; i++)
		while (atomic_load(&w[i].hooks) < from[i] + more)
			sched_yield();
}

static int rel_traced(struct rel_writer *w)
{
	int i, n = 0;

	for (i = 0; i < REL_WRITERS; i++)
		n += RB_LOAD(&w[i].self->state) == RB_T_TRACED;
	return n;
}

/*
 * Writers run hooks without pause while rings are taken away and given
 * again, as a detach and an attach do: every ring comes back (none kept),
 * a writer whose ring was taken claims none until the next attach, and
 * after each attach every writer writes its own ring, none another's.
 */
START_TEST(test_release_under_hooks)
{
	struct rel_writer w[REL_WRITERS];
	_Atomic int stop = 0;
	uint64_t at[REL_WRITERS];
	uint32_t released, kept;
	bool fenced;
	char path[512];
	int i, j, round;

	snprintf(path, sizeof(path), "%s/rel.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	enter(FN(0, 0), SITE(FN(0, 0)));	/* the process is set up */
	ck_assert_ptr_nonnull(rb_self.ring);
	__atomic_store_n(&rb_attached, RB_ATT_ON, __ATOMIC_RELEASE);
	memset(w, 0, sizeof(w));
	for (i = 0; i < REL_WRITERS; i++) {
		w[i].stop = &stop;
		w[i].id = i;
		ck_assert_int_eq(pthread_create(&w[i].th, NULL, rel_main, &w[i]), 0);
	}
	for (i = 0; i < REL_WRITERS; i++)
		while (atomic_load(&w[i].hooks) == 0)
			sched_yield();
	for (round = 0; round < REL_ROUNDS; round++) {
		while (rel_traced(w) != REL_WRITERS)
			sched_yield();
		/*
		 * Every writer on a ring of its own, named with its tid.  Under
		 * the table's lock, which a writer took after it wrote its tid
		 * and index, and holds while it opens its gate.
		 */
		pthread_mutex_lock(&rb_thread_lock);
		for (i = 0; i < REL_WRITERS; i++) {
			struct rb_thread *t = w[i].self;
			struct rb_ring *g = RB_LOAD(&t->gate);

			ck_assert_ptr_nonnull(g);
			ck_assert_int_eq(RB_LOAD(&g->tid), t->tid);
			for (j = 0; j < i; j++)
				ck_assert_uint_ne(t->index, w[j].self->index);
		}
		pthread_mutex_unlock(&rb_thread_lock);
		__atomic_store_n(&rb_attached, RB_ATT_OFF, __ATOMIC_RELEASE);
		released = rb_thread_release_all(10ull * 1000000000ull, &kept, &fenced);
		ck_assert(fenced);
		ck_assert_uint_eq(kept, 0);
		/* The writers' rings and this thread's own. */
		ck_assert_uint_eq(released, REL_WRITERS + (round == 0));
		/* Detached: hooks go on, nothing is claimed. */
		for (i = 0; i < REL_WRITERS; i++)
			at[i] = atomic_load(&w[i].hooks);
		rel_advance(w, at, 200);
		ck_assert_int_eq(rel_traced(w), 0);
		for (i = 0; i < REL_WRITERS; i++)
			ck_assert_ptr_null(RB_LOAD(&w[i].self->gate));
		__atomic_store_n(&rb_attached, RB_ATT_ON, __ATOMIC_RELEASE);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < REL_WRITERS; i++)
		pthread_join(w[i].th, NULL);
}
END_TEST

START_TEST(test_hooks_wrap_and_resync)
{
	char path[512];
	struct rb_thread *t;
	int k;

	snprintf(path, sizeof(path), "%s/w.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	setenv("RBTRACE_SLOTS", "4", 1);
	for (k = 0; k < 10; k++)
		enter(FN(k, 1), SITE(FN(k, 1)));
	t = &rb_self;
	ck_assert_int_eq(t->state, RB_T_TRACED);
	ck_assert_int_eq(t->ring->depth, 10);
	ck_assert_int_eq(t->ring->currSlot, rb_slot_index(10, 4, 1));
	/* unwinding through overwritten slots pops one level each */
	for (k = 9; k >= 5; k--)
		__cyg_profile_func_exit(FN(k, 1), SITE(FN(k, 1)));
	ck_assert_int_eq(t->ring->depth, 5);
	/* a longjmp over two frames: the exit of level 2 unwinds to it */
	__cyg_profile_func_exit(FN(2, 1), SITE(FN(2, 1)));
	ck_assert_int_eq(t->ring->depth, 4);	/* level 4's slot holds level 7: cannot check, one pop */
	enter(FN(4, 2), NULL);
	enter(FN(5, 2), NULL);
	enter(FN(6, 2), NULL);
	ck_assert_int_eq(t->ring->depth, 7);
	__cyg_profile_func_exit(FN(4, 2), NULL);	/* skips 6 and 5 */
	ck_assert_int_eq(t->ring->depth, 4);
	/*
	 * An exit whose entry was never seen (a function switched on while
	 * inside it): levels 3 to 1 hold deeper frames, cannot be checked
	 * and pop one each; level 0 holds FN(0, 1), checked: nothing pops.
	 */
	for (k = 0; k < 10; k++)
		__cyg_profile_func_exit(FN(0, 9), NULL);
	ck_assert_int_eq(t->ring->depth, 1);
	/* exits below the first frame never go negative */
	for (k = 0; k < 10; k++)
		__cyg_profile_func_exit(FN(0, 1), NULL);
	ck_assert_int_eq(t->ring->depth, 0);
}
END_TEST

/*
 * A function switched on while a thread is inside it: its exit comes
 * without its entry and pops nothing; the frames below stay as they are.
 */
START_TEST(test_hooks_exit_unentered)
{
	char path[512];
	struct rb_thread *t;

	snprintf(path, sizeof(path), "%s/u.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	enter(FN(0, 1), SITE(FN(0, 1)));
	enter(FN(1, 1), SITE(FN(1, 1)));
	t = &rb_self;
	ck_assert_int_eq(t->ring->depth, 2);
	__cyg_profile_func_exit(FN(5, 1), SITE(FN(5, 1)));
	ck_assert_int_eq(t->ring->depth, 2);
	__cyg_profile_func_exit(FN(1, 1), SITE(FN(1, 1)));
	ck_assert_int_eq(t->ring->depth, 1);
	__cyg_profile_func_exit(FN(5, 1), SITE(FN(5, 1)));
	ck_assert_int_eq(t->ring->depth, 1);
	__cyg_profile_func_exit(FN(0, 1), SITE(FN(0, 1)));
	ck_assert_int_eq(t->ring->depth, 0);
}
END_TEST

/* The function on slot level @k of the calling thread's ring. */
static uint64_t ring_fn(uint32_t k)
{
	struct rb_thread *t = &rb_self;

	return rb_slot_at(rb_proc.map.hdr, t->ring,
			  rb_slot_index(k, t->nslots, t->pinned))->fn;
}

START_TEST(test_hooks_unwound)
{
	char path[512];
	struct rb_thread *t = &rb_self;

	snprintf(path, sizeof(path), "%s/u.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	/* main -> y -> x -> x2, each deeper on the stack */
	rb_enter_at(FN(0, 1), SITE(FN(0, 1)), 10000);
	rb_enter_at(FN(1, 1), SITE(FN(1, 1)), 9000);
	rb_enter_at(FN(2, 1), SITE(FN(2, 1)), 8000);
	rb_enter_at(FN(3, 1), SITE(FN(3, 1)), 7000);
	ck_assert_int_eq(t->ring->depth, 4);
	/* x and x2 were unwound without exits; y calls g, whose frame is where x's was */
	rb_enter_at(FN(4, 1), SITE(FN(4, 1)), 8000);
	ck_assert_int_eq(t->ring->depth, 3);
	ck_assert_uint_eq(ring_fn(2), (uintptr_t)FN(4, 1));
	ck_assert_uint_eq(ring_fn(1), (uintptr_t)FN(1, 1));
	/* a function inlined into g: same stack pointer and return address */
	rb_enter_at(FN(5, 1), SITE(FN(4, 1)), 8000);
	ck_assert_int_eq(t->ring->depth, 4);
	__cyg_profile_func_exit(FN(5, 1), NULL);
	/* g gone, a bigger frame called from y: deeper than g's, g still goes */
	rb_enter_at(FN(6, 1), SITE(FN(6, 1)), 8000);
	ck_assert_int_eq(t->ring->depth, 3);
	ck_assert_uint_eq(ring_fn(2), (uintptr_t)FN(6, 1));
	/* the same function and return address: inlined into itself */
	rb_enter_at(FN(6, 1), SITE(FN(6, 1)), 8000);
	ck_assert_int_eq(t->ring->depth, 4);
	__cyg_profile_func_exit(FN(6, 1), NULL);
	/* another stack (a signal's alternate stack above ours): nothing goes */
	rb_enter_at(FN(7, 1), SITE(FN(7, 1)), 50000);
	ck_assert_int_eq(t->ring->depth, 4);
	__cyg_profile_func_exit(FN(7, 1), NULL);
	/* a named frame is never taken for gone, nor anything below it */
	ck_assert_int_eq(rbtrace_push("interp", "x.py", 1), 4);
	rb_enter_at(FN(8, 1), SITE(FN(8, 1)), 7900);
	ck_assert_int_eq(t->ring->depth, 5);
	rb_enter_at(FN(9, 1), SITE(FN(9, 1)), 9500);
	ck_assert_int_eq(t->ring->depth, 5);	/* only the frame above it went */
	ck_assert_uint_eq(ring_fn(4), (uintptr_t)FN(9, 1));
}
END_TEST

START_TEST(test_hooks_keep_errno)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/e.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	errno = 4242;
	__cyg_profile_func_enter(FN(0, 1), NULL);	/* the slow first hook */
	ck_assert_int_eq(errno, 4242);
	__cyg_profile_func_enter(FN(1, 1), NULL);
	__cyg_profile_func_exit(FN(1, 1), NULL);
	ck_assert_int_eq(errno, 4242);
}
END_TEST

/* ---- breakpoints ------------------------------------------------------- */

#define BP_FN(k)	((void *)(uintptr_t)(0x7f0000100000ull + (k) * 0x1230ull))

/* Write table entry @i (SET) as a monitor would; with @bit its filter bit. */
static void bp_put(uint32_t i, uint32_t id, uint64_t image, int32_t tid,
		   void *fn, uint32_t from, uint32_t loc, uint32_t nlocs,
		   bool bit)
{
	struct rb_bp *b = rb_bp_at(rb_proc.map.base, rb_proc.map.hdr, i);
	uint64_t *f = rb_bpfilter(rb_proc.map.base, rb_proc.map.hdr);
	uint32_t h = rb_bp_hash((uintptr_t)fn);

	b->id = id;
	b->pid = rb_proc.pid;
	b->tid = tid;
	b->pstart = rb_proc.pstart;
	b->image = image;
	b->addr = (uintptr_t)fn;
	b->hits = 0;
	b->from = from;
	b->loc = loc;
	b->nlocs = nlocs;
	snprintf(b->name, sizeof(b->name), "bp%u", id);
	RB_STORE_REL(&b->ctl, RB_BP_MAKE(RB_BP_SET, 1));
	if (bit)
		__atomic_fetch_or(&f[h >> 6], 1ull << (h & 63), __ATOMIC_SEQ_CST);
}

static struct rb_bp *bp_get(uint32_t i)
{
	return rb_bp_at(rb_proc.map.base, rb_proc.map.hdr, i);
}

/* Is @fn's bit set in the filter? */
static bool bp_bit(void *fn)
{
	uint64_t *f = rb_bpfilter(rb_proc.map.base, rb_proc.map.hdr);
	uint32_t h = rb_bp_hash((uintptr_t)fn);

	return (RB_LOAD(&f[h >> 6]) >> (h & 63)) & 1;
}

static void bp_calls(void *fn, int n)
{
	while (n-- > 0) {
		__cyg_profile_func_enter(fn, NULL);
		__cyg_profile_func_exit(fn, NULL);
	}
}

static void *bp_own_thread(void *arg)
{
	(void)arg;
	bp_calls(BP_FN(9), 1);
	bp_put(7, 9, rb_proc.image, rb_gettid(), BP_FN(4), 1000, 0, 1, true);
	bp_calls(BP_FN(4), 2);
	return (void *)(uintptr_t)RB_LOAD(&bp_get(7)->hits);
}

START_TEST(test_hooks_breakpoints)
{
	char path[512];
	struct rb_ring *r;
	pthread_t th;
	void *ret;
	pid_t child;
	int32_t tid;
	int status, k;
	uint32_t i, copies = 0;

	snprintf(path, sizeof(path), "%s/b.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	setenv("RBTRACE_ORPHAN_TIMEOUT", "1", 1);
	bp_calls(BP_FN(0), 1);
	r = rb_self.ring;
	ck_assert_ptr_nonnull(r);
	tid = rb_gettid();
	for (k = 0; k < 5; k++)
		for (i = (uint32_t)k + 1; i < 5; i++)
			ck_assert_uint_ne(rb_bp_hash((uintptr_t)BP_FN(k)),
					  rb_bp_hash((uintptr_t)BP_FN(i)));

	/* id 1 at two places; 2 of another image; 3 another thread's; 4 ours. */
	bp_put(0, 1, rb_proc.image, 0, BP_FN(1), 6, 0, 2, true);
	bp_put(5, 1, rb_proc.image, 0, BP_FN(2), 6, 1, 2, true);
	bp_put(1, 2, rb_proc.image + 1000, 0, BP_FN(1), 1, 0, 1, true);
	bp_put(2, 3, rb_proc.image, tid + 1, BP_FN(1), 1, 0, 1, true);
	bp_put(3, 4, rb_proc.image, tid, BP_FN(2), 1000, 0, 1, true);
	/* In force but without its filter bit: never looked at. */
	bp_put(4, 5, rb_proc.image, 0, BP_FN(3), 1, 0, 1, false);
	bp_calls(BP_FN(1), 3);
	bp_calls(BP_FN(2), 2);
	bp_calls(BP_FN(3), 4);
	ck_assert_uint_eq(bp_get(0)->hits, 3);
	ck_assert_uint_eq(bp_get(5)->hits, 2);
	ck_assert_uint_eq(bp_get(1)->hits, 0);
	ck_assert_uint_eq(bp_get(2)->hits, 0);
	ck_assert_uint_eq(bp_get(3)->hits, 2);
	ck_assert_uint_eq(bp_get(4)->hits, 0);
	ck_assert_uint_eq(r->stops, 0);

	/* The 6th hit of id 1, at either place: a stop (ended by the orphan timeout). */
	bp_calls(BP_FN(1), 1);
	ck_assert_uint_eq(r->stops, 1);
	ck_assert_uint_eq(r->orphaned, 1);
	ck_assert_uint_eq(r->stopfn, (uintptr_t)BP_FN(1));

	/* No monitor: this image's breakpoints lapsed, another image's stay; so do the filter bits. */
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(RB_BP_STATE(bp_get(i)->ctl),
				  i == 1 ? RB_BP_SET : RB_BP_FREE);
	ck_assert(bp_bit(BP_FN(1)));
	ck_assert(!bp_bit(BP_FN(2)));
	bp_calls(BP_FN(1), 10);
	bp_calls(BP_FN(2), 10);
	ck_assert_uint_eq(r->stops, 1);
	ck_assert_uint_eq(bp_get(1)->hits, 0);

	/* Set again, as they were, for what follows. */
	bp_put(0, 1, rb_proc.image, 0, BP_FN(1), 6, 0, 2, true);
	bp_put(5, 1, rb_proc.image, 0, BP_FN(2), 6, 1, 2, true);
	bp_put(3, 4, rb_proc.image, tid, BP_FN(2), 1000, 0, 1, true);
	bp_put(4, 5, rb_proc.image, 0, BP_FN(3), 1, 0, 1, false);
	bp_get(0)->hits = 4;
	bp_get(5)->hits = 2;

	/* A thread's own breakpoint goes with it. */
	ck_assert_int_eq(pthread_create(&th, NULL, bp_own_thread, NULL), 0);
	ck_assert_int_eq(pthread_join(th, &ret), 0);
	ck_assert_uint_eq((uintptr_t)ret, 2);
	ck_assert_uint_eq(RB_BP_STATE(bp_get(7)->ctl), RB_BP_FREE);

	/* A fork child gets id 1's two places (hits too) and id 5, not id 4. */
	child = fork();
	if (child == 0) {
		for (i = 0; i < RB_BP_ENTRIES; i++) {
			struct rb_bp *b = bp_get(i);
			uint64_t want = b->id == 5 ? 0 : b->loc == 0 ? 4 : 2;

			if (RB_BP_STATE(b->ctl) != RB_BP_SET ||
			    b->image != rb_proc.image)
				continue;
			if ((b->id != 1 && b->id != 5) || b->pid != getpid() ||
			    b->tid != 0 || b->hits != want ||
			    strncmp(b->name, "bp", 2) != 0)
				_exit(2);
			copies++;
		}
		_exit(copies == 3 ? 0 : 3);
	}
	ck_assert_int_gt(child, 0);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);

	/* A garbled table and filter: calls go on, nothing stops. */
	for (i = 0; i < RB_BP_ENTRIES * sizeof(struct rb_bp); i++)
		((unsigned char *)bp_get(0))[i] = (unsigned char)(i * 131 + 7);
	memset(rb_bpfilter(rb_proc.map.base, rb_proc.map.hdr), 0xff,
	       RB_BP_FILTER_BITS / 8);
	for (k = 0; k < 1000; k++)
		bp_calls(BP_FN(k % 8), 1);
	ck_assert_uint_eq(r->stops, 1);
	ck_assert_int_eq(r->depth, 0);
}
END_TEST

/*
 * A thread that resumed by itself while another thread clears what a gone
 * monitor set (the lapse) does not stop for single stepping again: single
 * is about to be cleared.
 */
START_TEST(test_hooks_lapse_single)
{
	char path[512];
	struct rb_header *h;
	struct rb_ring *r;

	snprintf(path, sizeof(path), "%s/l.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	setenv("RBTRACE_ORPHAN_TIMEOUT", "1", 1);
	bp_calls(BP_FN(0), 1);
	r = rb_self.ring;
	ck_assert_ptr_nonnull(r);
	h = rb_proc.map.hdr;

	/* Single stepping on, another thread's lapse under way: no stop. */
	RB_STORE(&h->single, 1);
	__atomic_fetch_or(&r->attention, RB_ATTN_SINGLE, __ATOMIC_SEQ_CST);
	__atomic_store_n(&rb_lapse_busy, (int32_t)rb_proc.pid, __ATOMIC_RELEASE);
	bp_calls(BP_FN(1), 3);
	ck_assert_uint_eq(r->stops, 0);
	ck_assert(RB_LOAD(&r->attention) & RB_ATTN_SINGLE);

	/* The lapse ends as rb_control_lapse() ends one: single cleared first. */
	RB_STORE(&h->single, 0);
	__atomic_store_n(&rb_lapse_busy, 0, __ATOMIC_RELEASE);
	bp_calls(BP_FN(1), 1);
	ck_assert_uint_eq(r->stops, 0);
	ck_assert(!(RB_LOAD(&r->attention) & RB_ATTN_SINGLE));

	/* A lapse of another process (a fork's parent's) does not count. */
	RB_STORE(&h->single, 1);
	__atomic_fetch_or(&r->attention, RB_ATTN_SINGLE, __ATOMIC_SEQ_CST);
	__atomic_store_n(&rb_lapse_busy, (int32_t)rb_proc.pid + 1,
			 __ATOMIC_RELEASE);
	bp_calls(BP_FN(1), 1);
	ck_assert_uint_eq(r->stops, 1);
	ck_assert_uint_eq(r->orphaned, 1);
	/* That stop ended by the orphan timeout, whose lapse cleared single. */
	ck_assert_int_eq(RB_LOAD(&h->single), 0);
	bp_calls(BP_FN(1), 2);
	ck_assert_uint_eq(r->stops, 1);
}
END_TEST

/* ---- interposed functions, first called by several threads at once --- */

#define FIRST_THREADS	4

struct first_call {
	pthread_barrier_t	go;
	int			ok[FIRST_THREADS];
	char			name[FIRST_THREADS][16];
	char			seen[FIRST_THREADS][RB_THREAD_NAME_MAX + 1];
};

static struct first_call *first;

static void *first_caller(void *arg)
{
	int k = (int)(intptr_t)arg;
	struct rb_ring *r;
	void *h;

	enter(FN(1, k), SITE(FN(1, k)));	/* claims this thread's ring */
	r = rb_self.ring;
	snprintf(first->name[k], sizeof(first->name[k]), "first-%d", k);
	pthread_barrier_wait(&first->go);
	/* The process's first calls: each resolves the next definition. */
	first->ok[k] = pthread_setname_np(pthread_self(), first->name[k]) == 0;
	h = dlopen(NULL, RTLD_LAZY);
	first->ok[k] &= h != NULL;
	if (h != NULL)
		dlclose(h);
	if (r != NULL)	/* else seen stays empty: the test fails */
		memcpy(first->seen[k], r->name, RB_THREAD_NAME_MAX);
	return NULL;
}

/*
 * The interposed functions find libc's on their first call, from whichever
 * threads make it: ThreadSanitizer fails this test on a plain cache.
 */
START_TEST(test_interpose_first_calls)
{
	static struct first_call fc;
	pthread_t th[FIRST_THREADS];
	char path[512];
	int k;

	snprintf(path, sizeof(path), "%s/first.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	first = &fc;
	enter(FN(0, 0), SITE(FN(0, 0)));	/* the library set up first */
	ck_assert_ptr_nonnull(rb_self.ring);
	ck_assert_int_eq(pthread_barrier_init(&fc.go, NULL, FIRST_THREADS), 0);
	for (k = 0; k < FIRST_THREADS; k++)
		ck_assert_int_eq(pthread_create(&th[k], NULL, first_caller,
						(void *)(intptr_t)k), 0);
	for (k = 0; k < FIRST_THREADS; k++)
		pthread_join(th[k], NULL);
	for (k = 0; k < FIRST_THREADS; k++) {
		ck_assert_int_eq(fc.ok[k], 1);
		ck_assert_str_eq(fc.seen[k], fc.name[k]);
	}
	pthread_barrier_destroy(&fc.go);
}
END_TEST

/* ---- clocks: what the hooks stamp slots and records with -------------- */

/* The calling thread's ring log: its records, and how many it holds. */
static struct rb_event *own_records(uint64_t *n)
{
	struct rb_evlog *l = rb_ring_evlog(rb_proc.map.hdr, rb_self.ring);

	*n = RB_LOAD(&l->head);
	ck_assert_uint_le(*n, rb_proc.map.hdr->events);	/* not wrapped */
	return rb_evlog_records(l);
}

/* The slot of level @k of the calling thread's ring. */
static const struct rb_slot *own_slot(uint32_t k)
{
	struct rb_thread *t = &rb_self;

	return rb_slot_at(rb_proc.map.hdr, t->ring,
			  rb_slot_index(k, t->nslots, t->pinned));
}

/* Enter @fn from here: the entry hook returns into this function. */
static __attribute__((noinline)) void enter_here(void *fn)
{
	__cyg_profile_func_enter(fn, NULL);
	__asm__ volatile("" ::: "memory");
}

/* A slot keeps the entry hook's return address; named frames none. */
START_TEST(test_hooks_hook_address)
{
	uintptr_t here = (uintptr_t)enter_here;
	char path[512];
	uint64_t h;

	snprintf(path, sizeof(path), "%s/h.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	enter_here(FN(0, 1));		/* the slow first hook */
	h = RB_LOAD(&own_slot(0)->hook);
	ck_assert(h > here && h < here + 64);
	/* the fast path; same stack pointer and site: taken for inlined */
	enter_here(FN(1, 1));
	ck_assert_uint_eq(RB_LOAD(&own_slot(1)->fn), (uintptr_t)FN(1, 1));
	h = RB_LOAD(&own_slot(1)->hook);
	ck_assert(h > here && h < here + 64);
	ck_assert_int_eq(rbtrace_push("named", "x.c", 7), 3);
	ck_assert_uint_eq(RB_LOAD(&own_slot(2)->hook), 0);
}
END_TEST

/* A few calls, a return, a named frame and a line mark. */
static void clock_calls(void)
{
	int k;

	for (k = 0; k < 4; k++)
		enter(FN(k, 1), SITE(FN(k, 1)));
	__cyg_profile_func_exit(FN(3, 1), SITE(FN(3, 1)));
	ck_assert_int_eq(rbtrace_push("named", "x.c", 7), 4);
	rbtrace_line(8);
	ck_assert_int_eq(rbtrace_pop(), 3);
	enter(FN(3, 2), SITE(FN(3, 2)));
}

/* The records clock_calls() leaves, by kind (text records skipped). */
static const uint32_t clock_kinds[] = {
	RB_EV_ENTRY, RB_EV_ENTRY, RB_EV_ENTRY, RB_EV_ENTRY, RB_EV_EXIT,
	RB_EV_NAMED, RB_EV_LINE, RB_EV_NAMED_EXIT, RB_EV_ENTRY,
};
#define CLOCK_RECORDS	(sizeof(clock_kinds) / sizeof(clock_kinds[0]))

/*
 * Check the records' kinds against clock_kinds; @ts gets their stamps.
 * Return: the records, text records included.
 */
static uint64_t clock_records(uint64_t *ts)
{
	struct rb_event *e;
	uint64_t n, i, k = 0;

	e = own_records(&n);
	for (i = 0; i < n; i++) {
		if (e[i].kind == RB_EV_TEXT)
			continue;
		ck_assert_uint_lt(k, CLOCK_RECORDS);
		ck_assert_uint_eq(e[i].kind, clock_kinds[k]);
		ts[k++] = e[i].ts;
	}
	ck_assert_uint_eq(k, CLOCK_RECORDS);
	return n;
}

START_TEST(test_clock_counter)
{
	struct rb_header *h;
	uint64_t ts[CLOCK_RECORDS], c0, c1, n0, n1, hz;
	char path[512];
	uint32_t k;

	if (RB_CLOCK_COUNTER == 0)
		return;		/* no counter here: see test_clock_mono */
	snprintf(path, sizeof(path), "%s/counter.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	setenv("RBTRACE_CLOCK", rb_clock_name(RB_CLOCK_COUNTER), 1);
	clock_calls();
	h = rb_proc.map.hdr;
	ck_assert_uint_eq(h->clock, RB_CLOCK_COUNTER);
	ck_assert_uint_eq(rb_self.slowclock, RB_TCLOCK_INLINE);
	ck_assert_uint_eq(rb_self.evstate, 0);
	clock_records(ts);
	/* Stamps of the counter: after the file's, in order. */
	ck_assert_uint_gt(ts[0], h->clock_tsc0);
	for (k = 1; k < CLOCK_RECORDS; k++)
		ck_assert_uint_ge(ts[k], ts[k - 1]);
	ck_assert_uint_le(ts[CLOCK_RECORDS - 1], rb_counter_read());
	/* A slot has its entry record's stamp. */
	for (k = 0; k < 3; k++)
		ck_assert_uint_eq(own_slot(k)->ts, ts[k]);
	ck_assert_uint_eq(own_slot(3)->ts, ts[CLOCK_RECORDS - 1]);

	/*
	 * The rate: CNTFRQ from the start, the TSC's measured once 10 ms
	 * have passed; either within 1% of what the counter and
	 * CLOCK_MONOTONIC say over 50 ms here.
	 */
	while (rb_clock_mono_ns() < h->clock_ns0 + 20000000u)
		;
	rb_clock_calibrate(h);
	hz = RB_LOAD(&h->clock_tsc_hz);
	c0 = rb_counter_read();
	n0 = rb_clock_mono_ns();
	while ((n1 = rb_clock_mono_ns()) < n0 + 50000000u)
		;
	c1 = rb_counter_read();
	ck_assert_uint_gt(hz, 1000000);
	ck_assert_msg(hz > (c1 - c0) * 1e9 / (n1 - n0) * 0.99 &&
		      hz < (c1 - c0) * 1e9 / (n1 - n0) * 1.01,
		      "rate %llu Hz, measured %.0f", (unsigned long long)hz,
		      (c1 - c0) * 1e9 / (n1 - n0));
}
END_TEST

START_TEST(test_clock_mono)
{
	uint64_t ts[CLOCK_RECORDS], before;
	char path[512];
	uint32_t k;

	snprintf(path, sizeof(path), "%s/mono.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	setenv("RBTRACE_CLOCK", "mono", 1);
	before = rb_clock_mono_ns();
	clock_calls();
	ck_assert_uint_eq(rb_proc.map.hdr->clock, RB_CLOCK_MONO);
	ck_assert_uint_eq(rb_self.slowclock, RB_TCLOCK_CALL);
	clock_records(ts);
	ck_assert_uint_ge(ts[0], before);
	for (k = 1; k < CLOCK_RECORDS; k++)
		ck_assert_uint_ge(ts[k], ts[k - 1]);
	ck_assert_uint_le(ts[CLOCK_RECORDS - 1], rb_clock_mono_ns());
	ck_assert_uint_eq(own_slot(0)->ts, ts[0]);
}
END_TEST

/* No clock: slots 0; records their place in the log, from 1 (ring), or
   a sequence that never goes back (fill, drain). */
static const char *const none_policies[] = { "ring", "fill", "drain" };

START_TEST(test_clock_none)
{
	uint64_t ts[CLOCK_RECORDS], n, k, i;
	struct rb_event *e;
	char path[512];

	snprintf(path, sizeof(path), "%s/none.trace", tmpdir);
	setenv("RBTRACE_FILE", path, 1);
	setenv("RBTRACE_CLOCK", "none", 1);
	setenv("RBTRACE_POLICY", none_policies[_i], 1);
	clock_calls();
	ck_assert_uint_eq(rb_proc.map.hdr->clock, RB_CLOCK_NONE);
	ck_assert_uint_eq(rb_self.slowclock, RB_TCLOCK_NONE);
	ck_assert_uint_eq(rb_self.evstate, _i == 0 ? RB_EVS_SEQ : RB_EVS_SLOW);
	for (k = 0; k < 4; k++)
		ck_assert_uint_eq(own_slot((uint32_t)k)->ts, 0);
	n = clock_records(ts);
	e = own_records(&n);
	for (i = 0, k = 0; i < n; i++) {
		if (e[i].kind == RB_EV_TEXT)
			continue;
		if (_i == 0)
			ck_assert_uint_eq(e[i].ts, i + 1);
		else
			ck_assert_uint_ge(e[i].ts, k == 0 ? 1 : ts[k - 1]);
		k++;
	}
	/* A stop and a resume are stamped alike. */
	rb_ev_mark(&rb_self, RB_EV_STOP, 0, 0);
	e = own_records(&n);
	ck_assert_uint_eq(e[n - 1].kind, RB_EV_STOP);
	ck_assert_uint_eq(e[n - 1].ts, n);
	/* Switched off and on: the ON mark and what follows continue it. */
	RB_STORE(&rb_ring_evlog(rb_proc.map.hdr, rb_self.ring)->off, 1);
	enter(FN(4, 1), SITE(FN(4, 1)));
	RB_STORE(&rb_ring_evlog(rb_proc.map.hdr, rb_self.ring)->off, 0);
	enter(FN(5, 1), SITE(FN(5, 1)));
	e = own_records(&n);
	ck_assert_uint_eq(e[n - 3].kind, RB_EV_OFF);
	ck_assert_uint_eq(e[n - 2].kind, RB_EV_ON);
	ck_assert_uint_eq(e[n - 1].kind, RB_EV_ENTRY);
	ck_assert_uint_eq(e[n - 1].fn, (uintptr_t)FN(5, 1));
	for (i = n - 3; i < n; i++)
		ck_assert_uint_ge(e[i].ts, e[i - 1].ts);
	ck_assert_uint_ge(e[n - 1].ts, n - 1);
	ck_assert_uint_eq(own_slot(5)->ts, 0);
}
END_TEST

Suite *suite_lib(void)
{
	Suite *s = suite_create("lib");
	TCase *tc;

	tc = tcase_create("settings");
	tcase_add_test(tc, test_parse_uint);
	tcase_add_test(tc, test_settings_defaults);
	tcase_add_test(tc, test_settings_good);
	tcase_add_loop_test(tc, test_settings_bad, 0,
			    sizeof(bad_env) / sizeof(bad_env[0]));
	tcase_add_test(tc, test_settings_too_large);
	suite_add_tcase(s, tc);

	tc = tcase_create("layout");
	tcase_add_loop_test(tc, test_layout_alignment, 0, 5);
	tcase_add_test(tc, test_layout_structs);
	tcase_add_test(tc, test_layout_refuses_huge);
	suite_add_tcase(s, tc);

	tc = tcase_create("file");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, test_file_create);
	tcase_add_test(tc, test_file_validate);
	tcase_add_test(tc, test_file_refuses);
	tcase_add_test(tc, test_file_stale_replaced);
	suite_add_tcase(s, tc);

	tc = tcase_create("rings");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, test_ring_exhaust_and_reuse);
	tcase_add_test(tc, test_ring_reclaim_dead);
	tcase_add_test(tc, test_ring_release_image);
	tcase_add_test(tc, test_ring_claim_race);
	suite_add_tcase(s, tc);

	tc = tcase_create("hooks");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_publish_no_torn_frames);
	tcase_add_test(tc, test_release_under_hooks);
	tcase_add_test(tc, test_hooks_wrap_and_resync);
	tcase_add_test(tc, test_hooks_exit_unentered);
	tcase_add_test(tc, test_hooks_unwound);
	tcase_add_test(tc, test_hooks_keep_errno);
	tcase_add_test(tc, test_hooks_hook_address);
	tcase_add_test(tc, test_hooks_breakpoints);
	tcase_add_test(tc, test_hooks_lapse_single);
	suite_add_tcase(s, tc);

	tc = tcase_create("clocks");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, test_clock_counter);
	tcase_add_test(tc, test_clock_mono);
	tcase_add_loop_test(tc, test_clock_none, 0,
			    sizeof(none_policies) / sizeof(none_policies[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("interpose");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, test_interpose_first_calls);
	suite_add_tcase(s, tc);
	return s;
}
