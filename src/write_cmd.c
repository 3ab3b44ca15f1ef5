/* write_cmd.c: what the write commands share around the transaction of
 * write.c: their options, the refusals of unknown ids, their output, and
 * the commands made of one edit per id (use, cite). */
#include "dtk/write.h"

#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/links.h"
#include "dtk/view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct dtk_opt dtk_write_opts[] = {DTK_WRITE_OPTS, {0}};

/* ---- command-line values that name nothing ---- */

/* Returns the entry (sources: the source) of the base nearest id, when it
 * loads and one is near (malloc'd), else NULL. */
static char *S_nearest(struct dtk_write *w, const char *id, int sources)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	const char **v = NULL, *hint = NULL;
	char *out;
	size_t n = 0, i, k;

	if (dtk_kb_load(&kb,
	                &(struct dtk_kb_load_opts){.root = w->ctx->root,
	                                           .what = DTK_KB_ALL | DTK_KB_LEAN},
	                &diags) == 0) {
		if (sources) {
			v = dtk_xcalloc(kb->n_sources + 1, sizeof(*v));
			for (i = 0; i < kb->n_sources; i++)
				v[n++] = kb->sources[i].id;
		} else {
			for (i = 0; i < kb->n_nodes; i++)
				n += kb->nodes[i]->n_entries;
			v = dtk_xcalloc(n + 1, sizeof(*v));
			for (n = 0, i = 0; i < kb->n_nodes; i++)
				for (k = 0; k < kb->nodes[i]->n_entries; k++)
					v[n++] = kb->nodes[i]->entries[k].id;
		}
		hint = dtk_suggest(id, v, n);
	}
	out = hint ? dtk_xstrdup(hint) : NULL;
	free(v);
	dtk_kb_free(kb);
	dtk_diags_release(&diags);
	return out;
}

/* Prints the error about id, which names no entry (sources: no source),
 * with the nearest one of the base, when it loads. */
static void S_unknown(struct dtk_write *w, const char *what, const char *id, int sources)
{
	char *hint = S_nearest(w, id, sources);

	fprintf(w->ctx->err, "dtk %s: error: %s '%s': no such %s", w->cmd, what, dtk_esc(id),
	        sources ? "source (add it with 'dtk add-source')" : "entry");
	if (hint)
		fprintf(w->ctx->err, "; did you mean '%s'?", hint);
	fputc('\n', w->ctx->err);
	free(hint);
}

int dtk_write_unknown(struct dtk_write *w, const char *what, const char *const *ids, size_t n,
                      int sources)
{
	const struct dtk_yval *e;
	struct dtk_wfile *f;
	size_t i;
	int bad = 0, k;

	for (i = 0; i < n; i++) {
		if (!sources && strchr(ids[i], ':')) /* another domain's */
			continue;
		k = sources ? dtk_write_source_known(w, ids[i]) : dtk_write_find(w, ids[i], &e, &f);
		if (k < 0)
			return -1;
		if (!k) {
			S_unknown(w, what, ids[i], sources);
			bad++;
		}
	}
	return bad;
}

const char *dtk_write_retired(const struct dtk_yval *e, char *buf, size_t size)
{
	const char *by = dtk_yval_str(e, "superseded_by");
	if (by)
		snprintf(buf, size, "superseded by %s", by);
	else if (dtk_yval_str(e, "retracted"))
		snprintf(buf, size, "retracted");
	else
		return NULL;
	return buf;
}

int dtk_write_retired_links(struct dtk_write *w, const char *what, const char *const *ids, size_t n)
{
	struct dtk_wfile *f;
	const struct dtk_yval *e;
	const char *by;
	char why[300];
	int refused = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (dtk_write_find(w, ids[i], &e, &f) <= 0 ||
		    !dtk_write_retired(e, why, sizeof(why)))
			continue;
		by = dtk_yval_str(e, "superseded_by");
		dtk_write_refuse(w, "%s '%s' is %s: a link to knowledge withdrawn%s%s", what,
		                 ids[i], why, by ? "; link to " : "", by ? by : "");
		refused++;
	}
	return refused;
}

