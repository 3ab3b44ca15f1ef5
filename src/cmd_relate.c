/* cmd_relate.c: dtk relate: record that an entry relates to another. */
#include "dtk/cmd.h"

#include "dtk/write.h"

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
	                     dtk_entry_keys) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: relates to %s\n", id, other);
	return DTK_EXIT_OK;
}

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	return dtk_write_pair(ctx, "<entry-id>", "<other-id>", 1, S_relate, a->argv[1]);
}

const struct dtk_cmd dtk_cmd_relate = {
        .name = "relate",
        .summary = "record that an entry relates to another",
        .help = "\nAppends <other-id> to the entry's relates: an entry of this base (it must\n"
                "exist) or <domain>:<entry-id> in another domain. Refused: the entry\n"
                "itself, an id already there, a retired (superseded or retracted) entry.\n",
        .examples = "examples:\n"
                    "  dtk relate weight-management-002 weight-management-004\n"
                    "  dtk relate weight-management-002 inference-system:engine-architecture-001\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = dtk_write_opts,
        .operands = "<entry-id> <other-id>",
        .run = S_run,
};
