/* test_write.c: the write commands through the binary: every command, the
 * bytes they write (compared whole), every refusal leaving every file
 * byte-identical, dry runs, CRLF and commented files, parallel runs, and a
 * kill at each step. */
#include "support.h"

#include "dtk/dtk.h"
#include "dtk/model.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void S_check_ok(const char *dir)
{
	struct t_run r;
	RUN(r, dir, 0, "check");
	t_run_free(&r);
}

/* dtk use writes one new file of insights/_uses/ and no node file. */
static void test_use_writes_a_record(void **state)
{
	char *dir = t_base(), *before, *after, *idx_before, *idx_after;
	size_t bl, al;
	struct t_run r;
	(void)state;
	before = t_read(dir, "insights/alpha.yaml", &bl);
	idx_before = t_read(dir, "INDEX.md", NULL);
	RUN(r, dir, 0, "use", "alpha-002", "alpha-003", "alpha-002");
	assert_string_equal(r.out, "alpha-002: used 3\nalpha-003: used 1\n");
	assert_string_equal(r.err, "");
	t_run_free(&r);
	after = t_read(dir, "insights/alpha.yaml", &al);
	assert_int_equal(al, bl);
	assert_memory_equal(after, before, al);
	assert_int_equal(t_sh(dir, "test \"$(cat insights/_uses/*.yaml)\" = '%s'",
	                      "used:\n- alpha-002\n- alpha-003\n- alpha-002"),
	                 0);
	/* named <today>-<10 letters and digits>.yaml */
	assert_int_equal(t_sh(dir, "ls insights/_uses | grep -qx "
	                           "'[0-9]\\{4\\}-[0-9][0-9]-[0-9][0-9]-[0-9a-z]\\{10\\}\\.yaml'"),
	                 0);
	idx_after = t_read(dir, "INDEX.md", NULL);
	assert_string_not_equal(idx_before, idx_after); /* the usage rate moved */
	assert_non_null(strstr(idx_after, "使用率 80%"));
	S_check_ok(dir);
	RUN(r, dir, 0, "use", "alpha-002");
	assert_string_equal(r.out, "alpha-002: used 4\n");
	t_run_free(&r);
	RUN(r, dir, 0, "show", "alpha-002", "--format", "json");
	assert_non_null(strstr(r.out, "\"used\": 4,"));
	t_run_free(&r);
	free(before);
	free(after);
	free(idx_before);
	free(idx_after);
	t_done(dir);
}

static void test_no_reindex_and_dry_run(void **state)
{
	char *dir = t_base(), *idx;
	struct t_snap s;
	struct t_run r;
	(void)state;
	t_snap(&s, dir);
	RUN(r, dir, 0, "cite", "beta-002", "--dry-run");
	assert_non_null(strstr(r.out, "--- /dev/null\n+++ b/insights/_uses/"));
	assert_non_null(strstr(r.out, "\n+cited:\n+- beta-002\n"));
	assert_non_null(strstr(r.out, "--- a/INDEX.md\n+++ b/INDEX.md\n"));
	assert_non_null(strstr(r.out, "引用率 60%"));
	t_run_free(&r);
	t_snap_same(&s, dir, "cite --dry-run");
	RUN(r, dir, 0, "add", "gamma", "--title", "T", "--claim", "C", "--source", "paper-a",
	    "--confidence", "low", "--created", "2026-07-01", "--dry-run", "--format", "json");
	assert_non_null(strstr(r.out, "\"dry_run\": true"));
	assert_non_null(strstr(r.out, "+  - id: gamma-6yk09f8\\n"));
	t_run_free(&r);
	t_snap_same(&s, dir, "add --dry-run");
	RUN(r, dir, 0, "cite", "beta-002", "--no-reindex");
	t_run_free(&r);
	idx = t_read(dir, "INDEX.md", NULL);
	assert_string_equal(idx, s.data[0]);
	free(idx);
	RUN(r, dir, 1, "check");
	t_run_free(&r);
	t_snap_free(&s);
	t_done(dir);
}

