/*
 * diffview.h: a unified diff shown to people: in colour as git colours it,
 * and with the part of a changed line that changed marked, so that a
 * one-cell change in a table row can be seen.
 */
#ifndef DTK_DIFFVIEW_H
#define DTK_DIFFVIEW_H

#include <stdio.h>

enum {
	DTK_DIFF_COLOR = 1 << 0, /* git's colours; the changed part in reverse video */
	DTK_DIFF_WORDS = 1 << 1  /* git's --word-diff=plain: [-old-]{+new+} in one line */
};

/* Writes the unified diff text (NUL-terminated, as dtk_git_diff_buffers
 * makes it) to f as how asks (0: unchanged). Where a hunk removes n lines
 * and adds n lines in their place, the i-th removed and i-th added lines are
 * compared: what lies between their common start and common end (widened to
 * whole ASCII words) is the part that changed. */
void dtk_diff_print(FILE *f, const char *diff, unsigned how);

#endif
