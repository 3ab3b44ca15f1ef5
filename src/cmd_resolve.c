/* cmd_resolve.c: dtk resolve: mark a contradiction resolved. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <getopt.h>
#include <string.h>

/* Sets status: resolved (and note) on contradiction i of entry e in f. */
static int S_set(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e, int i,
                 const char *note)
{
	static const char *const keys[] = {"id", "status", "note", NULL};
	const struct dtk_yval *c = dtk_yval_get(e, "contradicts")->items[i];
	if (dtk_yedit_set_key(&f->doc, c, "status", (struct dtk_yscalar){"resolved", 1}, keys) <
	            0 ||
	    (note &&
	     dtk_yedit_set_key(&f->doc, c, "note", (struct dtk_yscalar){note, 0}, keys) < 0))
		return dtk_cmd_fail(w->ctx, w->cmd, DTK_EXIT_INVALID);
	return DTK_EXIT_OK;
}

/* Resolves the contradiction of a and b, declared on either (or both). */
static int S_resolve(struct dtk_write *w, const char *a, const char *b, const char *note)
{
	struct dtk_buf lines = DTK_BUF_INIT;
	struct dtk_wfile *fa = NULL, *fb = NULL;
	const struct dtk_yval *ea = dtk_write_entry(w, a, &fa), *eb;
	const char *ids[2];
	size_t n = 0;
	int i, k, rc;

	if (!ea)
		return DTK_EXIT_INVALID;
	eb = strcmp(a, b) ? dtk_write_find(w, b, &fb) : NULL;
	i = dtk_yval_list_find(ea, "contradicts", b, "id");
	k = eb ? dtk_yval_list_find(eb, "contradicts", a, "id") : -1;
	if (i < 0 && k < 0)
		return dtk_write_refuse(w, "%s and %s have no contradiction (on either entry)", a,
		                        b);
	if (i >= 0 && (rc = S_set(w, fa, ea, i, note)) != DTK_EXIT_OK)
		return rc;
	if (k >= 0 && (rc = S_set(w, fb, eb, k, note)) != DTK_EXIT_OK)
		return rc;
	if (i >= 0) {
		ids[n++] = a;
		dtk_buf_printf(&lines, "%s: contradiction with %s resolved\n", a, b);
	}
	if (k >= 0) {
		ids[n++] = b;
		dtk_buf_printf(&lines, "%s: contradiction with %s resolved\n", b, a);
	}
	rc = dtk_write_commit(w);
	if (rc == DTK_EXIT_OK)
		dtk_write_print_entries(w, ids, n, 1, dtk_buf_cstr(&lines));
	dtk_buf_release(&lines);
	return rc;
}

/* The options of the command (the dispatcher and dtk_cmd_getopt read them). */
static const struct option S_options[] = {
        {"note", required_argument, NULL, 'n'}, DTK_WRITE_LONGOPTS, {NULL, 0, NULL, 0}};

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	const char *note = NULL;
	struct dtk_write w;
	int c, rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx, "resolve");
	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv)) != -1) {
		if (c == 'n')
			note = optarg;
		else if (dtk_write_option(&w, c, optarg) != 1)
			goto done;
	}
	if (dtk_cmd_operands(ctx, "resolve", argc, argv, 2, 2, "<entry-id> <other-id>") < 0)
		goto done;
	if (dtk_write_check_text(&w, "--note", "note", note))
		goto done;
	rc = dtk_write_known_pair(&w, argv[optind], "<other-id>", argv[optind + 1], 0);
	if (rc == DTK_EXIT_OK)
		rc = S_resolve(&w, argv[optind], argv[optind + 1], note);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_resolve = {
        .name = "resolve",
        .usage = "dtk resolve [--note TEXT] [--dry-run] [--format text|json] [--no-reindex]\n"
                 "                   <entry-id> <other-id>",
        .summary = "mark the contradiction of two entries resolved, declared on either",
        .help = "\nSets status: resolved on the contradiction of the two entries, declared\n"
                "on either (on both, when both declare it), and its note to TEXT when\n"
                "given. Refused when neither entry has the contradiction.\n\n"
                "options:\n"
                "  --note TEXT      how it was resolved\n" DTK_WRITE_HELP "\n"
                "examples:\n"
                "  dtk resolve large-scale-training-004 large-scale-training-003 \\\n"
                "      --note 'both hold, at different bandwidths'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .options = S_options,
        .exec = S_exec,
};