/* Every command once, and the files as they must be, byte for byte. */
static void test_every_command(void **state)
{
	char *dir = t_base(), *got, today[11], want[1024];
	struct t_run r;
	(void)state;
	dtk_date_format(today, dtk_date_today()); /* the dated fields of the events */
	RUN(r, dir, 0, "add-source", "paper-e", "--title", "Paper E: more", "--url",
	    "https://example.org/e", "--read", "2026-07-02");
	assert_string_equal(r.out, "paper-e\n");
	t_run_free(&r);
	RUN(r, dir, 0, "add-node", "delta", "--category", "策略", "--bloom", "understand");
	assert_string_equal(r.out, "delta\n");
	t_run_free(&r);
	RUN(r, dir, 0, "add", "delta", "--title", "第一条: 标题", "--claim", "多行\n第二行",
	    "--source", "paper-e", "--confidence", "medium", "--verified-by", "paper-a",
	    "--relates", "alpha-001", "--created", "2026-07-03");
	assert_string_equal(r.out, "delta-4b4m6pf\n");
	t_run_free(&r);
	RUN(r, dir, 0, "add", "delta", "--title", "two", "--claim", "Two.", "--source", "paper-a",
	    "--confidence", "low", "--created", "2026-07-03");
	assert_string_equal(r.out, "delta-xyg9w6v\n");
	t_run_free(&r);
	RUN(r, dir, 0, "verify", "delta-4b4m6pf", "paper-b", "--promote");
	assert_string_equal(
	        r.out, "delta-4b4m6pf: verified by paper-b (2 of 2 for high); confidence high\n");
	t_run_free(&r);
	RUN(r, dir, 0, "verify", "delta-xyg9w6v", "paper-b");
	assert_string_equal(r.out, "delta-xyg9w6v: verified by paper-b (1 of 2 for high)\n");
	t_run_free(&r);
	RUN(r, dir, 0, "relate", "delta-xyg9w6v", "delta-4b4m6pf");
	t_run_free(&r);
	RUN(r, dir, 0, "contradict", "delta-xyg9w6v", "beta-001", "--note", "不同规模");
	t_run_free(&r);
	RUN(r, dir, 0, "resolve", "delta-xyg9w6v", "beta-001", "--note", "both hold");
	t_run_free(&r);
	RUN(r, dir, 0, "use", "delta-4b4m6pf", "delta-4b4m6pf");
	t_run_free(&r);
	RUN(r, dir, 0, "cite", "delta-4b4m6pf");
	assert_string_equal(r.out, "delta-4b4m6pf: cited 1\n"); /* the key: the name, done */
	t_run_free(&r);
	RUN(r, dir, 0, "close", "delta-4b4m6pf");
	t_run_free(&r);
	RUN(r, dir, 0, "review", "delta-4b4m6pf", "--date", "2026-08-01");
	t_run_free(&r);
	RUN(r, dir, 0, "stance", "delta", "先试: 再定");
	assert_string_equal(r.out, "delta: stance set\n");
	t_run_free(&r);
	RUN(r, dir, 0, "bloom", "delta", "apply");
	assert_string_equal(r.out, "delta: bloom apply\n");
	t_run_free(&r);
	got = t_read(dir, "insights/delta.yaml", NULL);
	snprintf(want, sizeof(want), "node: delta\n"
	                         "bloom: apply\n"
	                         "stance: '先试: 再定'\n"
	                         "insights:\n"
	                         "  - id: delta-4b4m6pf\n"
	                         "    title: '第一条: 标题'\n"
	                         "    claim: |-\n"
	                         "      多行\n"
	                         "      第二行\n"
	                         "    confidence: high\n"
	                         "    confidence_changed: %s\n"
	                         "    confidence_was: medium\n"
	                         "    source: paper-e\n"
	                         "    verified_by: [paper-a, paper-b]\n"
	                         "    created: 2026-07-03\n"
	                         "    reviewed: 2026-08-01\n"
	                         "    closed: true\n"
	                         "    relates: [alpha-001]\n"
	                         "  - id: delta-xyg9w6v\n"
	                         "    title: two\n"
	                         "    claim: Two.\n"
	                         "    confidence: low\n"
	                         "    source: paper-a\n"
	                         "    verified_by: [paper-b]\n"
	                         "    created: 2026-07-03\n"
	                         "    relates: [delta-4b4m6pf]\n"
	                         "    contradicts:\n"
	                         "      - id: beta-001\n"
	                         "        status: resolved\n"
	                         "        note: both hold\n"
	                         "        opened: %s\n"
	                         "        resolved: %s\n",
	         today, today, today);
	assert_string_equal(got, want);
	free(got);
	got = t_read(dir, "insights/_sources.yaml", NULL);
	assert_non_null(strstr(got, "  title: Docs D\n- id: paper-e\n  title: 'Paper E: more'\n"
	                            "  url: https://example.org/e\n  read: 2026-07-02\n"));
	free(got);
	got = t_read(dir, "insights/_domain.yaml", NULL);
	assert_non_null(strstr(got, "    nodes: [beta, gamma, delta]\n"));
	free(got);
	S_check_ok(dir);
	t_done(dir);
}

/* Each refusal: exit 2, a message, and every file as it was. */
static void test_refusals_write_nothing(void **state)
{
	static const char *const cases[][14] = {
	        {"verify", "alpha-002", "paper-b", NULL}, /* its own source */
	        {"verify", "alpha-002", "docs-d", NULL},  /* already there */
	        {"verify", "alpha-002", "nope", NULL},    /* unknown source */
	        {"verify", "alpha-003", "paper-a", "--promote", NULL},
	        {"add", "beta", "--title", "t", "--claim", "c", "--source", "paper-a",
	         "--confidence", "high", "--verified-by", "paper-b", NULL},
	        {"add", "beta", "--title", "t", "--claim", "c", "--source", "paper-a", NULL},
	        {"add", "beta", "--title", "t", "--claim", "c", "--source", "nope", "--confidence",
	         "low", NULL},
	        {"add", "beta", "--title", "t", "--claim", "c", "--source", "paper-a",
	         "--confidence", "low", "--relates", "beta-009", NULL},
	        {"add", "nonode", "--title", "t", "--claim", "c", "--source", "paper-a",
	         "--confidence", "low", NULL},
	        {"relate", "alpha-001", "alpha-001", NULL},
	        {"relate", "alpha-002", "alpha-001", NULL}, /* already */
	        {"relate", "alpha-001", "beta-009", NULL},  /* the base says no */
	        {"review", "beta-002", "--date", "2026-01-01", NULL},
	        {"review", "beta-002", "--date", "2026-02-30", NULL},
	        {"resolve", "alpha-003", "beta-002", NULL},
	        {"contradict", "alpha-003", "beta-002", NULL},
	        {"contradict", "alpha-003", "alpha-001", "--note", "n", NULL},
	        {"bloom", "gamma", "wise", NULL},
	        {"stance", "nonode", "x", NULL},
	        {"add-node", "beta", "--category", "策略", NULL},
	        {"add-node", "Bad_Name", "--category", "策略", NULL},
	        {"add-source", "paper-a", "--title", "t", NULL},
	        {"add-source", "paper-z", "--title", "t", "--url", "not a url", NULL},
	        {"use", "alpha-009", NULL},
	        {"use", "alpha-001", "nonode-001", NULL},
	        {"use", "notanid", NULL},
	        {"close", NULL},
	        {"cite", "alpha-001", "--format", "yaml", NULL},
	};
	char *dir = t_base();
	struct t_snap s;
	size_t i;
	(void)state;
	t_snap(&s, dir);
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *const *a = cases[i];
		struct t_run r;
		t_dtk(&r, dir, NULL, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
		      a[10], a[11], a[12], a[13], NULL);
		if (r.status != 2 || !*r.err)
			print_error("case %zu (%s %s): exit %d: %s%s\n", i, a[0], a[1] ? a[1] : "",
			            r.status, r.out, r.err);
		assert_int_equal(r.status, 2);
		assert_true(strstr(r.err, "error") != NULL);
		assert_string_equal(r.out, "");
		t_run_free(&r);
		t_snap_same(&s, dir, a[0]);
	}
	t_snap_free(&s);
	t_done(dir);
}

/* Runs dtk cmd a b [c] --date 2999-01-01 in dir: refused, exit 2, with the
 * one message for a date after today. */
