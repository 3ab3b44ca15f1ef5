/*
 * merge.h: three-way merges of the files of insights/ as data (what git's
 * merge driver for the files of insights/ runs; see docs/merging.md).
 *
 * Items of lists are matched by their key (entries and sources by id,
 * categories by name, hotspots by node, gaps by text, records by date) and
 * mappings key by key. The merged text keeps ours' bytes for everything ours
 * had and each side's own text for what it added, re-indented and in ours'
 * line endings. A conflict is written with standard conflict markers around
 * the conflicting item (or key) only; input that does not parse, or a merge
 * dtk cannot write, is a conflict of the whole file. Every merged text is
 * read back and compared with the intended result before it is returned.
 */
#ifndef DTK_MERGE_H
#define DTK_MERGE_H

#include "dtk/dtk.h"

#include <stddef.h>

/* The three versions of one file; a NULL data means the file is absent
 * (as an empty file). */
struct dtk_merge_in {
	const char *name; /* the file's name in insights/, e.g. "alpha.yaml" */
	const char *base, *ours, *theirs;
	size_t base_len, ours_len, theirs_len;
	/* the conflict markers' labels; NULL: "ours" and "theirs" */
	const char *label_ours, *label_theirs;
};

/* The longest entry id renumbered, with its NUL (a longer one is not). */
#define DTK_MERGE_ID_MAX 128

/* An entry of theirs renumbered because ours added a different entry with
 * its id. */
struct dtk_merge_rename {
	char from[DTK_MERGE_ID_MAX]; /* theirs' id */
	char to[DTK_MERGE_ID_MAX];   /* its new id in the merge */
};

struct dtk_merge_out {
	char *text; /* the merged file, malloc'd, NUL-terminated */
	size_t len;
	int conflicts;        /* regions between conflict markers */
	struct dtk_buf notes; /* one line per renumbered entry or conflict */
	/* theirs' entries renumbered in text (malloc'd; none when the whole
	 * file conflicts) */
	struct dtk_merge_rename *renames;
	size_t n_renames;
};

/*
 * Merges in's three versions into out (release with dtk_merge_out_release).
 * Returns 0 when the merge is clean, 1 when out->text holds conflict
 * markers. The name decides the rules: _sources.yaml, _domain.yaml,
 * _crystallizations.yaml or a node file.
 */
int dtk_merge_file(struct dtk_merge_out *out, const struct dtk_merge_in *in);
/* Fills in for the file name (in insights/) from the three versions
 * text[0..2] (base, ours, theirs; NULL: absent) of len[0..2] bytes, with
 * the default labels. */
void dtk_merge_in_init(struct dtk_merge_in *in, const char *name, char *const text[3],
                       const size_t len[3]);
void dtk_merge_out_release(struct dtk_merge_out *out);

/*
 * Theirs' references to the entries of another file that the merge
 * renumbered (renames[0..n), as dtk_merge_file reports them), in the file
 * name of insights/ whose merged text is merged (ours' and theirs' versions:
 * NULL when absent). A reference is an entry's relates item, an entry's
 * contradicts id, or a gap's flagged_by (_domain.yaml); it is theirs' when
 * theirs' version of the same item (the entry by id, by its old id when
 * theirs' entry was renumbered too; the gap by text) has
 * it and ours' does not. Each such reference to a renamed id becomes the
 * new id (its scalar's text only: every other byte is kept), unless the
 * list holds the new id already. Sets out->text (malloc'd; NULL when
 * nothing changes) and notes one line per reference rewritten
 * ("<name>: ..."). Returns the number of references rewritten (release out
 * with dtk_merge_out_release in any case).
 */
int dtk_merge_follow(struct dtk_merge_out *out, const char *name, const char *merged, size_t mlen,
                     const char *ours, size_t olen, const char *theirs, size_t tlen,
                     const struct dtk_merge_rename *renames, size_t n);

#endif
