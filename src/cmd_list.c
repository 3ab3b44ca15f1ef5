/* cmd_list.c: dtk list: entries that match filters, or the nodes, for agents
 * and people. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/index.h"
#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/view.h"

#include <string.h>

enum format { F_TEXT, F_JSON, F_JSONL, F_IDS };

struct filter {
	const char *const *nodes; /* --node, each given (any of them matches) */
	size_t n_nodes;
	int confidence; /* -1: any */
	dtk_date since, stale_at;
	int candidates;
	int list_nodes; /* --nodes */
	int retired;    /* --include-retired: superseded and retracted too */
};

/* Returns 1 when no --node was given or node is one of them. */
static int S_node_wanted(const struct filter *f, const struct dtk_node *node)
{
	size_t i;
	for (i = 0; i < f->n_nodes; i++)
		if (!strcmp(node->name, f->nodes[i]))
			return 1;
	return f->n_nodes == 0;
}

static int S_match(const struct dtk_kb *kb, const struct dtk_entry *e, const struct filter *f)
{
	return S_node_wanted(f, e->node) && (f->retired || !dtk_entry_retired(e)) &&
	       (f->confidence < 0 || (int)e->confidence == f->confidence) &&
	       (!f->since || e->created >= f->since) &&
	       (!f->stale_at || dtk_entry_is_stale(kb, e, f->stale_at)) &&
	       (!f->candidates || dtk_entry_is_candidate(kb, e));
}

/* Prints the entries f wants; page: the page of json wanted (NULL: all,
 * whole). */
static void S_print(FILE *out, const struct dtk_kb *kb, const struct filter *f, enum format fmt,
                    struct dtk_page *page)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	char d[11];
	size_t i, k;

	dtk_json_init(&j, &b);
	if (fmt == F_JSONL)
		j.compact = 1;
	if (fmt == F_JSON)
		dtk_view_list_begin(&j, page);
	for (i = 0; i < kb->n_nodes; i++)
		for (k = 0; k < kb->nodes[i]->n_entries; k++) {
			const struct dtk_entry *e = &kb->nodes[i]->entries[k];
			if (!S_match(kb, e, f))
				continue;
			if (fmt == F_TEXT)
				fprintf(out, "%s\t%s\t%s\t%s\n", e->id,
				        dtk_confidence_names[e->confidence],
				        dtk_date_format(d, dtk_entry_fresh(e)), dtk_esc(e->title));
			else if (fmt == F_IDS)
				fprintf(out, "%s\n", e->id);
			else if (!page)
				dtk_view_entry_json(&j, kb, e);
			else if (dtk_view_list_item(&j, page))
				dtk_view_entry_short(&j, e);
		}
	if (fmt == F_JSON)
		dtk_view_list_end(&j, page);
	fputs(dtk_buf_cstr(&b), out);
	dtk_buf_release(&b);
}

/* Prints the nodes --node names (all without one): name, entries, bloom and
 * stance. */
static void S_print_nodes(FILE *out, const struct dtk_kb *kb, const struct filter *f,
                          enum format fmt)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	size_t i;

	dtk_json_init(&j, &b);
	j.compact = fmt == F_JSONL;
	if (fmt == F_JSON)
		dtk_json_array(&j);
	for (i = 0; i < kb->n_nodes; i++) {
		const struct dtk_node *n = kb->nodes[i];
		const char *state = !n->stance ? "-" : dtk_node_has_high(n) ? "firm" : "tentative";
		if (!S_node_wanted(f, n))
			continue;
		if (fmt == F_TEXT) {
			fprintf(out, "%s\t%zu\t%s\t%s\t%s\n", n->name,
			        f->retired ? n->n_entries : dtk_node_live(n),
			        dtk_bloom_names[n->bloom], state,
			        n->stance ? dtk_esc(n->stance) : "-");
		} else if (fmt == F_IDS) {
			fprintf(out, "%s\n", n->name);
		} else {
			dtk_json_object(&j);
			dtk_json_kstring(&j, "node", n->name);
			dtk_json_kstring(&j, "category",
			                 n->category >= 0 ? kb->categories[n->category].name
			                                  : NULL);
			/* a count: "entries" is an array wherever else it is */
			dtk_json_kint(&j, "n_entries",
			              (long)(f->retired ? n->n_entries : dtk_node_live(n)));
			dtk_json_kstring(&j, "bloom", dtk_bloom_names[n->bloom]);
			dtk_json_kstring(&j, "stance", n->stance);
			dtk_json_key(&j, "tentative");
			if (n->stance)
				dtk_json_bool(&j, !dtk_node_has_high(n));
			else
				dtk_json_null(&j);
			dtk_json_end(&j, '}');
		}
	}
	if (fmt == F_JSON)
		dtk_json_end(&j, ']');
	fputs(dtk_buf_cstr(&b), out);
	dtk_buf_release(&b);
}

