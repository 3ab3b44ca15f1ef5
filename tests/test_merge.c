/* test_merge.c: the rules of the three-way merge of insights/ files, each
 * checked on the exact bytes of the result. */
#include "support.h"

#include "dtk/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Merges and checks the status and the exact text (and, when notes is not
 * NULL, that the notes hold it). */
static void S_check(const char *name, const char *base, const char *ours, const char *theirs,
                    int rc, const char *want, const char *notes)
{
	struct dtk_merge_in in = {
	        name,         base,           ours, theirs, base ? strlen(base) : 0,
	        strlen(ours), strlen(theirs), NULL, NULL};
	struct dtk_merge_out out;
	int got = dtk_merge_file(&out, &in);

	if (got != rc || strcmp(out.text, want))
		fprintf(stderr, "--- got (%d):\n%s--- notes:\n%s", got, out.text,
		        dtk_buf_cstr(&out.notes));
	assert_int_equal(got, rc);
	assert_int_equal(out.len, strlen(want));
	assert_string_equal(out.text, want);
	if (notes)
		assert_non_null(strstr(dtk_buf_cstr(&out.notes), notes));
	dtk_merge_out_release(&out);
}

#define HEAD "node: alpha\nbloom: apply\nstance: s\ninsights:\n"
#define E1                                                                                         \
	"  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n    source: s1\n"  \
	"    created: 2026-01-01\n    used: 2\n    relates: [alpha-002]\n"
#define E2                                                                                         \
	"  - id: alpha-002\n    title: two\n    claim: >-\n      long\n      claim\n"              \
	"    confidence: medium\n    source: s1\n    verified_by:\n      - s2\n"                   \
	"    created: 2026-01-02\n"
#define BASE HEAD E1 E2
#define E3                                                                                         \
	"  - id: alpha-003\n    title: three # ours\n    claim: c3\n    confidence: low\n"         \
	"    source: s1\n    created: 2026-02-01\n"
#define T3                                                                                         \
	"  - id: alpha-003\n    title: tres\n    claim: c3\n    confidence: low\n"                 \
	"    source: s2\n    created: 2026-02-02\n    relates: [alpha-003x, alpha-001]\n"
#define E4                                                                                         \
	"  - id: alpha-004\n    title: four\n    claim: c4\n    confidence: low\n"                 \
	"    source: s1\n    created: 2026-02-01\n"

static void test_added_on_one_side(void **state)
{
	(void)state;
	S_check("alpha.yaml", BASE, BASE E3, BASE, 0, BASE E3, NULL);
	S_check("alpha.yaml", BASE, BASE, BASE E3, 0, BASE E3, NULL);
}

static void test_added_on_both_sides_ours_first(void **state)
{
	(void)state;
	S_check("alpha.yaml", BASE, BASE E3, BASE E4, 0, BASE E3 E4, NULL);
	/* the same entry added on both sides is kept once */
	S_check("alpha.yaml", BASE, BASE E3, BASE E3, 0, BASE E3, NULL);
}

static void test_same_id_conflicts(void **state)
{
	(void)state;
	/* the same id added on both sides with different content: a conflict
	 * around that entry only, nothing renumbered; theirs' other entry
	 * merged */
	S_check("alpha.yaml", BASE, BASE E3, BASE T3 E4, 1,
	        BASE "<<<<<<< ours\n" E3 "=======\n" T3 ">>>>>>> theirs\n" E4,
	        "alpha-003 added on both sides with different content");
}

/* A comment theirs adds or changes where the data merge cannot carry it is
 * a conflict of the whole file, both sides' text kept; one inside an entry
 * theirs adds travels with it. */
static void test_comments_never_dropped(void **state)
{
	(void)state;
	S_check("alpha.yaml", BASE, BASE E3, HEAD "# theirs' note\n" E1 E2, 1,
	        "<<<<<<< ours\n" BASE E3 "=======\n" HEAD "# theirs' note\n" E1 E2
	        ">>>>>>> theirs\n",
	        "a comment changed on one side cannot be carried into the merge ('# theirs' note')");
	S_check("alpha.yaml", BASE "    # old\n", BASE "    # old\n" E3, BASE "    # new\n", 1,
	        "<<<<<<< ours\n" BASE "    # old\n" E3 "=======\n" BASE "    # new\n"
	        ">>>>>>> theirs\n",
	        "a comment changed on one side cannot be carried");
	/* carried: in theirs' new entry; the same comment added on both sides */
	S_check("alpha.yaml", BASE, BASE E3, BASE "  - id: alpha-004 # mine\n    title: four\n", 0,
	        BASE E3 "  - id: alpha-004 # mine\n    title: four\n", NULL);
	S_check("alpha.yaml", BASE, BASE "  - id: alpha-004 # same\n    title: four\n",
	        BASE "  - id: alpha-004 # same\n    title: four\n", 0,
	        BASE "  - id: alpha-004 # same\n    title: four\n", NULL);
}

