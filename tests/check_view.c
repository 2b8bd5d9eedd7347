/* SPDX-License-Identifier: MIT */
/* check_view: the rows, selection, search, layout and text under rbmon's
 * screen, on snapshots built here. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "monitor/core/view.h"

Suite	*suite_view(void);

/* A snapshot of processes given as "pid:tid=state,tid=state;pid:..." where
 * state is r(unning), s(topped), x (exited) or u(ntraced); a pid written
 * as -PID is a dead process; "pid@start<ppid:" gives its start time
 * (default 7) and parent pid (default 0). */
static void
snap_make(struct rbmon_snapshot *s, const char *spec)
{
	struct rbmon_process	*p;
	struct rbmon_thread	*t;
	const char		*c = spec;
	char			*end;
	long			 pid;

	memset(s, 0, sizeof *s);
	while (*c != '\0') {
		pid = strtol(c, &end, 10);
		s->procs = realloc(s->procs, (s->nprocs + 1) * sizeof *s->procs);
		p = &s->procs[s->nprocs++];
		memset(p, 0, sizeof *p);
		p->alive = pid > 0;
		p->pid = (int32_t)(pid > 0 ? pid : -pid);
		p->pstart = 7;
		c = end;
		if (*c == '@') {
			p->pstart = strtoull(c + 1, &end, 10);
			c = end;
		}
		if (*c == '<') {
			p->ppid = (int32_t)strtol(c + 1, &end, 10);
			c = end;
		}
		c++;	/* ':' */
		while (*c != '\0' && *c != ';') {
			p->threads = realloc(p->threads, (p->nthreads + 1) *
			    sizeof *p->threads);
			t = &p->threads[p->nthreads++];
			memset(t, 0, sizeof *t);
			t->tid = (int32_t)strtol(c, &end, 10);
			t->pid = p->pid;
			t->pstart = p->pstart;
			t->ring = (uint32_t)t->tid;
			t->created_ns = (uint64_t)t->tid * 10;
			t->own = RB_OWN_LIVE;
			t->state = RB_STATE_RUNNING;
			t->trace = 1;
			snprintf(t->name, sizeof t->name, "t%d", t->tid);
			c = end + 1;	/* '=' */
			switch (*c) {
			case 's':
				t->state = RB_STATE_STOPPED;
				break;
			case 'x':
				t->own = RB_OWN_EXITED;
				t->state = RB_STATE_EXITED;
				break;
			case 'u':
				t->trace = 0;
				break;
			}
			c++;
			if (*c == ',')
				c++;
		}
		if (*c == ';')
			c++;
	}
}

static void
snap_free(struct rbmon_snapshot *s)
{
	size_t	i;

	for (i = 0; i < s->nprocs; i++)
		free(s->procs[i].threads);
	free(s->procs);
	memset(s, 0, sizeof *s);
}

/* The rows as text: "P100 T100 T101. ..." with '.' marking last rows. */
static const char *
rows_text(const struct rbmon_view *v, const struct rbmon_snapshot *s)
{
	static char	buf[1024];
	size_t		i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < v->nrows; i++) {
		const struct rbmon_row *r = &v->rows[i];

		if (r->kind == RBMON_ROW_PROCESS)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%sP%d",
			    i ? " " : "", s->procs[r->proc].pid);
		else
			n += (size_t)snprintf(buf + n, sizeof buf - n, " T%d%s",
			    s->procs[r->proc].threads[r->thread].tid,
			    r->last ? "." : "");
	}
	return buf;
}

/* The rows as the screen draws them, in ASCII, a line each: "|- T2". */
static const char *
tree_text(const struct rbmon_view *v, const struct rbmon_snapshot *s)
{
	static const char *const glyph[] = {
		[RBMON_TREE_BLANK] = "   ", [RBMON_TREE_BAR] = "|  ",
		[RBMON_TREE_MID] = "|- ", [RBMON_TREE_END] = "`- ",
	};
	static char	buf[4096];
	size_t		i, n = 0;
	int		k;

	buf[0] = '\0';
	for (i = 0; i < v->nrows; i++) {
		const struct rbmon_row *r = &v->rows[i];

		for (k = 0; k < rbmon_view_tree_cols(r); k++)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s",
			    glyph[rbmon_view_tree_at(r, k)]);
		if (r->kind == RBMON_ROW_PROCESS)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "P%d\n",
			    s->procs[r->proc].pid);
		else
			n += (size_t)snprintf(buf + n, sizeof buf - n, "T%d\n",
			    s->procs[r->proc].threads[r->thread].tid);
	}
	return buf;
}

static int32_t
selected_tid(const struct rbmon_view *v, const struct rbmon_snapshot *s)
{
	const struct rbmon_thread	*t = rbmon_view_selected(v, s, NULL);

	return t == NULL ? -1 : t->tid;
}

