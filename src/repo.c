/* repo.c: the knowledge base's git repository, through libgit2 1.5 (linked,
 * initialized by dtk_repo_open on first use, see gitlib.h): opening it, its
 * configuration, and what a crystallization's commit (repo_commit.c) and a
 * sync's merge commit (repo_merge.c) both take as git commit does. */
#include "repo_int.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "gitcommit.h"
#include "gitenv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Returns prefix + rel, malloc'd. */
char *dtk_repo_path(const struct dtk_repo *r, const char *rel)
{
	struct dtk_buf b = DTK_BUF_INIT;
	dtk_buf_printf(&b, "%s%s", r->prefix, rel);
	return dtk_buf_detach(&b);
}

int dtk_repo_open(struct dtk_repo **out, const char *root)
{
	struct dtk_repo *r;
	char *wd = NULL;
	size_t n;

	*out = NULL;
	if (dtk_gitlib_load() < 0)
		return DTK_ENOGIT;
	r = dtk_xcalloc(1, sizeof(*r));
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
	if (dtk_gitenv_open(&r->git, root) < 0)
		goto fail;
	if (git_repository_is_bare(r->git) || !git_repository_workdir(r->git)) {
		dtk_error("the repository of %s has no work tree", root);
		goto fail;
	}
	wd = realpath(git_repository_workdir(r->git), NULL);
	n = wd ? strlen(wd) : 0;
	if (!wd || strncmp(root, wd, n) || (root[n] && root[n] != '/' && n > 1)) {
		dtk_error("%s is not inside the work tree of its repository", root);
		goto fail;
	}
	r->workdir = dtk_path_join(wd, "");
	r->prefix = root[n] ? dtk_path_join(root + n + (n > 1), "") : dtk_xstrdup("");
	free(wd);
	*out = r;
	return 0;
fail:
	free(wd);
	dtk_repo_free(r);
	return -1;
}

void dtk_repo_free(struct dtk_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->git);
	free(r->workdir);
	free(r->prefix);
	free(r);
}

/* Sets the error for a failure to read the index, with advice where git's
 * own message gives none. Returns -1. */
int dtk_repo_index_error(void)
{
	const git_error *e = git_error_last();
	if (e && e->message && strstr(e->message, "'sdir'"))
		return dtk_error(
		        "cannot read the index: it is a sparse index (extension 'sdir'), "
		        "which libgit2 cannot read; make it a full one with 'git "
		        "sparse-checkout disable' or 'git config index.sparse false && git "
		        "sparse-checkout reapply'");
	return dtk_gitlib_error("cannot read the index");
}

/* The checks of dtk_repo_check_ready but the lock's (dtk_repo_commit holds
 * the lock when it makes them). */
int dtk_repo_ready(struct dtk_repo *r)
{
	git_index *idx = NULL;
	int rc = -1;

	switch (git_repository_state(r->git)) {
	case GIT_REPOSITORY_STATE_NONE: break;
	case GIT_REPOSITORY_STATE_REBASE:
	case GIT_REPOSITORY_STATE_REBASE_MERGE:
	case GIT_REPOSITORY_STATE_REBASE_INTERACTIVE:
	case GIT_REPOSITORY_STATE_APPLY_MAILBOX_OR_REBASE:
		return dtk_error("a rebase is under way; finish it (git rebase --continue) or "
		                 "abort it (git rebase --abort) first, then crystallize on the "
		                 "branch");
	case GIT_REPOSITORY_STATE_MERGE:
		return dtk_error("a merge is under way; finish it (git commit) or abort it (git "
		                 "merge --abort) first");
	case GIT_REPOSITORY_STATE_REVERT:
	case GIT_REPOSITORY_STATE_REVERT_SEQUENCE:
		return dtk_error("a revert is under way; finish it (git revert --continue) or "
		                 "abort it (git revert --abort) first");
	case GIT_REPOSITORY_STATE_CHERRYPICK:
	case GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE:
		return dtk_error("a cherry-pick is under way; finish it (git cherry-pick "
		                 "--continue) or abort it (git cherry-pick --abort) first");
	case GIT_REPOSITORY_STATE_BISECT:
		return dtk_error("a bisect is under way; end it (git bisect reset) first");
	default:
		return dtk_error("a git am is under way; finish it (git am --continue) or abort "
		                 "it (git am --abort) first");
	}
	if (git_repository_head_detached(r->git) == 1)
		return dtk_error("HEAD is detached; check out a branch first");
	if (git_repository_index(&idx, r->git) < 0 || git_index_read(idx, 1) < 0) {
		dtk_repo_index_error();
		goto done;
	}
	if (git_index_has_conflicts(idx)) {
		dtk_error("the index has unresolved conflicts; resolve them first");
		goto done;
	}
	rc = 0;
done:
	git_index_free(idx);
	return rc;
}

