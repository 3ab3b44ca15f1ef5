/* test_e2e.c: the dtk binary on fixture bases: reindex, check, show. */
#include "support.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static ino_t S_inode(const char *dir, const char *rel)
{
	struct stat st;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

static void test_reindex_writes_only_on_change(void **state)
{
	char *dir = t_base();
	struct t_run r;
	ino_t before;
	(void)state;
	before = S_inode(dir, "INDEX.md");
	t_dtk(&r, dir, NULL, "reindex", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "INDEX.md is up to date\n");
	assert_int_equal(S_inode(dir, "INDEX.md"), before);
	t_run_free(&r);
	t_write_str(dir, "INDEX.md", "stale\n");
	t_dtk(&r, dir, NULL, "reindex", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "wrote INDEX.md\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "ls -a | grep -q tmp-"), 1); /* no temporary left */
	t_done(dir);
}

static void test_check_finds_drift_and_reindex_fixes_it(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	assert_int_equal(
	        t_sh(dir, "sed -i 's/stance: 按延迟分层/stance: 按带宽分层/' insights/beta.yaml"),
	        0);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "--- a/INDEX.md\n+++ b/INDEX.md\n"));
	assert_non_null(strstr(r.out, "\n-| beta | evaluate | 2 | 暂定：按延迟分层 |\n"));
	assert_non_null(strstr(r.out, "\n+| beta | evaluate | 2 | 暂定：按带宽分层 |\n"));
	assert_string_equal(
	        r.err, "dtk check: INDEX.md is out of date; run 'dtk reindex' and commit it\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "reindex", "-q", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_done(dir);
}

static void test_check_missing_index(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir, "rm INDEX.md"), 0);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "INDEX.md is missing"));
	assert_null(t_read(dir, "INDEX.md", NULL)); /* check never writes */
	t_run_free(&r);
	t_done(dir);
}

/* An INDEX.md that cannot be read fails check and reindex with the reason
 * (found while the page is rendered on another thread), exit 2. */
static void test_unreadable_index(void **state)
{
	char *dir = t_base();
	struct t_run r;
	const char *cmd[] = {"check", "reindex"};
	size_t i;
	(void)state;
	assert_int_equal(t_sh(dir, "rm INDEX.md && mkdir INDEX.md"), 0);
	for (i = 0; i < 2; i++) {
		t_dtk(&r, dir, NULL, cmd[i], NULL);
		assert_int_equal(r.status, 2);
		assert_non_null(strstr(r.err, "cannot read"));
		assert_non_null(strstr(r.err, "INDEX.md: Is a directory"));
		t_run_free(&r);
	}
	t_done(dir);
}

static void test_invalid_input_writes_nothing(void **state)
{
	char *dir = t_base(), *before, *after;
	struct t_run r;
	(void)state;
	before = t_read(dir, "INDEX.md", NULL);
	t_write_str(dir, "insights/gamma.yaml", "node: gamma\nbloom: nope\ninsights: []\n");
	t_write_str(dir, "insights/beta.yaml", "node: beta\nbloom: [\n");
	t_dtk(&r, dir, NULL, "reindex", NULL);
	assert_int_equal(r.status, 2);
	/* every error of the run, sorted by file */
	assert_non_null(strstr(r.err, "insights/beta.yaml:3:1: error: "));
	assert_non_null(strstr(r.err, "insights/gamma.yaml:2:8: error: 'bloom' must be one of"));
	assert_non_null(strstr(r.err, "dtk: 2 errors; nothing was written\n"));
	assert_true(strstr(r.err, "beta.yaml") < strstr(r.err, "gamma.yaml"));
	t_run_free(&r);
	/* commands that never write do not say that nothing was written */
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "\ndtk: 2 errors\n"));
	assert_null(strstr(r.err, "written"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "\ndtk: 2 errors\n"));
	assert_null(strstr(r.err, "written"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "search", "nope", NULL); /* parses gamma.yaml only */
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "\ndtk: 1 error\n"));
	assert_null(strstr(r.err, "written"));
	t_run_free(&r);
	after = t_read(dir, "INDEX.md", NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	t_done(dir);
}

/* A source whose title is missing or not a string: every command that reads
 * the base says so and exits 2 (a search too: it reads the titles while the
 * base loads). */
