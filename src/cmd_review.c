/* cmd_review.c: dtk review: record that entries were confirmed still true. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

static int S_review(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                    const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	const char *date = arg;
	(void)times;
	if (dtk_yedit_set_key(&f->doc, e, "reviewed", (struct dtk_yscalar){date, 1},
	                      dtk_entry_keys) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: reviewed %s\n", id, date);
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        DTK_WRITE_DATE_OPTS("the date of the review (default: today; not after it)"),
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_write w;
	char date[11];
	int rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	if (dtk_write_date(&w, date) == 0)
		rc = dtk_write_each(&w, a->argc, a->argv, 0, S_review, date);
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_review = {
        .name = "review",
        .summary = "record that entries were confirmed still true (reviewed)",
        .help = "\nSets 'reviewed' of each entry to today, or to --date (it must not be before\n"
                "the entry's 'created': the edit is validated with the whole base first).\n"
                "Prints '<id>: reviewed <date>' per entry.\n",
        .examples = "examples:\n"
                    "  dtk review weight-management-001 weight-management-002 --date 2026-11-01\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<entry-id>...",
        .run = S_run,
};
