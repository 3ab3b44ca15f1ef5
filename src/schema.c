/* schema.c: the schema of each file of a knowledge base (see docs/schema.md). */
#include "schema.h"

#include "lang.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const S_status_names[] = {"resolved", "open"};
const char *const dtk_event_names[DTK_EV_COUNT + 1] = {
        "added",     "raised",    "lowered", "opened",     "resolved",
        "superseded", "retracted", "revised", "newly_stale", NULL};

struct ctx {
	struct dtk_kb *kb;         /* read for the policy; written only by the meta files */
	struct dtk_arena *arena;   /* where the model's strings and arrays go */
	struct dtk_arena *scratch; /* what a lean read checks and drops (nodes only) */
	unsigned char *named;      /* node files: bits of the known sources named */
	const char *path;
	struct dtk_diags *d;
	unsigned flags; /* DTK_SCHEMA_* */
};

static void S_err(struct ctx *c, const struct dtk_yval *at, const char *fmt, ...) DTK_PRINTF(3, 4);

static void S_err(struct ctx *c, const struct dtk_yval *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dtk_diags_vadd(c->d, c->path, at ? at->line : 1, at ? at->col : 1, fmt, ap);
	va_end(ap);
}

static struct dtk_pos S_pos(const struct dtk_yval *v)
{
	struct dtk_pos p = {v->line, v->col};
	return p;
}

/*
 * Checks that v is a mapping whose keys are all in keys (NULL-terminated; a
 * leading '*' marks a required key), reporting unknown keys with a
 * suggestion and missing ones. Returns 1 when v is a mapping; then, unless
 * vals is NULL, vals[k] is the value of keys[k] (the first one written), or
 * NULL when it is absent.
 */
static int S_check_map(struct ctx *c, const struct dtk_yval *v, const char *what,
                       const char *const *keys, const struct dtk_yval **vals)
{
	const struct dtk_yval *seen[32] = {NULL};
	const char *names[32], *missing[32];
	struct dtk_buf b = DTK_BUF_INIT;
	size_t n, i, k, n_missing = 0;

	if (v->kind != DTK_Y_MAP) {
		S_err(c, v, "%s must be a mapping, found %s", what, dtk_yval_describe(v));
		return 0;
	}
	for (n = 0; keys[n] && n < 32; n++)
		names[n] = keys[n] + (keys[n][0] == '*');
	for (i = 0; i + 1 < v->n; i += 2) {
		const struct dtk_yval *kv = v->items[i];
		const char *key = kv->str, *hint;
		if (!key)
			continue;
		for (k = 0; k < n && (strlen(names[k]) != kv->len || strcmp(key, names[k])); k++)
			;
		if (k < n) {
			if (!seen[k]) /* the first, as dtk_yval_get finds it */
				seen[k] = v->items[i + 1];
			continue;
		}
		hint = dtk_suggest(key, names, n);
		if (hint)
			S_err(c, kv, "unknown key '%s' in %s (did you mean '%s'?)", key, what,
			      hint);
		else
			S_err(c, kv, "unknown key '%s' in %s", key, what);
	}
	for (k = 0; k < n; k++) {
		if (keys[k][0] != '*')
			continue;
		if (!seen[k])
			missing[n_missing++] = names[k];
		else if (seen[k]->kind == DTK_Y_SCALAR && seen[k]->type == DTK_YT_NULL)
			S_err(c, seen[k], "'%s' must have a value", names[k]);
	}
	/* in one error: "entry is missing required keys 'claim', 'created' and 'source'" */
	for (k = 0; k < n_missing; k++)
		dtk_buf_printf(&b, "%s'%s'",
		               k == 0              ? ""
		               : k + 1 < n_missing ? ", "
		                                   : " and ",
		               missing[k]);
	if (n_missing)
		S_err(c, v, "%s is missing required key%s %s", what, n_missing == 1 ? "" : "s",
		      b.ptr);
	dtk_buf_release(&b);
	if (vals)
		memcpy(vals, seen, n * sizeof(*vals));
	return 1;
}

/* Returns v unless it is absent or an empty (null) value. */
static const struct dtk_yval *S_present(const struct dtk_yval *v)
{
	return v && !(v->kind == DTK_Y_SCALAR && v->type == DTK_YT_NULL) ? v : NULL;
}

/* Returns v (key's value) when it is a string that is not blank nor longer
 * than key's limit (dtk_text_limit); NULL when absent or after an error. */
static const struct dtk_yval *S_str(struct ctx *c, const struct dtk_yval *v, const char *key)
{
	size_t max, n;

	v = S_present(v);
	if (!v)
		return NULL;
	if (v->kind != DTK_Y_SCALAR || v->type != DTK_YT_STR) {
		S_err(c, v, "'%s' must be a string, found %s%s", key, dtk_yval_describe(v),
		      v->kind == DTK_Y_SCALAR ? " (quote it to make it a string)" : "");
		return NULL;
	}
	if (v->len == 0 || strspn(v->str, " \t\r\n") == v->len) {
		S_err(c, v, "'%s' must not be blank", key);
		return NULL;
	}
	/* a character is at least a byte: only a value longer in bytes than
	 * its limit is counted */
	if (v->len > DTK_MAX_TITLE_CHARS && (max = dtk_text_limit(key)) && v->len > max &&
	    (n = dtk_utf8_chars(v->str, v->len)) > max) {
		S_err(c, v, "'%s' is %zu characters long; the limit is %zu", key, n, max);
		return NULL;
	}
	return v;
}

/* As S_str, the string copied into the arena. */
static const char *S_copy(struct ctx *c, const struct dtk_yval *v, const char *key)
{
	v = S_str(c, v, key);
	return v ? dtk_arena_strndup(c->arena, v->str, v->len) : NULL;
}

/* Returns 1 when v is a scalar that can be a name or id: a string, or a
 * number written as digits (an id such as 2026 needs no quotes). */
static int S_nameish(const struct dtk_yval *v)
{
	return v->kind == DTK_Y_SCALAR && (v->type == DTK_YT_STR || v->type == DTK_YT_INT);
}

/* Appends how v reads in a message: 'text' for scalars, else its kind. */
static const char *S_found(char *buf, size_t size, const struct dtk_yval *v)
{
	size_t n = v->kind == DTK_Y_SCALAR ? v->len : 0;

	if (v->kind != DTK_Y_SCALAR || v->type == DTK_YT_NULL) {
		snprintf(buf, size, "%s", dtk_yval_describe(v));
		return buf;
	}
	if (n + 3 > size) { /* cut at a character boundary, and say so */
		n = size - 6;
		while (n > 0 && ((unsigned char)v->str[n] & 0xC0) == 0x80)
			n--;
	}
	snprintf(buf, size, "'%.*s%s'", (int)n, v->str, n < v->len ? "…" : "");
	return buf;
}

