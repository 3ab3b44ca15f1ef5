/*
 * invisible.h: the characters text may hold that a reader cannot see, which
 * can make what is shown differ from what a file says ("Trojan Source"):
 * the invisible format characters, Unicode's category Cf. That holds every
 * bidirectional control (U+061C, U+200E, U+200F, U+202A..U+202E,
 * U+2066..U+2069) and the likes of U+200B (zero width space), U+2060 (word
 * joiner), U+00AD (soft hyphen) and U+FEFF (a byte order mark inside text).
 * U+200C and U+200D (zero width non-joiner and joiner) are not counted: Arabic,
 * Persian and Indic scripts and emoji sequences need them to be written
 * right. invisible.c is, with linebreak.c, fold.c and similar.c, an includer of
 * utf8proc.h (for categories).
 */
#ifndef DTK_INVISIBLE_H
#define DTK_INVISIBLE_H

#include <stddef.h>
#include <stdint.h>

/* Returns the length in bytes (2 to 4) of the invisible character that
 * s[0..n) starts with, and sets *cp to it; 0 when s starts with anything
 * else (invalid UTF-8 too). */
size_t dtk_invisible_at(const char *s, size_t n, int32_t *cp);
/* Returns 1 when code point cp is an invisible character. */
int dtk_invisible_cp(int32_t cp);
/* Returns 1 when cp is a bidirectional control. */
int dtk_invisible_is_bidi(int32_t cp);
/* Returns the offset of the first invisible character of s[0..n) (its
 * length in *len, its code point in *cp), or n when there is none. */
size_t dtk_invisible_find(const char *s, size_t n, size_t *len, int32_t *cp);
/* Returns 1 when s[0..n) holds an invisible character. */
int dtk_invisible_has(const char *s, size_t n);
#endif
