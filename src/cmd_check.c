/* cmd_check.c: dtk check: the CI gate. Valid data, and INDEX.md in sync. */
#include "dtk/cmd.h"

#include "dtk/crystal.h"

#include "dtk/diffview.h"
#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/git.h"
#include "dtk/index.h"
#include "dtk/invisible.h"
#include "dtk/kb.h"
#include "dtk/lock.h"
#include "dtk/nodesum.h"
#include "dtk/repo.h"
#include "dtk/ytree.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes s escaped for a GitHub workflow command (prop: a property value,
 * whose ':' and ',' are escaped too): "%25", "%0D", "%0A", "%3A", "%2C". */
static void S_gh_escape(FILE *f, const char *s, int prop)
{
	for (; *s; s++)
		if (strchr(prop ? "%\r\n:," : "%\r\n", *s))
			fprintf(f, "%%%02X", (unsigned)(unsigned char)*s);
		else
			fputc(*s, f);
}

/* How check reports: its options, and the base root's path within its git
 * work tree ("" or "dir/", "" outside a repository; malloc'd), found by
 * libgit2 for the first annotation (NULL before). */
struct check {
	struct dtk_ctx *ctx;
	int github;
	unsigned how; /* DTK_DIFF_* */
	char *prefix;
};

/* Prints one GitHub annotation: ::KIND file=prefix+path[,line=,col=]::msg.
 * Warns when libgit2 cannot be loaded (the paths are then relative to the
 * base). */
static void S_gh_note(struct check *k, const char *kind, const char *path, int line, int col,
                      const char *msg)
{
	FILE *f = k->ctx->out;

	if (!k->prefix) {
		struct dtk_repo *repo = NULL;
		int rc = dtk_repo_open(&repo, k->ctx->root);
		k->prefix = dtk_xstrdup(rc == 0 ? dtk_repo_prefix(repo) : "");
		if (rc == DTK_ENOGIT)
			fprintf(k->ctx->err,
			        "dtk %s: warning: %s; annotation paths are relative to the base\n",
			        k->ctx->cmd->name, dtk_error_last());
		dtk_repo_free(repo);
	}
	fprintf(f, "::%s file=", kind);
	S_gh_escape(f, dtk_esc(k->prefix), 1);
	S_gh_escape(f, dtk_esc(path), 1);
	if (line > 0)
		fprintf(f, ",line=%d,col=%d", line, col);
	fputs("::", f);
	S_gh_escape(f, dtk_esc(msg), 0);
	fputc('\n', f);
}

/* Prints a GitHub annotation of kind ("error", "warning") for each of diags. */
static void S_gh_diags(struct check *k, const char *kind, const struct dtk_diags *diags)
{
	size_t i;

	for (i = 0; i < diags->n; i++)
		S_gh_note(k, kind, diags->v[i].path, diags->v[i].line, diags->v[i].col,
		          diags->v[i].msg);
}

/* Prints the drift of INDEX.md or of page rel (old) from what reindex
 * writes (want; NULL: a page no longer generated). */
static int S_report_drift(struct check *k, const char *rel, const char *old, size_t old_len,
                          const char *want, int missing)
{
	static const char fix[] = "run 'dtk reindex' and commit it";
	const char *what = !want     ? "is no longer generated"
	                   : missing ? "is missing"
	                             : "is out of date";
	struct dtk_ctx *ctx = k->ctx;
	char *diff = NULL, msg[128], *shown;

	/* the diff is libgit2's: without it the drift is still drift (exit 1),
	 * shown without its lines */
	if (want && dtk_git_diff_buffers(&diff, old, old_len, want, strlen(want), rel) < 0)
		fprintf(ctx->err, "dtk %s: warning: no diff shown: %s\n", ctx->cmd->name,
		        dtk_error_last());
	if (k->github) {
		snprintf(msg, sizeof(msg), "%s %s; %s", rel, what, fix);
		S_gh_note(k, "error", rel, 0, 0, msg);
	}
	shown = dtk_path_shown(rel);
	if (diff)
		dtk_diff_print(ctx->out, diff, k->how);
	/* with -q, exit 1 says it */
	dtk_cmd_note(ctx, "dtk %s: %s %s; %s\n", ctx->cmd->name, shown, what, fix);
	free(diff);
	free(shown);
	return DTK_EXIT_DRIFT;
}

/* Adds to w (check's warnings: to stderr, the exit status stays) the
 * entries created or reviewed after today: a typo in a date that would
 * keep an entry fresh for ever. */