/* Returns a name ([a-z0-9][a-z0-9-]*) from scalar v, or NULL after an error. */
static const char *S_name_of(struct ctx *c, const struct dtk_yval *v, const char *what)
{
	if (!S_nameish(v)) {
		S_err(c, v, "%s must be a name, found %s", what, dtk_yval_describe(v));
		return NULL;
	}
	if (!dtk_is_name(v->str)) {
		S_err(c, v, "%s '%s' is not a valid name (lowercase letters, digits and '-')", what,
		      v->str);
		return NULL;
	}
	return dtk_arena_strndup(c->arena, v->str, v->len);
}

/* As S_name_of, for v (key's value) unless it is absent. */
static const char *S_name(struct ctx *c, const struct dtk_yval *v, const char *key)
{
	v = S_present(v);
	return v ? S_name_of(c, v, key) : NULL;
}

/* Returns 1 when s is an entry id (<node>-<suffix>). */
static int S_is_id(const char *s)
{
	return dtk_entry_id_split(s, NULL);
}

/* Reads v (present), an id valid() takes, into *r (copied); else reports
 * "<what>, found <what v holds>". Returns 1 when read, else 0. */
static int S_ref(struct ctx *c, const struct dtk_yval *v, int (*valid)(const char *),
                 const char *what, struct dtk_ref *r)
{
	char found[96];

	if (!S_nameish(v) || !valid(v->str)) {
		S_err(c, v, "%s, found %s", what, S_found(found, sizeof(found), v));
		return 0;
	}
	r->id = dtk_arena_strndup(c->arena, v->str, v->len);
	r->pos = S_pos(v);
	return 1;
}

/* Reads the whole number v (key's value; NULL when absent) in [min, max];
 * returns 0 and sets *out, or -1. */
static int S_int(struct ctx *c, const struct dtk_yval *v, const char *key, long min, long max,
                 long *out)
{
	char *end;
	long n;

	if (!(v = S_present(v)))
		return -1;
	if (v->kind != DTK_Y_SCALAR || v->type != DTK_YT_INT || strchr(v->str, 'x') ||
	    strchr(v->str, 'o')) {
		char found[96];
		S_err(c, v, "'%s' must be a whole number, found %s", key,
		      v->kind == DTK_Y_SCALAR && v->type == DTK_YT_INT
		              ? S_found(found, sizeof(found), v)
		              : dtk_yval_describe(v));
		return -1;
	}
	errno = 0;
	n = strtol(v->str, &end, 10);
	if (n < min || n > max || *end || errno) {
		/* counts: no upper bound named unless it is passed */
		if (max == DTK_MAX_COUNT && n >= min && !*end)
			S_err(c, v, "'%s' must be at most %ld (the largest count), found %s", key,
			      max, v->str);
		else if (max == DTK_MAX_COUNT)
			S_err(c, v, "'%s' must be a whole number of at least %ld, found %s", key,
			      min, v->str);
		else
			S_err(c, v, "'%s' must be between %ld and %ld, found %s", key, min, max,
			      v->str);
		return -1;
	}
	*out = n;
	return 0;
}

/* Returns the date v (key's value; 0 when absent or after an error). */
static dtk_date S_date(struct ctx *c, const struct dtk_yval *v, const char *key)
{
	dtk_date d;
	if (!(v = S_present(v)))
		return 0;
	if (v->kind != DTK_Y_SCALAR || v->type != DTK_YT_STR) {
		S_err(c, v, "'%s' must be a date (YYYY-MM-DD), found %s", key,
		      dtk_yval_describe(v));
		return 0;
	}
	if (dtk_date_parse(&d, v->str) < 0) {
		S_err(c, v, "'%s' must be a real calendar date (YYYY-MM-DD), found '%s'", key,
		      v->str);
		return 0;
	}
	return d;
}

/* Returns the index of v (key's value) in names, or -1 (absent or bad). */
static int S_enum(struct ctx *c, const struct dtk_yval *v, const char *key,
                  const char *const *names, size_t n)
{
	struct dtk_buf all = DTK_BUF_INIT;
	const char *hint;
	size_t i;

	if (!(v = S_present(v)))
		return -1;
	for (i = 0; v->kind == DTK_Y_SCALAR && i < n; i++)
		if (!strcmp(v->str, names[i]))
			return (int)i;
	for (i = 0; i < n; i++)
		dtk_buf_printf(&all, "%s%s", i ? ", " : "", names[i]);
	hint = v->kind == DTK_Y_SCALAR ? dtk_suggest(v->str, names, n) : NULL;
	if (v->kind != DTK_Y_SCALAR)
		S_err(c, v, "'%s' must be one of %s; found %s", key, all.ptr, dtk_yval_describe(v));
	else if (hint)
		S_err(c, v, "'%s' must be one of %s; found '%s' (did you mean '%s'?)", key, all.ptr,
		      v->str, hint);
	else
		S_err(c, v, "'%s' must be one of %s; found '%s'", key, all.ptr, v->str);
	dtk_buf_release(&all);
	return -1;
}

/* Returns v (key's value) when it is a list; NULL when absent or not a list. */
static const struct dtk_yval *S_list(struct ctx *c, const struct dtk_yval *v, const char *key)
{
	v = S_present(v);
	if (v && v->kind != DTK_Y_SEQ) {
		S_err(c, v, "'%s' must be a list, found %s", key, dtk_yval_describe(v));
		return NULL;
	}
	return v;
}

/* Returns v's id as the model keeps it: a source's own string when v names a
 * known source (so that entries share it), else a copy in the arena. */
static const char *S_id(struct ctx *c, const struct dtk_yval *v, const char *source_key)
{
	const struct dtk_source *s = source_key ? dtk_kb_source(c->kb, v->str) : NULL;
	if (source_key && !s && c->kb->sources_ok)
		S_err(c, v, "'%s' names unknown source '%s' (not in insights/_sources.yaml)",
		      source_key, v->str);
	if (s && c->named) {
		size_t i = (size_t)(s - c->kb->sources);
		c->named[i / 8] |= (unsigned char)(1u << (i % 8));
	}
	return s ? s->id : dtk_arena_strndup(c->arena, v->str, v->len);
}

/* Reads key's list of ids, each checked by valid(); repeats are errors.
 * Returns the count and sets *out (in the arena). */
static size_t S_refs(struct ctx *c, const struct dtk_yval *lv, const char *key,
                     int (*valid)(const char *), const char *form, struct dtk_ref **out)
{
	const char *sources = !strcmp(key, "verified_by") ? key : NULL;
	/* lean: verifications are counted, not kept; relations stay in the
	 * tree until S_lean_relates sorts them out */
	int borrow = ((c->flags & DTK_SCHEMA_LEAN) && (sources || !strcmp(key, "relates"))) ||
	             (c->flags & DTK_SCHEMA_BORROW);
	const struct dtk_yval *l = S_list(c, lv, key);
	size_t i, j, n = 0;

	*out = NULL;
	if (!l || !l->n)
		return 0;
	*out = dtk_arena_alloc(borrow ? c->scratch : c->arena, l->n * sizeof(**out));
	for (i = 0; i < l->n; i++) {
		const struct dtk_yval *v = l->items[i];
		int dup = 0;
		char found[96];
		if (!S_nameish(v) || !valid(v->str)) {
			S_err(c, v, "'%s' items must be %s, found %s", key, form,
			      S_found(found, sizeof(found), v));
			continue;
		}
		for (j = 0; j < n && !dup; j++)
			dup = !strcmp((*out)[j].id, v->str);
		if (dup) {
			S_err(c, v, "'%s' names '%s' twice", key, v->str);
			continue;
		}
		(*out)[n].id = borrow && !sources ? v->str : S_id(c, v, sources);
		(*out)[n].pos = S_pos(v);
		n++;
	}
	return n;
}

