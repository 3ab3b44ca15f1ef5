/* test_yedit.c: edits of a YAML file's text keep every byte they do not
 * mean to change, and new text follows the file's own style. Every
 * expectation is the whole file, byte for byte. */
#include "support.h"

#include "dtk/model.h"
#include "dtk/yedit.h"

#include <stdlib.h>
#include <string.h>

static struct dtk_ydoc S_doc;

static void S_open(const char *text)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	assert_int_equal(dtk_ydoc_parse(&S_doc, "t.yaml", text, strlen(text), &diags), 0);
	assert_int_equal(diags.n, 0);
	assert_non_null(S_doc.root);
}

/* Applies the edits made and compares the result with want, then reparses
 * the result (it must still be YAML). */
static void S_expect(const char *want)
{
	struct dtk_diags diags = DTK_DIAGS_INIT;
	struct dtk_ydoc again;
	size_t len;
	char *out = dtk_ydoc_apply(&S_doc, &len);
	assert_non_null(out);
	if (strcmp(out, want))
		print_error("got:\n%s\nwant:\n%s\n", out, want);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	assert_int_equal(dtk_ydoc_parse(&again, "t.yaml", out, len, &diags), 0);
	dtk_ydoc_release(&again);
	dtk_diags_release(&diags);
	free(out);
	dtk_ydoc_release(&S_doc);
}

/* Returns entry i of the node file's insights. */
static const struct dtk_yval *S_entry(size_t i)
{
	const struct dtk_yval *l = dtk_yval_get(S_doc.root, "insights");
	assert_non_null(l);
	assert_true(i < l->n);
	return l->items[i];
}

static struct dtk_yscalar S_raw(const char *s)
{
	return (struct dtk_yscalar){s, 1};
}

static struct dtk_yscalar S_str(const char *s)
{
	return (struct dtk_yscalar){s, 0};
}

static const char S_node[] = "node: a\n"
                             "bloom: apply # level\n"
                             "insights:\n"
                             "  - id: a-001\n"
                             "    title: One\n"
                             "    # the claim\n"
                             "    claim: >-\n"
                             "      Folded\n"
                             "      text.\n"
                             "\n"
                             "    confidence: low\n"
                             "    source: s\n"
                             "    verified_by: [t]\n"
                             "    created: 2026-01-01\n"
                             "    used: 3 # counted\n"
                             "\n"
                             "  # second\n"
                             "  - id: a-002\n"
                             "    title: 'Two'\n"
                             "    claim: \"Two.\"\n"
                             "    confidence: medium\n"
                             "    source: s\n"
                             "    created: 2026-01-02\n";

static void test_set_count_keeps_comment(void **state)
{
	(void)state;
	S_open(S_node);
	assert_int_equal(
	        dtk_yedit_set_key(&S_doc, S_entry(0), "used", S_raw("4"), dtk_entry_keys), 0);
	S_expect("node: a\n"
	         "bloom: apply # level\n"
	         "insights:\n"
	         "  - id: a-001\n"
	         "    title: One\n"
	         "    # the claim\n"
	         "    claim: >-\n"
	         "      Folded\n"
	         "      text.\n"
	         "\n"
	         "    confidence: low\n"
	         "    source: s\n"
	         "    verified_by: [t]\n"
	         "    created: 2026-01-01\n"
	         "    used: 4 # counted\n"
	         "\n"
	         "  # second\n"
	         "  - id: a-002\n"
	         "    title: 'Two'\n"
	         "    claim: \"Two.\"\n"
	         "    confidence: medium\n"
	         "    source: s\n"
	         "    created: 2026-01-02\n");
}

/* The comment that ends a value's line stays the comment of that line when
 * the value changes form: a block scalar's header comment after a value of
 * one line, a value's comment in the header of a block scalar, a block's in
 * the new block's header; CRLF kept. */
