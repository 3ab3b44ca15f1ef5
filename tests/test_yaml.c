/* test_yaml.c: libyaml events to a strict tree. */
#include "support.h"

#include "dtk/linebreak.h"
#include "dtk/ytree.h"

#include <stdlib.h>
#include <string.h>

/* Parses text; returns the root or NULL, leaving errors printed in errs. */
static struct dtk_yval *S_parse(struct dtk_arena *a, const char *text, size_t len, char *errs,
                                size_t errs_size)
{
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_yval *root = NULL;
	FILE *f;
	memset(errs, 0, errs_size);
	f = fmemopen(errs, errs_size, "w");
	int rc = dtk_yaml_parse(&root, a, "t.yaml", text, len, &d);
	dtk_diags_sort(&d);
	dtk_diags_print(&d, f);
	fclose(f);
	assert_int_equal(rc<0, d.n> 0);
	dtk_diags_release(&d);
	return rc < 0 ? NULL : root;
}

static char S_errs[4096];

static struct dtk_yval *S_ok(struct dtk_arena *a, const char *text)
{
	struct dtk_yval *v = S_parse(a, text, strlen(text), S_errs, sizeof(S_errs));
	assert_string_equal(S_errs, "");
	return v;
}

static void S_err(const char *text, size_t len, const char *want)
{
	struct dtk_arena *a = dtk_arena_new();
	memset(S_errs, 0, sizeof(S_errs));
	assert_null(S_parse(a, text, len, S_errs, sizeof(S_errs)));
	assert_string_equal(S_errs, want);
	dtk_arena_free(a);
}

/* Returns the source text of v in text (a static buffer). */
static const char *S_span(const char *text, const struct dtk_yval *v)
{
	static char out[256];
	size_t n = v->end - v->start;
	assert_true(v->start <= v->end && n < sizeof(out));
	memcpy(out, text + v->start, n);
	out[n] = '\0';
	return out;
}

/* What dtk_yaml_parse_items hands over: each item, its lines and spans. */
struct items_seen {
	char text[512];
	int n;
};

static void S_note_item(void *arg, const struct dtk_yval *item)
{
	struct items_seen *seen = arg;
	size_t at = strlen(seen->text);
	const struct dtk_yval *id = item->kind == DTK_Y_MAP ? dtk_yval_get(item, "id") : NULL;
	snprintf(seen->text + at, sizeof(seen->text) - at, "%d:%d %s [%u,%u) %zu;", item->line,
	         item->col,
	         id                           ? id->str
	         : item->kind == DTK_Y_SCALAR ? item->str
	                                      : "?",
	         item->start, item->end, item->n);
	seen->n++;
}

