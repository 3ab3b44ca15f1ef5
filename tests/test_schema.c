/* test_schema.c: the model the loader builds from tests/fixtures/base. */
#include "support.h"

#include "dtk/kb.h"

#include <stdlib.h>
#include <string.h>

static struct dtk_kb *S_load(int what, const char *node)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *kb = NULL;
	char *root = t_src("tests/fixtures/base");
	int rc = dtk_kb_load(&kb, root, what, node, &d);
	if (rc != 0)
		dtk_diags_print(&d, stderr);
	assert_int_equal(rc, 0);
	assert_int_equal(d.n, 0);
	free(root);
	return kb;
}

static void test_domain(void **state)
{
	struct dtk_kb *kb = S_load(DTK_KB_ALL, NULL);
	(void)state;
	assert_string_equal(kb->domain, "demo-training");
	assert_int_equal(kb->n_categories, 2);
	assert_string_equal(kb->categories[1].name, "策略");
	assert_int_equal(kb->categories[1].n_nodes, 2);
	assert_int_equal(kb->n_hotspots, 2);
	assert_int_equal(kb->hotspots[0].n_links, 2);
	assert_int_equal(kb->n_gaps, 2);
	assert_string_equal(kb->gaps[0].flagged_by.id, "beta-002");
	assert_null(kb->gaps[1].flagged_by.id);
	assert_int_equal(kb->stale_after_months, 6);
	assert_int_equal(kb->high_min_verified, 2);
	assert_int_equal(kb->n_sources, 4);
	assert_string_equal(dtk_kb_source(kb, "paper-c")->title, "Paper C: the sequel");
	assert_null(dtk_kb_source(kb, "nope"));
	dtk_kb_free(kb);
}

static void test_nodes_in_category_order(void **state)
{
	struct dtk_kb *kb = S_load(DTK_KB_ALL, NULL);
	const struct dtk_entry *e;
	(void)state;
	assert_int_equal(kb->n_nodes, 3);
	assert_string_equal(kb->nodes[0]->name, "alpha");
	assert_string_equal(kb->nodes[1]->name, "beta");
	assert_string_equal(kb->nodes[2]->name, "gamma");
	assert_int_equal(kb->nodes[2]->category, 1);
	assert_null(kb->nodes[2]->stance);
	assert_string_equal(kb->nodes[0]->path, "insights/alpha.yaml");
	e = dtk_kb_entry(kb, "alpha-001");
	assert_non_null(e);
	assert_int_equal(e->confidence, DTK_CONF_HIGH);
	assert_int_equal(e->n_verified_by, 2);
	assert_int_equal(e->created, 20260115);
	assert_int_equal(e->reviewed, 20260501);
	assert_int_equal(dtk_entry_fresh(e), 20260501);
	assert_int_equal(e->used, 3);
	assert_true(e->closed);
	assert_int_equal(e->pos.line, 5);
	assert_int_equal(e->pos.col, 5);
	e = dtk_kb_entry(kb, "alpha-003");
	assert_int_equal(e->n_contradicts, 2);
	assert_true(e->contradicts[0].open);
	assert_false(e->contradicts[1].open);
	assert_null(e->contradicts[1].note);
	assert_ptr_equal(e->node, kb->nodes[0]);
	assert_null(dtk_kb_entry(kb, "alpha-004"));
	dtk_kb_free(kb);
}

static void test_records(void **state)
{
	struct dtk_kb *kb = S_load(DTK_KB_ALL, NULL);
	const struct dtk_record *r;
	(void)state;
	assert_int_equal(kb->n_records, 2);
	assert_int_equal(kb->records[0].since, 0);
	r = &kb->records[1];
	assert_int_equal(r->date, 20260701);
	assert_int_equal(r->since, 20260301);
	assert_int_equal(r->n_bloom_changes, 1);
	assert_int_equal(r->bloom_changes[0].from, DTK_BLOOM_ANALYZE);
	assert_int_equal(r->bloom_changes[0].to, DTK_BLOOM_EVALUATE);
	assert_true(r->has_review);
	assert_int_equal(r->n_pairs, 2);
	assert_string_equal(r->pairs[0].node, "alpha");
	assert_int_equal(r->pairs[0].count, 2);
	assert_int_equal(r->n_cross_pairs, 1);
	assert_string_equal(r->eval_scenario, "scenario-002");
	dtk_kb_free(kb);
}

static void test_one_node(void **state)
{
	struct dtk_kb *kb = S_load(DTK_KB_ONE_NODE, "beta");
	(void)state;
	assert_int_equal(kb->n_nodes, 1);
	assert_string_equal(kb->nodes[0]->name, "beta");
	assert_int_equal(kb->nodes[0]->category, 1);
	assert_int_equal(kb->n_records, 0);
	dtk_kb_free(kb);
}

static void test_entry_id_split(void **state)
{
	size_t n = 0;
	(void)state;
	assert_true(dtk_entry_id_split("training-parallelism-008", &n));
	assert_int_equal(n, strlen("training-parallelism"));
	assert_true(dtk_entry_id_split("a-1234", &n));
	assert_false(dtk_entry_id_split("a-12", &n));
	assert_false(dtk_entry_id_split("-001", &n));
	assert_false(dtk_entry_id_split("A-001", &n));
	assert_false(dtk_entry_id_split("a-00x", &n));
}

static void test_find_root(void **state)
{
	char *base = t_src("tests/fixtures/base"), *sub = t_src("tests/fixtures/base/insights");
	char *root = dtk_kb_find_root(sub);
	(void)state;
	assert_non_null(root);
	assert_string_equal(root, base);
	free(root);
	assert_null(dtk_kb_find_root("/"));
	free(base);
	free(sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_domain),
		cmocka_unit_test(test_nodes_in_category_order),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_one_node),
		cmocka_unit_test(test_entry_id_split),
		cmocka_unit_test(test_find_root),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
