/* cmd_close.c: dtk close: mark entries closed (an outcome was fed back). */
#include "dtk/cmd.h"

#include "dtk/write.h"

static int S_close(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                   const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	(void)times;
	(void)arg;
	if (dtk_yedit_set_key(&f->doc, e, "closed", (struct dtk_yscalar){"true", 1},
	                      dtk_entry_keys) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: closed\n", id);
	return DTK_EXIT_OK;
}

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	return dtk_write_entries(ctx, a->argc, a->argv, S_close, NULL);
}

const struct dtk_cmd dtk_cmd_close = {
        .name = "close",
        .summary = "mark entries closed: an outcome was fed back",
        .help = "\nSets 'closed: true' on each entry (added when absent). Validated with the\n"
                "whole base before anything is written. Prints '<id>: closed' per entry.\n",
        .examples = "examples:\n"
                    "  dtk close training-parallelism-008\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = dtk_write_opts,
        .operands = "<entry-id>...",
        .run = S_run,
};
