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
		dtk_cmd_usage_error(ctx, "setup-git", "--dtk %s: %s", dtk, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || access(dtk, X_OK) < 0) {
		dtk_cmd_usage_error(ctx, "setup-git", "--dtk %s: not an executable file", dtk);
		return -1;
	}
	return 0;
}

/* ---- hooks ---- */

#define HOOK_HELPER "dtk-merge-index"
/* The line that makes a hook dtk's: setup-git replaces only such files. */
#define HOOK_MARK "# written by 'dtk setup-git', which replaces this file when it runs again"
#define MAX_HOOK_BYTES (1u << 20)

/* The script the hooks run (see its comment). %1$s is dtk's path, %2$s the
 * base's folder below the top of the work tree ("" or "dir/"), both quoted
 * for the shell. */
static const char helper_text[] =
        "#!/bin/sh\n" HOOK_MARK "\n"
        "# (docs/merging.md). git's pre-merge-commit, post-merge, pre-commit and\n"
        "# post-rewrite hooks run it as 'dtk-merge-index HOOK [ARGS]'. git merges\n"
        "# each file of insights/ on its\n"
        "# own: in a merge's result, this makes theirs' references to the entries\n"
        "# dtk's merge driver renumbered follow. And git keeps INDEX.md without\n"
        "# running its merge driver when both sides' INDEX.md are the same bytes,\n"
        "# although insights/ merged into more: this rebuilds it. It never fails a\n"
        "# git command: 'dtk check' still tells.\n"
        "#   pre-merge-commit  does both in the staged files, stages them and notes\n"
        "#                     the tree in the git directory (git has written the\n"
        "#                     merge's tree already)\n"
        "#   post-merge        writes the merge commit just made again with that tree\n"
        "#   pre-commit        in a commit that concludes a merge, a squash merge, or\n"
        "#                     a cherry-pick or revert of one commit: does both and\n"
        "#                     stages the files\n"
        "#   post-rewrite      after a rebase: does both in the rebased HEAD and\n"
        "#                     writes it again ('amend': nothing)\n"
        "dtk=%1$s\n"
        "base=%2$s\n"
        "hook=$1\n"
        "# in a linked worktree git names the git directory to its hooks in\n"
        "# GIT_DIR, the current directory (the top) being the work tree: said for\n"
        "# dtk, which runs in the base's folder\n"
        "if [ -n \"${GIT_DIR:-}\" ] && [ -z \"${GIT_WORK_TREE:-}\" ]; then\n"
        "\tGIT_WORK_TREE=$(pwd) && export GIT_WORK_TREE\n"
        "fi\n"
        "# recommit HEAD TREE MESSAGE: writes the commit HEAD again with TREE (its\n"
        "# parents, author and message; signed when it was) and moves HEAD there,\n"
        "# its reflog saying MESSAGE; fails (nothing moved) when it cannot\n"
        "recommit()\n"
        "{\n"
        "\trc_head=$1\n"
        "\trc_tree=$2\n"
        "\trc_msg=$3\n"
        "\tset --\n"
        "\tn=1\n"
        "\twhile git rev-parse -q --verify \"$rc_head^$n\" >/dev/null; do\n"
        "\t\tset -- \"$@\" -p \"$rc_head^$n\"\n"
        "\t\tn=$((n + 1))\n"
        "\tdone\n"
        "\theaders=$(git cat-file commit \"$rc_head\" | sed '/^$/q')\n"
        "\tcase $headers in *\"\n"
        "gpgsig \"*) set -- \"$@\" -S ;; esac\n"
        "\t# a header commit-tree does not write (mergetag, encoding): leave it\n"
        "\t! printf '%%s\\n' \"$headers\" | grep -qv -e '^tree ' -e '^parent ' \\\n"
        "\t\t-e '^author ' -e '^committer ' -e '^gpgsig ' -e '^ ' -e '^$' &&\n"
        "\t\tcommit=$(git cat-file commit \"$rc_head\" | sed '1,/^$/d' |\n"
        "\t\t\tGIT_AUTHOR_NAME=$(git log -1 --format=%%an \"$rc_head\") \\\n"
        "\t\t\tGIT_AUTHOR_EMAIL=$(git log -1 --format=%%ae \"$rc_head\") \\\n"
        "\t\t\tGIT_AUTHOR_DATE=$(git log -1 --format=%%ad --date=raw \"$rc_head\") \\\n"
        "\t\t\tgit commit-tree \"$rc_tree\" \"$@\") &&\n"
        "\t\tgit update-ref -m \"$rc_msg\" HEAD \"$commit\" \"$rc_head\"\n"
        "}\n"
        "several=\n"
        "note=$(git rev-parse --git-path dtk-merge-index) || exit 0\n"
        "case $hook in\n"
        "post-merge)\n"
        "\t[ -f \"$note\" ] || exit 0\n"
        "\twant=$(cat \"$note\")\n"
        "\trm -f \"$note\"\n"
        "\ttree=$(git write-tree 2>/dev/null) || exit 0\n"
        "\t[ \"$tree\" = \"$want\" ] || exit 0\n"
        "\thead=$(git rev-parse -q --verify HEAD) || exit 0\n"
        "\t[ \"$(git rev-parse -q --verify \"HEAD^{tree}\")\" != \"$tree\" ] || exit 0\n"
        "\tgit rev-parse -q --verify HEAD^2 >/dev/null || exit 0\n"
        "\tfiles=$(git diff-tree -r --name-only \"$head\" \"$tree\") || exit 0\n"
        "\tidx=\n"
        "\trefs=\n"
        "\t! printf '%%s\\n' \"$files\" | grep -qxF \"${base}INDEX.md\" || idx=1\n"
        "\t! printf '%%s\\n' \"$files\" | grep -qvxF \"${base}INDEX.md\" || refs=1\n"
        "\t# the merge commit again, with that tree (git has not removed\n"
        "\t# MERGE_HEAD yet: no 'git commit --amend')\n"
        "\tif recommit \"$head\" \"$tree\" \\\n"
        "\t\t\"merge: insights/ and INDEX.md completed by dtk's hooks\"; then\n"
        "\t\t[ -z \"$idx\" ] ||\n"
        "\t\t\techo \"$hook: INDEX.md rebuilt from the merged insights/ in the merge commit\" >&2\n"
        "\t\t[ -z \"$refs\" ] || echo \"$hook: theirs' references to renumbered entries\" \\\n"
        "\t\t\t\"follow in the merge commit\" >&2\n"
        "\telse\n"
        "\t\twhat=\"INDEX.md is rebuilt\"\n"
        "\t\t[ -z \"$refs\" ] ||\n"
        "\t\t\twhat=\"theirs' references to renumbered entries are rewritten\"\n"
        "\t\t[ -z \"$refs\" ] || [ -z \"$idx\" ] || what=\"INDEX.md is rebuilt, $what,\"\n"
        "\t\techo \"$hook: $what and staged but not committed: run\" \\\n"
        "\t\t\t\"'git commit --amend --no-edit'\" >&2\n"
        "\tfi\n"
        "\texit 0\n"
        "\t;;\n"
        "pre-merge-commit)\n"
        "\trm -f \"$note\"\n"
        "\t;;\n"
        "pre-commit)\n"
        "\tif git rev-parse -q --verify MERGE_HEAD >/dev/null ||\n"
        "\t\t[ -f \"$(git rev-parse --git-path SQUASH_MSG)\" ]; then\n"
        "\t\t:\n"
        "\telif git rev-parse -q --verify CHERRY_PICK_HEAD >/dev/null ||\n"
        "\t\tgit rev-parse -q --verify REVERT_HEAD >/dev/null; then\n"
        "\t\t# picking several commits, git compares the index it holds with\n"
        "\t\t# the commit 'git commit' made, and stops on what this stages\n"
        "\t\t[ -d \"$(git rev-parse --git-path sequencer)\" ] && several=1\n"
        "\telse\n"
        "\t\texit 0\n"
        "\tfi\n"
        "\trm -f \"$note\"\n"
        "\t;;\n"
        "post-rewrite)\n"
        "\t# after a rebase (not an amend): theirs is the branch before it, ours\n"
        "\t# the commit the replay started on (stdin: '<old> <new>' lines)\n"
        "\t[ \"${2:-}\" = rebase ] || exit 0\n"
        "\tfirst=\n"
        "\tlast=\n"
        "\twhile read -r o n rest; do\n"
        "\t\t[ -n \"$first\" ] || first=$n\n"
        "\t\tlast=$o\n"
        "\tdone\n"
        "\t[ -n \"$first\" ] || exit 0\n"
        "\ttheirs=$(git rev-parse -q --verify ORIG_HEAD) || theirs=$last\n"
        "\tours=$(git rev-parse -q --verify \"$first^1\") || exit 0\n"
        "\thead=$(git rev-parse -q --verify HEAD) || exit 0\n"
        "\t# the index must hold HEAD's tree: nothing else staged\n"
        "\t[ \"$(git write-tree 2>/dev/null)\" = \"$(git rev-parse -q --verify \"HEAD^{tree}\")\" "
        "] ||\n"
        "\t\texit 0\n"
        "\t;;\n"
        "*)\n"
        "\texit 0\n"
        "\t;;\n"
        "esac\n"
        "if ! [ -x \"$dtk\" ]; then\n"
        "\techo \"$hook: $dtk is missing: INDEX.md not rebuilt for this commit; run\" \\\n"
        "\t\t\"'dtk check' after it (and 'dtk setup-git' with the dtk you use)\" >&2\n"
        "\texit 0\n"
        "fi\n"
        "entry=$(git ls-files -s -- \"${base}INDEX.md\")\n"
        "[ -n \"$entry\" ] || exit 0\n"
        "mode=${entry%%%% *}\n"
        "old=${entry#* }\n"
        "old=${old%%%% *}\n"
        "tmp=$(mktemp -d \"${TMPDIR:-/tmp}/dtk-merge-index.XXXXXX\") || exit 0\n"
        "trap 'rm -rf \"$tmp\"' EXIT\n"
        "git ls-files -z -- \"${base}insights\" |\n"
        "\tgit checkout-index -z --stdin --prefix=\"$tmp/\" || exit 0\n"
        "# theirs' references to the entries dtk's driver renumbered: the files of\n"
        "# $tmp rewritten, their names on standard output\n"
        "changed=\n"
        "refs=\n"
        "if [ \"$hook\" = post-rewrite ]; then\n"
        "\tset -- --follow-rebased \"$theirs\" \"$ours\"\n"
        "else\n"
        "\tset -- --follow-renumbered\n"
        "fi\n"
        "if [ -z \"$several\" ] &&\n"
        "\t! changed=$(\"$dtk\" -C \"./$base\" merge-driver \"$@\" \"$tmp/$base\" "
        "2>\"$tmp/.notes\"); then\n"
        "\tcat \"$tmp/.notes\" >&2\n"
        "\techo \"$hook: theirs' references to renumbered entries not followed: check them\" >&2\n"
        "\texit 0\n"
        "fi\n"
        "# each reference said (after a rebase, once HEAD takes them)\n"
        "[ \"$hook\" = post-rewrite ] || cat \"$tmp/.notes\" >&2 2>/dev/null\n"
        "new=\n"
        "if \"$dtk\" -C \"$tmp/$base\" reindex -q >/dev/null 2>&1; then\n"
        "\tnew=$(git hash-object -w --path=\"${base}INDEX.md\" \"$tmp/${base}INDEX.md\") || exit "
        "0\n"
        "\t[ \"$new\" != \"$old\" ] || new=\n"
        "else\n"
        "\techo \"$hook: dtk cannot rebuild INDEX.md from the staged insights/:\" \\\n"
        "\t\t\"run 'dtk check'\" >&2\n"
        "fi\n"
        "[ -z \"$changed\" ] || refs=1\n"
        "[ -n \"$new$changed\" ] || exit 0\n"
        "# a rebase: only when references followed\n"
        "[ \"$hook\" != post-rewrite ] || [ -n \"$changed\" ] || exit 0\n"
        "if [ -n \"$several\" ]; then\n"
        "\techo \"$hook: INDEX.md does not match the merged insights/; not rebuilt while\" \\\n"
        "\t\t\"several commits are picked: run 'dtk check' after them\" >&2\n"
        "\texit 0\n"
        "fi\n"
        "[ -z \"$new\" ] || changed=\"$changed\n"
        "INDEX.md\"\n"
        "# every file staged at once (one index written), then the work tree's\n"
        "# copies that had no changes of their own\n"
        "info=\n"
        "clean=\n"
        "dirty=\n"
        "while IFS= read -r f; do\n"
        "\t[ -n \"$f\" ] || continue\n"
        "\tp=$base$f\n"
        "\tif [ \"$f\" = INDEX.md ]; then\n"
        "\t\th=$new\n"
        "\t\tm=$mode\n"
        "\telse\n"
        "\t\te=$(git ls-files -s -- \"$p\")\n"
        "\t\t[ -n \"$e\" ] || exit 0\n"
        "\t\tm=${e%%%% *}\n"
        "\t\th=$(git hash-object -w --path=\"$p\" \"$tmp/$p\") || exit 0\n"
        "\tfi\n"
        "\tinfo=\"$info$m $h\t$p\n"
        "\"\n"
        "\tif git diff --quiet -- \"$p\"; then\n"
        "\t\tclean=\"$clean$p\n"
        "\"\n"
        "\telse\n"
        "\t\tdirty=\"$dirty$p\n"
        "\"\n"
        "\tfi\n"
        "done <<END\n"
        "$changed\n"
        "END\n"
        "# changes of the work tree stashed for the rebase (--autostash): git\n"
        "# applies them after this hook, merging the files it rewrites with dtk's\n"
        "# driver, which keeps data, not comments: left to the user\n"
        "if [ \"$hook\" = post-rewrite ] &&\n"
        "\t{ [ -f \"$(git rev-parse --git-path rebase-merge/autostash)\" ] ||\n"
        "\t\t[ -f \"$(git rev-parse --git-path rebase-apply/autostash)\" ]; }; then\n"
        "\techo \"$hook: theirs' references to renumbered entries not followed: the\" \\\n"
        "\t\t\"rebase stashed changes of the work tree (--autostash); check them\" >&2\n"
        "\texit 0\n"
        "fi\n"
        "if [ \"$hook\" = post-rewrite ]; then\n"
        "\t# the rebased HEAD again with the new tree (made in a copy of the\n"
        "\t# index), before the index and the work tree take it\n"
        "\tif ! cp \"$(git rev-parse --git-path index)\" \"$tmp/.index\" ||\n"
        "\t\t! printf '%%s' \"$info\" | GIT_INDEX_FILE=\"$tmp/.index\" git update-index "
        "--index-info ||\n"
        "\t\t! tree=$(GIT_INDEX_FILE=\"$tmp/.index\" git write-tree) ||\n"
        "\t\t! recommit \"$head\" \"$tree\" \"rebase: insights/ and INDEX.md completed by dtk's "
        "hooks\"; then\n"
        "\t\techo \"$hook: theirs' references to renumbered entries not followed: check them\" "
        ">&2\n"
        "\t\texit 0\n"
        "\tfi\n"
        "fi\n"
        "printf '%%s' \"$info\" | git update-index --index-info || exit 0\n"
        "while IFS= read -r p; do\n"
        "\t[ -z \"$p\" ] || git checkout-index -f -- \"$p\"\n"
        "done <<END\n"
        "$clean\n"
        "END\n"
        "if [ \"$hook\" = pre-merge-commit ]; then\n"
        "\tgit write-tree >\"$note\" 2>/dev/null || rm -f \"$note\"\n"
        "\texit 0\n"
        "fi\n"
        "if [ \"$hook\" = post-rewrite ]; then\n"
        "\tcat \"$tmp/.notes\" >&2\n"
        "\techo \"$hook: theirs' references to renumbered entries follow in the rebased\" \\\n"
        "\t\t\"commit\" >&2\n"
        "\tnew=\n"
        "\trefs=\n"
        "fi\n"
        "if [ -n \"$new\" ]; then\n"
        "\tif printf '%%s' \"$dirty\" | grep -qxF \"${base}INDEX.md\"; then\n"
        "\t\techo \"$hook: INDEX.md rebuilt from the merged insights/ and staged; the\" \\\n"
        "\t\t\t\"work tree's INDEX.md has changes of its own, left as they are\" >&2\n"
        "\telse\n"
        "\t\techo \"$hook: INDEX.md rebuilt from the merged insights/ and staged\" >&2\n"
        "\tfi\n"
        "fi\n"
        "if [ -n \"$refs\" ]; then\n"
        "\techo \"$hook: theirs' references to renumbered entries rewritten and staged\" >&2\n"
        "fi\n"
        "printf '%%s' \"$dirty\" | grep -vxF \"${base}INDEX.md\" | while IFS= read -r p; do\n"
        "\techo \"$hook: the work tree's $p has changes of its own, left as they are\" >&2\n"
        "done\n"
        "exit 0\n";

