/* test_textrules.c: what is shown cannot mislead, through the binary:
 * invisible characters (bidirectional controls, U+200B, U+FEFF, ...) in any
 * text field are escaped by show, search and list, marked in INDEX.md and
 * the site, and warned of by check (file, line, column, code point; exit
 * status 0); U+2028 and U+2029 leave every JSON output escaped; titles and
 * prose have a limit the write commands refuse to pass, writing nothing. */
#include "support.h"

#include "dtk/dtk.h"

#include <stdlib.h>
#include <string.h>

#define RLO "\xE2\x80\xAE"  /* U+202E RIGHT-TO-LEFT OVERRIDE */
#define LRI "\xE2\x81\xA6"  /* U+2066 LEFT-TO-RIGHT ISOLATE */
#define ALM "\xD8\x9C"      /* U+061C ARABIC LETTER MARK */
#define ZWSP "\xE2\x80\x8B" /* U+200B ZERO WIDTH SPACE */
#define BOM "\xEF\xBB\xBF"  /* U+FEFF */
#define ZWJ "\xE2\x80\x8D"  /* U+200D: not counted (emoji, scripts) */
#define LS "\xE2\x80\xA8"   /* U+2028 LINE SEPARATOR */
#define PS "\xE2\x80\xA9"   /* U+2029 PARAGRAPH SEPARATOR */

/* Fails unless s holds sub. */
static void S_has(const char *s, const char *sub, const char *what)
{
	if (!strstr(s, sub))
		print_error("%s: no '%s' in:\n%s\n", what, sub, s);
	assert_non_null(strstr(s, sub));
}

/* Fails if s holds sub. */
static void S_lacks(const char *s, const char *sub, const char *what)
{
	if (strstr(s, sub))
		print_error("%s: '%s' in:\n%s\n", what, sub, s);
	assert_null(strstr(s, sub));
}

/* A base with invisible characters in a title, a claim, a stance, a
 * source's title and a note (written by the write commands). */
static char S_id[64]; /* the id the hostile entry was given */

static char *S_hostile_base(void)
{
	char *dir = t_base();
	struct t_run r;
	RUN(r, dir, 0, "add", "beta", "--title", "evil " RLO "cba", "--claim",
	    "zero" ZWSP "width " BOM "end " ALM "x " LRI "y" ZWJ "z", "--source", "paper-a",
	    "--confidence", "low");
	snprintf(S_id, sizeof(S_id), "%.*s", (int)strcspn(r.out, "\n"), r.out);
	t_run_free(&r);
	RUN(r, dir, 0, "stance", "beta", "--", "stance " RLO "x");
	t_run_free(&r);
	RUN(r, dir, 0, "add-source", "--title", "Paper " RLO "E", "paper-e");
	t_run_free(&r);
	RUN(r, dir, 0, "contradict", "--note", "note " RLO "n", S_id, "alpha-002");
	t_run_free(&r);
	return dir;
}

static void test_terminal_output_escapes(void **state)
{
	char *dir = S_hostile_base();
	struct t_run r;
	(void)state;

	RUN(r, dir, 0, "show", S_id);
	S_has(r.out, "evil \\u202ecba", "show");
	S_has(r.out, "zero\\u200bwidth \\ufeffend \\u061cx \\u2066y" ZWJ "z", "show");
	S_has(r.out, "note \\u202en", "show");
	S_lacks(r.out, RLO, "show");
	t_run_free(&r);
	RUN(r, dir, 0, "show", "beta");
	S_has(r.out, "stance \\u202ex", "show node");
	S_lacks(r.out, RLO, "show node");
	t_run_free(&r);
	RUN(r, dir, 0, "search", "evil");
	S_has(r.out, "\\u202ecba", "search");
	S_lacks(r.out, RLO, "search");
	S_lacks(r.out, ZWSP, "search");
	t_run_free(&r);
	RUN(r, dir, 0, "search", "zero");
	S_has(r.out, "zero\\u200bwidth", "search");
	S_lacks(r.out, ZWSP, "search");
	t_run_free(&r);
	RUN(r, dir, 0, "list");
	S_has(r.out, "evil \\u202ecba", "list");
	S_lacks(r.out, RLO, "list");
	t_run_free(&r);
	/* JSON holds the text as it is (escaped as JSON is, not marked) */
	RUN(r, dir, 0, "show", S_id, "--format", "json");
	S_has(r.out, "\"evil " RLO "cba\"", "show --format json");
	t_run_free(&r);
	t_done(dir);
}

