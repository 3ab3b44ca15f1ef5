/* repo.c: the knowledge base's git repository, through libgit2 1.5 (linked,
 * initialized by dtk_repo_open on first use, see gitlib.h). */
#include "dtk/repo.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "gitcommit.h"
#include "gitenv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct dtk_repo {
	git_repository *git;
	char *workdir; /* the work tree, ending in '/' */
	char *prefix;  /* the base root within the work tree: "" or "dir/" */
};

#define RECORDS "insights/_crystallizations.yaml"

/* What S_blob_read says when a file of a merge cannot be read. */
#define S_MERGED "cannot read a merged file"

/* Returns prefix + rel, malloc'd. */
static char *S_path(const struct dtk_repo *r, const char *rel)
{
	struct dtk_buf b = DTK_BUF_INIT;
	dtk_buf_printf(&b, "%s%s", r->prefix, rel);
	return dtk_buf_detach(&b);
}

int dtk_repo_open(struct dtk_repo **out, const char *root)
{
	struct dtk_repo *r;
	char *wd = NULL;
	size_t n;

	*out = NULL;
	if (dtk_gitlib_load() < 0)
		return DTK_ENOGIT;
	r = dtk_xcalloc(1, sizeof(*r));
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
	if (dtk_gitenv_open(&r->git, root) < 0)
		goto fail;
	if (git_repository_is_bare(r->git) || !git_repository_workdir(r->git)) {
		dtk_error("the repository of %s has no work tree", root);
		goto fail;
	}
	wd = realpath(git_repository_workdir(r->git), NULL);
	n = wd ? strlen(wd) : 0;
	if (!wd || strncmp(root, wd, n) || (root[n] && root[n] != '/' && n > 1)) {
		dtk_error("%s is not inside the work tree of its repository", root);
		goto fail;
	}
	r->workdir = dtk_path_join(wd, "");
	r->prefix = root[n] ? dtk_path_join(root + n + (n > 1), "") : dtk_xstrdup("");
	free(wd);
	*out = r;
	return 0;
fail:
	free(wd);
	dtk_repo_free(r);
	return -1;
}

void dtk_repo_free(struct dtk_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->git);
	free(r->workdir);
	free(r->prefix);
	free(r);
}

static char *S_index_lock(const struct dtk_repo *r);
static int S_locked_error(const char *path);
static int S_stale_mark(const struct dtk_repo *r, const char *path);

/* Sets the error for a failure to read the index, with advice where git's
 * own message gives none. Returns -1. */
static int S_index_error(void)
{
	const git_error *e = git_error_last();
	if (e && e->message && strstr(e->message, "'sdir'"))
		return dtk_error(
		        "cannot read the index: it is a sparse index (extension 'sdir'), "
		        "which libgit2 cannot read; make it a full one with 'git "
		        "sparse-checkout disable' or 'git config index.sparse false && git "
		        "sparse-checkout reapply'");
	return dtk_gitlib_error("cannot read the index");
}

/* Returns 1 when a rebase (of any kind) is under way. */
static int S_rebasing(const struct dtk_repo *r)
{
	int st = git_repository_state(r->git);
	return st == GIT_REPOSITORY_STATE_REBASE || st == GIT_REPOSITORY_STATE_REBASE_MERGE ||
	       st == GIT_REPOSITORY_STATE_REBASE_INTERACTIVE ||
	       st == GIT_REPOSITORY_STATE_APPLY_MAILBOX_OR_REBASE;
}

/* The checks of dtk_repo_check_ready but the lock's (dtk_repo_commit holds
 * the lock when it makes them). */
static int S_ready(struct dtk_repo *r)
{
	git_index *idx = NULL;
	int rc = -1;

	if (S_rebasing(r))
		return dtk_error("a rebase is under way; finish it (git rebase --continue) or "
		                 "abort it (git rebase --abort) first, then crystallize on the "
		                 "branch");
	switch (git_repository_state(r->git)) {
	case GIT_REPOSITORY_STATE_NONE: break;
	case GIT_REPOSITORY_STATE_MERGE:
		return dtk_error("a merge is under way; finish it (git commit) or abort it (git "
		                 "merge --abort) first");
	case GIT_REPOSITORY_STATE_REVERT:
	case GIT_REPOSITORY_STATE_REVERT_SEQUENCE:
		return dtk_error("a revert is under way; finish it (git revert --continue) or "
		                 "abort it (git revert --abort) first");
	case GIT_REPOSITORY_STATE_CHERRYPICK:
	case GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE:
		return dtk_error("a cherry-pick is under way; finish it (git cherry-pick "
		                 "--continue) or abort it (git cherry-pick --abort) first");
	case GIT_REPOSITORY_STATE_BISECT:
		return dtk_error("a bisect is under way; end it (git bisect reset) first");
	default:
		return dtk_error("a git am is under way; finish it (git am --continue) or abort "
		                 "it (git am --abort) first");
	}
	if (git_repository_head_detached(r->git) == 1)
		return dtk_error("HEAD is detached; check out a branch first");
	if (git_repository_index(&idx, r->git) < 0 || git_index_read(idx, 1) < 0) {
		S_index_error();
		goto done;
	}
	if (git_index_has_conflicts(idx)) {
		dtk_error("the index has unresolved conflicts; resolve them first");
		goto done;
	}
	rc = 0;
done:
	git_index_free(idx);
	return rc;
}

int dtk_repo_check_ready(struct dtk_repo *r)
{
	char *lock = S_index_lock(r);
	int rc = S_ready(r);

	if (rc == 0 && access(lock, F_OK) == 0 && !S_stale_mark(r, lock))
		rc = S_locked_error(lock);
	free(lock);
	return rc;
}

/* ---- reading history ---- */

/* Looks up rel (below the base root) in commit c; returns 0 and sets *oid, or
 * -1 when it is not there. */
static int S_lookup(const struct dtk_repo *r, git_commit *c, const char *rel, git_oid *oid)
{
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	char *path = S_path(r, rel);
	int rc = -1;

	if (git_commit_tree(&tree, c) == 0 && git_tree_entry_bypath(&te, tree, path) == 0) {
		git_oid_cpy(oid, git_tree_entry_id(te));
		rc = 0;
	}
	git_tree_entry_free(te);
	git_tree_free(tree);
	free(path);
	return rc;
}

/* Reads blob oid into *text (malloc'd) and *len; returns 0, or -1 (the
 * error not set). */
static int S_read_blob(const struct dtk_repo *r, const git_oid *oid, char **text, size_t *len)
{
	git_blob *blob = NULL;

	if (git_blob_lookup(&blob, r->git, oid) < 0)
		return -1;
	*len = (size_t)git_blob_rawsize(blob);
	*text = dtk_xstrndup(git_blob_rawcontent(blob), *len);
	git_blob_free(blob);
	return 0;
}

int dtk_repo_trailer(const char *message, const char *key, const char *value)
{
	git_message_trailer_array arr = {0};
	size_t i;
	int found = 0;

	if (git_message_trailers(&arr, message) < 0)
		return 0;
	for (i = 0; i < arr.count && !found; i++)
		found = !strcmp(arr.trailers[i].key, key) &&
		        (!value || !strcmp(arr.trailers[i].value, value));
	git_message_trailer_array_free(&arr);
	return found;
}

/* Calls fn with commit c as a step of the walk: rel's text at c (blob, when
 * not NULL) and at its first parent (pblob, when not NULL). */
/* The parents of a commit whose files the walk compares (every parent is
 * walked; a commit with more is met for its trailer only). */
#define WALK_MAX_PARENTS 16

/* Calls fn for commit c with the walked file's blob (NULL: met for its
 * trailer only) and the blobs of its parents that hold the file (n). */
static int S_step(const struct dtk_repo *r, git_commit *c, const git_oid *blob,
                  const git_oid *pblobs, size_t n, dtk_repo_walk_fn fn, void *arg)
{
	struct dtk_repo_step st;
	char *now = NULL, *prevs[WALK_MAX_PARENTS] = {NULL};
	size_t lens[WALK_MAX_PARENTS] = {0}, i, k = 0;
	int rc;

	memset(&st, 0, sizeof(st));
	git_oid_tostr(st.commit, sizeof(st.commit), git_commit_id(c));
	st.time = (long long)git_commit_time(c);
	st.message = git_commit_message(c);
	if (blob && S_read_blob(r, blob, &now, &st.now_len) == 0)
		st.now = now;
	for (i = 0; blob && i < n; i++)
		if (S_read_blob(r, &pblobs[i], &prevs[k], &lens[k]) == 0)
			k++;
	st.prevs = (const char *const *)prevs;
	st.prev_lens = lens;
	st.n_prevs = k;
	rc = fn(arg, &st);
	free(now);
	for (i = 0; i < k; i++)
		free(prevs[i]);
	return rc;
}

/* The commits a walk is yet to meet, newest first (a binary heap by commit
 * time, then id), and the ids of every commit put in it (a set: a commit
 * reached by two paths is met once). */
struct walk {
	git_commit **heap;
	size_t n, cap;
	git_oid *seen; /* open addressing; a zero id: a free slot */
	size_t n_seen, cap_seen;
};

/* Returns 1 when commit a is to be met before b. */
static int S_before(git_commit *a, git_commit *b)
{
	git_time_t ta = git_commit_time(a), tb = git_commit_time(b);
	return ta != tb ? ta > tb : git_oid_cmp(git_commit_id(a), git_commit_id(b)) < 0;
}

/* Adds id to w's set; returns 1 when it was not there, else 0. */
static int S_see(struct walk *w, const git_oid *id)
{
	size_t i, mask;
	uint64_t h;

	if (2 * (w->n_seen + 1) > w->cap_seen) {
		struct walk old = *w;
		w->cap_seen = w->cap_seen ? 2 * w->cap_seen : 64;
		w->seen = dtk_xcalloc(w->cap_seen, sizeof(*w->seen));
		w->n_seen = 0;
		for (i = 0; i < old.cap_seen; i++)
			if (!git_oid_is_zero(&old.seen[i]))
				S_see(w, &old.seen[i]);
		free(old.seen);
	}
	mask = w->cap_seen - 1;
	memcpy(&h, id->id, sizeof(h));
	for (i = (size_t)h & mask; !git_oid_is_zero(&w->seen[i]); i = (i + 1) & mask)
		if (git_oid_equal(&w->seen[i], id))
			return 0;
	git_oid_cpy(&w->seen[i], id);
	w->n_seen++;
	return 1;
}

/* Puts c in w's heap (w owns it then). */
static void S_push(struct walk *w, git_commit *c)
{
	size_t i = w->n++, up;

	dtk_grow((void **)&w->heap, &w->cap, w->n, sizeof(*w->heap));
	for (; i > 0 && S_before(c, w->heap[up = (i - 1) / 2]); i = up)
		w->heap[i] = w->heap[up];
	w->heap[i] = c;
}

/* Takes the newest commit out of w's heap (the caller frees it), or NULL. */
static git_commit *S_pop(struct walk *w)
{
	git_commit *top, *last;
	size_t i = 0, k;

	if (!w->n)
		return NULL;
	top = w->heap[0];
	last = w->heap[--w->n];
	while ((k = 2 * i + 1) < w->n) {
		if (k + 1 < w->n && S_before(w->heap[k + 1], w->heap[k]))
			k++;
		if (!S_before(w->heap[k], last))
			break;
		w->heap[i] = w->heap[k];
		i = k;
	}
	if (w->n)
		w->heap[i] = last;
	return top;
}

/* Meets commit c of walk w: calls fn when the file rel differs from every
 * parent's (a merge that took it from one parent as it was changed
 * nothing), or for its trailer; puts its parents not met yet in w. */
static int S_meet(struct dtk_repo *r, struct walk *w, git_commit *c, const char *rel,
                  const char *trailer, dtk_repo_walk_fn fn, void *arg)
{
	git_oid blob, pblobs[WALK_MAX_PARENTS];
	size_t n = git_commit_parentcount(c), i, k = 0;
	int has = S_lookup(r, c, rel, &blob) == 0, cut = n > WALK_MAX_PARENTS, changed = has,
	    rc = 0;

	for (i = 0; i < n; i++) {
		git_commit *p = NULL;
		/* a parent that cannot be read: history is cut off there */
		if (git_commit_parent(&p, c, (unsigned)i) < 0) {
			cut = 1;
			continue;
		}
		/* past WALK_MAX_PARENTS (an octopus): walked on, not compared */
		if (has && i < WALK_MAX_PARENTS && S_lookup(r, p, rel, &pblobs[k]) == 0 &&
		    git_oid_equal(&pblobs[k++], &blob))
			changed = 0;
		if (S_see(w, git_commit_id(p)))
			S_push(w, p);
		else
			git_commit_free(p);
	}
	if (!cut && changed)
		rc = S_step(r, c, &blob, pblobs, k, fn, arg);
	else if (dtk_repo_trailer(git_commit_message(c), trailer, NULL))
		rc = S_step(r, c, NULL, NULL, 0, fn, arg);
	return rc;
}

