/*
 * git.h: what dtk asks of libgit2. Only gitutil.c (and the git modules that
 * come after it) include <git2.h>, through src/gitlib.h, which loads libgit2
 * at run time on first use.
 */
#ifndef DTK_GIT_H
#define DTK_GIT_H

#include <stddef.h>

/*
 * Produces a unified diff from old to new, both shown as path (a/path and
 * b/path). Returns 0 and sets *out (malloc'd, the caller frees; "" when the
 * buffers are equal), or -1 with the error set (also when libgit2 cannot be
 * loaded).
 */
int dtk_git_diff_buffers(char **out, const char *old, size_t old_len, const char *new_,
                         size_t new_len, const char *path);

#endif