static void test_parse_items(void **state)
{
	const char *text = "# sources\n- id: a\n  title: A\n- {id: b, title: B}\n- c\n- id: d\n"
	                   "  title: >-\n    D\n    d\n";
	struct items_seen seen = {"", 0};
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_arena *a = dtk_arena_new();
	struct dtk_yval *root = NULL;
	(void)state;
	assert_int_equal(dtk_yaml_parse_items(&root, a, "t.yaml", text, strlen(text), &d,
	                                      S_note_item, &seen),
	                 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(seen.text, "2:3 a [12,28) 4;4:3 b [31,48) 4;5:3 c [51,52) 0;"
	                               "6:3 d [55,84) 4;");
	assert_non_null(root);
	assert_int_equal(root->kind, DTK_Y_SEQ);
	assert_int_equal(root->n, 0); /* the items went */
	assert_int_equal(root->line, 2);
	assert_int_equal(root->end, 84);
	/* a mapping at the root is built whole; each is not called */
	seen.text[0] = '\0';
	seen.n = 0;
	assert_int_equal(
	        dtk_yaml_parse_items(&root, a, "t.yaml", "k: [1]\n", 7, &d, S_note_item, &seen), 0);
	assert_int_equal(seen.n, 0);
	assert_int_equal(root->kind, DTK_Y_MAP);
	assert_int_equal(root->n, 2);
	/* an error after some items: they were handed over, the result says so */
	assert_int_equal(dtk_yaml_parse_items(&root, a, "t.yaml", "- x\n- y\n- \"z\n", 13, &d,
	                                      S_note_item, &seen),
	                 -1);
	assert_int_equal(seen.n, 2);
	assert_int_equal(d.n, 1);
	dtk_diags_release(&d);
	dtk_arena_free(a);
}

static void test_spans_and_styles(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	const char *text = "\xEF\xBB\xBF"
	                   "a: plain  # comment\n"
	                   "b: 'single'\n"
	                   "c: \"dou\\\"ble\"\n"
	                   "d: >-\n  folded\n  text  \n\n   \n"
	                   "e: |\n  lit\n"
	                   "f: [x, 'y']\n"
	                   "g:\n  - id: one\n    n: 1\n  - id: two\n    m: {k: v}\n"
	                   "# trailing\n"
	                   "h: multi\n  line\n";
	const struct dtk_yval *root, *v;
	(void)state;
	root = S_ok(a, text);
	assert_int_equal(root->start, 3);
	assert_int_equal(root->end, strlen(text) - 1); /* the last value's end */
	v = dtk_yval_get(root, "a");
	assert_int_equal(v->style, DTK_YS_PLAIN);
	assert_string_equal(S_span(text, v), "plain");
	assert_string_equal(S_span(text, root->items[0]), "a");
	v = dtk_yval_get(root, "b");
	assert_int_equal(v->style, DTK_YS_SINGLE);
	assert_string_equal(S_span(text, v), "'single'");
	v = dtk_yval_get(root, "c");
	assert_int_equal(v->style, DTK_YS_DOUBLE);
	assert_string_equal(S_span(text, v), "\"dou\\\"ble\"");
	v = dtk_yval_get(root, "d");
	assert_int_equal(v->style, DTK_YS_FOLDED);
	assert_string_equal(S_span(text, v), ">-\n  folded\n  text  ");
	v = dtk_yval_get(root, "e");
	assert_int_equal(v->style, DTK_YS_LITERAL);
	assert_string_equal(S_span(text, v), "|\n  lit");
	v = dtk_yval_get(root, "f");
	assert_int_equal(v->style, DTK_YS_FLOW);
	assert_string_equal(S_span(text, v), "[x, 'y']");
	assert_string_equal(S_span(text, v->items[1]), "'y'");
	v = dtk_yval_get(root, "g");
	assert_int_equal(v->style, DTK_YS_BLOCK);
	assert_string_equal(S_span(text, v), "- id: one\n    n: 1\n  - id: two\n    m: {k: v}");
	assert_string_equal(S_span(text, v->items[0]), "id: one\n    n: 1");
	assert_string_equal(S_span(text, v->items[1]), "id: two\n    m: {k: v}");
	v = dtk_yval_get(root, "h");
	assert_string_equal(S_span(text, v), "multi\n  line");
	dtk_arena_free(a);
}

/* Spans are bytes: libyaml's marks count characters, which differ from bytes
 * past the first character of more than one byte. */
static void test_spans_after_multibyte_text(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	const char *text = "\xEF\xBB\xBF"
	                   "a: 中文的值\r\n"
	                   "b: [é, '引号']\r\n"
	                   "c: >-\r\n  折叠的\r\n  中文\r\n\r\n"
	                   "d: {k: 😀}\r\n"
	                   "e: 多行\r\n  文本\r\n";
	const struct dtk_yval *root, *v;
	(void)state;
	root = S_ok(a, text);
	assert_string_equal(S_span(text, dtk_yval_get(root, "a")), "中文的值");
	v = dtk_yval_get(root, "b");
	assert_string_equal(S_span(text, v), "[é, '引号']");
	assert_string_equal(S_span(text, v->items[1]), "'引号'");
	v = dtk_yval_get(root, "c");
	assert_string_equal(S_span(text, v), ">-\r\n  折叠的\r\n  中文");
	assert_string_equal(v->str, "折叠的中文");
	assert_string_equal(S_span(text, dtk_yval_get(root, "d")), "{k: 😀}");
	v = dtk_yval_get(root, "e");
	assert_string_equal(S_span(text, v), "多行\r\n  文本");
	assert_string_equal(v->str, "多行文本");
	assert_string_equal(S_span(text, root->items[8]), "e");
	dtk_arena_free(a);
}

static void test_tree_and_positions(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	const struct dtk_yval *root, *l, *v;
	(void)state;
	root = S_ok(a, "# c\nk: v\nlist:\n  - 1\n  - 'two'\n  - {x: true}\nn: ~\nf: 1.5\n");
	assert_int_equal(root->kind, DTK_Y_MAP);
	assert_int_equal(root->n, 8);
	v = dtk_yval_get(root, "k");
	assert_string_equal(v->str, "v");
	assert_int_equal(v->line, 2);
	assert_int_equal(v->col, 4);
	l = dtk_yval_get(root, "list");
	assert_int_equal(l->kind, DTK_Y_SEQ);
	assert_int_equal(l->n, 3);
	assert_int_equal(l->items[0]->type, DTK_YT_INT);
	assert_int_equal(l->items[1]->type, DTK_YT_STR);
	assert_int_equal(l->items[1]->line, 5);
	assert_int_equal(l->items[1]->col, 5);
	assert_int_equal(dtk_yval_get(l->items[2], "x")->type, DTK_YT_BOOL);
	assert_int_equal(dtk_yval_get(root, "n")->type, DTK_YT_NULL);
	assert_int_equal(dtk_yval_get(root, "f")->type, DTK_YT_FLOAT);
	assert_null(dtk_yval_get(root, "missing"));
	dtk_arena_free(a);
}

static void test_core_schema_types(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	const struct dtk_yval *r;
	(void)state;
	r = S_ok(a, "[yes, no, on, 2026-03-17, '1', 0x1F, -7, .inf, null, '', \"true\"]");
	assert_int_equal(r->items[0]->type, DTK_YT_STR); /* YAML 1.2: yes is a string */
	assert_int_equal(r->items[1]->type, DTK_YT_STR);
	assert_int_equal(r->items[2]->type, DTK_YT_STR);
	assert_int_equal(r->items[3]->type, DTK_YT_STR);
	assert_int_equal(r->items[4]->type, DTK_YT_STR);
	assert_int_equal(r->items[5]->type, DTK_YT_INT);
	assert_int_equal(r->items[6]->type, DTK_YT_INT);
	assert_int_equal(r->items[7]->type, DTK_YT_FLOAT);
	assert_int_equal(r->items[8]->type, DTK_YT_NULL);
	assert_int_equal(r->items[9]->type, DTK_YT_STR);
	assert_int_equal(r->items[10]->type, DTK_YT_STR);
	/* every spelling of null and the booleans, and near misses */
	r = S_ok(a, "[~, Null, NULL, True, TRUE, false, False, FALSE, nULL, tRUE, falsE, nul, "
	            "nulls, truee, fals, f, n, t, ~~, 0o17, 0o9, -.5, 1e3, 1e, +, .]");
	{
		static const enum dtk_ytype want[] = {
		        DTK_YT_NULL, DTK_YT_NULL,  DTK_YT_NULL,  DTK_YT_BOOL, DTK_YT_BOOL,
		        DTK_YT_BOOL, DTK_YT_BOOL,  DTK_YT_BOOL,  DTK_YT_STR,  DTK_YT_STR,
		        DTK_YT_STR,  DTK_YT_STR,   DTK_YT_STR,   DTK_YT_STR,  DTK_YT_STR,
		        DTK_YT_STR,  DTK_YT_STR,   DTK_YT_STR,   DTK_YT_STR,  DTK_YT_INT,
		        DTK_YT_STR,  DTK_YT_FLOAT, DTK_YT_FLOAT, DTK_YT_STR,  DTK_YT_STR,
		        DTK_YT_STR};
		size_t i;
		assert_int_equal(r->n, sizeof(want) / sizeof(*want));
		for (i = 0; i < r->n; i++)
			if (r->items[i]->type != want[i])
				fail_msg("item %zu ('%s'): type %d, want %d", i, r->items[i]->str,
				         (int)r->items[i]->type, (int)want[i]);
	}
	dtk_arena_free(a);
}

static void test_core_tags(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	const struct dtk_yval *r;
	(void)state;
	r = S_ok(a, "a: !!str 12\nb: !!int 3\n");
	assert_int_equal(dtk_yval_get(r, "a")->type, DTK_YT_STR);
	assert_int_equal(dtk_yval_get(r, "b")->type, DTK_YT_INT);
	dtk_arena_free(a);
	S_err("a: !!int abc\n", 13, "t.yaml:1:4: error: value does not match its tag '!!int'\n");
	S_err("a: !custom x\n", 13,
	      "t.yaml:1:4: error: tag '!custom' is not allowed (only YAML's core tags are)\n");
}

static void test_empty(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	(void)state;
	assert_null(S_ok(a, ""));
	assert_null(S_ok(a, "# only a comment\n"));
	dtk_arena_free(a);
}

static void test_structural_errors(void **state)
{
	(void)state;
	S_err("a: 1\na: 2\nb: 3\na: 4\n", 20,
	      "t.yaml:2:1: error: duplicate key 'a' (first at line 1)\n"
	      "t.yaml:4:1: error: duplicate key 'a' (first at line 1)\n");
	S_err("? [a]\n: 1\n", 10,
	      "t.yaml:1:3: error: mapping keys must be plain values, not a list\n");
	S_err("a: &x [*x]\n", 11,
	      "t.yaml:1:4: error: anchors are not allowed (found '&x')\n"
	      "t.yaml:1:8: error: aliases are not allowed (found '*x')\n");
	S_err("a: 1\n---\nb: 2\n", 14,
	      "t.yaml:2:1: error: a file holds one YAML document; this is a second one\n");
}

static void test_encoding_positions(void **state)
{
	(void)state;
	/* libyaml reports these by byte offset; the tree computes line:col */
	S_err("a: 1\nb: \xc3\xa9\xff\n", 11,
	      "t.yaml:2:5: error: invalid leading UTF-8 octet (byte 0xFF)\n");
	S_err("a: 1\nb: x\x01y\n", 11,
	      "t.yaml:2:5: error: control characters are not allowed (U+0001)\n");
	S_err("a: 1\nb: x\0y\n", 12,
	      "t.yaml:2:5: error: control characters are not allowed (U+0000)\n");
	S_err("a: x\xef\xbb\xbf\n", 8,
	      "t.yaml:1:5: error: byte order mark in the middle of the file\n");
	/* after full-width punctuation (0xEF too), and two in a row: each */
	S_err("a: \xef\xbc\x8c\xef\xbb\xbf\xef\xbb\xbf\n", 13,
	      "t.yaml:1:5: error: byte order mark in the middle of the file\n"
	      "t.yaml:1:6: error: byte order mark in the middle of the file\n");
}

static void test_leading_bom_is_fine(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	const struct dtk_yval *r;
	(void)state;
	r = S_ok(a, "\xef\xbb\xbf"
	            "a: b\n");
	assert_int_equal(dtk_yval_get(r, "a")->line, 1);
	assert_int_equal(dtk_yval_get(r, "a")->col, 4);
	dtk_arena_free(a);
}

/* Lines git leaves in a conflicted file are named, each; lines that only
 * look like them are data. */
static void test_conflict_markers(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	const struct dtk_yval *r;
	(void)state;
	S_err("a: 1\n<<<<<<< HEAD\nb: 2\n=======\nb: 3\n>>>>>>> topic\n", 50,
	      "t.yaml:2:1: error: unresolved merge conflict: marker '<<<<<<<' (resolve the "
	      "conflict and remove the marker lines)\n"
	      "t.yaml:4:1: error: unresolved merge conflict: marker '=======' (resolve the "
	      "conflict and remove the marker lines)\n"
	      "t.yaml:6:1: error: unresolved merge conflict: marker '>>>>>>>' (resolve the "
	      "conflict and remove the marker lines)\n");
	S_err("\xef\xbb\xbf|||||||\r>>>>>>>", 18,
	      "t.yaml:1:1: error: unresolved merge conflict: marker '|||||||' (resolve the "
	      "conflict and remove the marker lines)\n"
	      "t.yaml:2:1: error: unresolved merge conflict: marker '>>>>>>>' (resolve the "
	      "conflict and remove the marker lines)\n");
	/* the last line, with no line break after it, and after an empty line */
	S_err("a: 1\n\n=======", 13,
	      "t.yaml:3:1: error: unresolved merge conflict: marker '=======' (resolve the "
	      "conflict and remove the marker lines)\n");
	r = S_ok(a, "a: |\n  <<<<<<< HEAD\n  =======\n  >>>>>>> x\nb: \"x\n  ======= y\"\n");
	assert_string_equal(dtk_yval_get(r, "a")->str, "<<<<<<< HEAD\n=======\n>>>>>>> x\n");
	dtk_arena_free(a);
}

/* The errors of the line-by-line rule for text[0..len) (lines end at LF,
 * CR LF or CR): each line that is seven of '<', '|', '=' or '>', or seven
 * of '<', '|' or '>' and a space (text[len] is a NUL). */
static void S_markers_by_line(const char *text, size_t len, char *out, size_t cap)
{
	size_t p = 0, eol, n, used = 0;
	int line = 1;

	out[0] = '\0';
	for (; p < len; line++) {
		for (eol = p; eol < len && text[eol] != '\n' && text[eol] != '\r'; eol++)
			;
		n = eol - p;
		if (n >= 7 && strchr("<|=>", text[p]) &&
		    strspn(text + p, (char[]){text[p], 0}) >= 7 &&
		    (n == 7 || (text[p + 7] == ' ' && text[p] != '=')))
			used += (size_t)snprintf(
			        out + used, cap - used,
			        "t.yaml:%d:1: error: unresolved merge conflict: marker "
			        "'%.7s' (resolve the conflict and remove the marker "
			        "lines)\n",
			        line, text + p);
		p = eol + (eol + 1 < len && text[eol] == '\r' && text[eol + 1] == '\n' ? 2 : 1);
	}
}

/* The markers are found as the line-by-line rule finds them, in random
 * texts of runs of the markers' characters, spaces, letters and breaks. */
static void test_conflict_markers_random(void **state)
{
	static const char chars[] = "<|=> a\n\r";
	char text[80], want[4096];
	unsigned seed = 7;
	int k;
	(void)state;
	for (k = 0; k < 20000; k++) {
		size_t len = 0, lim = (seed = seed * 1103515245u + 12345u) >> 16 & 63;
		while (len < lim) {
			char c = chars[((seed = seed * 1103515245u + 12345u) >> 16) % 8];
			size_t run = c == '\n' || c == ' '
			                     ? 1
			                     : ((seed = seed * 1103515245u + 12345u) >> 16) % 10;
			while (run-- > 0 && len < lim)
				text[len++] = c;
		}
		text[len] = '\0';
		S_markers_by_line(text, len, want, sizeof(want));
		memset(S_errs, 0, sizeof(S_errs));
		{
			struct dtk_arena *a = dtk_arena_new();
			S_parse(a, text, len, S_errs, sizeof(S_errs));
			dtk_arena_free(a);
		}
		if (*want)
			assert_string_equal(S_errs, want);
		else
			assert_null(strstr(S_errs, "merge conflict"));
	}
}

/* A file with errors that libyaml read to its end still gives its tree:
 * each repeated key (of a small mapping and of one past 64 keys) and each
 * key that is no scalar is reported and taken out with its value, so the
 * tree has every key once. A syntax error gives no tree. */
static void test_tree_after_errors(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	struct dtk_diags d = DTK_DIAGS_INIT;
	struct dtk_yval *root = NULL;
	struct dtk_buf b = DTK_BUF_INIT;
	int i;
	const char *small = "a: 1\nb: 2\na: 3\n[x]: 4\nc: 5\n", *broken = "a: [1\nb: 2\n";
	(void)state;

	assert_int_equal(dtk_yaml_parse(&root, a, "t.yaml", small, strlen(small), &d), -1);
	assert_int_equal(d.n, 2);
	assert_non_null(root);
	assert_int_equal(root->n, 6); /* a, b, c */
	assert_string_equal(dtk_yval_get(root, "a")->str, "1");
	assert_string_equal(root->items[4]->str, "c");
	dtk_diags_release(&d);

	for (i = 0; i < 70; i++)
		dtk_buf_printf(&b, "k%d: %d\n", i, i);
	dtk_buf_puts(&b, "k5: again\nk60: again\nk5: thrice\n");
	assert_int_equal(dtk_yaml_parse(&root, a, "t.yaml", b.ptr, b.len, &d), -1);
	dtk_diags_sort(&d);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.v[0].msg, "duplicate key 'k5' (first at line 6)");
	assert_int_equal(d.v[0].line, 71);
	assert_string_equal(d.v[1].msg, "duplicate key 'k60' (first at line 61)");
	assert_string_equal(d.v[2].msg, "duplicate key 'k5' (first at line 6)");
	assert_int_equal(root->n, 140);
	assert_string_equal(dtk_yval_get(root, "k5")->str, "5");
	assert_string_equal(dtk_yval_get(root, "k60")->str, "60");
	assert_string_equal(root->items[138]->str, "k69");
	dtk_diags_release(&d);

	root = NULL;
	assert_int_equal(dtk_yaml_parse(&root, a, "t.yaml", broken, strlen(broken), &d), -1);
	assert_null(root);
	dtk_diags_release(&d);
	dtk_buf_release(&b);
	dtk_arena_free(a);
}

