/*
 * test_git.c: dtk crystallize and dtk log on scratch repositories made with
 * libgit2: figures of two runs, the commit's parent, tree and trailers,
 * unrelated changes left alone, every refusal, and crashes at every step.
 */
#include "support.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

/* The environment of every dtk run: no global git configuration. */
static char S_env[1024];
/* The same for git commands, which need the repository's identity. */
static char S_genv[1024];

static void S_git_ok(int rc)
{
	if (rc < 0) {
		const git_error *e = git_error_last();
		fail_msg("libgit2: %s", e ? e->message : "?");
	}
}

/* Makes dir a repository (with user.name/email unless identity is 0) and
 * commits every file in it. */
static void S_init(const char *dir, int identity)
{
	git_repository *repo;
	git_config *cfg;
	S_git_ok(git_repository_init(&repo, dir, 0));
	S_git_ok(git_repository_config(&cfg, repo));
	if (identity) {
		S_git_ok(git_config_set_string(cfg, "user.name", "Keeper"));
		S_git_ok(git_config_set_string(cfg, "user.email", "keeper@example.org"));
	}
	git_config_free(cfg);
	git_repository_free(repo);
}

/* Commits every file of the work tree (as 'git add -A && git commit'). */
static void S_commit_all(const char *dir, const char *msg)
{
	git_repository *repo;
	git_index *idx;
	git_signature *sig;
	git_oid tree_oid, oid, parent_oid;
	git_tree *tree;
	git_commit *parent = NULL;
	git_strarray all = {NULL, 0};
	int has_parent;

	S_git_ok(git_repository_open(&repo, dir));
	S_git_ok(git_repository_index(&idx, repo));
	S_git_ok(git_index_add_all(idx, &all, 0, NULL, NULL));
	S_git_ok(git_index_update_all(idx, &all, NULL, NULL));
	S_git_ok(git_index_write(idx));
	S_git_ok(git_index_write_tree(&tree_oid, idx));
	S_git_ok(git_tree_lookup(&tree, repo, &tree_oid));
	S_git_ok(git_signature_new(&sig, "Setup", "setup@example.org", 1700000000, 0));
	has_parent = git_reference_name_to_id(&parent_oid, repo, "HEAD") == 0;
	if (has_parent)
		S_git_ok(git_commit_lookup(&parent, repo, &parent_oid));
	S_git_ok(git_commit_create_v(&oid, repo, "HEAD", sig, sig, NULL, msg, tree,
	                             has_parent ? 1 : 0, parent));
	git_commit_free(parent);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(idx);
	git_repository_free(repo);
}

/* Returns HEAD's commit id as hex ("" when unborn) in a static buffer. */
static const char *S_head(const char *dir)
{
	static char hex[GIT_OID_HEXSZ + 1];
	git_repository *repo;
	git_oid oid;
	hex[0] = '\0';
	if (git_repository_open(&repo, dir) < 0)
		return hex; /* not a repository */
	if (git_reference_name_to_id(&oid, repo, "HEAD") == 0)
		git_oid_tostr(hex, sizeof(hex), &oid);
	git_repository_free(repo);
	return hex;
}

/* Returns the blob at path in HEAD's tree (malloc'd) or NULL. */
static char *S_head_file(const char *dir, const char *path)
{
	git_repository *repo;
	git_object *obj = NULL;
	char spec[512], *out = NULL;
	S_git_ok(git_repository_open(&repo, dir));
	snprintf(spec, sizeof(spec), "HEAD:%s", path);
	if (git_revparse_single(&obj, repo, spec) == 0 && git_object_type(obj) == GIT_OBJECT_BLOB) {
		git_blob *b = (git_blob *)obj;
		out = dtk_xstrndup(git_blob_rawcontent(b), (size_t)git_blob_rawsize(b));
	}
	git_object_free(obj);
	git_repository_free(repo);
	return out;
}

/* Returns HEAD's message (malloc'd) and sets *parents and parent0 (hex). */
static char *S_head_commit(const char *dir, unsigned *parents, char parent0[41])
{
	git_repository *repo;
	git_commit *c;
	git_oid oid;
	char *msg;
	S_git_ok(git_repository_open(&repo, dir));
	S_git_ok(git_reference_name_to_id(&oid, repo, "HEAD"));
	S_git_ok(git_commit_lookup(&c, repo, &oid));
	*parents = git_commit_parentcount(c);
	parent0[0] = '\0';
	if (*parents)
		git_oid_tostr(parent0, 41, git_commit_parent_id(c, 0));
	msg = dtk_xstrdup(git_commit_message(c));
	git_commit_free(c);
	git_repository_free(repo);
	return msg;
}

/* Returns 'git status'-like flags of path. */
static unsigned S_status(const char *dir, const char *path)
{
	git_repository *repo;
	unsigned flags = 0;
	S_git_ok(git_repository_open(&repo, dir));
	if (git_status_file(&flags, repo, path) < 0)
		flags = 0xFFFFFFFF;
	git_repository_free(repo);
	return flags;
}

/* A scratch repository holding tests/fixtures/base, committed once. */
static char *S_repo(int identity)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base");
	t_copytree(base, dir);
	S_init(dir, identity);
	S_commit_all(dir, "import the knowledge base");
	free(base);
	return dir;
}

/* The edits of a month: two new alpha entries (one with a new open
 * contradiction), alpha-002 promoted to high, alpha's bloom raised, beta's
 * stance rewritten. */
static void S_month_one(const char *dir)
{
	assert_int_equal(t_sh(dir,
	                      "sed -i 's/^bloom: apply/bloom: analyze/; "
	                      "s/verified_by: \\[docs-d\\]/verified_by: [docs-d, paper-c]/; "
	                      "0,/confidence: medium/s//confidence: high/' insights/alpha.yaml"),
	                 0);
	assert_int_equal(t_sh(dir, "sed -i 's/stance: 按延迟分层/stance: 按延迟与带宽分层/' "
	                           "insights/beta.yaml"),
	                 0);
	assert_int_equal(
	        t_sh(dir, "cat >> insights/alpha.yaml <<'X'\n"
	                  "  - id: alpha-004\n    title: four\n    claim: Four.\n"
	                  "    confidence: medium\n    source: paper-c\n    created: 2026-07-20\n"
	                  "  - id: alpha-005\n    title: five\n    claim: Five.\n"
	                  "    confidence: low\n    source: docs-d\n    created: 2026-08-01\n"
	                  "    contradicts: [{id: beta-002, status: open, note: n}]\nX"),
	        0);
	t_write_str(dir, "review.yaml",
	            "cross_pairs: [alpha-005↔beta-002]\nverdict: 一处新矛盾\n"
	            "note: 待下月复核\n");
}

/* The files a crystallization takes, as libgit2's diff of the trees says:
 * a node added, one removed, one whose mode alone changed, in git's order. */
