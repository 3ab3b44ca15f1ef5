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

/* A page generated beside INDEX.md when its node tables are over its budget
 * (docs/index-format.md, "The budget"): rows [first, first + n) of the
 * nodes of a category, its part-th page (from 1). */
struct dtk_index_page {
	char *rel;  /* "index/<slug>.md", "index/<slug>.2.md", ...; malloc'd */
	char *text; /* malloc'd, len bytes */
	size_t len, category, part, first, n;
};

struct dtk_index_pages {
	struct dtk_index_page *v; /* by category, then part */
	size_t n;
	char *over; /* says which page is over the budget with every tier; NULL */
};

/* The folder of the generated pages, relative to the base root. */
#define DTK_INDEX_PAGES_DIR "index"

/* Writes INDEX.md for kb to write: the whole page when it is within kb's
 * budget (policy.index_max_bytes and index_max_lines), else with the tiers
 * of docs/index-format.md applied in turn; the page is held whole (at most
 * the budget, unless no tier brings it within). Depends only on kb. When
 * pages is not NULL, *pages gets the generated pages (none when INDEX.md
 * holds every node table) and says whether a page is over the budget with
 * every tier applied; release it with dtk_index_pages_release. Returns 0,
 * or write's -1. */
int dtk_index_write_pages(const struct dtk_kb *kb, dtk_write_fn write, void *arg,
                          struct dtk_index_pages *pages);
void dtk_index_pages_release(struct dtk_index_pages *p);

/* What a page of index/ on disk is to the page generated. */
enum { DTK_PAGE_DIFFERS = 1, DTK_PAGE_MISSING, DTK_PAGE_STALE };
/* Told of a page not in line: rel ("index/x.md"), state, the file's bytes
 * (none when missing or stale) and the page's (none when stale). */
typedef void (*dtk_page_fn)(void *arg, const char *rel, int state, const char *old, size_t old_len,
                            const char *want, size_t want_len);
/*
 * Compares the pages p with the files of index/ under root and calls fn
 * (when not NULL) for each not in line: a page whose file differs or is
 * missing (a file that is its page as git checks it out is in line), a
 * file index/<name>.md for which no page is generated (stale). With write,
 * first brings each in line: written atomically as git checks it out, a
 * stale file removed (and index/ when that leaves it empty). Returns how
 * many were not in line, or -1 with the error set.
 */
int dtk_index_pages_sync(const char *root, const struct dtk_index_pages *p, int write,
                         dtk_page_fn fn, void *arg);
/* Brings the file rel under root (a page, or INDEX.md) in line with
 * text[0..len) as dtk_index_pages_sync does a page, but for a stale file.
 * Returns 1 when it was not in line, 0 when it was, or a negative
 * dtk_file_write_atomic's return (DTK_ENOSYNC: written) or -1 with the
 * error set. */
int dtk_index_file_sync(const char *root, const char *rel, const char *text, size_t len, int write,
                        dtk_page_fn fn, void *arg);

/* Returns INDEX.md's content as an HTML fragment whose node names link to
 * "nodes/<node>.html" (the HTML export); malloc'd (the caller frees). */
char *dtk_index_render_html(const struct dtk_kb *kb);

/* The file name of the index, relative to the base root. */
#define DTK_INDEX_FILE "INDEX.md"

/*
 * Loads the whole base at root, keeping only what INDEX.md shows, and writes
 * its INDEX.md to write (and its pages to *pages when not NULL: see
 * dtk_index_write_pages). Returns 0; DTK_EINVALID with diags filled (nothing
 * was written); or -1 with the error set.
 */
int dtk_index_build(const char *root, struct dtk_diags *diags, dtk_write_fn write, void *arg,
                    struct dtk_index_pages *pages);

#endif
