/* test_markdown.c: the document builder and its CommonMark rendering. */
#include "support.h"

#include "dtk/markdown.h"

#include <cmark-gfm.h>

#include <stdlib.h>
#include <string.h>

static void test_blocks(void **state)
{
	struct dtk_md *md = dtk_md_new();
	char *s;
	(void)state;
	dtk_md_heading(md, 2);
	dtk_md_text(md, "Title #1");
	dtk_md_close(md);
	dtk_md_list(md);
	dtk_md_item(md);
	dtk_md_text(md, "a_b *c*");
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_md_table(md, 2);
	dtk_md_row(md, 1);
	dtk_md_cell(md);
	dtk_md_text(md, "k");
	dtk_md_close(md);
	dtk_md_cell(md);
	dtk_md_text(md, "v");
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_md_row(md, 0);
	dtk_md_cell(md);
	dtk_md_text(md, "a|b");
	dtk_md_close(md);
	dtk_md_cell(md);
	dtk_md_link(md, "u", "x|y");
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_md_close(md);
	s = dtk_md_render(md);
	assert_string_equal(s, "## Title \\#1\n"
	                       "\n"
	                       "  - a\\_b \\*c\\*\n"
	                       "\n"
	                       "| k | v |\n"
	                       "| --- | --- |\n"
	                       "| a\\|b | [x\\|y](u) |\n");
	free(s);
	dtk_md_free(md);
}

/* Text that cmark escapes by what surrounds it, and text that it does not. */
static const char *const S_bits[] = {"a&b", "1.", " x)", "![y]", "中文", "&", ".",  ")",
                                     "9",   "# ", "- ",  "|",    "Z",    "é", "  ", "_*`"};

/* Builds a document of every kind of block, two lists in a row among them. */
static void S_build_mixed(struct dtk_md *md)
{
	int i;
	dtk_md_heading(md, 1);
	dtk_md_text(md, "Top");
	dtk_md_close(md);
	dtk_md_list(md);
	dtk_md_item(md);
	dtk_md_text(md, "one");
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_md_list(md); /* cmark separates two lists with a comment */
	dtk_md_item(md);
	dtk_md_text(md, "two");
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_md_paragraph(md);
	/* longer than a part (256 KiB): it goes out in parts */
	for (i = 0; i < 60000; i++) {
		dtk_md_text(md, S_bits[(i * 7 + i / 16) % 16]);
		if (i % 1000 == 999)
			dtk_md_link(md, "u", "*em* and `code`");
	}
	dtk_md_close(md);
	dtk_md_table(md, 1);
	dtk_md_row(md, 1);
	dtk_md_cell(md);
	dtk_md_text(md, "h");
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_md_close(md);
	dtk_md_list(md); /* the document ends with a list */
	dtk_md_item(md);
	dtk_md_text(md, "last");
	dtk_md_close(md);
	dtk_md_close(md);
}

static int S_count_write(void *arg, const char *s, size_t len)
{
	(void)s;
	(void)len;
	++*(int *)arg;
	return 0;
}

static int S_fail_write(void *arg, const char *s, size_t len)
{
	(void)s;
	(void)len;
	return ++*(int *)arg > 1 ? dtk_error("disk full after %d writes", *(int *)arg - 1) : 0;
}

