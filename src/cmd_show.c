/* cmd_show.c: dtk show: one node or one entry, for a person or an agent. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/index.h"
#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/links.h"
#include "dtk/view.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most bytes of entries a page of a node's JSON holds for dtk mcp
 * (docs/agents.md), written tight (json.h) as it is sent: a tools/call
 * response line, which holds it twice (structuredContent and text), stays
 * about 16 KB. */
#define DTK_SHOW_PAGE_BYTES 4608
/* The most backlinks each "referenced_by" list holds for dtk mcp (a longer
 * one has "referenced_by_total" after it). */
#define DTK_SHOW_REFS 50

struct style {
	const char *bold, *dim, *green, *yellow, *reset;
};

static const struct style S_plain = {"", "", "", "", ""};
static const struct style S_color = {"\033[1m", "\033[2m", "\033[32m", "\033[33m", "\033[0m"};

/* ---- text ---- */

/* Starts a line of an entry's labelled list: the label (first of its
 * lines) or blanks, in one column for every label. */
static void S_label(FILE *f, const char *label, int first)
{
	fprintf(f, "  %-*s ", 16, first ? label : "");
}

/* Prints text (newlines kept, control characters escaped), each line after
 * the first indented by indent spaces, then a newline. */
static void S_text_lines(FILE *f, const char *text, int indent)
{
	const char *p = dtk_esc_text(text), *nl;

	while ((nl = strchr(p, '\n'))) {
		fprintf(f, "%.*s\n%*s", (int)(nl - p), p, indent, "");
		p = nl + 1;
	}
	fprintf(f, "%s\n", p);
}

static void S_text_sources(FILE *f, const struct dtk_kb *kb, const struct dtk_entry *e)
{
	const struct dtk_source *s = dtk_kb_source(kb, e->source.id);
	size_t i;

	S_label(f, "source:", 1);
	fprintf(f, "%s (%s)\n", s ? dtk_esc(s->title) : "?", e->source.id);
	for (i = 0; i < e->n_verified_by; i++) {
		s = dtk_kb_source(kb, e->verified_by[i].id);
		S_label(f, "verified by:", i == 0);
		fprintf(f, "%s (%s)\n", s ? dtk_esc(s->title) : "?", e->verified_by[i].id);
	}
}

/* Returns the title of the entry id when kb holds it, else "". */
static const char *S_title(const struct dtk_kb *kb, const char *id)
{
	const struct dtk_entry *e = strchr(id, ':') ? NULL : dtk_kb_entry(kb, id);
	return e ? dtk_esc(e->title) : "";
}

/* Returns " (superseded)" or " (retracted)" when kb holds the entry id and
 * it is retired, else "". */
static const char *S_retired(const struct dtk_kb *kb, const char *id)
{
	const struct dtk_entry *e = strchr(id, ':') ? NULL : dtk_kb_entry(kb, id);
	return !e || !dtk_entry_retired(e) ? "" : e->retracted ? " (retracted)" : " (superseded)";
}

/* Prints the backlinks of entry id, of all[0..n_all) (dtk_links_into's of
 * its node), one line each, grouped by kind. */
static void S_text_backlinks(FILE *f, const struct dtk_link *all, size_t n_all, const char *id)
{
	static const char *const label[4] = {
	        "related by:", "contradicted by:", "flags gap:", "supersedes:"};
	struct dtk_link *links;
	size_t i, n = dtk_links_pick(&links, all, n_all, id, NULL);
	int how, first;

	for (how = 0; how < 4; how++)
		for (i = 0, first = 1; i < n; i++) {
			const struct dtk_link *l = &links[i];
			if ((int)l->how != how)
				continue;
			S_label(f, label[how], first);
			first = 0;
			if (l->how == DTK_LINK_GAP)
				fprintf(f, "%s\n", dtk_esc(l->gap->text));
			else if (l->how == DTK_LINK_RELATES || l->how == DTK_LINK_SUPERSEDES)
				fprintf(f, "%s %s\n", l->from->id, dtk_esc(l->from->title));
			else
				fprintf(f, "%s (%s) %s%s%s\n", l->from->id,
				        l->con->open ? "open" : "resolved", dtk_esc(l->from->title),
				        l->con->note ? ": " : "",
				        l->con->note ? dtk_esc(l->con->note) : "");
		}
	free(links);
}

