/*
 * repo.h: the git repository a knowledge base lives in, through libgit2:
 * the history of a file, a past commit's files, committing a
 * crystallization, the three sides of a merge. It knows git, not what the
 * files mean: the crystallization module reads the records it finds, the
 * merge driver merges what it collects. Only the git modules include
 * <git2.h> (through src/gitlib.h).
 */
#ifndef DTK_REPO_H
#define DTK_REPO_H

#include "dtk/dtk.h"

#include <stddef.h>

struct dtk_repo;

/* What the functions below return besides 0 and a negative error. */
enum dtk_repo_status {
	DTK_REPO_FOUND = 1,    /* dtk_repo_read_head: the file is there */
	DTK_REPO_UNBORN = 2,   /* dtk_repo_read_head: no commit yet */
	DTK_REPO_CONFLICT = 1, /* dtk_repo_merged_insights: the files conflict */
	DTK_REPO_NO_SIDES = 2, /* dtk_repo_merged_insights: git names no commit that fits */
	/* dtk_repo_commit: failed once the commit was decided (the error set):
	 * files may be written, the journal holds the run */
	DTK_REPO_INTERRUPTED = 3
};

/* Opens the repository whose work tree holds the base at root. Returns 0
 * and sets *out (dtk_repo_free); DTK_ENOGIT with the error set when libgit2
 * cannot be initialized (a caller that goes on outside a repository must
 * still fail then: it cannot tell whether there is one); -1 with the error set
 * when there is no usable repository. */
int dtk_repo_open(struct dtk_repo **out, const char *root);
void dtk_repo_free(struct dtk_repo *repo);

/*
 * A crystallization interrupted after its commit was decided (a crash, a
 * kill, a failed write) leaves a journal in the git directory
 * (<git dir>/dtk-crystallize) and may leave git's index lock, which it
 * names. dtk_repo_interrupted returns 1 and copies the run's branch (its
 * short name) into branch when there is one, 0 when not, -1 with the error
 * set.
 */
int dtk_repo_interrupted(struct dtk_repo *repo, char *branch, size_t size);

/* Finishes the interrupted crystallization: only on its own branch (HEAD
 * must name it) and only when the branch is still at the commit before it
 * or at its commit. Returns 1 and fills commit_hex when it was finished, 0
 * when there was none, -1 with the error set (nothing changed). */
int dtk_repo_continue(struct dtk_repo *repo, char commit_hex[41]);

/* Drops the interrupted crystallization: the journal and its index lock go;
 * when HEAD is on its branch and the branch did not move, the records file
 * and INDEX.md it wrote go back to the branch's. Refused when the branch is
 * at its commit already (--continue then finishes it). Returns 1 when one
 * was dropped, 0 when there was none, -1 with the error set. */
int dtk_repo_abort(struct dtk_repo *repo);

/* Returns 0 when a commit can be made on the current branch; -1 with the
 * error set when a rebase, merge, cherry-pick or revert is under way, HEAD is
 * detached, the index cannot be read (a sparse index), has conflicts, or is
 * locked. dtk_repo_commit checks the same again with the lock held. */
int dtk_repo_check_ready(struct dtk_repo *repo);

/* A commit met by dtk_repo_walk. */
struct dtk_repo_step {
	char commit[41];     /* its id, in hex */
	long long time;      /* its time, seconds since the epoch */
	const char *message; /* its message */
	/* the walked file's text in the commit (NULL when absent, or when the
	 * commit is met for its trailer only), and in each of its parents that
	 * has it (n_prevs; none for a trailer only) */
	const char *now;
	size_t now_len;
	const char *const *prevs;
	const size_t *prev_lens;
	size_t n_prevs;
};

/* Called for each step of a walk; a value not 0 stops it. */
typedef int (*dtk_repo_walk_fn)(void *arg, const struct dtk_repo_step *step);

/*
 * Walks every commit reachable from HEAD once, newest first (by commit
 * time), calling fn for each commit where the file rel (below the base
 * root) differs from every parent's (with the texts: a merge that took the
 * file as one parent had it changed nothing), and for each other commit
 * whose message carries the trailer key trailer (without them). A line of
 * history ends where it is cut off (a shallow clone); the walk ends when
 * fn returns non-zero. Returns that value, 0, or -1 with the error set.
 */
