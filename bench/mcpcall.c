/* mcpcall.c: times a warm call of a dtk mcp session, as an agent makes it.
 *
 *   bench/mcpcall [-n N] DTK DIR TOOL ARGS-JSON
 *
 * Starts 'DTK -C DIR mcp', initializes the session, calls tool TOOL with
 * ARGS-JSON once to warm it (the base loaded and held), then calls it N
 * times more (default 5) and prints "<wall seconds>", the median of those
 * calls, on standard output. Exits 1 when the session fails or a reply is
 * an error. */
#define _GNU_SOURCE /* asprintf */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double S_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sends line, reads the reply line into *buf (getline's); returns 0, or -1
 * when the session ended or replied with an error. */
static int S_ask(FILE *to, FILE *from, const char *line, char **buf, size_t *cap)
{
	if (fprintf(to, "%s\n", line) < 0 || fflush(to) != 0 || getline(buf, cap, from) < 0)
		return -1;
	return strstr(*buf, "\"error\":") || strstr(*buf, "\"isError\":true") ? -1 : 0;
}

static int S_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double t[1000];
	int n = 5, i;

	int in[2], out[2], rc = 1;
	char *buf = NULL, *call = NULL;
	size_t cap = 0;
	FILE *to, *from;
	double t0;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		n = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 5 || n < 1 || n > 1000) {
		fprintf(stderr, "usage: mcpcall [-n N] DTK DIR TOOL ARGS-JSON\n");
		return 2;
	}
	if (pipe(in) < 0 || pipe(out) < 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(argv[1], argv[1], "-C", argv[2], "mcp", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	to = fdopen(in[1], "w");
	from = fdopen(out[0], "r");
	if (asprintf(&call,
	             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
	             "\"name\":\"%s\",\"arguments\":%s}}",
	             argv[3], argv[4]) < 0)
		return 1;
	if (S_ask(to, from,
	          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
	          "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
	          "\"clientInfo\":{\"name\":\"mcpcall\",\"version\":\"1\"}}}",
	          &buf, &cap) < 0 ||
	    fprintf(to, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n") < 0 ||
	    S_ask(to, from, call, &buf, &cap) < 0)
		goto done;
	for (i = 0; i < n; i++) {
		t0 = S_now();
		if (S_ask(to, from, call, &buf, &cap) < 0)
			goto done;
		t[i] = S_now() - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), S_cmp);
	printf("%.6f\n", n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2);
	rc = 0;
done:
	if (rc)
		fprintf(stderr, "mcpcall: %s", buf ? buf : "the session ended\n");
	fclose(to);
	fclose(from);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	free(buf);
	free(call);
	return rc;
}
