/*
 * similar_int.h: what the files of the similar module share (similar.c
 * cuts terms and ranks; similar_terms.c is its glossary; similar_index.c is
 * the index of terms, whose file similar.c's ranking reads as it is mapped
 * here). Internal to them.
 */
#ifndef DTK_SIMILAR_INT_H
#define DTK_SIMILAR_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

struct dtk_kb;
struct dtk_node;

/* The glossary: rows of a Chinese word of two characters and up to three
 * English words meaning the same (NULL after the last); a row of NULLs ends
 * it. */
extern const char *const dtk_similar_glossary[][4];

/* Returns the 32 bits at p (any alignment). */
static inline uint32_t S_u32_at(const char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Reads the next entry of the packed terms s[0..len) at *at: sets *v to
 * its terms (*n of them, 32 bits each, in s) and *same. Returns 0, or -1
 * when s ends first. */
int dtk_similar_unpack_entry(const char *s, size_t len, size_t *at, const char **v, size_t *n,
                             uint64_t *same);

/* ---- the index of terms (similar_index.c) ---- */

/*
 * The file (dtk_cache_path(root, "terms")), in native byte order: a head;
 * the nodes, by name (each the checksum of its packed node, the live
 * entries it holds and their terms in all); those live entries, node after
 * node in file order (each its claim's hash and its count of terms); the
 * terms, sorted (each its count of entries and where its postings are, with
 * their checksum); the nodes' names; then the postings, term after term,
 * each entry of a term as a varint of twice the step from the last entry
 * (plus 1 when its count is over 1: that count then follows, a varint).
 * The head's checksum covers all but the postings, whose checksums are in
 * their terms: a query checks what it reads.
 */
struct ix_head {
	char magic[8];
	uint64_t key[2]; /* the node cache's (dtk_nodecache_key) */
	uint32_t n_nodes, n_ents, n_terms, names_len;
	uint64_t posts_len, sum;
};
struct ix_node {
	uint64_t key, live_len;
	uint32_t first, n, name, pad;
};
struct ix_ent {
	uint64_t same;
	uint32_t len, pad;
};
struct ix_term {
	uint32_t term, n, off, sum;
};

struct dtk_similar_index {
	char *path;
	void *map;
	size_t size;
	dev_t dev; /* the file mapped, which path may no longer name */
	ino_t ino;
	struct ix_head h;
	const struct ix_node *nodes;
	const struct ix_ent *ents;
	const struct ix_term *terms;
	const char *names;
	const unsigned char *posts;
};

/* What a query gathers from the index of terms: per distinct term of the
 * query, the docs holding it (by the raw terms its glossary maps to it, or
 * itself) and how often. */
struct ix_post {
	uint32_t doc, tf, ent;
};
struct ix_gather {
	uint32_t *tf;         /* per doc: its count for the term gathered now */
	struct ix_post *post; /* term after term */
	size_t n_post, cap_post;
	size_t *from; /* per term: where its postings start in post; [n]: the end */
};

/* Returns the node of kb's index that holds node (held: dtk_kb_node_held;
 * whole, its count of live entries the index's), or NULL. */
const struct ix_node *dtk_similar_index_held(const struct dtk_kb *kb, const struct dtk_node *node);

/* Adds to g the postings in ix of raw term r, of the docs dn numbers
 * (UINT32_MAX: none): a doc met first appended, its count added. Returns
 * 0, or -1 when they do not read as written. */
int dtk_similar_index_term(struct ix_gather *g, const struct dtk_similar_index *ix,
                           const uint32_t *dn, uint32_t r);

/* After a check: writes kb's index of terms when it was loaded without one
 * (and with the node cache) and has every node's terms, unless another
 * process wrote one since; removes it when more than an eighth of the nodes
 * changed since it was written (it does not hold them), so that the next check
 * loads every node's terms and writes it again. Nothing is reported: the
 * index is an aid. */
void dtk_similar_index_keep(const struct dtk_kb *kb);

/* Removes ix's file when its path still names the file ix mapped (not one
 * another process has written since). */
void dtk_similar_index_drop(const struct dtk_similar_index *ix);

#endif