static void test_index_and_site_mark(void **state)
{
	char *dir = S_hostile_base(), *idx, *page, *js;
	struct t_run r;
	(void)state;

	idx = t_read(dir, "INDEX.md", NULL);
	S_has(idx, "stance \\<U+202E\\>x", "INDEX.md");
	S_lacks(idx, RLO, "INDEX.md");
	free(idx);
	RUN(r, dir, 0, "export", "html", "site");
	t_run_free(&r);
	page = t_read(dir, "site/nodes/beta.html", NULL);
	assert_non_null(page);
	S_has(page, "evil &lt;U+202E&gt;cba", "site");
	S_has(page, "zero&lt;U+200B&gt;width &lt;U+FEFF&gt;end &lt;U+061C&gt;x", "site");
	S_has(page, "stance &lt;U+202E&gt;x", "site");
	S_has(page, "note &lt;U+202E&gt;n", "site");
	S_lacks(page, RLO, "site");
	S_lacks(page, ZWSP, "site");
	js = t_read(dir, "site/search.js", NULL);
	assert_non_null(js);
	S_has(js, "evil <U+202E>cba", "search.js");
	S_lacks(js, RLO, "search.js");
	free(js);
	free(page);
	t_done(dir);
}

static void test_check_warns(void **state)
{
	char *dir = S_hostile_base();
	struct t_run r;
	(void)state;

	RUN(r, dir, 0, "check");
	/* beta.yaml: the stance (line 3), the new entry's title and claim; the
	 * claim is double-quoted, its U+FEFF an escape */
	S_has(r.err, "insights/beta.yaml:3:16: warning: bidirectional control U+202E", "check");
	S_has(r.err, "insights/beta.yaml:21:17: warning: bidirectional control U+202E", "check");
	S_has(r.err, "insights/beta.yaml:22:17: warning: invisible format character U+200B",
	      "check");
	S_has(r.err, "invisible format character U+FEFF (an escape)", "check");
	S_has(r.err, "bidirectional control U+061C", "check");
	S_has(r.err, "bidirectional control U+2066", "check");
	S_lacks(r.err, "U+200D", "check");
	S_has(r.err, "insights/_sources.yaml:", "check");
	S_has(r.err, "dtk check: insights/ is valid", "check");
	t_run_free(&r);
	t_done(dir);
}

/* In a file written by hand: a comment, a key, a double-quoted escape and
 * a literal block; every one named with its line and column. */
static void test_check_warns_anywhere(void **state)
{
	static const char text[] = "\xef\xbb\xbf" /* a byte order mark first: no warning */
	                           "node: gamma # a comment " ZWSP "\n"
	                           "bloom: remember\n"
	                           "stance: \"a \\u202E b \\\\u202E c\"\n"
	                           "insights: []\n";
	char *dir = t_base();
	struct t_run r;
	(void)state;

	t_write_str(dir, "insights/gamma.yaml", text);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_not_equal(r.status, 2);
	S_has(r.err, "insights/gamma.yaml:1:25: warning: invisible format character U+200B",
	      "comment");
	S_has(r.err, "insights/gamma.yaml:3:12: warning: bidirectional control U+202E (an escape)",
	      "escape");
	/* "\\u202E" is a backslash and text, no escape */
	S_lacks(r.err, "gamma.yaml:3:19", "escaped backslash");
	S_lacks(r.err, "U+FEFF", "the byte order mark that opens the file");
	t_run_free(&r);
	t_done(dir);
}

static void test_json_escapes_line_separators(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;

	RUN(r, dir, 0, "add", "beta", "--title", "sep" LS "title", "--claim", "sep" PS "claim",
	    "--source", "paper-a", "--confidence", "low", "--format", "json");
	S_has(r.out, "sep\\u2028title", "add --format json");
	S_lacks(r.out, LS, "add --format json");
	t_run_free(&r);
	RUN(r, dir, 0, "search", "sep", "--format", "jsonl");
	S_has(r.out, "sep\\u2028title", "search jsonl");
	S_has(r.out, "sep\\u2029claim", "search jsonl");
	S_lacks(r.out, LS, "search jsonl");
	S_lacks(r.out, PS, "search jsonl");
	t_run_free(&r);
	RUN(r, dir, 0, "list", "--format", "jsonl");
	S_has(r.out, "sep\\u2028title", "list jsonl");
	S_lacks(r.out, LS, "list jsonl");
	t_run_free(&r);
	RUN(r, dir, 0, "show", "beta", "--format", "json");
	S_has(r.out, "sep\\u2029claim", "show json");
	S_lacks(r.out, PS, "show json");
	t_run_free(&r);
	t_done(dir);
}

