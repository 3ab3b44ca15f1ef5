/*
 * gitenv.h: the repository, its configuration and the commit's identities,
 * resolved as git resolves them: libgit2 1.5 does not (docs/git.md lists
 * what gitenv.c follows). Internal to the git layer (repo*.c, gitcommit.c),
 * as gitlib.h is.
 */
#ifndef DTK_GITENV_H
#define DTK_GITENV_H

#include "gitlib.h"

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

/* Returns the value of key in repo's configuration (malloc'd, the caller
 * frees), or NULL when it is not set. */
char *dtk_gitenv_get(git_repository *repo, const char *key);

#endif