/* The values of --format, and why --nodes takes no filter of entries. */
static const char *const S_formats[] = {"text", "json", "jsonl", "ids", NULL};
static const char S_nodes_why[] = "--nodes lists nodes, not entries";

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"node", 'n', DTK_OPT_LIST, DTK_OPT_SHORT, .arg = "N",
         .help = "entries of node N; repeated, of any node given"},
        {"nodes", 'N', DTK_OPT_FLAG, .help = "list the nodes, not their entries"},
        {"confidence", 'c', DTK_OPT_CHOICE, .arg = "C", .choices = dtk_confidence_names,
         .help = "entries of confidence C"},
        {"since", 's', DTK_OPT_DATE, .arg = "D", .help = "entries created on or after D"},
        {"stale-at", 'S', DTK_OPT_DATE, .arg = "D",
         .help = "entries stale at D (freshness + policy < D)"},
        {"candidates", 'C', DTK_OPT_FLAG, .help = "entries one verification short of high"},
        {"include-retired", 'R', DTK_OPT_FLAG,
         .help = "superseded and retracted entries too (left out\notherwise)"},
        {"all", 'R', DTK_OPT_FLAG, .help = NULL}, /* another name */
        {"format", 'f', DTK_OPT_CHOICE, DTK_OPT_SHORT, .arg = "F", .choices = S_formats,
         .help = "text, json, jsonl or ids"},
        {0}};

static const struct dtk_opt_conflict S_conflicts[] = {{'N', 'c', S_nodes_why},
                                                      {'N', 's', S_nodes_why},
                                                      {'N', 'S', S_nodes_why},
                                                      {'N', 'C', S_nodes_why},
                                                      {0}};

/* Sets f and *fmt to the options of a (f->nodes are a's). */
static void S_parse(const struct dtk_args *a, struct filter *f, enum format *fmt)
{
	memset(f, 0, sizeof(*f));
	f->nodes = dtk_args_list(a, 'n', &f->n_nodes);
	f->confidence = (int)dtk_args_int(a, 'c', -1);
	f->since = (dtk_date)dtk_args_int(a, 's', 0);
	f->stale_at = (dtk_date)dtk_args_int(a, 'S', 0);
	f->candidates = dtk_args_has(a, 'C') > 0;
	f->list_nodes = dtk_args_has(a, 'N') > 0;
	f->retired = dtk_args_has(a, 'R') > 0;
	*fmt = (enum format)dtk_args_int(a, 'f', F_TEXT);
}

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_buf what = DTK_BUF_INIT;
	struct dtk_kb *kb = NULL;
	struct filter f;
	enum format fmt;
	size_t i;
	int rc;

	S_parse(a, &f, &fmt);
	if ((rc = dtk_cmd_load(ctx, &kb, DTK_KB_ALL, NULL)) != DTK_EXIT_OK)
		goto done; /* said why */
	for (i = 0; i < f.n_nodes; i++)
		if (!dtk_kb_node(kb, f.nodes[i])) { /* said with the nearest name */
			what.len = 0;
			dtk_buf_printf(&what, "dtk %s: error: no node '%s'", ctx->cmd->name, f.nodes[i]);
			dtk_kb_suggest_node(ctx->err, ctx->root, what.ptr, f.nodes[i]);
			rc = DTK_EXIT_INVALID;
		}
	if (rc != DTK_EXIT_OK)
		goto done;
	dtk_cmd_pager(ctx);
	if (f.list_nodes)
		S_print_nodes(ctx->out, kb, &f, fmt);
	else
		S_print(ctx->out, kb, &f, fmt, fmt == F_JSON ? ctx->page : NULL);
done:
	dtk_buf_release(&what);
	dtk_cmd_unload(ctx, kb);
	return rc;
}

const struct dtk_cmd dtk_cmd_list = {
        .name = "list",
        .usage = "dtk list [--node N]... [--confidence high|medium|low] [--since D]\n"
                 "                [--stale-at D] [--candidates] [--include-retired]\n"
                 "                [--format text|json|jsonl|ids]\n"
                 "       dtk list --nodes [--node N]... [--format text|json|jsonl|ids]",
        .summary = "list the entries that match every filter given, or the nodes",
        .help = "\nEntries in listing order (nodes in category order, entries in file order).\n"
                "text: id, confidence, freshness date and title, tab-separated; json: an\n"
                "array of entries as 'dtk show' prints them; jsonl: one entry per line;\n"
                "ids: the ids alone.\n\n"
                "With --nodes, the nodes instead. text: name, number of entries (live\n"
                "ones; all with --include-retired), bloom, firm, tentative (no high\n"
                "entry) or - (no stance), and the stance (- for none), tab-separated;\n"
                "json and jsonl: node, category, n_entries, bloom, stance and tentative;\n"
                "ids: the names alone.\n",
        .examples = "examples:\n"
                    "  dtk list --candidates\n"
                    "  dtk list --node training-parallelism --format jsonl | jq -r .title\n"
                    "  dtk list --stale-at 2026-12-01 --format ids\n"
                    "  dtk list --nodes\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_READ_ONLY | DTK_CMD_PAGES,
        .opts = S_opts,
        .conflicts = S_conflicts,
        .run = S_run,
};
