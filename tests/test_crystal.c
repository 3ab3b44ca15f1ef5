/* test_crystal.c: the record a crystallization writes reads back as the
 * same values, and appending keeps every byte of the older records. */
#include "support.h"

#include "dtk/crystal.h"
#include "dtk/kb.h"

#include <stdlib.h>
#include <string.h>

/* Strings that read as something else when written plain. */
static const char *const S_tricky[] = {"0x1f",        "1e5",
                                       "true",        "yes",
                                       "null",        "~",
                                       "2026-10-15",  "12:30",
                                       "-1",          "a: b",
                                       "a #b",        "#c",
                                       " lead",       "trail ",
                                       "[x]",         "{y}",
                                       "*ref",        "&a",
                                       "!tag",        "'q'",
                                       "\"dq\"",      "50%",
                                       "line\nbreak", "tab\tx",
                                       "é→ü",         "alpha-005↔beta-002",
                                       "@at",         "`b`",
                                       "? k",         "- item",
                                       "|",           ">",
                                       "%x",          ",c"};

static void S_record(struct dtk_record *r, struct dtk_bloom_change *bc, struct dtk_pair_count *pc,
                     const char *s)
{
	static const char *cross[2];
	memset(r, 0, sizeof(*r));
	r->date = 20261015;
	r->since = 20260901;
	r->new_entries = 3;
	r->high_changes = 1;
	r->stale = 2;
	r->earliest = 20260101;
	r->stance_rewrites = 4;
	r->contradictions_new = 5;
	bc->node = "1e5"; /* a valid node name that reads as a number plain */
	bc->from = DTK_BLOOM_APPLY;
	bc->to = DTK_BLOOM_ANALYZE;
	r->bloom_changes = bc;
	r->n_bloom_changes = 1;
	r->eval_scenario = s;
	r->eval_verdict = s;
	r->has_review = 1;
	pc->node = "true";
	pc->count = 7;
	r->pairs = pc;
	r->n_pairs = 1;
	cross[0] = s;
	cross[1] = "x";
	r->cross_pairs = cross;
	r->n_cross_pairs = 2;
	r->review_verdict = s[0] ? s : "v"; /* verdict must not be empty */
	r->review_note = s;
}

static void test_values_read_back(void **state)
{
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(S_tricky) / sizeof(*S_tricky); i++) {
		struct dtk_record r;
		struct dtk_bloom_change bc;
		struct dtk_pair_count pc;
		struct dtk_diags d = DTK_DIAGS_INIT;
		struct dtk_kb *kb = NULL;
		char *text = NULL;
		S_record(&r, &bc, &pc, S_tricky[i]);
		assert_int_equal(dtk_records_append(&text, NULL, 0, 0, &r), 0);
		if (dtk_kb_parse_records(&kb, text, strlen(text), "r.yaml", &d) != 0) {
			dtk_diags_print(&d, stderr);
			fail_msg("'%s' does not parse back:\n%s", S_tricky[i], text);
		}
		assert_int_equal(kb->n_records, 1);
		if (!dtk_record_equal(&kb->records[0], &r))
			fail_msg("'%s' reads back as another value:\n%s", S_tricky[i], text);
		dtk_kb_free(kb);
		dtk_diags_release(&d);
		free(text);
	}
}

static void test_invalid_utf8_is_an_error(void **state)
{
	struct dtk_record r;
	struct dtk_bloom_change bc;
	struct dtk_pair_count pc;
	char *text = (char *)"x";
	(void)state;
	S_record(&r, &bc, &pc, "bad \xff byte");
	assert_int_equal(dtk_records_append(&text, NULL, 0, 0, &r), -1);
	assert_null(text);
}

static void test_append_keeps_old_bytes(void **state)
{
	static const char old[] = "# runs, by hand\n- {date: 2026-03-01, new_entries: 4, "
	                          "high_changes: 1, stale: 0, earliest: 2026-01-15,\n"
	                          "   stance_rewrites: 2, contradictions_new: 0,\n"
	                          "   eval: {scenario: 'x', verdict: \"y\"}}   # odd layout";
	static const char comments[] = "# no run yet\n---\n";
	struct dtk_record r;
	struct dtk_bloom_change bc;
	struct dtk_pair_count pc;
	char *text = NULL;
	(void)state;
	S_record(&r, &bc, &pc, "s");
	assert_int_equal(dtk_records_append(&text, old, strlen(old), 1, &r), 0);
	assert_memory_equal(text, old, strlen(old));
	assert_memory_equal(text + strlen(old), "\n- date: 2026-10-15\n", 20);
	free(text);
	/* a file of comments only keeps them */
	assert_int_equal(dtk_records_append(&text, comments, strlen(comments), 0, &r), 0);
	assert_memory_equal(text, comments, strlen(comments));
	free(text);
	/* an empty list cannot take an item: the record alone */
	assert_int_equal(dtk_records_append(&text, "[]\n", 3, 0, &r), 0);
	assert_memory_equal(text, "- date: 2026-10-15\n", 19);
	free(text);
}

static void test_equal(void **state)
{
	struct dtk_record a, b;
	struct dtk_bloom_change bc1, bc2;
	struct dtk_pair_count pc1, pc2;
	(void)state;
	S_record(&a, &bc1, &pc1, "s");
	S_record(&b, &bc2, &pc2, "s");
	assert_true(dtk_record_equal(&a, &b));
	b.earliest = 0;
	assert_false(dtk_record_equal(&a, &b));
	b.earliest = a.earliest;
	b.review_note = NULL;
	assert_false(dtk_record_equal(&a, &b));
	b.review_note = "s";
	pc2.count = 8;
	assert_false(dtk_record_equal(&a, &b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_values_read_back),
	        cmocka_unit_test(test_invalid_utf8_is_an_error),
	        cmocka_unit_test(test_append_keeps_old_bytes),
	        cmocka_unit_test(test_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
