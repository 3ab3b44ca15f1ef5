/* test_lifecycle.c: the rest of an entry's life through the binary: edit,
 * edit-source, confidence, unrelate, unverify, supersede, retract, the
 * contradictions from either side, and init. Each change is compared with
 * the file it must give, whole, byte for byte; each refusal leaves every
 * file byte-identical. */
#include "support.h"

#include "dtk/crystal.h"
#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/index.h"
#include "dtk/kb.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Returns text with its one occurrence of old replaced by new_ (malloc'd;
 * text is freed). Fails when old is not there exactly once. */
/* Returns new_ with each "TODAY" in it today's date (a static buffer): the
 * date dtk confidence and resolve write beside what they change. */
static const char *S_today(const char *new_)
{
	static char buf[1024];
	char d[11];
	const char *p;
	size_t n = 0;

	dtk_date_format(d, dtk_date_today());
	for (; *new_; new_++)
		if (!strncmp(new_, "TODAY", 5)) {
			for (p = d; *p; p++)
				buf[n++] = *p;
			new_ += 4;
		} else {
			buf[n++] = *new_;
		}
	buf[n] = '\0';
	return buf;
}

static char *S_sub(char *text, const char *old, const char *new_)
{
	char *at = strstr(text, old), *out;
	size_t n = strlen(old), pre;
	if (!at || strstr(at + 1, old))
		print_error("'%s' is not in the text exactly once\n", old);
	assert_non_null(at);
	assert_null(strstr(at + 1, old));
	pre = (size_t)(at - text);
	out = dtk_xmalloc(strlen(text) - n + strlen(new_) + 1);
	memcpy(out, text, pre);
	strcpy(out + pre, new_);
	strcat(out, at + n);
	free(text);
	return out;
}

/* Fails unless file rel of dir is want, byte for byte. */
static void S_file_is(const char *dir, const char *rel, const char *want)
{
	char *got = t_read(dir, rel, NULL);
	if (strcmp(got, want))
		print_error("%s:\n%s\nwant:\n%s\n", rel, got, want);
	assert_string_equal(got, want);
	free(got);
}

/* Fails unless INDEX.md of dir is what reindex writes from the files. */
static void S_index_current(const char *dir)
{
	struct t_run r;
	RUN(r, dir, 0, "check");
	t_run_free(&r);
}

/* The fixture's file rel (malloc'd). */
static char *S_fixture(const char *rel)
{
	char *base = t_src("tests/fixtures/base"), *text = t_read(base, rel, NULL);
	free(base);
	assert_non_null(text);
	return text;
}

static void test_edit(void **state)
{
	char *dir = t_base(), *want, *idx;
	struct t_run r;
	(void)state;

	RUN(r, dir, 0, "edit", "alpha-002", "--title", "小消息受延迟所限", "--claim",
	    "Small messages are latency-bound:\nthe steps, not the bytes.", "--date", "2026-07-05");
	assert_string_equal(r.out, "alpha-002: title, claim revised 2026-07-05\n");
	assert_string_equal(r.err, "");
	t_run_free(&r);
	want = S_fixture("insights/alpha.yaml");
	want = S_sub(
	        want,
	        "    title: 小消息瓶颈在同步\n"
	        "    claim: Small messages are bound by synchronization steps, not bandwidth.\n",
	        "    title: 小消息受延迟所限\n"
	        "    claim: |-\n"
	        "      Small messages are latency-bound:\n"
	        "      the steps, not the bytes.\n");
	/* in the order of docs/schema.md (dtk_entry_keys): revised after
	 * relates and contradicts, not after created */
	want = S_sub(want, "    relates: [alpha-001, cluster-infra:scale-up-interconnect-055]\n",
	             "    relates: [alpha-001, cluster-infra:scale-up-interconnect-055]\n"
	             "    revised: 2026-07-05\n");
	S_file_is(dir, "insights/alpha.yaml", want);
	free(want);
	/* the candidate's title on INDEX.md is the new one */
	idx = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(idx, "：alpha-002（小消息受延迟所限）。"));
	free(idx);
	S_index_current(dir);

	/* the source: a revised date already there is replaced */
	RUN(r, dir, 0, "edit", "alpha-002", "--source", "paper-c", "--date", "2026-07-06");
	assert_string_equal(r.out, "alpha-002: source revised 2026-07-06\n");
	t_run_free(&r);
	want = t_read(dir, "insights/alpha.yaml", NULL);
	assert_non_null(strstr(want, "    source: paper-c\n    verified_by: [docs-d]\n"
	                             "    created: 2026-02-01\n    used: 1\n"));
	assert_non_null(strstr(want, "-055]\n    revised: 2026-07-06\n  - id: alpha-003\n"));
	free(want);

	/* the plan lists it: revised after the last run (2026-07-01) */
	RUN(r, dir, 0, "crystallize", "--plan", "--date", "2026-07-10");
	assert_non_null(strstr(r.out, "\nentries revised since the last run (1):\n"
	                              "  alpha-002  小消息受延迟所限\n"));
	t_run_free(&r);
	RUN(r, dir, 0, "crystallize", "--plan", "--date", "2026-07-10", "--format", "json");
	assert_non_null(strstr(r.out, "\"revised\": [\n    {\n      \"id\": \"alpha-002\""));
	t_run_free(&r);
	RUN(r, dir, 0, "show", "alpha-002");
	assert_non_null(strstr(r.out, "created 2026-02-01  revised 2026-07-06\n"));
	t_run_free(&r);
	/* after a block list of contradictions too, the entry's last key */
	RUN(r, dir, 0, "edit", "alpha-003", "--title", "A low one, edited", "--date", "2026-07-06");
	t_run_free(&r);
	want = t_read(dir, "insights/alpha.yaml", NULL);
	assert_non_null(strstr(want, "      - id: beta-001\n        status: resolved\n"
	                             "    revised: 2026-07-06\n"));
	free(want);
	t_done(dir);
}