/* Writes "k: [a,a,...]" of n items to b. */
static void S_flow_items(struct dtk_buf *b, size_t n)
{
	size_t i;
	b->len = 0;
	dtk_buf_puts(b, "k: [a");
	for (i = 1; i < n; i++)
		dtk_buf_puts(b, ",a");
	dtk_buf_puts(b, "]\n");
}

/* A file of more values than DTK_MAX_VALUES stops at the first past it (a
 * flow list of one-letter items cost about 90 bytes of tree a byte). */
static void test_values_limit(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	struct dtk_buf b = DTK_BUF_INIT;
	char want[128];
	(void)state;

	S_flow_items(&b, DTK_MAX_VALUES - 3); /* and the map, its key, the list */
	assert_non_null(S_parse(a, b.ptr, b.len, S_errs, sizeof(S_errs)));
	S_flow_items(&b, DTK_MAX_VALUES - 2);
	snprintf(want, sizeof(want), "t.yaml:1:%zu: error: file holds more than %u values\n",
	         b.len - 2, DTK_MAX_VALUES);
	S_err(b.ptr, b.len, want);
	dtk_buf_release(&b);
	dtk_arena_free(a);
}

static void test_depth_limit_stops_early(void **state)
{
	size_t n = 1000000;
	char *deep = malloc(n + 1);
	(void)state;
	memset(deep, '[', n);
	deep[n] = '\0';
	/* a million '[' would take libyaml hours; the limit stops it at once */
	S_err(deep, n, "t.yaml:1:33: error: nesting deeper than 32 levels\n");
	free(deep);
}

