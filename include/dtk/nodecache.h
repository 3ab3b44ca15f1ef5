/*
 * nodecache.h: the node cache every command reads. For each node file that
 * loaded with no error it keeps the file's stat data and the node as the
 * schema made it (entries, their texts, references and positions), packed,
 * so that a load reads the packed node of a file that has not changed
 * instead of parsing the file again. docs/design.md, "The node cache", says why each
 * rule is there.
 *
 * A record may also hold the terms of the node's entries (similar.h's
 * dtk_similar_pack): added by a load that needs them (the duplicate check of
 * dtk add), kept while the file does not change.
 *
 * A record also names the nodes the node's entries name (its links), so
 * that dtk show reads only the node files that name the node it shows.
 *
 * The file: a head of 64 bytes ("dtk node cache 6\n", "index <offset>
 * <length>", padded), the packed nodes and terms, then the index: root,
 * build, time, "key <hex> <hex>" (dtk_nodecache_key), one line per node file (name, stat data,
 * offset, length and checksum of its packed node, length and checksum of its head, offset, length
 * and checksum of its summary, then of its terms or "0 0 0", then 1 when its bytes are clean
 * (struct dtk_node's clean) else 0, then its links or
 * "-"), and "end <count> <checksum of the index>".
 */
#ifndef DTK_NODECACHE_H
#define DTK_NODECACHE_H

#include "dtk/dtk.h"
#include "dtk/model.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct dtk_nodecache;

/*
 * Opens the cache at path (dtk_cache_path(root, "nodes")) for the base at
 * root, noting the time now (before any file of the base is looked at). A
 * cache that cannot be read, or is of another version, build or base,
 * truncated or corrupt, is left unused without an error. Returns the handle
 * (dtk_nodecache_free); never NULL.
 */
struct dtk_nodecache *dtk_nodecache_open(const char *path, const char *root);
void dtk_nodecache_free(struct dtk_nodecache *c);

/*
 * Looks up node file name (its stat data st, not following a link): when
 * the cache holds it, st is what it recorded and both times are older than
 * the cache by more than DTK_CACHE_GRAIN_S, the record is kept for the next
 * save and, when blob is not NULL, its packed node is read into *blob
 * (malloc'd, NUL-terminated; the caller frees) and *len. Returns 0 then,
 * else -1 (a record that cannot be read whole and as written is dropped).
 * Safe from several threads at once.
 */
int dtk_nodecache_get(struct dtk_nodecache *c, const char *name, const struct stat *st, char **blob,
                      size_t *len);
/* dtk_nodecache_get, reading only the head of the packed node (what
 * DTK_NODECACHE_LEAN unpacks: no claim, no reason of retraction). */
int dtk_nodecache_get_head(struct dtk_nodecache *c, const char *name, const struct stat *st,
                           char **blob, size_t *len);

/* dtk_nodecache_get, reading the summary of the node (nodesum.h) in place
 * of the packed node, into arena (*blob, NUL-terminated). */
int dtk_nodecache_get_summary(struct dtk_nodecache *c, const char *name, const struct stat *st,
                              struct dtk_arena *arena, const char **blob, size_t *len);

/* Where bytes of the cache file read are: offset, length, checksum. */
struct dtk_nodecache_ref {
	uint64_t off, len, sum;
};

/*
 * After dtk_nodecache_get found node file name: sets *node to where its
 * packed node is in the cache file read, and *terms to where its terms are
 * (terms->len 0: the record has none). Returns 0, or -1 when name was not
 * found so.
 */
int dtk_nodecache_refs(struct dtk_nodecache *c, const char *name, struct dtk_nodecache_ref *node,
                       struct dtk_nodecache_ref *terms);

/* Reads the bytes ref names, from the cache file read (it stays open until
 * dtk_nodecache_free, also after a save), into b (its contents replaced,
 * NUL-terminated). Returns 0, or -1 when they cannot be read whole and as
 * written. Safe from several threads at once. */
int dtk_nodecache_read(struct dtk_nodecache *c, const struct dtk_nodecache_ref *ref,
                       struct dtk_buf *b);

/* Sets key to the cache's key, under which its summaries hash the sources
 * they name (model.h's source_key): its own, made at random with the file. */
void dtk_nodecache_key(const struct dtk_nodecache *c, uint64_t key[2]);

