/* test_merge_follow.c: theirs' references to the entries a merge renumbered
 * follow in the other files of insights/ (dtk_merge_follow), each checked
 * on the exact bytes of the result. */
#include "support.h"

#include "dtk/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct dtk_merge_rename R[] = {{"alpha-004", "alpha-009"}, {"alpha-005", "alpha-010"}};

/* Follows the renames R in merged (ours and theirs: NULL when absent) and
 * checks the count, the exact text (NULL: unchanged) and that the notes
 * hold notes (when not NULL). */
static void S_check(const char *name, const char *merged, const char *ours, const char *theirs,
                    int n, const char *want, const char *notes)
{
	struct dtk_merge_out out;
	int got =
	        dtk_merge_follow(&out, name, merged, strlen(merged), ours, ours ? strlen(ours) : 0,
	                         theirs, theirs ? strlen(theirs) : 0, R, 2);

	if (got != n || (want && (!out.text || strcmp(out.text, want))))
		fprintf(stderr, "--- got (%d):\n%s--- notes:\n%s", got,
		        out.text ? out.text : "(none)\n", dtk_buf_cstr(&out.notes));
	assert_int_equal(got, n);
	if (want) {
		assert_non_null(out.text);
		assert_int_equal(out.len, strlen(want));
		assert_string_equal(out.text, want);
	} else {
		assert_null(out.text);
	}
	if (notes)
		assert_non_null(strstr(dtk_buf_cstr(&out.notes), notes));
	dtk_merge_out_release(&out);
}

#define B_HEAD "node: beta\ninsights:\n"
#define B1 "  - id: beta-001\n    title: one\n"
#define B2(rel) "  - id: beta-002\n    title: two # kept\n    relates: " rel "\n"

static void test_relates_added_by_theirs_follows(void **state)
{
	(void)state;
	/* theirs added beta-002 relating to its alpha-004 */
	S_check("beta.yaml", B_HEAD B1 B2("[alpha-004, beta-001]"), B_HEAD B1,
	        B_HEAD B1 B2("[alpha-004, beta-001]"), 1, B_HEAD B1 B2("[alpha-009, beta-001]"),
	        "beta.yaml: theirs' reference to alpha-004 (beta-002's relates) is now alpha-009");
	/* block style, quoted, CRLF: only the id's bytes change */
	S_check("beta.yaml",
	        "node: beta\r\ninsights:\r\n  - id: beta-002\r\n    relates:\r\n      - "
	        "'alpha-005'  # x\r\n      - alpha-004\r\n",
	        NULL,
	        "node: beta\ninsights:\n  - id: beta-002\n    relates: [alpha-005, alpha-004]\n", 2,
	        "node: beta\r\ninsights:\r\n  - id: beta-002\r\n    relates:\r\n      - "
	        "'alpha-010'  # x\r\n      - alpha-009\r\n",
	        NULL);
}

static void test_superseded_by_added_by_theirs_follows(void **state)
{
#define S2(id) "  - id: beta-002\n    superseded_by: " id " # newer\n    superseded: 2026-03-01\n"
	(void)state;
	S_check("beta.yaml", B_HEAD B1 S2("alpha-004"), B_HEAD B1 "  - id: beta-002\n",
	        B_HEAD B1 S2("alpha-004"), 1, B_HEAD B1 S2("alpha-009"),
	        "beta.yaml: theirs' reference to alpha-004 (beta-002's superseded_by) is now "
	        "alpha-009");
	/* ours' own reference stays */
	S_check("beta.yaml", B_HEAD B1 S2("alpha-004"), B_HEAD B1 S2("alpha-004"),
	        B_HEAD B1 S2("alpha-004"), 0, NULL, NULL);
#undef S2
}

static void test_ours_references_stay(void **state)
{
	(void)state;
	/* ours' beta-002 relates to ours' alpha-004 too: it stays */
	S_check("beta.yaml", B_HEAD B1 B2("[alpha-004]"), B_HEAD B1 B2("[alpha-004]"),
	        B_HEAD B1 B2("[alpha-004]"), 0, NULL, NULL);
	/* theirs did not name it: ours' (added by ours) stays */
	S_check("beta.yaml", B_HEAD B1 B2("[alpha-004]"), B_HEAD B1 B2("[alpha-004]"),
	        B_HEAD B1 B2("[]"), 0, NULL, NULL);
	/* the list names the new id already */
	S_check("beta.yaml", B_HEAD B1 B2("[alpha-004, alpha-009]"), B_HEAD B1,
	        B_HEAD B1 B2("[alpha-004, alpha-009]"), 0, NULL, NULL);
	/* an id not renamed, another base's id */
	S_check("beta.yaml", B_HEAD B1 B2("[alpha-006, other:alpha-004]"), B_HEAD B1,
	        B_HEAD B1 B2("[alpha-006, other:alpha-004]"), 0, NULL, NULL);
}

/* theirs' entry renumbered too (ours added a beta-002 of its own): its
 * references follow, found by its id in theirs (the rename's from) */
