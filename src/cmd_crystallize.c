/* cmd_crystallize.c: dtk crystallize: the monthly review, as one git commit. */
#include "dtk/cmd.h"

#include "dtk/crystal.h"
#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/git.h"
#include "dtk/index.h"
#include "dtk/kb.h"
#include "dtk/repo.h"
#include "dtk/yedit.h"
#include "dtk/ytree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct opts {
	int plan, dry_run, no_commit, json, sign, no_verify, cont, abort, allow_future,
	        allow_shallow, amend;
	dtk_date date;
	const char *eval, *review, *author, *sign_key;
	struct dtk_plan_page page;
	/* the review's words given as options (override --review's) */
	const char *verdict, *note, *run; /* run: --amend's operand */
	const char *const *cross;
	size_t n_cross;
};

/* Removes a scratch base made by S_prev (dir/insights/ files, then dirs). */
static void S_rm_scratch(const char *dir)
{
	char *ins = dtk_path_join(dir, "insights");
	DIR *d = opendir(ins);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *f;
		if (de->d_name[0] == '.')
			continue;
		f = dtk_path_join(ins, de->d_name);
		unlink(f);
		free(f);
	}
	if (d)
		closedir(d);
	rmdir(ins);
	rmdir(dir);
	free(ins);
}

/* Removes from tmp the scratch bases runs killed meanwhile left
 * (dtk-prev-<pid>-XXXXXX of a pid that no longer exists, this user's): each
 * is a copy of a whole base. */
static void S_sweep_scratch(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *de;
	struct stat st;
	size_t n;

	while (d && (de = readdir(d))) {
		const char *s = de->d_name;
		char *dir;
		if (strncmp(s, "dtk-prev-", 9) || !dtk_file_dead_pid(s + 9, &n) ||
		    s[9 + n] != '-' || strlen(s + 10 + n) != 6 ||
		    fstatat(dirfd(d), s, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != getuid())
			continue;
		dir = dtk_path_join(tmp, s);
		S_rm_scratch(dir);
		free(dir);
	}
	if (d)
		closedir(d);
}

/* Loads the base as it was at the run of since, from git, into *out; NULL
 * when history does not hold it (a warning says what that means). A shallow
 * clone cut before that run is refused when refuse_shallow is set: its
 * figures would differ from a full clone's. Returns 0, or -1 after the
 * error. */
static int S_prev(struct dtk_ctx *ctx, struct dtk_repo *repo, dtk_date since, int refuse_shallow,
                  struct dtk_kb **out)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	const char *tmp = getenv("TMPDIR");
	char *dir, hex[41], s[11], name[64];
	int rc = 0, shallow = repo && dtk_repo_is_shallow(repo);

	*out = NULL;
	/* the pid in the name: a run killed before it removed its copy is
	 * told by it, and the next run removes that copy */
	tmp = tmp && *tmp ? tmp : P_tmpdir;
	snprintf(name, sizeof(name), "dtk-prev-%ld-XXXXXX", (long)getpid());
	dir = dtk_path_join(tmp, name);
	if (repo) {
		S_sweep_scratch(tmp);
		if (!mkdtemp(dir)) {
			dtk_error("cannot create a directory for the previous run's base (%s): %s",
			          dir, strerror(errno));
			free(dir);
			return dtk_cmd_fail(ctx, -1);
		}
		rc = dtk_crystal_checkout_run(repo, since, dir, hex);
		/* lean: the previous base is asked only for confidences,
		 * contradictions, blooms and stances, never for a claim; no cache
		 * for a copy removed below */
		if (rc == 1 &&
		    dtk_kb_load(out,
		                &(struct dtk_kb_load_opts){.root = dir,
		                                           .what = DTK_KB_LEAN | DTK_KB_NO_CACHE},
		                &d) != 0)
			*out = NULL;
		S_rm_scratch(dir);
	}
	free(dir);
	dtk_diags_release(&d);
	dtk_date_format(s, since);
	/* a failure to read it is an error, not a run missing from history
	 * (whose figures would silently differ) */
	if (rc < 0) {
		fprintf(ctx->err, "dtk %s: error: cannot read the previous run's base: %s\n",
		        ctx->cmd->name, dtk_error_last());
		return -1;
	}
	if (!*out && rc != 1 && shallow && refuse_shallow) {
		dtk_error("the previous run's commit (%s) is not in this shallow clone's "
		          "history, so the figures would differ from a full clone's; fetch the "
		          "history (git fetch --unshallow, or git fetch --shallow-since=%s), or "
		          "pass --allow-shallow to count only what the files show",
		          s, s);
		return dtk_cmd_fail(ctx, -1);
	}
	if (!*out)
		fprintf(ctx->err,
		        "dtk %s: warning: the base at the previous run (%s) is %s; high "
		        "changes, bloom changes, stance rewrites and new contradictions count only "
		        "what the files show\n",
		        ctx->cmd->name, s,
		        rc == 1   ? "not valid by today's rules"
		        : shallow ? "not in this shallow clone's history"
		                  : "not in this repository's history");
	return 0;
}

/* Refuses options that a plan or a run does not take (those that conflict
 * are S_conflicts), a run without a valid --eval; returns 0 or -1 after the
 * usage error. */