/* A hook: %1$s is its name. */
static const char hook_text[] =
        "#!/bin/sh\n" HOOK_MARK "\n"
        "# (docs/merging.md): in a merge commit, rebuilds INDEX.md when git kept one\n"
        "# that no longer matches insights/. It never fails.\n"
        "h=$(dirname \"$0\")/" HOOK_HELPER "\n"
        "if [ -x \"$h\" ]; then\n"
        "\t\"$h\" %1$s \"$@\"\n"
        "else\n"
        "\techo \"%1$s: $h is missing: INDEX.md not checked; run 'dtk setup-git' again\" >&2\n"
        "fi\n"
        "exit 0\n";

/* The line a hook that is not dtk's needs, for the hook name. */
#define HOOK_LINE "\"$(dirname \"$0\")/" HOOK_HELPER "\" %s%s"

enum { HOOK_NEW, HOOK_SAME, HOOK_OURS, HOOK_CALLS, HOOK_FOREIGN };

/* The helper and the four hooks that run it. */
#define N_HOOKS 5

struct hook {
	const char *name;
	char *path;
	char *text;  /* what setup-git writes */
	int state;   /* HOOK_... */
	char *other; /* the helper replaced served another base: its line (malloc'd) */
};

/* Returns the line of text that starts with "base=", without its newline
 * (malloc'd), or NULL. */