static void S_future(const char *dir, const char *cmd, const char *a, const char *b, const char *c)
{
	struct t_run r;
	char want[128];

	if (c)
		t_dtk(&r, dir, NULL, cmd, a, b, c, "--date", "2999-01-01", NULL);
	else
		t_dtk(&r, dir, NULL, cmd, a, b, "--date", "2999-01-01", NULL);
	assert_int_equal(r.status, 2);
	snprintf(want, sizeof(want), "dtk %s: error: --date: the date 2999-01-01 is after today (",
	         cmd);
	assert_non_null(strstr(r.err, want));
	assert_non_null(strstr(r.err, "): pass --allow-future if you mean it\n"));
	t_run_free(&r);
}

static void test_messages(void **state)
{
	char *dir = t_base();
	struct t_snap s;
	struct t_run r;
	(void)state;
	RUN(r, dir, 2, "verify", "alpha-002", "paper-b");
	assert_string_equal(r.err, "dtk verify: error: 'paper-b' is the own source of alpha-002; "
	                           "verified_by names other sources\n");
	t_run_free(&r);
	/* past the count high needs: never "3 of 2" */
	RUN(r, dir, 0, "verify", "alpha-001", "docs-d", "--dry-run");
	t_run_free(&r);
	RUN(r, dir, 0, "verify", "alpha-001", "docs-d", "--no-reindex");
	assert_string_equal(r.out, "alpha-001: verified by docs-d (3 sources; high needs 2)\n");
	t_run_free(&r);
	RUN(r, dir, 2, "verify", "alpha-003", "paper-a", "--promote");
	assert_string_equal(r.err, "dtk verify: error: --promote: alpha-003 would have 1 "
	                           "verified_by source; high needs 2 (policy.high_min_verified)\n");
	t_run_free(&r);
	/* the policy as the load reads it */
	t_sh(dir, "sed -i 's/high_min_verified: 2/high_min_verified: 3/' "
	          "insights/_domain.yaml");
	RUN(r, dir, 2, "verify", "alpha-003", "paper-a", "--promote");
	assert_string_equal(r.err, "dtk verify: error: --promote: alpha-003 would have 1 "
	                           "verified_by source; high needs 3 (policy.high_min_verified)\n");
	t_run_free(&r);
	t_sh(dir, "sed -i 's/high_min_verified: 3/high_min_verified: 2/' "
	          "insights/_domain.yaml");
	/* a value of the command line that names nothing is an argument error,
	 * with the nearest id, every one of a list */
	RUN(r, dir, 2, "relate", "alpha-001", "beta-009");
	assert_string_equal(r.err, "dtk relate: error: <other-id> 'beta-009': no such entry; did "
	                           "you mean 'beta-001'?\nsee 'dtk relate --help'\n");
	t_run_free(&r);
	RUN(r, dir, 2, "use", "alpha-009", "alpha-001", "nonode-001", "alpah-002");
	assert_string_equal(r.err, "dtk use: error: <entry-id> 'alpha-009': no such entry; did "
	                           "you mean 'alpha-001'?\n"
	                           "dtk use: error: <entry-id> 'nonode-001': no such entry\n"
	                           "dtk use: error: <entry-id> 'alpah-002': no such entry; did "
	                           "you mean 'alpha-002'?\nsee 'dtk use --help'\n");
	t_run_free(&r);
	/* one that is no id does not hide the others, nor they it */
	RUN(r, dir, 2, "use", "alpha-009", "nope", "alpha-001");
	assert_string_equal(r.err, "dtk use: error: <entry-id> 'nope' is not an entry id "
	                           "(<node>-<suffix>)\n"
	                           "dtk use: error: <entry-id> 'alpha-009': no such entry; did "
	                           "you mean 'alpha-001'?\nsee 'dtk use --help'\n");
	t_run_free(&r);
	/* every entry refused, not the first only */
	RUN(r, dir, 2, "confidence", "medium", "alpha-002", "beta-001");
	assert_string_equal(r.err, "dtk confidence: error: alpha-002 is medium already\n"
	                           "dtk confidence: error: beta-001 is medium already\n");
	t_run_free(&r);
	RUN(r, dir, 2, "add", "beta", "--title", "t", "--claim", "c", "--source", "paper-x",
	    "--confidence", "low", "--verified-by", "paper-c", "--verified-by", "papr-b",
	    "--relates", "alpha-001", "--relates", "beta-077", "--relates", "other:x-001");
	assert_string_equal(r.err, "dtk add: error: --source 'paper-x': no such source (add it "
	                           "with 'dtk add-source'); did you mean 'paper-a'?\n"
	                           "dtk add: error: --verified-by 'papr-b': no such source (add "
	                           "it with 'dtk add-source'); did you mean 'paper-b'?\n"
	                           "dtk add: error: --relates 'beta-077': no such entry; did you "
	                           "mean 'beta-001'?\nsee 'dtk add --help'\n");
	t_run_free(&r);
	RUN(r, dir, 2, "verify", "alpha-001", "paper-q");
	assert_string_equal(r.err, "dtk verify: error: <source-id> 'paper-q': no such source (add "
	                           "it with 'dtk add-source'); did you mean 'paper-a'?\n"
	                           "see 'dtk verify --help'\n");
	t_run_free(&r);
	RUN(r, dir, 2, "add-source", "paper-z", "--title", "t", "--url", "example.org/x");
	assert_string_equal(r.err, "dtk add-source: error: --url must be an absolute URL "
	                           "(https://...), not 'example.org/x'\n"
	                           "see 'dtk add-source --help'\n");
	t_run_free(&r);
	/* one rule for a date of what happened: not after today */
	RUN(r, dir, 2, "review", "alpha-001", "--date", "2999-01-01");
	assert_non_null(strstr(r.err, "dtk review: error: --date: the date 2999-01-01 is after "
	                              "today ("));
	assert_non_null(strstr(r.err, "): pass --allow-future if you mean it\n"));
	t_run_free(&r);
	RUN(r, dir, 2, "add", "beta", "--title", "t", "--claim", "c", "--source", "paper-a",
	    "--confidence", "low", "--created", "2999-01-01");
	assert_non_null(strstr(r.err, "dtk add: error: --created: the date 2999-01-01 is after "
	                              "today ("));
	t_run_free(&r);
	RUN(r, dir, 2, "add-source", "paper-z", "--title", "t", "--read", "2999-01-01");
	assert_non_null(strstr(r.err, "dtk add-source: error: --read: the date 2999-01-01 is "
	                              "after today ("));
	t_run_free(&r);
	RUN(r, dir, 0, "review", "alpha-001", "--date", "2999-01-01", "--allow-future",
	    "--dry-run");
	t_run_free(&r);
	/* -h as an option's value is the value, never a call for help; as an
	 * option it is help, wherever it stands */
	RUN(r, dir, 0, "add", "beta", "--title", "-h", "--claim", "qzx wvy", "--source", "paper-a",
	    "--confidence", "low", "--dry-run");
	assert_non_null(strstr(r.out, "\n+    title: -h\n"));
	t_run_free(&r);
	RUN(r, dir, 2, "show", "--format", "-h");
	assert_string_equal(r.err, "dtk show: error: --format must be text or json, not '-h'\n"
	                           "see 'dtk show --help'\n");
	t_run_free(&r);
	RUN(r, dir, 0, "retract", "alpha-002", "--reason", "r", "-h");
	assert_non_null(strstr(r.out, "usage: dtk retract --reason R"));
	t_run_free(&r);
	/* the same rule for the dates of the rest of an entry's life */
	t_snap(&s, dir);
	S_future(dir, "edit", "alpha-001", "--claim", "c2");
	S_future(dir, "supersede", "alpha-002", "alpha-001", NULL);
	S_future(dir, "retract", "alpha-002", "--reason", "r");
	S_future(dir, "edit-source", "paper-a", "--title", "t2");
	t_snap_same(&s, dir, "future dates refused");
	t_snap_free(&s);
	RUN(r, dir, 0, "retract", "alpha-002", "--reason", "r", "--date", "2999-01-01",
	    "--allow-future");
	assert_string_equal(r.out, "alpha-002: retracted on 2999-01-01\n");
	t_run_free(&r);
	RUN(r, dir, 2, "add", "beta", "--title", "t", "--claim", "c", "--source", "paper-a");
	assert_string_equal(r.err, "dtk add: error: missing --confidence (high, medium or low: no "
	                           "default)\nsee 'dtk add --help'\n");
	t_run_free(&r);
	t_done(dir);
}