static void test_source_without_title(void **state)
{
	static const char *const cmds[][3] = {{"search", "paper", NULL},
	                                      {"search", "paper", "--format=json"},
	                                      {"show", "alpha", NULL},
	                                      {"list", NULL, NULL},
	                                      {"check", NULL, NULL}};
	char *dir = t_base();
	struct t_run r;
	size_t i;
	(void)state;
	t_write_str(dir, "insights/_sources.yaml",
	            "- id: paper-a\n- id: paper-b\n  title: [B]\n- id: paper-c\n  title: C\n"
	            "- id: docs-d\n  title: D\n");
	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		t_dtk(&r, dir, NULL, cmds[i][0], cmds[i][1], cmds[i][2], NULL);
		if (r.status != 2)
			print_error("dtk %s: status %d\n%s", cmds[i][0], r.status, r.err);
		assert_int_equal(r.status, 2);
		assert_non_null(strstr(r.err,
		                       "insights/_sources.yaml:1:3: error: source is missing "
		                       "required key 'title'"));
		assert_non_null(strstr(r.err, "insights/_sources.yaml:3:10: error: "));
		t_run_free(&r);
	}
	t_done(dir);
}

static void test_deterministic(void **state)
{
	char *a = t_base(), *b = t_base(), *ia, *ib;
	struct t_run r;
	(void)state;
	t_sh(a, "rm INDEX.md");
	t_sh(b, "rm INDEX.md");
	t_dtk(&r, a, "TZ=Pacific/Kiritimati LC_ALL=C", "reindex", NULL);
	t_run_free(&r);
	t_dtk(&r, b, "TZ=UTC LANG=zh_CN.UTF-8", "reindex", NULL);
	t_run_free(&r);
	ia = t_read(a, "INDEX.md", NULL);
	ib = t_read(b, "INDEX.md", NULL);
	assert_non_null(ia);
	assert_string_equal(ia, ib);
	free(ia);
	free(ib);
	t_done(a);
	t_done(b);
}

static void test_root_discovery_and_C(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "-C", "insights", "check", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_dtk(&r, "/", NULL, "-C", dir, "check", "-q", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	t_run_free(&r);
	t_dtk(&r, "/", NULL, "check", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "not in a knowledge base"));
	t_run_free(&r);
	t_done(dir);
}

/* A claim or stance of several lines: each line after the first indented
 * as the first is, so the entry reads as one block; every labelled list
 * (source, relates, related by, contradicts ...) in one column. */
static void test_show_multiline_aligned(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_write_str(dir, "insights/gamma.yaml",
	            "node: gamma\nbloom: remember\nstance: |-\n  one\n  two\ninsights:\n"
	            "  - id: gamma-001\n    title: T\n    claim: |-\n      first line\n"
	            "      second line\n    confidence: low\n    source: paper-a\n"
	            "    created: 2026-02-01\n    relates: [alpha-001]\n");
	t_dtk(&r, dir, NULL, "reindex", "-q", NULL);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "gamma", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "stance (tentative): one\n  two\n"));
	assert_non_null(strstr(r.out, "  T\n  first line\n  second line\n"
	                              "  source:          Paper A (paper-a)\n"));
	assert_non_null(strstr(r.out, "  relates:         alpha-001 "));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "alpha-001", NULL);
	assert_non_null(strstr(r.out, "  related by:      "));
	assert_non_null(strstr(r.out, "\n                   gamma-001 T\n"));
	t_run_free(&r);
	/* JSON says where the entry is written */
	t_dtk(&r, dir, NULL, "show", "gamma-001", "--format", "json", NULL);
	assert_non_null(strstr(r.out, "\"node\": \"gamma\",\n  \"file\": \"insights/gamma.yaml\",\n"
	                              "  \"line\": 7,\n"));
	t_run_free(&r);
	t_done(dir);
}

static void test_show_node_text(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "show", "alpha", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "alpha  [通信]  bloom apply  3 entries\n"));
	assert_non_null(strstr(r.out, "stance: 通信图在初始化时固化\n"));
	assert_non_null(
	        strstr(r.out, "alpha-001  high  created 2026-01-15  reviewed 2026-05-01\n"));
	assert_non_null(strstr(r.out, "  source:          Paper A (paper-a)\n"));
	assert_non_null(strstr(r.out, "  verified by:     Paper B (paper-b)\n"));
	assert_non_null(strstr(r.out, "alpha-002  medium (candidate)"));
	assert_non_null(strstr(
	        r.out, "  contradicts:     alpha-001 (open) 初始化即固化: 与 alpha-001 的前提冲突\n"));
	assert_non_null(strstr(r.out, "                   beta-001 (resolved) TP 留在低延迟域\n"));
	assert_non_null(strstr(r.out, "  relates:         alpha-001 初始化即固化\n"
	                              "                   cluster-infra:scale-up-interconnect-055\n"));
	assert_null(strchr(r.out, '\033')); /* not a terminal: no colour */
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "--color", "always", "alpha", NULL);
	assert_non_null(strchr(r.out, '\033'));
	t_run_free(&r);
	t_dtk(&r, dir, "NO_COLOR=1", "show", "alpha", NULL);
	assert_null(strchr(r.out, '\033'));
	t_run_free(&r);
	t_done(dir);
}

