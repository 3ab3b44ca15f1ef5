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

struct dtk_merge_out {
	char *text; /* the merged file, malloc'd, NUL-terminated */
	size_t len;
	int conflicts;        /* regions between conflict markers */
	struct dtk_buf notes; /* one line per conflict */
};

/*
 * Merges in's three versions into out (release with dtk_merge_out_release).
 * Returns 0 when the merge is clean, 1 when out->text holds conflict
 * markers. The name decides the rules: _sources.yaml, _domain.yaml,
 * _crystallizations.yaml or a node file.
 */
int dtk_merge_file(struct dtk_merge_out *out, const struct dtk_merge_in *in);
void dtk_merge_out_release(struct dtk_merge_out *out);

/* dtk_merge_file on the three versions text[0..2] of len[0..2] bytes
 * (NULL: absent) of the file name, as a dtk_repo_merge_fn: returns 0 or 1
 * (conflicts) and sets *data (malloc'd, the caller frees) and *out_len;
 * appends its notes to notes unless NULL. */
int dtk_merge_blob(const char *name, char *const text[3], const size_t len[3], char **data,
                   size_t *out_len, struct dtk_buf *notes);

/* Renders INDEX.md from the merged files of insights/ (files[0..n)), and,
 * when pages is not NULL, the pages of index/ it links into *pages (*n_pages
 * of them, named from the base root; free with dtk_memfiles_free). Returns
 * 0 and sets *out (malloc'd, the caller frees), or 1 when they are not a
 * valid base (why in diags). */
struct dtk_memfile;
struct dtk_diags;
int dtk_merge_index(char **out, const struct dtk_memfile *files, size_t n,
                    struct dtk_memfile **pages, size_t *n_pages, struct dtk_diags *diags);

#endif
