/* yedit.c: surgical edits of a YAML file's text (see yedit.h). */
#include "dtk/yedit.h"

#include "dtk/model.h"
#include "dtk/yemit.h"
#include "dtk/ytext.h"

#include <stdlib.h>
#include <string.h>

static size_t S_dash(const struct dtk_ydoc *d, const struct dtk_yval *seq, size_t i);
/* ---- the document ---- */

/* Counts the lists of scalars under keys, flow and block, to learn the
 * file's style; the first block one gives the lists' indentation. */
static void S_learn(struct dtk_ydoc *d, const struct dtk_yval *v, int *flow, int *block, int depth)
{
	size_t i;

	if (!v || v->kind == DTK_Y_SCALAR || depth > DTK_MAX_DEPTH)
		return;
	if (v->kind == DTK_Y_SEQ) {
		for (i = 0; i < v->n; i++)
			S_learn(d, v->items[i], flow, block, depth + 1);
		return;
	}
	for (i = 0; i + 1 < v->n; i += 2) {
		const struct dtk_yval *k = v->items[i], *l = v->items[i + 1];
		size_t j, scalars = 0;
		if (l->kind != DTK_Y_SEQ) {
			S_learn(d, l, flow, block, depth + 1);
			continue;
		}
		for (j = 0; j < l->n; j++)
			scalars += l->items[j]->kind == DTK_Y_SCALAR;
		if (scalars != l->n || (l->n == 0 && l->style != DTK_YS_FLOW)) {
			S_learn(d, l, flow, block, depth + 1);
			continue;
		}
		if (l->style == DTK_YS_FLOW) {
			(*flow)++;
		} else {
			if (!*block && v->style == DTK_YS_BLOCK)
				d->list_indent = dtk_yedit_col(d, S_dash(d, l, 0)) -
				                 dtk_yedit_col(d, k->start);
			(*block)++;
		}
	}
}

int dtk_ydoc_parse(struct dtk_ydoc *d, const char *path, const char *buf, size_t len,
                   struct dtk_diags *diags)
{
	int flow = 0, block = 0;

	memset(d, 0, sizeof(*d));
	d->path = path;
	d->buf = buf;
	d->len = len;
	d->eol = dtk_text_eol(buf, len);
	d->arena = dtk_arena_new();
	d->list_indent = 2;
	if (dtk_yaml_parse(&d->root, d->arena, path, buf, len, diags) < 0)
		return -2;
	S_learn(d, d->root, &flow, &block, 0);
	d->flow_lists = flow >= block;
	if (d->list_indent < 0 || d->list_indent > 16)
		d->list_indent = 2;
	return 0;
}

void dtk_ydoc_release(struct dtk_ydoc *d)
{
	if (!d)
		return;
	dtk_arena_free(d->arena);
	free(d->edits);
	free(d->written);
	memset(d, 0, sizeof(*d));
}

/* Returns the indexes of d's edits sorted by their start, stably:
 * insertions at one place stay in the order made (malloc'd, the caller
 * frees). */
static size_t *S_order(const struct dtk_ydoc *d)
{
	size_t *o = dtk_xmalloc((d->n_edits + 1) * sizeof(*o));
	size_t i, j;

	for (i = 0; i < d->n_edits; i++) {
		for (j = i; j > 0 && d->edits[o[j - 1]].start > d->edits[i].start; j--)
			o[j] = o[j - 1];
		o[j] = i;
	}
	return o;
}

/* Returns d's edits sorted as S_order sorts them (malloc'd, the caller
 * frees). */
static struct dtk_edit *S_sorted(const struct dtk_ydoc *d)
{
	struct dtk_edit *e = dtk_xmalloc((d->n_edits + 1) * sizeof(*e));
	size_t *o = S_order(d), i;

	for (i = 0; i < d->n_edits; i++)
		e[i] = d->edits[o[i]];
	free(o);
	return e;
}

/* The read-back of the scalars written: the text each edit put in (in the
 * new text, in order), and the scalars found starting there. */
struct S_back {
	size_t *from, *to, n;
	const struct dtk_yval **found;
	size_t n_found, cap;
};

/* Collects the scalars of v (keys too, in the order written) that start
 * in a text an edit put in. */
