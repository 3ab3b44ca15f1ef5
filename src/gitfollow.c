/*
 * gitfollow.c: dtk_repo_follow_renumbered: after a merge in which dtk's
 * driver renumbered theirs' entries, theirs' references to them in the
 * other files of insights/ follow (docs/merging.md). git merges each file on
 * its own, and takes a file only one side changed without running any
 * driver, so this runs over the merge's result, from dtk's hooks.
 */
#include "dtk/repo.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/merge.h"
#include "dtk/ytree.h"
#include "gitint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The three commits of the merge and their trees. */
struct S_sides {
	git_oid base, ours, theirs;
	git_tree *t[3]; /* base, ours, theirs */
};

/* The entries of theirs renumbered in the merge (malloc'd). */
struct S_renamed {
	struct dtk_merge_rename *r;
	size_t n, cap;
};

/* Reads the one commit the file MERGE_HEAD of the git directory names into
 * *out; returns 1, or 0 when there is none or several (an octopus). */
static int S_merge_head(git_repository *g, git_oid *out)
{
	char *path = dtk_path_join(git_repository_path(g), "MERGE_HEAD"), *text = NULL;
	size_t len = 0;
	int found = 0;

	if (dtk_file_read(&text, &len, path, 4096) == 0 && len >= GIT_OID_HEXSZ &&
	    (len == GIT_OID_HEXSZ || (text[GIT_OID_HEXSZ] == '\n' && len == GIT_OID_HEXSZ + 1))) {
		text[GIT_OID_HEXSZ] = '\0';
		found = git_oid_fromstr(out, text) == 0;
	}
	free(text);
	free(path);
	return found;
}

/* The commit 'git merge --squash' merged, which 'git commit' concludes: the
 * first commit the file SQUASH_MSG of the git directory lists ("commit
 * <id>" lines, theirs' tip first). Returns 1 when found. */
static int S_squash_head(git_repository *g, git_oid *out)
{
	char *path = dtk_path_join(git_repository_path(g), "SQUASH_MSG"), *text = NULL, *p;
	size_t len = 0;
	int found = 0;

	if (dtk_file_read(&text, &len, path, 1u << 20) == 0 && (p = strstr(text, "\ncommit ")) &&
	    strspn(p + 8, "0123456789abcdef") == GIT_OID_HEXSZ &&
	    (p[8 + GIT_OID_HEXSZ] == '\n' || p[8 + GIT_OID_HEXSZ] == '\0')) {
		p[8 + GIT_OID_HEXSZ] = '\0';
		found = git_oid_fromstr(out, p + 8) == 0;
	}
	free(text);
	free(path);
	return found;
}

/* The commit 'git merge' merges, as it names it to its hooks: one
 * GITHEAD_<id> in the environment (several: an octopus). Returns 1 when
 * found. */
static int S_githead(const git_oid *ours, git_oid *out)
{
	extern char **environ;
	char **e;
	int n = 0;

	for (e = environ; *e; e++) {
		char hex[GIT_OID_HEXSZ + 1];
		const char *eq = strchr(*e, '=');
		git_oid id;
		if (strncmp(*e, "GITHEAD_", 8) || !eq || eq - *e - 8 != GIT_OID_HEXSZ)
			continue;
		memcpy(hex, *e + 8, GIT_OID_HEXSZ);
		hex[GIT_OID_HEXSZ] = '\0';
		if (git_oid_fromstr(&id, hex) < 0 || git_oid_equal(&id, ours))
			continue;
		git_oid_cpy(out, &id);
		n++;
	}
	return n == 1;
}

/*
 * Finds the merge under way: ours is HEAD; theirs is MERGE_HEAD (a merge
 * that stopped, concluded by 'git commit'), else the one GITHEAD_<id>
 * ('git merge' running its pre-merge-commit hook), else the first commit
 * SQUASH_MSG lists ('git merge --squash', concluded by 'git commit'), with
 * their merge base; else CHERRY_PICK_HEAD, with its parent. Returns 0 and fills s; 1 when no
 * such merge is under way; -1 with the error set.
 */
