/*
 * fuzz_mcp.c: libFuzzer target for dtk mcp's message reader and JSON-RPC
 * layer. The input is a stream of messages, served as standard input is
 * (dtk_mcp_serve_fd, its read-ahead and cancellations included) by a
 * server that refuses tool calls and reads (they would run commands in the
 * working directory). Every response must be one line of JSON. Any crash,
 * leak, hang or sanitizer report is a bug.
 */
#define _GNU_SOURCE /* memfd_create, open_memstream */
#include "dtk/mcp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dtk_mcp *m;
	char *out = NULL, *line, *nl;
	size_t len = 0;
	FILE *f;
	int fd;

	if (!size || (fd = memfd_create("fuzz_mcp", MFD_CLOEXEC)) < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0 ||
	    !(f = open_memstream(&out, &len))) {
		close(fd);
		return 0;
	}
	m = dtk_mcp_new(DTK_MCP_NO_CALLS);
	if (dtk_mcp_serve_fd(m, fd, f, stderr) < 0)
		abort();
	fclose(f);
	for (line = out; *line; line = nl + 1) { /* each a JSON object or array */
		if (!(nl = strchr(line, '\n')) || nl == line || !strchr("{[", *line) ||
		    !strchr("}]", nl[-1]))
			abort();
	}
	free(out);
	dtk_mcp_free(m);
	close(fd);
	return 0;
}
