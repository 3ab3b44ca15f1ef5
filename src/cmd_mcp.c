/* cmd_mcp.c: dtk mcp: an MCP server on standard input and output, or on
 * HTTP (--http). */
#include "dtk/cmd.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/mcp.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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
        {"http", 'H', DTK_OPT_STRING, .arg = "[ADDR:]PORT",
         .help = "serve Streamable HTTP at http://ADDR:PORT/mcp instead\n"
                 "(ADDR 127.0.0.1 unless given; PORT 0: any free one)"},
        {"token-file", 'T', DTK_OPT_STRING, .arg = "FILE",
         .help = "with --http: every request must carry 'Authorization:\n"
                 "Bearer <the token FILE holds>' (needed beyond loopback)"},
        {"timeout", 't', DTK_OPT_INT, .arg = "S",
         .help = "with --http: seconds a request may take to arrive (30)"},
        {"read-only", 'r', DTK_OPT_FLAG, .help = "only the tools that read"},
        {"tools", 'n', DTK_OPT_STRING, .arg = "NAMES",
         .help = "only these tools, comma-separated (their names\nwithout the prefix)"},
        {0}};

/* The fewest characters of a bearer token. */
#define MIN_TOKEN 16

/* Reads the token of path into *out (malloc'd): the file's text without
 * the line end, at least MIN_TOKEN visible ASCII characters. Returns 0, or
 * the exit status after the usage error. */
static int S_token(struct dtk_ctx *ctx, const char *path, char **out)
{
	size_t len, i;
	char *t;

	*out = NULL;
	if (dtk_file_read(&t, &len, path, 4096) != 0)
		return dtk_cmd_usage_error(ctx, "--token-file: cannot read %s: %s", path,
		                           dtk_error_last());
	while (len && strchr("\r\n", t[len - 1]))
		t[--len] = '\0';
	for (i = 0; i < len && t[i] > ' ' && t[i] < 127; i++)
		;
	if (i < len || len < MIN_TOKEN) {
		free(t);
		return dtk_cmd_usage_error(ctx,
		                           "--token-file: %s must hold one token of at least %d "
		                           "visible ASCII characters (no spaces)",
		                           path, MIN_TOKEN);
	}
	*out = t;
	return 0;
}

/* Parses --http's [ADDR:]PORT into o (addr points into buf). Returns 0, or
 * the exit status after the usage error. */
static int S_listen(struct dtk_ctx *ctx, const char *spec, char *buf, size_t size,
                    struct dtk_mcp_http_opts *o)
{
	const char *port = spec, *colon = strrchr(spec, ':');
	char *end;
	unsigned long n;

	snprintf(buf, size, "127.0.0.1");
	if (colon && (size_t)(colon - spec) < size) {
		port = colon + 1;
		if (*spec == '[' && colon > spec + 1 && colon[-1] == ']')
			snprintf(buf, size, "%.*s", (int)(colon - spec - 2), spec + 1);
		else
			snprintf(buf, size, "%.*s", (int)(colon - spec), spec);
	}
	n = strtoul(port, &end, 10);
	if (!*port || *end || n > 65535 || strspn(port, "0123456789") != strlen(port) ||
	    dtk_mcp_http_loopback(buf) < 0)
		return dtk_cmd_usage_error(
		        ctx,
		        "--http takes [ADDR:]PORT (ADDR a numeric IPv4 or [IPv6] "
		        "address, PORT 0 to 65535), not '%s'",
		        spec);
	o->addr = buf;
	o->port = (unsigned)n;
	return 0;
}

