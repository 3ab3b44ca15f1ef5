/*
 * git.h: what dtk asks of libgit2 for buffers and files. Only the git
 * modules (git.c, gitenv.c, gitcommit.c, repo*.c) include <git2.h>, through
 * src/gitlib.h, which initializes libgit2 on first use.
 */
#ifndef DTK_GIT_H
#define DTK_GIT_H

#include <stddef.h>

/*
 * Produces a unified diff from old to new, both shown as path (a/path and
 * b/path); old NULL: a file that does not exist yet, shown as git shows a
 * new file ("new file mode", "--- /dev/null"). Returns 0 and sets *out (malloc'd, the caller frees; "" when the
 * buffers are equal), or -1 with the error set (also when libgit2 cannot be
 * loaded).
 */
int dtk_git_diff_buffers(char **out, const char *old, size_t old_len, const char *new_,
                         size_t new_len, const char *path);

/*
 * The bytes git would check out for a file at path (absolute) whose
 * repository content is text (LF line endings, as dtk writes): text through
 * the repository's filters (core.autocrlf, core.eol, .gitattributes text and
 * eol). Returns 1 and sets *out and *out_len (malloc'd, the caller frees)
 * when they differ from text; 0 when git checks out text as it is (also
 * outside a repository, or when libgit2 cannot be loaded); -1 with the
 * error set. Loads libgit2: callers ask only when text differs from the
 * file, so that a base in sync with LF files never loads it.
 */
int dtk_git_checkout_form(char **out, size_t *out_len, const char *path, const char *text,
                          size_t len);

/*
 * The one rule for a file dtk renders whole (INDEX.md): stages text for
 * path (absolute) as git would check it out (dtk_git_checkout_form: CRLF
 * with core.autocrlf=true, as reindex writes it), for dtk_file_stage_commit
 * to put in place. Returns what dtk_file_stage returns, or -1 with the
 * error set.
 */
struct dtk_file_staged;
int dtk_git_stage_checkout(struct dtk_file_staged *st, const char *path, const char *text,
                           size_t len);

/*
 * git's own three-way text merge of the buffers text[0] (the ancestor),
 * text[1] (ours) and text[2] (theirs) of len[] bytes, conflicts between
 * standard markers labelled label_ours and label_theirs (NULL: ours,
 * theirs). Returns 0 (clean) or 1 (conflicts) and sets *out, *out_len
 * (malloc'd, the caller frees), or -1 with the error set.
 */
int dtk_git_merge_text(char **out, size_t *out_len, char *const text[3], const size_t len[3],
                       const char *label_ours, const char *label_theirs);

#endif
