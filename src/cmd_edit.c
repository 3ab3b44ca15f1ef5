/* cmd_edit.c: dtk edit: correct an entry's title, claim or source in place. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

struct edit {
	const char *key[3], *val[3]; /* title, claim, source: those given */
	size_t n;
	char date[11];
};

static int S_edit(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                  const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	struct edit *ed = arg;
	struct dtk_buf what = DTK_BUF_INIT; /* "title, claim" */
	size_t i;
	int known, rc = DTK_EXIT_OK;

	(void)times;
	for (i = 0; i < ed->n; i++) {
		const char *old = dtk_yval_str(e, ed->key[i]);
		if (old && !strcmp(old, ed->val[i]))
			continue; /* as it is: not an edit */
		if (!strcmp(ed->key[i], "source")) {
			if ((known = dtk_write_source_known(w, ed->val[i])) < 0) {
				rc = DTK_EXIT_INVALID;
				goto done;
			}
			if (!known) {
				rc = dtk_write_refuse(w,
				                      "unknown source '%s' (not in "
				                      "insights/_sources.yaml; add it with 'dtk "
				                      "add-source')",
				                      ed->val[i]);
				goto done;
			}
			if (dtk_yval_list_find(e, "verified_by", ed->val[i], NULL) >= 0) {
				rc = dtk_write_refuse(w,
				                      "'%s' verifies %s; its own source must be "
				                      "another (dtk unverify %s %s first)",
				                      ed->val[i], id, id, ed->val[i]);
				goto done;
			}
		}
		if (dtk_yedit_set_key(&f->doc, e, ed->key[i], (struct dtk_yscalar){ed->val[i], 0},
		                      dtk_entry_keys) < 0) {
			rc = dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
			goto done;
		}
		dtk_buf_printf(&what, "%s%s", what.len ? ", " : "", ed->key[i]);
	}
	if (!what.len)
		rc = dtk_write_refuse(w, "%s already reads so: nothing to change", id);
	else if (dtk_yedit_set_key(&f->doc, e, "revised", (struct dtk_yscalar){ed->date, 1},
	                           dtk_entry_keys) < 0)
		rc = dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	else
		dtk_buf_printf(lines, "%s: %s revised %s\n", id, what.ptr, ed->date);
done:
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
	static const char *const keys[] = {"title", "claim", "source"};
	static const char *const opts[] = {"--title", "--claim", "--source"};
	const char *vals[3];
	struct edit ed = {{NULL}, {NULL}, 0, ""};
	struct dtk_write w;
	int k, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	vals[0] = dtk_args_str(a, 't');
	vals[1] = dtk_args_str(a, 'c');
	vals[2] = dtk_args_str(a, 's');
	if (dtk_write_date(&w, ed.date) < 0)
		goto done;
	for (k = 0; k < 3; k++) {
		if (!vals[k])
			continue;
		if (dtk_write_check_text(&w, opts[k], keys[k], vals[k]))
			goto done;
		ed.key[ed.n] = keys[k];
		ed.val[ed.n++] = vals[k];
	}
	if (!ed.n) {
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