static void test_renumbered_entry_references_follow(void **state)
{
	static const struct dtk_merge_rename r[] = {{"alpha-004", "alpha-009"},
	                                            {"beta-002", "beta-007"}};
	const char *ours = B_HEAD B1 "  - id: beta-002\n    title: ours two\n";
	const char *theirs = B_HEAD B1 B2("[alpha-004, beta-001]") "    contradicts:\n"
	                                                           "      - id: alpha-004\n"
	                                                           "        status: open\n";
	const char *merged = B_HEAD B1 "  - id: beta-002\n    title: ours two\n"
	                               "  - id: beta-007\n    title: two # kept\n"
	                               "    relates: [alpha-004, beta-001]\n    contradicts:\n"
	                               "      - id: alpha-004\n        status: open\n";
	const char *want = B_HEAD B1 "  - id: beta-002\n    title: ours two\n"
	                             "  - id: beta-007\n    title: two # kept\n"
	                             "    relates: [alpha-009, beta-001]\n    contradicts:\n"
	                             "      - id: alpha-009\n        status: open\n";
	struct dtk_merge_out out;
	int got;
	(void)state;

	got = dtk_merge_follow(&out, "beta.yaml", merged, strlen(merged), ours, strlen(ours),
	                       theirs, strlen(theirs), r, 2);
	assert_int_equal(got, 2);
	assert_non_null(out.text);
	assert_string_equal(out.text, want);
	assert_non_null(strstr(dtk_buf_cstr(&out.notes), "beta.yaml: theirs' reference to "
	                                                 "alpha-004 (beta-007's relates) is now "
	                                                 "alpha-009"));
	dtk_merge_out_release(&out);
}

static void test_contradicts_follow(void **state)
{
	const char *t = B_HEAD "  - id: beta-002\n    contradicts:\n      - id: alpha-004\n"
	                       "        status: open\n      - id: beta-001\n        status: open\n";
	const char *w = B_HEAD "  - id: beta-002\n    contradicts:\n      - id: alpha-009\n"
	                       "        status: open\n      - id: beta-001\n        status: open\n";
	(void)state;
	S_check("beta.yaml", t, B_HEAD B1, t, 1, w, "(beta-002's contradicts) is now alpha-009");
}

#define DOM_HEAD "domain: d\ntitle: T\ngaps:\n  - text: old\n    flagged_by: alpha-004\n"

static void test_gaps_follow(void **state)
{
	(void)state;
	/* ours' gap keeps its reference; theirs' new gap follows */
	S_check("_domain.yaml", DOM_HEAD "  - text: new\n    flagged_by: alpha-004 # why\n",
	        DOM_HEAD,
	        "domain: d\ntitle: T\ngaps:\n  - text: new\n    flagged_by: alpha-004 # why\n", 1,
	        DOM_HEAD "  - text: new\n    flagged_by: alpha-009 # why\n",
	        "_domain.yaml: theirs' reference to alpha-004 (flagged_by of the gap 'new') is now "
	        "alpha-009");
	/* a gap theirs flagged, ours' without flagged_by */
	S_check("_domain.yaml", "gaps:\n  - {text: g, flagged_by: \"alpha-005\"}\n",
	        "gaps:\n  - {text: g}\n", "gaps:\n  - {text: g, flagged_by: \"alpha-005\"}\n", 1,
	        "gaps:\n  - {text: g, flagged_by: \"alpha-010\"}\n", NULL);
}

static void test_nothing_to_follow(void **state)
{
	(void)state;
	/* theirs' version absent, a file that does not parse, other files */
	S_check("beta.yaml", B_HEAD B2("[alpha-004]"), NULL, NULL, 0, NULL, NULL);
	S_check("beta.yaml", "node: [\n", NULL, B_HEAD B2("[alpha-004]"), 0, NULL, NULL);
	S_check("_sources.yaml", "- id: alpha-004\n", NULL, "- id: alpha-004\n", 0, NULL, NULL);
}

/* dtk_merge_file reports the renumbering it made, none when the whole
 * file conflicts */
static void test_merge_reports_renames(void **state)
{
	const char *base = "node: alpha\ninsights:\n  - id: alpha-001\n    title: a\n";
	char ours[256], theirs[256];
	struct dtk_merge_in in = {"alpha.yaml", base, ours, theirs, strlen(base), 0, 0, NULL, NULL};
	struct dtk_merge_out out;
	(void)state;

	snprintf(ours, sizeof(ours), "%s  - id: alpha-002\n    title: o\n", base);
	snprintf(theirs, sizeof(theirs), "%s  - id: alpha-002\n    title: t\n", base);
	in.ours_len = strlen(ours);
	in.theirs_len = strlen(theirs);
	assert_int_equal(dtk_merge_file(&out, &in), 0);
	assert_int_equal(out.n_renames, 1);
	assert_string_equal(out.renames[0].from, "alpha-002");
	assert_string_equal(out.renames[0].to, "alpha-003");
	dtk_merge_out_release(&out);
	/* theirs does not parse: the whole file conflicts, nothing renamed */
	snprintf(theirs, sizeof(theirs), "node: [\n");
	in.theirs_len = strlen(theirs);
	assert_int_equal(dtk_merge_file(&out, &in), 1);
	assert_int_equal(out.n_renames, 0);
	assert_null(out.renames);
	dtk_merge_out_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_relates_added_by_theirs_follows),
	        cmocka_unit_test(test_superseded_by_added_by_theirs_follows),
	        cmocka_unit_test(test_ours_references_stay),
	        cmocka_unit_test(test_renumbered_entry_references_follow),
	        cmocka_unit_test(test_contradicts_follow),
	        cmocka_unit_test(test_gaps_follow),
	        cmocka_unit_test(test_nothing_to_follow),
	        cmocka_unit_test(test_merge_reports_renames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