/* Looks path (from the top of the work tree) up in tree: returns 1 and sets
 * *id (and *mode unless NULL), or 0 (*id zero) when tree has no such path. */
int dtk_repo_entry(git_tree *tree, const char *path, git_oid *id, unsigned *mode)
{
	git_tree_entry *e = NULL;
	int found = git_tree_entry_bypath(&e, tree, path) == 0;

	memset(id, 0, sizeof(*id));
	if (found)
		git_oid_cpy(id, git_tree_entry_id(e));
	if (found && mode)
		*mode = git_tree_entry_filemode(e);
	git_tree_entry_free(e);
	return found;
}

/* Sets *out to the tree of commit (git_tree_free); returns 0, or -1 (the
 * error not set). */
int dtk_repo_tree(const struct dtk_repo *r, const git_oid *commit, git_tree **out)
{
	git_commit *c = NULL;
	int rc = git_commit_lookup(&c, r->git, commit) < 0 || git_commit_tree(out, c) < 0 ? -1 : 0;
	git_commit_free(c);
	return rc;
}

/* Looks up rel (below the base root) in commit; returns 1 and sets *oid, or
 * 0 when it is not there. */
int dtk_repo_lookup(const struct dtk_repo *r, const git_oid *commit, const char *rel, git_oid *oid)
{
	git_tree *tree = NULL;
	char *path = dtk_repo_path(r, rel);
	int found = dtk_repo_tree(r, commit, &tree) == 0 && dtk_repo_entry(tree, path, oid, NULL);

	git_tree_free(tree);
	free(path);
	return found;
}

/* Reads blob id into *data (malloc'd, NUL-terminated; the caller frees) and
 * *len; returns 0, or -1 with the error set to "<what>: <libgit2's reason>". */
int dtk_repo_read_blob(const struct dtk_repo *r, const git_oid *id, const char *what, char **data,
                       size_t *len)
{
	git_blob *blob = NULL;
	if (git_blob_lookup(&blob, r->git, id) < 0)
		return dtk_gitlib_error(what);
	*len = (size_t)git_blob_rawsize(blob);
	*data = dtk_xstrndup(git_blob_rawcontent(blob), *len);
	git_blob_free(blob);
	return 0;
}

/* ---- what the commits of a crystallization and of a sync share ---- */

/* Returns 1 when path (relative to the work tree) is <prefix><dir><name><ext>
 * directly in dir, not a dotfile (the loader ignores those: they are the
 * user's, like every other file). */
static int S_file_in(const struct dtk_repo *r, const char *path, const char *dir, const char *ext)
{
	size_t n = strlen(r->prefix), d = strlen(dir), e = strlen(ext), len;
	if (strncmp(path, r->prefix, n) || strncmp(path + n, dir, d))
		return 0;
	path += n + d;
	len = strlen(path);
	return len > e && path[0] != '.' && !strchr(path, '/') && !strcmp(path + len - e, ext);
}

/* Returns 1 when path is a file of the base, directly in insights/. */
int dtk_repo_base_file(const struct dtk_repo *r, const char *path)
{
	return S_file_in(r, path, "insights/", ".yaml");
}

/* Returns 1 when path is a record of uses of r's base,
 * insights/_uses/<name>.yaml (kb.h's DTK_USES_DIR). */
int dtk_repo_uses_file(const struct dtk_repo *r, const char *path)
{
	return S_file_in(r, path, "insights/_uses/", ".yaml");
}

/* Returns 1 when path is a generated page of r's base, index/<name>.md
 * (index.h's DTK_INDEX_PAGES_DIR). */
int dtk_repo_page_file(const struct dtk_repo *r, const char *path)
{
	return S_file_in(r, path, "index/", ".md");
}

