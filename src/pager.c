/* pager.c: standard output through a pager, as git does. */
#define _DEFAULT_SOURCE /* popen */
#include "dtk/pager.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *S_pipe; /* the pager's pipe, NULL when none runs */

/* Returns 1 when name is an executable file in a directory of PATH. */
static int S_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char *full = dtk_path_search(path ? path : "/usr/bin:/bin", name);

	free(full);
	return full != NULL;
}

/* Returns the pager command to run, or NULL for none. */
static const char *S_pager(void)
{
	const char *p = getenv("DTK_PAGER");

	if (!p)
		p = getenv("PAGER");
	if (!p)
		return S_in_path("less") ? "less" : NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p && strcmp(p, "cat") ? p : NULL;
}

int dtk_pager_start(void)
{
	struct dtk_buf cmd = DTK_BUF_INIT;
	const char *pager;

	if (S_pipe || !isatty(STDOUT_FILENO) || !(pager = S_pager()))
		return S_pipe != NULL;
	fflush(stdout);
	/* the pager reads the pipe and writes to the terminal; LESS and LV
	 * for it alone, unless the user's are set */
	dtk_buf_printf(&cmd, "export LESS=\"${LESS-FRX}\" LV=\"${LV--c}\"; %s", pager);
	S_pipe = popen(cmd.ptr, "we");
	dtk_buf_release(&cmd);
	if (S_pipe && dup2(fileno(S_pipe), STDOUT_FILENO) < 0) {
		pclose(S_pipe);
		S_pipe = NULL;
	}
	return S_pipe != NULL;
}

int dtk_pager_finish(void)
{
	int rc = 0, e;
	void (*old)(int);

	if (!S_pipe)
		return 0;
	/* a pager quit early (q in less) is not an error of the output */
	old = signal(SIGPIPE, SIG_IGN);
	errno = 0;
	if ((fflush(stdout) != 0 || ferror(stdout)) && errno != EPIPE) {
		e = errno;
		rc = dtk_error("cannot write to the pager: %s", e ? strerror(e) : "write error");
	}
	clearerr(stdout);
	close(STDOUT_FILENO);
	pclose(S_pipe); /* waits for the pager */
	signal(SIGPIPE, old);
	S_pipe = NULL;
	return rc;
}