static void test_set_keeps_line_comment(void **state)
{
	(void)state;
	S_open("a: |  # p.3\n  one\n  two\nb: x  # from y\nc: >-  # keep\n  folded\n");
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_doc.root, "a", S_str("short"), NULL), 0);
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_doc.root, "b", S_str("l1\nl2"), NULL), 0);
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_doc.root, "c", S_str("m1\nm2"), NULL), 0);
	S_expect("a: short  # p.3\nb: |-  # from y\n  l1\n  l2\nc: |-  # keep\n  m1\n  m2\n");
	S_open("a: x # c\r\nb: 1\r\n");
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_doc.root, "a", S_str("l1\nl2"), NULL), 0);
	S_expect("a: |- # c\r\n  l1\r\n  l2\r\nb: 1\r\n");
}

/* A list of maps added to an entry (contradicts) goes before the keys the
 * schema puts after it (superseded_by), in block and in flow entries. */
static void test_add_map_list_in_schema_order(void **state)
{
	static const struct dtk_yfield f[] = {{"id", {"b-1", 0}, NULL, 0},
	                                      {"status", {"open", 0}, NULL, 0}};
	(void)state;
	S_open("- id: a-1\n  used: 1\n  superseded_by: a-2\n  superseded: 2026-01-01\n"
	       "- {id: a-2, superseded_by: a-3}\n");
	assert_int_equal(
	        dtk_yedit_append_map(&S_doc, S_doc.root->items[0], "contradicts", NULL, f, 2), 0);
	assert_int_equal(
	        dtk_yedit_append_map(&S_doc, S_doc.root->items[1], "contradicts", NULL, f, 2), 0);
	/* a list of maps in a block entry is block lines (the merge driver
	 * merges its items one by one), in a flow entry flow */
	S_expect("- id: a-1\n  used: 1\n  contradicts:\n    - id: b-1\n      status: open\n"
	         "  superseded_by: a-2\n  superseded: 2026-01-01\n"
	         "- {id: a-2, contradicts: [{id: b-1, status: open}], superseded_by: a-3}\n");
}

/* An entry whose first key is explicit ("- ? id"): a key added goes at the
 * mapping's column, where "?" is, not at the first key's text. */
static void test_add_key_after_explicit_key(void **state)
{
	(void)state;
	S_open("- ? id\n  : a-001\n  title: t\n  created: 2026-01-01\n");
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_doc.root->items[0], "used", S_raw("1"),
	                                   dtk_entry_keys),
	                 0);
	S_expect("- ? id\n  : a-001\n  title: t\n  created: 2026-01-01\n  used: 1\n");
}

/* A list of maps added to a key with no value ("contradicts:", which reads
 * as absent): block lines below it (a comment after the key kept), flow in
 * a flow entry. */
static void test_append_map_to_empty_key(void **state)
{
	static const struct dtk_yfield f[] = {{"id", {"b-1", 0}, NULL, 0},
	                                      {"status", {"open", 0}, NULL, 0}};
	const struct dtk_yval *e;
	(void)state;
	S_open("- id: a-1\n  contradicts: # none\n  used: 1\n");
	e = S_doc.root->items[0];
	assert_int_equal(dtk_yedit_append_map(&S_doc, e, "contradicts",
	                                      dtk_yval_get(e, "contradicts"), f, 2),
	                 0);
	S_expect(
	        "- id: a-1\n  contradicts: # none\n    - id: b-1\n      status: open\n  used: 1\n");
	S_open("- id: a-1\n  relates:\n    - a-2\n  contradicts:\n  used: 1\n");
	e = S_doc.root->items[0];
	assert_int_equal(dtk_yedit_append_map(&S_doc, e, "contradicts",
	                                      dtk_yval_get(e, "contradicts"), f, 2),
	                 0);
	S_expect("- id: a-1\n  relates:\n    - a-2\n  contradicts:\n    - id: b-1\n"
	         "      status: open\n  used: 1\n");
	S_open("- {id: a-1, contradicts: , used: 1}\n");
	e = S_doc.root->items[0];
	assert_int_equal(dtk_yedit_append_map(&S_doc, e, "contradicts",
	                                      dtk_yval_get(e, "contradicts"), f, 2),
	                 0);
	S_expect("- {id: a-1, contradicts: [{id: b-1, status: open}] , used: 1}\n");
}