START_TEST(test_rows_order)
{
	struct rbmon_snapshot	s;
	struct rbmon_view	v;

	/* Exited threads go after the running ones of their process. */
	snap_make(&s, "100:100=r,101=x,102=s,103=r;200:200=x,201=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s),
	    "P100 T100 T102 T103 T101. P200 T201 T200.");
	ck_assert_int_eq(selected_tid(&v, &s), 100);	/* first thread row */

	v.hide_exited = 1;
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s), "P100 T100 T102 T103. P200 T201.");
	rbmon_view_free(&v);
	snap_free(&s);

	/* A dead process: its threads are gone, hidden with the exited. */
	snap_make(&s, "-300:300=r,301=x;400:400=x");
	rbmon_view_init(&v);
	v.hide_exited = 1;
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s), "");
	ck_assert_ptr_null(rbmon_view_selected(&v, &s, NULL));
	v.hide_exited = 0;
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s), "P300 T300 T301. P400 T400.");
	ck_assert_int_eq(selected_tid(&v, &s), 300);
	rbmon_view_free(&v);
	snap_free(&s);
}
END_TEST

START_TEST(test_selection_follows)
{
	struct rbmon_snapshot	s, s2;
	struct rbmon_view	v;

	snap_make(&s, "100:100=r,101=r,102=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	rbmon_view_move(&v, &s, 2);
	ck_assert_int_eq(selected_tid(&v, &s), 102);
	v.stack_sel = 3;

	/* A new process before it moves the rows; the selection follows. */
	snap_make(&s2, "50:50=r,51=r;100:100=r,101=r,102=r");
	rbmon_view_rebuild(&v, &s2);
	ck_assert_int_eq(selected_tid(&v, &s2), 102);
	ck_assert_uint_eq(v.sel_row, 6);
	ck_assert_uint_eq(v.stack_sel, 3);	/* same thread: kept */
	snap_free(&s2);

	/* The thread's ring went to another thread: nearest row instead. */
	snap_make(&s2, "50:50=r,51=r;100:100=r,101=r,103=r");
	rbmon_view_rebuild(&v, &s2);
	ck_assert_int_eq(selected_tid(&v, &s2), 103);
	ck_assert_uint_eq(v.stack_sel, 0);	/* another thread: reset */
	snap_free(&s2);

	/* Fewer rows than the old index: the last thread row. */
	snap_make(&s2, "100:100=r");
	rbmon_view_rebuild(&v, &s2);
	ck_assert_int_eq(selected_tid(&v, &s2), 100);
	snap_free(&s2);
	rbmon_view_free(&v);
	snap_free(&s);
}
END_TEST

START_TEST(test_move_and_scroll)
{
	struct rbmon_snapshot	s;
	struct rbmon_view	v;

	snap_make(&s, "1:1=r,2=r;3:3=r,4=r,5=r;6:6=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	/* P1 T1 T2 P3 T3 T4 T5 P6 T6: moves skip process rows. */
	rbmon_view_move(&v, &s, 2);
	ck_assert_int_eq(selected_tid(&v, &s), 3);
	ck_assert_uint_eq(v.sel_row, 4);
	rbmon_view_move(&v, &s, 100);
	ck_assert_int_eq(selected_tid(&v, &s), 6);
	rbmon_view_move(&v, &s, -1);
	ck_assert_int_eq(selected_tid(&v, &s), 5);
	rbmon_view_move(&v, &s, -100);
	ck_assert_int_eq(selected_tid(&v, &s), 1);

	/* A window of 3 rows keeps the selection and its process row. */
	rbmon_view_move(&v, &s, 2);		/* T3, row 4, after P3 */
	rbmon_view_scroll(&v, 3);
	ck_assert_uint_eq(v.top, 2);		/* T2 P3 T3 */
	v.top = 5;				/* scrolled past P3 */
	rbmon_view_scroll(&v, 3);
	ck_assert_uint_eq(v.top, 3);		/* P3 T3 T4 */
	rbmon_view_move(&v, &s, 100);		/* T6, row 8 */
	rbmon_view_scroll(&v, 3);
	ck_assert_uint_eq(v.top, 6);
	rbmon_view_move(&v, &s, -100);
	rbmon_view_scroll(&v, 3);
	ck_assert_uint_eq(v.top, 0);
	rbmon_view_scroll(&v, 20);		/* all fit */
	ck_assert_uint_eq(v.top, 0);

	/* Clicking a process row selects its first thread. */
	rbmon_view_select_row(&v, &s, 3);
	ck_assert_int_eq(selected_tid(&v, &s), 3);
	rbmon_view_free(&v);
	snap_free(&s);
}
END_TEST

START_TEST(test_tree_order)
{
	struct rbmon_snapshot	s, s2;
	struct rbmon_view	v;
	static const int32_t	walk[] = { 1, 5, 2, 4, 3 };
	size_t			i;

	/* Threads first, then child processes in snapshot order. */
	snap_make(&s, "1:1=r,5=r;2<1:2=r;3<1:3=r;4<2:4=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s),
	    "P1\n"
	    "|- T1\n"
	    "|- T5\n"
	    "|- P2\n"
	    "|  |- T2\n"
	    "|  `- P4\n"
	    "|     `- T4\n"
	    "`- P3\n"
	    "   `- T3\n");
	ck_assert_int_eq(v.rows[5].depth, 2);
	ck_assert_int_eq(v.rows[6].depth, 3);
	/* Moves go through the thread rows in tree order. */
	ck_assert_int_eq(selected_tid(&v, &s), 1);
	for (i = 1; i < sizeof walk / sizeof walk[0]; i++) {
		rbmon_view_move(&v, &s, 1);
		ck_assert_int_eq(selected_tid(&v, &s), walk[i]);
	}
	rbmon_view_move(&v, &s, -2);
	ck_assert_int_eq(selected_tid(&v, &s), 2);
	ck_assert_uint_eq(v.sel_row, 4);
	/* A window of 2 rows keeps P2 above its first thread. */
	rbmon_view_scroll(&v, 2);
	ck_assert_uint_eq(v.top, 3);

	/* The child listed before its parent still goes under it; the
	 * selection follows its thread. */
	snap_make(&s2, "4<2:4=r;3<1:3=r;2<1:2=r;1:1=r,5=r");
	rbmon_view_rebuild(&v, &s2);
	ck_assert_str_eq(tree_text(&v, &s2),
	    "P1\n"
	    "|- T1\n"
	    "|- T5\n"
	    "|- P3\n"
	    "|  `- T3\n"
	    "`- P2\n"
	    "   |- T2\n"
	    "   `- P4\n"
	    "      `- T4\n");
	ck_assert_int_eq(selected_tid(&v, &s2), 2);
	ck_assert_uint_eq(v.sel_row, 6);
	snap_free(&s2);
	rbmon_view_free(&v);
	snap_free(&s);

	/* A parent not in the file: at the top, in snapshot order. */
	snap_make(&s, "10<99:10=r;11<10:11=r;12<98:12=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s),
	    "P10\n"
	    "|- T10\n"
	    "`- P11\n"
	    "   `- T11\n"
	    "P12\n"
	    "`- T12\n");
	/* A flat file draws as before: "P100 T100 T101." rows. */
	ck_assert_str_eq(rows_text(&v, &s), "P10 T10 P11 T11. P12 T12.");
	rbmon_view_free(&v);
	snap_free(&s);

	/* An exited thread of a process with children is not the last row. */
	snap_make(&s, "1:1=r,2=x;3<1:3=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s),
	    "P1\n"
	    "|- T1\n"
	    "|- T2\n"
	    "`- P3\n"
	    "   `- T3\n");
	rbmon_view_free(&v);
	snap_free(&s);
}
END_TEST

START_TEST(test_tree_pids)
{
	struct rbmon_snapshot	s;
	struct rbmon_view	v;

	/* A process that started after the child only reuses the pid. */
	snap_make(&s, "30@9<31:30=r;31@10:31=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s), "P30\n`- T30\nP31\n`- T31\n");
	rbmon_view_free(&v);
	snap_free(&s);

	/* Of two with the parent's pid, the one that started last before it. */
	snap_make(&s, "-31@5:131=x;31@8:31=r;32@20:32=r;30@9<31:30=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s),
	    "P31\n"
	    "`- T131\n"
	    "P31\n"
	    "|- T31\n"
	    "`- P30\n"
	    "   `- T30\n"
	    "P32\n"
	    "`- T32\n");
	ck_assert_uint_eq(v.rows[4].proc, 3);
	rbmon_view_free(&v);
	snap_free(&s);

	/* Start times unknown (0): the last with that pid. */
	snap_make(&s, "31@0:31=x;31@0:131=r;30@0<31:30=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s),
	    "P31\n"
	    "`- T31\n"
	    "P31\n"
	    "|- T131\n"
	    "`- P30\n"
	    "   `- T30\n");
	rbmon_view_free(&v);
	snap_free(&s);

	/* Cycles (a corrupt file) and a process its own parent: every
	 * process once, none lost. */
	snap_make(&s, "40<41:40=r;41<40:41=r;42<42:42=r;43<44:43=r;44<45:44=r;"
	    "45<43:45=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s),
	    "P41\n"
	    "|- T41\n"
	    "`- P40\n"
	    "   `- T40\n"
	    "P42\n"
	    "`- T42\n"
	    "P45\n"
	    "|- T45\n"
	    "`- P44\n"
	    "   |- T44\n"
	    "   `- P43\n"
	    "      `- T43\n");
	rbmon_view_free(&v);
	snap_free(&s);
}
END_TEST

START_TEST(test_tree_hidden)
{
	struct rbmon_snapshot	s;
	struct rbmon_view	v;

	/* 2's threads have all exited: hidden, its child goes under 1. */
	snap_make(&s, "1:1=r;2<1:2=x;3<2:3=r;4<3:4=r");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s),
	    "P1\n"
	    "|- T1\n"
	    "`- P2\n"
	    "   |- T2\n"
	    "   `- P3\n"
	    "      |- T3\n"
	    "      `- P4\n"
	    "         `- T4\n");
	v.hide_exited = 1;
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s),
	    "P1\n"
	    "|- T1\n"
	    "`- P3\n"
	    "   |- T3\n"
	    "   `- P4\n"
	    "      `- T4\n");
	rbmon_view_free(&v);
	snap_free(&s);

	/* No shown ancestor: at the top; a dead parent's threads are gone. */
	snap_make(&s, "-1:1=r;2<1:2=x;3<2:3=r;5<1:5=r");
	rbmon_view_init(&v);
	v.hide_exited = 1;
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s), "P3\n`- T3\nP5\n`- T5\n");
	v.hide_exited = 0;
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(tree_text(&v, &s),
	    "P1\n"
	    "|- T1\n"
	    "|- P2\n"
	    "|  |- T2\n"
	    "|  `- P3\n"
	    "|     `- T3\n"
	    "`- P5\n"
	    "   `- T5\n");
	rbmon_view_free(&v);
	snap_free(&s);
}
END_TEST

