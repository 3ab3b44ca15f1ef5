/* test_write_edge.c: the write commands through the binary on the edges of
 * their output: the diff of a dry run, applied by git; the style of the text
 * an edit adds to files written in unusual ways. */
#include "support.h"

#include "dtk/dtk.h"

#include <stdlib.h>
#include <string.h>

/* The dry run of a command that creates a file shows it as git shows a new
 * file, so that 'git apply' takes the diff and makes the same files. */
static void test_dry_run_new_file_applies(void **state)
{
	char *dir = t_base(), *other = t_base(), *a, *b;
	struct t_run r;
	(void)state;
	RUN(r, dir, 0, "add-node", "delta", "--category", "策略", "--dry-run");
	assert_non_null(strstr(r.out, "diff --git a/insights/delta.yaml b/insights/delta.yaml\n"
	                              "new file mode 100644\n"));
	assert_non_null(strstr(r.out, "--- /dev/null\n+++ b/insights/delta.yaml\n"));
	t_write_str(dir, "dry.diff", r.out);
	t_run_free(&r);
	assert_int_equal(t_sh(dir, "git apply dry.diff"), 0);
	RUN(r, other, 0, "add-node", "delta", "--category", "策略");
	t_run_free(&r);
	a = t_read(dir, "insights/delta.yaml", NULL);
	b = t_read(other, "insights/delta.yaml", NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = t_read(dir, "insights/_domain.yaml", NULL);
	b = t_read(other, "insights/_domain.yaml", NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	t_done(dir);
	t_done(other);
}

/* Runs add on gamma.yaml written as text and fails unless the file becomes
 * want, byte for byte, and the base checks. */
static void S_add_to(const char *text, const char *want_id, const char *want)
{
	char *dir = t_base(), *got;
	struct t_run r;
	t_write_str(dir, "insights/gamma.yaml", text);
	/* one-letter claims: alike by any measure, and not what is tested here */
	t_dtk(&r, dir, "DTK_NO_DUPLICATE_CHECK=1", "add", "gamma", "--title", "T", "--claim",
	      "a\nb", "--source", "paper-a", "--confidence", "low", "--created", "2026-05-01",
	      NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, want_id);
	t_run_free(&r);
	got = t_read(dir, "insights/gamma.yaml", NULL);
	assert_string_equal(got, want);
	free(got);
	RUN(r, dir, 0, "check");
	t_run_free(&r);
	t_done(dir);
}

/* "insights: [] # note": the note stays on the key's line, not after the
 * new entry's last value. */
static void test_add_to_empty_list_with_comment(void **state)
{
	(void)state;
	S_add_to("node: gamma\nbloom: remember\ninsights: [] # none yet\nstance: s\n",
	         "gamma-htsx23s\n",
	         "node: gamma\nbloom: remember\ninsights: # none yet\n"
	         "  - id: gamma-htsx23s\n    title: T\n    claim: |-\n      a\n      b\n"
	         "    confidence: low\n    source: paper-a\n    created: 2026-05-01\n"
	         "stance: s\n");
}

/* A node file written as one flow mapping gets the entry in flow style. */
static void test_add_to_flow_mapping_file(void **state)
{
	(void)state;
	S_add_to("{node: gamma, bloom: remember, insights: []}\n", "gamma-htsx23s\n",
	         "{node: gamma, bloom: remember, insights: [{id: gamma-htsx23s, title: T, "
	         "claim: \"a\\nb\", confidence: low, source: paper-a, created: 2026-05-01}]}\n");
}

/* add --from - with more than 16 MiB on standard input is refused whole, not
 * read in part: the part could end inside a value (here the claim, after a
 * long comment) and add a cut claim. */
static void test_from_stdin_too_big(void **state)
{
	char *dir = t_base(), *before = NULL, *after;
	(void)state;
	before = t_read(dir, "insights/gamma.yaml", NULL);
	assert_int_equal(t_sh(dir,
	                      "{ printf 'title: t\\nsource: paper-a\\nconfidence: low\\n#'; "
	                      "head -c %u /dev/zero | tr '\\0' a; printf '\\nclaim: '; "
	                      "head -c 300000 /dev/zero | tr '\\0' b; echo; } | "
	                      "%s add gamma --from - --no-reindex 2>err",
	                      (16u << 20) - 1050, DTK_BIN),
	                 2);
	after = t_read(dir, "insights/gamma.yaml", NULL);
	assert_string_equal(before, after);
	free(after);
	after = t_read(dir, "err", NULL);
	assert_non_null(strstr(after, "larger than the limit"));
	free(after);
	free(before);
	t_done(dir);
}

/* Writes text to file (in.yaml, in.json) in the base dir, runs 'dtk add gamma
 * --from file' and checks it exits 2 with exactly err, gamma.yaml unchanged. */
static void S_from_refused(const char *dir, const char *file, const char *text, const char *err)
{
	char *before = t_read(dir, "insights/gamma.yaml", NULL), *after;
	struct t_run r;

	t_write_str(dir, file, text);
	RUN(r, dir, 2, "add", "gamma", "--from", file);
	assert_string_equal(r.err, err);
	t_run_free(&r);
	after = t_read(dir, "insights/gamma.yaml", NULL);
	assert_string_equal(before, after);
	free(after);
	free(before);
}

/* A date in --from that is not one is an error at its place in the file,
 * not one about the --created flag, which was not given. */
static void test_from_bad_created(void **state)
{
	char *dir = t_base();
	(void)state;
	S_from_refused(
	        dir, "in.yaml",
	        "title: t\nclaim: c\nsource: paper-a\nconfidence: low\ncreated: 2026-02-30\n",
	        "in.yaml:5:10: error: 'created' must be a date YYYY-MM-DD, found "
	        "'2026-02-30'\ndtk: 1 error; nothing was written\n");
	t_done(dir);
}

/* A JSON number or boolean where --from wants a string is an error, as in a
 * node file (jansson keeps no positions of values: 1:1 and the key); an id
 * written as digits is one. */
static void test_from_wrong_types(void **state)
{
	char *dir = t_base();
	(void)state;
	S_from_refused(dir, "in.json",
	               "{\"title\": 42,\n \"claim\": true, \"source\": \"paper-a\",\n"
	               " \"confidence\": 1.5, \"relates\": [\"alpha-001\", false]}\n",
	               "in.json:1:1: error: 'title' must be a string, found an integer (quote it "
	               "to make it a string)\n"
	               "in.json:1:1: error: 'claim' must be a string, found a boolean (quote it "
	               "to make it a string)\n"
	               "in.json:1:1: error: 'confidence' must be a string, found a number (quote "
	               "it to make it a string)\n"
	               "in.json:1:1: error: 'relates' must be a list of ids\n"
	               "dtk: 4 errors; nothing was written\n");
	/* YAML's plain 42 is a number too; a source id of digits is an id */
	S_from_refused(dir, "in.yaml", "title: 42\nclaim: c\nsource: 2026\nconfidence: low\n",
	               "in.yaml:1:8: error: 'title' must be a string, found an integer (quote it "
	               "to make it a string)\n"
	               "dtk: 1 error; nothing was written\n");
	/* every item of a list that is not an id is said */
	S_from_refused(dir, "in.yaml",
	               "title: t\nclaim: c\nsource: paper-a\nconfidence: low\n"
	               "relates: [alpha-001, 1.5, {a: b}]\nverified_by: [true]\n",
	               "in.yaml:5:22: error: 'relates' must be a list of ids\n"
	               "in.yaml:5:27: error: 'relates' must be a list of ids\n"
	               "in.yaml:6:15: error: 'verified_by' must be a list of ids\n"
	               "dtk: 3 errors; nothing was written\n");
	t_done(dir);
}

/* An entry after one written "- {...}" is written so too. */
static void test_add_after_flow_entry(void **state)
{
	(void)state;
	S_add_to("node: gamma\nbloom: remember\ninsights:\n"
	         "  - {id: gamma-001, title: a, claim: b, confidence: low, source: paper-a, "
	         "created: 2026-01-01} # one\n",
	         "gamma-htsx23s\n",
	         "node: gamma\nbloom: remember\ninsights:\n"
	         "  - {id: gamma-001, title: a, claim: b, confidence: low, source: paper-a, "
	         "created: 2026-01-01} # one\n"
	         "  - {id: gamma-htsx23s, title: T, claim: \"a\\nb\", confidence: low, source: "
	         "paper-a, "
	         "created: 2026-05-01}\n");
}

/* A node whose name is as long as a file name allows, less ".yaml": its
 * file is written (the temporary file's name is cut to fit); a longer one
 * is refused for what it is, not as a file that exists. */
static void test_long_node_name(void **state)
{
	char *dir = t_base(), name[260];
	struct t_run r;
	(void)state;
	memset(name, 'n', 250);
	name[250] = '\0';
	RUN(r, dir, 0, "add-node", name, "--category", "策略", "-q");
	t_run_free(&r);
	RUN(r, dir, 0, "stance", name, "a stance", "-q");
	t_run_free(&r);
	RUN(r, dir, 0, "check", "-q");
	t_run_free(&r);
	RUN(r, dir, 0, "show", name);
	assert_non_null(strstr(r.out, "a stance"));
	t_run_free(&r);
	memset(name, 'm', 252);
	name[252] = '\0';
	RUN(r, dir, 2, "add-node", name, "--category", "策略");
	assert_non_null(strstr(r.err, ".yaml: File name too long\n"));
	t_run_free(&r);
	t_done(dir);
}

/* An argument's newline or control byte is escaped in the message that
 * quotes it: it cannot forge a line of output. */
static void test_messages_escape_arguments(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	RUN(r, dir, 2, "use", "alpha-001\ndtk: forged\x1b[2J");
	assert_string_equal(r.err, "dtk use: error: <entry-id> 'alpha-001\\ndtk: forged\\x1b[2J' "
	                           "is not an entry id (<node>-<suffix>)\nsee 'dtk use --help'\n");
	t_run_free(&r);
	/* a refusal too: one line */
	RUN(r, dir, 2, "edit", "alpha-001", "--source", "bad\ndtk edit: forged");
	assert_string_equal(r.err, "dtk edit: error: unknown source 'bad\\ndtk edit: forged' (not "
	                           "in insights/_sources.yaml; add it with 'dtk add-source')\n");
	t_run_free(&r);
	t_done(dir);
}

/* A node file whose 'insights' is not a list: add says where, and writes
 * nothing. */
static void test_add_to_insights_not_a_list(void **state)
{
	static const char text[] = "node: gamma\nbloom: remember\ninsights:\n";
	char *dir = t_base(), *after;
	struct t_run r;
	(void)state;
	t_write_str(dir, "insights/gamma.yaml", text);
	RUN(r, dir, 2, "add", "gamma", "--title", "T", "--claim", "C", "--source", "paper-a",
	    "--confidence", "low");
	/* as 'dtk check' prints an error of the data, from the working directory */
	assert_string_equal(r.err, "insights/gamma.yaml:3:10: error: 'insights' is an "
	                           "empty value, not a list\n"
	                           "dtk: 1 error; nothing was written\n");
	t_run_free(&r);
	after = t_read(dir, "insights/gamma.yaml", NULL);
	assert_string_equal(after, text);
	free(after);
	t_done(dir);
}

/* A claim kept with '+' owns its trailing blank lines: the new entry goes
 * after them, and the claim reads back as it was. */
static void test_add_after_kept_block_scalar(void **state)
{
	(void)state;
	S_add_to("node: gamma\nbloom: remember\ninsights:\n  - id: gamma-001\n    title: a\n"
	         "    confidence: low\n    source: paper-a\n    created: 2026-01-01\n"
	         "    claim: |+\n      keep\n\n\n# c\n",
	         "gamma-htsx23s\n",
	         "node: gamma\nbloom: remember\ninsights:\n  - id: gamma-001\n    title: a\n"
	         "    confidence: low\n    source: paper-a\n    created: 2026-01-01\n"
	         "    claim: |+\n      keep\n\n\n"
	         "  - id: gamma-htsx23s\n    title: T\n    claim: |-\n      a\n      b\n"
	         "    confidence: low\n    source: paper-a\n    created: 2026-05-01\n# c\n");
}

/* use and cite add only to a count: a value that is not one (0x10 read as
 * 0, a quoted "3", a number whose sum would wrap) is refused, the file
 * left as it is, not overwritten with a count made up. */
static void test_counter_on_a_value_not_a_count(void **state)
{
	static const char *const values[] = {"0x10", "\"3\"", "9223372036854775807", "999999999",
	                                     "[1]"};
	char *dir = t_base(), *before, *text, *after, *at;
	struct t_run r;
	size_t i;
	(void)state;
	before = t_read(dir, "insights/alpha.yaml", NULL);
	at = strstr(before, "    used: 1\n");
	assert_non_null(at);
	for (i = 0; i < sizeof(values) / sizeof(*values); i++) {
		struct dtk_buf b = DTK_BUF_INIT;
		dtk_buf_put(&b, before, (size_t)(at - before));
		dtk_buf_printf(&b, "    used: %s\n", values[i]);
		dtk_buf_puts(&b, at + strlen("    used: 1\n"));
		text = dtk_buf_detach(&b);
		t_write_str(dir, "insights/alpha.yaml", text);
		RUN(r, dir, 2, "use", "alpha-002");
		assert_non_null(strstr(r.err, "insights/alpha.yaml:25:11: error: 'used' is "));
		assert_non_null(strstr(r.err, "not a count"));
		t_run_free(&r);
		after = t_read(dir, "insights/alpha.yaml", NULL);
		assert_string_equal(after, text);
		free(after);
		free(text);
	}
	free(before);
	t_done(dir);
}

/* A value written with a tag (!!str, !!int) is replaced whole, tag and
 * text: not its first bytes, which left the rest of the old text behind; a
 * count so written is read (a use leaves it, as every count). */
static void test_tagged_values_replaced_whole(void **state)
{
	char *dir = t_base(), *got;
	struct t_run r;
	(void)state;
	t_write_str(dir, "insights/gamma.yaml",
	            "node: gamma\nbloom: remember\nstance: !!str old value # c\ninsights:\n"
	            "  - id: gamma-001\n    title: a\n    claim: b\n    confidence: low\n"
	            "    source: paper-a\n    created: 2026-01-01\n    used: !!int 5\n");
	RUN(r, dir, 0, "reindex", "-q");
	t_run_free(&r);
	RUN(r, dir, 0, "stance", "gamma", "new");
	t_run_free(&r);
	RUN(r, dir, 0, "use", "gamma-001");
	assert_string_equal(r.out, "gamma-001: used 6\n");
	t_run_free(&r);
	got = t_read(dir, "insights/gamma.yaml", NULL);
	assert_string_equal(got, "node: gamma\nbloom: remember\nstance: new # c\ninsights:\n"
	                         "  - id: gamma-001\n    title: a\n    claim: b\n"
	                         "    confidence: low\n    source: paper-a\n"
	                         "    created: 2026-01-01\n    used: !!int 5\n");
	free(got);
	t_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_dry_run_new_file_applies),
	        cmocka_unit_test(test_add_to_empty_list_with_comment),
	        cmocka_unit_test(test_add_to_flow_mapping_file),
	        cmocka_unit_test(test_add_after_flow_entry),
	        cmocka_unit_test(test_add_after_kept_block_scalar),
	        cmocka_unit_test(test_add_to_insights_not_a_list),
	        cmocka_unit_test(test_messages_escape_arguments),
	        cmocka_unit_test(test_long_node_name),
	        cmocka_unit_test(test_counter_on_a_value_not_a_count),
	        cmocka_unit_test(test_tagged_values_replaced_whole),
	        cmocka_unit_test(test_from_stdin_too_big),
	        cmocka_unit_test(test_from_bad_created),
	        cmocka_unit_test(test_from_wrong_types),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