static int S_find_sides(git_repository *g, struct S_sides *s)
{
	const git_oid *commits[3] = {&s->base, &s->ours, &s->theirs};
	git_commit *c = NULL;
	int i;

	if (git_reference_name_to_id(&s->ours, g, "HEAD") < 0)
		return 1;
	if (S_merge_head(g, &s->theirs) || S_githead(&s->ours, &s->theirs) ||
	    S_squash_head(g, &s->theirs)) {
		if (git_merge_base(&s->base, g, &s->ours, &s->theirs) < 0)
			return 1;
	} else if (git_reference_name_to_id(&s->theirs, g, "CHERRY_PICK_HEAD") == 0) {
		if (git_commit_lookup(&c, g, &s->theirs) < 0 || git_commit_parentcount(c) != 1) {
			git_commit_free(c);
			return 1;
		}
		git_oid_cpy(&s->base, git_commit_parent_id(c, 0));
		git_commit_free(c);
	} else {
		return 1;
	}
	for (i = 0; i < 3; i++)
		if (dtk_repo_commit_tree(g, commits[i], &s->t[i]) < 0)
			return dtk_error("cannot read the merge's commits: %s",
			                 git_error_last() ? git_error_last()->message
			                                  : "libgit2 error");
	return 0;
}

/* Returns the entries of text (a node file), parsed into a, or NULL. */
static const struct dtk_yval *S_entries(struct dtk_arena *a, const char *name, const char *text,
                                        size_t len)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_yval *root = NULL;
	const struct dtk_yval *l = NULL;

	if (text && dtk_yaml_parse(&root, a, name, text, len, &d) == 0)
		l = dtk_yval_get(root, "insights");
	dtk_diags_release(&d);
	return l && l->kind == DTK_Y_SEQ ? l : NULL;
}

/* Returns the scalar at key of the entry with id in the entries l, or NULL
 * (no such entry, or no such scalar). */
static const char *S_entry_value(const struct dtk_yval *l, const char *id, const char *key)
{
	size_t i;
	for (i = 0; l && i < l->n; i++) {
		const struct dtk_yval *v = dtk_yval_get(l->items[i], "id");
		if (v && v->kind == DTK_Y_SCALAR && !strcmp(v->str, id)) {
			v = dtk_yval_get(l->items[i], key);
			return v && v->kind == DTK_Y_SCALAR ? v->str : NULL;
		}
	}
	return NULL;
}

/* Returns 1 when the entry id1 of l1 has the title or the claim of the entry
 * id2 of l2. */
static int S_same_entry(const struct dtk_yval *l1, const char *id1, const struct dtk_yval *l2,
                        const char *id2)
{
	static const char *const keys[] = {"title", "claim"};
	int i;

	for (i = 0; i < 2; i++) {
		const char *v1 = S_entry_value(l1, id1, keys[i]),
		           *v2 = S_entry_value(l2, id2, keys[i]);
		if (v1 && v2 && *v1 && !strcmp(v1, v2))
			return 1;
	}
	return 0;
}

/* Returns 1 when the rename r holds in the merged entries m (of theirs' t
 * and ours' o): the entry r->to is theirs' r->from, or at least r->from is
 * still ours'; not when the conflict was resolved otherwise (theirs' entry
 * dropped, or kept at its id and ours' renumbered). */
static int S_still_renamed(const struct dtk_yval *m, const struct dtk_yval *t,
                           const struct dtk_yval *o, const struct dtk_merge_rename *r)
{
	return S_same_entry(m, r->to, t, r->from) ||
	       (S_entry_value(m, r->to, "id") && S_same_entry(m, r->from, o, r->from) &&
	        !S_same_entry(m, r->from, t, r->from));
}

/* The node files of theirs' tree at dir, insights/ (names ending in .yaml,
 * not starting with '.'; with other, the files starting with '_' too):
 * calls fn for each, stopping at its first non-zero return, which it
 * returns. */
