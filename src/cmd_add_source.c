/* cmd_add_source.c: dtk add-source: a new source in _sources.yaml. */
#include "dtk/cmd.h"

#include "dtk/view.h"
#include "dtk/write.h"

#include "dtk/fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Returns 1 when the base has no insights/_sources.yaml (nothing there). */
static int S_missing(const char *root)
{
	char *p = dtk_path_join(root, "insights/_sources.yaml");
	struct stat st;
	int missing = lstat(p, &st) < 0 && errno == ENOENT;
	free(p);
	return missing;
}

/* Adds insights/_sources.yaml, new, to w: its doc an empty list to append
 * to (its text is made from it). Returns the file, or NULL after printing why. */
static struct dtk_wfile *S_create(struct dtk_write *w)
{
	static const char empty[] = "[]\n";
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_wfile *f = dtk_write_create(w, "_sources.yaml", dtk_xstrdup(empty), 3);

	if (f && dtk_ydoc_parse(&f->doc, f->rel, empty, 3, &diags) < 0) {
		dtk_cmd_report_invalid(w->ctx, &diags);
		f = NULL;
	}
	dtk_diags_release(&diags);
	return f;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"title", 't', DTK_OPT_STRING, DTK_OPT_NEEDED, .arg = "T", .help = "its title (required)"},
        {"url", 'u', DTK_OPT_STRING, .arg = "U", .help = "an absolute URL"},
        {"read", 'r', DTK_OPT_STRING, .arg = "DATE",
         .help = "when it was read (YYYY-MM-DD; not after today)"},
        {"allow-future", 'F', DTK_OPT_FLAG, .help = "accept a --read date after today"},
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	const char *title, *url, *read, *id;
	struct dtk_yfield f[4];
	struct dtk_wfile *file;
	struct dtk_write w;
	char day[11];
	size_t n = 0;
	int known, missing, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	title = dtk_args_str(a, 't');
	url = dtk_args_str(a, 'u');
	read = dtk_args_str(a, 'r');
	id = a->argv[0];
	if (dtk_write_new_name(&w, "source id", id, "--title", title) < 0)
		goto done;
	if (url && !dtk_is_url(url)) {
		dtk_cmd_usage_error(ctx, "--url must be an absolute URL (https://...), not '%s'",
		                    dtk_esc(url));
		goto done;
	}
	if (dtk_write_check_text(&w, "--title", "title", title))
		goto done;
	if (read && dtk_write_date_of(&w, "--read", read, day) < 0)
		goto done;
	missing = S_missing(ctx->root);
	if (!missing && (known = dtk_write_source_known(&w, id)) != 0) {
		if (known > 0)
			dtk_write_refuse(&w, "source '%s' already exists", id);
		goto done;
	}
	/* a base without the file gets it, holding this source */
	file = missing ? S_create(&w) : dtk_write_open(&w, "_sources.yaml");
	if (!file)
		goto done;
	f[n++] = (struct dtk_yfield){"id", {id, 0}, NULL, 0};
	f[n++] = (struct dtk_yfield){"title", {title, 0}, NULL, 0};
	if (url)
		f[n++] = (struct dtk_yfield){"url", {url, 0}, NULL, 0};
	if (read)
		f[n++] = (struct dtk_yfield){"read", {read, 1}, NULL, 0};
	if (dtk_yedit_append_map(&file->doc, NULL, NULL, file->doc.root, f, n) < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	rc = dtk_write_commit(&w);
	if (rc != DTK_EXIT_INVALID && !w.opts.dry_run) { /* written (1: not all) */
		const struct dtk_source *s = w.opts.json ? dtk_kb_source(w.kb, id) : NULL;
		if (s) {
			struct dtk_buf b = DTK_BUF_INIT;
			struct dtk_json j;
			dtk_json_init(&j, &b);
			dtk_view_source_json(&j, s);
			dtk_write_put_json(&w, &b);
		} else {
			fprintf(ctx->out, "%s\n", id);
		}
	}
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_add_source = {
        .name = "add-source",
        .summary = "add a source to insights/_sources.yaml",
        .help = "\nAppends a source (the article knowledge is distilled from) to\n"
                "insights/_sources.yaml (created when the base has none). Refused when the\n"
                "id exists. Prints the id (json: {id, title, url, read}).\n",
        .examples = "examples:\n"
                    "  dtk add-source zero-2020 --title 'ZeRO: Memory Optimizations' \\\n"
                    "      --url https://arxiv.org/abs/1910.02054\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<source-id>",
        .run = S_run,
};