static void test_scalar_limit(void **state)
{
	size_t n = DTK_MAX_SCALAR_BYTES + 10;
	char *big = malloc(n + 4);
	(void)state;
	memcpy(big, "a: ", 3);
	memset(big + 3, 'x', n);
	big[n + 3] = '\0';
	S_err(big, n + 3, "t.yaml:1:4: error: value is 1048586 bytes long; the limit is 1048576\n");
	free(big);
}

/* Returns the value of key k of the one-mapping document text (in a). */
static const char *S_value(struct dtk_arena *a, const char *text, const char *key)
{
	const struct dtk_yval *v = dtk_yval_get(S_ok(a, text), key);
	assert_non_null(v);
	assert_int_equal(strlen(v->str), v->len);
	return v->str;
}

/* The East Asian line-break rule (docs/schema.md, "Text"): a break folded
 * between two wide characters is dropped; typed spaces stay. */
static void test_east_asian_line_breaks(void **state)
{
	struct dtk_arena *a = dtk_arena_new();
	(void)state;
	/* the shipped base's cases: a folded claim, a multi-line plain value */
	assert_string_equal(S_value(a, "k: >-\n  的单层耗时，\n  均分层数\n", "k"),
	                    "的单层耗时，均分层数");
	assert_string_equal(S_value(a, "k: 只能靠另一个\n  线程轮询\n", "k"),
	                    "只能靠另一个线程轮询");
	assert_string_equal(S_value(a, "k: >\n  中文\n  均分\n", "k"), "中文均分\n");
	/* several breaks, a typed space between wide characters stays */
	assert_string_equal(S_value(a, "k: >-\n  甲 乙\n  丙\n  丁\n", "k"), "甲 乙丙丁");
	/* a letter, a digit or an ambiguous character on one side: a space */
	assert_string_equal(S_value(a, "k: >-\n  中文\n  abc\n  中文\n", "k"), "中文 abc 中文");
	assert_string_equal(S_value(a, "k: >-\n  “引号”\n  中文\n", "k"), "“引号” 中文");
	/* Hangul keeps its spaces (Korean separates words) */
	assert_string_equal(S_value(a, "k: >-\n  한국어\n  텍스트\n", "k"), "한국어 텍스트");
	/* emoji of East Asian Width W and fullwidth forms (F) join */
	assert_string_equal(S_value(a, "k: >-\n  😀\n  中\n", "k"), "😀中");
	assert_string_equal(S_value(a, "k: >-\n  ＡＢ\n  中\n", "k"), "ＡＢ中");
	/* breaks the fold keeps: blank lines, more-indented lines */
	assert_string_equal(S_value(a, "k: >-\n  中文\n\n  均分\n", "k"), "中文\n均分");
	assert_string_equal(S_value(a, "k: >-\n  中文\n   均分\n", "k"), "中文\n 均分");
	/* a block scalar's trailing space is text; a plain one's is not */
	assert_string_equal(S_value(a, "k: >-\n  中文 \n  均分\n", "k"), "中文  均分");
	assert_string_equal(S_value(a, "k: 中文 \n  均分\n", "k"), "中文均分");
	/* literal and quoted scalars are not folded by this rule */
	assert_string_equal(S_value(a, "k: |-\n  中文\n  均分\n", "k"), "中文\n均分");
	assert_string_equal(S_value(a, "k: \"中文\n  均分\"\n", "k"), "中文 均分");
	assert_string_equal(S_value(a, "k: '中文\n  均分'\n", "k"), "中文 均分");
	/* CRLF, a header comment, flow context, text before (libyaml counts
	 * characters, dtk finds the bytes) */
	assert_string_equal(S_value(a, "k: >- # c\r\n  中文\r\n  均分\r\n", "k"), "中文均分");
	assert_string_equal(dtk_yval_get(S_ok(a, "k: [中文\n  均分, x]\n"), "k")->items[0]->str,
	                    "中文均分");
	assert_string_equal(
	        S_value(a, "a: 中文 中文 é\nb: >-\n  \xC3\xA9\n  中\nk: 中文\n  均分\n", "k"),
	        "中文均分");
	assert_string_equal(S_value(a, "\xEF\xBB\xBFk: 中文\n  均分\n", "k"), "中文均分");
	/* every break libyaml folds: CR alone, NEL; a blank line of each stays */
	assert_string_equal(S_value(a, "k: >-\r  中文，\r  均分\r", "k"), "中文，均分");
	assert_string_equal(S_value(a, "k: 中文\r  均分\rb: 1\r", "k"), "中文均分");
	assert_string_equal(S_value(a, "k: >-\n  中文\xC2\x85  均分\n", "k"), "中文均分");
	assert_string_equal(S_value(a, "k: 中文\xC2\x85  均分 é\n", "k"), "中文均分 é");
	assert_string_equal(S_value(a, "k: >-\r  中文\r\r  均分\r", "k"), "中文\n均分");
	assert_string_equal(S_value(a, "k: >-\r\n  中文\r\n\r\n  均分\r\n", "k"), "中文\n均分");
	assert_string_equal(S_value(a, "k: >-\n  中文\xC2\x85\xC2\x85  均分\n", "k"), "中文\n均分");
	/* LS is kept as it is, not folded */
	assert_string_equal(S_value(a, "k: 中文\xE2\x80\xA8  均分\n", "k"), "中文\xE2\x80\xA8均分");
	/* one line: nothing to do, the typed space stays */
	assert_string_equal(S_value(a, "k: 中文 均分\n", "k"), "中文 均分");
	dtk_arena_free(a);
}

