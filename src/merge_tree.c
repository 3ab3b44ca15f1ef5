/*
 * merge_tree.c: the rules of a three-way merge of YAML data (docs/merging.md):
 * mappings key by key, lists of mappings item by item matched by their key,
 * counters that add up, lists of names as a union. Each rule returns the
 * merged value and adds the edits that make ours' text say it.
 */
#include "merge_int.h"

#include "dtk/yemit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dtk_m_equal(const struct dtk_yval *a, const struct dtk_yval *b)
{
	size_t i;

	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->n != b->n)
		return 0;
	if (a->kind == DTK_Y_SCALAR)
		return a->type == b->type && a->len == b->len && !memcmp(a->str, b->str, a->len);
	for (i = 0; i < a->n; i++) {
		if (a->kind == DTK_Y_SEQ) {
			if (!dtk_m_equal(a->items[i], b->items[i]))
				return 0;
		} else if (i % 2 == 0 &&
		           !dtk_m_equal(a->items[i + 1],
		                        dtk_yval_getn(b, a->items[i]->str, a->items[i]->len))) {
			return 0;
		}
	}
	return 1;
}

/* Returns item's key value (a scalar's text), or NULL. */
static const char *S_item_id(const struct dtk_yval *item, const char *key)
{
	const struct dtk_yval *v = dtk_yval_get(item, key);
	return v && v->kind == DTK_Y_SCALAR && v->len ? v->str : NULL;
}

/* Returns the item of list l whose mapping has key == id, or NULL. */
static const struct dtk_yval *S_find(const struct dtk_yval *l, const char *key, const char *id)
{
	size_t i;
	for (i = 0; l && l->kind == DTK_Y_SEQ && i < l->n; i++) {
		const char *s = S_item_id(l->items[i], key);
		if (s && !strcmp(s, id))
			return l->items[i];
	}
	return NULL;
}

/* Returns 1 when every item of list l (NULL: none) is a mapping with a
 * distinct key value. */
static int S_keyed(const struct dtk_yval *l, const char *key)
{
	size_t i, j;
	if (l && l->kind != DTK_Y_SEQ)
		return 0;
	for (i = 0; l && i < l->n; i++) {
		const char *s = S_item_id(l->items[i], key);
		if (!s)
			return 0;
		for (j = 0; j < i; j++)
			if (!strcmp(s, S_item_id(l->items[j], key)))
				return 0;
	}
	return 1;
}

/* Returns 1 when v is a list (NULL: none) of scalars only. */
static int S_scalars(const struct dtk_yval *v)
{
	size_t i;
	if (v && v->kind != DTK_Y_SEQ)
		return 0;
	for (i = 0; v && i < v->n; i++)
		if (v->items[i]->kind != DTK_Y_SCALAR)
			return 0;
	return 1;
}

static int S_block(const struct dtk_yval *v)
{
	return v->kind != DTK_Y_SCALAR && v->style == DTK_YS_BLOCK;
}

static struct dtk_yval *S_new(struct dtk_mctx *m, enum dtk_ykind kind, size_t cap)
{
	struct dtk_yval *v = dtk_arena_alloc(m->a, sizeof(*v));
	v->kind = kind;
	v->items = dtk_arena_alloc(m->a, (cap ? cap : 1) * sizeof(*v->items));
	return v;
}

static void S_push(struct dtk_yval *v, const struct dtk_yval *item)
{
	v->items[v->n++] = (struct dtk_yval *)item;
}

/* Appends ": <theirs' value tv>" as written after a key, tv moved by delta. */
static void S_put_value(struct dtk_mctx *m, struct dtk_buf *b, const struct dtk_yval *tv, int delta)
{
	if (S_block(tv)) {
		dtk_buf_puts(b, ":");
		dtk_buf_puts(b, m->eol);
		dtk_ytext_spaces(b, dtk_ytext_indent(m->tb, tv->start) + delta);
	} else {
		dtk_buf_puts(b, ": ");
	}
	dtk_m_put_theirs(m, b, tv->start, tv->end, delta, 0);
}