static void test_edit_source(void **state)
{
	char *dir = t_base(), *want;
	struct t_run r;
	(void)state;

	RUN(r, dir, 0, "edit-source", "paper-b", "--title", "Paper B: revised", "--url",
	    "https://example.org/b", "--date", "2026-07-05");
	assert_string_equal(r.out, "paper-b: title, url revised 2026-07-05\n");
	t_run_free(&r);
	want = S_fixture("insights/_sources.yaml");
	want = S_sub(want, "- id: paper-b\n  title: Paper B\n",
	             "- id: paper-b\n  title: 'Paper B: revised'\n  url: https://example.org/b\n"
	             "  revised: 2026-07-05\n");
	S_file_is(dir, "insights/_sources.yaml", want);
	free(want);
	S_index_current(dir);
	RUN(r, dir, 0, "edit-source", "paper-a", "--url", "https://example.org/a2", "--date",
	    "2026-07-06", "--format", "json");
	assert_string_equal(r.out, "{\n  \"id\": \"paper-a\",\n  \"title\": \"Paper A\",\n"
	                           "  \"url\": \"https://example.org/a2\",\n"
	                           "  \"read\": \"2026-01-10\",\n"
	                           "  \"revised\": \"2026-07-06\"\n}\n");
	t_run_free(&r);
	want = t_read(dir, "insights/_sources.yaml", NULL);
	assert_non_null(strstr(want, "- id: paper-a\n  title: Paper A\n"
	                             "  url: https://example.org/a2\n  read: 2026-01-10\n"
	                             "  revised: 2026-07-06\n- id: paper-b\n"));
	free(want);
	RUN(r, dir, 0, "crystallize", "--plan", "--date", "2026-07-10");
	assert_non_null(strstr(r.out, "\nsources revised since the last run (2):\n"
	                              "  paper-a  Paper A\n  paper-b  Paper B: revised\n"));
	t_run_free(&r);
	t_done(dir);
}

static void test_confidence(void **state)
{
	char *dir = t_base(), *want, *idx;
	struct t_run r;
	(void)state;

	/* lowering a high entry: always */
	RUN(r, dir, 0, "confidence", "medium", "alpha-001");
	assert_string_equal(r.out, "alpha-001: confidence medium (was high)\n");
	t_run_free(&r);
	want = S_fixture("insights/alpha.yaml");
	want = S_sub(want, "    confidence: high\n",
	             S_today("    confidence: medium\n    confidence_changed: TODAY\n"
	                     "    confidence_was: high\n"));
	S_file_is(dir, "insights/alpha.yaml", want);
	free(want);
	idx = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(idx, "  - high 条目: 0\n"));
	free(idx);

	/* all that meet the rule: alpha-001 (again) and beta-001 */
	RUN(r, dir, 0, "confidence", "high", "--qualified");
	assert_string_equal(r.out, "alpha-001: confidence high (was medium)\n"
	                           "beta-001: confidence high (was medium)\n");
	t_run_free(&r);
	want = S_fixture("insights/alpha.yaml");
	want = S_sub(want, "    confidence: high\n",
	             S_today("    confidence: high\n    confidence_changed: TODAY\n"
	                     "    confidence_was: medium\n"));
	S_file_is(dir, "insights/alpha.yaml", want);
	free(want);
	want = S_fixture("insights/beta.yaml");
	want = S_sub(want, "    confidence: medium\n",
	             S_today("    confidence: high\n    confidence_changed: TODAY\n"
	                     "    confidence_was: medium\n"));
	S_file_is(dir, "insights/beta.yaml", want);
	free(want);
	idx = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(idx, "  - high 条目: 2（alpha-001、beta-001）\n"));
	free(idx);
	S_index_current(dir);

	/* none left: said, exit 0, nothing written */
	{
		struct t_snap s;
		t_snap(&s, dir);
		RUN(r, dir, 0, "confidence", "high", "--qualified");
		assert_string_equal(r.out, "");
		assert_string_equal(r.err, "dtk confidence: no entry meets the high rule without "
		                           "being high\n");
		t_run_free(&r);
		RUN(r, dir, 0, "confidence", "high", "--qualified", "--format", "json");
		assert_string_equal(r.out, "[]\n");
		t_run_free(&r);
		t_snap_same(&s, dir, "confidence --qualified with none");
		t_snap_free(&s);
	}
	/* several at once, in one transaction */
	RUN(r, dir, 0, "confidence", "low", "alpha-002", "beta-001");
	assert_string_equal(r.out, "alpha-002: confidence low (was medium)\n"
	                           "beta-001: confidence low (was high)\n");
	t_run_free(&r);
	t_done(dir);
}

static void test_unlink(void **state)
{
	char *dir = t_base(), *want;
	struct t_run r;
	(void)state;

	RUN(r, dir, 0, "unrelate", "alpha-002", "alpha-001");
	assert_string_equal(r.out, "alpha-002: no longer relates to alpha-001\n");
	t_run_free(&r);
	RUN(r, dir, 0, "unverify", "alpha-001", "paper-b", "--confidence", "medium");
	assert_string_equal(
	        r.out, "alpha-001: no longer verified by paper-b (1 left); confidence medium\n");
	t_run_free(&r);
	want = S_fixture("insights/alpha.yaml");
	want = S_sub(want, "    relates: [alpha-001, cluster-infra:scale-up-interconnect-055]\n",
	             "    relates: [cluster-infra:scale-up-interconnect-055]\n");
	want = S_sub(want, "    confidence: high\n", "    confidence: medium\n");
	want = S_sub(want, "    verified_by: [paper-b, paper-c]\n", "    verified_by: [paper-c]\n");
	S_file_is(dir, "insights/alpha.yaml", want);
	free(want);
	/* the last item leaves an empty list; a medium entry needs no lowering */
	RUN(r, dir, 0, "unrelate", "alpha-002", "cluster-infra:scale-up-interconnect-055");
	t_run_free(&r);
	RUN(r, dir, 0, "unverify", "beta-001", "docs-d");
	assert_string_equal(r.out, "beta-001: no longer verified by docs-d (1 left)\n");
	t_run_free(&r);
	want = t_read(dir, "insights/alpha.yaml", NULL);
	assert_non_null(strstr(want, "    used: 1\n    relates: []\n  - id: alpha-003\n"));
	free(want);
	want = S_fixture("insights/beta.yaml");
	want = S_sub(want, "    verified_by: [paper-b, docs-d]\n", "    verified_by: [paper-b]\n");
	S_file_is(dir, "insights/beta.yaml", want);
	free(want);
	S_index_current(dir);
	t_done(dir);
}

