/* invisible.c: characters a reader cannot see (see invisible.h). */
#include "dtk/invisible.h"

#include <string.h>
#include <utf8proc.h>

/* The first bytes of characters of category Cf (Unicode 15: U+00AD,
 * U+0600.., U+06DD, U+070F, U+0890.., U+180E, U+200B.., U+FEFF.., U+110BD..,
 * U+E0001..): ASCII and Chinese, Japanese and Korean text (0xE3 to 0xED)
 * pass without a look-up. */
static const unsigned char S_lead[256] = {
        [0xC2] = 1, [0xD8] = 1, [0xDB] = 1, [0xDC] = 1, [0xE0] = 1,
        [0xE1] = 1, [0xE2] = 1, [0xEF] = 1, [0xF0] = 1, [0xF3] = 1};

size_t dtk_invisible_at(const char *s, size_t n, int32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	utf8proc_int32_t c;
	utf8proc_ssize_t len;

	if (!n || !S_lead[u[0]])
		return 0;
	len = utf8proc_iterate(u, (utf8proc_ssize_t)(n < 4 ? n : 4), &c);
	if (len < 2 || !dtk_invisible_cp(c))
		return 0;
	*cp = c;
	return (size_t)len;
}

/* Returns 1 when one of the 8 bytes at u is a lead byte of S_lead: one
 * branch for 8 bytes (the whole text of a file is looked at). */
static int S_lead8(const unsigned char *u)
{
	return (S_lead[u[0]] | S_lead[u[1]] | S_lead[u[2]] | S_lead[u[3]] | S_lead[u[4]] |
	        S_lead[u[5]] | S_lead[u[6]] | S_lead[u[7]]) != 0;
}

size_t dtk_invisible_find(const char *s, size_t n, size_t *len, int32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, end;

	while (i < n) {
		while (n - i >= 8 && !S_lead8(u + i))
			i += 8;
		for (end = n - i > 8 ? i + 8 : n; i < end; i++)
			if (S_lead[u[i]] && (*len = dtk_invisible_at(s + i, n - i, cp)))
				return i;
	}
	return n;
}

int dtk_invisible_cp(int32_t cp)
{
	return cp >= 0xAD && cp <= 0x10FFFF && cp != 0x200C && cp != 0x200D &&
	       utf8proc_category(cp) == UTF8PROC_CATEGORY_CF;
}

int dtk_invisible_is_bidi(int32_t cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

int dtk_invisible_has(const char *s, size_t n)
{
	size_t len;
	int32_t cp;
	return dtk_invisible_find(s, n, &len, &cp) < n;
}
