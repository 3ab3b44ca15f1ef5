/* self.c: the running binary's own path, with or without /proc. */
#include "dtk/self.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

static char *S_argv0;    /* argv[0] as given; malloc'd */
static char *S_resolved; /* argv[0] with a '/', made absolute at start; malloc'd */

/* Returns path made absolute against the current directory, its links kept
 * (a package manager's link, e.g. Homebrew's bin/dtk into a versioned
 * directory, stays valid across upgrades where its target does not);
 * malloc'd, or NULL. */
static char *S_absolute(const char *path)
{
	char cwd[PATH_MAX];
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (path[0] == '/')
		return dtk_xstrdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	return dtk_path_join(cwd, path);
}

static void S_release(void)
{
	free(S_argv0);
	free(S_resolved);
	S_argv0 = S_resolved = NULL;
}

void dtk_self_init(const char *argv0)
{
	if (!argv0 || S_argv0)
		return;
	S_argv0 = dtk_xstrdup(argv0);
	/* a path (relative to where dtk started, not to -C's directory) */
	if (strchr(argv0, '/'))
		S_resolved = S_absolute(argv0);
	atexit(S_release);
}

/* Returns 1 when path is an executable regular file. */
static int S_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Searches PATH for name as a shell does; returns its real path or NULL. */
static char *S_search_path(const char *name)
{
	char *full = dtk_path_search(getenv("PATH"), name), *found;

	found = full ? S_absolute(full) : NULL;
	free(full);
	return found;
}

/* The system's own answer, or NULL. */
static char *S_system(const char **how)
{
#ifdef __APPLE__
	char buf[PATH_MAX];
	uint32_t size = sizeof(buf);
	if (_NSGetExecutablePath(buf, &size) == 0) {
		*how = "_NSGetExecutablePath";
		return S_absolute(buf);
	}
	return NULL;
#else
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0 || (size_t)n >= sizeof(buf) - 1)
		return NULL; /* no /proc (the BSDs by default), or too long */
	buf[n] = '\0';
	*how = "/proc/self/exe";
	return dtk_xstrdup(buf);
#endif
}

char *dtk_self_path(const char **how)
{
	const char *env = getenv("DTK_SELF_NO_PROC");
	char *path = NULL;

	*how = NULL;
	if (!(env && *env))
		path = S_system(how);
	if (!path && S_resolved && S_executable(S_resolved)) {
		*how = "argv[0]";
		path = dtk_xstrdup(S_resolved);
	}
	if (!path && S_argv0 && *S_argv0 && !strchr(S_argv0, '/') &&
	    (path = S_search_path(S_argv0)))
		*how = "PATH";
	if (!path)
		dtk_error("cannot find the path of this dtk (argv[0] '%s'); give it with --dtk",
		          S_argv0 ? S_argv0 : "");
	return path;
}
