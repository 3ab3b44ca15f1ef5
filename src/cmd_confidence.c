/* cmd_confidence.c: dtk confidence: re-rate entries. */
#include "dtk/cmd.h"

#include "dtk/kb.h"
#include "dtk/write.h"

#include <stdlib.h>
#include <string.h>

struct conf {
	int level; /* enum dtk_confidence */
};

static int S_rate(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                  const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	const struct conf *c = arg;
	const char *want = dtk_confidence_names[c->level], *old = dtk_yval_str(e, "confidence");
	size_t n = dtk_yval_list_len(e, "verified_by");
	char why[300];
	int min;

	(void)times;
	if (old && !strcmp(old, want))
		return dtk_write_refuse(w, "%s is %s already", id, want);
	if (c->level == DTK_CONF_HIGH) {
		if ((min = dtk_write_high_min(w)) < 0)
			return DTK_EXIT_INVALID;
		if (dtk_write_retired(e, why, sizeof(why)))
			return dtk_write_refuse(w, "%s is %s: high is for live entries", id, why);
		if (n < (size_t)min)
			return dtk_write_refuse(w,
			                        "%s has %zu verified_by source%s; high needs %d "
			                        "(policy.high_min_verified; add them with 'dtk "
			                        "verify')",
			                        id, n, n == 1 ? "" : "s", min);
	}
	if (dtk_yedit_set_key(&f->doc, e, "confidence", (struct dtk_yscalar){want, 1},
	                      dtk_entry_keys) < 0 ||
	    dtk_write_confidence_changed(w, f, e, old) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: confidence %s (was %s)\n", id, want, old ? old : "none");
	return DTK_EXIT_OK;
}

/* Sets *ids (malloc'd; the strings are kb's) to the live entries that meet
 * the high rule and are not high, in listing order. Returns their count, or
 * -1 after printing why the base cannot be loaded (*kb to free in any case). */
static long S_qualified(struct dtk_ctx *ctx, struct dtk_kb **kb, char ***ids)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	size_t i, j;
	long n = 0;
	int rc = dtk_kb_load(
	        kb, &(struct dtk_kb_load_opts){.root = ctx->root, .what = DTK_KB_ALL | DTK_KB_LEAN},
	        &diags);

	if (rc == DTK_EINVALID)
		dtk_cmd_report_invalid(ctx, &diags);
	else if (rc < 0)
		dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	dtk_diags_release(&diags);
	if (rc < 0)
		return -1;
	*ids = NULL;
	for (i = 0; i < (*kb)->n_nodes; i++)
		for (j = 0; j < (*kb)->nodes[i]->n_entries; j++) {
			const struct dtk_entry *e = &(*kb)->nodes[i]->entries[j];
			if (dtk_entry_retired(e) || e->confidence == DTK_CONF_HIGH ||
			    !dtk_entry_verified_for_high(*kb, e))
				continue;
			*ids = dtk_xrealloc(*ids, (size_t)(n + 1) * sizeof(**ids));
			(*ids)[n++] = (char *)e->id;
		}
	return n;
}

/* Returns the level s names (enum dtk_confidence), or -1. */
static int S_level(const char *s)
{
	int i;
	for (i = 0; i < DTK_CONF_COUNT; i++)
		if (!strcmp(s, dtk_confidence_names[i]))
			return i;
	return -1;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {{"qualified", 'Q', DTK_OPT_FLAG,
                                         .help = "every entry that qualifies for high (with high)",
                                         .operands = "<level>"},
                                        DTK_WRITE_OPTS,
                                        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct conf conf = {0};
	struct dtk_kb *kb = NULL;
	struct dtk_write w;
	char **ids = NULL;
	int qualified, rc = DTK_EXIT_INVALID;
	long n;

	dtk_write_init(&w, ctx);
	qualified = dtk_args_has(a, 'Q') > 0;
	/* 'dtk confidence alpha-001 high': the operands swapped */
	if (!qualified && a->argc == 2 && S_level(a->argv[0]) < 0 && S_level(a->argv[1]) >= 0) {
		dtk_cmd_usage_error(ctx,
		                    "<level> comes first, then the entries: dtk confidence %s %s",
		                    a->argv[1], a->argv[0]);
		goto done;
	}
	conf.level =
	        dtk_cmd_choice(ctx, "<level>", a->argv[0], dtk_confidence_names, DTK_CONF_COUNT);
	if (conf.level < 0)
		goto done;
	if (!qualified) {
		rc = dtk_write_each(&w, a->argc, a->argv, 1, S_rate, &conf);
		goto done;
	}
	if (conf.level != DTK_CONF_HIGH) {
		dtk_cmd_usage_error(ctx, "--qualified raises to high only");
		goto done;
	}
	if ((n = S_qualified(ctx, &kb, &ids)) < 0)
		goto done;
	if (n == 0) {
		if (w.opts.json && !w.opts.dry_run)
			fputs("[]\n", ctx->out);
		fprintf(ctx->err, "dtk %s: no entry meets the high rule without being high\n",
		        ctx->cmd->name);
		rc = DTK_EXIT_OK;
		goto done;
	}
	rc = dtk_write_each(&w, (int)n, ids, 0, S_rate, &conf);
done:
	free(ids);
	dtk_kb_free(kb);
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_confidence = {
        .name = "confidence",
        .usage = "dtk confidence [--dry-run] [--format text|json] [--no-reindex]\n"
                 "                      <level> <entry-id>...\n"
                 "       dtk confidence [--dry-run] [--format text|json] [--no-reindex]\n"
                 "                      --qualified high",
        .summary = "set entries' confidence (high only where the policy's rule holds)",
        .help = "\nSets the confidence of each entry to <level> (high, medium or low).\n"
                "Lowering is always allowed; high is refused for an entry with fewer than\n"
                "policy.high_min_verified verified_by sources, and for a superseded or\n"
                "retracted one. An entry at <level> already is refused. With --qualified,\n"
                "every live entry that meets the high rule and is not high is raised (the\n"
                "list 'dtk crystallize --plan' shows); none is not an error. Prints\n"
                "'<id>: confidence <level> (was <old>)' per entry.\n",
        .examples = "examples:\n"
                    "  dtk confidence low weight-management-001\n"
                    "  dtk confidence high --qualified\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<level> <entry-id>...",
        .run = S_run,
};
