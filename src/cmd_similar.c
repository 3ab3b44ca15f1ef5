/* cmd_similar.c: dtk similar: the entries most alike a text, best first. */
#include "dtk/cmd.h"

#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/similar.h"
#include "dtk/view.h"

#include <stdlib.h>
#include <string.h>

enum format { F_TEXT, F_JSON, F_IDS };

/* Prints the n hits; page: the page of json wanted (NULL: all). */
static void S_print(FILE *out, const struct dtk_similar_hit *hits, size_t n, enum format fmt,
                    struct dtk_page *page)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	size_t i;

	dtk_json_init(&j, &b);
	if (fmt == F_JSON)
		dtk_view_list_begin(&j, page);
	for (i = 0; i < n; i++) {
		const struct dtk_entry *e = hits[i].entry;
		if (fmt == F_IDS) {
			dtk_buf_printf(&b, "%s\n", e->id);
		} else if (fmt == F_TEXT) {
			dtk_buf_printf(&b, "%s  %.2f%s  %s\n", e->id, hits[i].score,
			               hits[i].same ? "  same claim" : "", dtk_esc(e->title));
		} else if (dtk_view_list_item(&j, page)) {
			dtk_json_object(&j);
			dtk_json_kstring(&j, "id", e->id);
			dtk_json_kstring(&j, "node", e->node->name);
			dtk_json_kstring(&j, "title", e->title);
			dtk_json_key(&j, "score");
			dtk_json_fixed(&j, hits[i].score, 4);
			dtk_json_kbool(&j, "same_claim", hits[i].same);
			dtk_json_end(&j, '}');
		}
	}
	if (fmt == F_JSON)
		dtk_view_list_end(&j, page);
	fputs(dtk_buf_cstr(&b), out);
	dtk_buf_release(&b);
}

/* The values of --format. */
static const char *const S_formats[] = {"text", "json", "ids", NULL};

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"node", 'n', DTK_OPT_STRING, DTK_OPT_SHORT, .arg = "N", .help = "entries of node N only"},
        {"limit", 'l', DTK_OPT_INT, DTK_OPT_SHORT, .arg = "K",
         .help = "at most K entries (default 10)"},
        {"format", 'f', DTK_OPT_CHOICE, DTK_OPT_SHORT, .choices = S_formats,
         .help = "text: id, score (two decimals), 'same claim' when the\n"
                 "claims fold alike, title; json: an array of {id, node,\n"
                 "title, score, same_claim}; ids: the ids alone"},
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_similar_query q = {0};
	struct dtk_similar_hit *hits = NULL;
	struct dtk_buf text = DTK_BUF_INIT;
	struct dtk_kb *kb = NULL;
	enum format fmt = (enum format)dtk_args_int(a, 'f', F_TEXT);
	size_t n = 0;
	int c, rc = DTK_EXIT_INVALID;

	q.node = dtk_args_str(a, 'n');
	q.limit = (size_t)dtk_args_int(a, 'l', 10);
	for (c = 0; c < a->argc; c++)
		dtk_buf_printf(&text, "%s%s", c > 0 ? " " : "", a->argv[c]);
	if ((rc = dtk_cmd_load(ctx, &kb, DTK_KB_ALL | DTK_KB_TERMS, NULL)) != DTK_EXIT_OK)
		goto done;
	if (q.node && !dtk_kb_node(kb, q.node)) {
		rc = dtk_cmd_usage_error(ctx, "no node '%s'", q.node);
		goto done;
	}
	q.claim = dtk_buf_cstr(&text);
	if (dtk_similar_rank(&hits, &n, kb, &q) < 0) {
		rc = dtk_cmd_usage_error(ctx, "%s", dtk_error_last());
		goto done;
	}
	dtk_cmd_pager(ctx);
	S_print(ctx->out, hits, n, fmt, fmt == F_JSON ? ctx->page : NULL);
	rc = n ? DTK_EXIT_OK : DTK_EXIT_DRIFT;
done:
	free(hits);
	dtk_cmd_unload(ctx, kb);
	dtk_buf_release(&text);
	return rc;
}

const struct dtk_cmd dtk_cmd_similar = {
        .name = "similar",
        .usage = "dtk similar <text>... [--node N] [--limit K] [--format text|json|ids]",
        .summary = "list the entries most alike a text, best first",
        .help = "\nRanks the live entries by how alike they are to the text (the words given,\n"
                "joined by spaces), as dtk add's duplicate check does: words and Chinese\n"
                "character pairs after folding (NFKC, case), each weighed by its rarity in\n"
                "the base (BM25), the score divided by the text's own (1: the same terms).\n"
                "Entries sharing no term are not listed. Exits 1 when none is.\n",
        .examples = "examples:\n"
                    "  dtk similar 'TP stays inside the node; PP crosses nodes'\n"
                    "  dtk similar -n training-parallelism -l 3 --format json 流水线气泡\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_READ_ONLY | DTK_CMD_PAGES,
        .operands = "<text>...",
        .opts = S_opts,
        .run = S_run,
};