/* Prints entry e; all[0..n_all): dtk_links_into's of its node. */
static void S_text_entry(FILE *f, const struct dtk_kb *kb, const struct dtk_entry *e,
                         const struct dtk_link *all, size_t n_all, const struct style *st)
{
	const char *conf = dtk_confidence_names[e->confidence];
	const char *cc = e->confidence == DTK_CONF_HIGH     ? st->green
	                 : e->confidence == DTK_CONF_MEDIUM ? st->yellow
	                                                    : st->dim;
	char c[11], r[11];
	size_t i;

	fprintf(f, "%s%s%s  %s%s%s%s  created %s", st->bold, e->id, st->reset, cc, conf, st->reset,
	        dtk_entry_is_candidate(kb, e) ? " (candidate)" : "",
	        dtk_date_format(c, e->created));
	if (e->reviewed)
		fprintf(f, "  reviewed %s", dtk_date_format(r, e->reviewed));
	if (e->revised)
		fprintf(f, "  revised %s", dtk_date_format(r, e->revised));
	fputc('\n', f);
	if (e->superseded_by.id)
		fprintf(f, "  %sSUPERSEDED%s by %s on %s%s%s\n", st->bold, st->reset,
		        e->superseded_by.id, dtk_date_format(r, e->superseded),
		        *S_title(kb, e->superseded_by.id) ? ": " : "",
		        S_title(kb, e->superseded_by.id));
	if (e->retracted)
		fprintf(f, "  %sRETRACTED%s on %s: %s\n", st->bold, st->reset,
		        dtk_date_format(r, e->retracted), dtk_esc(e->retracted_reason));
	fprintf(f, "  %s%s%s\n  ", st->bold, dtk_esc(e->title), st->reset);
	S_text_lines(f, e->claim, 2);
	S_text_sources(f, kb, e);
	fprintf(f, "  %sused %ld · cited %ld%s%s\n", st->dim, e->used, e->cited,
	        e->closed ? " · closed" : "", st->reset);
	for (i = 0; i < e->n_relates; i++) {
		S_label(f, "relates:", i == 0);
		fprintf(f, "%s%s%s%s\n", e->relates[i].id, S_retired(kb, e->relates[i].id),
		        *S_title(kb, e->relates[i].id) ? " " : "", S_title(kb, e->relates[i].id));
	}
	for (i = 0; i < e->n_contradicts; i++) {
		const struct dtk_contradiction *k = &e->contradicts[i];
		S_label(f, "contradicts:", i == 0);
		fprintf(f, "%s (%s)%s%s%s%s\n", k->ref.id, k->open ? "open" : "resolved",
		        *S_title(kb, k->ref.id) ? " " : "", S_title(kb, k->ref.id),
		        k->note ? ": " : "", k->note ? dtk_esc(k->note) : "");
	}
	S_text_backlinks(f, all, n_all, e->id);
}

/* Prints the links to node's entries from other nodes and from gaps, of
 * all[0..n_all) (dtk_links_into's of node). */
static void S_text_inbound(FILE *f, const struct dtk_link *all, size_t n_all,
                           const struct dtk_node *node)
{
	struct dtk_link *links;
	size_t i, n = dtk_links_pick(&links, all, n_all, NULL, node->name);

	fprintf(f, "\nlinks from other nodes:%s\n", n ? "" : " none");
	for (i = 0; i < n; i++) {
		const struct dtk_link *l = &links[i];
		if (l->how == DTK_LINK_GAP)
			fprintf(f, "  gap flagged by %s: %s\n", l->to, dtk_esc(l->gap->text));
		else
			fprintf(f, "  %s %s%s %s  %s\n", l->from->id, dtk_link_how_names[l->how],
			        l->con ? (l->con->open ? " (open)" : " (resolved)") : "", l->to,
			        dtk_esc(l->from->title));
	}
	free(links);
}