/* dtk_linebreak_join leaves a value whose source does not match it as it was. */
static void test_east_asian_join_mismatch(void **state)
{
	char v[] = "中文 均分 线程";
	size_t n = strlen(v); /* before the calls: v changes, and the order in
	                       * which a macro's arguments are evaluated is not set */
	(void)state;
	assert_int_equal(dtk_linebreak_join(v, n, "中文\n均分\nxx", strlen("中文\n均分\nxx"), 0),
	                 n);
	assert_string_equal(v, "中文 均分 线程");
	assert_int_equal(dtk_linebreak_join(v, n, "中文\n均分 线程", strlen("中文\n均分 线程"), 0),
	                 n - 1);
	assert_string_equal(v, "中文均分 线程");
	assert_true(dtk_linebreak_is_wide(0x4E2D));
	assert_false(dtk_linebreak_is_wide(0xAC00));
	assert_false(dtk_linebreak_is_wide(0x201C));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_tree_and_positions),
	        cmocka_unit_test(test_core_schema_types),
	        cmocka_unit_test(test_core_tags),
	        cmocka_unit_test(test_empty),
	        cmocka_unit_test(test_structural_errors),
	        cmocka_unit_test(test_encoding_positions),
	        cmocka_unit_test(test_leading_bom_is_fine),
	        cmocka_unit_test(test_conflict_markers),
	        cmocka_unit_test(test_conflict_markers_random),
	        cmocka_unit_test(test_tree_after_errors),
	        cmocka_unit_test(test_values_limit),
	        cmocka_unit_test(test_depth_limit_stops_early),
	        cmocka_unit_test(test_scalar_limit),
	        cmocka_unit_test(test_east_asian_line_breaks),
	        cmocka_unit_test(test_east_asian_join_mismatch),
	        cmocka_unit_test(test_spans_and_styles),
	        cmocka_unit_test(test_parse_items),
	        cmocka_unit_test(test_spans_after_multibyte_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