static void S_warn_future(struct dtk_diags *w, const struct dtk_kb *kb)
{
	static const char *const keys[] = {"created", "reviewed"};
	dtk_date today = dtk_date_today();
	char d[11], t[11];
	size_t i, j, k;

	dtk_date_format(t, today);
	for (i = 0; i < kb->n_nodes; i++)
		for (j = 0; j < kb->nodes[i]->n_entries; j++) {
			const struct dtk_entry *e = &kb->nodes[i]->entries[j];
			const dtk_date dates[] = {e->created, e->reviewed};
			for (k = 0; k < 2; k++)
				if (dates[k] > today)
					dtk_diags_add(w, kb->nodes[i]->path, e->pos.line,
					              e->pos.col, "%s: '%s' %s is after today (%s)",
					              e->id, keys[k], dtk_date_format(d, dates[k]),
					              t);
		}
}

/* Adds to w the warning about invisible character cp at rel:line:col. */
static void S_warn_cp(struct dtk_diags *w, const char *rel, int line, int col, int32_t cp,
                      const char *how)
{
	dtk_diags_add(w, rel, line, col, "%s U+%04X%s: the text may show other than it holds",
	              dtk_invisible_is_bidi(cp) ? "bidirectional control"
	                                        : "invisible format character",
	              (unsigned)cp, how);
}

/* Returns the code point escape esc[0..n) spells ("\\u202e", "\\U000e0001",
 * "\\xad": YAML's escapes of a double-quoted scalar), or -1. */
static int32_t S_escape_cp(const char *esc, size_t n)
{
	size_t digits = n < 2 ? 0 : esc[1] == 'x' ? 2 : esc[1] == 'u' ? 4 : esc[1] == 'U' ? 8 : 0;
	char hex[9] = "";
	unsigned long cp;

	if (digits && n >= 2 + digits)
		memcpy(hex, esc + 2, digits);
	if (!digits || strspn(hex, "0123456789abcdefABCDEF") != digits)
		return -1;
	cp = strtoul(hex, NULL, 16);
	return cp > 0x10FFFF ? -1 : (int32_t)cp;
}

/* The text keys whose plain value a comment can cut short. */
static const char *const S_text_keys[] = {"title", "claim", "stance", "note", NULL};

/* Adds to w, for each scalar of v (the value of key, or NULL), the
 * invisible characters a double-quoted one spells as escapes ("\\u202e"),
 * each where its escape is in buf[0..len); and a plain value of a text key
 * (S_text_keys) that YAML ended at a comment (' #') on its line: the rest of
 * the line is not in the value ("claim: Use 4 KB pages #not always" holds
 * "Use 4 KB pages"). */
static void S_warn_tree(struct dtk_diags *w, const char *rel, const char *buf, size_t len,
                        const struct dtk_yval *v, const struct dtk_yval *key, int depth)
{
	size_t i, k;
	int32_t cp;
	int line, col;

	if (!v || depth > DTK_MAX_DEPTH + 1)
		return;
	for (i = 0; v->kind != DTK_Y_SCALAR && i < v->n; i++)
		S_warn_tree(w, rel, buf, len, v->items[i],
		            v->kind == DTK_Y_MAP && i % 2 ? v->items[i - 1] : NULL, depth + 1);
	for (i = v->start; v->kind == DTK_Y_SCALAR && v->style == DTK_YS_DOUBLE && i + 1 < v->end;
	     i++) {
		if (buf[i] != '\\')
			continue;
		cp = S_escape_cp(buf + i, v->end - i);
		if (cp >= 0 && dtk_invisible_cp(cp)) {
			dtk_text_linecol(buf, len, i, &line, &col);
			S_warn_cp(w, rel, line, col, cp, " (an escape)");
		}
		i++; /* past the escaped character: "\\\\u202e" is no escape of one */
	}
	if (v->kind != DTK_Y_SCALAR || !key || v->style != DTK_YS_PLAIN || v->type == DTK_YT_NULL)
		return;
	for (k = 0; S_text_keys[k] && strcmp(S_text_keys[k], key->str); k++)
		;
	for (i = v->end; i < len && (buf[i] == ' ' || buf[i] == '\t'); i++)
		;
	if (!S_text_keys[k] || i == v->end || i >= len || buf[i] != '#')
		return;
	dtk_text_linecol(buf, len, i, &line, &col);
	dtk_diags_add(w, rel, line, col,
	              "'%s' ends at ' #': YAML reads the rest of the line as a comment, "
	              "not as text; to keep it, put the value in quotes, or the comment "
	              "on a line of its own",
	              key->str);
}

