/* cmd_list.c: dtk list: entries that match filters, for agents and people. */
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
	const char *node;
	int confidence; /* -1: any */
	dtk_date since, stale_at;
	int candidates;
};

static int S_match(const struct dtk_kb *kb, const struct dtk_entry *e, const struct filter *f)
{
	return (!f->node || !strcmp(e->node->name, f->node)) &&
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
				        dtk_date_format(d, dtk_entry_fresh(e)), e->title);
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

static int S_date_opt(struct dtk_ctx *ctx, const char *opt, const char *v, dtk_date *out)
{
	if (dtk_date_parse(out, v) == 0)
		return 0;
	dtk_cmd_usage_error(ctx, "list", "%s must be a date (YYYY-MM-DD), not '%s'", opt, v);
	return -1;
}

static int S_parse(struct dtk_ctx *ctx, int argc, char **argv, struct filter *f, enum format *fmt)
{
	static const struct option lo[] = {{"node", required_argument, NULL, 'n'},
	                                   {"confidence", required_argument, NULL, 'c'},
	                                   {"since", required_argument, NULL, 's'},
	                                   {"stale-at", required_argument, NULL, 'S'},
	                                   {"candidates", no_argument, NULL, 'C'},
	                                   {"format", required_argument, NULL, 'f'},
	                                   {NULL, 0, NULL, 0}};
	static const char *const formats[] = {"text", "json", "jsonl", "ids"};
	int c, i;

	memset(f, 0, sizeof(*f));
	f->confidence = -1;
	*fmt = F_TEXT;
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv, "n:f:", lo)) != -1) {
		switch (c) {
		case 'n': f->node = optarg; break;
		case 'C': f->candidates = 1; break;
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

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_kb *kb = NULL;
	struct filter f;
	enum format fmt;
	int rc;

	if (S_parse(ctx, argc, argv, &f, &fmt) < 0)
		return DTK_EXIT_INVALID;
	if ((rc = dtk_cmd_load(ctx, "list", &kb, DTK_KB_ALL, NULL)) != DTK_EXIT_OK) {
		/* said why */
	} else if (f.node && !dtk_kb_node(kb, f.node)) {
		S_no_node(ctx, kb, f.node);
		rc = DTK_EXIT_INVALID;
	} else {
		S_print(ctx->out, kb, &f, fmt);
		rc = DTK_EXIT_OK;
	}
	dtk_kb_free(kb);
	return rc;
}

const struct dtk_cmd dtk_cmd_list = {
        .name = "list",
        .usage = "dtk list [--node N] [--confidence high|medium|low] [--since D] [--stale-at D]\n"
                 "                [--candidates] [--format text|json|jsonl|ids]",
        .summary = "list the entries that match every filter given",
        .help = "\nEntries in listing order (nodes in category order, entries in file order).\n"
                "text: id, confidence, freshness date and title, tab-separated; json: an\n"
                "array of entries as 'dtk show' prints them; jsonl: one entry per line;\n"
                "ids: the ids alone.\n\n"
                "options:\n"
                "  -n, --node N          entries of node N\n"
                "  --confidence C        entries of confidence C\n"
                "  --since D             entries created on or after D\n"
                "  --stale-at D          entries stale at D (freshness + policy < D)\n"
                "  --candidates          entries one verification short of high\n"
                "  -f, --format F        text, json, jsonl or ids\n\n"
                "examples:\n"
                "  dtk list --candidates\n"
                "  dtk list --node training-parallelism --format jsonl | jq -r .title\n"
                "  dtk list --stale-at 2026-12-01 --format ids\n",
        .flags = DTK_CMD_NEEDS_KB,
        .exec = S_exec,
};
