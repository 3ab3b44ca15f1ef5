/*
 * yemit.h: YAML text for values dtk writes into a user's files, made by
 * libyaml's emitter (yemit.c is, with ytree.c, the only module that
 * includes <yaml.h>), so that what dtk writes reads back as what was meant.
 */
#ifndef DTK_YEMIT_H
#define DTK_YEMIT_H

#include "dtk/dtk.h"

#include <stddef.h>

/* Where an emitted value stands. */
enum {
	DTK_YEMIT_BLOCK, /* after "key: " or "- " in a block collection */
	DTK_YEMIT_FLOW   /* an item of a flow collection: [a, b] or {k: v} */
};

/*
 * Appends to out a YAML scalar that reads back as the string s[0..len), by
 * the YAML 1.2 core schema (dtk's loader) and by YAML 1.1 parsers alike:
 * plain where a plain scalar reads back as the same string (not "0x1f",
 * "1e5", "true", "yes", "~", "2026-10-15", ...), otherwise quoted as
 * libyaml's emitter chooses. A string of several lines becomes, in block
 * context, a literal block scalar ("|-") when libyaml allows one, its lines
 * indented by indent + 2 spaces (indent: the column, 0-based, of the key or
 * '-' that owns the value); otherwise, and in flow context, double-quoted
 * with escapes. Long lines are never folded. Every line break written is eol
 * ("\n" or "\r\n"). Values that are not strings (dates, counts, booleans)
 * are written by the caller as they are. Returns 0, or -1 with the error set
 * when s is not valid UTF-8.
 */
int dtk_yemit_scalar(struct dtk_buf *out, const char *s, size_t len, int where, int indent,
                     const char *eol);

/* Returns 1 when s, written plain, reads back as the string s under both
 * the YAML 1.2 core schema and YAML 1.1 (see dtk_yemit_scalar). */
int dtk_yemit_plain_safe(const char *s, size_t len);

#endif
