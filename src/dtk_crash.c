/*
 * dtk_crash.c: crash points for the crash-safety tests. dtk_core and so the dtk
 * binary get the version that does nothing; the tests' binary dtk-crash
 * (tests/CMakeLists.txt) links this file again, compiled with
 * DTK_CRASH_POINTS, whose definition the linker then takes instead of the
 * library's. The same for dtk_fault_point (DTK_FAULT_AT), which makes a
 * system call that dtk guards with it fail. With DTK_CRASH_RUN set, a crash
 * point runs that shell command there instead of killing dtk (a test that
 * changes the files under a run, at a known moment).
 */
#include "dtk/dtk.h"

#ifdef DTK_CRASH_POINTS
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

void dtk_crash_point(const char *name)
{
	static long calls;
	const char *at = getenv("DTK_CRASH_AT"), *colon;
	size_t n;

	if (!at)
		return;
	colon = strchr(at, ':');
	n = colon ? (size_t)(colon - at) : strlen(at);
	if (strlen(name) != n || strncmp(at, name, n))
		return;
	if (++calls != (colon ? atol(colon + 1) : 1))
		return;
	if (getenv("DTK_CRASH_RUN")) {
		if (system(getenv("DTK_CRASH_RUN")) != 0)
			abort();
		return;
	}
	raise(SIGKILL);
}

int dtk_fault_point(const char *name, const char *path)
{
	const char *at = getenv("DTK_FAULT_AT"), *eq;
	size_t n;

	if (!at)
		return 0;
	eq = strchr(at, '=');
	n = eq ? (size_t)(eq - at) : strlen(at);
	if (strlen(name) != n || strncmp(at, name, n) || (eq && (!path || strcmp(eq + 1, path))))
		return 0;
	errno = EIO;
	return -1;
}
#else
void dtk_crash_point(const char *name)
{
	(void)name;
}

int dtk_fault_point(const char *name, const char *path)
{
	(void)name;
	(void)path;
	return 0;
}
#endif