START_TEST(test_tree_deep)
{
	struct rbmon_snapshot	s;
	struct rbmon_view	v;
	char			spec[512];
	size_t			n = 0, i;
	int			pid;

	/* A chain of 12 processes: drawn RBMON_TREE_MAX levels deep at most. */
	for (pid = 1; pid <= 12; pid++)
		n += (size_t)snprintf(spec + n, sizeof spec - n, "%s%d<%d:%d=r",
		    pid > 1 ? ";" : "", pid, pid - 1, pid);
	snap_make(&s, spec);
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_uint_eq(v.nrows, 24);
	for (i = 0; i < v.nrows; i++) {
		ck_assert_int_eq(v.rows[i].depth, (int)((i + 1) / 2));
		ck_assert_int_eq(rbmon_view_tree_cols(&v.rows[i]),
		    (int)((i + 1) / 2) < RBMON_TREE_MAX ? (int)((i + 1) / 2) :
		    RBMON_TREE_MAX);
	}
	/* Each process is its parent's last row: blanks, then its branch. */
	ck_assert_int_eq(rbmon_view_tree_at(&v.rows[23], 0), RBMON_TREE_BLANK);
	ck_assert_int_eq(rbmon_view_tree_at(&v.rows[23], RBMON_TREE_MAX - 1),
	    RBMON_TREE_END);
	ck_assert_int_eq(rbmon_view_tree_at(&v.rows[21], RBMON_TREE_MAX - 1),
	    RBMON_TREE_MID);
	rbmon_view_move(&v, &s, 100);
	ck_assert_int_eq(selected_tid(&v, &s), 12);
	rbmon_view_free(&v);
	snap_free(&s);
}
END_TEST

