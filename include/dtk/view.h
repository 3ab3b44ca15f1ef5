/*
 * view.h: how entries and nodes are shown to agents: JSON objects whose shape
 * is documented in docs/commands.md (keys are only ever added).
 */
#ifndef DTK_VIEW_H
#define DTK_VIEW_H

#include "dtk/json.h"
#include "dtk/model.h"

/* Writes entry e of kb as one JSON object. */
void dtk_view_entry_json(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_entry *e);
/* Writes node (with all its entries) as one JSON object. */
void dtk_view_node_json(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_node *node);

#endif
