/* SPDX-License-Identifier: MIT */
/* rbmon tuidraw: drawing the main screen, and the pieces the modes draw with. */
#ifndef RBMON_TUIDRAW_H
#define RBMON_TUIDRAW_H

#include "monitor/screen/keytab.h"
#include "monitor/screen/tty.h"
#include "monitor/screen/tui.h"

int	rbmon_draw_text(int, int, int, attr_t, const char *);
int	rbmon_draw_name(int, int, int, attr_t, const char *, const char *);
void	rbmon_draw_fill(int, int, int, attr_t);
void	rbmon_draw_message(struct rbmon_tui *);
void	rbmon_draw_bar_text(struct rbmon_tui *, const char *, int);
void	rbmon_draw_keybar(int, enum rbmon_kmode, const char *);
int	rbmon_draw_bar_key(struct rbmon_tui *, int);
void	rbmon_draw_draw(struct rbmon_tui *);

#endif /* RBMON_TUIDRAW_H */
