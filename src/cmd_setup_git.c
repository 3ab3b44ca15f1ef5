/* cmd_setup_git.c: dtk setup-git: merge INDEX.md by rebuilding it, and the
 * files of insights/ as data. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/repo.h"
#include "dtk/self.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ATTR_LINE "/INDEX.md merge=dtk-index"
#define ATTR_INSIGHTS "/insights/*.yaml merge=dtk-insights"
#define ATTR_PAGES "/index/*.md merge=dtk-index"
/* The lines setup-git adds to .gitattributes. */
static const char *const S_attr_lines[] = {ATTR_LINE, ATTR_INSIGHTS, ATTR_PAGES};
/* The largest .gitattributes read (LFS rules can run to megabytes). */
#define MAX_ATTR_BYTES (64u << 20)

/* Reads .gitattributes at path whole: 0 and *text (malloc'd; NULL when
 * there is none), or -1 with the error set. A file git would not read as
 * attributes (a symbolic link, not a regular file) or that cannot be read
 * whole is an error: never taken for an empty one. */
static int S_read_attributes(const char *path, char **text, size_t *len)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return dtk_error("%s is a symbolic link, which git does not read; make it a file",
		                 path);
	return dtk_file_read_regular(text, len, path, MAX_ATTR_BYTES) < 0 ? -1 : 0;
}

/* Returns the first line of text that is line (prefix 0) or starts with it
 * (prefix 1), *n its length without its line break (the last one may lack
 * its newline, any may end in CR); NULL when there is none. */
static const char *S_find_line(const char *text, size_t len, const char *line, int prefix,
                               size_t *n)
{
	const char *p = text, *end = text + len;
	size_t k = strlen(line);

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *stop = eol ? eol : end;
		if (stop > p && stop[-1] == '\r')
			stop--;
		*n = (size_t)(stop - p);
		if ((prefix ? *n >= k : *n == k) && !memcmp(p, line, k))
			return p;
		p = eol ? eol + 1 : end;
	}
	return NULL;
}

/* Makes the new .gitattributes: every byte of old kept, ATTR_LINE,
 * ATTR_INSIGHTS and ATTR_PAGES appended when missing (after a newline when
 * old lacks its last). Sets *text NULL when old has every line already;
 * *added to the lines added (bit i for line i). */
static void S_attributes_text(char **text, const char *old, size_t len, int *added)
{
	struct dtk_buf b = DTK_BUF_INIT;
	size_t i, n;

	*text = NULL;
	*added = 0;
	if (old)
		dtk_buf_put(&b, old, len);
	for (i = 0; i < 3; i++) {
		if (old && S_find_line(old, len, S_attr_lines[i], 0, &n))
			continue;
		if (b.len && b.ptr[b.len - 1] != '\n')
			dtk_buf_putc(&b, '\n');
		dtk_buf_puts(&b, S_attr_lines[i]);
		dtk_buf_putc(&b, '\n');
		*added |= 1 << i;
	}
	if (*added)
		*text = dtk_buf_detach(&b);
	dtk_buf_release(&b);
}

/* Appends s to b quoted for the shell: '...' with each ' as '\''. */
static void S_put_quoted(struct dtk_buf *b, const char *s)
{
	dtk_buf_putc(b, '\'');
	for (; *s; s++)
		dtk_buf_puts(b, *s == '\'' ? "'\\''" : (char[]){*s, 0});
	dtk_buf_putc(b, '\'');
}

/* Returns this dtk's absolute path quoted for the shell, as git's drivers
 * and the hooks run it (malloc'd); sets *how to how the path was found
 * (NULL for --dtk). NULL with the error set when it cannot be found. */
static char *S_dtk_quoted(const char *dtk, const char **how)
{
	struct dtk_buf b = DTK_BUF_INIT;
	char *self = NULL;

	*how = NULL;
	if (!dtk && !(dtk = self = dtk_self_path(how)))
		return NULL;
	S_put_quoted(&b, dtk);
	free(self);
	return dtk_buf_detach(&b);
}

