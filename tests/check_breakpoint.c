/* SPDX-License-Identifier: MIT */
/* check_breakpoint: rbmon's breakpoint names, table and filter. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <check.h>

#include "monitor/core/breakpoint.h"

Suite	*suite_breakpoint(void);

/* ---- names ------------------------------------------------------------- */

START_TEST(test_name_match)
{
	static const struct {
		const char	*q, *d;
		int		 want;
	} t[] = {
		{ "descend<0>", "int descend<0>(int)", 1 },
		{ "int descend<0>", "int descend<0>(int)", 1 },
		{ "descend<0>(int)", "int descend<0>(int)", 1 },
		{ "int descend<0>(int)", "int descend<0>(int)", 1 },
		{ "descend<1>", "int descend<0>(int)", 0 },
		{ "descend", "int descend<0>(int)", 0 },
		{ "escend<0>", "int descend<0>(int)", 0 },
		{ "Json::Value::operator[]", "Json::Value::operator[](int)", 1 },
		{ "Json::Value::operator[]",
		  "Json::Value::operator[](char const*) const", 1 },
		{ "Json::Value::operator[](int) const",
		  "Json::Value::operator[](int) const", 1 },
		{ "Json::Value::operator[](int)const",
		  "Json::Value::operator[](int) const", 1 },
		{ "operator[]", "Json::Value::operator[](int)", 0 },
		{ "Value::operator[]", "Json::Value::operator[](int)", 0 },
		{ "ns::f(int,char)", "ns::f(int, char)", 1 },
		{ "ns::f", "ns::f(int, char)", 1 },
		{ "f", "ns::f(int, char)", 0 },
		{ "Foo::operator()", "Foo::operator()(int) const", 1 },
		{ "Foo::operator<", "Foo::operator<(Foo const&) const", 1 },
		{ "Foo::operator->", "Foo::operator->()", 1 },
		{ "Foo::operator new", "Foo::operator new(unsigned long)", 1 },
		{ "new", "Foo::operator new(unsigned long)", 0 },
		{ "(anonymous namespace)::g",
		  "(anonymous namespace)::g(int)", 1 },
		{ "std::pair<int, int> make<3>", "std::pair<int, int> make<3>()",
		  1 },
		{ "make<3>", "std::pair<int, int> make<3>()", 1 },
		{ "main", "main", 1 },
		{ "", "main", 0 },
	};
	size_t	i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++)
		ck_assert_msg(rbmon_bp_name_match(t[i].q, t[i].d) == t[i].want,
		    "'%s' names '%s': expected %d", t[i].q, t[i].d, t[i].want);
}
END_TEST

START_TEST(test_symbol_kind)
{
	size_t	b;

	ck_assert_int_eq(rbmon_bp_symbol_kind("alpha", &b), RBMON_BP_SYM_FUNC);
	ck_assert_uint_eq(b, 5);
	ck_assert_int_eq(rbmon_bp_symbol_kind("_ZN4Json5ValueixEi.cold", &b),
	    RBMON_BP_SYM_FRAGMENT);
	ck_assert_uint_eq(b, 18);
	ck_assert_int_eq(rbmon_bp_symbol_kind("main.cold.3", &b),
	    RBMON_BP_SYM_FRAGMENT);
	ck_assert_int_eq(rbmon_bp_symbol_kind("f.part.0", &b),
	    RBMON_BP_SYM_FRAGMENT);
	ck_assert_int_eq(rbmon_bp_symbol_kind("f.constprop.0.cold", &b),
	    RBMON_BP_SYM_FRAGMENT);
	ck_assert_int_eq(rbmon_bp_symbol_kind("scale.constprop.0", &b),
	    RBMON_BP_SYM_CLONE);
	ck_assert_uint_eq(b, 5);
	ck_assert_int_eq(rbmon_bp_symbol_kind("g.isra.0", &b),
	    RBMON_BP_SYM_CLONE);
	ck_assert_int_eq(rbmon_bp_symbol_kind("g.lto_priv.0", &b),
	    RBMON_BP_SYM_FUNC);
	ck_assert_int_eq(rbmon_bp_symbol_kind("g.localalias", &b),
	    RBMON_BP_SYM_FUNC);
	ck_assert_int_eq(rbmon_bp_symbol_kind("coldfn.particle", &b),
	    RBMON_BP_SYM_FUNC);
}
END_TEST

/* ---- the table ---------------------------------------------------------- */

struct bpfix {
	char			 path[64];
	int			 fd;
	void			*base;
	size_t			 size;
	struct rbmon_model	 m;
	struct rbmon_ctl	 c;
	struct rbmon_bp_scope	 sc;
};

