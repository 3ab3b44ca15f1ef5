/* cmd_bloom.c: dtk bloom: set a node's Bloom level. */
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
	int c, k, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx, "bloom");
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv)) != -1)
		if (dtk_write_option(&w, c, optarg) != 1)
			goto done;
	if (dtk_cmd_operands(ctx, "bloom", argc, argv, 2, 2, "<node> <level>") < 0)
		goto done;
	k = dtk_cmd_choice(ctx, "bloom", "<level>", argv[optind + 1], dtk_bloom_names,
	                   DTK_BLOOM_COUNT);
	if (k < 0)
		goto done;
	dtk_buf_printf(&line, "%s: bloom %s\n", argv[optind], dtk_bloom_names[k]);
	rc = dtk_write_node_key(&w, argv[optind], "bloom",
	                        (struct dtk_yscalar){dtk_bloom_names[k], 1}, line.ptr);
done:
	dtk_buf_release(&line);
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_bloom = {
        .name = "bloom",
        .usage = "dtk bloom [--dry-run] [--format text|json] [--no-reindex] <node> <level>",
        .summary = "set a node's Bloom level",
        .help = "\nSets the node's 'bloom': remember, understand, apply, analyze, evaluate or\n"
                "create.\n\n"
                "options:\n" DTK_WRITE_HELP "\n"
                "examples:\n"
                "  dtk bloom weight-management analyze\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .options = S_options,
        .exec = S_exec,
};