/* Adds to w (check's warnings: to stderr, the exit status stays) each
 * invisible character of invisible.h in file rel of the base, in any text,
 * comments too: a bidirectional control or a zero width space makes what a
 * reviewer sees differ from what the file says; and each text value a
 * comment cut short (S_warn_tree). */
static void S_warn_file(struct dtk_ctx *ctx, struct dtk_diags *w, const char *rel)
{
	char *full = dtk_path_join(ctx->root, rel), *buf = NULL;
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_arena *arena;
	struct dtk_yval *root = NULL;
	size_t len = 0, i, k;
	int32_t cp;
	int line, col;

	if (dtk_file_read_regular(&buf, &len, full, DTK_MAX_FILE_BYTES) != 0) {
		free(full);
		return; /* absent (_crystallizations.yaml): the loader said all else */
	}
	/* a byte order mark that opens the file is no text (docs/schema.md) */
	i = len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
	for (; (i += dtk_invisible_find(buf + i, len - i, &k, &cp)) < len; i += k) {
		dtk_text_linecol(buf, len, i, &line, &col);
		S_warn_cp(w, rel, line, col, cp, "");
	}
	/* an escape (in a double-quoted scalar) or a comment to look at */
	if (memchr(buf, '\\', len) || memchr(buf, '#', len)) {
		arena = dtk_arena_new();
		if (dtk_yaml_parse(&root, arena, rel, buf, len, &diags) == 0)
			S_warn_tree(w, rel, buf, len, root, NULL, 0);
		dtk_arena_free(arena);
		dtk_diags_release(&diags);
	}
	free(buf);
	free(full);
}

static void S_warn_files(struct dtk_ctx *ctx, struct dtk_diags *w, const struct dtk_kb *kb)
{
	static const char *const meta[] = {"insights/_domain.yaml", "insights/_sources.yaml",
	                                   "insights/_crystallizations.yaml"};
	size_t i;
	for (i = 0; i < 3; i++)
		S_warn_file(ctx, w, meta[i]);
	for (i = 0; i < kb->n_nodes; i++)
		if (!kb->nodes[i]->clean) /* else its bytes were read clean */
			S_warn_file(ctx, w, kb->nodes[i]->path);
}

/* Adds to w the entries that relate to a superseded or retracted entry (and
 * are not retired themselves): a link to knowledge withdrawn. */
static void S_warn_retired(struct dtk_diags *w, const struct dtk_kb *kb)
{
	size_t i, k;

	for (i = 0; i < kb->n_nodes; i++)
		for (k = 0; k < kb->nodes[i]->sum->n_refs; k++) {
			const struct dtk_sum_ref *r = &kb->nodes[i]->sum->refs[k];
			struct dtk_sum_entry o;
			if (r->kind != DTK_SUM_RELATES || r->from_retired || strchr(r->id, ':') ||
			    !dtk_kb_sum_entry(kb, r->id, &o) || (!o.retracted && !o.superseded_by))
				continue;
			dtk_diags_add(w, kb->nodes[i]->path, r->pos.line, r->pos.col,
			              "%s relates to %s, which is %s%s (dtk unrelate %s %s)",
			              r->from, r->id, o.retracted ? "retracted" : "superseded by ",
			              o.retracted ? "" : o.superseded_by, r->from, r->id);
		}
}

/* Adds to w the sources no entry names (as source or verified_by): an
 * article read and never used, or an id left behind by an edit. */
static void S_warn_unused_sources(struct dtk_diags *w, const struct dtk_kb *kb)
{
	size_t i;

	for (i = 0; kb->sources_named && i < kb->n_sources; i++)
		if (!(kb->sources_named[i / 8] & (1u << (i % 8))))
			dtk_diags_add(w, "insights/_sources.yaml", kb->sources[i].pos.line,
			              kb->sources[i].pos.col, "source '%s' is named by no entry",
			              kb->sources[i].id);
}

/* Adds to w each node of a record's review pairs whose count is not what
 * the files give for that run (dtk_record_pairs; nodes no longer in the
 * base are not told): pairs are computed, never typed. Records written
 * before runs kept their events keep their typed counts, unchecked. The
 * entries' dates are read from the node cache when kb holds only
 * summaries. */