static void test_taken_files(void **state)
{
	char *dir = S_repo(1);
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir,
	                      "sed -i 's/nodes: \\[beta, gamma\\]/nodes: [beta, delta]/; "
	                      "/gamma 尚无条目/s/gamma/delta/' insights/_domain.yaml && "
	                      "git rm -q insights/gamma.yaml && chmod +x insights/beta.yaml && "
	                      "printf 'node: delta\\nbloom: remember\\ninsights: []\\n' "
	                      ">insights/delta.yaml"),
	                 0);
	t_write_str(dir, "review.yaml", "cross_pairs: []\nverdict: v\n");
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval",
	      "scenario-004=acceptable", "--review", "review.yaml", NULL);
	if (r.status)
		print_error("%s", r.err);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "files in the commit:\n"
	                              "  M  INDEX.md\n"
	                              "  M  insights/_crystallizations.yaml\n"
	                              "  M  insights/_domain.yaml\n"
	                              "  T  insights/beta.yaml\n"
	                              "  A  insights/delta.yaml\n"
	                              "  D  insights/gamma.yaml\n"));
	t_run_free(&r);
	t_done(dir);
}

static void test_two_runs(void **state)
{
	char *dir = S_repo(1), *msg, *rec, before[41], parent[41];
	struct t_run r;
	unsigned parents;
	(void)state;
	S_month_one(dir);
	snprintf(before, sizeof(before), "%s", S_head(dir));
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval",
	      "scenario-004=acceptable", "--review", "review.yaml", NULL);
	if (r.status)
		print_error("%s", r.err);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "crystallized 2026-08-15 as commit "));
	/* the summary names the bloom change and the files the commit takes,
	 * the uncommitted edits under insights/ among them */
	assert_non_null(strstr(r.out, ": 2 new, 1 high change, 2 stale, 1 bloom change, 1 stance "
	                              "rewrite, 1 new contradiction\n"
	                              "bloom changes: alpha apply→analyze\n"
	                              "files in the commit:\n"
	                              "  M  INDEX.md\n"
	                              "  M  insights/_crystallizations.yaml\n"
	                              "  M  insights/alpha.yaml\n"
	                              "  M  insights/beta.yaml\n"));
	t_run_free(&r);
	msg = S_head_commit(dir, &parents, parent);
	assert_int_equal(parents, 1);
	assert_string_equal(parent, before);
	assert_memory_equal(msg,
	                    "crystallize 2026-08-15: 2 new, 1 high change, 2 stale, "
	                    "1 bloom change, 1 stance rewrite, 1 new contradiction\n\n",
	                    102);
	assert_non_null(strstr(msg, "\n\nDtk-Crystallization: 2026-08-15\nDtk-Since: 2026-07-01\n"
	                            "Dtk-New-Entries: 2\nDtk-High-Changes: 1\nDtk-Stale: 2\n"
	                            "Dtk-Bloom-Changes: 1\n"
	                            "Dtk-Stance-Rewrites: 1\nDtk-Contradictions-New: 1\n"
	                            "Dtk-Review-Pairs: 8\n"));
	free(msg);
	rec = S_head_file(dir, "insights/_crystallizations.yaml");
	assert_non_null(strstr(rec,
	                       "- date: 2026-08-15\n  since: 2026-07-01\n  new_entries: 2\n"
	                       "  high_changes: 1\n  stale: 2\n  earliest: 2026-02-01\n"
	                       "  bloom_changes: {alpha: apply→analyze}\n  stance_rewrites: 1\n"
	                       "  contradictions_new: 1\n"
	                       "  eval: {scenario: scenario-004, verdict: acceptable}\n"
	                       "  events:\n    added: [alpha-004, alpha-005]\n"
	                       "    raised: [alpha-002]\n    opened: [alpha-005↔beta-002]\n"
	                       "    newly_stale: [alpha-002, beta-001]\n"
	                       "  review:\n    pairs: {alpha: 7}\n"));
	free(rec);
	rec = S_head_file(dir, "INDEX.md");
	assert_non_null(strstr(
	        rec, "2026-08-15：距 07-01 新增 2 条；1 处升/降 high；2 条 stale"
	             "（最早条目 2026-02-01，已于 08-01 到期）；bloom 变化：alpha apply→analyze；"
	             "1 个节点 stance 重写；矛盾 1 新增；eval scenario-004 自评 acceptable。"));
	assert_non_null(strstr(rec,
	                       "新增 2 条逐条与所在节点既有 claim 比对约 7 组（alpha 7），"
	                       "另复核 1 组跨节点/跨域主题对（alpha-005↔beta-002），一处新矛盾；"
	                       "待下月复核。合计约 8 组，新增矛盾 1。"));
	free(rec);
	assert_null(S_head_file(dir, "review.yaml")); /* only the base is committed */
	assert_int_equal(S_status(dir, "insights/alpha.yaml"), 0);
	assert_int_equal(S_status(dir, "INDEX.md"), 0);

	/* the second run compares with the first */
	assert_int_equal(t_sh(dir, "cat >> insights/beta.yaml <<'X'\n  - id: beta-003\n"
	                           "    title: three\n    claim: Three.\n    confidence: low\n"
	                           "    source: paper-b\n    created: 2026-09-01\nX"),
	                 0);
	snprintf(before, sizeof(before), "%s", S_head(dir));
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-09-20", "--eval", "s5=good", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	msg = S_head_commit(dir, &parents, parent);
	assert_string_equal(parent, before);
	assert_memory_equal(msg,
	                    "crystallize 2026-09-20: 1 new, 0 high changes, 2 stale, "
	                    "0 bloom changes, 0 stance rewrites, 0 new contradictions\n",
	                    99);
	free(msg);
	rec = S_head_file(dir, "insights/_crystallizations.yaml");
	assert_non_null(strstr(rec,
	                       "- date: 2026-09-20\n  since: 2026-08-15\n  new_entries: 1\n"
	                       "  high_changes: 0\n  stale: 2\n  earliest: 2026-02-01\n"
	                       "  bloom_changes: {}\n  stance_rewrites: 0\n"
	                       "  contradictions_new: 0\n  eval: {scenario: s5, verdict: good}\n"));
	/* without --review: what was compared, no verdict */
	assert_non_null(strstr(strstr(rec, "  eval: {scenario: s5, verdict: good}\n"),
	                       "\n  review:\n    pairs: {beta: 2}\n    cross_pairs: []\n"));
	assert_null(strstr(strstr(rec, "2026-09-20"), "verdict: good\n    "));
	free(rec);

	/* dtk log: newest first, each with its commit */
	t_dtk(&r, dir, S_env, "log", NULL);
	assert_int_equal(r.status, 0);
	assert_memory_equal(r.out, "2026-09-20  ", 12);
	assert_non_null(strstr(r.out, "\n2026-08-15  "));
	assert_non_null(strstr(r.out, "\n2026-07-01  "));
	assert_null(strstr(r.out, "  -           ")); /* every run has its commit */
	t_run_free(&r);
	t_dtk(&r, dir, S_env, "log", "--format", "json", NULL);
	assert_non_null(strstr(r.out, "\"date\": \"2026-09-20\",\n    \"since\": \"2026-08-15\",\n"
	                              "    \"commit\": \""));
	assert_non_null(strstr(r.out, "\"by_dtk\": true"));
	assert_non_null(strstr(r.out, "\"by_dtk\": false"));
	/* bloom_changes as the record holds it (a mapping), never a count */
	assert_non_null(strstr(r.out, "\"bloom_changes\": {"));
	assert_null(strstr(r.out, "\"bloom_changes\": 0"));
	t_run_free(&r);
	t_done(dir);
}

