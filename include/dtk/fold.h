/*
 * fold.h: text folded for matching, as search and similar compare it:
 * Unicode normalization (NFKC) and case folding (utf8proc).
 */
#ifndef DTK_FOLD_H
#define DTK_FOLD_H

#include "dtk/dtk.h"

/*
 * Folds s[0..len) for matching: NFKC, case folding, default-ignorable code
 * points dropped. Returns a malloc'd NUL-terminated string the caller frees
 * and sets *out_len; with map, the text is folded decomposed instead (NFKD
 * with case folding, so that each byte comes from one character: compare it
 * with words folded with a map too), and *map is set to a malloc'd array (the
 * caller frees) of *out_len + 1 offsets: map[i] is where in s the character
 * that gave byte i starts (map[*out_len] = len). Returns NULL with the error set
 * when s is not UTF-8.
 */
char *dtk_fold(const char *s, size_t len, size_t *out_len, size_t **map);
/* Returns 1 when the UTF-8 character at s[0..len) is a combining mark (one
 * that continues the character before it, as U+0301 after an e), else 0. */
int dtk_fold_is_mark(const char *s, size_t len);
/* Returns the length in bytes of the white space character (Unicode
 * White_Space: ASCII's, U+0085, U+00A0, U+3000 and the other space
 * separators, U+2028, U+2029) at s[0..len), or 0 when there is none. */
size_t dtk_fold_space_len(const char *s, size_t len);

/* Folds s[i..) onto b the fast way, character by character, until end (or
 * the end of the character that crosses end) or a character whose folding
 * depends on what surrounds it. Returns where it stopped: below end (and
 * below len) at such a character or at bytes that are not UTF-8. */
size_t dtk_fold_fast(struct dtk_buf *b, const char *s, size_t len, size_t i, size_t end);
/* Folds s into b (reset first); returns b's text, or NULL on bad UTF-8. */
const char *dtk_fold_into(struct dtk_buf *b, const char *s);
/*
 * Sets b (reset first) to s (UTF-8) with ASCII capitals made small and every
 * other byte as it is, when no character of s may fold into or out of a run
 * of ASCII letters and digits. Then a word of ASCII letters and digits occurs
 * in b exactly when it occurs in s folded. Returns b's text, or NULL when a
 * character may (b is then undefined): the caller folds s.
 */
const char *dtk_fold_lower_apart(struct dtk_buf *b, const char *s);

#endif
