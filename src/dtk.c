/* dtk.c: memory, buffers, the arena, the last error and small text helpers. */
#define _GNU_SOURCE /* madvise */
#include "dtk/dtk.h"

#include "dtk/invisible.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static void S_oom(void)
{
	fputs("dtk: fatal: out of memory\n", stderr);
	abort();
}

void *dtk_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		S_oom();
	return p;
}

void *dtk_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		S_oom();
	return p;
}

void *dtk_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		S_oom();
	return p;
}

char *dtk_xstrndup(const char *s, size_t n)
{
	char *p = dtk_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *dtk_xstrdup(const char *s)
{
	return dtk_xstrndup(s, strlen(s));
}

void dtk_grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 8;
	if (need <= *cap)
		return;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			S_oom();
		c *= 2;
	}
	*v = dtk_xrealloc(*v, c * size);
	*cap = c;
}

/* ---- buffers ---- */

void dtk_buf_put(struct dtk_buf *b, const char *s, size_t n)
{
	dtk_grow((void **)&b->ptr, &b->cap, b->len + n + 1, 1);
	if (n)
		memcpy(b->ptr + b->len, s, n);
	b->len += n;
	b->ptr[b->len] = '\0';
}

void dtk_buf_puts(struct dtk_buf *b, const char *s)
{
	dtk_buf_put(b, s, strlen(s));
}

void dtk_buf_putc(struct dtk_buf *b, char c)
{
	dtk_buf_put(b, &c, 1);
}

