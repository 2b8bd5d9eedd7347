/* SPDX-License-Identifier: MIT */
/* rbmon edit: the one line editor of every prompt, search and filter. */
#ifndef RBMON_EDIT_H
#define RBMON_EDIT_H

#include <stddef.h>

/*
 * Bytes of text, NUL excluded: a watch expression is at most
 * RB_EXPR_MAX - 1 (255) bytes, a breakpoint line as long, a search or a
 * filter needs less.
 */
#define RBMON_EDIT_MAX	256

struct rbmon_hist;

/*
 * The line: UTF-8, NUL-terminated, never a control character (nor one of
 * the Unicode controls rbmon escapes, see rbmon_esc_unsafe()).
 */
struct rbmon_edit {
	char			 text[RBMON_EDIT_MAX + 1];
	size_t			 len;		/* bytes */
	size_t			 cur;		/* bytes, on a character start */
	size_t			 first;		/* byte the last window began at */
	struct rbmon_hist	*hist;		/* may be NULL */
	size_t			 hpos;		/* hist->n: not browsing */
	char			 draft[RBMON_EDIT_MAX + 1]; /* while browsing */
};

/* What a key did. */
enum rbmon_edit_res {
	RBMON_EDIT_IGNORED,	/* nothing: not an editing key, or no effect */
	RBMON_EDIT_CHANGED,	/* the text changed (and maybe the cursor) */
	RBMON_EDIT_MOVED,	/* only the cursor moved */
	RBMON_EDIT_ENTER,	/* Enter: the caller takes the text */
	RBMON_EDIT_CANCEL,	/* Esc, ^G */
	RBMON_EDIT_TAB		/* Tab: the caller completes */
};

void	rbmon_edit_start(struct rbmon_edit *, const char *,
	    struct rbmon_hist *);
enum rbmon_edit_res rbmon_edit_key(struct rbmon_edit *, int);
int	rbmon_edit_handles(int);
void	rbmon_edit_window(struct rbmon_edit *, int, size_t *, size_t *,
	    int *);
size_t	rbmon_edit_complete(struct rbmon_edit *, size_t, char *const *,
	    size_t, const char *, char *, size_t);
size_t	rbmon_edit_safe(const char *, size_t);

#endif /* RBMON_EDIT_H */
