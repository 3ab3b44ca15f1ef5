/* cmd_log.c: dtk log: the crystallization history, read from git. */
#include "dtk/cmd.h"

#include "dtk/crystal.h"
#include "dtk/dtk.h"
#include "dtk/json.h"
#include "dtk/kb.h"
#include "dtk/repo.h"

#include <stdlib.h>
#include <string.h>

static void S_text(FILE *f, const struct dtk_run_list *l)
{
	struct dtk_buf b = DTK_BUF_INIT;
	char d[11];
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct dtk_run *run = &l->v[i];
		b.len = 0;
		dtk_record_summary(&b, &run->record);
		fprintf(f, "%s  %-12.12s  %s; eval %s %s\n", dtk_date_format(d, run->record.date),
		        run->commit[0] ? run->commit : "-", dtk_esc(b.ptr),
		        dtk_esc(run->record.eval_scenario), dtk_esc(run->record.eval_verdict));
	}
	dtk_buf_release(&b);
}

static void S_json(FILE *f, const struct dtk_run_list *l)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	char d[11];
	size_t i;

	dtk_json_init(&j, &b);
	dtk_json_array(&j);
	for (i = 0; i < l->n; i++) {
		const struct dtk_record *r = &l->v[i].record;
		const struct {
			const char *key;
			long v;
		} figs[] = {{"new_entries", r->new_entries},
		            {"high_changes", r->high_changes},
		            {"stale", r->stale},
		            {"stance_rewrites", r->stance_rewrites},
		            {"contradictions_new", r->contradictions_new}};
		size_t k;
		dtk_json_object(&j);
		dtk_json_kstring(&j, "date", dtk_date_format(d, r->date));
		dtk_json_kstring(&j, "since", r->since ? dtk_date_format(d, r->since) : NULL);
		dtk_json_kstring(&j, "commit", l->v[i].commit[0] ? l->v[i].commit : NULL);
		dtk_json_kbool(&j, "by_dtk", l->v[i].trailer);
		for (k = 0; k < sizeof(figs) / sizeof(*figs); k++) {
			dtk_json_kint(&j, figs[k].key, figs[k].v);
		}
		/* as the record holds them, node by node: the name means one thing */
		dtk_json_key(&j, "bloom_changes");
		dtk_json_object(&j);
		for (k = 0; k < r->n_bloom_changes; k++) {
			dtk_json_key(&j, r->bloom_changes[k].node);
			dtk_json_object(&j);
			dtk_json_kstring(&j, "from", dtk_bloom_names[r->bloom_changes[k].from]);
			dtk_json_kstring(&j, "to", dtk_bloom_names[r->bloom_changes[k].to]);
			dtk_json_end(&j, '}');
		}
		dtk_json_end(&j, '}');
		dtk_json_key(&j, "eval");
		dtk_json_object(&j);
		dtk_json_kstring(&j, "scenario", r->eval_scenario);
		dtk_json_kstring(&j, "verdict", r->eval_verdict);
		dtk_json_end(&j, '}');
		dtk_json_end(&j, '}');
	}
	dtk_json_end(&j, ']');
	fputs(b.ptr, f);
	dtk_buf_release(&b);
}

/* The values of --format. */
static const char *const S_formats[] = {"text", "json", NULL};

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"format", 'f', DTK_OPT_CHOICE, DTK_OPT_SHORT, .choices = S_formats, .help = ""}, {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_repo *repo = NULL;
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_run_list runs;
	int rc, json = dtk_args_int(a, 'f', 0) == 1;

	if (dtk_repo_open(&repo, ctx->root) < 0)
		return dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	rc = dtk_crystal_runs(repo, &runs, &diags);
	if (rc == DTK_EINVALID) {
		dtk_diags_print(&diags, ctx->err);
		fprintf(ctx->err, "dtk %s: error: the records at HEAD are invalid (%zu error%s)\n",
		        ctx->cmd->name, diags.n, diags.n == 1 ? "" : "s");
		rc = DTK_EXIT_INVALID;
	} else if (rc < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	} else {
		if (runs.n)
			dtk_cmd_pager(ctx);
		if (json)
			S_json(ctx->out, &runs);
		else if (runs.n)
			S_text(ctx->out, &runs);
		else /* said on standard error: standard output stays a list */
			dtk_cmd_note(
			        ctx, "dtk %s: no crystallization runs: %s\n", ctx->cmd->name,
			        runs.unborn
			                ? "the branch has no commit yet"
			                : "HEAD's insights/_crystallizations.yaml records none");
		rc = DTK_EXIT_OK;
	}
	dtk_run_list_release(&runs);
	dtk_diags_release(&diags);
	dtk_repo_free(repo);
	return rc;
}

const struct dtk_cmd dtk_cmd_log = {
        .name = "log",
        .summary = "list the crystallization runs recorded in git, newest first",
        .help = "\nReads the records of insights/_crystallizations.yaml at HEAD and finds the\n"
                "commit that added each (a Dtk-Crystallization trailer, or for runs recorded\n"
                "before dtk, the commit that added the record; - when the history does not\n"
                "hold it). Without runs, says so on standard error.\n",
        .examples = "examples:\n"
                    "  dtk log\n"
                    "  dtk log --format json | jq '.[0]'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_READ_ONLY | DTK_CMD_PAGES,
        .opts = S_opts,
        .run = S_run,
};