static void test_changed_on_one_side(void **state)
{
	(void)state;
	/* theirs rewrites a folded claim; ours' bytes elsewhere stay */
	S_check("alpha.yaml", BASE, HEAD E1 "  # ours' comment\n" E2,
	        HEAD E1
	        "  - id: alpha-002\n    title: two\n    claim: |-\n      new\n        text\n"
	        "    confidence: medium\n    source: s1\n    verified_by:\n      - s2\n"
	        "    created: 2026-01-02\n",
	        0,
	        HEAD E1
	        "  # ours' comment\n"
	        "  - id: alpha-002\n    title: two\n    claim: |-\n      new\n        text\n"
	        "    confidence: medium\n    source: s1\n    verified_by:\n      - s2\n"
	        "    created: 2026-01-02\n",
	        NULL);
}

static void test_changed_in_different_keys(void **state)
{
	(void)state;
	S_check("alpha.yaml", HEAD E1, HEAD E1 "    reviewed: 2026-03-01\n",
	        HEAD "  - id: alpha-001\n    title: uno\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 2\n"
	             "    relates: [alpha-002]\n",
	        0,
	        HEAD "  - id: alpha-001\n    title: uno\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 2\n"
	             "    relates: [alpha-002]\n    reviewed: 2026-03-01\n",
	        NULL);
	/* a key theirs adds goes after ours' last key; a key theirs removes goes */
	S_check("alpha.yaml", HEAD E1 E2, HEAD E1 E2,
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    relates: [alpha-002]\n"
	             "    closed: true\n" E2,
	        0,
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    relates: [alpha-002]\n"
	             "    closed: true\n" E2,
	        NULL);
}

static void test_counters_add_up(void **state)
{
	(void)state;
	S_check("alpha.yaml", HEAD E1,
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 3\n"
	             "    relates: [alpha-002]\n    cited: 1\n",
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 5\n"
	             "    relates: [alpha-002]\n    cited: 2\n",
	        0,
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 6\n"
	             "    relates: [alpha-002]\n    cited: 3\n",
	        NULL);
}

/* both sides counted once from the same base: two counts, not one; a
 * counter both sides add to an entry that had none starts from 0 */
static void test_counters_counted_alike_add_up(void **state)
{
	(void)state;
	S_check("alpha.yaml", HEAD E1 E2,
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 3\n"
	             "    relates: [alpha-002]\n" E2 "    cited: 1\n",
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 3\n"
	             "    relates: [alpha-002]\n" E2 "    cited: 1\n",
	        0,
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 4\n"
	             "    relates: [alpha-002]\n" E2 "    cited: 2\n",
	        NULL);
}

static void test_lists_union_in_order(void **state)
{
	(void)state;
	/* relates (flow) and verified_by (block) gain both sides' items */
	S_check("alpha.yaml", HEAD E1 E2 E3,
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 2\n"
	             "    relates: [alpha-002, \"alpha-003\"]\n"
	             "  - id: alpha-002\n    title: two\n    claim: >-\n      long\n      claim\n"
	             "    confidence: medium\n    source: s1\n    verified_by:\n      - s2\n"
	             "      - s3\n    created: 2026-01-02\n" E3,
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 2\n"
	             "    relates: [alpha-003, alpha-002, other:x-001]\n"
	             "  - id: alpha-002\n    title: two\n    claim: >-\n      long\n      claim\n"
	             "    confidence: medium\n    source: s1\n    verified_by:\n      - s4\n"
	             "    created: 2026-01-02\n" E3,
	        0,
	        HEAD "  - id: alpha-001\n    title: one\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 2\n"
	             "    relates: [alpha-002, \"alpha-003\", other:x-001]\n"
	             "  - id: alpha-002\n    title: two\n    claim: >-\n      long\n      claim\n"
	             "    confidence: medium\n    source: s1\n    verified_by:\n      - s3\n"
	             "      - s4\n    created: 2026-01-02\n" E3,
	        NULL);
}