static void test_show_entry_json(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "show", "--format", "json", "alpha-002", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "{\n  \"id\": \"alpha-002\",\n  \"node\": \"alpha\",\n"));
	assert_non_null(strstr(r.out, "  \"candidate\": true,\n"));
	assert_non_null(strstr(r.out,
	                       "\"verified_by\": [\n    {\n      \"id\": \"docs-d\",\n"
	                       "      \"title\": \"Docs D\",\n      \"url\": null\n    }\n  ],"));
	assert_non_null(strstr(r.out, "  \"reviewed\": null,\n  \"fresh\": \"2026-02-01\",\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "beta", "--format=json", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(
	        r.out, "\"node\": \"beta\",\n  \"category\": \"策略\",\n  \"bloom\": "
	               "\"evaluate\",\n  \"stance\": \"按延迟分层\",\n  \"tentative\": true,"));
	t_run_free(&r);
	t_done(dir);
}

/* What names an entry or a node: relates, contradicts (from this node and
 * others) and gaps, with titles. */
static void test_show_backlinks(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "show", "alpha-001", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  related by:      alpha-002 小消息瓶颈在同步\n"
	                              "  contradicted by: alpha-003 (open) A low one: 与 alpha-001 "
	                              "的前提冲突\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "beta-002", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  flags gap:       能效仍是开放空白\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "beta", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\nlinks from other nodes:\n"
	                              "  alpha-003 contradicts (resolved) beta-001  A low one\n"
	                              "  gap flagged by beta-002: 能效仍是开放空白\n"));
	assert_non_null(strstr(r.out, "  contradicted by: alpha-003 (resolved) A low one\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "alpha", NULL); /* its own links are not inbound */
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\nlinks from other nodes: none\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "-f", "json", "beta-001", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out,
	                       "  \"referenced_by\": [\n    {\n      \"id\": \"alpha-003\",\n"
	                       "      \"how\": \"contradicts\",\n      \"title\": \"A low "
	                       "one\",\n      \"status\": \"resolved\",\n      \"note\": "
	                       "null\n    }\n  ]\n}\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "-f", "json", "beta", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\n  \"referenced_by\": [\n    {\n      \"id\": "
	                              "\"alpha-003\",\n      \"how\": \"contradicts\",\n      "
	                              "\"to\": \"beta-001\",\n"));
	assert_non_null(strstr(r.out, "    {\n      \"id\": null,\n      \"how\": \"gap\",\n"
	                              "      \"to\": \"beta-002\",\n      \"gap\": "
	                              "\"能效仍是开放空白\"\n    }\n  ]\n}\n"));
	t_run_free(&r);
	/* a node file that names the node but cannot be read is left out */
	t_write_str(dir, "insights/gamma.yaml", "node: gamma\ninsights: [beta-001: [\n");
	t_dtk(&r, dir, NULL, "show", "beta-001", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "contradicted by: alpha-003"));
	t_run_free(&r);
	t_done(dir);
}

static void test_show_refuses_and_suggests(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "show", "alpah", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err,
	                    "dtk show: error: no node, entry or source 'alpah'; did you mean 'alpha'?\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "alpha-009", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "dtk show: error: node 'alpha' has no entry 'alpha-009'; did "
	                           "you mean 'alpha-001'?\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "../INDEX", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "dtk show: error: '../INDEX' is not a node name or entry id\n"
	                           "see 'dtk show --help'\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "_domain", NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
	t_done(dir);
}

static void test_show_reads_only_its_node(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_write_str(dir, "insights/gamma.yaml", "broken: [\n");
	t_dtk(&r, dir, NULL, "show", "alpha", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "gamma", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "insights/gamma.yaml:2:1: error:"));
	t_run_free(&r);
	t_done(dir);
}