int dtk_repo_walk(struct dtk_repo *r, const char *rel, const char *trailer, dtk_repo_walk_fn fn,
                  void *arg)
{
	struct walk w = {0};
	git_commit *c = NULL;
	git_oid oid;
	int rc = 0;

	/* by hand, not with a revwalk: libgit2 1.5 knows no shallow clones and a
	 * revwalk fails as a whole at a missing parent; here that line ends */
	if (git_reference_name_to_id(&oid, r->git, "HEAD") < 0 ||
	    git_commit_lookup(&c, r->git, &oid) < 0)
		return 0; /* an unborn branch: no history */
	S_see(&w, &oid);
	S_push(&w, c);
	while (rc == 0 && (c = S_pop(&w))) {
		rc = S_meet(r, &w, c, rel, trailer, fn, arg);
		git_commit_free(c);
	}
	while ((c = S_pop(&w)))
		git_commit_free(c);
	free(w.heap);
	free(w.seen);
	return rc;
}

int dtk_repo_read_head(struct dtk_repo *r, const char *rel, char **data, size_t *len)
{
	git_reference *head = NULL;
	git_commit *c = NULL;
	git_oid oid;
	int rc = 0;

	*data = NULL;
	*len = 0;
	if (git_repository_head(&head, r->git) < 0)
		return DTK_REPO_UNBORN;
	if (git_commit_lookup(&c, r->git, git_reference_target(head)) == 0 &&
	    S_lookup(r, c, rel, &oid) == 0) {
		char what[320];
		snprintf(what, sizeof(what), "cannot read %s at HEAD", rel);
		rc = S_read_blob(r, &oid, data, len) < 0 ? dtk_gitlib_error(what) : DTK_REPO_FOUND;
	}
	git_commit_free(c);
	git_reference_free(head);
	return rc;
}

/* Finds the blob a symbolic link of tree at dir/<name> leads to, as a
 * checkout would: its target (the link blob's text) read relative to dir
 * (within the work tree), links followed up to 8 deep. Returns 0 and sets
 * *out (git_blob_free), or 1 when the target is not a file of tree. */
static int S_follow_link(const struct dtk_repo *r, git_tree *tree, const char *dir,
                         const git_tree_entry *link, git_blob **out)
{
	git_oid id;
	char *path = NULL;
	int depth, rc = 1;

	*out = NULL;
	git_oid_cpy(&id, git_tree_entry_id(link));
	path = dtk_xstrdup(dir);
	for (depth = 0; depth < 8; depth++) {
		git_blob *lb = NULL;
		git_tree_entry *te = NULL;
		struct dtk_buf p = DTK_BUF_INIT;
		const char *t, *end, *seg;
		size_t len;
		int bad = 0;
		if (git_blob_lookup(&lb, r->git, &id) < 0)
			break;
		t = git_blob_rawcontent(lb);
		end = t + git_blob_rawsize(lb);
		if (t == end || *t == '/') { /* empty, or absolute: outside the tree */
			git_blob_free(lb);
			break;
		}
		dtk_buf_puts(&p, path);
		for (seg = t; seg < end; seg += len + 1) {
			const char *slash = memchr(seg, '/', (size_t)(end - seg));
			len = (size_t)((slash ? slash : end) - seg);
			if (len == 0 || (len == 1 && seg[0] == '.'))
				continue;
			if (len == 2 && seg[0] == '.' && seg[1] == '.') {
				char *cut = p.len ? strrchr(p.ptr, '/') : NULL;
				if (!p.len) { /* above the work tree */
					bad = 1;
					break;
				}
				p.len = cut ? (size_t)(cut - p.ptr) : 0;
				p.ptr[p.len] = '\0';
				continue;
			}
			if (p.len)
				dtk_buf_putc(&p, '/');
			dtk_buf_put(&p, seg, len);
		}
		bad = bad || memchr(t, '\0', (size_t)(end - t)) || !p.len;
		git_blob_free(lb);
		if (bad || git_tree_entry_bypath(&te, tree, p.ptr) < 0) {
			dtk_buf_release(&p);
			break;
		}
		git_oid_cpy(&id, git_tree_entry_id(te));
		if (git_tree_entry_filemode(te) == GIT_FILEMODE_LINK) {
			char *slash = strrchr(p.ptr, '/');
			free(path);
			path = dtk_xstrndup(p.ptr, slash ? (size_t)(slash - p.ptr) : 0);
			git_tree_entry_free(te);
			dtk_buf_release(&p);
			continue;
		}
		if (git_tree_entry_type(te) == GIT_OBJECT_BLOB &&
		    git_blob_lookup(out, r->git, &id) == 0)
			rc = 0;
		git_tree_entry_free(te);
		dtk_buf_release(&p);
		break;
	}
	free(path);
	return rc;
}

int dtk_repo_extract(struct dtk_repo *r, const char *commit_hex, const char *rel, const char *dir)
{
	git_commit *c = NULL;
	git_tree *tree = NULL, *sub = NULL;
	git_tree_entry *te = NULL;
	char *path = S_path(r, rel), *out = dtk_path_join(dir, rel);
	git_oid id;
	size_t i;
	int rc = -1;

	mkdir(out, 0755);
	if (git_oid_fromstr(&id, commit_hex) < 0 || git_commit_lookup(&c, r->git, &id) < 0) {
		dtk_gitlib_error("cannot read the previous run's commit");
		goto done;
	}
	if (git_commit_tree(&tree, c) < 0 || git_tree_entry_bypath(&te, tree, path) < 0 ||
	    git_tree_lookup(&sub, r->git, git_tree_entry_id(te)) < 0) {
		dtk_gitlib_error("cannot read insights/ of the previous run's commit");
		goto done;
	}
	for (i = 0; i < git_tree_entrycount(sub); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(sub, i);
		const char *name = git_tree_entry_name(e);
		git_blob *blob = NULL;
		char *file;
		size_t len = strlen(name);
		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB || len < 6 ||
		    strcmp(name + len - 5, ".yaml") || strchr(name, '/') || name[0] == '.')
			continue;
		if (git_tree_entry_filemode(e) == GIT_FILEMODE_LINK) {
			if (S_follow_link(r, tree, path, e, &blob) != 0)
				continue; /* leads out of the commit: the file is not there */
		} else if (git_blob_lookup(&blob, r->git, git_tree_entry_id(e)) < 0) {
			dtk_gitlib_error("cannot read a file of the previous run");
			goto done;
		}
		file = dtk_path_join(out, name);
		rc = dtk_file_write_atomic(file, git_blob_rawcontent(blob),
		                           (size_t)git_blob_rawsize(blob));
		free(file);
		git_blob_free(blob);
		if (rc < 0 && rc != DTK_ENOSYNC) /* a scratch copy: need not last a crash */
			goto done;
	}
	rc = 0;
done:
	git_tree_free(sub);
	git_tree_entry_free(te);
	git_tree_free(tree);
	git_commit_free(c);
	free(path);
	free(out);
	return rc;
}

/* ---- committing ---- */

/* Returns 1 when path (relative to the work tree) is <prefix><dir><name>.yaml
 * directly in dir, not a dotfile (the loader ignores those: they are the
 * user's, like every other file). */
static int S_yaml_in(const struct dtk_repo *r, const char *path, const char *dir)
{
	size_t n = strlen(r->prefix), d = strlen(dir), len;
	if (strncmp(path, r->prefix, n) || strncmp(path + n, dir, d))
		return 0;
	path += n + d;
	len = strlen(path);
	return len > 5 && path[0] != '.' && !strchr(path, '/') && !strcmp(path + len - 5, ".yaml");
}

/* Returns 1 when path is a file of the base, directly in insights/. */
static int S_base_file(const struct dtk_repo *r, const char *path)
{
	return S_yaml_in(r, path, "insights/");
}

/* Returns 1 when path is a record of uses of r's base,
 * insights/_uses/<name>.yaml (kb.h's DTK_USES_DIR). */
static int S_uses_file(const struct dtk_repo *r, const char *path)
{
	return S_yaml_in(r, path, "insights/_uses/");
}

/* Returns 1 when path is a generated page of r's base, index/<name>.md
 * (index.h's DTK_INDEX_PAGES_DIR). */
static int S_page_file(const struct dtk_repo *r, const char *path)
{
	size_t n = strlen(r->prefix), len = strlen(path);
	return !strncmp(path, r->prefix, n) && !strncmp(path + n, "index/", 6) &&
	       path[n + 6] != '.' && !strchr(path + n + 6, '/') && len > n + 9 &&
	       !strcmp(path + len - 3, ".md");
}

/* Returns 1 when path is a file a crystallization writes beside INDEX.md:
 * a file of the base, a record of uses or a fold of them, a page. */
static int S_run_file(const struct dtk_repo *r, const char *path)
{
	return S_base_file(r, path) || S_uses_file(r, path) || S_page_file(r, path);
}

/* Removes the files of a run (S_run_file) from idx, but the folds of
 * records when keep_folds is set. */
static int S_remove_base(const struct dtk_repo *r, git_index *idx, int keep_folds)
{
	size_t i = git_index_entrycount(idx), n = strlen(r->prefix);
	while (i-- > 0) {
		const git_index_entry *e = git_index_get_byindex(idx, i);
		if (e && S_run_file(r, e->path) &&
		    !(keep_folds && S_uses_file(r, e->path) &&
		      !strncmp(e->path + n, "insights/_uses/fold-", 20)) &&
		    git_index_remove(idx, e->path, 0) < 0)
			return dtk_gitlib_error("cannot update the index");
	}
	return 0;
}

/* Adds an entry of mode (a blob or a symbolic link) for path to idx. */
static int S_add(git_index *idx, const char *path, const git_oid *oid, unsigned mode)
{
	git_index_entry e;
	memset(&e, 0, sizeof(e));
	e.mode = mode;
	e.path = path;
	git_oid_cpy(&e.id, oid);
	return git_index_add(idx, &e) < 0 ? dtk_gitlib_error("cannot update the index") : 0;
}

/* Returns the mode 'git add' gives the regular file path (relative to the
 * work tree; st its lstat, NULL when it is missing), as git's
 * ce_mode_from_stat: with core.fileMode on (the default) its executable
 * bit; off, the mode the index idx has for it (100644 when none). */
