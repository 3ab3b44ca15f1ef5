/* cmd_edit.c: dtk edit: correct an entry's title, claim or source in place. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

/* The keys dtk edit sets, and the options that give them. */
static const char *const S_keys[] = {"title", "claim", "source"};
static const char *const S_names[] = {"--title", "--claim", "--source"};

struct edit {
	const char *val[3]; /* of S_keys; NULL: not given */
	char date[11];
};

static int S_edit(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                  const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	struct edit *ed = arg;
	const char *src = ed->val[2], *old = dtk_yval_str(e, "source");
	struct dtk_buf what = DTK_BUF_INIT; /* "title, claim" */
	int known, rc;

	(void)times;
	if (src && (!old || strcmp(old, src))) { /* a new source */
		if ((known = dtk_write_source_known(w, src)) <= 0)
			return known < 0 ? DTK_EXIT_INVALID
			                 : dtk_write_refuse(w,
			                                    "unknown source '%s' (not in "
			                                    "insights/_sources.yaml; add it with 'dtk "
			                                    "add-source')",
			                                    src);
		if (dtk_yval_list_find(e, "verified_by", src, NULL) >= 0)
			return dtk_write_refuse(w,
			                        "'%s' verifies %s; its own source must be another "
			                        "(dtk unverify %s %s first)",
			                        src, id, id, src);
	}
	rc = dtk_write_revise(w, f, e, S_keys, ed->val, 3, dtk_entry_keys, ed->date, &what);
	if (rc == DTK_EXIT_OK && !what.len)
		rc = dtk_write_refuse(w, "%s already reads so: nothing to change", id);
	else if (rc == DTK_EXIT_OK)
		dtk_buf_printf(lines, "%s: %s revised %s\n", id, what.ptr, ed->date);
	dtk_buf_release(&what);
	return rc;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"title", 't', DTK_OPT_STRING, .arg = "T", .help = "the new title"},
        {"claim", 'c', DTK_OPT_STRING, .arg = "C", .help = "the new claim"},
        {"source", 's', DTK_OPT_STRING, .arg = "S", .help = "the new source (a source id)"},
        DTK_WRITE_DATE_OPTS("the revision's date (default today; not after it)"),
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct edit ed = {{dtk_args_str(a, 't'), dtk_args_str(a, 'c'), dtk_args_str(a, 's')}, ""};
	struct dtk_write w;
	int k, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	if (dtk_write_date(&w, ed.date) < 0)
		goto done;
	for (k = 0; k < 3; k++)
		if (dtk_write_check_text(&w, S_names[k], S_keys[k], ed.val[k]))
			goto done;
	if (!ed.val[0] && !ed.val[1] && !ed.val[2]) {
		dtk_cmd_usage_error(ctx, "nothing to change: give --title, --claim or "
		                         "--source");
		goto done;
	}
	rc = dtk_write_each(&w, 1, a->argv, 0, S_edit, &ed);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_edit = {
        .name = "edit",
        .summary = "correct an entry's title, claim or source in place",
        .help = "\nReplaces the values given, in place: the id, the other keys and every\n"
                "other byte of the file stay. Sets 'revised' to today (or --date), so\n"
                "that 'dtk crystallize --plan' lists the entry among those revised since\n"
                "the last run. Refused: nothing given, a blank value, values as they are,\n"
                "a source not in insights/_sources.yaml or one that verifies the entry.\n"
                "Prints '<id>: <keys> revised <date>'.\n",
        .examples = "examples:\n"
                    "  dtk edit weight-management-002 --claim '瓶颈在发送端编排。'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<entry-id>",
        .run = S_run,
};
