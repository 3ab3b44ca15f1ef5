/*
 * schema.h (internal): the per-file schema of the knowledge base. Each
 * function checks one parsed file against the spec, adds every problem to
 * diags and fills the model in kb (strings copied into kb's arena). Checks
 * that need other files (references) are kb.c's.
 */
#ifndef DTK_SCHEMA_H
#define DTK_SCHEMA_H

#include "dtk/model.h"
#include "dtk/ytree.h"

void dtk_schema_domain(struct dtk_kb *kb, const struct dtk_yval *root, const char *path,
                       struct dtk_diags *diags);
/* Checks that root, the tree of _sources.yaml, is a list of sources (its
 * items are checked one by one as they are parsed, dtk_schema_source).
 * Returns 1 when it is, else 0 after a diagnostic. */
int dtk_schema_sources(struct dtk_kb *kb, const struct dtk_yval *root, const char *path,
                       struct dtk_diags *diags);
/* Checks one item v of _sources.yaml into *s, its strings in arena (kb is
 * only read: several threads may check items at once, each with an arena of
 * its own); flags DTK_SCHEMA_LEAN: titles and urls are checked but not kept
 * (INDEX.md shows none). Returns 1 when *s is a source (it has an id),
 * else 0. */
int dtk_schema_source(const struct dtk_kb *kb, struct dtk_arena *arena, const struct dtk_yval *v,
                      const char *path, unsigned flags, struct dtk_source *s,
                      struct dtk_diags *diags);
/* Fills kb->records, allocating in arena (so that a worker thread can). */
void dtk_schema_records(struct dtk_kb *kb, struct dtk_arena *arena, const struct dtk_yval *root,
                        const char *path, struct dtk_diags *diags);
/* Fills kb->glossary from _glossary.yaml, allocating in arena. */
void dtk_schema_glossary(struct dtk_kb *kb, struct dtk_arena *arena, const struct dtk_yval *root,
                         const char *path, struct dtk_diags *diags);
/* Reads a review file (cross_pairs, verdict, note) into r's review fields. */
void dtk_schema_review_file(struct dtk_kb *kb, const struct dtk_yval *root, const char *path,
                            struct dtk_record *r, struct dtk_diags *diags);
/* One use of an entry recorded in a file of insights/_uses/ (docs/schema.md,
 * "Counts"): it adds 1 to the entry's used, or cited. */
struct dtk_use {
	const char *id;
	const char *rec;    /* the record's name: its file's, or its key in a fold */
	struct dtk_pos pos; /* where the id is written */
	int cited;          /* 0: used, 1: cited */
};
/* Checks root, the tree of a file of insights/_uses/ (path): a record, or
 * a fold of records (a name DTK_USES_FOLD...: a mapping of record names to
 * records), and sets *out to its uses (in arena, in file order). Returns
 * their count (0 after the diagnostics of a record that holds none). */
size_t dtk_schema_uses(struct dtk_arena *arena, const struct dtk_yval *root, const char *path,
                       struct dtk_use **out, struct dtk_diags *diags);
/* Flags of dtk_schema_node. */
/* Check claims but do not keep their text, nor the relations between
 * entries of the node (only those that leave it, for the loader to check). */
#define DTK_SCHEMA_LEAN 1u
/* Entries' titles and claims, their verified_by and relates lists (and the
 * ids in relates) point into root's tree and scratch instead of copies: they
 * live as long as those arenas do (the caller copies what it keeps). */
#define DTK_SCHEMA_BORROW 2u

/* The largest count the schema takes (used, cited, a record's counts, a
 * review's pairs and their sum): nine digits, so that no sum dtk makes of
 * them (a review's pairs, plus its cross pairs) can overflow a long. */
#define DTK_MAX_COUNT 999999999L

/* Returns the node (allocated in arena), or NULL when its file is unusable.
 * scratch holds what a lean read checks but does not keep; it must live
 * until the call returns (root's arena will do). named, when not NULL, gets
 * the bit of each kb->sources[i] the entries name. kb is only read (its
 * policy), so several threads may call this at once, each with its own
 * arenas, bitmap and diags. */
struct dtk_node *dtk_schema_node(const struct dtk_kb *kb, struct dtk_arena *arena,
                                 struct dtk_arena *scratch, const struct dtk_yval *root,
                                 const char *path, const char *name, unsigned flags,
                                 unsigned char *named, struct dtk_diags *diags);

/* Fills node->by_id and node->linking (in arena) from its entries, as
 * dtk_schema_node does. Returns 0, or -1 when two entries share an id. */
int dtk_schema_index_node(struct dtk_arena *arena, struct dtk_node *node);

#endif
