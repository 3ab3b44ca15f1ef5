/* cmd_search.c: dtk search: entries that hold every word, ranked. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/search.h"
#include "dtk/similar.h"
#include "dtk/view.h"

#include <stdlib.h>
#include <string.h>

enum format { F_TEXT, F_JSON, F_JSONL, F_IDS };

struct opts {
	const char *node;
	int color;      /* DTK_COLOR_ */
	int confidence; /* -1: any */
	long limit;     /* 0: no limit */
	enum format fmt;
	int retired; /* --include-retired: superseded and retracted too */
	int sources; /* --sources: the sources, not the entries */
};

/* ---- highlighting ---- */

/* Appends text[from, to) to b with its control characters escaped (as
 * dtk_esc does); in a claim (claim != 0) a line break goes on to a new line,
 * indented. */
static void S_put_span(struct dtk_buf *b, const char *text, size_t from, size_t to, int claim)
{
	const char *p = text + from, *end = text + to, *nl;

	while (claim && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		dtk_buf_put_esc(b, p, (size_t)(nl - p), 0);
		dtk_buf_puts(b, "\n    ");
		p = nl + 1;
	}
	dtk_buf_put_esc(b, p, (size_t)(end - p), 0);
}

/* Appends text (a title, or a claim when claim != 0) to b with the words of
 * s that occur in it (after folding) between on and off, and its control
 * characters escaped; without marks when on is NULL. */
static void S_put_marked(struct dtk_buf *b, const char *text, int claim, const struct dtk_search *s,
                         const char *on, const char *off)
{
	size_t len = strlen(text), flen, n, i, w, *map = NULL;
	const char *const *words = dtk_search_words(s, &n);
	char *folded = on ? dtk_fold(text, len, &flen, &map) : NULL, *mark = NULL;

	if (!folded) {
		S_put_span(b, text, 0, len, claim);
		goto done;
	}
	mark = dtk_xcalloc(len + 1, 1);
	for (w = 0; w < n; w++) {
		size_t wl, *wmap = NULL;
		/* the word folded as the text is: decomposed */
		char *word = dtk_fold(words[w], strlen(words[w]), &wl, &wmap);
		const char *p = folded;
		free(wmap);
		while (word && wl && (p = strstr(p, word))) {
			size_t a = (size_t)(p - folded), z = a + wl, from = map[a], to;
			if (z < flen && map[z] == map[a + wl - 1] &&
			    dtk_fold_is_mark(folded + z, flen - z)) {
				p++; /* "e" is not in "é" (e and an accent, decomposed) */
				continue;
			}
			while (z < flen && map[z] == map[a + wl - 1])
				z++; /* the rest of the last character's bytes */
			to = map[z];
			for (i = from; i < to; i++)
				mark[i] = 1;
			p++;
		}
		free(word);
	}
	for (i = 0; i < len; i = w) {
		for (w = i + 1; w < len && mark[w] == mark[i]; w++)
			;
		if (mark[i])
			dtk_buf_puts(b, on);
		S_put_span(b, text, i, w, claim);
		if (mark[i])
			dtk_buf_puts(b, off);
	}
done:
	free(mark);
	free(map);
	free(folded);
}

/* Appends hit e as the text format shows it to b: id, confidence, freshness
 * date and title, then the claim, the words of s marked with on and off
 * (unmarked when on is NULL). Thread-safe. */
static void S_put_text(struct dtk_buf *b, const struct dtk_entry *e, dtk_date fresh,
                       const struct dtk_search *s, const char *on, const char *off)
{
	char d[11];

	dtk_buf_puts(b, e->id);
	dtk_buf_puts(b, "  ");
	dtk_buf_puts(b, dtk_confidence_names[e->confidence]);
	dtk_buf_puts(b, "  ");
	dtk_buf_puts(b, dtk_date_format(d, fresh));
	dtk_buf_puts(b, "  ");
	S_put_marked(b, e->title, 0, s, on, off);
	dtk_buf_puts(b, "\n    ");
	S_put_marked(b, e->claim, 1, s, on, off);
	dtk_buf_putc(b, '\n');
}

#define S_ON "\033[1;31m"
#define S_OFF "\033[0m"

/* Prints the n hits; page: the page of json wanted (NULL: all, whole). */
static void S_print(FILE *out, const struct dtk_kb *kb, const struct dtk_search *s,
                    const struct dtk_search_hit *hits, size_t n, const struct opts *o, int color,
                    struct dtk_page *page)
{
	struct dtk_buf b = DTK_BUF_INIT, t = DTK_BUF_INIT;
	struct dtk_json j;
	size_t i;

