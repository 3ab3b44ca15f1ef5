/* mcp_tools.h: the tools of dtk's MCP server (inside src/: mcp.c uses it). */
#ifndef DTK_MCP_TOOLS_H
#define DTK_MCP_TOOLS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* A set of the tools, a bit each in the order of their table: what a
 * server lists and calls (DTK_MCP_TOOLS_ALL: every one). */
#define DTK_MCP_TOOLS_ALL UINT64_MAX

/*
 * Sets *out to the tools named in names (comma-separated, without the
 * prefix; NULL: every one), only read tools with read_only. Returns 0, or
 * -1 with what is wrong (a name no tool has, a tool that writes under
 * read_only) in msgbuf, naming the tools there are.
 */
int dtk_mcp_tools_select(uint64_t *out, const char *names, int read_only, char *msgbuf,
                         size_t msgsize);

/* Returns 1 when set holds a tool that writes, else 0. */
int dtk_mcp_tools_write(uint64_t set);

/* Returns the array of the tools' descriptions for tools/list (a new
 * reference), each named prefix + its name: only tools of set whose command
 * dtk has. */
json_t *dtk_mcp_tools_list(const char *prefix, uint64_t set);

/* Returns s as a JSON string (a new reference) with each '@' in it (where
 * a tool is named) replaced by prefix. */
json_t *dtk_mcp_prefixed(const char *prefix, const char *s);

/*
 * Calls tool name (prefix + the name of a tool of set) with args (an
 * object, or NULL);
 * hold is where the base the read-only tools share is kept between calls
 * (struct dtk_ctx's hold).
 * Returns 0 and sets *result to the CallToolResult (a new reference;
 * isError set when the arguments do not fit the tool, naming the argument,
 * what it got and what it accepts, or when the command refused, with its
 * messages); or -1 with the message in msgbuf when the tool is unknown or
 * the cursor is not one it gave: a JSON-RPC error -32602 is due.
 *
 * A result that is no error is written once: *raw (malloc'd, the caller
 * frees) is its JSON object on one line, the command's as it wrote it (but
 * next_id's, check's and a write's cut to what it changed, made from its
 * output), which is both the result's structuredContent and the text of its
 * first content item (left out of *result, whose first item has only its
 * type): the server writes them (mcp.c).
 */
struct dtk_kb_hold;
int dtk_mcp_tools_call(const char *prefix, uint64_t set, const char *name, json_t *args,
                       struct dtk_kb_hold **hold, json_t **result, char **raw, char *msgbuf,
                       size_t msgsize);

#endif
