/* test_index.c: the figures and INDEX.md. */
#include "support.h"

#include "dtk/index.h"
#include "dtk/kb.h"

#include <stdlib.h>
#include <string.h>

static struct dtk_kb *S_load(const char *root)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	int rc = dtk_kb_load(&kb, &(struct dtk_kb_load_opts){.root = root, .what = DTK_KB_ALL}, &d);
	if (rc)
		dtk_diags_print(&d, stderr);
	assert_int_equal(rc, 0);
	return kb;
}

/* Returns INDEX.md for kb, malloc'd. */
static char *S_render(const struct dtk_kb *kb)
{
	struct dtk_buf b = DTK_BUF_INIT;
	assert_int_equal(dtk_index_write_pages(kb, dtk_buf_write, &b, NULL), 0);
	return dtk_buf_detach(&b);
}

static void test_percent_rounds_half_up(void **state)
{
	(void)state;
	assert_int_equal(dtk_percent(47, 69), 68);
	assert_int_equal(dtk_percent(38, 69), 55);
	assert_int_equal(dtk_percent(11, 69), 16);
	assert_int_equal(dtk_percent(1, 8), 13);  /* 12.5 */
	assert_int_equal(dtk_percent(1, 200), 1); /* 0.5 */
	assert_int_equal(dtk_percent(0, 0), 0);
	assert_int_equal(dtk_percent(3, 3), 100);
}

static void test_stats(void **state)
{
	char *root = t_src("tests/fixtures/base");
	struct dtk_kb *kb = S_load(root);
	struct dtk_stats st;
	(void)state;
	dtk_stats_compute(&st, kb);
	assert_int_equal(st.nodes, 3);
	assert_int_equal(st.nodes_with_entries, 2);
	assert_int_equal(st.entries, 5);
	assert_int_equal(st.high, 1);
	assert_int_equal(st.articles, 4);
	assert_int_equal(st.used, 3);
	assert_int_equal(st.usage_pct, 60);
	assert_int_equal(st.earliest, 20260201);
	assert_true(dtk_entry_is_candidate(kb, dtk_kb_entry(kb, "alpha-002")));
	assert_false(dtk_entry_is_candidate(kb, dtk_kb_entry(kb, "beta-001")));
	assert_false(dtk_entry_is_stale(kb, dtk_kb_entry(kb, "alpha-002"), 20260801));
	assert_true(dtk_entry_is_stale(kb, dtk_kb_entry(kb, "alpha-002"), 20260802));
	dtk_kb_free(kb);
	free(root);
}

static void test_golden(void **state)
{
	char *root = t_src("tests/fixtures/base");
	struct dtk_kb *kb = S_load(root);
	char *want = t_read(root, "INDEX.md", NULL), *got = S_render(kb);
	char *again = S_render(kb);
	(void)state;
	assert_non_null(want);
	assert_string_equal(got, want);
	assert_string_equal(again, got);
	free(want);
	free(got);
	free(again);
	dtk_kb_free(kb);
	free(root);
}

/* A base with no record, no gaps, no candidates and a pair of open
 * contradictions declared from both sides. */
static void test_sparse_base(void **state)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base"), *out;
	struct dtk_kb *kb;
	(void)state;
	t_copytree(base, dir);
	t_write_str(dir, "insights/_crystallizations.yaml", "[]\n");
	t_write_str(dir, "insights/_domain.yaml",
	            "domain: d\ntitle: T\ndescription: D\npositioning: P\n"
	            "categories:\n  - {name: C, nodes: [alpha, beta, gamma]}\n");
	t_write_str(dir, "insights/beta.yaml",
	            "node: beta\nbloom: apply\ninsights:\n"
	            "  - {id: beta-001, title: t, claim: c, confidence: low, source: paper-a,\n"
	            "     created: 2026-01-01, contradicts: [{id: alpha-003, status: open}]}\n");
	t_write_str(dir, "insights/alpha.yaml",
	            "node: alpha\nbloom: apply\ninsights:\n"
	            "  - {id: alpha-003, title: t, claim: c, confidence: low, source: paper-b,\n"
	            "     created: 2026-01-01, contradicts: [{id: beta-001, status: open, note: "
	            "n}]}\n");
	kb = S_load(dir);
	out = S_render(kb);
	assert_non_null(strstr(out, "- 上次结晶: —\n"));
	assert_non_null(strstr(out, "- high 条目: 0\n"));
	assert_non_null(
	        strstr(out, "## 活跃矛盾\n\n当前活跃矛盾 1 处。\n\n  - alpha-003 ↔ beta-001：n\n"));
	assert_non_null(strstr(out, "再补 1 篇独立来源即可升 high）：无。\n"));
	assert_non_null(strstr(out, "## 上次结晶记录\n\n尚无结晶记录。\n"));
	assert_non_null(strstr(out, "（1 个：gamma）；"));
	assert_null(strstr(out, "比对范围"));
	/* no table without rows, no "below:" with nothing below */
	assert_non_null(strstr(out, "## 跨域热点\n\n本域节点与其他域的已知交叉连接。\n\n"
	                            "尚无已知的交叉连接。\n\n## 活跃矛盾"));
	assert_null(strstr(out, "| 本域节点 |"));
	assert_non_null(strstr(out, "（1 个：gamma）；尚无已识别的主题空白。\n"));
	assert_null(strstr(out, "下列为"));
	free(out);
	dtk_kb_free(kb);
	/* a category without a node: no empty table */
	t_write_str(dir, "insights/_domain.yaml",
	            "domain: d\ntitle: T\ndescription: D\npositioning: P\nlang: en\n"
	            "categories:\n  - {name: E, nodes: []}\n  - {name: C, nodes: [alpha, beta, "
	            "gamma]}\n");
	kb = S_load(dir);
	out = S_render(kb);
	assert_non_null(strstr(out, "### E\n\nNo nodes yet.\n\n### C\n\n| Node |"));
	assert_non_null(strstr(out, "\n\nNone known yet.\n"));
	assert_non_null(strstr(out, "No topic gaps identified yet.\n"));
	assert_null(strstr(out, "Below:"));
	free(out);
	dtk_kb_free(kb);
	t_rmtree(dir);
	free(dir);
	free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_percent_rounds_half_up),
	        cmocka_unit_test(test_stats),
	        cmocka_unit_test(test_golden),
	        cmocka_unit_test(test_sparse_base),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