START_TEST(test_stack_move)
{
	struct rbmon_thread	t;
	struct rbmon_view	v;

	memset(&t, 0, sizeof t);
	rbmon_view_init(&v);
	t.nframes = 10;
	t.wrapped = 5;
	ck_assert_uint_eq(rbmon_view_stack_rows(&v, &t), 11);
	rbmon_view_stack_move(&v, &t, 4, 4);
	ck_assert_uint_eq(v.stack_sel, 4);
	ck_assert_uint_eq(v.stack_top, 1);
	rbmon_view_stack_move(&v, &t, 100, 4);
	ck_assert_uint_eq(v.stack_sel, 10);
	ck_assert_uint_eq(v.stack_top, 7);
	rbmon_view_stack_move(&v, &t, -100, 4);
	ck_assert_uint_eq(v.stack_sel, 0);
	ck_assert_uint_eq(v.stack_top, 0);
	t.nframes = 2;		/* the stack got shorter under the cursor */
	t.wrapped = 0;
	v.stack_sel = 9;
	v.stack_top = 7;
	rbmon_view_stack_move(&v, &t, 0, 4);
	ck_assert_uint_eq(v.stack_sel, 1);
	ck_assert_uint_eq(v.stack_top, 0);
	ck_assert_uint_eq(rbmon_view_stack_rows(&v, NULL), 0);
}
END_TEST

/* Rows of a thread's stack pane as text: F<frame>, G (gap), R<frame>x<n>. */
static const char *
srows_text(const struct rbmon_view *v, const struct rbmon_thread *t)
{
	static char		buf[512];
	struct rbmon_srow	r;
	size_t			row, n = rbmon_view_stack_rows(v, t);
	int			k = 0;

	buf[0] = '\0';
	for (row = 0; row < n; row++) {
		ck_assert(rbmon_view_stack_at(v, t, row, &r));
		if (r.kind == RBMON_SROW_GAP)
			k += snprintf(buf + k, sizeof buf - (size_t)k, "G ");
		else if (r.kind == RBMON_SROW_RUN)
			k += snprintf(buf + k, sizeof buf - (size_t)k, "R%zux%zu ",
			    r.frame, r.count);
		else if (r.count > 0)
			k += snprintf(buf + k, sizeof buf - (size_t)k, "F%zu+%zu ",
			    r.frame, r.count);
		else
			k += snprintf(buf + k, sizeof buf - (size_t)k, "F%zu ",
			    r.frame);
	}
	ck_assert(!rbmon_view_stack_at(v, t, n, &r));
	return buf;
}