static void test_help_version_usage(void **state)
{
	struct t_run r;
	(void)state;
	t_dtk(&r, "/", NULL, "--version", NULL);
	assert_int_equal(r.status, 0);
	assert_memory_equal(r.out, "dtk ", 4);
	t_run_free(&r);
	t_dtk(&r, "/", NULL, "--help", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  reindex "));
	assert_non_null(strstr(r.out, "  check "));
	assert_non_null(strstr(r.out, "  show "));
	t_run_free(&r);
	t_dtk(&r, "/", NULL, "show", "--help", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: dtk show"));
	t_run_free(&r);
	t_dtk(&r, "/", NULL, "help", "check", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: dtk check"));
	t_run_free(&r);
	t_dtk(&r, "/", NULL, "reindx", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "did you mean 'reindex'?"));
	t_run_free(&r);
	t_dtk(&r, "/", NULL, NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
}

static void test_list_filters_and_formats(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "list", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "alpha-001\thigh\t2026-05-01\t初始化即固化\n"
	                           "alpha-002\tmedium\t2026-02-01\t小消息瓶颈在同步\n"
	                           "alpha-003\tlow\t2026-06-20\tA low one\n"
	                           "beta-001\tmedium\t2026-02-10\tTP 留在低延迟域\n"
	                           "beta-002\tlow\t2026-06-25\t能效未进目标\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--candidates", "--format", "ids", NULL);
	assert_string_equal(r.out, "alpha-002\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--node", "beta", "--since", "2026-03-01", "--format", "ids",
	      NULL);
	assert_string_equal(r.out, "beta-002\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--stale-at", "2026-08-05", "--confidence", "medium",
	      "--format", "ids", NULL);
	assert_string_equal(r.out, "alpha-002\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--node", "beta", "--format", "jsonl", NULL);
	assert_int_equal(r.status, 0);
	assert_memory_equal(r.out, "{\"id\": \"beta-001\", \"node\": \"beta\", ", 34);
	assert_non_null(strstr(r.out, "}\n{\"id\": \"beta-002\""));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--format", "json", "--confidence", "high", NULL);
	assert_memory_equal(r.out, "[\n  {\n    \"id\": \"alpha-001\",", 27);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--node", "beta", "--node", "alpha", "--confidence", "low",
	      "--format", "ids", NULL); /* any node given */
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "alpha-003\nbeta-002\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--node", "beta", "--node", "alph", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "dtk list: error: no node 'alph'; did you mean 'alpha'?\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--node", "nope", NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--confidence", "sure", NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
	t_done(dir);
}

/* dtk list --nodes: each node with its entry count, bloom and stance. */
static void test_list_nodes(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "list", "--nodes", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "alpha\t3\tapply\tfirm\t通信图在初始化时固化\n"
	                           "beta\t2\tevaluate\ttentative\t按延迟分层\n"
	                           "gamma\t0\tremember\t-\t-\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--nodes", "--format", "jsonl", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
	                    "{\"node\": \"alpha\", \"category\": \"通信\", \"n_entries\": 3, "
	                    "\"bloom\": \"apply\", \"stance\": \"通信图在初始化时固化\", "
	                    "\"tentative\": false}\n"
	                    "{\"node\": \"beta\", \"category\": \"策略\", \"n_entries\": 2, "
	                    "\"bloom\": \"evaluate\", \"stance\": \"按延迟分层\", "
	                    "\"tentative\": true}\n"
	                    "{\"node\": \"gamma\", \"category\": \"策略\", \"n_entries\": 0, "
	                    "\"bloom\": \"remember\", \"stance\": null, \"tentative\": null}\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--nodes", "--node", "gamma", "--node", "beta", "-f", "json",
	      NULL);
	assert_int_equal(r.status, 0);
	assert_memory_equal(r.out, "[\n  {\n    \"node\": \"beta\",", 25);
	assert_non_null(strstr(r.out, "\"node\": \"gamma\""));
	assert_null(strstr(r.out, "\"node\": \"alpha\""));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--nodes", "--format", "ids", NULL);
	assert_string_equal(r.out, "alpha\nbeta\ngamma\n");
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", "--nodes", "--since", "2026-01-01", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "dtk list: error: --nodes and --since cannot be used together: "
	                           "--nodes lists nodes, not entries\nsee 'dtk list --help'\n");
	t_run_free(&r);
	/* show's JSON: a node without a stance is neither firm nor tentative */
	t_dtk(&r, dir, NULL, "show", "gamma", "--format", "json", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  \"stance\": null,\n  \"tentative\": null,\n"));
	t_run_free(&r);
	t_done(dir);
}

/* Returns 1 when s is "<node>-" and a fresh suffix, then a newline. */
static int S_fresh_line(const char *s, const char *node)
{
	size_t n = strlen(node), i, digits = 0;
	if (strncmp(s, node, n) || s[n] != '-' || strlen(s + n + 1) != 8 || s[n + 8] != '\n')
		return 0;
	for (i = n + 1; i < n + 8; i++) {
		if (!strchr("0123456789abcdefghjkmnpqrstvwxyz", s[i]))
			return 0;
		digits += s[i] <= '9';
	}
	return digits > 0 && digits < 7;
}

/* next-id: a fresh id, random, never a sequence number; an entry written by
 * hand with it checks. */