static void test_same_key_two_ways_conflicts_one_entry(void **state)
{
	(void)state;
	S_check("alpha.yaml", BASE E3,
	        HEAD "  - id: alpha-001\n    title: ours\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 2\n"
	             "    relates: [alpha-002]\n" E2 E3,
	        HEAD "  - id: alpha-001\n    title: theirs\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 2\n"
	             "    relates: [alpha-002]\n" E2 E4,
	        1,
	        HEAD "<<<<<<< ours\n"
	             "  - id: alpha-001\n    title: ours\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 2\n"
	             "    relates: [alpha-002]\n"
	             "=======\n"
	             "  - id: alpha-001\n    title: theirs\n    claim: c1\n    confidence: low\n"
	             "    source: s1\n    created: 2026-01-01\n    used: 2\n"
	             "    relates: [alpha-002]\n"
	             ">>>>>>> theirs\n" E2 E4,
	        "alpha-001 changed two ways");
}

static void test_node_keys(void **state)
{
	(void)state;
	S_check("alpha.yaml", BASE, "node: alpha\nbloom: analyze\nstance: s\ninsights:\n" E1 E2,
	        "node: alpha\nbloom: apply\nstance: new stance\ninsights:\n" E1 E2, 0,
	        "node: alpha\nbloom: analyze\nstance: new stance\ninsights:\n" E1 E2, NULL);
	S_check("alpha.yaml", BASE, "node: alpha\nbloom: apply\nstance: a\ninsights:\n" E1 E2,
	        "node: alpha\nbloom: apply\nstance: b\ninsights:\n" E1 E2 E3, 1,
	        "node: alpha\nbloom: apply\n<<<<<<< ours\nstance: a\n=======\nstance: b\n"
	        ">>>>>>> theirs\ninsights:\n" E1 E2 E3,
	        "'stance' changed two ways");
}

static void test_deleted(void **state)
{
	(void)state;
	S_check("alpha.yaml", BASE E3, BASE E3, HEAD E1 E3, 0, HEAD E1 E3, NULL);
	/* deleted on one side, changed on the other: that entry conflicts */
	S_check("alpha.yaml", HEAD E1 E3, HEAD E1 T3, HEAD E1, 1,
	        HEAD E1 "<<<<<<< ours\n" T3 "=======\n>>>>>>> theirs\n", "alpha-003 changed");
}

static void test_reindented_and_line_ends(void **state)
{
	(void)state;
	/* ours writes items at column 0 with CRLF; theirs' entry follows */
	S_check("alpha.yaml", "node: alpha\nbloom: apply\ninsights:\n- id: alpha-001\n  title: t\n",
	        "node: alpha\r\nbloom: apply\r\ninsights:\r\n- id: alpha-001\r\n  title: t\r\n",
	        "node: alpha\nbloom: apply\ninsights:\n- id: alpha-001\n  title: t\n"
	        "- id: alpha-002\n  title: |\n    a\n\n    b\n",
	        0,
	        "node: alpha\r\nbloom: apply\r\ninsights:\r\n- id: alpha-001\r\n  title: t\r\n"
	        "- id: alpha-002\r\n  title: |\r\n    a\r\n\r\n    b\r\n",
	        NULL);
	S_check("alpha.yaml", "node: alpha\nbloom: apply\ninsights:\n- id: alpha-001\n  title: t\n",
	        "node: alpha\nbloom: apply\ninsights:\n- id: alpha-001\n  title: t",
	        "node: alpha\nbloom: apply\ninsights:\n    - id: alpha-001\n      title: t\n"
	        "    - id: alpha-002\n      title: |\n        a\n\n        b\n",
	        0,
	        "node: alpha\nbloom: apply\ninsights:\n- id: alpha-001\n  title: t\n"
	        "- id: alpha-002\n  title: |\n    a\n\n    b\n",
	        NULL);
}

static void test_lone_cr_is_a_whole_conflict(void **state)
{
	(void)state;
	/* lines broken by a lone CR on either side: YAML reads them, dtk's
	 * splices write LF or CRLF only; the whole file conflicts */
	S_check("alpha.yaml", BASE, "node: alpha\rbloom: apply\rinsights:\r",
	        "node: alpha\nbloom: evaluate\ninsights:\n", 1,
	        "<<<<<<< ours\nnode: alpha\rbloom: apply\rinsights:\r\n=======\nnode: "
	        "alpha\nbloom: evaluate\ninsights:\n>>>>>>> theirs\n",
	        "layout");
	S_check("alpha.yaml", BASE, "node: alpha\nbloom: apply\ninsights:\n",
	        "node: alpha\rbloom: evaluate\rinsights:\r", 1,
	        "<<<<<<< ours\nnode: alpha\nbloom: apply\ninsights:\n=======\nnode: "
	        "alpha\rbloom: evaluate\rinsights:\r\n>>>>>>> theirs\n",
	        "layout");
}