static void test_stream_equals_whole(void **state)
{
	struct dtk_md *whole = dtk_md_new(), *md;
	struct dtk_buf b = DTK_BUF_INIT;
	char *want;
	int writes = 0;
	(void)state;
	S_build_mixed(whole);
	want = dtk_md_render(whole);
	assert_non_null(strstr(want, "<!-- end list -->"));
	md = dtk_md_new_stream(dtk_buf_write, &b);
	S_build_mixed(md);
	assert_int_equal(dtk_md_finish(md), 0);
	assert_string_equal(dtk_buf_cstr(&b), want);
	dtk_md_free(md);
	/* it went out in pieces, a group of blocks at a time */
	md = dtk_md_new_stream(S_count_write, &writes);
	S_build_mixed(md);
	assert_int_equal(dtk_md_finish(md), 0);
	assert_true(writes > 4);
	dtk_md_free(md);
	/* a failed write stops the output and is reported at the end */
	writes = 0;
	dtk_error_clear();
	md = dtk_md_new_stream(S_fail_write, &writes);
	S_build_mixed(md);
	assert_int_equal(dtk_md_finish(md), -1);
	assert_int_equal(writes, 2);
	/* the failed write's error is the one reported */
	assert_string_equal(dtk_error_last(), "disk full after 1 writes");
	dtk_md_free(md);
	dtk_md_free(whole);
	dtk_buf_release(&b);
	free(want);
}

/* A long run of text, added in small pieces, renders as cmark renders it as
 * one text node, whatever characters fall where the pieces meet. */
static void test_long_text_run(void **state)
{
	struct dtk_buf text = DTK_BUF_INIT;
	struct dtk_md *md = dtk_md_new();
	cmark_node *doc = cmark_node_new(CMARK_NODE_DOCUMENT);
	cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH), *t = cmark_node_new(CMARK_NODE_TEXT);
	char *got, *want;
	size_t i;
	(void)state;
	for (i = 0; text.len < 300000; i++)
		dtk_buf_puts(&text, S_bits[(i * 7 + i / 16) % 16]);
	dtk_md_paragraph(md);
	for (i = 0; i < text.len; i += 37) {
		char piece[38] = {0};
		memcpy(piece, text.ptr + i, text.len - i < 37 ? text.len - i : 37);
		dtk_md_text(md, piece);
	}
	dtk_md_close(md);
	got = dtk_md_render(md);
	cmark_node_set_literal(t, text.ptr);
	cmark_node_append_child(p, t);
	cmark_node_append_child(doc, p);
	want = cmark_render_commonmark(doc, CMARK_OPT_DEFAULT, 0);
	assert_true(strlen(want) > 300000);
	assert_string_equal(got, want);
	free(got);
	free(want);
	cmark_node_free(doc);
	dtk_md_free(md);
	dtk_buf_release(&text);
}

/* The pieces runs are made of: text that cmark escapes by what surrounds
 * it (digits before '.' or ')', '-', '+' and '=' at a block's start, '&'
 * before a letter), an entity, CJK, spaces, an invisible character. (Not a
 * numeric reference such as "&#123;", which cmark writes as it is: read
 * back, it is what it names.) */
static const char *const S_pieces[] = {
        "abc", "1.",  "2)",  "-x",   "+",      "=",    "&amp;",  "&x",  "a&",  "&",
        " ",   "x ",  "12",  "3. y", "#",      "*em*", "_u_",    "[l]", "<b>", "`c`",
        "\\",  "!",   "![",  "~",    "|",      "中文", "（注）", "、",  "。",  "x.",
        ")",   "a-b", "  2", "9)",   "\u202e", "end",  "0",      "-",   "a.b"};
#define S_N_PIECES (sizeof(S_pieces) / sizeof(*S_pieces))

/* Appends to text 1 to 4 pieces picked by *seed. */
static void S_pick(struct dtk_buf *text, unsigned *seed)
{
	int i, n = 1 + (int)((*seed = *seed * 1103515245u + 12345u) >> 16) % 4;
	for (i = 0; i < n; i++) {
		*seed = *seed * 1103515245u + 12345u;
		dtk_buf_puts(text, S_pieces[(*seed >> 16) % S_N_PIECES]);
	}
}

/* A paragraph of text, runs and text again renders as its text does, for
 * runs of any text (but one ending in '&', which is no run), after text that
 * lets them go out as they are or not, in a row or with text between them;
 * streamed, and read back into a document that is not. */
