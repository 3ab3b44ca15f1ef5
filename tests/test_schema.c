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
	int rc = dtk_kb_load(
	        &kb, &(struct dtk_kb_load_opts){.root = root, .what = what, .node = node}, &d);
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

static int S_entry_ptr_cmp(const void *a, const void *b)
{
	return strcmp((*(struct dtk_entry *const *)a)->id, (*(struct dtk_entry *const *)b)->id);
}

/* Entries are looked up by their number first, then by search: both must
 * find the same entry, whatever the numbering. */
static void test_entry_lookup(void **state)
{
	static const char *const ids[] = {"n-002", "n-001", "n-0003", "n-010", "n-004"};
	struct dtk_entry entries[5], *by_id[5];
	struct dtk_node node;
	size_t i;
	(void)state;
	memset(entries, 0, sizeof(entries));
	memset(&node, 0, sizeof(node));
	for (i = 0; i < 5; i++) {
		entries[i].id = ids[i];
		by_id[i] = &entries[i];
	}
	qsort(by_id, 5, sizeof(*by_id), S_entry_ptr_cmp);
	node.name = "n";
	node.entries = entries;
	node.n_entries = node.n_by_id = 5;
	node.by_id = by_id;
	for (i = 0; i < 5; i++)
		assert_ptr_equal(dtk_node_entry(&node, ids[i]), &entries[i]);
	assert_null(dtk_node_entry(&node, "n-003")); /* "n-0003" is another id */
	assert_null(dtk_node_entry(&node, "n-005"));
	assert_null(dtk_node_entry(&node, "n-99999999999999999999"));
	assert_null(dtk_node_entry(&node, "n-"));
	assert_null(dtk_node_entry(&node, "n-1x"));
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

/* Loading from memory gives what loading the directory gives. */
static void test_load_mem_matches_directory(void **state)
{
	static const char *const names[] = {
	        "_domain.yaml", "_sources.yaml", "_crystallizations.yaml",
	        "alpha.yaml",   "beta.yaml",     "gamma.yaml"};
	struct dtk_memfile files[6];
	char *dir = t_src("tests/fixtures/base/insights"), *bufs[6];
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_kb *mem = NULL, *disk = S_load(DTK_KB_ALL, NULL);
	size_t i;
	(void)state;
	for (i = 0; i < 6; i++) {
		bufs[i] = t_read(dir, names[i], &files[i].len);
		files[i].name = names[i];
		files[i].data = bufs[i];
	}
	assert_int_equal(dtk_kb_load(&mem,
	                             &(struct dtk_kb_load_opts){
	                                     .what = DTK_KB_ALL, .files = files, .n_files = 6},
	                             &d),
	                 0);
	assert_int_equal(mem->n_nodes, disk->n_nodes);
	for (i = 0; i < disk->n_nodes; i++) {
		assert_string_equal(mem->nodes[i]->name, disk->nodes[i]->name);
		assert_int_equal(mem->nodes[i]->n_entries, disk->nodes[i]->n_entries);
	}
	assert_int_equal(mem->n_records, disk->n_records);
	dtk_kb_free(mem);
	/* a missing file is reported as it is on disk */
	assert_int_equal(dtk_kb_load(&mem,
	                             &(struct dtk_kb_load_opts){
	                                     .what = DTK_KB_ALL, .files = files + 1, .n_files = 5},
	                             &d),
	                 DTK_EINVALID);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.v[0].path, "insights/_domain.yaml");
	assert_string_equal(d.v[0].msg, "required file is missing");
	dtk_diags_release(&d);
	for (i = 0; i < 6; i++)
		free(bufs[i]);
	dtk_kb_free(disk);
	free(dir);
}

/* Errors in many files come out the same whatever the number of threads. */
static void test_threads_do_not_change_the_result(void **state)
{
	char *dir = t_mkdtemp(), *base = t_src("tests/fixtures/base"), *out[3];
	const char *threads[] = {"1", "2", "7"};
	int i, k;
	(void)state;
	t_copytree(base, dir);
	for (k = 0; k < 40; k++) {
		char name[64], text[256];
		snprintf(name, sizeof(name), "insights/n%02d.yaml", k);
		snprintf(text, sizeof(text), "node: n%02d\nbloom: %s\ninsights: []\n", k,
		         k % 3 ? "apply" : "wrong");
		t_write_str(dir, name, text);
	}
	for (i = 0; i < 3; i++) {
		struct dtk_diags d = DTK_DIAGS_INIT;
		struct dtk_kb *kb = NULL;
		char buf[65536] = "";
		FILE *f = fmemopen(buf, sizeof(buf), "w");
		setenv("DTK_THREADS", threads[i], 1);
		assert_int_equal(
		        dtk_kb_load(&kb,
		                    &(struct dtk_kb_load_opts){.root = dir, .what = DTK_KB_ALL},
		                    &d),
		        DTK_EINVALID);
		dtk_diags_print(&d, f);
		fclose(f);
		out[i] = strdup(buf);
		dtk_diags_release(&d);
	}
	unsetenv("DTK_THREADS");
	assert_non_null(strstr(out[0], "insights/n00.yaml:2:8: error: 'bloom' must be one of"));
	assert_non_null(strstr(out[0], "insights/n39.yaml:2:8:"));
	assert_non_null(strstr(out[0], "node 'n01' is in no category"));
	assert_string_equal(out[0], out[1]);
	assert_string_equal(out[0], out[2]);
	for (i = 0; i < 3; i++)
		free(out[i]);
	t_rmtree(dir);
	free(dir);
	free(base);
}

/* docs/schema.md's table of an entry's keys and dtk_entry_keys (what the
 * schema checks and dtk edit writes by) agree: the same keys in the same
 * order, required where the table marks them ('*'). A row may hold two
 * keys ("`used`, `cited`"). */
static void test_entry_keys_as_documented(void **state)
{
	char *src = t_src("."), *doc = t_read(src, "docs/schema.md", NULL), *line, *save = NULL;
	size_t k = 0;
	int in = 0;

	(void)state;
	assert_non_null(doc);
	for (line = strtok_r(doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p = line, *type, *req;
		if (!strcmp(line, "An entry:"))
			in = 1;
		if (in && k && line[0] != '|')
			break; /* the table's end */
		if (!in || strncmp(line, "| `", 3))
			continue;
		if (!(type = strstr(line + 1, " | ")) || !(req = strstr(type + 3, " | ")))
			break;
		while ((p = strchr(p, '`')) && p < type) {
			const char *end = strchr(p + 1, '`'), *want = dtk_entry_keys[k];
			assert_non_null(want);
			assert_int_equal(*want == '*', !strncmp(req + 3, "yes", 3));
			want += *want == '*';
			assert_int_equal(strlen(want), (size_t)(end - p - 1));
			assert_memory_equal(want, p + 1, strlen(want));
			k++;
			p = end + 1;
		}
	}
	assert_int_equal(k, DTK_ENTRY_KEYS);
	free(doc);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_domain),
	        cmocka_unit_test(test_entry_keys_as_documented),
	        cmocka_unit_test(test_nodes_in_category_order),
	        cmocka_unit_test(test_entry_lookup),
	        cmocka_unit_test(test_records),
	        cmocka_unit_test(test_one_node),
	        cmocka_unit_test(test_entry_id_split),
	        cmocka_unit_test(test_find_root),
	        cmocka_unit_test(test_load_mem_matches_directory),
	        cmocka_unit_test(test_threads_do_not_change_the_result),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
