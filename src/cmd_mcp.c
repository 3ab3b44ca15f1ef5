/* cmd_mcp.c: dtk mcp: an MCP server on standard input and output. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/mcp.h"

#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static int S_exec(struct dtk_ctx *ctx, int argc, char **argv)
{
	void (*old)(int);
	int rc, fd;

	optind = 0;
	if (dtk_cmd_getopt(ctx, argc, argv, "", NULL) != -1 ||
	    dtk_cmd_operands(ctx, "mcp", argc, argv, 0, 0, NULL) < 0)
		return DTK_EXIT_INVALID;
	/* a client that closes its end is a write that fails (EPIPE), not a
	 * signal that kills the server */
	old = signal(SIGPIPE, SIG_IGN);
	/* -q: the protocol is not a report; it stays on standard output */
	if (ctx->loud) {
		fclose(ctx->out);
		ctx->out = ctx->loud;
		ctx->loud = NULL;
	}
	rc = dtk_mcp_serve(stdin, ctx->out, ctx->err);
	if (rc == 0 && ferror(ctx->out) && (fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0) {
		/* the client has gone: what was not written goes nowhere */
		if (fileno(ctx->out) >= 0)
			dup2(fd, fileno(ctx->out));
		close(fd);
		clearerr(ctx->out);
	}
	signal(SIGPIPE, old);
	if (rc < 0)
		return dtk_cmd_fail(ctx, "mcp", DTK_EXIT_INVALID);
	return DTK_EXIT_OK;
}

const struct dtk_cmd dtk_cmd_mcp = {
        .name = "mcp",
        .usage = "dtk mcp",
        .summary = "serve the base to agents over MCP (stdio)",
        .help = "\nAn MCP (Model Context Protocol) server: JSON-RPC 2.0, one message per line\n"
                "on standard input and output (nothing else is written there; diagnostics\n"
                "go to standard error), until the input ends or the client closes the\n"
                "output (exit 0 either way). Tools run dtk's own commands (show, list,\n"
                "search, next_id, check, crystallize_plan; add, add_source, use, cite,\n"
                "close, verify, review, relate); resources are INDEX.md (dtk://index) and\n"
                "each node file (dtk://node/<name>), read-only. Each request reads the\n"
                "base as it is on disk then. Protocol versions 2025-11-25, 2025-06-18,\n"
                "2025-03-26 and 2024-11-05. See docs/agents.md.\n\n"
                "examples:\n"
                "  claude mcp add dtk -- dtk -C /path/to/base mcp\n",
        .flags = 0,
        .exec = S_exec,
};