static char *S_base_line(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *stop = eol ? eol : end;
		if (stop - p >= 5 && !memcmp(p, "base=", 5))
			return dtk_xstrndup(p, (size_t)(stop - p));
		p = eol ? eol + 1 : end;
	}
	return NULL;
}

/* Sets h->state from the file at h->path: HOOK_NEW (none), HOOK_SAME (dtk's,
 * as it would be written, executable), HOOK_OURS (dtk's, to replace), or
 * HOOK_CALLS (not dtk's, but it names HOOK_HELPER: taken to run it), or
 * HOOK_FOREIGN (not dtk's: a file without HOOK_MARK, a link, a directory).
 * Returns 0, or -1 with the error set when it cannot be read. */
static int S_hook_state(struct hook *h)
{
	struct stat st;
	char *old = NULL;
	size_t len = 0;
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
	if (S_ISLNK(st.st_mode) || !S_has_line(old, len, HOOK_MARK))
		h->state = strstr(old, HOOK_HELPER) ? HOOK_CALLS : HOOK_FOREIGN;
	else if (len == strlen(h->text) && !memcmp(old, h->text, len) && access(h->path, X_OK) == 0)
		h->state = HOOK_SAME;
	else
		h->state = HOOK_OURS;
	if (h->state == HOOK_OURS && !strcmp(h->name, HOOK_HELPER)) {
		char *was = S_base_line(old, len), *now = S_base_line(h->text, strlen(h->text));
		if (was && now && strcmp(was, now))
			h->other = dtk_xstrdup(was + 5);
		free(was);
		free(now);
	}
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
	struct dtk_buf b = DTK_BUF_INIT, base = DTK_BUF_INIT;
	size_t i;
	int rc = 0;

	S_put_quoted(&base, dtk_repo_prefix(repo));
	hooks[0].name = HOOK_HELPER;
	hooks[1].name = "pre-merge-commit";
	hooks[2].name = "post-merge";
	hooks[3].name = "pre-commit";
	hooks[4].name = "post-rewrite";
	for (i = 0; i < N_HOOKS; i++) {
		hooks[i].path = dtk_repo_hook_path(repo, hooks[i].name);
		b.len = 0;
		if (i == 0)
			dtk_buf_printf(&b, helper_text, dtk, dtk_buf_cstr(&base));
		else
			dtk_buf_printf(&b, hook_text, hooks[i].name);
		hooks[i].text = dtk_xstrdup(dtk_buf_cstr(&b));
		if (rc == 0 && S_hook_state(&hooks[i]) < 0)
			rc = -1;
	}
	dtk_buf_release(&b);
	dtk_buf_release(&base);
	return rc;
}

