/*
 * cache.h: the plumbing of the node cache (nodecache.h) and of a base held
 * between requests (kb.h): where a base's cache lives, the checksum (of a
 * cache's text, and of its root for its name), the stat data that says a
 * file is as it was, and the write of a whole cache file by rename. A cache
 * is only an aid: nothing here reports an error, and a cache that cannot be
 * read or written is passed over.
 */
#ifndef DTK_CACHE_H
#define DTK_CACHE_H

#include "dtk/dtk.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* A file is trusted only when its mtime and ctime are older than the
 * cache's write time by more than this many seconds: a rewrite within one
 * timestamp tick (2 s on FAT, 1 s on many others) keeps them as they were
 * ("racily clean" in git's words). */
#define DTK_CACHE_GRAIN_S 2

#define DTK_CACHE_NS ((int64_t)1000000000)

/* A temporary cache file unchanged for this many seconds was left by a
 * writer that was killed: the next writer removes it. */
#define DTK_CACHE_STALE_S 600

/* The stat data a cache keeps of a file. */
struct dtk_cache_stat {
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
};

/*
 * Returns the malloc'd path of the cache named kind ("nodes") of
 * the base whose real root path is root (the caller frees), or NULL when
 * there is none: DTK_NO_CACHE is set (not empty, not "0"), or there is no
 * place for it. The place: dtk/ in the git directory of the repository
 * holding root (GIT_DIR when set; a .git file's gitdir when that names
 * this work tree back: a linked worktree, a submodule, core.worktree),
 * else $XDG_CACHE_HOME/dtk (~/.cache/dtk); the name: kind-<dtk_cache_sum of root>.
 */
char *dtk_cache_path(const char *root, const char *kind);

/* Returns the git directory of the repository holding root (malloc'd; the
 * caller frees) as dtk_cache_path takes it, or NULL when there is none. */
char *dtk_cache_git_dir(const char *root);

/* Returns a checksum of buf[0..len), 32 bytes at a step in four lanes (what
 * catches a torn or corrupt cache: any change of its bytes changes it). */
uint64_t dtk_cache_sum(const char *buf, size_t len);

/* Sets *out from st. */
void dtk_cache_stat_of(struct dtk_cache_stat *out, const struct stat *st);

/* Returns 1 when st is the stat data r recorded and both of its times are
 * older than stamp (ns since the epoch) by more than DTK_CACHE_GRAIN_S. */
int dtk_cache_trusted(const struct dtk_cache_stat *r, const struct stat *st, int64_t stamp);

/*
 * The text of a cache file, as both caches write it: a line "time <s> <ns>"
 * (when it was made), records of a node file each (its name, its stat data
 * as "dev ino size mtime ctime" and what the cache keeps of it), and a last
 * line "end <count> <checksum of every byte before it>".
 */
/* Reads a decimal number at *p and advances *p past its digits. Returns 0,
 * or -1 when *p holds no digit or the number overflows. */
int dtk_cache_num(const char **p, uint64_t *out);
/* Appends s as "dev ino size mtime ctime" to b. */
void dtk_cache_stat_put(struct dtk_buf *b, const struct dtk_cache_stat *s);
/* Reads stat data as dtk_cache_stat_put writes it, and the space after it,
 * at *p, advancing *p past them. Returns 0, or -1 when they do not read so. */
int dtk_cache_stat_read(const char **p, struct dtk_cache_stat *s);
/* Appends the line "time <s> <ns>" of now (ns since the epoch) to b. */
void dtk_cache_time_put(struct dtk_buf *b, int64_t now);
/* Reads the time line at p, and sets *stamp to the cache's write time: the
 * earlier of that time and st's mtime (st: the cache file's). Returns the
 * start of the next line, or NULL when p does not hold one. */
char *dtk_cache_time_read(char *p, const struct stat *st, int64_t *stamp);
/* Appends the end line, for n records, to b (its checksum: of b's bytes). */
void dtk_cache_end_put(struct dtk_buf *b, uint64_t n);
/* Checks that text[0..len) ends with the end line as dtk_cache_end_put
 * writes it, and holds no NUL. Returns the start of that line, cut from
 * text by NULs (text is a string of what comes before it), and sets *n;
 * returns NULL when it does not end so. */
char *dtk_cache_end_check(char *text, size_t len, uint64_t *n);

/* Returns the time now, ns since the epoch. */
int64_t dtk_cache_now(void);

/*
 * Opens a new temporary file beside path (making path's directory when
 * missing, removing the temporary files of path left for
 * DTK_CACHE_STALE_S) for a cache to be written. Returns its descriptor and
 * sets *tmp to its malloc'd name (the caller frees), or returns -1 (*tmp NULL).
 */
int dtk_cache_create(const char *path, char **tmp);

/* Writes buf[0..len) to fd whole. Returns 0 or -1. */
int dtk_cache_write(int fd, const void *buf, size_t len);

/* Closes fd and, when ok, renames tmp over path; else, or when that fails,
 * removes tmp. Frees tmp. Returns 0 when path was replaced, else -1. */
int dtk_cache_commit(int fd, char *tmp, const char *path, int ok);

#endif
