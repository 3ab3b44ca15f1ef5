/*
 * linkcache.h: the links cache of dtk show. For each node file of a base it
 * keeps the file's stat data and the node names its bytes may link to, so
 * that show reads only the files that may name the node it shows (and the
 * files changed since), not every node file. docs/design.md, "The links
 * cache", says why each rule below is there.
 *
 * A file's "list" holds the node prefixes of every word of its bytes that
 * reads as "<prefix>-<digits>" (a run of a-z, 0-9 and '-'): a superset of the
 * nodes its relates and contradicts name. It is kept as the prefixes' 32-bit
 * keys, 8 hex digits each, sorted, joined by spaces. "*" stands for every
 * node (bytes whose values YAML may spell otherwise: an escape, a NUL,
 * UTF-16).
 */
#ifndef DTK_LINKCACHE_H
#define DTK_LINKCACHE_H

#include "dtk/cache.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* An entry is trusted only when its file's mtime and ctime are older than
 * the cache's write time by more than this many seconds (cache.h). */
#define DTK_LINKCACHE_GRAIN_S DTK_CACHE_GRAIN_S

/* One node file as the cache holds it. */
struct dtk_linkcache_rec {
	const char *name; /* "<node>.yaml" */
	struct dtk_cache_stat st;
	const char *list; /* keys "k1 k2 ...", "" or "*" */
	size_t list_len;  /* strlen(list), when read from the cache */
};

struct dtk_linkcache;

/*
 * Returns the malloc'd path of the cache of the base whose real root path is
 * root (the caller frees), or NULL when there is none: DTK_NO_CACHE is set
 * (not empty, not "0"), or there is no place for it. The place: dtk/ in the
 * git directory of the repository holding root (GIT_DIR when set; a .git
 * file's gitdir, as in a worktree), else $XDG_CACHE_HOME/dtk (~/.cache/dtk).
 */
char *dtk_linkcache_path(const char *root);

/*
 * Opens the cache at path for the base at root, noting the time now (before
 * any file of the base is looked at). A cache that cannot be read, or is of
 * another version, another base, truncated or corrupt, is left unused
 * without an error. Returns the handle (dtk_linkcache_free); never NULL.
 */
struct dtk_linkcache *dtk_linkcache_open(const char *path, const char *root);
void dtk_linkcache_free(struct dtk_linkcache *c);

/* Returns the number of entries read from the file (0 when none was used). */
size_t dtk_linkcache_count(const struct dtk_linkcache *c);

/*
 * Returns the list the cache holds for node file name when st is the file's
 * stat data as the cache recorded it and the entry is older than the cache
 * by more than DTK_LINKCACHE_GRAIN_S, and sets *len to its length; else
 * NULL. The string lives as long as c. Safe from several threads at once.
 */
const char *dtk_linkcache_get(const struct dtk_linkcache *c, const char *name,
                              const struct stat *st, size_t *len);

/* Returns the list of the bytes buf[0..len), malloc'd (the caller frees). */
char *dtk_linkcache_scan(const char *buf, size_t len);

/* Writes node's key as lists hold it (8 hex digits and a NUL). */
void dtk_linkcache_key(char key[9], const char *node);
/* Returns 1 when list (len bytes) holds key (or is "*"). */
int dtk_linkcache_has(const char *list, size_t len, const char *key);
/* Returns 1 when list holds node (or is "*"). */
int dtk_linkcache_names(const char *list, const char *node);

/*
 * Writes the cache of the base with the n records recs (sorted by name,
 * listed in the given order otherwise) to a temporary file beside the cache
 * and renames it over it, unless they are exactly what was read. Makes the
 * cache's directory when missing. Returns 0 when written or unchanged, -1
 * when not written (nothing is reported: the cache is only an aid).
 */
int dtk_linkcache_save(struct dtk_linkcache *c, const struct dtk_linkcache_rec *recs, size_t n);

#endif
