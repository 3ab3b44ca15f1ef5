/* mcp_prompts.h: the MCP server's prompts, completions and logging level
 * (inside src/: mcp.c uses it). */
#ifndef DTK_MCP_PROMPTS_H
#define DTK_MCP_PROMPTS_H

#include <jansson.h>
#include <stddef.h>

struct dtk_kb_hold;

/*
 * Answers method with params (an object, or NULL) when it is prompts/list,
 * prompts/get, completion/complete or logging/setLevel. Returns 1 and sets
 * *result (a new reference); -1 with the message of the JSON-RPC error
 * (-32602, invalid params) in err (size bytes) when params do not fit; 0
 * when method is none of these. prefix is the tools' (the prompts name tools);
 * *log_level is the session's level, which logging/setLevel sets; hold is
 * the base the read-only tools share (dates are completed from it).
 */
int dtk_mcp_prompts_method(const char *method, json_t *params, const char *prefix, int *log_level,
                           struct dtk_kb_hold **hold, json_t **result, char *err, size_t size);

#endif
