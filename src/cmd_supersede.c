/* cmd_supersede.c: dtk supersede: a newer entry replaces an older one. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

struct sup {
	const char *by;
	char date[11];
};

static int S_supersede(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                       const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	struct sup *s = arg;
	const struct dtk_yval *n;
	struct dtk_wfile *nf = NULL;
	const char *born;
	char why[300];

	(void)times;
	if (dtk_write_date(w, s->date) < 0)
		return DTK_EXIT_INVALID;
	if (!strcmp(s->by, id))
		return dtk_write_refuse(w, "an entry does not supersede itself");
	if (dtk_write_retired(e, why, sizeof(why)))
		return dtk_write_refuse(w, "%s is %s already", id, why);
	if (!(n = dtk_write_entry(w, s->by, &nf)))
		return DTK_EXIT_INVALID;
	if (dtk_write_retired(n, why, sizeof(why)))
		return dtk_write_refuse(w, "%s is %s: the entry that replaces another must be live",
		                        s->by, why);
	born = dtk_yval_str(n, "created");
	if (born && strcmp(s->date, born) < 0) /* YYYY-MM-DD: in the order of the days */
		return dtk_write_refuse(w,
		                        "the date %s is before %s was created (%s): an entry "
		                        "replaces another once it exists",
		                        s->date, s->by, born);
	if (dtk_yedit_set_key(&f->doc, e, "superseded_by", (struct dtk_yscalar){s->by, 0},
	                      dtk_entry_keys) < 0 ||
	    dtk_yedit_set_key(&f->doc, e, "superseded", (struct dtk_yscalar){s->date, 1},
	                      dtk_entry_keys) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: superseded by %s on %s\n", id, s->by, s->date);
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        DTK_WRITE_DATE_OPTS("the date (default today; not after it)"), DTK_WRITE_OPTS, {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct sup s = {a->argv[1], ""};

	/* each id named by its own operand's name */
	return dtk_write_pair(ctx, "<old-id>", "<new-id>", 0, S_supersede, &s);
}

const struct dtk_cmd dtk_cmd_supersede = {
        .name = "supersede",
        .summary = "mark an entry replaced by a newer one (kept as history)",
        .help = "\nSets superseded_by: <new-id> and superseded: today (or --date) on the\n"
                "older entry, which stays in its file: references to it still resolve, and\n"
                "'dtk show' of either says so. A superseded entry is left out of INDEX.md's\n"
                "counts, high list and candidates, and out of 'dtk search' and 'dtk list'\n"
                "(unless --include-retired). Refused: the entry itself, an entry retired\n"
                "already, a <new-id> that is not a live entry of this base, a date before\n"
                "<new-id> was created.\n",
        .examples = "examples:\n"
                    "  dtk supersede weight-management-002 weight-management-005\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<old-id> <new-id>",
        .run = S_run,
};
