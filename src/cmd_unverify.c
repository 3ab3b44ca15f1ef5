/* cmd_unverify.c: dtk unverify: remove one corroboration of an entry. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

struct unverify {
	const char *source;
	int level; /* --confidence, -1 when not given */
};

static int S_unverify(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                      const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	const struct unverify *u = arg;
	const char *conf = dtk_yval_str(e, "confidence");
	int i = dtk_yval_list_find(e, "verified_by", u->source, NULL), min;
	size_t left = dtk_yval_list_len(e, "verified_by") - (i >= 0);
	int high = u->level >= 0 ? u->level == DTK_CONF_HIGH : conf && !strcmp(conf, "high");

	(void)times;
	if (i < 0)
		return dtk_write_refuse(w, "%s is not verified by '%s'", id, u->source);
	if ((min = dtk_write_high_min(w)) < 0)
		return DTK_EXIT_INVALID;
	if (high && left < (size_t)min)
		return dtk_write_refuse(w,
		                        "%s is high and would keep %zu verified_by source%s; "
		                        "high needs %d (policy.high_min_verified): lower it in "
		                        "the same command (--confidence medium)",
		                        id, left, left == 1 ? "" : "s", min);
	if (dtk_yedit_remove_item(&f->doc, e, "verified_by", (size_t)i) < 0 ||
	    (u->level >= 0 &&
	     dtk_yedit_set_key(&f->doc, e, "confidence",
	                       (struct dtk_yscalar){dtk_confidence_names[u->level], 1},
	                       dtk_entry_keys) < 0))
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: no longer verified by %s (%zu left)", id, u->source, left);
	if (u->level >= 0)
		dtk_buf_printf(lines, "; confidence %s", dtk_confidence_names[u->level]);
	dtk_buf_putc(lines, '\n');
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"confidence", 'c', DTK_OPT_CHOICE, .choices = dtk_confidence_names,
         .help = "also set the confidence (high, medium or low)"},
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct unverify u = {a->argv[1], (int)dtk_args_int(a, 'c', -1)};

	return dtk_write_entries(ctx, 1, a->argv, S_unverify, &u);
}

const struct dtk_cmd dtk_cmd_unverify = {
        .name = "unverify",
        .summary = "remove one corroborating source of an entry",
        .help = "\nRemoves <source-id> from the entry's verified_by. Refused when the entry\n"
                "is not verified by it, and when a high entry would keep fewer than\n"
                "policy.high_min_verified sources: lower it in the same command.\n"
                "Prints '<id>: no longer verified by <source> (<n> left)'.\n",
        .examples = "examples:\n"
                    "  dtk unverify training-parallelism-008 megatron-2021 --confidence low\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<entry-id> <source-id>",
        .run = S_run,
};
