/*
 * merge_follow.c: dtk_merge_follow: after a merge in which dtk's driver
 * renumbered theirs' entries, theirs' references to them in the other files
 * of insights/ (which git merged without the driver, or the driver merged
 * knowing nothing of the renumbering) follow: see docs/merging.md.
 */
#include "dtk/merge.h"

#include "dtk/ytree.h"

#include <stdlib.h>
#include <string.h>

struct S_follow {
	struct dtk_merge_out *out;
	const char *name; /* the file's name, for notes */
	const char *buf;  /* the merged text */
	const struct dtk_merge_rename *r;
	size_t nr;
	struct dtk_edit *edits;
	size_t n_edits, cap_edits;
};

/* Returns the rename of id v (a scalar), or NULL. */
static const struct dtk_merge_rename *S_renamed(const struct S_follow *f, const struct dtk_yval *v)
{
	size_t i;
	for (i = 0; v && v->kind == DTK_Y_SCALAR && i < f->nr; i++)
		if (!strcmp(v->str, f->r[i].from))
			return &f->r[i];
	return NULL;
}

/* Returns the id theirs gives the merged entry id: the old one of an entry
 * of theirs renumbered; NULL (none of theirs) for an id theirs' renumbered
 * entry gave up; else id. */
static const char *S_theirs_id(const struct S_follow *f, const char *id)
{
	size_t i;
	for (i = 0; i < f->nr; i++) {
		if (!strcmp(id, f->r[i].to))
			return f->r[i].from;
		if (!strcmp(id, f->r[i].from))
			return NULL;
	}
	return id;
}

/* Returns the item of list l whose mapping has key == s, or NULL (also when
 * s is NULL). */
static const struct dtk_yval *S_find(const struct dtk_yval *l, const char *key, const char *s)
{
	size_t i;
	for (i = 0; s && l && l->kind == DTK_Y_SEQ && i < l->n; i++) {
		const struct dtk_yval *v = dtk_yval_get(l->items[i], key);
		if (v && v->kind == DTK_Y_SCALAR && !strcmp(v->str, s))
			return l->items[i];
	}
	return NULL;
}

/* Returns 1 when v (a scalar, or a list of scalars or of mappings with key
 * when key is set) names id. */
static int S_names(const struct dtk_yval *v, const char *key, const char *id)
{
	size_t i;
	if (v && v->kind == DTK_Y_SCALAR)
		return !key && !strcmp(v->str, id);
	for (i = 0; v && v->kind == DTK_Y_SEQ && i < v->n; i++)
		if (S_names(key ? dtk_yval_get(v->items[i], key) : v->items[i], NULL, id))
			return 1;
	return 0;
}

/*
 * One reference ref (a scalar) of the merged text, in the value list of the
 * item it belongs to (key: the key of mappings in list, or NULL); t and o
 * are theirs' and ours' values of the same key of the same item (NULL:
 * absent). Rewrites ref to its new id when it is renamed, t names it and o
 * does not, and list does not name the new id already.
 */
static void S_ref(struct S_follow *f, const char *what, const struct dtk_yval *ref,
                  const struct dtk_yval *list, const char *key, const struct dtk_yval *t,
                  const struct dtk_yval *o)
{
	const struct dtk_merge_rename *x = S_renamed(f, ref);
	size_t start, end;

	if (!x || !S_names(t, key, x->from) || S_names(o, key, x->from) ||
	    S_names(list, key, x->to))
		return;
	start = ref->start;
	end = ref->end;
	if (ref->style == DTK_YS_SINGLE || ref->style == DTK_YS_DOUBLE) {
		start++;
		end--;
	}
	/* the id as written: a plain or quoted id without escapes */
	if (end <= start || end - start != ref->len || memcmp(f->buf + start, ref->str, ref->len))
		return;
	dtk_grow((void **)&f->edits, &f->cap_edits, f->n_edits + 1, sizeof(*f->edits));
	f->edits[f->n_edits++] = (struct dtk_edit){start, end, x->to, strlen(x->to)};
	dtk_buf_printf(&f->out->notes, "%s: theirs' reference to %s (%s) is now %s\n", f->name,
	               x->from, what, x->to);
}

/* The references of one entry e of the merged node file: relates,
 * contradicts and superseded_by, against theirs' entry te and ours' oe (NULL: absent). */
