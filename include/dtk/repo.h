/*
 * repo.h: the git repository a knowledge base lives in, through libgit2:
 * finding the commit of a past run, committing a crystallization, and the
 * history of runs. Only gitrepo.c includes <git2.h> for this (through
 * src/gitlib.h: libgit2 is loaded at run time, when dtk_repo_open is first
 * called).
 */
#ifndef DTK_REPO_H
#define DTK_REPO_H

#include "dtk/dtk.h"
#include "dtk/model.h"

#include <stddef.h>

struct dtk_repo;

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

/*
 * Finds the commit that recorded the run of date (a "Dtk-Crystallization:"
 * trailer, or the commit that added that record to _crystallizations.yaml)
 * and writes its insights/ files into dir/insights. Returns 1 and fills
 * commit_hex (41 bytes) when found; 0 when history does not hold it (a
 * shallow clone, a base copied in); -1 with the error set.
 */
int dtk_repo_checkout_run(struct dtk_repo *repo, dtk_date date, const char *dir,
                          char commit_hex[41]);

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
};

/*
 * Commits the base as one commit on the current branch: HEAD's tree with
 * insights/ and INDEX.md replaced by the request's files (other changes in
 * the work tree or the index are left alone), writes the new records and
 * INDEX.md into the work tree, updates the index for those paths, and moves
 * the branch. git's index lock is taken before anything is written and held
 * until the new index replaces the old. Fills commit_hex. Returns 0, or -1
 * with the error set: nothing changed when it fails before the commit is
 * decided; after that the journal holds the run (dtk_repo_continue).
 */
int dtk_repo_commit(struct dtk_repo *repo, const struct dtk_commit_req *req, char commit_hex[41]);

/* A run found in history. */
struct dtk_run {
	struct dtk_record record; /* as committed (strings owned by the list) */
	char commit[41];          /* "" when no commit of history added it */
	long long time;           /* the commit's time, seconds since the epoch */
	int trailer;              /* the commit carries a Dtk-Crystallization trailer */
};

struct dtk_run_list {
	struct dtk_run *v;
	size_t n;
	struct dtk_kb *kb; /* owns the records' strings */
	int unborn;        /* HEAD has no commit yet */
};

/* Lists the runs recorded in HEAD's _crystallizations.yaml, newest first,
 * each with the commit that added it. Returns 0; DTK_EINVALID when HEAD's
 * records are invalid (the errors added to diags); or -1 with the error set. */
struct dtk_diags;
int dtk_repo_runs(struct dtk_repo *repo, struct dtk_run_list *out, struct dtk_diags *diags);
void dtk_run_list_release(struct dtk_run_list *l);

struct dtk_memfile;

/*
 * For a merge driver run by git (merge, rebase, cherry-pick, revert, pull
 * --rebase): files are the driver's %O %A %B (the ancestor's, ours and
 * theirs INDEX.md). Finds the merge's three commits (ours is HEAD; the other
 * is named by GITHEAD_<id> in a merge, else found as the commit, and its
 * parent, whose INDEX.md blobs are %B and %O, or %O and %B for a revert),
 * merges the base's insights/ of the three with libgit2, and returns the
 * merged files. Returns 0 and sets *out and *n (free with
 * dtk_memfiles_free); 1 when the files conflict or the sides cannot be
 * found; -1 with the error set.
 */
int dtk_repo_merged_insights(struct dtk_repo *repo, const char *const files[3],
                             struct dtk_memfile **out, size_t *n);
void dtk_memfiles_free(struct dtk_memfile *files, size_t n);

/*
 * After a merge in which dtk's merge driver renumbered theirs' entries
 * (dtk_merge_file's renames), makes theirs' references to them in the other
 * files of insights/ follow (dtk_merge_follow), in the merged base at dir
 * (the merge's result checked out; its files are rewritten in place, each
 * atomically). The merge is the one under way in repo: ours HEAD, theirs
 * MERGE_HEAD or else the one GITHEAD_<id> git merge sets for its hooks
 * (base: their merge base), or else CHERRY_PICK_HEAD (base: its parent). The
 * renumbering is computed again from the three commits, as the driver made
 * it, and kept only when the merged file holds the new id. Appends to
 * changed each file rewritten ("insights/<name>\n") and to notes one line
 * per reference. Returns 0; 1 when no merge is under way; -1 with the error
 * set (files rewritten before it stay so).
 */
int dtk_repo_follow_renumbered(struct dtk_repo *repo, const char *dir, struct dtk_buf *changed,
                               struct dtk_buf *notes);

/*
 * After a rebase of theirs (the branch's tip before it, a revision) onto
 * ours (the commit the replay started on), in which dtk's merge driver
 * renumbered theirs' entries (one commit at a time, so it may cascade):
 * makes theirs' references to them follow as dtk_repo_follow_renumbered
 * does, in the rebase's result checked out at dir. The renumbering is
 * found by content: an entry theirs added (not in the merge base) whose id
 * the result gives another entry, and that the result's same file holds
 * under one other id with the same title and claim. Appends to changed and
 * notes as dtk_repo_follow_renumbered. Returns 0, or -1 with the error set.
 */
int dtk_repo_follow_rebased(struct dtk_repo *repo, const char *theirs, const char *ours,
                            const char *dir, struct dtk_buf *changed, struct dtk_buf *notes);

/* Sets key to value in the repository's own configuration (.git/config). */
int dtk_repo_config_set(struct dtk_repo *repo, const char *key, const char *value);

/* Returns the path of git's hook name (malloc'd, the caller frees) where git
 * runs it: in core.hooksPath ('~/' expanded, relative to the top of the work
 * tree), else in the common git directory's hooks/ (a linked worktree shares
 * its main repository's hooks). */
char *dtk_repo_hook_path(struct dtk_repo *repo, const char *name);

/* Returns 1 when the repository is a shallow clone. */
int dtk_repo_is_shallow(struct dtk_repo *repo);

/* Returns the work tree (ending in '/') and the base's place in it ("" or
 * "dir/"); owned by repo. */
const char *dtk_repo_workdir(const struct dtk_repo *repo);
const char *dtk_repo_prefix(const struct dtk_repo *repo);

#endif
