/* fold.c: text folded for matching (fold.h), by utf8proc's normalization. */
#include "dtk/fold.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* What folding is: NFKC with case folding, default-ignorables dropped. */
#define S_FOLD                                                                                     \
	(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_IGNORE)

/* ---- folding ---- */

/* Per code point of the BMP: 0 not known yet, 1 folds to itself whatever
 * surrounds it, 2 folds to other code points whatever surrounds it (e.g. a
 * full-width comma), 3 may depend on what surrounds it. Filled as code
 * points are met, from several threads: each writes the same value. */
static _Atomic unsigned char S_kinds[0x10000];

/* Returns 1 when cp takes no part in a composition, before or after. */
static int S_alone(utf8proc_int32_t cp)
{
	const utf8proc_property_t *p = utf8proc_get_property(cp);
	/* Hangul jamo and syllables compose by rule, not through the table */
	if ((cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0xa960 && cp <= 0xa97f) ||
	    (cp >= 0xd7b0 && cp <= 0xd7ff) || (cp >= 0xac00 && cp <= 0xd7a3))
		return 0;
	return !p->combining_class && p->comb_index == UINT16_MAX;
}

static int S_compute_kind(utf8proc_int32_t cp)
{
	utf8proc_int32_t d[8];
	utf8proc_ssize_t n, i;
	int bound = 0;

	if (!S_alone(cp))
		return 3;
	n = utf8proc_decompose_char(cp, d, 8, S_FOLD, &bound);
	if (n == 1 && d[0] == cp)
		return 1;
	if (n < 1 || n > 8)
		return 3;
	for (i = 0; i < n; i++) /* what it gives composes with nothing either */
		if (d[i] >= 0x80 && !S_alone(d[i]))
			return 3;
	return 2;
}

static int S_kind(utf8proc_int32_t cp)
{
	unsigned char v;
	if (cp >= 0x10000)
		return S_compute_kind(cp);
	v = atomic_load_explicit(&S_kinds[cp], memory_order_relaxed);
	if (!v) {
		v = (unsigned char)S_compute_kind(cp);
		atomic_store_explicit(&S_kinds[cp], v, memory_order_relaxed);
	}
	return v;
}

/* Folds s code point by code point, decomposed (NFKD with case folding:
 * nothing composes, so each output byte comes from one code point), keeping
 * where each output byte came from. Returns 0, or -1 on bad UTF-8. */
static int S_fold_mapped(struct dtk_buf *b, struct dtk_buf *m, const char *s, size_t len)
{
	const utf8proc_uint8_t *u = (const utf8proc_uint8_t *)s;
	utf8proc_int32_t cp, d[32];
	utf8proc_uint8_t enc[4];
	utf8proc_ssize_t n, k, e, j;
	size_t i = 0, at;
	int bound = 0;

	while (i < len) {
		n = utf8proc_iterate(u + i, (utf8proc_ssize_t)(len - i), &cp);
		if (n < 0)
			return -1;
		/* COMPAT and CASEFOLD act only with DECOMPOSE (or COMPOSE) */
		k = utf8proc_decompose_char(
		        cp, d, 32, (S_FOLD & ~UTF8PROC_COMPOSE) | UTF8PROC_DECOMPOSE, &bound);
		for (j = 0; j < k && j < 32; j++) {
			e = utf8proc_encode_char(d[j], enc);
			dtk_buf_put(b, (const char *)enc, (size_t)e);
			for (at = i; e-- > 0;)
				dtk_buf_put(m, (const char *)&at, sizeof(at));
		}
		i += (size_t)n;
	}
	return 0;
}

/* Appends what cp folds to (a character of kind 2) to b, which has room
 * for 32 more bytes. */
static void S_put_folded(struct dtk_buf *b, utf8proc_int32_t cp)
{
	utf8proc_int32_t d[8];
	utf8proc_uint8_t enc[4];
	utf8proc_ssize_t n, i;
	int bound = 0;

	n = utf8proc_decompose_char(cp, d, 8, S_FOLD, &bound);
	for (i = 0; i < n && i < 8; i++)
		dtk_buf_put(b, (const char *)enc, (size_t)utf8proc_encode_char(d[i], enc));
}

/* Eight bytes each c; the high bit of eight bytes. */
#define S_BYTES(c) (0x0101010101010101ull * (uint64_t)(c))
#define S_HIGH S_BYTES(0x80)