static void S_warn_pairs(struct dtk_ctx *ctx, struct dtk_diags *w, const struct dtk_kb *kb)
{
	struct dtk_diags errs = DTK_DIAGS_INIT;
	struct dtk_kb *full = NULL;
	size_t i, j, k, n;

	for (i = 0; i < kb->n_records && !(kb->records[i].has_review && kb->records[i].has_events);
	     i++)
		;
	if (i == kb->n_records)
		return;
	for (i = 0; i < kb->n_nodes && !full; i++)
		if (kb->nodes[i]->n_entries != kb->nodes[i]->sum->n_entries &&
		    dtk_kb_load(&full,
		                &(struct dtk_kb_load_opts){.root = ctx->root,
		                                           .what = DTK_KB_ALL | DTK_KB_LEAN},
		                &errs) != 0)
			goto done;
	kb = full ? full : kb;
	for (i = 0; i < kb->n_records; i++) {
		const struct dtk_record *r = &kb->records[i];
		struct dtk_pair_count *want = NULL;
		char d[11];
		if (!r->has_review || !r->has_events)
			continue;
		n = dtk_record_pairs(&want, kb, r);
		for (j = 0; j < kb->n_nodes; j++) {
			const char *node = kb->nodes[j]->name;
			long has = 0, is = 0;
			for (k = 0; k < r->n_pairs; k++)
				has = strcmp(r->pairs[k].node, node) ? has : r->pairs[k].count;
			for (k = 0; k < n; k++)
				is = strcmp(want[k].node, node) ? is : want[k].count;
			if (has != is)
				dtk_diags_add(w, "insights/_crystallizations.yaml", r->pos.line,
				              r->pos.col,
				              "the run of %s: review pairs of %s are %ld, the files give "
				              "%ld (dtk crystallize --amend %s recomputes them)",
				              dtk_date_format(d, r->date), node, has, is, d);
		}
		free(want);
	}
done:
	dtk_kb_free(full);
	dtk_diags_release(&errs);
}

/* A dtk_page_fn reporting a page's drift (arg: struct check). */
static void S_page_drift(void *arg, const char *rel, int state, const char *old, size_t old_len,
                         const char *want, size_t want_len)
{
	(void)want_len;
	S_report_drift(arg, rel, old, old_len, want, state == DTK_PAGE_MISSING);
}

/* dtk_index_compare, with the warnings about the loaded base added to w. */
static int S_compare(struct dtk_ctx *ctx, const char *path, struct dtk_file_cmp *cmp,
                     struct dtk_diags *diags, struct dtk_index_pages *pages, struct dtk_diags *w)
{
	struct dtk_kb *kb = NULL;
	int rc = dtk_file_cmp_open(cmp, path, DTK_MAX_INDEX_BYTES);

	if (rc == 0)
		rc = dtk_kb_load(
		        &kb,
		        &(struct dtk_kb_load_opts){.root = ctx->root,
		                                   .what = DTK_KB_ALL | DTK_KB_LEAN | DTK_KB_INDEX},
		        diags);
	if (rc == 0) {
		S_warn_future(w, kb);
		S_warn_files(ctx, w, kb);
		S_warn_retired(w, kb);
		S_warn_unused_sources(w, kb);
		S_warn_pairs(ctx, w, kb);
		rc = dtk_index_write_pages(kb, dtk_file_cmp_write, cmp, pages);
	}
	dtk_kb_free(kb);
	return rc == 0 ? dtk_file_cmp_finish(cmp) : rc;
}

