/*
 * fuzz_mcp.c: libFuzzer target for dtk mcp's message reader and JSON-RPC
 * layer. The input is a stream of messages; each line (at most 4096 bytes
 * here: longer ones are refused as the 16 MiB limit refuses them) is handled
 * by a server that refuses tool calls and reads (they would run commands in
 * the working directory). Every response must be one line of JSON. Any
 * crash, leak, hang or sanitizer report is a bug.
 */
#define _GNU_SOURCE /* fmemopen */
#include "dtk/mcp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dtk_buf line = DTK_BUF_INIT;
	struct dtk_mcp *m;
	FILE *in;
	char *r;
	int rc;

	if (!size)
		return 0;
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	m = dtk_mcp_new(DTK_MCP_NO_CALLS);
	while ((rc = dtk_mcp_read_line(in, 4096, &line)) != 0) {
		if (rc < 0) {
			if (rc != DTK_ETOOBIG)
				break;
			continue;
		}
		if (line.len > 4096 || memchr(line.ptr, '\n', line.len))
			abort();
		r = dtk_mcp_handle(m, line.ptr, line.len, 1); /* not read again */
		if (r && strchr(r, '\n'))
			abort();
		free(r);
	}
	dtk_mcp_free(m);
	dtk_buf_release(&line);
	fclose(in);
	return 0;
}