/* Returns 1 when root is a list, else 0 after "<what>, found <its kind>". */
static int S_seq(struct ctx *c, const struct dtk_yval *root, const char *what)
{
	if (root->kind == DTK_Y_SEQ)
		return 1;
	S_err(c, root, "%s, found %s", what, dtk_yval_describe(root));
	return 0;
}

/* Reports s (at) when one of the n structs at items (stride bytes apart,
 * each its name first, NULL when none) is called s already. */
static void S_once(struct ctx *c, const struct dtk_yval *at, const char *what, const char *s,
                   const void *items, size_t n, size_t stride)
{
	size_t i;

	for (i = 0; s && i < n; i++) {
		const char *o = *(const char *const *)((const char *)items + i * stride);
		if (o && !strcmp(o, s))
			S_err(c, at, "%s '%s' is listed twice", what, s);
	}
}

/* Returns the list v (key's value) as an array of items (count in *n), or NULL. */
static const struct dtk_yval *S_items(struct ctx *c, const struct dtk_yval *v, const char *key,
                                      size_t *n)
{
	const struct dtk_yval *l = S_list(c, v, key);
	*n = l ? l->n : 0;
	return l;
}

/* The value of key in mapping m (NULL when absent), and key: the first
 * arguments after the context of the readers above, for a key read by name. */
#define KEY(m, key) dtk_yval_get(m, key), key
#define ALLOC_N(c, ptr, n) ((ptr) = dtk_arena_alloc((c)->arena, ((n) ? (n) : 1) * sizeof(*(ptr))))

/* ---- _domain.yaml ---- */

/* Returns 1 when s is "<domain><sep><rest>", domain a name and rest what
 * valid() takes. */
static int S_qualified(const char *s, int sep, int (*valid)(const char *))
{
	const char *at = strchr(s, sep);
	char dom[256];
	size_t n;

	if (!at || (n = (size_t)(at - s)) == 0 || n >= sizeof(dom))
		return 0;
	memcpy(dom, s, n);
	dom[n] = '\0';
	return dtk_is_name(dom) && valid(at + 1);
}

static int S_is_link(const char *s)
{
	return S_qualified(s, '/', dtk_is_name);
}

static void S_categories(struct ctx *c, const struct dtk_yval *dom)
{
	static const char *const keys[] = {"*name", "*nodes", NULL};
	size_t n, i;
	const struct dtk_yval *l = S_items(c, KEY(dom, "categories"), &n);
	struct dtk_kb *kb = c->kb;

	ALLOC_N(c, kb->categories, n);
	for (i = 0; i < n; i++) {
		const struct dtk_yval *v = l->items[i];
		struct dtk_category *cat = &kb->categories[kb->n_categories];
		if (!S_check_map(c, v, "category", keys, NULL))
			continue;
		cat->name = S_copy(c, KEY(v, "name"));
		S_once(c, dtk_yval_get(v, "name"), "category", cat->name, kb->categories,
		       kb->n_categories, sizeof(*cat));
		cat->n_nodes = S_refs(c, KEY(v, "nodes"), dtk_is_name, "node names", &cat->nodes);
		if (cat->name)
			kb->n_categories++;
	}
}

static void S_hotspots(struct ctx *c, const struct dtk_yval *dom)
{
	static const char *const keys[] = {"id", "*node", "*links", "*note", NULL};
	size_t n, i;
	const struct dtk_yval *l = S_items(c, KEY(dom, "hotspots"), &n);
	struct dtk_kb *kb = c->kb;

	ALLOC_N(c, kb->hotspots, n);
	for (i = 0; i < n; i++) {
		const struct dtk_yval *v = l->items[i], *node, *links;
		struct dtk_hotspot *h = &kb->hotspots[kb->n_hotspots];
		if (!S_check_map(c, v, "hotspot", keys, NULL))
			continue;
		node = S_present(dtk_yval_get(v, "node"));
		h->id = S_name(c, KEY(v, "id"));
		S_once(c, dtk_yval_get(v, "id"), "hotspot id", h->id, kb->hotspots, kb->n_hotspots,
		       sizeof(*h));
		h->node.id = S_name(c, KEY(v, "node"));
		h->n_links =
		        S_refs(c, KEY(v, "links"), S_is_link, "'<domain>/<node>' links", &h->links);
		h->note = S_copy(c, KEY(v, "note"));
		links = S_present(dtk_yval_get(v, "links"));
		if (links && links->kind == DTK_Y_SEQ && links->n == 0)
			S_err(c, links, "'links' must name at least one link");
		if (!h->node.id || !h->n_links || !h->note)
			continue;
		h->node.pos = S_pos(node);
		kb->n_hotspots++;
	}
}

static void S_gaps(struct ctx *c, const struct dtk_yval *dom)
{
	static const char *const keys[] = {"id",      "*text",  "flagged_by",
	                                   "nodes",   "written", "closed",   NULL};
	size_t n, i;
	const struct dtk_yval *l = S_items(c, KEY(dom, "gaps"), &n);
	struct dtk_kb *kb = c->kb;

	ALLOC_N(c, kb->gaps, n);
	for (i = 0; i < n; i++) {
		const struct dtk_yval *v = l->items[i], *fb;
		struct dtk_gap *g = &kb->gaps[kb->n_gaps];
		if (!S_check_map(c, v, "gap", keys, NULL))
			continue;
		memset(g, 0, sizeof(*g)); /* a closed gap read before may have used it */
		g->id = S_name(c, KEY(v, "id"));
		S_once(c, dtk_yval_get(v, "id"), "gap id", g->id, kb->gaps, kb->n_gaps, sizeof(*g));
		g->text = S_copy(c, KEY(v, "text"));
		g->n_nodes = S_refs(c, KEY(v, "nodes"), dtk_is_name, "node names", &g->nodes);
		g->written = S_date(c, KEY(v, "written"));
		if ((fb = S_present(dtk_yval_get(v, "flagged_by"))))
			S_ref(c, fb, S_is_id, "'flagged_by' must be an entry id (<node>-<suffix>)",
			      &g->flagged_by);
		/* a closed gap stays in the file as history, off the page */
		if (g->text && !S_date(c, KEY(v, "closed")))
			kb->n_gaps++;
	}
}

