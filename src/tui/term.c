// SPDX-License-Identifier: GPL-2.0-only
/* term.c — kp_tui__check_term (see tui.h): whether $TERM can show the
 * live view, asked of terminfo before curses takes the terminal. Its own
 * file: <term.h> defines a macro for every capability name. */
#include "tui/tui.h"

#include <stdlib.h>
#include <unistd.h>
#include <curses.h>
#include <term.h>

/* A capability string from terminfo: NULL when absent or cancelled. */
static const char *term_cap(const char *name)
{
	char *s = tigetstr(name);

	return s == (char *)-1 ? NULL : s;
}

int kp_tui__check_term(const char *term, struct kp_err *err)
{
	const char *name = term ? term : getenv("TERM");
	TERMINAL *old = cur_term, *t;
	int errret = 0, ok;

	if (!name || !*name)
		return kp_err_set(err, KP_EUSAGE, "TERM is not set: the live view "
				  "needs a terminal type; use --batch for a report");
	/* setupterm() only reads terminfo here: with errret it prints
	 * nothing, and the terminal's modes are not changed. */
	if (setupterm(name, STDOUT_FILENO, &errret) != OK)
		return kp_err_set(err, KP_EUSAGE, "TERM=%s is not a terminal type "
				  "this system knows (terminfo); set TERM, or use "
				  "--batch for a report", name);
	t = cur_term;
	ok = term_cap("cup") && term_cap("clear");
	set_curterm(old);
	del_curterm(t);
	if (!ok)
		return kp_err_set(err, KP_EUSAGE, "TERM=%s cannot move the cursor "
				  "or clear the screen: the live view needs a full-"
				  "screen terminal; use --batch for a report", name);
	return 0;
}