/* HEAD, the index file and the base's generated files, to compare. */
struct snapshot {
	char head[41];
	char *index, *index_md, *records;
	size_t index_len;
};

static void S_snap(struct snapshot *s, const char *dir)
{
	snprintf(s->head, sizeof(s->head), "%s", S_head(dir));
	s->index = t_read(dir, ".git/index", &s->index_len);
	s->index_md = t_read(dir, "INDEX.md", NULL);
	s->records = t_read(dir, "insights/_crystallizations.yaml", NULL);
}

static void S_snap_free(struct snapshot *s)
{
	free(s->index);
	free(s->index_md);
	free(s->records);
}

/* Asserts that two files read with t_read are the same (or both absent). */
static void S_same(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

/* Runs a crystallization that must be refused with a message holding why;
 * asserts that HEAD, the index and the files are as they were. */
static void S_refused(const char *dir, const char *env, const char *why, const char *date)
{
	struct snapshot a, b;
	struct t_run r;
	S_snap(&a, dir);
	t_dtk(&r, dir, env, "crystallize", "--date", date, "--eval", "s=v", NULL);
	if (!strstr(r.err, why))
		print_error("want '%s' in: %s", why, r.err);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, why));
	S_snap(&b, dir);
	assert_string_equal(a.head, b.head);
	assert_int_equal(a.index_len, b.index_len);
	if (a.index)
		assert_memory_equal(a.index, b.index, a.index_len);
	S_same(a.index_md, b.index_md);
	S_same(a.records, b.records);
	t_run_free(&r);
	S_snap_free(&a);
	S_snap_free(&b);
}

static void test_unrelated_changes_stay(void **state)
{
	char *dir = S_repo(1), *committed;
	struct t_run r;
	(void)state;
	t_write_str(dir, "notes/todo.txt", "tracked\n");
	S_commit_all(dir, "notes");
	t_write_str(dir, "notes/todo.txt", "modified, not staged\n");
	t_write_str(dir, "staged.txt", "staged\n");
	{
		git_repository *repo;
		git_index *idx;
		S_git_ok(git_repository_open(&repo, dir));
		S_git_ok(git_repository_index(&idx, repo));
		S_git_ok(git_index_add_bypath(idx, "staged.txt"));
		S_git_ok(git_index_write(idx));
		git_index_free(idx);
		git_repository_free(repo);
	}
	t_write_str(dir, "untracked.txt", "untracked\n");
	S_month_one(dir);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	assert_null(S_head_file(dir, "staged.txt"));
	assert_null(S_head_file(dir, "untracked.txt"));
	committed = S_head_file(dir, "notes/todo.txt");
	assert_string_equal(committed, "tracked\n");
	free(committed);
	assert_int_equal(S_status(dir, "staged.txt"), GIT_STATUS_INDEX_NEW);
	assert_int_equal(S_status(dir, "notes/todo.txt"), GIT_STATUS_WT_MODIFIED);
	assert_int_equal(S_status(dir, "untracked.txt"), GIT_STATUS_WT_NEW);
	assert_int_equal(S_status(dir, "insights/alpha.yaml"), 0);
	t_done(dir);
}

static void test_refusals(void **state)
{
	char *dir = S_repo(0), *nogit = t_mkdtemp(), *base = t_src("tests/fixtures/base");
	char *head_ref = t_read(dir, ".git/HEAD", NULL);
	(void)state;
	S_month_one(dir);
	S_refused(dir, S_env, "is not after the last run 2026-07-01", "2026-07-01");
	S_refused(dir, S_env, "is not after the last run 2026-07-01", "2026-06-01");
	t_write_str(dir, ".git/index.lock", "");
	S_refused(dir, S_env, "the index is locked", "2026-08-15");
	assert_int_equal(t_sh(dir, "rm .git/index.lock"), 0);
	t_write_str(dir, "insights/gamma.yaml", "node: gamma\nbloom: nope\ninsights: []\n");
	S_refused(dir, S_env, "insights/gamma.yaml:2:8: error:", "2026-08-15");
	t_write_str(dir, "insights/gamma.yaml", "node: gamma\nbloom: remember\ninsights: []\n");
	/* no identity anywhere */
	S_refused(dir, S_env, "no author: set user.name and user.email", "2026-08-15");
	/* detached HEAD */
	{
		char head[64];
		snprintf(head, sizeof(head), "%s\n", S_head(dir));
		t_write_str(dir, ".git/HEAD", head);
		S_refused(dir, S_env, "HEAD is detached", "2026-08-15");
		t_write_str(dir, ".git/HEAD", head_ref);
		free(head_ref);
	}
	/* an unresolved conflict in the index */
	{
		git_repository *repo;
		git_index *idx;
		git_index_entry anc, ours;
		git_oid oid;
		S_git_ok(git_repository_open(&repo, dir));
		S_git_ok(git_repository_index(&idx, repo));
		S_git_ok(git_blob_create_from_buffer(&oid, repo, "x\n", 2));
		memset(&anc, 0, sizeof(anc));
		anc.mode = GIT_FILEMODE_BLOB;
		anc.path = "conflicted.txt";
		anc.id = oid;
		ours = anc;
		S_git_ok(git_index_conflict_add(idx, &anc, &ours, NULL));
		S_git_ok(git_index_write(idx));
		git_index_free(idx);
		git_repository_free(repo);
		S_refused(dir, S_env, "the index has unresolved conflicts", "2026-08-15");
		S_git_ok(git_repository_open(&repo, dir));
		S_git_ok(git_repository_index(&idx, repo));
		S_git_ok(git_index_conflict_cleanup(idx));
		S_git_ok(git_index_write(idx));
		git_index_free(idx);
		git_repository_free(repo);
	}
	/* a merge under way */
	t_write_str(dir, ".git/MERGE_HEAD", S_head(dir));
	S_refused(dir, S_env, "a merge is under way; finish it (git commit) or abort it",
	          "2026-08-15");
	assert_int_equal(t_sh(dir, "rm .git/MERGE_HEAD"), 0);
	/* not in a git work tree */
	t_copytree(base, nogit);
	S_refused(nogit, S_env, "is not inside a git work tree", "2026-08-15");
	free(base);
	t_done(nogit);
	t_done(dir);
}

