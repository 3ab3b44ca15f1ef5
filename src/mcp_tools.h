/* mcp_tools.h: the tools of dtk's MCP server (inside src/: mcp.c uses it). */
#ifndef DTK_MCP_TOOLS_H
#define DTK_MCP_TOOLS_H

#include <jansson.h>

/* Returns the array of the tools' descriptions for tools/list (a new
 * reference): only tools whose command dtk has. */
json_t *dtk_mcp_tools_list(void);

/*
 * Calls tool name with args (an object, or NULL). Returns 0 and sets *result
 * to the CallToolResult (a new reference; isError set when the command
 * refused); or -1 with *message set (a static string or one in msgbuf) when
 * the tool is unknown or the arguments do not fit its input schema: a
 * JSON-RPC error -32602 is due.
 */
int dtk_mcp_tools_call(const char *name, json_t *args, json_t **result, const char **message,
                       char *msgbuf, size_t msgsize);

#endif