/* Ours' value ov of key ok (in omap) becomes theirs' tv of key tk. */
static int S_replace(struct dtk_mctx *m, const struct dtk_yval *omap, const struct dtk_yval *ok,
                     const struct dtk_yval *ov, const struct dtk_yval *tk,
                     const struct dtk_yval *tv)
{
	struct dtk_buf b = DTK_BUF_INIT;
	int delta = dtk_ytext_indent(m->ob, ok->start) - dtk_ytext_indent(m->tb, tk->start);

	if (omap->style == DTK_YS_FLOW &&
	    (S_block(tv) || tv->style == DTK_YS_LITERAL || tv->style == DTK_YS_FOLDED))
		return m->unsupported = 1, -1;
	if (S_block(tv) || S_block(ov)) {
		S_put_value(m, &b, tv, delta);
		dtk_m_edit(m, ok->end, ov->end, b.ptr, b.len);
	} else {
		dtk_m_put_theirs(m, &b, tv->start, tv->end, delta, 0);
		dtk_m_edit(m, ov->start, ov->end, b.ptr, b.len);
	}
	dtk_buf_release(&b);
	return 0;
}

/* Removes the pair at i of ours' mapping omap. */
static int S_remove_key(struct dtk_mctx *m, const struct dtk_yval *omap, size_t i)
{
	const struct dtk_yval *k = omap->items[2 * i], *v = omap->items[2 * i + 1];

	if (omap->style == DTK_YS_BLOCK) {
		if (!dtk_m_own_lines(m->ob, m->olen, k->start, v->end, 0))
			return m->unsupported = 1, -1;
		dtk_m_edit(m, dtk_ytext_line_start(m->ob, k->start),
		           dtk_ytext_line_end(m->ob, m->olen, v->end), "", 0);
	} else if (i > 0) {
		dtk_m_edit(m, omap->items[2 * i - 1]->end, v->end, "", 0);
	} else if (omap->n > 2) {
		dtk_m_edit(m, k->start, omap->items[2]->start, "", 0);
	} else {
		dtk_m_edit(m, k->start, v->end, "", 0);
	}
	return 0;
}

/* Adds theirs' pair tk: tv at the end of ours' mapping omap. */
static int S_add_key(struct dtk_mctx *m, const struct dtk_yval *omap, const struct dtk_yval *tk,
                     const struct dtk_yval *tv)
{
	struct dtk_buf b = DTK_BUF_INIT;
	const struct dtk_yval *last = omap->n ? omap->items[omap->n - 1] : NULL;
	size_t at;
	int col, delta;

	if (omap->style == DTK_YS_BLOCK && last) {
		if (!dtk_m_tail_ok(m->ob, m->olen, last->end))
			return m->unsupported = 1, -1;
		col = (int)(omap->items[0]->start -
		            dtk_ytext_line_start(m->ob, omap->items[0]->start));
		delta = col - (int)(tk->start - dtk_ytext_line_start(m->tb, tk->start));
		at = dtk_ytext_line_end(m->ob, m->olen, last->end);
		if (at == m->olen && (!at || m->ob[at - 1] != '\n'))
			dtk_buf_puts(&b, m->eol);
		dtk_ytext_spaces(&b, col);
		dtk_m_put_theirs(m, &b, tk->start, tk->end, 0, 0);
		S_put_value(m, &b, tv, delta);
		dtk_buf_puts(&b, m->eol);
	} else if (omap->style == DTK_YS_FLOW && !S_block(tv) && tv->style != DTK_YS_LITERAL &&
	           tv->style != DTK_YS_FOLDED) {
		at = omap->end - 1;
		if (last)
			dtk_buf_puts(&b, ", ");
		dtk_m_put_theirs(m, &b, tk->start, tk->end, 0, 0);
		dtk_buf_puts(&b, ": ");
		dtk_m_put_theirs(m, &b, tv->start, tv->end, 0, 0);
	} else {
		return m->unsupported = 1, -1;
	}
	dtk_m_edit(m, at, at, b.ptr, b.len);
	dtk_buf_release(&b);
	return 0;
}

/* Appends an item's text: ours' own when it is on one line, else emitted. */
static void S_put_item(struct dtk_mctx *m, struct dtk_buf *b, const struct dtk_yval *v, int theirs)
{
	const char *src = theirs ? m->tb : m->ob;
	if (!memchr(src + v->start, '\n', v->end - v->start) && v->end > v->start)
		dtk_buf_put(b, src + v->start, v->end - v->start);
	else if (v->type != DTK_YT_STR ||
	         dtk_yemit_scalar(b, v->str, v->len, DTK_YEMIT_FLOW, 0, m->eol) < 0)
		dtk_buf_put(b, v->str, v->len);
}

static int S_in(const struct dtk_yval *l, const struct dtk_yval *v)
{
	size_t i;
	for (i = 0; l && i < l->n; i++)
		if (dtk_m_equal(l->items[i], v))
			return 1;
	return 0;
}

