/* gitlib.c: loads libgit2 with dlopen() the first time git is needed (or,
 * linked with DTK_LINK_LIBGIT2, only initializes it). */
#include "gitlib.h"

#include "dtk/dtk.h"

#ifndef DTK_LINK_LIBGIT2
#include <dlfcn.h>
#endif
#include <stdlib.h>
#include <string.h>

static void S_shutdown(void);

#ifdef DTK_LINK_LIBGIT2
/* Linked: nothing to load; libgit2 is initialized once. */
int dtk_gitlib_load(void)
{
	static int done;

	if (done)
		return 0;
	if (git_libgit2_init() < 0) {
		const git_error *e = git_error_last();
		return dtk_error("cannot initialize libgit2: %s",
		                 e && e->message ? e->message : "unknown libgit2 error");
	}
	atexit(S_shutdown);
	done = 1;
	return 0;
}
#else /* loaded at run time */

#ifndef DTK_LIBGIT2_SONAME
#error "DTK_LIBGIT2_SONAME must name the libgit2 dtk is built against (CMakeLists.txt sets it)"
#endif

/* Every function of the list has its #define in gitlib.h: redirected, its
 * name expands to "(dtk_git.name)", longer than "git_name". */
#define S_STR(x) #x
#define S_XSTR(x) S_STR(x)
#define S_CHECK(name)                                                                              \
	_Static_assert(sizeof(S_XSTR(git_##name)) > sizeof("git_" #name),                          \
	               "git_" #name " has no #define in gitlib.h");
DTK_GIT_FUNCTIONS(S_CHECK)
#undef S_CHECK

struct dtk_gitlib dtk_git;

static void *S_handle; /* non-NULL once loaded */

/* Resolves every function of the list in h into dtk_git. Returns 0, or -1
 * with the error set (name is what was opened, for the message). */
static int S_resolve(void *h, const char *name)
{
	void *sym;

#define S_RESOLVE(fn)                                                                              \
	dlerror();                                                                                 \
	sym = dlsym(h, "git_" #fn);                                                                \
	if (!sym) {                                                                                \
		const char *why = dlerror();                                                       \
		return dtk_error("cannot load libgit2 (%s): %s", name,                             \
		                 why ? why : "git_" #fn " is NULL");                               \
	}                                                                                          \
	dtk_git.fn = (__typeof__(dtk_git.fn))sym;
	DTK_GIT_FUNCTIONS(S_RESOLVE)
#undef S_RESOLVE
	return 0;
}

int dtk_gitlib_load(void)
{
	const char *env = getenv("DTK_LIBGIT2");
	const char *name = env && *env ? env : DTK_LIBGIT2_SONAME;
	int major = 0, minor = 0, rev = 0;
	void *h;
	int rc = -1;

	if (S_handle)
		return 0;
	/* RTLD_LAZY: each library binds as its own flags say, as when linked
	 * (RTLD_NOW would bind all of libgit2's dependencies up front: ~3 % more
	 * instructions for dtk log); the functions dtk calls are resolved below */
	h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return dtk_error("cannot load libgit2 (%s): %s", name, dlerror());
	if (S_resolve(h, name) < 0)
		goto done;
	/* the structs dtk passes (options, buffers, index entries) are 1.5's:
	 * a library of another minor version, named by DTK_LIBGIT2, would read
	 * them wrongly */
	git_libgit2_version(&major, &minor, &rev);
	if (major != LIBGIT2_VER_MAJOR || minor != LIBGIT2_VER_MINOR) {
		dtk_error("cannot load libgit2 (%s): it is version %d.%d.%d; dtk was built "
		          "against %d.%d",
		          name, major, minor, rev, LIBGIT2_VER_MAJOR, LIBGIT2_VER_MINOR);
		goto done;
	}
	if (git_libgit2_init() < 0) {
		const git_error *e = git_error_last();
		dtk_error("cannot initialize libgit2 (%s): %s", name,
		          e && e->message ? e->message : "unknown libgit2 error");
		goto done;
	}
	atexit(S_shutdown);
	S_handle = h;
	rc = 0;
done:
	if (rc < 0) {
		memset(&dtk_git, 0, sizeof(dtk_git));
		dlclose(h);
	}
	return rc;
}
#endif /* DTK_LINK_LIBGIT2 */

static void S_shutdown(void)
{
	git_libgit2_shutdown();
}