static int S_check_opts(struct dtk_ctx *ctx, const struct opts *o, int format_set)
{
	const char *eq = o->eval ? strchr(o->eval, '=') : NULL;

	if (!o->plan && (dtk_args_has(ctx->args, 'P') || dtk_args_has(ctx->args, 'l') ||
	                 dtk_args_has(ctx->args, 'k'))) {
		dtk_cmd_usage_error(ctx, "--page, --limit and --pairs apply to --plan only");
		return -1;
	}
	if (format_set && !o->plan) {
		dtk_cmd_usage_error(ctx, "--format applies to --plan only (a run prints %s)",
		                    o->dry_run ? "its record as YAML" : "one line");
		return -1;
	}
	if (o->plan)
		return 0;
	if (!o->eval) {
		dtk_cmd_usage_error(ctx, "a run needs --eval SCENARIO=VERDICT (or --plan for "
		                         "the worklist)");
		return -1;
	}
	if (!eq || eq == o->eval || !eq[1]) {
		dtk_cmd_usage_error(ctx, "--eval must be SCENARIO=VERDICT, not '%s'", o->eval);
		return -1;
	}
	return 0;
}

/* Sets o to the options of a; returns 0, or -1 after the usage error. */
static int S_parse_opts(struct dtk_ctx *ctx, struct opts *o, const struct dtk_args *a)
{
	int format_set = dtk_args_has(a, 'f') > 0;

	memset(o, 0, sizeof(*o));
	o->date = (dtk_date)dtk_args_int(a, 'd', dtk_date_today());
	o->plan = dtk_args_has(a, 'p') > 0;
	o->dry_run = dtk_args_has(a, 'n') > 0;
	o->no_commit = dtk_args_has(a, 'N') > 0;
	o->cont = dtk_args_has(a, 'C') > 0;
	o->abort = dtk_args_has(a, 'A') > 0;
	o->allow_future = dtk_args_has(a, 'F') > 0;
	o->allow_shallow = dtk_args_has(a, 'W') > 0;
	o->no_verify = dtk_args_has(a, 'V') > 0;
	o->eval = dtk_args_str(a, 'e');
	o->review = dtk_args_str(a, 'r');
	o->author = dtk_args_str(a, 'a');
	o->json = dtk_args_int(a, 'f', 0) == 1;
	o->page.page = (size_t)dtk_args_int(a, 'P', 1);
	o->page.limit = (size_t)dtk_args_int(a, 'l', DTK_PLAN_LIMIT);
	o->page.pairs = (size_t)dtk_args_int(a, 'k', DTK_PLAN_PAIRS);
	/* the last of --gpg-sign and --no-gpg-sign wins */
	o->sign = !dtk_args_pos(a, 'S') && !dtk_args_pos(a, 'G')
	                  ? -1
	                  : dtk_args_pos(a, 'S') > dtk_args_pos(a, 'G');
	o->sign_key = o->sign == 1 ? dtk_args_str(a, 'S') : NULL;
	o->amend = dtk_args_has(a, 'M') > 0;
	o->verdict = dtk_args_str(a, 'v');
	o->note = dtk_args_str(a, 'o');
	o->cross = dtk_args_list(a, 'x', &o->n_cross);
	o->run = a->argc ? a->argv[0] : NULL;
	if (o->amend && !o->review && !o->verdict && !o->note && !o->n_cross)
		return dtk_cmd_usage_error(ctx, "--amend needs --verdict, --note, --cross-pair or "
		                                "--review"),
		       -1;
	if (o->amend)
		return 0;
	if (o->cont || o->abort) {
		if (o->cont && o->abort) {
			dtk_cmd_usage_error(ctx, "--continue and --abort exclude each other");
			return -1;
		}
		if (a->nargs != 1) {
			dtk_cmd_usage_error(ctx, "%s takes no other option",
			                    o->cont ? "--continue" : "--abort");
			return -1;
		}
		return 0;
	}
	return S_check_opts(ctx, o, format_set);
}

/* Loads the base as it will be, with records as its _crystallizations.yaml
 * (every check of dtk check), checks that its record at (kb->n_records: a
 * new last one) reads back as rec, and sets *index to INDEX.md rendered
 * from it (the caller frees), pages to the pages of index/. Returns 0, or
 * DTK_EXIT_INVALID after saying why. */
static int S_validate(struct dtk_ctx *ctx, const struct dtk_kb *kb, const char *records,
                      const struct dtk_record *rec, size_t at, char **index,
                      struct dtk_index_pages *pages)
{
	struct dtk_memfile file = {"_crystallizations.yaml", records, strlen(records)};
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *check = NULL;
	struct dtk_buf page = DTK_BUF_INIT;
	char d1[11], d2[11];
	int rc = DTK_EXIT_INVALID;

	if (dtk_kb_load(&check,
	                &(struct dtk_kb_load_opts){.root = kb->root,
	                                           .what = DTK_KB_LEAN | DTK_KB_INDEX,
	                                           .files = &file,
	                                           .n_files = 1},
	                &d) != 0) {
		if (d.n)
			dtk_diags_print(&d, ctx->err);
		else
			fprintf(ctx->err, "dtk %s: error: %s\n", ctx->cmd->name, dtk_error_last());
	} else if (check->n_records != kb->n_records + (at == kb->n_records) ||
	           !dtk_record_equal(&check->records[at], rec)) {
		dtk_error("the new record does not read back as written");
		dtk_cmd_fail(ctx, rc);
	} else {
		dtk_index_write_pages(check, dtk_buf_write, &page, pages); /* cannot fail */
		*index = dtk_buf_detach(&page);
		rc = DTK_EXIT_OK;
	}
	if (rc != DTK_EXIT_OK) {
		if (rec->earliest > rec->date)
			fprintf(ctx->err,
			        "dtk %s: the base holds entries dated after the run date "
			        "%s (the earliest is %s): is --date right?\n",
			        ctx->cmd->name, dtk_date_format(d1, rec->date),
			        dtk_date_format(d2, rec->earliest));
		dtk_error("the record of this run would not be valid; nothing was written");
		dtk_cmd_fail(ctx, rc);
	}
	dtk_kb_free(check);
	dtk_diags_release(&d);
	return rc;
}