/* Recursion: runs of 3 or more frames of one function are one row. */
START_TEST(test_stack_runs)
{
	struct rbmon_frame	fr[40];
	struct rbmon_thread	t, u;
	struct rbmon_view	v;
	size_t			i;

	memset(&t, 0, sizeof t);
	memset(fr, 0, sizeof fr);
	rbmon_view_init(&v);
	/* at_bottom, walk x31, main: innermost first, levels outermost 0. */
	t.frames = fr;
	t.nframes = 33;
	t.ring = 4, t.pid = 40, t.tid = 41;
	for (i = 0; i < 33; i++) {
		fr[i].fn = i == 0 ? 0x100 : i == 32 ? 0x300 : 0x200;
		fr[i].level = (uint32_t)(32 - i);
	}
	ck_assert_str_eq(srows_text(&v, &t), "F0 R1x31 F32 ");
	ck_assert_uint_eq(rbmon_view_stack_row(&v, &t, 0), 0);
	ck_assert_uint_eq(rbmon_view_stack_row(&v, &t, 17), 1);
	ck_assert_uint_eq(rbmon_view_stack_row(&v, &t, 32), 2);
	/* Expanded, then folded again from a row inside it. */
	ck_assert(rbmon_view_stack_fold(&v, &t, 1));
	ck_assert_uint_eq(rbmon_view_stack_rows(&v, &t), 33);
	ck_assert_str_eq(srows_text(&v, &t), "F0 F1+31 F2 F3 F4 F5 F6 F7 F8 F9 "
	    "F10 F11 F12 F13 F14 F15 F16 F17 F18 F19 F20 F21 F22 F23 F24 F25 "
	    "F26 F27 F28 F29 F30 F31 F32 ");
	ck_assert_uint_eq(rbmon_view_stack_row(&v, &t, 17), 17);
	ck_assert(!rbmon_view_stack_fold(&v, &t, 0));	/* at_bottom: no run */
	ck_assert(rbmon_view_stack_fold(&v, &t, 20));
	ck_assert_str_eq(srows_text(&v, &t), "F0 R1x31 F32 ");
	ck_assert_uint_eq(v.stack_sel, 1);
	/* The run stays expanded as the stack grows on top (level kept). */
	ck_assert(rbmon_view_stack_fold(&v, &t, 1));
	memmove(&fr[1], &fr[0], 33 * sizeof fr[0]);
	fr[0].fn = 0x400;
	fr[0].level = 33;
	fr[1].fn = 0x200;
	fr[1].level = 32;	/* at_bottom became walk: the run is 32 long */
	t.nframes = 34;
	ck_assert_str_eq(srows_text(&v, &t), "F0 F1+32 F2 F3 F4 F5 F6 F7 F8 F9 "
	    "F10 F11 F12 F13 F14 F15 F16 F17 F18 F19 F20 F21 F22 F23 F24 F25 "
	    "F26 F27 F28 F29 F30 F31 F32 F33 ");
	/* Another thread's run with the same level is its own. */
	u = t;
	u.tid = 42;
	ck_assert_str_eq(srows_text(&v, &u), "F0 R1x32 F33 ");
	/* Two frames of one function: not a run. */
	t.nframes = 3;
	fr[0].fn = fr[1].fn = 0x500;
	fr[2].fn = 0x600;
	ck_assert_str_eq(srows_text(&v, &t), "F0 F1 F2 ");
	/* A run does not cross the overwritten frames; a frame named, torn
	 * or from debug info only breaks it. */
	for (i = 0; i < 10; i++)
		fr[i].fn = 0x200;
	t.nframes = 10;
	t.wrapped = 50;
	t.gap_at = 4;
	ck_assert_str_eq(srows_text(&v, &t), "R0x4 G R4x6 ");
	ck_assert_uint_eq(rbmon_view_stack_row(&v, &t, 4), 2);
	fr[6].synthetic = 1;
	ck_assert_str_eq(srows_text(&v, &t), "R0x4 G F4 F5 F6 R7x3 ");
	fr[6].synthetic = 0;
	fr[5].torn = 1;
	ck_assert_str_eq(srows_text(&v, &t), "R0x4 G F4 F5 R6x4 ");
	t.gap_at = 10;	/* the gap after the last frame kept */
	fr[5].torn = 0;
	ck_assert_str_eq(srows_text(&v, &t), "R0x10 G ");
	rbmon_view_free(&v);
}
END_TEST

static const char *
namer(void *arg, const struct rbmon_process *p, const struct rbmon_thread *t,
    size_t i)
{
	static char	buf[64];

	(void)arg;
	(void)p;
	if (t->tid == 12 && i == 2)
		return "Deep_Function";
	if (i == 0)
		return NULL;	/* an unknown address */
	snprintf(buf, sizeof buf, "fn_%d_%zu", t->tid, i);
	return buf;
}

