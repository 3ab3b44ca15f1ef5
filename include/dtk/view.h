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
 * offset, then "entries_total", "entries_not_shown" (entries_total less
 * those written) and, when entries are left, "nextCursor" ("o<offset>",
 * dtk mcp's cursor); compact: each entry as {id, title, confidence} only;
 * max_bytes > 0: the page also ends before an entry once those written
 * reach max_bytes (at least one is written). */
void dtk_view_node_page(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_node *node,
                        size_t offset, size_t limit, int compact, size_t max_bytes);

/* Writes entry e in short: id, title, confidence, fresh and the claim's
 * first DTK_VIEW_CLAIM_CHARS characters ("…" after a longer one). */
#define DTK_VIEW_CLAIM_CHARS 160
void dtk_view_entry_short(struct dtk_json *j, const struct dtk_entry *e);

/*
 * A list as a command writes it for --format json: an array of every item,
 * or, with a page (dtk mcp's, struct dtk_ctx's page), what dtk mcp's tool
 * returns as it is: {"entries": [...], "total": N, "nextCursor": "o<k>"},
 * the items from offset, at most size of them and no more than
 * DTK_VIEW_PAGE_BYTES (one at least: a tools/call response line holds
 * them twice and stays within 16 KB), nextCursor only when items are left.
 * dtk_view_list_item is called for each item in turn, and returns 1 when
 * it is to be written (page NULL: always).
 */
#define DTK_VIEW_PAGE_BYTES 7168
struct dtk_page {
	size_t offset, size;
	/* the writer's: the items offered, those written, where they begin
	 * in the buffer and where the last one does */
	size_t total, shown, start, mark;
	int full;
};
void dtk_view_list_begin(struct dtk_json *j, struct dtk_page *page);
int dtk_view_list_item(struct dtk_json *j, struct dtk_page *page);
void dtk_view_list_end(struct dtk_json *j, struct dtk_page *page);

#endif
