/*
 * ytext.h: the lines of a YAML file's text, as YAML counts them: a line
 * ends at LF, CRLF or a lone CR (YAML 1.1 and libyaml break lines at each).
 * What the text editors share: yedit.c (one file's edits) and merge.c (the
 * three-way merge's splices).
 */
#ifndef DTK_YTEXT_H
#define DTK_YTEXT_H

#include "dtk/dtk.h"

#include <stddef.h>

/* Returns the offset where the line holding off starts. */
size_t dtk_ytext_line_start(const char *buf, size_t off);

/* Returns the offset just past the line break of the line holding off (len
 * when the last line has none). */
size_t dtk_ytext_line_end(const char *buf, size_t len, size_t off);

/* Returns the count of spaces that start the line holding off. */
int dtk_ytext_indent(const char *buf, size_t off);

/* Appends n spaces to b (none when n <= 0). */
void dtk_ytext_spaces(struct dtk_buf *b, int n);

#endif
