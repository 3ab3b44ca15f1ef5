/*
 * yedit.h: surgical edits of a YAML file's text. The file is parsed once
 * (ytree.h: every value knows its byte span); each operation computes a
 * struct dtk_edit from those spans, and dtk_ydoc_apply splices them all in
 * one pass. Every byte outside an edit is kept: comments, key order, quoting,
 * blank lines, CRLF, a byte order mark. New text follows the file: its line
 * breaks, the indentation of the siblings of what is added, flow or block
 * lists as the file already writes them; strings are quoted by libyaml's
 * emitter (yemit.h).
 *
 * Edits are recorded against the text as parsed: offsets never shift while
 * edits accumulate. Two edits must not touch the same value.
 */
#ifndef DTK_YEDIT_H
#define DTK_YEDIT_H

#include "dtk/dtk.h"
#include "dtk/ytree.h"

/* A scalar to write: a string (quoted as needed) or raw text written as it
 * is (dates, counts, booleans, enum words: the caller knows they are plain). */
struct dtk_yscalar {
	const char *s;
	int raw;
};

/* A key of a mapping to write: a scalar, or (list != NULL) a list of n
 * scalars, written flow or block as the file prevails. */
struct dtk_yfield {
	const char *key;
	struct dtk_yscalar val;
	const struct dtk_yscalar *list;
	size_t n;
};

/* A scalar an edit writes, kept to be read back (dtk_ydoc_apply). */
struct dtk_ywritten {
	size_t edit;   /* index in edits; (size_t)-1 while its edit is being made */
	const char *s; /* what was asked (in the arena) */
	size_t len;
};

/* A file being edited. */
struct dtk_ydoc {
	const char *path; /* for diagnostics, as shown */
	const char *buf;  /* the text as read (not owned) */
	size_t len;
	const char *eol;       /* "\n" or "\r\n", as the file uses */
	struct dtk_yval *root; /* NULL for a file without a document */
	struct dtk_arena *arena;
	int flow_lists;  /* lists under keys are mostly [a, b] (default 1) */
	int list_indent; /* block lists: the '-' column minus the key's (default 2) */
	struct dtk_edit *edits;
	size_t n_edits, cap;
	struct dtk_ywritten *written; /* every scalar the edits write, in order */
	size_t n_written, cap_written;
};

/* Parses buf[0..len) (not copied: it must outlive d). Returns 0, or
 * DTK_EINVALID (-2) after adding the errors to diags. dtk_ydoc_release in
 * any case. */
int dtk_ydoc_parse(struct dtk_ydoc *d, const char *path, const char *buf, size_t len,
                   struct dtk_diags *diags);
void dtk_ydoc_release(struct dtk_ydoc *d);
/*
 * Returns the text with every edit applied (malloc'd, the caller frees;
 * length in *out_len), or NULL with the error set: overlapping edits, or a
 * scalar an edit wrote that does not read back as what was asked. Every
 * scalar the edits wrote is read back from the new text by dtk's YAML loader
 * (ytree.h), in its place in the file, and compared byte for byte with the
 * string asked (a raw scalar: with its text); so no write can say other than
 * what it was given. A new text that does not parse is returned as it is
 * (the loader that validates it reports why).
 */
char *dtk_ydoc_apply(const struct dtk_ydoc *d, size_t *out_len);
/* Maps *line:*col of out[0..out_len) (what dtk_ydoc_apply returned) to the
 * text as parsed, so that a diagnostic about the edited text points into the
 * file as it is. Returns 1 when the position lies in text an edit adds (it
 * is then where that edit goes in), else 0. */
int dtk_ydoc_map_back(const struct dtk_ydoc *d, const char *out, size_t out_len, int *line,
                      int *col);

/* ---- spans ---- */
/* (lines of the text: dtk/ytext.h) */
/* Returns the column (0-based) of the byte at off, a byte order mark not
 * counted. */
int dtk_yedit_col(const struct dtk_ydoc *d, size_t off);
/* Sets [*start, *end) to the whole lines of item i of block sequence seq:
 * from the start of its "- " line to past the line break of its last value
 * line (comment lines after it are not included). Returns 0, or -1 with the
 * error set when seq is not a block sequence. */
int dtk_yedit_item_span(const struct dtk_ydoc *d, const struct dtk_yval *seq, size_t i,
                        size_t *start, size_t *end);
/* Sets [*start, *end) to the lines of pair i of block mapping map: from the
 * start of its key's line (its key when the key follows "- ") to past the
 * line break of its value's last line. Returns 0, or -1 with the error set. */
int dtk_yedit_pair_span(const struct dtk_ydoc *d, const struct dtk_yval *map, size_t i,
                        size_t *start, size_t *end);
/* Returns the index of the pair of key in map, or -1. */
int dtk_yedit_find(const struct dtk_yval *map, const char *key);

/* ---- edits; each returns 0, or -1 with the error set ---- */
/*
 * Sets key of map to v: replaces its value when present, else adds the key:
 * in a block mapping a new line at the indentation of its keys, after the
 * present key that comes last before key in order (a NULL-terminated list
 * of keys, schema order; NULL or no such key: after the last key); in a
 * flow mapping ", key: v" likewise.
 */
int dtk_yedit_set_key(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                      struct dtk_yscalar v, const char *const *order);
/* Adds the list key: [items] to map (which lacks key), placed as for
 * dtk_yedit_set_key, flow or block as the file prevails. */
int dtk_yedit_add_list(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                       const struct dtk_yscalar *items, size_t n, const char *const *order);
/* Appends v to the list under key in map: [a, b] becomes [a, b, v]; a block
 * list gets a "- v" line at its items' indentation; an absent or empty key
 * becomes a list of v alone. */
int dtk_yedit_append(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                     struct dtk_yscalar v, const char *const *order);
/* Appends a mapping of fields to sequence seq, the value of key in map (map
 * NULL: seq is the root and key unused): after its last item, at its items'
 * indentation ('-' and keys), or in flow as "{k: v, ...}"; "[]" becomes a
 * block list of one item. seq NULL: map lacks key, which is added (after
 * the key before it in an entry's order, else its last key) holding a list
 * of that one mapping; seq an empty value ("key:") of a map other than
 * the root (an entry's optional key): that list becomes it. */
int dtk_yedit_append_map(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                         const struct dtk_yval *seq, const struct dtk_yfield *fields, size_t n);

/* Removes item i of the list under key in map: "[a, b]" becomes "[b]", a
 * block list loses the item's lines; the only item leaves "key: []". */
int dtk_yedit_remove_item(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                          size_t i);


#endif