static void test_next_id(void **state)
{
	char *dir = t_base(), *one, id[16];
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "next-id", "alpha", NULL);
	assert_int_equal(r.status, 0);
	assert_true(S_fresh_line(r.out, "alpha"));
	one = strdup(r.out);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "next-id", "alpha", NULL);
	assert_true(S_fresh_line(r.out, "alpha"));
	assert_string_not_equal(r.out, one);
	t_run_free(&r);
	one[strlen(one) - 1] = '\0';
	assert_int_equal(t_sh(dir,
	                      "printf '  - id: %s\\n    title: t\\n    claim: c\\n    "
	                      "confidence: low\\n    source: paper-a\\n    created: "
	                      "2026-07-01\\n' >>insights/alpha.yaml",
	                      one),
	                 0);
	free(one);
	t_dtk(&r, dir, NULL, "reindex", "-q", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "next-id", "gamma", NULL);
	assert_true(S_fresh_line(r.out, "gamma"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "next-id", "gamma", "--format", "json", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(strlen(r.out), 28); /* {"id": "gamma-<7>"}, as json writes it */
	assert_true(!strncmp(r.out, "{\n  \"id\": \"", 11) && !strcmp(r.out + 24, "\"\n}\n"));
	snprintf(id, sizeof(id), "%.13s\n", r.out + 11);
	assert_true(S_fresh_line(id, "gamma"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "next-id", "alpah", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "dtk next-id: error: no node 'alpah'; did you mean 'alpha'?\n");
	t_run_free(&r);
	t_done(dir);
}

static void test_check_github_annotations(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_write_str(dir, "insights/gamma.yaml", "node: gamma\nbloom: remembr\ninsights: []\n");
	t_dtk(&r, dir, NULL, "check", "--format", "github", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out,
	                    "::error file=insights/gamma.yaml,line=2,col=8::'bloom' must be one "
	                    "of remember, understand, apply, analyze, evaluate, create; found "
	                    "'remembr' (did you mean 'remember'?)\n");
	t_run_free(&r);
	/* a message's '%' escaped as a workflow command wants it */
	t_write_str(dir, "insights/gamma.yaml", "node: gamma\nbloom: remember\nx%y: 1\n"
	                                        "insights: []\n");
	t_dtk(&r, dir, NULL, "check", "--format", "github", NULL);
	assert_string_equal(r.out, "::error file=insights/gamma.yaml,line=3,col=1::unknown key "
	                           "'x%25y' in node file\n");
	t_run_free(&r);
	t_write_str(dir, "insights/gamma.yaml", "node: gamma\nbloom: remember\ninsights: []\n");
	t_write_str(dir, "INDEX.md", "old\n");
	t_dtk(&r, dir, NULL, "check", "--format", "github", NULL);
	assert_int_equal(r.status, 1);
	assert_memory_equal(r.out,
	                    "::error file=INDEX.md::INDEX.md is out of date; run 'dtk reindex' "
	                    "and commit it\ndiff --git",
	                    84);
	t_run_free(&r);
	/* a base in a folder of a repository: paths are the repository's (a
	 * property's ':' and ',' escaped) */
	assert_int_equal(t_sh(dir, "mkdir k,b: && mv insights INDEX.md k,b:/ && git init -q"), 0);
	t_dtk(&r, dir, NULL, "-C", "k,b:", "check", "--format", "github", NULL);
	assert_int_equal(r.status, 1);
	assert_memory_equal(r.out, "::error file=k%2Cb%3A/INDEX.md::", 32);
	t_run_free(&r);
	t_done(dir);
}

static void test_english_index(void **state)
{
	char *dir = t_base(), *index;
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir, "echo 'lang: en' >> insights/_domain.yaml"), 0);
	t_dtk(&r, dir, NULL, "reindex", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	index = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(index, "## Status\n\n  - Nodes: 3\n  - Nodes with insights: 2\n"));
	assert_non_null(strstr(index, "  - High-confidence insights: 1 (alpha-001)\n"));
	assert_non_null(strstr(index, "(usage 60%, citation 40%, closure 20%)\n"));
	assert_non_null(strstr(index, "| beta | evaluate | 2 | Tentative: 按延迟分层 |\n"));
	assert_non_null(strstr(index, "Open contradictions: 1.\n"));
	assert_non_null(strstr(index, "  - 能效仍是开放空白 (flagged by beta-002)\n"));
	assert_non_null(strstr(index, "alpha-002 (小消息瓶颈在同步).\n"));
	assert_non_null(
	        strstr(index, "2026-07-01: 2 new since 03-01; 0 high promotions or demotions"));
	assert_null(strstr(index, "暂定"));
	free(index);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "sed -i 's/^lang: en/lang: fr/' insights/_domain.yaml"), 0);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "'lang' must be one of zh, en; found 'fr'"));
	t_run_free(&r);
	t_done(dir);
}