typedef int (*S_file_fn)(void *arg, const char *name);
static int S_each_file(git_repository *g, git_tree *theirs, const char *dir, int other,
                       S_file_fn fn, void *arg)
{
	git_tree_entry *e = NULL;
	git_tree *tree = NULL;
	size_t i;
	int rc = 0;

	if (git_tree_entry_bypath(&e, theirs, dir) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_TREE ||
	    git_tree_lookup(&tree, g, git_tree_entry_id(e)) < 0)
		goto done;
	for (i = 0; rc == 0 && i < git_tree_entrycount(tree); i++) {
		const git_tree_entry *f = git_tree_entry_byindex(tree, i);
		const char *name = git_tree_entry_name(f);
		size_t len = strlen(name);
		if (git_tree_entry_type(f) == GIT_OBJECT_BLOB && len > 5 && name[0] != '.' &&
		    !strcmp(name + len - 5, ".yaml") && (other || name[0] != '_'))
			rc = fn(arg, name);
	}
done:
	git_tree_free(tree);
	git_tree_entry_free(e);
	return rc;
}

struct S_run {
	struct dtk_repo *repo;
	git_repository *g;
	struct S_sides s;
	const char *dir; /* the merged base */
	struct S_renamed renamed;
	struct dtk_buf *changed, *notes;
};

/* Reads the three versions of insights/name into text[0..2] (base, ours,
 * theirs; NULL: absent) and the merged one into text[3] (malloc'd; free with
 * S_versions_free in any case). Returns 0; 1 when there is nothing to read
 * the file for: theirs has none, or the same blob as ours, or (with driver)
 * it is not a file git merged with dtk's driver (both sides changed it, its
 * attribute is merge=dtk-insights), or the merged base has no such file;
 * -1 with the error set. */
static int S_versions(struct S_run *run, const char *name, char *text[4], size_t len[4], int driver)
{
	struct dtk_buf path = DTK_BUF_INIT;
	const char *attr = NULL;
	git_oid id[3];
	int has[3], i, rc = 0;
	char *merged;

	dtk_buf_printf(&path, "%sinsights/%s", dtk_repo_prefix(run->repo), name);
	for (i = 0; i < 3; i++)
		has[i] = dtk_repo_blob_at(run->s.t[i], dtk_buf_cstr(&path), &id[i]);
	if (!has[2] || (has[1] && git_oid_equal(&id[1], &id[2])))
		rc = 1;
	/* a file git merges with dtk's driver: both sides changed it */
	else if (driver &&
	         (!has[1] ||
	          (has[0] && (git_oid_equal(&id[0], &id[1]) || git_oid_equal(&id[0], &id[2]))) ||
	          git_attr_get(&attr, run->g, 0, dtk_buf_cstr(&path), "merge") < 0 || !attr ||
	          strcmp(attr, "dtk-insights")))
		rc = 1;
	for (i = 0; rc == 0 && i < 3; i++)
		if (has[i] && dtk_repo_blob_read(run->g, &id[i], "cannot read a file of the merge",
		                                 &text[i], &len[i]) < 0)
			rc = -1;
	if (rc == 0) {
		merged = dtk_path_join(run->dir, "insights");
		path.len = 0;
		dtk_buf_printf(&path, "%s/%s", merged, name);
		free(merged);
		if (dtk_file_read(&text[3], &len[3], dtk_buf_cstr(&path), DTK_MAX_FILE_BYTES) < 0)
			rc = 1; /* not in the merged base (or not readable): nothing there */
	}
	dtk_buf_release(&path);
	return rc;
}

static void S_versions_free(char *text[4])
{
	int i;
	for (i = 0; i < 4; i++)
		free(text[i]);
}

/* A node file both sides changed: the entries of theirs the driver
 * renumbered, kept when the merged file holds the new id. */