/* Returns where the run of characters U+4000..U+9FFF (three bytes each, E4
 * to E9 then two continuation bytes) that goes on at u[k] ends, at most at
 * end (a character that crosses end ends it too). */
static size_t S_cjk_run(const unsigned char *u, size_t k, size_t end)
{
	while (k + 2 < end && (unsigned)u[k] - 0xe4u <= 5u && (u[k + 1] & 0xc0) == 0x80 &&
	       (u[k + 2] & 0xc0) == 0x80)
		k += 3;
	return k;
}

size_t dtk_fold_fast(struct dtk_buf *b, const char *s, size_t len, size_t i, size_t end)
{
	const utf8proc_uint8_t *u = (const utf8proc_uint8_t *)s;
	utf8proc_ssize_t n;
	utf8proc_int32_t cp;
	size_t k;
	int kind;

	/* room for the ASCII as it is (cap - len >= end - i stays true
	 * below); other characters check for more */
	dtk_grow((void **)&b->ptr, &b->cap, b->len + (end - i) + 64, 1);
	while (i < end) {
		unsigned char c = u[i];
		if (c < 0x80 && end - i >= 8) { /* eight ASCII bytes at a step */
			uint64_t x, upper, low;
			memcpy(&x, u + i, 8);
			low = x & ~S_HIGH; /* no byte carries into the next below */
			/* the high bit of an ASCII byte: at least 'A' and not above 'Z' */
			upper = (low + S_BYTES(0x80 - 'A')) & ~(low + S_BYTES(0x7f - 'Z')) & ~x &
			        S_HIGH;
			x |= upper >> 2; /* 0x80 >> 2: the bit of lowercase */
			/* the eight bytes written (b has room: see above), as many
			 * kept as are ASCII from the first on */
			memcpy(b->ptr + b->len, &x, 8);
			if (!(x & S_HIGH)) {
				b->len += 8;
				i += 8;
				continue;
			}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			k = (size_t)__builtin_ctzll(x & S_HIGH) / 8; /* c is ASCII: 1 or more */
			b->len += k;
			i += k;
			continue;
#endif
		}
		if (c < 0x80) {
			b->ptr[b->len++] = (char)((unsigned)c - 'A' < 26u ? c + 32 : c);
			i++;
			continue;
		}
		if (c >= 0xe4 && c <= 0xe9 && i + 2 < len && (u[i + 1] & 0xc0) == 0x80 &&
		    (u[i + 2] & 0xc0) == 0x80) {
			/* U+4000..U+9FFF (CJK ideographs, Yijing hexagrams): each
			 * folds to itself and composes with nothing (test_search
			 * checks every one), so it needs no look-up; a run of them
			 * at once */
			k = S_cjk_run(u, i + 3, end);
			memcpy(b->ptr + b->len, s + i, k - i);
			b->len += k - i;
			i = k;
			continue;
		}
		if (b->cap - b->len < 40 + (end - i)) /* what one character may give */
			dtk_grow((void **)&b->ptr, &b->cap, b->len + (end - i) + 64, 1);
		n = utf8proc_iterate(u + i, (utf8proc_ssize_t)(len - i), &cp);
		if (n < 0 || (kind = S_kind(cp)) == 3)
			return i;
		if (kind == 1) {
			memcpy(b->ptr + b->len, s + i, (size_t)n);
			b->len += (size_t)n;
		} else {
			S_put_folded(b, cp);
		}
		i += (size_t)n;
	}
	return i;
}

char *dtk_fold(const char *s, size_t len, size_t *out_len, size_t **map)
{
	const utf8proc_uint8_t *u = (const utf8proc_uint8_t *)s;
	struct dtk_buf b = DTK_BUF_INIT, m = DTK_BUF_INIT;
	utf8proc_uint8_t *mapped = NULL;
	utf8proc_ssize_t n;
	/* with a map: always code point by code point, decomposed */
	size_t i = map ? 0 : dtk_fold_fast(&b, s, len, 0, len);

	if (i < len) { /* the whole text again, the slow way */
		b.len = 0;
		m.len = 0;
		if (map) {
			if (S_fold_mapped(&b, &m, s, len) < 0)
				goto bad;
		} else {
			n = utf8proc_map(u, (utf8proc_ssize_t)len, &mapped, S_FOLD);
			if (n < 0)
				goto bad;
			dtk_buf_put(&b, (const char *)mapped, (size_t)n);
			free(mapped);
		}
	}
	dtk_buf_putc(&b, '\0');
	b.len--;
	*out_len = b.len;
	if (map) {
		dtk_buf_put(&m, (const char *)&len, sizeof(len));
		*map = (size_t *)dtk_buf_detach(&m);
	}
	return dtk_buf_detach(&b);
bad:
	dtk_buf_release(&b);
	dtk_buf_release(&m);
	dtk_error("not valid UTF-8");
	return NULL;
}