/* A null written as "~" or "null" reads as absent: a list takes its place. */
static void test_append_to_null(void **state)
{
	static const struct dtk_yfield f[] = {{"id", {"b-1", 0}, NULL, 0},
	                                      {"status", {"open", 0}, NULL, 0}};
	const struct dtk_yval *e;
	(void)state;
	S_open("- id: a-1\n  relates: ~ # none\n  contradicts: null\n  used: 1\n");
	e = S_doc.root->items[0];
	assert_int_equal(dtk_yedit_append(&S_doc, e, "relates", S_str("a-2"), dtk_entry_keys),
	                 0);
	assert_int_equal(dtk_yedit_append_map(&S_doc, e, "contradicts",
	                                      dtk_yval_get(e, "contradicts"), f, 2),
	                 0);
	S_expect("- id: a-1\n  relates: [a-2] # none\n  contradicts: [{id: b-1, status: open}]\n"
	         "  used: 1\n");
}

static void test_add_key_in_schema_order(void **state)
{
	(void)state;
	S_open(S_node);
	/* reviewed goes after created; used (absent) in the second entry goes
	 * after created too, cited after it */
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_entry(0), "reviewed", S_raw("2026-02-01"),
	                                   dtk_entry_keys),
	                 0);
	assert_int_equal(
	        dtk_yedit_set_key(&S_doc, S_entry(1), "cited", S_raw("1"), dtk_entry_keys),
	        0);
	assert_int_equal(dtk_yedit_append(&S_doc, S_entry(1), "verified_by", S_str("t"),
	                                  dtk_entry_keys),
	                 0);
	assert_int_equal(dtk_yedit_append(&S_doc, S_entry(0), "verified_by", S_str("u"),
	                                  dtk_entry_keys),
	                 0);
	S_expect("node: a\n"
	         "bloom: apply # level\n"
	         "insights:\n"
	         "  - id: a-001\n"
	         "    title: One\n"
	         "    # the claim\n"
	         "    claim: >-\n"
	         "      Folded\n"
	         "      text.\n"
	         "\n"
	         "    confidence: low\n"
	         "    source: s\n"
	         "    verified_by: [t, u]\n"
	         "    created: 2026-01-01\n"
	         "    reviewed: 2026-02-01\n"
	         "    used: 3 # counted\n"
	         "\n"
	         "  # second\n"
	         "  - id: a-002\n"
	         "    title: 'Two'\n"
	         "    claim: \"Two.\"\n"
	         "    confidence: medium\n"
	         "    source: s\n"
	         "    verified_by: [t]\n"
	         "    created: 2026-01-02\n"
	         "    cited: 1\n");
}

static void test_set_string_is_quoted_by_emitter(void **state)
{
	(void)state;
	S_open(S_node);
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_entry(1), "title", S_str("yes: no"),
	                                   dtk_entry_keys),
	                 0);
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_doc.root, "stance", S_str("中文 立场"),
	                                   dtk_node_keys),
	                 0);
	S_expect("node: a\n"
	         "bloom: apply # level\n"
	         "stance: 中文 立场\n"
	         "insights:\n"
	         "  - id: a-001\n"
	         "    title: One\n"
	         "    # the claim\n"
	         "    claim: >-\n"
	         "      Folded\n"
	         "      text.\n"
	         "\n"
	         "    confidence: low\n"
	         "    source: s\n"
	         "    verified_by: [t]\n"
	         "    created: 2026-01-01\n"
	         "    used: 3 # counted\n"
	         "\n"
	         "  # second\n"
	         "  - id: a-002\n"
	         "    title: 'yes: no'\n"
	         "    claim: \"Two.\"\n"
	         "    confidence: medium\n"
	         "    source: s\n"
	         "    created: 2026-01-02\n");
}