/* Lists of scalars changed on both sides: ours' items that theirs did not
 * remove, then theirs' additions, in order. */
static const struct dtk_yval *S_union(struct dtk_mctx *m, const struct dtk_yval *ok,
                                      const struct dtk_yval *b, const struct dtk_yval *o,
                                      const struct dtk_yval *t)
{
	struct dtk_yval *r = S_new(m, DTK_Y_SEQ, o->n + t->n);
	unsigned char *from = dtk_arena_alloc(m->a, o->n + t->n + 1);
	struct dtk_buf text = DTK_BUF_INIT;
	size_t i;
	int ind;

	for (i = 0; i < o->n; i++)
		if (!S_in(b, o->items[i]) || S_in(t, o->items[i]))
			S_push(r, o->items[i]);
	for (i = 0; i < t->n; i++)
		if (!S_in(b, t->items[i]) && !S_in(r, t->items[i])) {
			from[r->n] = 1;
			S_push(r, t->items[i]);
		}
	if (dtk_m_equal(r, o))
		return o;
	if (o->style == DTK_YS_FLOW || !r->n) {
		dtk_buf_puts(&text, S_block(o) ? ": [" : "[");
		for (i = 0; i < r->n; i++) {
			if (i)
				dtk_buf_puts(&text, ", ");
			S_put_item(m, &text, r->items[i], from[i]);
		}
		dtk_buf_puts(&text, "]");
		dtk_m_edit(m, S_block(o) ? ok->end : o->start, o->end, text.ptr, text.len);
	} else {
		ind = o->n ? dtk_ytext_indent(m->ob, o->items[0]->start)
		           : dtk_ytext_indent(m->ob, ok->start);
		dtk_buf_puts(&text, ":");
		for (i = 0; i < r->n; i++) {
			dtk_buf_puts(&text, m->eol);
			dtk_ytext_spaces(&text, ind);
			dtk_buf_puts(&text, "- ");
			S_put_item(m, &text, r->items[i], from[i]);
		}
		dtk_m_edit(m, ok->end, o->end, text.ptr, text.len);
	}
	dtk_buf_release(&text);
	return r;
}

/* Returns a counter's value (0 for NULL: absent). */
static long long S_num(const struct dtk_yval *v)
{
	return v ? strtoll(v->str, NULL, 10) : 0;
}

/* Counters changed on both sides: base plus both increments. */
static const struct dtk_yval *S_counter(struct dtk_mctx *m, const struct dtk_yval *b,
                                        const struct dtk_yval *o, const struct dtk_yval *t)
{
	long long vb = S_num(b), vo = S_num(o), vt = S_num(t), sum;
	struct dtk_yval *r;
	char num[32];

	if (__builtin_add_overflow(vo, vt, &sum) || __builtin_sub_overflow(sum, vb, &sum) ||
	    sum < 0)
		return NULL;
	snprintf(num, sizeof(num), "%lld", sum);
	r = S_new(m, DTK_Y_SCALAR, 0);
	r->type = DTK_YT_INT;
	r->str = dtk_arena_strdup(m->a, num);
	r->len = strlen(num);
	dtk_m_edit(m, o->start, o->end, num, r->len);
	return r;
}

static int S_is_int(const struct dtk_yval *v)
{
	return v && v->kind == DTK_Y_SCALAR && v->type == DTK_YT_INT &&
	       (v->str[0] != '0' || v->len == 1) && strspn(v->str, "0123456789") == v->len &&
	       v->len < 18;
}

