/* cmd_bloom.c: dtk bloom: set a node's Bloom level. */
#include "dtk/cmd.h"

#include "dtk/write.h"

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	int k = dtk_cmd_choice(ctx, "<level>", a->argv[1], dtk_bloom_names, DTK_BLOOM_COUNT);

	return k < 0 ? DTK_EXIT_INVALID
	             : dtk_write_node_key(ctx, a->argv[0], "bloom",
	                                  (struct dtk_yscalar){dtk_bloom_names[k], 1}, NULL);
}

const struct dtk_cmd dtk_cmd_bloom = {
        .name = "bloom",
        .summary = "set a node's Bloom level",
        .help = "\nSets the node's 'bloom': remember, understand, apply, analyze, evaluate or\n"
                "create.\n",
        .examples = "examples:\n"
                    "  dtk bloom weight-management analyze\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = dtk_write_opts,
        .operands = "<node> <level>",
        .run = S_run,
};