/* Sets *out to old[0..len) with the review of record at replaced by r's
 * (added after its last key when it has none), every other byte kept: the
 * review's lines at the record's indentation, with the file's line breaks.
 * Returns 0 (the caller frees *out), or -1 with the error set. */
static int S_replace_review(char **out, const char *old, size_t len, size_t at,
                            const struct dtk_record *r)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_buf y = DTK_BUF_INIT, text = DTK_BUF_INIT;
	struct dtk_ydoc d;
	struct dtk_edit edit;
	const struct dtk_yval *map;
	const char *p;
	size_t end;
	int i, rc = -1, col;

	*out = NULL;
	if (dtk_ydoc_parse(&d, "insights/_crystallizations.yaml", old, len, &diags) < 0 ||
	    !d.root || d.root->kind != DTK_Y_SEQ || at >= d.root->n ||
	    d.root->items[at]->kind != DTK_Y_MAP || !d.root->items[at]->n) {
		dtk_error("insights/_crystallizations.yaml: the record cannot be found");
		goto done;
	}
	map = d.root->items[at];
	i = dtk_yedit_find(map, "review");
	if (dtk_yedit_pair_span(&d, map, i >= 0 ? (size_t)i : map->n / 2 - 1, &edit.start,
	                        &end) < 0 ||
	    dtk_record_to_yaml(&y, r) < 0)
		goto done;
	edit.end = end;
	if (i < 0) /* after the last key */
		edit.start = end;
	if (end == len && len && old[len - 1] != '\n')
		dtk_buf_puts(&text, d.eol);
	col = dtk_yedit_col(&d, map->items[0]->start);
	/* the review's lines, each from its two spaces of indentation (a
	 * blank line of a block scalar has none) */
	for (p = strstr(y.ptr, "\n  review:\n") + 1; *p; p = strchr(p, '\n') + 1) {
		size_t n = (size_t)(strchr(p, '\n') - p);
		if (n < 2)
			dtk_buf_puts(&text, d.eol);
		else
			dtk_buf_printf(&text, "%*s%.*s%s", col, "", (int)n - 2, p + 2, d.eol);
	}
	edit.text = text.ptr;
	edit.len = text.len;
	*out = dtk_splice(old, len, &edit, 1, &end);
	rc = *out ? 0 : -1;
done:
	dtk_ydoc_release(&d);
	dtk_diags_release(&diags);
	dtk_buf_release(&y);
	dtk_buf_release(&text);
	return rc;
}

/* Makes the new _crystallizations.yaml (the old text, every byte kept, with
 * rec appended, or in place of the review of the record at when at <
 * kb->n_records) and INDEX.md, by S_validate. Returns the exit status; on
 * success the caller frees *records and *index. */
static int S_texts(struct dtk_ctx *ctx, struct dtk_kb *kb, const struct dtk_record *rec,
                   size_t at, char **records, char **index,
                   struct dtk_index_pages *pages)
{
	char *path = dtk_path_join(kb->root, "insights/_crystallizations.yaml"), *old = NULL;
	char *index_path = dtk_path_join(kb->root, DTK_INDEX_FILE);
	size_t len = 0, n = kb->n_records;
	int rc = DTK_EXIT_INVALID;

	*records = *index = NULL;
	/* the two files the run replaces: each a regular file or absent, as
	 * reindex wants INDEX.md (a link, a FIFO, a directory: nothing written) */
	if (dtk_file_read_regular(&old, &len, path, DTK_MAX_FILE_BYTES) < 0 ||
	    dtk_file_check_regular(index_path) < 0 ||
	    (at == n ? dtk_records_append(records, old, len, n, rec)
	             : S_replace_review(records, old, len, at, rec)) < 0)
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	else
		rc = S_validate(ctx, kb, *records, rec, at, index, pages);
	if (rc != DTK_EXIT_OK) {
		free(*records);
		*records = NULL;
	}
	free(old);
	free(path);
	free(index_path);
	return rc;
}

static void S_message(struct dtk_buf *m, const struct dtk_record *r)
{
	struct dtk_buf y = DTK_BUF_INIT;
	char d[11], s[11];
	long pairs = 0;
	size_t i;

	for (i = 0; i < r->n_pairs; i++)
		pairs += r->pairs[i].count;
	dtk_buf_printf(m, "crystallize %s: ", dtk_date_format(d, r->date));
	dtk_record_summary(m, r);
	(void)dtk_record_to_yaml(&y, r); /* S_texts wrote it once already */
	dtk_buf_printf(m, "\n\n%s\nDtk-Crystallization: %s\n", y.ptr, d);
	if (r->since)
		dtk_buf_printf(m, "Dtk-Since: %s\n", dtk_date_format(s, r->since));
	dtk_buf_printf(m,
	               "Dtk-New-Entries: %ld\nDtk-High-Changes: %ld\nDtk-Stale: %ld\n"
	               "Dtk-Bloom-Changes: %ld\nDtk-Stance-Rewrites: %ld\n"
	               "Dtk-Contradictions-New: %ld\nDtk-Review-Pairs: %ld\n",
	               r->new_entries, r->high_changes, r->stale, (long)r->n_bloom_changes,
	               r->stance_rewrites, r->contradictions_new, pairs + (long)r->n_cross_pairs);
	dtk_buf_release(&y);
}

