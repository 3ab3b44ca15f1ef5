/* cmd_reindex.c: dtk reindex: rebuild INDEX.md from insights/. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/index.h"
#include "dtk/json.h"
#include "dtk/kb.h"

#include <stdlib.h>

/* Says what became of INDEX.md: written (1) or up to date (0); with json,
 * as {"index": "INDEX.md", "written": bool} on standard output. */
static void S_report(struct dtk_ctx *ctx, int json, int written)
{
	struct dtk_buf b = DTK_BUF_INIT;
	struct dtk_json j;
	char *shown;

	if (json) {
		dtk_json_init(&j, &b);
		j.compact += !j.compact; /* one line, or dtk mcp's tight one */
		dtk_json_object(&j);
		dtk_json_kstring(&j, "index", DTK_INDEX_FILE);
		dtk_json_kbool(&j, "written", written);
		dtk_json_end(&j, '}');
		fputs(dtk_buf_cstr(&b), ctx->out);
		dtk_buf_release(&b);
		return;
	}
	shown = dtk_path_shown(DTK_INDEX_FILE);
	dtk_cmd_note(ctx, written ? "wrote %s\n" : "%s is up to date\n", shown);
	free(shown);
}

/* A dtk_page_fn saying what became of a generated page (arg: the context;
 * nothing with --format json). */
static void S_page_note(void *arg, const char *rel, int state, const char *old, size_t old_len,
                        const char *want, size_t want_len)
{
	struct dtk_ctx *ctx = arg;
	char *shown = dtk_path_shown(rel);

	(void)old, (void)old_len, (void)want, (void)want_len;
	dtk_cmd_note(ctx, state == DTK_PAGE_STALE ? "removed %s\n" : "wrote %s\n", shown);
	free(shown);
}

/* Brings the generated pages in line (pages.over: says so, exit 1). */
static int S_pages(struct dtk_ctx *ctx, int json, const struct dtk_index_pages *pages)
{
	if (dtk_index_pages_sync(ctx->root, pages, 1, json ? NULL : S_page_note, ctx) < 0)
		return dtk_cmd_fail(ctx, DTK_EXIT_DRIFT);
	if (!pages->over)
		return DTK_EXIT_OK;
	fprintf(ctx->err, "dtk %s: %s\n", ctx->cmd->name, pages->over);
	return DTK_EXIT_DRIFT;
}

/* The values of --format. */
static const char *const S_formats[] = {"text", "json", NULL};

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"stdout", 's', DTK_OPT_FLAG, .help = "print INDEX.md instead of writing it"},
        {"format", 'f', DTK_OPT_CHOICE, DTK_OPT_SHORT, .arg = "F", .choices = S_formats,
         .help = "text (the default), or json: {\"index\": \"INDEX.md\",\n"
                 "\"written\": true or false} on standard output"},
        {0}};

/* --format says what became of the file --stdout does not write. */
static const struct dtk_opt_conflict S_conflicts[] = {
        {'s', 'f', "--format says what became of INDEX.md, which --stdout does not write"}, {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_index_pages pages = {NULL, 0, NULL};
	struct dtk_buf text = DTK_BUF_INIT;
	int to_stdout = dtk_args_has(a, 's') > 0, rc;
	int json = dtk_args_int(a, 'f', 0) == 1;

	rc = dtk_index_build(ctx->root, &diags, dtk_buf_write, &text, &pages);
	if (rc == DTK_EINVALID) {
		rc = dtk_cmd_report_invalid(ctx, &diags);
	} else if (rc < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	} else if (to_stdout) { /* a failed write: said as dtk_main flushes it */
		dtk_cmd_pager(ctx);
		fwrite(text.ptr ? text.ptr : "", 1, text.len, ctx->out);
		rc = DTK_EXIT_OK;
	} else if ((rc = dtk_index_file_sync(ctx->root, DTK_INDEX_FILE, text.ptr ? text.ptr : "",
	                                     text.len, 1, NULL, NULL)) < 0) {
		/* written but not synced: 1, never 2 after a byte changed */
		rc = dtk_cmd_fail(ctx, rc == DTK_ENOSYNC ? DTK_EXIT_DRIFT : DTK_EXIT_INVALID);
	} else {
		S_report(ctx, json, rc);
		rc = S_pages(ctx, json, &pages);
	}
	dtk_index_pages_release(&pages);
	dtk_diags_release(&diags);
	dtk_buf_release(&text);
	return rc;
}

const struct dtk_cmd dtk_cmd_reindex = {
        .name = "reindex",
        .summary = "validate insights/ and rebuild INDEX.md",
        .help = "\nReads every file in insights/, validates it, and writes INDEX.md when its\n"
                "bytes change (atomically: readers see the old file or the new one). When\n"
                "any input is invalid, every error is printed and nothing is written.\n"
                "Over its budget (policy.index_max_bytes, index_max_lines), INDEX.md\n"
                "leaves out what it says, and node tables go to pages of index/, written\n"
                "and removed here too; exit 1 when a page stays over the budget.\n",
        .examples = "examples:\n"
                    "  dtk reindex\n"
                    "  dtk reindex --stdout | diff - INDEX.md\n"
                    "  dtk reindex --format json\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .conflicts = S_conflicts,
        .run = S_run,
};
