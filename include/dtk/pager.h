/*
 * pager.h: long output through a pager on a terminal, as git does: the
 * command named by DTK_PAGER, else PAGER, else "less" (with LESS=FRX and
 * LV=-c unless they are set); none when it is "" or "cat".
 */
#ifndef DTK_PAGER_H
#define DTK_PAGER_H

/* Sends standard output from now on to the pager, when standard output is
 * a terminal and a pager is set. Returns 1 when a pager runs, else 0 (no
 * terminal, no pager, or one that could not be started: output then goes
 * to standard output as before). */
int dtk_pager_start(void);

/* Flushes standard output to the pager, closes it and waits for the pager
 * to exit. Returns 0, or -1 with the error set when the output could not be
 * written (not when the pager quit before reading all of it). Does nothing
 * and returns 0 when no pager runs. */
int dtk_pager_finish(void);

#endif