/* Writes the run's files without git (--no-commit, --amend) as the write
 * commands write theirs: INDEX.md (as git checks it out), the records and
 * the fold (NULL: none), all or nothing, a run killed meanwhile undone by
 * the next dtk that takes the base's lock (fs.h, dtk_file_commit_all).
 * Returns 0; -1 with the error set when nothing was changed; DTK_ENOSYNC
 * with the error naming every file when they were written, one not synced
 * (or not put back). */
static int S_write(const struct dtk_kb *kb, const char *records, const char *index,
                   const struct dtk_memfile *fold)
{
	struct dtk_memfile v[3] = {{DTK_INDEX_FILE, index, strlen(index)},
	                           {"insights/_crystallizations.yaml", records, strlen(records)}};
	struct dtk_file_staged st[3] = {{0}};
	struct dtk_buf written = DTK_BUF_INIT;
	char *path = dtk_path_join(kb->root, DTK_INDEX_FILE), *conv = NULL;
	size_t i, n = fold ? 3 : 2, len = 0;
	int rc = 0, rootfd = open(kb->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fold)
		v[2] = *fold;
	if (rootfd < 0)
		rc = dtk_error("cannot open %s: %s", kb->root, strerror(errno));
	else if ((rc = dtk_git_checkout_form(&conv, &len, path, index, v[0].len)) > 0)
		v[0] = (struct dtk_memfile){DTK_INDEX_FILE, conv, len};
	for (i = 0; i < n && rc >= 0; i++)
		rc = dtk_file_stage_within(&st[i], rootfd, kb->root, v[i].name, v[i].data, v[i].len,
		                           -1);
	if (rc >= 0)
		rc = dtk_file_commit_all(rootfd, kb->root, st, n);
	for (i = 0; rc == DTK_ENOSYNC && i < n; i++) { /* the files written, named */
		char *shown = dtk_path_shown(v[i].name);
		dtk_buf_printf(&written, "%s%s", i ? ", " : "", shown);
		free(shown);
	}
	if (rc == DTK_ENOSYNC) {
		char *why = dtk_xstrdup(dtk_error_last());
		dtk_error("%s; written: %s", why, written.ptr);
		free(why);
	}
	dtk_buf_release(&written);
	for (i = 0; i < n; i++)
		dtk_file_stage_release(&st[i]);
	if (rootfd >= 0)
		close(rootfd);
	free(conv);
	free(path);
	return rc;
}

/* Prints the run's bloom changes ("bloom changes: alpha apply→analyze,
 * beta ..."; no line when there are none). */
static void S_blooms(struct dtk_ctx *ctx, const struct dtk_record *rec)
{
	size_t i;
	for (i = 0; i < rec->n_bloom_changes; i++)
		fprintf(ctx->out, "%s%s %s→%s",
		        i ? ", " : "bloom changes: ", rec->bloom_changes[i].node,
		        dtk_bloom_names[rec->bloom_changes[i].from],
		        dtk_bloom_names[rec->bloom_changes[i].to]);
	if (rec->n_bloom_changes)
		fputc('\n', ctx->out);
}

/* Sets *out to the run's files beside the records and INDEX.md (free with
 * dtk_memfiles_free): the one fold of the records of uses not folded yet
 * (docs/schema.md, "Counts"), when there are some, and the pages of
 * index/. Returns their count, or -1 with the error set. */
static int S_more(const struct dtk_kb *kb, const struct dtk_record *rec,
                  const struct dtk_index_pages *pages, struct dtk_memfile **out)
{
	char name[96], *fold = dtk_crystal_fold(kb);
	size_t i, n = 0;

	*out = NULL;
	if (fold && dtk_kb_uses_name(name, sizeof(name), DTK_USES_FOLD, rec->date) < 0) {
		free(fold);
		return -1;
	}
	*out = dtk_xcalloc(pages->n + 1, sizeof(**out));
	if (fold) {
		struct dtk_buf rel = DTK_BUF_INIT;
		dtk_buf_printf(&rel, "insights/%s", name);
		(*out)[n++] = (struct dtk_memfile){dtk_buf_detach(&rel), fold, strlen(fold)};
	}
	for (i = 0; i < pages->n; i++)
		(*out)[n++] = (struct dtk_memfile){dtk_xstrdup(pages->v[i].rel),
		                                   dtk_xstrndup(pages->v[i].text, pages->v[i].len),
		                                   pages->v[i].len};
	return (int)n;
}

/* Removes the records of uses the run folded (those committed are gone
 * already): a record left behind counts once all the same, by its name. */
static void S_unfold(const struct dtk_kb *kb)
{
	size_t i;
	for (i = 0; i < kb->n_live_uses; i++)
		if (!i || strcmp(kb->live_uses[i].rec, kb->live_uses[i - 1].rec)) {
			struct dtk_buf p = DTK_BUF_INIT;
			dtk_buf_printf(&p, "%s/insights/" DTK_USES_DIR "/%s.yaml", kb->root,
			               kb->live_uses[i].rec);
			(void)unlink(p.ptr);
			dtk_buf_release(&p);
		}
}

