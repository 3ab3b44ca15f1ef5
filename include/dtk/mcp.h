/*
 * mcp.h: dtk as an MCP server (Model Context Protocol): JSON-RPC 2.0 over
 * newline-delimited messages on standard input and output, or over
 * Streamable HTTP (mcp_http.c). Tools run dtk's
 * own commands in-process (dtk_cmd_run), so that the CLI and MCP give the
 * same answers; resources are INDEX.md and the node files, read-only.
 */
#ifndef DTK_MCP_H
#define DTK_MCP_H

#include "dtk/dtk.h"

#include <stdio.h>

/* The largest message read: a longer line is refused, never held whole. */
#define DTK_MCP_MAX_MESSAGE (16u << 20)
/* the most bytes a batch (protocol 2025-03-26) may take as written: held
 * whole while its requests run, so a request's work and the rest of the
 * batch stay within twice DTK_MCP_MAX_MESSAGE together */
#define DTK_MCP_MAX_BATCH (4u << 20)

/* The deepest nesting and the most values a message may hold: one beyond
 * either is refused before it is parsed (docs/agents.md: the memory that
 * bounds). */
#define DTK_MCP_MAX_DEPTH 64
#define DTK_MCP_MAX_VALUES 100000
/* The longest string of a message as written (escapes and all): a message
 * holding a longer one is refused, under its id, before it is parsed (no
 * tool's argument takes more than 1 MiB). */
#define DTK_MCP_MAX_STRING (2u << 20)

/* The protocol versions dtk speaks, newest first: 2026-07-28 (each request
 * names it, no handshake), then those that initialize agrees on. Returns
 * the place of v among them, or -1 when v (NULL: none) is not one. */
#define DTK_MCP_N_VERSIONS 5
int dtk_mcp_version(const char *v);

/* Returns the JSON-RPC error response, under id null, with code and msg:
 * one line (malloc'd, the caller frees), as every response is written. */
char *dtk_mcp_error(int code, const char *msg);

struct dtk_mcp;

/* What a server may do (flags of dtk_mcp_new). */
enum { DTK_MCP_NO_CALLS = 1 /* refuse tools/call and resources/read (fuzzing) */ };

/* Returns a server; free with dtk_mcp_free. */
struct dtk_mcp *dtk_mcp_new(unsigned flags);
void dtk_mcp_free(struct dtk_mcp *m);

/* Returns how many times m loaded the base its read-only tools share
 * between calls (loaded again only when a file of insights/ changed). */
unsigned dtk_mcp_base_loads(const struct dtk_mcp *m);

/* What one client's session holds between its messages: the version
 * initialize agreed on (NULL before it), logging/setLevel's level and
 * whether a request was refused for want of initialize (mcp_http.c then
 * answers 400, as Streamable HTTP asks of a request without a session). A
 * transport that serves several sessions with one server (mcp_http.c)
 * keeps one each, zeroed at first, and has it used around each message. */
struct dtk_mcp_session {
	const char *version;
	int log_level;
	int unbound;
};

/* Makes m answer in session s (the caller's, kept until the next call)
 * from now, or in its own when s is NULL. */
void dtk_mcp_use_session(struct dtk_mcp *m, struct dtk_mcp_session *s);

/* Names every tool prefix + its name (dtk mcp --prefix). */
void dtk_mcp_set_prefix(struct dtk_mcp *m, const char *prefix);

/* Gives m only the tools named in names (comma-separated, without the
 * prefix; NULL: every one), only the read tools with read_only (dtk mcp
 * --tools, --read-only): the others are neither listed nor called. Returns
 * 0, or -1 with the error set naming the tools there are. */
int dtk_mcp_set_tools(struct dtk_mcp *m, const char *names, int read_only);

/*
 * Handles one message (a line of len bytes). When drop, msg is a buffer of
 * the caller's own that it does not read again: its pages are given back to
 * the system as it is parsed. Returns the response (one line of JSON without
 * its '\n', malloc'd, the caller frees), or NULL when none is due (a
 * notification or a response).
 */
char *dtk_mcp_handle(struct dtk_mcp *m, const char *msg, size_t len, int drop);

/*
 * Serves messages to server m from file descriptor in (nothing else may
 * read it), one a line (a line over DTK_MCP_MAX_MESSAGE is refused, never
 * held whole), until its end, writing responses to out (nothing else goes
 * there) and diagnostics to err. Input already waiting is read ahead (up
 * to 1 MiB), so that a request cancelled (notifications/cancelled) before
 * its turn is never run. Returns 0 at the end of input or when out is a
 * pipe the client closed (EPIPE: out then has its error set, and what was
 * not written is lost), or -1 with the error set when in or out fail
 * otherwise. The caller ignores SIGPIPE, else a closed pipe kills it.
 */
int dtk_mcp_serve_fd(struct dtk_mcp *m, int in, FILE *out, FILE *err);

/* How dtk mcp --http listens (mcp_http.c). */
struct dtk_mcp_http_opts {
	const char *addr;         /* an IPv4 or IPv6 address, numeric */
	unsigned port;            /* 0: any free port */
	const char *token;        /* NULL, or the bearer token every request must carry */
	unsigned max_connections; /* at once */
	unsigned timeout;         /* seconds a request may take to arrive */
};

/* Returns 1 when addr (numeric, as dtk_mcp_serve_http takes it) is a
 * loopback address, 0 when it is another, -1 when it is no address. */
int dtk_mcp_http_loopback(const char *addr);

/*
 * Serves server m over Streamable HTTP at http://ADDR:PORT/mcp as o says
 * (docs/agents.md), one message at a time, until SIGTERM or SIGINT: the
 * message being handled is finished first. Writes where it listens to err
 * ("dtk mcp: listening on http://...") and, at the end, "dtk mcp: stopped". Returns
 * 0 after a signal, or -1 with the error set when it cannot listen.
 */
int dtk_mcp_serve_http(struct dtk_mcp *m, const struct dtk_mcp_http_opts *o, FILE *err);

#endif