/* Adds the record of node file name: st, its stat data taken before it was
 * read, blob[0..len), its packed node, summary, its summary (nodesum.h;
 * a record without one is not added), terms[0..terms_len), the terms of
 * its entries (NULL: none), written to the new cache file at once, not kept
 * in memory, links, the nodes its entries name (dtk_nodecache_links_of),
 * and clean, 1 when its bytes are clean (struct dtk_node's clean). Safe
 * from several threads at once. */
void dtk_nodecache_put(struct dtk_nodecache *c, const char *name, const struct stat *st,
                       const char *blob, size_t len, const struct dtk_buf *summary,
                       const char *terms, size_t terms_len, const char *links, int clean);

/* After dtk_nodecache_get found node file name: returns 1 when its record
 * says its bytes are clean, else 0. */
int dtk_nodecache_clean(struct dtk_nodecache *c, const char *name);

/* Appends to b the links of node: the names of the other nodes whose
 * entries its entries name (relates, contradicts, superseded_by), sorted,
 * each once, joined by ','; nothing when none. */
void dtk_nodecache_links_of(struct dtk_buf *b, const struct dtk_node *node);

/* After dtk_nodecache_get found node file name: returns its links (as
 * dtk_nodecache_links_of makes them, owned by c), or NULL when name was not
 * found so. */
const char *dtk_nodecache_links(struct dtk_nodecache *c, const char *name);

/* Returns 1 when links (dtk_nodecache_links_of's) name node, else 0. */
int dtk_nodecache_links_has(const char *links, const char *node);

/* Adds terms[0..len), the terms of its entries, to the record of node file
 * name that dtk_nodecache_get found. Safe from several threads at once. */
void dtk_nodecache_put_terms(struct dtk_nodecache *c, const char *name, const char *terms,
                             size_t len);

/*
 * Writes the cache (the records kept by dtk_nodecache_get and those added)
 * and renames it over the old one, unless nothing changed. Returns 0 when
 * written or unchanged, -1 when not written (nothing is reported: the cache
 * is only an aid). Called once, after every look-up.
 */
int dtk_nodecache_save(struct dtk_nodecache *c);

/* Appends node, as the schema made it, packed, to b: its head (its
 * length first, as a uint32_t, then all but the entries' long texts), then
 * its tail (each entry's claim and reason of retraction), which a lean
 * load does not read. */
void dtk_nodecache_pack(struct dtk_buf *b, const struct dtk_node *node);

/* Returns the length of the head of the packed node blob[0..len) (its
 * first four bytes, read as dtk_nodecache_pack wrote them), or 0 when they
 * cannot be one. */
uint32_t dtk_nodecache_head_len(const char *blob, size_t len);

/* Flags of dtk_nodecache_unpack. */
enum {
	/* the titles, claims and relates ids point into the blob, the
	 * verified_by and relates lists are in scratch (as DTK_SCHEMA_BORROW
	 * leaves them) */
	DTK_NODECACHE_BORROW = 1,
	/* the node as a lean parse makes it (DTK_SCHEMA_LEAN): nothing points
	 * into the blob or scratch */
	DTK_NODECACHE_LEAN = 2,
	/* with DTK_NODECACHE_LEAN: every title kept (not only candidates') */
	DTK_NODECACHE_TITLES = 4
};

/*
 * Unpacks blob[0..len) (followed by a NUL) into *out (blob may be a head
 * alone, with DTK_NODECACHE_LEAN: claims and reasons are then "" where the
 * entries have them): the node and its
 * entries in arena, the strings copied into arena, except as flags say. name and path are the
 * node's; kb gives the sources the ids name (their own strings), and named, when not NULL, gets
 * their bits as dtk_schema_node sets them. The checks of a node file that read other files are made
 * again: every source named is in kb (when its sources loaded), and a high entry has the
 * verifications kb's policy asks. Returns 0, or -1 when blob is not a packed node or fails those
 * checks (*out NULL).
 */
/* Makes node, unpacked with DTK_NODECACHE_BORROW, what DTK_NODECACHE_LEAN
 * makes of it (flags: DTK_NODECACHE_TITLES or 0): claims and texts not kept
 * (titles only of candidates, resolved contradictions' notes dropped),
 * verifications counted, only the relations that leave the node or name a
 * retired entry kept, copied into arena; then its linking entries again. */
void dtk_nodecache_lean(const struct dtk_kb *kb, struct dtk_arena *arena, struct dtk_node *node,
                        unsigned flags);

int dtk_nodecache_unpack(struct dtk_node **out, const struct dtk_kb *kb, struct dtk_arena *arena,
                         struct dtk_arena *scratch, const char *blob, size_t len, const char *name,
                         const char *path, unsigned flags, unsigned char *named);

#endif
