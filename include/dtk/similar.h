/*
 * similar.h: how alike a text is to the entries of a base, for the
 * duplicate check of dtk add, dtk similar and the review pairs of
 * crystallize --plan (docs/commands.md, "dtk similar").
 *
 * Texts are folded as search folds them (NFKC, case folding), then cut into
 * terms: each run of letters and digits outside East Asian scripts is a
 * word; a run of wide characters (Chinese, Japanese) gives its character
 * bigrams (a lone character: itself); punctuation and spaces only separate.
 * An entry is its title and claim. The score of an entry is its BM25 score
 * for the query's terms, the rarity of each term counted over the entries
 * compared, divided by the score the query would give itself (1 for the
 * same terms, 0 for none shared), and, for an entry longer than the query,
 * times the square root of the ratio of their lengths in terms. A small
 * glossary (similar_terms.c) makes the common words of the field one term in
 * Chinese and in English, and English words count as their stems as well.
 */
#ifndef DTK_SIMILAR_H
#define DTK_SIMILAR_H

#include "dtk/dtk.h"
#include "dtk/model.h"

#include <stdint.h>

/* The gate of dtk add (tuned on the tuning bases of tests/similar/ and
 * measured on the held-out ones: docs/similar.md). At or above SURE a new
 * entry is refused as a restatement of a live entry it does not name; at or
 * above LIKELY an entry shown beside a new one is marked a likely
 * restatement; the SHOWN closest are shown. */
#define DTK_SIMILAR_SURE 0.60
#define DTK_SIMILAR_LIKELY 0.10
#define DTK_SIMILAR_SHOWN 5

struct dtk_similar_hit {
	const struct dtk_entry *entry;
	double score; /* 0..1 */
	int same;     /* the same claim as the query's after folding, with
	               * punctuation and spaces left out */
	size_t order; /* the entry's place in listing order among those compared */
};

struct dtk_similar_query {
	const char *title; /* may be NULL */
	const char *claim; /* the text compared */
	const char *node;  /* only the entries of this node; NULL: all */
	const char *skip;  /* an entry id left out (NULL: none) */
	size_t limit;      /* at most this many hits; 0: no limit */
	double min_score;  /* hits scoring less left out (same claims never) */
};

/*
 * Appends the terms of node's entries to b, as the node cache keeps them
 * (a base loaded with DTK_KB_TERMS holds them: kb.h): for each entry, in
 * order, the count of its terms (32 bits), the hash of its claim as
 * compared for "same" (64 bits), then each term, 32 bits of its hash.
 * Returns 0, or -1 with the error set when a text is not UTF-8.
 */
int dtk_similar_pack(struct dtk_buf *b, const struct dtk_node *node);

/* Returns 1 when entry e takes part in comparisons (a live entry). */
int dtk_similar_live(const struct dtk_entry *e);

/*
 * Ranks the live entries of kb (full load: claims and titles kept; or loaded
 * with DTK_KB_TERMS, their terms then read from the node cache, or from its
 * index of terms for the nodes it holds) by their
 * score for q, best first (same claims first; ties in listing order); only
 * entries sharing a term with q. Sets *out to a malloc'd array the caller
 * frees and *n to its length. Returns 0, or -1 with the error set when q's
 * text is not UTF-8.
 */
int dtk_similar_rank(struct dtk_similar_hit **out, size_t *n, const struct dtk_kb *kb,
                     const struct dtk_similar_query *q);

enum dtk_similar_verdict {
	DTK_SIMILAR_NONE,   /* nothing scores LIKELY or more */
	DTK_SIMILAR_LIKELY_ONE, /* a hit scores LIKELY or more: shown, marked */
	DTK_SIMILAR_REFUSE  /* the same claim, or a hit not named scores SURE */
};

/* The gate's verdict on hits[0..n) (as dtk_similar_rank orders them): an
 * entry named in named[0..n_named) (--relates, --distinct-from) was looked at
 * and counts only for LIKELY; the same claim is refused whatever names it. */
enum dtk_similar_verdict dtk_similar_verdict(const struct dtk_similar_hit *hits, size_t n,
                                             const char *const *named, size_t n_named);

/*
 * The index of terms (docs/design.md, "The index of terms"): a file beside
 * the node cache, made by similar_index.c alone, that says for each node (by the
 * checksum of its packed form, nodecache.h) which live entries hold each
 * term and how often. A load with DTK_KB_TERMS opens it (the base it loads
 * owns it: kb->terms_index), and, with DTK_KB_INDEX, leaves the nodes it
 * holds as their summaries; a ranking of that base reads the postings of
 * the nodes it holds as they are (whole or summaries) from it.
 */
struct dtk_similar_index;

/* Opens the index of the base at root (a real path) made under the node
 * cache's key (dtk_nodecache_key). Returns it (dtk_similar_index_free), or
 * NULL when there is none that reads whole (nothing reported: an aid). */
struct dtk_similar_index *dtk_similar_index_open(const char *root, const uint64_t key[2]);
void dtk_similar_index_free(struct dtk_similar_index *ix);

/* Returns 1 when ix (may be NULL) holds node name as the packed node whose
 * checksum is sum, else 0. Safe from several threads at once. */
int dtk_similar_index_holds(const struct dtk_similar_index *ix, const char *name, uint64_t sum);

/*
 * The duplicate check of dtk add: ranks the live entries of kb (the base as
 * it will be written) against its entry id. Sets *out to the closest (at
 * most DTK_SIMILAR_SHOWN, malloc'd, the caller frees) and *n, and returns
 * their verdict (named as dtk_similar_verdict takes it), or -1 with the
 * error set. The nodes kb's index of terms holds are read from it (any
 * ranking of kb does so); then the index is written when kb was loaded
 * without one, or removed when more than an eighth of the nodes changed
 * since it was written.
 */
int dtk_similar_check(struct dtk_similar_hit **out, size_t *n, const struct dtk_kb *kb,
                      const char *id, const char *const *named, size_t n_named);

/* Returns entry id of kb as dtk_kb_entry does, also of a node the index of
 * terms holds (then unpacked: dtk_kb_node_whole), or NULL. */
const struct dtk_entry *dtk_similar_entry(const struct dtk_kb *kb, const char *id);

/*
 * The words a search for word w (folded as dtk_fold folds) also takes, as
 * the gate counts them alike: its English stem when shorter ("training":
 * "train"), and the other words of each glossary row (similar_terms.c, then
 * kb's _glossary.yaml: kb may be NULL) that names w or its stem, or whose
 * Chinese word w holds ("长上下文" holds "上下": "context"). Sets *out to
 * them, folded and malloc'd (dtk_strv_free), and returns their count.
 */
size_t dtk_similar_equivalents(char ***out, const struct dtk_kb *kb, const char *w);

#endif
