/*
 * gitint.h: what the libgit2 wrapper modules share (internal, like gitlib.h:
 * only gitrepo.c, gitenv.c, gitcommit.c and gitfollow.c include it).
 *
 * libgit2 1.5 does not resolve the repository, its configuration or the
 * commit's identities the way git does; gitenv.c does (docs/git.md lists
 * what it follows). gitcommit.c does what 'git commit' does around the commit
 * object: its hooks and its signature.
 */
#ifndef DTK_GITINT_H
#define DTK_GITINT_H

#include "gitlib.h"

#include <stddef.h>

/* ---- gitrepo.c ---- */

struct dtk_repo;
/* Returns repo's libgit2 repository (owned by repo). */
git_repository *dtk_repo_git(struct dtk_repo *repo);
/* Sets *out to the tree of commit (git_tree_free); returns 0, or -1 (the
 * error not set). */
int dtk_repo_commit_tree(git_repository *g, const git_oid *commit, git_tree **out);
/* Sets *id to the blob at path in tree; returns 1, or 0 when there is none
 * (or it is not a blob). */
int dtk_repo_blob_at(git_tree *tree, const char *path, git_oid *id);
/* Reads blob id into *data (malloc'd, NUL-terminated; the caller frees) and
 * *len; returns 0, or -1 with the error set to "<what>: <libgit2's reason>". */
int dtk_repo_blob_read(git_repository *g, const git_oid *id, const char *what, char **data,
                       size_t *len);

/* ---- gitenv.c ---- */

/*
 * Opens the repository as git would from the directory root: GIT_DIR (then
 * GIT_WORK_TREE, core.worktree, or the current directory is the work tree),
 * else discovery upwards from root (GIT_CEILING_DIRECTORIES respected), and
 * GIT_WORK_TREE over a discovered repository's own. Its configuration is then
 * loaded as git loads it (see dtk_gitenv_config). Returns 0 and sets *out
 * (git_repository_free), or -1 with the error set.
 */
int dtk_gitenv_open(git_repository **out, const char *root);

/*
 * Makes the commit's author and committer as git does: GIT_AUTHOR_NAME,
 * GIT_AUTHOR_EMAIL, GIT_AUTHOR_DATE (and GIT_COMMITTER_*) over author.* /
 * committer.* over user.* (and EMAIL); author ("Name <email>", --author)
 * replaces the author's name and email. Returns 0 and sets both
 * (git_signature_free), or -1 with the error set.
 */
int dtk_gitenv_idents(git_signature **author, git_signature **committer, git_repository *repo,
                      const char *author_arg);

/* Formats sig's time as git passes it in GIT_AUTHOR_DATE: "@<seconds> +hhmm"
 * into out (at least 32 bytes); returns out. */
char *dtk_gitenv_date(char *out, const git_signature *sig);
/* Returns the value of key in repo's configuration (malloc'd, the caller
 * frees), or NULL when it is not set. */
char *dtk_gitenv_get(git_repository *repo, const char *key);

/* ---- gitcommit.c ---- */

/* Returns the path of the hook name as git finds it (malloc'd, the caller
 * frees): in core.hooksPath ('~/' expanded, relative to the top of the work
 * tree) or else in the common git directory's hooks/ (a linked worktree
 * shares its main repository's). */
char *dtk_gitcommit_hook_path(git_repository *repo, const char *name);

/*
 * Runs the hook name of repo as 'git commit' does, if it exists and is
 * executable: from the top of the work tree, with stdin from /dev/null and
 * stdout sent to stderr, GIT_INDEX_FILE=index_file, GIT_EDITOR=:, the
 * author's GIT_AUTHOR_* and GIT_PREFIX set; arg1 and arg2 (may be NULL) are its
 * arguments. Returns 0 when it succeeded or there is none, 1 when it failed
 * (exit status not 0, or killed), -1 with the error set when it could not be
 * run.
 */
int dtk_gitcommit_hook(git_repository *repo, const char *name, const char *index_file,
                       const git_signature *author, const char *arg1, const char *arg2);

/*
 * Decides whether the commit is signed: sign is 1 (--gpg-sign), 0
 * (--no-gpg-sign) or -1 (commit.gpgsign decides). Returns 1, 0, or -1 with
 * the error set.
 */
int dtk_gitcommit_wants_sign(git_repository *repo, int sign);

/*
 * Signs the commit buffer as git does for gpg.format (openpgp, x509 or ssh)
 * with the configured program (gpg.program, gpg.<format>.program) and key
 * (keyid when not NULL, else user.signingkey, else the committer's
 * "Name <email>" for openpgp). Returns 0 and sets *out (malloc'd, the caller
 * frees; the armored signature), or -1 with the error set to git's reason.
 */
int dtk_gitcommit_sign(char **out, git_repository *repo, const char *buf, size_t len,
                       const char *keyid, const git_signature *committer);

#endif