int dtk_write_known_pair(struct dtk_write *w, const char *what_id, const char *id, const char *what,
                         const char *other, int source)
{
	int a = dtk_write_unknown(w, what_id, &id, 1, 0), b;

	if (a < 0)
		return DTK_EXIT_INVALID;
	b = dtk_write_unknown(w, what, &other, 1, source);
	if (b < 0)
		return DTK_EXIT_INVALID;
	return a + b ? dtk_cmd_usage_see(w->ctx) : DTK_EXIT_OK;
}

void dtk_write_print_entries(struct dtk_write *w, const char *const *ids, size_t n,
                             const char *lines)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	size_t i;
	int tight;

	if (w->opts.dry_run)
		return;
	if (!w->opts.json) {
		if (lines)
			fputs(lines, w->ctx->out);
		return;
	}
	dtk_json_init(&j, &b);
	tight = j.compact == 2; /* dtk mcp's: one object, no backlinks */
	if (tight) {
		dtk_json_object(&j);
		dtk_json_key(&j, "entries");
	}
	dtk_json_array(&j);
	for (i = 0; i < n; i++) {
		const struct dtk_entry *e = dtk_kb_entry(w->kb, ids[i]);
		struct dtk_link *links = NULL;
		size_t nl;
		if (!e)
			continue;
		if (tight) {
			dtk_view_entry_json(&j, w->kb, e);
			continue;
		}
		nl = dtk_links_to(&links, w->kb, e->id, NULL);
		dtk_view_entry_json_links(&j, w->kb, e, links, nl);
		free(links);
	}
	dtk_json_end(&j, ']');
	if (tight)
		dtk_json_end(&j, '}');
	dtk_write_put_json(w, &b);
}

/* Prints an error for each of ids[0..n) that is no entry id or names no
 * entry, named by the argument it came from, then one "see" line. Returns
 * DTK_EXIT_OK when there is none, else DTK_EXIT_INVALID. */
static int S_bad_ids(struct dtk_write *w, const char **ids, size_t n)
{
	const char **ok = dtk_xcalloc(n + 1, sizeof(*ok));
	char *hint;
	size_t i, m = 0, plen;
	int bad = 0, k;

	for (i = 0; i < n; i++) {
		if (dtk_entry_id_split(ids[i], &plen)) {
			ok[m++] = ids[i];
			continue;
		}
		hint = S_nearest(w, ids[i], 0); /* "alpha-00": one character short */
		fprintf(w->ctx->err,
		        "dtk %s: error: <entry-id> '%s' is not an entry id "
		        "(<node>-<suffix>)%s%s%s\n",
		        w->cmd, dtk_esc(ids[i]), hint ? "; did you mean '" : "", hint ? hint : "",
		        hint ? "'?" : "");
		free(hint);
		bad++;
	}
	k = dtk_write_unknown(w, "<entry-id>", ok, m, 0);
	free(ok);
	if (k < 0)
		return DTK_EXIT_INVALID;
	return bad + k ? dtk_cmd_usage_see(w->ctx) : DTK_EXIT_OK;
}

int dtk_write_entries(struct dtk_ctx *ctx, int argc, char **argv, dtk_write_edit_fn fn, void *arg)
{
	struct dtk_write w;
	int rc;

	dtk_write_init(&w, ctx);
	rc = dtk_write_each(&w, argc, argv, 0, fn, arg);
	dtk_write_release(&w);
	return rc;
}

