/*
 * kb_int.h: what the files of the kb module share (kb.c finds and loads the
 * base, kb_read.c reads its files, kb_check.c checks across them, kb_hold.c
 * holds it between requests). Internal to them.
 */
#ifndef DTK_KB_INT_H
#define DTK_KB_INT_H

#include "dtk/kb.h"
#include "dtk/nodecache.h"

#include <stdatomic.h>
#include <stddef.h>

enum ftype { F_DOMAIN, F_SOURCES, F_RECORDS, F_GLOSSARY, F_NODE, F_USES };

struct loader;
struct dtk_use;

/* One file to load, and what loading it gave. */
struct kfile {
	char *name; /* in insights/ */
	char *rel;  /* "insights/<name>", as shown */
	enum ftype t;
	char node[256];       /* F_NODE: the node's name */
	struct dtk_node *out; /* F_NODE: the node, NULL when unusable */
	int ok;               /* the file gave the kind of value it must hold */
	/* F_NODE of a DTK_KB_LINKED load other than the node shown: loaded only
	 * when it links to it or the node shown names it, its errors ignored */
	int linked;
	struct dtk_use *uses; /* F_USES: what the record adds (schema.h) */
	size_t n_uses;
};

struct loader {
	struct dtk_kb *kb;
	struct dtk_diags *d;
	char *root_real; /* NULL when loading from memory */
	const struct dtk_memfile *mem;
	int over; /* mem holds files that stand in for (or add to) the disk's */
	size_t n_mem;
	unsigned schema_flags;
	struct kfile *files;
	size_t n_files;
	atomic_size_t next; /* the next file a worker takes */
	/* _domain.yaml gave a mapping: the checks that need it are skipped
	 * otherwise, its file's errors said it all (kb->sources_ok, likewise) */
	int domain_ok;
	int glossary; /* insights/ holds _glossary.yaml: files[2] (a full load) */
	/* node files that exist but could not be read: references to them are
	 * not reported again as unknown */
	char **broken;
	size_t n_broken;
	/* DTK_KB_LINKED: what a node file holds when it may name an entry of
	 * the node shown ("<node>-"), and the nodes that node's entries name */
	char *needle;
	char *named;       /* as dtk_nodecache_links_of makes them */
	int dir_fd;        /* insights/ (not a link), open while the files are read; or -1 */
	const char *shown; /* DTK_KB_LINKED: the node shown */
	const struct dtk_kb_filter *filter; /* node files parsed only when it keeps them */
	struct dtk_nodecache *nc;           /* the node cache, NULL when none */
	int terms;                          /* DTK_KB_TERMS */
	int sums;       /* a load of the whole base: every node gets its summary */
	int index;      /* DTK_KB_INDEX: nodes cached come as their summaries */
	dtk_date today; /* DTK_KB_INDEX: a summary with a later date is unpacked */
};

/* Where the terms of a node's entries are (dtk_kb_node_terms). */
struct dtk_node_terms {
	const char *mem; /* in memory, len bytes; NULL: in the node cache */
	size_t len;
	struct dtk_nodecache_ref at;   /* where the node cache has them */
	struct dtk_nodecache_ref node; /* and the node they were cut from */
	int held; /* none here: the index of terms holds them (a summary node) */
};

/* qsort's comparison of two strings (char *) and of two nodes (struct
 * dtk_node *, by name). */
int dtk_kb_name_cmp(const void *a, const void *b);
int dtk_kb_node_cmp(const void *a, const void *b);

/* Lists the file names in dir (not "." nor ".."), sorted unless unsorted,
 * into *out (dtk_strv_free). Returns their count, or -1 with the error set
 * (DTK_ETOOBIG when it holds more than DTK_MAX_FILES). */
int dtk_kb_list_dir(char ***out, const char *dir, int unsorted);

/* Returns 1 when name is "<node>.yaml" for a valid node name (copied into
 * node, of size bytes), else 0. */
int dtk_kb_node_file(const char *name, char *node, size_t size);

/* Returns 1 when the node file name (len bytes) exists but could not be
 * read, else 0. */
int dtk_kb_is_broken(const struct loader *l, const char *name, size_t len);

/* Reads and parses the files of l's base (what: DTK_KB_ONE_NODE and
 * DTK_KB_LINKED; only: the node of DTK_KB_ONE_NODE) into l->kb, from the
 * node cache where it can, on several threads; errors go to l->d. Returns
 * 0, or -1 with the error set when the base cannot be read at all. */
int dtk_kb_read_files(struct loader *l, int what, const char *only);

/* Adds the uses the record files of insights/_uses/ hold to the entries'
 * used and cited (and to their nodes' summaries); a use of an entry the
 * base lacks is an error in l->d, unless its node could not be read or
 * was not loaded (a load of one node). */
void dtk_kb_fold_uses(struct loader *l);

/* The checks across the files of l->kb (node order, names, references),
 * their errors added to l->d. */
void dtk_kb_check_across(struct loader *l);

#endif