static void test_unborn_head_makes_a_first_commit(void **state)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base"), *msg, parent[41];
	struct t_run r;
	unsigned parents = 9;
	(void)state;
	t_copytree(base, dir);
	S_init(dir, 1);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	if (r.status)
		print_error("%s", r.err);
	assert_int_equal(r.status, 0);
	/* the previous run is in no commit: the figures say so */
	assert_non_null(strstr(r.err, "not in this repository's history"));
	t_run_free(&r);
	msg = S_head_commit(dir, &parents, parent);
	assert_int_equal(parents, 0);
	free(msg);
	msg = S_head_file(dir, "insights/alpha.yaml");
	assert_non_null(msg);
	free(msg);
	msg = S_head_file(dir, "INDEX.md");
	assert_non_null(strstr(msg, "上次结晶: 2026-08-15"));
	free(msg);
	free(base);
	t_done(dir);
}

static void test_plan_and_dry_run_write_nothing(void **state)
{
	char *dir = S_repo(1);
	struct snapshot a, b;
	struct t_run r;
	(void)state;
	S_month_one(dir);
	S_snap(&a, dir);
	t_dtk(&r, dir, S_env, "crystallize", "--plan", "--date", "2026-08-15", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "review pairs: 7 in all; each new entry beside at most 5, "
	                              "likely duplicates first\n  alpha: 2 new × 3 older + 1 among "
	                              "the new = 7\n    alpha-004  four\n      0.00 alpha-001  "
	                              "初始化即固化  (same node)\n"));
	/* the pair a contradiction makes first, then the node's others */
	assert_non_null(strstr(r.out, "    alpha-005  five\n      0.00 beta-002  能效未进目标  "
	                              "(contradiction, other node beta)\n"));
	assert_non_null(strstr(r.out, "      0.00 alpha-004  four  (same node)\n"));
	assert_non_null(strstr(r.out, "events since the last run:\n  raised (1):\n    alpha-002  "
	                              "medium→high  小消息瓶颈在同步\n"));
	assert_non_null(strstr(r.out, "stale entries (2):\n  alpha-002  "));
	t_run_free(&r);
	t_dtk(&r, dir, S_env, "crystallize", "--plan", "--date", "2026-08-15", "--format", "json",
	      NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"review_pairs\": 7,"));
	assert_non_null(strstr(r.out, "\"stance_unchanged\": [\n    \"alpha\"\n  ]"));
	t_run_free(&r);
	t_dtk(&r, dir, S_env, "crystallize", "--dry-run", "--date", "2026-08-15", "--eval", "s=v",
	      NULL);
	assert_int_equal(r.status, 0);
	assert_memory_equal(r.out, "- date: 2026-08-15\n  since: 2026-07-01\n  new_entries: 2\n",
	                    53);
	t_run_free(&r);
	S_snap(&b, dir);
	assert_string_equal(a.head, b.head);
	assert_string_equal(a.records, b.records);
	assert_string_equal(a.index_md, b.index_md);
	S_snap_free(&a);
	S_snap_free(&b);
	t_done(dir);
}

/* Kills dtk crystallize at each step; the files must be the old or the new
 * ones, whole, HEAD the old commit or the new one, git's index lock held
 * from before the first write, and a run decided before the kill is
 * finished by --continue (the next run refuses and names it). */
