/*
 * linebreak.h: the East Asian line-break rule for folded YAML text. YAML folds
 * a line break inside a folded (>) or multi-line plain scalar to a space;
 * between two East Asian wide characters (Chinese, Japanese) that space is
 * one no writer typed. As CSS Text 3 and Pandoc's east_asian_line_breaks do,
 * such a break is dropped instead (docs/schema.md, "Text").
 */
#ifndef DTK_LINEBREAK_H
#define DTK_LINEBREAK_H

#include <stddef.h>
#include <stdint.h>

/* Returns 1 when code point cp takes part in the rule: its East Asian Width
 * is W or F (utf8proc_charwidth 2) and it is not Hangul, else 0. */
int dtk_linebreak_is_wide(int32_t cp);
/* Returns 1 when the character that ends at s + i and the one that starts
 * at s + j, of s[0..len), are both wide; 0 when either is not, or there is
 * none (i 0, j len). */
int dtk_linebreak_wide_pair(const char *s, size_t len, size_t i, size_t j);

/*
 * Drops, in place, each space of the scalar value val[0..len) that YAML
 * folded from a line break between two wide characters. src[0..srclen) is the
 * scalar's source text, from its first byte (for a block scalar, its '>'
 * header) to at least its last; block is 1 for a block scalar. A space is
 * dropped only when the source has a line break between the two characters
 * (spaces the author typed stay). Returns the new length (val stays
 * NUL-terminated when it was); when the source does not match the value, val
 * is left as it was.
 */
size_t dtk_linebreak_join(char *val, size_t len, const char *src, size_t srclen, int block);

#endif