static int S_run(struct dtk_ctx *ctx, const struct dtk_args *a)
{
	const char *prefix = dtk_args_str(a, 'p') ? dtk_args_str(a, 'p') : "";
	const char *http = dtk_args_str(a, 'H');
	struct dtk_mcp_http_opts ho = {.max_connections = 64, .timeout = 30};
	char addr[64], *token = NULL;
	struct dtk_mcp *m;
	void (*old)(int);
	int rc, fd;

	if (!S_prefix_ok(prefix))
		return dtk_cmd_usage_error(ctx,
		                           "--prefix must be at most %d letters, digits, '_' or "
		                           "'-', not '%s'",
		                           MAX_PREFIX, prefix);
	if (!http && (dtk_args_has(a, 'T') || dtk_args_has(a, 't')))
		return dtk_cmd_usage_error(ctx, "--%s goes with --http",
		                           dtk_args_has(a, 'T') ? "token-file" : "timeout");
	if (http) {
		if ((rc = S_listen(ctx, http, addr, sizeof(addr), &ho)) != 0)
			return rc;
		if (dtk_args_str(a, 'T') && (rc = S_token(ctx, dtk_args_str(a, 'T'), &token)) != 0)
			return rc;
		if (!token && dtk_mcp_http_loopback(ho.addr) != 1)
			return dtk_cmd_usage_error(
			        ctx,
			        "--http on %s, beyond loopback, needs --token-file "
			        "(docs/agents.md)",
			        ho.addr);
		ho.token = token;
		ho.timeout = (unsigned)dtk_args_int(a, 't', 30);
	}
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
	if (dtk_mcp_set_tools(m, dtk_args_str(a, 'n'), dtk_args_has(a, 'r') > 0) < 0) {
		dtk_mcp_free(m);
		return dtk_cmd_usage_error(ctx, "--tools: %s", dtk_error_last());
	}
	rc = http ? dtk_mcp_serve_http(m, &ho, ctx->err)
	          : dtk_mcp_serve_fd(m, fileno(stdin), ctx->out, ctx->err);
	dtk_mcp_free(m);
	free(token);
	if (rc == 0 && ferror(ctx->out) && (fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0) {
		/* the client has gone: what was not written goes nowhere */
		if (fileno(ctx->out) >= 0)
			dup2(fd, fileno(ctx->out));
		close(fd);
		clearerr(ctx->out);
	}
	signal(SIGPIPE, old);
	if (rc < 0)
		return dtk_cmd_fail(ctx, DTK_EXIT_INVALID);
	return DTK_EXIT_OK;
}

const struct dtk_cmd dtk_cmd_mcp = {
        .name = "mcp",
        .summary = "serve the base to agents over MCP (stdio or HTTP)",
        .help = "\nAn MCP (Model Context Protocol) server: JSON-RPC 2.0, one message per line\n"
                "on standard input and output (nothing else is written there; diagnostics\n"
                "go to standard error), until the input ends or the client closes the\n"
                "output (exit 0 either way). Tools run dtk's own commands: those that\n"
                "read (show, list, search, sources, similar, next_id, check,\n"
                "crystallize_plan) and every write command (reindex and the others);\n"
                "--read-only or --tools give an agent fewer. Resources are INDEX.md\n"
                "(dtk://index), _sources.yaml (dtk://sources) and each node file\n"
                "(dtk://node/<name>), read-only; prompts are the working loop and the\n"
                "monthly review. Each request reads the base as it is on disk then.\n"
                "Protocol versions 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26 and\n"
                "2024-11-05. With --http, MCP's Streamable HTTP on one endpoint, /mcp,\n"
                "until SIGTERM or SIGINT: on loopback only unless --token-file is given;\n"
                "a Host or Origin not of loopback is refused there (403), as are a\n"
                "request without the token (401) and one over 16 MiB (413); at most 64\n"
                "connections at once. See docs/agents.md.\n",
        .examples = "examples:\n"
                    "  claude mcp add dtk -- dtk -C /path/to/base mcp\n"
                    "  claude mcp add infra -- dtk -C /path/to/infra mcp --prefix infra_\n"
                    "  claude mcp add kb -- dtk -C /path/to/base mcp --read-only\n",
        .flags = 0,
        .opts = S_opts,
        .run = S_run,
};
