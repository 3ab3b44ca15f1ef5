/* cmd_close.c: dtk close: mark entries closed (an outcome was fed back). */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <getopt.h>

static int S_close(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                   const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	(void)times;
	(void)arg;
	if (dtk_yedit_set_key(&f->doc, e, "closed", (struct dtk_yscalar){"true", 1},
	                      dtk_yedit_entry_keys) < 0)
		return dtk_cmd_fail(w->ctx, w->cmd, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: closed\n", id);
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher and dtk_cmd_getopt read them). */
static const struct option S_options[] = {DTK_WRITE_LONGOPTS, {NULL, 0, NULL, 0}};

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_write w;
	int c, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx, "close");
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv)) != -1)
		if (dtk_write_option(&w, c, optarg) != 1)
			goto done;
	if (dtk_cmd_operands(ctx, "close", argc, argv, 1, 1 << 20, "<entry-id>") < 0)
		goto done;
	rc = dtk_write_each(&w, argc, argv, optind, S_close, NULL);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_close = {
        .name = "close",
        .usage = "dtk close [--dry-run] [--format text|json] [--no-reindex] <entry-id>...",
        .summary = "mark entries closed: an outcome was fed back",
        .help = "\nSets 'closed: true' on each entry (added when absent). Validated with the\n"
                "whole base before anything is written. Prints '<id>: closed' per entry.\n\n"
                "options:\n" DTK_WRITE_HELP "\n"
                "examples:\n"
                "  dtk close training-parallelism-008\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .options = S_options,
        .exec = S_exec,
};
