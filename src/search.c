/* search.c: full-text search over entries, with utf8proc's normalization. */
#define _GNU_SOURCE /* memmem */
#include "dtk/search.h"

#include "dtk/kb.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* Per code point of the BMP of kind 2 whose folding takes 1 to 7 bytes:
 * those bytes from the second byte up and their count in the first; 0 not
 * known yet. Filled as S_kinds is. */
static _Atomic uint64_t S_folded[0x10000];

/* Appends what cp folds to (a character of kind 2) to b, which has room
 * for 32 more bytes. */
static void S_put_folded(struct dtk_buf *b, utf8proc_int32_t cp)
{
	utf8proc_int32_t d[8];
	utf8proc_uint8_t enc[4];
	utf8proc_ssize_t n, i;
	uint64_t v = cp < 0x10000 ? atomic_load_explicit(&S_folded[cp], memory_order_relaxed) : 0;
	size_t at = b->len, k;
	int bound = 0;

	if (v) { /* little-endian or not: the bytes are shifted out in order */
		for (k = v & 0xff; k > 0; k--) {
			v >>= 8;
			b->ptr[b->len++] = (char)(v & 0xff);
		}
		return;
	}
	n = utf8proc_decompose_char(cp, d, 8, S_FOLD, &bound);
	for (i = 0; i < n && i < 8; i++)
		dtk_buf_put(b, (const char *)enc, (size_t)utf8proc_encode_char(d[i], enc));
	if (cp >= 0x10000 || b->len - at < 1 || b->len - at > 7)
		return;
	for (k = b->len; k > at; k--)
		v = (v << 8) | (unsigned char)b->ptr[k - 1];
	atomic_store_explicit(&S_folded[cp], (v << 8) | (b->len - at), memory_order_relaxed);
}

/* Eight bytes each c; the high bit of eight bytes. */
#define S_BYTES(c) (0x0101010101010101ull * (uint64_t)(c))
#define S_HIGH S_BYTES(0x80)

/* Returns where the run of characters U+4000..U+9FFF (three bytes each, E4
 * to E9 then two continuation bytes) that goes on at u[k] ends, at most at
 * end (a character that crosses end ends it too). */
static size_t S_cjk_run(const unsigned char *u, size_t k, size_t end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* two characters at a step: bytes 1, 2, 4 and 5 continuation bytes,
	 * bytes 0 and 3 E4..E9 */
	while (k + 8 <= end) {
		uint64_t x;
		memcpy(&x, u + k, 8);
		if ((x & 0x0000c0c000c0c000ull) != 0x0000808000808000ull ||
		    (unsigned)(x & 0xff) - 0xe4u > 5u || (unsigned)((x >> 24) & 0xff) - 0xe4u > 5u)
			break;
		k += 6;
	}
#endif
	while (k + 2 < end && (unsigned)u[k] - 0xe4u <= 5u && (u[k + 1] & 0xc0) == 0x80 &&
	       (u[k + 2] & 0xc0) == 0x80)
		k += 3;
	return k;
}

/* Folds s[i..) onto b the fast way, character by character, until end (or
 * the end of the character that crosses end) or a character whose folding
 * depends on what surrounds it. Returns where it stopped: below end (and
 * below len) at such a character or at bytes that are not UTF-8. */
static size_t S_fold_fast(struct dtk_buf *b, const char *s, size_t len, size_t i, size_t end)
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
		if (c >= 0xe0 && c < 0xf0 && i + 2 < len && (u[i + 1] & 0xc0) == 0x80 &&
		    (u[i + 2] & 0xc0) == 0x80 && (c > 0xe0 || u[i + 1] >= 0xa0) &&
		    (c != 0xed || u[i + 1] < 0xa0)) { /* three bytes, most of CJK */
			n = 3;
			cp = ((c & 0x0f) << 12) | ((u[i + 1] & 0x3f) << 6) | (u[i + 2] & 0x3f);
		} else {
			n = utf8proc_iterate(u + i, (utf8proc_ssize_t)(len - i), &cp);
		}
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
	size_t i = map ? 0 : S_fold_fast(&b, s, len, 0, len);

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

