/* cmd_mcp.c: dtk mcp: an MCP server on standard input and output. */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/mcp.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The longest prefix: a tool's name stays within 64 characters (the
 * OpenAI API's limit), the longest dtk's being 16. */
#define MAX_PREFIX 40

/* Returns 1 when prefix can begin a tool's name in every client: letters,
 * digits, '_' and '-' (OpenAI's ^[a-zA-Z0-9_-]{1,64}$ within MCP's). */
static int S_prefix_ok(const char *p)
{
	return strlen(p) <= MAX_PREFIX &&
	       strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
	               strlen(p);
}

/* The options of the command (the dispatcher parses them). */
static const struct dtk_opt S_opts[] = {
        {"prefix", 'p', DTK_OPT_STRING, .arg = "P",
         .help = "name every tool P<name> (letters, digits, _ and -; at\n"
                 "most 40): two bases' servers in one agent"},
        {"read-only", 'r', DTK_OPT_FLAG, .help = "only the tools that read"},
        {"tools", 't', DTK_OPT_STRING, .arg = "NAMES",
         .help = "only these tools, comma-separated (their names\nwithout the prefix)"},
        {0}};

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	const char *prefix = dtk_args_str(a, 'p') ? dtk_args_str(a, 'p') : "";
	struct dtk_mcp *m;
	void (*old)(int);
	int rc, fd;

	if (dtk_args_operands(ctx, a, 0, 0, NULL) < 0)
		return DTK_EXIT_INVALID;
	if (!S_prefix_ok(prefix))
		return dtk_cmd_usage_error(ctx, "mcp",
		                           "--prefix must be at most %d letters, digits, '_' or "
		                           "'-', not '%s'",
		                           MAX_PREFIX, prefix);
	/* a client that closes its end is a write that fails (EPIPE), not a
	 * signal that kills the server */
	old = signal(SIGPIPE, SIG_IGN);
	/* -q: the protocol is not a report; it stays on standard output */
	if (ctx->loud) {
		fclose(ctx->out);
		ctx->out = ctx->loud;
		ctx->loud = NULL;
	}
	m = dtk_mcp_new(0);
	dtk_mcp_set_prefix(m, prefix);
	if (dtk_mcp_set_tools(m, dtk_args_str(a, 't'), dtk_args_has(a, 'r') > 0) < 0) {
		dtk_mcp_free(m);
		return dtk_cmd_usage_error(ctx, "mcp", "--tools: %s", dtk_error_last());
	}
	rc = dtk_mcp_serve_fd(m, fileno(stdin), ctx->out, ctx->err);
	dtk_mcp_free(m);
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
        .summary = "serve the base to agents over MCP (stdio)",
        .help = "\nAn MCP (Model Context Protocol) server: JSON-RPC 2.0, one message per line\n"
                "on standard input and output (nothing else is written there; diagnostics\n"
                "go to standard error), until the input ends or the client closes the\n"
                "output (exit 0 either way). Tools run dtk's own commands: those that\n"
                "read (show, list, search, sources, similar, next_id, check,\n"
                "crystallize_plan) and every write command (reindex and the others);\n"
                "--read-only or --tools give an agent fewer. Resources are INDEX.md\n"
                "(dtk://index), _sources.yaml (dtk://sources) and each node file\n"
                "(dtk://node/<name>), read-only. Each request reads the base as it is on\n"
                "disk then. Protocol versions 2026-07-28, 2025-11-25, 2025-06-18,\n"
                "2025-03-26 and 2024-11-05. See docs/agents.md.\n",
        .examples = "examples:\n"
                    "  claude mcp add dtk -- dtk -C /path/to/base mcp\n"
                    "  claude mcp add infra -- dtk -C /path/to/infra mcp --prefix infra_\n"
                    "  claude mcp add kb -- dtk -C /path/to/base mcp --read-only\n",
        .flags = 0,
        .opts = S_opts,
        .run = S_run,
};