/* Refuses a --dtk that is not an executable file: git would fail at the
 * first merge of INDEX.md. Returns 0 or -1 after the usage error. */
static int S_check_dtk(struct dtk_ctx *ctx, const char *dtk)
{
	struct stat st;

	if (stat(dtk, &st) < 0) {
		dtk_cmd_usage_error(ctx, "--dtk %s: %s", dtk, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || access(dtk, X_OK) < 0) {
		dtk_cmd_usage_error(ctx, "--dtk %s: not an executable file", dtk);
		return -1;
	}
	return 0;
}

/* ---- hooks ---- */

#define HOOK_HELPER "dtk-merge-index"
/* The line that makes a hook dtk's: setup-git replaces only such files. */
#define HOOK_MARK "# written by 'dtk setup-git', which replaces this file when it runs again"
#define MAX_HOOK_BYTES (1u << 20)

/* The scripts (src/hooks/): the one the hooks run, where @DTK@ and @BASE@
 * stand for dtk's path and the base's folder below the top of the work
 * tree ("" or "dir/"), both quoted for the shell; a hook, where @HOOK@
 * stands for its name; and the pre-commit hook (contrib/pre-commit), which
 * runs the helper, then checks what is being committed. */
#include "dtk_hooks.h"

/* Returns text (a NUL-terminated script) with each "@<name>@" of the
 * names[0..n) replaced by values[i] (malloc'd). */
static char *S_fill(const char *text, const char *const *names, const char *const *values, size_t n)
{
	struct dtk_buf b = DTK_BUF_INIT;
	const char *p = text, *at;
	size_t i;

	while ((at = strchr(p, '@'))) {
		dtk_buf_put(&b, p, (size_t)(at - p));
		for (i = 0; i < n; i++) {
			size_t len = strlen(names[i]);
			if (!strncmp(at + 1, names[i], len) && at[1 + len] == '@')
				break;
		}
		if (i < n) {
			dtk_buf_puts(&b, values[i]);
			p = at + strlen(names[i]) + 2;
		} else {
			dtk_buf_putc(&b, '@');
			p = at + 1;
		}
	}
	dtk_buf_puts(&b, p);
	return dtk_buf_detach(&b);
}

/* The line a hook that is not dtk's needs, for the hook name. */
#define HOOK_LINE "\"$(dirname \"$0\")/" HOOK_HELPER "\" %s%s"

enum { HOOK_NEW, HOOK_SAME, HOOK_OURS, HOOK_CALLS, HOOK_FOREIGN };

/* The helper and the five hooks that run it. */
#define N_HOOKS 6

struct hook {
	const char *name;
	char *path;
	char *text;  /* what setup-git writes */
	int state;   /* HOOK_... */
	char *other; /* the helper replaced served another base: its line (malloc'd) */
};

/* Sets h->state from the file at h->path: HOOK_NEW (none), HOOK_SAME (dtk's,
 * as it would be written, executable), HOOK_OURS (dtk's, to replace), or
 * HOOK_CALLS (not dtk's, but it names HOOK_HELPER: taken to run it), or
 * HOOK_FOREIGN (not dtk's: a file without HOOK_MARK, a link, a directory).
 * Returns 0, or -1 with the error set when it cannot be read. */
static int S_hook_state(struct hook *h)
{
	struct stat st;
	char *old = NULL;
	const char *was, *now;
	size_t len = 0, wn, nn;
	int rc;

	if (lstat(h->path, &st) < 0) {
		if (errno != ENOENT)
			return dtk_error("cannot read %s: %s", h->path, strerror(errno));
		h->state = HOOK_NEW;
		return 0;
	}
	h->state = HOOK_FOREIGN;
	/* a link is never replaced, but may run the helper (contrib/pre-commit
	 * linked in) */
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return 0;
	rc = dtk_file_read(&old, &len, h->path, MAX_HOOK_BYTES);
	if (rc < 0 && (S_ISLNK(st.st_mode) || rc == DTK_ETOOBIG))
		return 0;
	if (rc < 0)
		return -1;
	if (S_ISLNK(st.st_mode) || !S_find_line(old, len, HOOK_MARK, 0, &wn))
		h->state = strstr(old, HOOK_HELPER) ? HOOK_CALLS : HOOK_FOREIGN;
	else if (len == strlen(h->text) && !memcmp(old, h->text, len) && access(h->path, X_OK) == 0)
		h->state = HOOK_SAME;
	else
		h->state = HOOK_OURS;
	/* the helper's line base=, when it served another base */
	if (h->state == HOOK_OURS && !strcmp(h->name, HOOK_HELPER) &&
	    (was = S_find_line(old, len, "base=", 1, &wn)) &&
	    (now = S_find_line(h->text, strlen(h->text), "base=", 1, &nn)) &&
	    (wn != nn || memcmp(was, now, wn)))
		h->other = dtk_xstrndup(was + 5, wn - 5);
	free(old);
	return 0;
}

/* Writes the hook h, executable (as a new file's mode allows) before it
 * takes the hook's name: git never sees it half made. Returns 0 or -1 with
 * the error set. */
static int S_write_hook(const struct hook *h)
{
	mode_t mask = umask(0);
	int mode = (int)(0777 & ~mask);

	umask(mask);
	return dtk_file_write_atomic_mode(h->path, h->text, strlen(h->text), mode) < 0 ? -1 : 0;
}

/* Fills hooks[N_HOOKS] (the helper, then git's hooks) for dtk (its
 * quoted path) and the base's prefix, each with its state. Returns 0 or -1
 * with the error set. */
static int S_hooks_plan(struct hook hooks[N_HOOKS], struct dtk_repo *repo, const char *dtk)
{
	static const char *const names[N_HOOKS] = {HOOK_HELPER,        "post-merge",
	                                           "pre-commit",       "post-rewrite",
	                                           "pre-merge-commit", "post-commit"};
	struct dtk_buf base = DTK_BUF_INIT;
	size_t i;
	int rc = 0;

	S_put_quoted(&base, dtk_repo_prefix(repo));
	for (i = 0; i < N_HOOKS; i++) {
		hooks[i].name = names[i];
		hooks[i].path = dtk_repo_hook_path(repo, hooks[i].name);
		if (i == 0)
			hooks[i].text = S_fill(hook_dtk_merge_index_sh,
			                       (const char *const[]){"DTK", "BASE"},
			                       (const char *const[]){dtk, dtk_buf_cstr(&base)}, 2);
		else if (!strcmp(hooks[i].name, "pre-commit")) /* the check, as it is */
			hooks[i].text = dtk_xstrdup(hook_pre_commit);
		else
			hooks[i].text = S_fill(hook_hook_sh, (const char *const[]){"HOOK"},
			                       (const char *const[]){hooks[i].name}, 1);
		if (rc == 0 && S_hook_state(&hooks[i]) < 0)
			rc = -1;
	}
	dtk_buf_release(&base);
	return rc;
}

/*
 * Writes the hooks that are missing or dtk's and out of date (none when the
 * helper's name is taken by a file that is not dtk's), the helper the others
 * run first. Returns 0 or -1 with the error set.
 */
static int S_hooks_write(struct hook hooks[N_HOOKS])
{
	char *dir;
	size_t i;
	int rc;

	if (hooks[0].state == HOOK_FOREIGN)
		return 0;
	dir = dtk_xstrdup(hooks[0].path);
	*strrchr(dir, '/') = '\0';
	rc = dtk_file_mkdirs(dir, 0777);
	free(dir);
	for (i = 0; i < N_HOOKS && rc == 0; i++)
		if (hooks[i].state == HOOK_NEW || hooks[i].state == HOOK_OURS)
			rc = S_write_hook(&hooks[i]);
	return rc;
}

/* Says what became of each hook: on ctx->out what was written or found, on
 * ctx->err what the user must do about a hook that is not dtk's. */
static void S_hooks_report(struct dtk_ctx *ctx, const struct hook hooks[N_HOOKS])
{
	static const char *const said[] = {"hook written", "hook up to date", "hook replaced",
	                                   "hook (not dtk's) runs " HOOK_HELPER, NULL};
	size_t i;

	if (hooks[0].state == HOOK_FOREIGN) {
		fprintf(ctx->err,
		        "dtk %s: %s is not dtk's: no hook installed; INDEX.md is not "
		        "checked after merges: run 'dtk check' after a merge (see "
		        "docs/merging.md)\n",
		        ctx->cmd->name, hooks[0].path);
		return;
	}
	if (hooks[0].other)
		fprintf(ctx->err,
		        "dtk %s: the hooks served the base at %s in this repository; they "
		        "now serve this one only (one base a repository): after a merge of that "
		        "base, run 'dtk check' there\n",
		        ctx->cmd->name,
		        !strcmp(hooks[0].other, "''") ? "the top of the work tree"
		                                      : hooks[0].other);
	for (i = 0; i < N_HOOKS; i++) {
		if (hooks[i].state != HOOK_FOREIGN) {
			fprintf(ctx->out, "%s: %s\n", said[hooks[i].state], hooks[i].path);
			continue;
		}
		fprintf(ctx->err,
		        "dtk %s: %s is not dtk's: left as it is; for INDEX.md to be "
		        "checked after merges, add this line to it, before anything that "
		        "checks INDEX.md:\n  " HOOK_LINE "\n",
		        ctx->cmd->name, hooks[i].path, hooks[i].name,
		        !strcmp(hooks[i].name, "post-rewrite") ? " \"$@\""
		        : !strncmp(hooks[i].name, "pre-", 4)   ? " || exit" /* its refusal */
		                                               : "");
	}
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"dtk", 'd', DTK_OPT_STRING, .arg = "PATH",
         .help = "the dtk git should run (default: this one, by absolute path;\n"
                 "the output says which path and how it was found)"},
        {"no-hooks", 'n', DTK_OPT_FLAG,
         .help = "install no hook (after a merge, 'dtk check' tells when\n"
                 "INDEX.md must be rebuilt)"},
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	struct dtk_repo *repo = NULL;
	struct hook hooks[N_HOOKS] = {{0}};
	struct dtk_buf b = DTK_BUF_INIT;
	const char *dtk, *how = NULL;
	char *quoted = NULL, *driver = NULL, *path = NULL, *old = NULL, *text = NULL;
	size_t len = 0, i;
	int rc = DTK_EXIT_INVALID, added = 0, no_hooks = dtk_args_has(a, 'n') > 0;

	if (dtk_args_has(a, 'd') > 1)
		return dtk_cmd_usage_error(ctx, "--dtk given twice");
	dtk = dtk_args_str(a, 'd');
	if (dtk && S_check_dtk(ctx, dtk) < 0)
		return DTK_EXIT_INVALID;
	if (dtk_repo_open(&repo, ctx->root) < 0) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	/* everything read and made before anything is written */
	path = dtk_path_join(ctx->root, ".gitattributes");
	if (S_read_attributes(path, &old, &len) < 0 || !(quoted = S_dtk_quoted(dtk, &how)) ||
	    (!no_hooks && S_hooks_plan(hooks, repo, quoted) < 0)) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	dtk_buf_printf(&b, "%s merge-driver %%O %%A %%B %%P", quoted);
	driver = dtk_buf_detach(&b);
	S_attributes_text(&text, old, len, &added);
	/* Each step leaves git a setup that works, should the next fail: the
	 * hooks first (the likeliest to fail: a hooks folder not writable; they
	 * need no driver); each driver's command before its name (a name
	 * without a command makes git refuse to merge); .gitattributes, which
	 * makes git use the drivers, last. */
	if ((!no_hooks && S_hooks_write(hooks) < 0) ||
	    dtk_repo_config_set(repo, "merge.dtk-index.driver", driver) < 0 ||
	    dtk_repo_config_set(repo, "merge.dtk-index.name",
	                        "dtk: rebuild INDEX.md and index/ from the merged insights/") < 0 ||
	    dtk_repo_config_set(repo, "merge.dtk-insights.driver", driver) < 0 ||
	    dtk_repo_config_set(repo, "merge.dtk-insights.name",
	                        "dtk: merge insights/*.yaml as data, entries by id") < 0 ||
	    (text && dtk_file_write_atomic(path, text, strlen(text)) < 0)) {
		rc = dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
		goto done;
	}
	fprintf(ctx->out, "git config merge.dtk-index.driver = %s\n", driver);
	fprintf(ctx->out, "git config merge.dtk-insights.driver = %s\n", driver);
	if (how)
		fprintf(ctx->out, "(this dtk's path, found by %s)\n", how);
	for (i = 0; i < 3; i++)
		fprintf(ctx->out, "%s: %s\n",
		        added & (1 << i) ? "added to .gitattributes" : ".gitattributes has",
		        S_attr_lines[i]);
	if (!no_hooks)
		S_hooks_report(ctx, hooks);
	if (text)
		fprintf(ctx->out, "commit .gitattributes so that every clone merges INDEX.md and "
		                  "insights/ this way (each clone runs 'dtk setup-git' once)\n");
	rc = DTK_EXIT_OK;
done:
	for (i = 0; i < N_HOOKS; i++) {
		free(hooks[i].path);
		free(hooks[i].text);
		free(hooks[i].other);
	}
	dtk_buf_release(&b);
	free(quoted);
	free(driver);
	free(path);
	free(old);
	free(text);
	dtk_repo_free(repo);
	return rc;
}

