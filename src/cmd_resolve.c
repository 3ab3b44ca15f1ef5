/* cmd_resolve.c: dtk resolve: mark a contradiction resolved. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <getopt.h>
#include <string.h>

struct res {
	const char *other, *note;
};

static int S_resolve(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                     const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	static const char *const keys[] = {"id", "status", "note", NULL};
	struct res *r = arg;
	int i = dtk_write_list_has(e, "contradicts", r->other, "id");
	const struct dtk_yval *c;

	(void)times;
	if (i < 0)
		return dtk_write_refuse(w, "%s has no contradiction with %s", id, r->other);
	c = dtk_yval_get(e, "contradicts")->items[i];
	if (dtk_yedit_set_key(&f->doc, c, "status", (struct dtk_yscalar){"resolved", 1}, keys) <
	            0 ||
	    (r->note &&
	     dtk_yedit_set_key(&f->doc, c, "note", (struct dtk_yscalar){r->note, 0}, keys) < 0))
		return dtk_cmd_fail(w->ctx, w->cmd, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: contradiction with %s resolved\n", id, r->other);
	return DTK_EXIT_OK;
}

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
	        {"note", required_argument, NULL, 'n'}, DTK_WRITE_LONGOPTS, {NULL, 0, NULL, 0}};
	struct res res = {NULL, NULL};
	struct dtk_write w;
	int c, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx, "resolve");
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv, "", opts)) != -1) {
		if (c == 'n')
			res.note = optarg;
		else if (dtk_write_option(&w, c, optarg) != 1)
			goto done;
	}
	if (dtk_cmd_operands(ctx, "resolve", argc, argv, 2, 2, "<entry-id> <other-id>") < 0)
		goto done;
	if (dtk_write_check_text(&w, "--note", "note", res.note))
		goto done;
	res.other = argv[optind + 1];
	rc = dtk_write_each(&w, optind + 1, argv, optind, S_resolve, &res);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_resolve = {
        .name = "resolve",
        .usage = "dtk resolve [--note TEXT] [--dry-run] [--format text|json] [--no-reindex] "
                 "<entry-id> <other-id>",
        .summary = "mark the contradiction of an entry with another resolved",
        .help = "\nSets status: resolved on the entry's contradiction with <other-id>, and\n"
                "its note to TEXT when given. Refused when there is no such contradiction.\n\n"
                "options:\n"
                "  --note TEXT      how it was resolved\n" DTK_WRITE_HELP "\n"
                "examples:\n"
                "  dtk resolve alpha-003 alpha-001 --note 'both hold, at different scales'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS,
        .exec = S_exec,
};
