/*
 * gitlib.h: libgit2 for the modules that wrap it (repo*.c, gitenv.c,
 * gitcommit.c, git.c and gitlib.c): only they include this header, and
 * so <git2.h>. dtk links libgit2 as any program does.
 */
#ifndef DTK_GITLIB_H
#define DTK_GITLIB_H

#include <git2.h>
#include <git2/sys/repository.h> /* git_repository_set_config */

/*
 * Initializes libgit2 once per process (dtk uses git from one thread only);
 * git_libgit2_shutdown() runs at exit, so valgrind and LeakSanitizer stay
 * quiet. Returns 0, or -1 with the error set ("cannot initialize libgit2:
 * why"). Every public entry point of the wrapper modules calls it before any
 * git_* function.
 */
int dtk_gitlib_load(void);

/* Sets the dtk error to "<what>: <libgit2's last error>", the one wording of
 * a libgit2 failure; returns -1. */
int dtk_gitlib_error(const char *what);

#endif