int dtk_write_pair(struct dtk_ctx *ctx, const char *what_id, const char *what, int retired,
                   dtk_write_edit_fn fn, void *arg)
{
	char **argv = ctx->args->argv;
	struct dtk_write w;
	int rc;

	dtk_write_init(&w, ctx);
	rc = dtk_write_known_pair(&w, what_id, argv[0], what, argv[1], 0);
	if (rc == DTK_EXIT_OK && retired &&
	    dtk_write_retired_links(&w, what, (const char *const *)&argv[1], 1))
		rc = DTK_EXIT_INVALID;
	if (rc == DTK_EXIT_OK)
		rc = dtk_write_each(&w, 1, argv, 0, fn, arg);
	dtk_write_release(&w);
	return rc;
}

int dtk_write_each(struct dtk_write *w, int argc, char **argv, int first, dtk_write_edit_fn fn,
                   void *arg)
{
	struct dtk_buf lines = DTK_BUF_INIT;
	const char **ids = dtk_xcalloc((size_t)(argc - first) + 1, sizeof(*ids));
	size_t n = 0, i, times;
	int k, rc = DTK_EXIT_OK;

	for (k = first; k < argc; k++) {
		for (i = 0; i < n && strcmp(ids[i], argv[k]); i++)
			;
		if (i == n)
			ids[n++] = argv[k];
	}
	if ((rc = S_bad_ids(w, ids, n)) != DTK_EXIT_OK)
		goto done;
	/* every entry refused, not the first only: nothing is written then */
	for (i = 0; i < n; i++) {
		struct dtk_wfile *f = NULL;
		const struct dtk_yval *e = dtk_write_entry(w, ids[i], &f);
		if (!e) {
			rc = DTK_EXIT_INVALID;
			break;
		}
		for (times = 0, k = first; k < argc; k++)
			times += !strcmp(argv[k], ids[i]);
		if ((k = fn(w, f, e, ids[i], times, &lines, arg)) != DTK_EXIT_OK &&
		    rc == DTK_EXIT_OK)
			rc = k;
	}
	if (rc == DTK_EXIT_OK)
		rc = dtk_write_commit(w);
	if (rc == DTK_EXIT_OK || (rc == DTK_EXIT_DRIFT && !w->opts.dry_run))
		dtk_write_print_entries(w, ids, n, dtk_buf_cstr(&lines));
done:
	dtk_buf_release(&lines);
	free(ids);
	return rc;
}

/* ---- dtk use and dtk cite ---- */

/* What dtk use and dtk cite keep of each entry they count, in the order
 * dtk_write_each meets them: its count in the node file. */
struct counter {
	const char *key;
	const char **ids;
	long *base;
	size_t n;
};

/* Takes the count of key (arg: a struct counter) in entry e, refusing a
 * value that is not one. */
static int S_bump(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                  const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	struct counter *c = arg;
	const char *key = c->key;
	const struct dtk_yval *v = dtk_yval_get(e, key);
	char *end = NULL;
	long n = 0;

	(void)lines;
	/* only a count is counted on: any other value (0x10, "3", 10000000000)
	 * is refused as it is, not read as something else */
	if (v && !(v->kind == DTK_Y_SCALAR && v->style == DTK_YS_PLAIN &&
	           (v->type == DTK_YT_NULL || !*v->str))) {
		int scalar = v->kind == DTK_Y_SCALAR;
		errno = 0;
		if (scalar && v->type == DTK_YT_INT && v->style == DTK_YS_PLAIN)
			n = strtol(v->str, &end, 10);
		if (!end || *end || errno || n < 0 || n > 999999999L - (long)times)
			return dtk_error_at(f->rel, v->line, v->col,
			                    "'%s' is %s%s%s%s, not a count from 0 to 999999999 "
			                    "that can take %zu more; correct it first",
			                    key, dtk_yval_describe(v), scalar ? " '" : "",
			                    scalar ? dtk_esc(v->str) : "", scalar ? "'" : "",
			                    times),
			       dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	}
	c->ids[c->n] = id;
	c->base[c->n++] = n;
	return DTK_EXIT_OK;
}

/* ---- what the commands check before they edit ---- */

