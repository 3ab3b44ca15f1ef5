/*
 * pack.h: the binary form of what the node cache keeps (a packed node, a
 * node's summary): native integers and length-prefixed strings, written and
 * read by one build only (the cache names the build). Every read is checked
 * against the end of the bytes: a reader never trusts what it reads.
 */
#ifndef DTK_PACK_H
#define DTK_PACK_H

#include "dtk/dtk.h"
#include "dtk/model.h"

#include <stddef.h>
#include <stdint.h>

/* The length written for a NULL string. */
#define DTK_PACK_NONE UINT32_MAX

void dtk_pack_u32(struct dtk_buf *b, uint32_t v);
void dtk_pack_i64(struct dtk_buf *b, int64_t v);
/* Appends s (may be NULL): its length as a uint32_t, its bytes and a NUL. */
void dtk_pack_str(struct dtk_buf *b, const char *s);
void dtk_pack_pos(struct dtk_buf *b, struct dtk_pos p);

/* A reader of packed bytes [p, end); bad once a read went past the end or
 * found what cannot be (then every read gives zero or NULL). */
struct dtk_rd {
	const char *p, *end;
	int bad;
};

/* Copies the next n bytes into v (zeros past the end: r is then bad). */
void dtk_rd_get(struct dtk_rd *r, void *v, size_t n);
uint32_t dtk_rd_u32(struct dtk_rd *r);
int64_t dtk_rd_i64(struct dtk_rd *r);
/* Returns the next string: in the bytes read (NUL-terminated there), or
 * copied into copy when not NULL; NULL for a NULL string or when r is bad. */
const char *dtk_rd_str(struct dtk_rd *r, struct dtk_arena *copy);
struct dtk_pos dtk_rd_pos(struct dtk_rd *r);
/* Returns a count read from r, -1 (r bad) when more than the bytes left
 * could hold, each item taking at least min bytes. */
long dtk_rd_count(struct dtk_rd *r, size_t min);

#endif