/* ---- the search ---- */

struct dtk_search {
	char **words;
	size_t *lens, n;
	/* the other words each word also takes (dtk_search_set_alts): alts[j]
	 * of length alt_lens[j] stands for word alt_of[j] */
	char **alts;
	size_t *alt_lens, *alt_of, n_alts;
	int careful;                /* a word a file's bytes may not show as they are */
	int alnum;                /* every word is ASCII letters and digits only */
	unsigned char *in_source; /* words found in some source title */
	unsigned char *src_has;   /* [k * n_sources + i]: source i's folded title holds word k */
	size_t n_sources;
	dtk_search_show_fn show; /* the show hook, NULL when none */
	void *show_arg;
	pthread_mutex_t lock; /* over the hits, noted from several threads */
	struct dtk_search_hit *hits;
	size_t n_hits, cap;
};

struct dtk_search *dtk_search_new(const char *const *words, size_t n)
{
	struct dtk_search *s;
	size_t i, bytes = 0;

	for (i = 0; i < n; i++)
		bytes += strlen(words[i]);
	if (n > DTK_SEARCH_MAX_WORDS || bytes > DTK_SEARCH_MAX_BYTES) {
		dtk_error("a search takes at most %d words of %d bytes in all, not %zu of %zu",
		          DTK_SEARCH_MAX_WORDS, DTK_SEARCH_MAX_BYTES, n, bytes);
		return NULL;
	}
	s = dtk_xcalloc(1, sizeof(*s));
	s->words = dtk_xcalloc(n + 1, sizeof(*s->words));
	s->lens = dtk_xcalloc(n + 1, sizeof(*s->lens));
	s->in_source = dtk_xcalloc(n + 1, 1);
	pthread_mutex_init(&s->lock, NULL);
	for (i = 0; i < n; i++) {
		s->words[i] = dtk_fold(words[i], strlen(words[i]), &s->lens[i], NULL);
		s->n = i + 1;
		if (!s->words[i]) {
			dtk_error("'%s' is not valid UTF-8", words[i]);
			goto fail;
		}
		if (!s->lens[i]) {
			dtk_error("'%s' has nothing to search for", words[i]);
			goto fail;
		}
		/* quotes, escapes and spaces may be written otherwise in YAML */
		if (strpbrk(s->words[i], "'\"\\ \t\n\r#"))
			s->careful = 1;
	}
	for (i = 0, s->alnum = 1; i < n; i++)
		if (strspn(s->words[i], "abcdefghijklmnopqrstuvwxyz0123456789") != s->lens[i])
			s->alnum = 0;
	return s;
fail:
	dtk_search_free(s);
	return NULL;
}

void dtk_search_free(struct dtk_search *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->words[i]);
	for (i = 0; i < s->n_alts; i++)
		free(s->alts[i]);
	free(s->alts);
	free(s->alt_lens);
	free(s->alt_of);
	free(s->words);
	free(s->lens);
	free(s->in_source);
	free(s->src_has);
	free(s->hits);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void dtk_search_set_alts(struct dtk_search *s, size_t k, const char *const *alts, size_t n)
{
	size_t i, len;
	char *f;

	for (i = 0; i < n; i++) {
		f = dtk_fold(alts[i], strlen(alts[i]), &len, NULL);
		if (!f || !len || strpbrk(f, "'\"\\ \t\n\r#")) { /* none such: words */
			free(f);
			continue;
		}
		s->alts = dtk_xrealloc(s->alts, (s->n_alts + 1) * sizeof(*s->alts));
		s->alt_lens = dtk_xrealloc(s->alt_lens, (s->n_alts + 1) * sizeof(*s->alt_lens));
		s->alt_of = dtk_xrealloc(s->alt_of, (s->n_alts + 1) * sizeof(*s->alt_of));
		s->alts[s->n_alts] = f;
		s->alt_lens[s->n_alts] = len;
		s->alt_of[s->n_alts++] = k;
		s->alnum = 0; /* an alternative may need the text folded */
	}
}

