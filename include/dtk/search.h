/*
 * search.h: full-text search over entries: every word of a query must occur
 * in an entry's id, title, claim or the titles of its sources, compared
 * after Unicode normalization (NFKC) and case folding (utf8proc).
 */
#ifndef DTK_SEARCH_H
#define DTK_SEARCH_H

#include "dtk/dtk.h"
#include "dtk/fold.h"
#include "dtk/model.h"

struct dtk_search;

/* The most words a search takes, and their bytes in all: what a search
 * holds and does per entry and source is bounded by them. */
#define DTK_SEARCH_MAX_WORDS 64
#define DTK_SEARCH_MAX_BYTES 4096

/* Returns a search for the n words (each folded; none may fold to nothing;
 * at most DTK_SEARCH_MAX_WORDS of DTK_SEARCH_MAX_BYTES in all), or NULL
 * with the error set. Free with dtk_search_free. */
struct dtk_search *dtk_search_new(const char *const *words, size_t n);
void dtk_search_free(struct dtk_search *s);

/* Returns the folded words of s, and sets *n to their count; s owns them. */
const char *const *dtk_search_words(const struct dtk_search *s, size_t *n);

/* Adds alts[0..n) as words that word k of s also takes (dtk_similar_
 * equivalents): an entry holding one of them holds the word, ranked after
 * those holding the words as given. */
void dtk_search_set_alts(struct dtk_search *s, size_t k, const char *const *alts, size_t n);

/* Returns 1 when every word of s occurs in source src's id, title or url
 * (folded), else 0. */
int dtk_search_source(const struct dtk_search *s, const struct dtk_source *src);

/* Notes kb's source titles and category names (before
 * dtk_search_file_may_match). */
void dtk_search_prepare(struct dtk_search *s, const struct dtk_kb *kb);

/* Returns 0 when the node file of bytes buf[0..len) cannot hold a match (a
 * word is neither in it nor in a source title), else 1. Thread-safe. */
int dtk_search_file_may_match(const struct dtk_search *s, const char *buf, size_t len);

/* Notes the entries of node (of kb) that hold every word. Thread-safe. With
 * keep (not NULL), the titles, claims, verified_by and relates of node's
 * entries are borrowed (they go when this returns): those of the entries
 * noted are copied into keep, unless the show hook made the entry's text
 * (hit->shown); the others' are set to "" and emptied. */
void dtk_search_node(struct dtk_search *s, const struct dtk_kb *kb, struct dtk_node *node,
                     struct dtk_arena *keep);

struct dtk_search_hit {
	const struct dtk_entry *e;
	unsigned title, claim; /* words found in the id or title, in the claim */
	unsigned exact;        /* words found as given (not as a word they take) */
	size_t order;          /* its place in listing order */
	dtk_date fresh;        /* dtk_entry_fresh(e) */
	/* the hit as it is shown, made by the show hook (NULL: none) */
	const char *shown;
	size_t shown_len;
};

/* Notes the entries of kb, a base loaded whole and kept (its nodes are not
 * changed), that hold every word: of node only when not NULL, else of every
 * node, on several threads. Calls dtk_search_prepare first. */
void dtk_search_base(struct dtk_search *s, const struct dtk_kb *kb, const char *node);

/*
 * A show hook: makes what hit shows, on the thread that loads its node, so
 * that showing the hits is done beside the loading (in parallel) rather than
 * after it. It may set hit->shown and hit->shown_len to bytes of arena
 * (which lives as long as kb), and must be thread-safe.
 */
typedef void (*dtk_search_show_fn)(void *arg, const struct dtk_kb *kb, struct dtk_search_hit *hit,
                                   struct dtk_arena *arena);
/* Sets the show hook of s: dtk_search_node calls fn for each entry it notes
 * (with its keep arena; never without one), once the entry's text is kept. */
void dtk_search_set_show(struct dtk_search *s, dtk_search_show_fn fn, void *arg);

/*
 * Returns the count of the entries noted by dtk_search_node and sets *out to
 * them (malloc'd, the caller frees; NULL when none), ranked: more words in
 * the title (or id) first, then more in the claim, then confidence (high
 * first), then freshness (newest first), then listing order (category order
 * of _domain.yaml, file order). Call once every node is noted and kb's nodes
 * have their categories.
 */
size_t dtk_search_hits(struct dtk_search_hit **out, struct dtk_search *s, const struct dtk_kb *kb);

#endif
