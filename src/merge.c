/*
 * merge.c: dtk_merge_file: a three-way merge of one file of insights/:
 * parsing the three versions, the text of edits and conflicts, and reading
 * the result back before it is trusted. The rules themselves are in merge_tree.c.
 */
#include "merge_int.h"

#include "dtk/index.h"
#include "dtk/kb.h"
#include "dtk/ytext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK_SIZE 7

/* Returns 1 when only spaces or a comment follow offset end on its line. */
int dtk_m_tail_ok(const char *buf, size_t len, size_t end)
{
	size_t p = end;
	while (p < len && (buf[p] == ' ' || buf[p] == '\t'))
		p++;
	return p >= len || buf[p] == '\n' || buf[p] == '\r' || buf[p] == '#';
}

/* Returns 1 when buf[start, end) stands on lines of its own: only spaces
 * (and, with dash, one "- ") before it on its first line, only spaces or a
 * comment after it on its last. */
int dtk_m_own_lines(const char *buf, size_t len, size_t start, size_t end, int dash)
{
	size_t p = dtk_ytext_line_start(buf, start);
	while (p < start && buf[p] == ' ')
		p++;
	if (dash && p < start && buf[p] == '-') {
		for (p++; p < start && buf[p] == ' ';)
			p++;
	}
	return p == start && dtk_m_tail_ok(buf, len, end);
}

/* Appends src[start, end) to out: line breaks as eol, every line after the
 * first (and the first with first set) moved right (delta > 0) or left by
 * delta spaces; empty lines stay empty. */
static void S_put_moved(struct dtk_buf *out, const char *src, size_t start, size_t end, int delta,
                        int first, const char *eol)
{
	size_t p = start;
	int bol = first, k;

	while (p < end) {
		if (bol) {
			bol = 0;
			if (delta > 0 && src[p] != '\n' && src[p] != '\r')
				for (k = 0; k < delta; k++)
					dtk_buf_putc(out, ' ');
			for (k = 0; delta < 0 && k < -delta && p < end && src[p] == ' '; k++)
				p++;
			continue;
		}
		if (src[p] == '\r' && p + 1 < end && src[p + 1] == '\n')
			p++;
		if (src[p] == '\n') {
			dtk_buf_puts(out, eol);
			bol = 1;
		} else {
			dtk_buf_putc(out, src[p]);
		}
		p++;
	}
}

void dtk_m_put_theirs(struct dtk_mctx *m, struct dtk_buf *out, size_t start, size_t end, int delta,
                      int first)
{
	S_put_moved(out, m->tb, start, end, delta, first, m->eol);
}

void dtk_m_edit(struct dtk_mctx *m, size_t start, size_t end, const char *text, size_t len)
{
	struct dtk_edit *e;
	dtk_grow((void **)&m->edits, &m->cap_edits, m->n_edits + 1, sizeof(*m->edits));
	e = &m->edits[m->n_edits++];
	e->start = start;
	e->end = end;
	e->text = len ? dtk_arena_strndup(m->a, text, len) : "";
	e->len = len;
}

/* Appends a marker line: c repeated, then " label" when label is set. */
static void S_marker(struct dtk_buf *b, char c, const char *label, const char *eol)
{
	int i;
	for (i = 0; i < MARK_SIZE; i++)
		dtk_buf_putc(b, c);
	if (label) {
		dtk_buf_putc(b, ' ');
		dtk_buf_puts(b, label);
	}
	dtk_buf_puts(b, eol);
}

/* Appends the three markers around ours' o[0..olen) and theirs' text (in
 * t, already in ours' line breaks); ends every side with a line break. */
static void S_conflict_text(struct dtk_buf *b, const char *lo, const char *lt, const char *eol,
                            const char *o, size_t olen, const char *t, size_t tlen)
{
	S_marker(b, '<', lo, eol);
	dtk_buf_put(b, o, olen);
	if (olen && o[olen - 1] != '\n')
		dtk_buf_puts(b, eol);
	S_marker(b, '=', NULL, eol);
	dtk_buf_put(b, t, tlen);
	if (tlen && t[tlen - 1] != '\n')
		dtk_buf_puts(b, eol);
	S_marker(b, '>', lt, eol);
}