/* Prints entry e on one line: id, confidence, title (--compact). */
static void S_text_compact(FILE *f, const struct dtk_kb *kb, const struct dtk_entry *e,
                           const struct style *st)
{
	fprintf(f, "%s%s%s  %s%s  %s\n", st->bold, e->id, st->reset,
	        dtk_confidence_names[e->confidence],
	        dtk_entry_is_candidate(kb, e) ? " (candidate)" : "", dtk_esc(e->title));
}

/* limit: the entries printed (0: all); compact: each on one line */
static void S_text_node(FILE *f, const struct dtk_kb *kb, const struct dtk_node *node,
                        const struct style *st, size_t limit, int compact)
{
	struct dtk_link *all;
	size_t i, n_all = dtk_links_into(&all, kb, node->name);
	size_t shown = limit && limit < node->n_entries ? limit : node->n_entries;

	fprintf(f, "%s%s%s", st->bold, node->name, st->reset);
	if (node->category >= 0)
		fprintf(f, "  [%s]", dtk_esc(kb->categories[node->category].name));
	fprintf(f, "  bloom %s  %zu entr%s\n", dtk_bloom_names[node->bloom], node->n_entries,
	        node->n_entries == 1 ? "y" : "ies");
	if (node->stance) {
		fprintf(f, "stance%s: ", dtk_node_has_high(node) ? "" : " (tentative)");
		S_text_lines(f, node->stance, 2);
	} else
		fprintf(f, "stance: —\n");
	for (i = 0; i < shown; i++) {
		if (!compact || !i)
			fputc('\n', f);
		if (compact)
			S_text_compact(f, kb, &node->entries[i], st);
		else
			S_text_entry(f, kb, &node->entries[i], all, n_all, st);
	}
	if (shown < node->n_entries)
		fprintf(f, "\n%zu more entr%s not printed (--limit %zu of %zu)\n",
		        node->n_entries - shown, node->n_entries - shown == 1 ? "y" : "ies", limit,
		        node->n_entries);
	if (compact && shown)
		fprintf(f, "%sclaims not printed: dtk show <entry-id> prints an entry whole%s\n",
		        st->dim, st->reset);
	S_text_inbound(f, all, n_all, node);
	free(all);
}

/* ---- resolving the name ---- */

/* Finds which node file holds name (a node, or an entry by its id prefix).
 * Returns the node name (malloc'd) and sets *is_entry, or NULL when none
 * does (a source, or nothing: S_show_source). */
static char *S_resolve(struct dtk_ctx *ctx, const char *name, int *is_entry)
{
	size_t plen;

	*is_entry = 0;
	if (dtk_kb_has_node(ctx->root, name))
		return dtk_xstrdup(name);
	/* a well-formed id, or one of a node that is no id ("alpha-00"): the
	 * node's entries say which was meant */
	if (dtk_entry_id_split(name, &plen) ||
	    (strrchr(name, '-') && (plen = (size_t)(strrchr(name, '-') - name)) > 0)) {
		char *node = dtk_xstrndup(name, plen);
		if (dtk_kb_has_node(ctx->root, node)) {
			*is_entry = 1;
			return node;
		}
		free(node);
	}
	return NULL;
}

static int S_keep_none(void *arg, const char *node, const char *buf, size_t len)
{
	(void)arg, (void)node, (void)buf, (void)len;
	return 0;
}

