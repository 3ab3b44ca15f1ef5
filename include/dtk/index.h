/*
 * index.h: the figures INDEX.md shows, and INDEX.md itself.
 */
#ifndef DTK_INDEX_H
#define DTK_INDEX_H

#include "dtk/dtk.h"
#include "dtk/model.h"

struct dtk_stats {
	size_t nodes, nodes_with_entries, entries, high, articles;
	size_t used, cited, closed;
	int usage_pct, citation_pct, closure_pct;
	dtk_date earliest; /* the oldest freshness date; 0 without entries */
};

/* Computes the figures of kb's status section into *out. */
void dtk_stats_compute(struct dtk_stats *out, const struct dtk_kb *kb);

/* Returns part/whole as a whole percent rounded half up (0 when whole is 0). */
int dtk_percent(size_t part, size_t whole);

/* Returns 1 when e is a candidate: not high, and exactly one verification short. */
int dtk_entry_is_candidate(const struct dtk_kb *kb, const struct dtk_entry *e);

/* Returns 1 when e is stale at date d by kb's policy. */
int dtk_entry_is_stale(const struct dtk_kb *kb, const struct dtk_entry *e, dtk_date d);

/* Returns 1 when node has at least one high entry. */
int dtk_node_has_high(const struct dtk_node *node);

/* Returns INDEX.md for kb, malloc'd (the caller frees). Depends only on kb. */
char *dtk_index_render(const struct dtk_kb *kb);

/* Returns INDEX.md's content as an HTML fragment whose node names link to
 * "<node>.html" (the HTML export); malloc'd (the caller frees). */
char *dtk_index_render_html(const struct dtk_kb *kb);

/* The file name of the index, relative to the base root. */
#define DTK_INDEX_FILE "INDEX.md"

/*
 * Loads the whole base at root and renders its INDEX.md. Returns 0 and sets
 * *out (malloc'd, the caller frees); DTK_EINVALID with diags filled; or -1
 * with the error set.
 */
int dtk_index_build(char **out, const char *root, struct dtk_diags *diags);

#endif