static void test_sources(void **state)
{
	(void)state;
	S_check("_sources.yaml", "- id: s1\n  title: S1\n",
	        "- id: s1\n  title: S1\n- id: s2\n  title: S2\n",
	        "- id: s1\n  title: S1\n- {id: s3, title: S3}\n", 0,
	        "- id: s1\n  title: S1\n- id: s2\n  title: S2\n- {id: s3, title: S3}\n", NULL);
	S_check("_sources.yaml", "- id: s1\n  title: S1\n",
	        "- id: s1\n  title: S1\n- id: s2\n  title: A\n",
	        "- id: s1\n  title: S1\n- id: s2\n  title: B\n", 1,
	        "- id: s1\n  title: S1\n<<<<<<< ours\n- id: s2\n  title: A\n=======\n- id: s2\n"
	        "  title: B\n>>>>>>> theirs\n",
	        "s2 added on both sides with different content");
}

/* _glossary.yaml merges as _sources.yaml does: items by id */
static void test_glossary(void **state)
{
	(void)state;
	S_check("_glossary.yaml", "- id: wal\n  terms: [预写日志, wal]\n",
	        "- id: wal\n  terms: [预写日志, wal]\n- id: page\n  terms: [页, page]\n",
	        "- id: wal\n  terms: [预写日志, wal]\n- id: tree\n  terms: [树, tree]\n", 0,
	        "- id: wal\n  terms: [预写日志, wal]\n- id: page\n  terms: [页, page]\n"
	        "- id: tree\n  terms: [树, tree]\n",
	        NULL);
}

#define DOM "domain: d\ntitle: T\n"
static void test_domain(void **state)
{
	(void)state;
	S_check("_domain.yaml",
	        DOM "categories:\n  - name: a\n    nodes: [x]\ngaps:\n  - text: g1\n",
	        DOM
	        "categories:\n  - name: a\n    nodes: [x, y]\ngaps:\n  - text: g1\n  - text: g2\n",
	        DOM "categories:\n  - name: a\n    nodes: [x, z]\n  - name: b\n    nodes: [w]\n"
	            "gaps:\n  - text: g1\n    flagged_by: x-001\n",
	        0,
	        DOM "categories:\n  - name: a\n    nodes: [x, y, z]\n  - name: b\n    nodes: [w]\n"
	            "gaps:\n  - text: g1\n    flagged_by: x-001\n  - text: g2\n",
	        NULL);
	S_check("_domain.yaml", DOM, "domain: d\ntitle: A\n", "domain: d\ntitle: B\n", 1,
	        "domain: d\n<<<<<<< ours\ntitle: A\n=======\ntitle: B\n>>>>>>> theirs\n", NULL);
}

#define REC(d) "- date: " d "\n  new_entries: 1\n"
static void test_records(void **state)
{
	(void)state;
	S_check("_crystallizations.yaml", REC("2026-01-01"), REC("2026-01-01") REC("2026-02-01"),
	        REC("2026-01-01"), 0, REC("2026-01-01") REC("2026-02-01"), NULL);
	S_check("_crystallizations.yaml", REC("2026-01-01"), REC("2026-01-01") REC("2026-02-01"),
	        REC("2026-01-01") REC("2026-02-03"), 1,
	        REC("2026-01-01") "<<<<<<< ours\n" REC("2026-02-01") "=======\n" REC(
	                "2026-02-03") ">>>>>>> theirs\n",
	        "rerun 'dtk crystallize' on the merged base");
}

static void test_unparsable_is_a_whole_conflict(void **state)
{
	(void)state;
	S_check("alpha.yaml", BASE, "node: [\n", BASE E3, 1,
	        "<<<<<<< ours\nnode: [\n=======\n" BASE E3 ">>>>>>> theirs\n", "does not parse");
}

static void test_flow_entries(void **state)
{
	(void)state;
	S_check("alpha.yaml", "node: alpha\ninsights:\n  - {id: alpha-001, title: t, used: 1}\n",
	        "node: alpha\ninsights:\n  - {id: alpha-001, title: t, used: 2}\n",
	        "node: alpha\ninsights:\n  - {id: alpha-001, title: u, used: 3,\n     closed: "
	        "true}\n",
	        0, "node: alpha\ninsights:\n  - {id: alpha-001, title: u, used: 4, closed: true}\n",
	        NULL);
}