/* Prints source src: id, title, url, read and revised dates. */
static void S_print_source(struct dtk_ctx *ctx, const struct dtk_source *src, int json)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	char d[11];

	if (json) {
		dtk_json_init(&j, &b);
		dtk_view_source_json(&j, src);
	} else {
		dtk_buf_printf(&b, "%s  (source)\n  %s\n", dtk_esc(src->id), dtk_esc(src->title));
		if (src->url)
			dtk_buf_printf(&b, "  url: %s\n", dtk_esc(src->url));
		if (src->read)
			dtk_buf_printf(&b, "  read: %s\n", dtk_date_format(d, src->read));
		if (src->revised)
			dtk_buf_printf(&b, "  revised: %s\n", dtk_date_format(d, src->revised));
	}
	fputs(dtk_buf_cstr(&b), ctx->out);
	dtk_buf_release(&b);
}

/* Shows the source name names, when no node or entry does: reads only
 * _domain.yaml and _sources.yaml (the base held in dtk mcp). Returns the
 * exit status, after a message naming the nearest node when there is no
 * such source either. */
static int S_show_source(struct dtk_ctx *ctx, const char *name, int json)
{
	struct dtk_kb_filter none = {NULL, S_keep_none, NULL, NULL, 1};
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_buf what = DTK_BUF_INIT;
	const struct dtk_source *src;
	struct dtk_kb *kb = NULL;
	int rc = 0;

	if (dtk_cmd_held(ctx, &kb) != 0)
		rc = dtk_kb_load(&kb,
		                 &(struct dtk_kb_load_opts){.root = ctx->root, .filter = &none},
		                 &diags);
	if (rc == DTK_EINVALID) {
		rc = dtk_cmd_report_invalid(ctx, &diags);
	} else if (rc < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	} else if ((src = dtk_kb_source(kb, name)) != NULL) {
		S_print_source(ctx, src, json);
	} else {
		dtk_buf_printf(&what, "dtk %s: error: no node, entry or source '%s'",
		               ctx->cmd->name, name);
		dtk_kb_suggest_node(ctx->err, ctx->root, what.ptr, name);
		rc = DTK_EXIT_INVALID;
	}
	dtk_buf_release(&what);
	dtk_diags_release(&diags);
	dtk_cmd_unload(ctx, kb);
	return rc;
}

static int S_missing_entry(struct dtk_ctx *ctx, const struct dtk_node *node, const char *id)
{
	const char **ids = dtk_xmalloc((node->n_entries + 1) * sizeof(*ids)), *hint;
	size_t i;

	for (i = 0; i < node->n_entries; i++)
		ids[i] = node->entries[i].id;
	hint = dtk_suggest(id, ids, node->n_entries);
	fprintf(ctx->err, "dtk %s: error: node '%s' has no entry '%s'", ctx->cmd->name, node->name,
	        id);
	if (hint)
		fprintf(ctx->err, "; did you mean '%s'?", hint);
	fputc('\n', ctx->err);
	free(ids);
	return DTK_EXIT_INVALID;
}

/* color: --color (DTK_COLOR_); limit, compact: a node's entries (--limit,
 * --compact) */
static int S_print(struct dtk_ctx *ctx, const struct dtk_kb *kb, const char *node_name,
                   const char *name, int is_entry, int json, int color, size_t limit, int compact)
{
	const struct dtk_node *node = dtk_kb_node(kb, node_name);
	const struct dtk_entry *e = NULL;
	const struct style *st = dtk_cmd_use_color(ctx, color) ? &S_color : &S_plain;
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_link *links = NULL;
	struct dtk_json j;
	size_t i, n;

	for (i = 0; is_entry && i < node->n_entries && !e; i++)
		if (!strcmp(node->entries[i].id, name))
			e = &node->entries[i];
	if (is_entry && !e && dtk_kb_source(kb, name)) { /* a source id like an entry's */
		S_print_source(ctx, dtk_kb_source(kb, name), json);
		return DTK_EXIT_OK;
	}
	if (is_entry && !e)
		return S_missing_entry(ctx, node, name);
	if (json) {
		dtk_json_init(&j, &b);
		j.refs = ctx->page ? DTK_SHOW_REFS : 0;
		if (e) {
			n = dtk_links_to(&links, kb, e->id, NULL);
			dtk_view_entry_json_links(&j, kb, e, links, n);
			free(links);
		} else /* a page for dtk mcp: at most DTK_SHOW_PAGE_BYTES of entries */
			dtk_view_node_page(&j, kb, node, ctx->page ? ctx->page->offset : 0,
			                   ctx->page ? ctx->page->size : limit, compact,
			                   ctx->page ? DTK_SHOW_PAGE_BYTES : 0);
		fputs(dtk_buf_cstr(&b), ctx->out);
		dtk_buf_release(&b);
	} else if (e) {
		n = dtk_links_to(&links, kb, e->id, NULL);
		S_text_entry(ctx->out, kb, e, links, n, st);
		free(links);
	} else {
		S_text_node(ctx->out, kb, node, st, limit, compact);
	}
	return DTK_EXIT_OK;
}