static unsigned S_file_mode(const struct dtk_repo *r, git_index *idx, const char *path,
                            const struct stat *st)
{
	const git_index_entry *e = idx ? git_index_get_bypath(idx, path, 0) : NULL;
	char *v = dtk_gitenv_get(r->git, "core.filemode");
	int trust = 1;

	if (v && git_config_parse_bool(&trust, v) < 0)
		trust = 1;
	free(v);
	if (st && trust)
		return (st->st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	if (e && (e->mode == GIT_FILEMODE_BLOB || e->mode == GIT_FILEMODE_BLOB_EXECUTABLE))
		return e->mode;
	return GIT_FILEMODE_BLOB;
}

/* Returns the mode 'git add' gives path (relative to the work tree) once
 * dtk has written it: see S_file_mode (dtk keeps a replaced file's mode). */
static unsigned S_written_mode(const struct dtk_repo *r, git_index *idx, const char *path)
{
	char *full = dtk_path_join(r->workdir, path);
	struct stat st;
	int has = lstat(full, &st) == 0 && S_ISREG(st.st_mode);

	free(full);
	return S_file_mode(r, idx, path, has ? &st : NULL);
}

/* Stores the work tree's file path (relative to the work tree) as a blob, as
 * git add does: a symbolic link as its target's path with the link's mode,
 * a file with the mode S_file_mode gives it (idx: the repository's index).
 * Sets *oid and *mode. */
static int S_blob_from_workdir(const struct dtk_repo *r, git_index *idx, const char *path,
                               git_oid *oid, unsigned *mode)
{
	char *full = dtk_path_join(r->workdir, path), target[4096];
	struct stat st;
	ssize_t n;
	int rc = -1;

	if (lstat(full, &st) < 0) {
		dtk_error("cannot read %s: %s", path, strerror(errno));
	} else if (S_ISLNK(st.st_mode)) {
		n = readlink(full, target, sizeof(target));
		if (n < 0 || (size_t)n >= sizeof(target))
			dtk_error("cannot read the link %s: %s", path,
			          n < 0 ? strerror(errno) : "target too long");
		else if (git_blob_create_from_buffer(oid, r->git, target, (size_t)n) < 0)
			dtk_gitlib_error("cannot store a file of insights/");
		else
			rc = 0;
		*mode = GIT_FILEMODE_LINK;
	} else if (git_blob_create_from_workdir(oid, r->git, path) < 0) {
		dtk_gitlib_error("cannot store a file of insights/");
	} else {
		*mode = S_file_mode(r, idx, path, &st);
		rc = 0;
	}
	free(full);
	return rc;
}

/* Stores data as the blob of path, through git's filters as 'git add' does
 * (a CRLF work tree's text is stored with LF). */
static int S_blob(const struct dtk_repo *r, const char *path, const char *data, size_t len,
                  git_oid *oid)
{
	git_filter_list *fl = NULL;
	git_buf buf = GIT_BUF_INIT;
	int rc = -1;

	if (git_filter_list_load(&fl, r->git, NULL, path, GIT_FILTER_TO_ODB, GIT_FILTER_DEFAULT) <
	            0 ||
	    (fl && git_filter_list_apply_to_buffer(&buf, fl, data, len) < 0))
		dtk_gitlib_error("cannot filter a file for git");
	else if (git_blob_create_from_buffer(oid, r->git, fl ? buf.ptr : data,
	                                     fl ? buf.size : len) < 0)
		dtk_gitlib_error("cannot store a file");
	else
		rc = 0;
	git_buf_dispose(&buf);
	git_filter_list_free(fl);
	return rc;
}

/* Builds the tree of the commit: base (may be NULL) with the base's files
 * replaced by the request's. */
static int S_build_tree(const struct dtk_repo *r, git_tree *base, const struct dtk_commit_req *req,
                        git_oid *tree_oid)
{
	git_index *idx = NULL, *repo_idx = NULL;
	git_oid oid;
	char *path = NULL;
	size_t i;
	int rc = -1;

	if (git_index_new(&idx) < 0 || (base && git_index_read_tree(idx, base) < 0)) {
		dtk_gitlib_error("cannot build the commit's tree");
		goto done;
	}
	/* the modes the index has (with core.fileMode off, git keeps them) */
	if (git_repository_index(&repo_idx, r->git) < 0 || git_index_read(repo_idx, 0) < 0) {
		S_index_error();
		goto done;
	}
	if (S_remove_base(r, idx, 1) < 0)
		goto done;
	for (i = 0; i < req->n_files; i++) {
		struct dtk_buf rel = DTK_BUF_INIT;
		unsigned mode = GIT_FILEMODE_BLOB;
		dtk_buf_printf(&rel, "%sinsights/%s", r->prefix, req->files[i]);
		rc = S_blob_from_workdir(r, repo_idx, rel.ptr, &oid, &mode);
		if (rc == 0)
			rc = S_add(idx, rel.ptr, &oid, mode);
		dtk_buf_release(&rel);
		if (rc < 0)
			goto done;
	}
	rc = -1;
	path = S_path(r, RECORDS);
	if (S_blob(r, path, req->records, req->records_len, &oid) < 0 ||
	    S_add(idx, path, &oid, S_written_mode(r, repo_idx, path)) < 0)
		goto done;
	for (i = 0; i <= req->n_more; i++) {
		const char *name = i < req->n_more ? req->more[i].name : "INDEX.md";
		const char *data = i < req->n_more ? req->more[i].data : req->index;
		size_t len = i < req->n_more ? req->more[i].len : req->index_len;
		free(path);
		path = S_path(r, name);
		if (S_blob(r, path, data, len, &oid) < 0 ||
		    S_add(idx, path, &oid, S_written_mode(r, repo_idx, path)) < 0)
			goto done;
	}
	if (git_index_write_tree_to(tree_oid, idx, r->git) < 0) {
		dtk_gitlib_error("cannot write the commit's tree");
		goto done;
	}
	rc = 0;
done:
	free(path);
	git_index_free(repo_idx);
	git_index_free(idx);
	return rc;
}

/* ---- git's index lock, held from before the first write to the last ---- */

/* A decided commit: what the journal (<git dir>/dtk-crystallize) holds. */
struct journal {
	git_oid new_id, old_id;
	int has_old;                           /* 0: the branch was unborn */
	char ref[256];                         /* the branch, "refs/heads/..." */
	unsigned long long lock_dev, lock_ino; /* the index lock the run held */
};

/* The index lock as git takes it: <git dir>/index.lock created exclusively
 * (in a linked worktree the git dir is .git/worktrees/<name>). While dtk
 * holds it no git command writes the index; the new index is written into
 * it and renamed over the index at the end, as git does. */
struct ilock {
	int fd; /* -1: not held */
	char *path;
	unsigned long long dev, ino;
};

/* What an index lock taken by dtk holds until the new index is written into
 * it: tells a lock left by a killed dtk run from another process's. */
#define LOCK_MARK "dtk crystallize "

static char *S_index_lock(const struct dtk_repo *r)
{
	return dtk_path_join(git_repository_path(r->git), "index.lock");
}

static char *S_journal_path(const struct dtk_repo *r)
{
	return dtk_path_join(git_repository_path(r->git), "dtk-crystallize");
}

static int S_locked_error(const char *path)
{
	return dtk_error("the index is locked (%s exists): another git process is running, or "
	                 "one crashed; remove the file if none runs",
	                 path);
}

/* Returns 1 when path holds the mark of a dtk run whose process is gone and
 * no journal says a run was decided: a lock that nothing will ever use. */
static int S_stale_mark(const struct dtk_repo *r, const char *path)
{
	char buf[64] = "", *journal = S_journal_path(r);
	int fd = open(path, O_RDONLY | O_NOFOLLOW), stale = 0;
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	long pid;

	if (fd >= 0)
		close(fd);
	if (n > (ssize_t)strlen(LOCK_MARK) && !strncmp(buf, LOCK_MARK, strlen(LOCK_MARK)) &&
	    access(journal, F_OK) < 0 && errno == ENOENT) {
		buf[n] = '\0';
		pid = strtol(buf + strlen(LOCK_MARK), NULL, 10);
		stale = pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
	}
	free(journal);
	return stale;
}

/* Removes from the git directory what a dtk run killed there left: the
 * files named with the pid of a process that no longer exists, which no
 * live process can hold: <lock>.dtk-<pid> (a lock's content before it is
 * linked in place), the pre-commit hooks' next-index-<pid>.lock and the
 * next-index-<pid>.lock.lock libgit2 writes it through, and the temporary
 * files of dtk_file_write_atomic (the journal's, the message's). */
static void S_sweep_gitdir(const struct dtk_repo *r)
{
	DIR *d = opendir(git_repository_path(r->git));
	struct dirent *de;
	size_t n;

	dtk_file_sweep(git_repository_path(r->git));
	while (d && (de = readdir(d))) {
		const char *s = de->d_name, *t = strstr(s, ".dtk-");
		if ((t && dtk_file_dead_pid(t + 5, &n) && !t[5 + n]) ||
		    (!strncmp(s, "next-index-", 11) && dtk_file_dead_pid(s + 11, &n) &&
		     (!strcmp(s + 11 + n, ".lock") || !strcmp(s + 11 + n, ".lock.lock"))))
			unlinkat(dirfd(d), s, 0);
	}
	if (d)
		closedir(d);
}

/* Creates path exclusively, already holding mark: written to
 * <path>.dtk-<pid> first, then linked in place (link fails when path
 * exists), so that a kill never leaves path empty. Returns a descriptor
 * open for writing on it, or -1 with errno set (EEXIST: it exists). */
static int S_create_marked(const char *path, const char *mark)
{
	struct dtk_buf tmp = DTK_BUF_INIT;
	struct stat a, b;
	int fd, e;

	dtk_buf_printf(&tmp, "%s.dtk-%ld", path, (long)getpid());
	unlink(tmp.ptr); /* this process's own */
	fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0 && (write(fd, mark, strlen(mark)) != (ssize_t)strlen(mark) ||
	                fstat(fd, &a) < 0 || link(tmp.ptr, path) < 0)) {
		e = errno;
		close(fd);
		fd = -1;
		errno = e;
	}
	e = errno;
	unlink(tmp.ptr);
	dtk_buf_release(&tmp);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	if (fstat(fd, &b) < 0 || a.st_ino != b.st_ino) {
		close(fd);
		errno = EIO;
		return -1;
	}
	return fd;
}

/* Takes the index lock; reuses it when it is the one of the journal j (the
 * same file, left by the interrupted run). Returns 0, or -1 with the error
 * set (naming the lock's real path). */