static void
bpfix_make(struct bpfix *fx)
{
	struct rb_geometry	 g = { 2, 4, 16, RB_MIN_MSG_SZ, RB_MIN_GLOBAL_SZ,
				    4 };
	struct rb_layout	 l;
	struct rb_header	*h;
	char			*cause = NULL;

	ck_assert_int_eq(rb_layout_compute(&g, &l), 0);
	strcpy(fx->path, "/tmp/check-bp-XXXXXX.trace");
	fx->fd = mkstemps(fx->path, 6);
	ck_assert_int_ge(fx->fd, 0);
	ck_assert_int_eq(ftruncate(fx->fd, (off_t)l.total_size), 0);
	fx->size = l.total_size;
	fx->base = mmap(NULL, fx->size, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fx->fd, 0);
	ck_assert(fx->base != MAP_FAILED);
	h = fx->base;
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
	h->events_off = l.events_off;
	h->slot_size = l.slot_size;
	h->gma_off = l.gma_off;
	h->owners_off = l.owners_off;
	h->objects_off = l.objects_off;
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
	h->rings_off = l.rings_off;
	h->slots_off = l.slots_off;
	h->pinned = rb_slots_pinned(g.slots);
	h->msgarea_off = l.msgarea_off;
	h->creator_pid = getpid();
	h->clock = RB_CLOCK_MONO;
	h->ready = 1;
	ck_assert_int_eq(rbmon_model_open(&fx->m, fx->path, 0, &cause), 0);
	ck_assert_int_eq(rbmon_ctl_open(&fx->c, &fx->m, &cause), 0);
	fx->sc.pid = getpid();
	fx->sc.tid = getpid() + 1;
	fx->sc.pstart = rbmon_model_proc_start(getpid());
	fx->sc.image = 7;
}

static void
bpfix_done(struct bpfix *fx)
{
	rbmon_ctl_close(&fx->c);
	rbmon_model_close(&fx->m);
	munmap(fx->base, fx->size);
	close(fx->fd);
	unlink(fx->path);
}

/* Run @cmd @args; its status must be @want; returns the text (static). */
static const char *
bprun(struct bpfix *fx, const char *cmd, const char *args, int want)
{
	static char	 last[4096];
	char		*text = NULL;
	int		 r;

	r = rbmon_bp_run(&fx->c, NULL, &fx->sc, cmd, args, &text);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(r == want, "%s %s: %d '%s', expected %d", cmd, args, r,
	    text, want);
	snprintf(last, sizeof last, "%s", text);
	free(text);
	return last;
}

static int
bpfix_bit(struct bpfix *fx, uint64_t addr)
{
	const uint64_t	*f = rb_bpfilter(fx->base, fx->base);
	uint32_t	 h = rb_bp_hash(addr);

	return (int)((f[h >> 6] >> (h & 63)) & 1);
}

static size_t
bpfix_bits(struct bpfix *fx)
{
	const uint64_t	*f = rb_bpfilter(fx->base, fx->base);
	size_t		 i, n = 0;

	for (i = 0; i < RB_BP_FILTER_BITS / 64; i++)
		n += (size_t)__builtin_popcountll(f[i]);
	return n;
}

START_TEST(test_table_set_list_clear)
{
	struct bpfix	 fx;
	char		 want[256];

	bpfix_make(&fx);
	ck_assert_str_eq(bprun(&fx, "BLST", "", 1), "no breakpoints");
	ck_assert_uint_eq(bpfix_bits(&fx), 0);
	ck_assert_str_eq(bprun(&fx, "BRKP", "0x1000", 1),
	    "breakpoint 1 at 0x1000");
	ck_assert(bpfix_bit(&fx, 0x1000));
	ck_assert_uint_eq(bpfix_bits(&fx), 1);
	snprintf(want, sizeof want, "breakpoint 2 at 0x2040, stops from hit "
	    "7, thread %d only", fx.sc.tid);
	ck_assert_str_eq(bprun(&fx, "BRKP", "  0x2040   7  thread ", 1), want);
	snprintf(want, sizeof want, "1 hits=0 from=1 thread=all at=0x1000 "
	    "0x1000\n2 hits=0 from=7 thread=%d at=0x2040 0x2040", fx.sc.tid);
	ck_assert_str_eq(bprun(&fx, "BLST", "", 1), want);

	/* Another image of the same process sees none of them. */
	fx.sc.image = 8;
	ck_assert_str_eq(bprun(&fx, "BLST", "", 1), "no breakpoints");
	ck_assert_str_eq(bprun(&fx, "BCLR", "1", 0), "no breakpoint 1");
	ck_assert_str_eq(bprun(&fx, "BRKP", "0x3000", 1),
	    "breakpoint 3 at 0x3000");
	fx.sc.image = 7;

	ck_assert_str_eq(bprun(&fx, "BCLR", "1", 1), "cleared breakpoint 1");
	ck_assert(!bpfix_bit(&fx, 0x1000) ||
	    rb_bp_hash(0x1000) == rb_bp_hash(0x2040) ||
	    rb_bp_hash(0x1000) == rb_bp_hash(0x3000));
	ck_assert(bpfix_bit(&fx, 0x2040));
	ck_assert(bpfix_bit(&fx, 0x3000));
	ck_assert_str_eq(bprun(&fx, "BCLR", "*", 1), "cleared 1 breakpoint");
	ck_assert_str_eq(bprun(&fx, "BLST", "", 1), "no breakpoints");
	ck_assert(bpfix_bit(&fx, 0x3000));	/* image 8's */
	fx.sc.image = 8;
	ck_assert_str_eq(bprun(&fx, "BCLR", "*", 1), "cleared 1 breakpoint");
	ck_assert_uint_eq(bpfix_bits(&fx), 0);
	bpfix_done(&fx);
}
END_TEST

