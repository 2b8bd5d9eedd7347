/* SPDX-License-Identifier: MIT */
/* rbmon view: what the screen shows, as rows and text, without curses. */
#ifndef RBMON_VIEW_H
#define RBMON_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/core/model.h"

/* A thread as the screen names its state. */
enum rbmon_tstate {
	RBMON_TS_RUNNING,
	RBMON_TS_UNTRACED,	/* running, stack not kept (TROF) */
	RBMON_TS_STOPPED,
	RBMON_TS_EXITED,	/* the thread ended; its last stack is kept */
	RBMON_TS_GONE,		/* its process died without ending it */
	RBMON_TS_DETACHED,	/* its ring was given back at a detach */
};

enum rbmon_row_kind {
	RBMON_ROW_PROCESS,
	RBMON_ROW_THREAD,
};

/*
 * The list is a tree: each process under its parent, if that is in the
 * file, else at the top; under a process its threads, then its child
 * processes.  A row's prefix has one column per level above it.
 */
#define RBMON_TREE_MAX	8	/* levels drawn; deeper rows at this one */

enum rbmon_tree {
	RBMON_TREE_BLANK,	/* "   " */
	RBMON_TREE_BAR,		/* "│  ": that level goes on below */
	RBMON_TREE_MID,		/* "├─ " */
	RBMON_TREE_END,		/* "└─ " */
};

struct rbmon_row {
	enum rbmon_row_kind kind;
	size_t		 proc;		/* index in the snapshot */
	size_t		 thread;	/* for thread rows */
	int		 last;		/* last row under its parent */
	int		 depth;		/* 0: a top process, 1: its rows */
	uint32_t	 bars;		/* bit k: prefix column k has │ */
};

/* Which thread is selected, across snapshots. */
struct rbmon_ident {
	uint32_t	 ring;
	int32_t		 pid, tid;
	uint64_t	 pstart, created_ns;
};

/* Counts for the header. */
struct rbmon_counts {
	unsigned	 procs_alive, procs_exited, procs_gone;
	unsigned	 threads_alive, threads_exited, threads_gone;
	unsigned	 stopped;
};

/* Rows and columns of each part of the screen, from the terminal size. */
struct rbmon_layout {
	int		 lines, cols;
	int		 too_small;
	int		 header_h;
	int		 list_y, list_h;	/* title row, then list_h rows */
	int		 stack_y, stack_h;
	int		 watch_y, watch_h;
	int		 msg_y, bar_y;
	int		 stack_want;	/* as asked, for a relayout */
};

/*
 * A row of the stack pane: a frame, the count of frames overwritten, a
 * run of RBMON_RUN_MIN or more frames in a row calling the same function
 * (recursion), collapsed into one row until expanded, or, first, the
 * system call a thread blocked in the kernel waits in.
 */
#define RBMON_RUN_MIN	3

enum rbmon_srow_kind {
	RBMON_SROW_FRAME,
	RBMON_SROW_GAP,
	RBMON_SROW_RUN,
	RBMON_SROW_BLOCKED,	/* first: what the thread waits in (the kernel's) */
};

struct rbmon_srow {
	enum rbmon_srow_kind kind;
	size_t		 frame;		/* FRAME, RUN: the (first) frame index */
	size_t		 count;		/* RUN: frames in it; FRAME: the length of
					   the expanded run it starts, or 0 */
};

/* A run expanded: its thread and the level of its outermost frame. */
struct rbmon_run_id {
	uint32_t	 ring;
	int32_t		 pid, tid;
	uint32_t	 level;
};

/* How a process's threads are ordered; running ones before those ended. */
enum rbmon_sort {
	RBMON_SORT_TID,
	RBMON_SORT_NAME,
	RBMON_SORT_CPU,		/* busiest first */
	RBMON_SORT_DEPTH,	/* deepest first */
	RBMON_SORT_TIME,	/* longest in its innermost call first */
	RBMON_SORTS
};

/* Search: a case-insensitive substring of a thread name or a function. */
typedef const char *(*rbmon_namer)(void *, const struct rbmon_process *,
	    const struct rbmon_thread *, size_t);

struct rbmon_view {
	struct rbmon_row *rows;
	size_t		 nrows, cap;
	int		 hide_exited;
	enum rbmon_sort	 sort;
	char		 filter[128];	/* "": every thread */
	rbmon_namer	 namer;		/* a frame's function, for the filter */
	void		*namer_arg;
	struct rbmon_run_id *expanded;	/* runs of recursion shown whole */
	size_t		 nexpanded;
	int		 have_sel;
	struct rbmon_ident sel;
	size_t		 sel_row;	/* valid while have_sel */
	size_t		 top;		/* first row shown */
	size_t		 stack_top;	/* first stack row shown */
	size_t		 stack_sel;	/* selected stack row */
};

void	rbmon_view_init(struct rbmon_view *);
void	rbmon_view_free(struct rbmon_view *);
void	rbmon_view_rebuild(struct rbmon_view *, const struct rbmon_snapshot *);
void	rbmon_view_move(struct rbmon_view *, const struct rbmon_snapshot *,
	    long);
void	rbmon_view_select_row(struct rbmon_view *,
	    const struct rbmon_snapshot *, size_t);
int	rbmon_view_select_ident(struct rbmon_view *,
	    const struct rbmon_snapshot *, const struct rbmon_ident *);
void	rbmon_view_scroll(struct rbmon_view *, size_t);
const struct rbmon_thread *rbmon_view_selected(const struct rbmon_view *,
	    const struct rbmon_snapshot *, const struct rbmon_process **);
int	rbmon_view_tree_cols(const struct rbmon_row *);
enum rbmon_tree rbmon_view_tree_at(const struct rbmon_row *, int);
size_t	rbmon_view_stack_rows(const struct rbmon_view *,
	    const struct rbmon_thread *);
int	rbmon_view_stack_at(const struct rbmon_view *,
	    const struct rbmon_thread *, size_t, struct rbmon_srow *);
size_t	rbmon_view_stack_row(const struct rbmon_view *,
	    const struct rbmon_thread *, size_t);
int	rbmon_view_stack_fold(struct rbmon_view *, const struct rbmon_thread *,
	    size_t);
void	rbmon_view_stack_move(struct rbmon_view *, const struct rbmon_thread *,
	    long, size_t);

enum rbmon_tstate rbmon_thread_state(const struct rbmon_process *,
	    const struct rbmon_thread *);
int rbmon_thread_live(enum rbmon_tstate);
const char *rbmon_tstate_name(enum rbmon_tstate);
const char *rbmon_why_name(int32_t);
const char *rbmon_why_json(int32_t);
void	rbmon_state_text(char *, size_t, const struct rbmon_process *,
	    const struct rbmon_thread *);
int	rbmon_process_exited(const struct rbmon_process *);
void	rbmon_view_count(const struct rbmon_snapshot *, struct rbmon_counts *);
const char *rbmon_sort_name(enum rbmon_sort);
int	rbmon_view_matches(const struct rbmon_view *,
	    const struct rbmon_process *, const struct rbmon_thread *);

int	rbmon_match(const char *, const char *);
int	rbmon_view_search(struct rbmon_view *, const struct rbmon_snapshot *,
	    const char *, int, rbmon_namer, void *, size_t *);

void	rbmon_layout_compute(struct rbmon_layout *, int, int, int, int, int);
long	rbmon_delay_step(long, int);
void	rbmon_delay_format(char *, size_t, long);
size_t	rbmon_fit(char *, size_t, const char *, size_t);

#endif /* RBMON_VIEW_H */