/* A CRLF file with a byte order mark and comments: new lines end in CRLF,
 * everything else is kept. */
static void test_crlf_commented_file(void **state)
{
	static const char text[] = "\xEF\xBB\xBF# gamma: nothing yet\r\n"
	                           "node: gamma   # the name\r\n"
	                           "bloom: remember\r\n"
	                           "\r\n"
	                           "insights: [] # empty\r\n";
	char *dir = t_base(), *got;
	size_t len;
	struct t_run r;
	(void)state;
	t_write(dir, "insights/gamma.yaml", text, sizeof(text) - 1);
	RUN(r, dir, 0, "reindex", "-q");
	t_run_free(&r);
	RUN(r, dir, 0, "add", "gamma", "--title", "T", "--claim", "C", "--source", "paper-a",
	    "--confidence", "low", "--created", "2026-07-01");
	t_run_free(&r);
	RUN(r, dir, 0, "use", "gamma-6yk09f8");
	t_run_free(&r);
	RUN(r, dir, 0, "stance", "gamma", "S");
	t_run_free(&r);
	got = t_read(dir, "insights/gamma.yaml", &len);
	static const char want[] = "\xEF\xBB\xBF# gamma: nothing yet\r\n"
	                           "node: gamma   # the name\r\n"
	                           "bloom: remember\r\n"
	                           "stance: S\r\n"
	                           "\r\n"
	                           "insights: # empty\r\n"
	                           "  - id: gamma-6yk09f8\r\n"
	                           "    title: T\r\n"
	                           "    claim: C\r\n"
	                           "    confidence: low\r\n"
	                           "    source: paper-a\r\n"
	                           "    created: 2026-07-01\r\n";
	assert_int_equal(len, sizeof(want) - 1);
	assert_memory_equal(got, want, len);
	free(got);
	S_check_ok(dir);
	t_done(dir);
}

/* 20 runs at once: the lock makes each read-validate-write one step. */
static void test_parallel_uses(void **state)
{
	char *dir = t_base(), *got;
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir,
	                      "for i in $(seq 20); do %s%s'%s' use alpha-001 >/dev/null 2>&1 & "
	                      "done; wait",
	                      getenv("DTK_TEST_WRAPPER") ? getenv("DTK_TEST_WRAPPER") : "",
	                      getenv("DTK_TEST_WRAPPER") ? " " : "", DTK_BIN),
	                 0);
	got = t_read(dir, "insights/alpha.yaml", NULL);
	assert_non_null(strstr(got, "    used: 3\n")); /* the node file untouched */
	free(got);
	assert_int_equal(t_sh(dir, "test \"$(ls insights/_uses | grep -c 'yaml$')\" = 20"), 0);
	S_check_ok(dir);
	RUN(r, dir, 0, "show", "alpha-001", "--format", "json");
	assert_non_null(strstr(r.out, "\"used\": 23,")); /* 3 + 20 */
	t_run_free(&r);
	t_done(dir);
}

