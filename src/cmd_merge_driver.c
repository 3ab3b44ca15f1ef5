/* cmd_merge_driver.c: dtk merge-driver: git's merge driver for INDEX.md. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/index.h"
#include "dtk/kb.h"
#include "dtk/repo.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Returns the base root for INDEX.md at path (relative to the work tree,
 * where git runs the driver): the directory holding it; malloc'd. */
static char *S_root(const char *path)
{
	char cwd[4096], *slash;
	struct dtk_buf b = DTK_BUF_INIT;

	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	dtk_buf_puts(&b, cwd);
	slash = strrchr(path, '/');
	if (slash) {
		dtk_buf_putc(&b, '/');
		dtk_buf_put(&b, path, (size_t)(slash - path));
	}
	return dtk_buf_detach(&b);
}

/* Renders INDEX.md from the merged files into ours; returns the status. */
static int S_render(struct dtk_ctx *ctx, const struct dtk_memfile *files, size_t n,
                    const char *ours)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	char *index;
	int rc = dtk_kb_load_mem(&kb, files, n, DTK_KB_LEAN, &diags);

	if (rc != 0) {
		fprintf(ctx->err, "dtk merge-driver: the merged insights/ are not valid; "
		                  "INDEX.md is left in conflict:\n");
		dtk_diags_print(&diags, ctx->err);
		dtk_diags_release(&diags);
		return 1;
	}
	index = dtk_index_render(kb);
	rc = dtk_file_write_atomic(ours, index, strlen(index)) < 0
	             ? dtk_cmd_fail(ctx, "merge-driver", 1)
	             : 0;
	free(index);
	dtk_kb_free(kb);
	return rc;
}

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_repo *repo = NULL;
	struct dtk_memfile *files = NULL;
	char *root;
	size_t n = 0;
	int rc;

	if (argc < 5)
		return dtk_cmd_usage_error(ctx, "merge-driver",
		                           "missing %s (git passes %%O %%A %%B %%P)",
		                           (const char *const[]){"<ancestor>", "<ours>", "<theirs>",
		                                                 "<path>"}[argc - 1]);
	if (argc > 5)
		return dtk_cmd_usage_error(ctx, "merge-driver", "unexpected argument '%s'",
		                           argv[5]);
	root = S_root(argv[4]);
	if (!root || dtk_repo_open(&repo, root) < 0) {
		free(root);
		return dtk_cmd_fail(ctx, "merge-driver", 1);
	}
	rc = dtk_repo_merged_insights(repo, (const char *const *)argv + 1, &files, &n);
	if (rc == 1)
		fprintf(ctx->err, "dtk merge-driver: insights/ do not merge cleanly (or the other "
		                  "side is unknown); resolve them, then run 'dtk reindex'\n");
	else if (rc < 0)
		rc = dtk_cmd_fail(ctx, "merge-driver", 1);
	else
		rc = S_render(ctx, files, n, argv[2]);
	dtk_memfiles_free(files, n);
	dtk_repo_free(repo);
	free(root);
	return rc;
}

const struct dtk_cmd dtk_cmd_merge_driver = {
        .name = "merge-driver",
        .usage = "dtk merge-driver <ancestor> <ours> <theirs> <path>",
        .summary = "git's merge driver for INDEX.md (set up by dtk setup-git)",
        .help = "\nRun by git, not by hand (%O %A %B %P). Merges insights/ of both sides\n"
                "with libgit2 and writes INDEX.md rebuilt from the result over <ours>.\n"
                "Exits 1, leaving INDEX.md in conflict, when insights/ conflict or the\n"
                "merged data is invalid: resolve them, then run 'dtk reindex'.\n",
        .flags = 0,
        .exec = S_exec,
};