/* Returns 2 when text holds word k of s, 1 when it holds another word k
 * takes (an alternative), else 0. */
static int S_has(const struct dtk_search *s, size_t k, const char *text)
{
	size_t j;
	if (strstr(text, s->words[k]))
		return 2;
	for (j = 0; j < s->n_alts; j++)
		if (s->alt_of[j] == k && strstr(text, s->alts[j]))
			return 1;
	return 0;
}

/* As S_has, on text[0..len) with no NUL. */
static int S_has_mem(const struct dtk_search *s, size_t k, const char *text, size_t len)
{
	size_t j;
	if (memmem(text, len, s->words[k], s->lens[k]))
		return 2;
	for (j = 0; j < s->n_alts; j++)
		if (s->alt_of[j] == k && memmem(text, len, s->alts[j], s->alt_lens[j]))
			return 1;
	return 0;
}

void dtk_search_set_show(struct dtk_search *s, dtk_search_show_fn fn, void *arg)
{
	s->show = fn;
	s->show_arg = arg;
}

const char *const *dtk_search_words(const struct dtk_search *s, size_t *n)
{
	*n = s->n;
	return (const char *const *)s->words;
}

int dtk_search_source(const struct dtk_search *s, const struct dtk_source *src)
{
	const char *text[3] = {src->id, src->title, src->url ? src->url : ""};
	unsigned char found[DTK_SEARCH_MAX_WORDS] = {0};
	size_t i, k, len, left = s->n;
	char *t;

	for (i = 0; i < 3 && left; i++) {
		t = dtk_fold(text[i], strlen(text[i]), &len, NULL);
		for (k = 0; t && k < s->n; k++)
			if (!found[k] && memmem(t, len, s->words[k], s->lens[k])) {
				found[k] = 1;
				left--;
			}
		free(t);
	}
	return left == 0;
}

void dtk_search_prepare(struct dtk_search *s, const struct dtk_kb *kb)
{
	size_t i, k, len;
	char *t;

	free(s->src_has); /* prepared again */
	s->src_has = dtk_xcalloc(s->n * kb->n_sources + 1, 1);
	s->n_sources = kb->n_sources;
	for (i = 0; i < kb->n_sources; i++) {
		t = dtk_fold(kb->sources[i].title, strlen(kb->sources[i].title), &len, NULL);
		for (k = 0; t && k < s->n; k++) /* the loader refuses bad UTF-8 */
			if (S_has(s, k, t))
				s->in_source[k] = s->src_has[k * kb->n_sources + i] = 1;
		free(t);
	}
	/* a word in a category's name may match an entry of any file */
	for (i = 0; i < kb->n_categories; i++) {
		t = dtk_fold(kb->categories[i].name, strlen(kb->categories[i].name), &len, NULL);
		for (k = 0; t && k < s->n; k++)
			if (S_has(s, k, t))
				s->in_source[k] = 1;
		free(t);
	}
}

