/* cmd_stance.c: dtk stance: set a node's current core stance. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <stdlib.h>

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_buf line = DTK_BUF_INIT;
	struct dtk_write w;
	int rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	if (dtk_write_check_text(&w, "the stance", "stance", a->argv[1]))
		goto done;
	dtk_buf_printf(&line, "%s: stance set\n", a->argv[0]);
	rc = dtk_write_node_key(&w, a->argv[0], "stance", (struct dtk_yscalar){a->argv[1], 0},
	                        line.ptr);
done:
	dtk_buf_release(&line);
	dtk_write_release(&w);
	return rc;
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
