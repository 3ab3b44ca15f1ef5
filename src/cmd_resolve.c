/* cmd_resolve.c: dtk resolve: mark a contradiction resolved. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

/* Sets status: resolved (and note) on contradiction i of entry e in f. */
static int S_set(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e, int i,
                 const char *note)
{
	static const char *const keys[] = {"id", "status", "note", "opened", "resolved", NULL};
	const struct dtk_yval *c = dtk_yval_get(e, "contradicts")->items[i];
	char today[11];
	dtk_date_format(today, dtk_date_today()); /* the month's events (crystal.h) */
	if (dtk_yedit_set_key(&f->doc, c, "status", (struct dtk_yscalar){"resolved", 1}, keys) <
	            0 ||
	    dtk_yedit_set_key(&f->doc, c, "resolved", (struct dtk_yscalar){today, 1}, keys) < 0 ||
	    (note &&
	     dtk_yedit_set_key(&f->doc, c, "note", (struct dtk_yscalar){note, 0}, keys) < 0))
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	return DTK_EXIT_OK;
}

/* Returns 1 when resolving contradiction i of entry e (-1: none) with note
 * (NULL: none given) changes it: it is open, or its note is another. */
static int S_changes(const struct dtk_yval *e, int i, const char *note)
{
	const struct dtk_yval *c;
	const char *status, *old;

	if (i < 0)
		return 0;
	c = dtk_yval_get(e, "contradicts")->items[i];
	status = dtk_yval_str(c, "status");
	old = dtk_yval_str(c, "note");
	return !status || strcmp(status, "resolved") || (note && (!old || strcmp(old, note)));
}

/* Resolves the contradiction of a and b, declared on either (or both). */
static int S_resolve(struct dtk_write *w, const char *a, const char *b, const char *note)
{
	struct dtk_buf lines = DTK_BUF_INIT;
	struct dtk_wfile *fa = NULL, *fb = NULL;
	const struct dtk_yval *ea = dtk_write_entry(w, a, &fa), *eb = NULL;
	const char *ids[2];
	size_t n = 0;
	int i, k, rc;

	if (!ea)
		return DTK_EXIT_INVALID;
	if (strcmp(a, b))
		dtk_write_find(w, b, &eb, &fb);
	i = dtk_yval_list_find(ea, "contradicts", b, "id");
	k = eb ? dtk_yval_list_find(eb, "contradicts", a, "id") : -1;
	if (i < 0 && k < 0)
		return dtk_write_refuse(w, "%s and %s have no contradiction (on either entry)", a,
		                        b);
	i = S_changes(ea, i, note) ? i : -1; /* only what changes is set and said */
	k = S_changes(eb, k, note) ? k : -1;
	if (i < 0 && k < 0)
		return dtk_write_refuse(w, "the contradiction of %s and %s is resolved already%s",
		                        a, b, note ? ", with that note" : "");
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
		dtk_write_print_entries(w, ids, n, dtk_buf_cstr(&lines));
	dtk_buf_release(&lines);
	return rc;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"note", 'n', DTK_OPT_STRING, .arg = "TEXT", .help = "how it was resolved"},
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	const char *note;
	struct dtk_write w;
	int rc = DTK_EXIT_INVALID;

	dtk_write_init(&w, ctx);
	note = dtk_args_str(a, 'n');
	if (dtk_write_check_text(&w, "--note", "note", note))
		goto done;
	rc = dtk_write_known_pair(&w, "<entry-id>", a->argv[0], "<other-id>", a->argv[1], 0);
	if (rc == DTK_EXIT_OK)
		rc = S_resolve(&w, a->argv[0], a->argv[1], note);
done:
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_resolve = {
        .name = "resolve",
        .summary = "mark the contradiction of two entries resolved, declared on either",
        .help = "\nSets status: resolved on the contradiction of the two entries, declared\n"
                "on either (on both, when both declare it), and its note to TEXT when\n"
                "given. Refused when neither entry has the contradiction.\n",
        .examples = "examples:\n"
                    "  dtk resolve large-scale-training-004 large-scale-training-003 \\\n"
                    "      --note 'both hold, at different bandwidths'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<entry-id> <other-id>",
        .run = S_run,
};