/*
 * Writes the hooks that are missing or dtk's and out of date (none when the
 * helper's name is taken by a file that is not dtk's), in an order where
 * stopping after any of them leaves hooks that work: the helper the others
 * run first; pre-merge-commit, which stages what post-merge commits, after
 * post-merge. Returns 0 or -1 with the error set.
 */
static int S_hooks_write(struct hook hooks[N_HOOKS])
{
	static const size_t order[N_HOOKS] = {0, 2, 3, 4, 1};
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
		if (hooks[order[i]].state == HOOK_NEW || hooks[order[i]].state == HOOK_OURS)
			rc = S_write_hook(&hooks[order[i]]);
	return rc;
}

/* Says what became of each hook: on out what was written or found, on err
 * what the user must do about a hook that is not dtk's. */
static void S_hooks_report(const struct hook hooks[N_HOOKS], FILE *out, FILE *err)
{
	static const char *const said[] = {"hook written", "hook up to date", "hook replaced",
	                                   "hook (not dtk's) runs " HOOK_HELPER, NULL};
	size_t i;

	if (hooks[0].state == HOOK_FOREIGN) {
		fprintf(err,
		        "dtk setup-git: %s is not dtk's: no hook installed; INDEX.md is not "
		        "rebuilt in merge commits: run 'dtk check' after a merge (see "
		        "docs/merging.md)\n",
		        hooks[0].path);
		return;
	}
	if (hooks[0].other)
		fprintf(err,
		        "dtk setup-git: the hooks served the base at %s in this repository; they "
		        "now serve this one only (one base a repository): after a merge of that "
		        "base, run 'dtk check' there\n",
		        !strcmp(hooks[0].other, "''") ? "the top of the work tree"
		                                      : hooks[0].other);
	for (i = 0; i < N_HOOKS; i++) {
		if (hooks[i].state != HOOK_FOREIGN) {
			fprintf(out, "%s: %s\n", said[hooks[i].state], hooks[i].path);
			continue;
		}
		fprintf(err,
		        "dtk setup-git: %s is not dtk's: left as it is; for INDEX.md to be "
		        "rebuilt in merge commits, add this line to it, before anything that "
		        "checks INDEX.md:\n  " HOOK_LINE "\n",
		        hooks[i].path, hooks[i].name,
		        !strcmp(hooks[i].name, "post-rewrite") ? " \"$@\"" : "");
	}
}

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	struct dtk_repo *repo = NULL;
	struct hook hooks[N_HOOKS] = {{0}};
	struct dtk_buf b = DTK_BUF_INIT;
	const char *dtk = NULL, *how = NULL;
	char *quoted = NULL, *driver = NULL, *path = NULL, *old = NULL, *text = NULL;
	size_t len = 0, i;
	int rc = DTK_EXIT_INVALID, added = 0, no_hooks = 0;

	static const struct option opts[] = {{"dtk", required_argument, NULL, 'd'},
	                                     {"no-hooks", no_argument, NULL, 'n'},
	                                     {NULL, 0, NULL, 0}};
	int c;

	optind = 0;
	while ((c = dtk_cmd_getopt(ctx, argc, argv, "", opts)) != -1) {
		if (c == 'n') {
			no_hooks = 1;
			continue;
		}
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
	if (S_read_attributes(path, &old, &len) < 0 || !(quoted = S_dtk_quoted(dtk, &how)) ||
	    (!no_hooks && S_hooks_plan(hooks, repo, quoted) < 0)) {
		rc = dtk_cmd_fail(ctx, "setup-git", DTK_EXIT_INVALID);
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
	                        "dtk: rebuild INDEX.md from the merged insights/") < 0 ||
	    dtk_repo_config_set(repo, "merge.dtk-insights.driver", driver) < 0 ||
	    dtk_repo_config_set(repo, "merge.dtk-insights.name",
	                        "dtk: merge insights/*.yaml as data, entries by id") < 0 ||
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
	if (!no_hooks)
		S_hooks_report(hooks, ctx->out, ctx->err);
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
        .usage = "dtk setup-git [--dtk PATH] [--no-hooks]",
        .summary = "make git merge insights/ as data and INDEX.md by rebuilding it",
        .help = "\nAdds '" ATTR_LINE "' and '" ATTR_INSIGHTS "'\n"
                "to the base's .gitattributes (when missing; every other byte is kept) and\n"
                "sets, in the repository's own configuration, merge.dtk-index.driver and\n"
                "merge.dtk-insights.driver: this dtk's merge-driver. Branches that each\n"
                "added entries and reindexed then merge without a conflict (see\n"
                "docs/merging.md). Run it once per clone; commit .gitattributes.\n\n"
                "It also installs git's pre-merge-commit, post-merge, pre-commit and\n"
                "post-rewrite hooks (in core.hooksPath, else the git directory's hooks/,\n"
                "with the script they run, " HOOK_HELPER "): a merge commit gets INDEX.md\n"
                "rebuilt when git kept one that no longer matches the merged insights/,\n"
                "and theirs' references in other files to an entry the driver renumbered\n"
                "follow it (after a rebase too, in its last commit).\n"
                "A hook that is not dtk's is left as it is: the line to add to it is\n"
                "printed.\n\n"
                "options:\n"
                "  --dtk PATH   the dtk git should run (default: this one, by absolute path;\n"
                "               the output says which path and how it was found)\n"
                "  --no-hooks   install no hook (after a merge, 'dtk check' tells when\n"
                "               INDEX.md must be rebuilt)\n\n"
                "examples:\n"
                "  dtk setup-git && git add .gitattributes &&\n"
                "      git commit -m 'merge INDEX.md with dtk'\n",
        .flags = DTK_CMD_NEEDS_KB,
        .exec = S_exec,
};