void dtk_m_conflict(struct dtk_mctx *m, size_t os, size_t oe, size_t ts, size_t te, int delta,
                    const char *why)
{
	struct dtk_buf b = DTK_BUF_INIT, theirs = DTK_BUF_INIT;

	if (os == m->olen && os && m->ob[os - 1] != '\n')
		dtk_buf_puts(&b, m->eol);
	dtk_m_put_theirs(m, &theirs, ts, te, delta, 1);
	S_conflict_text(&b, m->lo, m->lt, m->eol, m->ob + os, oe - os, theirs.ptr ? theirs.ptr : "",
	                theirs.len);
	dtk_m_edit(m, os, oe, b.ptr, b.len);
	m->conflicts++;
	if (why)
		dtk_m_note(m, "%s", why);
	dtk_buf_release(&b);
	dtk_buf_release(&theirs);
}

void dtk_m_note(struct dtk_mctx *m, const char *fmt, ...)
{
	va_list ap;
	dtk_buf_printf(m->notes, "%s: ", m->name);
	va_start(ap, fmt);
	dtk_buf_vprintf(m->notes, fmt, ap);
	va_end(ap);
	dtk_buf_putc(m->notes, '\n');
}

/* ---- comments, which the data does not hold ---- */

/* One comment: its text, from '#' to the end of its line (no line break). */
struct S_comment {
	const char *s;
	size_t len;
};

/* Marks in mask the bytes of every scalar of v. */
static void S_mask(const struct dtk_yval *v, unsigned char *mask)
{
	size_t i;
	if (!v)
		return;
	if (v->kind == DTK_Y_SCALAR) {
		memset(mask + v->start, 1, v->end - v->start);
		return;
	}
	for (i = 0; i < v->n; i++)
		S_mask(v->items[i], mask);
}

static int S_comment_cmp(const void *pa, const void *pb)
{
	const struct S_comment *a = pa, *b = pb;
	int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* Returns the comments of buf[0..len) parsed as root (a '#' outside every
 * scalar, at a line's start or after a space or tab), sorted (malloc'd;
 * *n of them). */
static struct S_comment *S_comments(const char *buf, size_t len, const struct dtk_yval *root,
                                    size_t *n)
{
	unsigned char *mask = dtk_xcalloc(len + 1, 1);
	struct S_comment *c = NULL;
	size_t p, cap = 0;

	*n = 0;
	S_mask(root, mask);
	for (p = 0; p < len; p++) {
		size_t e = p;
		if (buf[p] != '#' || mask[p] ||
		    (p > 0 && buf[p - 1] != ' ' && buf[p - 1] != '\t' && buf[p - 1] != '\n' &&
		     buf[p - 1] != '\r'))
			continue;
		while (e < len && buf[e] != '\n' && buf[e] != '\r')
			e++;
		dtk_grow((void **)&c, &cap, *n + 1, sizeof(*c));
		c[(*n)++] = (struct S_comment){buf + p, e - p};
		p = e;
	}
	free(mask);
	if (*n)
		qsort(c, *n, sizeof(*c), S_comment_cmp);
	return c;
}

/* Returns how many times comments l[0..n) (sorted) hold x. */
static long S_count(const struct S_comment *l, size_t n, const struct S_comment *x)
{
	long k = 0;
	size_t i;
	for (i = 0; i < n; i++)
		k += !S_comment_cmp(&l[i], x);
	return k;
}

/*
 * Returns 1 when the merged text (parsed as r) carries both sides' changes
 * to the comments of the base (b, o, t: the three versions parsed): for
 * each comment, the merge holds it as often as the base plus ours' and
 * theirs' changes (when both sides added, or both removed, the same one,
 * once or twice). Else sets *lost to a comment that is not carried.
 */
static int S_comments_carried(const struct dtk_merge_in *in, const struct dtk_yval *b,
                              const struct dtk_yval *o, const struct dtk_yval *t,
                              const struct dtk_merge_out *out, const struct dtk_yval *r,
                              struct S_comment *lost)
{
	size_t n[4], i, k;
	struct S_comment *c[4];
	int ok = 1;

	c[0] = S_comments(in->base ? in->base : "", in->base ? in->base_len : 0, b, &n[0]);
	c[1] = S_comments(in->ours ? in->ours : "", in->ours ? in->ours_len : 0, o, &n[1]);
	c[2] = S_comments(in->theirs ? in->theirs : "", in->theirs ? in->theirs_len : 0, t, &n[2]);
	c[3] = S_comments(out->text, out->len, r, &n[3]);
	for (k = 0; k < 4 && ok; k++)
		for (i = 0; i < n[k] && ok; i++) {
			long nb = S_count(c[0], n[0], &c[k][i]);
			long dO = S_count(c[1], n[1], &c[k][i]) - nb;
			long dT = S_count(c[2], n[2], &c[k][i]) - nb;
			long got = S_count(c[3], n[3], &c[k][i]), lo = nb + dO + dT, hi = lo;
			if ((dO > 0 && dT > 0) || (dO < 0 && dT < 0)) {
				long one = dO > 0 ? (dO > dT ? dO : dT) : (dO < dT ? dO : dT);
				lo = dO > 0 ? nb + one : lo;
				hi = dO > 0 ? hi : nb + one;
			}
			if (got < (lo < 0 ? 0 : lo) || got > (hi < 0 ? 0 : hi)) {
				*lost = c[k][i];
				ok = 0;
			}
		}
	for (k = 0; k < 4; k++)
		free(c[k]);
	return ok;
}

/* ---- the file ---- */

/* Parses one version; returns 0 (root NULL for an empty file) or -1. */
static int S_parse(struct dtk_yval **root, struct dtk_arena *a, const char *name, const char *buf,
                   size_t len)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	int rc = dtk_yaml_parse(root, a, name, buf ? buf : "", buf ? len : 0, &d);
	dtk_diags_release(&d);
	return rc;
}