/* A kill at each step of the write leaves every file old or new, whole. */
static void test_kill_at_each_step(void **state)
{
	static const char *const points[] = {"before-rename", "after-file"};
	char *dir, *node, *idx, env[64];
	struct t_snap s;
	struct t_run r;
	size_t i;
	(void)state;
	for (i = 0; i < 2; i++) {
		dir = t_base();
		t_snap(&s, dir);
		snprintf(env, sizeof(env), "DTK_CRASH_AT=%s", points[i]);
		t_dtk_bin = DTK_CRASH_BIN; /* crash points live only there */
		t_dtk(&r, dir, env, "use", "beta-002", NULL);
		t_dtk_bin = DTK_BIN;
		assert_int_not_equal(r.status, 0);
		t_run_free(&r);
		node = t_read(dir, "insights/beta.yaml", NULL);
		idx = t_read(dir, "INDEX.md", NULL);
		assert_string_equal(idx, s.data[0]); /* INDEX.md is written last */
		assert_string_equal(node, s.data[5]);
		/* the record is there whole after its rename, else not at all */
		assert_int_equal(t_sh(dir, "test \"$(cat insights/_uses/*.yaml 2>/dev/null)\" = '%s'",
		                      i == 0 ? "" : "used:\n- beta-002"),
		                 0);
		/* a temporary file a kill leaves behind does not end in .yaml:
		 * the base ignores it */
		assert_int_equal(t_sh(dir, "ls -a insights | grep tmp | grep -q 'yaml$'"), 1);
		free(node);
		free(idx);
		/* the next write puts every file back as it was; a retry counts once */
		RUN(r, dir, 0, "reindex", "-q");
		t_run_free(&r);
		t_snap_same(&s, dir, points[i]);
		RUN(r, dir, 0, "use", "beta-002");
		t_run_free(&r);
		assert_int_equal(t_sh(dir, "test \"$(ls insights/_uses | grep -c 'yaml$')\" = 1"), 0);
		RUN(r, dir, 0, "show", "beta-002", "--format", "json");
		assert_non_null(strstr(r.out, "\"used\": 1,"));
		t_run_free(&r);
		S_check_ok(dir);
		t_snap_free(&s);
		t_done(dir);
	}
}

/* A write of a record and INDEX.md killed after the first, and before
 * INDEX.md's rename: each file is old or new, whole, no node file changed;
 * check says a write was interrupted, and the next write puts every file
 * back. */
static void test_kill_between_files(void **state)
{
	static const char *const points[] = {"after-file:1", "before-rename:2"};
	char *dir, *alpha, *beta, *idx, env[64];
	struct t_snap s;
	struct t_run r;
	size_t i;
	(void)state;
	for (i = 0; i < 2; i++) {
		dir = t_base();
		t_snap(&s, dir);
		snprintf(env, sizeof(env), "DTK_CRASH_AT=%s", points[i]);
		t_dtk_bin = DTK_CRASH_BIN;
		t_dtk(&r, dir, env, "use", "alpha-003", "beta-002", NULL);
		t_dtk_bin = DTK_BIN;
		assert_int_not_equal(r.status, 0);
		t_run_free(&r);
		alpha = t_read(dir, "insights/alpha.yaml", NULL);
		beta = t_read(dir, "insights/beta.yaml", NULL);
		idx = t_read(dir, "INDEX.md", NULL);
		assert_string_equal(alpha, s.data[4]);
		assert_string_equal(beta, s.data[5]);
		assert_int_equal(t_sh(dir, "test \"$(cat insights/_uses/*.yaml)\" = '%s'",
		                      "used:\n- alpha-003\n- beta-002"),
		                 0);
		assert_string_equal(idx, s.data[0]);
		free(alpha);
		free(beta);
		free(idx);
		/* check says so, and which command puts them back */
		RUN(r, dir, 1, "check");
		assert_non_null(strstr(r.err, "a write was interrupted"));
		assert_non_null(strstr(r.err, ": insights/_uses/"));
		assert_non_null(strstr(r.err, ".yaml, INDEX.md may be half written"));
		assert_non_null(strstr(r.err, "run 'dtk reindex'"));
		t_run_free(&r);
		RUN(r, dir, 0, "reindex", "-q");
		assert_non_null(strstr(r.err, "put back as they were before it"));
		t_run_free(&r);
		t_snap_same(&s, dir, points[i]);
		assert_int_equal(t_sh(dir, "test -z \"$(ls insights/_uses)\""), 0);
		S_check_ok(dir);
		t_snap_free(&s);
		t_done(dir);
	}
}

/* add-node killed between _domain.yaml and the node file: check names the
 * command that puts it back; running it again puts it back and adds the
 * node once. */
static void test_add_node_killed_then_rerun(void **state)
{
	char *dir = t_base(), *dom;
	struct t_run r;
	(void)state;
	t_dtk_bin = DTK_CRASH_BIN;
	t_dtk(&r, dir, "DTK_CRASH_AT=after-file:1", "add-node", "delta", "--category", "策略",
	      NULL);
	t_dtk_bin = DTK_BIN;
	assert_int_not_equal(r.status, 0);
	t_run_free(&r);
	dom = t_read(dir, "insights/_domain.yaml", NULL);
	assert_non_null(strstr(dom, "    nodes: [beta, gamma, delta]\n"));
	free(dom);
	assert_null(t_read(dir, "insights/delta.yaml", NULL));
	RUN(r, dir, 1, "check");
	assert_non_null(strstr(r.err, "run 'dtk reindex'"));
	t_run_free(&r);
	RUN(r, dir, 0, "add-node", "delta", "--category", "策略");
	t_run_free(&r);
	dom = t_read(dir, "insights/_domain.yaml", NULL);
	assert_non_null(strstr(dom, "    nodes: [beta, gamma, delta]\n"));
	assert_null(strstr(dom, "delta, delta"));
	free(dom);
	S_check_ok(dir);
	t_done(dir);
}

/* --format json prints the entry as 'dtk show --format json' does. */
static void test_json_is_show(void **state)
{
	char *dir = t_base();
	struct t_run r, show;
	(void)state;
	t_write_str(dir, "entry.json",
	            "{\"title\": \"J\", \"claim\": \"from json\", \"source\": \"paper-b\", "
	            "\"confidence\": \"medium\", \"verified_by\": [\"docs-d\"]}");
	RUN(r, dir, 0, "add", "gamma", "--from", "entry.json", "--created", "2026-07-02",
	    "--format", "json");
	RUN(show, dir, 0, "show", "gamma-zys89t6", "--format", "json");
	/* show's object, then the gate's closest entries */
	assert_true(strlen(show.out) > 3 && !strncmp(r.out, show.out, strlen(show.out) - 3));
	assert_non_null(strstr(r.out + strlen(show.out) - 3, ",\n  \"closest\": ["));
	t_run_free(&r);
	t_run_free(&show);
	t_write_str(dir, "entry.yaml", "title: Y\nclaim: yaml\nsource: paper-c\nconfidence: low\n");
	RUN(r, dir, 0, "add", "gamma", "--from", "entry.yaml", "--title", "over");
	assert_string_equal(r.out, "gamma-96gt53x\n");
	t_run_free(&r);
	RUN(r, dir, 0, "use", "gamma-zys89t6", "gamma-96gt53x", "--format", "json");
	assert_true(r.out[0] == '[');
	assert_non_null(strstr(r.out, "\"title\": \"over\""));
	t_run_free(&r);
	t_write_str(dir, "bad.json", "{\"title\": \"J\", \"title\": \"K\"}");
	RUN(r, dir, 2, "add", "gamma", "--from", "bad.json");
	assert_non_null(strstr(r.err, "bad.json:1:"));
	t_run_free(&r);
	t_done(dir);
}