static void S_entry(struct S_follow *f, struct dtk_buf *what, const struct dtk_yval *e,
                    const struct dtk_yval *te, const struct dtk_yval *oe)
{
	const struct dtk_yval *id = dtk_yval_get(e, "id");
	const struct dtk_yval *rel = dtk_yval_get(e, "relates"),
	                      *con = dtk_yval_get(e, "contradicts"),
	                      *sup = dtk_yval_get(e, "superseded_by");
	size_t i;

	if (!id || id->kind != DTK_Y_SCALAR)
		return;
	what->len = 0;
	dtk_buf_printf(what, "%s's relates", id->str);
	for (i = 0; rel && rel->kind == DTK_Y_SEQ && i < rel->n; i++)
		S_ref(f, dtk_buf_cstr(what), rel->items[i], rel, NULL, dtk_yval_get(te, "relates"),
		      dtk_yval_get(oe, "relates"));
	what->len = 0;
	dtk_buf_printf(what, "%s's contradicts", id->str);
	for (i = 0; con && con->kind == DTK_Y_SEQ && i < con->n; i++)
		S_ref(f, dtk_buf_cstr(what), dtk_yval_get(con->items[i], "id"), con, "id",
		      dtk_yval_get(te, "contradicts"), dtk_yval_get(oe, "contradicts"));
	if (sup && sup->kind == DTK_Y_SCALAR) {
		what->len = 0;
		dtk_buf_printf(what, "%s's superseded_by", id->str);
		S_ref(f, dtk_buf_cstr(what), sup, sup, NULL, dtk_yval_get(te, "superseded_by"),
		      dtk_yval_get(oe, "superseded_by"));
	}
}

/* The gaps' flagged_by of the merged _domain.yaml (a gap is matched by its
 * text). */
static void S_gaps(struct S_follow *f, struct dtk_buf *what, const struct dtk_yval *gaps,
                   const struct dtk_yval *tgaps, const struct dtk_yval *ogaps)
{
	size_t i, j;

	for (i = 0; gaps && gaps->kind == DTK_Y_SEQ && i < gaps->n; i++) {
		const struct dtk_yval *text = dtk_yval_get(gaps->items[i], "text");
		const struct dtk_yval *fb = dtk_yval_get(gaps->items[i], "flagged_by"), *tfb, *ofb;
		if (!text || text->kind != DTK_Y_SCALAR || !fb)
			continue;
		tfb = dtk_yval_get(S_find(tgaps, "text", text->str), "flagged_by");
		ofb = dtk_yval_get(S_find(ogaps, "text", text->str), "flagged_by");
		what->len = 0;
		dtk_buf_printf(what, "flagged_by of the gap '%s'", text->str);
		if (fb->kind == DTK_Y_SCALAR)
			S_ref(f, dtk_buf_cstr(what), fb, fb, NULL, tfb, ofb);
		for (j = 0; fb->kind == DTK_Y_SEQ && j < fb->n; j++)
			S_ref(f, dtk_buf_cstr(what), fb->items[j], fb, NULL, tfb, ofb);
	}
}

/* Parses one version; returns its root, or NULL (absent, empty or not
 * YAML). */
static struct dtk_yval *S_parse(struct dtk_arena *a, const char *name, const char *buf, size_t len)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_yval *root = NULL;

	if (buf && dtk_yaml_parse(&root, a, name, buf, len, &d) < 0)
		root = NULL;
	dtk_diags_release(&d);
	return root;
}

int dtk_merge_follow(struct dtk_merge_out *out, const char *name, const char *merged, size_t mlen,
                     const char *ours, size_t olen, const char *theirs, size_t tlen,
                     const struct dtk_merge_rename *renames, size_t n)
{
	struct dtk_arena *a = dtk_arena_new();
	struct S_follow f = {out, name, merged, renames, n, NULL, 0, 0};
	struct dtk_buf what = DTK_BUF_INIT;
	const struct dtk_yval *m, *o, *t, *ml, *ol, *tl;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	m = n && theirs ? S_parse(a, name, merged, mlen) : NULL;
	t = m ? S_parse(a, name, theirs, tlen) : NULL;
	o = t ? S_parse(a, name, ours, olen) : NULL;
	if (!t || m->kind != DTK_Y_MAP)
		goto done;
	if (!strcmp(name, "_domain.yaml")) {
		S_gaps(&f, &what, dtk_yval_get(m, "gaps"), dtk_yval_get(t, "gaps"),
		       dtk_yval_get(o, "gaps"));
	} else if (name[0] != '_') {
		ml = dtk_yval_get(m, "insights");
		tl = dtk_yval_get(t, "insights");
		ol = dtk_yval_get(o, "insights");
		for (i = 0; ml && ml->kind == DTK_Y_SEQ && i < ml->n; i++) {
			const struct dtk_yval *id = dtk_yval_get(ml->items[i], "id");
			if (id && id->kind == DTK_Y_SCALAR)
				S_entry(&f, &what, ml->items[i],
				        S_find(tl, "id", S_theirs_id(&f, id->str)),
				        S_find(ol, "id", id->str));
		}
	}
	if (f.n_edits) {
		/* in the order of the text (a gap's or an entry's lists are
		 * visited in order, but keep it whatever the layout) */
		for (i = 1; i < f.n_edits; i++)
			for (j = i; j > 0 && f.edits[j - 1].start > f.edits[j].start; j--) {
				struct dtk_edit x = f.edits[j];
				f.edits[j] = f.edits[j - 1];
				f.edits[j - 1] = x;
			}
		out->text = dtk_splice(merged, mlen, f.edits, f.n_edits, &out->len);
		if (!out->text) {
			f.n_edits = 0;
			out->notes.len = 0;
		}
	}
done:
	free(f.edits);
	dtk_buf_release(&what);
	dtk_arena_free(a);
	return (int)f.n_edits;
}