/* A block list in a commented file: the item's line goes, the rest stays. */
static void test_unlink_block_list(void **state)
{
	static const char text[] = "node: gamma # the third\n"
	                           "bloom: remember\n"
	                           "insights:\n"
	                           "  - id: gamma-001\n"
	                           "    title: t\n"
	                           "    claim: c\n"
	                           "    confidence: low\n"
	                           "    source: paper-a\n"
	                           "    verified_by:\n"
	                           "      - paper-b # read twice\n"
	                           "      - docs-d\n"
	                           "    created: 2026-02-03\n"
	                           "    relates:\n"
	                           "      - alpha-001\n"
	                           "      # the next\n"
	                           "      - alpha-002\n";
	char *dir = t_base();
	struct t_run r;
	(void)state;

	t_write_str(dir, "insights/gamma.yaml", text);
	RUN(r, dir, 0, "reindex");
	t_run_free(&r);
	RUN(r, dir, 0, "unverify", "gamma-001", "paper-b");
	t_run_free(&r);
	RUN(r, dir, 0, "unrelate", "gamma-001", "alpha-002");
	t_run_free(&r);
	S_file_is(dir, "insights/gamma.yaml",
	          "node: gamma # the third\n"
	          "bloom: remember\n"
	          "insights:\n"
	          "  - id: gamma-001\n"
	          "    title: t\n"
	          "    claim: c\n"
	          "    confidence: low\n"
	          "    source: paper-a\n"
	          "    verified_by:\n"
	          "      - docs-d\n"
	          "    created: 2026-02-03\n"
	          "    relates:\n"
	          "      - alpha-001\n"
	          "      # the next\n");
	RUN(r, dir, 0, "unrelate", "gamma-001", "alpha-001");
	t_run_free(&r);
	S_file_is(dir, "insights/gamma.yaml",
	          "node: gamma # the third\n"
	          "bloom: remember\n"
	          "insights:\n"
	          "  - id: gamma-001\n"
	          "    title: t\n"
	          "    claim: c\n"
	          "    confidence: low\n"
	          "    source: paper-a\n"
	          "    verified_by:\n"
	          "      - docs-d\n"
	          "    created: 2026-02-03\n"
	          "    relates: []\n"
	          "      # the next\n");
	S_index_current(dir);
	t_done(dir);
}

/* The site marks dir's retired entries (alpha-002 superseded, alpha-001
 * retracted) on their node's page, counts the live only and leaves them out
 * of the search box, as INDEX.md and dtk search do. */
static void S_export_marks_retired(const char *dir)
{
	struct t_run r;
	char *page, *js;

	RUN(r, dir, 0, "export", "html", "site");
	t_run_free(&r);
	page = t_read(dir, "site/nodes/alpha.html", NULL);
	js = t_read(dir, "site/search.js", NULL);
	assert_non_null(strstr(page, "Insight 条目: 2（已停用 2 条）"));
	assert_non_null(
	        strstr(page, "<h2 id=\"alpha-002\"><a href=\"alpha.html#alpha-002\">alpha-002</a> "
	                     "小消息瓶颈在同步（已停用）</h2>"));
	assert_non_null(strstr(page,
	                       "<li>已被取代（2026-07-03）：<a href=\"alpha.html#alpha-s37vbe1\">"
	                       "alpha-s37vbe1</a> 小消息受延迟所限</li>"));
	assert_non_null(
	        strstr(page, "<li>已撤回（2026-07-04）：membership can change: shrink</li>"));
	assert_null(strstr(page, "alpha-s37vbe1</a> 小消息受延迟所限（已停用）</h2>"));
	/* the newer names the one it supersedes (a page with one crashed) */
	assert_non_null(strstr(page, "<li>取代：<a href=\"alpha.html#alpha-002\">alpha-002</a> "
	                             "小消息瓶颈在同步（已停用）</li>"));
	assert_null(strstr(js, "\"alpha-002\""));
	assert_null(strstr(js, "\"alpha-001\""));
	assert_non_null(strstr(js, "\"alpha-s37vbe1\""));
	free(page);
	free(js);
	page = t_read(dir, "site/nodes/beta.html", NULL);
	assert_non_null(strstr(page, "alpha-002</a> 小消息瓶颈在同步（已停用）"));
	free(page);
}

