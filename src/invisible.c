/* invisible.c: characters a reader cannot see (see invisible.h). */
#include "dtk/invisible.h"

#include <string.h>
#include <utf8proc.h>

size_t dtk_invisible_at(const char *s, size_t n, int32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	utf8proc_int32_t c;
	utf8proc_ssize_t len;

	/* the first bytes of characters of category Cf (Unicode 15: U+00AD,
	 * U+0600.., U+06DD, U+070F, U+0890.., U+180E, U+200B.., U+FEFF..,
	 * U+110BD.., U+E0001..): Chinese, Japanese and Korean text (0xE3 to
	 * 0xED) is passed over without a look-up */
	if (!n || u[0] < 0xC2 ||
	    !(u[0] == 0xC2 || u[0] == 0xD8 || u[0] == 0xDB || u[0] == 0xDC ||
	      (u[0] >= 0xE0 && u[0] <= 0xE2) || u[0] == 0xEF || u[0] == 0xF0 || u[0] == 0xF3))
		return 0;
	len = utf8proc_iterate(u, (utf8proc_ssize_t)(n < 4 ? n : 4), &c);
	if (len < 2 || !dtk_invisible_cp(c))
		return 0;
	*cp = c;
	return (size_t)len;
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
	size_t i;
	int32_t cp;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0xC2 && dtk_invisible_at(s + i, n - i, &cp))
			return 1;
	return 0;
}

void dtk_invisible_mark(struct dtk_buf *b, const char *s, size_t n)
{
	size_t i = 0, from = 0, len;
	int32_t cp;

	while (i < n) {
		if ((unsigned char)s[i] < 0xC2 || !(len = dtk_invisible_at(s + i, n - i, &cp))) {
			i++;
			continue;
		}
		dtk_buf_put(b, s + from, i - from);
		dtk_buf_printf(b, "<U+%04X>", (unsigned)cp);
		i += len;
		from = i;
	}
	dtk_buf_put(b, s + from, n - from);
}

const char *dtk_invisible_marked(const char *s)
{
	static _Thread_local struct dtk_buf b;
	size_t n = s ? strlen(s) : 0;

	if (!s || !dtk_invisible_has(s, n))
		return s;
	b.len = 0;
	dtk_invisible_mark(&b, s, n);
	return dtk_buf_cstr(&b);
}
