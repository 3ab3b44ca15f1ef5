/*
 * nodesum.h: a node's summary, what INDEX.md and the checks across files
 * need of a node file: its counts, its live high entries, its candidates,
 * its entry ids, its open contradictions and the references that leave it.
 * A load of the whole base gives every node one (dtk_node's sum), made
 * from the node parsed or kept by the node cache beside its packed node,
 * so that a base whose files did not change is checked and indexed without
 * unpacking a single entry (docs/design.md, "Node summaries").
 *
 * Packed (pack.h), then read in place: the summary's strings point into
 * its packed bytes, which must outlive it.
 */
#ifndef DTK_NODESUM_H
#define DTK_NODESUM_H

#include "dtk/dtk.h"
#include "dtk/model.h"

#include <stddef.h>
#include <stdint.h>

/* What a reference of an entry to another is (dtk_sum_ref's kind). */
enum { DTK_SUM_RELATES, DTK_SUM_CONTRADICTS, DTK_SUM_SUPERSEDED_BY };

/* An open contradiction, as the entry id declares it. */
struct dtk_sum_open {
	const char *id, *other, *note; /* note may be NULL */
	uint32_t index;                /* id's place in its file, from 0 */
};

/* A reference of entry from to entry id, where it was written: every one
 * that leaves the node, and each relation to a retired entry of the node. */
struct dtk_sum_ref {
	const char *from, *id;
	struct dtk_pos pos;
	int kind;         /* DTK_SUM_* */
	int from_retired; /* from is superseded or retracted */
};

/* An entry of a node, as dtk_nodesum_find gives it: retired or not. */
struct dtk_sum_entry {
	const char *superseded_by; /* NULL unless superseded */
	int retracted;
	int used, cited; /* its used, cited in the node file are > 0 */
};

struct dtk_node_sum {
	/* the verifications a high entry needs (the policy) and the language
	 * of INDEX.md (lang_en) it was made with: its candidates are those one
	 * short of them, in that language's words */
	int k, lang_en;
	enum dtk_bloom bloom;
	const char *stance; /* NULL when none */
	struct dtk_pos name_pos;
	/* entries; live ones (not retired) and, of those, how many are high,
	 * used, cited and closed */
	size_t n_entries, live, high, used, cited, closed;
	dtk_date earliest; /* the oldest freshness of a live entry; 0: none */
	dtk_date latest;   /* the latest created or reviewed of any entry */
	unsigned min_high; /* the fewest verifications of a high entry */
	/* the live high entries' ids (high of them), packed, read with
	 * dtk_nodesum_str in order */
	const char *highs;
	/* the sources the entries name, each once, by their places in
	 * _sources.yaml (dtk_nodesum_source), valid while the ids of its first
	 * sources_upto sources hash to sources_hash (dtk_nodesum_sources_hold) */
	const char *sources;
	size_t n_sources;
	uint32_t sources_upto;
	uint64_t sources_hash;
	/* the candidates: how many, and (NULL when not made) their text in
	 * INDEX.md rendered (dtk_nodesum_candidates; markdown.h's run) */
	size_t n_cands;
	const char *run;
	size_t run_len;
	const struct dtk_sum_open *opens; /* in file order */
	size_t n_opens;
	const struct dtk_sum_ref *refs; /* in file order */
	size_t n_refs;
	/* n_ids offsets of its entries sorted by id, each its id past the
	 * node's name and '-', a byte of flags and, when superseded, the id
	 * of the entry that superseded it (dtk_nodesum_find) */
	const char *ids;
	size_t n_ids;
	const char *blob; /* the packed bytes */
	size_t len;
};

/* What dtk_nodesum_pack adds to a summary (flags): the candidates' text
 * rendered (run), and the sources the entries name, for a summary the node
 * cache keeps (without, the summary never holds: the loader set their bits
 * as it read the node). */
enum { DTK_NODESUM_RUN = 1, DTK_NODESUM_SOURCES = 2 };

/* Appends the summary of node to b, made for kb (its policy, the language
 * of its INDEX.md and its sources), with what flags add. node is as the
 * schema or the node cache made it, lean or not, with its entries indexed
 * by id; the sources of a lean node (its verifications counted only) or one
 * that names a source kb lacks are not kept: the summary then never holds
 * (dtk_nodesum_sources_hold). */
void dtk_nodesum_pack(struct dtk_buf *b, const struct dtk_node *node, const struct dtk_kb *kb,
                      unsigned flags);

/* Returns 1 when the sources s names are kb's as they were when it was
 * made (its places name the same ids), else 0. */
int dtk_nodesum_sources_hold(const struct dtk_node_sum *s, const struct dtk_kb *kb);

/* Returns the place in _sources.yaml of the ith source s names. */
uint32_t dtk_nodesum_source(const struct dtk_node_sum *s, size_t i);

struct dtk_md;
/* Adds the candidates of node (dtk_entry_is_candidate) at md's cursor as
 * INDEX.md of kb lists them, in the words of its language. */
void dtk_nodesum_candidates(struct dtk_md *md, const struct dtk_node *node,
                            const struct dtk_kb *kb);

/* Reads the packed summary blob[0..len) (kept by the caller while the
 * summary is used) into a summary in arena. Returns it, or NULL when blob
 * is not a summary dtk_nodesum_pack wrote. */
const struct dtk_node_sum *dtk_nodesum_read(struct dtk_arena *arena, const char *blob, size_t len);

/* Returns the string at *p in a packed list of a summary and moves *p to
 * the next one. This and the other look-ups check nothing: they read only
 * a summary dtk_nodesum_read checked whole. */
const char *dtk_nodesum_str(const char **p);

/* Finds the entry whose id is the node's name, '-' and suffix among s's.
 * Returns 1 and fills *e, or 0. */
int dtk_nodesum_find(const struct dtk_node_sum *s, const char *suffix, struct dtk_sum_entry *e);

/* Returns the open contradiction id declares with other, or NULL. */
const struct dtk_sum_open *dtk_nodesum_open(const struct dtk_node_sum *s, const char *id,
                                            const char *other);

/* Finds the entry id of kb (of the node its prefix names, by that node's
 * summary). Returns the node and fills *e, or NULL. */
const struct dtk_node *dtk_kb_sum_entry(const struct dtk_kb *kb, const char *id,
                                        struct dtk_sum_entry *e);

#endif