/* The key by which the items of the list under key name are matched. */
static const char *S_list_key(const char *name)
{
	static const char *const keys[][2] = {{"insights", "id"},
	                                      {"contradicts", "id"},
	                                      {"categories", "name"},
	                                      {"hotspots", "node"},
	                                      {"gaps", "text"}};
	size_t i;
	for (i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (!strcmp(name, keys[i][0]))
			return keys[i][1];
	return NULL;
}

static const struct dtk_yval *S_merge_map(struct dtk_mctx *m, int depth, const struct dtk_yval *b,
                                          const struct dtk_yval *o, const struct dtk_yval *t);
static const struct dtk_yval *S_merge_list(struct dtk_mctx *m, const char *key, int by_keys,
                                           const struct dtk_yval *ok, const struct dtk_yval *b,
                                           const struct dtk_yval *o, const struct dtk_yval *t);

/* Merges the values of key ok (ours) / tk (theirs) of ours' mapping omap;
 * returns the merged value, or NULL on a conflict. */
static const struct dtk_yval *S_merge_val(struct dtk_mctx *m, int depth,
                                          const struct dtk_yval *omap, const struct dtk_yval *ok,
                                          const struct dtk_yval *tk, const struct dtk_yval *b,
                                          const struct dtk_yval *o, const struct dtk_yval *t)
{
	const char *key;
	int nested = o->kind == t->kind && o->kind != DTK_Y_SCALAR;

	/* counters both sides changed add up (an absent one counts 0), even
	 * when both sides counted the same */
	if ((!strcmp(ok->str, "used") || !strcmp(ok->str, "cited")) && S_is_int(o) && S_is_int(t) &&
	    (!b || S_is_int(b)) && S_num(o) != S_num(b) && S_num(t) != S_num(b))
		return S_counter(m, b, o, t);
	if (b && dtk_m_equal(b, t))
		return o;
	/* the same change on both sides; within a collection, counters may
	 * still add up */
	if (dtk_m_equal(o, t) && !(b && nested))
		return o;
	if (b && dtk_m_equal(b, o) && !(nested && S_block(o) && S_block(t)))
		return S_replace(m, omap, ok, o, tk, t) < 0 ? NULL : t;
	if (o->kind == DTK_Y_MAP && t->kind == DTK_Y_MAP)
		return S_merge_map(m, depth + 1, b && b->kind == DTK_Y_MAP ? b : NULL, o, t);
	if (o->kind != DTK_Y_SEQ || t->kind != DTK_Y_SEQ)
		return NULL;
	if (b && b->kind != DTK_Y_SEQ)
		b = NULL;
	key = S_list_key(ok->str);
	if (key && S_keyed(o, key) && S_keyed(t, key) && S_keyed(b, key))
		return S_merge_list(m, key, 1, ok, b, o, t);
	if (S_scalars(o) && S_scalars(t) && S_scalars(b))
		return S_union(m, ok, b, o, t);
	return NULL;
}

/* Returns the key (in map) whose text is that of k, or NULL. */
static const struct dtk_yval *S_key(const struct dtk_yval *map, const struct dtk_yval *k)
{
	size_t i;
	for (i = 0; map && i + 1 < map->n; i += 2)
		if (map->items[i]->len == k->len && !memcmp(map->items[i]->str, k->str, k->len))
			return map->items[i];
	return NULL;
}

/* A conflict on a key of the document's mapping: ours' lines of the pair
 * ok/ov (NULL: none, at the end) against theirs' tk/tv (NULL: none). */
static void S_key_conflict(struct dtk_mctx *m, const struct dtk_yval *o, const struct dtk_yval *ok,
                           const struct dtk_yval *ov, const struct dtk_yval *tk,
                           const struct dtk_yval *tv)
{
	size_t os, oe, ts = 0, te = 0;
	const struct dtk_yval *k = ok ? ok : tk;

	if (o->style != DTK_YS_BLOCK ||
	    (ok && !dtk_m_own_lines(m->ob, m->olen, ok->start, ov->end, 0)) ||
	    (tk && !dtk_m_own_lines(m->tb, m->tlen, tk->start, tv->end, 0))) {
		m->unsupported = 1;
		return;
	}
	if (ok) {
		os = dtk_ytext_line_start(m->ob, ok->start);
		oe = dtk_ytext_line_end(m->ob, m->olen, ov->end);
	} else {
		os = oe = dtk_ytext_line_end(m->ob, m->olen, o->items[o->n - 1]->end);
	}
	if (tk) {
		ts = dtk_ytext_line_start(m->tb, tk->start);
		te = dtk_ytext_line_end(m->tb, m->tlen, tv->end);
	}
	dtk_m_conflict(m, os, oe, ts, te, 0, NULL);
	dtk_m_note(m, "conflict: '%.*s' changed two ways", (int)k->len, k->str);
}

/* Merges mappings key by key (ours' keys in order, then theirs' new ones).
 * A conflict inside the document's mapping (depth 0) is written around its
 * key; deeper, it makes the call return NULL. */
static const struct dtk_yval *S_merge_map(struct dtk_mctx *m, int depth, const struct dtk_yval *b,
                                          const struct dtk_yval *o, const struct dtk_yval *t)
{
	struct dtk_yval *r = S_new(m, DTK_Y_MAP, o->n + t->n);
	size_t i, save;

	for (i = 0; i + 1 < o->n; i += 2) {
		const struct dtk_yval *ok = o->items[i], *ov = o->items[i + 1], *mv = NULL;
		const struct dtk_yval *tk = S_key(t, ok),
		                      *tv = tk ? dtk_yval_getn(t, ok->str, ok->len) : NULL;
		const struct dtk_yval *bv = dtk_yval_getn(b, ok->str, ok->len);

		save = m->n_edits;
		if (!tv && !bv) {
			mv = ov;
		} else if (!tv && dtk_m_equal(bv, ov)) {
			if (S_remove_key(m, o, i / 2) < 0)
				return NULL;
			continue;
		} else if (tv) {
			mv = S_merge_val(m, depth, o, ok, tk, bv, ov, tv);
		}
		if (m->unsupported)
			return NULL;
		if (!mv) {
			if (depth > 0)
				return NULL;
			m->n_edits = save;
			S_key_conflict(m, o, ok, ov, tk, tv);
			continue;
		}
		S_push(r, ok);
		S_push(r, mv);
	}
	for (i = 0; i + 1 < t->n; i += 2) {
		const struct dtk_yval *tk = t->items[i], *tv = t->items[i + 1];
		const struct dtk_yval *bv = dtk_yval_getn(b, tk->str, tk->len);
		if (S_key(o, tk))
			continue;
		if (!bv) {
			if (S_add_key(m, o, tk, tv) < 0)
				return NULL;
			S_push(r, tk);
			S_push(r, tv);
		} else if (!dtk_m_equal(bv, tv)) {
			if (depth > 0)
				return NULL;
			S_key_conflict(m, o, NULL, NULL, tk, tv);
		}
	}
	return m->unsupported ? NULL : r;
}

/* Ours' item as whole lines; returns 0 or -1 (unsupported). */
static int S_item_lines(struct dtk_mctx *m, int theirs, const struct dtk_yval *v, size_t *s,
                        size_t *e)
{
	const char *buf = theirs ? m->tb : m->ob;
	size_t len = theirs ? m->tlen : m->olen;
	if (!dtk_m_own_lines(buf, len, v->start, v->end, 1))
		return m->unsupported = 1, -1;
	*s = dtk_ytext_line_start(buf, v->start);
	*e = dtk_ytext_line_end(buf, len, v->end);
	return 0;
}

/* Puts theirs' item ti (whole lines), indented as ind, in place of ours'
 * lines [os, oe) (os == oe: inserted there); returns 0 or -1 (unsupported). */
static int S_theirs_item(struct dtk_mctx *m, size_t os, size_t oe, int ind,
                         const struct dtk_yval *ti)
{
	struct dtk_buf b = DTK_BUF_INIT;
	size_t s, e;

	if (S_item_lines(m, 1, ti, &s, &e) < 0)
		return -1;
	if (os == m->olen && os && m->ob[os - 1] != '\n')
		dtk_buf_puts(&b, m->eol);
	dtk_m_put_theirs(m, &b, s, e, ind - dtk_ytext_indent(m->tb, ti->start), 1);
	if (os == oe && (!b.len || b.ptr[b.len - 1] != '\n'))
		dtk_buf_puts(&b, m->eol);
	dtk_m_edit(m, os, oe, b.ptr, b.len);
	dtk_buf_release(&b);
	return 0;
}

/* Merges lists of mappings matched by key. by_keys: items changed on both
 * sides merge key by key (else they conflict). */
static const struct dtk_yval *S_merge_list(struct dtk_mctx *m, const char *key, int by_keys,
                                           const struct dtk_yval *ok, const struct dtk_yval *b,
                                           const struct dtk_yval *o, const struct dtk_yval *t)
{
	struct dtk_yval *r = S_new(m, DTK_Y_SEQ, o->n + t->n);
	size_t i, s, e, ts, te, at, save, o_new = o->n, t_new = t->n;
	int ind, entries = ok && !strcmp(ok->str, "insights");

	if (o->style != DTK_YS_BLOCK || !o->n)
		return m->unsupported = 1, NULL;
	ind = dtk_ytext_indent(m->ob, o->items[0]->start);
	at = dtk_ytext_line_end(m->ob, m->olen, o->items[o->n - 1]->end);
	for (i = 0; i < o->n; i++) {
		const struct dtk_yval *oi = o->items[i], *mv = NULL;
		const char *id = S_item_id(oi, key);
		const struct dtk_yval *bi = S_find(b, key, id), *ti = S_find(t, key, id);

		if (!bi && o_new == o->n)
			o_new = i;
		if (S_item_lines(m, 0, oi, &s, &e) < 0)
			return NULL;
		save = m->n_edits;
		if (!ti && !bi) {
			mv = oi;
		} else if (!ti && dtk_m_equal(bi, oi)) {
			dtk_m_edit(m, s, e, "", 0);
			continue;
		} else if (!ti) {
			dtk_m_conflict(m, s, e, 0, 0, 0, NULL);
			dtk_m_note(m, "conflict: %s changed on our side, deleted on theirs", id);
			continue;
		} else if ((bi && dtk_m_equal(bi, ti)) ||
		           (dtk_m_equal(oi, ti) && (!bi || !by_keys))) {
			mv = oi;
		} else if (by_keys && (bi || !entries)) {
			/* an entry added on both sides (an id both took) with
			 * different content is a conflict, never merged */
			mv = S_merge_map(m, 1, bi, oi, ti);
		} else if (bi && dtk_m_equal(bi, oi) && S_theirs_item(m, s, e, ind, ti) == 0) {
			mv = ti;
		}
		if (m->unsupported)
			return NULL;
		if (!mv) {
			m->n_edits = save;
			if (S_item_lines(m, 1, ti, &ts, &te) < 0)
				return NULL;
			dtk_m_conflict(m, s, e, ts, te, ind - dtk_ytext_indent(m->tb, ti->start),
			               NULL);
			dtk_m_note(m,
			           bi ? "conflict: %s changed two ways"
			              : "conflict: %s added on both sides with different content",
			           id);
			continue;
		}
		S_push(r, mv);
	}
	for (i = 0; b && i < b->n; i++) {
		const char *id = S_item_id(b->items[i], key);
		const struct dtk_yval *ti = S_find(t, key, id);
		if (S_find(o, key, id) || !ti || dtk_m_equal(b->items[i], ti))
			continue;
		if (S_item_lines(m, 1, ti, &ts, &te) < 0)
			return NULL;
		dtk_m_conflict(m, at, at, ts, te, ind - dtk_ytext_indent(m->tb, ti->start), NULL);
		dtk_m_note(m, "conflict: %s deleted on our side, changed on theirs", id);
	}
	for (i = 0; i < t->n && t_new == t->n; i++)
		if (!S_find(b, key, S_item_id(t->items[i], key)) &&
		    !S_find(o, key, S_item_id(t->items[i], key)))
			t_new = i;
	if (m->records && o_new < o->n && t_new < t->n) {
		/* both sides recorded a run: neither record holds for the merge */
		if (S_item_lines(m, 0, o->items[o_new], &s, &e) < 0 ||
		    S_item_lines(m, 1, t->items[t_new], &ts, &te) < 0)
			return NULL;
		te = dtk_ytext_line_end(m->tb, m->tlen, t->items[t->n - 1]->end);
		m->n_edits = 0;
		dtk_m_conflict(m, s, at, ts, te,
		               ind - dtk_ytext_indent(m->tb, t->items[t_new]->start), NULL);
		dtk_m_note(m,
		           "conflict: both sides recorded a crystallization (ours %s, theirs "
		           "%s); keep neither, then rerun 'dtk crystallize' on the merged base",
		           S_item_id(o->items[o_new], key), S_item_id(t->items[t_new], key));
		return r;
	}
	for (i = 0; i < t->n; i++) {
		const struct dtk_yval *ti = t->items[i];
		const char *id = S_item_id(ti, key);
		if (S_find(b, key, id) || S_find(o, key, id))
			continue;
		if (S_theirs_item(m, at, at, ind, ti) < 0)
			return NULL;
		S_push(r, ti);
	}
	return r;
}

const struct dtk_yval *dtk_m_merge_root(struct dtk_mctx *m, const struct dtk_yval *b,
                                        const struct dtk_yval *o, const struct dtk_yval *t)
{
	const char *key = m->records ? "date" : "id";

	if (b && b->kind != o->kind)
		b = NULL;
	if (o->kind != t->kind)
		return m->unsupported = 1, NULL;
	if ((b && dtk_m_equal(b, t)) || (!b && dtk_m_equal(o, t)))
		return o;
	if (o->kind == DTK_Y_MAP)
		return S_merge_map(m, 0, b, o, t);
	if (o->kind == DTK_Y_SEQ && S_keyed(o, key) && S_keyed(t, key) && S_keyed(b, key))
		return S_merge_list(m, key, 0, NULL, b, o, t);
	return m->unsupported = 1, NULL;
}