/* The values of --format and --color, and the options of the command (the
 * dispatcher parses them). */
static const char *const S_formats[] = {"text", "json", NULL};
static const struct dtk_opt S_opts[] = {
        {"format", 'f', DTK_OPT_CHOICE, DTK_OPT_SHORT, .choices = S_formats,
         .help = "json is the stable shape for agents\n(docs/commands.md)"},
        {"color", 'c', DTK_OPT_CHOICE, .choices = dtk_color_names,
         .help = "colour on a terminal unless NO_COLOR is set (auto),\nalways or never"},
        {"limit", 'l', DTK_OPT_INT, .arg = "N",
         .help = "a node's first N entries only, saying how many\nare not printed"},
        {"compact", 'C', DTK_OPT_FLAG,
         .help = "a node's entries as id, confidence and title only\n(dtk show <entry-id> "
                 "prints one whole)"},
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_kb *kb = NULL;
	const char *name;
	int json = dtk_args_int(a, 'f', 0) == 1, rc, is_entry;
	char *node = NULL;

	name = a->argv[0];
	if (!dtk_is_name(name) || strlen(name) > DTK_MAX_NAME + 10) /* "-" and a suffix */
		return dtk_cmd_usage_error(ctx, "'%s' is not a node name or entry id", name);
	node = S_resolve(ctx, name, &is_entry);
	if (!node) {
		dtk_cmd_pager(ctx);
		return S_show_source(ctx, name, json);
	}
	rc = dtk_cmd_load(ctx, &kb, DTK_KB_ONE_NODE | DTK_KB_LINKED, node);
	if (rc == DTK_EXIT_OK) {
		dtk_cmd_pager(ctx);
		rc = S_print(ctx, kb, node, name, is_entry, json, (int)dtk_args_int(a, 'c', 0),
		             (size_t)dtk_args_int(a, 'l', 0), dtk_args_has(a, 'C') > 0);
	}
	dtk_cmd_unload(ctx, kb);
	free(node);
	return rc;
}

const struct dtk_cmd dtk_cmd_show = {
        .name = "show",
        .summary = "print one node or one entry",
        .help = "\nPrints a node (stance, bloom, every entry) or one entry (claim, confidence,\n"
                "dates, sources by title, verified_by, relations with titles) and what\n"
                "names it: entries that relate to or contradict it, gaps it flags; a\n"
                "node's links from other nodes; else a source of _sources.yaml (title,\n"
                "url, read and revised dates). Reads _domain.yaml, _sources.yaml, the\n"
                "node's file and the node files that name it or that it names; the node\n"
                "cache (in the git directory or $XDG_CACHE_HOME/dtk; DTK_NO_CACHE=1 turns\n"
                "it off) says which those are, and only the files changed since it was\n"
                "written are parsed. On a terminal: in colour unless NO_COLOR is set,\n"
                "through a pager (DTK_PAGER, PAGER, else less with LESS=FRX).\n",
        .examples = "examples:\n"
                    "  dtk show collective-communication\n"
                    "  dtk show training-parallelism-008 --format json\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_READ_ONLY | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<node|entry-id>",
        .run = S_run,
};