/* Commits the run; returns the exit status. */
static int S_commit(struct dtk_ctx *ctx, struct dtk_repo *repo, const struct dtk_kb *kb,
                    const struct opts *o, const struct dtk_record *rec, const char *records,
                    const char *index, const struct dtk_memfile *more, size_t n_more)
{
	struct dtk_commit_req req = {records, strlen(records), index, strlen(index), NULL, 0,
	                             NULL,    o->author,       -1,    NULL,          0,    NULL,
	                             more,    n_more};
	struct dtk_buf msg = DTK_BUF_INIT, sum = DTK_BUF_INIT, taken = DTK_BUF_INIT;
	const char **files = dtk_xcalloc(kb->n_nodes + 2, sizeof(*files));
	const char *p, *nl;
	char hex[41], d[11];
	size_t i;
	int rc;

	files[0] = "_domain.yaml";
	files[1] = "_sources.yaml";
	for (i = 0; i < kb->n_nodes; i++)
		files[i + 2] = strrchr(kb->nodes[i]->path, '/') + 1;
	req.files = files;
	req.n_files = kb->n_nodes + 2;
	S_message(&msg, rec);
	req.message = msg.ptr;
	req.sign = o->sign;
	req.sign_key = o->sign_key;
	req.no_verify = o->no_verify;
	req.taken = &taken;
	rc = dtk_repo_commit(repo, &req, hex);
	if (rc == 0) {
		S_unfold(kb);
		dtk_record_summary(&sum, rec);
		fprintf(ctx->out, "crystallized %s as commit %.12s: %s\n",
		        dtk_date_format(d, rec->date), hex, sum.ptr);
		S_blooms(ctx, rec);
		fprintf(ctx->out, "files in the commit:\n");
		for (p = taken.ptr; p && *p; p = nl + 1) {
			nl = strchr(p, '\n');
			fprintf(ctx->out, "  %.*s\n", (int)(nl - p), p);
		}
	}
	dtk_buf_release(&msg);
	dtk_buf_release(&sum);
	dtk_buf_release(&taken);
	free(files);
	/* interrupted: files were written, not all as asked (1, not 2) */
	return rc == 0                      ? DTK_EXIT_OK
	       : rc == DTK_REPO_INTERRUPTED ? dtk_cmd_fail(ctx, DTK_EXIT_DRIFT)
	                                    : dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
}

/* Returns 0 when pair is "A↔B", each side an entry or a node of kb or a
 * reference <domain>:<id> into another domain; else prints why and
 * returns 1. */
static int S_check_pair(struct dtk_ctx *ctx, const struct dtk_kb *kb, const char *pair)
{
	static const char arrow[] = "↔";
	const char *at = strstr(pair, arrow), *colon;
	char *side[2];
	int k, bad = 0, ok;

	if (!at || at == pair || !at[sizeof(arrow) - 1] || strstr(at + 1, arrow)) {
		dtk_error("cross pair '%s' must be A↔B, each side an entry or a node of the "
		          "base, or <domain>:<id>",
		          pair);
		return dtk_cmd_fail(ctx, 1);
	}
	side[0] = dtk_xstrndup(pair, (size_t)(at - pair));
	side[1] = dtk_xstrdup(at + sizeof(arrow) - 1);
	for (k = 0; k < 2; k++) {
		colon = strchr(side[k], ':');
		if (colon) {
			char *domain = dtk_xstrndup(side[k], (size_t)(colon - side[k]));
			ok = dtk_is_name(domain) && dtk_is_name(colon + 1);
			free(domain);
		} else {
			ok = dtk_kb_entry(kb, side[k]) || dtk_kb_node(kb, side[k]);
		}
		if (!ok) {
			dtk_error("cross pair '%s': '%s' is %s", pair, side[k],
			          colon ? "not a reference <domain>:<id>"
			                : "neither an entry nor a node of the base");
			bad = dtk_cmd_fail(ctx, 1);
		}
		free(side[k]);
	}
	return bad;
}

/* Sets the words of review (cross_pairs, verdict, note) from --review's
 * file and the options, which win, over what it holds; checks each cross
 * pair given. Returns DTK_EXIT_OK, or the exit status after the errors. */
static int S_words(struct dtk_ctx *ctx, const struct opts *o, struct dtk_kb *kb,
                   struct dtk_record *review)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	int rc = DTK_EXIT_OK, bad = 0;
	size_t i;

	if (o->review && dtk_kb_read_review(kb, o->review, review, &diags) != 0) {
		rc = diags.n ? dtk_cmd_report_invalid(ctx, &diags)
		             : dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	review->review_verdict = o->verdict ? o->verdict : review->review_verdict;
	review->review_note = o->note ? o->note : review->review_note;
	if (o->n_cross) {
		review->cross_pairs = (const char **)o->cross;
		review->n_cross_pairs = o->n_cross;
	}
	for (i = 0; (o->review || o->n_cross) && i < review->n_cross_pairs; i++)
		bad |= S_check_pair(ctx, kb, review->cross_pairs[i]);
	if ((o->verdict && !*o->verdict) || (o->note && !*o->note)) {
		dtk_error("--%s must not be empty",
		          o->verdict && !*o->verdict ? "verdict" : "note");
		bad = dtk_cmd_fail(ctx, 1);
	}
	if (bad)
		rc = DTK_EXIT_INVALID;
done:
	dtk_diags_release(&diags);
	return rc;
}