static int S_renames_of(void *arg, const char *name)
{
	struct S_run *run = arg;
	struct dtk_merge_in in;
	struct dtk_merge_out out;
	struct dtk_arena *a;
	const struct dtk_yval *m, *t, *o;
	char *text[4] = {NULL, NULL, NULL, NULL};
	size_t len[4] = {0, 0, 0, 0}, i;
	int rc = S_versions(run, name, text, len, 1);

	if (rc != 0)
		goto done;
	dtk_merge_in_init(&in, name, text, len);
	dtk_merge_file(&out, &in);
	a = dtk_arena_new();
	m = out.n_renames ? S_entries(a, name, text[3], len[3]) : NULL;
	t = m ? S_entries(a, name, text[2], len[2]) : NULL;
	o = m ? S_entries(a, name, text[1], len[1]) : NULL;
	for (i = 0; i < out.n_renames; i++) {
		if (!S_still_renamed(m, t, o, &out.renames[i]))
			continue; /* resolved otherwise */
		dtk_grow((void **)&run->renamed.r, &run->renamed.cap, run->renamed.n + 1,
		         sizeof(*run->renamed.r));
		run->renamed.r[run->renamed.n++] = out.renames[i];
	}
	dtk_merge_out_release(&out);
	dtk_arena_free(a);
done:
	S_versions_free(text);
	return rc < 0 ? -1 : 0;
}

/* A file of theirs' insights/: theirs' references follow. */
static int S_follow_in(void *arg, const char *name)
{
	struct S_run *run = arg;
	struct dtk_merge_out out;
	char *text[4] = {NULL, NULL, NULL, NULL}, *path = NULL, *dir = NULL;
	size_t len[4] = {0, 0, 0, 0};
	int rc = S_versions(run, name, text, len, 0);

	if (rc != 0)
		goto done;
	if (dtk_merge_follow(&out, name, text[3], len[3], text[1], len[1], text[2], len[2],
	                     run->renamed.r, run->renamed.n) > 0) {
		dir = dtk_path_join(run->dir, "insights");
		path = dtk_path_join(dir, name);
		if (dtk_file_write_atomic(path, out.text, out.len) < 0) {
			rc = -1;
		} else {
			dtk_buf_printf(run->changed, "insights/%s\n", name);
			dtk_buf_put(run->notes, out.notes.ptr, out.notes.len);
		}
	}
	dtk_merge_out_release(&out);
done:
	free(path);
	free(dir);
	S_versions_free(text);
	return rc < 0 ? -1 : 0;
}

/* Returns the id of the entry of l (other than not) whose title and claim
 * are those of the entry id of t, when exactly one has them; else NULL. */
static const char *S_moved_to(const struct dtk_yval *l, const struct dtk_yval *t, const char *id)
{
	const char *title = S_entry_value(t, id, "title"), *claim = S_entry_value(t, id, "claim"),
	           *found = NULL;
	size_t i, n = 0;

	for (i = 0; title && claim && l && i < l->n; i++) {
		const struct dtk_yval *v = dtk_yval_get(l->items[i], "id");
		const char *x = v && v->kind == DTK_Y_SCALAR ? v->str : NULL;
		const char *tt = x ? S_entry_value(l, x, "title") : NULL,
		           *tc = x ? S_entry_value(l, x, "claim") : NULL;
		if (x && strcmp(x, id) && tt && tc && !strcmp(tt, title) && !strcmp(tc, claim)) {
			found = x;
			n++;
		}
	}
	return n == 1 ? found : NULL;
}

/* A node file after a rebase: the entries theirs added (not in base) whose
 * id the result gives another entry, found in the result under another id
 * with the same title and claim (an id theirs may have had too, for
 * another entry: the renumbering cascades, one commit at a time). */