/* The values of --format. */
static const char *const S_formats[] = {"text", "github", NULL};

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"format", 'f', DTK_OPT_CHOICE, DTK_OPT_SHORT, .arg = "F", .choices = S_formats,
         .help = "text (the default), or github: also print GitHub Actions\n"
                 "annotations (::error file=...) on standard output, for\n"
                 "each error and warning and for drift"},
        {"color", 'c', DTK_OPT_CHOICE, .arg = "WHEN", .choices = dtk_color_names,
         .help = "colour the diff: auto (the default: on a terminal,\n"
                 "unless NO_COLOR is set), always or never; the part\n"
                 "of a changed line that changed in reverse video"},
        {"word-diff", 'w', DTK_OPT_FLAG,
         .help = "show each changed line once, the removed part in [- -]\n"
                 "and the added part in {+ +} (git's --word-diff=plain)"},
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_diags diags = DTK_DIAGS_INIT, warns = DTK_DIAGS_INIT;
	struct dtk_file_cmp cmp = {.fd = -1};
	struct dtk_index_pages pages = {NULL, 0, NULL};
	struct check k = {ctx, (int)dtk_args_int(a, 'f', 0),
	                  dtk_args_has(a, 'w') ? DTK_DIFF_WORDS : 0, NULL};
	char *old = NULL, *path = NULL, *crlf = NULL;
	size_t old_len = 0, crlf_len = 0;
	int rc, conv = 0, drift = 0;

	if (dtk_cmd_use_color(ctx, (int)dtk_args_int(a, 'c', DTK_COLOR_AUTO)))
		k.how |= DTK_DIFF_COLOR;
	/* a write killed between its renames: the files are not the base's
	 * state, whatever they say */
	if ((old = dtk_lock_journal(ctx->root))) {
		fprintf(ctx->err,
		        "dtk %s: error: a write was interrupted before it finished (%s): %s "
		        "may be half written; run 'dtk reindex' to put them back as they were "
		        "before it\n",
		        ctx->cmd->name, DTK_FILE_JOURNAL, dtk_esc(old));
		free(old);
		return DTK_EXIT_DRIFT;
	}
	path = dtk_path_join(ctx->root, DTK_INDEX_FILE);
	/* compared as it is rendered: neither page is held whole unless they differ */
	rc = S_compare(ctx, path, &cmp, &diags, &pages, &warns);
	dtk_diags_print_as(&warns, ctx->err, "warning");
	if (k.github)
		S_gh_diags(&k, "warning", &warns);
	if (rc == DTK_EINVALID) {
		if (k.github)
			S_gh_diags(&k, "error", &diags);
		rc = dtk_cmd_report_invalid(ctx, &diags);
		goto done;
	}
	if (rc < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	/* a crystallization cut short: its --continue writes INDEX.md and the
	 * records, not reindex (refused meanwhile); git's index stays locked */
	if (dtk_lock_pending(ctx->root)) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_DRIFT);
		goto done;
	}
	/* the file compared, read again from its start (not reopened by path) */
	if (rc == 1 && cmp.fd >= 0 &&
	    (lseek(cmp.fd, 0, SEEK_SET) < 0 ||
	     dtk_file_read_fd(&old, &old_len, cmp.fd, path, DTK_MAX_INDEX_BYTES) < 0)) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	/* differing: the page as git checks it out (CRLF with core.autocrlf or
	 * .gitattributes eol) may be the file; only now is libgit2 asked */
	if (rc == 1 && (conv = dtk_git_checkout_form(&crlf, &crlf_len, path, cmp.text.ptr,
	                                             cmp.text.len)) < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	if (rc != 0 && !(conv == 1 && old && old_len == crlf_len && !memcmp(old, crlf, old_len)))
		drift = S_report_drift(&k, DTK_INDEX_FILE, old ? old : "", old_len,
		                       conv ? crlf : dtk_buf_cstr(&cmp.text), cmp.fd < 0);
	/* the generated pages (docs/index-format.md, "The budget") */
	rc = dtk_index_pages_sync(ctx->root, &pages, 0, S_page_drift, &k);
	if (rc < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	if (pages.over && k.github)
		S_gh_note(&k, "error", DTK_INDEX_FILE, 0, 0, pages.over);
	if (pages.over)
		fprintf(ctx->err, "dtk %s: %s\n", ctx->cmd->name, pages.over);
	if (!drift && !rc && !pages.over) {
		char *index = dtk_path_shown(DTK_INDEX_FILE), *dir = dtk_path_shown("insights/");
		dtk_cmd_note(ctx, "dtk %s: %s is valid and %s is up to date\n", ctx->cmd->name,
		             *dir ? dir : "./", index);
		free(index);
		free(dir);
	}
	rc = drift || rc || pages.over ? DTK_EXIT_DRIFT : DTK_EXIT_OK;
done:
	dtk_index_pages_release(&pages);
	dtk_diags_release(&diags);
	dtk_diags_release(&warns);
	dtk_file_cmp_release(&cmp);
	free(old);
	free(crlf);
	free(path);
	free(k.prefix);
	return rc;
}

const struct dtk_cmd dtk_cmd_check = {
        .name = "check",
        .usage = "dtk check [--format text|github] [--color auto|always|never]\n"
                 "                 [--word-diff]",
        .summary = "fail when insights/ is invalid or INDEX.md is out of date",
        .help = "\nValidates insights/ and compares INDEX.md with what 'dtk reindex' would\n"
                "write, and the pages of index/ likewise. Never writes anything. Exit\n"
                "status: 0 when all is well; 1 when INDEX.md or a page differs (a unified\n"
                "diff goes to standard output), is over its budget with every tier\n"
                "applied (raise policy.index_max_bytes or split the base), or a\n"
                "crystallization cut short is pending (it names the way out); 2 when the\n"
                "data is invalid (every error goes to standard error). Warnings (a date\n"
                "after today, an invisible character such as a bidirectional control, a\n"
                "title or claim cut short at ' #') go to standard error and do not\n"
                "change the exit status.\n",
        .examples = "examples:\n"
                    "  dtk check\n"
                    "  dtk check || dtk reindex\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_READ_ONLY,
        .opts = S_opts,
        .run = S_run,
};
