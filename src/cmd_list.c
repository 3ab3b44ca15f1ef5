/* cmd_list.c: dtk list: entries that match filters, or the nodes, for agents
 * and people. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/index.h"
#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/view.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum format { F_TEXT, F_JSON, F_JSONL, F_IDS };

struct filter {
	const char **nodes; /* --node, each given (any of them matches) */
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

static void S_print(FILE *out, const struct dtk_kb *kb, const struct filter *f, enum format fmt)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	char d[11];
	size_t i, k;

	dtk_json_init(&j, &b);
	j.compact = fmt == F_JSONL;
	if (fmt == F_JSON)
		dtk_json_array(&j);
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
			else
				dtk_view_entry_json(&j, kb, e);
		}
	if (fmt == F_JSON)
		dtk_json_end(&j, ']');
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

static int S_date_opt(struct dtk_ctx *ctx, const char *opt, const char *v, dtk_date *out)
{
	if (dtk_date_parse(out, v) == 0)
		return 0;
	dtk_cmd_usage_error(ctx, "list", "%s must be a date (YYYY-MM-DD), not '%s'", opt, v);
	return -1;
}

static int S_parse(struct dtk_ctx *ctx, int argc, char **argv, struct filter *f, enum format *fmt)
{
	static const char *const formats[] = {"text", "json", "jsonl", "ids"};
	static const char *const why = "--nodes lists nodes, not entries";
	int c, i;

	memset(f, 0, sizeof(*f));
	f->nodes = dtk_xcalloc((size_t)argc, sizeof(*f->nodes));
	f->confidence = -1;
	*fmt = F_TEXT;
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv)) != -1) {
		switch (c) {
		case 'n': f->nodes[f->n_nodes++] = optarg; break;
		case 'N': f->list_nodes = 1; break;
		case 'C': f->candidates = 1; break;
		case 'R': f->retired = 1; break;
		case 's':
			if (S_date_opt(ctx, "--since", optarg, &f->since) < 0)
				return -1;
			break;
		case 'S':
			if (S_date_opt(ctx, "--stale-at", optarg, &f->stale_at) < 0)
				return -1;
			break;
		case 'c':
			i = dtk_cmd_choice(ctx, "list", "--confidence", optarg,
			                   dtk_confidence_names, DTK_CONF_COUNT);
			if (i < 0)
				return -1;
			f->confidence = i;
			break;
		case 'f':
			if ((i = dtk_cmd_choice(ctx, "list", "--format", optarg, formats, 4)) < 0)
				return -1;
			*fmt = (enum format)i;
			break;
		default: return -1;
		}
	}
	if (dtk_cmd_conflict(ctx, "list", f->list_nodes, "--nodes", f->confidence >= 0,
	                     "--confidence", why) < 0 ||
	    dtk_cmd_conflict(ctx, "list", f->list_nodes, "--nodes", !!f->since, "--since", why) <
	            0 ||
	    dtk_cmd_conflict(ctx, "list", f->list_nodes, "--nodes", !!f->stale_at, "--stale-at",
	                     why) < 0 ||
	    dtk_cmd_conflict(ctx, "list", f->list_nodes, "--nodes", f->candidates, "--candidates",
	                     why) < 0)
		return -1;
	return dtk_cmd_operands(ctx, "list", argc, argv, 0, 0, NULL);
}

/* Says that the base has no node name (with the closest name). */
static void S_no_node(struct dtk_ctx *ctx, const struct dtk_kb *kb, const char *name)
{
	const char **names = dtk_xcalloc(kb->n_nodes + 1, sizeof(*names)), *hint;
	size_t i;

	for (i = 0; i < kb->n_nodes; i++)
		names[i] = kb->nodes[i]->name;
	hint = dtk_suggest(name, names, kb->n_nodes);
	fprintf(ctx->err, "dtk list: error: no node '%s'", name);
	if (hint)
		fprintf(ctx->err, "; did you mean '%s'?", hint);
	fputc('\n', ctx->err);
	free(names);
}

/* The options of the command (the dispatcher and dtk_cmd_getopt read them). */
static const struct option S_options[] = {
        {"node", required_argument, NULL, 'n'},  {"confidence", required_argument, NULL, 'c'},
        {"since", required_argument, NULL, 's'}, {"stale-at", required_argument, NULL, 'S'},
        {"candidates", no_argument, NULL, 'C'},  {"format", required_argument, NULL, 'f'},
        {"nodes", no_argument, NULL, 'N'},       {"include-retired", no_argument, NULL, 'R'},
        {"all", no_argument, NULL, 'R'},         {NULL, 0, NULL, 0}};

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_kb *kb = NULL;
	struct filter f;
	enum format fmt;
	size_t i;
	int rc;

	if (S_parse(ctx, argc, argv, &f, &fmt) < 0) {
		free(f.nodes);
		return DTK_EXIT_INVALID;
	}
	if ((rc = dtk_cmd_load(ctx, "list", &kb, DTK_KB_ALL, NULL)) != DTK_EXIT_OK)
		goto done; /* said why */
	for (i = 0; i < f.n_nodes; i++)
		if (!dtk_kb_node(kb, f.nodes[i])) {
			S_no_node(ctx, kb, f.nodes[i]);
			rc = DTK_EXIT_INVALID;
		}
	if (rc != DTK_EXIT_OK)
		goto done;
	dtk_cmd_pager(ctx);
	if (f.list_nodes)
		S_print_nodes(ctx->out, kb, &f, fmt);
	else
		S_print(ctx->out, kb, &f, fmt);
done:
	dtk_cmd_unload(ctx, kb);
	free(f.nodes);
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
                "ids: the names alone.\n\n"
                "options:\n"
                "  -n, --node N          entries of node N; repeated, of any node given\n"
                "  --nodes               list the nodes, not their entries\n"
                "  --confidence C        entries of confidence C\n"
                "  --since D             entries created on or after D\n"
                "  --stale-at D          entries stale at D (freshness + policy < D)\n"
                "  --candidates          entries one verification short of high\n"
                "  --include-retired, --all\n"
                "                        superseded and retracted entries too (left out\n"
                "                        otherwise)\n"
                "  -f, --format F        text, json, jsonl or ids\n\n"
                "examples:\n"
                "  dtk list --candidates\n"
                "  dtk list --node training-parallelism --format jsonl | jq -r .title\n"
                "  dtk list --stale-at 2026-12-01 --format ids\n"
                "  dtk list --nodes\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_READ_ONLY | DTK_CMD_PAGES,
        .options = S_options,
        .shortopts = "n:f:",
        .exec = S_exec,
};