static void test_export_html(void **state)
{
	char *dir = t_base(), *site, *index, *alpha;
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir,
	                      "sed -i 's|^stance: 通信图在初始化时固化|stance: "
	                      "\"<script>x()</script> 固化\"|' "
	                      "insights/alpha.yaml && '%s' reindex -q",
	                      DTK_BIN),
	                 0);
	site = dtk_path_join(dir, "site");
	t_dtk(&r, dir, NULL, "export", "html", "site", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "wrote 4 pages to site; open site/index.html\n");
	t_run_free(&r);
	index = t_read(site, "index.html", NULL);
	alpha = t_read(site, "nodes/alpha.html", NULL);
	assert_non_null(index);
	assert_non_null(alpha);
	assert_non_null(strstr(index, "<td><a href=\"nodes/alpha.html\">alpha</a></td>"));
	assert_non_null(strstr(index, "<link rel=\"stylesheet\" href=\"style.css\">"));
	assert_null(strstr(index, "<script>x")); /* raw HTML in the data is not passed through */
	assert_non_null(strstr(alpha, "<link rel=\"stylesheet\" href=\"../style.css\">"));
	assert_non_null(strstr(alpha, "<nav><a href=\"../index.html\">"));
	assert_non_null(strstr(alpha, "<h1>alpha</h1>"));
	assert_non_null(strstr(alpha, "Communicators fix rank and size at creation"));
	assert_non_null(
	        strstr(alpha, "来源：<a href=\"https://example.org/a\">Paper A</a> (paper-a)"));
	assert_non_null(strstr(alpha, "关联：<a href=\"alpha.html#alpha-001\">alpha-001</a>"));
	free(index);
	index = t_read(site, "nodes/gamma.html", NULL); /* a node without entries has a page */
	assert_non_null(index);
	free(index);
	free(alpha);
	free(site);
	t_dtk(&r, dir, NULL, "export", "pdf", "site", NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
	t_done(dir);
}

/* The site as people browse it: entries are anchors, every id links to its
 * entry, a search index, labels in the base's language. */
