/*
 * merge_int.h: what merge.c (the file: parsing, text, comments, checks)
 * and merge_tree.c (the rules: mappings, keyed lists, counters, unions)
 * share. Private to those two files.
 */
#ifndef DTK_MERGE_INT_H
#define DTK_MERGE_INT_H

#include "dtk/dtk.h"
#include "dtk/merge.h"
#include "dtk/ytext.h"
#include "dtk/ytree.h"

/* One three-way merge of a file: edits of ours' text and what they make. */
struct dtk_mctx {
	struct dtk_arena *a;
	const char *name;    /* the file's name, for notes */
	const char *ob, *tb; /* ours' and theirs' text */
	size_t olen, tlen;
	const char *eol;        /* ours' line break */
	const char *lo, *lt;    /* the markers' labels */
	struct dtk_edit *edits; /* of ours' text, in the order made */
	size_t n_edits, cap_edits;
	struct dtk_buf *notes;
	int conflicts;
	int unsupported; /* an edit dtk cannot write: the whole file conflicts */
	int records;     /* _crystallizations.yaml */
};

/* ---- merge.c: text ---- */
/* (lines, indentation, spaces: dtk/ytext.h) */
/* Returns 1 when only spaces or a comment follow offset end on its line. */
int dtk_m_tail_ok(const char *buf, size_t len, size_t end);
/* Returns 1 when buf[start, end) stands on lines of its own: only spaces
 * (and, with dash, one "- ") before it on its first line, only spaces or a
 * comment after it on its last. */
int dtk_m_own_lines(const char *buf, size_t len, size_t start, size_t end, int dash);
/* Appends theirs' text tb[start, end) to out in ours' line breaks, every
 * line after the first shifted by delta columns (the first too when
 * first is set). */
void dtk_m_put_theirs(struct dtk_mctx *m, struct dtk_buf *out, size_t start, size_t end, int delta,
                      int first);
/* Adds an edit replacing ours' [start, end) with text (copied). */
void dtk_m_edit(struct dtk_mctx *m, size_t start, size_t end, const char *text, size_t len);
/* Adds a conflict: ours' [os, oe) (whole lines, may be empty at os) against
 * theirs' [ts, te) (whole lines, may be empty), theirs shifted by delta;
 * why goes into the notes. */
void dtk_m_conflict(struct dtk_mctx *m, size_t os, size_t oe, size_t ts, size_t te, int delta,
                    const char *why);
/* Notes one line: "<name>: <msg>". */
void dtk_m_note(struct dtk_mctx *m, const char *fmt, ...) DTK_PRINTF(2, 3);

/* ---- merge_tree.c: the rules ---- */
/* Returns 1 when a and b hold the same data (NULL only equals NULL). */
int dtk_m_equal(const struct dtk_yval *a, const struct dtk_yval *b);
/* Merges the document roots b (NULL: absent), o and t; returns the merged
 * tree (NULL when it conflicts or is unsupported: m says which). */
const struct dtk_yval *dtk_m_merge_root(struct dtk_mctx *m, const struct dtk_yval *b,
                                        const struct dtk_yval *o, const struct dtk_yval *t);

#endif
