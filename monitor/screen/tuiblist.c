/* SPDX-License-Identifier: MIT */
/*
 * rbmon tuiblist: the breakpoint list of one process (B), a full screen:
 * d deletes the breakpoint under the cursor, D all, b sets another, r
 * reads the list again; any other key goes back.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/strl.h"

#include "monitor/screen/keytab.h"
#include "monitor/screen/tuidraw.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tuictl.h"
#include "monitor/screen/tuimodes.h"

struct blist_state {
	char			**lines;
	size_t			  n, sel;
	struct rbmon_bp_scope	  scope;	/* whose they are */
	int32_t			  asked;	/* the thread asked */
};

static void
blist_clear(struct blist_state *bs)
{
	size_t	i;

	for (i = 0; i < bs->n; i++)
		free(bs->lines[i]);
	free(bs->lines);
	bs->lines = NULL;
	bs->n = 0;
}

/* BLST's text: one breakpoint per line starting with its id. */
static void
blist_fill(struct blist_state *bs, const char *text)
{
	const char	*p = text, *nl;

	blist_clear(bs);
	while (*p) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		if (*p >= '0' && *p <= '9') {
			bs->lines = rbmon_xreallocarray(bs->lines, bs->n + 1,
			    sizeof *bs->lines);
			bs->lines[bs->n] = rbmon_xcalloc(1, (size_t)(nl - p) + 1);
			memcpy(bs->lines[bs->n], p, (size_t)(nl - p));
			bs->n++;
		}
		p = *nl ? nl + 1 : nl;
	}
	if (bs->sel >= bs->n)
		bs->sel = bs->n ? bs->n - 1 : 0;
}

static void
blist_free(void *arg)
{
	struct blist_state	*bs = arg;

	blist_clear(bs);
	free(bs);
}

/* The list as it is now; the message line says how many. */
static int
blist_reload(struct rbmon_tui *t, struct blist_state *bs, int keep_msg)
{
	char		*text = NULL, msg[sizeof t->msg];
	enum rbmon_msg	 kind = t->msg_kind;
	int		 r;

	strlcpy(msg, t->msg, sizeof msg);
	r = rbmon_tuictl_bp(t, &bs->scope, "BLST", "", &text);
	if (text == NULL)
		return r;
	blist_fill(bs, text);
	free(text);
	if (keep_msg)
		rbmon_tui_message(t, kind, "%s", msg);
	else
		rbmon_tui_message(t, RBMON_MSG_INFO, "%zu breakpoint%s in "
		    "process %d", bs->n, bs->n == 1 ? "" : "s", bs->scope.pid);
	return r;
}

static int
blist_key(struct rbmon_tui *t, void *arg, int key)
{
	struct blist_state	*bs = arg;
	char			 id[16];
	int			 r;

	switch (rbmon_keytab_action(RBMON_KM_BLIST, key)) {
	case RBMON_ACT_BL_UP:
		if (bs->sel > 0)
			bs->sel--;
		return RBMON_REDRAW;
	case RBMON_ACT_BL_DOWN:
		if (bs->sel + 1 < bs->n)
			bs->sel++;
		return RBMON_REDRAW;
	case RBMON_ACT_BL_DELETE:
	case RBMON_ACT_BL_DELETE_ALL:
		if (bs->n == 0)
			return RBMON_REDRAW;
		if (rbmon_keytab_action(RBMON_KM_BLIST, key) ==
		    RBMON_ACT_BL_DELETE_ALL)
			strlcpy(id, "*", sizeof id);
		else
			snprintf(id, sizeof id, "%u", (unsigned)strtoul(
			    bs->lines[bs->sel], NULL, 10));
		r = rbmon_tuictl_bp(t, &bs->scope, "BCLR", id, NULL);
		/* The answer stays on the message line. */
		return r | blist_reload(t, bs, 1);
	case RBMON_ACT_BL_REFRESH:
		return blist_reload(t, bs, 0);
	case RBMON_ACT_BL_ADD:
		rbmon_tui_pop(t);
		rbmon_tuictl_break_prompt(t);
		return RBMON_REDRAW;
	default:
		if (key == RBMON_KEY_MOUSE)
			return 0;
		rbmon_tui_pop(t);
		return RBMON_REDRAW;
	}
}

static void
blist_draw(struct rbmon_tui *t, void *arg)
{
	struct blist_state	*bs = arg;
	char			 buf[1024];
	int			 y, top = 0, rows = LINES - 4;
	size_t			 i;

	erase();
	snprintf(buf, sizeof buf, "Breakpoints of process %d (asked thread "
	    "%d)", bs->scope.pid, bs->asked);
	rbmon_draw_fill(0, 0, COLS, rbmon_tty_attr(RBMON_A_TITLE_FOCUS));
	rbmon_draw_text(0, 1, COLS - 1, rbmon_tty_attr(RBMON_A_TITLE_FOCUS),
	    buf);
	if (rows < 1)
		rows = 1;
	if ((int)bs->sel >= rows)
		top = (int)bs->sel - rows + 1;
	if (bs->n == 0)
		rbmon_draw_text(2, 2, COLS - 2, A_NORMAL, "no breakpoints (b "
		    "sets one)");
	for (i = (size_t)top, y = 1; i < bs->n && y <= rows; i++, y++) {
		attr_t a = i == bs->sel ? rbmon_tty_attr(RBMON_A_SELECT) :
		    A_NORMAL;

		if (i == bs->sel)
			rbmon_draw_fill(y, 0, COLS, a);
		rbmon_draw_text(y, 1, COLS - 1, a, bs->lines[i]);
	}
	rbmon_draw_message(t);
	rbmon_draw_keybar(LINES - 1, RBMON_KM_BLIST, "other keys: back");
	curs_set(0);
}

static const struct rbmon_mode_ops blist_ops = {
	.name = "breakpoints",
	.key = blist_key,
	.draw = blist_draw,
	.free = blist_free,
};

/**
 * rbmon_blist_open - show BLST's answer @text for @sc
 * @asked: the thread whose process it is
 */
void
rbmon_blist_open(struct rbmon_tui *t, const struct rbmon_bp_scope *sc,
    int32_t asked, const char *text)
{
	struct blist_state	*bs = rbmon_xcalloc(1, sizeof *bs);

	bs->scope = *sc;
	bs->asked = asked;
	blist_fill(bs, text);
	rbmon_tui_message(t, RBMON_MSG_INFO, "%zu breakpoint%s in process %d",
	    bs->n, bs->n == 1 ? "" : "s", sc->pid);
	if (rbmon_tui_push(t, &blist_ops, bs) != 0)
		blist_free(bs);
}
