/* cmd_edit_source.c: dtk edit-source: correct a source's title or url. */
#include "dtk/cmd.h"

#include "dtk/view.h"
#include "dtk/write.h"

#include <string.h>

/* Prints the source id as the base now holds it. */
static void S_print(struct dtk_write *w, const char *id, const char *what, const char *date)
{
	const struct dtk_source *s = dtk_kb_source(w->kb, id);
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;

	if (w->opts.dry_run)
		return;
	if (!w->opts.json || !s) {
		fprintf(w->ctx->out, "%s: %s revised %s\n", id, what, date);
		return;
	}
	dtk_json_init(&j, &b);
	dtk_view_source_json(&j, s);
	dtk_write_put_json(w, &b);
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"title", 't', DTK_OPT_STRING, .arg = "T", .help = "the new title"},
        {"url", 'u', DTK_OPT_STRING, .arg = "U", .help = "the new url (absolute)"},
        DTK_WRITE_DATE_OPTS("the revision's date (default today; not after it)"),
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	static const char *const keys[] = {"title", "url"};
	const char *vals[2], *id;
	struct dtk_buf what = DTK_BUF_INIT;
	const struct dtk_yval *src;
	struct dtk_wfile *f;
	struct dtk_write w;
	char day[11];
	int rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	vals[0] = dtk_args_str(a, 't');
	vals[1] = dtk_args_str(a, 'u');
	if (dtk_write_date(&w, day) < 0)
		goto done;
	id = a->argv[0];
	if (!vals[0] && !vals[1]) {
		dtk_cmd_usage_error(ctx, "nothing to change: give --title or --url");
		goto done;
	}
	if (dtk_write_check_text(&w, "--title", "title", vals[0]))
		goto done;
	if (!(f = dtk_write_open(&w, "_sources.yaml")))
		goto done;
	if (!(src = dtk_write_seq_find(f->doc.root, "id", id))) {
		dtk_write_refuse(&w, "no source '%s' in insights/_sources.yaml", id);
		goto done;
	}
	if ((rc = dtk_write_revise(&w, f, src, keys, vals, 2, dtk_source_keys, day, &what)) !=
	    DTK_EXIT_OK)
		goto done;
	if (!what.len) {
		rc = dtk_write_refuse(&w, "source '%s' already reads so: nothing to change", id);
		goto done;
	}
	rc = dtk_write_commit(&w);
	if (rc == DTK_EXIT_OK)
		S_print(&w, id, what.ptr, day);
done:
	dtk_buf_release(&what);
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_edit_source = {
        .name = "edit-source",
        .summary = "correct a source's title or url in place",
        .help = "\nReplaces the values given in the source's mapping of\n"
                "insights/_sources.yaml; the id and every other byte stay. Sets the\n"
                "source's 'revised' to today (or --date): 'dtk crystallize --plan' lists\n"
                "it among the sources revised since the last run. Refused: nothing given,\n"
                "a blank title, values as they are, an unknown source, a url that is not\n"
                "absolute. Prints '<id>: <keys> revised <date>' (json: {id, title, url,\n"
                "read, revised}).\n",
        .examples = "examples:\n"
                    "  dtk edit-source diloco-2023 --url https://arxiv.org/abs/2311.08105v3\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<source-id>",
        .run = S_run,
};