/* --from - reads standard input; the JSON of node and source commands. */
static void test_from_stdin_and_json_shapes(void **state)
{
	char *dir = t_base(), *got;
	struct t_run r, show;
	(void)state;
	assert_int_equal(
	        t_sh(dir,
	             "printf '{\"title\": \"S\", \"claim\": \"from stdin\", \"source\": "
	             "\"paper-a\", \"confidence\": \"low\", \"created\": \"2026-07-01\"}' | "
	             "%s%s'%s' add gamma --from - >out 2>err",
	             getenv("DTK_TEST_WRAPPER") ? getenv("DTK_TEST_WRAPPER") : "",
	             getenv("DTK_TEST_WRAPPER") ? " " : "", DTK_BIN),
	        0);
	got = t_read(dir, "out", NULL);
	assert_string_equal(got, "gamma-wrg91aw\n");
	free(got);
	got = t_read(dir, "insights/gamma.yaml", NULL);
	assert_non_null(strstr(got, "    claim: from stdin\n"));
	free(got);
	RUN(r, dir, 0, "bloom", "gamma", "understand", "--format", "json");
	RUN(show, dir, 0, "show", "gamma", "--format", "json");
	assert_string_equal(r.out, show.out);
	t_run_free(&r);
	t_run_free(&show);
	RUN(r, dir, 0, "add-source", "paper-z", "--title", "Z", "--format", "json");
	assert_string_equal(r.out,
	                    "{\n  \"id\": \"paper-z\",\n  \"title\": \"Z\",\n  \"url\": null,\n"
	                    "  \"read\": null,\n  \"revised\": null\n}\n");
	t_run_free(&r);
	S_check_ok(dir);
	t_done(dir);
}

/* The smaller points of the monthly review (#46): verify's hint works when
 * followed; an edit counts as a review for freshness; an expiry before the
 * record's own date reads as past. */
static void test_review_hints_and_dates(void **state)
{
	char *dir = t_base(), *got;
	struct t_run r;
	(void)state;
	RUN(r, dir, 0, "verify", "alpha-002", "paper-a");
	assert_string_equal(r.out, "alpha-002: verified by paper-a (2 of 2 for high); qualifies "
	                           "for high ('dtk confidence high alpha-002' sets it)\n");
	t_run_free(&r);
	RUN(r, dir, 0, "confidence", "high", "alpha-002");
	assert_string_equal(r.out, "alpha-002: confidence high (was medium)\n");
	t_run_free(&r);
	RUN(r, dir, 0, "edit", "alpha-003", "--title", "A corrected one", "--date", "2026-08-01");
	t_run_free(&r);
	RUN(r, dir, 0, "show", "alpha-003", "--format", "json");
	assert_non_null(strstr(r.out, "\"fresh\": \"2026-08-01\""));
	t_run_free(&r);
	got = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(got, "（最早条目 2026-02-01，08-01 到期）"));
	free(got);
	assert_int_equal(t_sh(dir, "sed -i 's/earliest: 2026-02-01/earliest: 2025-12-15/' "
	                           "insights/_crystallizations.yaml"),
	                 0);
	RUN(r, dir, 0, "reindex");
	t_run_free(&r);
	got = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(got, "（最早条目 2025-12-15，已于 06-15 到期）"));
	free(got);
	S_check_ok(dir);
	RUN(r, dir, 0, "add-source", "paper-z", "--title", "Z");
	t_run_free(&r);
	RUN(r, dir, 0, "check");
	assert_non_null(strstr(r.err, "insights/_sources.yaml:11:7: warning: source 'paper-z' is "
	                              "named by no entry\n"));
	t_run_free(&r);
	t_done(dir);
}

/* The verdict of a run recorded by command after it (#46): only the
 * record's review lines change; cross pairs are checked, every error told,
 * nothing written; pairs are computed again, and check warns of typed ones;
 * a run without a verdict says what was compared. */
