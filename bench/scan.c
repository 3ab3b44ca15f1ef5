/* scan.c: the floor of dtk's benchmark. On one thread it reads YAML files and
 * pulls libyaml's events (yaml_parser_parse, yaml_event_delete) with no other
 * work: nothing a loader of those files can do in less.
 *
 *   bench/scan DIR            every *.yaml in DIR/insights (dot files skipped)
 *   bench/scan -f FILE...     exactly these files
 *
 * prints the number of events; exit 1 on an unreadable or unparsable file. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* One buffer reused for every file, grown to the largest. */
struct filebuf {
	unsigned char *p;
	size_t cap;
};

/* Reads the whole file path into fb; returns its size, or -1 after a message. */
static long S_read(struct filebuf *fb, const char *path)
{
	struct stat st;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	if ((size_t)st.st_size + 1 > fb->cap) {
		fb->cap = (size_t)st.st_size + 1;
		fb->p = realloc(fb->p, fb->cap);
		if (!fb->p) {
			fputs("scan: out of memory\n", stderr);
			abort();
		}
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, fb->p + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		got += (size_t)n;
	}
	close(fd);
	return (long)got;
fail:
	fprintf(stderr, "scan: cannot read %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Parses path's events into *events (added); returns 0, or -1 after a message. */
static int S_scan(struct filebuf *fb, const char *path, unsigned long long *events)
{
	yaml_parser_t parser;
	yaml_event_t event;
	long size = S_read(fb, path);
	int done = 0;

	if (size < 0)
		return -1;
	if (!yaml_parser_initialize(&parser)) {
		fputs("scan: out of memory\n", stderr);
		abort();
	}
	yaml_parser_set_input_string(&parser, fb->p, (size_t)size);
	while (!done) {
		if (!yaml_parser_parse(&parser, &event)) {
			fprintf(stderr, "scan: %s:%zu:%zu: %s\n", path,
			        parser.problem_mark.line + 1, parser.problem_mark.column + 1,
			        parser.problem ? parser.problem : "parse error");
			yaml_parser_delete(&parser);
			return -1;
		}
		done = event.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&event);
		(*events)++;
	}
	yaml_parser_delete(&parser);
	return 0;
}

/* Returns 1 when name is a file of the base to scan: *.yaml, not hidden. */
static int S_is_yaml(const char *name)
{
	size_t n = strlen(name);
	return name[0] != '.' && n > 5 && !strcmp(name + n - 5, ".yaml");
}

/* Scans every *.yaml of dir/insights; returns 0 or -1. */
static int S_scan_dir(struct filebuf *fb, const char *dir, unsigned long long *events)
{
	size_t len = strlen(dir) + sizeof("/insights/") + 256;
	char *path = malloc(len);
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (!path)
		abort();
	snprintf(path, len, "%s/insights", dir);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "scan: cannot open %s: %s\n", path, strerror(errno));
		free(path);
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (!S_is_yaml(e->d_name))
			continue;
		snprintf(path, len, "%s/insights/%s", dir, e->d_name);
		rc = S_scan(fb, path, events);
	}
	closedir(d);
	free(path);
	return rc;
}

int main(int argc, char **argv)
{
	struct filebuf fb = {0};
	unsigned long long events = 0;
	int i, rc = 0;

	if (argc == 2 && argv[1][0] != '-') {
		rc = S_scan_dir(&fb, argv[1], &events);
	} else if (argc >= 3 && !strcmp(argv[1], "-f")) {
		for (i = 2; i < argc && rc == 0; i++)
			rc = S_scan(&fb, argv[i], &events);
	} else {
		fputs("usage: scan DIR | scan -f FILE...\n"
		      "parses DIR/insights/*.yaml (or the files) with libyaml and prints the "
		      "number of events\n",
		      stderr);
		return 2;
	}
	free(fb.p);
	if (rc < 0)
		return 1;
	printf("%llu\n", events);
	return 0;
}
