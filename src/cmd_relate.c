/* cmd_relate.c: dtk relate: record that an entry relates to another. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <getopt.h>
#include <string.h>

static int S_relate(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                    const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	const char *other = arg;
	(void)times;
	if (!strcmp(other, id))
		return dtk_write_refuse(w, "an entry does not relate to itself");
	if (dtk_yval_list_find(e, "relates", other, NULL) >= 0)
		return dtk_write_refuse(w, "%s already relates to %s", id, other);
	if (dtk_yedit_append(&f->doc, e, "relates", (struct dtk_yscalar){other, 0},
	                     dtk_yedit_entry_keys) < 0)
		return dtk_cmd_fail(w->ctx, w->cmd, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: relates to %s\n", id, other);
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher and dtk_cmd_getopt read them). */
static const struct option S_options[] = {DTK_WRITE_LONGOPTS, {NULL, 0, NULL, 0}};

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_write w;
	int c, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx, "relate");
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv)) != -1)
		if (dtk_write_option(&w, c, optarg) != 1)
			goto done;
	if (dtk_cmd_operands(ctx, "relate", argc, argv, 2, 2, "<entry-id> <other-id>") < 0)
		goto done;
	rc = dtk_write_known_pair(&w, argv[optind], "<other-id>", argv[optind + 1], 0);
	if (rc == DTK_EXIT_OK)
		rc = dtk_write_each(&w, optind + 1, argv, optind, S_relate, argv[optind + 1]);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_relate = {
        .name = "relate",
        .usage = "dtk relate [--dry-run] [--format text|json] [--no-reindex]\n"
                 "                  <entry-id> <other-id>",
        .summary = "record that an entry relates to another",
        .help = "\nAppends <other-id> to the entry's relates: an entry of this base (it must\n"
                "exist) or <domain>:<entry-id> in another domain. Refused: the entry\n"
                "itself, an id already there.\n\n"
                "options:\n" DTK_WRITE_HELP "\n"
                "examples:\n"
                "  dtk relate weight-management-002 weight-management-004\n"
                "  dtk relate weight-management-002 inference-system:engine-architecture-001\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .options = S_options,
        .exec = S_exec,
};