void dtk_buf_vprintf(struct dtk_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	dtk_grow((void **)&b->ptr, &b->cap, b->len + (size_t)n + 1, 1);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void dtk_buf_printf(struct dtk_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dtk_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

const char *dtk_buf_cstr(struct dtk_buf *b)
{
	return b->ptr ? b->ptr : "";
}

char *dtk_buf_detach(struct dtk_buf *b)
{
	char *p = b->ptr ? b->ptr : dtk_xstrdup("");
	b->ptr = NULL;
	b->len = b->cap = 0;
	return p;
}

int dtk_buf_write(void *arg, const char *s, size_t len)
{
	dtk_buf_put(arg, s, len);
	return 0;
}

void dtk_buf_release(struct dtk_buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = 0;
}

/* ---- arena ---- */

#define S_ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define S_SIPROUND(v)                                                                              \
	do {                                                                                       \
		v[0] += v[1];                                                                      \
		v[1] = S_ROTL(v[1], 13) ^ v[0];                                                    \
		v[0] = S_ROTL(v[0], 32);                                                           \
		v[2] += v[3];                                                                      \
		v[3] = S_ROTL(v[3], 16) ^ v[2];                                                    \
		v[0] += v[3];                                                                      \
		v[3] = S_ROTL(v[3], 21) ^ v[0];                                                    \
		v[2] += v[1];                                                                      \
		v[1] = S_ROTL(v[1], 17) ^ v[2];                                                    \
		v[2] = S_ROTL(v[2], 32);                                                           \
	} while (0)

/* SipHash-2-4 (Aumasson and Bernstein), its words little-endian. */
uint64_t dtk_siphash(const uint64_t key[2], const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t v[4] = {key[0] ^ 0x736f6d6570736575ULL, key[1] ^ 0x646f72616e646f6dULL,
	                 key[0] ^ 0x6c7967656e657261ULL, key[1] ^ 0x7465646279746573ULL},
	         m, last = (uint64_t)len << 56;
	size_t i, left = len % 8;

	for (i = 0; i + 8 <= len; i += 8) {
		m = 0;
		for (int k = 7; k >= 0; k--)
			m = (m << 8) | p[i + (size_t)k];
		v[3] ^= m;
		S_SIPROUND(v);
		S_SIPROUND(v);
		v[0] ^= m;
	}
	for (size_t k = 0; k < left; k++)
		last |= (uint64_t)p[i + k] << (8 * k);
	v[3] ^= last;
	S_SIPROUND(v);
	S_SIPROUND(v);
	v[0] ^= last;
	v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		S_SIPROUND(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

struct dtk_chunk {
	struct dtk_chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct dtk_arena {
	struct dtk_chunk *head;
	size_t total; /* bytes of the chunks made so far */
};

_Static_assert(_Alignof(void *) <= 8 && _Alignof(long) <= 8 && _Alignof(double) <= 8,
               "dtk_arena_alloc aligns to 8 bytes");

struct dtk_arena *dtk_arena_new(void)
{
	return dtk_xcalloc(1, sizeof(struct dtk_arena));
}

#define ARENA_CHUNK 32768
#define ARENA_HUGE (2u << 20)

/* Returns a new chunk of size bytes, linked in behind the current one when
 * keep_head (so that the current one goes on filling) or else as the new
 * current one. */
static struct dtk_chunk *S_chunk(struct dtk_arena *a, size_t size, int keep_head)
{
	struct dtk_chunk *c;
	if (!keep_head && a->total >= ARENA_HUGE / 4) /* a big arena: chunks of huge pages */
		size = ARENA_HUGE - sizeof(*c);
	if (size + sizeof(*c) == ARENA_HUGE) {
		c = aligned_alloc(ARENA_HUGE, ARENA_HUGE);
		if (!c)
			abort();
		madvise(c, ARENA_HUGE, MADV_HUGEPAGE);
	} else {
		c = dtk_xmalloc(sizeof(*c) + size);
	}
	a->total += size;
	c->used = 0;
	c->size = size;
	if (keep_head && a->head) {
		c->next = a->head->next;
		a->head->next = c;
	} else {
		c->next = a->head;
		a->head = c;
	}
	return c;
}

/* Returns n bytes of the arena aligned to align (a power of two), not zeroed.
 * Strings ask for 1: an id of 23 bytes then takes 24, not 32. A large block
 * gets a chunk of its own, so that it never leaves the current one half
 * empty. */
static void *S_arena_raw(struct dtk_arena *a, size_t n, size_t align)
{
	struct dtk_chunk *c = a->head;
	size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;

	if (c && at <= c->size && c->size - at >= n) {
		c->used = at + n;
		return (char *)c->data + at;
	}
	c = S_chunk(a, n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK, n > ARENA_CHUNK / 4);
	c->used = n;
	return c->data;
}

void *dtk_arena_alloc(struct dtk_arena *a, size_t n)
{
	void *p = S_arena_raw(a, n, 8);
	memset(p, 0, n);
	return p;
}

void *dtk_arena_alloc_raw(struct dtk_arena *a, size_t n)
{
	return S_arena_raw(a, n, 8);
}

char *dtk_arena_strndup(struct dtk_arena *a, const char *s, size_t n)
{
	char *p = S_arena_raw(a, n + 1, 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *dtk_arena_strdup(struct dtk_arena *a, const char *s)
{
	return dtk_arena_strndup(a, s, strlen(s));
}

void dtk_arena_adopt(struct dtk_arena *dst, struct dtk_arena *src)
{
	struct dtk_chunk *c;
	if (!src)
		return;
	if (src->head) {
		/* src's chunks go behind dst's current one, so dst keeps filling it */
		for (c = src->head; c->next; c = c->next)
			;
		if (dst->head) {
			c->next = dst->head->next;
			dst->head->next = src->head;
		} else {
			dst->head = src->head;
		}
	}
	dst->total += src->total;
	free(src);
}

void dtk_arena_reset(struct dtk_arena *a)
{
	struct dtk_chunk *c, *next, *keep = NULL;
	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		if (!keep && c->size == ARENA_CHUNK) {
			keep = c;
			continue;
		}
		free(c);
	}
	if (keep) {
		keep->used = 0;
		keep->next = NULL;
	}
	a->head = keep;
	a->total = keep ? keep->size : 0;
}

void dtk_arena_free(struct dtk_arena *a)
{
	dtk_arena_reset(a); /* leaves one chunk at most */
	if (a)
		free(a->head);
	free(a);
}

/* ---- the last error ---- */

static _Thread_local char S_error[1024];

static _Thread_local char S_error_path[512];
static _Thread_local int S_error_line, S_error_col;

int dtk_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(S_error, sizeof(S_error), fmt, ap);
	va_end(ap);
	S_error_path[0] = '\0';
	return -1;
}

int dtk_error_at(const char *path, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(S_error, sizeof(S_error), fmt, ap);
	va_end(ap);
	snprintf(S_error_path, sizeof(S_error_path), "%s", path);
	S_error_line = line;
	S_error_col = col;
	return -1;
}

int dtk_error_pos(const char **path, int *line, int *col)
{
	if (!S_error_path[0])
		return 0;
	*path = S_error_path;
	*line = S_error_line;
	*col = S_error_col;
	return 1;
}

const char *dtk_error_last(void)
{
	return S_error[0] ? S_error : "unknown error";
}

void dtk_error_clear(void)
{
	S_error[0] = '\0';
	S_error_path[0] = '\0';
}

/* ---- text ---- */

/* Returns the length of the UTF-8 character s[0..n) starts with (2 to 4;
 * s[0] >= 0x80), or 0 when it is no character: a stray or missing
 * continuation byte, an overlong form, a surrogate, past U+10FFFF. */
static size_t S_utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2, k;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4 || n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Returns 1 when s[i] (of s[0..n)) starts a control character: C0 (but
 * '\n' when keep_nl), DEL, C1 in UTF-8 (0xC2 0x80..0x9F), an invisible
 * format character (invisible.h: a bidirectional control, U+200B, ...), or
 * a byte of no UTF-8 character (*len 1); sets *len to its bytes and *cp to
 * it. Else returns 0, *len the bytes of the character s[i] starts. */
static int S_control_at(const unsigned char *s, size_t i, size_t n, int keep_nl, size_t *len,
                        int32_t *cp)
{
	*len = 1;
	*cp = s[i];
	if (s[i] < 0x20)
		return !(keep_nl && s[i] == '\n');
	if (s[i] == 0x7f)
		return 1;
	if (s[i] < 0x80)
		return 0;
	if (!(*len = S_utf8_len(s + i, n - i))) {
		/* a character cut by the end of the text stays as it is; any
		 * other byte of no character is escaped (\xNN) */
		size_t k = 1, need = s[i] >= 0xf0 ? 4 : s[i] >= 0xe0 ? 3 : 2;
		while (i + k < n && (s[i + k] & 0xc0) == 0x80)
			k++;
		if (i + k == n && k < need && s[i] >= 0xc2 && s[i] <= 0xf4) {
			*len = k;
			return 0;
		}
		*len = 1;
		return 1;
	}
	if (s[i] == 0xc2 && s[i + 1] <= 0x9f) {
		*cp = s[i + 1];
		return 1;
	}
	if (dtk_invisible_at((const char *)s + i, n - i, cp))
		return 1;
	*cp = s[i];
	return 0;
}

void dtk_buf_put_esc(struct dtk_buf *b, const char *s, size_t n, int keep_nl)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, from, len;
	int32_t cp;

	while (i < n) {
		for (from = i; i + 8 <= n; i += 8) { /* eight bytes at a step */
			uint64_t x, ones = 0x0101010101010101ull, high = ones * 0x80, del;
			memcpy(&x, u + i, 8);
			del = x ^ (ones * 0x7f);
			/* a byte below 0x20, a DEL, or one above 0x7F (C1 or an
			 * invisible character may start there) */
			if (((x - ones * 0x20) & ~x & high) || (x & high) ||
			    ((del - ones) & ~del & high))
				break;
		}
		for (; i < n && !S_control_at(u, i, n, keep_nl, &len, &cp); i += len)
			;
		dtk_buf_put(b, s + from, i - from);
		if (i >= n)
			break;
		if (len > 1) {
			dtk_buf_printf(b, cp > 0xffff ? "\\U%08x" : "\\u%04x", (unsigned)cp);
			i += len;
		} else {
			const char *name = u[i] == '\n'   ? "\\n"
			                   : u[i] == '\r' ? "\\r"
			                   : u[i] == '\t' ? "\\t"
			                                  : NULL;
			if (name)
				dtk_buf_puts(b, name);
			else
				dtk_buf_printf(b, "\\x%02x", (unsigned)u[i]);
			i++;
		}
	}
}

const char *dtk_esc_mode(const char *s, int keep_nl)
{
	static _Thread_local struct dtk_buf ring[DTK_ESC_RING];
	static _Thread_local unsigned next;
	const unsigned char *u = (const unsigned char *)s;
	struct dtk_buf *b;
	size_t i, len, n;
	int32_t cp;

	if (!s)
		return s;
	for (i = 0, n = strlen(s); i < n && !S_control_at(u, i, n, keep_nl, &len, &cp); i += len)
		;
	if (i == n)
		return s; /* nothing to escape: s itself */
	b = &ring[next++ % DTK_ESC_RING];
	b->len = 0;
	dtk_buf_put(b, s, i);
	dtk_buf_put_esc(b, s + i, strlen(s + i), keep_nl);
	return dtk_buf_cstr(b);
}

void dtk_buf_put_marked(struct dtk_buf *b, const char *s, size_t n)
{
	size_t i, len;
	int32_t cp;

	while ((i = dtk_invisible_find(s, n, &len, &cp)) < n) {
		dtk_buf_put(b, s, i);
		dtk_buf_printf(b, "<U+%04X>", (unsigned)cp);
		s += i + len;
		n -= i + len;
	}
	dtk_buf_put(b, s, n);
}

const char *dtk_marked(const char *s)
{
	static _Thread_local struct dtk_buf b;
	size_t n = s ? strlen(s) : 0;

	if (!s || !dtk_invisible_has(s, n))
		return s;
	b.len = 0;
	dtk_buf_put_marked(&b, s, n);
	return dtk_buf_cstr(&b);
}

size_t dtk_edit_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b), i, j, best;
	size_t *row;

	if ((la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	row = dtk_xmalloc((lb + 1) * sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		best = row[0];
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t v = diag + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			if (up + 1 < v)
				v = up + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit) {
			free(row);
			return limit + 1;
		}
	}
	best = row[lb];
	free(row);
	return best > limit ? limit + 1 : best;
}

const char *dtk_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t limit = strlen(word) / 3 + 1, best = limit + 1, i;
	const char *pick = NULL;
	size_t len = strlen(word), prefixed = 0;

	if (limit > 4)
		limit = 4;
	for (i = 0; i < n; i++) /* the same word in other case */
		if (!strcasecmp(word, cands[i]))
			return cands[i];
	for (i = 0; i < n; i++) {
		size_t d = dtk_edit_distance(word, cands[i], limit);
		if (d < best) {
			best = d;
			pick = cands[i];
		}
	}
	if (best <= limit)
		return pick;
	/* else the one candidate that starts with a word of 3 or more bytes */
	for (i = 0, pick = NULL; len >= 3 && i < n; i++)
		if (!strncmp(word, cands[i], len) && prefixed++ == 0)
			pick = cands[i];
	return prefixed == 1 ? pick : NULL;
}

/* Bit 1: may start a name (a-z, 0-9); bit 2: may go on one (also '-'). */
static const unsigned char S_name_chars[256] = {
        ['-'] = 2, ['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3, ['5'] = 3, ['6'] = 3,
        ['7'] = 3, ['8'] = 3, ['9'] = 3, ['a'] = 3, ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3,
        ['f'] = 3, ['g'] = 3, ['h'] = 3, ['i'] = 3, ['j'] = 3, ['k'] = 3, ['l'] = 3, ['m'] = 3,
        ['n'] = 3, ['o'] = 3, ['p'] = 3, ['q'] = 3, ['r'] = 3, ['s'] = 3, ['t'] = 3, ['u'] = 3,
        ['v'] = 3, ['w'] = 3, ['x'] = 3, ['y'] = 3, ['z'] = 3,
};

int dtk_is_url(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789+.-");
	return n > 0 && s[0] >= 'a' && s[0] <= 'z' && s[n] == ':' && s[n + 1] &&
	       !strpbrk(s, " \t\r\n");
}

int dtk_is_name(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	if (!(S_name_chars[*p] & 1))
		return 0;
	while (S_name_chars[*++p] & 2)
		;
	return *p == '\0';
}

char *dtk_splice(const char *buf, size_t len, const struct dtk_edit *edits, size_t n,
                 size_t *out_len)
{
	struct dtk_buf out = DTK_BUF_INIT;
	size_t i, at = 0;

	for (i = 0; i < n; i++) {
		const struct dtk_edit *e = &edits[i];
		if (e->start < at || e->end < e->start || e->end > len) {
			dtk_buf_release(&out);
			dtk_error("internal error: edits out of order or out of the text");
			return NULL;
		}
		dtk_buf_put(&out, buf + at, e->start - at);
		dtk_buf_put(&out, e->text, e->len);
		at = e->end;
	}
	dtk_buf_put(&out, buf + at, len - at);
	*out_len = out.len;
	return dtk_buf_detach(&out); /* "" when empty */
}

size_t dtk_splice_map_back(const struct dtk_edit *edits, size_t n, size_t off, int *inside)
{
	size_t i, shift_in = 0, shift_out = 0; /* bytes added, bytes removed */

	*inside = 0;
	for (i = 0; i < n; i++) {
		const struct dtk_edit *e = &edits[i];
		size_t at = e->start + shift_in - shift_out; /* where its text starts now */
		if (off < at)
			break;
		if (off < at + e->len) {
			*inside = 1;
			return e->start;
		}
		shift_in += e->len;
		shift_out += e->end - e->start;
	}
	return off + shift_out - shift_in;
}

/* Returns the length of the line break at buf[off], 0 when there is none. */
static size_t S_break(const char *buf, size_t len, size_t off)
{
	if (buf[off] == '\n')
		return 1;
	if (buf[off] != '\r')
		return 0;
	return off + 1 < len && buf[off + 1] == '\n' ? 2 : 1;
}

/* Returns the length of a byte order mark that starts buf, or 0. */
static size_t S_bom(const char *buf, size_t len)
{
	return len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

size_t dtk_text_offset(const char *buf, size_t len, int line, int col)
{
	size_t off = S_bom(buf, len), b;

	while (line > 1 && off < len) {
		if ((b = S_break(buf, len, off)) != 0) {
			off += b;
			line--;
		} else {
			off++;
		}
	}
	while (col > 1 && off < len && !S_break(buf, len, off)) {
		off++; /* one character: a lead byte and its continuation bytes */
		while (off < len && ((unsigned char)buf[off] & 0xC0) == 0x80)
			off++;
		col--;
	}
	return off;
}

void dtk_text_linecol(const char *buf, size_t len, size_t off, int *line, int *col)
{
	size_t i = S_bom(buf, len), b;

	*line = *col = 1;
	if (off > len)
		off = len;
	while (i < off) {
		if ((b = S_break(buf, len, i)) != 0) {
			i += b;
			if (i <= off) {
				(*line)++;
				*col = 1;
			}
			continue;
		}
		if (((unsigned char)buf[i] & 0xC0) != 0x80)
			(*col)++;
		i++;
	}
	if (*col > 1 && off < len && ((unsigned char)buf[off] & 0xC0) == 0x80)
		(*col)--; /* off inside a character: that character's column */
}

const char *dtk_text_eol(const char *buf, size_t len)
{
	static const char *const eols[] = {"\n", "\r\n", "\r"};
	size_t n[3] = {0, 0, 0}, i;
	int first = -1, k;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			k = 0;
		else if (buf[i] == '\r')
			k = i + 1 < len && buf[i + 1] == '\n' ? (i++, 1) : 2;
		else
			continue;
		n[k]++;
		if (first < 0)
			first = k;
	}
	if (first < 0)
		return "\n";
	for (k = 0; k < 3; k++) /* the most lines end so; a tie: the first line's */
		if (n[k] > n[first])
			first = k;
	return eols[first];
}

int dtk_threads(size_t n)
{
	const char *env = getenv("DTK_THREADS");
	long max = env && *env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);

	if (max > 8)
		max = 8;
	if (max > 0 && (size_t)max > n)
		max = (long)n;
	return max < 1 ? 1 : (int)max;
}

struct thread_call {
	void (*fn)(void *arg, int i);
	void *arg;
	int i;
};

static void *S_thread_main(void *p)
{
	struct thread_call *c = p;
	c->fn(c->arg, c->i);
	return NULL;
}

void dtk_threads_run(int n, void (*fn)(void *arg, int i), void *arg)
{
	size_t k = n > 1 ? (size_t)n : 1;
	struct thread_call *c = dtk_xcalloc(k, sizeof(*c));
	pthread_t *tid = dtk_xcalloc(k, sizeof(*tid));
	char *started = dtk_xcalloc(k, 1);
	int i;

	for (i = 1; i < n; i++) {
		c[i] = (struct thread_call){fn, arg, i};
		started[i] = pthread_create(&tid[i], NULL, S_thread_main, &c[i]) == 0;
	}
	fn(arg, 0);
	for (i = 1; i < n; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			fn(arg, i);
	}
	free(started);
	free(tid);
	free(c);
}
