/*
 * links.h: what names an entry or a node (backlinks): entries whose relates
 * contradicts or superseded_by name it, and gaps of _domain.yaml flagged by it.
 */
#ifndef DTK_LINKS_H
#define DTK_LINKS_H

#include "dtk/model.h"

enum dtk_link_how { DTK_LINK_RELATES, DTK_LINK_CONTRADICTS, DTK_LINK_GAP, DTK_LINK_SUPERSEDES };
/* "relates", "contradicts", "gap", "superseded_by" (the naming entry is
 * superseded by the one named): the key of the naming entry */
extern const char *const dtk_link_how_names[4];

struct dtk_link {
	enum dtk_link_how how;
	const struct dtk_entry *from;        /* the naming entry; NULL for a gap */
	const struct dtk_gap *gap;           /* DTK_LINK_GAP: the gap */
	const struct dtk_contradiction *con; /* DTK_LINK_CONTRADICTS: what it says */
	const char *to;                      /* the id named */
};

/*
 * Lists what in kb names the entry id (node NULL), or an entry of the node
 * called node from another node or from a gap (id NULL). Order, the same
 * whatever the order of kb->nodes (a whole base's or one node's load): by
 * the naming entry's node name, then the entries in their node's order
 * (relates, then contradicts, then superseded_by, of each), then the gaps.
 * Returns the count and sets *out to a malloc'd array the caller frees (NULL
 * when the count is 0).
 */
size_t dtk_links_to(struct dtk_link **out, const struct dtk_kb *kb, const char *id,
                    const char *node);

/*
 * Lists, in one pass over kb, every link into an entry of the node called
 * node: from any node, itself too, and from gaps, in dtk_links_to's order;
 * dtk_links_pick then takes from it what dtk_links_to would list for one of
 * its entries or for the node, without going over kb again (a node's show
 * on a whole base). Each returns the count and sets *out to a malloc'd
 * array the caller frees (NULL when the count is 0).
 */
size_t dtk_links_into(struct dtk_link **out, const struct dtk_kb *kb, const char *node);

/* Makes kb->links_index, in kb's arena: every link of kb by the node it
 * names, so that dtk_links_into takes a node's links without going over kb
 * (a base held for many shows: dtk mcp). kb must not change after. */
void dtk_links_index(struct dtk_kb *kb);
/* From all[0..n) (dtk_links_into's of node): the links to entry id, or, id
 * NULL, those from other nodes and gaps. */
size_t dtk_links_pick(struct dtk_link **out, const struct dtk_link *all, size_t n, const char *id,
                      const char *node);

#endif