static void S_policy(struct ctx *c, const struct dtk_yval *dom)
{
	static const char *const keys[] = {"stale_after_months", "high_min_verified",
	                                   "index_max_bytes", "index_max_lines", NULL};
	const struct dtk_yval *p = S_present(dtk_yval_get(dom, "policy"));
	long v;

	if (!p || !S_check_map(c, p, "policy", keys, NULL))
		return;
	if (S_int(c, KEY(p, "stale_after_months"), 1, 1200, &v) == 0)
		c->kb->stale_after_months = (int)v;
	if (S_int(c, KEY(p, "high_min_verified"), 1, 100, &v) == 0)
		c->kb->high_min_verified = (int)v;
	if (S_int(c, KEY(p, "index_max_bytes"), 4096, 1L << 24, &v) == 0)
		c->kb->index_max_bytes = v;
	if (S_int(c, KEY(p, "index_max_lines"), 40, 1L << 20, &v) == 0)
		c->kb->index_max_lines = v;
}

void dtk_schema_domain(struct dtk_kb *kb, const struct dtk_yval *root, const char *path,
                       struct dtk_diags *diags)
{
	static const char *const keys[] = {
	        "*domain",  "*title", "*description", "*positioning", "*categories",
	        "hotspots", "gaps",   "policy",       "lang",         NULL};
	struct ctx c = {.kb = kb, .arena = kb->arena, .path = path, .d = diags};

	if (!S_check_map(&c, root, "_domain.yaml", keys, NULL))
		return;
	kb->domain = S_name(&c, KEY(root, "domain"));
	kb->title = S_copy(&c, KEY(root, "title"));
	kb->description = S_copy(&c, KEY(root, "description"));
	kb->positioning = S_copy(&c, KEY(root, "positioning"));
	S_categories(&c, root);
	S_hotspots(&c, root);
	S_gaps(&c, root);
	S_policy(&c, root);
	kb->lang_en = S_enum(&c, KEY(root, "lang"), dtk_lang_names, 2) == 1;
}

/* ---- _sources.yaml ---- */

int dtk_schema_source(const struct dtk_kb *kb, struct dtk_arena *arena, const struct dtk_yval *v,
                      const char *path, unsigned flags, struct dtk_source *s,
                      struct dtk_diags *diags)
{
	struct ctx c = {.kb = (struct dtk_kb *)kb, .arena = arena, .path = path, .d = diags};
	const struct dtk_yval *id, *title, *url;

	memset(s, 0, sizeof(*s));
	if (!S_check_map(&c, v, "source", dtk_source_keys, NULL))
		return 0;
	id = S_present(dtk_yval_get(v, "id"));
	s->id = S_name(&c, KEY(v, "id"));
	title = S_str(&c, KEY(v, "title"));
	url = S_str(&c, KEY(v, "url"));
	if (url && !dtk_is_url(url->str))
		S_err(&c, url, "'url' must be an absolute URL, found '%s'", url->str);
	if (flags & DTK_SCHEMA_LEAN) { /* INDEX.md shows no source: checked only */
		s->title = "";
	} else {
		/* "" when missing or not a string (an error): a source has a title */
		s->title = title ? dtk_arena_strndup(c.arena, title->str, title->len) : "";
		s->url = url ? dtk_arena_strndup(c.arena, url->str, url->len) : NULL;
	}
	s->read = S_date(&c, KEY(v, "read"));
	s->revised = S_date(&c, KEY(v, "revised"));
	if (!s->id)
		return 0;
	s->pos = S_pos(id);
	return 1; /* repeated ids: the loader reports them, sorted */
}

int dtk_schema_sources(struct dtk_kb *kb, const struct dtk_yval *root, const char *path,
                       struct dtk_diags *diags)
{
	struct ctx c = {.kb = kb, .arena = kb->arena, .path = path, .d = diags};
	return S_seq(&c, root, "_sources.yaml must be a list of sources");
}

/* ---- _glossary.yaml ---- */

/* Returns 1 when s is one word: no space, no ASCII punctuation. */
static int S_word(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x80 && !isalnum((unsigned char)*s))
			return 0;
	return 1;
}

/* Returns the item of kb->glossary[0..n) holding term s (ASCII case aside),
 * or NULL. */
static const struct dtk_gloss *S_gloss_has(const struct dtk_kb *kb, size_t n, const char *s)
{
	size_t i, k;
	for (i = 0; i < n; i++)
		for (k = 0; k < kb->glossary[i].n_terms; k++)
			if (!strcasecmp(kb->glossary[i].terms[k], s))
				return &kb->glossary[i];
	return NULL;
}

/* Checks item v's terms into g: a list of two or more words, each in no
 * item before. */
static void S_gloss_terms(struct ctx *c, const struct dtk_yval *v, struct dtk_gloss *g)
{
	const struct dtk_yval *l = S_present(dtk_yval_get(v, "terms"));
	size_t i;

	if (!l)
		return;
	if (l->kind != DTK_Y_SEQ || l->n < 2) {
		S_err(c, l, "'terms' must be a list of two or more words, found %s",
		      l->kind == DTK_Y_SEQ ? "fewer" : dtk_yval_describe(l));
		return;
	}
	ALLOC_N(c, g->terms, l->n);
	for (i = 0; i < l->n; i++) {
		const struct dtk_yval *t = S_str(c, l->items[i], "a term");
		const struct dtk_gloss *had;
		if (!t)
			continue;
		if (!S_word(t->str)) {
			S_err(c, t, "a term is one word (letters and digits, no spaces or "
			            "punctuation), found '%s'", t->str);
			continue;
		}
		had = S_gloss_has(c->kb, c->kb->n_glossary + 1, t->str);
		if (had == g) {
			S_err(c, t, "term '%s' is listed twice", t->str);
			continue;
		}
		if (had) {
			S_err(c, t, "'%s' is a term of glossary item '%s' already", t->str, had->id);
			continue;
		}
		g->terms[g->n_terms++] = dtk_arena_strndup(c->arena, t->str, t->len);
	}
}

void dtk_schema_glossary(struct dtk_kb *kb, struct dtk_arena *arena, const struct dtk_yval *root,
                         const char *path, struct dtk_diags *diags)
{
	static const char *const keys[] = {"*id", "*terms", NULL};
	struct ctx c = {.kb = kb, .arena = arena, .path = path, .d = diags};
	size_t i;

	if (!S_seq(&c, root, "_glossary.yaml must be a list of items (id, terms)"))
		return;
	ALLOC_N(&c, kb->glossary, root->n);
	for (i = 0; i < root->n; i++) {
		const struct dtk_yval *v = root->items[i];
		struct dtk_gloss *g = &kb->glossary[kb->n_glossary];
		memset(g, 0, sizeof(*g));
		if (!S_check_map(&c, v, "glossary item", keys, NULL))
			continue;
		g->id = S_name(&c, KEY(v, "id"));
		S_once(&c, dtk_yval_get(v, "id"), "glossary item", g->id, kb->glossary,
		       kb->n_glossary, sizeof(*g));
		S_gloss_terms(&c, v, g); /* checked also when the id is not */
		if (!g->id)
			continue;
		g->pos = S_pos(dtk_yval_get(v, "id"));
		kb->n_glossary++;
	}
}

/* ---- _crystallizations.yaml ---- */

static int S_bloom_index(const char *s, size_t n)
{
	int i;
	for (i = 0; i < DTK_BLOOM_COUNT; i++)
		if (strlen(dtk_bloom_names[i]) == n && !strncmp(s, dtk_bloom_names[i], n))
			return i;
	return -1;
}