static int S_rebased_of(void *arg, const char *name)
{
	struct S_run *run = arg;
	struct dtk_arena *a = NULL;
	const struct dtk_yval *m, *t, *b;
	char *text[4] = {NULL, NULL, NULL, NULL};
	size_t len[4] = {0, 0, 0, 0}, i;
	int rc = S_versions(run, name, text, len, 0);

	if (rc != 0)
		goto done;
	a = dtk_arena_new();
	m = S_entries(a, name, text[3], len[3]);
	t = S_entries(a, name, text[2], len[2]);
	b = S_entries(a, name, text[0], len[0]);
	for (i = 0; m && t && i < t->n; i++) {
		const struct dtk_yval *v = dtk_yval_get(t->items[i], "id");
		const char *to;
		if (!v || v->kind != DTK_Y_SCALAR || strlen(v->str) >= DTK_MERGE_ID_MAX ||
		    S_entry_value(b, v->str, "id") || !S_entry_value(m, v->str, "id") ||
		    S_same_entry(m, v->str, t, v->str) || !(to = S_moved_to(m, t, v->str)) ||
		    S_same_entry(m, to, t, to) || strlen(to) >= DTK_MERGE_ID_MAX)
			continue;
		dtk_grow((void **)&run->renamed.r, &run->renamed.cap, run->renamed.n + 1,
		         sizeof(*run->renamed.r));
		strcpy(run->renamed.r[run->renamed.n].from, v->str);
		strcpy(run->renamed.r[run->renamed.n].to, to);
		run->renamed.n++;
	}
done:
	dtk_arena_free(a);
	S_versions_free(text);
	return rc < 0 ? -1 : 0;
}

/* Starts run for the merged base at dir, its output going to changed and
 * notes. */
static void S_run_init(struct S_run *run, struct dtk_repo *repo, const char *dir,
                       struct dtk_buf *changed, struct dtk_buf *notes)
{
	memset(run, 0, sizeof(*run));
	run->repo = repo;
	run->g = dtk_repo_git(repo);
	run->dir = dir;
	run->changed = changed;
	run->notes = notes;
}

/* When rc is 0 (run's three trees read): finds the renamed entries with
 * find, for each node file, then makes theirs' references to them follow
 * in every file. Frees what run holds. Returns rc, or -1 on an error. */
static int S_run_finish(struct S_run *run, int rc, S_file_fn find)
{
	char *insights = dtk_path_join(dtk_repo_prefix(run->repo), "insights");
	int i;

	if (rc == 0)
		rc = S_each_file(run->g, run->s.t[2], insights, 0, find, run);
	if (rc == 0 && run->renamed.n)
		rc = S_each_file(run->g, run->s.t[2], insights, 1, S_follow_in, run);
	for (i = 0; i < 3; i++)
		git_tree_free(run->s.t[i]);
	free(run->renamed.r);
	free(insights);
	return rc;
}

int dtk_repo_follow_rebased(struct dtk_repo *repo, const char *theirs, const char *ours,
                            const char *dir, struct dtk_buf *changed, struct dtk_buf *notes)
{
	struct S_run run;
	const git_oid *commits[3] = {&run.s.base, &run.s.ours, &run.s.theirs};
	git_object *o = NULL;
	int rc = 0, i;

	S_run_init(&run, repo, dir, changed, notes);
	for (i = 0; rc == 0 && i < 2; i++) {
		const char *rev = i ? ours : theirs;
		struct dtk_buf spec = DTK_BUF_INIT;
		dtk_buf_printf(&spec, "%s^{commit}", rev);
		if (git_revparse_single(&o, run.g, dtk_buf_cstr(&spec)) < 0)
			rc = dtk_error("cannot read the commit %s: %s", rev,
			               git_error_last() ? git_error_last()->message
			                                : "libgit2 error");
		else
			git_oid_cpy(i ? &run.s.ours : &run.s.theirs, git_object_id(o));
		git_object_free(o);
		o = NULL;
		dtk_buf_release(&spec);
	}
	if (rc == 0 && git_merge_base(&run.s.base, run.g, &run.s.ours, &run.s.theirs) < 0)
		rc = dtk_error("%s and %s have no merge base", theirs, ours);
	for (i = 0; rc == 0 && i < 3; i++)
		if (dtk_repo_commit_tree(run.g, commits[i], &run.s.t[i]) < 0)
			rc = dtk_error("cannot read the rebase's commits: %s",
			               git_error_last() ? git_error_last()->message
			                                : "libgit2 error");
	return S_run_finish(&run, rc, S_rebased_of);
}

int dtk_repo_follow_renumbered(struct dtk_repo *repo, const char *dir, struct dtk_buf *changed,
                               struct dtk_buf *notes)
{
	struct S_run run;

	S_run_init(&run, repo, dir, changed, notes);
	return S_run_finish(&run, S_find_sides(run.g, &run.s), S_renames_of);
}