int dtk_fold_is_mark(const char *s, size_t len)
{
	utf8proc_int32_t cp;
	if (utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &cp) < 1)
		return 0;
	return utf8proc_get_property(cp)->combining_class != 0;
}

size_t dtk_fold_space_len(const char *s, size_t len)
{
	utf8proc_int32_t cp;
	utf8proc_ssize_t n =
	        len ? utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &cp) : 0;

	if (n < 1)
		return 0;
	if ((cp >= 0x09 && cp <= 0x0d) || cp == 0x85 || cp == 0x2028 || cp == 0x2029 ||
	    utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS)
		return (size_t)n;
	return 0;
}

/* Returns 1 when cp's folding is of kind 1, or of kind 2 without an ASCII
 * letter or digit; else 0. */
static int S_apart_from_alnum(utf8proc_int32_t cp)
{
	utf8proc_int32_t d[8];
	utf8proc_ssize_t n, i;
	int bound = 0, kind = S_kind(cp);

	if (kind != 2)
		return kind == 1;
	n = utf8proc_decompose_char(cp, d, 8, S_FOLD, &bound);
	for (i = 0; i < n && i < 8; i++)
		if (d[i] < 0x80 && (((unsigned)d[i] | 0x20u) - 'a' < 26u || (unsigned)d[i] - '0' < 10u))
			return 0;
	return 1;
}

/* Checks the character that starts at u[i] (not ASCII, not U+4000..U+9FFF).
 * Returns 1 when it is apart from ASCII letters and digits, 0 when not or
 * when it is not UTF-8. */
static int S_char_apart(const unsigned char *u, size_t len, size_t i)
{
	utf8proc_int32_t cp;
	return utf8proc_iterate(u + i, (utf8proc_ssize_t)(len - i), &cp) > 0 &&
	       S_apart_from_alnum(cp);
}

/* Returns 1 when byte c starts a character other than ASCII and U+4000..U+9FFF. */
#define S_OTHER_LEAD(c) ((c) >= 0xc0 && ((c) < 0xe4 || (c) > 0xe9))

const char *dtk_fold_lower_apart(struct dtk_buf *b, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;

	b->len = 0;
	dtk_grow((void **)&b->ptr, &b->cap, len + 17, 1);
#ifdef __SSE2__
	for (; i + 16 <= len; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(u + i)), upper, lead, cjk;
		unsigned m;
		/* signed bytes: 0x80..0xff are below 0 */
		upper = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('A' - 1)),
		                      _mm_cmplt_epi8(x, _mm_set1_epi8('Z' + 1)));
		_mm_storeu_si128((__m128i *)(b->ptr + i),
		                 _mm_or_si128(x, _mm_and_si128(upper, _mm_set1_epi8(0x20))));
		/* 0xc0..0xff, but 0xe4..0xe9 */
		lead = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8((char)0xbf)),
		                     _mm_cmplt_epi8(x, _mm_setzero_si128()));
		cjk = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8((char)0xe3)),
		                    _mm_cmplt_epi8(x, _mm_set1_epi8((char)0xea)));
		m = (unsigned)_mm_movemask_epi8(_mm_andnot_si128(cjk, lead));
		for (; m; m &= m - 1)
			if (!S_char_apart(u, len, i + (size_t)__builtin_ctz(m)))
				return NULL;
	}
#endif
	for (; i < len; i++) {
		b->ptr[i] = (char)((unsigned)u[i] - 'A' < 26u ? u[i] + 32 : u[i]);
		if (S_OTHER_LEAD(u[i]) && !S_char_apart(u, len, i))
			return NULL;
	}
	b->len = len;
	b->ptr[len] = '\0';
	return b->ptr;
}

const char *dtk_fold_into(struct dtk_buf *b, const char *s)
{
	size_t len = strlen(s), i, n;
	char *f;

	b->len = 0;
	i = dtk_fold_fast(b, s, len, 0, len);
	if (i < len) {
		if (!(f = dtk_fold(s, len, &n, NULL)))
			return NULL;
		b->len = 0;
		dtk_buf_put(b, f, n);
		free(f);
	}
	dtk_buf_putc(b, '\0');
	return b->ptr;
}
