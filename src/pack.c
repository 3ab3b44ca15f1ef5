/* pack.c: the binary form of the node cache's records (pack.h). */
#include "dtk/pack.h"

#include <string.h>

void dtk_pack_u32(struct dtk_buf *b, uint32_t v)
{
	dtk_buf_put(b, (const char *)&v, sizeof(v));
}

void dtk_pack_i64(struct dtk_buf *b, int64_t v)
{
	dtk_buf_put(b, (const char *)&v, sizeof(v));
}

void dtk_pack_str(struct dtk_buf *b, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	dtk_pack_u32(b, s ? (uint32_t)len : DTK_PACK_NONE);
	if (s) {
		dtk_buf_put(b, s, len);
		dtk_buf_putc(b, '\0');
	}
}

void dtk_pack_pos(struct dtk_buf *b, struct dtk_pos p)
{
	dtk_pack_u32(b, (uint32_t)p.line);
	dtk_pack_u32(b, (uint32_t)p.col);
}

void dtk_rd_get(struct dtk_rd *r, void *v, size_t n)
{
	memset(v, 0, n);
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return;
	}
	memcpy(v, r->p, n);
	r->p += n;
}

uint32_t dtk_rd_u32(struct dtk_rd *r)
{
	uint32_t v;
	dtk_rd_get(r, &v, sizeof(v));
	return v;
}

int64_t dtk_rd_i64(struct dtk_rd *r)
{
	int64_t v;
	dtk_rd_get(r, &v, sizeof(v));
	return v;
}

const char *dtk_rd_str(struct dtk_rd *r, struct dtk_arena *copy)
{
	uint32_t len = dtk_rd_u32(r);
	const char *s = r->p;

	if (r->bad || len == DTK_PACK_NONE)
		return NULL;
	/* no NUL is looked for within: the packer writes none, and the
	 * checksum of the record catches a changed byte */
	if ((size_t)(r->end - r->p) <= len || s[len] != '\0') {
		r->bad = 1;
		return NULL;
	}
	r->p += len + 1;
	return copy ? dtk_arena_strndup(copy, s, len) : s;
}

struct dtk_pos dtk_rd_pos(struct dtk_rd *r)
{
	struct dtk_pos p;
	p.line = (int)dtk_rd_u32(r);
	p.col = (int)dtk_rd_u32(r);
	return p;
}

long dtk_rd_count(struct dtk_rd *r, size_t min)
{
	uint32_t n = dtk_rd_u32(r);
	if (r->bad || n > (size_t)(r->end - r->p) / min) {
		r->bad = 1;
		return -1;
	}
	return (long)n;
}