int dtk_repo_walk(struct dtk_repo *repo, const char *rel, const char *trailer, dtk_repo_walk_fn fn,
                  void *arg);

/* Returns 1 when message carries the trailer "key: value" (value NULL:
 * any value), else 0. */
int dtk_repo_trailer(const char *message, const char *key, const char *value);

/* Reads the file rel (below the base root) as HEAD has it. Returns
 * DTK_REPO_FOUND and sets *data (malloc'd, NUL-terminated; the caller frees)
 * and *len; 0 when HEAD has no such file; DTK_REPO_UNBORN when there is no
 * commit yet; -1 with the error set. */
int dtk_repo_read_head(struct dtk_repo *repo, const char *rel, char **data, size_t *len);

/* Writes the .yaml files of the directory rel (below the base root) of the
 * commit commit_hex into dir/rel, a symbolic link as the file it leads to in
 * the commit (one that leads out of it is left out). Returns 0, or -1 with
 * the error set. */
int dtk_repo_extract(struct dtk_repo *repo, const char *commit_hex, const char *rel,
                     const char *dir);

struct dtk_memfile;

struct dtk_commit_req {
	const char *records; /* the new _crystallizations.yaml */
	size_t records_len;
	const char *index; /* the new INDEX.md */
	size_t index_len;
	const char *const *files; /* every other file of insights/, by name */
	size_t n_files;
	const char *message;
	const char *author;    /* "Name <email>", or NULL for git's configuration */
	int sign;              /* 1 --gpg-sign, 0 --no-gpg-sign, -1 as commit.gpgsign says */
	const char *sign_key;  /* --gpg-sign=KEYID, or NULL */
	int no_verify;         /* --no-verify: skip pre-commit and commit-msg */
	struct dtk_buf *taken; /* NULL, or receives a line per path the commit
	                          changes: "A|M|D|T  path\n" (as git status) */
	/* the run's other new files, named from the base root: a fold of
	 * records ("insights/_uses/fold-..."), the pages of index/. The
	 * commit's insights/_uses/ holds HEAD's folds and these, its index/
	 * these only: the records folded and the pages no longer made go */
	const struct dtk_memfile *more;
	size_t n_more;
};

/*
 * Commits the base as one commit on the current branch: HEAD's tree with
 * insights/, index/ and INDEX.md replaced by the request's files (other changes in
 * the work tree or the index are left alone), writes the new records and
 * INDEX.md into the work tree, updates the index for those paths, and moves
 * the branch. git's index lock is taken before anything is written and held
 * until the new index replaces the old. Fills commit_hex. Returns 0; -1
 * with the error set when it failed before the commit was decided (nothing
 * changed); DTK_REPO_INTERRUPTED with the error set when it failed after
 * (the journal holds the run: dtk_repo_continue).
 */
int dtk_repo_commit(struct dtk_repo *repo, const struct dtk_commit_req *req, char commit_hex[41]);

/* Merges a node file both sides of a merge changed, as dtk's driver for
 * insights/ does: name is its file name, text[0..3) and tlen[0..3) the
 * ancestor's (NULL when it has none), ours and theirs. Returns 0 and sets
 * *data (malloc'd) and *len; 1 when they conflict (*data: the text with
 * conflict markers; a line per conflict appended to notes, unless NULL);
 * -1 with the error set. */
typedef int (*dtk_repo_merge_fn)(const char *name, char *const text[3], const size_t tlen[3],
                                 char **data, size_t *len, struct dtk_buf *notes);