static void test_export_site_links_and_language(void **state)
{
	char *dir = t_base(), *index, *alpha, *search;
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "export", "html", "site", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	index = t_read(dir, "site/index.html", NULL);
	alpha = t_read(dir, "site/nodes/alpha.html", NULL);
	search = t_read(dir, "site/search.js", NULL);
	/* anchors, and the ids of the high list, candidates, contradictions,
	 * gaps and hotspot notes link to them */
	assert_non_null(strstr(alpha, "<h2 id=\"alpha-001\">"));
	assert_non_null(strstr(alpha, "<h2 id=\"alpha-003\">"));
	assert_non_null(strstr(index, "1（<a href=\"nodes/alpha.html#alpha-001\">alpha-001</a>）"));
	assert_non_null(strstr(index, "<a href=\"nodes/alpha.html#alpha-002\">alpha-002</a>（"));
	assert_non_null(strstr(index, "<a href=\"nodes/alpha.html#alpha-003\">alpha-003</a>↔"
	                              "<a href=\"nodes/beta.html#beta-001\">beta-001</a>"));
	assert_non_null(
	        strstr(index, "（<a href=\"nodes/beta.html#beta-002\">beta-002</a> 标记）"));
	/* a cross-domain id is not a local entry */
	assert_null(strstr(index, "#scale-up"));
	/* the search box and its index */
	assert_non_null(strstr(index, "<input id=\"q\" type=\"search\""));
	assert_non_null(strstr(index, "<script src=\"search.js\"></script>"));
	assert_non_null(strstr(search, "var DTK_SEARCH = [{\"id\": \"alpha-001\", \"node\": "
	                               "\"alpha\", \"title\": \"初始化即固化\", \"claim\": "
	                               "\"Communicators fix rank"));
	/* zh labels only */
	assert_non_null(strstr(alpha, "<p>通信 · Bloom apply · Insight 条目: 3</p>"));
	assert_non_null(strstr(alpha, "<p>核心立场：通信图在初始化时固化</p>"));
	assert_non_null(strstr(alpha, "置信度 high · 创建于 2026-01-15 · 复核于 2026-05-01 · "
	                              "使用 3 · 引用 2 · 已闭环"));
	assert_non_null(strstr(alpha, "置信度 medium（候选）"));
	assert_non_null(strstr(alpha, "佐证："));
	assert_non_null(strstr(index, "placeholder=\"搜索标题与 claim\""));
	assert_null(strstr(alpha, "stance"));
	assert_null(strstr(alpha, "entries"));
	assert_null(strstr(alpha, "confidence"));
	assert_null(strstr(alpha, "source:"));
	assert_null(strstr(alpha, "created"));
	free(index);
	free(alpha);
	free(search);
	/* en: English labels */
	assert_int_equal(t_sh(dir, "echo 'lang: en' >> insights/_domain.yaml"), 0);
	t_dtk(&r, dir, NULL, "export", "html", "site", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	alpha = t_read(dir, "site/nodes/alpha.html", NULL);
	assert_non_null(strstr(alpha, "<p>Stance: 通信图在初始化时固化</p>"));
	assert_non_null(strstr(alpha, "confidence high · created 2026-01-15 · reviewed "
	                              "2026-05-01 · used 3 · cited 2 · closed"));
	assert_non_null(strstr(alpha, "source: <a href"));
	assert_null(strstr(alpha, "来源"));
	free(alpha);
	t_done(dir);
}

/* The export owns its directory: a node named index cannot overwrite
 * index.html, pages of removed nodes go, and a directory it did not write is
 * refused with every byte left as it was. */
static void test_export_owns_its_directory(void **state)
{
	char *dir = t_base(), *page;
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir,
	                      "sed -i 's/nodes: \\[beta, gamma\\]/nodes: [beta, gamma, index]/' "
	                      "insights/_domain.yaml && "
	                      "printf 'node: index\\nbloom: remember\\ninsights: []\\n' "
	                      "> insights/index.yaml"),
	                 0);
	t_dtk(&r, dir, NULL, "export", "html", "site", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "wrote 5 pages to site; open site/index.html\n");
	t_run_free(&r);
	page = t_read(dir, "site/index.html", NULL);
	assert_non_null(strstr(page, "<h1>Demo Training Knowledge Index</h1>"));
	assert_non_null(strstr(page, "<a href=\"nodes/index.html\">index</a>"));
	free(page);
	page = t_read(dir, "site/nodes/index.html", NULL);
	assert_non_null(strstr(page, "<h1>index</h1>"));
	free(page);
	page = t_read(dir, "site/.dtk-export", NULL);
	assert_non_null(page);
	free(page);

	/* gamma and index removed from the base: their pages go, others stay */
	assert_int_equal(t_sh(dir, "sed -i 's/nodes: \\[beta, gamma, index\\]/nodes: [beta]/; "
	                           "/gamma 尚无条目/d' insights/_domain.yaml && "
	                           "rm insights/gamma.yaml insights/index.yaml && "
	                           "echo keep > site/notes.txt"),
	                 0);
	t_dtk(&r, dir, NULL, "export", "html", "site", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "removed 2 pages of nodes that no longer exist\n"
	                           "wrote 3 pages to site; open site/index.html\n");
	t_run_free(&r);
	assert_null(t_read(dir, "site/nodes/gamma.html", NULL));
	assert_null(t_read(dir, "site/nodes/index.html", NULL));
	page = t_read(dir, "site/nodes/beta.html", NULL);
	assert_non_null(page);
	free(page);
	page = t_read(dir, "site/notes.txt", NULL);
	assert_string_equal(page, "keep\n");
	free(page);

	/* a directory the export did not write: refused, nothing changes (the
	 * base's own root included) */
	assert_int_equal(t_sh(dir,
	                      "mkdir mine && echo data > mine/file && "
	                      "{ find . -printf '%%p %%y %%s %%T@ %%i\\n' | sort; "
	                      "find . -type f -exec sha256sum {} + | sort; } > ../before-%d.txt",
	                      (int)getpid()),
	                 0);
	t_dtk(&r, dir, NULL, "export", "html", "mine", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "mine is not empty and was not written by dtk export"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "export", "html", ".", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, ". is not empty and was not written by dtk export"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "export", "html", "mine/file", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "mine/file is not a directory"));
	t_run_free(&r);
	assert_int_equal(t_sh(dir,
	                      "{ find . -printf '%%p %%y %%s %%T@ %%i\\n' | sort; "
	                      "find . -type f -exec sha256sum {} + | sort; } | "
	                      "cmp -s - ../before-%d.txt && "
	                      "rm ../before-%d.txt",
	                      (int)getpid(), (int)getpid()),
	                 0);
	/* an empty directory is taken */
	assert_int_equal(t_sh(dir, "mkdir empty"), 0);
	t_dtk(&r, dir, NULL, "export", "html", "empty", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	t_done(dir);
}

static void test_writers_wait_for_the_lock(void **state)
{
	char *dir = t_base();
	struct t_run r;
	int fd;
	(void)state;
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0); /* as another dtk run would */
	t_write_str(dir, "INDEX.md", "stale\n");
	t_dtk(&r, dir, "timeout 2", "reindex", NULL);
	assert_int_equal(r.status, 124); /* still waiting when the timeout struck */
	assert_non_null(strstr(r.err, "another dtk run holds the lock on"));
	t_run_free(&r);
	close(fd); /* releases the lock */
	t_dtk(&r, dir, NULL, "reindex", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "wrote INDEX.md\n");
	t_run_free(&r);
	t_done(dir);
}

/* The East Asian line-break rule reaches every output: the shipped base's
 * folded claims in show (text, JSON), a folded stance in INDEX.md, show, JSON
 * and the HTML export. */