static void test_crash_at_every_step(void **state)
{
	static const struct {
		const char *at;
		int decided;                   /* killed after the journal */
		int locked;                    /* killed with git's index lock held */
	} points[] = {{"before-rename", 0, 0}, /* the first file written: not the base's */
	              {"after-lock", 0, 1},          {"before-journal", 0, 1},
	              {"after-journal", 1, 1},       {"after-records", 1, 1},
	              {"after-index-md", 1, 1},      {"after-branch", 1, 1},
	              {"before-index-rename", 1, 1}, {"after-index", 1, 0}};
	char *twin = S_repo(1), *want_rec, *want_idx, crash_env[1300];
	struct t_run r;
	size_t i;
	(void)state;
	S_month_one(twin);
	t_dtk(&r, twin, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	want_rec = t_read(twin, "insights/_crystallizations.yaml", NULL);
	want_idx = t_read(twin, "INDEX.md", NULL);
	for (i = 0; i < sizeof(points) / sizeof(*points); i++) {
		char *dir = S_repo(1), *msg, *lock, parent[41], old_head[41];
		struct snapshot old, now;
		unsigned parents;
		S_month_one(dir);
		S_snap(&old, dir);
		snprintf(old_head, sizeof(old_head), "%s", old.head);
		snprintf(crash_env, sizeof(crash_env), "%s DTK_CRASH_AT=%s", S_env, points[i].at);
		t_dtk_bin = DTK_CRASH_BIN;
		t_dtk(&r, dir, crash_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v",
		      NULL);
		t_dtk_bin = DTK_BIN;
		assert_true(r.status == 137 || r.status == -1); /* killed */
		t_run_free(&r);
		S_snap(&now, dir);
		lock = t_read(dir, ".git/index.lock", NULL);
		print_message("crash %s: records %s, INDEX.md %s, HEAD %s, index.lock %s\n",
		              points[i].at, !strcmp(now.records, old.records) ? "old" : "new",
		              !strcmp(now.index_md, old.index_md) ? "old" : "new",
		              !strcmp(now.head, old.head) ? "old" : "new", lock ? "held" : "free");
		assert_true(!strcmp(now.records, old.records) || !strcmp(now.records, want_rec));
		assert_true(!strcmp(now.index_md, old.index_md) || !strcmp(now.index_md, want_idx));
		/* git's lock is held from before the first write until the index is
		 * replaced: no git command could write the index meanwhile */
		if (points[i].locked)
			assert_non_null(lock);
		else
			assert_null(lock);
		free(lock);
		if (points[i].decided && strcmp(points[i].at, "after-index")) {
			assert_int_not_equal(
			        t_sh(dir,
			             "export %s && git commit -q --allow-empty -m x 2>/dev/null",
			             S_genv),
			        0);
		}
		if (strcmp(now.head, old_head)) {
			msg = S_head_commit(dir, &parents, parent);
			assert_string_equal(parent, old_head);
			free(msg);
		}
		/* the index is the old one until the very end */
		if (strcmp(points[i].at, "after-index")) {
			assert_int_equal(now.index_len, old.index_len);
			assert_memory_equal(now.index, old.index, old.index_len);
		}
		S_snap_free(&now);
		t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
		if (points[i].decided) {
			/* refused, naming the way out */
			assert_int_equal(r.status, 2);
			assert_non_null(strstr(r.err,
			                       "was interrupted: finish it with 'dtk "
			                       "crystallize --continue', or drop it with 'dtk "
			                       "crystallize --abort'"));
			t_run_free(&r);
			t_dtk(&r, dir, S_env, "crystallize", "--continue", NULL);
			assert_non_null(strstr(r.out, "finished the interrupted crystallization"));
		}
		if (r.status)
			print_error("after crash %s: %s", points[i].at, r.err);
		assert_int_equal(r.status, 0);
		t_run_free(&r);
		S_snap(&now, dir);
		assert_string_equal(now.records, want_rec);
		assert_string_equal(now.index_md, want_idx);
		msg = S_head_commit(dir, &parents, parent);
		assert_string_equal(parent, old_head);
		assert_non_null(strstr(msg, "Dtk-Crystallization: 2026-08-15\n"));
		free(msg);
		assert_null(t_read(dir, ".git/dtk-crystallize", NULL));
		assert_null(t_read(dir, ".git/index.lock", NULL));
		assert_int_equal(S_status(dir, "insights/_crystallizations.yaml"), 0);
		assert_int_equal(S_status(dir, "INDEX.md"), 0);
		assert_int_equal(t_sh(dir, "git diff --quiet && git diff --cached --quiet"), 0);
		t_dtk(&r, dir, S_env, "check", NULL);
		assert_int_equal(r.status, 0);
		t_run_free(&r);
		S_snap_free(&now);
		S_snap_free(&old);
		t_done(dir);
	}
	free(want_rec);
	free(want_idx);
	t_done(twin);
}

/* The dtk binary has no crash points: DTK_CRASH_AT does nothing there. */
static void test_release_has_no_crash_points(void **state)
{
	char *dir = S_repo(1), env[1300];
	struct t_run r;
	(void)state;
	S_month_one(dir);
	snprintf(env, sizeof(env), "%s DTK_CRASH_AT=after-journal", S_env);
	t_dtk(&r, dir, env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	assert_null(t_read(dir, ".git/dtk-crystallize", NULL));
	assert_int_equal(t_sh(dir, "! grep -q DTK_CRASH_AT '%s'", DTK_BIN), 0);
	assert_int_equal(t_sh(dir, "grep -q DTK_CRASH_AT '%s'", DTK_CRASH_BIN), 0);
	t_done(dir);
}

/* Kills a run after it decided its commit; returns the repository. */
static char *S_interrupted(const char *at)
{
	char *dir = S_repo(1), env[1300];
	struct t_run r;
	S_month_one(dir);
	snprintf(env, sizeof(env), "%s DTK_CRASH_AT=%s", S_env, at);
	t_dtk_bin = DTK_CRASH_BIN;
	t_dtk(&r, dir, env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	t_dtk_bin = DTK_BIN;
	assert_true(r.status == 137 || r.status == -1); /* killed */
	t_run_free(&r);
	return dir;
}

/* --abort puts back what the run wrote, gives up git's lock and the journal;
 * a new run then goes. */
static void test_abort(void **state)
{
	char *dir = S_repo(1), *fresh;
	struct snapshot before, after;
	struct t_run r;
	(void)state;
	t_done(dir);
	/* the state before the run, from a twin */
	fresh = S_repo(1);
	S_month_one(fresh);
	S_snap(&before, fresh);
	dir = S_interrupted("after-index-md");
	t_dtk(&r, dir, S_env, "crystallize", "--abort", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "dropped the interrupted crystallization"));
	t_run_free(&r);
	S_snap(&after, dir);
	assert_string_equal(after.records, before.records);
	assert_string_equal(after.index_md, before.index_md);
	assert_int_equal(after.index_len, before.index_len);
	assert_null(t_read(dir, ".git/dtk-crystallize", NULL));
	assert_null(t_read(dir, ".git/index.lock", NULL));
	S_snap_free(&after);
	S_snap_free(&before);
	t_dtk(&r, dir, S_env, "crystallize", "--abort", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "no crystallization was interrupted"));
	t_run_free(&r);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	/* once the branch is at the run's commit, only --continue */
	t_done(dir);
	dir = S_interrupted("after-branch");
	t_dtk(&r, dir, S_env, "crystallize", "--abort", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "committed already"));
	t_run_free(&r);
	t_dtk(&r, dir, S_env, "crystallize", "--continue", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_done(dir);
	t_done(fresh);
}

/* A run interrupted on main is never finished into another branch's work
 * tree: refused (nothing written) until main is checked out again. */
static void test_interrupted_on_another_branch(void **state)
{
	char *dir = S_interrupted("after-journal");
	struct snapshot a, b;
	struct t_run r;
	(void)state;
	/* the user follows git's advice on the lock, then switches */
	assert_int_equal(t_sh(dir,
	                      "rm .git/index.lock && export %s && git stash -q && "
	                      "git checkout -q -b other",
	                      S_genv),
	                 0);
	S_snap(&a, dir);
	t_dtk(&r, dir, S_env, "crystallize", "--continue", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, ", and HEAD is on other: check out "));
	t_run_free(&r);
	S_snap(&b, dir);
	assert_string_equal(a.head, b.head);
	assert_memory_equal(a.index, b.index, a.index_len);
	S_same(a.index_md, b.index_md);
	S_same(a.records, b.records);
	S_snap_free(&b);
	S_refused(dir, S_env, "was interrupted: finish it with 'dtk crystallize --continue'",
	          "2026-08-15");
	assert_int_equal(t_sh(dir, "export %s && git checkout -q - && git stash pop -q", S_genv),
	                 0);
	t_dtk(&r, dir, S_env, "crystallize", "--continue", NULL);
	if (r.status)
		print_error("%s", r.err);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "git log -1 --format=%%B | grep -q 'Dtk-Crystallization: "
	                           "2026-08-15'"),
	                 0);
	assert_int_equal(t_sh(dir, "test \"$(git rev-parse other)\" = \"$(git rev-parse HEAD~1)\""),
	                 0);
	S_snap_free(&a);
	t_done(dir);
}

