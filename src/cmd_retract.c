/* cmd_retract.c: dtk retract: withdraw an entry, kept as a tombstone. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <getopt.h>
#include <string.h>

struct retract {
	const char *reason;
	char date[11];
};

static int S_retract(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                     const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	struct retract *r = arg;
	const char *by = dtk_yval_str(e, "superseded_by");

	(void)times;
	if (dtk_yval_str(e, "retracted"))
		return dtk_write_refuse(w, "%s is retracted already", id);
	if (by)
		return dtk_write_refuse(w, "%s is superseded by %s: it is retired already", id, by);
	if (dtk_yedit_set_key(&f->doc, e, "retracted", (struct dtk_yscalar){r->date, 1},
	                      dtk_yedit_entry_keys) < 0 ||
	    dtk_yedit_set_key(&f->doc, e, "retracted_reason", (struct dtk_yscalar){r->reason, 0},
	                      dtk_yedit_entry_keys) < 0)
		return dtk_cmd_fail(w->ctx, w->cmd, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: retracted on %s\n", id, r->date);
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher and dtk_cmd_getopt read them). */
static const struct option S_options[] = {{"reason", required_argument, NULL, 'r'},
                                          {"date", required_argument, NULL, 'd'},
                                          {"allow-future", no_argument, NULL, 'F'},
                                          DTK_WRITE_LONGOPTS,
                                          {NULL, 0, NULL, 0}};

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct retract r = {NULL, ""};
	const char *date = NULL;
	struct dtk_write w;
	int c, rc = DTK_EXIT_INVALID, allow_future = 0;

	dtk_write_init(&w, ctx, "retract");
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv)) != -1) {
		if (c == 'r')
			r.reason = optarg;
		else if (c == 'd')
			date = optarg;
		else if (c == 'F')
			allow_future = 1;
		else if (dtk_write_option(&w, c, optarg) != 1)
			goto done;
	}
	if (dtk_cmd_operands(ctx, "retract", argc, argv, 1, 1 << 20, "<entry-id>") < 0 ||
	    dtk_write_date(&w, "--date", date, allow_future, r.date) < 0)
		goto done;
	if (!r.reason || strspn(r.reason, " \t\r\n") == strlen(r.reason)) {
		dtk_cmd_usage_error(ctx, "retract",
		                    "--reason is required: say why it is withdrawn");
		goto done;
	}
	if (dtk_write_check_text(&w, "--reason", "retracted_reason", r.reason))
		goto done;
	rc = dtk_write_each(&w, argc, argv, optind, S_retract, &r);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_retract = {
        .name = "retract",
        .usage = "dtk retract --reason R [--date YYYY-MM-DD [--allow-future]]\n"
                 "                   [--dry-run] [--format text|json] [--no-reindex]\n"
                 "                   <entry-id>...",
        .summary = "withdraw entries with a reason (kept as tombstones)",
        .help = "\nSets retracted: today (or --date) and retracted_reason: R on each entry,\n"
                "which stays in its file: references to it still resolve, 'dtk show' says\n"
                "it is retracted and why. A retracted entry is left out of INDEX.md's\n"
                "counts, high list and candidates, and out of 'dtk search' and 'dtk list'\n"
                "(unless --include-retired); 'dtk check' warns of entries that still relate\n"
                "to it. Refused: an entry retracted or superseded already.\n\n"
                "options:\n"
                "  --reason R       why it is withdrawn (required)\n"
                "  --date D         the date (default today; not after it)\n"
                "  --allow-future   accept a --date after today\n" DTK_WRITE_HELP "\n"
                "examples:\n"
                "  dtk retract weight-management-003 --reason 'the benchmark was misconfigured'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .options = S_options,
        .exec = S_exec,
};