static void test_supersede_and_retract(void **state)
{
	char *dir = t_base(), *want, *idx;
	struct t_run r;
	(void)state;

	/* the newer entry restates the one it supersedes: said distinct */
	RUN(r, dir, 0, "add", "alpha", "--title", "小消息受延迟所限", "--claim",
	    "Small messages are latency-bound.", "--source", "paper-a", "--confidence", "low",
	    "--created", "2026-07-02", "--distinct-from", "alpha-002");
	t_run_free(&r);
	RUN(r, dir, 0, "relate", "beta-002", "alpha-002");
	t_run_free(&r);
	RUN(r, dir, 0, "supersede", "alpha-002", "alpha-s37vbe1", "--date", "2026-07-03");
	assert_string_equal(r.out, "alpha-002: superseded by alpha-s37vbe1 on 2026-07-03\n");
	t_run_free(&r);
	RUN(r, dir, 0, "retract", "alpha-001", "--reason", "membership can change: shrink",
	    "--date", "2026-07-04");
	assert_string_equal(r.out, "alpha-001: retracted on 2026-07-04\n");
	t_run_free(&r);
	want = S_fixture("insights/alpha.yaml");
	want = S_sub(want, "    cited: 2\n    closed: true\n",
	             "    cited: 2\n    closed: true\n    retracted: 2026-07-04\n"
	             "    retracted_reason: 'membership can change: shrink'\n");
	want = S_sub(want, "    relates: [alpha-001, cluster-infra:scale-up-interconnect-055]\n",
	             "    relates: [alpha-001, cluster-infra:scale-up-interconnect-055]\n"
	             "    superseded_by: alpha-s37vbe1\n    superseded: 2026-07-03\n");
	want = S_sub(want, "        status: resolved\n",
	             "        status: resolved\n"
	             "  - id: alpha-s37vbe1\n"
	             "    title: 小消息受延迟所限\n"
	             "    claim: Small messages are latency-bound.\n"
	             "    confidence: low\n"
	             "    source: paper-a\n"
	             "    created: 2026-07-02\n");
	S_file_is(dir, "insights/alpha.yaml", want);
	free(want);

	/* INDEX.md: four live entries, no high one, no candidate; the rates
	 * over the live (beta-001 is used and cited: 1 of 4) */
	idx = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(idx, "  - 有 Insights 的节点: 2\n"
	                            "  - Insight 总条目: 4\n"
	                            "  - high 条目: 0\n"));
	assert_non_null(strstr(idx, "（使用率 25%、引用率 25%、闭环率 0%）\n"));
	assert_non_null(strstr(idx, "| alpha | apply | 2 | 暂定：通信图在初始化时固化 |\n"));
	assert_non_null(strstr(idx, "再补 1 篇独立来源即可升 high）：无。\n"));
	/* the sources of retired entries are still covered */
	assert_non_null(strstr(idx, "  - 覆盖文章数: 4\n"));
	free(idx);

	/* show says so, of either; list and search leave them out */
	RUN(r, dir, 0, "show", "alpha-002");
	/* (no longer a candidate: retired) */
	assert_non_null(strstr(r.out,
	                       "alpha-002  medium  created 2026-02-01\n"
	                       "  SUPERSEDED by alpha-s37vbe1 on 2026-07-03: 小消息受延迟所限\n"));
	t_run_free(&r);
	RUN(r, dir, 0, "show", "alpha-s37vbe1");
	assert_non_null(strstr(r.out, "  supersedes:      alpha-002 小消息瓶颈在同步\n"));
	t_run_free(&r);
	RUN(r, dir, 0, "show", "alpha-s37vbe1", "--format", "json");
	assert_non_null(strstr(r.out,
	                       "  \"referenced_by\": [\n    {\n      \"id\": \"alpha-002\",\n"
	                       "      \"how\": \"superseded_by\",\n"));
	t_run_free(&r);
	RUN(r, dir, 0, "show", "alpha-001");
	assert_non_null(
	        strstr(r.out, "  RETRACTED on 2026-07-04: membership can change: shrink\n"));
	t_run_free(&r);
	RUN(r, dir, 0, "show", "beta-002");
	assert_non_null(
	        strstr(r.out, "  relates:         alpha-002 (superseded) 小消息瓶颈在同步\n"));
	t_run_free(&r);
	RUN(r, dir, 0, "show", "alpha-001", "--format", "json");
	assert_non_null(strstr(r.out,
	                       "  \"retracted\": \"2026-07-04\",\n"
	                       "  \"retracted_reason\": \"membership can change: shrink\",\n"));
	t_run_free(&r);
	RUN(r, dir, 0, "list", "--format", "ids");
	assert_string_equal(r.out, "alpha-003\nalpha-s37vbe1\nbeta-001\nbeta-002\n");
	t_run_free(&r);
	RUN(r, dir, 0, "list", "--format", "ids", "--include-retired");
	assert_string_equal(r.out,
	                    "alpha-001\nalpha-002\nalpha-003\nalpha-s37vbe1\nbeta-001\nbeta-002\n");
	t_run_free(&r);
	RUN(r, dir, 0, "list", "--nodes");
	assert_non_null(strstr(r.out, "alpha\t2\tapply\ttentative\t"));
	t_run_free(&r);
	RUN(r, dir, 0, "list", "--nodes", "--include-retired");
	assert_non_null(strstr(r.out, "alpha\t4\tapply\ttentative\t"));
	t_run_free(&r);
	RUN(r, dir, 0, "search", "small", "--format", "ids");
	assert_string_equal(r.out, "alpha-s37vbe1\n");
	t_run_free(&r);
	RUN(r, dir, 0, "search", "small", "--format", "ids", "--all");
	assert_string_equal(r.out, "alpha-002\nalpha-s37vbe1\n"); /* medium first */
	t_run_free(&r);
	RUN(r, dir, 1, "search", "communicators");
	t_run_free(&r);

	/* check: valid, and a warning for the live entry that relates to one */
	RUN(r, dir, 0, "check");
	assert_string_equal(r.err, "insights/beta.yaml:20:15: warning: beta-002 relates to "
	                           "alpha-002, which is superseded by alpha-s37vbe1 (dtk unrelate "
	                           "beta-002 alpha-002)\n"
	                           "dtk check: insights/ is valid and INDEX.md is up to date\n");
	t_run_free(&r);
	/* the plan leaves them out of its work lists */
	RUN(r, dir, 0, "crystallize", "--plan", "--date", "2026-07-10");
	assert_non_null(strstr(r.out, "\ncandidates, one verification short of high (0):\n"));
	t_run_free(&r);
	S_export_marks_retired(dir);
	t_done(dir);
}