	dtk_json_init(&j, &b);
	if (o->fmt == F_JSONL)
		j.compact = 1;
	if (o->fmt == F_JSON)
		dtk_view_list_begin(&j, page);
	for (i = 0; i < n; i++) {
		const struct dtk_entry *e = hits[i].e;
		if (o->fmt == F_IDS) {
			fprintf(out, "%s\n", e->id);
		} else if (o->fmt == F_TEXT && hits[i].shown) { /* made while loading */
			fwrite(hits[i].shown, 1, hits[i].shown_len, out);
		} else if (o->fmt == F_TEXT) {
			t.len = 0;
			S_put_text(&t, e, hits[i].fresh, s, color ? S_ON : NULL, S_OFF);
			fwrite(t.ptr, 1, t.len, out);
		} else if (!page) {
			dtk_view_entry_json(&j, kb, e);
		} else if (dtk_view_list_item(&j, page)) {
			dtk_view_entry_short(&j, e);
		}
	}
	if (o->fmt == F_JSON)
		dtk_view_list_end(&j, page);
	fputs(dtk_buf_cstr(&b), out);
	dtk_buf_release(&b);
	dtk_buf_release(&t);
}

/* ---- options ---- */

/* The values of --format, and the options of the command (the dispatcher
 * parses them). */
static const char *const S_formats[] = {"text", "json", "jsonl", "ids", NULL};
static const struct dtk_opt S_opts[] = {
        {"node", 'n', DTK_OPT_STRING, DTK_OPT_SHORT, .arg = "N", .help = "entries of node N only"},
        {"confidence", 'c', DTK_OPT_CHOICE, .arg = "C", .choices = dtk_confidence_names,
         .help = "entries of confidence C (high, medium, low)"},
        {"limit", 'l', DTK_OPT_INT, DTK_OPT_SHORT, .arg = "K", .help = "the first K hits"},
        {"include-retired", 'R', DTK_OPT_FLAG,
         .help = "superseded and retracted entries too (left out\notherwise)"},
        {"all", 'R', DTK_OPT_FLAG, .help = NULL}, /* another name */
        {"format", 'f', DTK_OPT_CHOICE, DTK_OPT_SHORT, .arg = "F", .choices = S_formats,
         .help = "text, json, jsonl or ids"},
        {"color", 'C', DTK_OPT_CHOICE, .choices = dtk_color_names,
         .help = "highlight the words on a terminal unless NO_COLOR\nis set (auto), always or "
                 "never"},
        {"sources", 's', DTK_OPT_FLAG,
         .help = "the sources of _sources.yaml whose id, title or url\nhold every word (every "
                 "source without a word)"},
        {0}};

/* Sets o from a; returns 0, or -1 after the usage error. */
static int S_parse(struct dtk_ctx *ctx, const struct dtk_args *a, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->confidence = (int)dtk_args_int(a, 'c', -1);
	o->limit = dtk_args_int(a, 'l', 0);
	o->fmt = (enum format)dtk_args_int(a, 'f', F_TEXT);
	o->retired = dtk_args_has(a, 'R') > 0;
	o->color = (int)dtk_args_int(a, 'C', DTK_COLOR_AUTO);
	o->sources = dtk_args_has(a, 's') > 0;
	if (o->sources && (dtk_args_has(a, 'n') > 0 || o->confidence >= 0 || o->retired))
		return dtk_cmd_usage_error(ctx, "--sources takes no --node, --confidence or "
		                                "--include-retired: those are of entries"),
		       -1;
	o->node = dtk_args_str(a, 'n');
	if (o->node && !dtk_is_name(o->node))
		return dtk_cmd_usage_error(ctx, "--node: '%s' is not a node name", o->node), -1;
	if (a->argc < 1 && !o->sources)
		return dtk_cmd_usage_error(ctx, "nothing to search for: give one or more words"),
		       -1;
	return 0;
}

/* ---- the command ---- */

struct filter {
	struct dtk_search *s;
	const char *node;
	int confidence; /* -1: any */
	const char *on; /* the highlighting, NULL when none */
	int retired;    /* retired entries shown too */
	int alts;       /* the words' alternatives are set */
};

/* Gives each word of s the words it also takes in kb (dtk_similar_equivalents). */
static void S_alts(struct dtk_search *s, const struct dtk_kb *kb)
{
	size_t n, k, na;
	const char *const *words = dtk_search_words(s, &n);
	char **alts;

	for (k = 0; k < n; k++) {
		na = dtk_similar_equivalents(&alts, kb, words[k]);
		dtk_search_set_alts(s, k, (const char *const *)alts, na);
		dtk_strv_free(alts, na);
	}
}

static void S_prepare(void *arg, const struct dtk_kb *kb)
{
	struct filter *f = arg;
	if (!f->alts) {
		S_alts(f->s, kb);
		f->alts = 1;
	}
	dtk_search_prepare(f->s, kb);
}

