/* rusage.c: runs a command and reports its wall time and peak memory, with
 * nothing to install (it is what `/usr/bin/time -f '%e %M'` gives).
 *
 *   bench/rusage [-o FILE] CMD [ARG...]
 *
 * CMD keeps this program's standard input, output and error. When it ends,
 * one line "<wall seconds> <peak RSS KiB> <exit status>" is written to FILE
 * (default: standard error). The exit status is CMD's, 128 + N when killed by
 * signal N, 127 when it could not be run. */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Returns the monotonic clock in seconds. */
static double S_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *outpath = NULL;
	struct rusage ru;
	int argi = 1, status, code;
	double t0, wall;
	pid_t pid;
	FILE *out = stderr;

	if (argc > 2 && !strcmp(argv[1], "-o")) {
		outpath = argv[2];
		argi = 3;
	}
	if (argi >= argc || argv[argi][0] == '-') {
		fputs("usage: rusage [-o FILE] CMD [ARG...]\n"
		      "runs CMD; writes '<wall seconds> <peak RSS KiB> <exit status>'\n",
		      stderr);
		return 2;
	}
	if (outpath && !(out = fopen(outpath, "w"))) {
		fprintf(stderr, "rusage: cannot write %s: %s\n", outpath, strerror(errno));
		return 2;
	}

	t0 = S_now();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rusage: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[argi], argv + argi);
		fprintf(stderr, "rusage: cannot run %s: %s\n", argv[argi], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "rusage: wait4: %s\n", strerror(errno));
			return 2;
		}
	}
	wall = S_now() - t0;
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(out, "%.6f %ld %d\n", wall, ru.ru_maxrss, code);
	if (outpath && fclose(out) != 0) {
		fprintf(stderr, "rusage: cannot write %s\n", outpath);
		return 2;
	}
	return code;
}