const struct dtk_cmd dtk_cmd_setup_git = {
        .name = "setup-git",
        .summary = "make git merge insights/ as data and INDEX.md by rebuilding it",
        .help = "\nAdds '" ATTR_LINE "', '" ATTR_INSIGHTS "'\nand '" ATTR_PAGES
                "' (the pages of index/, rebuilt as INDEX.md is)\n"
                "to the base's .gitattributes (when missing; every other byte is kept) and\n"
                "sets, in the repository's own configuration, merge.dtk-index.driver and\n"
                "merge.dtk-insights.driver: this dtk's merge-driver. Branches that each\n"
                "added entries and reindexed then merge without a conflict (see\n"
                "docs/merging.md). Run it once per clone; commit .gitattributes.\n\n"
                "It also installs git's pre-commit, pre-merge-commit, post-commit,\n"
                "post-merge and post-rewrite hooks (in core.hooksPath, else the git\n"
                "directory's hooks/, with the script they run, " HOOK_HELPER "): a\n"
                "commit (or a merge) of insights/ that are not valid is refused with dtk\n"
                "check's messages, and the pre-commit hook (contrib/pre-commit) refuses\n"
                "one whose INDEX.md is stale (--no-verify commits anyway); after a\n"
                "merge, a rebase or a cherry-pick git made, they say the line to run\n"
                "when INDEX.md does not match insights/. No hook makes, rewrites or\n"
                "amends a commit, stages a file, or moves a ref.\n"
                "A hook that is not dtk's is left as it is: the line to add to it is\n"
                "printed.\n",
        .examples = "examples:\n"
                    "  dtk setup-git && git add .gitattributes &&\n"
                    "      git commit -m 'merge INDEX.md with dtk'\n",
        .flags = DTK_CMD_NEEDS_KB,
        .opts = S_opts,
        .run = S_run,
};
