/* cmd_unrelate.c: dtk unrelate: remove one relation of an entry. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

static int S_unrelate(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                      const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	const char *other = arg;
	int i = dtk_yval_list_find(e, "relates", other, NULL);

	(void)times;
	if (i < 0)
		return dtk_write_refuse(w, "%s does not relate to %s", id, other);
	if (dtk_yedit_remove_item(&f->doc, e, "relates", (size_t)i) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: no longer relates to %s\n", id, other);
	return DTK_EXIT_OK;
}

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	return dtk_write_entries(ctx, 1, a->argv, S_unrelate, a->argv[1]);
}

const struct dtk_cmd dtk_cmd_unrelate = {
        .name = "unrelate",
        .summary = "remove one relation of an entry",
        .help = "\nRemoves <other-id> from the entry's relates ([a, b] becomes [a]; a block\n"
                "list loses the item's line; the last one leaves 'relates: []'). Refused\n"
                "when the entry does not relate to <other-id>.\n",
        .examples = "examples:\n"
                    "  dtk unrelate weight-management-002 weight-management-001\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = dtk_write_opts,
        .operands = "<entry-id> <other-id>",
        .run = S_run,
};