static void S_loaded(void *arg, const struct dtk_kb *kb, struct dtk_node *node,
                     struct dtk_arena *arena)
{
	struct filter *f = arg;
	dtk_search_node(f->s, kb, node, arena);
}

/* The show hook of a text search: the hit as S_print would show it. */
static void S_show(void *arg, const struct dtk_kb *kb, struct dtk_search_hit *hit,
                   struct dtk_arena *arena)
{
	const struct filter *f = arg;
	struct dtk_buf b = DTK_BUF_INIT;
	char *p;

	(void)kb;
	if ((f->confidence >= 0 && (int)hit->e->confidence != f->confidence) ||
	    (!f->retired && dtk_entry_retired(hit->e)))
		return; /* not shown */
	S_put_text(&b, hit->e, hit->fresh, f->s, f->on, S_OFF);
	p = dtk_arena_alloc(arena, b.len + 1);
	memcpy(p, b.ptr, b.len);
	p[b.len] = '\0';
	hit->shown = p;
	hit->shown_len = b.len;
	dtk_buf_release(&b);
}

static int S_keep(void *arg, const char *node, const char *buf, size_t len)
{
	const struct filter *f = arg;
	if (f->node && strcmp(node, f->node))
		return 0;
	return !buf || dtk_search_file_may_match(f->s, buf, len); /* NULL: from the cache */
}

static int S_keep_none(void *arg, const char *node, const char *buf, size_t len)
{
	(void)arg, (void)node, (void)buf, (void)len;
	return 0;
}

/* Prints the sources of the base that s (NULL: none) finds, in the order of
 * _sources.yaml, as o's format says (page: the page of json wanted); returns
 * the exit status. */
static int S_sources(struct dtk_ctx *ctx, const struct opts *o, const struct dtk_search *s,
                     struct dtk_page *page)
{
	struct dtk_kb_filter none = {NULL, S_keep_none, NULL, NULL, 1};
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_kb *kb = NULL;
	struct dtk_json j;
	size_t i, n = 0;
	int rc = 0;

	if (dtk_cmd_held(ctx, &kb) != 0) /* _domain.yaml and _sources.yaml only */
		rc = dtk_kb_load(&kb,
		                 &(struct dtk_kb_load_opts){.root = ctx->root, .filter = &none},
		                 &diags);
	if (rc == DTK_EINVALID)
		rc = dtk_cmd_report_invalid(ctx, &diags);
	else if (rc < 0)
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	if (rc)
		goto done;
	dtk_json_init(&j, &b);
	if (o->fmt == F_JSONL)
		j.compact = 1;
	if (o->fmt == F_JSON)
		dtk_view_list_begin(&j, page);
	for (i = 0; i < kb->n_sources && (!o->limit || n < (size_t)o->limit); i++) {
		const struct dtk_source *src = &kb->sources[i];
		if (s && !dtk_search_source(s, src))
			continue;
		if (o->fmt == F_IDS)
			dtk_buf_printf(&b, "%s\n", src->id);
		else if (o->fmt == F_TEXT)
			dtk_buf_printf(&b, "%s  %s%s%s\n", dtk_esc(src->id), dtk_esc(src->title),
			               src->url ? "  " : "", src->url ? dtk_esc(src->url) : "");
		else if (dtk_view_list_item(&j, page))
			dtk_view_source_json(&j, src);
		n++;
	}
	if (o->fmt == F_JSON)
		dtk_view_list_end(&j, page);
	fputs(dtk_buf_cstr(&b), ctx->out);
	rc = n ? DTK_EXIT_OK : DTK_EXIT_DRIFT;
done:
	dtk_buf_release(&b);
	dtk_diags_release(&diags);
	dtk_cmd_unload(ctx, kb);
	return rc;
}

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_search_hit *hits = NULL;
	struct filter f = {NULL, NULL, -1, NULL, 0, 0};
	/* titles and claims are borrowed: only the hits' are kept */
	struct dtk_kb_filter kf = {S_prepare, S_keep, S_loaded, &f, 1};
	struct dtk_kb *kb = NULL;
	struct dtk_page *page;
	struct opts o;
	size_t n = 0, i, k;
	int rc, color;

	if (S_parse(ctx, a, &o) < 0)
		return DTK_EXIT_INVALID;
	page = o.fmt == F_JSON ? ctx->page : NULL;
	f.node = o.node;
	if (o.node && !dtk_kb_has_node(ctx->root, o.node)) {
		struct dtk_buf what = DTK_BUF_INIT;
		dtk_buf_printf(&what, "dtk %s: error: no node '%s'", ctx->cmd->name, o.node);
		dtk_kb_suggest_node(ctx->err, ctx->root, what.ptr, o.node);
		dtk_buf_release(&what);
		return DTK_EXIT_INVALID;
	}
	f.s = a->argc || !o.sources ? dtk_search_new((const char *const *)a->argv, (size_t)a->argc)
	                            : NULL;
	if (!f.s && (a->argc || !o.sources))
		return dtk_cmd_usage_error(ctx, "%s", dtk_error_last());
	if (o.sources) {
		dtk_cmd_pager(ctx);
		rc = S_sources(ctx, &o, f.s, page);
		dtk_search_free(f.s);
		return rc;
	}
	color = dtk_cmd_use_color(ctx, o.color);
	dtk_cmd_pager(ctx);
	if (o.fmt == F_TEXT && !o.limit) { /* each hit is shown: made while loading */
		f.confidence = o.confidence;
		f.retired = o.retired;
		f.on = color ? S_ON : NULL;
		dtk_search_set_show(f.s, S_show, &f);
	}
	if (dtk_cmd_held(ctx, &kb) == 0) { /* dtk mcp: the base it holds */
		S_alts(f.s, kb);
		dtk_search_base(f.s, kb, o.node);
		rc = 0;
	} else {
		rc = dtk_kb_load(&kb,
		                 &(struct dtk_kb_load_opts){
		                         .root = ctx->root, .what = DTK_KB_ALL, .filter = &kf},
		                 &diags);
	}
	if (rc == DTK_EINVALID) {
		rc = dtk_cmd_report_invalid(ctx, &diags);
		goto done;
	} else if (rc < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	n = dtk_search_hits(&hits, f.s, kb);
	for (i = k = 0; i < n; i++)
		if ((o.confidence < 0 || (int)hits[i].e->confidence == o.confidence) &&
		    (o.retired || !dtk_entry_retired(hits[i].e)))
			hits[k++] = hits[i];
	n = k;
	if (o.limit && (size_t)o.limit < n)
		n = (size_t)o.limit;
	S_print(ctx->out, kb, f.s, hits, n, &o, color, page);
	if (!n && o.fmt == F_TEXT) /* else the empty list says it */
		dtk_cmd_note(ctx, "dtk %s: no entry holds every word given\n", ctx->cmd->name);
	rc = n ? DTK_EXIT_OK : DTK_EXIT_DRIFT;
done:
	dtk_diags_release(&diags);
	free(hits);
	dtk_cmd_unload(ctx, kb);
	dtk_search_free(f.s);
	return rc;
}