static void S_bloom_changes(struct ctx *c, const struct dtk_yval *rv, struct dtk_record *r)
{
	const struct dtk_yval *m = S_present(dtk_yval_get(rv, "bloom_changes"));
	size_t i;

	if (!m)
		return;
	if (m->kind != DTK_Y_MAP) {
		S_err(c, m, "'bloom_changes' must be a mapping of node: old→new, found %s",
		      dtk_yval_describe(m));
		return;
	}
	ALLOC_N(c, r->bloom_changes, m->n / 2);
	for (i = 0; i + 1 < m->n; i += 2) {
		const struct dtk_yval *k = m->items[i], *v = m->items[i + 1];
		const char *s = v->kind == DTK_Y_SCALAR ? v->str : "", *arrow;
		struct dtk_bloom_change *bc = &r->bloom_changes[r->n_bloom_changes];
		size_t alen = 3;
		int from, to;

		if (!S_name_of(c, k, "a bloom_changes key"))
			continue;
		arrow = strstr(s, "\xE2\x86\x92"); /* → */
		if (!arrow && (arrow = strstr(s, "->")))
			alen = 2;
		from = arrow ? S_bloom_index(s, (size_t)(arrow - s)) : -1;
		to = arrow ? S_bloom_index(arrow + alen, strlen(arrow + alen)) : -1;
		if (from < 0 || to < 0 || from == to) {
			char found[96];
			S_err(c, v,
			      "bloom change must read '<old>→<new>' with two different "
			      "bloom levels, found %s",
			      S_found(found, sizeof(found), v));
			continue;
		}
		bc->node = dtk_arena_strdup(c->arena, k->str);
		bc->from = (enum dtk_bloom)from;
		bc->to = (enum dtk_bloom)to;
		r->n_bloom_changes++;
	}
}

/* Reads a review mapping v (keys: pairs unless a review file, cross_pairs,
 * verdict, note) into r. */
static void S_review_map(struct ctx *c, const struct dtk_yval *v, struct dtk_record *r,
                         const char *what, const char *const *keys)
{
	const struct dtk_yval *pairs, *cross;
	long long total = 0;
	size_t i;

	if (!S_check_map(c, v, what, keys, NULL))
		return;
	r->has_review = 1;
	r->review_verdict = S_copy(c, KEY(v, "verdict"));
	r->review_note = S_copy(c, KEY(v, "note"));
	pairs = S_present(dtk_yval_get(v, "pairs"));
	if (pairs && pairs->kind != DTK_Y_MAP) {
		S_err(c, pairs, "'pairs' must be a mapping of node: count, found %s",
		      dtk_yval_describe(pairs));
	} else if (pairs) {
		ALLOC_N(c, r->pairs, pairs->n / 2);
		for (i = 0; i + 1 < pairs->n; i += 2) {
			struct dtk_pair_count *pc = &r->pairs[r->n_pairs];
			const char *node = S_name_of(c, pairs->items[i], "a pairs key");
			if (!node || S_int(c, KEY(pairs, node), 0, DTK_MAX_COUNT, &pc->count) < 0)
				continue;
			pc->node = node;
			r->n_pairs++;
			total += pc->count; /* each at most DTK_MAX_COUNT: cannot overflow */
		}
		if (total > DTK_MAX_COUNT)
			S_err(c, pairs,
			      "the pairs add up to %lld, more than %ld (the largest count)", total,
			      DTK_MAX_COUNT);
	}
	cross = S_items(c, KEY(v, "cross_pairs"), &i);
	ALLOC_N(c, r->cross_pairs, i);
	for (i = 0; cross && i < cross->n; i++) {
		const struct dtk_yval *p = cross->items[i];
		if (p->kind != DTK_Y_SCALAR || p->type == DTK_YT_NULL) {
			S_err(c, p, "'cross_pairs' items must be strings, found %s",
			      dtk_yval_describe(p));
			continue;
		}
		r->cross_pairs[r->n_cross_pairs++] = dtk_arena_strndup(c->arena, p->str, p->len);
	}
}

static void S_review(struct ctx *c, const struct dtk_yval *rv, struct dtk_record *r)
{
	/* no verdict: what was compared, none recorded (docs/schema.md) */
	static const char *const keys[] = {"*pairs", "cross_pairs", "verdict", "note", NULL};
	const struct dtk_yval *v = S_present(dtk_yval_get(rv, "review"));
	if (v)
		S_review_map(c, v, r, "review", keys);
}

void dtk_schema_review_file(struct dtk_kb *kb, const struct dtk_yval *root, const char *path,
                            struct dtk_record *r, struct dtk_diags *diags)
{
	static const char *const keys[] = {"cross_pairs", "*verdict", "note", NULL};
	struct ctx c = {.kb = kb, .arena = kb->arena, .path = path, .d = diags};
	S_review_map(&c, root, r, "review file", keys);
}

/* Reads a record's events (a mapping of event kind: list of strings). */
static void S_events(struct ctx *c, const struct dtk_yval *rv, struct dtk_record *r)
{
	const struct dtk_yval *v = S_present(dtk_yval_get(rv, "events")), *l;
	size_t k, i, n;

	if (!dtk_yval_get(rv, "events"))
		return;
	r->has_events = 1;
	if (!v || !S_check_map(c, v, "events", dtk_event_names, NULL))
		return;
	for (k = 0; k < DTK_EV_COUNT; k++) {
		l = S_items(c, KEY(v, dtk_event_names[k]), &n);
		ALLOC_N(c, r->events[k], n);
		for (i = 0; l && i < n; i++) {
			const struct dtk_yval *t = S_str(c, l->items[i], "an event");
			if (t)
				r->events[k][r->n_events[k]++] =
				        dtk_arena_strndup(c->arena, t->str, t->len);
		}
	}
}

static void S_eval(struct ctx *c, const struct dtk_yval *rv, struct dtk_record *r)
{
	static const char *const keys[] = {"*scenario", "*verdict", NULL};
	const struct dtk_yval *v = S_present(dtk_yval_get(rv, "eval"));

	if (!v || !S_check_map(c, v, "eval", keys, NULL))
		return;
	r->eval_scenario = S_copy(c, KEY(v, "scenario"));
	r->eval_verdict = S_copy(c, KEY(v, "verdict"));
}

/* Checks a record against the one before it (prev may be NULL). */
static void S_record_order(struct ctx *c, const struct dtk_yval *v, const struct dtk_record *r,
                           const struct dtk_record *prev)
{
	char a[11], b[11];

	if (prev && r->date && prev->date && r->date <= prev->date)
		S_err(c, dtk_yval_get(v, "date"),
		      "records must be in date order: %s is not after the previous run %s",
		      dtk_date_format(a, r->date), dtk_date_format(b, prev->date));
	if (prev && prev->date && r->since && r->since != prev->date)
		S_err(c, dtk_yval_get(v, "since"), "'since' must be the previous run's date %s",
		      dtk_date_format(a, prev->date));
	if (prev && prev->date && !dtk_yval_get(v, "since"))
		S_err(c, v, "record is missing 'since' (the previous run's date %s)",
		      dtk_date_format(a, prev->date));
	if (r->since && r->date && r->since >= r->date)
		S_err(c, dtk_yval_get(v, "since"), "'since' must be before 'date'");
	if (r->earliest && r->date && r->earliest > r->date)
		S_err(c, dtk_yval_get(v, "earliest"), "'earliest' must not be after 'date'");
}

