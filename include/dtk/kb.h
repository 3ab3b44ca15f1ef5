/*
 * kb.h: finding, loading and validating a knowledge base.
 */
#ifndef DTK_KB_H
#define DTK_KB_H

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/model.h"

/* The folder of insights/ that holds the records of uses, one file per
 * 'dtk use' or 'dtk cite' (docs/schema.md, "Counts"): not a node. */
#define DTK_USES_DIR "_uses"

/* Writes to buf (at least 48 bytes) the name of a new file of DTK_USES_DIR,
 * "_uses/<prefix><date>-<10 random letters and digits>.yaml": no two
 * writers ever make the same. Returns 0, or -1 with the error set. */
int dtk_kb_uses_name(char *buf, size_t size, const char *prefix, dtk_date date);

/* What dtk_kb_load reads (flags). */
enum {
	DTK_KB_ALL = 0,      /* every file, with every cross-file check */
	DTK_KB_ONE_NODE = 1, /* _domain, _sources and one node file (show) */
	DTK_KB_LEAN = 2,     /* check claims but do not keep their text (entry->claim "") */
	/* with DTK_KB_ONE_NODE: also the other node files that name an entry
	 * of the node (found by a scan of their bytes for "<node>-") and those
	 * its entries name: for backlinks and titles. Errors in those files
	 * leave them out and are not reported. */
	DTK_KB_LINKED = 4,
	/* also the terms of each node's entries (similar.h, dtk_kb_node_terms),
	 * for the duplicate check: the node cache's when its record has them,
	 * else cut from the texts and added to the record; with DTK_KB_LEAN,
	 * every title kept */
	DTK_KB_TERMS = 8,
	/* what INDEX.md and the checks across files need (with DTK_KB_LEAN): a
	 * node file the node cache holds as it is comes as its summary alone,
	 * no entry unpacked (node->n_entries 0; node->sum, which every node of
	 * a whole load has, says what they hold), unless an entry's date is
	 * after today; with DTK_KB_TERMS, only a node the index of terms
	 * (similar.h) holds as it is, the others whole with their terms */
	DTK_KB_INDEX = 16,
	/* no node cache read or written: a scratch base, removed once read
	 * (crystallize's copy of the previous run's), would leave a cache file
	 * of its own that nothing reads again */
	DTK_KB_NO_CACHE = 32
};

/*
 * Finds the knowledge base root: start_dir or the nearest parent of it that
 * holds insights/_domain.yaml. Returns a malloc'd absolute path the caller
 * frees, or NULL with the error set.
 */
char *dtk_kb_find_root(const char *start_dir);

void dtk_kb_free(struct dtk_kb *kb);

/*
 * The terms of node's entries (dtk_similar_pack's form) in a base loaded
 * with DTK_KB_TERMS: sets *p to them, len bytes, in memory of the base or
 * read into b (the caller's, released by it). Terms the node cache cannot
 * give whole and as written are cut again from the node it packed. Returns
 * 0, or -1 with the error set (node has no terms, or neither can be read).
 */
int dtk_kb_node_terms(const struct dtk_kb *kb, const struct dtk_node *node, struct dtk_buf *b,
                      const char **p, size_t *len);

/* Returns the checksum of node's packed form (dtk_nodecache_pack), as the
 * load that gave it its terms saw it, or 0 when it has none. */
uint64_t dtk_kb_node_key(const struct dtk_node *node);

/* Returns 1 when node came as its summary alone because the index of terms
 * holds it (DTK_KB_TERMS with DTK_KB_INDEX), else 0. */
int dtk_kb_node_held(const struct dtk_node *node);

/* For a node dtk_kb_node_held says is held: sets *out to it whole (its
 * entries with their texts), unpacked from the node cache into kb's arena
 * (it lives as long as kb). Returns 0, or -1 with the error set. */
int dtk_kb_node_whole(const struct dtk_kb *kb, const struct dtk_node *node,
                      const struct dtk_node **out);

/* Which node files a filtered load (dtk_kb_load_opts.filter) parses. */
struct dtk_kb_filter {
	/* Called once, when _domain.yaml and _sources.yaml are read (may be NULL). */
	void (*prepare)(void *arg, const struct dtk_kb *kb);
	/* Returns 1 to parse the node file of node whose bytes are buf[0..len);
	 * called from several threads at once. buf is NULL when the node comes
	 * from the node cache of a borrowing filter (nodecache.h), unread:
	 * returns 1 to take it. */
	int (*keep)(void *arg, const char *node, const char *buf, size_t len);
	/* Called with each node parsed (may be NULL), from several threads at
	 * once; node->category is not set yet. With borrow, the titles,
	 * claims, verified_by and relates of node's entries point into the
	 * parse of the file, freed when loaded returns: loaded copies those it
	 * keeps into arena (the calling thread's, part of the base's) and clears
	 * the others. */
	void (*loaded)(void *arg, const struct dtk_kb *kb, struct dtk_node *node,
	               struct dtk_arena *arena);
	void *arg;
	int borrow;
};

