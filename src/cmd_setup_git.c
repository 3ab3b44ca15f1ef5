/* cmd_setup_git.c: dtk setup-git: merge INDEX.md by rebuilding it, and the
 * files of insights/ as data. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/repo.h"
#include "dtk/self.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ATTR_LINE "/INDEX.md merge=dtk-index"
#define ATTR_INSIGHTS "/insights/*.yaml merge=dtk-insights"
/* The largest .gitattributes read (LFS rules can run to megabytes). */
#define MAX_ATTR_BYTES (64u << 20)

/* Reads .gitattributes at path whole: 0 and *text (malloc'd; NULL when
 * there is none), or -1 with the error set. A file git would not read as
 * attributes (a symbolic link, not a regular file) or that cannot be read
 * whole is an error: never taken for an empty one. */
static int S_read_attributes(const char *path, char **text, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc;

	*text = NULL;
	*len = 0;
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return dtk_error("%s is a symbolic link, which git does not read; make it a file",
		                 path);
	if (fd < 0)
		return dtk_error("cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rc = dtk_error("cannot read %s: it is not a regular file", path);
		goto done;
	}
	rc = dtk_file_read_fd(text, len, fd, path, MAX_ATTR_BYTES);
	if (rc == DTK_ETOOBIG)
		rc = dtk_error("cannot read %s: it is larger than %u bytes", path, MAX_ATTR_BYTES);
done:
	close(fd);
	return rc < 0 ? -1 : 0;
}

/* Returns 1 when text holds line as a whole line (the last one may lack its
 * newline, any may end in CR). */
static int S_has_line(const char *text, size_t len, const char *line)
{
	const char *p = text, *end = text + len;
	size_t n = strlen(line);

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *stop = eol ? eol : end;
		if (stop > p && stop[-1] == '\r')
			stop--;
		if ((size_t)(stop - p) == n && !memcmp(p, line, n))
			return 1;
		p = eol ? eol + 1 : end;
	}
	return 0;
}

/* Makes the new .gitattributes: every byte of old kept, ATTR_LINE and
 * ATTR_INSIGHTS appended when missing (after a newline when old lacks its
 * last). Sets *text NULL when old has both lines already; *added to the
 * lines added. */
static void S_attributes_text(char **text, const char *old, size_t len, int *added)
{
	static const char *const lines[] = {ATTR_LINE, ATTR_INSIGHTS};
	struct dtk_buf b = DTK_BUF_INIT;
	size_t i;

	*text = NULL;
	*added = 0;
	if (old)
		dtk_buf_put(&b, old, len);
	for (i = 0; i < 2; i++) {
		if (old && S_has_line(old, len, lines[i]))
			continue;
		if (b.len && b.ptr[b.len - 1] != '\n')
			dtk_buf_putc(&b, '\n');
		dtk_buf_puts(&b, lines[i]);
		dtk_buf_putc(&b, '\n');
		*added |= 1 << i;
	}
	if (*added)
		*text = dtk_buf_detach(&b);
	dtk_buf_release(&b);
}

/* Returns the command git runs: this dtk, by absolute path, quoted; sets
 * *how to how the path was found (NULL for --dtk). NULL with the error set
 * when this dtk's path cannot be found. */
static char *S_driver(const char *dtk, const char **how)
{
	struct dtk_buf b = DTK_BUF_INIT;
	char *self = NULL;

	*how = NULL;
	if (!dtk && !(dtk = self = dtk_self_path(how)))
		return NULL;
	dtk_buf_putc(&b, '\'');
	for (; *dtk; dtk++)
		dtk_buf_puts(&b, *dtk == '\'' ? "'\\''" : (char[]){*dtk, 0});
	dtk_buf_puts(&b, "' merge-driver %O %A %B %P");
	free(self);
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
	const char *dtk = NULL, *how = NULL;
	char *driver = NULL, *path = NULL, *old = NULL, *text = NULL;
	size_t len = 0;
	int rc = DTK_EXIT_INVALID, added = 0;

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
	/* everything read and made before anything is written */
	path = dtk_path_join(ctx->root, ".gitattributes");
	if (S_read_attributes(path, &old, &len) < 0 || !(driver = S_driver(dtk, &how))) {
		rc = dtk_cmd_fail(ctx, "setup-git", DTK_EXIT_INVALID);
		goto done;
	}
	S_attributes_text(&text, old, len, &added);
	if (dtk_repo_config_set(repo, "merge.dtk-index.name",
	                        "dtk: rebuild INDEX.md from the merged insights/") < 0 ||
	    dtk_repo_config_set(repo, "merge.dtk-index.driver", driver) < 0 ||
	    dtk_repo_config_set(repo, "merge.dtk-insights.name",
	                        "dtk: merge insights/*.yaml as data, entries by id") < 0 ||
	    dtk_repo_config_set(repo, "merge.dtk-insights.driver", driver) < 0 ||
	    (text && dtk_file_write_atomic(path, text, strlen(text)) < 0)) {
		rc = dtk_cmd_fail(ctx, "setup-git", DTK_EXIT_INVALID);
		goto done;
	}
	fprintf(ctx->out, "git config merge.dtk-index.driver = %s\n", driver);
	fprintf(ctx->out, "git config merge.dtk-insights.driver = %s\n", driver);
	if (how)
		fprintf(ctx->out, "(this dtk's path, found by %s)\n", how);
	fprintf(ctx->out, "%s: %s\n", added & 1 ? "added to .gitattributes" : ".gitattributes has",
	        ATTR_LINE);
	fprintf(ctx->out, "%s: %s\n", added & 2 ? "added to .gitattributes" : ".gitattributes has",
	        ATTR_INSIGHTS);
	if (text)
		fprintf(ctx->out, "commit .gitattributes so that every clone merges INDEX.md and "
		                  "insights/ this way (each clone runs 'dtk setup-git' once)\n");
	rc = DTK_EXIT_OK;
done:
	free(driver);
	free(path);
	free(old);
	free(text);
	dtk_repo_free(repo);
	return rc;
}

const struct dtk_cmd dtk_cmd_setup_git = {
        .name = "setup-git",
        .usage = "dtk setup-git [--dtk PATH]",
        .summary = "make git merge insights/ as data and INDEX.md by rebuilding it",
        .help = "\nAdds '" ATTR_LINE "' and '" ATTR_INSIGHTS "'\n"
                "to the base's .gitattributes (when missing; every other byte is kept) and\n"
                "sets, in the repository's own configuration, merge.dtk-index.driver and\n"
                "merge.dtk-insights.driver: this dtk's merge-driver. Branches that each\n"
                "added entries and reindexed then merge without a conflict (see\n"
                "docs/merging.md). Run it once per clone; commit .gitattributes.\n\n"
                "options:\n"
                "  --dtk PATH   the dtk git should run (default: this one, by absolute path;\n"
                "               the output says which path and how it was found)\n\n"
                "examples:\n"
                "  dtk setup-git && git add .gitattributes && git commit -m 'merge INDEX.md with "
                "dtk'\n",
        .flags = DTK_CMD_NEEDS_KB,
        .exec = S_exec,
};