/* --amend: records the review of a run after it (its words as given, its
 * pairs computed again); writes the two files, no commit. Returns the exit
 * status. */
static int S_amend(struct dtk_ctx *ctx, const struct opts *o, struct dtk_kb *kb)
{
	struct dtk_record rec;
	struct dtk_pair_count *pairs = NULL;
	struct dtk_buf out = DTK_BUF_INIT;
	char *records = NULL, *index = NULL, d[11];
	struct dtk_index_pages pages = {NULL, 0, NULL}; /* a review is on INDEX.md only */
	dtk_date date = 0;
	size_t at = kb->n_records, i;
	long total = 0;
	int rc = DTK_EXIT_INVALID, w;

	if (o->run && dtk_date_parse(&date, o->run) < 0)
		return dtk_cmd_usage_error(
		        ctx, "RUN must be the date of a run (YYYY-MM-DD), not '%s'", o->run);
	for (i = 0; i < kb->n_records; i++)
		if (!date || kb->records[i].date == date)
			at = i;
	if (at == kb->n_records) {
		dtk_error("%s%s%s; 'dtk log' lists the runs",
		          date ? "no run of " : "no run is recorded", date ? o->run : "",
		          date ? " is recorded" : "");
		return dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	}
	rec = kb->records[at];
	rc = S_words(ctx, o, kb, &rec);
	if (rc != DTK_EXIT_OK)
		return rc;
	rec.has_review = 1;
	rec.n_pairs = dtk_record_pairs(&pairs, kb, &rec);
	rec.pairs = pairs;
	rc = S_texts(ctx, kb, &rec, at, &records, &index, &pages);
	if (rc != DTK_EXIT_OK)
		goto done;
	for (i = 0; i < rec.n_pairs; i++)
		total += rec.pairs[i].count;
	if (o->dry_run) {
		(void)dtk_record_to_yaml(&out, &rec);
		fputs(out.ptr, ctx->out);
	} else if ((w = S_write(kb, records, index, NULL)) != 0) {
		rc = dtk_cmd_fail(ctx, w == DTK_ENOSYNC ? DTK_EXIT_DRIFT : DTK_EXIT_INVALID);
	} else {
		fprintf(ctx->out, "amended the review of the run of %s: %ld pairs, %zu cross pairs, %s\n",
		        dtk_date_format(d, rec.date), total, rec.n_cross_pairs,
		        rec.review_verdict ? "verdict recorded" : "no verdict recorded");
	}
done:
	dtk_index_pages_release(&pages);
	free(pairs);
	free(records);
	free(index);
	dtk_buf_release(&out);
	return rc;
}

/* Runs (or plans) the crystallization with the base and history loaded. */
static int S_run(struct dtk_ctx *ctx, const struct opts *o, struct dtk_kb *kb,
                 struct dtk_repo *repo)
{
	struct dtk_kb *prev = NULL;
	struct dtk_crystal c;
	struct dtk_record rec;
	struct dtk_buf out = DTK_BUF_INIT;
	char *records = NULL, *index = NULL, *scenario = NULL, d1[11], d2[11];
	struct dtk_index_pages pages = {NULL, 0, NULL};
	struct dtk_memfile *more = NULL;
	const char *eq;
	int rc = DTK_EXIT_INVALID, n_more = 0;

	if (kb->n_records && o->date <= kb->records[kb->n_records - 1].date) {
		dtk_error("the date %s is not after the last run %s; pick a later day with --date",
		          dtk_date_format(d1, o->date),
		          dtk_date_format(d2, kb->records[kb->n_records - 1].date));
		return dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	}
	if (!o->plan && dtk_cmd_not_future(ctx, NULL, o->date, o->allow_future,
	                                   "every later run must be after it") < 0)
		return DTK_EXIT_INVALID;
	if (kb->n_records && S_prev(ctx, repo, kb->records[kb->n_records - 1].date,
	                            !o->plan && !o->allow_shallow, &prev) < 0)
		return DTK_EXIT_INVALID;
	dtk_crystal_compute(&c, kb, prev, o->date);
	if (o->plan) {
		dtk_cmd_pager(ctx);
		dtk_crystal_plan(&out, &c, &o->page, o->json);
		fputs(out.ptr, ctx->out);
		rc = DTK_EXIT_OK;
		goto done;
	}
	rec = c.rec;
	rc = S_words(ctx, o, kb, &rec);
	if (rc != DTK_EXIT_OK)
		goto done;
	eq = strchr(o->eval, '=');
	rec.eval_scenario = scenario = dtk_xstrndup(o->eval, (size_t)(eq - o->eval));
	rec.eval_verdict = eq + 1;
	rc = S_texts(ctx, kb, &rec, kb->n_records, &records, &index, &pages);
	if (rc == DTK_EXIT_OK && !o->dry_run && (n_more = S_more(kb, &rec, &pages, &more)) < 0)
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	if (rc != DTK_EXIT_OK)
		goto done;
	if (o->dry_run) {
		(void)dtk_record_to_yaml(&out, &rec);
		fputs(out.ptr, ctx->out);
		rc = DTK_EXIT_OK;
	} else if (o->no_commit) {
		int w = S_write(kb, records, index, n_more > (int)pages.n ? more : NULL);
		if (w == 0)
			S_unfold(kb); /* the fold written: each record counted once */
		if (w == 0 && dtk_index_pages_sync(kb->root, &pages, 1, NULL, NULL) < 0)
			w = DTK_ENOSYNC; /* files written: 1, as a write not synced */
		/* written but not synced: 1, never 2 after a byte changed */
		rc = w == 0 ? DTK_EXIT_OK
		            : dtk_cmd_fail(ctx,
		                           w == DTK_ENOSYNC ? DTK_EXIT_DRIFT : DTK_EXIT_INVALID);
		if (rc == DTK_EXIT_OK) {
			(void)dtk_record_summary(&out, &rec);
			char *a = dtk_path_shown("insights/_crystallizations.yaml"),
			     *b = dtk_path_shown(DTK_INDEX_FILE);
			fprintf(ctx->out, "wrote %s and %s for %s, not committed: %s\n", a, b,
			        dtk_date_format(d1, rec.date), out.ptr);
			free(a);
			free(b);
			S_blooms(ctx, &rec);
		}
	} else {
		rc = S_commit(ctx, repo, kb, o, &rec, records, index, more, (size_t)n_more);
	}
done:
	dtk_crystal_release(&c);
	dtk_index_pages_release(&pages);
	dtk_memfiles_free(more, n_more > 0 ? (size_t)n_more : 0);
	dtk_kb_free(prev);
	dtk_buf_release(&out);
	free(scenario);
	free(records);
	free(index);
	return rc;
}