/*
 * For a merge driver run by git (merge, rebase, cherry-pick, revert, pull
 * --rebase): files are the driver's %O %A %B (the ancestor's, ours and
 * theirs INDEX.md, or page rel of index/: rel is the file from the base
 * root). Finds the merge's three commits by one rule (ours is
 * HEAD; theirs and the ancestor among the commits git names for the
 * operation under way, by their INDEX.md blobs: docs/git.md), merges the
 * base's insights/ of the three with libgit2 (a file both sides changed
 * with merge, when git's attributes give it dtk's driver), and returns the
 * merged files.
 * Returns 0 and sets *out and *n (free with dtk_memfiles_free);
 * DTK_REPO_CONFLICT when the files conflict; DTK_REPO_NO_SIDES when git
 * names no commit that fits; -1 with the error set.
 */
int dtk_repo_merged_insights(struct dtk_repo *repo, const char *const files[3], const char *rel,
                             dtk_repo_merge_fn merge, struct dtk_memfile **out, size_t *n);

/* What dtk_repo_sync found (struct dtk_sync's state). */
enum dtk_sync_state {
	DTK_SYNC_UP_TO_DATE,   /* the upstream is in the branch already */
	DTK_SYNC_FAST_FORWARD, /* the branch is in the upstream: moved to it */
	DTK_SYNC_MERGED,       /* a merge commit made */
	DTK_SYNC_STOPPED       /* conflicts: the merge left as git merge leaves it */
};

/* dtk sync's merge of an upstream into the current branch. */
struct dtk_sync {
	/* in */
	const char *upstream;    /* as the user names it; NULL: the remote's default branch */
	int dry_run;             /* decide, report, write nothing */
	int no_verify;           /* --no-verify: skip pre-merge-commit and commit-msg */
	dtk_repo_merge_fn merge; /* a file of insights/ both sides changed */
	/* INDEX.md from the merged insights/ files[0..n): returns 0 and sets
	 * *out (malloc'd, NUL-terminated) and the pages of index/ *pages (n_pages,
	 * named from the base root: dtk_memfiles_free), 1 when they are not
	 * valid (why appended to notes) */
	int (*render)(const struct dtk_memfile *files, size_t n, char **out,
	              struct dtk_memfile **pages, size_t *n_pages, struct dtk_buf *notes);
	/* out */
	enum dtk_sync_state state;
	char name[256];              /* the upstream's name ("origin/main") */
	char branch[256];            /* the current branch's short name */
	char theirs[41], commit[41]; /* the upstream's commit; the one made */
	struct dtk_buf merged;       /* the paths dtk merged as data, a line each */
	struct dtk_buf conflicts;    /* the paths left in conflict, a line each */
	struct dtk_buf notes;        /* dtk's messages about them */
};

/*
 * Merges the upstream into the current branch as 'git merge' does (hooks,
 * identity, signing, reflog; a fast-forward when the branch has nothing of
 * its own), with the files of insights/ both sides changed merged by
 * s->merge and INDEX.md and the pages of index/ rendered by s->render
 * from the merged files,
 * whatever .gitattributes says; other files by libgit2's merge of the
 * trees. On conflicts, stops as git merge does: MERGE_HEAD and MERGE_MSG
 * written, the paths conflicted in the index, the work tree's files with
 * markers (dtk's, around the entry, for insights/), INDEX.md conflicted and
 * left as ours. Refuses a work tree with changes, an operation under way,
 * a detached HEAD. Returns 0 with s->state set; -1 with the error set.
 * Release s with dtk_sync_release.
 */
int dtk_repo_sync(struct dtk_repo *repo, struct dtk_sync *s);
void dtk_sync_release(struct dtk_sync *s);

/* Sets key to value in the repository's own configuration (.git/config). */
int dtk_repo_config_set(struct dtk_repo *repo, const char *key, const char *value);

/* Returns the path of git's hook name (malloc'd, the caller frees) where git
 * runs it: in core.hooksPath ('~/' expanded, relative to the top of the work
 * tree), else in the common git directory's hooks/ (a linked worktree shares
 * its main repository's hooks). */
char *dtk_repo_hook_path(struct dtk_repo *repo, const char *name);

/* Returns 1 when the repository is a shallow clone. */
int dtk_repo_is_shallow(struct dtk_repo *repo);

/* Returns the base's place in the work tree ("" or "dir/"); owned by repo. */
const char *dtk_repo_prefix(const struct dtk_repo *repo);

#endif