static void test_layout_dtk_cannot_write_is_a_whole_conflict(void **state)
{
	(void)state;
	/* entries in a flow list: dtk does not rewrite it */
	S_check("alpha.yaml", "node: alpha\ninsights: [{id: alpha-001}]\n",
	        "node: alpha\ninsights: [{id: alpha-001}, {id: alpha-002}]\n",
	        "node: alpha\ninsights: [{id: alpha-001}, {id: alpha-003}]\n", 1,
	        "<<<<<<< ours\nnode: alpha\ninsights: [{id: alpha-001}, {id: alpha-002}]\n=======\n"
	        "node: alpha\ninsights: [{id: alpha-001}, {id: alpha-003}]\n>>>>>>> theirs\n",
	        "cannot write this merge");
}

/* a node both sides created (git hands the driver an empty ancestor) */
static void test_file_added_on_both_sides(void **state)
{
	(void)state;
	S_check("alpha.yaml", NULL, HEAD E1, HEAD "  - id: alpha-001\n    title: t\n", 1,
	        HEAD "<<<<<<< ours\n" E1 "=======\n  - id: alpha-001\n    title: t\n>>>>>>> theirs\n",
	        "alpha-001 added on both sides with different content");
	S_check("alpha.yaml", "", "node: alpha\nbloom: apply\ninsights: []\n",
	        "node: alpha\nbloom: create\ninsights: []\n", 1,
	        "node: alpha\n<<<<<<< ours\nbloom: apply\n=======\nbloom: create\n>>>>>>> theirs\n"
	        "insights: []\n",
	        "'bloom' changed two ways");
}

/* a key deleted on one side and changed on the other conflicts; an
 * entry's key theirs deleted goes, in a flow entry too */
static void test_key_deleted(void **state)
{
	(void)state;
	S_check("alpha.yaml", BASE, "node: alpha\nbloom: apply\nstance: ours\ninsights:\n" E1 E2,
	        "node: alpha\nbloom: apply\ninsights:\n" E1 E2, 1,
	        "node: alpha\nbloom: apply\n<<<<<<< ours\nstance: ours\n=======\n>>>>>>> "
	        "theirs\ninsights:\n" E1 E2,
	        NULL);
	S_check("alpha.yaml", "node: alpha\ninsights:\n  - {id: alpha-001, title: t, used: 1}\n",
	        "node: alpha\ninsights:\n  - {id: alpha-001, title: u, used: 1}\n",
	        "node: alpha\ninsights:\n  - {id: alpha-001, title: t}\n", 0,
	        "node: alpha\ninsights:\n  - {id: alpha-001, title: u}\n", NULL);
}

static void test_labels(void **state)
{
	struct dtk_merge_in in = {"_domain.yaml",
	                          DOM,
	                          "domain: d\ntitle: A\n",
	                          "domain: d\ntitle: B\n",
	                          strlen(DOM),
	                          19,
	                          19,
	                          "HEAD",
	                          "topic"};
	struct dtk_merge_out out;
	(void)state;
	assert_int_equal(dtk_merge_file(&out, &in), 1);
	assert_string_equal(
	        out.text, "domain: d\n<<<<<<< HEAD\ntitle: A\n=======\ntitle: B\n>>>>>>> topic\n");
	dtk_merge_out_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_added_on_one_side),
	        cmocka_unit_test(test_added_on_both_sides_ours_first),
	        cmocka_unit_test(test_same_id_conflicts),
	        cmocka_unit_test(test_changed_on_one_side),
	        cmocka_unit_test(test_changed_in_different_keys),
	        cmocka_unit_test(test_counters_add_up),
	        cmocka_unit_test(test_counters_counted_alike_add_up),
	        cmocka_unit_test(test_lists_union_in_order),
	        cmocka_unit_test(test_same_key_two_ways_conflicts_one_entry),
	        cmocka_unit_test(test_node_keys),
	        cmocka_unit_test(test_deleted),
	        cmocka_unit_test(test_reindented_and_line_ends),
	        cmocka_unit_test(test_lone_cr_is_a_whole_conflict),
	        cmocka_unit_test(test_comments_never_dropped),
	        cmocka_unit_test(test_sources), cmocka_unit_test(test_glossary),
	        cmocka_unit_test(test_domain),
	        cmocka_unit_test(test_records),
	        cmocka_unit_test(test_unparsable_is_a_whole_conflict),
	        cmocka_unit_test(test_flow_entries),
	        cmocka_unit_test(test_layout_dtk_cannot_write_is_a_whole_conflict),
	        cmocka_unit_test(test_file_added_on_both_sides),
	        cmocka_unit_test(test_key_deleted),
	        cmocka_unit_test(test_labels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