/* Messages that say what to do: a rebase, a worktree's lock, a sparse index. */
static void test_git_states_explained(void **state)
{
	char *dir = S_repo(1), *wt;
	(void)state;
	assert_int_equal(t_sh(dir,
	                      "export %s && git checkout -q -b topic && "
	                      "git commit -q --allow-empty -m t && "
	                      "git rebase -q --exec false HEAD~1 >/dev/null 2>&1; "
	                      "test -d .git/rebase-merge",
	                      S_genv),
	                 0);
	S_month_one(dir);
	S_refused(dir, S_env, "a rebase is under way; finish it (git rebase --continue)",
	          "2026-08-15");
	assert_int_equal(t_sh(dir,
	                      "export %s && git checkout -q -- . && git rebase --abort && "
	                      "git checkout -q - && test ! -d .git/rebase-merge",
	                      S_genv),
	                 0);
	S_month_one(dir);
	/* a linked worktree: its index lock is in .git/worktrees/<name>/ */
	wt = dtk_path_join(dir, "wt2");
	assert_int_equal(t_sh(dir,
	                      "export %s && git worktree add -q wt2 -b side && "
	                      "touch .git/worktrees/wt2/index.lock",
	                      S_genv),
	                 0);
	S_refused(wt, S_env, "the index is locked (", "2026-08-15");
	{
		struct t_run r;
		t_dtk(&r, wt, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
		assert_non_null(strstr(r.err, "/.git/worktrees/wt2/index.lock exists)"));
		t_run_free(&r);
	}
	assert_int_equal(t_sh(dir, "rm .git/worktrees/wt2/index.lock"), 0);
	free(wt);
	t_done(dir);
}

static void test_sparse_index(void **state)
{
	char *dir = S_repo(1);
	(void)state;
	t_write_str(dir, "notes/a/todo.txt", "x\n");
	S_commit_all(dir, "notes");
	S_month_one(dir);
	assert_int_equal(t_sh(dir,
	                      "export %s && git sparse-checkout set --cone --sparse-index "
	                      "insights >/dev/null 2>&1 && test -d insights",
	                      S_genv),
	                 0);
	S_refused(dir, S_env, "git sparse-checkout disable", "2026-08-15");
	t_done(dir);
}

static void test_reindex_crash_leaves_old_index(void **state)
{
	char *dir = S_repo(1), *before, *after, env[1300];
	struct t_run r;
	(void)state;
	before = t_read(dir, "INDEX.md", NULL);
	assert_int_equal(t_sh(dir, "sed -i 's/按延迟分层/按带宽分层/' insights/beta.yaml"), 0);
	snprintf(env, sizeof(env), "%s DTK_CRASH_AT=before-rename", S_env);
	t_dtk_bin = DTK_CRASH_BIN;
	t_dtk(&r, dir, env, "reindex", NULL);
	t_dtk_bin = DTK_BIN;
	assert_int_not_equal(r.status, 0);
	t_run_free(&r);
	after = t_read(dir, "INDEX.md", NULL);
	assert_string_equal(before, after);
	free(after);
	t_dtk(&r, dir, S_env, "reindex", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	after = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(after, "按带宽分层"));
	free(before);
	free(after);
	t_done(dir);
}

/* Two branches that each add an entry and reindex; returns the dir, at the
 * first branch, ready to merge "other". */
static char *S_branches(int setup)
{
	char *dir = S_repo(1);
	struct t_run r;
	if (setup) {
		t_dtk(&r, dir, S_env, "setup-git", NULL);
		assert_int_equal(r.status, 0);
		t_run_free(&r);
		S_commit_all(dir, "merge INDEX.md with dtk");
	}
	assert_int_equal(
	        t_sh(dir,
	             "export %s && git checkout -q -b other && cat >> insights/alpha.yaml <<'X'\n"
	             "  - {id: alpha-004, title: four, claim: Four., confidence: low,\n"
	             "     source: paper-a, created: 2026-07-20}\nX\n"
	             "'%s' reindex -q && git commit -q -am other && git checkout -q -",
	             S_genv, DTK_BIN),
	        0);
	assert_int_equal(t_sh(dir,
	                      "export %s && cat >> insights/beta.yaml <<'X'\n"
	                      "  - {id: beta-003, title: three, claim: Three., confidence: low,\n"
	                      "     source: paper-b, created: 2026-07-21, used: 1}\nX\n"
	                      "'%s' reindex -q && git commit -q -am mine",
	                      S_genv, DTK_BIN),
	                 0);
	return dir;
}

static void test_merge_driver(void **state)
{
	char *dir = S_branches(1), *index;
	struct t_run r;
	(void)state;
	assert_int_equal(
	        t_sh(dir, "export %s && git merge -q --no-edit other >/dev/null 2>&1", S_genv), 0);
	t_dtk(&r, dir, S_env, "check", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	index = S_head_file(dir, "INDEX.md");
	assert_non_null(strstr(index, "- Insight 总条目: 7\n"));
	assert_non_null(strstr(index, "| alpha | apply | 4 |"));
	assert_non_null(strstr(index, "| beta | evaluate | 3 |"));
	free(index);
	t_done(dir);

	/* without the driver the same merge conflicts on INDEX.md */
	dir = S_branches(0);
	assert_int_not_equal(
	        t_sh(dir, "export %s && git merge -q --no-edit other >/dev/null 2>&1", S_genv), 0);
	assert_int_equal(t_sh(dir, "git diff --name-only --diff-filter=U | grep -qx INDEX.md"), 0);
	t_done(dir);
}

static void test_merge_driver_leaves_conflicts_to_people(void **state)
{
	char *dir = S_repo(1);
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, S_env, "setup-git", NULL);
	t_run_free(&r);
	S_commit_all(dir, "merge INDEX.md with dtk");
	assert_int_equal(t_sh(dir,
	                      "export %s && git checkout -q -b other && "
	                      "sed -i 's/按延迟分层/甲/' insights/beta.yaml && '%s' reindex -q && "
	                      "git commit -q -am a && git checkout -q - && "
	                      "sed -i 's/按延迟分层/乙/' insights/beta.yaml && '%s' reindex -q && "
	                      "git commit -q -am b",
	                      S_genv, DTK_BIN, DTK_BIN),
	                 0);
	assert_int_not_equal(
	        t_sh(dir, "export %s && git merge -q --no-edit other >/dev/null 2>&1", S_genv), 0);
	assert_int_equal(t_sh(dir, "git diff --name-only --diff-filter=U | grep -qx INDEX.md"), 0);
	assert_int_equal(
	        t_sh(dir, "git diff --name-only --diff-filter=U | grep -qx insights/beta.yaml"), 0);
	t_done(dir);
}

static void test_shallow_clone(void **state)
{
	char *dir = S_repo(1), *clone = t_mkdtemp();
	struct t_run r;
	(void)state;
	S_month_one(dir);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	/* a clone that holds the last run's commit and nothing before it */
	assert_int_equal(t_sh(clone,
	                      "export %s && git clone -q --depth 1 'file://%s' c && cd c && "
	                      "git config user.name K && git config user.email k@e && "
	                      "sed -i 's/^bloom: analyze/bloom: evaluate/' insights/alpha.yaml",
	                      S_genv, dir),
	                 0);
	{
		char *c = dtk_path_join(clone, "c"), *rec;
		t_dtk(&r, c, S_env, "crystallize", "--date", "2026-09-20", "--eval", "s=v", NULL);
		assert_int_equal(r.status, 0);
		assert_null(strstr(r.err, "warning")); /* the previous run was found */
		t_run_free(&r);
		rec = S_head_file(c, "insights/_crystallizations.yaml");
		assert_non_null(strstr(rec, "  bloom_changes: {alpha: analyze→evaluate}\n"));
		free(rec);
		t_dtk(&r, c, S_env, "log", NULL);
		assert_int_equal(r.status, 0);
		assert_null(strstr(r.out, "2026-08-15  -")); /* found by its trailer */
		assert_non_null(strstr(r.out, "2026-07-01  -           ")); /* cut off */
		t_run_free(&r);
		free(c);
	}
	t_done(clone);
	t_done(dir);
}

/* Files dtk does not own (dotfiles, other names in insights/) stay as they
 * are in the tree and the index; a symbolic link stays a link (mode 120000,
 * its target), and the previous run is read through it. */
static void test_files_not_owned_and_links(void **state)
{
	char *dir = S_repo(1), *draft;
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir, "mkdir shared && mv insights/gamma.yaml shared/ && "
	                           "ln -s ../shared/gamma.yaml insights/gamma.yaml"),
	                 0);
	t_write_str(dir, "insights/.draft.yaml", "draft: 1\n");
	t_write_str(dir, "insights/notes.txt", "notes\n");
	S_commit_all(dir, "a link, a draft, notes");
	/* a staged change to the draft is the user's: not committed, still staged */
	t_write_str(dir, "insights/.draft.yaml", "draft: 2\n");
	assert_int_equal(t_sh(dir, "export %s && git add insights/.draft.yaml", S_genv), 0);
	S_month_one(dir);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	if (r.status)
		print_error("%s", r.err);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	draft = S_head_file(dir, "insights/.draft.yaml");
	assert_string_equal(draft, "draft: 1\n");
	free(draft);
	assert_int_equal(S_status(dir, "insights/.draft.yaml"), GIT_STATUS_INDEX_MODIFIED);
	assert_int_equal(S_status(dir, "insights/notes.txt"), 0);
	assert_int_equal(t_sh(dir, "git ls-tree HEAD insights/gamma.yaml | grep -q '^120000 '"), 0);
	assert_int_equal(t_sh(dir, "test \"$(git cat-file -p HEAD:insights/gamma.yaml)\" = "
	                           "../shared/gamma.yaml"),
	                 0);
	assert_int_equal(t_sh(dir, "git ls-files -s insights/gamma.yaml | grep -q '^120000 '"), 0);
	assert_int_equal(S_status(dir, "insights/gamma.yaml"), 0);
	assert_int_equal(t_sh(dir, "test -L insights/gamma.yaml"), 0);
	/* the next run reads the previous base through the link: no warning */
	assert_int_equal(t_sh(dir, "sed -i 's/^bloom: remember/bloom: understand/' "
	                           "shared/gamma.yaml"),
	                 0);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-09-20", "--eval", "s=v", NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.err, "warning"));
	t_run_free(&r);
	draft = S_head_file(dir, "insights/_crystallizations.yaml");
	assert_non_null(strstr(draft, "bloom_changes: {gamma: remember→understand}"));
	free(draft);
	t_done(dir);
}

