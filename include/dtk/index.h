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

/* Computes the figures of kb's status section into *out. kb: a whole base
 * (its nodes' summaries are read), as for every function below. */
void dtk_stats_compute(struct dtk_stats *out, const struct dtk_kb *kb);

/* Returns part/whole as a whole percent rounded half up (0 when whole is 0). */
int dtk_percent(size_t part, size_t whole);

/* Returns 1 when e is stale at date d by kb's policy. */
int dtk_entry_is_stale(const struct dtk_kb *kb, const struct dtk_entry *e, dtk_date d);

/* Returns 1 when node has at least one high entry. */
int dtk_node_has_high(const struct dtk_node *node);

/* Writes INDEX.md for kb to write as it is rendered, block by block: the
 * page is never held whole. Depends only on kb. Returns 0, or write's -1. */
int dtk_index_write(const struct dtk_kb *kb, dtk_write_fn write, void *arg);
/* Returns INDEX.md for kb, malloc'd (the caller frees). */
char *dtk_index_render(const struct dtk_kb *kb);

/* Returns INDEX.md's content as an HTML fragment whose node names link to
 * "nodes/<node>.html" (the HTML export); malloc'd (the caller frees). */
char *dtk_index_render_html(const struct dtk_kb *kb);

/* The file name of the index, relative to the base root. */
#define DTK_INDEX_FILE "INDEX.md"

/*
 * Loads the whole base at root, keeping only what INDEX.md shows, and writes
 * its INDEX.md to write. Returns 0; DTK_EINVALID with diags filled (nothing
 * was written); or -1 with the error set.
 */
int dtk_index_build(const char *root, struct dtk_diags *diags, dtk_write_fn write, void *arg);

struct dtk_file_cmp;

/*
 * Loads the base at root and compares its INDEX.md, as it is rendered, with
 * the file at path (opened into c; a missing file differs). Returns 0 when
 * they are the same; 1 when they differ (c->text holds the new page, and
 * c->fd is -1 when the file is missing); DTK_EINVALID with diags filled; or
 * -1 with the error set. The caller releases c (dtk_file_cmp_release) in
 * every case.
 */
int dtk_index_compare(const char *root, const char *path, struct dtk_file_cmp *c,
                      struct dtk_diags *diags);

#endif