static void test_east_asian_line_breaks(void **state)
{
	char *dir = t_base(), *root = t_src(""), *index, *page;
	struct t_run r;
	(void)state;
	t_dtk(&r, root, NULL, "show", "training-parallelism-008", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "单层耗时，均分层数"));
	assert_null(strstr(r.out, "耗时， 均分"));
	t_run_free(&r);
	t_dtk(&r, root, NULL, "show", "collective-communication", "--format", "json", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "只能靠另一个线程"));
	assert_null(strstr(r.out, "另一个 线程"));
	t_run_free(&r);

	assert_int_equal(t_sh(dir,
	                      "sed -i 's|^stance: 通信图在初始化时固化|stance: >-\\n  "
	                      "通信图在\\n  初始化时固化 (NCCL)|' insights/alpha.yaml && "
	                      "'%s' reindex -q && '%s' export html site",
	                      DTK_BIN, DTK_BIN),
	                 0);
	index = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(index, "| 通信图在初始化时固化 (NCCL) |"));
	free(index);
	page = t_read(dir, "site/nodes/alpha.html", NULL);
	assert_non_null(strstr(page, "通信图在初始化时固化 (NCCL)"));
	free(page);
	t_dtk(&r, dir, NULL, "show", "alpha", NULL);
	assert_non_null(strstr(r.out, "stance: 通信图在初始化时固化 (NCCL)\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "alpha", "--format", "json", NULL);
	assert_non_null(strstr(r.out, "\"stance\": \"通信图在初始化时固化 (NCCL)\""));
	t_run_free(&r);
	free(root);
	t_done(dir);
}

/* Text fields are plain text in every output (docs/schema.md, "Text"):
 * Markdown characters show as typed, line breaks of a literal scalar become
 * one space (none between two wide characters). */
static void test_text_is_plain(void **state)
{
	char *dir = t_base(), *index, *page;
	struct t_run r;
	(void)state;
	assert_int_equal(
	        t_sh(dir,
	             "sed -i 's|^stance: 通信图在初始化时固化|stance: \"这是**“重点”**内容, "
	             "*em* `c` [l](u) <b>\"|' insights/alpha.yaml && "
	             "sed -i 's|^    title: 小消息瓶颈在同步|    title: \\|-\\n      小消息\\n"
	             "      瓶颈 in\\n      sync|' insights/alpha.yaml && "
	             "'%s' reindex -q && '%s' export html site",
	             DTK_BIN, DTK_BIN),
	        0);
	index = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(index, "| 这是\\*\\*“重点”\\*\\*内容, \\*em\\* \\`c\\` \\[l\\](u) "
	                              "\\<b\\> |"));
	assert_non_null(strstr(index, "alpha-002（小消息瓶颈 in sync）"));
	free(index);
	page = t_read(dir, "site/nodes/alpha.html", NULL);
	assert_non_null(strstr(page, "这是**“重点”**内容, *em* `c` [l](u) &lt;b&gt;"));
	assert_null(strstr(page, "<em>"));
	assert_null(strstr(page, "<code>"));
	assert_non_null(strstr(page, "小消息瓶颈 in sync"));
	free(page);
	page = t_read(dir, "site/index.html", NULL);
	assert_non_null(strstr(page, "这是**“重点”**内容, *em* `c` [l](u) &lt;b&gt;"));
	free(page);
	t_dtk(&r, dir, NULL, "show", "alpha", NULL);
	assert_non_null(strstr(r.out, "这是**“重点”**内容, *em* `c` [l](u) <b>\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "alpha", "-f", "json", NULL);
	assert_non_null(strstr(r.out, "\"stance\": \"这是**“重点”**内容, *em* `c` [l](u) <b>\""));
	t_run_free(&r);
	t_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_reindex_writes_only_on_change),
	        cmocka_unit_test(test_check_finds_drift_and_reindex_fixes_it),
	        cmocka_unit_test(test_check_missing_index),
	        cmocka_unit_test(test_unreadable_index),
	        cmocka_unit_test(test_invalid_input_writes_nothing),
	        cmocka_unit_test(test_deterministic),
	        cmocka_unit_test(test_root_discovery_and_C),
	        cmocka_unit_test(test_show_node_text),
	        cmocka_unit_test(test_show_multiline_aligned),
	        cmocka_unit_test(test_show_entry_json),
	        cmocka_unit_test(test_show_backlinks),
	        cmocka_unit_test(test_show_refuses_and_suggests),
	        cmocka_unit_test(test_show_reads_only_its_node),
	        cmocka_unit_test(test_help_version_usage),
	        cmocka_unit_test(test_list_filters_and_formats),
	        cmocka_unit_test(test_list_nodes),
	        cmocka_unit_test(test_next_id),
	        cmocka_unit_test(test_check_github_annotations),
	        cmocka_unit_test(test_english_index),
	        cmocka_unit_test(test_export_html),
	        cmocka_unit_test(test_export_site_links_and_language),
	        cmocka_unit_test(test_export_owns_its_directory),
	        cmocka_unit_test(test_writers_wait_for_the_lock),
	        cmocka_unit_test(test_east_asian_line_breaks),
	        cmocka_unit_test(test_text_is_plain),
	        cmocka_unit_test(test_source_without_title),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