static const struct dtk_yfield S_fields[] = {
        {"id", {"a-003", 1}, NULL, 0},
        {"title", {"Three", 0}, NULL, 0},
        {"claim", {"Line one\nline two", 0}, NULL, 0},
        {"confidence", {"low", 1}, NULL, 0},
        {"verified_by", {NULL, 0}, (const struct dtk_yscalar[]){{"t", 0}, {"u", 0}}, 2},
        {"created", {"2026-03-01", 1}, NULL, 0},
};

static void test_append_entry_block(void **state)
{
	const struct dtk_yval *l;
	(void)state;
	S_open(S_node);
	l = dtk_yval_get(S_doc.root, "insights");
	assert_int_equal(dtk_yedit_append_map(&S_doc, S_doc.root, "insights", l, S_fields, 6), 0);
	S_expect("node: a\n"
	         "bloom: apply # level\n"
	         "insights:\n"
	         "  - id: a-001\n"
	         "    title: One\n"
	         "    # the claim\n"
	         "    claim: >-\n"
	         "      Folded\n"
	         "      text.\n"
	         "\n"
	         "    confidence: low\n"
	         "    source: s\n"
	         "    verified_by: [t]\n"
	         "    created: 2026-01-01\n"
	         "    used: 3 # counted\n"
	         "\n"
	         "  # second\n"
	         "  - id: a-002\n"
	         "    title: 'Two'\n"
	         "    claim: \"Two.\"\n"
	         "    confidence: medium\n"
	         "    source: s\n"
	         "    created: 2026-01-02\n"
	         "  - id: a-003\n"
	         "    title: Three\n"
	         "    claim: |-\n"
	         "      Line one\n"
	         "      line two\n"
	         "    confidence: low\n"
	         "    verified_by: [t, u]\n"
	         "    created: 2026-03-01\n");
}

/* CRLF, a byte order mark, odd indentation, block lists, no final newline. */
static const char S_crlf[] = "\xEF\xBB\xBFnode: b\r\n"
                             "bloom: apply\r\n"
                             "insights:\r\n"
                             "-   id: b-001\r\n"
                             "    title: One\r\n"
                             "    verified_by:\r\n"
                             "       - t   # first\r\n"
                             "    relates:\r\n"
                             "       - b-002\r\n"
                             "    used: 1";

static void test_crlf_bom_block_lists(void **state)
{
	const struct dtk_yval *l;
	(void)state;
	S_open(S_crlf);
	assert_int_equal(S_doc.flow_lists, 0);
	assert_int_equal(S_doc.list_indent, 3);
	assert_int_equal(dtk_yedit_append(&S_doc, S_entry(0), "verified_by", S_str("u"),
	                                  dtk_entry_keys),
	                 0);
	assert_int_equal(
	        dtk_yedit_set_key(&S_doc, S_entry(0), "cited", S_raw("1"), dtk_entry_keys),
	        0);
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_doc.root, "bloom", S_raw("analyze"),
	                                   dtk_node_keys),
	                 0);
	l = dtk_yval_get(S_doc.root, "insights");
	assert_int_equal(dtk_yedit_append_map(&S_doc, S_doc.root, "insights", l, S_fields, 6), 0);
	S_expect("\xEF\xBB\xBFnode: b\r\n"
	         "bloom: analyze\r\n"
	         "insights:\r\n"
	         "-   id: b-001\r\n"
	         "    title: One\r\n"
	         "    verified_by:\r\n"
	         "       - t   # first\r\n"
	         "       - u\r\n"
	         "    relates:\r\n"
	         "       - b-002\r\n"
	         "    used: 1\r\n"
	         "    cited: 1\r\n"
	         "-   id: a-003\r\n"
	         "    title: Three\r\n"
	         "    claim: |-\r\n"
	         "      Line one\r\n"
	         "      line two\r\n"
	         "    confidence: low\r\n"
	         "    verified_by:\r\n"
	         "       - t\r\n"
	         "       - u\r\n"
	         "    created: 2026-03-01");
}

