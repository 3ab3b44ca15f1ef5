/* cmd_edit.c: dtk edit: correct an entry's title, claim or source in place. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <getopt.h>
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
		                      dtk_yedit_entry_keys) < 0) {
			rc = dtk_cmd_fail(w->ctx, w->cmd, DTK_EXIT_INVALID);
			goto done;
		}
		dtk_buf_printf(&what, "%s%s", what.len ? ", " : "", ed->key[i]);
	}
	if (!what.len)
		rc = dtk_write_refuse(w, "%s already reads so: nothing to change", id);
	else if (dtk_yedit_set_key(&f->doc, e, "revised", (struct dtk_yscalar){ed->date, 1},
	                           dtk_yedit_entry_keys) < 0)
		rc = dtk_cmd_fail(w->ctx, w->cmd, DTK_EXIT_INVALID);
	else
		dtk_buf_printf(lines, "%s: %s revised %s\n", id, what.ptr, ed->date);
done:
	dtk_buf_release(&what);
	return rc;
}

/* The options of the command (the dispatcher and dtk_cmd_getopt read them). */
static const struct option S_options[] = {{"title", required_argument, NULL, 't'},
                                          {"claim", required_argument, NULL, 'c'},
                                          {"source", required_argument, NULL, 's'},
                                          {"date", required_argument, NULL, 'd'},
                                          {"allow-future", no_argument, NULL, 'F'},
                                          DTK_WRITE_LONGOPTS,
                                          {NULL, 0, NULL, 0}};

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	static const char *const keys[] = {"title", "claim", "source"};
	const char *vals[3] = {NULL, NULL, NULL}, *date = NULL;
	struct edit ed = {{NULL}, {NULL}, 0, ""};
	struct dtk_write w;
	int c, k, rc = DTK_EXIT_INVALID, allow_future = 0;

	dtk_write_init(&w, ctx, "edit");
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv)) != -1) {
		if (c == 't' || c == 'c' || c == 's')
			vals[c == 't' ? 0 : c == 'c' ? 1 : 2] = optarg;
		else if (c == 'd')
			date = optarg;
		else if (c == 'F')
			allow_future = 1;
		else if (dtk_write_option(&w, c, optarg) != 1)
			goto done;
	}
	if (dtk_cmd_operands(ctx, "edit", argc, argv, 1, 1, "<entry-id>") < 0 ||
	    dtk_write_date(&w, "--date", date, allow_future, ed.date) < 0)
		goto done;
	for (k = 0; k < 3; k++) {
		if (!vals[k])
			continue;
		if (!*vals[k] || strspn(vals[k], " \t\r\n") == strlen(vals[k])) {
			dtk_cmd_usage_error(ctx, "edit", "--%s must not be blank", keys[k]);
			goto done;
		}
		if (dtk_write_check_text(&w, k == 0 ? "--title" : "--claim", keys[k], vals[k]))
			goto done;
		ed.key[ed.n] = keys[k];
		ed.val[ed.n++] = vals[k];
	}
	if (!ed.n) {
		dtk_cmd_usage_error(ctx, "edit",
		                    "nothing to change: give --title, --claim or "
		                    "--source");
		goto done;
	}
	rc = dtk_write_each(&w, optind + 1, argv, optind, S_edit, &ed);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_edit = {
        .name = "edit",
        .usage = "dtk edit [--title T] [--claim C] [--source S]\n"
                 "                [--date YYYY-MM-DD [--allow-future]] [--dry-run]\n"
                 "                [--format text|json] [--no-reindex] <entry-id>",
        .summary = "correct an entry's title, claim or source in place",
        .help = "\nReplaces the values given, in place: the id, the other keys and every\n"
                "other byte of the file stay. Sets 'revised' to today (or --date), so\n"
                "that 'dtk crystallize --plan' lists the entry among those revised since\n"
                "the last run. Refused: nothing given, a blank value, values as they are,\n"
                "a source not in insights/_sources.yaml or one that verifies the entry.\n"
                "Prints '<id>: <keys> revised <date>'.\n\n"
                "options:\n"
                "  --title T        the new title\n"
                "  --claim C        the new claim\n"
                "  --source S       the new source (a source id)\n"
                "  --date D         the revision's date (default today; not after it)\n"
                "  --allow-future   accept a --date after today\n" DTK_WRITE_HELP "\n"
                "examples:\n"
                "  dtk edit weight-management-002 --claim '瓶颈在发送端编排。'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .options = S_options,
        .exec = S_exec,
};
