/* pager.c: standard output through a pager, as git does. */
#define _DEFAULT_SOURCE /* setenv */
#include "dtk/pager.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t S_pid = -1;

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
	const char *pager;
	int fds[2];
	pid_t pid;

	if (S_pid >= 0 || !isatty(STDOUT_FILENO) || !(pager = S_pager()))
		return S_pid >= 0;
	if (pipe(fds) < 0)
		return 0;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		/* the pager reads the pipe and writes to the terminal */
		if (dup2(fds[0], STDIN_FILENO) < 0)
			_exit(127);
		close(fds[0]);
		close(fds[1]);
		setenv("LESS", "FRX", 0);
		setenv("LV", "-c", 0);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	if (dup2(fds[1], STDOUT_FILENO) < 0) {
		close(fds[1]);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return 0;
	}
	close(fds[1]);
	S_pid = pid;
	return 1;
}

int dtk_pager_finish(void)
{
	int rc = 0, e;
	void (*old)(int);

	if (S_pid < 0)
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
	while (waitpid(S_pid, NULL, 0) < 0 && errno == EINTR)
		;
	signal(SIGPIPE, old);
	S_pid = -1;
	return rc;
}