/* --continue and --abort; returns the exit status. */
static int S_resume(struct dtk_ctx *ctx, struct dtk_repo *repo, int cont)
{
	char hex[41];
	int rc = cont ? dtk_repo_continue(repo, hex) : dtk_repo_abort(repo);

	if (rc < 0)
		return dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	if (rc == 0) {
		dtk_error("no crystallization was interrupted; there is nothing to %s",
		          cont ? "continue" : "abort");
		return dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	}
	if (cont)
		fprintf(ctx->out, "finished the interrupted crystallization as commit %.12s\n",
		        hex);
	else
		fprintf(ctx->out, "dropped the interrupted crystallization\n");
	return DTK_EXIT_OK;
}

/* The values of --format. */
static const char *const S_formats[] = {"text", "json", NULL};

/* The options of the command: the dispatcher parses them and refuses those
 * that conflict (S_conflicts); S_parse_opts what a mode does not take.
 * Their order is that of the messages about an ambiguous option ("'--a'
 * ... could be '--author', '--abort', ..."). */
static const struct dtk_opt S_opts[] = {
        {"plan", 'p', DTK_OPT_FLAG, .help = "print the reviewer's worklist; write nothing"},
        {"date", 'd', DTK_OPT_DATE, .arg = "D",
         .help = "the run's date (default today); after the last run"},
        {"format", 'f', DTK_OPT_CHOICE, .arg = "F", .choices = S_formats,
         .help = "text or json (with --plan)"},
        {"page", 'P', DTK_OPT_INT, .arg = "N",
         .help = "with --plan: page N of each list (default 1)"},
        {"limit", 'l', DTK_OPT_INT, .arg = "N",
         .help = "with --plan: N items of each list a page (default 20;\n"
                 "review pairs: of N new entries)"},
        {"pairs", 'k', DTK_OPT_INT, .arg = "K",
         .help = "with --plan: at most K review pairs a new entry (default 5)"},
        {"eval", 'e', DTK_OPT_STRING, .arg = "S=V",
         .help = "the eval scenario and its verdict (required for a run)"},
        {"review", 'r', DTK_OPT_STRING, .arg = "FILE",
         .help = "YAML with cross_pairs, verdict and note of the review\n"
                 "(without: the pairs compared, no verdict recorded)"},
        {"author", 'a', DTK_OPT_STRING, .arg = "A",
         .help = "'Name <email>' (default: user.name and user.email)"},
        {"dry-run", 'n', DTK_OPT_FLAG, .help = "print the record; write nothing"},
        {"no-commit", 'N', DTK_OPT_FLAG, .help = "write the files but do not commit"},
        {"gpg-sign", 'S', DTK_OPT_OPTIONAL, .arg = "KEYID",
         .help = "sign the commit as git does (default:\n"
                 "commit.gpgsign, key user.signingkey)"},
        {"no-gpg-sign", 'G', DTK_OPT_FLAG, .help = "do not sign, whatever commit.gpgsign says"},
        {"no-verify", 'V', DTK_OPT_FLAG, .help = "skip the pre-commit and commit-msg hooks"},
        {"continue", 'C', DTK_OPT_FLAG, .help = "finish a crystallization that was interrupted"},
        {"abort", 'A', DTK_OPT_FLAG, .help = "drop a crystallization that was interrupted"},
        {"allow-future", 'F', DTK_OPT_FLAG, .help = "accept a run date after today"},
        {"allow-shallow", 'W', DTK_OPT_FLAG,
         .help = "in a shallow clone that lacks the previous run, count\n"
                 "only what the files show"},
        {"verdict", 'v', DTK_OPT_STRING, .arg = "TEXT",
         .help = "the review's verdict (over --review's)"},
        {"note", 'o', DTK_OPT_STRING, .arg = "TEXT", .help = "the review's note (over --review's)"},
        {"cross-pair", 'x', DTK_OPT_LIST, .arg = "A↔B",
         .help = "a cross-node or cross-domain pair looked at\n"
                 "(repeatable; each side an entry, a node or <domain>:<id>)"},
        {"amend", 'M', DTK_OPT_FLAG,
         .help = "record the review of the last run (or of the run RUN)\n"
                 "after it: its pairs computed again; no commit",
         .operands = "[RUN]"},
        {0}};

