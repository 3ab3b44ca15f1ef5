/*
 * gitcommit.h: what 'git commit' does around the commit object: its hooks
 * and its signature. Internal to the git layer (repo*.c), as gitlib.h is.
 */
#ifndef DTK_GITCOMMIT_H
#define DTK_GITCOMMIT_H

#include "gitlib.h"

#include <stddef.h>

/* Returns the path of the hook name as git finds it (malloc'd, the caller
 * frees): in core.hooksPath ('~/' expanded, relative to the top of the work
 * tree) or else in the common git directory's hooks/ (a linked worktree
 * shares its main repository's). */
char *dtk_gitcommit_hook_path(git_repository *repo, const char *name);

/*
 * Runs the hook name of repo as 'git commit' does, if it exists and is
 * executable: from the top of the work tree, with stdin from /dev/null and
 * stdout sent to stderr, GIT_INDEX_FILE=index_file (NULL: the repository's
 * index), GIT_EDITOR=:, the
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