static void test_contradictions_either_side(void **state)
{
	char *dir = t_base(), *want;
	struct t_snap s;
	struct t_run r;
	(void)state;

	t_snap(&s, dir);
	/* alpha-003 declares both: asked from the other side, refused */
	RUN(r, dir, 2, "contradict", "alpha-001", "alpha-003", "--note", "again");
	assert_string_equal(r.err, "dtk contradict: error: alpha-003 already has a contradiction "
	                           "with alpha-001 (open: 与 alpha-001 的前提冲突); dtk resolve "
	                           "closes it\n");
	t_run_free(&r);
	RUN(r, dir, 2, "contradict", "beta-001", "alpha-003", "--note", "again");
	assert_string_equal(r.err, "dtk contradict: error: alpha-003 already has a contradiction "
	                           "with beta-001 (resolved)\n");
	t_run_free(&r);
	/* asked from its own side: the same words */
	RUN(r, dir, 2, "contradict", "alpha-003", "alpha-001", "--note", "again");
	assert_string_equal(r.err, "dtk contradict: error: alpha-003 already has a contradiction "
	                           "with alpha-001 (open: 与 alpha-001 的前提冲突); dtk resolve "
	                           "closes it\n");
	t_run_free(&r);
	RUN(r, dir, 2, "contradict", "alpha-003", "beta-001", "--note", "again");
	assert_string_equal(r.err, "dtk contradict: error: alpha-003 already has a contradiction "
	                           "with beta-001 (resolved)\n");
	t_run_free(&r);
	RUN(r, dir, 2, "resolve", "alpha-001", "beta-001");
	assert_string_equal(r.err, "dtk resolve: error: alpha-001 and beta-001 have no "
	                           "contradiction (on either entry)\n");
	t_run_free(&r);
	t_snap_same(&s, dir, "refused contradictions");
	t_snap_free(&s);

	/* resolved from the side that did not declare it */
	RUN(r, dir, 0, "resolve", "alpha-001", "alpha-003", "--note", "两者在不同规模成立");
	assert_string_equal(r.out, "alpha-003: contradiction with alpha-001 resolved\n");
	t_run_free(&r);
	want = S_fixture("insights/alpha.yaml");
	want = S_sub(want, "        status: open\n        note: 与 alpha-001 的前提冲突\n",
	             S_today("        status: resolved\n        note: 两者在不同规模成立\n"
	                     "        resolved: TODAY\n"));
	S_file_is(dir, "insights/alpha.yaml", want);
	free(want);
	want = t_read(dir, "INDEX.md", NULL);
	assert_non_null(strstr(want, "当前活跃矛盾 0 处。\n"));
	free(want);
	/* again: nothing would change, refused; another note changes it */
	RUN(r, dir, 2, "resolve", "alpha-003", "alpha-001", "--note", "两者在不同规模成立");
	assert_string_equal(r.err, "dtk resolve: error: the contradiction of alpha-003 and "
	                           "alpha-001 is resolved already, with that note\n");
	t_run_free(&r);
	RUN(r, dir, 0, "resolve", "alpha-003", "alpha-001", "--note", "规模不同");
	assert_string_equal(r.out, "alpha-003: contradiction with alpha-001 resolved\n");
	t_run_free(&r);
	/* a pair declared on both sides is resolved on both */
	RUN(r, dir, 0, "contradict", "beta-002", "alpha-002", "--note", "differs");
	t_run_free(&r);
	t_write_str(dir, "insights/alpha.yaml",
	            "node: alpha\nbloom: apply\ninsights:\n"
	            "  - id: alpha-002\n    title: t\n    claim: c\n    confidence: low\n"
	            "    source: paper-a\n    created: 2026-02-01\n"
	            "    contradicts: [{id: beta-002, status: open}]\n");
	RUN(r, dir, 0, "reindex");
	t_run_free(&r);
	RUN(r, dir, 0, "resolve", "alpha-002", "beta-002", "--format", "json");
	assert_non_null(strstr(r.out, "\"id\": \"alpha-002\""));
	assert_non_null(strstr(r.out, "\"id\": \"beta-002\""));
	t_run_free(&r);
	want = t_read(dir, "insights/alpha.yaml", NULL);
	assert_non_null(strstr(want, S_today("    contradicts: [{id: beta-002, status: resolved, "
	                                     "resolved: TODAY}]\n")));
	free(want);
	want = t_read(dir, "insights/beta.yaml", NULL);
	assert_non_null(strstr(want, "    contradicts:\n      - id: alpha-002\n        status: "
	                             "resolved\n        note: differs\n"));
	free(want);
	t_done(dir);
}

/* Each refusal: exit 2, a message, and every file as it was. */
static void test_refusals_write_nothing(void **state)
{
	static const char *const cases[][10] = {
	        {"edit", "alpha-002", NULL},                                /* nothing to change */
	        {"edit", "alpha-002", "--title", "小消息瓶颈在同步", NULL}, /* as it is */
	        {"edit", "alpha-002", "--title", "  ", NULL},
	        {"edit", "alpha-002", "--source", "nope", NULL},
	        {"edit", "alpha-002", "--source", "docs-d", NULL}, /* it verifies */
	        {"edit", "alpha-009", "--title", "t", NULL},
	        {"edit", "alpha-002", "--date", "2026-02-30", "--title", "t", NULL},
	        {"edit", "alpha-002", "--date", "2026-01-01", "--title", "t", NULL}, /* < created */
	        {"edit-source", "paper-b", NULL},
	        {"edit-source", "paper-b", "--title", "Paper B", NULL},
	        {"edit-source", "nope", "--title", "t", NULL},
	        {"edit-source", "paper-b", "--url", "not a url", NULL},
	        {"confidence", "high", "alpha-002", NULL}, /* one source */
	        {"confidence", "low", "alpha-003", NULL},  /* low already */
	        {"confidence", "medium", "alpha-002", "alpha-001", NULL},
	        {"confidence", "sure", "alpha-002", NULL},
	        {"confidence", "low", "--qualified", NULL},
	        {"confidence", "high", NULL},
	        {"unrelate", "alpha-002", "beta-001", NULL},
	        {"unrelate", "alpha-001", "alpha-002", NULL},
	        {"unverify", "alpha-001", "paper-b", NULL}, /* would break the high rule */
	        {"unverify", "alpha-001", "paper-b", "--confidence", "high", NULL},
	        {"unverify", "alpha-002", "paper-a", NULL},
	        {"supersede", "alpha-002", "alpha-002", NULL},
	        {"supersede", "alpha-002", "alpha-009", NULL},
	        {"supersede", "alpha-002", "other:alpha-001", NULL},
	        {"supersede", "alpha-002", "alpha-003", "--date", "2026-01-01", NULL},
	        {"retract", "alpha-002", NULL}, /* no reason */
	        {"retract", "alpha-002", "--reason", " ", NULL},
	        {"retract", "alpha-002", "alpha-009", "--reason", "r", NULL},
	        {"init", NULL}, /* inside a base */
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
		      NULL);
		if (r.status != 2 || !strstr(r.err, "error"))
			print_error("case %zu (%s %s): exit %d: %s%s\n", i, a[0], a[1] ? a[1] : "",
			            r.status, r.out, r.err);
		assert_int_equal(r.status, 2);
		assert_non_null(strstr(r.err, "error"));
		assert_string_equal(r.out, "");
		t_run_free(&r);
		t_snap_same(&s, dir, a[0]);
	}
	t_snap_free(&s);
	t_done(dir);
}