START_TEST(test_search)
{
	struct rbmon_snapshot	s;
	struct rbmon_view	v;
	size_t			frame, i, j;

	snap_make(&s, "10:10=r,11=r,12=r;20:20=r");
	for (i = 0; i < s.nprocs; i++) {
		for (j = 0; j < s.procs[i].nthreads; j++)
			s.procs[i].threads[j].nframes = 3;
	}
	strcpy(s.procs[1].threads[0].name, "Worker-Pool");
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);

	ck_assert(rbmon_view_search(&v, &s, "deep_f", 0, namer, NULL, &frame));
	ck_assert_int_eq(selected_tid(&v, &s), 12);
	ck_assert_uint_eq(frame, 2);
	ck_assert_uint_eq(v.stack_sel, 2);

	ck_assert(rbmon_view_search(&v, &s, "pool", 0, namer, NULL, &frame));
	ck_assert_int_eq(selected_tid(&v, &s), 20);
	ck_assert_uint_eq(frame, SIZE_MAX);

	/* "fn_1" matches threads 10, 11, 12; next goes round and wraps. */
	ck_assert(rbmon_view_search(&v, &s, "fn_1", 1, namer, NULL, &frame));
	ck_assert_int_eq(selected_tid(&v, &s), 10);
	ck_assert_uint_eq(frame, 1);
	ck_assert(rbmon_view_search(&v, &s, "fn_1", 1, namer, NULL, &frame));
	ck_assert_int_eq(selected_tid(&v, &s), 11);
	ck_assert(rbmon_view_search(&v, &s, "fn_1", 0, namer, NULL, &frame));
	ck_assert_int_eq(selected_tid(&v, &s), 11);	/* 0: stays */

	ck_assert(!rbmon_view_search(&v, &s, "nowhere", 1, namer, NULL,
	    &frame));
	ck_assert_int_eq(selected_tid(&v, &s), 11);	/* unchanged */
	ck_assert(!rbmon_view_search(&v, &s, "", 1, namer, NULL, &frame));
	rbmon_view_free(&v);
	snap_free(&s);
}
END_TEST

START_TEST(test_match)
{
	ck_assert(rbmon_match("parse_Value", "VALUE"));
	ck_assert(rbmon_match("abc", ""));
	ck_assert(rbmon_match("abc", "abc"));
	ck_assert(!rbmon_match("abc", "abcd"));
	ck_assert(!rbmon_match("abc", "x"));
	ck_assert(!rbmon_match(NULL, "a"));
	ck_assert(rbmon_match("aab", "ab"));
}
END_TEST

START_TEST(test_states)
{
	struct rbmon_snapshot	s;
	struct rbmon_counts	c;
	char			buf[64];
	struct rbmon_thread	*t;

	snap_make(&s, "1:1=r,2=s,3=x,4=u;-5:5=r,6=x;-7:7=x");
	t = s.procs[0].threads;
	rbmon_state_text(buf, sizeof buf, &s.procs[0], &t[0]);
	ck_assert_str_eq(buf, "running");
	rbmon_state_text(buf, sizeof buf, &s.procs[0], &t[1]);
	ck_assert_str_eq(buf, "stopped");
	t[1].why = RB_WHY_BREAKPOINT | 3 << 8;
	rbmon_state_text(buf, sizeof buf, &s.procs[0], &t[1]);
	ck_assert_str_eq(buf, "stopped:break 3");
	t[1].why = RB_WHY_CREATE;
	rbmon_state_text(buf, sizeof buf, &s.procs[0], &t[1]);
	ck_assert_str_eq(buf, "stopped:create");
	t[1].why = 0x7f;
	rbmon_state_text(buf, sizeof buf, &s.procs[0], &t[1]);
	ck_assert_str_eq(buf, "stopped:?");
	rbmon_state_text(buf, sizeof buf, &s.procs[0], &t[2]);
	ck_assert_str_eq(buf, "exited");
	rbmon_state_text(buf, sizeof buf, &s.procs[0], &t[3]);
	ck_assert_str_eq(buf, "untraced");
	/* A dead process: its running thread is gone, its exited one not. */
	rbmon_state_text(buf, sizeof buf, &s.procs[1], &s.procs[1].threads[0]);
	ck_assert_str_eq(buf, "gone");
	rbmon_state_text(buf, sizeof buf, &s.procs[1], &s.procs[1].threads[1]);
	ck_assert_str_eq(buf, "exited");

	ck_assert(!rbmon_process_exited(&s.procs[0]));
	ck_assert(!rbmon_process_exited(&s.procs[1]));
	ck_assert(rbmon_process_exited(&s.procs[2]));
	rbmon_view_count(&s, &c);
	ck_assert_uint_eq(c.procs_alive, 1);
	ck_assert_uint_eq(c.procs_gone, 1);
	ck_assert_uint_eq(c.procs_exited, 1);
	ck_assert_uint_eq(c.threads_alive, 3);
	ck_assert_uint_eq(c.threads_exited, 3);
	ck_assert_uint_eq(c.threads_gone, 1);
	ck_assert_uint_eq(c.stopped, 1);
	snap_free(&s);
}
END_TEST