/* Sorts the edits by offset, keeping the order of those at one offset. */
static void S_sort(struct dtk_edit *e, size_t n)
{
	size_t i, j;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && e[j - 1].start > e[j].start; j--) {
			struct dtk_edit x = e[j];
			e[j] = e[j - 1];
			e[j - 1] = x;
		}
}

/* Returns 1 when buf breaks a line with a lone CR (no LF after it). */
static int S_lone_cr(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while ((p = memchr(p, '\r', (size_t)(end - p))) && p + 1 < end && p[1] == '\n')
		p += 2;
	return p != NULL;
}

/* The whole file as one conflict. */
static void S_whole(struct dtk_merge_out *out, const struct dtk_mctx *m)
{
	struct dtk_buf b = DTK_BUF_INIT, t = DTK_BUF_INIT;

	free(out->text);
	S_put_moved(&t, m->tb, 0, m->tlen, 0, 0, m->eol);
	S_conflict_text(&b, m->lo, m->lt, m->eol, m->ob, m->olen, t.ptr ? t.ptr : "", t.len);
	out->len = b.len;
	out->text = dtk_buf_detach(&b);
	out->conflicts = 1;
	dtk_buf_release(&t);
}

static void S_copy(struct dtk_merge_out *out, const char *s, size_t len)
{
	free(out->text);
	out->text = dtk_xstrndup(s ? s : "", s ? len : 0);
	out->len = s ? len : 0;
}