/* Retired entries refuse what would revive or retire them again. */
static void test_retired_refusals(void **state)
{
	char *dir = t_base();
	struct t_snap s;
	struct t_run r;
	(void)state;

	RUN(r, dir, 0, "supersede", "alpha-003", "alpha-002", "--date", "2026-07-01");
	t_run_free(&r);
	RUN(r, dir, 0, "retract", "beta-001", "--reason", "r", "--date", "2026-07-01");
	t_run_free(&r);
	t_snap(&s, dir);
	RUN(r, dir, 2, "supersede", "alpha-003", "alpha-001");
	assert_string_equal(r.err, "dtk supersede: error: alpha-003 is superseded by alpha-002 "
	                           "already\n");
	t_run_free(&r);
	RUN(r, dir, 2, "supersede", "alpha-001", "beta-001");
	assert_string_equal(r.err, "dtk supersede: error: beta-001 is retracted: the entry that "
	                           "replaces another must be live\n");
	t_run_free(&r);
	RUN(r, dir, 2, "retract", "alpha-003", "--reason", "r");
	assert_string_equal(r.err, "dtk retract: error: alpha-003 is superseded by alpha-002 "
	                           "already\n");
	t_run_free(&r);
	RUN(r, dir, 2, "retract", "beta-001", "--reason", "r");
	assert_string_equal(r.err, "dtk retract: error: beta-001 is retracted already\n");
	t_run_free(&r);
	RUN(r, dir, 2, "confidence", "high", "beta-001");
	assert_string_equal(r.err, "dtk confidence: error: beta-001 is retracted: high is for "
	                           "live entries\n");
	t_run_free(&r);
	RUN(r, dir, 2, "supersede", "alpha-001", "beta-002", "--date", "2026-01-01");
	assert_string_equal(r.err, "dtk supersede: error: the date 2026-01-01 is before beta-002 "
	                           "was created (2026-06-25): an entry replaces another once it "
	                           "exists\n");
	t_run_free(&r);
	/* no new link to knowledge withdrawn (dtk check warns of one) */
	RUN(r, dir, 2, "relate", "alpha-001", "alpha-003");
	assert_string_equal(r.err, "dtk relate: error: <other-id> 'alpha-003' is superseded by "
	                           "alpha-002: a link to knowledge withdrawn; link to alpha-002\n");
	t_run_free(&r);
	RUN(r, dir, 2, "contradict", "alpha-001", "beta-001", "--note", "n");
	assert_string_equal(r.err, "dtk contradict: error: <other-id> 'beta-001' is retracted: a "
	                           "link to knowledge withdrawn\n");
	t_run_free(&r);
	RUN(r, dir, 2, "add", "alpha", "--title", "T", "--claim", "A new claim.", "--source",
	    "paper-a", "--confidence", "low", "--relates", "beta-001");
	assert_string_equal(r.err, "dtk add: error: --relates 'beta-001' is retracted: a link to "
	                           "knowledge withdrawn\n");
	t_run_free(&r);
	RUN(r, dir, 2, "verify", "alpha-003", "paper-c", "--promote");
	assert_string_equal(r.err, "dtk verify: error: --promote: alpha-003 is superseded by "
	                           "alpha-002: high is for live entries\n");
	t_run_free(&r);
	/* not a qualified one any more */
	RUN(r, dir, 0, "confidence", "high", "--qualified");
	assert_string_equal(r.out, "");
	t_run_free(&r);
	t_snap_same(&s, dir, "retired refusals");
	t_snap_free(&s);
	/* an empty superseded_by or retracted counts as absent: the entry is
	 * live to the writes as to check */
	assert_int_equal(
	        t_sh(dir, "sed -i 's/^    closed: true$/    closed: true\\n    superseded_by:\\n"
	                  "    retracted: ~/' insights/alpha.yaml"),
	        0);
	RUN(r, dir, 0, "relate", "beta-002", "alpha-001", "-q");
	t_run_free(&r);
	t_done(dir);
}