static void test_empty_insights_and_flow(void **state)
{
	const struct dtk_yval *l;
	(void)state;
	S_open("node: c\nbloom: remember\ninsights: []\n");
	l = dtk_yval_get(S_doc.root, "insights");
	assert_int_equal(dtk_yedit_append_map(&S_doc, S_doc.root, "insights", l, S_fields, 2), 0);
	S_expect("node: c\nbloom: remember\ninsights:\n  - id: a-003\n    title: Three\n");

	S_open("node: c\nbloom: remember\ninsights: [{id: c-001, used: 1}]\n");
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_entry(0), "used", S_raw("2"), NULL), 0);
	assert_int_equal(
	        dtk_yedit_set_key(&S_doc, S_entry(0), "cited", S_raw("1"), dtk_entry_keys),
	        0);
	assert_int_equal(dtk_yedit_append(&S_doc, S_entry(0), "relates", S_str("x-001"),
	                                  dtk_entry_keys),
	                 0);
	l = dtk_yval_get(S_doc.root, "insights");
	assert_int_equal(dtk_yedit_append_map(&S_doc, S_doc.root, "insights", l, S_fields, 3), 0);
	S_expect("node: c\nbloom: remember\ninsights: [{id: c-001, used: 2, cited: 1, relates: "
	         "[x-001]}, {id: a-003, title: Three, claim: \"Line one\\nline two\"}]\n");
}

static void test_empty_values_and_root_list(void **state)
{
	static const struct dtk_yfield src[] = {{"id", {"new", 0}, NULL, 0},
	                                        {"title", {"New: one", 0}, NULL, 0}};
	(void)state;
	S_open("node: d\nbloom: apply\nstance:\ninsights:\n  - id: d-001\n    relates:\n");
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_doc.root, "stance", S_str("S"), NULL), 0);
	assert_int_equal(dtk_yedit_append(&S_doc, S_entry(0), "relates", S_str("d-002"), NULL), 0);
	S_expect("node: d\nbloom: apply\nstance: S\ninsights:\n  - id: d-001\n    relates: "
	         "[d-002]\n");

	S_open("[]\n");
	assert_int_equal(dtk_yedit_append_map(&S_doc, NULL, NULL, S_doc.root, src, 2), 0);
	S_expect("- id: new\n  title: 'New: one'\n");

	S_open("# sources\n- id: a\n  title: A\n\n# end\n");
	assert_int_equal(dtk_yedit_append_map(&S_doc, NULL, NULL, S_doc.root, src, 2), 0);
	S_expect("# sources\n- id: a\n  title: A\n- id: new\n  title: 'New: one'\n\n# end\n");
}

static void test_spans(void **state)
{
	const struct dtk_yval *l;
	size_t s, e;
	(void)state;
	S_open(S_node);
	l = dtk_yval_get(S_doc.root, "insights");
	assert_int_equal(dtk_yedit_item_span(&S_doc, l, 0, &s, &e), 0);
	assert_int_equal(s, strstr(S_node, "  - id: a-001") - S_node);
	assert_int_equal(e, strstr(S_node, "\n  # second") - S_node);
	assert_int_equal(dtk_yedit_item_span(&S_doc, l, 1, &s, &e), 0);
	assert_int_equal(s, strstr(S_node, "  - id: a-002") - S_node);
	assert_int_equal(e, strlen(S_node));
	assert_int_equal(dtk_yedit_pair_span(&S_doc, S_entry(0), 2, &s, &e), 0);
	assert_int_equal(s, strstr(S_node, "    claim:") - S_node);
	assert_int_equal(e, strstr(S_node, "\n    confidence: low") - S_node);
	assert_int_equal(dtk_yedit_pair_span(&S_doc, S_entry(0), 0, &s, &e), 0);
	assert_int_equal(s, strstr(S_node, "id: a-001") - S_node);
	assert_int_equal(dtk_yedit_find(S_entry(0), "used"), 7);
	assert_int_equal(dtk_yedit_find(S_entry(0), "cited"), -1);
	dtk_ydoc_release(&S_doc);
}

