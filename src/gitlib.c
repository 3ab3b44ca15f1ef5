/* gitlib.c: initializes libgit2 once, the first time a command needs git. */
#include "gitlib.h"

#include "dtk/dtk.h"

#include <stdlib.h>

static void S_shutdown(void)
{
	git_libgit2_shutdown();
}

int dtk_gitlib_load(void)
{
	static int done;
	const git_error *e;

	if (done)
		return 0;
	if (git_libgit2_init() < 0) {
		e = git_error_last();
		return dtk_error("cannot initialize libgit2: %s",
		                 e && e->message ? e->message : "unknown libgit2 error");
	}
	atexit(S_shutdown);
	done = 1;
	return 0;
}
