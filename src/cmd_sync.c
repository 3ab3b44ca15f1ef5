/* cmd_sync.c: dtk sync: the current branch brought up to date with its
 * upstream by a merge, with dtk's merge of insights/ and INDEX.md rebuilt,
 * so that a hosting service's merge of it has nothing left to merge. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/merge.h"
#include "dtk/repo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* struct dtk_sync's render: INDEX.md and the pages of index/ from the
 * merged files; why they are not valid into notes. */
static int S_render(const struct dtk_memfile *files, size_t n, char **out,
                    struct dtk_memfile **pages, size_t *n_pages, struct dtk_buf *notes)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc = dtk_merge_index(out, files, n, pages, n_pages, &diags);

	if (rc != 0 && (f = open_memstream(&text, &len))) {
		fprintf(f, "the merged insights/ are not valid; INDEX.md is left in conflict:\n");
		dtk_diags_print(&diags, f);
		fclose(f);
		dtk_buf_put(notes, text, len);
		free(text);
	}
	dtk_diags_release(&diags);
	return rc;
}

/* Prints each line of list after prefix, to f. */
static void S_lines(FILE *f, const char *prefix, const struct dtk_buf *list)
{
	const char *p = list->ptr, *nl;
	for (; p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		fprintf(f, "%s%.*s\n", prefix, (int)(nl - p), p);
	}
}

static const struct dtk_opt S_opts[] = {
        {"dry-run", 'n', DTK_OPT_FLAG, .help = "say what it would do; write nothing"},
        {"no-verify", 'V', DTK_OPT_FLAG,
         .help = "skip the pre-merge-commit and commit-msg hooks, as git merge\n"
                 "--no-verify does"},
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_sync s = {.merge = dtk_merge_blob, .render = S_render};
	struct dtk_repo *repo = NULL;
	int rc = DTK_EXIT_OK;
	char ours[8], theirs[8];

	s.upstream = a->argc ? a->argv[0] : NULL;
	s.dry_run = dtk_args_has(a, 'n') > 0;
	s.no_verify = dtk_args_has(a, 'V') > 0;
	if (dtk_repo_open(&repo, ctx->root) < 0 || dtk_repo_sync(repo, &s) < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	snprintf(theirs, sizeof(theirs), "%.7s", s.theirs);
	snprintf(ours, sizeof(ours), "%.7s", s.commit);
	if (s.notes.len)
		fputs(s.notes.ptr, ctx->err);
	switch (s.state) {
	case DTK_SYNC_UP_TO_DATE:
		fprintf(ctx->out, "%s is up to date with %s (%s)\n", s.branch, s.name, theirs);
		break;
	case DTK_SYNC_FAST_FORWARD:
		fprintf(ctx->out, "%s %s to %s (%s): a fast-forward\n", s.branch,
		        s.dry_run ? "would move" : "moved", s.name, theirs);
		break;
	case DTK_SYNC_MERGED:
		fprintf(ctx->out, "%s %s (%s) into %s", s.dry_run ? "would merge" : "merged",
		        s.name, theirs, s.branch);
		if (!s.dry_run)
			fprintf(ctx->out, ": commit %s", ours);
		fputc('\n', ctx->out);
		S_lines(ctx->out, "  merged by dtk: ", &s.merged);
		fprintf(ctx->out, "  INDEX.md %s from the merged insights/\n",
		        s.dry_run ? "would be rebuilt" : "rebuilt");
		break;
	case DTK_SYNC_STOPPED:
		S_lines(ctx->out, "  merged by dtk: ", &s.merged);
		S_lines(ctx->err, "CONFLICT: ", &s.conflicts);
		if (s.dry_run)
			fprintf(ctx->err,
			        "dtk %s: the merge of %s (%s) into %s would stop on conflicts\n",
			        ctx->cmd->name, s.name, theirs, s.branch);
		else
			fprintf(ctx->err,
			        "dtk %s: the merge of %s (%s) into %s stopped on conflicts (as "
			        "git merge stops: MERGE_HEAD); resolve them, then run 'dtk "
			        "reindex', 'git add' the files and 'git commit' (or 'git merge "
			        "--abort')\n",
			        ctx->cmd->name, s.name, theirs, s.branch);
		rc = DTK_EXIT_DRIFT;
		break;
	}
done:
	dtk_sync_release(&s);
	dtk_repo_free(repo);
	return rc;
}

const struct dtk_cmd dtk_cmd_sync = {
        .name = "sync",
        .summary = "merge the upstream into the current branch, insights/ merged by dtk",
        .help = "\nBrings the current branch up to date for a hosting service's merge: merges\n"
                "<upstream> (default: the remote's default branch, origin/HEAD, else\n"
                "origin/main or origin/master) into it as 'git merge' does (hooks, identity,\n"
                "signing; a fast-forward when the branch has no commit of its own), with\n"
                "every file of insights/ both sides changed merged by dtk (docs/merging.md)\n"
                "and INDEX.md rebuilt from the merged insights/, whether or not this clone\n"
                "ran 'dtk setup-git'. Nothing is rewritten. A conflict stops the merge as\n"
                "git merge stops (MERGE_HEAD, the paths conflicted): resolve them, run 'dtk\n"
                "reindex', 'git add' and 'git commit'. Exits 0 when merged or up to date, 1\n"
                "when it stopped on conflicts (or would, with --dry-run), 2 when it refused\n"
                "(a work tree with changes, a merge or other operation under way) or failed.\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS,
        .opts = S_opts,
        .operands = "[<upstream>]",
        .examples = "examples:\n  git fetch origin && dtk sync && git push\n"
                    "  git fetch origin && dtk sync --dry-run origin/release\n",
        .run = S_run,
};
