/* cmd_review.c: dtk review: record that entries were confirmed still true. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <getopt.h>
#include <string.h>

static int S_review(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                    const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	const char *date = arg;
	(void)times;
	if (dtk_yedit_set_key(&f->doc, e, "reviewed", (struct dtk_yscalar){date, 1},
	                      dtk_yedit_entry_keys) < 0)
		return dtk_cmd_fail(w->ctx, w->cmd, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: reviewed %s\n", id, date);
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher and dtk_cmd_getopt read them). */
static const struct option S_options[] = {{"date", required_argument, NULL, 'd'},
                                          {"allow-future", no_argument, NULL, 'F'},
                                          DTK_WRITE_LONGOPTS,
                                          {NULL, 0, NULL, 0}};

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_write w;
	const char *arg = NULL;
	char date[11];
	int c, rc = DTK_EXIT_INVALID, allow_future = 0;

	dtk_write_init(&w, ctx, "review");
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv)) != -1) {
		if (c == 'd')
			arg = optarg;
		else if (c == 'F')
			allow_future = 1;
		else if (dtk_write_option(&w, c, optarg) != 1)
			goto done;
	}
	if (dtk_cmd_operands(ctx, "review", argc, argv, 1, 1 << 20, "<entry-id>") < 0 ||
	    dtk_write_date(&w, "--date", arg, allow_future, date) < 0)
		goto done;
	rc = dtk_write_each(&w, argc, argv, optind, S_review, date);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_review = {
        .name = "review",
        .usage = "dtk review [--date YYYY-MM-DD [--allow-future]] [--dry-run]\n"
                 "                  [--format text|json] [--no-reindex] <entry-id>...",
        .summary = "record that entries were confirmed still true (reviewed)",
        .help = "\nSets 'reviewed' of each entry to today, or to --date (it must not be before\n"
                "the entry's 'created': the edit is validated with the whole base first).\n"
                "Prints '<id>: reviewed <date>' per entry.\n\n"
                "options:\n"
                "  --date YYYY-MM-DD  the date of the review (default: today; not after it)\n"
                "  --allow-future   accept a --date after today\n" DTK_WRITE_HELP "\n"
                "examples:\n"
                "  dtk review weight-management-001 weight-management-002 --date 2026-11-01\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .options = S_options,
        .exec = S_exec,
};