/* libyaml counts characters; spans are bytes: CJK before an edit. */
static void test_cjk_before_edit(void **state)
{
	(void)state;
	S_open("node: 中文\nbloom: apply\nstance: 按延迟分层\ninsights:\n  - id: x-001\n"
	       "    title: 留在低延迟域 “引号”\n    used: 2\n");
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_entry(0), "used", S_raw("3"), NULL), 0);
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_doc.root, "stance", S_str("新立场"), NULL), 0);
	S_expect("node: 中文\nbloom: apply\nstance: 新立场\ninsights:\n  - id: x-001\n"
	         "    title: 留在低延迟域 “引号”\n    used: 3\n");
}

static void test_set_list_value_refused(void **state)
{
	(void)state;
	S_open(S_node);
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_entry(0), "verified_by", S_str("x"), NULL),
	                 -1);
	assert_int_equal(dtk_yedit_append(&S_doc, S_entry(0), "title", S_str("x"), NULL), -1);
	dtk_ydoc_release(&S_doc);
}

/* A position in the edited text maps back to the file as parsed: before an
 * edit unchanged, after it shifted by the lines and columns it added, inside
 * text it adds to where it goes in. */
static void test_map_back(void **state)
{
	size_t len;
	char *out;
	int line, col;
	(void)state;
	S_open("a: {x: 1, y: 2}\r\nb: \xe4\xb8\x80\xe4\xba\x8c end\r\nc: 3\r\n");
	/* one edit inside line 1 (widens it by 2), one adds two lines after line 1 */
	assert_int_equal(
	        dtk_yedit_set_key(&S_doc, dtk_yval_get(S_doc.root, "a"), "x", S_raw("100"), NULL),
	        0);
	assert_int_equal(dtk_yedit_set_key(&S_doc, S_doc.root, "z", S_str("q\nr"), NULL), 0);
	out = dtk_ydoc_apply(&S_doc, &len);
	assert_non_null(out);
	line = 1, col = 4; /* before the edit */
	assert_int_equal(dtk_ydoc_map_back(&S_doc, out, len, &line, &col), 0);
	assert_int_equal(line, 1), assert_int_equal(col, 4);
	line = 1, col = 8; /* inside "100": where "1" was */
	assert_int_equal(dtk_ydoc_map_back(&S_doc, out, len, &line, &col), 1);
	assert_int_equal(line, 1), assert_int_equal(col, 8);
	line = 1, col = 14; /* the ':' after y, 2 columns further right than it was */
	assert_int_equal(dtk_ydoc_map_back(&S_doc, out, len, &line, &col), 0);
	assert_int_equal(line, 1), assert_int_equal(col, 12);
	line = 2, col = 7; /* "end" after two wide characters (3 bytes each): not shifted */
	assert_int_equal(dtk_ydoc_map_back(&S_doc, out, len, &line, &col), 0);
	assert_int_equal(line, 2), assert_int_equal(col, 7);
	line = 4, col = 3; /* in the added key's text */
	assert_int_equal(dtk_ydoc_map_back(&S_doc, out, len, &line, &col), 1);
	assert_int_equal(line, 4), assert_int_equal(col, 1);
	free(out);
	dtk_ydoc_release(&S_doc);
}

/* Removing list items: flow lists keep their commas right, a block list
 * loses the item's lines (its comment too), the only item leaves "[]", the
 * rest of the file stays, CRLF included. */
