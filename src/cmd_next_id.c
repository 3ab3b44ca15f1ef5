/* cmd_next_id.c: dtk next-id: the id the next entry of a node should take. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/kb.h"

#include <stdlib.h>
#include <string.h>

/* The highest number an entry id can have: nine digits (docs/schema.md). */
#define DTK_MAX_ENTRY_NUMBER 999999999L

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_kb *kb = NULL;
	const struct dtk_node *node;
	long max = 0;
	int width = 3, rc;
	size_t i, plen;

	if (argc != 2 || !dtk_is_name(argv[1])) {
		fprintf(ctx->err, "usage: %s\n", dtk_cmd_next_id.usage);
		return DTK_EXIT_INVALID;
	}
	if (!dtk_kb_has_node(ctx->root, argv[1])) {
		struct dtk_buf what = DTK_BUF_INIT;
		dtk_buf_printf(&what, "dtk next-id: error: no node '%s'", argv[1]);
		dtk_kb_suggest_node(ctx->err, ctx->root, what.ptr, argv[1]);
		dtk_buf_release(&what);
		return DTK_EXIT_INVALID;
	}
	rc = dtk_cmd_load(ctx, "next-id", &kb, DTK_KB_ONE_NODE | DTK_KB_LEAN, argv[1]);
	if (rc == DTK_EXIT_OK) {
		node = kb->nodes[0];
		for (i = 0; i < node->n_entries; i++) {
			const char *id = node->entries[i].id;
			long n;
			dtk_entry_id_split(id, &plen);
			n = atol(id + plen + 1);
			if (n > max)
				max = n;
			if ((int)strlen(id + plen + 1) > width)
				width = (int)strlen(id + plen + 1);
		}
		if (max >= DTK_MAX_ENTRY_NUMBER) {
			/* the schema allows at most nine digits */
			fprintf(ctx->err,
			        "dtk next-id: error: node '%s' has used the last entry number "
			        "(%s-%ld); ids have at most 9 digits\n",
			        node->name, node->name, max);
			rc = DTK_EXIT_INVALID;
		} else {
			fprintf(ctx->out, "%s-%0*ld\n", node->name, width, max + 1);
			rc = DTK_EXIT_OK;
		}
	}
	dtk_kb_free(kb);
	return rc;
}

const struct dtk_cmd dtk_cmd_next_id = {
        .name = "next-id",
        .usage = "dtk next-id <node>",
        .summary = "print the id the node's next entry should take",
        .help = "\nOne more than the highest number among the node's entry ids, written\n"
                "with as many digits as its ids use (at least three).\n\n"
                "examples:\n"
                "  dtk next-id collective-communication     # collective-communication-014\n",
        .flags = DTK_CMD_NEEDS_KB,
        .exec = S_exec,
};