void dtk_schema_records(struct dtk_kb *kb, struct dtk_arena *arena, const struct dtk_yval *root,
                        const char *path, struct dtk_diags *diags)
{
	static const char *const keys[] = {"*date",
	                                   "since",
	                                   "*new_entries",
	                                   "*high_changes",
	                                   "*stale",
	                                   "*earliest",
	                                   "bloom_changes",
	                                   "*stance_rewrites",
	                                   "*contradictions_new",
	                                   "*eval",
	                                   "review",
	                                   "events",
	                                   NULL};
	static const char *const counts[] = {"new_entries", "high_changes", "stale",
	                                     "stance_rewrites", "contradictions_new"};
	struct ctx c = {.kb = kb, .arena = arena, .path = path, .d = diags};
	size_t i, k;

	if (!S_seq(&c, root, "_crystallizations.yaml must be a list of records"))
		return;
	ALLOC_N(&c, kb->records, root->n);
	for (i = 0; i < root->n; i++) {
		const struct dtk_yval *v = root->items[i];
		struct dtk_record *r = &kb->records[kb->n_records];
		long *fields[] = {&r->new_entries, &r->high_changes, &r->stale, &r->stance_rewrites,
		                  &r->contradictions_new};
		if (!S_check_map(&c, v, "record", keys, NULL))
			continue;
		r->pos = S_pos(v);
		r->date = S_date(&c, KEY(v, "date"));
		r->since = S_date(&c, KEY(v, "since"));
		r->earliest = S_date(&c, KEY(v, "earliest"));
		for (k = 0; k < sizeof(counts) / sizeof(*counts); k++)
			S_int(&c, KEY(v, counts[k]), 0, DTK_MAX_COUNT, fields[k]);
		S_bloom_changes(&c, v, r);
		S_eval(&c, v, r);
		S_review(&c, v, r);
		S_events(&c, v, r);
		S_record_order(&c, v, r, kb->n_records ? &kb->records[kb->n_records - 1] : NULL);
		kb->n_records++;
	}
}

/* ---- node files ---- */

/* Returns 1 for a local entry id or a cross-domain "<domain>:<entry id>". */
static int S_is_entry_ref(const char *s)
{
	return strchr(s, ':') ? S_qualified(s, ':', S_is_id) : S_is_id(s);
}

/* The keys of an entry, E_<NAME>, in the order of dtk_entry_keys: made
 * from the same table (model.h). */
#define S_KEY(name, key) E_##name,
enum { DTK_ENTRY_KEY_TABLE(S_KEY) E_KEYS };

static void S_contradicts(struct ctx *c, const struct dtk_yval *cv, struct dtk_entry *e)
{
	static const char *const keys[] = {"*id", "*status", "note", "opened", "resolved", NULL};
	size_t n, i;
	const struct dtk_yval *l = S_items(c, cv, "contradicts", &n);

	/* most entries contradict nothing: no block for them (a block of one,
	 * as ALLOC_N gives, took 3 MB of 100,000 entries) */
	e->contradicts = n ? dtk_arena_alloc(c->arena, n * sizeof(*e->contradicts)) : NULL;
	for (i = 0; i < n; i++) {
		const struct dtk_yval *v = l->items[i], *id;
		struct dtk_contradiction *k = &e->contradicts[e->n_contradicts];
		int status;
		if (!S_check_map(c, v, "contradiction", keys, NULL))
			continue;
		id = S_present(dtk_yval_get(v, "id"));
		status = S_enum(c, KEY(v, "status"), S_status_names, 2);
		k->note = (c->flags & DTK_SCHEMA_LEAN) && status == 0 && S_str(c, KEY(v, "note"))
		                  ? NULL /* checked; a resolved one's note is not shown */
		                  : S_copy(c, KEY(v, "note"));
		if (!id || status < 0 ||
		    !S_ref(c, id, S_is_entry_ref, "contradiction 'id' must be an entry id",
		           &k->ref))
			continue;
		k->open = status;
		k->opened = S_date(c, KEY(v, "opened"));
		k->resolved = S_date(c, KEY(v, "resolved"));
		e->n_contradicts++;
	}
}

/* Reads the references of the entry whose values are f. */
static void S_entry_refs(struct ctx *c, const struct dtk_yval *const *f, struct dtk_entry *e)
{
	size_t i;

	e->n_verified_by = S_refs(c, f[E_VERIFIED_BY], "verified_by", dtk_is_name, "source ids",
	                          &e->verified_by);
	for (i = 0; e->source.id && i < e->n_verified_by; i++)
		if (!strcmp(e->verified_by[i].id, e->source.id))
			dtk_diags_add(c->d, c->path, e->verified_by[i].pos.line,
			              e->verified_by[i].pos.col,
			              "'verified_by' names the entry's own source '%s'; "
			              "verification must be independent",
			              e->source.id);
	e->n_relates = S_refs(c, f[E_RELATES], "relates", S_is_entry_ref, "entry ids", &e->relates);
	S_contradicts(c, f[E_CONTRADICTS], e);
	for (i = 0; e->id && i < e->n_relates; i++)
		if (!strcmp(e->relates[i].id, e->id))
			dtk_diags_add(c->d, c->path, e->relates[i].pos.line, e->relates[i].pos.col,
			              "entry '%s' relates to itself", e->id);
	for (i = 0; e->id && i < e->n_contradicts; i++)
		if (!strcmp(e->contradicts[i].ref.id, e->id))
			dtk_diags_add(c->d, c->path, e->contradicts[i].ref.pos.line,
			              e->contradicts[i].ref.pos.col,
			              "entry '%s' contradicts itself", e->id);
}

static void S_entry_id(struct ctx *c, const struct dtk_yval *id, struct dtk_entry *e,
                       const char *node)
{
	char found[96];
	size_t plen;

	if (!(id = S_present(id)))
		return;
	if (!S_nameish(id) || !dtk_entry_id_split(id->str, &plen) || strlen(node) != plen ||
	    strncmp(id->str, node, plen)) {
		S_err(c, id,
		      "entry id must be '%s-' and three to nine digits or a fresh suffix "
		      "(docs/schema.md), found %s",
		      node, S_found(found, sizeof(found), id));
		return;
	}
	e->id = dtk_arena_strndup(c->arena, id->str, id->len);
}

/* Reads the keys of the entry's life after it was added (revised,
 * superseded_by with superseded, retracted with retracted_reason): each pair
 * together or not at all, not both, none before created. */