static void test_dry_run_and_json(void **state)
{
	static const char *const cmds[][8] = {
	        {"edit", "alpha-002", "--title", "T2", NULL},
	        {"edit-source", "paper-b", "--title", "B2", NULL},
	        {"confidence", "low", "alpha-002", NULL},
	        {"unrelate", "alpha-002", "alpha-001", NULL},
	        {"unverify", "alpha-002", "docs-d", NULL},
	        {"supersede", "alpha-002", "alpha-003", NULL},
	        {"retract", "alpha-002", "--reason", "r", NULL},
	        {"resolve", "alpha-001", "alpha-003", NULL},
	};
	char *dir = t_base();
	struct t_snap s;
	size_t i;
	(void)state;

	t_snap(&s, dir);
	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		const char *const *a = cmds[i];
		struct t_run r;
		t_dtk(&r, dir, NULL, a[0], "--dry-run", a[1], a[2], a[3], a[4], NULL);
		assert_int_equal(r.status, 0);
		assert_non_null(strstr(r.out, "--- a/insights/"));
		t_run_free(&r);
		t_dtk(&r, dir, NULL, a[0], "--dry-run", "--format", "json", a[1], a[2], a[3], a[4],
		      NULL);
		assert_int_equal(r.status, 0);
		assert_non_null(strstr(r.out, "{\n  \"dry_run\": true,\n  \"diff\": \"diff --git"));
		t_run_free(&r);
		t_snap_same(&s, dir, a[0]);
	}
	t_snap_free(&s);
	/* json: the entries as show prints them */
	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		const char *const *a = cmds[i];
		struct t_run r, show;
		char *dir2 = t_base();
		t_dtk(&r, dir2, NULL, a[0], "--format", "json", a[1], a[2], a[3], a[4], NULL);
		assert_int_equal(r.status, 0);
		if (!strcmp(a[0], "edit-source")) {
			static const char head[] =
			        "{\n  \"id\": \"paper-b\",\n  \"title\": \"B2\",";
			assert_true(!strncmp(r.out, head, sizeof(head) - 1));
		} else {
			const char *id = !strcmp(a[0], "confidence") ? a[2]
			                 : !strcmp(a[0], "resolve")  ? "alpha-003"
			                                             : a[1];
			struct dtk_buf want = DTK_BUF_INIT;
			RUN(show, dir2, 0, "show", id, "--format", "json");
			dtk_buf_puts(&want, "[\n  ");
			/* the array's one entry: show's object, indented once more */
			for (const char *p = show.out; *p; p++) {
				dtk_buf_putc(&want, *p);
				if (*p == '\n' && p[1])
					dtk_buf_puts(&want, "  ");
			}
			want.len--; /* its last line break */
			dtk_buf_puts(&want, "\n]\n");
			assert_string_equal(r.out, dtk_buf_cstr(&want));
			dtk_buf_release(&want);
			t_run_free(&show);
		}
		t_run_free(&r);
		t_done(dir2);
	}
	t_done(dir);
}

static void test_init_then_fill(void **state)
{
	char *dir = t_mkdtemp(), *sub;
	struct t_run r;
	(void)state;

	sub = dtk_path_join(dir, "My Base");
	assert_int_equal(mkdir(sub, 0777), 0);
	/* a dry run writes nothing, not even insights/ */
	RUN(r, sub, 0, "init", "--dry-run");
	assert_non_null(strstr(r.out, "+++ b/insights/_domain.yaml\n"));
	assert_non_null(strstr(r.out, "+++ b/INDEX.md\n"));
	t_run_free(&r);
	assert_int_equal(t_sh(sub, "test -e insights || test -e INDEX.md"), 1);

	RUN(r, sub, 0, "init", "--lang", "en");
	assert_string_equal(r.out, "my-base\n");
	t_run_free(&r);
	S_file_is(sub, "insights/_domain.yaml",
	          "domain: my-base\n"
	          "title: my-base knowledge index\n"
	          "description: The knowledge entries and crystallization records of this domain, "
	          "kept by dtk.\n"
	          "positioning: knowledge flywheel\n"
	          "categories: []\n"
	          "lang: en\n");
	S_file_is(sub, "insights/_sources.yaml", "[]\n");
	S_file_is(sub, "insights/_crystallizations.yaml", "[]\n");
	{
		char *idx = t_read(sub, "INDEX.md", NULL);
		assert_true(
		        !strncmp(idx, "# my-base knowledge index\n\nThe knowledge entries", 48));
		assert_non_null(strstr(idx, "## Status\n\n  - Nodes: 0\n"));
		free(idx);
	}
	RUN(r, sub, 0, "check");
	t_run_free(&r);
	/* a second time, or below it: refused, nothing changed */
	RUN(r, sub, 2, "init");
	assert_non_null(strstr(r.err, "holds a knowledge base already\n"));
	t_run_free(&r);
	RUN(r, sub, 2, "-C", "insights", "init");
	t_run_free(&r);
	RUN(r, sub, 0, "add-node", "basics", "--category", "Basics", "--bloom", "understand");
	t_run_free(&r);
	RUN(r, sub, 0, "add-source", "paper-a", "--title", "Paper A");
	t_run_free(&r);
	RUN(r, sub, 0, "add-source", "paper-b", "--title", "Paper B", "--url", "https://b.org/");
	t_run_free(&r);
	S_file_is(sub, "insights/_sources.yaml",
	          "- id: paper-a\n  title: Paper A\n"
	          "- id: paper-b\n  title: Paper B\n  url: https://b.org/\n");
	RUN(r, sub, 0, "add", "basics", "--title", "First", "--claim", "The first claim.",
	    "--source", "paper-a", "--verified-by", "paper-b", "--confidence", "medium",
	    "--created", "2026-07-01");
	assert_string_equal(r.out, "basics-ar8wmbw\n");
	t_run_free(&r);
	S_file_is(sub, "insights/_domain.yaml",
	          "domain: my-base\n"
	          "title: my-base knowledge index\n"
	          "description: The knowledge entries and crystallization records of this domain, "
	          "kept by dtk.\n"
	          "positioning: knowledge flywheel\n"
	          "categories:\n"
	          "  - name: Basics\n"
	          "    nodes: [basics]\n"
	          "lang: en\n");
	RUN(r, sub, 0, "check");
	t_run_free(&r);

	/* a domain that is not a name, a language dtk has no labels for */
	RUN(r, dir, 2, "init", "--domain", "训练");
	t_run_free(&r);
	RUN(r, dir, 2, "init", "--lang", "fr");
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "test -e insights || test -e INDEX.md"), 1);
	t_done(dir);
	free(sub);
}