const struct dtk_cmd dtk_cmd_search = {
        .name = "search",
        .usage = "dtk search <word>... [--node N] [--confidence C] [--limit K]\n"
                 "                  [--include-retired] [--format text|json|jsonl|ids]\n"
                 "                  [--color auto|always|never]\n"
                 "       dtk search --sources [<word>...] [--limit K] [--format F]",
        .summary = "find the entries that hold every word",
        .help = "\nEntries whose id, title, claim or source titles hold every word, compared\n"
                "after Unicode normalization (NFKC) and case folding: 'ncclcommsplit' finds\n"
                "ncclCommSplit, 'ＮＣＣＬ' finds NCCL; each word is a substring, so Chinese\n"
                "or Japanese need no spaces. A word also takes its English stem and the\n"
                "words the glossary (and insights/_glossary.yaml) makes the same term\n"
                "('长上下文' finds 'context'), and the name of the entry's category.\n"
                "Ranked: more words as given first, then more in the title, then more in\n"
                "the claim, then confidence (high first), then freshness (newest\n"
                "first), then listing order. text: id, confidence, freshness date and\n"
                "title, then the claim, the words highlighted on a terminal (unless\n"
                "NO_COLOR is set); json, jsonl, ids as 'dtk list'. Exit 0 with hits, 1\n"
                "with none, 2 on bad input. Only node files that hold every word (or whose\n"
                "sources do) are parsed: 'dtk check' checks the rest. A file unchanged since\n"
                "dtk last parsed it is read from the node cache (DTK_NO_CACHE=1: none).\n"
                "With --sources, the sources of _sources.yaml whose id, title or url hold\n"
                "every word, in its order (text: id, title, url; json: {id, title, url,\n"
                "read, revised}); only _domain.yaml and _sources.yaml are read.\n",
        .examples = "examples:\n"
                    "  dtk search ncclcommsplit\n"
                    "  dtk search 通信 rank --node collective-communication --format ids\n"
                    "  dtk search checkpoint --confidence medium --limit 5 --format jsonl\n"
                    "  dtk search --sources nccl\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_READ_ONLY | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "[<word>...]", /* none with --sources */
        .run = S_run,
};