static void test_runs(void **state)
{
	unsigned seed = 7;
	int round;

	(void)state;
	for (round = 0; round < 3000; round++) {
		struct dtk_buf want = DTK_BUF_INIT, got = DTK_BUF_INIT, before = DTK_BUF_INIT;
		struct dtk_buf parts[3] = {DTK_BUF_INIT, DTK_BUF_INIT, DTK_BUF_INIT},
		               after = DTK_BUF_INIT;
		char *runs[3] = {NULL, NULL, NULL};
		size_t lens[3] = {0, 0, 0};
		struct dtk_md *a, *b;
		int k;

		S_pick(&before, &seed);
		for (k = 0; k < 3; k++) {
			struct dtk_md *r = dtk_md_new_run();
			S_pick(&parts[k], &seed);
			dtk_md_text(r, parts[k].ptr);
			runs[k] = dtk_md_run_render(r, &lens[k]);
			dtk_md_free(r);
			assert_int_equal(runs[k] == NULL, parts[k].ptr[parts[k].len - 1] == '&');
		}
		S_pick(&after, &seed);
		a = dtk_md_new_stream(dtk_buf_write, &want);
		b = round % 2 ? dtk_md_new_stream(dtk_buf_write, &got) : dtk_md_new();
		dtk_md_heading(a, 2);
		dtk_md_text(a, "h");
		dtk_md_close(a);
		dtk_md_heading(b, 2);
		dtk_md_text(b, "h");
		dtk_md_close(b);
		dtk_md_paragraph(a);
		dtk_md_paragraph(b);
		dtk_md_text(a, before.ptr);
		dtk_md_text(b, before.ptr);
		for (k = 0; k < 3; k++) {
			if (k && (round / 2) % 3 == k) { /* text between two runs */
				dtk_md_text(a, S_pieces[round % S_N_PIECES]);
				dtk_md_text(b, S_pieces[round % S_N_PIECES]);
			}
			dtk_md_text(a, parts[k].ptr);
			if (runs[k])
				dtk_md_rendered(b, runs[k], lens[k]);
			else
				dtk_md_text(b, parts[k].ptr);
		}
		dtk_md_text(a, after.ptr);
		dtk_md_text(b, after.ptr);
		dtk_md_close(a);
		dtk_md_close(b);
		dtk_md_paragraph(a);
		dtk_md_text(a, "next");
		dtk_md_close(a);
		dtk_md_paragraph(b);
		dtk_md_text(b, "next");
		dtk_md_close(b);
		assert_int_equal(dtk_md_finish(a), 0);
		if (round % 2) {
			assert_int_equal(dtk_md_finish(b), 0);
		} else {
			char *s = dtk_md_render(b);
			dtk_buf_puts(&got, s);
			free(s);
		}
		if (got.len != want.len || memcmp(got.ptr, want.ptr, want.len))
			fail_msg("round %d: [%s|%s|%s|%s|%s]\nwant %s\ngot  %s", round, before.ptr,
			         parts[0].ptr, parts[1].ptr, parts[2].ptr, after.ptr, want.ptr,
			         got.ptr);
		dtk_md_free(a);
		dtk_md_free(b);
		for (k = 0; k < 3; k++) {
			free(runs[k]);
			dtk_buf_release(&parts[k]);
		}
		dtk_buf_release(&before);
		dtk_buf_release(&after);
		dtk_buf_release(&want);
		dtk_buf_release(&got);
	}
}

static void test_html(void **state)
{
	struct dtk_md *md = dtk_md_new();
	char *s;
	(void)state;
	dtk_md_paragraph(md);
	dtk_md_text(md, "*a* <b>");
	dtk_md_close(md);
	s = dtk_md_render_html(md);
	assert_string_equal(s, "<p>*a* &lt;b&gt;</p>\n");
	free(s);
	dtk_md_free(md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_blocks),
	        cmocka_unit_test(test_stream_equals_whole),
	        cmocka_unit_test(test_long_text_run),
	        cmocka_unit_test(test_html),
	        cmocka_unit_test(test_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