/* Adds an entry of mode (a blob or a symbolic link) for path to idx. */
int dtk_repo_index_add(git_index *idx, const char *path, const git_oid *oid, unsigned mode)
{
	git_index_entry e;
	memset(&e, 0, sizeof(e));
	e.mode = mode;
	e.path = path;
	git_oid_cpy(&e.id, oid);
	return git_index_add(idx, &e) < 0 ? dtk_gitlib_error("cannot update the index") : 0;
}

/* Stores data as the blob of path, through git's filters as 'git add' does
 * (a CRLF work tree's text is stored with LF). */
int dtk_repo_blob(const struct dtk_repo *r, const char *path, const char *data, size_t len,
                  git_oid *oid)
{
	git_filter_list *fl = NULL;
	git_buf buf = GIT_BUF_INIT;
	int rc = -1;

	if (git_filter_list_load(&fl, r->git, NULL, path, GIT_FILTER_TO_ODB, GIT_FILTER_DEFAULT) <
	            0 ||
	    (fl && git_filter_list_apply_to_buffer(&buf, fl, data, len) < 0))
		dtk_gitlib_error("cannot filter a file for git");
	else if (git_blob_create_from_buffer(oid, r->git, fl ? buf.ptr : data,
	                                     fl ? buf.size : len) < 0)
		dtk_gitlib_error("cannot store a file");
	else
		rc = 0;
	git_buf_dispose(&buf);
	git_filter_list_free(fl);
	return rc;
}

/* Reads the current branch: its name, and its commit unless unborn. */
int dtk_repo_branch(const struct dtk_repo *r, struct journal *j, git_commit **parent)
{
	git_reference *head = NULL;
	int rc;

	*parent = NULL;
	if (git_reference_lookup(&head, r->git, "HEAD") < 0)
		return dtk_gitlib_error("cannot read HEAD");
	if (git_reference_type(head) != GIT_REFERENCE_SYMBOLIC) {
		git_reference_free(head);
		return dtk_error("HEAD is detached; check out a branch first");
	}
	snprintf(j->ref, sizeof(j->ref), "%s", git_reference_symbolic_target(head));
	git_reference_free(head);
	rc = git_reference_name_to_id(&j->old_id, r->git, j->ref);
	if (rc == GIT_ENOTFOUND)
		return 0; /* unborn: the first commit */
	if (rc < 0 || git_commit_lookup(parent, r->git, &j->old_id) < 0)
		return dtk_gitlib_error("cannot read the current branch");
	j->has_old = 1;
	return 0;
}

/* Checks the tree the pre-commit hook left in idx (written, its id in
 * *tree_oid) against ours, the run's: an insights/ changed is refused (the
 * run counted and checked the base as it was); an INDEX.md other than ours,
 * the page of that insights/, is put back in idx and *tree_oid (a hook's
 * 'dtk reindex' reads the work tree, which holds the old records until the
 * commit is made). Returns 0, or -1 with the error set. */
static int S_hook_tree(const struct dtk_repo *r, git_index *idx, git_tree *ours, git_oid *tree_oid)
{
	char *dir = dtk_repo_path(r, "insights"), *page = dtk_repo_path(r, "INDEX.md");
	git_tree *theirs = NULL;
	git_oid a, b;
	unsigned mode = GIT_FILEMODE_BLOB;
	int rc = -1;

	if (git_tree_lookup(&theirs, r->git, tree_oid) < 0) {
		dtk_gitlib_error("cannot read the index the pre-commit hook left");
		goto done;
	}
	dtk_repo_entry(ours, dir, &a, NULL);
	dtk_repo_entry(theirs, dir, &b, NULL);
	if (!git_oid_equal(&a, &b)) {
		dtk_error("the pre-commit hook changed %s/ in the commit, which would then hold "
		          "files this run did not check; nothing was written (commit the hook's "
		          "change first, or skip the hook with --no-verify)",
		          dir);
		goto done;
	}
	dtk_repo_entry(ours, page, &a, &mode);
	dtk_repo_entry(theirs, page, &b, NULL);
	if (!git_oid_equal(&a, &b) &&
	    (git_oid_is_zero(&a) || dtk_repo_index_add(idx, page, &a, mode) < 0 ||
	     git_index_write(idx) < 0 || git_index_write_tree_to(tree_oid, idx, r->git) < 0)) {
		dtk_gitlib_error("cannot put INDEX.md back in the index the pre-commit hook left");
		goto done;
	}
	rc = 0;
done:
	git_tree_free(theirs);
	free(dir);
	free(page);
	return rc;
}