static void S_entry_life(struct ctx *c, const struct dtk_yval *v, const struct dtk_yval *const *f,
                         struct dtk_entry *e)
{
	const struct dtk_yval *by = S_present(f[E_SUPERSEDED_BY]), *why;
	static const int keys[] = {E_REVIEWED, E_REVISED, E_SUPERSEDED, E_RETRACTED};
	const dtk_date *dates[] = {&e->reviewed, &e->revised, &e->superseded, &e->retracted};
	char a[11], b[11];
	size_t i;

	e->revised = S_date(c, f[E_REVISED], "revised");
	e->superseded = S_date(c, f[E_SUPERSEDED], "superseded");
	e->retracted = S_date(c, f[E_RETRACTED], "retracted");
	why = S_str(c, f[E_RETRACTED_REASON], "retracted_reason");
	for (i = 0; i < 4; i++) /* optional keys: their names have no '*' */
		if (e->created && *dates[i] && *dates[i] < e->created)
			S_err(c, f[keys[i]], "'%s' %s is before 'created' %s",
			      dtk_entry_keys[keys[i]], dtk_date_format(a, *dates[i]),
			      dtk_date_format(b, e->created));
	if (by && e->id && S_nameish(by) && !strcmp(by->str, e->id))
		S_err(c, by, "entry '%s' is superseded by itself", e->id);
	else if (by)
		S_ref(c, by, S_is_id, "'superseded_by' must be an entry id of this domain",
		      &e->superseded_by);
	if (!by != !S_present(f[E_SUPERSEDED]))
		S_err(c, v, "'superseded_by' and 'superseded' (the date) go together");
	if (!S_present(f[E_RETRACTED_REASON]) != !S_present(f[E_RETRACTED]))
		S_err(c, v, "'retracted' (the date) and 'retracted_reason' go together");
	if (by && S_present(f[E_RETRACTED]))
		S_err(c, v, "an entry is superseded or retracted, not both");
	if (why)
		e->retracted_reason = (c->flags & DTK_SCHEMA_LEAN)
		                              ? ""
		                              : dtk_arena_strndup(c->arena, why->str, why->len);
}

static void S_entry(struct ctx *c, const struct dtk_yval *v, struct dtk_entry *e, const char *node)
{
	const struct dtk_yval *f[E_KEYS], *conf, *src, *closed, *title, *claim;
	int k, was;

	/* e may hold an entry dropped for a bad id: start afresh */
	memset(e, 0, sizeof(*e));
	e->pos = S_pos(v);
	if (!S_check_map(c, v, "entry", dtk_entry_keys, f))
		return;
	S_entry_id(c, f[E_ID], e, node);
	title = S_str(c, f[E_TITLE], "title");
	claim = S_str(c, f[E_CLAIM], "claim");
	if (c->flags & DTK_SCHEMA_LEAN)
		e->claim = claim ? "" : NULL; /* checked, not kept */
	else if (c->flags & DTK_SCHEMA_BORROW)
		e->claim = claim ? claim->str : NULL;
	else
		e->claim = claim ? dtk_arena_strndup(c->arena, claim->str, claim->len) : NULL;
	k = S_enum(c, f[E_CONFIDENCE], "confidence", dtk_confidence_names, DTK_CONF_COUNT);
	e->confidence = k < 0 ? DTK_CONF_LOW : (enum dtk_confidence)k;
	conf = f[E_CONFIDENCE];
	src = S_present(f[E_SOURCE]);
	e->source.id = !src                                      ? NULL
	               : S_nameish(src) && dtk_is_name(src->str) ? S_id(c, src, "source")
	                                                         : S_name_of(c, src, "source");
	if (src)
		e->source.pos = S_pos(src);
	e->created = S_date(c, f[E_CREATED], "created");
	e->reviewed = S_date(c, f[E_REVIEWED], "reviewed");
	e->confidence_changed = S_date(c, f[E_CONFIDENCE_CHANGED], "confidence_changed");
	was = S_enum(c, f[E_CONFIDENCE_WAS], "confidence_was", dtk_confidence_names,
	             DTK_CONF_COUNT);
	e->confidence_was = was < 0 ? e->confidence : (unsigned char)was;
	if (!e->confidence_changed != !S_present(f[E_CONFIDENCE_WAS]))
		S_err(c, v, "'confidence_changed' (the date) and 'confidence_was' go together");
	S_int(c, f[E_USED], "used", 0, DTK_MAX_COUNT, &e->used);
	S_int(c, f[E_CITED], "cited", 0, DTK_MAX_COUNT, &e->cited);
	closed = S_present(f[E_CLOSED]);
	if (closed && (closed->kind != DTK_Y_SCALAR || closed->type != DTK_YT_BOOL))
		S_err(c, closed, "'closed' must be true or false, found %s",
		      dtk_yval_describe(closed));
	else if (closed)
		e->closed = closed->str[0] == 't' || closed->str[0] == 'T';
	S_entry_refs(c, f, e);
	S_entry_life(c, v, f, e);
	/* lean: INDEX.md shows the titles of candidates only */
	if (title && (c->flags & DTK_SCHEMA_BORROW))
		e->title = title->str;
	else if (title && (!(c->flags & DTK_SCHEMA_LEAN) || dtk_entry_is_candidate(c->kb, e)))
		e->title = dtk_arena_strndup(c->arena, title->str, title->len);
	else if (title)
		e->title = "";
	if (k == DTK_CONF_HIGH && !dtk_entry_verified_for_high(c->kb, e))
		S_err(c, conf,
		      "confidence high needs at least %d distinct verified_by sources; "
		      "this entry has %u",
		      c->kb->high_min_verified, e->n_verified_by);
	if (c->flags & DTK_SCHEMA_LEAN)
		e->verified_by = NULL; /* in scratch: counted and checked, not kept */
}

/* Orders entries by id, then by place (the first written comes first). */
static int S_entry_id_cmp(const void *pa, const void *pb)
{
	const struct dtk_entry *a = *(const struct dtk_entry *const *)pa;
	const struct dtk_entry *b = *(const struct dtk_entry *const *)pb;
	int c = strcmp(a->id, b->id);
	if (c)
		return c;
	if (a->pos.line != b->pos.line)
		return a->pos.line < b->pos.line ? -1 : 1;
	return (a->pos.col > b->pos.col) - (a->pos.col < b->pos.col);
}

/* Fills node->by_id and reports repeated ids. An id names its node, so an
 * id can repeat only within one file. */
static void S_index_entries(struct ctx *c, struct dtk_node *node)
{
	struct dtk_entry **v = dtk_arena_alloc(c->arena, (node->n_entries + 1) * sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < node->n_entries; i++)
		v[i] = &node->entries[i];
	qsort(v, node->n_entries, sizeof(*v), S_entry_id_cmp);
	for (i = 0; i < node->n_entries; i++) {
		if (n && !strcmp(v[n - 1]->id, v[i]->id)) {
			dtk_diags_add(c->d, c->path, v[i]->pos.line, v[i]->pos.col,
			              "duplicate entry id '%s' (first at %s:%d)", v[i]->id, c->path,
			              v[n - 1]->pos.line);
			continue;
		}
		v[n++] = v[i];
	}
	node->by_id = v;
	node->n_by_id = n;
}

