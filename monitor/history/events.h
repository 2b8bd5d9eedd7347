/* SPDX-License-Identifier: MIT */
/* rbmon events: a thread's event log, copied, made a function graph, shown. */
#ifndef RBMON_EVENTS_H
#define RBMON_EVENTS_H

#include <stdint.h>
#include <stdio.h>

#include "common/evlog.h"
#include "monitor/core/model.h"
#include "monitor/history/calls.h"
#include "monitor/core/symbols.h"

/* One copy of a thread's log. */
struct rbmon_evcopy {
	struct rb_event	*rec;		/* n records, index w.first on */
	size_t		 n, cap;
	struct rb_ev_window w;
	int		 valid;		/* 0: the ring changed hands meanwhile */
};

/* What a row of the graph is. */
enum rbmon_evr_kind {
	RBMON_EVR_CALL,		/* an entry: "fn();" or "fn() {" */
	RBMON_EVR_END,		/* the "}" of a call shown with "{" */
	RBMON_EVR_EXIT,		/* an exit whose entry is not in the log */
	RBMON_EVR_LINE,		/* rbtrace_line() */
	RBMON_EVR_STOP,		/* stopped ... until resumed */
	RBMON_EVR_RESUME,	/* resumed, its stop not in the log */
	RBMON_EVR_OFF,		/* recording off ... until on */
	RBMON_EVR_ON,		/* recording on, its off not in the log */
	RBMON_EVR_LOST,		/* [LOST N EVENTS] */
	RBMON_EVR_BAD,		/* a record no rbtrace writes */
};

/* rbmon_evrow.flags */
#define RBMON_EVF_LEAF		0x1	/* CALL: its exit follows at once */
#define RBMON_EVF_OPEN		0x2	/* CALL: no exit yet (still running) */
#define RBMON_EVF_UNWOUND	0x4	/* CALL: left without its exit hook */
#define RBMON_EVF_NAMED		0x8	/* a named frame (rbtrace_push) */
#define RBMON_EVF_CLOSE		0x10	/* EXIT: shown as "}" (outer) */
#define RBMON_EVF_CUT		0x20	/* CALL: records lost after it: its
					   exit may have been among them */

struct rbmon_evrow {
	uint8_t		 kind;		/* enum rbmon_evr_kind */
	uint8_t		 flags;		/* RBMON_EVF_* */
	int32_t		 depth;		/* 0: outermost shown */
	uint64_t	 index;		/* the record's index in the log */
	uint64_t	 fn, site;
	uint64_t	 ts, end;	/* end: 0 unknown (open, unwound) */
	uint64_t	 arg;		/* line, why, count, as kind says */
	char		*name;		/* named frames: "name" */
	char		*file;		/* named frames: "file", may be "" */
};

/* The rows of a live log, built from the calls engine's frames. */
struct rbmon_evgraph {
	struct rbmon_evrow *rows;
	size_t		 n, cap;
	int32_t		 cur;		/* depth after the last row, relative */
	int32_t		 base;		/* the depth of the engine's depth 0 */
	struct rbcalls_walk w;		/* frames: aux is the call's row */
	size_t		 stop, off;	/* rows open, SIZE_MAX: none */
	uint64_t	 next;		/* index of the next record expected */
};

int	rbmon_events_copy(struct rbmon_model *, const struct rbmon_thread *,
	    uint64_t, size_t, struct rbmon_evcopy *);
void	rbmon_evcopy_free(struct rbmon_evcopy *);
void	rbmon_evgraph_init(struct rbmon_evgraph *);
void	rbmon_evgraph_add(struct rbmon_evgraph *, const struct rbmon_evcopy *);
void	rbmon_evgraph_lost(struct rbmon_evgraph *, uint64_t, uint64_t);
int32_t	rbmon_evgraph_mindepth(const struct rbmon_evgraph *);
void	rbmon_evgraph_free(struct rbmon_evgraph *);
void	rbmon_ev_duration(char *, size_t, const struct rbmon_clock *,
	    const struct rbmon_evrow *);
void	rbmon_evrow_text_cols(char *, size_t, struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    const struct rbmon_clock *, const struct rbmon_evrow *, int32_t,
	    size_t);
void	rbmon_evrow_text(char *, size_t, struct rbmon_symbols *,
	    const struct rbmon_snapshot *, const struct rbmon_process *,
	    const struct rbmon_clock *, const struct rbmon_evrow *, int32_t);

void	rbmon_events_text(FILE *, struct rbmon_model *,
	    const struct rbmon_snapshot *, struct rbmon_symbols *,
	    const struct rbmon_clock *, long);
void	rbmon_events_json(FILE *, struct rbmon_model *,
	    const struct rbmon_snapshot *, struct rbmon_symbols *,
	    const struct rbmon_clock *, long);
struct rbmon_ctl;
int	rbmon_events_switch(struct rbmon_ctl *, const struct rbmon_snapshot *,
	    int32_t, int32_t, int, char **);

#endif /* RBMON_EVENTS_H */
