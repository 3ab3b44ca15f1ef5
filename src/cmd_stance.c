/* cmd_stance.c: dtk stance: set a node's current core stance. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <getopt.h>
#include <stdlib.h>

/* The options of the command (the dispatcher and dtk_cmd_getopt read them). */
static const struct option S_options[] = {DTK_WRITE_LONGOPTS, {NULL, 0, NULL, 0}};

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_buf line = DTK_BUF_INIT;
	struct dtk_write w;
	int c, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx, "stance");
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv)) != -1)
		if (dtk_write_option(&w, c, optarg) != 1)
			goto done;
	if (dtk_cmd_operands(ctx, "stance", argc, argv, 2, 2, "<node> <text>") < 0)
		goto done;
	if (dtk_write_check_text(&w, "the stance", "stance", argv[optind + 1]))
		goto done;
	dtk_buf_printf(&line, "%s: stance set\n", argv[optind]);
	rc = dtk_write_node_key(&w, argv[optind], "stance",
	                        (struct dtk_yscalar){argv[optind + 1], 0}, line.ptr);
done:
	dtk_buf_release(&line);
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_stance = {
        .name = "stance",
        .usage = "dtk stance [--dry-run] [--format text|json] [--no-reindex] <node> <text>",
        .summary = "set a node's current core stance",
        .help = "\nSets the node's 'stance' (plain text; added when absent), quoted by\n"
                "libyaml's emitter so that it reads back as given.\n\n"
                "options:\n" DTK_WRITE_HELP "\n"
                "examples:\n"
                "  dtk stance weight-management '权重同步是数据路径编排问题'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .options = S_options,
        .exec = S_exec,
};