/* Returns a string of n copies of unit (malloc'd). */
static char *S_times(const char *unit, size_t n)
{
	struct dtk_buf b = DTK_BUF_INIT;
	size_t i;
	for (i = 0; i < n; i++)
		dtk_buf_puts(&b, unit);
	return dtk_buf_detach(&b);
}

/* Runs a write command that must refuse text over its limit: exit 2, the
 * message, no file changed. */
static void S_refused(const char *dir, const char *msg, const char *a1, const char *a2,
                      const char *a3, const char *a4, const char *a5, const char *a6,
                      const char *a7)
{
	char *before = t_read(dir, "insights/beta.yaml", NULL), *after;
	char *src_before = t_read(dir, "insights/_sources.yaml", NULL), *src_after;
	struct t_run r;

	RUN(r, dir, 2, a1, a2, a3, a4, a5, a6, a7);
	S_has(r.err, msg, a1);
	t_run_free(&r);
	after = t_read(dir, "insights/beta.yaml", NULL);
	src_after = t_read(dir, "insights/_sources.yaml", NULL);
	assert_string_equal(before, after);
	assert_string_equal(src_before, src_after);
	free(before);
	free(after);
	free(src_before);
	free(src_after);
}

static void test_limits(void **state)
{
	char *dir = t_base(), *t200 = S_times("中", 200), *t201 = S_times("x", 201);
	char *c4000 = S_times("é", 4000), *c4001 = S_times("é", 4001), *from;
	struct t_run r;
	(void)state;

	/* at the limits (counted in characters, not bytes): taken */
	RUN(r, dir, 0, "add", "beta", "--title", t200, "--claim", c4000, "--source", "paper-a",
	    "--confidence", "low");
	t_run_free(&r);
	RUN(r, dir, 0, "show", "beta");
	S_has(r.out, t200, "show");
	t_run_free(&r);
	/* one over: refused, nothing written */
	RUN(r, dir, 2, "add", "beta", "--title", t201, "--claim", "c", "--source", "paper-a",
	    "--confidence", "low");
	S_has(r.err, "dtk add: error: the title is 201 characters long; the limit is 200", "add");
	t_run_free(&r);
	t_write_str(dir, "rest.yaml", "title: t\nsource: paper-a\nconfidence: low\n");
	S_refused(dir, "the claim is 4001 characters long; the limit is 4000", "add", "beta",
	          "--claim", c4001, "--from", "rest.yaml", NULL);
	from = dtk_xmalloc(strlen(c4001) + 100);
	sprintf(from, "title: t\nclaim: %s\nsource: paper-a\nconfidence: low\n", c4001);
	t_write_str(dir, "from.yaml", from);
	S_refused(dir, "the claim is 4001 characters long", "add", "beta", "--from", "from.yaml",
	          "--no-reindex", NULL, NULL);
	S_refused(dir, "dtk add-source: error: --title is 201 characters long; the limit is 200",
	          "add-source", "--title", t201, "paper-z", "--no-reindex", NULL, NULL);
	S_refused(dir, "dtk stance: error: the stance is 4001 characters long", "stance", "beta",
	          "--no-reindex", "--", c4001, NULL, NULL);
	S_refused(dir, "dtk contradict: error: --note is 4001 characters long", "contradict",
	          "--note", c4001, "beta-001", "alpha-002", NULL, NULL);
	S_refused(dir, "dtk resolve: error: --note is 4001 characters long", "resolve", "--note",
	          c4001, "alpha-003", "alpha-001", NULL, NULL);
	S_refused(dir, "dtk edit: error: --title is 201 characters long; the limit is 200", "edit",
	          "--title", t201, "beta-001", NULL, NULL, NULL);
	S_refused(dir, "dtk edit: error: --claim is 4001 characters long", "edit", "--claim", c4001,
	          "beta-001", NULL, NULL, NULL);
	S_refused(dir, "dtk edit-source: error: --title is 201 characters long", "edit-source",
	          "--title", t201, "paper-a", NULL, NULL, NULL);
	S_refused(dir, "dtk retract: error: --reason is 4001 characters long", "retract",
	          "--reason", c4001, "beta-001", NULL, NULL, NULL);
	free(from);
	free(t200);
	free(t201);
	free(c4000);
	free(c4001);
	t_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_terminal_output_escapes),
	        cmocka_unit_test(test_index_and_site_mark),
	        cmocka_unit_test(test_check_warns),
	        cmocka_unit_test(test_check_warns_anywhere),
	        cmocka_unit_test(test_json_escapes_line_separators),
	        cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