int dtk_write_high_min(struct dtk_write *w)
{
	struct dtk_wfile *f;

	if (!w->high_min && (f = dtk_write_open(w, "_domain.yaml")) != NULL)
		w->high_min = dtk_kb_high_min(f->doc.root); /* no write edits the policy */
	return w->high_min ? w->high_min : -1;
}

int dtk_write_confidence_changed(struct dtk_write *w, struct dtk_wfile *f,
                                 const struct dtk_yval *e, const char *old)
{
	char today[11];

	(void)w;
	dtk_date_format(today, dtk_date_today());
	return dtk_yedit_set_key(&f->doc, e, "confidence_changed", (struct dtk_yscalar){today, 1},
	                         dtk_entry_keys) < 0 ||
	                       dtk_yedit_set_key(&f->doc, e, "confidence_was",
	                                         (struct dtk_yscalar){old ? old : "low", 1},
	                                         dtk_entry_keys) < 0
	               ? -1
	               : 0;
}

int dtk_write_source_known(struct dtk_write *w, const char *id)
{
	struct dtk_wfile *f = dtk_write_open(w, "_sources.yaml");
	return f ? dtk_write_seq_find(f->doc.root, "id", id) != NULL : -1;
}

void dtk_write_print_node(struct dtk_write *w, const char *name, const char *line)
{
	struct dtk_buf b = DTK_BUF_INIT;
	const struct dtk_node *node;
	struct dtk_json j;

	if (w->opts.dry_run)
		return;
	if (!w->opts.json) {
		fputs(line, w->ctx->out);
		return;
	}
	node = dtk_kb_node(w->kb, name);
	if (!node)
		return;
	dtk_json_init(&j, &b);
	dtk_view_node_page(&j, w->kb, node, 0, 0, j.compact == 2, 0); /* mcp: short entries */
	dtk_write_put_json(w, &b);
}

int dtk_write_new_name(struct dtk_write *w, const char *what, const char *name, const char *opt,
                       const char *val)
{
	if (!dtk_is_name(name))
		return dtk_cmd_usage_error(w->ctx,
		                           "'%s' is not a %s (lowercase letters, digits and '-')",
		                           name, what),
		       -1;
	return val && *val ? 0 : (dtk_cmd_usage_error(w->ctx, "missing %s", opt), -1);
}

struct dtk_wfile *dtk_write_open_node(struct dtk_write *w, const char *name)
{
	char file[300];
	if (!dtk_is_name(name)) {
		dtk_cmd_usage_error(w->ctx, "'%s' is not a node name", name);
		return NULL;
	}
	if (!dtk_kb_has_node(w->ctx->root, name)) {
		struct dtk_buf what = DTK_BUF_INIT;
		dtk_buf_printf(&what, "dtk %s: error: no node '%s'", w->cmd, name);
		dtk_kb_suggest_node(w->ctx->err, w->ctx->root, what.ptr, name);
		dtk_buf_release(&what);
		return NULL;
	}
	snprintf(file, sizeof(file), "%.255s.yaml", name);
	return dtk_write_open(w, file);
}