static int S_lock_take(const struct dtk_repo *r, struct ilock *l, const struct journal *j)
{
	struct stat st;
	char mark[64];
	int tries;

	l->path = S_index_lock(r);
	l->fd = -1;
	S_sweep_gitdir(r);
	snprintf(mark, sizeof(mark), "%s%ld\n", LOCK_MARK, (long)getpid());
	if (j && j->lock_ino && lstat(l->path, &st) == 0 &&
	    (unsigned long long)st.st_dev == j->lock_dev &&
	    (unsigned long long)st.st_ino == j->lock_ino)
		l->fd = open(l->path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	for (tries = 0; l->fd < 0 && tries < 2; tries++) {
		l->fd = S_create_marked(l->path, mark);
		if (l->fd >= 0 || errno != EEXIST || tries || !S_stale_mark(r, l->path))
			break;
		unlink(l->path); /* a killed dtk run's, which decided nothing */
	}
	if (l->fd < 0)
		return errno == EEXIST
		               ? S_locked_error(l->path)
		               : dtk_error("cannot create %s: %s", l->path, strerror(errno));
	/* the mark (a lock reused from a journal gets this run's) */
	if (ftruncate(l->fd, 0) < 0 || pwrite(l->fd, mark, strlen(mark), 0) < 0 ||
	    lseek(l->fd, 0, SEEK_END) < 0 || fstat(l->fd, &st) < 0)
		return dtk_error("cannot write %s: %s", l->path, strerror(errno));
	l->dev = (unsigned long long)st.st_dev;
	l->ino = (unsigned long long)st.st_ino;
	return 0;
}

/* Gives the lock up without changing the index (removes it). */
static void S_lock_rollback(struct ilock *l)
{
	if (l->fd >= 0) {
		close(l->fd);
		unlink(l->path);
	}
	l->fd = -1;
	free(l->path);
	l->path = NULL;
}

/* Writes data (a whole index file) into the lock, makes it durable and
 * renames it over the index: the lock is given up. Returns 0 or -1. */
static int S_lock_commit(const struct dtk_repo *r, struct ilock *l, const char *data, size_t len)
{
	char *index = dtk_path_join(git_repository_path(r->git), "index");
	size_t off = 0;
	int rc = -1;

	if (ftruncate(l->fd, 0) < 0 || lseek(l->fd, 0, SEEK_SET) < 0)
		goto fail;
	while (off < len) {
		ssize_t n = write(l->fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		off += (size_t)n;
	}
	if (fsync(l->fd) < 0)
		goto fail;
	dtk_crash_point("before-index-rename");
	if (rename(l->path, index) < 0)
		goto fail;
	close(l->fd);
	l->fd = -1;
	rc = 0;
	goto done;
fail:
	dtk_error("cannot write the index (%s): %s", l->path, strerror(errno));
done:
	free(index);
	return rc;
}

/* ---- the journal: a decided commit, finished even after a crash ---- */

static int S_journal_write(const struct dtk_repo *r, const struct journal *j)
{
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
	struct dtk_buf text = DTK_BUF_INIT;
	char *path = S_journal_path(r);
	int rc;

	git_oid_tostr(a, sizeof(a), &j->new_id);
	git_oid_tostr(b, sizeof(b), &j->old_id);
	dtk_buf_printf(&text, "new %s\nold %s\nref %s\nlock %llu %llu\n", a, j->has_old ? b : "-",
	               j->ref, j->lock_dev, j->lock_ino);
	rc = dtk_file_write_atomic(path, text.ptr, text.len);
	dtk_buf_release(&text);
	free(path);
	return rc;
}

/* Reads the journal; returns 1 when there is one, 0 when not, -1 on error. */
static int S_journal_read(const struct dtk_repo *r, struct journal *j)
{
	char *path = S_journal_path(r), *text = NULL, a[64] = "", b[64] = "";
	size_t len;
	int rc = dtk_file_read_regular(&text, &len, path, 4096), n;

	memset(j, 0, sizeof(*j));
	if (rc != 0) {
		rc = rc == 1 ? 0 : -1;
		goto done;
	}
	n = sscanf(text, "new %63s\nold %63s\nref %255s\nlock %llu %llu", a, b, j->ref,
	           &j->lock_dev, &j->lock_ino);
	if (n >= 3 && git_oid_fromstr(&j->new_id, a) == 0 &&
	    (!strcmp(b, "-") || git_oid_fromstr(&j->old_id, b) == 0) &&
	    !strncmp(j->ref, "refs/heads/", 11)) {
		j->has_old = strcmp(b, "-") != 0;
		rc = 1;
	} else {
		rc = dtk_error("%s is damaged; remove it and check HEAD", path);
	}
done:
	free(text);
	free(path);
	return rc;
}

/* Writes path (relative to the work tree) from the blob of tree, when the
 * file differs. */
static int S_write_from_tree(const struct dtk_repo *r, git_tree *tree, const char *path)
{
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	git_blob_filter_options fo;
	git_buf out = GIT_BUF_INIT;
	char *full = dtk_path_join(r->workdir, path), *cur = NULL;
	size_t len = 0;
	int rc = -1;

	/* the file as git checks it out: through its filters (core.autocrlf,
	 * core.eol, .gitattributes text and eol) */
	memset(&fo, 0, sizeof(fo));
	fo.version = GIT_BLOB_FILTER_OPTIONS_VERSION;
	fo.flags = GIT_BLOB_FILTER_CHECK_FOR_BINARY;
	if (git_tree_entry_bypath(&te, tree, path) < 0 ||
	    git_blob_lookup(&blob, r->git, git_tree_entry_id(te)) < 0 ||
	    git_blob_filter(&out, blob, path, &fo) < 0) {
		dtk_gitlib_error("cannot read the crystallized commit");
		goto done;
	}
	/* a regular file or absent: a link is neither followed nor replaced, a
	 * FIFO not waited on */
	rc = dtk_file_read_regular(&cur, &len, full, DTK_MAX_INDEX_BYTES);
	if (rc == 0 && len == out.size && !memcmp(cur, out.ptr, out.size))
		rc = 0;
	else if (rc >= 0)
		rc = dtk_file_write_atomic(full, out.ptr ? out.ptr : "", out.size);
done:
	git_buf_dispose(&out);
	free(cur);
	free(full);
	git_blob_free(blob);
	git_tree_entry_free(te);
	return rc;
}

/* Puts path (blob want, of mode) in idx: as git add has it when the work
 * tree's file is that blob (its stat data kept), else the blob. */
static int S_index_put(git_index *idx, const char *path, const git_oid *want, unsigned mode)
{
	const git_index_entry *ie;
	if (git_index_add_bypath(idx, path) < 0 || !(ie = git_index_get_bypath(idx, path, 0)) ||
	    !git_oid_equal(&ie->id, want))
		return S_add(idx, path, want, mode);
	return 0;
}

/* Brings the work tree's files of insights/_uses/ and index/ in line with
 * the commit of j (tree): each that differs from its parent's written as
 * git checks it out, or removed (and index/ when that leaves it empty). */
static int S_write_more(const struct dtk_repo *r, const struct journal *j, git_tree *tree)
{
	char *uses = S_path(r, "insights/_uses"), *pages = S_path(r, "index");
	char *paths[] = {uses, pages};
	git_commit *old = NULL;
	git_tree *base = NULL;
	git_diff *diff = NULL;
	git_diff_options opts;
	size_t i;
	int rc = -1;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	opts.pathspec.strings = paths;
	opts.pathspec.count = 2;
	if ((j->has_old && (git_commit_lookup(&old, r->git, &j->old_id) < 0 ||
	                    git_commit_tree(&base, old) < 0)) ||
	    git_diff_tree_to_tree(&diff, r->git, base, tree, &opts) < 0) {
		dtk_gitlib_error("cannot read the crystallized commit");
		goto done;
	}
	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		int gone = d->status == GIT_DELTA_DELETED, w;
		char *full = dtk_path_join(r->workdir, gone ? d->old_file.path : d->new_file.path);
		if (gone) {
			w = unlink(full) < 0 && errno != ENOENT
			            ? dtk_error("cannot remove %s: %s", full, strerror(errno))
			            : 0;
		} else {
			*strrchr(full, '/') = '\0'; /* its folder, made when missing */
			w = dtk_file_mkdirs(full, 0777) < 0 ? -1
			                                    : S_write_from_tree(r, tree, d->new_file.path);
		}
		free(full);
		if (w < 0)
			goto done;
	}
	free(paths[0]);
	paths[0] = dtk_path_join(r->workdir, pages);
	(void)rmdir(paths[0]); /* left empty: it goes (not when it holds other files) */
	rc = 0;
done:
	git_diff_free(diff);
	git_tree_free(base);
	git_commit_free(old);
	free(paths[0]);
	free(pages);
	return rc;
}

/* Makes the index hold the base's files as in tree (the work tree's stat
 * data where the file matches, else the committed blob) and writes it into
 * the held lock l, not yet renamed: returns the new index file's bytes in
 * *out (malloc'd) and *len. */
static int S_new_index(const struct dtk_repo *r, git_tree *tree, char **out, size_t *len)
{
	static const char *const dirs[] = {"insights", "insights/_uses", "index", "INDEX.md"};
	git_index *idx = NULL, *copy = NULL;
	char *tmp = dtk_path_join(git_repository_path(r->git), "dtk-index.new");
	char *tmp_lock = dtk_path_join(git_repository_path(r->git), "dtk-index.new.lock");
	size_t i, k;
	int rc = -1;

	*out = NULL;
	unlink(tmp);
	unlink(tmp_lock);
	if (git_repository_index(&idx, r->git) < 0 || git_index_read(idx, 1) < 0) {
		dtk_gitlib_error("cannot update the index");
		goto done;
	}
	if (S_remove_base(r, idx, 0) < 0)
		goto done;
	/* the run's files of each folder, then INDEX.md */
	for (k = 0; k < 4; k++) {
		char *dir = S_path(r, dirs[k]);
		git_tree_entry *te = NULL;
		git_tree *sub = NULL;
		rc = 0;
		if (git_tree_entry_bypath(&te, tree, dir) < 0) {
			rc = k == 0 ? dtk_gitlib_error("cannot update the index") : 0;
		} else if (k == 3) {
			rc = S_index_put(idx, dir, git_tree_entry_id(te),
			                 (unsigned)git_tree_entry_filemode(te));
		} else if (git_tree_entry_type(te) == GIT_OBJECT_TREE) {
			if (git_tree_lookup(&sub, r->git, git_tree_entry_id(te)) < 0)
				rc = dtk_gitlib_error("cannot update the index");
			for (i = 0; rc == 0 && sub && i < git_tree_entrycount(sub); i++) {
				const git_tree_entry *e = git_tree_entry_byindex(sub, i);
				struct dtk_buf path = DTK_BUF_INIT;
				dtk_buf_printf(&path, "%s/%s", dir, git_tree_entry_name(e));
				if (S_run_file(r, path.ptr))
					rc = S_index_put(idx, path.ptr, git_tree_entry_id(e),
					                 (unsigned)git_tree_entry_filemode(e));
				dtk_buf_release(&path);
			}
		}
		git_tree_free(sub);
		git_tree_entry_free(te);
		free(dir);
		if (rc < 0)
			goto done;
	}
	/* libgit2 writes an index only through its own lock of the same file;
	 * dtk holds that one, so the index is written to a scratch file of the
	 * git dir and its bytes go into the held lock */
	rc = -1;
	if (git_index_open(&copy, tmp) < 0 ||
	    git_index_set_version(copy, git_index_version(idx)) < 0) {
		dtk_gitlib_error("cannot write the index");
		goto done;
	}
	for (i = 0; i < git_index_entrycount(idx); i++)
		if (git_index_add(copy, git_index_get_byindex(idx, i)) < 0) {
			dtk_gitlib_error("cannot write the index");
			goto done;
		}
	if (git_index_write(copy) < 0) {
		dtk_gitlib_error("cannot write the index");
		goto done;
	}
	rc = dtk_file_read(out, len, tmp, (size_t)1 << 31);
done:
	unlink(tmp);
	git_index_free(copy);
	git_index_free(idx);
	free(tmp);
	free(tmp_lock);
	return rc;
}

/* Removes the branch's lock (refs/heads/<b>.lock) that the run of the
 * journal j left when it was killed moving the branch: with the base's lock
 * and the journal's index lock held, a lock made since the journal
 * (libgit2's, empty until it is renamed, or holding the journal's commit).
 * Any other is left, for git to report. */
static void S_ref_lock_stale(const struct dtk_repo *r, const struct journal *j)
{
	char *lock = dtk_path_join(git_repository_path(r->git), j->ref),
	     *journal = S_journal_path(r);
	char *text = NULL, hex[GIT_OID_HEXSZ + 2];
	struct stat ls, js;
	size_t len = 0;

	lock = dtk_xrealloc(lock, strlen(lock) + 6);
	strcat(lock, ".lock");
	git_oid_tostr(hex, sizeof(hex), &j->new_id);
	strcat(hex, "\n");
	if (lstat(lock, &ls) == 0 && S_ISREG(ls.st_mode) && stat(journal, &js) == 0 &&
	    ls.st_mtime >= js.st_mtime && dtk_file_read_regular(&text, &len, lock, 64) == 0 &&
	    (!len || (len == strlen(hex) && !memcmp(text, hex, len))))
		unlink(lock);
	dtk_error_clear();
	free(text);
	free(lock);
	free(journal);
}

/* Carries out a decided commit with the index lock l held: work-tree
 * files, the new index into the lock, the branch, the index, the journal.
 * Every step can be done again, so a run cut short is finished by
 * dtk crystallize --continue (resumed: the branch's lock a killed run left
 * is removed, S_ref_lock_stale). */
static int S_finish(const struct dtk_repo *r, const struct journal *j, struct ilock *l, int resumed)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_reference *ref = NULL;
	char *records = S_path(r, RECORDS), *index_md = S_path(r, "INDEX.md");
	char *journal = S_journal_path(r), *index = NULL;
	size_t index_len = 0;
	git_oid cur;
	int rc = -1;

	if (git_commit_lookup(&c, r->git, &j->new_id) < 0 || git_commit_tree(&tree, c) < 0) {
		dtk_gitlib_error("cannot read the crystallized commit");
		goto done;
	}
	if (S_write_from_tree(r, tree, records) < 0)
		goto done;
	dtk_crash_point("after-records");
	if (S_write_from_tree(r, tree, index_md) < 0 || S_write_more(r, j, tree) < 0)
		goto done;
	dtk_crash_point("after-index-md");
	if (S_new_index(r, tree, &index, &index_len) < 0)
		goto done;
	if (git_reference_name_to_id(&cur, r->git, j->ref) < 0 ||
	    !git_oid_equal(&cur, &j->new_id)) {
		if (resumed)
			S_ref_lock_stale(r, j);
		if (git_reference_create_matching(&ref, r->git, j->ref, &j->new_id, 1,
		                                  j->has_old ? &j->old_id : NULL,
		                                  "commit: dtk crystallize") < 0) {
			dtk_gitlib_error("cannot move the branch");
			if (strstr(dtk_error_last(), ".lock'")) {
				char *why = dtk_xstrdup(dtk_error_last());
				dtk_error("%s (a git command holds the lock; if none is running, "
				          "one that stopped left it: remove that file)",
				          why);
				free(why);
			}
			goto done;
		}
	}
	dtk_crash_point("after-branch");
	/* the branch first, then the index, as git commit does: no other git
	 * command sees the new index beside the old commit */
	if (S_lock_commit(r, l, index, index_len) < 0)
		goto done;
	dtk_crash_point("after-index");
	if (unlink(journal) < 0 && errno != ENOENT) {
		dtk_error("cannot remove %s: %s", journal, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	git_reference_free(ref);
	git_tree_free(tree);
	git_commit_free(c);
	free(records);
	free(index_md);
	free(journal);
	free(index);
	return rc;
}

/* Returns the branch HEAD names ("refs/heads/..."), or "" when detached;
 * into buf. */
static const char *S_head_branch(const struct dtk_repo *r, char *buf, size_t size)
{
	git_reference *head = NULL;
	buf[0] = '\0';
	if (git_reference_lookup(&head, r->git, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC)
		snprintf(buf, size, "%s", git_reference_symbolic_target(head));
	git_reference_free(head);
	return buf;
}

int dtk_repo_interrupted(struct dtk_repo *r, char *branch, size_t size)
{
	struct journal j;
	int rc = S_journal_read(r, &j);
	if (rc == 1)
		snprintf(branch, size, "%s", j.ref + 11);
	return rc;
}

int dtk_repo_continue(struct dtk_repo *r, char commit_hex[41])
{
	struct ilock l = {-1, NULL, 0, 0};
	struct journal j;
	char head[256];
	git_oid cur;
	int rc = S_journal_read(r, &j), has;

	commit_hex[0] = '\0';
	if (rc <= 0)
		return rc;
	rc = -1;
	if (strcmp(S_head_branch(r, head, sizeof(head)), j.ref)) {
		dtk_error(
		        "the interrupted crystallization is on branch %s, and HEAD is %s%s: check "
		        "out %s and run dtk crystallize --continue again, or drop the run with "
		        "dtk crystallize --abort",
		        j.ref + 11, head[0] ? "on " : "detached", head[0] ? head + 11 : "",
		        j.ref + 11);
		goto done;
	}
	has = git_reference_name_to_id(&cur, r->git, j.ref) == 0;
	if (!(has && git_oid_equal(&cur, &j.new_id)) &&
	    !(j.has_old ? has && git_oid_equal(&cur, &j.old_id) : !has)) {
		dtk_error("branch %s has moved since the crystallization was interrupted; it "
		          "cannot be finished: drop it with dtk crystallize --abort",
		          j.ref + 11);
		goto done;
	}
	if (S_lock_take(r, &l, &j) < 0 || S_finish(r, &j, &l, 1) < 0)
		goto done;
	git_oid_tostr(commit_hex, 41, &j.new_id);
	rc = 1;
done:
	S_lock_rollback(&l);
	return rc;
}

/* Puts path (relative to the work tree) back as it is in the commit old
 * (removes it when old lacks it), if the work tree holds new_tree's
 * version: the file the interrupted run wrote. */
static int S_restore(const struct dtk_repo *r, git_tree *new_tree, git_tree *old_tree,
                     const char *path)
{
	git_tree_entry *ne = NULL, *oe = NULL;
	git_blob *nb = NULL, *ob = NULL;
	char *full = dtk_path_join(r->workdir, path), *cur = NULL;
	size_t len = 0;
	int rc = 0;

	if (git_tree_entry_bypath(&ne, new_tree, path) < 0 ||
	    git_blob_lookup(&nb, r->git, git_tree_entry_id(ne)) < 0 ||
	    dtk_file_read_regular(&cur, &len, full, DTK_MAX_INDEX_BYTES) != 0 ||
	    len != (size_t)git_blob_rawsize(nb) || memcmp(cur, git_blob_rawcontent(nb), len))
		goto done; /* not the run's: leave it */
	if (old_tree && git_tree_entry_bypath(&oe, old_tree, path) == 0 &&
	    git_blob_lookup(&ob, r->git, git_tree_entry_id(oe)) == 0)
		rc = dtk_file_write_atomic(full, git_blob_rawcontent(ob),
		                           (size_t)git_blob_rawsize(ob));
	else if (unlink(full) < 0)
		rc = dtk_error("cannot remove %s: %s", path, strerror(errno));
done:
	git_blob_free(nb);
	git_blob_free(ob);
	git_tree_entry_free(ne);
	git_tree_entry_free(oe);
	free(cur);
	free(full);
	return rc;
}

int dtk_repo_abort(struct dtk_repo *r)
{
	struct journal j;
	struct stat st;
	git_commit *nc = NULL, *oc = NULL;
	git_tree *nt = NULL, *ot = NULL;
	char head[256], *lock = S_index_lock(r), *journal = S_journal_path(r);
	char *records = S_path(r, RECORDS), *index_md = S_path(r, "INDEX.md");
	git_oid cur;
	int rc = S_journal_read(r, &j), has;

	if (rc <= 0)
		goto done;
	rc = -1;
	has = git_reference_name_to_id(&cur, r->git, j.ref) == 0;
	if (has && git_oid_equal(&cur, &j.new_id)) {
		dtk_error("the crystallization was committed already (branch %s is at it); finish "
		          "it with dtk crystallize --continue",
		          j.ref + 11);
		goto done;
	}
	/* the files it wrote go back, when this work tree is its branch's and
	 * the branch did not move */
	if (!strcmp(S_head_branch(r, head, sizeof(head)), j.ref) &&
	    (j.has_old ? has && git_oid_equal(&cur, &j.old_id) : !has)) {
		if (git_commit_lookup(&nc, r->git, &j.new_id) < 0 || git_commit_tree(&nt, nc) < 0 ||
		    (j.has_old && (git_commit_lookup(&oc, r->git, &j.old_id) < 0 ||
		                   git_commit_tree(&ot, oc) < 0))) {
			dtk_gitlib_error("cannot read the interrupted crystallization");
			goto done;
		}
		if (S_restore(r, nt, ot, records) < 0 || S_restore(r, nt, ot, index_md) < 0)
			goto done;
	}
	S_ref_lock_stale(r, &j); /* the branch's lock the run left, if any */
	if (j.lock_ino && lstat(lock, &st) == 0 && (unsigned long long)st.st_dev == j.lock_dev &&
	    (unsigned long long)st.st_ino == j.lock_ino && unlink(lock) < 0) {
		dtk_error("cannot remove %s: %s", lock, strerror(errno));
		goto done;
	}
	if (unlink(journal) < 0 && errno != ENOENT) {
		dtk_error("cannot remove %s: %s", journal, strerror(errno));
		goto done;
	}
	rc = 1;
done:
	git_tree_free(nt);
	git_tree_free(ot);
	git_commit_free(nc);
	git_commit_free(oc);
	free(lock);
	free(journal);
	free(records);
	free(index_md);
	return rc;
}

/* Reads the current branch: its name, and its commit unless unborn. */
static int S_branch(const struct dtk_repo *r, struct journal *j, git_commit **parent)
{
	git_reference *head = NULL;
	int rc;

	*parent = NULL;
	if (git_reference_lookup(&head, r->git, "HEAD") < 0)
		return dtk_gitlib_error("cannot read HEAD");
	if (git_reference_type(head) != GIT_REFERENCE_SYMBOLIC) {
		git_reference_free(head);
		return dtk_error("HEAD is detached; check out a branch first");
	}
	snprintf(j->ref, sizeof(j->ref), "%s", git_reference_symbolic_target(head));
	git_reference_free(head);
	rc = git_reference_name_to_id(&j->old_id, r->git, j->ref);
	if (rc == GIT_ENOTFOUND)
		return 0; /* unborn: the first commit */
	if (rc < 0 || git_commit_lookup(parent, r->git, &j->old_id) < 0)
		return dtk_gitlib_error("cannot read the current branch");
	j->has_old = 1;
	return 0;
}

/* What S_pre_hooks runs: git commit's hooks, or git merge's. */
struct hooks {
	const char *first;   /* "pre-commit", "pre-merge-commit" */
	const char *msgfile; /* in the git directory: "COMMIT_EDITMSG", "MERGE_MSG" */
	const char *source;  /* prepare-commit-msg's: "message", "merge" */
};

/* Sets *out to the id of path's entry in tree (zero when it has none). */
static void S_entry_id(git_tree *tree, const char *path, git_oid *out)
{
	git_tree_entry *e = NULL;
	memset(out, 0, sizeof(*out));
	if (git_tree_entry_bypath(&e, tree, path) == 0)
		git_oid_cpy(out, git_tree_entry_id(e));
	git_tree_entry_free(e);
}

/* Checks the tree the pre-commit hook left in idx (written, its id in
 * *tree_oid) against ours, the run's: an insights/ changed is refused (the
 * run counted and checked the base as it was); an INDEX.md other than ours,
 * the page of that insights/, is put back in idx and *tree_oid (a hook's
 * 'dtk reindex' reads the work tree, which holds the old records until the
 * commit is made). Returns 0, or -1 with the error set. */
static int S_hook_tree(const struct dtk_repo *r, git_index *idx, git_tree *ours, git_oid *tree_oid)
{
	char *dir = S_path(r, "insights"), *page = S_path(r, "INDEX.md");
	git_tree *theirs = NULL;
	git_tree_entry *e = NULL;
	git_oid a, b;
	int rc = -1;

	if (git_tree_lookup(&theirs, r->git, tree_oid) < 0) {
		dtk_gitlib_error("cannot read the index the pre-commit hook left");
		goto done;
	}
	S_entry_id(ours, dir, &a);
	S_entry_id(theirs, dir, &b);
	if (!git_oid_equal(&a, &b)) {
		dtk_error("the pre-commit hook changed %s/ in the commit, which would then hold "
		          "files this run did not check; nothing was written (commit the hook's "
		          "change first, or skip the hook with --no-verify)",
		          dir);
		goto done;
	}
	S_entry_id(ours, page, &a);
	S_entry_id(theirs, page, &b);
	if (!git_oid_equal(&a, &b) &&
	    (git_tree_entry_bypath(&e, ours, page) < 0 ||
	     S_add(idx, page, &a, git_tree_entry_filemode(e)) < 0 || git_index_write(idx) < 0 ||
	     git_index_write_tree_to(tree_oid, idx, r->git) < 0)) {
		dtk_gitlib_error("cannot put INDEX.md back in the index the pre-commit hook left");
		goto done;
	}
	rc = 0;
done:
	git_tree_entry_free(e);
	git_tree_free(theirs);
	free(dir);
	free(page);
	return rc;
}

/* Runs the hooks 'git commit' (or 'git merge', h) runs before the commit
 * (see docs/git.md): pre-commit on an index holding the commit's tree (the
 * hook may change it: *tree_oid is then its tree, checked by S_hook_tree),
 * prepare-commit-msg and commit-msg on COMMIT_EDITMSG (the message they
 * leave, cleaned up as git does, is set in *msg, malloc'd). Returns 0, or -1
 * with the error set when a hook refused. */
static int S_pre_hooks(const struct dtk_repo *r, const struct dtk_commit_req *req,
                       const struct hooks *h, const git_signature *author, git_oid *tree_oid,
                       char **msg)
{
	struct dtk_buf path = DTK_BUF_INIT;
	char *editmsg = dtk_path_join(git_repository_path(r->git), h->msgfile), *text = NULL;
	const char *arg;
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_buf clean = GIT_BUF_INIT;
	size_t len = 0;
	int rc = -1, hook;

	*msg = NULL;
	dtk_buf_printf(&path, "%snext-index-%ld.lock", git_repository_path(r->git), (long)getpid());
	if (git_index_open(&idx, path.ptr) < 0 || git_tree_lookup(&tree, r->git, tree_oid) < 0 ||
	    git_index_read_tree(idx, tree) < 0 || git_index_write(idx) < 0) {
		dtk_gitlib_error("cannot write the index for the hooks");
		goto done;
	}
	hook = req->no_verify ? 0
	                      : dtk_gitcommit_hook(r->git, h->first, path.ptr, author, NULL, NULL);
	if (hook != 0) {
		if (hook > 0)
			dtk_error("the %s hook refused the commit (--no-verify skips it)",
			          h->first);
		goto done;
	}
	if (git_index_read(idx, 1) < 0 || git_index_write_tree_to(tree_oid, idx, r->git) < 0) {
		dtk_gitlib_error("cannot read the index the pre-commit hook left");
		goto done;
	}
	if (S_hook_tree(r, idx, tree, tree_oid) < 0)
		goto done;
	if (dtk_file_write_atomic(editmsg, req->message, strlen(req->message)) < 0)
		goto done;
	/* as git names it to the hooks: from the top of the work tree */
	arg = strncmp(editmsg, r->workdir, strlen(r->workdir)) ? editmsg
	                                                       : editmsg + strlen(r->workdir);
	hook = dtk_gitcommit_hook(r->git, "prepare-commit-msg", path.ptr, author, arg, h->source);
	if (hook == 0 && !req->no_verify)
		hook = dtk_gitcommit_hook(r->git, "commit-msg", path.ptr, author, arg, NULL);
	if (hook != 0) {
		if (hook > 0)
			dtk_error("the %s hook refused the commit%s",
			          req->no_verify ? "prepare-commit-msg"
			                         : "prepare-commit-msg or commit-msg",
			          req->no_verify ? "" : " (--no-verify skips commit-msg)");
		goto done;
	}
	if (dtk_file_read(&text, &len, editmsg, 1u << 24) < 0 ||
	    git_message_prettify(&clean, text, 0, '#') < 0) {
		dtk_gitlib_error("cannot read the commit message the hooks left");
		goto done;
	}
	if (!clean.size) {
		dtk_error("Aborting commit due to empty commit message (left by the hooks)");
		goto done;
	}
	*msg = dtk_xstrndup(clean.ptr, clean.size);
	rc = 0;
done:
	unlink(path.ptr);
	git_buf_dispose(&clean);
	git_tree_free(tree);
	git_index_free(idx);
	dtk_buf_release(&path);
	free(editmsg);
	free(text);
	return rc;
}

/* Creates the commit object, signed when git would sign it (see
 * dtk_gitcommit_wants_sign), without moving any reference. */
static int S_create(const struct dtk_repo *r, const struct dtk_commit_req *req, git_oid *out,
                    const git_signature *author, const git_signature *committer,
                    const char *message, const git_tree *tree, const git_commit *parents[],
                    size_t n_parents)
{
	git_buf buf = GIT_BUF_INIT;
	char *sig = NULL;
	int sign = dtk_gitcommit_wants_sign(r->git, req->sign), rc = -1;

	if (sign < 0)
		return -1;
	if (!sign) {
		if (git_commit_create(out, r->git, NULL, author, committer, NULL, message, tree,
		                      n_parents, parents) < 0)
			return dtk_gitlib_error("cannot create the commit");
		return 0;
	}
	if (git_commit_create_buffer(&buf, r->git, author, committer, NULL, message, tree,
	                             n_parents, parents) < 0) {
		dtk_gitlib_error("cannot create the commit");
		goto done;
	}
	if (dtk_gitcommit_sign(&sig, r->git, buf.ptr, buf.size, req->sign_key, committer) < 0)
		goto done;
	if (git_commit_create_with_signature(out, r->git, buf.ptr, sig, NULL) < 0) {
		dtk_gitlib_error("cannot create the signed commit");
		goto done;
	}
	rc = 0;
done:
	free(sig);
	git_buf_dispose(&buf);
	return rc;
}

/* Appends to out a line per path of the base (and INDEX.md) that differs
 * between the trees base (NULL: none) and tree, in git's order of paths:
 * "A  path", "M  path", "T  path" (its mode changed), "D  path". libgit2's
 * diff of the two trees, limited to insights/ and INDEX.md; a failure
 * leaves out as it was (the list only informs). */
static void S_taken(const struct dtk_repo *r, git_tree *base, git_tree *tree, struct dtk_buf *out)
{
	char *dir = S_path(r, "insights"), *index_md = S_path(r, "INDEX.md");
	char *pages = S_path(r, "index"), *paths[] = {dir, index_md, pages};
	git_diff_options opts;
	git_diff *diff = NULL;
	size_t i, n;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE | GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	opts.pathspec.strings = paths;
	opts.pathspec.count = 3;
	if (git_diff_tree_to_tree(&diff, r->git, base, tree, &opts) < 0)
		goto done;
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *path =
		        d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path;
		int is_index = !strcmp(path, index_md);
		char c = d->status == GIT_DELTA_ADDED     ? 'A'
		         : d->status == GIT_DELTA_DELETED ? 'D'
		         : d->old_file.mode != d->new_file.mode || d->status == GIT_DELTA_TYPECHANGE
		                 ? 'T'
		                 : 'M';
		if (is_index ? c != 'D' : S_run_file(r, path))
			dtk_buf_printf(out, "%c  %s\n", c, path);
	}
done:
	git_diff_free(diff);
	free(dir);
	free(pages);
	free(index_md);
}

int dtk_repo_commit(struct dtk_repo *r, const struct dtk_commit_req *req, char commit_hex[41])
{
	struct ilock l = {-1, NULL, 0, 0};
	struct journal j;
	git_commit *parent = NULL;
	git_tree *base = NULL, *tree = NULL;
	git_signature *author = NULL, *committer = NULL;
	git_oid tree_oid;
	char *message = NULL, *index_file = NULL;
	int rc = -1, decided = 0;

	memset(&j, 0, sizeof(j));
	commit_hex[0] = '\0';
	if (S_journal_read(r, &j) != 0) {
		if (j.ref[0])
			dtk_error("a crystallization on branch %s was interrupted: finish it with "
			          "dtk crystallize --continue, or drop it with dtk crystallize "
			          "--abort",
			          j.ref + 11);
		goto done;
	}
	/* git's index lock first: from here to the new index no git command
	 * can write the index (nor commit), and no check goes stale */
	if (S_lock_take(r, &l, NULL) < 0)
		goto done;
	dtk_crash_point("after-lock");
	if (S_ready(r) < 0 || S_branch(r, &j, &parent) < 0)
		goto done;
	if (parent && git_commit_tree(&base, parent) < 0) {
		dtk_gitlib_error("cannot read HEAD's tree");
		goto done;
	}
	if (S_build_tree(r, base, req, &tree_oid) < 0 ||
	    dtk_gitenv_idents(&author, &committer, r->git, req->author) < 0 ||
	    S_pre_hooks(r, req, &(struct hooks){"pre-commit", "COMMIT_EDITMSG", "message"}, author,
	                &tree_oid, &message) < 0)
		goto done;
	if (git_tree_lookup(&tree, r->git, &tree_oid) < 0) {
		dtk_gitlib_error("cannot read the new tree");
		goto done;
	}
	if (S_create(r, req, &j.new_id, author, committer, message, tree,
	             (const git_commit *[1]){parent}, parent ? 1 : 0) < 0)
		goto done;
	dtk_crash_point("before-journal");
	/* from here on the commit is decided: a run cut short is finished by
	 * dtk crystallize --continue (or dropped by --abort) */
	j.lock_dev = l.dev;
	j.lock_ino = l.ino;
	rc = S_journal_write(r, &j);
	/* written but not synced: there, so decided, and stopped short */
	decided = rc == 0 || rc == DTK_ENOSYNC;
	if (rc < 0)
		goto done;
	rc = -1;
	dtk_crash_point("after-journal");
	if (S_finish(r, &j, &l, 0) < 0)
		goto done;
	git_oid_tostr(commit_hex, 41, &j.new_id);
	if (req->taken) {
		git_commit *made = NULL;
		git_tree *made_tree = NULL;
		/* the tree committed (a pre-commit hook may have changed it) */
		if (git_commit_lookup(&made, r->git, &j.new_id) == 0 &&
		    git_commit_tree(&made_tree, made) == 0)
			S_taken(r, base, made_tree, req->taken);
		git_tree_free(made_tree);
		git_commit_free(made);
	}
	/* as git: post-commit's failure changes nothing */
	index_file = dtk_path_join(git_repository_path(r->git), "index");
	dtk_gitcommit_hook(r->git, "post-commit", index_file, author, NULL, NULL);
	rc = 0;
done:
	if (decided && rc < 0) {
		char *why = dtk_xstrdup(dtk_error_last());
		dtk_error("%s; the crystallization was interrupted: finish it with dtk crystallize "
		          "--continue, or drop it with dtk crystallize --abort",
		          why);
		free(why);
		rc = DTK_REPO_INTERRUPTED;
	}
	if (!decided)
		S_lock_rollback(&l);
	else if (l.fd >= 0) { /* the journal names it: --continue reuses it */
		close(l.fd);
		free(l.path);
	} else {
		free(l.path);
	}
	git_signature_free(author);
	git_signature_free(committer);
	git_tree_free(tree);
	git_tree_free(base);
	git_commit_free(parent);
	free(message);
	free(index_file);
	return rc;
}

/* ---- merging (the INDEX.md merge driver) and configuration ---- */

int dtk_repo_is_shallow(struct dtk_repo *r)
{
	return git_repository_is_shallow(r->git) == 1;
}

const char *dtk_repo_prefix(const struct dtk_repo *r)
{
	return r->prefix;
}

char *dtk_repo_hook_path(struct dtk_repo *r, const char *name)
{
	return dtk_gitcommit_hook_path(r->git, name);
}

/* Removes config.lock (lock) when a dtk run killed while writing the
 * configuration left it: a mark dtk-config-<pid> of a process that no longer
 * exists, made at most 2 s before the lock (a run makes its mark, then at
 * once libgit2's lock). Marks of dead runs go in any case. */
static void S_config_stale(const char *common, const char *lock)
{
	DIR *d = opendir(common);
	struct dirent *de;
	struct stat ls, ms;
	int has = lstat(lock, &ls) == 0;
	char *hooks = dtk_path_join(common, "hooks");
	size_t n;

	/* and what a killed setup-git left beside the files it writes */
	dtk_file_sweep(common);
	dtk_file_sweep(hooks);
	free(hooks);
	while (d && (de = readdir(d))) {
		const char *s = de->d_name;
		if (strncmp(s, "dtk-config-", 11) || !dtk_file_dead_pid(s + 11, &n) || s[11 + n] ||
		    fstatat(dirfd(d), s, &ms, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (has && S_ISREG(ls.st_mode) && ls.st_mtime >= ms.st_mtime &&
		    ls.st_mtime - ms.st_mtime <= 2 && unlink(lock) == 0)
			has = 0;
		unlinkat(dirfd(d), s, 0);
	}
	if (d)
		closedir(d);
}

int dtk_repo_config_set(struct dtk_repo *r, const char *key, const char *value)
{
	git_config *cfg = NULL, *local = NULL;
	const char *common = git_repository_commondir(r->git);
	char *lock = dtk_path_join(common, "config.lock");
	struct dtk_buf mark = DTK_BUF_INIT;
	int rc = -1, fd;

	S_config_stale(common, lock);
	dtk_file_sweep(r->workdir);
	dtk_buf_printf(&mark, "%sdtk-config-%ld", common, (long)getpid());
	fd = open(mark.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd >= 0)
		close(fd);
	if (git_repository_config(&cfg, r->git) < 0 ||
	    git_config_open_level(&local, cfg, GIT_CONFIG_LEVEL_LOCAL) < 0 ||
	    git_config_set_string(local, key, value) < 0) {
		if (access(lock, F_OK) == 0)
			dtk_error("cannot write the repository's configuration: %s exists: another "
			          "git process is writing it, or one crashed; remove the file if "
			          "none runs",
			          lock);
		else
			dtk_gitlib_error("cannot write the repository's configuration");
	} else {
		rc = 0;
	}
	unlink(mark.ptr);
	dtk_buf_release(&mark);
	free(lock);
	git_config_free(local);
	git_config_free(cfg);
	return rc;
}

/*
 * Finding the merge git runs the driver in, by one rule (docs/git.md): ours
 * is HEAD; theirs and the ancestor are, for the first commit X that git
 * names for the operation under way (GITHEAD_<id> in 'git merge' and
 * MERGE_HEAD, then CHERRY_PICK_HEAD, REVERT_HEAD, REBASE_HEAD, the current line of
 * rebase-merge/done and of sequencer/todo), the pair whose INDEX.md blobs are
 * %B and %O: X and its merge base with HEAD (a merge), X and its parent (X
 * applied), or X's parent and X (X reverted). Nothing else is searched.
 */
struct sides {
	git_oid ours, theirs, base;
};

/* Returns 1 when commit id's file rel (INDEX.md or a page of index/, from
 * the base root) has the blob id want. */
static int S_index_is(const struct dtk_repo *r, const git_oid *id, const char *rel,
                      const git_oid *want)
{
	git_commit *c = NULL;
	git_oid blob;
	int is = git_commit_lookup(&c, r->git, id) == 0 && S_lookup(r, c, rel, &blob) == 0 &&
	         git_oid_equal(&blob, want);
	git_commit_free(c);
	return is;
}

/* Returns 1 and fills s->theirs and s->base when theirs t and ancestor b
 * carry the driver's files of rel (want: O, B). */
static int S_pair(const struct dtk_repo *r, const git_oid *t, const git_oid *b, const char *rel,
                  const git_oid want[2], struct sides *s)
{
	if (!S_index_is(r, t, rel, &want[1]) || !S_index_is(r, b, rel, &want[0]))
		return 0;
	git_oid_cpy(&s->theirs, t);
	git_oid_cpy(&s->base, b);
	return 1;
}

/* Returns 1 when commit x, named by git, is theirs: in a merge (merge set),
 * with its merge base with HEAD; else applied or reverted (S_pair). */
static int S_fits(const struct dtk_repo *r, const git_oid *x, int merge, const char *rel,
                  const git_oid want[2], struct sides *s)
{
	git_commit *c = NULL;
	git_oid mb;
	int fit = 0;

	if (git_commit_lookup(&c, r->git, x) < 0 || git_oid_equal(x, &s->ours))
		goto done;
	if (merge)
		fit = git_merge_base(&mb, r->git, &s->ours, x) == 0 &&
		      S_pair(r, x, &mb, rel, want, s);
	else if (git_commit_parentcount(c) > 0)
		fit = S_pair(r, x, git_commit_parent_id(c, 0), rel, want, s) ||
		      S_pair(r, git_commit_parent_id(c, 0), x, rel, want, s);
done:
	git_commit_free(c);
	return fit;
}

/* Appends to ids the commit named by the current line of git's state file
 * rel (the last line of rebase-merge/done, the first of sequencer/todo). */
static void S_line_commit(const struct dtk_repo *r, const char *rel, int last, git_oid *ids,
                          size_t *n)
{
	char *path = dtk_path_join(git_repository_path(r->git), rel), *text = NULL;
	char *line, *save = NULL, *cur = NULL, word[64], oid[64];
	size_t len;

	if (dtk_file_read(&text, &len, path, 1u << 24) == 0) {
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (line[0] != '#' && (!cur || last))
				cur = line;
		if (cur && sscanf(cur, "%63s %63s", word, oid) == 2) {
			git_object *o = NULL;
			if (git_revparse_single(&o, r->git, oid) == 0)
				git_oid_cpy(&ids[(*n)++], git_object_id(o));
			git_object_free(o);
		}
	}
	free(text);
	free(path);
}

/* Finds the three sides of the merge from the driver's files (O, A, B).
 * Returns 0 and fills s, DTK_REPO_NO_SIDES when they cannot be found, -1 with
 * the error set. */
static int S_sides(const struct dtk_repo *r, const char *const files[3], const char *rel,
                   struct sides *s)
{
	static const char *const refs[] = {"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD",
	                                   "REBASE_HEAD"};
	extern char **environ;
	git_oid want[2], ids[16];
	size_t i, n = 0, merges;
	char **e;

	if (git_reference_name_to_id(&s->ours, r->git, "HEAD") < 0)
		return DTK_REPO_NO_SIDES;
	for (i = 0; i < 2; i++) {
		char *text = NULL;
		size_t len = 0;
		int bad;
		if (dtk_file_read(&text, &len, files[i ? 2 : 0], DTK_MAX_INDEX_BYTES) < 0)
			return -1;
		bad = git_odb_hash(&want[i], text, len, GIT_OBJECT_BLOB) < 0;
		free(text);
		if (bad)
			return dtk_gitlib_error("cannot hash a version of INDEX.md");
	}
	for (e = environ; *e && n < 8; e++)
		if (!strncmp(*e, "GITHEAD_", 8) && strchr(*e, '=') - *e - 8 == GIT_OID_HEXSZ &&
		    git_oid_fromstrn(&ids[n], *e + 8, GIT_OID_HEXSZ) == 0)
			n++;
	for (i = 0; i < 4; i++) {
		if (git_reference_name_to_id(&ids[n], r->git, refs[i]) == 0)
			n++;
		if (i == 0)
			merges = n;
	}
	S_line_commit(r, "rebase-merge/done", 1, ids, &n);
	S_line_commit(r, "sequencer/todo", 0, ids, &n);
	for (i = 0; i < n; i++)
		if (S_fits(r, &ids[i], i < merges, rel, want, s))
			return 0;
	return DTK_REPO_NO_SIDES;
}

/* Sets *out to the tree of commit (git_tree_free); returns 0, or -1 (the
 * error not set). */
static int S_commit_tree(git_repository *g, const git_oid *commit, git_tree **out)
{
	git_commit *c = NULL;
	int rc = git_commit_lookup(&c, g, commit) < 0 || git_commit_tree(out, c) < 0 ? -1 : 0;
	git_commit_free(c);
	return rc;
}

/* Sets *id to the blob at path in tree; returns 1, or 0 when there is none
 * (or it is not a blob). */
static int S_blob_at(git_tree *tree, const char *path, git_oid *id)
{
	git_tree_entry *e = NULL;
	int found = git_tree_entry_bypath(&e, tree, path) == 0 &&
	            git_tree_entry_type(e) == GIT_OBJECT_BLOB;

	if (found)
		git_oid_cpy(id, git_tree_entry_id(e));
	git_tree_entry_free(e);
	return found;
}

/* Reads blob id into *data (malloc'd, NUL-terminated; the caller frees) and
 * *len; returns 0, or -1 with the error set to "<what>: <libgit2's reason>". */
static int S_blob_read(git_repository *g, const git_oid *id, const char *what, char **data,
                       size_t *len)
{
	git_blob *blob = NULL;
	if (git_blob_lookup(&blob, g, id) < 0)
		return dtk_gitlib_error(what);
	*len = (size_t)git_blob_rawsize(blob);
	*data = dtk_xstrndup(git_blob_rawcontent(blob), *len);
	git_blob_free(blob);
	return 0;
}

/*
 * A file both sides changed, which git merges with dtk's driver (attribute
 * merge=dtk-insights; with notes, dtk sync's merge, any file of the base):
 * merged by merge, as the driver will, from the trees t[0] base, t[1] ours,
 * t[2] theirs (its conflicts said in notes). Returns 0 and sets *data
 * (malloc'd) and *len; 1 when it conflicts (*data: the text with markers,
 * with notes); 2 when the file is not such a file (git's own merge stands);
 * -1 with the error set.
 */
static int S_driver_merge(const struct dtk_repo *r, git_tree *const t[3], const char *path,
                          dtk_repo_merge_fn merge, struct dtk_buf *notes, char **data, size_t *len)
{
	const char *attr = NULL;
	char *text[3] = {NULL, NULL, NULL};
	size_t tlen[3] = {0, 0, 0};
	git_oid id[3];
	int has[3], i, rc = -1;

	for (i = 0; i < 3; i++)
		has[i] = S_blob_at(t[i], path, &id[i]);
	if (!has[1] || !has[2] || git_oid_equal(&id[1], &id[2]) ||
	    (has[0] && (git_oid_equal(&id[0], &id[1]) || git_oid_equal(&id[0], &id[2]))) ||
	    (!notes && (git_attr_get(&attr, r->git, 0, path, "merge") < 0 || !attr ||
	                strcmp(attr, "dtk-insights"))))
		return 2;
	for (i = 0; i < 3; i++)
		if (has[i] && S_blob_read(r->git, &id[i], S_MERGED, &text[i], &tlen[i]) < 0)
			goto done;
	*data = NULL;
	*len = 0;
	rc = merge(strrchr(path, '/') + 1, text, tlen, data, len, notes);
	if (rc < 0 || (rc && !notes)) {
		free(*data);
		*data = NULL;
	}
done:
	for (i = 0; i < 3; i++)
		free(text[i]);
	return rc;
}

/* Collects the base's files of the merged index idx of the trees t (base,
 * ours, theirs), each file both sides changed merged as dtk's driver merges
 * it; returns DTK_REPO_CONFLICT on a conflict among them. */
static int S_collect(const struct dtk_repo *r, git_index *idx, git_tree *const t[3],
                     dtk_repo_merge_fn merge, struct dtk_memfile **out, size_t *n)
{
	size_t i, cap = 0, plen = strlen(r->prefix) + 9, len = 0;
	const char *prev = NULL;

	for (i = 0; i < git_index_entrycount(idx); i++) {
		const git_index_entry *e = git_index_get_byindex(idx, i);
		char *data = NULL;
		int rc;
		if ((!S_base_file(r, e->path) && !S_uses_file(r, e->path)) ||
		    (prev && !strcmp(prev, e->path)))
			continue; /* a conflict's other stages */
		prev = e->path;
		rc = S_driver_merge(r, t, e->path, merge, NULL, &data, &len);
		if (rc == 2 && git_index_entry_is_conflict(e))
			return DTK_REPO_CONFLICT;
		if (rc == 2)
			rc = S_blob_read(r->git, &e->id, S_MERGED, &data, &len);
		if (rc != 0)
			return rc;
		dtk_grow((void **)out, &cap, *n + 1, sizeof(**out));
		(*out)[*n].name = dtk_xstrdup(e->path + plen);
		(*out)[*n].data = data;
		(*out)[*n].len = len;
		(*n)++;
	}
	return 0;
}

int dtk_repo_merged_insights(struct dtk_repo *r, const char *const files[3], const char *rel,
                             dtk_repo_merge_fn merge, struct dtk_memfile **out, size_t *n)
{
	struct sides s;
	git_tree *t_head = NULL, *t_other = NULL, *t_base = NULL;
	git_index *idx = NULL;
	git_merge_options opts;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = S_sides(r, files, rel, &s)) != 0)
		return rc;
	git_merge_options_init(&opts, GIT_MERGE_OPTIONS_VERSION);
	if (S_commit_tree(r->git, &s.ours, &t_head) < 0 ||
	    S_commit_tree(r->git, &s.theirs, &t_other) < 0 ||
	    S_commit_tree(r->git, &s.base, &t_base) < 0 ||
	    git_merge_trees(&idx, r->git, t_base, t_head, t_other, &opts) < 0) {
		rc = dtk_gitlib_error("cannot merge insights/");
		goto done;
	}
	rc = S_collect(r, idx, (git_tree *const[3]){t_base, t_head, t_other}, merge, out, n);
done:
	if (rc != 0) {
		dtk_memfiles_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	git_index_free(idx);
	git_tree_free(t_head);
	git_tree_free(t_other);
	git_tree_free(t_base);
	return rc;
}

/* ---- dtk sync: an upstream merged into the current branch ---- */

/* A file dtk decided in a sync: merged as data, or INDEX.md. */
struct synced {
	char *path; /* from the top of the work tree */
	char *data; /* its text (with markers when conflict) */
	size_t len;
	int conflict;
};

/* Finds the upstream: s->upstream, else the remote's default branch. Sets
 * s->name and *id; returns 0, or -1 with the error set. */
static int S_upstream(const struct dtk_repo *r, struct dtk_sync *s, git_oid *id)
{
	static const char *const guess[] = {"refs/remotes/origin/HEAD", "refs/remotes/origin/main",
	                                    "refs/remotes/origin/master"};
	git_object *o = NULL, *c = NULL;
	git_reference *ref = NULL, *res = NULL;
	size_t i;
	int rc = -1;

	if (s->upstream) {
		snprintf(s->name, sizeof(s->name), "%s", s->upstream);
		if (git_revparse_single(&o, r->git, s->upstream) < 0 ||
		    git_object_peel(&c, o, GIT_OBJECT_COMMIT) < 0) {
			dtk_error("'%s' names no commit", s->upstream);
		} else {
			git_oid_cpy(id, git_object_id(c));
			rc = 0;
		}
		git_object_free(c);
		git_object_free(o);
		return rc;
	}
	for (i = 0; i < 3 && rc < 0; i++) {
		if (git_reference_lookup(&ref, r->git, guess[i]) == 0 &&
		    git_reference_resolve(&res, ref) == 0) {
			snprintf(s->name, sizeof(s->name), "%s", git_reference_shorthand(res));
			git_oid_cpy(id, git_reference_target(res));
			rc = 0;
		}
		git_reference_free(res);
		git_reference_free(ref);
		res = ref = NULL;
	}
	if (rc < 0)
		dtk_error("no upstream to merge: the remote origin has no default branch here "
		          "(origin/HEAD, origin/main, origin/master; git fetch origin?); name it: "
		          "dtk sync <upstream>");
	return rc;
}

/* Returns 0 when no tracked file differs from HEAD (in the index or the
 * work tree), else -1 with the error set. */
static int S_clean(const struct dtk_repo *r)
{
	git_status_options o;
	git_status_list *l = NULL;
	size_t n;
	int rc = 0;

	git_status_options_init(&o, GIT_STATUS_OPTIONS_VERSION);
	o.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	o.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (git_status_list_new(&l, r->git, &o) < 0)
		return dtk_gitlib_error("cannot read the work tree's status");
	n = git_status_list_entrycount(l);
	if (n) {
		const git_status_entry *e = git_status_byindex(l, 0);
		const git_diff_delta *d = e->head_to_index ? e->head_to_index : e->index_to_workdir;
		rc = dtk_error("the work tree has changes not committed (%s%s); commit or stash "
		               "them first",
		               d->new_file.path, n > 1 ? " and more" : "");
	}
	git_status_list_free(l);
	return rc;
}

/* The message git merge gives the merge of s->name into branch. */
static char *S_merge_msg(const struct dtk_repo *r, const struct dtk_sync *s)
{
	struct dtk_buf b = DTK_BUF_INIT;
	git_reference *ref = NULL;
	const char *kind = "commit", *name = s->name;

	if (git_reference_dwim(&ref, r->git, s->name) == 0) {
		if (!strncmp(git_reference_name(ref), "refs/remotes/", 13))
			kind = "remote-tracking branch";
		else if (!strncmp(git_reference_name(ref), "refs/heads/", 11))
			kind = "branch";
	}
	dtk_buf_printf(&b, "Merge %s '%s'", kind, name);
	if (strcmp(s->branch, "main") && strcmp(s->branch, "master"))
		dtk_buf_printf(&b, " into %s", s->branch);
	dtk_buf_putc(&b, '\n');
	git_reference_free(ref);
	return dtk_buf_detach(&b);
}

/* Adds p to *list, taking it. */
static void S_synced_add(struct synced **list, size_t *n, size_t *cap, struct synced p)
{
	dtk_grow((void **)list, cap, *n + 1, sizeof(**list));
	(*list)[(*n)++] = p;
}

/* Merges the base's files of the merged index idx of the trees t (base,
 * ours, theirs): each both sides changed by s->merge, into *list; then
 * INDEX.md, rendered from the merged files when nothing of insights/
 * conflicts (other files may), else ours' left in conflict. Fills s's lists. Returns the
 * number of paths in conflict, or -1 with the error set. */
static int S_sync_merge(const struct dtk_repo *r, git_index *idx, git_tree *const t[3],
                        struct dtk_sync *s, struct synced **list, size_t *n)
{
	struct dtk_memfile *files = NULL, *pages = NULL;
	struct dtk_buf pconf = DTK_BUF_INIT; /* the pages in conflict */
	size_t i, cap = 0, fcap = 0, nf = 0, np = 0, plen = strlen(r->prefix) + 9;
	char *index_md = S_path(r, "INDEX.md"), *data = NULL;
	const char *prev = NULL, *p;
	size_t len = 0;
	git_oid id;
	int conflicts = 0, in_base = 0, rc = -1;

	for (i = 0; i < git_index_entrycount(idx); i++) {
		const git_index_entry *e = git_index_get_byindex(idx, i);
		int is_base = S_base_file(r, e->path) || S_uses_file(r, e->path), m;
		if (prev && !strcmp(prev, e->path))
			continue; /* a conflict's other stages */
		prev = e->path;
		if (S_page_file(r, e->path)) { /* made again below, as INDEX.md */
			if (git_index_entry_is_conflict(e))
				dtk_buf_printf(&pconf, "%s\n", e->path);
			continue;
		}
		m = is_base ? S_driver_merge(r, t, e->path, s->merge, &s->notes, &data, &len) : 2;
		if (m < 0)
			goto done;
		if (m == 2 && git_index_entry_is_conflict(e)) {
			if (strcmp(e->path, index_md)) {
				dtk_buf_printf(&s->conflicts, "%s\n", e->path);
				conflicts++;
				in_base += is_base;
			}
			continue;
		}
		if (m != 2) {
			dtk_buf_printf(&s->merged, "%s\n", e->path);
			if (m == 1) {
				dtk_buf_printf(&s->conflicts, "%s\n", e->path);
				conflicts++;
				in_base++;
			}
			S_synced_add(list, n, &cap,
			             (struct synced){dtk_xstrdup(e->path), data, len, m == 1});
			data = m == 1 ? NULL : dtk_xstrndup(data, len);
		} else if (is_base && S_blob_read(r->git, &e->id, S_MERGED, &data, &len) < 0) {
			goto done;
		}
		if (is_base) {
			dtk_grow((void **)&files, &fcap, nf + 1, sizeof(*files));
			files[nf++] = (struct dtk_memfile){dtk_xstrdup(e->path + plen), data, len};
		}
		data = NULL;
	}
	if (!in_base && s->render(files, nf, &data, &pages, &np, &s->notes) == 0) {
		S_synced_add(list, n, &cap,
		             (struct synced){dtk_xstrdup(index_md), data, strlen(data), 0});
		/* the pages: those made, every other of index/ removed */
		for (i = git_index_entrycount(idx); i-- > 0;) {
			const git_index_entry *e = git_index_get_byindex(idx, i);
			if (S_page_file(r, e->path) &&
			    git_index_remove(idx, e->path, git_index_entry_stage(e)) < 0) {
				dtk_gitlib_error("cannot update the index");
				goto done;
			}
		}
		for (i = 0; i < np; i++) {
			S_synced_add(list, n, &cap,
			             (struct synced){S_path(r, pages[i].name), (char *)pages[i].data,
			                             pages[i].len, 0});
			pages[i].data = NULL;
		}
	} else if (S_blob_at(t[1], index_md, &id)) {
		if (S_blob_read(r->git, &id, S_MERGED, &data, &len) < 0)
			goto done;
		S_synced_add(list, n, &cap, (struct synced){dtk_xstrdup(index_md), data, len, 1});
		dtk_buf_printf(&s->conflicts, "%s\n", index_md);
		conflicts++;
		/* the pages in conflict stay so */
		for (p = pconf.ptr; p && *p; p = strchr(p, '\n') + 1)
			conflicts++;
		dtk_buf_put(&s->conflicts, pconf.ptr, pconf.len);
	}
	data = NULL;
	rc = conflicts;
done:
	free(data);
	free(index_md);
	dtk_buf_release(&pconf);
	dtk_memfiles_free(pages, np);
	dtk_memfiles_free(files, nf);
	return rc;
}

/* Puts f into idx: merged (stage 0), or in conflict with the three trees'
 * versions as its stages. Returns 0, or -1 with the error set. */
static int S_sync_put(const struct dtk_repo *r, git_index *idx, git_tree *const t[3],
                      const struct synced *f)
{
	git_index_entry st[3];
	git_tree_entry *te[3] = {NULL, NULL, NULL};
	git_oid oid;
	unsigned mode = GIT_FILEMODE_BLOB;
	int i, rc = -1;

	for (i = 0; i < 3; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		if (git_tree_entry_bypath(&te[i], t[i], f->path) == 0) {
			st[i].path = f->path;
			st[i].mode = git_tree_entry_filemode(te[i]);
			git_oid_cpy(&st[i].id, git_tree_entry_id(te[i]));
			if (i == 1)
				mode = st[i].mode;
		}
	}
	git_index_conflict_remove(idx, f->path);
	git_index_remove(idx, f->path, 0);
	if (!f->conflict) {
		rc = S_blob(r, f->path, f->data, f->len, &oid) < 0
		             ? -1
		             : S_add(idx, f->path, &oid, mode);
	} else if (git_index_conflict_add(idx, te[0] ? &st[0] : NULL, te[1] ? &st[1] : NULL,
	                                  te[2] ? &st[2] : NULL) < 0) {
		dtk_gitlib_error("cannot update the index");
	} else {
		rc = 0;
	}
	for (i = 0; i < 3; i++)
		git_tree_entry_free(te[i]);
	return rc;
}

/* Writes the file name of the git directory. */
static int S_gitdir_write(const struct dtk_repo *r, const char *name, const char *text)
{
	char *path = dtk_path_join(git_repository_path(r->git), name);
	int rc = dtk_file_write_atomic(path, text, strlen(text));
	free(path);
	return rc;
}

/* Moves the branch of j from its commit to id, as git merge logs it. */
static int S_sync_move(const struct dtk_repo *r, const struct journal *j, const git_oid *id,
                       const struct dtk_sync *s, const char *how)
{
	struct dtk_buf log = DTK_BUF_INIT;
	git_reference *ref = NULL;
	int rc = 0;

	dtk_buf_printf(&log, "merge %s: %s", s->name, how);
	if (git_reference_create_matching(&ref, r->git, j->ref, id, 1, &j->old_id, log.ptr) < 0)
		rc = dtk_gitlib_error("cannot move the branch");
	git_reference_free(ref);
	dtk_buf_release(&log);
	return rc;
}

/* Commits the merge the index holds, as git merge does (its hooks, git's
 * identity and signing), moves the branch, ends the merge's state. */
static int S_sync_commit(const struct dtk_repo *r, const struct journal *j,
                         git_commit *const parents[2], struct dtk_sync *s, const char *message)
{
	struct dtk_commit_req req = {.message = message, .sign = -1, .no_verify = s->no_verify};
	git_signature *author = NULL, *committer = NULL;
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_oid tree_oid, id;
	char *msg = NULL, *index_file = dtk_path_join(git_repository_path(r->git), "index");
	int rc = -1;

	if (git_repository_index(&idx, r->git) < 0 || git_index_read(idx, 1) < 0 ||
	    git_index_write_tree(&tree_oid, idx) < 0) {
		dtk_gitlib_error("cannot write the merge's tree");
		goto done;
	}
	if (dtk_gitenv_idents(&author, &committer, r->git, NULL) < 0)
		goto done;
	if (S_pre_hooks(r, &req, &(struct hooks){"pre-merge-commit", "MERGE_MSG", "merge"}, author,
	                &tree_oid, &msg) < 0) {
		char *why = dtk_xstrdup(dtk_error_last());
		dtk_error("%s; not committing the merge: conclude it with 'git commit' (or 'git "
		          "merge --abort')",
		          why);
		free(why);
		goto done;
	}
	if (git_tree_lookup(&tree, r->git, &tree_oid) < 0) {
		dtk_gitlib_error("cannot read the merge's tree");
		goto done;
	}
	if (S_create(r, &req, &id, author, committer, msg, tree,
	             (const git_commit *[2]){parents[0], parents[1]}, 2) < 0 ||
	    S_sync_move(r, j, &id, s, "Merge made by dtk sync.") < 0)
		goto done;
	git_oid_tostr(s->commit, sizeof(s->commit), &id);
	git_repository_state_cleanup(r->git);
	/* as git: post-merge's failure changes nothing */
	dtk_gitcommit_hook(r->git, "post-merge", index_file, author, "0", NULL);
	rc = 0;
done:
	git_signature_free(author);
	git_signature_free(committer);
	git_tree_free(tree);
	git_index_free(idx);
	free(index_file);
	free(msg);
	return rc;
}

/* Checks out the tree of commit id over HEAD's (the work tree is clean)
 * and moves the branch there: a fast-forward. */
static int S_sync_ff(const struct dtk_repo *r, const struct journal *j, const git_oid *id,
                     const struct dtk_sync *s)
{
	git_checkout_options co;
	git_commit *c = NULL;
	git_signature *author = NULL, *committer = NULL;
	char *index_file = dtk_path_join(git_repository_path(r->git), "index");
	int rc = -1;

	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_SAFE;
	if (git_commit_lookup(&c, r->git, id) < 0 ||
	    git_checkout_tree(r->git, (const git_object *)c, &co) < 0) {
		dtk_gitlib_error("cannot check out the upstream");
		goto done;
	}
	if (S_sync_move(r, j, id, s, "Fast-forward") < 0)
		goto done;
	if (dtk_gitenv_idents(&author, &committer, r->git, NULL) == 0)
		dtk_gitcommit_hook(r->git, "post-merge", index_file, author, "0", NULL);
	rc = 0;
done:
	git_signature_free(author);
	git_signature_free(committer);
	git_commit_free(c);
	free(index_file);
	return rc;
}

int dtk_repo_sync(struct dtk_repo *r, struct dtk_sync *s)
{
	struct journal j;
	struct synced *list = NULL;
	git_commit *c[2] = {NULL, NULL};
	git_tree *t[3] = {NULL, NULL, NULL};
	git_index *idx = NULL;
	git_checkout_options co;
	git_merge_options opts;
	git_oid up, mb;
	struct dtk_buf mmsg = DTK_BUF_INIT;
	char *msg = NULL, hex[42] = {0};
	size_t i, n = 0;
	int rc = -1, conflicts = 0;

	memset(&j, 0, sizeof(j));
	if (S_ready(r) < 0 || S_clean(r) < 0 || S_branch(r, &j, &c[0]) < 0 ||
	    S_upstream(r, s, &up) < 0)
		goto done;
	if (!c[0]) {
		dtk_error("the branch has no commit yet");
		goto done;
	}
	memcpy(s->branch, j.ref + 11, strnlen(j.ref + 11, sizeof(s->branch) - 1));
	git_oid_tostr(s->theirs, sizeof(s->theirs), &up);
	if (git_merge_base(&mb, r->git, &j.old_id, &up) < 0) {
		dtk_gitlib_error("refusing to merge unrelated histories");
		goto done;
	}
	if (git_oid_equal(&mb, &up)) {
		s->state = DTK_SYNC_UP_TO_DATE;
		rc = 0;
		goto done;
	}
	if (git_oid_equal(&mb, &j.old_id)) {
		s->state = DTK_SYNC_FAST_FORWARD;
		rc = s->dry_run ? 0 : S_sync_ff(r, &j, &up, s);
		goto done;
	}
	git_merge_options_init(&opts, GIT_MERGE_OPTIONS_VERSION);
	if (git_commit_lookup(&c[1], r->git, &up) < 0 || S_commit_tree(r->git, &mb, &t[0]) < 0 ||
	    git_commit_tree(&t[1], c[0]) < 0 || git_commit_tree(&t[2], c[1]) < 0 ||
	    git_merge_trees(&idx, r->git, t[0], t[1], t[2], &opts) < 0) {
		dtk_gitlib_error("cannot merge");
		goto done;
	}
	conflicts = S_sync_merge(r, idx, t, s, &list, &n);
	if (conflicts < 0)
		goto done;
	s->state = conflicts ? DTK_SYNC_STOPPED : DTK_SYNC_MERGED;
	if (s->dry_run) {
		rc = 0;
		goto done;
	}
	for (i = 0; i < n; i++)
		if (S_sync_put(r, idx, t, &list[i]) < 0)
			goto done;
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_SAFE;
	co.our_label = "HEAD";
	co.their_label = s->name;
	/* first: a file in the way (untracked) stops it before it writes */
	if (git_checkout_index(r->git, idx, &co) < 0) {
		dtk_gitlib_error("cannot write the merge into the work tree");
		goto done;
	}
	/* the merge's state, as git merge writes it */
	msg = S_merge_msg(r, s);
	dtk_buf_puts(&mmsg, msg);
	if (conflicts) {
		const char *p = s->conflicts.ptr, *nl;
		dtk_buf_puts(&mmsg, "\n# Conflicts:\n");
		for (; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			dtk_buf_printf(&mmsg, "#\t%.*s\n", (int)(nl - p), p);
		}
	}
	git_oid_tostr(hex, 41, &j.old_id);
	hex[40] = '\n';
	if (S_gitdir_write(r, "ORIG_HEAD", hex) < 0)
		goto done;
	snprintf(hex, sizeof(hex), "%s\n", s->theirs);
	if (S_gitdir_write(r, "MERGE_HEAD", hex) < 0 || S_gitdir_write(r, "MERGE_MODE", "") < 0 ||
	    S_gitdir_write(r, "MERGE_MSG", mmsg.ptr) < 0)
		goto done;
	/* dtk's own conflict text (markers around the entry), as its driver
	 * leaves it */
	for (i = 0; i < n; i++) {
		char *full = dtk_path_join(r->workdir, list[i].path);
		int bad = list[i].conflict &&
		          dtk_file_write_atomic(full, list[i].data, list[i].len) < 0;
		free(full);
		if (bad)
			goto done;
	}
	rc = conflicts ? 0 : S_sync_commit(r, &j, c, s, mmsg.ptr);
done:
	for (i = 0; i < n; i++) {
		free(list[i].path);
		free(list[i].data);
	}
	free(list);
	free(msg);
	dtk_buf_release(&mmsg);
	git_index_free(idx);
	for (i = 0; i < 3; i++)
		git_tree_free(t[i]);
	git_commit_free(c[0]);
	git_commit_free(c[1]);
	return rc;
}

void dtk_sync_release(struct dtk_sync *s)
{
	if (!s)
		return;
	dtk_buf_release(&s->merged);
	dtk_buf_release(&s->conflicts);
	dtk_buf_release(&s->notes);
}
