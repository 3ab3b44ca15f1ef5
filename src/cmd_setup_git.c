/* cmd_setup_git.c: dtk setup-git: merge INDEX.md by rebuilding it. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/repo.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ATTR_LINE "/INDEX.md merge=dtk-index"

/* Adds ATTR_LINE to root/.gitattributes unless it is there already. */
static int S_attributes(const char *root, int *added)
{
	char *path = dtk_path_join(root, ".gitattributes"), *old = NULL;
	struct dtk_buf text = DTK_BUF_INIT;
	size_t len = 0;
	int rc = 0;

	*added = 0;
	if (dtk_file_read(&old, &len, path, 1u << 20) == 0 && strstr(old, ATTR_LINE "\n"))
		goto done;
	if (old)
		dtk_buf_put(&text, old, len);
	if (text.len && text.ptr[text.len - 1] != '\n')
		dtk_buf_putc(&text, '\n');
	dtk_buf_puts(&text, ATTR_LINE "\n");
	rc = dtk_file_write_atomic(path, text.ptr, text.len);
	*added = rc == 0;
done:
	dtk_buf_release(&text);
	free(old);
	free(path);
	return rc;
}

/* Returns the command git runs: this dtk, by absolute path, quoted. */
static char *S_driver(const char *dtk)
{
	struct dtk_buf b = DTK_BUF_INIT;
	char self[PATH_MAX];
	ssize_t n;

	if (!dtk) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = '\0';
		dtk = n > 0 ? self : "dtk";
	}
	dtk_buf_putc(&b, '\'');
	for (; *dtk; dtk++)
		dtk_buf_puts(&b, *dtk == '\'' ? "'\\''" : (char[]){*dtk, 0});
	dtk_buf_puts(&b, "' merge-driver %O %A %B %P");
	return dtk_buf_detach(&b);
}

/* Refuses a --dtk that is not an executable file: git would fail at the
 * first merge of INDEX.md. Returns 0 or -1 after the usage error. */
static int S_check_dtk(struct dtk_ctx *ctx, const char *dtk)
{
	struct stat st;

	if (stat(dtk, &st) < 0) {
		dtk_cmd_usage_error(ctx, "setup-git", "--dtk %s: %s", dtk, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || access(dtk, X_OK) < 0) {
		dtk_cmd_usage_error(ctx, "setup-git", "--dtk %s: not an executable file", dtk);
		return -1;
	}
	return 0;
}

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_repo *repo = NULL;
	const char *dtk = NULL;
	char *driver = NULL;
	int added = 0, rc = DTK_EXIT_INVALID;

	static const struct option opts[] = {{"dtk", required_argument, NULL, 'd'},
	                                     {NULL, 0, NULL, 0}};
	int c;

	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv, "", opts)) != -1) {
		if (c != 'd')
			return DTK_EXIT_INVALID;
		if (dtk)
			return dtk_cmd_usage_error(ctx, "setup-git", "--dtk given twice");
		dtk = optarg;
	}
	if (dtk_cmd_operands(ctx, "setup-git", argc, argv, 0, 0, NULL) < 0 ||
	    (dtk && S_check_dtk(ctx, dtk) < 0))
		return DTK_EXIT_INVALID;
	if (dtk_repo_open(&repo, ctx->root) < 0) {
		rc = dtk_cmd_fail(ctx, "setup-git", DTK_EXIT_INVALID);
		goto done;
	}
	driver = S_driver(dtk);
	if (dtk_repo_config_set(repo, "merge.dtk-index.name",
	                        "dtk: rebuild INDEX.md from the merged insights/") < 0 ||
	    dtk_repo_config_set(repo, "merge.dtk-index.driver", driver) < 0 ||
	    S_attributes(ctx->root, &added) < 0) {
		rc = dtk_cmd_fail(ctx, "setup-git", DTK_EXIT_INVALID);
		goto done;
	}
	fprintf(ctx->out, "git config merge.dtk-index.driver = %s\n", driver);
	fprintf(ctx->out, "%s: %s\n", added ? "added to .gitattributes" : ".gitattributes has",
	        ATTR_LINE);
	if (added)
		fprintf(ctx->out, "commit .gitattributes so that every clone merges INDEX.md this "
		                  "way (each clone runs 'dtk setup-git' once)\n");
	rc = DTK_EXIT_OK;
done:
	free(driver);
	dtk_repo_free(repo);
	return rc;
}

const struct dtk_cmd dtk_cmd_setup_git = {
        .name = "setup-git",
        .usage = "dtk setup-git [--dtk PATH]",
        .summary = "make git merge INDEX.md by rebuilding it from the merged insights",
        .help = "\nWrites '" ATTR_LINE "' to the base's .gitattributes and, in\n"
                "the repository's own configuration, merge.dtk-index.driver: this dtk's\n"
                "merge-driver. Branches that each reindexed then merge without a conflict\n"
                "on INDEX.md. Run it once per clone; commit .gitattributes.\n\n"
                "options:\n"
                "  --dtk PATH   the dtk git should run (default: this one, by absolute path)\n\n"
                "examples:\n"
                "  dtk setup-git && git add .gitattributes && git commit -m 'merge INDEX.md with "
                "dtk'\n",
        .flags = DTK_CMD_NEEDS_KB,
        .exec = S_exec,
};
