/* cmd_next_id.c: dtk next-id: the id the next entry of a node should take. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/kb.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* Refuses arg, which is not a node name; names the node a path stands for
 * ("insights/x.yaml": 'x'). */
static int S_not_a_name(struct dtk_ctx *ctx, const char *arg)
{
	const char *base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	size_t n = strlen(base);
	char *name = dtk_xstrndup(base, n > 5 && !strcmp(base + n - 5, ".yaml") ? n - 5 : n);

	if (dtk_is_name(name))
		dtk_cmd_usage_error(ctx, "next-id", "'%s' is not a node name; did you mean '%s'?",
		                    arg, name);
	else
		dtk_cmd_usage_error(ctx, "next-id", "'%s' is not a node name", arg);
	free(name);
	return DTK_EXIT_INVALID;
}

/* The highest number an entry id can have: nine digits (docs/schema.md). */
#define DTK_MAX_ENTRY_NUMBER 999999999L

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_kb *kb = NULL;
	const struct dtk_node *node;
	long max = 0;
	const char *name;
	int width = 3, rc;
	size_t i, plen;

	optind = 0;
	if (dtk_cmd_getopt(ctx, argc, argv, "", NULL) != -1 ||
	    dtk_cmd_operands(ctx, "next-id", argc, argv, 1, 1, "<node>") < 0)
		return DTK_EXIT_INVALID;
	name = argv[optind];
	if (!dtk_is_name(name))
		return S_not_a_name(ctx, name);
	if (!dtk_kb_has_node(ctx->root, name)) {
		struct dtk_buf what = DTK_BUF_INIT;
		dtk_buf_printf(&what, "dtk next-id: error: no node '%s'", name);
		dtk_kb_suggest_node(ctx->err, ctx->root, what.ptr, name);
		dtk_buf_release(&what);
		return DTK_EXIT_INVALID;
	}
	rc = dtk_cmd_load(ctx, "next-id", &kb, DTK_KB_ONE_NODE | DTK_KB_LEAN, name);
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
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_READ_ONLY,
        .exec = S_exec,
};