static void S_collect(struct S_back *r, const struct dtk_yval *v, int depth)
{
	size_t i, lo = 0, hi = r->n;

	if (!v || depth > DTK_MAX_DEPTH + 1)
		return;
	if (v->kind != DTK_Y_SCALAR) {
		for (i = 0; i < v->n; i++)
			S_collect(r, v->items[i], depth + 1);
		return;
	}
	while (lo < hi) { /* the first text that ends past v's start */
		size_t mid = lo + (hi - lo) / 2;
		if (r->to[mid] <= v->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->n || r->from[lo] > v->start)
		return;
	dtk_grow((void **)&r->found, &r->cap, r->n_found + 1, sizeof(*r->found));
	r->found[r->n_found++] = v;
}

/* Returns 0 when the k-th scalar found in the new text out[0..len) is the
 * string asked w; else -1 with the error set. */
static int S_compare(const struct dtk_ydoc *d, const struct S_back *r, size_t k,
                     const struct dtk_ywritten *w, const char *out, size_t len)
{
	const struct dtk_yval *v = k < r->n_found ? r->found[k] : NULL;
	int line = 1, col = 1;

	if (v && v->len == w->len && !memcmp(v->str, w->s, w->len))
		return 0;
	if (v) {
		line = v->line;
		col = v->col;
		dtk_ydoc_map_back(d, out, len, &line, &col);
		return dtk_error("%s:%d:%d: '%s' would read back as '%s'; nothing is written",
		                 d->path, line, col, dtk_esc(w->s), dtk_esc(v->str));
	}
	return dtk_error("%s: '%s' would not read back as a value of its own; nothing is written",
	                 d->path, dtk_esc(w->s));
}

/* Reads the scalars the edits wrote back from out[0..len), d's text with
 * its edits applied (order: S_order). Returns 0 when each reads back as
 * asked (or out does not parse), else -1 with the error set. */
static int S_read_back(const struct dtk_ydoc *d, const size_t *order, const char *out, size_t len)
{
	struct S_back r = {0};
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_arena *arena;
	struct dtk_yval *root = NULL;
	size_t i, j, k = 0, at = 0;
	long shift = 0;
	int rc = 0;

	if (!d->n_written)
		return 0;
	r.from = dtk_xmalloc(d->n_edits * sizeof(*r.from));
	r.to = dtk_xmalloc(d->n_edits * sizeof(*r.to));
	for (i = 0; i < d->n_edits; i++) {
		const struct dtk_edit *e = &d->edits[order[i]];
		at = (size_t)((long)e->start + shift);
		if (e->len) {
			r.from[r.n] = at;
			r.to[r.n++] = at + e->len;
		}
		shift += (long)e->len - (long)(e->end - e->start);
	}
	arena = dtk_arena_new();
	if (dtk_yaml_parse(&root, arena, d->path, out, len, &diags) == 0)
		S_collect(&r, root, 0);
	else
		goto done; /* the loader reports why */
	/* the scalars asked, edit by edit in the text's order, each edit's in
	 * the order written: as they stand in the new text */
	for (i = 0; i < d->n_edits && rc == 0; i++)
		for (j = 0; j < d->n_written && rc == 0; j++)
			if (d->written[j].edit == order[i])
				rc = S_compare(d, &r, k++, &d->written[j], out, len);
	if (rc == 0 && k != r.n_found)
		rc = dtk_error("%s:%d:%d: the edit would write a value that was not asked; nothing "
		               "is written",
		               d->path, r.found[k]->line, r.found[k]->col);
done:
	dtk_diags_release(&diags);
	dtk_arena_free(arena);
	free(r.from);
	free(r.to);
	free(r.found);
	return rc;
}

char *dtk_ydoc_apply(const struct dtk_ydoc *d, size_t *out_len)
{
	size_t *o = S_order(d), i;
	struct dtk_edit *e = dtk_xmalloc((d->n_edits + 1) * sizeof(*e));
	char *out;

	for (i = 0; i < d->n_edits; i++)
		e[i] = d->edits[o[i]];
	out = dtk_splice(d->buf, d->len, e, d->n_edits, out_len);
	if (out && S_read_back(d, o, out, *out_len) < 0) {
		free(out);
		out = NULL;
	}
	free(e);
	free(o);
	return out;
}

int dtk_ydoc_map_back(const struct dtk_ydoc *d, const char *out, size_t out_len, int *line,
                      int *col)
{
	struct dtk_edit *e = S_sorted(d);
	size_t off = dtk_text_offset(out, out_len, *line, *col);
	int inside;

	off = dtk_splice_map_back(e, d->n_edits, off, &inside);
	free(e);
	dtk_text_linecol(d->buf, d->len, off, line, col);
	return inside;
}

/* Records the replacement of [start, end) with text (copied). */
static void S_edit(struct dtk_ydoc *d, size_t start, size_t end, const char *text, size_t len)
{
	struct dtk_edit *e;
	size_t i;
	dtk_grow((void **)&d->edits, &d->cap, d->n_edits + 1, sizeof(*d->edits));
	e = &d->edits[d->n_edits++];
	e->start = start;
	e->end = end;
	e->text = dtk_arena_strndup(d->arena, text, len);
	e->len = len;
	/* the scalars just written are in this text (a removal has none) */
	for (i = d->n_written; len && i > 0 && d->written[i - 1].edit == (size_t)-1; i--)
		d->written[i - 1].edit = d->n_edits - 1;
}

/* ---- spans ---- */

int dtk_yedit_col(const struct dtk_ydoc *d, size_t off)
{
	size_t ls = dtk_ytext_line_start(d->buf, off);
	if (ls == 0 && d->len >= 3 && !memcmp(d->buf, "\xEF\xBB\xBF", 3))
		ls = off >= 3 ? 3 : off;
	return (int)(off - ls);
}

/* Returns the offset of the '-' that introduces item i of block sequence
 * seq, or (size_t)-1 when seq is not a block sequence. */
static size_t S_dash(const struct dtk_ydoc *d, const struct dtk_yval *seq, size_t i)
{
	size_t p;
	if (!seq || seq->kind != DTK_Y_SEQ || seq->style != DTK_YS_BLOCK || i >= seq->n)
		return (size_t)-1;
	p = seq->items[i]->start;
	/* back over "- ", blank space and line breaks (a "-" alone on its line) */
	while (p > 0 && d->buf[p - 1] != '-')
		p--;
	return p > 0 ? p - 1 : (size_t)-1;
}

int dtk_yedit_item_span(const struct dtk_ydoc *d, const struct dtk_yval *seq, size_t i,
                        size_t *start, size_t *end)
{
	size_t dash = S_dash(d, seq, i);
	if (dash == (size_t)-1)
		return dtk_error("%s: not an item of a block list", d->path);
	*start = dtk_ytext_line_start(d->buf, dash);
	*end = dtk_ytext_line_end(d->buf, d->len, seq->items[i]->end);
	return 0;
}

/* Returns the offset past the last byte of pair i's text (an empty value:
 * past its key). */
static size_t S_pair_end(const struct dtk_yval *map, size_t i)
{
	const struct dtk_yval *k = map->items[2 * i], *v = map->items[2 * i + 1];
	return v->end > k->end ? v->end : k->end;
}

int dtk_yedit_pair_span(const struct dtk_ydoc *d, const struct dtk_yval *map, size_t i,
                        size_t *start, size_t *end)
{
	size_t ks, ls;
	if (!map || map->kind != DTK_Y_MAP || map->style != DTK_YS_BLOCK || 2 * i >= map->n)
		return dtk_error("%s: not a key of a block mapping", d->path);
	ks = map->items[2 * i]->start;
	ls = dtk_ytext_line_start(d->buf, ks);
	*start = strspn(d->buf + ls, " ") == ks - ls ? ls : ks;
	*end = dtk_ytext_line_end(d->buf, d->len, S_pair_end(map, i));
	return 0;
}

int dtk_yedit_find(const struct dtk_yval *map, const char *key)
{
	size_t i;
	if (!map || map->kind != DTK_Y_MAP)
		return -1;
	for (i = 0; i + 1 < map->n; i += 2)
		if (map->items[i]->kind == DTK_Y_SCALAR && !strcmp(map->items[i]->str, key))
			return (int)(i / 2);
	return -1;
}

/* ---- writing new text ---- */

/* Appends scalar v; where and indent as for dtk_yemit_scalar. */
static int S_scalar(struct dtk_ydoc *d, struct dtk_buf *b, struct dtk_yscalar v, int where,
                    int indent)
{
	size_t len = strlen(v.s);
	struct dtk_ywritten *w;

	if (v.raw)
		dtk_buf_put(b, v.s, len);
	else if (dtk_yemit_scalar(b, v.s, len, where, indent, d->eol) < 0)
		return -1;
	/* to be read back (dtk_ydoc_apply) once its edit is recorded */
	dtk_grow((void **)&d->written, &d->cap_written, d->n_written + 1, sizeof(*d->written));
	w = &d->written[d->n_written++];
	w->edit = (size_t)-1;
	w->s = dtk_arena_strndup(d->arena, v.s, len);
	w->len = len;
	return 0;
}

/* Forgets the scalars written for an edit that was never recorded (an
 * operation that failed half way). */
static void S_forget(struct dtk_ydoc *d)
{
	while (d->n_written && d->written[d->n_written - 1].edit == (size_t)-1)
		d->n_written--;
}

static int S_flow_list(struct dtk_ydoc *d, struct dtk_buf *b, const struct dtk_yscalar *l, size_t n)
{
	size_t i;
	dtk_buf_putc(b, '[');
	for (i = 0; i < n; i++) {
		if (i)
			dtk_buf_puts(b, ", ");
		if (S_scalar(d, b, l[i], DTK_YEMIT_FLOW, 0) < 0)
			return -1;
	}
	dtk_buf_putc(b, ']');
	return 0;
}

/* Appends the items of a block list, each on a new line at column col. */
static int S_block_items(struct dtk_ydoc *d, struct dtk_buf *b, const struct dtk_yscalar *l,
                         size_t n, int col)
{
	size_t i;
	for (i = 0; i < n; i++) {
		dtk_buf_puts(b, d->eol);
		dtk_ytext_spaces(b, col);
		dtk_buf_puts(b, "- ");
		if (S_scalar(d, b, l[i], DTK_YEMIT_BLOCK, col) < 0)
			return -1;
	}
	return 0;
}

/* Returns the column of block map's keys: where the map starts, which is
 * its first key's column, or its '?' when that key is explicit ("- ? id"). */
static int S_key_col(const struct dtk_ydoc *d, const struct dtk_yval *map)
{
	return dtk_yedit_col(d, map->start);
}

/* Appends "key: value" of a block mapping whose keys stand at column kcol
 * (no line break after it). */
static int S_block_field(struct dtk_ydoc *d, struct dtk_buf *b, const struct dtk_yfield *f,
                         int kcol)
{
	if (S_scalar(d, b, (struct dtk_yscalar){f->key, 0}, DTK_YEMIT_BLOCK, kcol) < 0)
		return -1;
	dtk_buf_putc(b, ':');
	if (!f->list) {
		dtk_buf_putc(b, ' ');
		return S_scalar(d, b, f->val, DTK_YEMIT_BLOCK, kcol);
	}
	if (d->flow_lists || f->n == 0) {
		dtk_buf_putc(b, ' ');
		return S_flow_list(d, b, f->list, f->n);
	}
	return S_block_items(d, b, f->list, f->n, kcol + d->list_indent);
}

static int S_flow_map(struct dtk_ydoc *d, struct dtk_buf *b, const struct dtk_yfield *f, size_t n)
{
	size_t i;
	dtk_buf_putc(b, '{');
	for (i = 0; i < n; i++) {
		if (i)
			dtk_buf_puts(b, ", ");
		if (S_scalar(d, b, (struct dtk_yscalar){f[i].key, 0}, DTK_YEMIT_FLOW, 0) < 0)
			return -1;
		dtk_buf_puts(b, ": ");
		if (f[i].list ? S_flow_list(d, b, f[i].list, f[i].n)
		              : S_scalar(d, b, f[i].val, DTK_YEMIT_FLOW, 0))
			return -1;
	}
	dtk_buf_putc(b, '}');
	return 0;
}

/* Inserts whole lines (text, without its last line break) after the line
 * that ends at off (past its line break, or the end of the file). */
static void S_insert_lines(struct dtk_ydoc *d, size_t off, struct dtk_buf *text)
{
	struct dtk_buf b = DTK_BUF_INIT;
	if (off == d->len && d->len > 0 && d->buf[d->len - 1] != '\n' &&
	    d->buf[d->len - 1] != '\r') {
		dtk_buf_puts(&b, d->eol); /* the last line has no break: keep it so */
		dtk_buf_put(&b, text->ptr, text->len);
	} else {
		dtk_buf_put(&b, text->ptr, text->len);
		dtk_buf_puts(&b, d->eol);
	}
	S_edit(d, off, off, b.ptr, b.len);
	dtk_buf_release(&b);
}

/* Returns 1 when k of an order of keys (model.h: '*' marks a required one) is key. */
static int S_key_is(const char *k, const char *key)
{
	return !strcmp(k + (*k == '*'), key);
}

/* Returns the pair of map to add key after: the present key that comes last
 * before key in order, else the last pair. */
static size_t S_after(const struct dtk_yval *map, const char *key, const char *const *order)
{
	size_t best = map->n / 2 - 1, i;
	int rank = -1, want = -1, r;

	for (r = 0; order && order[r]; r++)
		if (S_key_is(order[r], key))
			want = r;
	if (want < 0)
		return best;
	for (i = 0; i + 1 < map->n; i += 2)
		for (r = 0; r < want; r++)
			if (map->items[i]->kind == DTK_Y_SCALAR &&
			    S_key_is(order[r], map->items[i]->str) && r > rank) {
				rank = r;
				best = i / 2;
			}
	return best;
}

/* Adds field f to map, which lacks it. */
static int S_add_field(struct dtk_ydoc *d, const struct dtk_yval *map, const struct dtk_yfield *f,
                       const char *const *order)
{
	struct dtk_buf b = DTK_BUF_INIT;
	size_t at;
	int kcol, rc = -1;

	S_forget(d);
	if (!map || map->kind != DTK_Y_MAP)
		return dtk_error("%s: not a mapping", d->path);
	if (map->n == 0 && map->style != DTK_YS_FLOW)
		return dtk_error("%s: an empty mapping", d->path);
	if (map->style == DTK_YS_FLOW) {
		struct dtk_buf v = DTK_BUF_INIT;
		if (S_flow_map(d, &v, f, 1) < 0) {
			dtk_buf_release(&v);
			return -1;
		}
		/* "{k: v}" without its braces */
		if (map->n) {
			dtk_buf_puts(&b, ", ");
			at = S_pair_end(map, S_after(map, f->key, order));
		} else {
			at = map->start + 1;
		}
		dtk_buf_put(&b, v.ptr + 1, v.len - 2);
		dtk_buf_release(&v);
		S_edit(d, at, at, b.ptr, b.len);
		dtk_buf_release(&b);
		return 0;
	}
	kcol = S_key_col(d, map);
	dtk_ytext_spaces(&b, kcol);
	if (S_block_field(d, &b, f, kcol) == 0) {
		at = dtk_ytext_line_end(d->buf, d->len,
		                        S_pair_end(map, S_after(map, f->key, order)));
		S_insert_lines(d, at, &b);
		rc = 0;
	}
	dtk_buf_release(&b);
	return rc;
}

/* Returns the offset just past the ':' after the key that ends at off. */
static size_t S_colon(const struct dtk_ydoc *d, size_t off)
{
	while (off < d->len && d->buf[off] != ':')
		off++;
	return off < d->len ? off + 1 : off;
}

/* Returns 1 when v is an empty scalar (written as nothing). */
static int S_empty(const struct dtk_yval *v)
{
	return v->kind == DTK_Y_SCALAR && v->start == v->end;
}

/* Returns 1 when v is a null written as something ("~", "null"). */
static int S_null(const struct dtk_yval *v)
{
	return v->kind == DTK_Y_SCALAR && v->type == DTK_YT_NULL && v->start < v->end;
}

/* Returns the first place from at in d whose byte is (in 0) or is not (in
 * 1) one of set, as strcspn and strspn do, but at most d->len: the text
 * need not end in a NUL. */
static size_t S_span(const struct dtk_ydoc *d, size_t at, const char *set, int in)
{
	while (at < d->len && d->buf[at] && (strchr(set, d->buf[at]) != NULL) == in)
		at++;
	return at;
}

/* Returns where in d the comment ending old's line starts (with the spaces
 * before it) and sets *eol to its end; or returns 0 when there is none. The
 * line of a block scalar's is its header's. */
static size_t S_line_comment(const struct dtk_ydoc *d, const struct dtk_yval *old, size_t *eol)
{
	int block = old->style == DTK_YS_LITERAL || old->style == DTK_YS_FOLDED;
	size_t ws = block ? S_span(d, old->start, "|>+-0123456789", 1) : old->end,
	       at = S_span(d, ws, " \t", 1);

	if (at == ws || at >= d->len || d->buf[at] != '#' || (block && at >= old->end))
		return 0;
	*eol = S_span(d, at, "\r\n", 0);
	return ws;
}

/* Puts the comment that ends old's line into b, the value that replaces
 * old, where it stays the comment of that line: after the header of a block
 * scalar, else after the value. Returns the end of the text b replaces:
 * old's, or past the comment when it moved into b. The comment is the
 * user's: an edit of the value keeps it. */
static size_t S_keep_comment(const struct dtk_ydoc *d, const struct dtk_yval *old,
                             struct dtk_buf *b)
{
	int was_block = old->style == DTK_YS_LITERAL || old->style == DTK_YS_FOLDED;
	int block = b->len && (b->ptr[0] == '|' || b->ptr[0] == '>');
	size_t eol = 0, ws = S_line_comment(d, old, &eol), head;
	struct dtk_buf t = DTK_BUF_INIT;

	if (!ws || (!was_block && !block))
		return old->end; /* none, or it stays where it is */
	if (!block) {            /* a block's header comment after a value of one line */
		if (!memchr(b->ptr, '\n', b->len))
			dtk_buf_put(b, d->buf + ws, eol - ws);
		return old->end;
	}
	head = strcspn(b->ptr, "\r\n");
	dtk_buf_put(&t, b->ptr, head);
	dtk_buf_put(&t, d->buf + ws, eol - ws);
	dtk_buf_put(&t, b->ptr + head, b->len - head);
	dtk_buf_release(b);
	*b = t;
	return was_block ? old->end : eol;
}

/* Replaces the value of pair i of map with v (an empty value gets one). */
static int S_set_pair(struct dtk_ydoc *d, const struct dtk_yval *map, size_t i,
                      struct dtk_yscalar v)
{
	const struct dtk_yval *k = map->items[2 * i], *old = map->items[2 * i + 1];
	struct dtk_buf b = DTK_BUF_INIT;
	int flow = map->style == DTK_YS_FLOW, kcol = dtk_yedit_col(d, k->start), empty;
	size_t at, end;

	S_forget(d);
	if (old->kind != DTK_Y_SCALAR)
		return dtk_error_at(d->path, old->line, old->col, "'%s' holds %s, not a scalar",
		                    k->str, dtk_yval_describe(old));
	if ((empty = S_empty(old)))
		dtk_buf_putc(&b, ' ');
	if (S_scalar(d, &b, v, flow ? DTK_YEMIT_FLOW : DTK_YEMIT_BLOCK, kcol) < 0) {
		dtk_buf_release(&b);
		return -1;
	}
	at = empty ? S_colon(d, k->end) : old->start;
	end = empty ? at : S_keep_comment(d, old, &b);
	S_edit(d, at, end, b.ptr, b.len);
	dtk_buf_release(&b);
	return 0;
}

int dtk_yedit_set_key(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                      struct dtk_yscalar v, const char *const *order)
{
	int i = dtk_yedit_find(map, key);
	struct dtk_yfield f = {key, v, NULL, 0};
	if (i >= 0)
		return S_set_pair(d, map, (size_t)i, v);
	return S_add_field(d, map, &f, order);
}

int dtk_yedit_add_list(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                       const struct dtk_yscalar *items, size_t n, const char *const *order)
{
	struct dtk_yfield f = {key, {NULL, 0}, items, n};
	return S_add_field(d, map, &f, order);
}

int dtk_yedit_append(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                     struct dtk_yscalar v, const char *const *order)
{
	int i = dtk_yedit_find(map, key);
	const struct dtk_yval *l, *k;
	struct dtk_buf b = DTK_BUF_INIT;
	size_t at;
	int col, rc = -1;

	S_forget(d);
	if (i < 0)
		return dtk_yedit_add_list(d, map, key, &v, 1, order);
	k = map->items[2 * i];
	l = map->items[2 * i + 1];
	if (S_empty(l)) { /* "key:" with no value */
		if (map->style == DTK_YS_FLOW || d->flow_lists) {
			dtk_buf_putc(&b, ' ');
			rc = S_flow_list(d, &b, &v, 1);
		} else {
			rc = S_block_items(d, &b, &v, 1,
			                   dtk_yedit_col(d, k->start) + d->list_indent);
		}
		at = S_colon(d, k->end);
		if (rc == 0)
			S_edit(d, at, at, b.ptr, b.len);
		goto done;
	}
	if (S_null(l)) { /* "key: ~": the list in its place */
		rc = S_flow_list(d, &b, &v, 1);
		if (rc == 0)
			S_edit(d, l->start, l->end, b.ptr, b.len);
		goto done;
	}
	if (l->kind != DTK_Y_SEQ) {
		rc = dtk_error_at(d->path, l->line, l->col, "'%s' is %s, not a list", key,
		                  dtk_yval_describe(l));
		goto done;
	}
	if (l->style == DTK_YS_FLOW) {
		if (l->n)
			dtk_buf_puts(&b, ", ");
		rc = S_scalar(d, &b, v, DTK_YEMIT_FLOW, 0);
		at = l->n ? l->items[l->n - 1]->end : l->start + 1;
		if (rc == 0)
			S_edit(d, at, at, b.ptr, b.len);
		goto done;
	}
	col = dtk_yedit_col(d, S_dash(d, l, l->n - 1));
	dtk_ytext_spaces(&b, col);
	dtk_buf_puts(&b, "- ");
	rc = S_scalar(d, &b, v, DTK_YEMIT_BLOCK, col);
	if (rc == 0)
		S_insert_lines(d, dtk_ytext_line_end(d->buf, d->len, l->end), &b);
done:
	dtk_buf_release(&b);
	return rc;
}

/* Appends to b a block mapping item: "- " at column dcol, keys at kcol;
 * no line break after its last line. */
static int S_block_map(struct dtk_ydoc *d, struct dtk_buf *b, const struct dtk_yfield *f, size_t n,
                       int dcol, int kcol)
{
	size_t i;
	dtk_ytext_spaces(b, dcol);
	dtk_buf_putc(b, '-');
	dtk_ytext_spaces(b, kcol - dcol - 1);
	for (i = 0; i < n; i++) {
		if (i) {
			dtk_buf_puts(b, d->eol);
			dtk_ytext_spaces(b, kcol);
		}
		if (S_block_field(d, b, &f[i], kcol) < 0)
			return -1;
	}
	return 0;
}

/* Adds key: a list of one mapping of fields, to map (which lacks key),
 * after the key before it in an entry's order (dtk_entry_keys), else
 * last. */
static int S_add_map_list(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                          const struct dtk_yfield *fields, size_t n)
{
	struct dtk_buf b = DTK_BUF_INIT;
	size_t at = S_pair_end(map, S_after(map, key, dtk_entry_keys));
	int rc, kcol;

	if (map->style == DTK_YS_FLOW) {
		dtk_buf_puts(&b, ", ");
		rc = S_scalar(d, &b, (struct dtk_yscalar){key, 0}, DTK_YEMIT_FLOW, 0);
		dtk_buf_puts(&b, ": [");
		rc = rc < 0 ? rc : S_flow_map(d, &b, fields, n);
		dtk_buf_putc(&b, ']');
		if (rc == 0)
			S_edit(d, at, at, b.ptr, b.len);
		dtk_buf_release(&b);
		return rc;
	}
	kcol = S_key_col(d, map);
	dtk_ytext_spaces(&b, kcol);
	if (S_scalar(d, &b, (struct dtk_yscalar){key, 0}, DTK_YEMIT_BLOCK, kcol) < 0) {
		dtk_buf_release(&b);
		return -1;
	}
	dtk_buf_putc(&b, ':');
	dtk_buf_puts(&b, d->eol);
	rc = S_block_map(d, &b, fields, n, kcol + d->list_indent, kcol + d->list_indent + 2);
	if (rc == 0)
		S_insert_lines(d, dtk_ytext_line_end(d->buf, d->len, at), &b);
	dtk_buf_release(&b);
	return rc;
}

/* Gives key of map, which has no value ("key:", "key: ~"), a list of one
 * map of fields: "key: [{...}]" in a flow map or in place of "~", else
 * block lines below the key, whatever form the file's other lists have:
 * the merge driver merges a block list of maps item by item. */
static int S_fill_map_list(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                           const struct dtk_yfield *fields, size_t n)
{
	size_t i = (size_t)dtk_yedit_find(map, key);
	const struct dtk_yval *k = map->items[2 * i], *v = map->items[2 * i + 1];
	struct dtk_buf b = DTK_BUF_INIT;
	int rc, col = dtk_yedit_col(d, k->start) + d->list_indent;
	size_t at;

	if (map->style == DTK_YS_FLOW || S_null(v)) {
		/* after the colon; in place of "~" */
		dtk_buf_puts(&b, S_null(v) ? "[" : " [");
		rc = S_flow_map(d, &b, fields, n);
		dtk_buf_putc(&b, ']');
		at = S_null(v) ? v->start : S_colon(d, k->end);
		if (rc == 0)
			S_edit(d, at, S_null(v) ? v->end : at, b.ptr, b.len);
	} else {
		rc = S_block_map(d, &b, fields, n, col, col + 2);
		if (rc == 0)
			S_insert_lines(d, dtk_ytext_line_end(d->buf, d->len, k->end), &b);
	}
	dtk_buf_release(&b);
	return rc;
}

int dtk_yedit_append_map(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key,
                         const struct dtk_yval *seq, const struct dtk_yfield *fields, size_t n)
{
	struct dtk_buf b = DTK_BUF_INIT;
	int dcol, kcol, rc = -1;
	size_t at;

	S_forget(d);
	if (!seq && map && key && map->kind == DTK_Y_MAP && map->n)
		return S_add_map_list(d, map, key, fields, n);
	if (seq && map && map != d->root && key && (S_empty(seq) || S_null(seq)))
		return S_fill_map_list(d, map, key, fields, n); /* an entry's "key:" */
	if (!seq || seq->kind != DTK_Y_SEQ)
		return seq ? dtk_error_at(d->path, seq->line, seq->col, "'%s' is %s, not a list",
		                          key ? key : "the file", dtk_yval_describe(seq))
		           : dtk_error("%s: '%s' is not a list", d->path, key ? key : "the file");
	if (seq->style == DTK_YS_BLOCK && seq->n) {
		const struct dtk_yval *last = seq->items[seq->n - 1];
		dcol = dtk_yedit_col(d, S_dash(d, seq, seq->n - 1));
		kcol = last->kind == DTK_Y_MAP && last->style == DTK_YS_BLOCK
		               ? dtk_yedit_col(d, last->start)
		               : dcol + 2;
		if (kcol <= dcol)
			kcol = dcol + 2;
		if (last->kind == DTK_Y_MAP && last->style == DTK_YS_FLOW) {
			/* "- {k: v, ...}" as the last item is written */
			dtk_ytext_spaces(&b, dcol);
			dtk_buf_puts(&b, "- ");
			rc = S_flow_map(d, &b, fields, n);
		} else {
			rc = S_block_map(d, &b, fields, n, dcol, kcol);
		}
		if (rc == 0)
			S_insert_lines(d, dtk_ytext_line_end(d->buf, d->len, seq->end), &b);
	} else if (seq->n) { /* [{...}, {...}] */
		dtk_buf_puts(&b, ", ");
		rc = S_flow_map(d, &b, fields, n);
		at = seq->items[seq->n - 1]->end;
		if (rc == 0)
			S_edit(d, at, at, b.ptr, b.len);
	} else if (map && map->style == DTK_YS_FLOW) { /* {k: []}: [{...}] */
		dtk_buf_putc(&b, '[');
		rc = S_flow_map(d, &b, fields, n);
		dtk_buf_putc(&b, ']');
		if (rc == 0)
			S_edit(d, seq->start, seq->end, b.ptr, b.len);
	} else { /* [] becomes a block list of one item */
		int i = map ? dtk_yedit_find(map, key) : -1;
		int base = i >= 0 ? dtk_yedit_col(d, map->items[2 * i]->start) : -2;
		dcol = base + 2;
		rc = S_block_map(d, &b, fields, n, dcol, dcol + 2);
		if (rc == 0 && i >= 0) {
			/* "key: [] # note" becomes "key: # note" and the item's lines */
			S_edit(d, S_colon(d, map->items[2 * i]->end), seq->end, "", 0);
			S_insert_lines(d, dtk_ytext_line_end(d->buf, d->len, seq->end), &b);
		} else if (rc == 0) {
			S_edit(d, seq->start, seq->end, b.ptr, b.len);
		}
	}
	dtk_buf_release(&b);
	return rc;
}

int dtk_yedit_remove_item(struct dtk_ydoc *d, const struct dtk_yval *map, const char *key, size_t i)
{
	int k = dtk_yedit_find(map, key);
	const struct dtk_yval *l = k >= 0 ? map->items[2 * k + 1] : NULL;
	size_t start, end;

	S_forget(d);
	if (!l || l->kind != DTK_Y_SEQ || i >= l->n)
		return dtk_error("%s: '%s' has no item %zu", d->path, key, i + 1);
	if (l->style == DTK_YS_FLOW) {
		if (l->n == 1) { /* "[x]" becomes "[]" */
			start = l->start + 1;
			end = l->end - 1;
		} else if (i + 1 < l->n) { /* "x, " */
			start = l->items[i]->start;
			end = l->items[i + 1]->start;
		} else { /* ", x" */
			start = l->items[i - 1]->end;
			end = l->items[i]->end;
		}
		S_edit(d, start, end, "", 0);
		return 0;
	}
	if (dtk_yedit_item_span(d, l, i, &start, &end) < 0)
		return -1;
	if (l->n == 1) { /* the only item: "key: []", the comments between kept */
		size_t colon = S_colon(d, map->items[2 * k]->end);
		S_edit(d, colon, colon, " []", 3);
	}
	S_edit(d, start, end, "", 0);
	return 0;
}