static int S_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Drops from p[st..len) each run of blanks that holds a line break (st is
 * not inside a run: the caller backs it up to the run's start), where YAML's
 * folding of lines may join two characters (a break between two East Asian
 * wide characters is no space, docs/schema.md): a word, which holds no
 * blank, is still found wherever the parsed text holds it. Unless last, a
 * run at the end is kept whole for the text that comes next. Returns the new
 * length. */
static size_t S_drop_breaks(char *p, size_t len, size_t st, int last)
{
	size_t r, w, a;
	int nl;

	for (r = w = st; r < len;) {
		if (!S_blank(p[r])) {
			p[w++] = p[r++];
			continue;
		}
		for (a = r, nl = 0; r < len && S_blank(p[r]); r++)
			nl |= p[r] == '\n';
		if (!nl || (r == len && !last)) {
			memmove(p + w, p + a, r - a);
			w += r - a;
		}
	}
	return w;
}

int dtk_search_file_may_match(const struct dtk_search *s, const char *buf, size_t len)
{
	struct dtk_buf b = DTK_BUF_INIT;
	unsigned char *found;
	size_t i, at = 0, next, left = 0, longest = 0, from, flen, st;
	char *f;
	int ok = 1;

	for (i = 0; i < s->n && s->in_source[i]; i++)
		;
	if (i == s->n || s->careful || memchr(buf, '\\', len))
		return 1; /* every word in a source title: any entry may hold them */
	found = dtk_xcalloc(s->n + 1, 1);
	for (i = 0; i < s->n; i++) {
		found[i] = s->in_source[i];
		left += !found[i];
		if (s->lens[i] > longest)
			longest = s->lens[i];
	}
	for (i = 0; i < s->n_alts; i++)
		if (s->alt_lens[i] > longest)
			longest = s->alt_lens[i];
	/* fold a part at a time, and stop as soon as every word is seen */
	while (left && at < len) {
		st = b.len;
		next = S_fold_fast(&b, buf, len, at, at + 16384 < len ? at + 16384 : len);
		if (next < len && next < at + 16384) { /* the slow way, all of it */
			f = dtk_fold(buf, len, &flen, NULL);
			if (f)
				flen = S_drop_breaks(f, flen, 0, 1);
			for (i = 0; f && i < s->n && ok; i++)
				ok = found[i] || S_has_mem(s, i, f, flen);
			free(f);
			goto done;
		}
		while (st > 0 && S_blank(b.ptr[st - 1])) /* the run that crosses st */
			st--;
		b.len = S_drop_breaks(b.ptr, b.len, st, next >= len);
		from = st >= longest ? st - longest + 1 : 0;
		for (i = 0; i < s->n; i++)
			if (!found[i] && S_has_mem(s, i, b.ptr + from, b.len - from)) {
				found[i] = 1;
				left--;
			}
		at = next;
	}
	ok = left == 0;
done:
	free(found);
	dtk_buf_release(&b);
	return ok;
}

/* Returns 1 when the folded title of one of e's sources holds word k. */
static int S_in_sources(const struct dtk_search *s, const struct dtk_kb *kb,
                        const struct dtk_entry *e, size_t k)
{
	const struct dtk_source *src;
	size_t i;

	if (!s->in_source[k])
		return 0;
	for (i = 0; i <= e->n_verified_by; i++) {
		src = dtk_kb_source(kb, i ? e->verified_by[i - 1].id : e->source.id);
		if (src && s->src_has[k * s->n_sources + (size_t)(src - kb->sources)])
			return 1;
	}
	return 0;
}

static int S_hit_cmp(const void *pa, const void *pb)
{
	const struct dtk_search_hit *a = pa, *b = pb;
	dtk_date fa = a->fresh, fb = b->fresh;

	if (a->exact != b->exact) /* the words as given first */
		return a->exact > b->exact ? -1 : 1;
	if (a->title != b->title)
		return a->title > b->title ? -1 : 1;
	if (a->claim != b->claim)
		return a->claim > b->claim ? -1 : 1;
	if (a->e->confidence != b->e->confidence)
		return a->e->confidence < b->e->confidence ? -1 : 1;
	if (fa != fb)
		return fa > fb ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Returns node's place in listing order: category by category as
 * _domain.yaml lists them, then the nodes in no category by name. */
static size_t S_node_rank(const struct dtk_kb *kb, const struct dtk_node *node)
{
	size_t c, j, before = 0;

	for (c = 0; c < kb->n_categories; c++) {
		const struct dtk_category *cat = &kb->categories[c];
		for (j = 0; j < cat->n_nodes; j++)
			if ((int)c == node->category && !strcmp(cat->nodes[j].id, node->name))
				return before + j;
		before += cat->n_nodes;
	}
	for (j = 0; j < kb->n_nodes && kb->nodes[j] != node; j++)
		;
	return before + j; /* kb->nodes are in name order */
}

/* Per code point of the BMP: 0 not known yet, 1 when it cannot take part
 * in a run of ASCII letters and digits of the folded text (it folds to
 * itself, or alone to no ASCII letter or digit), 2 when it may. Filled as
 * S_kinds is. */
static _Atomic unsigned char S_apart[0x10000];

/* Returns 1 when cp's folding is of kind 1, or of kind 2 without an ASCII
 * letter or digit; else 0. */
static int S_apart_from_alnum(utf8proc_int32_t cp)
{
	utf8proc_int32_t d[8];
	utf8proc_ssize_t n, i;
	unsigned char v =
	        cp < 0x10000 ? atomic_load_explicit(&S_apart[cp], memory_order_relaxed) : 0;
	int bound = 0, kind;

	if (v)
		return v == 1;
	kind = S_kind(cp);
	v = kind == 1 ? 1 : 2;
	if (kind == 2) {
		n = utf8proc_decompose_char(cp, d, 8, S_FOLD, &bound);
		for (i = 0, v = 1; i < n && i < 8; i++)
			if (d[i] < 0x80 &&
			    (((unsigned)d[i] | 0x20u) - 'a' < 26u || (unsigned)d[i] - '0' < 10u))
				v = 2;
	}
	if (cp < 0x10000)
		atomic_store_explicit(&S_apart[cp], v, memory_order_relaxed);
	return v == 1;
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

/*
 * Sets b (reset first) to s (of the parser: UTF-8) with ASCII capitals made
 * small and every other byte as it is, when no character of s may fold into
 * or out of a run of ASCII letters and digits (each is ASCII, U+4000..U+9FFF,
 * or apart: S_apart_from_alnum). Then a word of ASCII letters and digits
 * occurs in b exactly when it occurs in s folded: such runs of the folded
 * text are the runs of ASCII of s made small, and other characters give
 * other bytes. Returns b's text, or NULL when a character may (b is then
 * undefined): the caller folds s.
 */
static const char *S_lower_apart(struct dtk_buf *b, const char *s)
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

/* Folds s into b (reset first); returns b's text, or NULL on bad UTF-8. */
static const char *S_fold_into(struct dtk_buf *b, const char *s)
{
	size_t len = strlen(s), i, n;
	char *f;

	b->len = 0;
	i = S_fold_fast(b, s, len, 0, len);
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

/* Copies what e borrows from its file's parse into keep when hit, else
 * drops it. */
static void S_keep(struct dtk_entry *e, int hit, struct dtk_arena *keep)
{
	struct dtk_ref *v;
	unsigned k;

	if (!hit) {
		e->title = e->title ? "" : NULL;
		e->claim = e->claim ? "" : NULL;
		e->verified_by = e->relates = NULL;
		e->n_verified_by = e->n_relates = 0;
		return;
	}
	e->title = dtk_arena_strdup(keep, e->title);
	e->claim = dtk_arena_strdup(keep, e->claim);
	if (e->n_verified_by) { /* ids: the sources' own */
		v = dtk_arena_alloc(keep, e->n_verified_by * sizeof(*v));
		memcpy(v, e->verified_by, e->n_verified_by * sizeof(*v));
		e->verified_by = v;
	}
	if (e->n_relates) {
		v = dtk_arena_alloc(keep, e->n_relates * sizeof(*v));
		for (k = 0; k < e->n_relates; k++) {
			v[k].id = dtk_arena_strdup(keep, e->relates[k].id);
			v[k].pos = e->relates[k].pos;
		}
		e->relates = v;
	}
}

void dtk_search_node(struct dtk_search *s, const struct dtk_kb *kb, struct dtk_node *node,
                     struct dtk_arena *keep)
{
	struct dtk_search_hit *v = NULL, h;
	struct dtk_buf tb = DTK_BUF_INIT, cb = DTK_BUF_INIT;
	size_t n = 0, cap = 0, k, w, len;
	const char *title, *claim;
	/* the node's category, folded: a word may name it */
	char *cat = node->category >= 0 && (size_t)node->category < kb->n_categories
	                    ? dtk_fold(kb->categories[node->category].name,
	                               strlen(kb->categories[node->category].name), &len, NULL)
	                    : NULL;

	for (k = 0; k < node->n_entries; k++) {
		struct dtk_entry *e = &node->entries[k];
		/* an entry without a title or claim is an error the load reports */
		int all = e->title && e->claim;
		/* words of ASCII letters and digits: the text folded only where
		 * it must be */
		title = all && s->alnum ? S_lower_apart(&tb, e->title) : NULL;
		title = all && !title ? S_fold_into(&tb, e->title) : title;
		claim = all && s->alnum ? S_lower_apart(&cb, e->claim) : NULL;
		claim = all && !claim ? S_fold_into(&cb, e->claim) : claim;
		all = title && claim;
		memset(&h, 0, sizeof(h));
		h.e = e;
		h.order = k;
		for (w = 0; w < s->n && all; w++) {
			/* 2: the word itself, 1: a word it takes (S_has) */
			int t = S_has(s, w, e->id), c = S_has(s, w, claim);
			t = t == 2 ? 2 : S_has(s, w, title) > t ? S_has(s, w, title) : t;
			h.title += t != 0;
			h.claim += c != 0;
			h.exact += t == 2 || c == 2;
			all = t || c || S_in_sources(s, kb, e, w) || (cat && S_has(s, w, cat));
		}
		if (all) {
			h.fresh = dtk_entry_fresh(e);
			dtk_grow((void **)&v, &cap, n + 1, sizeof(*v));
			v[n++] = h;
		}
		if (all && keep && s->show) /* shown here, on a loading thread */
			s->show(s->show_arg, kb, &v[n - 1], keep);
		if (keep) /* borrowed: what is to be shown is kept */
			S_keep(e, all && !v[n - 1].shown, keep);
	}
	dtk_buf_release(&tb);
	dtk_buf_release(&cb);
	free(cat);
	if (!n)
		return;
	pthread_mutex_lock(&s->lock);
	dtk_grow((void **)&s->hits, &s->cap, s->n_hits + n, sizeof(*s->hits));
	memcpy(s->hits + s->n_hits, v, n * sizeof(*v));
	s->n_hits += n;
	pthread_mutex_unlock(&s->lock);
	free(v);
}

/* The work of dtk_search_base: the nodes taken one at a time. */
struct base_run {
	struct dtk_search *s;
	const struct dtk_kb *kb;
	const char *node;
	atomic_size_t next;
};

static void S_base_work(void *arg, int k)
{
	struct base_run *r = arg;
	size_t i;

	(void)k;
	while ((i = atomic_fetch_add(&r->next, 1)) < r->kb->n_nodes) {
		struct dtk_node *nd = r->kb->nodes[i];
		if (!r->node || !strcmp(nd->name, r->node))
			dtk_search_node(r->s, r->kb, nd, NULL); /* no keep: nd is not changed */
	}
}

void dtk_search_base(struct dtk_search *s, const struct dtk_kb *kb, const char *node)
{
	struct base_run r = {s, kb, node, 0};

	dtk_search_prepare(s, kb);
	atomic_init(&r.next, 0);
	dtk_threads_run(node ? 1 : dtk_threads(kb->n_nodes / 4 + 1), S_base_work, &r);
}

size_t dtk_search_hits(struct dtk_search_hit **out, struct dtk_search *s, const struct dtk_kb *kb)
{
	size_t i, n = s->n_hits;
	const struct dtk_node *last = NULL;
	size_t rank = 0;

	for (i = 0; i < n; i++) { /* a node's hits are together */
		struct dtk_search_hit *h = &s->hits[i];
		if (h->e->node != last) {
			last = h->e->node;
			rank = S_node_rank(kb, last);
		}
		h->order += rank << 24;
	}
	if (n > 1)
		qsort(s->hits, n, sizeof(*s->hits), S_hit_cmp);
	*out = s->hits;
	s->hits = NULL;
	s->n_hits = s->cap = 0;
	return n;
}