/* A first run with no records file at all (nothing to append to). */
static void test_first_run_without_records(void **state)
{
	char *dir = S_repo(1), *rec;
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir,
	                      "export %s && git rm -q insights/_crystallizations.yaml && "
	                      "git commit -q -m 'no runs'",
	                      S_genv),
	                 0);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	if (r.status)
		print_error("%s", r.err);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	rec = t_read(dir, "insights/_crystallizations.yaml", NULL);
	assert_memory_equal(rec, "- date: 2026-08-15\n  new_entries: ", 34);
	free(rec);
	t_done(dir);
}

/* A journal that cannot be read is reported, and nothing is done. */
static void test_damaged_journal(void **state)
{
	char *dir = S_repo(1);
	(void)state;
	S_month_one(dir);
	t_write_str(dir, ".git/dtk-crystallize", "new\n");
	S_refused(dir, S_env, "dtk-crystallize is damaged", "2026-08-15");
	t_done(dir);
}

/* Values that read as numbers when written plain are quoted, so the record
 * reads back as written; the older records keep every byte. */
static void test_record_reads_back(void **state)
{
	char *dir = S_repo(1), *before, *after;
	struct t_run r;
	size_t n;
	(void)state;
	/* older records in a layout of their own, with a comment */
	assert_int_equal(t_sh(dir, "sed -i '1i # the runs' insights/_crystallizations.yaml && "
	                           "sed -i 's/^- date: 2026-07-01/- date:   2026-07-01   # b/' "
	                           "insights/_crystallizations.yaml"),
	                 0);
	S_commit_all(dir, "records by hand");
	before = t_read(dir, "insights/_crystallizations.yaml", &n);
	S_month_one(dir);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "0x1f=1e5", NULL);
	if (r.status)
		print_error("%s", r.err);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	after = S_head_file(dir, "insights/_crystallizations.yaml");
	assert_memory_equal(after, before, n); /* append only */
	assert_non_null(strstr(after + n, "  eval: {scenario: '0x1f', verdict: '1e5'}\n"));
	free(after);
	free(before);
	t_dtk(&r, dir, S_env, "check", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-09-20", "--eval", "true=a: b", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_dtk(&r, dir, S_env, "log", "--format", "json", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"scenario\": \"true\""));
	assert_non_null(strstr(r.out, "\"verdict\": \"a: b\""));
	t_run_free(&r);
	t_done(dir);
}

/* A base with no entries: earliest is the run's date, not 0000-00-00. */
static void test_base_without_entries(void **state)
{
	char *dir = S_repo(1), *rec;
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir, "printf 'node: alpha\\nbloom: apply\\ninsights: []\\n' > "
	                           "insights/alpha.yaml && "
	                           "printf 'node: beta\\nbloom: evaluate\\ninsights: []\\n' > "
	                           "insights/beta.yaml && "
	                           "sed -i '/flagged_by: beta-002/d' insights/_domain.yaml"),
	                 0);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	if (r.status)
		print_error("%s", r.err);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	rec = S_head_file(dir, "insights/_crystallizations.yaml");
	assert_non_null(strstr(rec, "- date: 2026-08-15\n  since: 2026-07-01\n  new_entries: 0\n"));
	assert_non_null(strstr(rec, "\n  stale: 0\n  earliest: 2026-08-15\n"));
	free(rec);
	t_dtk(&r, dir, S_env, "check", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_done(dir);
}

/* A first run dated before the entries would record an invalid 'earliest':
 * refused, nothing written (also with --no-commit). */
static void test_invalid_record_refused(void **state)
{
	char *dir = S_repo(1);
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir,
	                      "export %s && git rm -q insights/_crystallizations.yaml && "
	                      "git commit -q -m 'no runs' && '%s' reindex -q && "
	                      "git commit -q -am reindex",
	                      S_genv, DTK_BIN),
	                 0);
	S_refused(dir, S_env, "would not be valid; nothing was written", "2025-01-01");
	S_refused(dir, S_env, "entries dated after the run date 2025-01-01", "2025-01-01");
	t_dtk(&r, dir, S_env, "crystallize", "--no-commit", "--date", "2025-01-01", "--eval", "s=v",
	      NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
	assert_null(t_read(dir, "insights/_crystallizations.yaml", NULL));
	t_done(dir);
}

/* --no-commit killed between its two files (INDEX.md is written first):
 * the records are untouched, and the next run puts INDEX.md back (the
 * write's journal), goes again and finishes. */