/* A base without _sources.yaml gets one from add-source. */
static void test_add_source_creates_the_file(void **state)
{
	char *dir = t_mkdtemp();
	struct t_run r;
	(void)state;

	RUN(r, dir, 0, "init", "--domain", "demo", "--title", "演示：索引");
	t_run_free(&r);
	S_file_is(dir, "insights/_domain.yaml",
	          "domain: demo\n"
	          "title: 演示：索引\n"
	          "description: 本域的知识条目与结晶记录，由 dtk 维护。\n"
	          "positioning: 知识飞轮\n"
	          "categories: []\n"
	          "lang: zh\n");
	t_sh(dir, "rm insights/_sources.yaml");
	RUN(r, dir, 2, "check");
	t_run_free(&r);
	RUN(r, dir, 0, "add-source", "s-1", "--title", "One: the first", "--read", "2026-07-01");
	t_run_free(&r);
	S_file_is(dir, "insights/_sources.yaml",
	          "- id: s-1\n  title: 'One: the first'\n  read: 2026-07-01\n");
	RUN(r, dir, 0, "check");
	t_run_free(&r);
	t_done(dir);
}

/* The crystallization's figures and lists (crystal.c) with retired and
 * revised entries, on bases held in memory: the previous run's and now. */
static struct dtk_kb *S_mem_base(const char *node)
{
	static const char domain[] = "domain: d\ntitle: T\ndescription: d\npositioning: p\n"
	                             "categories: [{name: c, nodes: [a]}]\n";
	static const char sources[] = "- {id: s1, title: S1, revised: 2026-05-02}\n"
	                              "- {id: s2, title: S2}\n- {id: s3, title: S3}\n";
	static const char records[] = "- {date: 2026-05-01, new_entries: 3, high_changes: 1, "
	                              "stale: 0, earliest: 2026-01-01, stance_rewrites: 0, "
	                              "contradictions_new: 0, eval: {scenario: s, verdict: v}}\n";
	struct dtk_memfile files[] = {{"_domain.yaml", domain, sizeof(domain) - 1},
	                              {"_sources.yaml", sources, sizeof(sources) - 1},
	                              {"_crystallizations.yaml", records, sizeof(records) - 1},
	                              {"a.yaml", node, strlen(node)}};
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	if (dtk_kb_load(
	            &kb,
	            &(struct dtk_kb_load_opts){.what = DTK_KB_ALL, .files = files, .n_files = 4},
	            &d) != 0)
		dtk_diags_print(&d, stderr);
	assert_int_equal(d.n, 0);
	dtk_diags_release(&d);
	return kb;
}

static void test_crystal_lists(void **state)
{
#define E(n, conf, vb, extra)                                                                      \
	"  - {id: a-00" n ", title: t" n ", claim: c, confidence: " conf ", source: s1, "          \
	"verified_by: [" vb "], created: 2026-01-01" extra "}\n"
	static const char before[] =
	        "node: a\nbloom: apply\ninsights:\n" E("1", "high", "s2, s3", "")
	                E("2", "medium", "s2, s3", "") E("3", "low", "s2", "")
	                        E("4", "low", "", "");
	static const char after[] = "node: a\nbloom: apply\ninsights:\n" E(
	        "1", "high", "s2, s3", ", retracted: 2026-05-03, retracted_reason: r")
	        E("2", "medium", "s2, s3", ", superseded_by: a-004, superseded: 2026-05-03")
	                E("3", "low", "s2", ", superseded_by: a-004, superseded: 2026-05-03")
	                        E("4", "low", "", ", revised: 2026-05-02");
#undef E
	struct dtk_kb *prev = S_mem_base(before), *now = S_mem_base(after);
	struct dtk_crystal c;
	struct dtk_stats st;
	(void)state;

	dtk_crystal_compute(&c, now, prev, 20261201);
	assert_int_equal(c.rec.high_changes, 1); /* a-001 is no longer high */
	assert_int_equal(c.lists[DTK_CL_PROMOTABLE].n, 0); /* a-002 would be, but is retired */
	assert_int_equal(c.lists[DTK_CL_CANDIDATES].n, 0); /* a-003 would be */
	assert_int_equal(c.lists[DTK_CL_STALE].n, 1);      /* a-004 alone */
	assert_string_equal(c.lists[DTK_CL_STALE].v[0].id, "a-004");
	assert_int_equal(c.lists[DTK_CL_REVISED].n, 1);
	assert_string_equal(c.lists[DTK_CL_REVISED].v[0].id, "a-004");
	assert_int_equal(c.lists[DTK_CL_SOURCES].n, 1);
	assert_string_equal(c.lists[DTK_CL_SOURCES].v[0].id, "s1");
	dtk_crystal_release(&c);
	dtk_crystal_compute(&c, prev, NULL, 20261201);
	assert_int_equal(c.lists[DTK_CL_PROMOTABLE].n, 1);
	assert_int_equal(c.lists[DTK_CL_CANDIDATES].n, 1);
	assert_int_equal(c.lists[DTK_CL_STALE].n, 4);
	dtk_crystal_release(&c);
	dtk_stats_compute(&st, now);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.high, 0);
	assert_int_equal(st.nodes_with_entries, 1);
	assert_int_equal(st.articles, 3);
	dtk_kb_free(prev);
	dtk_kb_free(now);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_edit),
	        cmocka_unit_test(test_edit_source),
	        cmocka_unit_test(test_confidence),
	        cmocka_unit_test(test_unlink),
	        cmocka_unit_test(test_unlink_block_list),
	        cmocka_unit_test(test_supersede_and_retract),
	        cmocka_unit_test(test_contradictions_either_side),
	        cmocka_unit_test(test_refusals_write_nothing),
	        cmocka_unit_test(test_retired_refusals),
	        cmocka_unit_test(test_dry_run_and_json),
	        cmocka_unit_test(test_init_then_fill),
	        cmocka_unit_test(test_add_source_creates_the_file),
	        cmocka_unit_test(test_crystal_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