START_TEST(test_fit)
{
	char	buf[16];

	ck_assert_uint_eq(rbmon_fit(buf, sizeof buf, "main", 10), 4);
	ck_assert_str_eq(buf, "main");
	ck_assert_uint_eq(rbmon_fit(buf, sizeof buf, "parse_value", 6), 6);
	ck_assert_str_eq(buf, "parse~");
	/* no escape reaches the tty: the forms of escape.c, in ASCII */
	ck_assert_uint_eq(rbmon_fit(buf, sizeof buf, "a\033[2Jb\x80\n", 15), 15);
	ck_assert_str_eq(buf, "a\\x1b[2Jb\\x80\\n");
	ck_assert_uint_eq(rbmon_fit(buf, sizeof buf, "a\033[2Jb\x80\n", 10), 10);
	ck_assert_str_eq(buf, "a\\x1b[2Jb~");	/* never half an escape */
	ck_assert_uint_eq(rbmon_fit(buf, sizeof buf, "\xc2\x9b\xc3\xa9t\xe2\x80\xae", 15), 14);
	ck_assert_str_eq(buf, "\\u009b?t\\u202e");
	ck_assert_uint_eq(rbmon_fit(buf, 4, "abcdef", 10), 3);
	ck_assert_str_eq(buf, "ab~");		/* bounded by the buffer */
	ck_assert_uint_eq(rbmon_fit(buf, sizeof buf, "abc", 0), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_delay)
{
	char	buf[32];

	ck_assert_int_eq(rbmon_delay_step(10, 1), 15);
	ck_assert_int_eq(rbmon_delay_step(10, -1), 5);
	ck_assert_int_eq(rbmon_delay_step(1, -1), 1);
	ck_assert_int_eq(rbmon_delay_step(36000, 1), 36000);
	ck_assert_int_eq(rbmon_delay_step(7, 1), 10);	/* from -d 7 */
	ck_assert_int_eq(rbmon_delay_step(7, -1), 5);
	rbmon_delay_format(buf, sizeof buf, 1);
	ck_assert_str_eq(buf, "0.1s");
	rbmon_delay_format(buf, sizeof buf, 10);
	ck_assert_str_eq(buf, "1s");
	rbmon_delay_format(buf, sizeof buf, 25);
	ck_assert_str_eq(buf, "2.5s");
	rbmon_delay_format(buf, sizeof buf, 600);
	ck_assert_str_eq(buf, "1m");
	rbmon_delay_format(buf, sizeof buf, 36000);
	ck_assert_str_eq(buf, "1h");
}
END_TEST

START_TEST(test_layout)
{
	struct rbmon_layout	l;

	/* 80x24, 5 list rows, short stack, no watches. */
	rbmon_layout_compute(&l, 24, 80, 5, 2, 0);
	ck_assert(!l.too_small);
	ck_assert_int_eq(l.header_h, 3);
	ck_assert_int_eq(l.list_y, 3);
	ck_assert_int_eq(l.list_h, 5);
	ck_assert_int_eq(l.stack_y, 9);
	ck_assert_int_eq(l.bar_y, 23);
	ck_assert_int_eq(l.msg_y, 22);
	ck_assert_int_eq(l.watch_y, 21);
	ck_assert_int_eq(l.watch_h, 0);
	ck_assert_int_eq(l.stack_h, 11);	/* 10..20 */

	/* A long list with a short stack: the list takes the room. */
	rbmon_layout_compute(&l, 24, 80, 100, 2, 0);
	ck_assert_int_eq(l.list_h, 13);
	ck_assert_int_eq(l.stack_h, 3);
	/* A long list and a deep stack: three fifths for the list. */
	rbmon_layout_compute(&l, 24, 80, 100, 100, 0);
	ck_assert_int_eq(l.list_h, 9);
	ck_assert_int_eq(l.stack_y + 1 + l.stack_h, l.watch_y);
	/* Watches take rows from the stack, at most four. */
	rbmon_layout_compute(&l, 40, 80, 5, 100, 9);
	ck_assert_int_eq(l.watch_h, 4);
	ck_assert_int_eq(l.watch_y, 40 - 2 - 1 - 4);
	ck_assert_int_eq(l.stack_y + 1 + l.stack_h, l.watch_y);

	/* Short terminals: a one-row header. */
	rbmon_layout_compute(&l, 14, 50, 5, 5, 3);
	ck_assert(!l.too_small);
	ck_assert_int_eq(l.header_h, 1);
	ck_assert_int_eq(l.watch_h, 1);
	ck_assert_int_ge(l.list_h, 3);
	ck_assert_int_ge(l.stack_h, 1);
	ck_assert_int_eq(l.stack_y + 1 + l.stack_h, l.watch_y);

	rbmon_layout_compute(&l, 11, 80, 5, 5, 0);
	ck_assert(l.too_small);
	rbmon_layout_compute(&l, 24, 39, 5, 5, 0);
	ck_assert(l.too_small);
	rbmon_layout_compute(&l, 12, 40, 50, 50, 4);
	ck_assert(!l.too_small);
	ck_assert_int_ge(l.stack_h, 1);
}
END_TEST

/* A frame's function for the filter: "fN" for frame N, as named here. */
static const char *
sort_namer(void *arg, const struct rbmon_process *p,
    const struct rbmon_thread *t, size_t i)
{
	(void)arg;
	(void)p;
	return t->frames[i].at_function;
}

START_TEST(test_view_sort_filter)
{
	struct rbmon_snapshot	s;
	struct rbmon_view	v;
	struct rbmon_thread	*t;
	static struct rbmon_frame fr[3][2];
	static const char *const fn[3][2] = {
		{ "walk_leaf", "main" }, { "dig_bottom", "dig_main" },
		{ "Nap_Leaf", "nap_main" },
	};
	size_t			i, f;

	snap_make(&s, "100:103=r,101=r,102=r,104=x,105=r;200:201=r");
	t = s.procs[0].threads;
	snprintf(t[0].name, sizeof t[0].name, "zeta");
	snprintf(t[1].name, sizeof t[1].name, "alpha");
	snprintf(t[2].name, sizeof t[2].name, "mid");
	snprintf(t[3].name, sizeof t[3].name, "aaa-exited");
	snprintf(t[4].name, sizeof t[4].name, "beta");
	t[0].depth = 2, t[1].depth = 9, t[2].depth = 5, t[4].depth = 9;
	t[0].cpu = 50, t[1].cpu = 0.5, t[2].cpu = 99, t[4].cpu = 3;
	t[3].cpu = 100;	/* ended: after the running ones all the same */
	/* Innermost frames entered at 300, 100 and 200 (ts); 105: none. */
	for (i = 0; i < 3; i++) {
		for (f = 0; f < 2; f++) {
			fr[i][f].at_function = fn[i][f];
			fr[i][f].ts = (i == 0 ? 300 : i == 1 ? 100 : 200) - f;
		}
		t[i].frames = fr[i];
		t[i].nframes = 2;
	}
	rbmon_view_init(&v);
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s),
	    "P100 T103 T101 T102 T105 T104. P200 T201.");
	v.sort = RBMON_SORT_NAME;
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s),
	    "P100 T101 T105 T102 T103 T104. P200 T201.");
	v.sort = RBMON_SORT_CPU;
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s),
	    "P100 T102 T103 T105 T101 T104. P200 T201.");
	/* Equal depths: by tid. */
	v.sort = RBMON_SORT_DEPTH;
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s),
	    "P100 T101 T105 T102 T103 T104. P200 T201.");
	v.sort = RBMON_SORT_TIME;
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s),
	    "P100 T101 T102 T103 T105 T104. P200 T201.");
	ck_assert_str_eq(rbmon_sort_name(RBMON_SORT_CPU), "CPU%");
	/* The selection follows its thread through a new order. */
	rbmon_view_select_row(&v, &s, 3);
	ck_assert_int_eq(selected_tid(&v, &s), 103);
	v.sort = RBMON_SORT_TID;
	rbmon_view_rebuild(&v, &s);
	ck_assert_int_eq(selected_tid(&v, &s), 103);

	/* Filter: a thread's name or a function on its stack, any case. */
	v.namer = sort_namer;
	snprintf(v.filter, sizeof v.filter, "NAP_");
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s), "P100 T102.");
	ck_assert_int_eq(selected_tid(&v, &s), 102);
	snprintf(v.filter, sizeof v.filter, "ta");
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s), "P100 T103 T105.");
	snprintf(v.filter, sizeof v.filter, "dig_main");
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s), "P100 T101.");
	snprintf(v.filter, sizeof v.filter, "t201");
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s), "P200 T201.");
	snprintf(v.filter, sizeof v.filter, "nothing-like-it");
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s), "");
	ck_assert_ptr_null(rbmon_view_selected(&v, &s, NULL));
	v.filter[0] = '\0';
	rbmon_view_rebuild(&v, &s);
	ck_assert_str_eq(rows_text(&v, &s),
	    "P100 T103 T101 T102 T105 T104. P200 T201.");
	for (i = 0; i < 3; i++) {
		t[i].frames = NULL;
		t[i].nframes = 0;
	}
	rbmon_view_free(&v);
	snap_free(&s);
}
END_TEST

Suite *
suite_view(void)
{
	Suite	*s = suite_create("view");
	TCase	*tc = tcase_create("view");

	tcase_add_test(tc, test_view_sort_filter);
	tcase_add_test(tc, test_stack_runs);
	tcase_add_test(tc, test_rows_order);
	tcase_add_test(tc, test_selection_follows);
	tcase_add_test(tc, test_move_and_scroll);
	tcase_add_test(tc, test_tree_order);
	tcase_add_test(tc, test_tree_pids);
	tcase_add_test(tc, test_tree_hidden);
	tcase_add_test(tc, test_tree_deep);
	tcase_add_test(tc, test_stack_move);
	tcase_add_test(tc, test_search);
	tcase_add_test(tc, test_match);
	tcase_add_test(tc, test_states);
	tcase_add_test(tc, test_fit);
	tcase_add_test(tc, test_delay);
	tcase_add_test(tc, test_layout);
	suite_add_tcase(s, tc);
	return s;
}
