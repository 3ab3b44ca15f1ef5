/* cmd_unrelate.c: dtk unrelate: remove one relation of an entry. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <getopt.h>
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
		return dtk_cmd_fail(w->ctx, w->cmd, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: no longer relates to %s\n", id, other);
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher and dtk_cmd_getopt read them). */
static const struct option S_options[] = {DTK_WRITE_LONGOPTS, {NULL, 0, NULL, 0}};

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_write w;
	int c, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx, "unrelate");
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv)) != -1)
		if (dtk_write_option(&w, c, optarg) != 1)
			goto done;
	if (dtk_cmd_operands(ctx, "unrelate", argc, argv, 2, 2, "<entry-id> <other-id>") < 0)
		goto done;
	rc = dtk_write_each(&w, optind + 1, argv, optind, S_unrelate, argv[optind + 1]);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_unrelate = {
        .name = "unrelate",
        .usage = "dtk unrelate [--dry-run] [--format text|json] [--no-reindex]\n"
                 "                    <entry-id> <other-id>",
        .summary = "remove one relation of an entry",
        .help = "\nRemoves <other-id> from the entry's relates ([a, b] becomes [a]; a block\n"
                "list loses the item's line; the last one leaves 'relates: []'). Refused\n"
                "when the entry does not relate to <other-id>.\n\n"
                "options:\n" DTK_WRITE_HELP "\n"
                "examples:\n"
                "  dtk unrelate weight-management-002 weight-management-001\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .options = S_options,
        .exec = S_exec,
};
