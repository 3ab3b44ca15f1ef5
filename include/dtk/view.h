/*
 * view.h: how entries and nodes are shown to agents: JSON objects whose shape
 * is documented in docs/commands.md (keys are only ever added).
 */
#ifndef DTK_VIEW_H
#define DTK_VIEW_H

#include "dtk/json.h"
#include "dtk/model.h"

struct dtk_link;

/* Writes source s as one JSON object: id, title, url, read, revised (the
 * last three null when absent). */
void dtk_view_source_json(struct dtk_json *j, const struct dtk_source *s);

/* Writes entry e of kb as one JSON object. */
void dtk_view_entry_json(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_entry *e);
/* Writes entry e with "referenced_by": the n_links links (dtk_links_to) that
 * name it. */
void dtk_view_entry_json_links(struct dtk_json *j, const struct dtk_kb *kb,
                               const struct dtk_entry *e, const struct dtk_link *links,
                               size_t n_links);
/* Writes the keys dtk_view_entry_json_links writes into the object open in
 * j, for a caller that adds keys of its own before closing it. */
void dtk_view_entry_json_keys(struct dtk_json *j, const struct dtk_kb *kb,
                              const struct dtk_entry *e, const struct dtk_link *links,
                              size_t n_links);
/* Writes node (with all its entries) as one JSON object, with the backlinks
 * of each entry and of the node (from other nodes and gaps) as kb holds
 * them: load it with DTK_KB_LINKED. limit > 0: only limit entries from
 * offset, then "entries_total" and, when entries are left, "nextCursor"
 * ("o<offset>", dtk mcp's cursor). */
void dtk_view_node_json(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_node *node,
                        size_t offset, size_t limit);
/* dtk_view_node_json, and: with limit, "entries_not_shown" (entries_total
 * less those written); compact: each entry as {id, title, confidence}
 * only; max_bytes > 0: the page also ends before an entry once those
 * written reach max_bytes (at least one is written). */
void dtk_view_node_page(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_node *node,
                        size_t offset, size_t limit, int compact, size_t max_bytes);

#endif
