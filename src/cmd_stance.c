/* cmd_stance.c: dtk stance: set a node's current core stance. */
#include "dtk/cmd.h"

#include "dtk/write.h"

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	return dtk_write_node_key(ctx, a->argv[0], "stance", (struct dtk_yscalar){a->argv[1], 0},
	                          "the stance");
}

const struct dtk_cmd dtk_cmd_stance = {
        .name = "stance",
        .summary = "set a node's current core stance",
        .help = "\nSets the node's 'stance' (plain text; added when absent), quoted by\n"
                "libyaml's emitter so that it reads back as given.\n",
        .examples = "examples:\n"
                    "  dtk stance weight-management '权重同步是数据路径编排问题'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = dtk_write_opts,
        .operands = "<node> <text>",
        .run = S_run,
};
