/* repo_history.c: reading history: a file's history walked, HEAD's version
 * of a file, a past commit's files. */
#include "repo_int.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* The parents of a commit whose files the walk compares (every parent is
 * walked; a commit with more is met for its trailer only). */
#define WALK_MAX_PARENTS 16
/* What a version the walk cannot read says (the walk goes on without it). */
#define HISTORY "cannot read a file of the history"

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
	if (blob && dtk_repo_read_blob(r, blob, HISTORY, &now, &st.now_len) == 0)
		st.now = now;
	for (i = 0; blob && i < n; i++)
		if (dtk_repo_read_blob(r, &pblobs[i], HISTORY, &prevs[k], &lens[k]) == 0)
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

/* The commits a walk is yet to meet, in order (by commit time, then id: the
 * next one last; the lines of history open at once, a few), and the ids of
 * every commit put there (a set: a commit reached by two paths is met once). */
struct walk {
	git_commit **next;
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

/* Puts c in w's order (w owns it then). */
static void S_push(struct walk *w, git_commit *c)
{
	size_t i = w->n++;

	dtk_grow((void **)&w->next, &w->cap, w->n, sizeof(*w->next));
	for (; i > 0 && S_before(w->next[i - 1], c); i--)
		w->next[i] = w->next[i - 1];
	w->next[i] = c;
}

/* Takes the next commit out of w (the caller frees it), or NULL. */
static git_commit *S_pop(struct walk *w)
{
	return w->n ? w->next[--w->n] : NULL;
}

/* Meets commit c of walk w: calls fn when the file rel differs from every
 * parent's (a merge that took it from one parent as it was changed
 * nothing), or for its trailer; puts its parents not met yet in w. */
static int S_meet(struct dtk_repo *r, struct walk *w, git_commit *c, const char *rel,
                  const char *trailer, dtk_repo_walk_fn fn, void *arg)
{
	git_oid blob, pblobs[WALK_MAX_PARENTS];
	size_t n = git_commit_parentcount(c), i, k = 0;
	int has = dtk_repo_lookup(r, git_commit_id(c), rel, &blob), cut = n > WALK_MAX_PARENTS,
	    changed = has, rc = 0;

	for (i = 0; i < n; i++) {
		git_commit *p = NULL;
		/* a parent that cannot be read: history is cut off there */
		if (git_commit_parent(&p, c, (unsigned)i) < 0) {
			cut = 1;
			continue;
		}
		/* past WALK_MAX_PARENTS (an octopus): walked on, not compared */
		if (has && i < WALK_MAX_PARENTS &&
		    dtk_repo_lookup(r, git_commit_id(p), rel, &pblobs[k]) &&
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
	free(w.next);
	free(w.seen);
	return rc;
}

int dtk_repo_read_head(struct dtk_repo *r, const char *rel, char **data, size_t *len)
{
	git_oid head, oid;
	char what[320];

	*data = NULL;
	*len = 0;
	if (git_reference_name_to_id(&head, r->git, "HEAD") < 0)
		return DTK_REPO_UNBORN;
	if (!dtk_repo_lookup(r, &head, rel, &oid))
		return 0;
	snprintf(what, sizeof(what), "cannot read %s at HEAD", rel);
	return dtk_repo_read_blob(r, &oid, what, data, len) < 0 ? -1 : DTK_REPO_FOUND;
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
		struct dtk_buf p = DTK_BUF_INIT;
		const char *t, *end, *seg;
		size_t len;
		unsigned mode = 0;
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
		if (bad || !dtk_repo_entry(tree, p.ptr, &id, &mode)) {
			dtk_buf_release(&p);
			break;
		}
		if (mode == GIT_FILEMODE_LINK) {
			char *slash = strrchr(p.ptr, '/');
			free(path);
			path = dtk_xstrndup(p.ptr, slash ? (size_t)(slash - p.ptr) : 0);
			dtk_buf_release(&p);
			continue;
		}
		if ((mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE) &&
		    git_blob_lookup(out, r->git, &id) == 0)
			rc = 0;
		dtk_buf_release(&p);
		break;
	}
	free(path);
	return rc;
}

int dtk_repo_extract(struct dtk_repo *r, const char *commit_hex, const char *rel, const char *dir)
{
	git_tree *tree = NULL, *sub = NULL;
	char *path = dtk_repo_path(r, rel), *out = dtk_path_join(dir, rel);
	git_oid id;
	size_t i;
	int rc = -1;

	mkdir(out, 0755);
	if (git_oid_fromstr(&id, commit_hex) < 0 || dtk_repo_tree(r, &id, &tree) < 0) {
		dtk_gitlib_error("cannot read the previous run's commit");
		goto done;
	}
	if (!dtk_repo_entry(tree, path, &id, NULL) || git_tree_lookup(&sub, r->git, &id) < 0) {
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
	git_tree_free(tree);
	free(path);
	free(out);
	return rc;
}
