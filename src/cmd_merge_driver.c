/* cmd_merge_driver.c: dtk merge-driver: git's merge driver for INDEX.md, the
 * pages of index/ and the files of insights/. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/git.h"
#include "dtk/merge.h"
#include "dtk/repo.h"
#include "dtk/ytree.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Returns the base root: the folder git runs the driver in (the work tree)
 * joined with the first n bytes of path; malloc'd. */
static char *S_root(const char *path, size_t n)
{
	char cwd[4096];
	struct dtk_buf b = DTK_BUF_INIT;

	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	dtk_buf_puts(&b, cwd);
	if (n) {
		dtk_buf_putc(&b, '/');
		dtk_buf_put(&b, path, n);
	}
	return dtk_buf_detach(&b);
}

/* Writes len bytes of data over ours (git's %A). Returns 0; 2 after the
 * error when ours is as it was; 1 when it was replaced but its directory
 * not synced (2 says nothing was written). */
static int S_write_ours(struct dtk_ctx *ctx, const char *ours, const char *data, size_t len)
{
	int rc = dtk_file_write_atomic(ours, data, len);
	return rc == 0 ? 0
	               : dtk_cmd_fail(ctx, rc == DTK_ENOSYNC ? DTK_EXIT_DRIFT : DTK_EXIT_INVALID);
}

/* Renders INDEX.md (page NULL), or the page of index/ named page, from the
 * merged files into ours; returns the status. A page the merged base no
 * longer makes is left as ours had it, said (dtk reindex removes it). */
static int S_render(struct dtk_ctx *ctx, const struct dtk_memfile *files, size_t n,
                    const char *ours, const char *page)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_memfile *pages = NULL;
	size_t n_pages = 0, i;
	char *index;
	int rc = dtk_merge_index(&index, files, n, page ? &pages : NULL, &n_pages, &diags);

	if (rc != 0) {
		fprintf(ctx->err,
		        "dtk %s: the merged insights/ are not valid; %s is "
		        "left in conflict:\n",
		        ctx->cmd->name, page ? page : "INDEX.md");
		dtk_diags_print(&diags, ctx->err);
		dtk_diags_release(&diags);
		return 1;
	}
	for (i = 0; page && i < n_pages && strcmp(pages[i].name, page); i++)
		;
	if (!page)
		rc = S_write_ours(ctx, ours, index, strlen(index));
	else if (i < n_pages)
		rc = S_write_ours(ctx, ours, pages[i].data, pages[i].len);
	else
		fprintf(ctx->err,
		        "dtk %s: %s: the merged base makes no such page; "
		        "kept as ours had it; run 'dtk reindex' after the merge\n",
		        ctx->cmd->name, page);
	dtk_memfiles_free(pages, n_pages);
	free(index);
	return rc;
}

/* Returns the name of the file at path when it is <dir>/<name><ext> (dir
 * its last folder), else NULL. */
static const char *S_file_in(const char *path, const char *dir, const char *ext)
{
	const char *name = strrchr(path, '/');
	size_t d = strlen(dir), e = strlen(ext), len;

	if (!name || (size_t)(name - path) < d || strncmp(name - d, dir, d) ||
	    ((size_t)(name - path) > d && (name - d)[-1] != '/'))
		return NULL;
	len = strlen(++name);
	return len > e && !strcmp(name + len - e, ext) ? name : NULL;
}

/* Merges %O %A %B (argv[1..3]) and writes the result over ours: a file of
 * insights/ (name: its name) as data (see docs/merging.md); any other (name
 * NULL: a .gitattributes line that names a dtk driver for it) as git merges
 * text. Returns 0, or 1 when it conflicts (git then marks the file
 * conflicted; a file that cannot be read is left as ours). */
static int S_merge_file(struct dtk_ctx *ctx, char **argv, int argc, const char *name)
{
	char *text[3] = {NULL, NULL, NULL}, *out = NULL;
	size_t len[3] = {0, 0, 0}, olen = 0;
	const char *lo = argc > 5 ? argv[5] : NULL, *lt = argc > 6 ? argv[6] : NULL;
	int i, rc = 0, w;

	for (i = 0; i < 3 && rc == 0; i++)
		if (dtk_file_read(&text[i], &len[i], argv[1 + i], DTK_MAX_FILE_BYTES) < 0)
			rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	if (rc != 0)
		goto done;
	if (name) {
		struct dtk_merge_in in = {name,   text[0], text[1], text[2], len[0],
		                          len[1], len[2],  lo,      lt};
		struct dtk_merge_out mo;
		rc = dtk_merge_file(&mo, &in);
		fputs(dtk_buf_cstr(&mo.notes), ctx->err);
		out = mo.text;
		olen = mo.len;
		mo.text = NULL;
		dtk_merge_out_release(&mo);
	} else {
		fprintf(ctx->err,
		        "dtk %s: %s is neither INDEX.md nor a file of insights/: merged as "
		        "git merges text\n",
		        ctx->cmd->name, argv[4]);
		rc = dtk_git_merge_text(&out, &olen, text, len, lo, lt);
	}
	if (rc < 0)
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	else if ((w = S_write_ours(ctx, argv[2], out, olen)) != 0)
		rc = w;
	else if (rc && name)
		fprintf(ctx->err,
		        "dtk %s: %s: conflicts marked; resolve them, then run 'dtk "
		        "reindex'\n",
		        ctx->cmd->name, argv[4]);
done:
	for (i = 0; i < 3; i++)
		free(text[i]);
	free(out);
	return rc;
}