/* Runs the hooks 'git commit' (or 'git merge', h) runs before the commit
 * (see docs/git.md): pre-commit on an index holding the commit's tree (the
 * hook may change it: *tree_oid is then its tree, checked by S_hook_tree),
 * prepare-commit-msg and commit-msg on COMMIT_EDITMSG (the message they
 * leave, cleaned up as git does, is set in *msg, malloc'd; the tree they
 * leave in *out, git_tree_free). Returns 0, or -1 with the error set when a
 * hook refused. */
int dtk_repo_pre_hooks(const struct dtk_repo *r, const struct dtk_commit_req *req,
                       const struct hooks *h, const git_signature *author, git_oid *tree_oid,
                       git_tree **out, char **msg)
{
	struct dtk_buf path = DTK_BUF_INIT;
	char *editmsg = dtk_path_join(git_repository_path(r->git), h->msgfile), *text = NULL;
	const char *arg;
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_buf clean = GIT_BUF_INIT;
	size_t len = 0;
	int rc = -1, hook;

	*msg = NULL;
	dtk_buf_printf(&path, "%snext-index-%ld.lock", git_repository_path(r->git), (long)getpid());
	if (git_index_open(&idx, path.ptr) < 0 || git_tree_lookup(&tree, r->git, tree_oid) < 0 ||
	    git_index_read_tree(idx, tree) < 0 || git_index_write(idx) < 0) {
		dtk_gitlib_error("cannot write the index for the hooks");
		goto done;
	}
	hook = req->no_verify ? 0
	                      : dtk_gitcommit_hook(r->git, h->first, path.ptr, author, NULL, NULL);
	if (hook != 0) {
		if (hook > 0)
			dtk_error("the %s hook refused the commit (--no-verify skips it)",
			          h->first);
		goto done;
	}
	if (git_index_read(idx, 1) < 0 || git_index_write_tree_to(tree_oid, idx, r->git) < 0) {
		dtk_gitlib_error("cannot read the index the pre-commit hook left");
		goto done;
	}
	if (S_hook_tree(r, idx, tree, tree_oid) < 0)
		goto done;
	if (dtk_file_write_atomic(editmsg, req->message, strlen(req->message)) < 0)
		goto done;
	/* as git names it to the hooks: from the top of the work tree */
	arg = strncmp(editmsg, r->workdir, strlen(r->workdir)) ? editmsg
	                                                       : editmsg + strlen(r->workdir);
	hook = dtk_gitcommit_hook(r->git, "prepare-commit-msg", path.ptr, author, arg, h->source);
	if (hook == 0 && !req->no_verify)
		hook = dtk_gitcommit_hook(r->git, "commit-msg", path.ptr, author, arg, NULL);
	if (hook != 0) {
		if (hook > 0)
			dtk_error("the %s hook refused the commit%s",
			          req->no_verify ? "prepare-commit-msg"
			                         : "prepare-commit-msg or commit-msg",
			          req->no_verify ? "" : " (--no-verify skips commit-msg)");
		goto done;
	}
	if (dtk_file_read(&text, &len, editmsg, 1u << 24) < 0 ||
	    git_message_prettify(&clean, text, 0, '#') < 0) {
		dtk_gitlib_error("cannot read the commit message the hooks left");
		goto done;
	}
	if (!clean.size) {
		dtk_error("Aborting commit due to empty commit message (left by the hooks)");
		goto done;
	}
	if (git_tree_lookup(out, r->git, tree_oid) < 0) {
		dtk_gitlib_error("cannot read the commit's tree");
		goto done;
	}
	*msg = dtk_xstrndup(clean.ptr, clean.size);
	rc = 0;
done:
	unlink(path.ptr);
	git_buf_dispose(&clean);
	git_tree_free(tree);
	git_index_free(idx);
	dtk_buf_release(&path);
	free(editmsg);
	free(text);
	return rc;
}

/* Creates the commit object, signed when git would sign it (see
 * dtk_gitcommit_wants_sign), without moving any reference. */
