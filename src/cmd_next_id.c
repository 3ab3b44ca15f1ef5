/* cmd_next_id.c: dtk next-id: a fresh id for an entry of a node written by
 * hand. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/json.h"
#include "dtk/kb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Refuses arg, which is not a node name; names the node a path stands for
 * ("insights/x.yaml": 'x'). */
static int S_not_a_name(struct dtk_ctx *ctx, const char *arg)
{
	const char *base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	size_t n = strlen(base);
	char *name = dtk_xstrndup(base, n > 5 && !strcmp(base + n - 5, ".yaml") ? n - 5 : n);

	if (dtk_is_name(name))
		dtk_cmd_usage_error(ctx, "'%s' is not a node name; did you mean '%s'?", arg, name);
	else
		dtk_cmd_usage_error(ctx, "'%s' is not a node name", arg);
	free(name);
	return DTK_EXIT_INVALID;
}

/* Writes to buf a fresh id of node that none of its entries has: the birth
 * id of an entry nobody else can describe (128 random bits for its source).
 * Returns 0, or -1 with the error set when there is no randomness. */
static int S_fresh(const struct dtk_node *node, char *buf, size_t size)
{
	unsigned char r[16];
	char hex[33];
	unsigned nonce = 0;
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return dtk_error("cannot read random bytes: %s", strerror(errno));
	for (i = 0; i < sizeof(r); i++)
		snprintf(hex + 2 * i, 3, "%02x", r[i]);
	do {
		dtk_entry_id_birth(buf, size, node->name, "", "", hex, nonce++);
		for (i = 0; i < node->n_entries && strcmp(node->entries[i].id, buf); i++)
			;
	} while (i < node->n_entries);
	return 0;
}

/* Writes {"id": id} to out, as the JSON writer ends it. */
static void S_put_json(FILE *out, const char *id)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;

	dtk_json_init(&j, &b);
	dtk_json_object(&j);
	dtk_json_kstring(&j, "id", id);
	dtk_json_end(&j, '}');
	fputs(dtk_buf_cstr(&b), out);
	dtk_buf_release(&b);
}

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_kb *kb = NULL;
	const char *name;
	char id[300];
	int rc;

	name = a->argv[0];
	if (!dtk_is_name(name))
		return S_not_a_name(ctx, name);
	if (!dtk_kb_has_node(ctx->root, name)) {
		struct dtk_buf what = DTK_BUF_INIT;
		dtk_buf_printf(&what, "dtk %s: error: no node '%s'", ctx->cmd->name, name);
		dtk_kb_suggest_node(ctx->err, ctx->root, what.ptr, name);
		dtk_buf_release(&what);
		return DTK_EXIT_INVALID;
	}
	rc = dtk_cmd_load(ctx, &kb, DTK_KB_ONE_NODE | DTK_KB_LEAN, name);
	if (rc == DTK_EXIT_OK) {
		if (S_fresh(dtk_kb_node(kb, name), id, sizeof(id)) < 0)
			rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		else if (dtk_args_int(a, 'f', 0) == 1)
			S_put_json(ctx->out, id);
		else
			fprintf(ctx->out, "%s\n", id);
	}
	dtk_cmd_unload(ctx, kb);
	return rc;
}

static const char *const S_formats[] = {"text", "json", NULL};

static const struct dtk_opt S_opts[] = {{"format", 'f', DTK_OPT_CHOICE, DTK_OPT_SHORT,
                                         .choices = S_formats,
                                         .help = "text (the id alone) or json ({\"id\": ...})"},
                                        {0}};

const struct dtk_cmd dtk_cmd_next_id = {
        .name = "next-id",
        .usage = "dtk next-id <node> [--format text|json]",
        .summary = "print a fresh id for an entry of the node written by hand",
        .help = "\nA fresh id, <node>-<7 letters and digits>, random (a different one at each\n"
                "run) and taken by no entry of the node: two writers who never see each\n"
                "other's work practically never take the same one (docs/schema.md). It is\n"
                "not a sequence number: there is no next one. 'dtk add' gives its entry\n"
                "such an id itself.\n\n"
                "examples:\n"
                "  dtk next-id collective-communication     # a random id of the node\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_READ_ONLY,
        .opts = S_opts,
        .operands = "<node>",
        .run = S_run,
};