/* Returns 1 when path names a file INDEX.md, 2 when a page of a folder
 * index/ ("index/<name>.md"); sets *page to the page's name from index/. */
static int S_index_file(const char *path, const char **page)
{
	const char *name = strrchr(path, '/');

	*page = NULL;
	if (!strcmp(name ? name + 1 : path, "INDEX.md"))
		return 1;
	if (!S_file_in(path, "index", ".md"))
		return 0;
	*page = name - 5;
	return 2;
}

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_repo *repo = NULL;
	struct dtk_memfile *files = NULL;
	const char *page, *slash;
	char *root;
	size_t n = 0;
	int rc, kind;

	if (argc < 5)
		return dtk_cmd_usage_error(ctx, "missing %s (git passes %%O %%A %%B %%P)",
		                           (const char *const[]){"<ancestor>", "<ours>", "<theirs>",
		                                                 "<path>"}[argc - 1]);
	if (argc > 7)
		return dtk_cmd_usage_error(ctx, "unexpected argument '%s'", argv[7]);
	if (S_file_in(argv[4], "insights", ".yaml"))
		return S_merge_file(ctx, argv, argc, S_file_in(argv[4], "insights", ".yaml"));
	if (!(kind = S_index_file(argv[4], &page)))
		return S_merge_file(ctx, argv, argc, NULL);
	/* the base root: the folder holding INDEX.md, or index/ */
	slash = kind == 2 ? (page > argv[4] ? page - 1 : NULL) : strrchr(argv[4], '/');
	root = S_root(argv[4], slash ? (size_t)(slash - argv[4]) : 0);
	if (!root || dtk_repo_open(&repo, root) < 0) {
		free(root);
		return dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	}
	rc = dtk_repo_merged_insights(repo, (const char *const *)argv + 1, page ? page : "INDEX.md",
	                              dtk_merge_blob, &files, &n);
	if (rc == DTK_REPO_CONFLICT)
		fprintf(ctx->err,
		        "dtk %s: %s left in conflict: insights/ do not merge "
		        "cleanly; resolve them, then run 'dtk reindex'\n",
		        ctx->cmd->name, argv[4]);
	else if (rc == DTK_REPO_NO_SIDES) {
		/* INDEX.md is derived: kept as ours had it, stale, said */
		rc = 0;
		fprintf(ctx->err,
		        "dtk %s: %s: git names no commit it is merging (a "
		        "cherry-pick or revert that does not stop, a stash applied, a patch; "
		        "docs/git.md): ours' INDEX.md kept, not rebuilt; after it, in the "
		        "base run: dtk reindex && git commit --amend --no-edit INDEX.md when "
		        "git committed the change (a cherry-pick, a revert), else dtk reindex "
		        "alone before you commit it\n",
		        ctx->cmd->name, argv[4]);
	} else if (rc < 0)
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	else
		rc = S_render(ctx, files, n, argv[2], page);
	dtk_memfiles_free(files, n);
	dtk_repo_free(repo);
	free(root);
	return rc;
}

const struct dtk_cmd dtk_cmd_merge_driver = {
        .name = "merge-driver",
        .usage = "dtk merge-driver <ancestor> <ours> <theirs> <path>\n"
                 "                        [<ours-label> <theirs-label>]",
        .summary = "git's merge driver for INDEX.md and insights/*.yaml (set up by dtk "
                   "setup-git)",
        .help = "\nRun by git, not by hand (%O %A %B %P). For insights/<file>.yaml: merges\n"
                "the three versions as data (entries matched by id; docs/merging.md) and\n"
                "writes the result over <ours>; conflicts are marked around the entry only\n"
                "(labels: the optional arguments, default ours and theirs). For INDEX.md:\n"
                "merges insights/ of both sides the same way and writes INDEX.md rebuilt\n"
                "from the result over <ours>. Exits 1, leaving the file in conflict, when\n"
                "the data conflicts or the merged data is invalid: resolve it, then run\n"
                "'dtk reindex'. Any other file (a .gitattributes line naming a dtk driver\n"
                "for it) is merged as git merges text.\n",
        .flags = DTK_CMD_GIT_ARGS,
        .exec = S_exec,
};
