/* cmd_verify.c: dtk verify: record an independent corroboration of an entry. */
#include "dtk/cmd.h"

#include "dtk/write.h"

#include <string.h>

struct verify {
	const char *source;
	int promote, min;
	size_t count; /* verified_by after the edit */
};

static int S_verify(struct dtk_write *w, struct dtk_wfile *f, const struct dtk_yval *e,
                    const char *id, size_t times, struct dtk_buf *lines, void *arg)
{
	struct verify *v = arg;
	const char *own = dtk_yval_str(e, "source"), *old = dtk_yval_str(e, "confidence");
	char why[300];
	int known;

	(void)times;
	if (own && !strcmp(own, v->source))
		return dtk_write_refuse(w,
		                        "'%s' is the own source of %s; verified_by names other "
		                        "sources",
		                        v->source, id);
	if (dtk_yval_list_find(e, "verified_by", v->source, NULL) >= 0)
		return dtk_write_refuse(w, "%s is already verified by '%s'", id, v->source);
	known = dtk_write_source_known(w, v->source);
	if (known < 0)
		return DTK_EXIT_INVALID;
	if (!known)
		return dtk_write_refuse(w,
		                        "unknown source '%s' (not in insights/_sources.yaml; "
		                        "add it with 'dtk add-source')",
		                        v->source);
	v->min = dtk_write_high_min(w);
	if (v->min < 0)
		return DTK_EXIT_INVALID;
	v->count = dtk_yval_list_len(e, "verified_by") + 1;
	if (v->promote && dtk_write_retired(e, why, sizeof(why)))
		return dtk_write_refuse(w, "--promote: %s is %s: high is for live entries", id, why);
	if (v->promote && v->count < (size_t)v->min)
		return dtk_write_refuse(w,
		                        "--promote: %s would have %zu verified_by source%s; high "
		                        "needs %d (policy.high_min_verified)",
		                        id, v->count, v->count == 1 ? "" : "s", v->min);
	if (dtk_yedit_append(&f->doc, e, "verified_by", (struct dtk_yscalar){v->source, 0},
	                     dtk_entry_keys) < 0 ||
	    (v->promote &&
	     (dtk_yedit_set_key(&f->doc, e, "confidence", (struct dtk_yscalar){"high", 1},
	                        dtk_entry_keys) < 0 ||
	      (strcmp(old ? old : "", "high") &&
	       dtk_write_confidence_changed(w, f, e, old) < 0))))
		return dtk_cmd_fail(w->ctx, DTK_EXIT_INVALID);
	/* never "3 of 2": past the count high needs, both are said */
	if (v->count <= (size_t)v->min)
		dtk_buf_printf(lines, "%s: verified by %s (%zu of %d for high)", id, v->source,
		               v->count, v->min);
	else
		dtk_buf_printf(lines, "%s: verified by %s (%zu sources; high needs %d)", id,
		               v->source, v->count, v->min);
	if (v->promote)
		dtk_buf_puts(lines, "; confidence high\n");
	else if (v->count >= (size_t)v->min && strcmp(dtk_yval_str(e, "confidence") ?: "", "high"))
		dtk_buf_printf(lines, "; qualifies for high ('dtk confidence high %s' sets it)\n",
		               id);
	else
		dtk_buf_putc(lines, '\n');
	return DTK_EXIT_OK;
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"promote", 'p', DTK_OPT_FLAG,
         .help = "also set confidence: high (refused when the entry would\n"
                 "still have too few sources)"},
        DTK_WRITE_OPTS,
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct verify v = {NULL, 0, 0, 0};
	struct dtk_write w;
	int rc;

	dtk_write_init(&w, ctx);
	v.promote = dtk_args_has(a, 'p') > 0;
	v.source = a->argv[1];
	rc = dtk_write_known_pair(&w, "<entry-id>", a->argv[0], "<source-id>", v.source, 1);
	if (rc == DTK_EXIT_OK)
		rc = dtk_write_each(&w, 1, a->argv, 0, S_verify, &v);
	dtk_write_release(&w);
	return rc;
}

const struct dtk_cmd dtk_cmd_verify = {
        .name = "verify",
        .summary = "add an independent source that corroborates an entry",
        .help = "\nAppends the source to the entry's verified_by. Refused (exit 2, nothing\n"
                "written): the entry's own source, a source already there, a source not in\n"
                "insights/_sources.yaml. Says how many sources the entry now has of the\n"
                "policy.high_min_verified that high needs, and whether it qualifies.\n",
        .examples = "examples:\n"
                    "  dtk verify training-parallelism-008 megatron-lm-repo --promote\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = S_opts,
        .operands = "<entry-id> <source-id>",
        .run = S_run,
};