/* What dtk_kb_load loads. */
struct dtk_kb_load_opts {
	const char *root; /* the base's root; NULL: files are the whole of insights/ */
	int what;         /* DTK_KB_ flags */
	const char *node; /* with DTK_KB_ONE_NODE: the node file to read */
	/* Files held in memory (they must outlive the call only): with root,
	 * they stand in for the files of insights/ of the same names, or are
	 * added when there is none (the base as it will be once they are
	 * written); without, they are insights/. Either way DTK_KB_ONE_NODE is
	 * ignored: every file, every check. */
	const struct dtk_memfile *files;
	size_t n_files;
	/* When set, only _domain.yaml, _sources.yaml and the node files it
	 * keeps, with the checks of each file but none across files
	 * (node->category is set; kb->nodes are sorted by name). */
	const struct dtk_kb_filter *filter;
};

/*
 * Loads the base o describes. Returns 0 and sets *out (free with
 * dtk_kb_free); DTK_EINVALID after adding every error of the input to diags
 * (sorted); or -1 with the error set when the base cannot be read at all.
 */
int dtk_kb_load(struct dtk_kb **out, const struct dtk_kb_load_opts *o, struct dtk_diags *diags);

/*
 * A base held by a long-lived process (dtk mcp) between its requests, and
 * loaded again only when a file of insights/ changed. On a local file
 * system an inotify watch of insights/, made before the first load, says
 * so: a request finds no event waiting and insights/ the directory watched,
 * or loads again. Elsewhere (a network file system, no inotify) its listing
 * and every file's stat data (dev, inode, size, mtime, ctime) are taken
 * before each load and compared at the next request; a file changed within
 * the caches' stat grain of the load is never trusted (cache.h). A load
 * again reads the node files that did not change from the node cache
 * (nodecache.h), so it parses only those that changed, also when another
 * process wrote them.
 *
 * dtk_kb_hold_new: for the base at root, loaded as dtk_kb_load does with
 * what (DTK_KB_ALL or DTK_KB_LEAN). Returns the handle (dtk_kb_hold_free);
 * loads nothing yet.
 * dtk_kb_hold_get: sets *kb to the base as its files are now, owned by h and
 * valid until the next call (or dtk_kb_hold_free). Returns as dtk_kb_load
 * does; after DTK_EINVALID (diags filled) *kb is NULL and the next call
 * loads again.
 */
struct dtk_kb_hold;
struct dtk_kb_hold *dtk_kb_hold_new(const char *root, int what);
int dtk_kb_hold_get(struct dtk_kb_hold *h, const struct dtk_kb **kb, struct dtk_diags *diags);
void dtk_kb_hold_free(struct dtk_kb_hold *h);
/* Sets *kb to the base h holds now, without looking at the files (NULL:
 * none); returns how many times h has loaded it. */
unsigned dtk_kb_hold_peek(const struct dtk_kb_hold *h, const struct dtk_kb **kb);

/* The look-ups (dtk_kb_node, dtk_kb_entry, dtk_kb_source, ...) are in
 * model.h: the schema uses them too, and kb.c uses the schema. */

/*
 * Lists the node names in root/insights (file names, without parsing), sorted.
 * Returns the count and sets *out to a malloc'd array of malloc'd strings
 * (free with dtk_strv_free), or -1 with the error set.
 */
int dtk_kb_list_nodes(char ***out, const char *root);
void dtk_strv_free(char **v, size_t n);

/* Returns 1 when root/insights/<name>.yaml exists (name must be a valid
 * node name), without listing the directory. */
int dtk_kb_has_node(const char *root, const char *name);

/* Prints "<what>; did you mean '<nearest node>'?" and a new line to f,
 * suggesting from the node files of root (listed only now). */
void dtk_kb_suggest_node(FILE *f, const char *root, const char *what, const char *name);

/* Returns policy.high_min_verified of _domain.yaml's tree, as a load reads
 * it (its default when the policy leaves it out or is invalid: the load that
 * commits a write refuses an invalid one). */
struct dtk_yval;
int dtk_kb_high_min(const struct dtk_yval *domain);

/*
 * Parses the text of a _crystallizations.yaml (path is for diagnostics) into
 * a base that holds only records. Returns 0 and sets *out (dtk_kb_free), or
 * DTK_EINVALID with diags filled.
 */
int dtk_kb_parse_records(struct dtk_kb **out, const char *buf, size_t len, const char *path,
                         struct dtk_diags *diags);

/*
 * Reads a review file for dtk crystallize (YAML: cross_pairs, verdict, note)
 * into r's review fields, its strings in kb's arena. Returns 0, DTK_EINVALID
 * with diags filled, or -1 with the error set when it cannot be read.
 */
int dtk_kb_read_review(struct dtk_kb *kb, const char *path, struct dtk_record *r,
                       struct dtk_diags *diags);

#endif
