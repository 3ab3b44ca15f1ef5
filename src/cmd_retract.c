/* cmd_retract.c: dtk retract: withdraw an entry, kept as a tombstone. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

struct retract {
	const char *reason;
	char date[11];
};

static int S_retract(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                     const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	struct retract *r = arg;
	char why[300];

	(void)times;
	if (dtk_write_retired(e, why, sizeof(why)))
		return dtk_write_refuse(w, "%s is %s already", id, why);
	if (dtk_yedit_set_key(&f->doc, e, "retracted", (struct dtk_yscalar){r->date, 1},
	                      dtk_entry_keys) < 0 ||
	    dtk_yedit_set_key(&f->doc, e, "retracted_reason", (struct dtk_yscalar){r->reason, 0},
	                      dtk_entry_keys) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: retracted on %s\n", id, r->date);
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"reason", 'r', DTK_OPT_STRING, DTK_OPT_NEEDED, .arg = "R",
         .help = "why it is withdrawn (required)"},
        DTK_WRITE_DATE_OPTS("the date (default today; not after it)"),
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct retract r = {NULL, ""};
	struct dtk_write w;
	int rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	r.reason = dtk_args_str(a, 'r');
	if (dtk_write_date(&w, r.date) < 0)
		goto done;
	if (!r.reason) {
		dtk_cmd_usage_error(ctx, "--reason is required: say why it is withdrawn");
		goto done;
	}
	if (dtk_write_check_text(&w, "--reason", "retracted_reason", r.reason))
		goto done;
	rc = dtk_write_each(&w, a->argc, a->argv, 0, S_retract, &r);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_retract = {
        .name = "retract",
        .summary = "withdraw entries with a reason (kept as tombstones)",
        .help = "\nSets retracted: today (or --date) and retracted_reason: R on each entry,\n"
                "which stays in its file: references to it still resolve, 'dtk show' says\n"
                "it is retracted and why. A retracted entry is left out of INDEX.md's\n"
                "counts, high list and candidates, and out of 'dtk search' and 'dtk list'\n"
                "(unless --include-retired); 'dtk check' warns of entries that still relate\n"
                "to it. Refused: an entry retracted or superseded already.\n",
        .examples =
                "examples:\n"
                "  dtk retract weight-management-003 --reason 'the benchmark was misconfigured'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<entry-id>...",
        .run = S_run,
};
