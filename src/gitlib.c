/* gitlib.c: initializes libgit2 once, the first time a command needs git. */
#include "gitlib.h"

#include "dtk/dtk.h"

#include <stdlib.h>
#include <string.h>

static void S_shutdown(void)
{
	git_libgit2_shutdown();
}

int dtk_gitlib_load(void)
{
	static int done;

	if (done)
		return 0;
	if (git_libgit2_init() < 0)
		return dtk_gitlib_error("cannot initialize libgit2");
	atexit(S_shutdown);
	/* a base's insights/ tree is larger than libgit2's 4 KiB default for
	 * caching a tree: without this, each of a merge's files read it again */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)16 << 20);
	done = 1;
	return 0;
}

int dtk_gitlib_error(const char *what)
{
	const git_error *e = git_error_last();
	const char *m = e && e->message ? e->message : "libgit2 error";
	size_t n = strlen(m);

	/* libgit2 ends some messages with ": " and a reason it did not have */
	while (n && (m[n - 1] == ' ' || m[n - 1] == ':'))
		n--;
	return dtk_error("%s: %.*s", what, (int)n, m);
}
