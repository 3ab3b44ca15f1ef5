/*
 * jsonread.h: reading JSON (jansson) into the tree YAML is read into
 * (ytree.h), so that what reads a mapping reads it from either.
 * <jansson.h> is included by jsonread.c and by the MCP server (mcp.c,
 * mcp_tools.h, mcp_prompts.h), which builds its messages with it.
 */
#ifndef DTK_JSONREAD_H
#define DTK_JSONREAD_H

#include "dtk/ytree.h"

/*
 * Parses buf[0..len) as one JSON value into a tree in arena: objects become
 * mappings, arrays sequences, strings string scalars, numbers, booleans and
 * null scalars of those types (spelled as JSON spells them). Positions are
 * jansson's (line and column); spans are 0. path is for diagnostics. Returns
 * 0 and sets *out, or -1 after adding the error to diags.
 */
int dtk_json_parse(struct dtk_yval **out, struct dtk_arena *arena, const char *path,
                   const char *buf, size_t len, struct dtk_diags *diags);

#endif