/* Why two options are refused together (the dispatcher checks them before
 * S_parse_opts: with --amend, its own first). */
static const char S_amend_why[] = "--amend changes the review of a run recorded",
                  S_plan_why[] = "--plan prints the worklist and records nothing",
                  S_no_commit_why[] = "no commit is made";
static const struct dtk_opt_conflict S_conflicts[] = {
        {'M', 'p', S_amend_why},
        {'M', 'd', S_amend_why},
        {'M', 'f', S_amend_why},
        {'M', 'e', S_amend_why},
        {'M', 'a', S_amend_why},
        {'M', 'N', S_amend_why},
        {'M', 'S', S_amend_why},
        {'M', 'G', S_amend_why},
        {'M', 'V', S_amend_why},
        {'M', 'C', S_amend_why},
        {'M', 'A', S_amend_why},
        {'M', 'F', S_amend_why},
        {'M', 'W', S_amend_why},
        {'p', 'e', S_plan_why},
        {'p', 'r', S_plan_why},
        {'p', 'a', S_plan_why},
        {'p', 'n', "--plan never writes"},
        {'p', 'N', S_plan_why},
        {'n', 'N', "--dry-run writes nothing, --no-commit writes the files"},
        {'n', 'a', "--dry-run makes no commit"},
        {'N', 'a', "--no-commit makes no commit"},
        {'p', 'S', S_no_commit_why},
        {'p', 'G', S_no_commit_why},
        {'p', 'V', S_no_commit_why},
        {'n', 'S', S_no_commit_why},
        {'n', 'G', S_no_commit_why},
        {'n', 'V', S_no_commit_why},
        {'N', 'S', S_no_commit_why},
        {'N', 'G', S_no_commit_why},
        {'N', 'V', S_no_commit_why},
        {0}};

static int S_exec(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_repo *repo = NULL;
	struct dtk_kb *kb = NULL;
	struct opts o;
	int rc, commits;

	if (S_parse_opts(ctx, &o, a) < 0)
		return DTK_EXIT_INVALID;
	commits = !o.plan && !o.dry_run && !o.no_commit && !o.amend;
	/* outside a repository only committing needs one; without libgit2 the
	 * previous run cannot be read either, so nothing goes */
	rc = dtk_repo_open(&repo, ctx->root);
	if (rc == DTK_ENOGIT || (rc < 0 && commits)) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	if (o.cont || o.abort) {
		rc = S_resume(ctx, repo, o.cont);
		goto done;
	}
	if (repo && !o.plan && !o.dry_run) {
		char branch[256];
		rc = dtk_repo_interrupted(repo, branch, sizeof(branch));
		if (rc != 0) {
			if (rc > 0)
				dtk_error(
				        "a crystallization on branch %s was interrupted: finish it "
				        "with 'dtk crystallize --continue', or drop it with 'dtk "
				        "crystallize --abort'",
				        branch);
			rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
			goto done;
		}
	}
	if (commits && dtk_repo_check_ready(repo) < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	/* the plan's review pairs rank with the node cache's terms (similar.h) */
	rc = dtk_cmd_load(ctx, &kb, o.plan ? DTK_KB_ALL | DTK_KB_TERMS : DTK_KB_ALL, NULL);
	if (rc == DTK_EXIT_OK)
		rc = o.amend ? S_amend(ctx, &o, kb) : S_run(ctx, &o, kb, repo);
done:
	dtk_kb_free(kb);
	dtk_repo_free(repo);
	return rc;
}

const struct dtk_cmd dtk_cmd_crystallize = {
        .name = "crystallize",
        .usage = "dtk crystallize --plan [--date D] [--format text|json] [--page N]\n"
                 "                       [--limit N] [--pairs K]\n"
                 "       dtk crystallize --eval SCENARIO=VERDICT [--date D] [--review FILE]\n"
                 "                       [--author 'Name <email>'] [--dry-run | --no-commit]\n"
                 "                       [--gpg-sign[=KEYID] | --no-gpg-sign] [--no-verify]\n"
                 "                       [--allow-future] [--allow-shallow]\n"
                 "       dtk crystallize --amend [RUN] [--verdict TEXT] [--note TEXT]\n"
                 "                       [--cross-pair A↔B]... [--review FILE] [--dry-run]\n"
                 "       dtk crystallize --continue | --abort",
        .summary = "review what changed since the last run and commit the record",
        .help = "\nCompares the base now with the base at the previous run (read from git\n"
                "history), appends a record to insights/_crystallizations.yaml, rebuilds\n"
                "INDEX.md (and the pages of index/), folds the records of insights/_uses/\n"
                "into one file and commits insights/, INDEX.md and index/ as one commit\n"
                "on the current branch. Other changes in the work tree and the index are\n"
                "left alone.\n"
                "The commit is made as 'git commit' makes it: identity, signing and hooks\n"
                "(pre-commit, prepare-commit-msg, commit-msg, post-commit); see docs/git.md.\n",
        .examples = "examples:\n"
                    "  dtk crystallize --plan --date 2026-10-15\n"
                    "  dtk crystallize --date 2026-10-15 --eval scenario-004=acceptable\n"
                    "  dtk crystallize --amend --verdict '均为限定或同源互补'\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES | DTK_CMD_RESUMES,
        .opts = S_opts,
        .conflicts = S_conflicts,
        .run = S_exec,
};