int dtk_merge_file(struct dtk_merge_out *out, const struct dtk_merge_in *in)
{
	struct dtk_mctx m;
	struct dtk_yval *b = NULL, *o = NULL, *t = NULL, *back = NULL;
	const struct dtk_yval *merged = NULL;
	struct S_comment lost;

	memset(out, 0, sizeof(*out));
	memset(&m, 0, sizeof(m));
	m.a = dtk_arena_new();
	m.name = in->name;
	m.ob = in->ours ? in->ours : "";
	m.olen = in->ours ? in->ours_len : 0;
	m.tb = in->theirs ? in->theirs : "";
	m.tlen = in->theirs ? in->theirs_len : 0;
	m.eol = dtk_text_eol(m.ob, m.olen);
	if (!strcmp(m.eol, "\r")) /* lone CRs: a whole conflict, whose markers end in LF */
		m.eol = "\n";
	m.lo = in->label_ours ? in->label_ours : "ours";
	m.lt = in->label_theirs ? in->label_theirs : "theirs";
	m.notes = &out->notes;
	m.records = !strcmp(in->name, "_crystallizations.yaml");

	if (S_parse(&b, m.a, in->name, in->base, in->base_len) < 0 ||
	    S_parse(&o, m.a, in->name, m.ob, m.olen) < 0 ||
	    S_parse(&t, m.a, in->name, m.tb, m.tlen) < 0) {
		dtk_m_note(&m, "conflict: a side does not parse as YAML; the whole file conflicts");
		S_whole(out, &m);
		goto done;
	}
	if (!o || !t) {
		/* a side is empty: one side's text, or the whole file conflicts */
		if (dtk_m_equal(o, t) || dtk_m_equal(b, t))
			S_copy(out, m.ob, m.olen);
		else if (dtk_m_equal(b, o))
			S_copy(out, m.tb, m.tlen);
		else
			S_whole(out, &m);
		goto done;
	}
	/* lines broken by a lone CR (YAML reads them, dtk writes LF or CRLF):
	 * the whole file conflicts rather than mix line breaks */
	if (S_lone_cr(m.ob, m.olen) || S_lone_cr(m.tb, m.tlen))
		m.unsupported = 1;
	else
		merged = dtk_m_merge_root(&m, b, o, t);
	if (m.unsupported) {
		dtk_m_note(&m, "conflict: dtk cannot write this merge into the file's layout; the "
		               "whole file conflicts");
		S_whole(out, &m);
		goto done;
	}
	S_sort(m.edits, m.n_edits);
	out->text = dtk_splice(m.ob, m.olen, m.edits, m.n_edits, &out->len);
	out->conflicts = m.conflicts;
	if (out->text && m.conflicts)
		goto done;
	if (!out->text || S_parse(&back, m.a, in->name, out->text, out->len) < 0 ||
	    !dtk_m_equal(back, merged)) {
		dtk_m_note(&m,
		           "conflict: the merged text does not read back as the merge; the whole "
		           "file conflicts");
		S_whole(out, &m);
	} else if (!S_comments_carried(in, b, o, t, out, back, &lost)) {
		dtk_m_note(&m,
		           "conflict: a comment changed on one side cannot be carried into the "
		           "merge ('%.*s'); the whole file conflicts",
		           (int)(lost.len > 60 ? 60 : lost.len), lost.s);
		S_whole(out, &m);
	}
done:
	free(m.edits);
	dtk_arena_free(m.a);
	return out->conflicts ? 1 : 0;
}

void dtk_merge_out_release(struct dtk_merge_out *out)
{
	if (!out)
		return;
	free(out->text);
	out->text = NULL;
	dtk_buf_release(&out->notes);
}

int dtk_merge_blob(const char *name, char *const text[3], const size_t len[3], char **data,
                   size_t *out_len, struct dtk_buf *notes)
{
	struct dtk_merge_in in = {name,   text[0], text[1], text[2], len[0],
	                          len[1], len[2],  NULL,    NULL};
	struct dtk_merge_out mo;
	int rc = dtk_merge_file(&mo, &in);

	if (notes && mo.notes.len)
		dtk_buf_put(notes, mo.notes.ptr, mo.notes.len);
	*out_len = mo.len;
	*data = mo.text;
	mo.text = NULL;
	dtk_merge_out_release(&mo);
	return rc;
}

int dtk_merge_index(char **out, const struct dtk_memfile *files, size_t n,
                    struct dtk_memfile **pages, size_t *n_pages, struct dtk_diags *diags)
{
	struct dtk_index_pages p = {NULL, 0, NULL};
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_kb *kb = NULL;
	size_t i;

	*out = NULL;
	if (dtk_kb_load(
	            &kb,
	            &(struct dtk_kb_load_opts){.what = DTK_KB_LEAN, .files = files, .n_files = n},
	            diags) != 0)
		return 1;
	dtk_index_write_pages(kb, dtk_buf_write, &b, pages ? &p : NULL); /* cannot fail */
	*out = dtk_buf_detach(&b);
	if (pages) {
		*pages = dtk_xcalloc(p.n + 1, sizeof(**pages));
		for (i = 0; i < p.n; i++) /* taken from p */
			(*pages)[i] = (struct dtk_memfile){p.v[i].rel, p.v[i].text, p.v[i].len};
		*n_pages = p.n;
		p.n = 0;
		dtk_index_pages_release(&p);
	}
	dtk_kb_free(kb);
	return 0;
}
