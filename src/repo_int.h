/*
 * repo_int.h: what the files of the repo module share (repo.c opens the
 * repository and holds what a crystallization's commit and a sync's merge
 * commit both take, as git commit does; repo_history.c walks history;
 * repo_commit.c is the crystallization's transaction and its journal;
 * repo_merge.c finds a merge's sides and makes dtk sync's merge). Internal
 * to them.
 */
#ifndef DTK_REPO_INT_H
#define DTK_REPO_INT_H

#include "dtk/repo.h"
#include "gitlib.h"

#include <stddef.h>

struct dtk_repo {
	git_repository *git;
	char *workdir; /* the work tree, ending in '/' */
	char *prefix;  /* the base root within the work tree: "" or "dir/" */
};

/* A decided commit: what the journal (<git dir>/dtk-crystallize) holds. */
struct journal {
	git_oid new_id, old_id;
	int has_old;                           /* 0: the branch was unborn */
	char ref[256];                         /* the branch, "refs/heads/..." */
	unsigned long long lock_dev, lock_ino; /* the index lock the run held */
};

/* What dtk_repo_pre_hooks runs: git commit's hooks, or git merge's. */
struct hooks {
	const char *first;   /* "pre-commit", "pre-merge-commit" */
	const char *msgfile; /* in the git directory: "COMMIT_EDITMSG", "MERGE_MSG" */
	const char *source;  /* prepare-commit-msg's: "message", "merge" */
};

/* Returns prefix + rel, malloc'd. */
char *dtk_repo_path(const struct dtk_repo *r, const char *rel);
/* Sets the error for a failure to read the index. Returns -1. */
int dtk_repo_index_error(void);
/* The checks of dtk_repo_check_ready but the lock's: 0, or -1 with the
 * error set. */
int dtk_repo_ready(struct dtk_repo *r);
/* Looks path (from the top of the work tree) up in tree: returns 1 and sets
 * *id (and *mode unless NULL), or 0 (*id zero) when tree has no such path. */
int dtk_repo_entry(git_tree *tree, const char *path, git_oid *id, unsigned *mode);
/* Sets *out to the tree of commit (git_tree_free); 0, or -1 (the error not
 * set). */
int dtk_repo_tree(const struct dtk_repo *r, const git_oid *commit, git_tree **out);
/* Looks up rel (below the base root) in commit; returns 1 and sets *oid, or
 * 0 when it is not there. */
int dtk_repo_lookup(const struct dtk_repo *r, const git_oid *commit, const char *rel, git_oid *oid);
/* Reads blob id into *data (malloc'd, NUL-terminated; the caller frees) and
 * *len; 0, or -1 with the error set to "<what>: <libgit2's reason>". */
int dtk_repo_read_blob(const struct dtk_repo *r, const git_oid *id, const char *what, char **data,
                       size_t *len);

/* Return 1 when path (relative to the work tree) is a file of the base
 * directly in insights/, a record of uses (insights/_uses/<name>.yaml), a
 * generated page (index/<name>.md). */
int dtk_repo_base_file(const struct dtk_repo *r, const char *path);
int dtk_repo_uses_file(const struct dtk_repo *r, const char *path);
int dtk_repo_page_file(const struct dtk_repo *r, const char *path);

/* Adds an entry of mode for path to idx; 0, or -1 with the error set. */
int dtk_repo_index_add(git_index *idx, const char *path, const git_oid *oid, unsigned mode);
/* Stores data as the blob of path, through git's filters as 'git add'
 * does; 0 and *oid set, or -1 with the error set. */
int dtk_repo_blob(const struct dtk_repo *r, const char *path, const char *data, size_t len,
                  git_oid *oid);
/* Reads the current branch into j->ref (and j->old_id, j->has_old) and its
 * commit into *parent (NULL when unborn); 0, or -1 with the error set. */
int dtk_repo_branch(const struct dtk_repo *r, struct journal *j, git_commit **parent);
/* Runs the hooks of h before the commit of tree *tree_oid (which a
 * pre-commit hook may change); sets *msg (malloc'd) to the message they
 * leave and *out to the tree (git_tree_free). Returns 0, or -1 with the
 * error set when a hook refused. */
int dtk_repo_pre_hooks(const struct dtk_repo *r, const struct dtk_commit_req *req,
                       const struct hooks *h, const git_signature *author, git_oid *tree_oid,
                       git_tree **out, char **msg);
/* Creates the commit object (signed when git would sign it) without moving
 * any reference; 0 and *out set, or -1 with the error set. */
int dtk_repo_create_commit(const struct dtk_repo *r, const struct dtk_commit_req *req, git_oid *out,
                           const git_signature *author, const git_signature *committer,
                           const char *message, const git_tree *tree, const git_commit *parents[],
                           size_t n_parents);

#endif
