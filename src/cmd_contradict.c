/* cmd_contradict.c: dtk contradict: record an open contradiction. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

struct con {
	const char *other, *note;
};

/* Refuses the contradiction of id and other, declared already on e (the
 * entry holder, which names other): its status and note said, and dtk
 * resolve named while it is open. */
static int S_declared(struct dtk_write *w, const struct dtk_yval *e, const char *holder,
                      const char *other)
{
	int k = dtk_yval_list_find(e, "contradicts", other, "id");
	const struct dtk_yval *x = dtk_yval_get(e, "contradicts")->items[k];
	const char *st = dtk_yval_str(x, "status"), *note = dtk_yval_str(x, "note");
	int open = st && !strcmp(st, "open");

	return dtk_write_refuse(w, "%s already has a contradiction with %s (%s%s%s)%s", holder,
	                        other, st ? st : "?", note ? ": " : "", note ? note : "",
	                        open ? "; dtk resolve closes it" : "");
}

static int S_contradict(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                        const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	struct con *c = arg;
	const struct dtk_yval *l = dtk_yval_get(e, "contradicts"), *o;
	struct dtk_wfile *of;
	char today[11];
	const struct dtk_yfield fields[] = {{"id", {c->other, 0}, NULL, 0},
	                                    {"status", {"open", 1}, NULL, 0},
	                                    {"note", {c->note, 0}, NULL, 0},
	                                    {"opened", {today, 1}, NULL, 0}};
	(void)times;
	dtk_date_format(today, dtk_date_today()); /* the month's events (crystal.h) */
	if (!c->note)
		return dtk_cmd_usage_error(w->ctx, "--note is required: say what conflicts");
	if (dtk_write_check_text(w, "--note", "note", c->note))
		return DTK_EXIT_INVALID;
	if (!strcmp(c->other, id))
		return dtk_write_refuse(w, "an entry does not contradict itself");
	if (dtk_yval_list_find(e, "contradicts", c->other, "id") >= 0)
		return S_declared(w, e, id, c->other);
	/* declared from the other side: one contradiction, named once */
	if (dtk_write_find(w, c->other, &o, &of) > 0 &&
	    dtk_yval_list_find(o, "contradicts", id, "id") >= 0)
		return S_declared(w, o, c->other, id);
	if (dtk_yedit_append_map(&f->doc, e, "contradicts", l, fields, 4) < 0)
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	dtk_buf_printf(lines, "%s: contradicts %s (open)\n", id, c->other);
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {{"note", 'n', DTK_OPT_STRING, DTK_OPT_NEEDED, .arg = "TEXT",
                                         .help = "what conflicts (required)"},
                                        DTK_WRITE_OPTS,
                                        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct con con = {a->argv[1], dtk_args_str(a, 'n')};

	return dtk_write_pair(ctx, "<entry-id>", "<other-id>", 1, S_contradict, &con);
}

const struct dtk_cmd dtk_cmd_contradict = {
        .name = "contradict",
        .summary = "record an open contradiction between two entries",
        .help = "\nAppends {id: <other-id>, status: open, note: TEXT} to the entry's\n"
                "contradicts. Refused: the entry itself, a retired (superseded or\n"
                "retracted) entry, a contradiction between the two already recorded, on\n"
                "either entry (resolve it with 'dtk resolve').\n",
        .examples = "examples:\n"
                    "  dtk contradict weight-management-004 weight-management-001 \\\n"
                    "      --note 'P2P pays off only at scale'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<entry-id> <other-id>",
        .run = S_run,
};