int dtk_repo_create_commit(const struct dtk_repo *r, const struct dtk_commit_req *req, git_oid *out,
                           const git_signature *author, const git_signature *committer,
                           const char *message, const git_tree *tree, const git_commit *parents[],
                           size_t n_parents)
{
	git_buf buf = GIT_BUF_INIT;
	char *sig = NULL;
	int sign = dtk_gitcommit_wants_sign(r->git, req->sign), rc = -1;

	if (sign < 0)
		return -1;
	if (git_commit_create_buffer(&buf, r->git, author, committer, NULL, message, tree,
	                             n_parents, parents) < 0) {
		dtk_gitlib_error("cannot create the commit");
		goto done;
	}
	if (sign &&
	    dtk_gitcommit_sign(&sig, r->git, buf.ptr, buf.size, req->sign_key, committer) < 0)
		goto done;
	/* no signature (NULL): the commit as git_commit_create makes it */
	if (git_commit_create_with_signature(out, r->git, buf.ptr, sig, NULL) < 0) {
		dtk_gitlib_error(sig ? "cannot create the signed commit"
		                     : "cannot create the commit");
		goto done;
	}
	rc = 0;
done:
	free(sig);
	git_buf_dispose(&buf);
	return rc;
}

/* ---- configuration ---- */

int dtk_repo_is_shallow(struct dtk_repo *r)
{
	return git_repository_is_shallow(r->git) == 1;
}

const char *dtk_repo_prefix(const struct dtk_repo *r)
{
	return r->prefix;
}

char *dtk_repo_hook_path(struct dtk_repo *r, const char *name)
{
	return dtk_gitcommit_hook_path(r->git, name);
}

/* Removes config.lock (lock) when a dtk run killed while writing the
 * configuration left it: a mark dtk-config-<pid> of a process that no longer
 * exists, made at most 2 s before the lock (a run makes its mark, then at
 * once libgit2's lock). Marks of dead runs go in any case. */
static void S_config_stale(const char *common, const char *lock)
{
	DIR *d = opendir(common);
	struct dirent *de;
	struct stat ls, ms;
	int has = lstat(lock, &ls) == 0;
	char *hooks = dtk_path_join(common, "hooks");
	size_t n;

	/* and what a killed setup-git left beside the files it writes */
	dtk_file_sweep(common);
	dtk_file_sweep(hooks);
	free(hooks);
	while (d && (de = readdir(d))) {
		const char *s = de->d_name;
		if (strncmp(s, "dtk-config-", 11) || !dtk_file_dead_pid(s + 11, &n) || s[11 + n] ||
		    fstatat(dirfd(d), s, &ms, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (has && S_ISREG(ls.st_mode) && ls.st_mtime >= ms.st_mtime &&
		    ls.st_mtime - ms.st_mtime <= 2 && unlink(lock) == 0)
			has = 0;
		unlinkat(dirfd(d), s, 0);
	}
	if (d)
		closedir(d);
}

int dtk_repo_config_set(struct dtk_repo *r, const char *key, const char *value)
{
	git_config *cfg = NULL, *local = NULL;
	const char *common = git_repository_commondir(r->git);
	char *lock = dtk_path_join(common, "config.lock");
	struct dtk_buf mark = DTK_BUF_INIT;
	int rc = -1, fd;

	S_config_stale(common, lock);
	dtk_file_sweep(r->workdir);
	dtk_buf_printf(&mark, "%sdtk-config-%ld", common, (long)getpid());
	fd = open(mark.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd >= 0)
		close(fd);
	if (git_repository_config(&cfg, r->git) < 0 ||
	    git_config_open_level(&local, cfg, GIT_CONFIG_LEVEL_LOCAL) < 0 ||
	    git_config_set_string(local, key, value) < 0) {
		if (access(lock, F_OK) == 0)
			dtk_error("cannot write the repository's configuration: %s exists: another "
			          "git process is writing it, or one crashed; remove the file if "
			          "none runs",
			          lock);
		else
			dtk_gitlib_error("cannot write the repository's configuration");
	} else {
		rc = 0;
	}
	unlink(mark.ptr);
	dtk_buf_release(&mark);
	free(lock);
	git_config_free(local);
	git_config_free(cfg);
	return rc;
}