/* Lean: drops the relations that name an entry of node (they are valid) and
 * copies the others, borrowed from the tree, into the arena for the loader
 * to look up once every node is read. */
static void S_lean_relates(struct ctx *c, struct dtk_node *node)
{
	size_t i, k, n;

	for (i = 0; i < node->n_entries; i++) {
		struct dtk_entry *e = &node->entries[i];
		struct dtk_ref *kept = NULL;
		/* kept: those naming a retired entry too (check warns of them) */
		for (k = 0, n = 0; k < e->n_relates; k++) {
			const struct dtk_entry *o = dtk_node_entry(node, e->relates[k].id);
			if (!o || dtk_entry_retired(o))
				e->relates[n++] = e->relates[k];
		}
		if (n)
			kept = dtk_arena_alloc(c->arena, n * sizeof(*kept));
		for (k = 0; k < n; k++) {
			kept[k].id = dtk_arena_strdup(c->arena, e->relates[k].id);
			kept[k].pos = e->relates[k].pos;
		}
		e->relates = kept;
		e->n_relates = (unsigned)n;
	}
}

/* Returns 1 when e names other entries (relates, contradicts, superseded_by). */
static int S_links(const struct dtk_entry *e)
{
	return e->n_relates || e->n_contradicts || e->superseded_by.id;
}

/* Fills node->linking: the loader then checks references to other entries
 * without a walk over every entry of the base. */
static void S_index_linking(struct ctx *c, struct dtk_node *node)
{
	size_t i, n = 0;

	for (i = 0; i < node->n_entries; i++)
		n += S_links(&node->entries[i]);
	node->linking = dtk_arena_alloc(c->arena, (n ? n : 1) * sizeof(*node->linking));
	for (i = 0; i < node->n_entries; i++)
		if (S_links(&node->entries[i]))
			node->linking[node->n_linking++] = &node->entries[i];
}

int dtk_schema_index_node(struct dtk_arena *arena, struct dtk_node *node)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct ctx c = {.arena = arena, .path = node->path, .d = &d};
	int rc;

	S_index_entries(&c, node);
	S_index_linking(&c, node);
	rc = d.n ? -1 : 0;
	dtk_diags_release(&d);
	return rc;
}

struct dtk_node *dtk_schema_node(const struct dtk_kb *kb, struct dtk_arena *arena,
                                 struct dtk_arena *scratch, const struct dtk_yval *root,
                                 const char *path, const char *name, unsigned flags,
                                 unsigned char *named, struct dtk_diags *diags)
{
	struct ctx c = {.kb = (struct dtk_kb *)kb,
	                .arena = arena,
	                .scratch = scratch,
	                .path = path,
	                .d = diags,
	                .flags = flags,
	                .named = named};
	const struct dtk_yval *nv, *list;
	struct dtk_node *node;
	size_t i, n;
	int bloom;

	if (!S_check_map(&c, root, "node file", dtk_node_keys, NULL))
		return NULL;
	node = dtk_arena_alloc(c.arena, sizeof(*node));
	node->name = dtk_arena_strdup(c.arena, name);
	node->path = dtk_arena_strdup(c.arena, path);
	node->category = -1;
	node->name_pos.line = node->name_pos.col = 1;
	nv = S_present(dtk_yval_get(root, "node"));
	if (nv) {
		node->name_pos = S_pos(nv);
		char found[96];
		if (nv->kind != DTK_Y_SCALAR || strcmp(nv->str, name))
			S_err(&c, nv, "'node' must be the file's name '%s', found %s", name,
			      S_found(found, sizeof(found), nv));
	}
	bloom = S_enum(&c, KEY(root, "bloom"), dtk_bloom_names, DTK_BLOOM_COUNT);
	node->bloom = bloom < 0 ? DTK_BLOOM_REMEMBER : (enum dtk_bloom)bloom;
	node->stance = S_copy(&c, KEY(root, "stance"));
	list = S_items(&c, KEY(root, "insights"), &n);
	ALLOC_N(&c, node->entries, n);
	for (i = 0; list && i < n; i++) {
		struct dtk_entry *e = &node->entries[node->n_entries];
		S_entry(&c, list->items[i], e, name);
		e->node = node;
		if (e->id)
			node->n_entries++;
	}
	S_index_entries(&c, node);
	if (flags & DTK_SCHEMA_LEAN)
		S_lean_relates(&c, node);
	S_index_linking(&c, node);
	return node;
}

/* ---- insights/_uses/ ---- */

/* Appends to *v (n, cap: dtk_grow) the uses of root, record rec. */
static void S_record(struct ctx *c, const struct dtk_yval *root, const char *rec,
                     struct dtk_use **v, size_t *n, size_t *cap)
{
	static const char *const keys[] = {"used", "cited", NULL};
	const struct dtk_yval *lists[2] = {NULL, NULL};
	size_t i, k, items = 0;

	if (!S_check_map(c, root, "a record of uses", keys, lists))
		return;
	for (k = 0; k < 2; k++)
		if ((lists[k] = S_list(c, lists[k], keys[k])))
			items += lists[k]->n;
	if (!items)
		S_err(c, root, "a record of uses names no entry ('used' or 'cited': a list of ids)");
	for (k = 0; k < 2; k++)
		for (i = 0; lists[k] && i < lists[k]->n; i++) {
			const struct dtk_yval *u = lists[k]->items[i];
			if (!S_nameish(u) || !S_is_id(u->str)) {
				char buf[64];
				S_err(c, u, "'%s' must list entry ids (<node>-<suffix>), found %s",
				      keys[k], S_found(buf, sizeof(buf), u));
				continue;
			}
			dtk_grow((void **)v, cap, *n + 1, sizeof(**v));
			(*v)[(*n)++] = (struct dtk_use){dtk_arena_strndup(c->arena, u->str, u->len),
			                                rec, S_pos(u), (int)k};
		}
}

size_t dtk_schema_uses(struct dtk_arena *arena, const struct dtk_yval *root, const char *path,
                       struct dtk_use **out, struct dtk_diags *diags)
{
	struct ctx c = {.arena = arena, .path = path, .d = diags};
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct dtk_use *v = NULL;
	size_t i, n = 0, cap = 0;

	*out = NULL;
	if (strncmp(name, DTK_USES_FOLD, strlen(DTK_USES_FOLD))) {
		S_record(&c, root, dtk_arena_strndup(arena, name, strlen(name) - 5), &v, &n, &cap);
	} else if (root->kind != DTK_Y_MAP) {
		S_err(&c, root, "a fold of records of uses must be a mapping of record names to "
		                "records, found %s", dtk_yval_describe(root));
	} else {
		for (i = 0; i + 1 < root->n; i += 2) {
			const struct dtk_yval *k = root->items[i];
			if (S_nameish(k))
				S_record(&c, root->items[i + 1],
				         dtk_arena_strndup(arena, k->str, k->len), &v, &n, &cap);
			else
				S_err(&c, k, "a fold of records of uses names its records by a string");
		}
	}
	if (n) {
		ALLOC_N(&c, *out, n);
		memcpy(*out, v, n * sizeof(*v));
	}
	free(v);
	return n;
}