static void test_remove_item(void **state)
{
	static const char text[] = "- id: a-001 # keep\r\n"
	                           "  relates: [a-002, \"a-003\", a-004]\r\n"
	                           "  verified_by:\r\n"
	                           "    - s1 # first\r\n"
	                           "    - s2\r\n"
	                           "    - s3\r\n"
	                           "  cited: 1\r\n"
	                           "- id: a-002\r\n"
	                           "  relates: [a-001]\r\n"
	                           "  verified_by:\r\n"
	                           "    - s1\r\n"
	                           "  used: 2\r\n";
	const struct dtk_yval *e0, *e1;
	(void)state;

	S_open(text);
	e0 = S_doc.root->items[0];
	e1 = S_doc.root->items[1];
	assert_int_equal(dtk_yedit_remove_item(&S_doc, e0, "relates", 1), 0);
	assert_int_equal(dtk_yedit_remove_item(&S_doc, e0, "verified_by", 0), 0);
	assert_int_equal(dtk_yedit_remove_item(&S_doc, e1, "relates", 0), 0);
	assert_int_equal(dtk_yedit_remove_item(&S_doc, e1, "verified_by", 0), 0);
	S_expect("- id: a-001 # keep\r\n"
	         "  relates: [a-002, a-004]\r\n"
	         "  verified_by:\r\n"
	         "    - s2\r\n"
	         "    - s3\r\n"
	         "  cited: 1\r\n"
	         "- id: a-002\r\n"
	         "  relates: []\r\n"
	         "  verified_by: []\r\n"
	         "  used: 2\r\n");

	S_open(text);
	e0 = S_doc.root->items[0];
	assert_int_equal(dtk_yedit_remove_item(&S_doc, e0, "relates", 0), 0);
	assert_int_equal(dtk_yedit_remove_item(&S_doc, e0, "verified_by", 2), 0);
	assert_int_equal(dtk_yedit_remove_item(&S_doc, e0, "cited", 0), -1); /* not a list */
	assert_int_equal(dtk_yedit_remove_item(&S_doc, e0, "relates", 3), -1);
	S_expect("- id: a-001 # keep\r\n"
	         "  relates: [\"a-003\", a-004]\r\n"
	         "  verified_by:\r\n"
	         "    - s1 # first\r\n"
	         "    - s2\r\n"
	         "  cited: 1\r\n"
	         "- id: a-002\r\n"
	         "  relates: [a-001]\r\n"
	         "  verified_by:\r\n"
	         "    - s1\r\n"
	         "  used: 2\r\n");

	S_open("- {id: a-001, relates: [a-002, a-003]}\n");
	assert_int_equal(dtk_yedit_remove_item(&S_doc, S_doc.root->items[0], "relates", 1), 0);
	S_expect("- {id: a-001, relates: [a-002]}\n");

	/* the only item of a block list: the key's comment and the comment
	 * lines before the item stay; the item's own comment goes with it */
	S_open("- id: a-001\n"
	       "  relates:   # why\n"
	       "    # a note\n"
	       "    - a-002   # same paper\n"
	       "  used: 1\n");
	assert_int_equal(dtk_yedit_remove_item(&S_doc, S_doc.root->items[0], "relates", 0), 0);
	S_expect("- id: a-001\n"
	         "  relates: []   # why\n"
	         "    # a note\n"
	         "  used: 1\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_set_count_keeps_comment),
	        cmocka_unit_test(test_set_keeps_line_comment),
	        cmocka_unit_test(test_add_map_list_in_schema_order),
	        cmocka_unit_test(test_add_key_after_explicit_key),
	        cmocka_unit_test(test_append_map_to_empty_key),
	        cmocka_unit_test(test_append_to_null),
	        cmocka_unit_test(test_add_key_in_schema_order),
	        cmocka_unit_test(test_set_string_is_quoted_by_emitter),
	        cmocka_unit_test(test_append_entry_block),
	        cmocka_unit_test(test_crlf_bom_block_lists),
	        cmocka_unit_test(test_empty_insights_and_flow),
	        cmocka_unit_test(test_empty_values_and_root_list),
	        cmocka_unit_test(test_spans),
	        cmocka_unit_test(test_set_list_value_refused),
	        cmocka_unit_test(test_cjk_before_edit),
	        cmocka_unit_test(test_map_back),
	        cmocka_unit_test(test_remove_item),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
