/* SPDX-License-Identifier: MIT */
/* rbmon panel: drawing the main screen, and the pieces the modes draw with. */
#ifndef RBMON_PANEL_H
#define RBMON_PANEL_H

#include "keytab.h"
#include "tty.h"
#include "tui.h"

int	rbmon_panel_text(int, int, int, attr_t, const char *);
void	rbmon_panel_fill(int, int, int, attr_t);
void	rbmon_panel_message(struct rbmon_tui *);
void	rbmon_panel_bar_text(struct rbmon_tui *, const char *, int);
void	rbmon_panel_keybar(int, enum rbmon_kmode, const char *);
int	rbmon_panel_bar_key(struct rbmon_tui *, int);
void	rbmon_panel_draw(struct rbmon_tui *);

#endif /* RBMON_PANEL_H */
