/*
 * fuzz_replay.c: runs a libFuzzer target's LLVMFuzzerTestOneInput on every
 * file of the directories given (those whose names start with the prefix
 * given by -p), so that the suite replays the fuzzers' seeds and every
 * finding under the sanitizers, without clang.
 *   fuzz_replay_<target> [-p PREFIX] DIR...
 */
#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int S_replay_dir(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d) {
		fprintf(stderr, "cannot read %s\n", dir);
		return -1;
	}
	while ((de = readdir(d))) {
		char *path, *buf = NULL;
		size_t len;
		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		path = dtk_path_join(dir, de->d_name);
		if (dtk_file_read(&buf, &len, path, 64u << 20) == 0) {
			/* as libFuzzer gives it: its bytes alone, no NUL after them */
			uint8_t *exact = dtk_xmalloc(len ? len : 1);
			memcpy(exact, buf, len);
			LLVMFuzzerTestOneInput(exact, len);
			free(exact);
			n++;
		}
		free(buf);
		free(path);
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	const char *prefix = "";
	int i = 1, total = 0, n;

	if (argc > 2 && !strcmp(argv[1], "-p")) {
		prefix = argv[2];
		i = 3;
	}
	for (; i < argc; i++) {
		if ((n = S_replay_dir(argv[i], prefix)) < 0)
			return 1;
		total += n;
	}
	printf("%d passed, 0 failed\n", total);
	return total > 0 || *prefix ? 0 : 1; /* a findings folder may be empty */
}