static void test_amend_review(void **state)
{
	char *dir = t_base(), *got;
	struct t_snap s;
	struct t_run r;
	(void)state;
	t_snap(&s, dir);
	RUN(r, dir, 2, "crystallize", "--amend", "--cross-pair", "nope↔beta-001", "--cross-pair",
	    "x", "--cross-pair", "Bad:x↔alpha", "--verdict", "v");
	assert_string_equal(r.err, "dtk crystallize: error: cross pair 'nope↔beta-001': 'nope' is "
	                           "neither an entry nor a node of the base\n"
	                           "dtk crystallize: error: cross pair 'x' must be A↔B, each side "
	                           "an entry or a node of the base, or <domain>:<id>\n"
	                           "dtk crystallize: error: cross pair 'Bad:x↔alpha': 'Bad:x' is "
	                           "not a reference <domain>:<id>\n");
	t_run_free(&r);
	t_snap_same(&s, dir, "crystallize --amend refused");
	RUN(r, dir, 0, "crystallize", "--amend", "--verdict", "全部互补", "--cross-pair",
	    "alpha-002↔cluster-infra:scale-up-interconnect-055");
	assert_string_equal(r.out, "amended the review of the run of 2026-07-01: 3 pairs, 1 cross "
	                           "pairs, verdict recorded\n");
	t_run_free(&r);
	got = t_read(dir, "insights/_crystallizations.yaml", NULL);
	{
		const char *old = "    cross_pairs: [alpha-003↔beta-001]\n    verdict: 一处新矛盾\n";
		const char *new = "    cross_pairs: ['alpha-002↔cluster-infra:scale-up-interconnect-"
		                  "055']\n    verdict: 全部互补\n";
		char *want = NULL;
		size_t i;
		for (i = 0; i < T_SNAP_FILES; i++)
			if (strstr(s.data[i], old))
				want = s.data[i];
		assert_non_null(want);
		assert_int_equal(strlen(got), strlen(want) - strlen(old) + strlen(new));
		assert_memory_equal(got, want, (size_t)(strstr(want, old) - want));
		assert_string_equal(got + (strstr(want, old) - want) + strlen(new),
		                    strstr(want, old) + strlen(old));
	}
	free(got);
	got = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(got, "另复核 1 组跨节点/跨域主题对（alpha-002↔cluster-infra:scale-up-"
	                            "interconnect-055），全部互补；alpha-003 与 alpha-001 冲突。"));
	free(got);
	/* the first run, which has no review: its lines added after its last key */
	RUN(r, dir, 0, "crystallize", "--amend", "2026-03-01", "--note", "首轮");
	assert_string_equal(r.out, "amended the review of the run of 2026-03-01: 1 pairs, 0 cross "
	                           "pairs, no verdict recorded\n");
	t_run_free(&r);
	got = t_read(dir, "insights/_crystallizations.yaml", NULL);
	assert_non_null(strstr(got, "  eval: {scenario: scenario-001, verdict: acceptable}\n"
	                            "  review:\n    pairs: {alpha: 1, beta: 0}\n"
	                            "    cross_pairs: []\n    note: 首轮\n- date: 2026-07-01\n"));
	free(got);
	S_check_ok(dir);
	/* typed pairs of a record that keeps its events (one dtk wrote): check
	 * warns, --amend computes them again; a record without events (written
	 * before them, or by hand) keeps its typed counts */
	assert_int_equal(t_sh(dir, "sed -i -e 's/pairs: {alpha: 2, beta: 1}/pairs: {alpha: 7}/' "
	                           "-e 's/^- date: 2026-03-01$/&\\n  events: {}/' "
	                           "insights/_crystallizations.yaml"),
	                 0);
	RUN(r, dir, 0, "reindex");
	t_run_free(&r);
	RUN(r, dir, 0, "check");
	assert_null(strstr(r.err, "warning"));
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "sed -i 's/^- date: 2026-07-01$/&\\n  events: {}/' "
	                           "insights/_crystallizations.yaml"),
	                 0);
	RUN(r, dir, 0, "reindex");
	t_run_free(&r);
	RUN(r, dir, 0, "check");
	assert_non_null(strstr(r.err, "insights/_crystallizations.yaml:14:3: warning: the run of "
	                              "2026-07-01: review pairs of alpha are 7, the files give 2 "
	                              "(dtk crystallize --amend 2026-07-01 recomputes them)\n"));
	assert_non_null(strstr(r.err, "review pairs of beta are 0, the files give 1"));
	t_run_free(&r);
	RUN(r, dir, 0, "crystallize", "--amend", "--note", "n");
	t_run_free(&r);
	RUN(r, dir, 0, "check");
	assert_null(strstr(r.err, "warning"));
	t_run_free(&r);
	/* at run time too, cross pairs checked */
	RUN(r, dir, 0, "crystallize", "--eval", "s3=ok", "--dry-run", "--date", "2026-08-15",
	    "--verdict", "均为互补", "--cross-pair", "alpha-001↔beta");
	assert_non_null(strstr(r.out, "  review:\n    pairs: {}\n    cross_pairs: [alpha-001↔beta]\n"
	                              "    verdict: 均为互补\n"));
	t_run_free(&r);
	RUN(r, dir, 2, "crystallize", "--eval", "s3=ok", "--dry-run", "--date", "2026-08-15",
	    "--cross-pair", "alpha-009↔beta");
	assert_non_null(strstr(r.err, "dtk crystallize: error: cross pair 'alpha-009↔beta': "
	                              "'alpha-009' is neither an entry nor a node of the base\n"));
	t_run_free(&r);
	/* a run without a verdict: the pairs compared, no verdict recorded */
	RUN(r, dir, 0, "crystallize", "--eval", "s3=ok", "--no-commit", "--date", "2026-08-15");
	t_run_free(&r);
	got = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(got, "2026-08-15 比对范围：新增 0 条逐条与所在节点既有 claim 比对约 0 "
	                            "组，另复核 0 组跨节点/跨域主题对，尚未记录复核结论。合计约 0 组，"
	                            "新增矛盾 0。"));
	free(got);
	RUN(r, dir, 2, "crystallize", "--amend", "--eval", "a=b");
	t_run_free(&r);
	RUN(r, dir, 2, "crystallize", "--amend");
	t_run_free(&r);
	t_snap_free(&s);
	t_done(dir);
}

/* A run's review pairs are those check computes for its window, created in
 * (since, date]: an entry dated after the run is not among them (it was,
 * and check warned right after the run). */
static void test_run_pairs_window(void **state)
{
	char *dir = t_base(), *got;
	struct t_run r;
	(void)state;
	RUN(r, dir, 0, "add", "alpha", "--title", "Later", "--claim", "A claim made after the run.",
	    "--source", "paper-a", "--confidence", "low", "--created", "2026-09-01");
	t_run_free(&r);
	RUN(r, dir, 0, "crystallize", "--eval", "s=ok", "--no-commit", "--date", "2026-08-15");
	t_run_free(&r);
	got = t_read(dir, "insights/_crystallizations.yaml", NULL);
	assert_non_null(strstr(got, "- date: 2026-08-15\n"));
	assert_non_null(strstr(strstr(got, "- date: 2026-08-15\n"), "    pairs: {}\n"));
	free(got);
	RUN(r, dir, 0, "check");
	assert_null(strstr(r.err, "review pairs"));
	t_run_free(&r);
	t_done(dir);
}

/* dtk gap (#46): every byte of _domain.yaml kept but the gap's lines; a
 * gap without an id gets one when a command names it; a closed gap is off
 * the page; the plan asks to re-read a gap whose nodes got entries after
 * it was written. */