int dtk_write_node_key(struct dtk_ctx *ctx, const char *name, const char *key, struct dtk_yscalar v,
                       const char *text)
{
	struct dtk_buf line = DTK_BUF_INIT;
	struct dtk_wfile *f;
	struct dtk_write w;
	int rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	dtk_buf_printf(&line, "%s: %s %s\n", name, key, text ? "set" : v.s);
	if ((text && dtk_write_check_text(&w, text, key, v.s)) ||
	    !(f = dtk_write_open_node(&w, name)))
		goto done;
	if (dtk_yedit_set_key(&f->doc, f->doc.root, key, v, dtk_node_keys) < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	rc = dtk_write_commit(&w);
	if (rc != DTK_EXIT_INVALID) /* written (1: in part, or not synced) */
		dtk_write_print_node(&w, name, line.ptr);
done:
	dtk_buf_release(&line);
	dtk_write_release(&w);
	return rc;
}

/* ---- what the lifecycle commands share ---- */

int dtk_write_date(struct dtk_write *w, char *buf)
{
	return dtk_write_date_of(w, "--date", dtk_args_str(w->ctx->args, 'd'), buf);
}

int dtk_write_date_of(struct dtk_write *w, const char *opt, const char *arg, char *buf)
{
	dtk_date d = dtk_date_today();

	if (arg && dtk_date_parse(&d, arg) < 0)
		return dtk_cmd_usage_error(w->ctx, "%s must be a date YYYY-MM-DD, not '%s'", opt,
		                           arg),
		       -1;
	if (dtk_cmd_not_future(w->ctx, opt, d, dtk_args_has(w->ctx->args, 'F'), NULL) < 0)
		return -1;
	dtk_date_format(buf, d);
	return 0;
}

int dtk_write_revise(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *m,
                     const char *const *keys, const char *const *vals, size_t n,
                     const char *const *order, const char *date, struct dtk_buf *what)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *old = dtk_yval_str(m, keys[i]);
		if (!vals[i] || (old && !strcmp(old, vals[i])))
			continue; /* not given, or as it is: not an edit */
		if (dtk_yedit_set_key(&f->doc, m, keys[i], (struct dtk_yscalar){vals[i], 0}, order) <
		    0)
			return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
		dtk_buf_printf(what, "%s%s", what->len ? ", " : "", keys[i]);
	}
	if (what->len &&
	    dtk_yedit_set_key(&f->doc, m, "revised", (struct dtk_yscalar){date, 1}, order) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	return DTK_EXIT_OK;
}

void dtk_write_put_json(struct dtk_write *w, struct dtk_buf *b)
{
	fputs(dtk_buf_cstr(b), w->ctx->out);
	if (b->len && b->ptr[b->len - 1] != '\n')
		fputc('\n', w->ctx->out);
	dtk_buf_release(b);
}

/* The whole of dtk use and dtk cite: a new record of uses (one file of
 * insights/_uses/) naming each entry as often as the operands do; the node
 * files are not touched (docs/schema.md, "Counts"). */
int dtk_write_counter(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	char key[16];
	struct dtk_write w;
	struct counter c = {key, NULL, NULL, 0};
	struct dtk_buf rec = DTK_BUF_INIT, lines = DTK_BUF_INIT;
	char name[64];
	size_t i, len;
	int k, rc = DTK_EXIT_INVALID;

	snprintf(key, sizeof(key), "%sd", ctx->cmd->name); /* use: used, cite: cited */
	dtk_write_init(&w, ctx);
	/* "_uses/<today>-<10 random letters and digits>.yaml": no two writers
	 * ever make the same */
	if (dtk_kb_uses_name(name, sizeof(name), "", dtk_date_today()) < 0) {
		dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	c.ids = dtk_xcalloc((size_t)a->argc + 1, sizeof(*c.ids));
	c.base = dtk_xcalloc((size_t)a->argc + 1, sizeof(*c.base));
	dtk_buf_printf(&rec, "%s:\n", key);
	for (k = 0; k < a->argc; k++)
		dtk_buf_printf(&rec, "- %s\n", a->argv[k]);
	len = rec.len;
	if (!dtk_write_create(&w, name, dtk_buf_detach(&rec), len))
		goto done;
	rc = dtk_write_each(&w, a->argc, a->argv, 0, S_bump, &c);
	if ((rc == DTK_EXIT_OK || rc == DTK_EXIT_DRIFT) && !w.opts.dry_run && !w.opts.json) {
		for (i = 0; i < c.n; i++)
			dtk_buf_printf(&lines, "%s: %s %ld\n", c.ids[i], key,
			               c.base[i] + dtk_kb_uses(w.kb, c.ids[i], !strcmp(key, "cited")));
		fputs(dtk_buf_cstr(&lines), ctx->out);
	}
done:
	dtk_buf_release(&lines);
	free(c.ids);
	free(c.base);
	dtk_write_release(&w);
	return rc;
}
