/* repo_merge.c: the three sides of the merge git runs dtk's driver in, and
 * dtk sync's merge of an upstream. */
#include "repo_int.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "gitcommit.h"
#include "gitenv.h"

#include <stdlib.h>
#include <string.h>

/* What dtk_repo_read_blob says when a file of a merge cannot be read. */
#define S_MERGED "cannot read a merged file"

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
	git_oid blob;
	return dtk_repo_lookup(r, id, rel, &blob) && git_oid_equal(&blob, want);
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
	for (i = 0; i < 2; i++)
		if (git_odb_hashfile(&want[i], files[i ? 2 : 0], GIT_OBJECT_BLOB) < 0)
			return dtk_gitlib_error("cannot hash a version of INDEX.md");
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
		has[i] = dtk_repo_entry(t[i], path, &id[i], NULL);
	if (!has[1] || !has[2] || git_oid_equal(&id[1], &id[2]) ||
	    (has[0] && (git_oid_equal(&id[0], &id[1]) || git_oid_equal(&id[0], &id[2]))) ||
	    (!notes && (git_attr_get(&attr, r->git, 0, path, "merge") < 0 || !attr ||
	                strcmp(attr, "dtk-insights"))))
		return 2;
	for (i = 0; i < 3; i++)
		if (has[i] && dtk_repo_read_blob(r, &id[i], S_MERGED, &text[i], &tlen[i]) < 0)
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
		if ((!dtk_repo_base_file(r, e->path) && !dtk_repo_uses_file(r, e->path)) ||
		    (prev && !strcmp(prev, e->path)))
			continue; /* a conflict's other stages */
		prev = e->path;
		rc = S_driver_merge(r, t, e->path, merge, NULL, &data, &len);
		if (rc == 2 && git_index_entry_is_conflict(e))
			return DTK_REPO_CONFLICT;
		if (rc == 2)
			rc = dtk_repo_read_blob(r, &e->id, S_MERGED, &data, &len);
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
	if (dtk_repo_tree(r, &s.ours, &t_head) < 0 || dtk_repo_tree(r, &s.theirs, &t_other) < 0 ||
	    dtk_repo_tree(r, &s.base, &t_base) < 0 ||
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
	char *index_md = dtk_repo_path(r, "INDEX.md"), *data = NULL;
	const char *prev = NULL, *p;
	size_t len = 0;
	git_oid id;
	int conflicts = 0, in_base = 0, rc = -1;

	for (i = 0; i < git_index_entrycount(idx); i++) {
		const git_index_entry *e = git_index_get_byindex(idx, i);
		int is_base = dtk_repo_base_file(r, e->path) || dtk_repo_uses_file(r, e->path), m;
		if (prev && !strcmp(prev, e->path))
			continue; /* a conflict's other stages */
		prev = e->path;
		if (dtk_repo_page_file(r, e->path)) { /* made again below, as INDEX.md */
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
		} else if (is_base && dtk_repo_read_blob(r, &e->id, S_MERGED, &data, &len) < 0) {
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
			if (dtk_repo_page_file(r, e->path) &&
			    git_index_remove(idx, e->path, git_index_entry_stage(e)) < 0) {
				dtk_gitlib_error("cannot update the index");
				goto done;
			}
		}
		for (i = 0; i < np; i++) {
			S_synced_add(list, n, &cap,
			             (struct synced){dtk_repo_path(r, pages[i].name),
			                             (char *)pages[i].data, pages[i].len, 0});
			pages[i].data = NULL;
		}
	} else if (dtk_repo_entry(t[1], index_md, &id, NULL)) {
		if (dtk_repo_read_blob(r, &id, S_MERGED, &data, &len) < 0)
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
	int has[3], i;

	for (i = 0; i < 3; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		st[i].path = f->path;
		st[i].mode = GIT_FILEMODE_BLOB;
		has[i] = dtk_repo_entry(t[i], f->path, &st[i].id, &st[i].mode);
	}
	git_index_conflict_remove(idx, f->path);
	git_index_remove(idx, f->path, 0);
	if (!f->conflict)
		return dtk_repo_blob(r, f->path, f->data, f->len, &st[0].id) < 0
		               ? -1
		               : dtk_repo_index_add(idx, f->path, &st[0].id, st[1].mode);
	if (git_index_conflict_add(idx, has[0] ? &st[0] : NULL, has[1] ? &st[1] : NULL,
	                           has[2] ? &st[2] : NULL) < 0)
		return dtk_gitlib_error("cannot update the index");
	return 0;
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
	char *msg = NULL;
	int rc = -1;

	if (git_repository_index(&idx, r->git) < 0 || git_index_read(idx, 1) < 0 ||
	    git_index_write_tree(&tree_oid, idx) < 0) {
		dtk_gitlib_error("cannot write the merge's tree");
		goto done;
	}
	if (dtk_gitenv_idents(&author, &committer, r->git, NULL) < 0)
		goto done;
	if (dtk_repo_pre_hooks(r, &req, &(struct hooks){"pre-merge-commit", "MERGE_MSG", "merge"},
	                       author, &tree_oid, &tree, &msg) < 0) {
		char *why = dtk_xstrdup(dtk_error_last());
		dtk_error("%s; not committing the merge: conclude it with 'git commit' (or 'git "
		          "merge --abort')",
		          why);
		free(why);
		goto done;
	}
	if (dtk_repo_create_commit(r, &req, &id, author, committer, msg, tree,
	                           (const git_commit *[2]){parents[0], parents[1]}, 2) < 0 ||
	    S_sync_move(r, j, &id, s, "Merge made by dtk sync.") < 0)
		goto done;
	git_oid_tostr(s->commit, sizeof(s->commit), &id);
	git_repository_state_cleanup(r->git);
	/* as git: post-merge's failure changes nothing */
	dtk_gitcommit_hook(r->git, "post-merge", NULL, author, "0", NULL);
	rc = 0;
done:
	git_signature_free(author);
	git_signature_free(committer);
	git_tree_free(tree);
	git_index_free(idx);
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
		dtk_gitcommit_hook(r->git, "post-merge", NULL, author, "0", NULL);
	rc = 0;
done:
	git_signature_free(author);
	git_signature_free(committer);
	git_commit_free(c);
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
	if (dtk_repo_ready(r) < 0 || S_clean(r) < 0 || dtk_repo_branch(r, &j, &c[0]) < 0 ||
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
	if (git_commit_lookup(&c[1], r->git, &up) < 0 || dtk_repo_tree(r, &mb, &t[0]) < 0 ||
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