START_TEST(test_table_errors)
{
	struct bpfix	 fx;

	bpfix_make(&fx);
	bprun(&fx, "BRKP", "", 0);
	ck_assert_str_eq(bprun(&fx, "BRKP", "  ", 0),
	    "usage: BRKP FUNCTION [COUNT] [thread]");
	ck_assert_str_eq(bprun(&fx, "BRKP", "0x10 0", 0),
	    "hit count '0' is not a number from 1 to 4294967295");
	ck_assert_str_eq(bprun(&fx, "BRKP", "0x10 4294967296", 0),
	    "hit count '4294967296' is not a number from 1 to 4294967295");
	ck_assert_str_eq(bprun(&fx, "BCLR", "", 0), "usage: BCLR ID|*");
	ck_assert_str_eq(bprun(&fx, "BCLR", "1 2", 0), "usage: BCLR ID|*");
	ck_assert_str_eq(bprun(&fx, "BCLR", "-1", 0), "usage: BCLR ID|*");
	ck_assert_str_eq(bprun(&fx, "BCLR", "7", 0), "no breakpoint 7");
	ck_assert_str_eq(bprun(&fx, "BLST", "x", 0), "BLST takes no argument");
	bpfix_done(&fx);
}
END_TEST

START_TEST(test_table_full_and_reclaim)
{
	struct bpfix	 fx;
	struct rb_bp	*b;
	char		 a[32];
	uint32_t	 i;

	bpfix_make(&fx);
	for (i = 0; i < RB_BP_ENTRIES; i++) {
		snprintf(a, sizeof a, "%#x", 0x10000 + i * 16);
		bprun(&fx, "BRKP", a, 1);
	}
	ck_assert_str_eq(bprun(&fx, "BRKP", "0x99", 0), "no room for 1 more "
	    "location in the breakpoint table (256 entries); clear some with "
	    "BCLR");
	/* An entry of a process that is gone is taken back. */
	b = rb_bp_at(fx.base, fx.base, 17);
	b->pid = 0x7ffffff0;
	ck_assert_str_eq(bprun(&fx, "BRKP", "0x99", 1),
	    "breakpoint 257 at 0x99");
	/* So is one its writer left half-written, and one garbled. */
	b = rb_bp_at(fx.base, fx.base, 3);
	b->ctl = RB_BP_MAKE(RB_BP_WRITING, 9);
	b->setter = 0x7ffffff0;
	b = rb_bp_at(fx.base, fx.base, 4);
	b->ctl = 0xffffffffu;
	ck_assert_str_eq(bprun(&fx, "BRKP", "0x98", 1),
	    "breakpoint 258 at 0x98");
	ck_assert_str_eq(bprun(&fx, "BRKP", "0x97", 1),
	    "breakpoint 259 at 0x97");
	ck_assert_str_eq(bprun(&fx, "BRKP", "0x96", 0), "no room for 1 more "
	    "location in the breakpoint table (256 entries); clear some with "
	    "BCLR");
	ck_assert_str_eq(bprun(&fx, "BCLR", "*", 1),
	    "cleared 256 breakpoints");
	ck_assert_uint_eq(bpfix_bits(&fx), 0);
	bpfix_done(&fx);
}
END_TEST

START_TEST(test_table_unprintable_name)
{
	struct bpfix	 fx;
	struct rb_bp	*b;

	bpfix_make(&fx);
	bprun(&fx, "BRKP", "0x1000", 1);
	b = rb_bp_at(fx.base, fx.base, 0);
	memcpy(b->name, "a\033[2Jb\n", 8);
	ck_assert_str_eq(bprun(&fx, "BLST", "", 1),
	    "1 hits=0 from=1 thread=all at=0x1000 a?[2Jb?");
	bpfix_done(&fx);
}
END_TEST

Suite *
suite_breakpoint(void)
{
	Suite	*s = suite_create("breakpoint");
	TCase	*tc = tcase_create("breakpoint");

	tcase_add_test(tc, test_name_match);
	tcase_add_test(tc, test_symbol_kind);
	tcase_add_test(tc, test_table_set_list_clear);
	tcase_add_test(tc, test_table_errors);
	tcase_add_test(tc, test_table_full_and_reclaim);
	tcase_add_test(tc, test_table_unprintable_name);
	suite_add_tcase(s, tc);
	return s;
}