static void test_no_commit_interrupted(void **state)
{
	char *twin = S_repo(1), *dir = S_repo(1), *a, *b, env[1300];
	struct t_run r;
	(void)state;
	S_month_one(twin);
	S_month_one(dir);
	t_dtk(&r, twin, S_env, "crystallize", "--no-commit", "--date", "2026-08-15", "--eval",
	      "s=v", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	a = t_read(dir, "insights/_crystallizations.yaml", NULL);
	snprintf(env, sizeof(env), "%s DTK_CRASH_AT=after-file", S_env);
	t_dtk_bin = DTK_CRASH_BIN;
	t_dtk(&r, dir, env, "crystallize", "--no-commit", "--date", "2026-08-15", "--eval", "s=v",
	      NULL);
	t_dtk_bin = DTK_BIN;
	assert_true(r.status == 137 || r.status == -1);
	t_run_free(&r);
	b = t_read(dir, "insights/_crystallizations.yaml", NULL);
	assert_string_equal(a, b); /* the records as they were */
	free(a);
	free(b);
	t_dtk(&r, dir, S_env, "crystallize", "--no-commit", "--date", "2026-08-15", "--eval", "s=v",
	      NULL);
	if (r.status)
		print_error("%s", r.err);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	a = t_read(dir, "insights/_crystallizations.yaml", NULL);
	b = t_read(twin, "insights/_crystallizations.yaml", NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = t_read(dir, "INDEX.md", NULL);
	b = t_read(twin, "INDEX.md", NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	t_done(dir);
	t_done(twin);
}

/* A run date after today is refused unless --allow-future; check warns of
 * entries created or reviewed after today, and its exit status stays. */
static void test_future_dates(void **state)
{
	char *dir = S_repo(1);
	struct t_run r;
	(void)state;
	S_month_one(dir);
	S_refused(dir, S_env, "the date 2099-01-01 is after today (", "2099-01-01");
	S_refused(dir, S_env, "pass --allow-future if you mean it", "2099-01-01");
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2099-01-01", "--eval", "s=v",
	      "--allow-future", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	assert_int_equal(t_sh(dir,
	                      "cat >> insights/beta.yaml <<'X'\n  - id: beta-003\n"
	                      "    title: three\n    claim: Three.\n    confidence: low\n"
	                      "    source: paper-b\n    created: 2098-01-01\n"
	                      "    reviewed: 2098-02-01\nX\n'%s' reindex -q",
	                      DTK_BIN),
	                 0);
	t_dtk(&r, dir, S_env, "check", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "insights/beta.yaml:"));
	assert_non_null(
	        strstr(r.err, ": warning: beta-003: 'created' 2098-01-01 is after today ("));
	assert_non_null(strstr(r.err, ": warning: beta-003: 'reviewed' 2098-02-01 is after today"));
	t_run_free(&r);
	t_done(dir);
}

/* A shallow clone without the previous run's commit: the figures would
 * differ from a full clone's, so the run is refused unless --allow-shallow. */
static void test_shallow_clone_without_previous_run(void **state)
{
	char *dir = S_repo(1), *clone = t_mkdtemp(), *c;
	struct t_run r;
	(void)state;
	S_month_one(dir);
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_write_str(dir, "notes.txt", "after the run\n");
	S_commit_all(dir, "a commit after the run");
	assert_int_equal(t_sh(clone,
	                      "export %s && git clone -q --depth 1 'file://%s' c && cd c && "
	                      "git config user.name K && git config user.email k@e && "
	                      "sed -i 's/^bloom: analyze/bloom: evaluate/' insights/alpha.yaml",
	                      S_genv, dir),
	                 0);
	c = dtk_path_join(clone, "c");
	S_refused(c, S_env, "is not in this shallow clone's history, so the figures would differ",
	          "2026-09-20");
	S_refused(c, S_env, "git fetch --unshallow", "2026-09-20");
	t_dtk(&r, c, S_env, "crystallize", "--date", "2026-09-20", "--eval", "s=v",
	      "--allow-shallow", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err,
	                       "warning: the base at the previous run (2026-08-15) is not in "
	                       "this shallow clone's history"));
	t_run_free(&r);
	/* a full clone finds it */
	assert_int_equal(t_sh(c, "export %s && git fetch -q --unshallow", S_genv), 0);
	free(c);
	t_done(clone);
	t_done(dir);
}

/* The branch moved after the run was interrupted (a commit made once the
 * lock was removed by hand): --continue refuses and points to --abort,
 * which drops the run; the next run goes. */
static void test_interrupted_then_branch_moved(void **state)
{
	char *dir = S_interrupted("after-journal");
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir,
	                      "rm .git/index.lock && export %s && "
	                      "git commit -q --allow-empty -m 'meanwhile'",
	                      S_genv),
	                 0);
	t_dtk(&r, dir, S_env, "crystallize", "--continue", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "has moved since the crystallization was interrupted; it "
	                              "cannot be finished: drop it with dtk crystallize --abort"));
	t_run_free(&r);
	t_dtk(&r, dir, S_env, "crystallize", "--abort", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	assert_null(t_read(dir, ".git/dtk-crystallize", NULL));
	t_dtk(&r, dir, S_env, "crystallize", "--date", "2026-08-15", "--eval", "s=v", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "git log -2 --format=%%s | tail -1 | grep -qx meanwhile"), 0);
	t_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_two_runs),
	        cmocka_unit_test(test_unrelated_changes_stay),
	        cmocka_unit_test(test_refusals),
	        cmocka_unit_test(test_unborn_head_makes_a_first_commit),
	        cmocka_unit_test(test_plan_and_dry_run_write_nothing),
	        cmocka_unit_test(test_crash_at_every_step),
	        cmocka_unit_test(test_reindex_crash_leaves_old_index),
	        cmocka_unit_test(test_merge_driver),
	        cmocka_unit_test(test_shallow_clone),
	        cmocka_unit_test(test_merge_driver_leaves_conflicts_to_people),
	        cmocka_unit_test(test_files_not_owned_and_links),
	        cmocka_unit_test(test_first_run_without_records),
	        cmocka_unit_test(test_damaged_journal),
	        cmocka_unit_test(test_record_reads_back),
	        cmocka_unit_test(test_base_without_entries),
	        cmocka_unit_test(test_invalid_record_refused),
	        cmocka_unit_test(test_release_has_no_crash_points),
	        cmocka_unit_test(test_abort),
	        cmocka_unit_test(test_interrupted_on_another_branch),
	        cmocka_unit_test(test_git_states_explained),
	        cmocka_unit_test(test_sparse_index),
	        cmocka_unit_test(test_no_commit_interrupted),
	        cmocka_unit_test(test_future_dates),
	        cmocka_unit_test(test_interrupted_then_branch_moved),
	        cmocka_unit_test(test_shallow_clone_without_previous_run),
	        cmocka_unit_test(test_taken_files),
	};
	char *home = t_mkdtemp();
	int rc;

	git_libgit2_init();
	snprintf(S_env, sizeof(S_env),
	         "env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME "
	         "-u GIT_COMMITTER_EMAIL -u EMAIL -u GIT_DIR -u GIT_WORK_TREE "
	         "HOME='%s' XDG_CONFIG_HOME='%s' GIT_CONFIG_NOSYSTEM=1",
	         home, home);
	snprintf(S_genv, sizeof(S_genv), "HOME='%s' XDG_CONFIG_HOME='%s' GIT_CONFIG_NOSYSTEM=1",
	         home, home);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	t_rmtree(home);
	free(home);
	git_libgit2_shutdown();
	return rc;
}
