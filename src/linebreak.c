/* linebreak.c: the East Asian line-break rule (the only includer of utf8proc.h
 * for widths). */
#include "dtk/linebreak.h"

#include <string.h>
#include <utf8proc.h>

/* A byte no valid UTF-8 holds: marks a space to drop until the value is
 * compacted. */
#define DROP ((char)0xFF)

int dtk_linebreak_is_wide(int32_t cp)
{
	/* Hangul: Korean separates words with spaces (CSS Text 3 leaves its
	 * breaks as spaces too) */
	if ((cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0x3130 && cp <= 0x318F) ||
	    (cp >= 0xA960 && cp <= 0xA97F) || (cp >= 0xAC00 && cp <= 0xD7FF))
		return 0;
	return utf8proc_charwidth(cp) == 2;
}

/* Returns the code point ending just before val + i (i > 0), or -1. */
static int32_t S_before(const char *val, size_t i)
{
	size_t k = i;
	utf8proc_int32_t cp = -1;

	while (k > 0 && i - k < 4 && ((unsigned char)val[k - 1] & 0xC0) == 0x80)
		k--;
	if (k == 0 || i - k >= 4)
		return -1;
	k--;
	if (utf8proc_iterate((const utf8proc_uint8_t *)val + k, (utf8proc_ssize_t)(i - k), &cp) !=
	    (utf8proc_ssize_t)(i - k))
		return -1;
	return cp;
}

/* Returns the code point starting at val + i of val[0..len), or -1. */
static int32_t S_at(const char *val, size_t len, size_t i)
{
	utf8proc_int32_t cp = -1;
	size_t n = len - i < 4 ? len - i : 4;

	if (utf8proc_iterate((const utf8proc_uint8_t *)val + i, (utf8proc_ssize_t)n, &cp) < 1)
		return -1;
	return cp;
}

int dtk_linebreak_wide_pair(const char *s, size_t len, size_t a, size_t z)
{
	/* wide characters are U+1100 and above: three or four bytes */
	if (a == 0 || z >= len || ((unsigned char)s[a - 1] & 0xC0) != 0x80 ||
	    (unsigned char)s[z] < 0xE1)
		return 0;
	return dtk_linebreak_is_wide(S_before(s, a)) && dtk_linebreak_is_wide(S_at(s, len, z));
}

static int S_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Returns the length of the line break at src[i] of src[0..n) that libyaml
 * folds (LF, CR LF, CR, NEL; LS and PS it keeps as they are), or 0. */
static size_t S_break_len(const char *src, size_t n, size_t i)
{
	if (src[i] == '\r')
		return i + 1 < n && src[i + 1] == '\n' ? 2 : 1;
	if (src[i] == '\n')
		return 1;
	return src[i] == '\xC2' && i + 1 < n && src[i + 1] == '\x85' ? 2 : 0;
}

/* Returns the length of the white space at src[i] of src[0..n) (a space,
 * a tab or a line break libyaml folds), or 0. */
static size_t S_space_len(const char *src, size_t n, size_t i)
{
	return src[i] == ' ' || src[i] == '\t' ? 1 : S_break_len(src, n, i);
}

/* Returns the offset of the first line break at or past i in src[0..n), or
 * n; lf: the text has no CR and no NEL (memchr finds its breaks). */
static size_t S_next_break(const char *src, size_t n, size_t i, int lf)
{
	const char *p;

	if (lf)
		return (p = memchr(src + i, '\n', n - i)) ? (size_t)(p - src) : n;
	while (i < n && !S_break_len(src, n, i))
		i++;
	return i;
}

/* Returns the length of a block scalar's header line ('>', indicators, a
 * comment) at the start of src[0..srclen), up to its line break. */
static size_t S_header(const char *src, size_t srclen)
{
	size_t s = 0;
	while (s < srclen && src[s] != '\n' && src[s] != '\r')
		s++;
	return s;
}

/* Returns 1 when the source text src[0..srclen) of a scalar (block: a block
 * scalar, from its header) has a line break between two wide characters (the
 * only scalars dtk_linebreak_join can change), else 0. Cheap: it looks at the
 * line breaks only. */
static int S_may_join(const char *src, size_t srclen, int block)
{
	size_t i = block ? S_header(src, srclen) : 0, a, z;
	int lf = !memchr(src, '\r', srclen) && !memchr(src, '\xC2', srclen);

	/* each line break of the source, between two wide characters? */
	while ((i = S_next_break(src, srclen, i, lf)) < srclen) {
		a = i;
		z = i + S_break_len(src, srclen, i);
		i = z;
		while (a > 0 && S_is_space(src[a - 1]))
			a--;
		while (z < srclen && (src[z] == ' ' || src[z] == '\t'))
			z++;
		if (a > 0 && z < srclen && !S_break_len(src, srclen, z) &&
		    dtk_linebreak_wide_pair(src, srclen, a, z))
			return 1;
	}
	return 0;
}

size_t dtk_linebreak_join(char *val, size_t len, const char *src, size_t srclen, int block)
{
	size_t i, s = 0, out = 0;
	int dropped = 0;

	if (!S_may_join(src, srclen, block))
		return len;
	if (block)
		s = S_header(src, srclen);
	/* the value's characters other than white space are the source's, in
	 * order (plain and block scalars have no escapes); white space between
	 * two of them is a fold where the source has a line break there */
	for (i = 0; i < len; i++) {
		size_t k;
		if (S_is_space(val[i]) || val[i] == DROP)
			continue;
		while (s < srclen && (k = S_space_len(src, srclen, s)))
			s += k;
		if (s >= srclen || src[s] != val[i])
			goto mismatch;
		s++;
		if (i + 2 >= len || val[i + 1] != ' ' || !dtk_linebreak_wide_pair(val, len, i + 1, i + 2))
			continue;
		for (k = s; k < srclen && S_space_len(src, srclen, k); k++)
			if (S_break_len(src, srclen, k)) {
				val[i + 1] = DROP;
				dropped = 1;
				break;
			}
	}
	if (!dropped)
		return len;
	for (i = 0; i < len; i++)
		if (val[i] != DROP)
			val[out++] = val[i];
	if (out < len)
		val[out] = '\0';
	return out;

mismatch:
	for (i = 0; i < len; i++)
		if (val[i] == DROP)
			val[i] = ' ';
	return len;
}