static void test_gap(void **state)
{
	char *dir = t_base(), *got, *want;
	struct t_run r;
	(void)state;
	want = t_read(dir, "insights/_domain.yaml", NULL);
	RUN(r, dir, 0, "gap", "add", "通信能效空白", "--node", "alpha", "--flagged-by", "alpha-002",
	    "--date", "2026-07-02");
	assert_string_equal(r.out, "gap-3eb1mnd: added\n");
	t_run_free(&r);
	RUN(r, dir, 0, "gap", "edit", "2", "--text", "gamma 仍无条目", "--node", "gamma", "--date",
	    "2026-07-03");
	assert_string_equal(r.out, "gap-76k83qe: edited\n");
	t_run_free(&r);
	RUN(r, dir, 0, "gap", "close", "1", "--date", "2026-07-04");
	assert_string_equal(r.out, "gap-drcks9z: closed\n");
	t_run_free(&r);
	got = t_read(dir, "insights/_domain.yaml", NULL);
	*strstr(want, "policy:\n") = '\0';
	assert_memory_equal(got, want, strlen(want) - strlen("  - text: gamma 尚无条目\n"));
	assert_non_null(strstr(got, "    flagged_by: beta-002\n    id: gap-drcks9z\n"
	                            "    closed: 2026-07-04\n"
	                            "  - text: gamma 仍无条目\n    id: gap-76k83qe\n"
	                            "    nodes: [gamma]\n    written: 2026-07-03\n"
	                            "  - id: gap-3eb1mnd\n    text: 通信能效空白\n"
	                            "    flagged_by: alpha-002\n    nodes: [alpha]\n"
	                            "    written: 2026-07-02\npolicy:\n"));
	free(got);
	got = t_read(dir, "INDEX.md", NULL);
	assert_null(strstr(got, "能效仍是开放空白"));
	assert_non_null(strstr(got, "  - gamma 仍无条目\n  - 通信能效空白（alpha-002 标记）\n"));
	free(got);
	RUN(r, dir, 0, "add", "alpha", "--title", "T", "--claim", "A new claim.", "--source",
	    "paper-a", "--confidence", "low", "--created", "2026-07-10");
	t_run_free(&r);
	RUN(r, dir, 0, "crystallize", "--plan", "--date", "2026-08-01");
	assert_non_null(strstr(r.out, "gaps whose nodes got entries after they were written, to "
	                              "read again (1):\n  gap-3eb1mnd  通信能效空白\n"));
	t_run_free(&r);
	RUN(r, dir, 2, "gap", "add", "x", "--node", "nonode");
	assert_non_null(strstr(r.err, "gap names unknown node 'nonode'"));
	t_run_free(&r);
	RUN(r, dir, 2, "gap", "close", "gap-drcks9z");
	assert_string_equal(r.err, "dtk gap: error: gap 'gap-drcks9z' is closed already\n");
	t_run_free(&r);
	RUN(r, dir, 0, "gap", "remove", "gap-drcks9z");
	t_run_free(&r);
	got = t_read(dir, "insights/_domain.yaml", NULL);
	assert_null(strstr(got, "gap-drcks9z"));
	assert_non_null(strstr(got, "    note: 训练与推理共享并行抽象\ngaps:\n  - text: gamma 仍无条目\n"));
	free(got);
	S_check_ok(dir);
	free(want);
	t_done(dir);
}

/* dtk hotspot (#46): only the hotspot's lines change; an id is given when
 * a command names one without; a link into this domain is refused. */
static void test_hotspot(void **state)
{
	char *dir = t_base(), *got;
	struct t_snap s;
	struct t_run r;
	(void)state;
	RUN(r, dir, 0, "hotspot", "add", "gamma", "--link", "inference-system/kv-cache", "--note",
	    "缓存与调度");
	assert_string_equal(r.out, "hot-6m0t9cw: added\n");
	t_run_free(&r);
	RUN(r, dir, 0, "hotspot", "edit", "1", "--link", "cluster-infra/rdma");
	assert_string_equal(r.out, "hot-t0jgsje: edited\n");
	t_run_free(&r);
	RUN(r, dir, 0, "hotspot", "remove", "2");
	assert_string_equal(r.out, "2: removed\n");
	t_run_free(&r);
	got = t_read(dir, "insights/_domain.yaml", NULL);
	assert_non_null(strstr(got, "hotspots:\n  - node: alpha\n    links: [cluster-infra/"
	                            "scale-out-network, cluster-infra/scale-up-interconnect, "
	                            "cluster-infra/rdma]\n    note: all-reduce 延迟由链路决定"
	                            "（scale-up-interconnect-055）\n    id: hot-t0jgsje\n"
	                            "  - id: hot-6m0t9cw\n    node: gamma\n    links: "
	                            "[inference-system/kv-cache]\n    note: 缓存与调度\ngaps:\n"));
	free(got);
	got = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(got, "| gamma | inference-system | kv-cache | 缓存与调度 |"));
	free(got);
	t_snap(&s, dir);
	RUN(r, dir, 2, "hotspot", "add", "alpha", "--link", "demo-training/beta", "--note", "x");
	assert_non_null(strstr(r.err, "a hotspot links to other domains"));
	t_run_free(&r);
	RUN(r, dir, 2, "hotspot", "edit", "hot-nope", "--note", "x");
	t_run_free(&r);
	t_snap_same(&s, dir, "hotspot refused");
	t_snap_free(&s);
	S_check_ok(dir);
	t_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_use_writes_a_record),
	        cmocka_unit_test(test_no_reindex_and_dry_run),
	        cmocka_unit_test(test_every_command),
	        cmocka_unit_test(test_refusals_write_nothing),
	        cmocka_unit_test(test_messages),
	        cmocka_unit_test(test_crlf_commented_file),
	        cmocka_unit_test(test_parallel_uses),
	        cmocka_unit_test(test_kill_at_each_step),
	        cmocka_unit_test(test_kill_between_files),
	        cmocka_unit_test(test_add_node_killed_then_rerun),
	        cmocka_unit_test(test_json_is_show),
	        cmocka_unit_test(test_from_stdin_and_json_shapes),
	        cmocka_unit_test(test_review_hints_and_dates),
	        cmocka_unit_test(test_amend_review),
	        cmocka_unit_test(test_run_pairs_window),
	        cmocka_unit_test(test_gap),
	        cmocka_unit_test(test_hotspot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
